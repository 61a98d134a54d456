//! EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS and LESS_EQUAL with broadcasting, as TFLM's
//! `comparisons.cc`: one kernel per input type, parameterised by the predicate; the output is
//! BOOL, one byte per element (0 or 1, as C++ stores `bool`).
//!
//! float32, int32, int64 (and bool for EQUAL and NOT_EQUAL) compare raw values; int8 compares
//! TFLM's rescaled values (`ComparisonWithScaling`: `(x - zero point) << 8` times the input's own
//! scale as a Q31 multiplier below one), so two inputs of different quantization compare by the
//! real values they stand for, with TFLM's exact rounding.
//!
//! Generation time reduces the broadcast to a collapsed output shape and per-input element
//! strides (0 along a broadcast dimension), as the element-wise family does. The output (bytes)
//! must not overlap an input (checked): the lowering declares no in-place contract.

use super::elem::{next_index, Elem};
use super::MAX_RANK;
use crate::kernels::broadcast::disjoint;
use crate::kernels::Within;
use crate::math::multiply_by_quantized_multiplier_smaller_than_one_exp;
use crate::Src;

/// The predicate of a comparison, in [`Comparison::predicate`] and [`ComparisonS8::predicate`].
pub mod predicate {
    /// `a == b` (EQUAL).
    pub const EQUAL: i32 = 0;
    /// `a != b` (NOT_EQUAL).
    pub const NOT_EQUAL: i32 = 1;
    /// `a > b` (GREATER).
    pub const GREATER: i32 = 2;
    /// `a >= b` (GREATER_EQUAL).
    pub const GREATER_EQUAL: i32 = 3;
    /// `a < b` (LESS).
    pub const LESS: i32 = 4;
    /// `a <= b` (LESS_EQUAL).
    pub const LESS_EQUAL: i32 = 5;
}

/// Constants of a comparison of raw values (float32, int32, int64, bool).
#[derive(Clone, Copy, Debug)]
pub struct Comparison<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Which comparison: one of the [`predicate`] constants (any other value compares as LESS_EQUAL).
    pub predicate: i32,
}

/// Constants of an int8 comparison, TFLM's `ComparisonParams` as `ComparisonsPrepare` sets them.
#[derive(Clone, Copy, Debug)]
pub struct ComparisonS8<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Which comparison: one of the [`predicate`] constants (any other value compares as LESS_EQUAL).
    pub predicate: i32,
    /// Minus input 1's zero point.
    pub a_offset: i32,
    /// `QuantizeMultiplierSmallerThanOneExp(input 1 scale)`: the multiplier (Q31).
    pub a_multiplier: i32,
    /// Its shift (at most 0).
    pub a_shift: i32,
    /// Minus input 2's zero point.
    pub b_offset: i32,
    /// `QuantizeMultiplierSmallerThanOneExp(input 2 scale)`: the multiplier (Q31).
    pub b_multiplier: i32,
    /// Its shift (at most 0).
    pub b_shift: i32,
}

/// `compare` with the closure of `predicate` over the pair of values `pair` makes of two
/// elements: the predicate is chosen once per call, not per element.
#[inline(always)]
fn by_predicate<T: Elem, V: PartialOrd>(
    arena: &mut [u8],
    io: (Src, Src, usize),
    walk: (&[usize], &[usize], &[usize]),
    predicate: i32,
    pair: impl Fn(T, T) -> (V, V),
) {
    match predicate {
        predicate::EQUAL => compare(arena, io, walk, |x, y| {
            let (u, v) = pair(x, y);
            u == v
        }),
        predicate::NOT_EQUAL => compare(arena, io, walk, |x, y| {
            let (u, v) = pair(x, y);
            u != v
        }),
        predicate::GREATER => compare(arena, io, walk, |x, y| {
            let (u, v) = pair(x, y);
            u > v
        }),
        predicate::GREATER_EQUAL => compare(arena, io, walk, |x, y| {
            let (u, v) = pair(x, y);
            u >= v
        }),
        predicate::LESS => compare(arena, io, walk, |x, y| {
            let (u, v) = pair(x, y);
            u < v
        }),
        _ => compare(arena, io, walk, |x, y| {
            let (u, v) = pair(x, y);
            u <= v
        }),
    }
}

/// bool comparison (EQUAL and NOT_EQUAL in TFLM): the stored bytes compared.
#[cfg_attr(target_os = "none", inline(never))]
pub fn compare_bool(arena: &mut [u8], a: Src, b: Src, output: usize, p: &Comparison) {
    let p = super::opaque(p);
    let walk = (p.shape, p.a_strides, p.b_strides);
    by_predicate(arena, (a, b, output), walk, p.predicate, |x: u8, y: u8| {
        (x, y)
    });
}

/// float32 comparison (IEEE: every predicate but NOT_EQUAL is false with a NaN).
#[cfg_attr(target_os = "none", inline(never))]
pub fn compare_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &Comparison) {
    let p = super::opaque(p);
    let walk = (p.shape, p.a_strides, p.b_strides);
    by_predicate(
        arena,
        (a, b, output),
        walk,
        p.predicate,
        |x: f32, y: f32| (x, y),
    );
}

/// int32 comparison.
#[cfg_attr(target_os = "none", inline(never))]
pub fn compare_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &Comparison) {
    let p = super::opaque(p);
    let walk = (p.shape, p.a_strides, p.b_strides);
    by_predicate(
        arena,
        (a, b, output),
        walk,
        p.predicate,
        |x: i32, y: i32| (x, y),
    );
}

/// int64 comparison.
#[cfg_attr(target_os = "none", inline(never))]
pub fn compare_s64(arena: &mut [u8], a: Src, b: Src, output: usize, p: &Comparison) {
    let p = super::opaque(p);
    let walk = (p.shape, p.a_strides, p.b_strides);
    by_predicate(
        arena,
        (a, b, output),
        walk,
        p.predicate,
        |x: i64, y: i64| (x, y),
    );
}

/// int8 comparison of the rescaled values, as TFLM's `ComparisonWithScaling`: each input
/// `(x - zero point) * 2^8` multiplied by its own scale's Q31 multiplier (rounding as gemmlowp),
/// then compared as int32.
#[cfg_attr(target_os = "none", inline(never))]
pub fn compare_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &ComparisonS8) {
    let p = super::opaque(p);
    let walk = (p.shape, p.a_strides, p.b_strides);
    let scale = |x: i8, offset: i32, multiplier: i32, shift: i32| {
        // (x - zero point) fits 9 bits: times TFLM's 2^kLeftShift (8) it is far from overflow.
        multiply_by_quantized_multiplier_smaller_than_one_exp(
            (offset + i32::from(x)) * 256,
            multiplier,
            shift,
        )
    };
    let pair = |x: i8, y: i8| {
        (
            scale(x, p.a_offset, p.a_multiplier, p.a_shift),
            scale(y, p.b_offset, p.b_multiplier, p.b_shift),
        )
    };
    by_predicate(arena, (a, b, output), walk, p.predicate, pair);
}

/// `out[i] = f(a[ia], b[ib])` as one byte (0 or 1) over `shape` in C order, where `ia`/`ib`
/// follow `a_strides`/`b_strides`. The output must not overlap an input (checked): the lowering
/// declares no in-place contract, so no plan makes one, and one loop (a scalar is a row of one
/// element) keeps the kernel at one copy of `f` per predicate, as in C.
#[inline(always)]
fn compare<T: Elem>(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    f: impl Fn(T, T) -> bool,
) {
    let rank = shape.len();
    assert!(rank <= MAX_RANK && a_strides.len() == rank && b_strides.len() == rank);
    // A scalar is a row of one element.
    let (shape, a_strides, b_strides) = if rank == 0 {
        (&[1usize][..], &[0usize][..], &[0usize][..])
    } else {
        (shape, a_strides, b_strides)
    };
    let rank = shape.len();
    let total: usize = crate::kernels::elements(shape);
    if total == 0 {
        return;
    }
    let in_len = |strides: &[usize]| {
        // One past the last element the input is read at.
        1 + shape
            .iter()
            .zip(strides)
            .map(|(n, s)| (n - 1) * s)
            .sum::<usize>()
    };
    let (a_len, b_len) = (in_len(a_strides) * T::SIZE, in_len(b_strides) * T::SIZE);
    let inner = shape[rank - 1];
    let (a_step, b_step) = (a_strides[rank - 1], b_strides[rank - 1]);
    let outer = shape.at(..rank - 1);
    let mut index = [0usize; MAX_RANK];
    let size = T::SIZE;
    let Some((xa, xb, out)) = disjoint(arena, (a, a_len), (b, b_len), output, total) else {
        panic!("comparison output overlaps an input");
    };
    for row in out.chunks_exact_mut(inner) {
        let idx = index.at(..rank - 1);
        let a_pos: usize = idx.iter().zip(a_strides).map(|(i, s)| i * s).sum();
        let b_pos: usize = idx.iter().zip(b_strides).map(|(i, s)| i * s).sum();
        for (i, o) in row.iter_mut().enumerate() {
            let (ia, ib) = (a_pos + i * a_step, b_pos + i * b_step);
            let x = T::read(xa.at(ia * size..));
            let y = T::read(xb.at(ib * size..));
            *o = u8::from(f(x, y));
        }
        next_index(index.at_mut(..rank - 1), outer);
    }
}

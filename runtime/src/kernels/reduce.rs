//! The reductions MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL over any set of axes (TFLM's reduce.cc).
//!
//! Generation time splits the input's dimensions into kept ones (which index the output, in order)
//! and reduced ones, merging adjacent dimensions of the same kind. Each output element is the
//! reduction of its reduced elements, visited in the input's C order — the order in which TFLM
//! accumulates, which matters for float32 — so no scratch accumulator is needed. An empty input
//! gives what TFLM's reference reductions leave: the initial value (0 for the sums, the type's
//! lowest or highest value for the maximum or minimum) and, for the integer path, 0.

use super::elem::{load, next_index, Elem};
use super::nn_common::views;
use super::MAX_RANK;
use crate::math::multiply_by_quantized_multiplier;
use crate::Src;

/// Constants of TFLM's integer MEAN and SUM (`QuantizedMeanOrSum`), for int8 and int16.
#[derive(Clone, Copy, Debug)]
pub struct QuantizedMeanOrSum<'a> {
    /// Input size in bytes.
    pub input_bytes: usize,
    /// Extents of the kept dimensions (the output, in C order).
    pub kept_shape: &'a [usize],
    /// Input element stride of each kept dimension.
    pub kept_strides: &'a [usize],
    /// Extents of the reduced dimensions.
    pub reduced_shape: &'a [usize],
    /// Input element stride of each reduced dimension.
    pub reduced_strides: &'a [usize],
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// TFLM's multiplier: `QuantizeMultiplier(s_in / s_out)`, for MEAN divided by the element
    /// count as TFLM's Eval does.
    pub multiplier: i32,
    /// The matching shift.
    pub shift: i32,
}

/// Constants of a reduction with no rescaling: float32 MEAN and SUM, and REDUCE_MAX and REDUCE_MIN
/// (float32, and int8 with the same quantization in and out).
#[derive(Clone, Copy, Debug)]
pub struct Reduction<'a> {
    /// Input size in bytes.
    pub input_bytes: usize,
    /// Extents of the kept dimensions (the output, in C order).
    pub kept_shape: &'a [usize],
    /// Input element stride of each kept dimension.
    pub kept_strides: &'a [usize],
    /// Extents of the reduced dimensions.
    pub reduced_shape: &'a [usize],
    /// Input element stride of each reduced dimension.
    pub reduced_strides: &'a [usize],
}

/// TFLM's integer MEAN or SUM (`QuantizedMeanOrSum`): per output, `sum - zp_in * n` (the sum wraps
/// in int32, as TFLM's; `run_sum(start, len, step)` is the wrapping sum of one run of input
/// elements, and wrapping addition is associative) requantized with the multiplier, plus `zp_out`,
/// clamped to `lo..=hi` and passed to `write(o, value)` in output order. With no reduced element
/// (an empty input) TFLM returns before requantizing, leaving 0.
#[inline(always)]
fn mean_or_sum_integer(
    p: &QuantizedMeanOrSum,
    (lo, hi): (i32, i32),
    run_sum: impl Fn(usize, usize, usize) -> i32,
    mut write: impl FnMut(usize, i32),
) {
    let outputs: usize = crate::kernels::elements(p.kept_shape);
    let n: usize = crate::kernels::elements(p.reduced_shape);
    let zero_sum = p.input_zero_point as i64 * n as i64;
    for_each_output(p.kept_shape, p.kept_strides, outputs, |o, base| {
        if n == 0 {
            write(o, 0);
            return;
        }
        let mut sum = 0i32;
        for_each_run(
            p.reduced_shape,
            p.reduced_strides,
            base,
            |start, len, step| sum = sum.wrapping_add(run_sum(start, len, step)),
        );
        let shifted = (sum as i64 - zero_sum) as i32;
        let v =
            multiply_by_quantized_multiplier(shifted, p.multiplier, p.shift) + p.output_zero_point;
        write(o, crate::kernels::clamp(v, lo, hi));
    });
}

/// int8 MEAN or SUM: per output, `sum - zp_in * n` requantized with the multiplier, plus `zp_out`,
/// clamped. Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mean_or_sum_s8(arena: &mut [u8], input: usize, output: usize, p: &QuantizedMeanOrSum) {
    let p = super::opaque(p);
    let outputs: usize = crate::kernels::elements(p.kept_shape);
    let (src, dst) = views::split(arena, input, p.input_bytes, output, outputs);
    mean_or_sum_s8_into(src, dst, p);
}

/// [`mean_or_sum_s8`] from `src` into `dst` (at least the kept elements).
#[inline(always)]
fn mean_or_sum_s8_into(src: &[u8], dst: &mut [u8], p: &QuantizedMeanOrSum) {
    let run_sum = |start: usize, len: usize, step: usize| {
        let mut sum = 0i32;
        if step == 1 {
            for &x in &src[start..start + len] {
                sum = sum.wrapping_add(x as i8 as i32);
            }
        } else {
            for k in 0..len {
                sum = sum.wrapping_add(src[start + k * step] as i8 as i32);
            }
        }
        sum
    };
    mean_or_sum_integer(p, (-128, 127), run_sum, |o, v| dst[o] = v as i8 as u8);
}

/// int16 MEAN or SUM (TFLM's `QuantizedMeanOrSum<int16_t>`): as [`mean_or_sum_s8`], clamped to
/// int16. Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mean_or_sum_s16(arena: &mut [u8], input: usize, output: usize, p: &QuantizedMeanOrSum) {
    let p = super::opaque(p);
    let outputs: usize = crate::kernels::elements(p.kept_shape);
    let (src, dst) = views::split(arena, input, p.input_bytes, output, 2 * outputs);
    mean_or_sum_s16_into(src, dst, p);
}

/// [`mean_or_sum_s16`] from `src` into `dst` (at least the kept elements).
#[inline(always)]
fn mean_or_sum_s16_into(src: &[u8], dst: &mut [u8], p: &QuantizedMeanOrSum) {
    let run_sum = |start: usize, len: usize, step: usize| {
        let mut sum = 0i32;
        for k in 0..len {
            let i = 2 * (start + k * step);
            sum = sum.wrapping_add(i32::from(i16::from_le_bytes([src[i], src[i + 1]])));
        }
        sum
    };
    mean_or_sum_integer(p, (-32768, 32767), run_sum, |o, v| {
        dst[2 * o..2 * o + 2].copy_from_slice(&(v as i16).to_le_bytes())
    });
}

/// Per output of a float32 reduction, the float sum of its elements in C order (from 0, as TFLM's
/// `ReduceGeneric` and `Mean`), written as `finish(sum, n)` with `n` their count.
#[inline(always)]
fn sum_f32_each(
    arena: &mut [u8],
    input: usize,
    output: usize,
    p: &Reduction,
    finish: fn(f32, usize) -> f32,
) {
    let outputs: usize = crate::kernels::elements(p.kept_shape);
    let (src, dst) = views::split(arena, input, p.input_bytes, output, outputs * 4);
    sum_f32_into(src, dst, p, finish);
}

/// [`sum_f32_each`] from `src` into `dst` (at least the kept elements).
#[inline(always)]
fn sum_f32_into(src: &[u8], dst: &mut [u8], p: &Reduction, finish: fn(f32, usize) -> f32) {
    let outputs: usize = crate::kernels::elements(p.kept_shape);
    let n: usize = crate::kernels::elements(p.reduced_shape);
    let read =
        |i: usize| f32::from_le_bytes([src[4 * i], src[4 * i + 1], src[4 * i + 2], src[4 * i + 3]]);
    for_each_output(p.kept_shape, p.kept_strides, outputs, |o, base| {
        let mut sum = 0.0f32;
        for_each_run(
            p.reduced_shape,
            p.reduced_strides,
            base,
            |start, len, step| {
                for k in 0..len {
                    sum += read(start + k * step);
                }
            },
        );
        dst[4 * o..4 * o + 4].copy_from_slice(&finish(sum, n).to_le_bytes());
    });
}

/// float32 MEAN: per output, the float sum of its elements in C order divided by their count.
/// Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mean_f32(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    sum_f32_each(arena, input, output, p, mean_finish);
}

/// float32 MEAN's last step: the sum divided by the element count (0 for none).
fn mean_finish(sum: f32, n: usize) -> f32 {
    if n > 0 {
        sum / n as f32
    } else {
        0.0
    }
}

/// float32 SUM: per output, the float sum of its elements in C order, from 0 (TFLM's
/// `ReduceGeneric` with `in + current`). Writes the output in order; the output must not overlap
/// the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sum_f32(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    sum_f32_each(arena, input, output, p, |sum, _| sum);
}

/// TFLM's `ReduceGeneric` for REDUCE_MAX and REDUCE_MIN: per output, from `init`,
/// `acc = pick(acc, x)` over its elements in C order.
#[inline(always)]
fn extremum<T: Elem>(
    arena: &mut [u8],
    (input, output): (usize, usize),
    p: &Reduction,
    init: T,
    pick: impl Fn(T, T) -> T,
) {
    let outputs: usize = crate::kernels::elements(p.kept_shape);
    let (src, dst) = views::split(arena, input, p.input_bytes, output, outputs * T::SIZE);
    extremum_into(src, dst, p, init, pick);
}

/// [`extremum`] from `src` into `dst` (at least the kept elements).
#[inline(always)]
fn extremum_into<T: Elem>(
    src: &[u8],
    dst: &mut [u8],
    p: &Reduction,
    init: T,
    pick: impl Fn(T, T) -> T,
) {
    let outputs: usize = crate::kernels::elements(p.kept_shape);
    for_each_output(p.kept_shape, p.kept_strides, outputs, |o, base| {
        let mut acc = init;
        for_each_run(
            p.reduced_shape,
            p.reduced_strides,
            base,
            |start, len, step| {
                for k in 0..len {
                    acc = pick(
                        acc,
                        T::read(&src[T::SIZE * (start + k * step)..][..T::SIZE]),
                    );
                }
            },
        );
        acc.write(&mut dst[T::SIZE * o..][..T::SIZE]);
    });
}

/// float32 REDUCE_MAX: per output, from `f32::MIN` (C++'s `lowest()`), `x > acc ? x : acc` over
/// its elements in C order, exactly TFLM's comparison: a NaN is never taken, and an output whose
/// elements are all below `f32::MIN` (−∞) or NaN is `f32::MIN`. Writes the output in order; the
/// output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn max_f32(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    let pick = |acc: f32, x: f32| if x > acc { x } else { acc };
    extremum(arena, (input, output), p, f32::MIN, pick);
}

/// float32 REDUCE_MIN: as [`max_f32`] from `f32::MAX` with `x < acc ? x : acc`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn min_f32(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    let pick = |acc: f32, x: f32| if x < acc { x } else { acc };
    extremum(arena, (input, output), p, f32::MAX, pick);
}

/// int8 REDUCE_MAX (same quantization in and out): per output, the largest element, -128 for an
/// empty one. Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn max_s8(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    extremum(arena, (input, output), p, i8::MIN, i8::max);
}

/// int8 REDUCE_MIN: as [`max_s8`] with the smallest element, 127 for an empty one.
#[cfg_attr(target_os = "none", inline(never))]
pub fn min_s8(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    extremum(arena, (input, output), p, i8::MAX, i8::min);
}

/// REDUCE_ALL (bool, one byte per element as TFLM stores it): per output, 1 when every element
/// is non-zero, else 0; 1 for an empty one (TFLM's `ReduceGeneric` from `true` with
/// `in && current`). Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn all_b(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    extremum(arena, (input, output), p, 1u8, |acc: u8, x: u8| {
        u8::from(acc != 0 && x != 0)
    });
}

/// [`ReduceDyn::kind`] of MEAN.
pub const DYN_MEAN: usize = 0;
/// [`ReduceDyn::kind`] of SUM.
pub const DYN_SUM: usize = 1;
/// [`ReduceDyn::kind`] of REDUCE_MAX.
pub const DYN_MAX: usize = 2;
/// [`ReduceDyn::kind`] of REDUCE_MIN.
pub const DYN_MIN: usize = 3;
/// [`ReduceDyn::kind`] of REDUCE_ALL.
pub const DYN_ALL: usize = 4;

/// Constants of a MEAN, SUM, REDUCE_MAX, REDUCE_MIN or REDUCE_ALL whose axes are computed at run
/// time: TFLM's
/// Prepare reads only the axis tensor's type and element count (and sizes its scratch buffers
/// from them, the input's rank and the output), its Eval reads the axes per call.
#[derive(Clone, Copy, Debug)]
pub struct ReduceDyn<'a> {
    /// Input shape (at most `MAX_RANK` dimensions).
    pub shape: &'a [usize],
    /// Elements of the (static) output.
    pub output_len: usize,
    /// Elements of the INT32 axis tensor.
    pub num_axes: usize,
    /// Which reduction: 0 MEAN, 1 SUM, 2 REDUCE_MAX, 3 REDUCE_MIN, 4 REDUCE_ALL (`DYN_*`).
    pub kind: usize,
    /// Bytes per element: 4 (float32), 1 (int8, or REDUCE_ALL's bool) or 2 (int16, MEAN and SUM
    /// only).
    pub elem_bytes: usize,
    /// Integer MEAN and SUM: the input zero point.
    pub input_zero_point: i32,
    /// Integer MEAN and SUM: the output zero point.
    pub output_zero_point: i32,
    /// Integer MEAN and SUM: `QuantizeMultiplier(s_in / s_out)` (Prepare's); MEAN divides it by
    /// the element count per call, as TFLM's Eval does.
    pub multiplier: i32,
    /// Its shift.
    pub shift: i32,
    /// float32 MEAN with keep_dims of a rank-4 input and two axes, whose Eval takes its 4-D path
    /// when the axes, narrowed to int16, are 1 and 2 in either order.
    pub mean_4d: bool,
    /// Where [`ReduceDyn::mean_4d`]: the output's shape extended to rank 4 (empty if its rank is
    /// above 4, which that path aborts on); empty otherwise.
    pub mean_4d_output: &'a [usize],
}

/// TFLM's integer MEAN rescaling for `n` elements (`QuantizedMeanOrSum`): the multiplier shifted
/// left by `min(floor(log2 n), 32, 31 + shift)` and divided by `n`; `None` where that shift is
/// negative (an undefined shift in TFLM) or `n` is 0.
fn mean_rescaling(multiplier: i32, shift: i32, n: usize) -> Option<(i32, i32)> {
    if n == 0 {
        return None;
    }
    let log2 = 63 - (n as u64).leading_zeros() as i32;
    let s = log2.min(32).min(31 + shift);
    if s < 0 {
        return None;
    }
    let m = (i64::from(multiplier) << s) / n as i64;
    Some((m as i32, shift - s))
}

/// Runs of (extent, element stride) of the kept and the reduced dimensions of `shape`, size-1
/// dimensions dropped and adjacent ones of the same kind merged, as the lowering's `split_axes`
/// makes them for a constant axis; returns how many of each.
fn runs(
    shape: &[usize],
    reduced: &[bool],
    kept: &mut [[usize; MAX_RANK]; 2],
    red: &mut [[usize; MAX_RANK]; 2],
) -> (usize, usize) {
    let (mut nk, mut nr) = (0usize, 0usize);
    let mut last: Option<bool> = None;
    let mut stride = 1usize;
    // Walk from the last dimension (its stride 1) back, merging into the run started after it.
    for d in (0..shape.len()).rev() {
        let extent = shape[d];
        if extent != 1 {
            let (list, n) = if reduced[d] {
                (&mut *red, &mut nr)
            } else {
                (&mut *kept, &mut nk)
            };
            // The run after it in C order starts right after this dimension (only size-1
            // dimensions between): one run, of the later run's stride.
            if last == Some(reduced[d]) {
                list[0][*n - 1] *= extent;
            } else {
                list[0][*n] = extent;
                list[1][*n] = stride;
                *n += 1;
            }
            last = Some(reduced[d]);
        }
        stride *= extent;
    }
    // Built from the last dimension: put them in C order.
    kept[0][..nk].reverse();
    kept[1][..nk].reverse();
    red[0][..nr].reverse();
    red[1][..nr].reverse();
    (nk, nr)
}

/// MEAN, SUM, REDUCE_MAX, REDUCE_MIN or REDUCE_ALL over the axes the INT32 tensor `axis` holds (each plus the
/// rank if negative, a repeated one reduced once), read per call as TFLM's Eval reads them, with
/// its results bit for bit: the output elements the kept dimensions index (in C order, whatever
/// the output's static shape) are computed as the constant-axis kernels compute them, and those
/// past them (axes reducing more than the output was shaped for) hold what TFLM leaves there: the
/// reduction's initial value (0, the type's lowest or highest, true) or, for the integer MEAN and SUM,
/// the rescaled sum of nothing. A float32 MEAN of [`ReduceDyn::mean_4d`] takes TFLM's 4-D path
/// where TFLM does (axes 1 and 2 by their low 16 bits, not range-checked). Where TFLM fails or is
/// undefined the output is zeros: an axis out of range (TFLM's Eval fails; its integer MEAN and
/// SUM leave zeros and succeed), more kept elements than the output holds (written past its end),
/// the 4-D path on an output it does not fit (an abort, or reads past the input), a MEAN
/// rescaling TFLM would shift by a negative amount. An input with a zero-size dimension leaves the
/// whole output at the initial value (0 for the integer MEAN and SUM), whatever the axes, as
/// TFLM's reduce.h returns before it resolves them. The input may be a constant (read where it
/// is); the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn reduce_dyn(arena: &mut [u8], input: Src, axis: Src, output: usize, p: &ReduceDyn) {
    let p = super::opaque(p);
    let rank = p.shape.len();
    assert!(rank <= MAX_RANK && matches!(p.elem_bytes, 1 | 2 | 4) && p.kind <= DYN_ALL);
    let size = p.elem_bytes;
    // The axes first (the arena is then split): the reduced dimensions, or None where TFLM's
    // ResolveAxis fails; a scalar resolves none, whatever the list says.
    let mut reduced = [false; MAX_RANK];
    let mut valid = true;
    let mut first_two = [0i32; 2];
    for i in 0..p.num_axes {
        let mut a = [0i32];
        load(arena, axis, i, &mut a);
        if let Some(first) = first_two.get_mut(i) {
            *first = a[0];
        }
        match super::run_time_axis(a[0], rank) {
            Some(r) => reduced[r] = true,
            None => valid = false,
        }
    }
    let valid = valid || rank == 0;
    let total: usize = crate::kernels::elements(p.shape);
    let (src, dst) = views::split_src(arena, input, total * size, output, p.output_len * size);
    if total == 0 {
        // reduce.h's ReduceGeneric and QuantizedMeanOrSum fill the whole output (with the
        // initial value, or 0 for the integer MEAN and SUM) and then return on an input with a
        // zero-size dimension, before the axes are even resolved. (A float MEAN has no such
        // return: the lowering refuses an empty input to it.)
        match (p.kind, size) {
            (DYN_MAX, 4) => fill(dst, f32::MIN),
            (DYN_MIN, 4) => fill(dst, f32::MAX),
            (DYN_MAX, 1) => fill(dst, i8::MIN),
            (DYN_MIN, 1) => fill(dst, i8::MAX),
            (DYN_ALL, 1) => fill(dst, 1u8),
            _ => dst.fill(0),
        }
        return;
    }
    let mut kept = [[0usize; MAX_RANK]; 2];
    let mut red = [[0usize; MAX_RANK]; 2];
    let (nk, nr);
    let special = p.mean_4d
        && p.num_axes == 2
        && matches!((first_two[0] as i16, first_two[1] as i16), (1, 2) | (2, 1));
    if special {
        // reference_ops::Mean's 4-D path: per (b, d) of the output's [ob, 1, 1, od], the mean
        // of input[b, .., .., d]; it CHECKs the output's rank and its 1s, and reads past the
        // input where ob or od exceed the input's.
        let o = p.mean_4d_output;
        let fits = o.len() == 4
            && o[1] == 1
            && o[2] == 1
            && o[0] <= p.shape[0]
            && o[3] <= p.shape[3]
            && o[0] * o[3] == p.output_len;
        if !fits {
            dst.fill(0);
            return;
        }
        let (h, w, d) = (p.shape[1], p.shape[2], p.shape[3]);
        kept = [[o[0], o[3], 0, 0, 0, 0], [h * w * d, 1, 0, 0, 0, 0]];
        red = [[h, w, 0, 0, 0, 0], [w * d, d, 0, 0, 0, 0]];
        (nk, nr) = (2, 2);
    } else if !valid {
        dst.fill(0);
        return;
    } else {
        (nk, nr) = runs(p.shape, &reduced[..rank], &mut kept, &mut red);
    }
    let outputs: usize = crate::kernels::elements(&kept[0][..nk]);
    if outputs > p.output_len {
        dst.fill(0);
        return;
    }
    let n: usize = crate::kernels::elements(&red[0][..nr]);
    let r = Reduction {
        input_bytes: total * size,
        kept_shape: &kept[0][..nk],
        kept_strides: &kept[1][..nk],
        reduced_shape: &red[0][..nr],
        reduced_strides: &red[1][..nr],
    };
    let (head, tail) = dst.split_at_mut(outputs * size);
    match (p.kind, size) {
        (DYN_MEAN, 4) => {
            sum_f32_into(src, head, &r, mean_finish);
            tail.fill(0);
        }
        (DYN_SUM, 4) => {
            sum_f32_into(src, head, &r, |sum, _| sum);
            tail.fill(0);
        }
        (DYN_MAX, 4) => {
            let pick = |acc: f32, x: f32| if x > acc { x } else { acc };
            extremum_into(src, head, &r, f32::MIN, pick);
            fill(tail, f32::MIN);
        }
        (DYN_MIN, 4) => {
            let pick = |acc: f32, x: f32| if x < acc { x } else { acc };
            extremum_into(src, head, &r, f32::MAX, pick);
            fill(tail, f32::MAX);
        }
        (DYN_MAX, 1) => {
            extremum_into(src, head, &r, i8::MIN, i8::max);
            fill(tail, i8::MIN);
        }
        (DYN_MIN, 1) => {
            extremum_into(src, head, &r, i8::MAX, i8::min);
            fill(tail, i8::MAX);
        }
        (DYN_ALL, 1) => {
            extremum_into(src, head, &r, 1u8, |acc: u8, x: u8| {
                u8::from(acc != 0 && x != 0)
            });
            fill(tail, 1u8);
        }
        (DYN_MEAN | DYN_SUM, 1 | 2) => {
            let (multiplier, shift) = if p.kind == DYN_MEAN && n > 0 {
                match mean_rescaling(p.multiplier, p.shift, n) {
                    Some(m) => m,
                    None => {
                        head.fill(0);
                        tail.fill(0);
                        return;
                    }
                }
            } else {
                (p.multiplier, p.shift)
            };
            let q = QuantizedMeanOrSum {
                input_bytes: total * size,
                kept_shape: r.kept_shape,
                kept_strides: r.kept_strides,
                reduced_shape: r.reduced_shape,
                reduced_strides: r.reduced_strides,
                input_zero_point: p.input_zero_point,
                output_zero_point: p.output_zero_point,
                multiplier,
                shift,
            };
            // TFLM's loop requantizes every output, those past the kept ones from a sum of 0;
            // with no element at all it returns before, leaving 0.
            let rest = if n == 0 {
                0
            } else {
                let shifted = (-(i64::from(p.input_zero_point) * n as i64)) as i32;
                multiply_by_quantized_multiplier(shifted, multiplier, shift) + p.output_zero_point
            };
            if size == 1 {
                mean_or_sum_s8_into(src, head, &q);
                fill(tail, crate::kernels::clamp(rest, -128, 127) as i8);
            } else {
                mean_or_sum_s16_into(src, head, &q);
                fill(tail, crate::kernels::clamp(rest, -32768, 32767) as i16);
            }
        }
        _ => dst.fill(0),
    }
}

/// Writes `value` to every element of `dst`.
fn fill<T: Elem>(dst: &mut [u8], value: T) {
    for c in dst.chunks_exact_mut(T::SIZE) {
        value.write(c);
    }
}

/// Calls `f(output_index, input_base)` for each of the `outputs` output elements in order.
#[inline(always)]
fn for_each_output(
    shape: &[usize],
    strides: &[usize],
    outputs: usize,
    mut f: impl FnMut(usize, usize),
) {
    assert!(shape.len() <= MAX_RANK && strides.len() == shape.len());
    let mut index = [0usize; MAX_RANK];
    for o in 0..outputs {
        let base = index.iter().zip(strides).map(|(i, s)| i * s).sum();
        f(o, base);
        next_index(&mut index[..shape.len()], shape);
    }
}

/// Calls `f(start, len, step)` for each innermost run of the reduced elements from `base`, in C order.
#[inline(always)]
fn for_each_run(
    shape: &[usize],
    strides: &[usize],
    base: usize,
    mut f: impl FnMut(usize, usize, usize),
) {
    let rank = shape.len();
    assert!(rank <= MAX_RANK && strides.len() == rank);
    if rank == 0 {
        f(base, 1, 1);
        return;
    }
    if shape.contains(&0) {
        return;
    }
    let mut index = [0usize; MAX_RANK];
    loop {
        let start = base
            + index[..rank - 1]
                .iter()
                .zip(strides)
                .map(|(i, s)| i * s)
                .sum::<usize>();
        f(start, shape[rank - 1], strides[rank - 1]);
        if !next_index(&mut index[..rank - 1], &shape[..rank - 1]) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    #[test]
    fn mean_s8_over_hw() {
        // NHWC 1x2x2x2, mean over H and W: kept [C=2] stride 1, reduced [HW=4] stride 2.
        let input = [1i8, -1, 2, -2, 3, -3, 5, -5];
        let mut arena = [0u8; 10];
        for (a, &x) in arena.iter_mut().zip(&input) {
            *a = x as u8;
        }
        // Same scale in and out: QuantizeMultiplier(1.0) = (2^30, 1); TFLM then divides by n = 4:
        // shift = min(floor(log2 4) = 2, 32, 31 + 1) = 2, multiplier (2^30 << 2) / 4 = 2^30, shift -1.
        let p = QuantizedMeanOrSum {
            input_bytes: 8,
            kept_shape: &[2],
            kept_strides: &[1],
            reduced_shape: &[4],
            reduced_strides: &[2],
            input_zero_point: 1,
            output_zero_point: 1,
            multiplier: 1 << 30,
            shift: -1,
        };
        mean_or_sum_s8(&mut arena, 0, 8, &p);
        // c0: sum 11 - 4 = 7, 7/4 = 1.75 -> 2, +1 = 3; c1: -11 - 4 = -15 -> -3.75 -> -4, +1 = -3.
        assert_eq!(&arena[8..], &[3u8, (-3i8) as u8]);
    }

    /// The int8 case's arithmetic on int16 values (TFLM's one integer path): 1x2x2x2 over H and W,
    /// same scales (multiplier 2^30, shift -1 after the division by 4), zero points 0.
    #[test]
    fn mean_s16_over_hw() {
        let input = [1000i16, -1000, 2000, -2001, 3000, -3000, 32767, -32768];
        let mut arena = [0u8; 20];
        for (c, x) in arena.chunks_exact_mut(2).zip(input) {
            c.copy_from_slice(&x.to_le_bytes());
        }
        let p = QuantizedMeanOrSum {
            input_bytes: 16,
            kept_shape: &[2],
            kept_strides: &[1],
            reduced_shape: &[4],
            reduced_strides: &[2],
            input_zero_point: 0,
            output_zero_point: 0,
            multiplier: 1 << 30,
            shift: -1,
        };
        mean_or_sum_s16(&mut arena, 0, 16, &p);
        // c0: 38767 / 4 = 9691.75 → 9692; c1: -38769 / 4 = -9692.25 → -9692.
        let out = [
            i16::from_le_bytes([arena[16], arena[17]]),
            i16::from_le_bytes([arena[18], arena[19]]),
        ];
        assert_eq!(out, [9692, -9692]);
    }

    #[test]
    fn mean_f32_over_last_axis() {
        let mut arena = [0u8; 24 + 8];
        for (i, v) in [1.0f32, 2.0, 4.0, -1.0, -2.0, 0.0].iter().enumerate() {
            arena[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        let p = Reduction {
            input_bytes: 24,
            kept_shape: &[2],
            kept_strides: &[3],
            reduced_shape: &[3],
            reduced_strides: &[1],
        };
        mean_f32(&mut arena, 0, 24, &p);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 0), 7.0 / 3.0);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 1), -1.0);
    }

    fn f32_arena(values: &[f32; 6]) -> [u8; 32] {
        let mut arena = [0u8; 32];
        for (c, v) in arena.chunks_exact_mut(4).zip(values) {
            c.copy_from_slice(&v.to_le_bytes());
        }
        arena
    }

    /// 2x3 over the last axis: SUM, and MAX/MIN with TFLM's NaN and infinity behaviour.
    #[test]
    fn sum_max_min_f32_over_last_axis() {
        let input = [
            1.0f32,
            f32::NAN,
            -4.0,
            f32::NEG_INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        let p = Reduction {
            input_bytes: 24,
            kept_shape: &[2],
            kept_strides: &[3],
            reduced_shape: &[3],
            reduced_strides: &[1],
        };
        let mut arena = f32_arena(&input);
        max_f32(&mut arena, 0, 24, &p);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 0), 1.0);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 1), f32::MIN);
        min_f32(&mut arena, 0, 24, &p);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 0), -4.0);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 1), f32::NEG_INFINITY);
        let mut arena = f32_arena(&[1.0, 2.0, 4.0, -1.0, -2.0, 0.5]);
        sum_f32(&mut arena, 0, 24, &p);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 0), 7.0);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 1), -2.5);
    }

    /// An empty reduced dimension leaves TFLM's initial values; the integer path leaves 0.
    #[test]
    fn empty_reductions_leave_initial_values() {
        let p = Reduction {
            input_bytes: 0,
            kept_shape: &[2],
            kept_strides: &[0],
            reduced_shape: &[0],
            reduced_strides: &[1],
        };
        let mut arena = [9u8; 8];
        max_s8(&mut arena, 0, 0, &p);
        assert_eq!(&arena[..2], &[0x80, 0x80]);
        min_s8(&mut arena, 0, 0, &p);
        assert_eq!(&arena[..2], &[0x7f, 0x7f]);
        let q = QuantizedMeanOrSum {
            input_bytes: 0,
            kept_shape: &[2],
            kept_strides: &[0],
            reduced_shape: &[0],
            reduced_strides: &[1],
            input_zero_point: 3,
            output_zero_point: 5,
            multiplier: 1 << 30,
            shift: 1,
        };
        mean_or_sum_s8(&mut arena, 0, 0, &q);
        assert_eq!(&arena[..2], &[0, 0]);
    }

    /// Runs `reduce_dyn` on a float32 input with the axes in the arena and, a constant, out of it
    /// (both must agree), giving the output's floats.
    fn run_dyn_f32(shape: &[usize], x: &[f32], axes: &[i32], p: &ReduceDyn) -> std::vec::Vec<f32> {
        let bytes: std::vec::Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
        let a: std::vec::Vec<u8> = axes.iter().flat_map(|v| v.to_le_bytes()).collect();
        let (nx, na, no) = (bytes.len(), a.len(), 4 * p.output_len);
        let mut arena = std::vec![0x5au8; nx + na + no];
        arena[..nx].copy_from_slice(&bytes);
        arena[nx..nx + na].copy_from_slice(&a);
        let p = ReduceDyn { shape, ..*p };
        reduce_dyn(&mut arena, Src::Arena(0), Src::Arena(nx), nx + na, &p);
        let mut flash = std::vec![0xa5u8; no];
        reduce_dyn(&mut flash, Src::Bytes(&bytes), Src::Bytes(&a), 0, &p);
        assert_eq!(&arena[nx + na..], &flash[..]);
        flash
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// Run-time axes: as the constant-axis kernels where they reduce to the output; what TFLM
    /// leaves past fewer kept elements; zeros where TFLM fails or is undefined.
    #[test]
    fn reduce_dyn_like_tflm() {
        let x: [f32; 12] = core::array::from_fn(|i| (i + 1) as f32);
        let shape = [2usize, 3, 2];
        let base = ReduceDyn {
            shape: &[],
            output_len: 4,
            num_axes: 1,
            kind: DYN_SUM,
            elem_bytes: 4,
            input_zero_point: 0,
            output_zero_point: 0,
            multiplier: 0,
            shift: 0,
            mean_4d: false,
            mean_4d_output: &[],
        };
        let sum = |axes: &[i32]| {
            let p = ReduceDyn {
                num_axes: axes.len(),
                ..base
            };
            run_dyn_f32(&shape, &x, axes, &p)
        };
        assert_eq!(sum(&[1]), [9.0, 12.0, 27.0, 30.0]);
        assert_eq!(sum(&[-2]), [9.0, 12.0, 27.0, 30.0]);
        // Repeated and negative axes reduce once; the outputs past the kept ones stay 0.
        assert_eq!(sum(&[-1, 1, 1]), [21.0, 57.0, 0.0, 0.0]);
        // Out of range (TFLM's Eval fails), or 6 kept elements for 4 (written past the end).
        for axes in [&[3][..], &[-4], &[i32::MIN], &[i32::MAX], &[1, 3], &[0]] {
            assert_eq!(sum(axes), [0.0; 4], "axes {axes:?}");
        }
        let mean = ReduceDyn {
            kind: DYN_MEAN,
            ..base
        };
        assert_eq!(run_dyn_f32(&shape, &x, &[1], &mean), [3.0, 4.0, 9.0, 10.0]);
        let max = ReduceDyn {
            kind: DYN_MAX,
            num_axes: 2,
            ..base
        };
        assert_eq!(
            run_dyn_f32(&shape, &x, &[0, 2], &max),
            [8.0, 10.0, 12.0, f32::MIN]
        );
        let min = ReduceDyn {
            kind: DYN_MIN,
            num_axes: 2,
            ..base
        };
        assert_eq!(
            run_dyn_f32(&shape, &x, &[2, -3], &min),
            [1.0, 3.0, 5.0, f32::MAX]
        );
        assert_eq!(run_dyn_f32(&shape, &x, &[2, 7], &min), [0.0; 4]);

        // float32 MEAN's 4-D path: [1, 2, 2, 2] with keep_dims, axes 1 and 2 by their low 16
        // bits (65537 is 1), no range check; an output it does not fit gives zeros.
        let shape4 = [1usize, 2, 2, 2];
        let x4: [f32; 8] = core::array::from_fn(|i| i as f32);
        let m4 = ReduceDyn {
            kind: DYN_MEAN,
            num_axes: 2,
            output_len: 2,
            mean_4d: true,
            mean_4d_output: &[1, 1, 1, 2],
            ..base
        };
        assert_eq!(run_dyn_f32(&shape4, &x4, &[1, 2], &m4), [3.0, 4.0]);
        assert_eq!(run_dyn_f32(&shape4, &x4, &[65537, 2], &m4), [3.0, 4.0]);
        assert_eq!(run_dyn_f32(&shape4, &x4, &[2, 1 - 65536], &m4), [3.0, 4.0]);
        // -3 and -2 are the same axes to ResolveAxis, not to the 4-D path's test.
        assert_eq!(run_dyn_f32(&shape4, &x4, &[-3, -2], &m4), [3.0, 4.0]);
        let bad = ReduceDyn {
            mean_4d_output: &[1, 1, 2, 1],
            ..m4
        };
        assert_eq!(run_dyn_f32(&shape4, &x4, &[65537, 2], &bad), [0.0; 2]);
        assert_eq!(run_dyn_f32(&shape4, &x4, &[1, 3], &bad), [2.5, 4.5]);

        // int8 MEAN: the kept part as the constant-axis kernel with TFLM's count-adjusted
        // multiplier, the rest the rescaled mean of nothing.
        let xi: [u8; 12] = core::array::from_fn(|i| (i as i8 * 11 - 60) as u8);
        let q = ReduceDyn {
            kind: DYN_MEAN,
            elem_bytes: 1,
            num_axes: 3,
            output_len: 3,
            input_zero_point: 1,
            output_zero_point: -1,
            multiplier: 1 << 30,
            shift: 1,
            shape: &shape,
            ..base
        };
        let axes: std::vec::Vec<u8> = [0i32, 1, 2].iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut out = [0x5au8; 3];
        reduce_dyn(&mut out, Src::Bytes(&xi), Src::Bytes(&axes), 0, &q);
        let (m, sh) = mean_rescaling(1 << 30, 1, 12).unwrap();
        let stat = QuantizedMeanOrSum {
            input_bytes: 12,
            kept_shape: &[],
            kept_strides: &[],
            reduced_shape: &[12],
            reduced_strides: &[1],
            input_zero_point: 1,
            output_zero_point: -1,
            multiplier: m,
            shift: sh,
        };
        let mut arena = [0u8; 13];
        arena[..12].copy_from_slice(&xi);
        mean_or_sum_s8(&mut arena, 0, 12, &stat);
        assert_eq!(out, [arena[12], (-2i8) as u8, (-2i8) as u8]);
        // An axis out of range: zeros (TFLM's integer MEAN leaves them and succeeds).
        let bad: std::vec::Vec<u8> = [0i32, 1, 5].iter().flat_map(|v| v.to_le_bytes()).collect();
        reduce_dyn(&mut out, Src::Bytes(&xi), Src::Bytes(&bad), 0, &q);
        assert_eq!(out, [0; 3]);
        // int16 SUM over axis 2 of [2, 3, 2]: 6 outputs, same scales.
        let x16: std::vec::Vec<u8> = (0..12i16).flat_map(|v| (v * 1000).to_le_bytes()).collect();
        let q16 = ReduceDyn {
            kind: DYN_SUM,
            elem_bytes: 2,
            num_axes: 1,
            output_len: 6,
            input_zero_point: 0,
            output_zero_point: 0,
            ..q
        };
        let mut out16 = [0u8; 12];
        reduce_dyn(
            &mut out16,
            Src::Bytes(&x16),
            Src::Bytes(&2i32.to_le_bytes()),
            0,
            &q16,
        );
        let got: std::vec::Vec<i16> = out16
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(got, [1000, 5000, 9000, 13000, 17000, 21000]);
        // REDUCE_ALL of bools [2, 3] over axis 1, an output of 3: the rest true.
        let all = ReduceDyn {
            kind: DYN_ALL,
            elem_bytes: 1,
            num_axes: 1,
            output_len: 3,
            shape: &[2, 3],
            ..base
        };
        let mut out = [0x5au8; 3];
        let b = [1u8, 1, 1, 1, 0, 1];
        reduce_dyn(
            &mut out,
            Src::Bytes(&b),
            Src::Bytes(&(-1i32).to_le_bytes()),
            0,
            &all,
        );
        assert_eq!(out, [1, 0, 1]);
        reduce_dyn(
            &mut out,
            Src::Bytes(&b),
            Src::Bytes(&2i32.to_le_bytes()),
            0,
            &all,
        );
        assert_eq!(out, [0; 3]);
        // A negative MEAN shift (TFLM's undefined `<<`): zeros.
        assert_eq!(mean_rescaling(1 << 30, -40, 12), None);
        assert_eq!(mean_rescaling(1 << 30, 1, 4), Some((1 << 30, -1)));
    }

    /// An input with a zero-size dimension (kept or reduced): TFLM's reduce.h fills the whole
    /// output with the initial value (0 for the integer MEAN and SUM, not the requantized sum of
    /// nothing) and returns before it resolves the axes, so an axis out of range changes nothing
    /// (difftest seed 20261201 case 1121: an int8 SUM of [0, 4, 3] over axis 1 wrote the output
    /// zero point).
    #[test]
    fn reduce_dyn_of_an_empty_input_leaves_the_initial_value() {
        let base = ReduceDyn {
            shape: &[0, 4, 3],
            output_len: 12,
            num_axes: 1,
            kind: DYN_SUM,
            elem_bytes: 1,
            input_zero_point: 15,
            output_zero_point: -78,
            multiplier: 1 << 30,
            shift: -1,
            mean_4d: false,
            mean_4d_output: &[],
        };
        let run = |p: &ReduceDyn, axis: i32| {
            let mut out = std::vec![0x5au8; p.output_len * p.elem_bytes];
            reduce_dyn(
                &mut out,
                Src::Bytes(&[]),
                Src::Bytes(&axis.to_le_bytes()),
                0,
                p,
            );
            out
        };
        for axis in [1, 0, -1, 7] {
            for kind in [DYN_SUM, DYN_MEAN] {
                assert_eq!(
                    run(&ReduceDyn { kind, ..base }, axis),
                    [0; 12],
                    "{kind} {axis}"
                );
                let p = ReduceDyn {
                    kind,
                    elem_bytes: 2,
                    ..base
                };
                assert_eq!(run(&p, axis), [0; 24], "{kind} {axis}");
            }
            assert_eq!(
                run(
                    &ReduceDyn {
                        kind: DYN_MAX,
                        ..base
                    },
                    axis
                ),
                [0x80; 12]
            );
            assert_eq!(
                run(
                    &ReduceDyn {
                        kind: DYN_MIN,
                        ..base
                    },
                    axis
                ),
                [0x7f; 12]
            );
            assert_eq!(
                run(
                    &ReduceDyn {
                        kind: DYN_ALL,
                        ..base
                    },
                    axis
                ),
                [1; 12]
            );
            let f32s = |kind, v: f32| {
                let p = ReduceDyn {
                    kind,
                    elem_bytes: 4,
                    ..base
                };
                let want: std::vec::Vec<u8> = (0..12).flat_map(|_| v.to_le_bytes()).collect();
                assert_eq!(run(&p, axis), want, "{kind} {axis}");
            };
            f32s(DYN_SUM, 0.0);
            f32s(DYN_MAX, f32::MIN);
            f32s(DYN_MIN, f32::MAX);
        }
    }
}

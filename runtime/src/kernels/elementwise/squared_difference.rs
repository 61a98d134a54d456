//! SQUARED_DIFFERENCE of every type TFLM's `squared_difference.cc` takes
//! ([`squared_difference_f32`], [`squared_difference_s32`], [`squared_difference_s8`],
//! [`squared_difference_s16`]): `(a - b)²`, the quantized ones with TFLM's `left_shift` scheme.

use super::MinMax;
use crate::kernels::broadcast::binary;
use crate::math::{
    multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_smaller_than_one_exp,
};
use crate::Src;

/// Constants of float32 SQUARED_DIFFERENCE: the broadcast alone (TFLM's has no activation).
pub type SquaredDifferenceF32<'a> = MinMax<'a>;

/// Constants of int32 SQUARED_DIFFERENCE: the broadcast alone (TFLM reads no quantization).
pub type SquaredDifferenceS32<'a> = MinMax<'a>;

/// Constants of int8 SQUARED_DIFFERENCE (TFLM's `PrepareQuantized`): each input is offset,
/// shifted left by `left_shift` and rescaled to `2 * max(s1, s2)`; the difference is squared and
/// rescaled to the output scale, then clamped to int8.
#[derive(Clone, Copy, Debug)]
pub struct SquaredDifferenceS8<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Minus input 1's zero point.
    pub a_offset: i32,
    /// Input 1's multiplier `s1 / (2 max(s1, s2))` (Q31, below one).
    pub a_multiplier: i32,
    /// Input 1's shift (<= 0).
    pub a_shift: i32,
    /// Minus input 2's zero point.
    pub b_offset: i32,
    /// Input 2's multiplier (Q31, below one).
    pub b_multiplier: i32,
    /// Input 2's shift (<= 0).
    pub b_shift: i32,
    /// Left shift applied to both offset inputs (7 for int8, 0 for int16).
    pub left_shift: i32,
    /// Output multiplier `(2 max)² / (2^(2 left_shift) s_out)` (Q31).
    pub output_multiplier: i32,
    /// Output shift (positive = left; the lowering checks the shifted square fits int32).
    pub output_shift: i32,
    /// Output zero point.
    pub output_offset: i32,
}

/// Constants of int16 SQUARED_DIFFERENCE: [`SquaredDifferenceS8`]'s, with a left shift of 0 and
/// the offsets 0 (TFLM requires int16 zero points of 0).
pub type SquaredDifferenceS16<'a> = SquaredDifferenceS8<'a>;

/// TFLM's quantized `SquaredDifference` on one pair before the clamp.
#[inline(always)]
fn squared_difference_one(x: i32, y: i32, p: &SquaredDifferenceS8) -> i32 {
    let a = (p.a_offset + x).wrapping_mul(1 << p.left_shift);
    let b = (p.b_offset + y).wrapping_mul(1 << p.left_shift);
    let a = multiply_by_quantized_multiplier_smaller_than_one_exp(a, p.a_multiplier, p.a_shift);
    let b = multiply_by_quantized_multiplier_smaller_than_one_exp(b, p.b_multiplier, p.b_shift);
    let diff = a.wrapping_sub(b);
    multiply_by_quantized_multiplier(diff.wrapping_mul(diff), p.output_multiplier, p.output_shift)
        .wrapping_add(p.output_offset)
}

/// int8 SQUARED_DIFFERENCE with broadcasting, bit-exact with TFLM. See the module docs for
/// access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn squared_difference_s8(
    arena: &mut [u8],
    a: Src,
    b: Src,
    output: usize,
    p: &SquaredDifferenceS8,
) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i8, y: i8| squared_difference_one(x.into(), y.into(), p).clamp(-128, 127) as i8,
    );
}

/// int16 SQUARED_DIFFERENCE with broadcasting, bit-exact with TFLM. See the module docs for
/// access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn squared_difference_s16(
    arena: &mut [u8],
    a: Src,
    b: Src,
    output: usize,
    p: &SquaredDifferenceS16,
) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i16, y: i16| squared_difference_one(x.into(), y.into(), p).clamp(-32768, 32767) as i16,
    );
}

/// float32 SQUARED_DIFFERENCE with broadcasting: `d * d` for `d = a - b`, in single precision.
/// See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn squared_difference_f32(
    arena: &mut [u8],
    a: Src,
    b: Src,
    output: usize,
    p: &SquaredDifferenceF32,
) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y: f32| {
            let d = x - y;
            d * d
        },
    );
}

/// int32 SQUARED_DIFFERENCE with broadcasting: `d * d` for `d = a - b`, wrapping (TFLM computes
/// both in C++ `int32_t`, undefined where they overflow; its compiled kernel wraps). See the
/// module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn squared_difference_s32(
    arena: &mut [u8],
    a: Src,
    b: Src,
    output: usize,
    p: &SquaredDifferenceS32,
) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y: i32| {
            let d = x.wrapping_sub(y);
            d.wrapping_mul(d)
        },
    );
}

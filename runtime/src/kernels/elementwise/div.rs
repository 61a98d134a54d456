//! DIV of every type TFLM's `div.cc` takes ([`div_f32`], [`div_s32`], [`div_s8`]): float32 and
//! int32 `a / b` clamped to the fused activation's range, int8 TFLM's `DivElementwise` (a
//! reciprocal of the divisor in fixed point, then one requantization).

use super::{clamp_s8, BinaryF32, BinaryS32};
use crate::kernels::broadcast::binary;
use crate::kernels::nn_common::fixed_point::reciprocal;
use crate::math::{
    multiply_by_quantized_multiplier_greater_than_one, saturating_rounding_doubling_high_mul,
};
use crate::Src;

/// Constants of int8 DIV (TFLM's `OpDataDiv`): `(x1 - zp1) / (x2 - zp2)` requantized by
/// `s1 / (s2 * s_out)`, clamped to the fused activation's range.
#[derive(Clone, Copy, Debug)]
pub struct DivS8<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Minus input 1's zero point.
    pub a_offset: i32,
    /// Minus input 2's zero point.
    pub b_offset: i32,
    /// `QuantizeMultiplier(s1 / (s2 * s_out))` (Q31).
    pub output_multiplier: i32,
    /// Its shift (positive = left; the lowering keeps it at most 23, the least headroom of an
    /// int8 dividend, so that TFLM's final shift is never a left one).
    pub output_shift: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// Lower clamp (fused activation).
    pub act_min: i32,
    /// Upper clamp (fused activation).
    pub act_max: i32,
}

/// `CountLeadingSignBits` of an int32: the bits below the sign bit equal to it (31 for 0 and -1).
#[inline(always)]
fn leading_sign_bits(x: i32) -> i32 {
    ((x ^ (x >> 31)) as u32).leading_zeros() as i32 - 1
}

/// gemmlowp's `RoundingDivideByPOT` as the TFLM the goldens come from (its x86-64 build)
/// computes it for any exponent from 0 up. `DivElementwise` divides by `2^e` with `e` up to 38
/// for a dividend of 0 or -1 (31 bits of headroom) and a divisor of 128 or more whenever the
/// output multiplier's shift is below 7, as it is for most int8 DIV models: beyond 31 the C++
/// shift is undefined, and that build takes the mask `(1 << e) - 1` in 64 bits truncated to int32
/// (all ones) and shifts the int32 by `e % 32` (x86's shift count). Matched against it on every
/// int8 pair, for output shifts -1 and 7.
#[inline(always)]
fn rounding_divide_by_pot_wide(x: i32, exponent: i32) -> i32 {
    let mask = ((1i64 << exponent) - 1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> (exponent & 31)) + i32::from(remainder > threshold)
}

/// TFLM's `DivElementwise` on one pair, before the clamp. A divisor of 0 (undefined in TFLM:
/// `GetReciprocal` shifts an int32 by 32) gives what TFLM's build gives, as
/// [`reciprocal`] reads that shift as 0 of a 0.
#[inline(always)]
fn div_one(x: i32, y: i32, p: &DivS8) -> i32 {
    let mut v1 = p.a_offset + x;
    let mut v2 = p.b_offset + y;
    if v2 < 0 {
        v1 = v1.wrapping_neg();
        v2 = v2.wrapping_neg();
    }
    let (inv, recip_shift) = reciprocal(v2, 31);
    let headroom = leading_sign_bits(v1);
    let unscaled = multiply_by_quantized_multiplier_greater_than_one(v1, inv, headroom);
    let total_shift = p.output_shift - recip_shift - headroom;
    let high = saturating_rounding_doubling_high_mul(unscaled, p.output_multiplier);
    p.output_offset + rounding_divide_by_pot_wide(high, -total_shift)
}

/// int8 DIV with broadcasting, bit-exact with TFLM's `DivElementwise`. See the module docs for
/// access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn div_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &DivS8) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i8, y: i8| clamp_s8(div_one(x.into(), y.into(), p), p.act_min, p.act_max),
    );
}

/// float32 DIV with broadcasting: `a / b` in single precision (IEEE: a zero divisor gives an
/// infinity or NaN), clamped to the fused activation's range. See the module docs for access
/// order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn div_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y| crate::kernels::nn_common::clamp_f32(x / y, p.act_min, p.act_max),
    );
}

/// int32 DIV with broadcasting: `a / b` truncated toward zero, clamped to the fused activation's
/// range. TFLM divides in C++ `int32_t`, undefined for a zero divisor and for `i32::MIN / -1`;
/// here those give 0 and `i32::MIN`, the results of Arm's `sdiv`, and never a trap. See the module
/// docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn div_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryS32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y: i32| {
            let q = if y == 0 { 0 } else { x.wrapping_div(y) };
            q.max(p.act_min).min(p.act_max)
        },
    );
}

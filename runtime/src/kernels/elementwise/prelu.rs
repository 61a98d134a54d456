//! PRELU ([`prelu_s8`], [`prelu_s16`], [`prelu_f32`]) with a broadcast alpha (input 2): TFLM's
//! `BroadcastPrelu4DSlow` and `BroadcastPrelu4DSlowFloat`.

use super::{clamp_s8, MinMax};
use crate::kernels::broadcast::{binary, binary_mixed};
use crate::math::multiply_by_quantized_multiplier;
use crate::Src;

/// Constants of int8 and int16 PRELU (TFLM's `PreluParams`): `x - zp_in` rescaled by
/// `s_in / s_out` where it is at least 0, else its product with `alpha - zp_alpha` rescaled by
/// `s_in * s_alpha / s_out`.
#[derive(Clone, Copy, Debug)]
pub struct PreluS8<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of the input per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of alpha per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Minus the input's zero point.
    pub input_offset: i32,
    /// Minus alpha's zero point.
    pub alpha_offset: i32,
    /// The output's zero point.
    pub output_offset: i32,
    /// `s_in / s_out` (Q31), for inputs at or above the zero point.
    pub multiplier_1: i32,
    /// Its shift (positive = left).
    pub shift_1: i32,
    /// `s_in * s_alpha / s_out` (Q31), for inputs below the zero point.
    pub multiplier_2: i32,
    /// Its shift (positive = left).
    pub shift_2: i32,
}

/// Constants of int16 PRELU (int8 alpha): int8's, computed the same way.
pub type PreluS16<'a> = PreluS8<'a>;

/// Constants of float32 PRELU: the broadcast alone.
pub type PreluF32<'a> = MinMax<'a>;

/// One element of quantized PRELU (TFLM's `BroadcastPrelu4DSlow` op, int8 and int16 alike),
/// before the clamp to the output type: `zp_out + MBQM(v, m1)` for `v = x - zp_in >= 0`, else
/// `zp_out + MBQM(v * (alpha - zp_alpha), m2)`.
#[inline(always)]
fn prelu_one(x: i32, alpha: i8, p: &PreluS8) -> i32 {
    let v = p.input_offset + x;
    let out = if v >= 0 {
        multiply_by_quantized_multiplier(v, p.multiplier_1, p.shift_1)
    } else {
        // Within i32 for int8 and int16 inputs (|v| ≤ 65535, |alpha - zp| ≤ 255); wrapping is
        // TFLM's int32 product otherwise.
        let product = v.wrapping_mul(p.alpha_offset + i32::from(alpha));
        multiply_by_quantized_multiplier(product, p.multiplier_2, p.shift_2)
    };
    out + p.output_offset
}

/// int8 PRELU with a broadcast alpha (input 2), bit-exact with TFLM's `BroadcastPrelu4DSlow`:
/// `zp_out + MBQM(v, m1)` for `v = x - zp_in >= 0`, else `zp_out + MBQM(v * (alpha - zp_alpha),
/// m2)`, clamped to int8. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn prelu_s8(arena: &mut [u8], input: Src, alpha: Src, output: usize, p: &PreluS8) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (input, alpha, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i8, a: i8| clamp_s8(prelu_one(i32::from(x), a, p), -128, 127),
    );
}

/// int16 PRELU with a broadcast int8 alpha (input 2), TFLM's `BroadcastPrelu4DSlow<int16_t,
/// int8_t>`: [`prelu_s8`]'s arithmetic clamped to int16. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn prelu_s16(arena: &mut [u8], input: Src, alpha: Src, output: usize, p: &PreluS16) {
    let p = crate::kernels::opaque(p);
    binary_mixed(
        arena,
        (input, alpha, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i16, a: i8| prelu_one(i32::from(x), a, p).clamp(-32768, 32767) as i16,
    );
}

/// float32 PRELU with a broadcast alpha (input 2): `x >= 0 ? x : x * alpha`, as TFLM's
/// `BroadcastPrelu4DSlowFloat`. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn prelu_f32(arena: &mut [u8], input: Src, alpha: Src, output: usize, p: &PreluF32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (input, alpha, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, a| if x >= 0.0 { x } else { x * a },
    );
}

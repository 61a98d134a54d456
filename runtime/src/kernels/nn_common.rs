//! Helpers shared by the neural-network kernels (conv, depthwise, fully connected, pools, softmax,
//! logistic, tanh): arena views, window geometry, requantization, gemmlowp fixed-point functions and
//! `no_std` float transcendentals.

pub(crate) mod dot;
#[cfg(tinyaot_dsp)]
mod dsp;
pub(crate) mod fixed_point;
pub(crate) mod float_math;
pub(crate) mod views;
pub(crate) mod window;

pub(crate) use dot::{dot4_s8, dot_s8, mac4_s8, mac_lanes_s8};

/// Requantizes an int32 accumulator to int8 as TFLM does: `MultiplyByQuantizedMultiplier` (double
/// rounding), plus the output zero point, clamped to the activation range.
#[inline(always)]
pub(crate) fn requantize(
    acc: i32,
    multiplier: i32,
    shift: i32,
    zero_point: i32,
    min: i32,
    max: i32,
) -> u8 {
    let scaled = crate::math::multiply_by_quantized_multiplier(acc, multiplier, shift)
        .wrapping_add(zero_point);
    scaled.clamp(min, max) as i8 as u8
}

/// `ActivationFunctionWithMinMax` for floats: `min(max(x, lo), hi)`, in TFLM's order.
#[inline(always)]
pub(crate) fn clamp_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x < lo { lo } else { x };
    if hi < x {
        hi
    } else {
        x
    }
}

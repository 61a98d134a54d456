//! Helpers shared by the neural-network kernels (conv, depthwise, fully connected, pools, softmax,
//! logistic, tanh): arena views, window geometry, requantization, gemmlowp fixed-point functions and
//! `no_std` float transcendentals.

pub(crate) mod fixed_point;
pub(crate) mod float_math;
pub(crate) mod views;
pub(crate) mod window;

/// Requantizes an int32 accumulator to int8 as TFLM does: `MultiplyByQuantizedMultiplier` (double
/// rounding), plus the output zero point, clamped to the activation range.
/// `Σ w * (x + offset)` over two equally long int8 rows (`x` as arena bytes), computed as
/// `Σ w * x + offset * Σ w` so that the products stay 16-bit (a multiply-add pair per lane).
#[inline(always)]
pub(crate) fn dot_s8(w: &[i8], x: &[u8], offset: i32) -> i32 {
    let mut products = 0i32;
    let mut weights = 0i32;
    for (&w, &x) in w.iter().zip(x) {
        products = products.wrapping_add(i32::from(i16::from(w) * i16::from(x as i8)));
        weights = weights.wrapping_add(i32::from(w));
    }
    products.wrapping_add(offset.wrapping_mul(weights))
}

#[inline(always)]
pub(crate) fn requantize(
    acc: i32,
    multiplier: i32,
    shift: i32,
    zero_point: i32,
    min: i32,
    max: i32,
) -> u8 {
    let scaled = crate::math::multiply_by_quantized_multiplier(acc, multiplier, shift) + zero_point;
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

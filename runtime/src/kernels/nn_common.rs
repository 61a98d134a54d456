//! Helpers shared by the neural-network kernels (conv, depthwise, fully connected, pools, softmax,
//! logistic, tanh): arena views, window geometry, requantization, gemmlowp fixed-point functions and
//! `no_std` float transcendentals.

pub(crate) mod fixed_point;
pub(crate) mod float_math;
pub(crate) mod views;
pub(crate) mod window;

/// Four dot products `Σ w[k][i] * (x[i] + offset)` sharing one input row. `x + offset` fits in i16
/// for int8 zero points, and so does each product (|w| <= 128, |x + offset| <= 255), so the work
/// stays in 16-bit multiplies with 32-bit sums.
#[inline(always)]
pub(crate) fn dot4_s8(w: [&[i8]; 4], x: &[u8], offset: i32) -> [i32; 4] {
    let n = x.len();
    let (w0, w1, w2, w3) = (&w[0][..n], &w[1][..n], &w[2][..n], &w[3][..n]);
    let offset = offset as i16;
    let mut acc = [0i32; 4];
    for i in 0..n {
        let xi = i16::from(x[i] as i8) + offset;
        acc[0] = acc[0].wrapping_add(i32::from(i16::from(w0[i]) * xi));
        acc[1] = acc[1].wrapping_add(i32::from(i16::from(w1[i]) * xi));
        acc[2] = acc[2].wrapping_add(i32::from(i16::from(w2[i]) * xi));
        acc[3] = acc[3].wrapping_add(i32::from(i16::from(w3[i]) * xi));
    }
    acc
}

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

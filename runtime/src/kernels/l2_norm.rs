//! L2_NORMALIZATION over the last dimension, float32 and int8 (TFLM's l2norm.cc:
//! `reference_ops::L2Normalization` and `reference_integer_ops::L2Normalization`).
//!
//! float32: per row, the squares summed in order, the correctly rounded root, raised to at least
//! 1e-6, then each element divided by it. int8: per row, the sum of the squared differences from
//! the input's zero point, its inverse square root as a Q31 multiplier and a shift (gemmlowp's
//! Newton-Raphson `GetInvSqrtQuantizedMultiplierExp`), and each difference rescaled by it into
//! the fixed output scale 1/128 (zero point 0), clamped to int8. The output must not overlap the
//! input.

use super::nn_common::float_math::sqrt_f32;
use super::nn_common::views;
use crate::math::{
    multiply_by_quantized_multiplier, rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul as mul, saturating_rounding_multiply_by_pot,
};

/// Constant parameters of the L2_NORMALIZATION kernels.
#[derive(Clone, Copy, Debug)]
pub struct L2Norm {
    /// Number of rows (the product of all dimensions but the last).
    pub rows: usize,
    /// Length of a row (the last dimension).
    pub depth: usize,
    /// The input's zero point (int8; 0 for float32).
    pub zero_point: i32,
}

/// float32 L2_NORMALIZATION. Reads `4 * rows * depth` bytes at `input`, writes as many at
/// `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn l2_norm_f32(arena: &mut [u8], input: usize, output: usize, p: &L2Norm) {
    let p = super::opaque(p);
    let len = 4 * p.rows * p.depth;
    let (inp, out) = views::split(arena, input, len, output, len);
    if p.depth == 0 {
        return;
    }
    for (row, out_row) in inp
        .chunks_exact(4 * p.depth)
        .zip(out.chunks_exact_mut(4 * p.depth))
    {
        let squares = views::f32s(row).fold(0.0f32, |s, x| s + x * x);
        let norm = sqrt_f32(squares);
        // std::max(norm, 1e-6f): a NaN norm stays NaN.
        let norm = if norm < 1e-6 { 1e-6 } else { norm };
        for (x, o) in views::f32s(row).zip(out_row.chunks_exact_mut(4)) {
            o.copy_from_slice(&(x / norm).to_le_bytes());
        }
    }
}

/// `GetInvSqrtQuantizedMultiplierExp(input, kReverseShift = -1)`: `1 / sqrt(input)` as a Q31
/// multiplier and a shift in `MultiplyByQuantizedMultiplier`'s convention (at most 0). Input 0 and
/// 1 give `(i32::MAX, 0)`.
pub(crate) fn inv_sqrt_multiplier(input: i32) -> (i32, i32) {
    if input <= 1 {
        return (i32::MAX, 0);
    }
    let mut input = input;
    let mut shift = 11;
    while input >= 1 << 29 {
        input /= 4;
        shift += 1;
    }
    let max_left_shift_bits = (input as u32).leading_zeros() - 1;
    let left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
    shift -= left_shift_bit_pairs as i32;
    input <<= 2 * left_shift_bit_pairs;
    // Q3.28 (gemmlowp FixedPoint<int32_t, 3>) Newton-Raphson from x = 1, five steps.
    let fixed_input = input >> 1;
    let half_input = rounding_divide_by_pot(fixed_input, 1);
    let half_three = (1 << 28) + (1 << 27);
    let mut x = 1 << 28;
    for _ in 0..5 {
        // x * x * x is Q9.22; Rescale<3> shifts it left by 6, saturating.
        let x3 = saturating_rounding_multiply_by_pot(mul(mul(x, x), x), 6);
        // The two products are Q6.25 and their difference wraps, as gemmlowp's `-`.
        let diff = mul(half_three, x).wrapping_sub(mul(half_input, x3));
        x = saturating_rounding_multiply_by_pot(diff, 3);
    }
    // Times sqrt(2) / 2 in Q0.31.
    let mut inv = mul(x, 1_518_500_250);
    if shift < 0 {
        inv = inv.wrapping_shl((-shift) as u32);
        shift = 0;
    }
    (inv, -shift)
}

/// int8 L2_NORMALIZATION (output scale 1/128, zero point 0, whatever the output tensor says, as
/// TFLM's). Reads `rows * depth` bytes at `input`, writes as many at `output`. A row's sum of
/// squares fits in 32 bits (at most 33,025 elements, checked at generation time).
#[cfg_attr(target_os = "none", inline(never))]
pub fn l2_norm_s8(arena: &mut [u8], input: usize, output: usize, p: &L2Norm) {
    let p = super::opaque(p);
    let len = p.rows * p.depth;
    let (inp, out) = views::split(arena, input, len, output, len);
    if p.depth == 0 {
        return;
    }
    for (row, out_row) in inp.chunks_exact(p.depth).zip(out.chunks_exact_mut(p.depth)) {
        let squares = row.iter().fold(0i32, |s, &x| {
            let d = i32::from(x as i8) - p.zero_point;
            s + d * d
        });
        let (multiplier, shift) = inv_sqrt_multiplier(squares);
        for (&x, o) in row.iter().zip(out_row.iter_mut()) {
            let d = i32::from(x as i8) - p.zero_point;
            let v = multiply_by_quantized_multiplier(d, multiplier, shift + 7);
            *o = v.clamp(-128, 127) as i8 as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inv_sqrt_is_close() {
        for n in [2, 3, 4, 100, 1000, 65025, 1 << 20, (1 << 29) + 5, i32::MAX] {
            let (m, s) = inv_sqrt_multiplier(n);
            let got = f64::from(m) / f64::from(1u32 << 31) * 2f64.powi(s);
            let want = 1.0 / f64::from(n).sqrt();
            // Five Newton-Raphson steps from 1 leave a few parts in a million (TFLM's as well).
            assert!((got / want - 1.0).abs() < 1e-5, "{n}: {got} vs {want}");
        }
        assert_eq!(inv_sqrt_multiplier(0), (i32::MAX, 0));
    }

    #[test]
    fn s8_unit_vectors() {
        // Row [3, 4] - zp 0 → [0.6, 0.8] * 128 = [77, 102] (76.8, 102.4); row [0, 0] stays 0.
        let mut a = [3u8, 4, 0, 0, 0, 0, 0, 0];
        let p = L2Norm {
            rows: 2,
            depth: 2,
            zero_point: 0,
        };
        l2_norm_s8(&mut a, 0, 4, &p);
        assert_eq!(&a[4..], &[77, 102, 0, 0]);
    }

    #[test]
    fn f32_divides_by_the_norm() {
        let mut a = [0u8; 16];
        for (i, v) in [3.0f32, 4.0].iter().enumerate() {
            a[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let p = L2Norm {
            rows: 1,
            depth: 2,
            zero_point: 0,
        };
        l2_norm_f32(&mut a, 0, 8, &p);
        let out: [f32; 2] = core::array::from_fn(|i| {
            f32::from_le_bytes(a[8 + 4 * i..12 + 4 * i].try_into().unwrap())
        });
        assert_eq!(out, [0.6, 0.8]);
    }
}

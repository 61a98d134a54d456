//! RELU, RELU6 and LEAKY_RELU (int8, int16 and float32), HARD_SWISH (int8 and float32), FLOOR,
//! CEIL, ROUND and ELU (float32; int8 ELU is the math family's table): element-wise unary functions, as TFLM
//! computes them.
//!
//! Access order: element by element in order, each element read before written; input
//! and output have the same size, so every kernel here may run in place (output offset == input
//! offset). The output must not otherwise overlap the input.

use super::elem::map;
use crate::math::multiply_by_quantized_multiplier;

/// Constants of float32 element-wise kernels that need only the element count.
#[derive(Clone, Copy, Debug)]
pub struct UnaryF32 {
    /// Number of elements.
    pub len: usize,
}

/// Constants of int8 RELU: a requantization from the input to the output scale, then a clamp.
#[derive(Clone, Copy, Debug)]
pub struct ReluS8 {
    /// Number of elements.
    pub len: usize,
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// `s_in / s_out` as a Q31 multiplier.
    pub multiplier: i32,
    /// Its shift (positive = left).
    pub shift: i32,
    /// Lower clamp: `max(-128, zp_out)`.
    pub act_min: i32,
    /// Upper clamp: 127.
    pub act_max: i32,
}

/// Constants of int16 RELU (16x8 models): [`ReluS8`]'s, with int16 bounds (TFLM requires both zero
/// points to be 0).
pub type ReluS16 = ReluS8;

/// Constants of int8 RELU6: TFLM clamps the raw values (no requantization).
#[derive(Clone, Copy, Debug)]
pub struct Relu6S8 {
    /// Number of elements.
    pub len: usize,
    /// Quantized 0 (the input zero point).
    pub lower: i32,
    /// Quantized 6 on the input scale, clamped to int8.
    pub upper: i32,
}

/// Constants of int16 RELU6: [`Relu6S8`]'s, the bounds int16 values (still no requantization).
pub type Relu6S16 = Relu6S8;

/// Constants of int8 LEAKY_RELU.
#[derive(Clone, Copy, Debug)]
pub struct LeakyReluS8 {
    /// Number of elements.
    pub len: usize,
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// `s_in / s_out` (for inputs >= zero point) as a Q31 multiplier.
    pub identity_multiplier: i32,
    /// Its shift.
    pub identity_shift: i32,
    /// `s_in * alpha / s_out` as a Q31 multiplier (negative for a negative alpha).
    pub alpha_multiplier: i32,
    /// Its shift.
    pub alpha_shift: i32,
}

/// Constants of int16 LEAKY_RELU (16x8 models): [`LeakyReluS8`]'s, the zero points int16 ones.
pub type LeakyReluS16 = LeakyReluS8;

/// Constants of float32 LEAKY_RELU.
#[derive(Clone, Copy, Debug)]
pub struct LeakyReluF32 {
    /// Number of elements.
    pub len: usize,
    /// Slope for negative inputs.
    pub alpha: f32,
}

/// Constants of int8 HARD_SWISH (TFLM's 16-bit fixed-point path).
#[derive(Clone, Copy, Debug)]
pub struct HardSwishS8 {
    /// Number of elements.
    pub len: usize,
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// "Relu-ish" multiplier, Q15 (an int16 value).
    pub reluish_multiplier: i32,
    /// Its exponent (positive = left).
    pub reluish_exponent: i32,
    /// Output multiplier, Q15 (an int16 value).
    pub output_multiplier: i32,
    /// Its exponent (<= 0).
    pub output_exponent: i32,
}

/// float32 ELU: `x < 0 ? expm1(x) : x` (TFLM's `reference_ops::Elu`, `TfLiteExpm1` of a float).
/// The int8 ELU is a table (the math family's `lut_s8`).
#[cfg_attr(target_os = "none", inline(never))]
pub fn elu_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| {
        if x < 0.0 {
            super::nn_common::float_math::expm1_f32(x)
        } else {
            x
        }
    });
}

/// float32 RELU: `x < 0 ? 0 : x`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn relu_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(
        arena,
        input,
        output,
        p.len,
        |x: f32| if x < 0.0 { 0.0 } else { x },
    );
}

/// The largest integer not above `x`, as `std::floor` (-0.0, infinities and NaN unchanged; -0.5
/// → -1.0; 0.5 → +0.0). `core` has no `floor` without `std`: below 2^23 in magnitude a float
/// converts to `i32` exactly, truncating toward zero, and one step down fixes negative fractions;
/// from 2^23 on every float is an integer.
#[inline(always)]
fn floor_one(x: f32) -> f32 {
    if !(x > -8_388_608.0 && x < 8_388_608.0) || x == 0.0 {
        return x;
    }
    let truncated = x as i32 as f32;
    if truncated > x {
        truncated - 1.0
    } else {
        truncated
    }
}

/// float32 FLOOR: the largest integer not above each element, as `std::floor` (-0.0,
/// infinities and NaN unchanged).
#[cfg_attr(target_os = "none", inline(never))]
pub fn floor_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, floor_one);
}

/// float32 CEIL: `std::ceil`, the floor of `-x` negated (so -0.5 → -0.0, as `std::ceil`).
#[cfg_attr(target_os = "none", inline(never))]
pub fn ceil_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| -floor_one(-x));
}

/// float32 ROUND: TFLM's `RoundToNearest`, half to even: the floor, plus one when the fraction
/// is above one half, or exactly one half above an odd floor (so -0.5 → +0.0 and -0.2 → +0.0,
/// as TFLM computes them: `floor + 1.0f`). The `i32` conversion happens only at a fraction of
/// one half, below 2^23 in magnitude.
#[cfg_attr(target_os = "none", inline(never))]
pub fn round_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| {
        let floor = floor_one(x);
        let diff = x - floor;
        if diff < 0.5 || (diff == 0.5 && (floor as i32) % 2 == 0) {
            floor
        } else {
            floor + 1.0
        }
    });
}

/// float32 RELU6: `x > 6 ? 6 : x < 0 ? 0 : x`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn relu6_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    // Same as the ternaries for every input, NaN and -0.0 included.
    map(arena, input, output, p.len, |x: f32| x.clamp(0.0, 6.0));
}

/// One RELU output of TFLM's `ReluQuantized`: `clamp(zp_out + MBQM(x - zp_in), act_min, act_max)`,
/// max then min as TFLM does (no panic should `act_min` exceed `act_max`).
#[inline(always)]
#[allow(clippy::manual_clamp)]
fn relu_one(x: i32, p: &ReluS8) -> i32 {
    let v = p.output_zero_point
        + multiply_by_quantized_multiplier(x - p.input_zero_point, p.multiplier, p.shift);
    v.max(p.act_min).min(p.act_max)
}

/// One RELU6 output of TFLM's `Relu6Quantized`: `x > upper ? upper : x < lower ? lower : x`.
#[inline(always)]
fn relu6_one(x: i32, p: &Relu6S8) -> i32 {
    if x > p.upper {
        p.upper
    } else if x < p.lower {
        p.lower
    } else {
        x
    }
}

/// int8 RELU: `clamp(zp_out + MBQM(x - zp_in), act_min, act_max)`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn relu_s8(arena: &mut [u8], input: usize, output: usize, p: &ReluS8) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i8| {
        relu_one(i32::from(x), p) as i8
    });
}

/// int16 RELU (TFLM's `ReluQuantized<int16_t>`): as [`relu_s8`], the bounds within int16.
#[cfg_attr(target_os = "none", inline(never))]
pub fn relu_s16(arena: &mut [u8], input: usize, output: usize, p: &ReluS16) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i16| {
        relu_one(i32::from(x), p) as i16
    });
}

/// int8 RELU6: `x > upper ? upper : x < lower ? lower : x` on the raw values.
#[cfg_attr(target_os = "none", inline(never))]
pub fn relu6_s8(arena: &mut [u8], input: usize, output: usize, p: &Relu6S8) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i8| {
        relu6_one(i32::from(x), p) as i8
    });
}

/// int16 RELU6 (TFLM's `Relu6Quantized<int16_t>`): as [`relu6_s8`], a clamp of the raw values.
#[cfg_attr(target_os = "none", inline(never))]
pub fn relu6_s16(arena: &mut [u8], input: usize, output: usize, p: &Relu6S16) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i16| {
        relu6_one(i32::from(x), p) as i16
    });
}

/// float32 LEAKY_RELU: `x > 0 ? x : x * alpha`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn leaky_relu_f32(arena: &mut [u8], input: usize, output: usize, p: &LeakyReluF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| {
        if x > 0.0 {
            x
        } else {
            x * p.alpha
        }
    });
}

/// int8 LEAKY_RELU: identity or alpha requantization depending on the sign of `x - zp_in`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn leaky_relu_s8(arena: &mut [u8], input: usize, output: usize, p: &LeakyReluS8) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i8| {
        leaky_relu_one(i32::from(x), p).clamp(-128, 127) as i8
    });
}

/// int16 LEAKY_RELU (TFLM's `QuantizeLeakyRelu<int16_t>`): as [`leaky_relu_s8`], saturated to
/// int16.
#[cfg_attr(target_os = "none", inline(never))]
pub fn leaky_relu_s16(arena: &mut [u8], input: usize, output: usize, p: &LeakyReluS16) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i16| {
        leaky_relu_one(i32::from(x), p).clamp(-32768, 32767) as i16
    });
}

/// One LEAKY_RELU output before its type's clamp: the output zero point plus `x - zp_in` rescaled
/// by the identity or (below the zero point) the alpha multiplier. A negative alpha multiplies the
/// magnitude and negates, as TFLM's `MultiplyByQuantizedMultiplier` of a negative multiplier does.
#[inline(always)]
fn leaky_relu_one(x: i32, p: &LeakyReluS8) -> i32 {
    let v = x - p.input_zero_point;
    let mut out = p.output_zero_point;
    if v >= 0 {
        out += multiply_by_quantized_multiplier(v, p.identity_multiplier, p.identity_shift);
    } else {
        let scaled =
            multiply_by_quantized_multiplier(v, p.alpha_multiplier.wrapping_abs(), p.alpha_shift);
        out += if p.alpha_multiplier < 0 {
            -scaled
        } else {
            scaled
        };
    }
    out
}

/// float32 HARD_SWISH: `x * min(6, max(0, x + 3)) / 6`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn hard_swish_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| {
        // std::min(6, std::max(0, x + 3)) with std::max(a, b) = a < b ? b : a (NaN gives 0).
        let r = x + 3.0;
        let r = if 0.0 < r { r } else { 0.0 };
        let r = if r < 6.0 { r } else { 6.0 };
        x * r / 6.0
    });
}

/// int8 HARD_SWISH, TFLM's fixed-point path step by step (16-bit gemmlowp arithmetic).
#[cfg_attr(target_os = "none", inline(never))]
pub fn hard_swish_s8(arena: &mut [u8], input: usize, output: usize, p: &HardSwishS8) {
    let p = super::opaque(p);
    let out_mult = p.output_multiplier as i16;
    let relu_mult = p.reluish_multiplier as i16;
    map(arena, input, output, p.len, |x: i8| {
        let input_value = (x as i32 - p.input_zero_point) as i16;
        let hires = (input_value as i32 * (1 << 7)) as i16;
        let preshift_output = srdhm_i16(hires, out_mult);
        let mut reluish = hires;
        if p.reluish_exponent > 0 {
            reluish = saturating_left_shift_i16(reluish, p.reluish_exponent - 1);
        }
        reluish = srdhm_i16(reluish, relu_mult);
        if p.reluish_exponent > 0 {
            reluish = saturating_left_shift_i16(reluish, 1);
        }
        if p.reluish_exponent < 0 {
            reluish = rounding_divide_by_pot_i16(reluish, -p.reluish_exponent);
        }
        // [-1, 1] -> [0, 1] in Q15.
        reluish = ((reluish as i32 + (1 << 15)) >> 1) as i16;
        let preshift = sdhm_i16(reluish, preshift_output);
        let out = rounding_divide_by_pot_i16(preshift, -p.output_exponent)
            .wrapping_add(p.output_zero_point as i16);
        out.clamp(-128, 127) as i8
    });
}

/// gemmlowp's 16-bit `SaturatingRoundingDoublingHighMul`.
#[inline(always)]
fn srdhm_i16(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    let ab = a as i32 * b as i32;
    let nudge = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    ((ab + nudge) / (1 << 15)) as i16
}

/// TFLM's `SaturatingDoublingHighMul` (int16, truncating instead of rounding).
#[inline(always)]
fn sdhm_i16(a: i16, b: i16) -> i16 {
    if a == i16::MIN && b == i16::MIN {
        return i16::MAX;
    }
    ((a as i32 * b as i32) / (1 << 15)) as i16
}

/// TFLM's int16 `SaturatingLeftShift`.
#[inline(always)]
fn saturating_left_shift_i16(value: i16, amount: i32) -> i16 {
    (value as i64 * (1i64 << amount)).clamp(i16::MIN as i64, i16::MAX as i64) as i16
}

/// gemmlowp's `RoundingDivideByPOT` on int16 values (mask and threshold are int16 too).
#[inline(always)]
fn rounding_divide_by_pot_i16(x: i16, exponent: i32) -> i16 {
    let mask = ((1i64 << exponent) - 1) as i16;
    let remainder = x & mask;
    let threshold = (mask >> 1).wrapping_add(i16::from(x < 0));
    ((x as i32 >> exponent) as i16).wrapping_add(i16::from(remainder > threshold))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FLOOR against the corners of `std::floor`, bit for bit (the sign of zero included).
    #[test]
    fn floor_f32_matches_floor_at_the_corners() {
        let cases: [(f32, f32); 14] = [
            (2.5, 2.0),
            (-2.5, -3.0),
            (-2.0, -2.0),
            (0.5, 0.0),
            (-0.5, -1.0),
            (0.0, 0.0),
            (-0.0, -0.0),
            (1e-45, 0.0),
            (-1e-45, -1.0),
            (8_388_607.5, 8_388_607.0),
            (-8_388_607.5, -8_388_608.0),
            (16_777_216.0, 16_777_216.0),
            (f32::NEG_INFINITY, f32::NEG_INFINITY),
            (f32::MIN, f32::MIN),
        ];
        let mut arena = [0u8; 4 * 15];
        for (i, (x, _)) in cases.iter().enumerate() {
            arena[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
        }
        arena[56..60].copy_from_slice(&f32::NAN.to_le_bytes());
        floor_f32(&mut arena, 0, 0, &UnaryF32 { len: 15 });
        for (i, (x, want)) in cases.iter().enumerate() {
            let got = f32::from_le_bytes(arena[4 * i..4 * i + 4].try_into().unwrap());
            assert_eq!(
                got.to_bits(),
                want.to_bits(),
                "floor({x}) = {got}, not {want}"
            );
        }
        assert!(f32::from_le_bytes(arena[56..60].try_into().unwrap()).is_nan());
    }

    /// CEIL and ROUND at their corners, bit for bit: ties to even, and the signs of zero TFLM's
    /// `RoundToNearest` (`floor + 1.0f`) and `std::ceil` give.
    #[test]
    fn ceil_and_round_at_the_corners() {
        let cases: [(f32, f32, f32); 12] = [
            // (x, ceil, round)
            (0.5, 1.0, 0.0),
            (1.5, 2.0, 2.0),
            (2.5, 3.0, 2.0),
            (-0.5, -0.0, 0.0),
            (-1.5, -1.0, -2.0),
            (-2.5, -2.0, -2.0),
            (-0.2, -0.0, 0.0),
            (-0.0, -0.0, -0.0),
            (2.4999998, 3.0, 2.0),
            (-7.3, -7.0, -7.0),
            (8_388_607.5, 8_388_608.0, 8_388_608.0),
            (1e30, 1e30, 1e30),
        ];
        let mut arena = [0u8; 4 * 12];
        type Kernel = fn(&mut [u8], usize, usize, &UnaryF32);
        let kernels: [(Kernel, usize); 2] = [(ceil_f32, 1), (round_f32, 2)];
        for (kernel, column) in kernels {
            for (i, case) in cases.iter().enumerate() {
                arena[4 * i..4 * i + 4].copy_from_slice(&case.0.to_le_bytes());
            }
            kernel(&mut arena, 0, 0, &UnaryF32 { len: 12 });
            for (i, case) in cases.iter().enumerate() {
                let got = f32::from_le_bytes(arena[4 * i..4 * i + 4].try_into().unwrap());
                let want = if column == 1 { case.1 } else { case.2 };
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{column}: {} -> {got}",
                    case.0
                );
            }
        }
    }

    #[test]
    fn relu_s8_requantizes_then_clamps() {
        let mut arena = [(-5i8) as u8, 0, 7, 100];
        let p = ReluS8 {
            len: 4,
            input_zero_point: -1,
            output_zero_point: 2,
            multiplier: 1 << 30, // 0.5
            shift: 0,
            act_min: 2,
            act_max: 127,
        };
        relu_s8(&mut arena, 0, 0, &p);
        // 2 + round((x + 1) / 2): -5 -> 2 + (-2) = 0 -> 2; 0 -> 2 + 1 = 3 (0.5 rounds up);
        // 7 -> 6; 100 -> 2 + 51 = 53 (50.5 rounds up)
        assert_eq!(arena, [2, 3, 6, 53]);
    }

    /// int16 RELU requantizes (here ×2, saturating at 32767, the zero points 0 as TFLM requires);
    /// int16 RELU6 clamps the raw values to [zp_in, q(6)].
    #[test]
    fn relu_s16_and_relu6_s16() {
        let words = |v: [i16; 4]| -> [u8; 8] {
            let mut b = [0u8; 8];
            for (c, x) in b.chunks_exact_mut(2).zip(v) {
                c.copy_from_slice(&x.to_le_bytes());
            }
            b
        };
        let read = |b: &[u8]| -> [i16; 4] {
            core::array::from_fn(|i| i16::from_le_bytes([b[2 * i], b[2 * i + 1]]))
        };
        let mut arena = words([-300, 0, 1000, 20000]);
        let relu = ReluS16 {
            len: 4,
            input_zero_point: 0,
            output_zero_point: 0,
            multiplier: 1 << 30,
            shift: 2, // ×2
            act_min: 0,
            act_max: 32767,
        };
        relu_s16(&mut arena, 0, 0, &relu);
        assert_eq!(read(&arena), [0, 0, 2000, 32767]);
        let mut arena = words([-300, -5, 1000, 20000]);
        let relu6 = Relu6S16 {
            len: 4,
            lower: -10,
            upper: 12278, // 6 / (6 / 12288) - 10
        };
        relu6_s16(&mut arena, 0, 0, &relu6);
        assert_eq!(read(&arena), [-10, -5, 1000, 12278]);
    }

    #[test]
    fn relu6_and_leaky_relu_s8() {
        let mut arena = [(-100i8) as u8, 3, 100];
        relu6_s8(
            &mut arena,
            0,
            0,
            &Relu6S8 {
                len: 3,
                lower: -3,
                upper: 50,
            },
        );
        assert_eq!(arena, [(-3i8) as u8, 3, 50]);
        let mut arena = [(-10i8) as u8, 10];
        let p = LeakyReluS8 {
            len: 2,
            input_zero_point: 0,
            output_zero_point: 0,
            identity_multiplier: 1 << 30,
            identity_shift: 1, // 1.0
            alpha_multiplier: -(1 << 30),
            alpha_shift: -1, // -0.25
        };
        leaky_relu_s8(&mut arena, 0, 0, &p);
        // -10 * -0.25 = 2.5: MBQM(-10, 2^30, -1) = -2.5 -> -3 (away from zero); negated: 3.
        assert_eq!(arena, [3, 10]);
    }

    /// int16 LEAKY_RELU: the int8 arithmetic on two-byte elements, saturated to int16.
    #[test]
    fn leaky_relu_s16_saturates_to_int16() {
        let values: [i16; 4] = [-20_000, -10, 10, 30_000];
        let mut arena = [0u8; 8];
        for (a, v) in arena.chunks_exact_mut(2).zip(values) {
            a.copy_from_slice(&v.to_le_bytes());
        }
        let p = LeakyReluS16 {
            len: 4,
            input_zero_point: 0,
            output_zero_point: 0,
            identity_multiplier: 1 << 30,
            identity_shift: 2, // 2.0
            alpha_multiplier: 1 << 30,
            alpha_shift: -1, // 0.25
        };
        leaky_relu_s16(&mut arena, 0, 0, &p);
        let mut got = [0i16; 4];
        for (g, b) in got.iter_mut().zip(arena.chunks_exact(2)) {
            *g = i16::from_le_bytes([b[0], b[1]]);
        }
        // -20000 / 4 = -5000; -10 / 4 = -2.5 -> -3 (away from zero); 10 * 2; 30000 * 2 saturates.
        assert_eq!(got, [-5000, -3, 20, 32767]);
    }

    #[test]
    fn int16_helpers() {
        assert_eq!(srdhm_i16(i16::MIN, i16::MIN), i16::MAX);
        assert_eq!(srdhm_i16(16384, 16384), 8192);
        assert_eq!(srdhm_i16(-1, 16384), 0);
        assert_eq!(sdhm_i16(-3, 16384), -1);
        assert_eq!(rounding_divide_by_pot_i16(-5, 1), -3);
        assert_eq!(rounding_divide_by_pot_i16(5, 1), 3);
        assert_eq!(saturating_left_shift_i16(20000, 1), i16::MAX);
        assert_eq!(saturating_left_shift_i16(-20000, 2), i16::MIN);
    }

    #[test]
    fn hard_swish_s8_matches_float_roughly() {
        // scale 0.1 in and out, zero points 0: hard_swish(x) for x = -4, -1, 0, 1, 4.
        // Multipliers from TFLM's Prepare for s_in = s_out = 0.1: output 1/128 -> Q15 16384, exp -6;
        // reluish (0.1/128) / (3/32768) = 8.5333 -> Q15 17476, exp 4.
        let mut arena = [(-40i8) as u8, (-10i8) as u8, 0, 10, 40];
        let p = HardSwishS8 {
            len: 5,
            input_zero_point: 0,
            output_zero_point: 0,
            reluish_multiplier: 17476,
            reluish_exponent: 4,
            output_multiplier: 16384,
            output_exponent: -6,
        };
        hard_swish_s8(&mut arena, 0, 0, &p);
        // hard_swish: -4 -> 0, -1 -> -1/3, 0 -> 0, 1 -> 2/3, 4 -> 4: in tenths 0, -3, 0, 7, 40.
        let got: [i8; 5] = core::array::from_fn(|i| arena[i] as i8);
        for (g, want) in got.iter().zip([0i8, -3, 0, 7, 40]) {
            assert!((*g as i32 - want as i32).abs() <= 1, "{got:?}");
        }
    }
}

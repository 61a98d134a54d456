//! LOGISTIC and TANH, int8 and float32.
//!
//! int8 follows TFLM's `reference_integer_ops::Logistic` / `Tanh`: the input, less its zero point, is
//! rescaled to Q4.27 by `input_multiplier` / `input_left_shift`; inputs at or beyond
//! `±input_range_radius` saturate; the rest go through gemmlowp's fixed-point `logistic` / `tanh`.
//! LOGISTIC's output has zero point -128 and scale 1/256, TANH's zero point 0 and scale 1/128.
//! float32 follows `reference_ops::Logistic` (with its cut-offs) and `std::tanh`.
//!
//! Access order: element-wise; the input is first moved to the output (any overlap allowed,
//! `input == output` included), then transformed in place.

use super::nn_common::fixed_point::{logistic_q4, tanh_q4};
use super::nn_common::float_math::{self, exp_f32};
use super::nn_common::views;
use crate::math::{multiply_by_quantized_multiplier, rounding_divide_by_pot};

/// Constant parameters of [`logistic_s8`] (TFLM's `OpDataLogistic` for int8).
#[derive(Clone, Copy, Debug)]
pub struct LogisticS8 {
    /// Number of elements.
    pub len: usize,
    /// Input zero point.
    pub input_zero_point: i32,
    /// `|x - zp|` at or beyond this saturates the output.
    pub input_range_radius: i32,
    /// Q31 multiplier of `input_scale * 2^27` (from `frexp`, without the 2^31 fix-up).
    pub input_multiplier: i32,
    /// Its shift (positive = left).
    pub input_left_shift: i32,
}

/// Constant parameters of [`tanh_s8`] (TFLM's tanh `OpData` for int8).
#[derive(Clone, Copy, Debug)]
pub struct TanhS8 {
    /// Number of elements.
    pub len: usize,
    /// Input zero point.
    pub input_zero_point: i32,
    /// `|x - zp|` at or beyond this saturates the output.
    pub input_range_radius: i32,
    /// Q31 multiplier of `input_scale * 2^27` (from `frexp`, without the 2^31 fix-up).
    pub input_multiplier: i32,
    /// Its shift (positive = left).
    pub input_left_shift: i32,
}

/// Constant parameters of the float32 kernels.
#[derive(Clone, Copy, Debug)]
pub struct ElementsF32 {
    /// Number of elements.
    pub len: usize,
}

/// Applies `f` to each int8 element in place (after moving the input to the output).
#[inline(always)]
fn map_s8(arena: &mut [u8], input: usize, output: usize, len: usize, f: impl Fn(i32) -> i32) {
    for x in views::in_place(arena, input, output, len) {
        *x = f(i32::from(*x as i8)) as i8 as u8;
    }
}

/// Applies `f` to each float32 element in place (after moving the input to the output).
#[inline(always)]
fn map_f32(arena: &mut [u8], input: usize, output: usize, len: usize, f: impl Fn(f32) -> f32) {
    for x in views::in_place(arena, input, output, 4 * len).chunks_exact_mut(4) {
        let v = f(f32::from_le_bytes([x[0], x[1], x[2], x[3]]));
        x.copy_from_slice(&v.to_le_bytes());
    }
}

/// int8 LOGISTIC, bit-exact with TFLM. Reads and writes `len` bytes.
#[cfg_attr(target_os = "none", inline(never))]
pub fn logistic_s8(arena: &mut [u8], input: usize, output: usize, p: &LogisticS8) {
    let p = super::opaque(p);
    map_s8(arena, input, output, p.len, |x| {
        let x = x - p.input_zero_point;
        if x <= -p.input_range_radius {
            -128
        } else if x >= p.input_range_radius {
            127
        } else {
            let q4 = multiply_by_quantized_multiplier(x, p.input_multiplier, p.input_left_shift);
            // Q0.31 → Q8.23 with 8 bits of output, then the -128 zero point.
            (rounding_divide_by_pot(logistic_q4(q4), 23) - 128).clamp(-128, 127)
        }
    });
}

/// int8 TANH, bit-exact with TFLM. Reads and writes `len` bytes.
#[cfg_attr(target_os = "none", inline(never))]
pub fn tanh_s8(arena: &mut [u8], input: usize, output: usize, p: &TanhS8) {
    let p = super::opaque(p);
    map_s8(arena, input, output, p.len, |x| {
        let x = x - p.input_zero_point;
        if x <= -p.input_range_radius {
            -128
        } else if x >= p.input_range_radius {
            127
        } else {
            let q4 = multiply_by_quantized_multiplier(x, p.input_multiplier, p.input_left_shift);
            rounding_divide_by_pot(tanh_q4(q4), 24).clamp(-128, 127)
        }
    });
}

/// float32 LOGISTIC as TFLM computes it: 1 above 16.619047, `exp(x)` below -9, else
/// `1 / (1 + exp(-x))`. Reads and writes `4 * len` bytes.
#[cfg_attr(target_os = "none", inline(never))]
pub fn logistic_f32(arena: &mut [u8], input: usize, output: usize, p: &ElementsF32) {
    let p = super::opaque(p);
    const CUTOFF_UPPER: f32 = 16.619_047;
    const CUTOFF_LOWER: f32 = -9.0;
    map_f32(arena, input, output, p.len, |x| {
        if x > CUTOFF_UPPER {
            1.0
        } else if x < CUTOFF_LOWER {
            exp_f32(x)
        } else {
            1.0 / (1.0 + exp_f32(-x))
        }
    });
}

/// float32 TANH. Reads and writes `4 * len` bytes.
#[cfg_attr(target_os = "none", inline(never))]
pub fn tanh_f32(arena: &mut [u8], input: usize, output: usize, p: &ElementsF32) {
    let p = super::opaque(p);
    map_f32(arena, input, output, p.len, float_math::tanh_f32);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TFLM's parameters for input scale 1/16, zero point 0: 2^-4 * 2^27 = 2^23 → frexp 0.5, shift 24;
    /// radius floor(15 * 2^27 / 2^24) = 120.
    const LOGISTIC: LogisticS8 = LogisticS8 {
        len: 5,
        input_zero_point: 0,
        input_range_radius: 120,
        input_multiplier: 1 << 30,
        input_left_shift: 24,
    };

    #[test]
    fn s8_logistic_values_and_saturation() {
        // 0 → 0.5 → 0; 16 (1.0) → 0.731 * 256 = 187.2 → 59; -16 → 68.8 → -59; ±120 saturate.
        let mut arena = [0u8, 16, (-16i8) as u8, 120, (-120i8) as u8];
        logistic_s8(&mut arena, 0, 0, &LOGISTIC);
        assert_eq!(arena.map(|x| x as i8), [0, 59, -59, 127, -128]);
    }

    #[test]
    fn s8_tanh_is_odd() {
        let p = TanhS8 {
            len: 5,
            input_zero_point: 0,
            input_range_radius: 120,
            input_multiplier: 1 << 30,
            input_left_shift: 24,
        };
        // 16 (1.0) → 0.7616 * 128 = 97.5 → 97 or 98; 0 → 0.
        let mut arena = [0u8, 16, (-16i8) as u8, 119, 0, 0, 0, 0, 0, 0];
        tanh_s8(&mut arena, 0, 5, &p);
        let out: [i8; 5] = core::array::from_fn(|i| arena[5 + i] as i8);
        assert_eq!(out[0], 0);
        assert_eq!(out[1], -out[2]);
        assert!((97..=98).contains(&out[1]));
        assert_eq!(out[3], 127);
    }

    #[test]
    fn f32_logistic_and_tanh() {
        let mut arena = [0u8; 12];
        for (i, v) in [0.0f32, 20.0, -10.0].iter().enumerate() {
            arena[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        logistic_f32(&mut arena, 0, 0, &ElementsF32 { len: 3 });
        let out: [f32; 3] = core::array::from_fn(|i| {
            f32::from_le_bytes(arena[4 * i..4 * i + 4].try_into().unwrap())
        });
        assert_eq!(out, [0.5, 1.0, exp_f32(-10.0)]);
        tanh_f32(&mut arena, 0, 0, &ElementsF32 { len: 1 });
        assert_eq!(
            f32::from_le_bytes(arena[..4].try_into().unwrap()),
            0.462_117_16
        );
    }
}

//! LOGISTIC and TANH, int8, int16 and float32.
//!
//! int8 follows TFLM's `reference_integer_ops::Logistic` / `Tanh`: the input, less its zero point, is
//! rescaled to Q4.27 by `input_multiplier` / `input_left_shift`; inputs at or beyond
//! `±input_range_radius` saturate; the rest go through gemmlowp's fixed-point `logistic` / `tanh`.
//! LOGISTIC's output has zero point -128 and scale 1/256, TANH's zero point 0 and scale 1/128.
//! float32 follows `reference_ops::Logistic` (with its cut-offs) and `std::tanh`.
//!
//! int16 follows TFLM's int16 `reference_integer_ops::Logistic` / `Tanh`: no fixed-point curve but
//! a fixed table of the sigmoid ([`SIGMOID_TABLE`]) read with linear interpolation, after the input
//! is rescaled so that one table step (1/24) is 512 LSB (TANH: 256, as `tanh(x) = 2 σ(2x) - 1`).
//! Both outputs have scale 2^-15 and zero point 0: LOGISTIC's in [1, 32767], TANH's in
//! [-32767, 32767].
//!
//! Access order: element-wise; the input is first moved to the output (any overlap allowed,
//! `input == output` included), then transformed in place.

use super::elem::map;
use super::nn_common::fixed_point::{logistic_q4, tanh_q4};
use super::nn_common::float_math::{self, exp_f32};
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

/// Constant parameters of [`logistic_s16`] and [`tanh_s16`] (TFLM's int16 `OpDataLogistic` / tanh
/// `OpData`, with its power-of-two case resolved at generation time).
#[derive(Clone, Copy, Debug)]
pub struct LogisticS16 {
    /// Number of elements.
    pub len: usize,
    /// Multiplier taking the input to 1/12288 per LSB (below 2^15; `3 << shift` in TFLM's
    /// power-of-two case).
    pub input_multiplier: i32,
    /// Its right shift, rounding half up (0..=31; 0 in the power-of-two case).
    pub input_right_shift: i32,
}

/// Constant parameters of [`tanh_s16`]: [`LogisticS16`]'s.
pub type TanhS16 = LogisticS16;

/// The sigmoid in 0.16 fixed point at steps of 1/24: `SIGMOID_TABLE[i] ≈ 65536 σ(i / 24)`, as the
/// int16 LOGISTIC and TANH of TFLM read it (its `sigmoid_table_uint16`). The values are hand-tuned
/// (44 of them are one above `round(65536 σ(i / 24))`), so they are a fixed list, not computed;
/// the unit tests pin their sum and those differences, and the parity tests compare the C twin's
/// copy with this one.
pub const SIGMOID_TABLE: [u16; 256] = [
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
    41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
    48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
    54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
    58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
    61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
    63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
    64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
    64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
    65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
    65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
    65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
    65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
    65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
    65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
    65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
    65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
];

/// Constant parameters of the float32 kernels.
#[derive(Clone, Copy, Debug)]
pub struct ElementsF32 {
    /// Number of elements.
    pub len: usize,
}

/// Applies `f` to each int8 element ([`map`]: element by element, in order; no overlap contract
/// is declared for these kernels, so input and output lie apart or are the same bytes). Moving the
/// input to the output first and transforming it there linked `memmove` (1.5 KB of Cortex-M4 code)
/// and read every byte twice.
#[inline(always)]
fn map_s8(arena: &mut [u8], input: usize, output: usize, len: usize, f: impl Fn(i32) -> i32) {
    map(arena, input, output, len, |x: i8| f(i32::from(x)) as i8);
}

/// Applies `f` to each float32 element, as [`map_s8`].
#[inline(always)]
fn map_f32(arena: &mut [u8], input: usize, output: usize, len: usize, f: impl Fn(f32) -> f32) {
    map(arena, input, output, len, f);
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

/// TFLM's int16 input rescaling: `(x * multiplier + 2^(shift - 1)) >> shift` (no rounding term for
/// a zero shift). The lowering keeps `|x * multiplier|` below 2^30 and the shift within 0..=31, so
/// nothing overflows; the wrapping operations only keep other parameters from panicking.
#[inline(always)]
fn rescale_s16(x: i16, p: &LogisticS16) -> i32 {
    let shift = (p.input_right_shift & 31) as u32;
    let round = if shift > 0 { 1i32 << (shift - 1) } else { 0 };
    i32::from(x)
        .wrapping_mul(p.input_multiplier)
        .wrapping_add(round)
        >> shift
}

/// The table between entries `u` and `u + 1`, at `frac` of `2^bits` steps: `T[u] · 2^bits + frac ·
/// (T[u+1] - T[u])`, or `saturated` from the last entry on (in u32, as TFLM).
#[inline(always)]
fn interpolate(u: u32, frac: u32, bits: u32, saturated: u32) -> u32 {
    match (
        SIGMOID_TABLE.get(u as usize),
        SIGMOID_TABLE.get(u as usize + 1),
    ) {
        (Some(&a), Some(&b)) if u < 255 => {
            let (a, b) = (u32::from(a), u32::from(b));
            (a << bits).wrapping_add(frac.wrapping_mul(b.wrapping_sub(a)))
        }
        _ => saturated,
    }
}

/// One int16 LOGISTIC value, TFLM's `reference_integer_ops::Logistic` for int16: the rescaled
/// input's magnitude indexes the table in steps of 512 LSB; a negative input takes `1 - σ`.
/// UNIDIRECTIONAL_SEQUENCE_LSTM's gates call the same function.
#[inline(always)]
pub(crate) fn logistic_one_s16(x: i16, p: &LogisticS16) -> i16 {
    let d = rescale_s16(x, p);
    let a = d.unsigned_abs();
    let r = interpolate(a >> 9, a & 0x1ff, 9, 0x7fff << 10);
    // Q0.25 back to Q0.15, rounding; 1 - σ is (2^25 - r) with the rounding's -1.
    let r = if d >= 0 {
        r.wrapping_add(1 << 9)
    } else {
        (1u32 << 25).wrapping_sub(r).wrapping_add((1 << 9) - 1)
    };
    (r >> 10) as i16
}

/// One int16 TANH value, TFLM's `reference_integer_ops::Tanh` for int16: `2 σ(2x) - 1` from the
/// same table, in steps of 256 LSB. UNIDIRECTIONAL_SEQUENCE_LSTM calls the same function.
#[inline(always)]
pub(crate) fn tanh_one_s16(x: i16, p: &TanhS16) -> i16 {
    let d = rescale_s16(x, p);
    let a = d.unsigned_abs();
    // At most 0xffff << 8: fits an i32.
    let r = interpolate(a >> 8, a & 0xff, 8, 0xffff << 8) as i32;
    let r = if d >= 0 {
        r - (1 << 23) + (1 << 7)
    } else {
        -r + (1 << 23) + (1 << 7) - 1
    };
    (r >> 8) as i16
}

/// int16 LOGISTIC, bit-exact with TFLM (`logistic_one_s16` per element). Reads and writes
/// `2 * len` bytes.
#[cfg_attr(target_os = "none", inline(never))]
pub fn logistic_s16(arena: &mut [u8], input: usize, output: usize, p: &LogisticS16) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i16| logistic_one_s16(x, p));
}

/// int16 TANH, bit-exact with TFLM (`tanh_one_s16` per element). Reads and writes `2 * len`
/// bytes.
#[cfg_attr(target_os = "none", inline(never))]
pub fn tanh_s16(arena: &mut [u8], input: usize, output: usize, p: &TanhS16) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i16| tanh_one_s16(x, p));
}

/// One float32 LOGISTIC value as TFLM's `reference_ops::Logistic` computes it: 1 above 16.619047,
/// `exp(x)` below -9, else `1 / (1 + exp(-x))`.
#[inline(always)]
pub(crate) fn logistic_one_f32(x: f32) -> f32 {
    const CUTOFF_UPPER: f32 = 16.619_047;
    const CUTOFF_LOWER: f32 = -9.0;
    if x > CUTOFF_UPPER {
        1.0
    } else if x < CUTOFF_LOWER {
        exp_f32(x)
    } else {
        1.0 / (1.0 + exp_f32(-x))
    }
}

/// float32 LOGISTIC (`logistic_one_f32` per element). Reads and writes `4 * len` bytes.
#[cfg_attr(target_os = "none", inline(never))]
pub fn logistic_f32(arena: &mut [u8], input: usize, output: usize, p: &ElementsF32) {
    let p = super::opaque(p);
    map_f32(arena, input, output, p.len, logistic_one_f32);
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

    /// The table as TFLM has it: its sum, its ends, and 44 entries one above the rounded sigmoid
    /// (the others equal to it).
    #[test]
    fn sigmoid_table_is_tflms() {
        let sum: u32 = SIGMOID_TABLE.iter().map(|&v| u32::from(v)).sum();
        assert_eq!(sum, 15_670_629);
        assert_eq!(
            (SIGMOID_TABLE[0], SIGMOID_TABLE[1], SIGMOID_TABLE[255]),
            (32768, 33451, 65535)
        );
        let mut above = 0;
        for (i, &v) in SIGMOID_TABLE.iter().enumerate() {
            let exact = 65536.0 / (1.0 + (-(i as f64) / 24.0).exp());
            let rounded = (exact.round() as i64).min(65535);
            match i64::from(v) - rounded {
                0 => {}
                1 => above += 1,
                d => panic!("entry {i}: {v} is {d} from the rounded sigmoid"),
            }
        }
        assert_eq!(above, 44);
    }

    fn s16_arena(values: &[i16]) -> std::vec::Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn s16_values(bytes: &[u8]) -> std::vec::Vec<i16> {
        bytes
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect()
    }

    extern crate std;

    /// Input scale 2^-12, TFLM's power-of-two case (multiplier 3, no shift): 4096 is 1.0, i.e.
    /// 12288 LSB = 24 table steps of 512.
    #[test]
    fn s16_logistic_corners() {
        let p = LogisticS16 {
            len: 6,
            input_multiplier: 3,
            input_right_shift: 0,
        };
        let mut arena = s16_arena(&[0, 4096, -4096, 32767, -32768, 1]);
        logistic_s16(&mut arena, 0, 0, &p);
        // σ(0) = 0.5 → 16384; σ(1): T[24] = 47911 → (47911·512 + 512) >> 10 = 23956 (0.7311);
        // σ(-1): (2^25 - 47911·512 + 511) >> 10 = 8812; ±8 (98301 LSB, entry 191) → 32757 and
        // 11; x = 1 is 3 LSB: (32768·512 + 3·683 + 512) >> 10 = 16386.
        assert_eq!(s16_values(&arena), [16384, 23956, 8812, 32757, 11, 16386]);
        // Input scale 2^15 / 12288 (multiplier 32767, no shift): saturation at 32767 and, below,
        // at 1, not 0.
        let wide = LogisticS16 {
            len: 2,
            input_multiplier: 32767,
            input_right_shift: 0,
        };
        let mut arena = s16_arena(&[32767, -32768]);
        logistic_s16(&mut arena, 0, 0, &wide);
        assert_eq!(s16_values(&arena), [32767, 1]);
    }

    /// Input scale 2^-12 again (TFLM's power-of-two case), and the general case with scale 2^-13:
    /// multiplier 24576, shift 14, the same curve at half the input.
    #[test]
    fn s16_tanh_corners() {
        let pot = TanhS16 {
            len: 6,
            input_multiplier: 3,
            input_right_shift: 0,
        };
        let mut arena = s16_arena(&[0, 1, -1, 4096, 32767, -32768]);
        tanh_s16(&mut arena, 0, 0, &pot);
        // tanh(1) = 0.76159 → 24956 (σ(2) = T[48] = 57724); ±1 LSB → ±8; ±8 saturate at
        // ±32767.
        assert_eq!(s16_values(&arena), [0, 8, -8, 24956, 32767, -32767]);
        let general = TanhS16 {
            len: 2,
            input_multiplier: 24576,
            input_right_shift: 14,
        };
        let mut arena = s16_arena(&[8192, -8192]);
        tanh_s16(&mut arena, 0, 0, &general);
        assert_eq!(s16_values(&arena), [24956, -24956]);
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

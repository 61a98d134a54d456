//! SOFTMAX over the last dimension: int8 in, int8 or int16 out (TFLM's `reference_ops::Softmax` for
//! quantized types, gemmlowp fixed point: exp in Q5.26, sum in Q12.19, reciprocal in Q0.31), int16
//! (`SoftmaxInt16`: exp and reciprocal from interpolated 513-entry tables) and float32; and
//! LOG_SOFTMAX, float32 and int8 (`LogSoftmaxQuantized`: exp in Q5.26, sum in Q12.19, its log in
//! Q5.26; output scale 16/256, zero point 127).
//!
//! Access order: row by row, each input row is read whole, then its outputs are written element by
//! element, element k after input element k is read. The output may therefore be the input itself
//! or start below it (int8, float32); int8 to int16, int16 and int8 LOG_SOFTMAX need disjoint
//! tensors.

use super::elem::Elem;
use super::nn_common::fixed_point::{exp_on_negative_values, log_q12_to_q5, reciprocal, rescale};
use super::nn_common::float_math::{exp_f32, log_f32};
use super::nn_common::views;
use crate::kernels::Within;
use crate::math::{
    multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_greater_than_one,
    rounding_divide_by_pot, saturating_rounding_doubling_high_mul,
};

/// Integer bits of the scaled input differences fed to exp (Q5.26).
const SCALED_DIFF_INTEGER_BITS: i32 = 5;
/// Integer bits of the sum of exps (Q12.19).
const ACCUMULATION_INTEGER_BITS: i32 = 12;

/// Constant parameters of [`softmax_s8`] (TFLM's `SoftmaxParams` for int8; the output has zero point
/// -128 and scale 1/256).
#[derive(Clone, Copy, Debug)]
pub struct SoftmaxS8 {
    /// Number of rows (all dimensions but the last).
    pub rows: usize,
    /// Length of a row (the last dimension).
    pub depth: usize,
    /// Q31 multiplier of `beta * input_scale * 2^26` (`PreprocessSoftmaxScaling`).
    pub input_multiplier: i32,
    /// Its left shift (>= 0).
    pub input_left_shift: i32,
    /// Differences from the row maximum below this give exp = 0 (output -128).
    pub diff_min: i32,
}

/// Constant parameters of [`softmax_s16`] (TFLM's `SoftmaxParams` for int16: zero points 0, output
/// scale 1/32768).
#[derive(Clone, Copy, Debug)]
pub struct SoftmaxS16<'a> {
    /// Number of rows (all dimensions but the last).
    pub rows: usize,
    /// Length of a row (the last dimension; at most 65,538, so that a row's sum of exps, each
    /// below 2^15, fits in 31 bits).
    pub depth: usize,
    /// Q31 multiplier of `beta * input_scale * 65535 / 10`: maps a difference from the row maximum
    /// to exp table units, in which -65535 is -10.0.
    pub input_multiplier: i32,
    /// Its shift (positive: left).
    pub input_shift: i32,
    /// `exp(x)` for x in [-10, 0] in Q0.15 (TFLM's `LUTPopulate` table: 513 entries, computed at
    /// generation time).
    pub exp_lut: &'a [i16],
    /// `1 / (1 + x)` for x in [0, 1] in Q0.15 (513 entries).
    pub recip_lut: &'a [i16],
}

/// Constant parameters of [`softmax_f32`].
#[derive(Clone, Copy, Debug)]
pub struct SoftmaxF32 {
    /// Number of rows (all dimensions but the last).
    pub rows: usize,
    /// Length of a row (the last dimension).
    pub depth: usize,
    /// Inverse temperature.
    pub beta: f32,
}

/// int8 SOFTMAX, bit-exact with TFLM. Reads and writes `rows * depth` bytes.
#[cfg_attr(target_os = "none", inline(never))]
pub fn softmax_s8(arena: &mut [u8], input: usize, output: usize, p: &SoftmaxS8) {
    let p = super::opaque(p);
    let len = p.rows * p.depth;
    // One slice over both tensors, indexed from each: no copy first (that would link `memmove`,
    // 1.5 KB of flash on a Cortex-M, for an operator that can work in place).
    let low = input.min(output);
    let data = arena.at_mut(low..input.max(output) + len);
    let (src, dst) = (input - low, output - low);
    ensure!(
        dst <= src || dst >= src + len,
        "softmax: the output may not start inside the input"
    );
    if p.depth == 0 {
        return;
    }
    for r in 0..p.rows {
        let (src, dst) = (src + r * p.depth, dst + r * p.depth);
        let stats = row_stats(data.at(src..src + p.depth), p);
        // Element k is read before output k is written, and output k lands at or below input k
        // (or clear of the input), so nothing unread is overwritten.
        for k in 0..p.depth {
            data[dst + k] = output_value(data[src + k], stats, 8, p) as i8 as u8;
        }
    }
}

/// `exp(beta * s_in * diff)` in Q0.31 for a difference from the row maximum that is `>= diff_min`.
/// Out of line: both passes over a row call it, and one copy of the fixed-point exp is enough.
#[inline(never)]
fn exp_of_diff(diff: i32, p: &SoftmaxS8) -> i32 {
    let scaled = multiply_by_quantized_multiplier_greater_than_one(
        diff,
        p.input_multiplier,
        p.input_left_shift,
    );
    exp_on_negative_values(scaled, SCALED_DIFF_INTEGER_BITS)
}

/// A row's maximum, and the reciprocal of its sum of exps as TFLM's `GetReciprocal` gives it: a Q0.31
/// scale and the bits it must still be shifted right by.
fn row_stats(row: &[u8], p: &SoftmaxS8) -> (i32, i32, i32) {
    let max = row
        .iter()
        .map(|&x| i32::from(x as i8))
        .max()
        .unwrap_or(-128);
    let mut sum_of_exps = 0i32;
    for &x in row {
        let diff = i32::from(x as i8) - max;
        if diff >= p.diff_min {
            let e = exp_of_diff(diff, p);
            sum_of_exps = sum_of_exps.wrapping_add(rescale(e, 0, ACCUMULATION_INTEGER_BITS));
        }
    }
    let (scale, num_bits_over_unit) = reciprocal(sum_of_exps, ACCUMULATION_INTEGER_BITS);
    (max, scale, num_bits_over_unit)
}

/// The output of one element for an output type of `bits` bits (zero point its minimum).
#[inline(always)]
fn output_value(x: u8, stats: (i32, i32, i32), bits: i32, p: &SoftmaxS8) -> i32 {
    let (max, scale, num_bits_over_unit) = stats;
    let (lowest, highest) = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1);
    let diff = i32::from(x as i8) - max;
    if diff >= p.diff_min {
        // At least 0 (the sum of exps is at least 1), but above 31 for an int8 output when the
        // sum reaches 512 (a row of 512 or more nearly equal values): a shift TFLM's reference
        // performs with undefined behaviour. The product is in [0, 2^31), so its exact rounded
        // quotient by 2^32 or more is 0.
        let exponent = num_bits_over_unit + 31 - bits;
        let e = exp_of_diff(diff, p);
        let unsat = if exponent > 31 {
            0
        } else {
            rounding_divide_by_pot(saturating_rounding_doubling_high_mul(scale, e), exponent)
        };
        (unsat + lowest).clamp(lowest, highest)
    } else {
        lowest
    }
}

/// SOFTMAX with int8 input and int16 output (zero point -32768, scale 1/65536), bit-exact with TFLM.
/// Reads `rows * depth` bytes at `input`, writes `2 * rows * depth` bytes (little-endian `i16`) at
/// `output`; reads each input row whole before writing its output row; the output must not overlap
/// the input (checked).
#[cfg_attr(target_os = "none", inline(never))]
pub fn softmax_s8_s16(arena: &mut [u8], input: usize, output: usize, p: &SoftmaxS8) {
    let p = super::opaque(p);
    let len = p.rows * p.depth;
    let (inp, out) = views::split(arena, input, len, output, 2 * len);
    if p.depth == 0 {
        return;
    }
    for (row, out_row) in inp
        .chunks_exact(p.depth)
        .zip(out.chunks_exact_mut(2 * p.depth))
    {
        let stats = row_stats(row, p);
        for (&x, o) in row.iter().zip(out_row.chunks_exact_mut(2)) {
            o.copy_from_slice(&(output_value(x, stats, 16, p) as i16).to_le_bytes());
        }
    }
}

/// TFLM's `LUTLookup`: entry `256 + (v >> 7)` of a 513-entry table, interpolated linearly over the
/// low 7 bits (the slope, as TFLM stores it, wraps to 16 bits).
#[inline(always)]
fn lut_lookup(v: i16, lut: &[i16; 513]) -> i16 {
    let index = (256 + (v >> 7)) as usize;
    let offset = i32::from(v & 0x7F);
    let base = lut[index];
    let slope = i32::from(lut[index + 1].wrapping_sub(base));
    base.wrapping_add(((slope * offset + 64) >> 7) as i16)
}

/// int16 SOFTMAX, bit-exact with TFLM's `SoftmaxInt16`: per row, `exp(x - max)` from the exp table
/// (kept in the output row, as TFLM does), their sum normalised to [1, 2) and inverted through the
/// reciprocal table, then each exp scaled by it to Q0.15, clamped to [0, 32767]. Reads
/// `2 * rows * depth` bytes at `input`, writes as many at `output`; the tensors must not overlap
/// (checked).
#[cfg_attr(target_os = "none", inline(never))]
pub fn softmax_s16(arena: &mut [u8], input: usize, output: usize, p: &SoftmaxS16) {
    let p = super::opaque(p);
    let len = 2 * p.rows * p.depth;
    let (inp, out) = views::split(arena, input, len, output, len);
    let exp_lut: &[i16; 513] = p.exp_lut[..513].try_into().expect("513 entries");
    let recip_lut: &[i16; 513] = p.recip_lut[..513].try_into().expect("513 entries");
    if p.depth == 0 {
        return;
    }
    for (row, out_row) in inp
        .chunks_exact(2 * p.depth)
        .zip(out.chunks_exact_mut(2 * p.depth))
    {
        let values = row
            .chunks_exact(2)
            .map(|x| i16::from_le_bytes([x[0], x[1]]));
        let max = i32::from(values.clone().max().unwrap_or(i16::MIN));
        let mut sum = 0i32;
        for (x, o) in values.zip(out_row.chunks_exact_mut(2)) {
            let scaled = multiply_by_quantized_multiplier(
                i32::from(x) - max,
                p.input_multiplier,
                p.input_shift,
            );
            // Recentred from [-65535, 0] to the table's [-32768, 32767].
            let e = lut_lookup(
                scaled.saturating_add(32767).clamp(-32768, 32767) as i16,
                exp_lut,
            );
            o.copy_from_slice(&e.to_le_bytes());
            // At most 65,538 exps of at most 32,762 each (generation-time check): no overflow.
            sum += i32::from(e);
        }
        // The largest element's exp is 32,762, so the sum is positive: 1 ..= 30 leading zeros.
        let zeros = (sum as u32).leading_zeros();
        let normalised = (((i64::from(sum) << (zeros - 1)) + (1 << 13)) >> 14) as i32;
        let reciprocal = i64::from(lut_lookup(
            (normalised - (1 << 15) - (1 << 16)).clamp(-32768, 32767) as i16,
            recip_lut,
        ));
        let shift = 31 - zeros;
        let round = 1i64 << (shift - 1);
        for o in out_row.chunks_exact_mut(2) {
            let e = i64::from(i16::from_le_bytes([o[0], o[1]]));
            let v = (((e * reciprocal + round) >> shift) as i32).clamp(0, 32767) as i16;
            o.copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// float32 SOFTMAX as TFLM computes it: `exp((x - max) * beta)` per element, summed in order, each
/// divided by the sum. Reads and writes `4 * rows * depth` bytes.
#[cfg_attr(target_os = "none", inline(never))]
pub fn softmax_f32(arena: &mut [u8], input: usize, output: usize, p: &SoftmaxF32) {
    let p = super::opaque(p);
    let data = views::in_place(arena, input, output, 4 * p.rows * p.depth);
    if p.depth == 0 {
        return;
    }
    for row in data.chunks_exact_mut(4 * p.depth) {
        let max = views::f32s(row).fold(f32::MIN, |m, x| if m < x { x } else { m });
        let mut sum = 0.0f32;
        for x in row.chunks_exact_mut(4) {
            let e = exp_f32((f32::from_le_bytes([x[0], x[1], x[2], x[3]]) - max) * p.beta);
            x.copy_from_slice(&e.to_le_bytes());
            sum += e;
        }
        for x in row.chunks_exact_mut(4) {
            let v = f32::from_le_bytes([x[0], x[1], x[2], x[3]]) / sum;
            x.copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Constant parameters of [`log_softmax_f32`].
#[derive(Clone, Copy, Debug)]
pub struct LogSoftmaxF32 {
    /// Number of rows (all dimensions but the last).
    pub rows: usize,
    /// Length of a row (the last dimension).
    pub depth: usize,
}

/// float32 LOG_SOFTMAX over the last dimension, as TFLM's `reference_ops::LogSoftmax`: per row
/// the maximum, the float sum of `exp(x - max)` in order, its `log`, then `x - max - log_sum`.
/// Access order as [`softmax_f32`]'s, straight from the input to the output (no copy of the
/// input first: 160 bytes moved cost log_softmax_float's 40 elements about 300 instructions on
/// the Cortex-M4).
#[cfg_attr(target_os = "none", inline(never))]
pub fn log_softmax_f32(arena: &mut [u8], input: usize, output: usize, p: &LogSoftmaxF32) {
    let p = super::opaque(p);
    let len = p.rows * p.depth;
    let within = |start: usize| {
        len.checked_mul(4)
            .and_then(|bytes| start.checked_add(bytes))
            .is_some_and(|end| end <= arena.len())
    };
    ensure!(
        within(input) && within(output),
        "LOG_SOFTMAX tensor out of the arena"
    );
    let base = arena.as_mut_ptr();
    let (x, y) = (
        base.wrapping_add(input).cast_const(),
        base.wrapping_add(output),
    );
    // SAFETY (the three blocks below): elements `0..len` at `input` and at `output` lie within the
    // arena (`within` above), and `x` and `y` derive from its one `&mut` borrow, which nothing
    // else uses here. An output that overlaps the input (the access order allows it at or below
    // the input) only changes which values are read, never where.
    let at = |i: usize| unsafe { f32::read_at(x, i) };
    for start in (0..len).step_by(p.depth.max(1)) {
        let row = start..start + p.depth;
        let max = row.clone().fold(f32::MIN, |m, i| {
            let v = at(i);
            if m < v {
                v
            } else {
                m
            }
        });
        let sum = row.clone().fold(0.0f32, |s, i| s + exp_f32(at(i) - max));
        let log_sum = log_f32(sum);
        for i in row {
            unsafe { (at(i) - max - log_sum).write_at(y, i) };
        }
    }
}

/// Constant parameters of [`log_softmax_s8`], as TFLM's log_softmax.cc Prepare computes them
/// (beta 1, 5 integer bits of the scaled differences).
#[derive(Clone, Copy, Debug)]
pub struct LogSoftmaxS8 {
    /// Number of rows (all dimensions but the last).
    pub rows: usize,
    /// Length of a row (the last dimension, at most 4,095: the Q12.19 sum cannot overflow).
    pub depth: usize,
    /// Q31 multiplier of an input difference into Q5.26.
    pub input_multiplier: i32,
    /// Left shift applied with `input_multiplier` (at least 1).
    pub input_left_shift: i32,
    /// Q31 multiplier of a Q5.26 log back into input units (`reverse_scaling_divisor`).
    pub reverse_scaling_divisor: i32,
    /// The shift applied with it, in `MultiplyByQuantizedMultiplier`'s convention (at most 0).
    pub reverse_scaling_shift: i32,
    /// Differences from the row maximum below this contribute nothing to the sum.
    pub diff_min: i32,
}

/// int8 LOG_SOFTMAX over the last dimension, as TFLM's `LogSoftmaxQuantized`: per row, the sum of
/// the exps (Q12.19) of the differences from the maximum at or above `diff_min`, its log (Q5.26),
/// then each difference above the adjusted minimum minus that log, in units of 1/16 from 127,
/// clamped; the others -128. Reads `rows * depth` bytes at `input`, writes as many at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn log_softmax_s8(arena: &mut [u8], input: usize, output: usize, p: &LogSoftmaxS8) {
    let p = super::opaque(p);
    let len = p.rows * p.depth;
    let (inp, out) = views::split(arena, input, len, output, len);
    if p.depth == 0 {
        return;
    }
    for (row, out_row) in inp.chunks_exact(p.depth).zip(out.chunks_exact_mut(p.depth)) {
        let max = row
            .iter()
            .map(|&x| i32::from(x as i8))
            .max()
            .unwrap_or(-128);
        let scaled = |diff: i32| {
            multiply_by_quantized_multiplier(diff, p.input_multiplier, p.input_left_shift)
        };
        let mut sum_of_exps = 0i32;
        for &x in row {
            let diff = i32::from(x as i8) - max;
            if diff >= p.diff_min {
                let e = exp_on_negative_values(scaled(diff), SCALED_DIFF_INTEGER_BITS);
                sum_of_exps = sum_of_exps.wrapping_add(rescale(e, 0, ACCUMULATION_INTEGER_BITS));
            }
        }
        let log_sum = log_q12_to_q5(sum_of_exps);
        let adjusted_diff_min = (p.diff_min - 1).max(multiply_by_quantized_multiplier(
            log_sum.wrapping_add(i32::MIN),
            p.reverse_scaling_divisor,
            p.reverse_scaling_shift,
        ));
        for (&x, o) in row.iter().zip(out_row.iter_mut()) {
            let diff = i32::from(x as i8) - max;
            let v = if diff > adjusted_diff_min {
                // Q5.26 to the output's 4 integer bits: a rounding shift by 31 - 5 - 4.
                let q = rounding_divide_by_pot(scaled(diff).wrapping_sub(log_sum), 22) + 127;
                q.clamp(-128, 127)
            } else {
                -128
            };
            *o = v as i8 as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TFLM's parameters for input scale 1/16, beta 1: multiplier of 2^22 as Q31 with shift 23,
    /// diff_min = -floor(31 * 2^26 / 2^23) = -248.
    fn params(depth: usize) -> SoftmaxS8 {
        SoftmaxS8 {
            rows: 1,
            depth,
            input_multiplier: 1 << 30,
            input_left_shift: 23,
            diff_min: -248,
        }
    }

    #[test]
    fn s8_equal_inputs_share_the_mass() {
        let mut arena = [7u8; 4];
        softmax_s8(&mut arena, 0, 0, &params(4));
        // Each 1/4 = 64/256 → 64 - 128 = -64.
        assert_eq!(arena.map(|x| x as i8), [-64; 4]);
    }

    #[test]
    fn s8_rows_of_512_or_more_equal_values_round_to_zero() {
        // The sum of exps reaches 512: TFLM's shift would be 32 (undefined); 1/600 of 256 is 0.
        let mut arena = [5u8; 600];
        softmax_s8(&mut arena, 0, 0, &params(600));
        assert!(arena.iter().all(|&x| x as i8 == -128));
        // Just below: 1/511 of 256 rounds to 1 (shift 31).
        let mut arena = [5u8; 511];
        softmax_s8(&mut arena, 0, 0, &params(511));
        assert!(arena.iter().all(|&x| x as i8 == -127));
    }

    #[test]
    fn s8_outputs_sum_to_about_one() {
        // Inputs 0, 16, 32 are 0, 1, 2 in real terms: softmax 0.0900, 0.2447, 0.6652.
        let mut arena = [0u8, 16, 32, 0, 0, 0];
        softmax_s8(&mut arena, 0, 3, &params(3));
        let out: [i32; 3] = core::array::from_fn(|i| i32::from(arena[3 + i] as i8) + 128);
        assert_eq!(out, [23, 63, 170]);
        assert!((out.iter().sum::<i32>() - 256).abs() <= 1);
    }

    #[test]
    fn s8_output_may_start_below_its_input() {
        let p = SoftmaxS8 {
            rows: 2,
            ..params(3)
        };
        let mut disjoint = [0u8, 16, 32, 32, 16, 0, 0, 0, 0, 0, 0, 0];
        softmax_s8(&mut disjoint, 0, 6, &p);
        // Two bytes down, overlapping: the same outputs.
        let mut shifted = [9u8, 9, 0, 16, 32, 32, 16, 0];
        softmax_s8(&mut shifted, 2, 0, &p);
        assert_eq!(shifted[..6], disjoint[6..]);
    }

    #[test]
    #[should_panic(expected = "may not start inside the input")]
    fn s8_output_inside_its_input_is_refused() {
        softmax_s8(&mut [0u8; 8], 0, 2, &params(3));
    }

    #[test]
    fn s8_far_below_max_gives_minus_128() {
        let mut arena = [(-128i8) as u8, 127];
        softmax_s8(&mut arena, 0, 0, &params(2));
        assert_eq!(arena.map(|x| x as i8), [-128, 127]);
    }

    #[test]
    fn f32_rows_sum_to_one() {
        let mut arena = [0u8; 24];
        for (i, v) in [0.0f32, 1.0, 2.0, 5.0, 5.0, 5.0].iter().enumerate() {
            arena[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        softmax_f32(
            &mut arena,
            0,
            0,
            &SoftmaxF32 {
                rows: 2,
                depth: 3,
                beta: 1.0,
            },
        );
        let out: [f32; 6] = core::array::from_fn(|i| {
            f32::from_le_bytes(arena[4 * i..4 * i + 4].try_into().unwrap())
        });
        assert!((out[0] - 0.090_030_57).abs() < 1e-7);
        assert!((out[2] - 0.665_240_9).abs() < 1e-7);
        assert_eq!(out[3], out[5]);
        assert!((out[3] - 1.0 / 3.0).abs() < 1e-7);
    }

    /// TFLM's tables at the entries these cases reach (the ends): exp(-10) and exp(0) in Q0.15, and
    /// 1 / (1 + x) near x = 1. Input scale 10/65535 per LSB is the exp table's own unit
    /// (multiplier 1: 2^30 with shift 1).
    fn s16_tables() -> ([i16; 513], [i16; 513]) {
        let (mut exp, mut recip) = ([0i16; 513], [0i16; 513]);
        (exp[0], exp[1], exp[511], exp[512]) = (2, 2, 32133, 32767);
        (recip[511], recip[512]) = (16400, 16384);
        (exp, recip)
    }

    fn s16_params<'a>(depth: usize, tables: &'a ([i16; 513], [i16; 513])) -> SoftmaxS16<'a> {
        SoftmaxS16 {
            rows: 1,
            depth,
            input_multiplier: 1 << 30,
            input_shift: 1,
            exp_lut: &tables.0,
            recip_lut: &tables.1,
        }
    }

    fn run_s16<const N: usize>(input: [i16; N], p: &SoftmaxS16) -> [i16; N] {
        extern crate std;
        let mut arena = std::vec![0u8; 4 * N];
        for (a, x) in arena.chunks_exact_mut(2).zip(input) {
            a.copy_from_slice(&x.to_le_bytes());
        }
        softmax_s16(&mut arena, 0, 2 * N, p);
        core::array::from_fn(|i| {
            i16::from_le_bytes([arena[2 * N + 2 * i], arena[2 * N + 2 * i + 1]])
        })
    }

    #[test]
    fn s16_equal_inputs_share_the_mass() {
        let tables = s16_tables();
        // Each exp is the interpolation at the table's end, 32133 + (634 * 127 + 64) >> 7 = 32762;
        // their sum 131048 normalised is 131048 - 98304 = 32744 in the reciprocal table,
        // 16400 + (-16 * 104 + 64) >> 7 = 16387; 32762 * 16387 >> 16, rounded: 8192 = 1/4.
        assert_eq!(run_s16([-5; 4], &s16_params(4, &tables)), [8192; 4]);
    }

    #[test]
    fn s16_far_below_max_gets_the_tables_floor() {
        let tables = s16_tables();
        // The difference -65535 is -10.0: exp table entry 0, which is 2, not 0. Sum 32764, 17
        // leading zeros: (32764 << 16 + 2^13) >> 14 = 131056 → reciprocal entry 511 at offset
        // 112, 16400 + (-16 * 112 + 64) >> 7 = 16386; outputs (e * 16386 + 2^13) >> 14.
        assert_eq!(
            run_s16([32767, -32768], &s16_params(2, &tables)),
            [32766, 2]
        );
    }

    #[test]
    fn s8_to_s16_keeps_more_bits() {
        let mut arena = [0u8, 16, 32, 0, 0, 0, 0, 0, 0, 0];
        softmax_s8_s16(&mut arena, 0, 4, &params(3));
        let out: [i32; 3] = core::array::from_fn(|i| {
            i32::from(i16::from_le_bytes([arena[4 + 2 * i], arena[5 + 2 * i]])) + 32768
        });
        // 0.0900, 0.2447, 0.6652 of 65536.
        for (got, want) in out.iter().zip([5900.0, 16037.0, 43597.0]) {
            assert!((f64::from(*got) - want).abs() < 40.0, "{got} vs {want}");
        }
    }

    /// Two rows of three floats at `input`, LOG_SOFTMAX written at `output`: what TFLM's
    /// reference computes, whether the output is the input, starts below it or is apart.
    #[test]
    fn f32_log_softmax_streams_from_input_to_output() {
        let x = [1.5f32, -2.0, 0.25, 8.0, 8.0, -1.0];
        let expected: [f32; 6] = core::array::from_fn(|i| {
            let row = &x[i / 3 * 3..i / 3 * 3 + 3];
            let max = row.iter().fold(f32::MIN, |m, &v| if m < v { v } else { m });
            let sum = row.iter().fold(0.0f32, |s, &v| s + exp_f32(v - max));
            x[i] - max - log_f32(sum)
        });
        let p = LogSoftmaxF32 { rows: 2, depth: 3 };
        for (input, output) in [(8, 8), (8, 4), (8, 0), (0, 24), (24, 0)] {
            let mut arena = [0u8; 48];
            for (i, v) in x.iter().enumerate() {
                arena[input + 4 * i..input + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
            }
            log_softmax_f32(&mut arena, input, output, &p);
            let got: [f32; 6] = core::array::from_fn(|i| {
                let b = &arena[output + 4 * i..output + 4 * i + 4];
                f32::from_le_bytes([b[0], b[1], b[2], b[3]])
            });
            assert_eq!(
                got.map(f32::to_bits),
                expected.map(f32::to_bits),
                "{input} -> {output}"
            );
        }
        // The tied maxima of the second row get the same value, a little below -log(2).
        assert_eq!(expected[3], expected[4]);
        assert!(expected[3] < -core::f32::consts::LN_2 && expected[3] > -0.7);
    }
}

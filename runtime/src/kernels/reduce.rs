//! The reductions MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL over any set of axes (TFLM's reduce.cc).
//!
//! Generation time splits the input's dimensions into kept ones (which index the output, in order)
//! and reduced ones, merging adjacent dimensions of the same kind. Each output element is the
//! reduction of its reduced elements, visited in the input's C order — the order in which TFLM
//! accumulates, which matters for float32 — so no scratch accumulator is needed. An empty input
//! gives what TFLM's reference reductions leave: the initial value (0 for the sums, the type's
//! lowest or highest value for the maximum or minimum) and, for the integer path, 0.

use super::elem::{next_index, Elem};
use super::nn_common::views;
use super::MAX_RANK;
use crate::math::multiply_by_quantized_multiplier;

/// Constants of TFLM's integer MEAN and SUM (`QuantizedMeanOrSum`), for int8 and int16.
#[derive(Clone, Copy, Debug)]
pub struct QuantizedMeanOrSum<'a> {
    /// Input size in bytes.
    pub input_bytes: usize,
    /// Extents of the kept dimensions (the output, in C order).
    pub kept_shape: &'a [usize],
    /// Input element stride of each kept dimension.
    pub kept_strides: &'a [usize],
    /// Extents of the reduced dimensions.
    pub reduced_shape: &'a [usize],
    /// Input element stride of each reduced dimension.
    pub reduced_strides: &'a [usize],
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// TFLM's multiplier: `QuantizeMultiplier(s_in / s_out)`, for MEAN divided by the element
    /// count as TFLM's Eval does.
    pub multiplier: i32,
    /// The matching shift.
    pub shift: i32,
}

/// Constants of a reduction with no rescaling: float32 MEAN and SUM, and REDUCE_MAX and REDUCE_MIN
/// (float32, and int8 with the same quantization in and out).
#[derive(Clone, Copy, Debug)]
pub struct Reduction<'a> {
    /// Input size in bytes.
    pub input_bytes: usize,
    /// Extents of the kept dimensions (the output, in C order).
    pub kept_shape: &'a [usize],
    /// Input element stride of each kept dimension.
    pub kept_strides: &'a [usize],
    /// Extents of the reduced dimensions.
    pub reduced_shape: &'a [usize],
    /// Input element stride of each reduced dimension.
    pub reduced_strides: &'a [usize],
}

/// TFLM's integer MEAN or SUM (`QuantizedMeanOrSum`): per output, `sum - zp_in * n` (the sum wraps
/// in int32, as TFLM's; `run_sum(start, len, step)` is the wrapping sum of one run of input
/// elements, and wrapping addition is associative) requantized with the multiplier, plus `zp_out`,
/// clamped to `lo..=hi` and passed to `write(o, value)` in output order. With no reduced element
/// (an empty input) TFLM returns before requantizing, leaving 0.
#[inline(always)]
fn mean_or_sum_integer(
    p: &QuantizedMeanOrSum,
    (lo, hi): (i32, i32),
    run_sum: impl Fn(usize, usize, usize) -> i32,
    mut write: impl FnMut(usize, i32),
) {
    let outputs: usize = p.kept_shape.iter().product();
    let n: usize = p.reduced_shape.iter().product();
    let zero_sum = p.input_zero_point as i64 * n as i64;
    for_each_output(p.kept_shape, p.kept_strides, outputs, |o, base| {
        if n == 0 {
            write(o, 0);
            return;
        }
        let mut sum = 0i32;
        for_each_run(
            p.reduced_shape,
            p.reduced_strides,
            base,
            |start, len, step| sum = sum.wrapping_add(run_sum(start, len, step)),
        );
        let shifted = (sum as i64 - zero_sum) as i32;
        let v =
            multiply_by_quantized_multiplier(shifted, p.multiplier, p.shift) + p.output_zero_point;
        write(o, crate::kernels::clamp(v, lo, hi));
    });
}

/// int8 MEAN or SUM: per output, `sum - zp_in * n` requantized with the multiplier, plus `zp_out`,
/// clamped. Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mean_or_sum_s8(arena: &mut [u8], input: usize, output: usize, p: &QuantizedMeanOrSum) {
    let p = super::opaque(p);
    let outputs: usize = p.kept_shape.iter().product();
    let (src, dst) = views::split(arena, input, p.input_bytes, output, outputs);
    let run_sum = |start: usize, len: usize, step: usize| {
        let mut sum = 0i32;
        if step == 1 {
            for &x in &src[start..start + len] {
                sum = sum.wrapping_add(x as i8 as i32);
            }
        } else {
            for k in 0..len {
                sum = sum.wrapping_add(src[start + k * step] as i8 as i32);
            }
        }
        sum
    };
    mean_or_sum_integer(p, (-128, 127), run_sum, |o, v| dst[o] = v as i8 as u8);
}

/// int16 MEAN or SUM (TFLM's `QuantizedMeanOrSum<int16_t>`): as [`mean_or_sum_s8`], clamped to
/// int16. Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mean_or_sum_s16(arena: &mut [u8], input: usize, output: usize, p: &QuantizedMeanOrSum) {
    let p = super::opaque(p);
    let outputs: usize = p.kept_shape.iter().product();
    let (src, dst) = views::split(arena, input, p.input_bytes, output, 2 * outputs);
    let run_sum = |start: usize, len: usize, step: usize| {
        let mut sum = 0i32;
        for k in 0..len {
            let i = 2 * (start + k * step);
            sum = sum.wrapping_add(i32::from(i16::from_le_bytes([src[i], src[i + 1]])));
        }
        sum
    };
    mean_or_sum_integer(p, (-32768, 32767), run_sum, |o, v| {
        dst[2 * o..2 * o + 2].copy_from_slice(&(v as i16).to_le_bytes())
    });
}

/// Per output of a float32 reduction, the float sum of its elements in C order (from 0, as TFLM's
/// `ReduceGeneric` and `Mean`), written as `finish(sum, n)` with `n` their count.
#[inline(always)]
fn sum_f32_each(
    arena: &mut [u8],
    input: usize,
    output: usize,
    p: &Reduction,
    finish: fn(f32, usize) -> f32,
) {
    let outputs: usize = p.kept_shape.iter().product();
    let n: usize = p.reduced_shape.iter().product();
    let (src, dst) = views::split(arena, input, p.input_bytes, output, outputs * 4);
    let read =
        |i: usize| f32::from_le_bytes([src[4 * i], src[4 * i + 1], src[4 * i + 2], src[4 * i + 3]]);
    for_each_output(p.kept_shape, p.kept_strides, outputs, |o, base| {
        let mut sum = 0.0f32;
        for_each_run(
            p.reduced_shape,
            p.reduced_strides,
            base,
            |start, len, step| {
                for k in 0..len {
                    sum += read(start + k * step);
                }
            },
        );
        dst[4 * o..4 * o + 4].copy_from_slice(&finish(sum, n).to_le_bytes());
    });
}

/// float32 MEAN: per output, the float sum of its elements in C order divided by their count.
/// Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mean_f32(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    sum_f32_each(arena, input, output, p, |sum, n| {
        if n > 0 {
            sum / n as f32
        } else {
            0.0
        }
    });
}

/// float32 SUM: per output, the float sum of its elements in C order, from 0 (TFLM's
/// `ReduceGeneric` with `in + current`). Writes the output in order; the output must not overlap
/// the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sum_f32(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    sum_f32_each(arena, input, output, p, |sum, _| sum);
}

/// TFLM's `ReduceGeneric` for REDUCE_MAX and REDUCE_MIN: per output, from `init`,
/// `acc = pick(acc, x)` over its elements in C order.
#[inline(always)]
fn extremum<T: Elem>(
    arena: &mut [u8],
    (input, output): (usize, usize),
    p: &Reduction,
    init: T,
    pick: impl Fn(T, T) -> T,
) {
    let outputs: usize = p.kept_shape.iter().product();
    let (src, dst) = views::split(arena, input, p.input_bytes, output, outputs * T::SIZE);
    for_each_output(p.kept_shape, p.kept_strides, outputs, |o, base| {
        let mut acc = init;
        for_each_run(
            p.reduced_shape,
            p.reduced_strides,
            base,
            |start, len, step| {
                for k in 0..len {
                    acc = pick(
                        acc,
                        T::read(&src[T::SIZE * (start + k * step)..][..T::SIZE]),
                    );
                }
            },
        );
        acc.write(&mut dst[T::SIZE * o..][..T::SIZE]);
    });
}

/// float32 REDUCE_MAX: per output, from `f32::MIN` (C++'s `lowest()`), `x > acc ? x : acc` over
/// its elements in C order, exactly TFLM's comparison: a NaN is never taken, and an output whose
/// elements are all below `f32::MIN` (−∞) or NaN is `f32::MIN`. Writes the output in order; the
/// output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn max_f32(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    let pick = |acc: f32, x: f32| if x > acc { x } else { acc };
    extremum(arena, (input, output), p, f32::MIN, pick);
}

/// float32 REDUCE_MIN: as [`max_f32`] from `f32::MAX` with `x < acc ? x : acc`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn min_f32(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    let pick = |acc: f32, x: f32| if x < acc { x } else { acc };
    extremum(arena, (input, output), p, f32::MAX, pick);
}

/// int8 REDUCE_MAX (same quantization in and out): per output, the largest element, -128 for an
/// empty one. Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn max_s8(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    extremum(arena, (input, output), p, i8::MIN, i8::max);
}

/// int8 REDUCE_MIN: as [`max_s8`] with the smallest element, 127 for an empty one.
#[cfg_attr(target_os = "none", inline(never))]
pub fn min_s8(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    extremum(arena, (input, output), p, i8::MAX, i8::min);
}

/// REDUCE_ALL (bool, one byte per element as TFLM stores it): per output, 1 when every element
/// is non-zero, else 0; 1 for an empty one (TFLM's `ReduceGeneric` from `true` with
/// `in && current`). Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn all_b(arena: &mut [u8], input: usize, output: usize, p: &Reduction) {
    let p = super::opaque(p);
    extremum(arena, (input, output), p, 1u8, |acc: u8, x: u8| {
        u8::from(acc != 0 && x != 0)
    });
}

/// Calls `f(output_index, input_base)` for each of the `outputs` output elements in order.
#[inline(always)]
fn for_each_output(
    shape: &[usize],
    strides: &[usize],
    outputs: usize,
    mut f: impl FnMut(usize, usize),
) {
    assert!(shape.len() <= MAX_RANK && strides.len() == shape.len());
    let mut index = [0usize; MAX_RANK];
    for o in 0..outputs {
        let base = index.iter().zip(strides).map(|(i, s)| i * s).sum();
        f(o, base);
        next_index(&mut index[..shape.len()], shape);
    }
}

/// Calls `f(start, len, step)` for each innermost run of the reduced elements from `base`, in C order.
#[inline(always)]
fn for_each_run(
    shape: &[usize],
    strides: &[usize],
    base: usize,
    mut f: impl FnMut(usize, usize, usize),
) {
    let rank = shape.len();
    assert!(rank <= MAX_RANK && strides.len() == rank);
    if rank == 0 {
        f(base, 1, 1);
        return;
    }
    if shape.contains(&0) {
        return;
    }
    let mut index = [0usize; MAX_RANK];
    loop {
        let start = base
            + index[..rank - 1]
                .iter()
                .zip(strides)
                .map(|(i, s)| i * s)
                .sum::<usize>();
        f(start, shape[rank - 1], strides[rank - 1]);
        if !next_index(&mut index[..rank - 1], &shape[..rank - 1]) {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_s8_over_hw() {
        // NHWC 1x2x2x2, mean over H and W: kept [C=2] stride 1, reduced [HW=4] stride 2.
        let input = [1i8, -1, 2, -2, 3, -3, 5, -5];
        let mut arena = [0u8; 10];
        for (a, &x) in arena.iter_mut().zip(&input) {
            *a = x as u8;
        }
        // Same scale in and out: QuantizeMultiplier(1.0) = (2^30, 1); TFLM then divides by n = 4:
        // shift = min(floor(log2 4) = 2, 32, 31 + 1) = 2, multiplier (2^30 << 2) / 4 = 2^30, shift -1.
        let p = QuantizedMeanOrSum {
            input_bytes: 8,
            kept_shape: &[2],
            kept_strides: &[1],
            reduced_shape: &[4],
            reduced_strides: &[2],
            input_zero_point: 1,
            output_zero_point: 1,
            multiplier: 1 << 30,
            shift: -1,
        };
        mean_or_sum_s8(&mut arena, 0, 8, &p);
        // c0: sum 11 - 4 = 7, 7/4 = 1.75 -> 2, +1 = 3; c1: -11 - 4 = -15 -> -3.75 -> -4, +1 = -3.
        assert_eq!(&arena[8..], &[3u8, (-3i8) as u8]);
    }

    /// The int8 case's arithmetic on int16 values (TFLM's one integer path): 1x2x2x2 over H and W,
    /// same scales (multiplier 2^30, shift -1 after the division by 4), zero points 0.
    #[test]
    fn mean_s16_over_hw() {
        let input = [1000i16, -1000, 2000, -2001, 3000, -3000, 32767, -32768];
        let mut arena = [0u8; 20];
        for (c, x) in arena.chunks_exact_mut(2).zip(input) {
            c.copy_from_slice(&x.to_le_bytes());
        }
        let p = QuantizedMeanOrSum {
            input_bytes: 16,
            kept_shape: &[2],
            kept_strides: &[1],
            reduced_shape: &[4],
            reduced_strides: &[2],
            input_zero_point: 0,
            output_zero_point: 0,
            multiplier: 1 << 30,
            shift: -1,
        };
        mean_or_sum_s16(&mut arena, 0, 16, &p);
        // c0: 38767 / 4 = 9691.75 → 9692; c1: -38769 / 4 = -9692.25 → -9692.
        let out = [
            i16::from_le_bytes([arena[16], arena[17]]),
            i16::from_le_bytes([arena[18], arena[19]]),
        ];
        assert_eq!(out, [9692, -9692]);
    }

    #[test]
    fn mean_f32_over_last_axis() {
        let mut arena = [0u8; 24 + 8];
        for (i, v) in [1.0f32, 2.0, 4.0, -1.0, -2.0, 0.0].iter().enumerate() {
            arena[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        let p = Reduction {
            input_bytes: 24,
            kept_shape: &[2],
            kept_strides: &[3],
            reduced_shape: &[3],
            reduced_strides: &[1],
        };
        mean_f32(&mut arena, 0, 24, &p);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 0), 7.0 / 3.0);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 1), -1.0);
    }

    fn f32_arena(values: &[f32; 6]) -> [u8; 32] {
        let mut arena = [0u8; 32];
        for (c, v) in arena.chunks_exact_mut(4).zip(values) {
            c.copy_from_slice(&v.to_le_bytes());
        }
        arena
    }

    /// 2x3 over the last axis: SUM, and MAX/MIN with TFLM's NaN and infinity behaviour.
    #[test]
    fn sum_max_min_f32_over_last_axis() {
        let input = [
            1.0f32,
            f32::NAN,
            -4.0,
            f32::NEG_INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        let p = Reduction {
            input_bytes: 24,
            kept_shape: &[2],
            kept_strides: &[3],
            reduced_shape: &[3],
            reduced_strides: &[1],
        };
        let mut arena = f32_arena(&input);
        max_f32(&mut arena, 0, 24, &p);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 0), 1.0);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 1), f32::MIN);
        min_f32(&mut arena, 0, 24, &p);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 0), -4.0);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 1), f32::NEG_INFINITY);
        let mut arena = f32_arena(&[1.0, 2.0, 4.0, -1.0, -2.0, 0.5]);
        sum_f32(&mut arena, 0, 24, &p);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 0), 7.0);
        assert_eq!(crate::bytes::read_f32(&arena[24..], 1), -2.5);
    }

    /// An empty reduced dimension leaves TFLM's initial values; the integer path leaves 0.
    #[test]
    fn empty_reductions_leave_initial_values() {
        let p = Reduction {
            input_bytes: 0,
            kept_shape: &[2],
            kept_strides: &[0],
            reduced_shape: &[0],
            reduced_strides: &[1],
        };
        let mut arena = [9u8; 8];
        max_s8(&mut arena, 0, 0, &p);
        assert_eq!(&arena[..2], &[0x80, 0x80]);
        min_s8(&mut arena, 0, 0, &p);
        assert_eq!(&arena[..2], &[0x7f, 0x7f]);
        let q = QuantizedMeanOrSum {
            input_bytes: 0,
            kept_shape: &[2],
            kept_strides: &[0],
            reduced_shape: &[0],
            reduced_strides: &[1],
            input_zero_point: 3,
            output_zero_point: 5,
            multiplier: 1 << 30,
            shift: 1,
        };
        mean_or_sum_s8(&mut arena, 0, 0, &q);
        assert_eq!(&arena[..2], &[0, 0]);
    }
}

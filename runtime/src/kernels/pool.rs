//! AVERAGE_POOL_2D and MAX_POOL_2D, int8, int16 and float32 (TFLM's
//! `reference_integer_ops::AveragePool` / `MaxPool` and `reference_ops::AveragePool` / `MaxPool`),
//! and L2_POOL_2D, float32 (`reference_ops::L2Pool`).
//! Windows only cover taps inside the image; an average divides by the number of those taps.
//!
//! Layouts: input `[batches, input_h, input_w, channels]`, output `[batches, output_h, output_w,
//! channels]`.
//!
//! Access order: for each output pixel in order, reads the pixel's input window, then writes the
//! pixel's channels in order; the output must not overlap the input (checked).

use super::nn_common::float_math::sqrt_f32;
use super::nn_common::window::taps;
use super::nn_common::{clamp_f32, views};
use crate::kernels::Within;

/// Channels pooled together: the window is walked once per block of this many channels.
const BLOCK: usize = 32;

/// Constant parameters of the int8 and int16 pools (TFLM's integer pools share their arithmetic:
/// the int16 ones are the int8 ones on wider values).
#[derive(Clone, Copy, Debug)]
pub struct Pool2dQuant {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Channels (input and output).
    pub channels: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Window height.
    pub filter_h: usize,
    /// Window width.
    pub filter_w: usize,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Rows of padding above the image.
    pub pad_top: usize,
    /// Columns of padding left of the image.
    pub pad_left: usize,
    /// Lowest output value (fused activation; input and output share scale and zero point), within
    /// the element type's range.
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

/// Constant parameters of the float32 pools.
#[derive(Clone, Copy, Debug)]
pub struct Pool2dF32 {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Channels (input and output).
    pub channels: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Window height.
    pub filter_h: usize,
    /// Window width.
    pub filter_w: usize,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Rows of padding above the image.
    pub pad_top: usize,
    /// Columns of padding left of the image.
    pub pad_left: usize,
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
}

/// Walks output pixels and, for each block of channels, the in-image taps of the window:
/// `init` gives the accumulator, `step(acc, tap_element_index)` folds one tap of one channel in, and
/// `finish(acc, taps, out_index)` writes the channel's result.
macro_rules! pool {
    ($p:expr, $init:expr, |$acc:ident, $i:ident| $step:expr, |$a:ident, $n:ident, $o:ident| $finish:expr) => {{
        let p = $p;
        let mut out_px = 0usize;
        for b in 0..p.batches {
            for oy in 0..p.output_h {
                let (ky0, ky1, y0) = taps(oy, p.stride_h, p.pad_top, 1, p.filter_h, p.input_h);
                for ox in 0..p.output_w {
                    let (kx0, kx1, x0) = taps(ox, p.stride_w, p.pad_left, 1, p.filter_w, p.input_w);
                    let $n = ((ky1 - ky0) * (kx1 - kx0)) as i32;
                    let mut c0 = 0;
                    while c0 < p.channels {
                        let block = BLOCK.min(p.channels - c0);
                        let mut accs = [$init; BLOCK];
                        for ky in ky0..ky1 {
                            let y = (y0 + ky as isize) as usize;
                            for kx in kx0..kx1 {
                                let x = (x0 + kx as isize) as usize;
                                let base = ((b * p.input_h + y) * p.input_w + x) * p.channels + c0;
                                for (j, $acc) in accs[..block].iter_mut().enumerate() {
                                    let $i = base + j;
                                    $step;
                                }
                            }
                        }
                        for (j, &$a) in accs[..block].iter().enumerate() {
                            let $o = out_px * p.channels + c0 + j;
                            $finish;
                        }
                        c0 += block;
                    }
                    out_px += 1;
                }
            }
        }
    }};
}

fn lengths(
    batches: usize,
    input_h: usize,
    input_w: usize,
    output_h: usize,
    output_w: usize,
    channels: usize,
) -> (usize, usize) {
    (
        batches * input_h * input_w * channels,
        batches * output_h * output_w * channels,
    )
}

/// int8 AVERAGE_POOL_2D: the in-image taps' sum divided by their count, rounded half away from zero
/// (`(acc ± n/2) / n` in C integer division), clamped. Reads `batches * input_h * input_w * channels`
/// bytes at `input`, writes `batches * output_h * output_w * channels` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn average_pool2d_s8(arena: &mut [u8], input: usize, output: usize, p: &Pool2dQuant) {
    let p = super::opaque(p);
    let (in_len, out_len) = lengths(
        p.batches, p.input_h, p.input_w, p.output_h, p.output_w, p.channels,
    );
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    // Helium: channels in sixteens summed by vectors, window by window.
    #[cfg(tinyaot_mve)]
    if p.channels.is_multiple_of(16) && average_pool_mve(inp, out, p) {
        return;
    }
    pool!(
        p,
        0i32,
        |acc, i| *acc += i32::from(inp[i] as i8),
        |acc, n, o| {
            // A window always has at least one in-image tap when the padding is TFLM's.
            let n = n.max(1);
            let avg = if acc > 0 {
                (acc + n / 2) / n
            } else {
                (acc - n / 2) / n
            };
            out[o] = crate::kernels::clamp(avg, p.act_min, p.act_max) as i8 as u8;
        }
    );
}

/// The int8 average of `n` taps summing to `acc`, rounded half away from zero, clamped: its
/// output byte (`pool!`'s finish in [`average_pool2d_s8`], kept there as it was so that the
/// other cores compile the same code).
#[cfg(tinyaot_mve)]
#[inline(always)]
fn average_s8(acc: i32, n: i32, p: &Pool2dQuant) -> u8 {
    // A window always has at least one in-image tap when the padding is TFLM's.
    let n = n.max(1);
    let avg = if acc > 0 {
        (acc + n / 2) / n
    } else {
        (acc - n / 2) / n
    };
    crate::kernels::clamp(avg, p.act_min, p.act_max) as i8 as u8
}

/// [`average_pool2d_s8`] with Helium, channels a multiple of 16: each pixel's window summed 16
/// channels at a time (`nn_common::mve::pool_sum16_s8`), the same pixels and channels in the same
/// order as `pool!`. Returns false if a window does not fit (none in the image: padding beyond
/// TFLM's); the caller's general path then writes every output again (the operands are
/// disjoint, so that its results are the same).
#[cfg(tinyaot_mve)]
#[inline(never)]
fn average_pool_mve(inp: &[u8], out: &mut [u8], p: &Pool2dQuant) -> bool {
    let c = p.channels;
    let mut acc = [0i32; 16];
    let mut o = 0usize;
    for b in 0..p.batches {
        for oy in 0..p.output_h {
            let (ky0, ky1, y0) = taps(oy, p.stride_h, p.pad_top, 1, p.filter_h, p.input_h);
            for ox in 0..p.output_w {
                let (kx0, kx1, x0) = taps(ox, p.stride_w, p.pad_left, 1, p.filter_w, p.input_w);
                let n = ((ky1 - ky0) * (kx1 - kx0)) as i32;
                let (y, x) = ((y0 + ky0 as isize) as usize, (x0 + kx0 as isize) as usize);
                let base = ((b * p.input_h + y) * p.input_w + x) * c;
                let shape = (ky1 - ky0, kx1 - kx0, p.input_w * c, c);
                for c0 in (0..c).step_by(16) {
                    let window = inp.get(base + c0..).unwrap_or(&[]);
                    if !crate::kernels::nn_common::pool_sum16_s8(window, shape, &mut acc) {
                        return false;
                    }
                    for (o, &a) in out[o..o + 16].iter_mut().zip(&acc) {
                        *o = average_s8(a, n, p);
                    }
                    o += 16;
                }
            }
        }
    }
    true
}

/// int8 MAX_POOL_2D: the largest in-image tap, clamped. Sizes as [`average_pool2d_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn max_pool2d_s8(arena: &mut [u8], input: usize, output: usize, p: &Pool2dQuant) {
    let p = super::opaque(p);
    let (in_len, out_len) = lengths(
        p.batches, p.input_h, p.input_w, p.output_h, p.output_w, p.channels,
    );
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    pool!(
        p,
        i8::MIN,
        |acc, i| *acc = (*acc).max(inp[i] as i8),
        |acc, _n, o| {
            out[o] = crate::kernels::clamp(i32::from(acc), p.act_min, p.act_max) as i8 as u8;
        }
    );
}

/// int16 AVERAGE_POOL_2D: as [`average_pool2d_s8`] on int16 values (the sum of the raw values, zero
/// point included, so the rounding is around raw 0 as in TFLM). Reads
/// `2 * batches * input_h * input_w * channels` bytes at `input`, writes
/// `2 * batches * output_h * output_w * channels` bytes at `output`. A window has at most 65,536
/// in-image taps (generation-time check), so the sum fits in 32 bits.
#[cfg_attr(target_os = "none", inline(never))]
pub fn average_pool2d_s16(arena: &mut [u8], input: usize, output: usize, p: &Pool2dQuant) {
    let p = super::opaque(p);
    let (in_len, out_len) = lengths(
        p.batches, p.input_h, p.input_w, p.output_h, p.output_w, p.channels,
    );
    let (inp, out) = views::split(arena, input, 2 * in_len, output, 2 * out_len);
    pool!(
        p,
        0i32,
        |acc, i| *acc += i32::from(read_s16(inp, i)),
        |acc, n, o| {
            let n = n.max(1);
            let avg = if acc > 0 {
                (acc + n / 2) / n
            } else {
                (acc - n / 2) / n
            };
            let v = crate::kernels::clamp(avg, p.act_min, p.act_max) as i16;
            out[2 * o..2 * o + 2].copy_from_slice(&v.to_le_bytes());
        }
    );
}

/// int16 MAX_POOL_2D: the largest in-image tap, clamped. Sizes as [`average_pool2d_s16`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn max_pool2d_s16(arena: &mut [u8], input: usize, output: usize, p: &Pool2dQuant) {
    let p = super::opaque(p);
    let (in_len, out_len) = lengths(
        p.batches, p.input_h, p.input_w, p.output_h, p.output_w, p.channels,
    );
    let (inp, out) = views::split(arena, input, 2 * in_len, output, 2 * out_len);
    pool!(
        p,
        i16::MIN,
        |acc, i| *acc = (*acc).max(read_s16(inp, i)),
        |acc, _n, o| {
            let v = crate::kernels::clamp(i32::from(acc), p.act_min, p.act_max) as i16;
            out[2 * o..2 * o + 2].copy_from_slice(&v.to_le_bytes());
        }
    );
}

#[inline(always)]
fn read_s16(bytes: &[u8], i: usize) -> i16 {
    i16::from_le_bytes([bytes[2 * i], bytes[2 * i + 1]])
}

/// One bounds check and one word load per element (four indexed bytes would be four checks and four
/// byte loads, which made L2_POOL_2D slower than TFLM's reference on the Cortex-M4).
#[inline(always)]
fn read(bytes: &[u8], i: usize) -> f32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(bytes.at(4 * i..4 * i + 4));
    f32::from_le_bytes(word)
}

/// float32 AVERAGE_POOL_2D: the in-image taps summed in order (row, then column), divided by their
/// count, clamped. Reads `4 * batches * input_h * input_w * channels` bytes at `input`, writes
/// `4 * batches * output_h * output_w * channels` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn average_pool2d_f32(arena: &mut [u8], input: usize, output: usize, p: &Pool2dF32) {
    let p = super::opaque(p);
    let (in_len, out_len) = lengths(
        p.batches, p.input_h, p.input_w, p.output_h, p.output_w, p.channels,
    );
    let (inp, out) = views::split(arena, input, 4 * in_len, output, 4 * out_len);
    pool!(p, 0.0f32, |acc, i| *acc += read(inp, i), |acc, n, o| {
        let v = clamp_f32(acc / n as f32, p.act_min, p.act_max);
        out[4 * o..4 * o + 4].copy_from_slice(&v.to_le_bytes());
    });
}

/// float32 MAX_POOL_2D: the largest in-image tap, clamped. Sizes as [`average_pool2d_f32`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn max_pool2d_f32(arena: &mut [u8], input: usize, output: usize, p: &Pool2dF32) {
    let p = super::opaque(p);
    let (in_len, out_len) = lengths(
        p.batches, p.input_h, p.input_w, p.output_h, p.output_w, p.channels,
    );
    let (inp, out) = views::split(arena, input, 4 * in_len, output, 4 * out_len);
    pool!(
        p,
        f32::MIN,
        |acc, i| {
            let x = read(inp, i);
            if x > *acc {
                *acc = x;
            }
        },
        |acc, _n, o| {
            let v = clamp_f32(acc, p.act_min, p.act_max);
            out[4 * o..4 * o + 4].copy_from_slice(&v.to_le_bytes());
        }
    );
}

/// float32 L2_POOL_2D: the square root of the in-image taps' squares summed in order (row, then
/// column) and divided by their count, clamped (a window with no tap in the image gives 0 / 0, NaN,
/// as TFLM's). Sizes as [`average_pool2d_f32`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn l2_pool2d_f32(arena: &mut [u8], input: usize, output: usize, p: &Pool2dF32) {
    let p = super::opaque(p);
    let (in_len, out_len) = lengths(
        p.batches, p.input_h, p.input_w, p.output_h, p.output_w, p.channels,
    );
    let (inp, out) = views::split(arena, input, 4 * in_len, output, 4 * out_len);
    // One scalar sum per channel, the taps in the same order as `pool!`'s blocks: without their
    // 32-lane accumulator array to fill per pixel, which cost more than the few channels' sums.
    let mut o = 0usize;
    for b in 0..p.batches {
        for oy in 0..p.output_h {
            let (ky0, ky1, y0) = taps(oy, p.stride_h, p.pad_top, 1, p.filter_h, p.input_h);
            for ox in 0..p.output_w {
                let (kx0, kx1, x0) = taps(ox, p.stride_w, p.pad_left, 1, p.filter_w, p.input_w);
                let n = ((ky1 - ky0) * (kx1 - kx0)) as i32 as f32;
                for c in 0..p.channels {
                    let mut acc = 0.0f32;
                    for ky in ky0..ky1 {
                        let y = (y0 + ky as isize) as usize;
                        for kx in kx0..kx1 {
                            let x = (x0 + kx as isize) as usize;
                            let v =
                                read(inp, ((b * p.input_h + y) * p.input_w + x) * p.channels + c);
                            acc += v * v;
                        }
                    }
                    let v = clamp_f32(sqrt_f32(acc / n), p.act_min, p.act_max);
                    out[4 * o..4 * o + 4].copy_from_slice(&v.to_le_bytes());
                    o += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1x3x3x1, 2x2 window, stride 2, SAME padding: output 2x2, pad 0 (the extra row/column goes to
    /// the bottom/right), so the border windows have 2 and 1 in-image taps.
    fn params() -> Pool2dQuant {
        Pool2dQuant {
            batches: 1,
            input_h: 3,
            input_w: 3,
            channels: 1,
            output_h: 2,
            output_w: 2,
            filter_h: 2,
            filter_w: 2,
            stride_h: 2,
            stride_w: 2,
            pad_top: 0,
            pad_left: 0,
            act_min: -128,
            act_max: 127,
        }
    }

    fn arena(values: [i8; 9]) -> [u8; 13] {
        let mut a = [0u8; 13];
        for (a, v) in a.iter_mut().zip(values) {
            *a = v as u8;
        }
        a
    }

    #[test]
    fn s8_average_rounds_half_away_from_zero_at_borders() {
        let mut a = arena([1, 2, 5, 4, 4, -3, -7, -8, 9]);
        average_pool2d_s8(&mut a, 0, 9, &params());
        // (1+2+4+4)/4 = 2.75 → 3; (5-3)/2 = 1; (-7-8)/2 = -7.5 → -8; 9.
        let out: [i8; 4] = core::array::from_fn(|i| a[9 + i] as i8);
        assert_eq!(out, [3, 1, -8, 9]);
    }

    #[test]
    fn s8_max_with_activation() {
        let mut a = arena([1, 2, 5, 4, 4, -3, -7, -8, 9]);
        let mut p = params();
        p.act_min = 0;
        p.act_max = 6;
        max_pool2d_s8(&mut a, 0, 9, &p);
        let out: [i8; 4] = core::array::from_fn(|i| a[9 + i] as i8);
        assert_eq!(out, [4, 5, 0, 6]);
    }

    /// The int8 cases' windows on int16 values beyond the int8 range.
    fn arena_s16(values: [i16; 9]) -> [u8; 26] {
        let mut a = [0u8; 26];
        for (a, v) in a.chunks_exact_mut(2).zip(values) {
            a.copy_from_slice(&v.to_le_bytes());
        }
        a
    }

    fn out_s16(a: &[u8; 26]) -> [i16; 4] {
        core::array::from_fn(|i| i16::from_le_bytes([a[18 + 2 * i], a[19 + 2 * i]]))
    }

    #[test]
    fn s16_average_rounds_half_away_from_raw_zero() {
        let mut a = arena_s16([1000, 2000, 5001, 4000, 4000, -3000, -7001, -8000, 32767]);
        let mut p = params();
        (p.act_min, p.act_max) = (-32768, 32767);
        average_pool2d_s16(&mut a, 0, 18, &p);
        // 11000/4 = 2750; (5001-3000)/2 = 1000.5 → 1001; (-7001-8000)/2 = -7500.5 → -7501;
        // 32767 alone.
        assert_eq!(out_s16(&a), [2750, 1001, -7501, 32767]);
        // Sums beyond the int16 range: four taps of -32768 average to -32768.
        let mut a = arena_s16([-32768; 9]);
        average_pool2d_s16(&mut a, 0, 18, &p);
        assert_eq!(out_s16(&a), [-32768; 4]);
    }

    #[test]
    fn s16_max_with_activation() {
        let mut a = arena_s16([1000, 2000, 5001, 4000, 4000, -3000, -7001, -8000, 32767]);
        let mut p = params();
        (p.act_min, p.act_max) = (-5000, 4500);
        max_pool2d_s16(&mut a, 0, 18, &p);
        assert_eq!(out_s16(&a), [4000, 4500, -5000, 4500]);
        (p.act_min, p.act_max) = (-32768, 32767);
        let mut a = arena_s16([-32768; 9]);
        max_pool2d_s16(&mut a, 0, 18, &p);
        assert_eq!(out_s16(&a), [-32768; 4]);
    }

    #[test]
    fn f32_average_and_max() {
        let mut a = [0u8; 4 * 13];
        for (i, v) in [1.0f32, 2.0, 5.0, 4.0, 4.0, -3.0, -7.0, -8.0, 9.0]
            .iter()
            .enumerate()
        {
            a[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let s = params();
        let p = Pool2dF32 {
            batches: 1,
            input_h: 3,
            input_w: 3,
            channels: 1,
            output_h: 2,
            output_w: 2,
            filter_h: 2,
            filter_w: 2,
            stride_h: s.stride_h,
            stride_w: s.stride_w,
            pad_top: 0,
            pad_left: 0,
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        let out = |a: &[u8]| -> [f32; 4] {
            core::array::from_fn(|i| {
                f32::from_le_bytes(a[36 + 4 * i..40 + 4 * i].try_into().unwrap())
            })
        };
        average_pool2d_f32(&mut a, 0, 36, &p);
        assert_eq!(out(&a), [2.75, 1.0, -7.5, 9.0]);
        max_pool2d_f32(&mut a, 0, 36, &p);
        assert_eq!(out(&a), [4.0, 5.0, -7.0, 9.0]);
        l2_pool2d_f32(&mut a, 0, 36, &p);
        // sqrt((1+4+16+16)/4), sqrt((25+9)/2), sqrt((49+64)/2), sqrt(81).
        let want = [37.0f32 / 4.0, 34.0 / 2.0, 113.0 / 2.0, 81.0].map(f32::sqrt);
        assert_eq!(out(&a), want);
    }
}

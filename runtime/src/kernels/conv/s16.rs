//! The int16 CONV_2D with int8 weights ([`conv2d_s16`], [`conv2d_im2col_s16`],
//! [`conv2d_1x1_s16`], [`conv2d_pairs_s16`]): TFLM's 16x8 `ConvPerChannel`, 64-bit sums and bias, [`requantize_16x8`].

use super::Geometry;
use crate::kernels::nn_common::mac16::{mac2x2_quads_s16, mac2x2_rows_s16};
use crate::kernels::nn_common::requant::{
    requantize_16x8, requantize_16x8_narrow, rounding_high_mul,
};
use crate::kernels::nn_common::window::{coord, run_start, taps};
use crate::kernels::nn_common::{dot2_swizzled_s16, dot_s16, views};
use crate::math::multiply_by_quantized_multiplier;

/// Constant parameters of [`conv2d_s16`]: an int16 CONV_2D with int8 weights (TFLM's "16x8"
/// `ConvPerChannel` with 64-bit sums). Its zero points are 0 (generation-time check), so there are
/// no offsets.
#[derive(Clone, Copy, Debug)]
pub struct Conv2dS16<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels (`groups * filter_c`).
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (a multiple of the number of groups).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Input channels per filter (the filter's last dimension).
    pub filter_c: usize,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Vertical dilation (1 = none).
    pub dilation_h: usize,
    /// Horizontal dilation (1 = none).
    pub dilation_w: usize,
    /// Rows of padding above the image.
    pub pad_top: usize,
    /// Columns of padding left of the image.
    pub pad_left: usize,
    /// Filter weights, `[output_c, filter_h, filter_w, filter_c]` (zero point 0).
    pub filter: &'a [i8],
    /// Per-output-channel 64-bit bias, in units of `input_scale * filter_scale[c]` (with `acc32`,
    /// an INT32 bias widened).
    pub bias: Option<&'a [i64]>,
    /// Per-output-channel multipliers reduced to 16 bits as TFLM's 64-bit
    /// `MultiplyByQuantizedMultiplier` reduces them (`0..=0x7FFF`); with `acc32`, the Q31
    /// multipliers.
    pub multipliers: &'a [i32],
    /// Per-output-channel right shifts of the product, `15 - shift` (within `1..=46`); with
    /// `acc32`, TFLM's shifts (positive = left, within -31..=31).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// Whether each filter row's whole groups of four are stored as weights 0, 2, 1, 3 (the
    /// runtime's `dot2_swizzled_s16`), for one group, no horizontal dilation, `input_c` a multiple
    /// of 4 and `filter_w * input_c` at most 511 (generation-time checks): then every window row
    /// is one run of whole groups whose sum fits 32 bits, taken for two output channels at a time.
    pub swizzled: bool,
    /// TFLM's 32-bit sums (an INT32 bias, or none where the options ask for INT32 biases): the
    /// sum plus the bias wraps at 32 bits and takes the 32-bit `MultiplyByQuantizedMultiplier`
    /// (as int8's), instead of the 64-bit sum and `requantize_16x8`.
    pub acc32: bool,
}

/// Constant parameters of [`conv2d_im2col_s16`]: an int16 CONV_2D with int8 weights and one group
/// whose window (`filter_h * filter_w * input_c` elements) fits [`crate::kernels::IM2COL_MAX`]
/// bytes as int16, with its filter rows laid out for the gathered windows.
#[derive(Clone, Copy, Debug)]
pub struct Conv2dIm2colS16<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels (the filter's last dimension).
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels.
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Vertical dilation (1 = none).
    pub dilation_h: usize,
    /// Horizontal dilation (1 = none).
    pub dilation_w: usize,
    /// Rows of padding above the image.
    pub pad_top: usize,
    /// Columns of padding left of the image.
    pub pad_left: usize,
    /// One row of weights per output channel, `[filter_h, filter_w, input_c]` in order except that
    /// each whole group of four is stored as its weights 0, 2, 1, 3 (the runtime's
    /// `dot2_swizzled_s16`).
    pub filter: &'a [i8],
    /// Per-output-channel 64-bit bias, in units of `input_scale * filter_scale[c]`.
    pub bias: Option<&'a [i64]>,
    /// Per-output-channel multipliers reduced to 16 bits (`0..=0x7FFF`).
    pub multipliers: &'a [i32],
    /// Per-output-channel right shifts of the product, `15 - shift` (within `1..=46`).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// Whether every output channel's `32768 * Σ |w|` over its row plus `|bias|` is at most
    /// `i32::MAX` (generation-time check): then the window's sum and the bias fit 32 bits and take
    /// `requantize_16x8_narrow`.
    pub sums32: bool,
}

/// Constant parameters of [`conv2d_1x1_s16`]: an int16 CONV_2D with int8 weights, a 1×1 filter,
/// stride 1, no padding and one group (a matrix product of the pixels with the filter).
#[derive(Clone, Copy, Debug)]
pub struct Conv1x1S16<'a> {
    /// Pixels (`batches * height * width`, input and output).
    pub pixels: usize,
    /// Input channels.
    pub input_c: usize,
    /// Output channels.
    pub output_c: usize,
    /// The weights by pairs of output channels (the last one paired with itself when their count
    /// is odd), `2 * input_c` per pair: each whole group of four input channels as channel 0's
    /// four weights stored 0, 2, 1, 3 then channel 1's likewise, then channel 0's remaining
    /// `input_c % 4` weights in order and channel 1's.
    pub filter: &'a [i8],
    /// Per-output-channel 64-bit bias, in units of `input_scale * filter_scale[c]`.
    pub bias: Option<&'a [i64]>,
    /// Per-output-channel multipliers reduced to 16 bits (`0..=0x7FFF`).
    pub multipliers: &'a [i32],
    /// Per-output-channel right shifts of the product, `15 - shift` (within `1..=46`).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// Whether every output channel's `32768 * Σ |w|` over its weights plus `|bias|` is at most
    /// `i32::MAX` (generation-time check): then the sum and the bias fit 32 bits and take
    /// `requantize_16x8_narrow`.
    pub sums32: bool,
}

/// The most input channels [`conv2d_1x1_s16`] takes: 511 products of at most 2^22 in magnitude
/// sum exactly in 32 bits.
pub const CONV_1X1_S16_MAX_DEPTH: usize = 511;

/// int16 CONV_2D with a 1×1 filter, stride 1, no padding, one group and at most
/// [`CONV_1X1_S16_MAX_DEPTH`] input channels ([`Conv1x1S16`]), bit-exact with TFLM's 16x8
/// `ConvPerChannel`: two pixels times two output channels at a time, straight from the input (the
/// last pixel, and the last channel, taken twice when their count is odd), their sums exact in 32
/// bits, then with the bias in 64 and `requantize_16x8`, or with `sums32` in 32 and
/// `requantize_16x8_narrow`. Reads `2 * pixels * input_c` bytes at `input`, writes
/// `2 * pixels * output_c` bytes at `output` (disjoint).
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_1x1_s16(arena: &mut [u8], input: usize, output: usize, p: &Conv1x1S16) {
    let p = crate::kernels::opaque(p);
    let (c, m) = (p.input_c, p.output_c);
    assert!(
        c > 0 && c <= CONV_1X1_S16_MAX_DEPTH,
        "int16 1x1 depth 0 or above 511"
    );
    let (in_len, out_len) = (2 * p.pixels * c, 2 * p.pixels * m);
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    let filter = &p.filter[..2 * c * m.div_ceil(2)];
    let bias = p.bias.map(|b| &b[..m]);
    let (multipliers, shifts) = (&p.multipliers[..m], &p.shifts[..m]);
    let act = (p.act_min, p.act_max);
    // Channel `oc` of both pixels, its bias, multiplier and shift read once.
    let finish = |oc: usize, sums: [i32; 2]| {
        let (bias, multiplier, shift) = (bias.map_or(0, |b| b[oc]), multipliers[oc], shifts[oc]);
        sums.map(|sum| {
            if p.sums32 {
                // The sum and bias fit 32 bits (generation-time bound): exact.
                let sum = sum.wrapping_add(bias as i32);
                return requantize_16x8_narrow(sum, multiplier, shift, act).to_le_bytes();
            }
            let sum = i64::from(sum).wrapping_add(bias);
            requantize_16x8(sum, multiplier, shift, act).to_le_bytes()
        })
    };
    let (quads, tail) = (c / 4, c % 4);
    let mut px = 0;
    while px < p.pixels {
        let px1 = (px + 1).min(p.pixels - 1);
        let x = (&inp[2 * c * px..][..2 * c], &inp[2 * c * px1..][..2 * c]);
        for (pair, w) in filter.chunks_exact(2 * c).enumerate() {
            let mut acc = [0i32; 4];
            mac2x2_quads_s16(&mut acc, x, w, quads);
            let (w0, w1) = w[8 * quads..].split_at(tail);
            for k in 0..tail {
                let at = 2 * (4 * quads + k);
                let x0 = i32::from(i16::from_le_bytes([x.0[at], x.0[at + 1]]));
                let x1 = i32::from(i16::from_le_bytes([x.1[at], x.1[at + 1]]));
                let (w0, w1) = (i32::from(w0[k]), i32::from(w1[k]));
                acc[0] += w0 * x0;
                acc[1] += w1 * x0;
                acc[2] += w0 * x1;
                acc[3] += w1 * x1;
            }
            let oc = 2 * pair;
            let [a, b] = finish(oc, [acc[0], acc[2]]);
            out[2 * (px * m + oc)..][..2].copy_from_slice(&a);
            out[2 * (px1 * m + oc)..][..2].copy_from_slice(&b);
            if oc + 1 < m {
                let [a, b] = finish(oc + 1, [acc[1], acc[3]]);
                out[2 * (px * m + oc + 1)..][..2].copy_from_slice(&a);
                out[2 * (px1 * m + oc + 1)..][..2].copy_from_slice(&b);
            }
        }
        px += 2;
    }
}

/// Constant parameters of [`conv2d_pairs_s16`]: an int16 CONV_2D with int8 weights, one group,
/// input channels a multiple of 4 and no horizontal dilation, its filter by pairs of output
/// channels.
#[derive(Clone, Copy, Debug)]
pub struct ConvPairsS16<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels (the filter's last dimension, a multiple of 4).
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels.
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Vertical dilation (1 = none).
    pub dilation_h: usize,
    /// Horizontal dilation (must be 1).
    pub dilation_w: usize,
    /// Rows of padding above the image.
    pub pad_top: usize,
    /// Columns of padding left of the image.
    pub pad_left: usize,
    /// The weights by pairs of output channels (the last one paired with itself when their count
    /// is odd), `2 * filter_h * filter_w * input_c` per pair: each group of four consecutive
    /// weights of a channel's `[filter_h, filter_w, input_c]` row as channel 0's four stored 0, 2,
    /// 1, 3 then channel 1's likewise (as [`Conv1x1S16`]'s, with no remainder).
    pub filter: &'a [i8],
    /// Per-output-channel 64-bit bias, in units of `input_scale * filter_scale[c]`.
    pub bias: Option<&'a [i64]>,
    /// Per-output-channel multipliers reduced to 16 bits (`0..=0x7FFF`).
    pub multipliers: &'a [i32],
    /// Per-output-channel right shifts of the product, `15 - shift` (within `1..=46`).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// Whether every output channel's `32768 * Σ |w|` over its window plus `|bias|` is at most
    /// `i32::MAX` (generation-time check): then the sum and the bias fit 32 bits and take
    /// `requantize_16x8_narrow`. Without it the window must hold at most
    /// [`CONV_1X1_S16_MAX_DEPTH`] weights, whose sum alone is exact in 32 bits.
    pub sums32: bool,
}

/// The end of output channel `oc` of a sum exact in 32 bits, as TFLM's 16x8 `ConvPerChannel`:
/// with `sums32` (the sum and bias fit 32 bits by a generation-time bound) the 32-bit sum and
/// `requantize_16x8_narrow`, otherwise the 64-bit sum and `requantize_16x8`.
#[inline(always)]
fn finish_16x8(
    (bias, multiplier, shift): (i64, i32, i8),
    sums32: bool,
    act: (i32, i32),
    sum: i32,
) -> [u8; 2] {
    if sums32 {
        let sum = sum.wrapping_add(bias as i32);
        return requantize_16x8_narrow(sum, multiplier, shift, act).to_le_bytes();
    }
    let sum = i64::from(sum).wrapping_add(bias);
    requantize_16x8(sum, multiplier, shift, act).to_le_bytes()
}

/// [`finish_16x8`] of two sums of one output channel, the narrow requantization's multiplier
/// scaled once for both (`requantize_16x8_narrow`'s arithmetic, its usual shifts `16..=32`
/// spelled out).
#[inline(always)]
fn finish_pair_16x8(
    q: (i64, i32, i8),
    sums32: bool,
    act: (i32, i32),
    sums: [i32; 2],
) -> [[u8; 2]; 2] {
    let s = i32::from(q.2);
    if sums32 && (16..=32).contains(&s) {
        let (bias, scaled) = (q.0 as i32, q.1 << (32 - s));
        return sums.map(|sum| {
            let v = rounding_high_mul(sum.wrapping_add(bias), scaled);
            (v.max(act.0).min(act.1) as i16).to_le_bytes()
        });
    }
    sums.map(|sum| finish_16x8(q, sums32, act, sum))
}

/// int16 CONV_2D with int8 weights, one group, input channels a multiple of 4 and no horizontal
/// dilation ([`ConvPairsS16`]), bit-exact with TFLM's 16x8 `ConvPerChannel`: two output pixels of a
/// row times two output channels at a time, straight from the input without a window copy (the
/// last pixel, and the last channel, taken twice when their count is odd). Where both pixels have
/// every tap of each filter row in the image, the whole window is one pass (`mac2x2_rows_s16`);
/// otherwise per filter row the taps both have go through one run of `mac2x2_quads_s16` and a
/// tap only one of them has (at a padded border) through a run of its own. Sums wrap at 32 bits, exact by
/// `sums32` or by a window of at most [`CONV_1X1_S16_MAX_DEPTH`] weights. Reads and writes as
/// [`conv2d_s16`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_pairs_s16(arena: &mut [u8], input: usize, output: usize, p: &ConvPairsS16) {
    let p = crate::kernels::opaque(p);
    let (c, m) = (p.input_c, p.output_c);
    let window = p.filter_h * p.filter_w * c;
    assert!(
        c > 0 && c % 4 == 0 && p.dilation_w == 1 && m > 0,
        "int16 pairs: depth not a multiple of 4, horizontal dilation or no output channel"
    );
    assert!(
        p.sums32 || window <= CONV_1X1_S16_MAX_DEPTH,
        "int16 pairs: a window above 511 weights without sums32"
    );
    let in_row = p.input_w * c;
    let in_image = p.input_h * in_row;
    let out_row = p.output_w * m;
    let in_len = 2 * p.batches * in_image;
    let out_len = 2 * p.batches * p.output_h * out_row;
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    let filter = &p.filter[..2 * window * m.div_ceil(2)];
    let bias = p.bias.map(|b| &b[..m]);
    let (multipliers, shifts) = (&p.multipliers[..m], &p.shifts[..m]);
    let act = (p.act_min, p.act_max);
    // Channel `oc` of both pixels, its bias, multiplier and shift read once.
    let finish = |oc: usize, sums: [i32; 2]| {
        let q = (bias.map_or(0, |b| b[oc]), multipliers[oc], shifts[oc]);
        finish_pair_16x8(q, p.sums32, act, sums)
    };
    // Bytes of one tap: `c` int16 inputs, or `c` weights of each of a pair's two channels.
    let (tap, quads) = (2 * c, c / 4);
    let tap_row = p.filter_w * tap;
    let row_step = 2 * p.dilation_h * in_row;
    let mut out_rows = out.chunks_exact_mut(2 * out_row.max(1));
    for b in 0..p.batches {
        let image = &inp[2 * b * in_image..][..2 * in_image];
        for oy in 0..p.output_h {
            let (ky0, ky1, y0) = taps(
                oy,
                p.stride_h,
                p.pad_top,
                p.dilation_h,
                p.filter_h,
                p.input_h,
            );
            // The filter rows in the image, `row_step` bytes apart in the input.
            let rows = ky1 - ky0;
            let row0 = if rows > 0 {
                2 * coord(y0, ky0, p.dilation_h) * in_row
            } else {
                0
            };
            let o_row = out_rows.next().expect("output size");
            let mut ox = 0;
            while ox < p.output_w {
                let ox1 = (ox + 1).min(p.output_w - 1);
                let t = |o: usize| taps(o, p.stride_w, p.pad_left, 1, p.filter_w, p.input_w);
                let (a, b) = (t(ox), t(ox1));
                let at = |x0: isize, k: usize| tap * coord(x0, k, 1);
                // The taps both pixels have: one run of both, at these input and weight offsets.
                let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
                let common = lo < hi;
                let both = if common {
                    (at(a.2, lo), at(b.2, lo), lo * tap, (hi - lo) * quads)
                } else {
                    (0, 0, 0, 0)
                };
                // Each pixel's other taps (at a padded border): runs of their own, as (pixel,
                // input offset, weight offset, quads).
                let mut solo = [(0usize, 0usize, 0usize, 0usize); 4];
                let mut n_solo = 0;
                for (s, (k0, k1, x0)) in [a, b].into_iter().enumerate() {
                    let pieces = if common {
                        [(k0, lo), (hi, k1)]
                    } else {
                        [(k0, k1), (k1, k1)]
                    };
                    for (r0, r1) in pieces {
                        if r0 < r1 {
                            solo[n_solo] = (s, at(x0, r0), r0 * tap, (r1 - r0) * quads);
                            n_solo += 1;
                        }
                    }
                }
                let solo = &solo[..n_solo];
                let image = &image[row0..];
                if solo.is_empty() && (lo, hi) == (0, p.filter_w) {
                    // Both pixels with every tap of each row in the image (away from a padded
                    // border): the rows' weights one run, the inputs one run per row.
                    let (xa, xb, _, n) = both;
                    let w_at = ky0 * tap_row;
                    for (pair, w) in filter.chunks_exact(2 * window).enumerate() {
                        let mut acc = [0i32; 4];
                        let x = (image, xa, xb, row_step);
                        mac2x2_rows_s16(&mut acc, x, &w[w_at..], (rows, n));
                        let oc = 2 * pair;
                        let [o0, o1] = finish(oc, [acc[0], acc[2]]);
                        o_row[2 * (ox * m + oc)..][..2].copy_from_slice(&o0);
                        o_row[2 * (ox1 * m + oc)..][..2].copy_from_slice(&o1);
                        if oc + 1 < m {
                            let [o0, o1] = finish(oc + 1, [acc[1], acc[3]]);
                            o_row[2 * (ox * m + oc + 1)..][..2].copy_from_slice(&o0);
                            o_row[2 * (ox1 * m + oc + 1)..][..2].copy_from_slice(&o1);
                        }
                    }
                    ox += 2;
                    continue;
                }
                for (pair, w) in filter.chunks_exact(2 * window).enumerate() {
                    let mut acc = [0i32; 4];
                    let mut own = [[0i32; 4]; 2];
                    let mut row = 0;
                    for r in 0..rows {
                        let (x, w) = (&image[row..], &w[(ky0 + r) * tap_row..]);
                        if common {
                            let (xa, xb, wo, n) = both;
                            mac2x2_quads_s16(&mut acc, (&x[xa..], &x[xb..]), &w[wo..], n);
                        }
                        for &(s, xo, wo, n) in solo {
                            let x = &x[xo..];
                            mac2x2_quads_s16(&mut own[s], (x, x), &w[wo..], n);
                        }
                        row += row_step;
                    }
                    let oc = 2 * pair;
                    let sums = |j: usize| {
                        [
                            acc[j].wrapping_add(own[0][j]),
                            acc[2 + j].wrapping_add(own[1][j]),
                        ]
                    };
                    let [o0, o1] = finish(oc, sums(0));
                    o_row[2 * (ox * m + oc)..][..2].copy_from_slice(&o0);
                    o_row[2 * (ox1 * m + oc)..][..2].copy_from_slice(&o1);
                    if oc + 1 < m {
                        let [o0, o1] = finish(oc + 1, sums(1));
                        o_row[2 * (ox * m + oc + 1)..][..2].copy_from_slice(&o0);
                        o_row[2 * (ox1 * m + oc + 1)..][..2].copy_from_slice(&o1);
                    }
                }
                ox += 2;
            }
        }
    }
}

/// int16 CONV_2D with int8 weights, bit-exact with TFLM's 16x8 `ConvPerChannel` (64-bit sums and
/// bias, `requantize_16x8`). Reads `2 * batches * input_h * input_w * input_c` bytes at `input`,
/// writes `2 * batches * output_h * output_w * output_c` bytes at `output` (see the module docs for
/// the order).
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_s16(arena: &mut [u8], input: usize, output: usize, p: &Conv2dS16) {
    let p = crate::kernels::opaque(p);
    let g = geometry!(p);
    let in_len = 2 * p.batches * g.input_image;
    let out_len = 2 * p.batches * p.output_h * p.output_w * p.output_c;
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    let filter = &p.filter[..p.output_c * g.filter_oc];
    let bias = p.bias.map(|b| &b[..p.output_c]);
    let (multipliers, shifts) = (&p.multipliers[..p.output_c], &p.shifts[..p.output_c]);
    // With one group and no horizontal dilation a window row is one contiguous run.
    let contiguous = p.filter_c == p.input_c && p.dilation_w == 1;
    let mut out_px = out.chunks_exact_mut(2 * p.output_c);
    for b in 0..p.batches {
        let image = &inp[2 * b * g.input_image..][..2 * g.input_image];
        for oy in 0..p.output_h {
            let (ky0, ky1, y0) = taps(
                oy,
                p.stride_h,
                p.pad_top,
                p.dilation_h,
                p.filter_h,
                p.input_h,
            );
            for ox in 0..p.output_w {
                let (kx0, kx1, x0) = taps(
                    ox,
                    p.stride_w,
                    p.pad_left,
                    p.dilation_w,
                    p.filter_w,
                    p.input_w,
                );
                let px = out_px.next().expect("output size");
                let finish = |oc: usize, acc: i64| {
                    let acc = acc.wrapping_add(bias.map_or(0, |b| b[oc]));
                    if p.acc32 {
                        // The exact sum truncated to 32 bits is TFLM's wrapping 32-bit sum.
                        let v = multiply_by_quantized_multiplier(
                            acc as i32,
                            multipliers[oc],
                            i32::from(shifts[oc]),
                        );
                        return (v.max(p.act_min).min(p.act_max) as i16).to_le_bytes();
                    }
                    requantize_16x8(acc, multipliers[oc], shifts[oc], (p.act_min, p.act_max))
                        .to_le_bytes()
                };
                if p.swizzled {
                    let x = 2 * run_start(x0, kx0, kx1, 1) * p.input_c;
                    let n = (kx1 - kx0) * p.input_c;
                    let tap = kx0 * g.filter_tap;
                    // Two output channels at a time (the last one twice when their count is odd).
                    for (pair, o) in px.chunks_mut(4).enumerate() {
                        let oc = 2 * pair;
                        let oc1 = (oc + 1).min(p.output_c - 1);
                        let (w0, w1) = (
                            &filter[oc * g.filter_oc..][..g.filter_oc],
                            &filter[oc1 * g.filter_oc..][..g.filter_oc],
                        );
                        let (mut acc0, mut acc1) = (0i64, 0i64);
                        for ky in ky0..ky1 {
                            let row = &image[2 * coord(y0, ky, p.dilation_h) * g.input_row..];
                            let at = ky * g.filter_row + tap;
                            let [s0, s1] = dot2_swizzled_s16(
                                &row[x..][..2 * n],
                                &w0[at..][..n],
                                &w1[at..][..n],
                            );
                            acc0 += i64::from(s0);
                            acc1 += i64::from(s1);
                        }
                        o[..2].copy_from_slice(&finish(oc, acc0));
                        if o.len() == 4 {
                            o[2..].copy_from_slice(&finish(oc1, acc1));
                        }
                    }
                    continue;
                }
                for (oc, o) in px.chunks_exact_mut(2).enumerate() {
                    let w_oc = &filter[oc * g.filter_oc..][..g.filter_oc];
                    let group_c = (oc / g.filters_per_group) * p.filter_c;
                    let mut acc = 0i64;
                    for ky in ky0..ky1 {
                        let row = &image[2 * coord(y0, ky, p.dilation_h) * g.input_row..]
                            [..2 * g.input_row];
                        let w_row = &w_oc[ky * g.filter_row..][..g.filter_row];
                        if contiguous {
                            let x = run_start(x0, kx0, kx1, 1) * p.input_c;
                            let n = (kx1 - kx0) * p.input_c;
                            let w = &w_row[kx0 * g.filter_tap..][..n];
                            acc += dot_s16(w, &row[2 * x..][..2 * n]);
                        } else {
                            for kx in kx0..kx1 {
                                let x = coord(x0, kx, p.dilation_w) * p.input_c + group_c;
                                let w = &w_row[kx * g.filter_tap..][..p.filter_c];
                                acc += dot_s16(w, &row[2 * x..][..2 * p.filter_c]);
                            }
                        }
                    }
                    o.copy_from_slice(&finish(oc, acc));
                }
            }
        }
    }
}

/// A gathered window, aligned for word loads.
#[repr(C, align(8))]
struct WindowBuffer([u8; crate::kernels::IM2COL_MAX]);

/// int16 CONV_2D with int8 weights over gathered windows ([`Conv2dIm2colS16`]), bit-exact with
/// TFLM's 16x8 `ConvPerChannel`: each output pixel's window is copied into one stack buffer (taps
/// outside the image as 0, which int16's zero point 0 makes "no contribution"), then multiplied
/// with two filter rows at a time. A window of at most 288 products sums exactly in 32 bits (each
/// is at most 2^22 in magnitude), widened to 64 for the bias. Reads and writes as [`conv2d_s16`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_im2col_s16(arena: &mut [u8], input: usize, output: usize, p: &Conv2dIm2colS16) {
    let p = crate::kernels::opaque(p);
    let c = p.input_c;
    let window = p.filter_h * p.filter_w * c;
    assert!(
        window > 0 && 2 * window <= crate::kernels::IM2COL_MAX && p.output_c > 0,
        "int16 im2col window empty or larger than IM2COL_MAX"
    );
    let in_row = p.input_w * c;
    let in_image = p.input_h * in_row;
    let in_len = 2 * p.batches * in_image;
    let out_len = 2 * p.batches * p.output_h * p.output_w * p.output_c;
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    let filter = &p.filter[..p.output_c * window];
    let bias = p.bias.map(|b| &b[..p.output_c]);
    let (multipliers, shifts) = (&p.multipliers[..p.output_c], &p.shifts[..p.output_c]);
    let act = (p.act_min, p.act_max);
    let finish = |oc: usize, sum: i32| {
        let bias = bias.map_or(0, |b| b[oc]);
        if p.sums32 {
            // The sum and bias fit 32 bits (generation-time bound): exact.
            let sum = sum.wrapping_add(bias as i32);
            return requantize_16x8_narrow(sum, multipliers[oc], shifts[oc], act).to_le_bytes();
        }
        let sum = i64::from(sum).wrapping_add(bias);
        requantize_16x8(sum, multipliers[oc], shifts[oc], act).to_le_bytes()
    };
    // Word-aligned, so that the dot product's input words load as words.
    let mut buffer = WindowBuffer([0; crate::kernels::IM2COL_MAX]);
    let cols = &mut buffer.0[..2 * window];
    let row_bytes = 2 * p.filter_w * c;
    let mut out_px = out.chunks_exact_mut(2 * p.output_c);
    for b in 0..p.batches {
        let image = &inp[2 * b * in_image..][..2 * in_image];
        for oy in 0..p.output_h {
            let (ky0, ky1, y0) = taps(
                oy,
                p.stride_h,
                p.pad_top,
                p.dilation_h,
                p.filter_h,
                p.input_h,
            );
            for ox in 0..p.output_w {
                let (kx0, kx1, x0) = taps(
                    ox,
                    p.stride_w,
                    p.pad_left,
                    p.dilation_w,
                    p.filter_w,
                    p.input_w,
                );
                for (ky, dst) in cols.chunks_exact_mut(row_bytes).enumerate() {
                    if ky < ky0 || ky >= ky1 {
                        dst.fill(0);
                        continue;
                    }
                    let row = &image[2 * coord(y0, ky, p.dilation_h) * in_row..][..2 * in_row];
                    if p.dilation_w == 1 {
                        // The taps in the image are one run of the input row.
                        let (start, end) = (2 * kx0 * c, 2 * kx1 * c);
                        dst[..start].fill(0);
                        let x = 2 * run_start(x0, kx0, kx1, 1) * c;
                        dst[start..end].copy_from_slice(&row[x..][..end - start]);
                        dst[end..].fill(0);
                    } else {
                        for (kx, tap) in dst.chunks_exact_mut(2 * c).enumerate() {
                            if (kx0..kx1).contains(&kx) {
                                let x = 2 * coord(x0, kx, p.dilation_w) * c;
                                tap.copy_from_slice(&row[x..][..2 * c]);
                            } else {
                                tap.fill(0);
                            }
                        }
                    }
                }
                let px = out_px.next().expect("output size");
                let cols = &*cols;
                let mut pairs = px.chunks_exact_mut(4);
                let mut rows = filter.chunks_exact(2 * window);
                for (oc, (o, w)) in (&mut pairs).zip(&mut rows).enumerate() {
                    let (w0, w1) = w.split_at(window);
                    let [s0, s1] = dot2_swizzled_s16(cols, w0, w1);
                    o[..2].copy_from_slice(&finish(2 * oc, s0));
                    o[2..].copy_from_slice(&finish(2 * oc + 1, s1));
                }
                let last = pairs.into_remainder();
                if !last.is_empty() {
                    let w = rows.remainder();
                    let [s, _] = dot2_swizzled_s16(cols, w, w);
                    last.copy_from_slice(&finish(p.output_c - 1, s));
                }
            }
        }
    }
}

//! CONV_2D: int8 with per-channel requantization (TFLM's `reference_integer_ops::ConvPerChannel`,
//! grouped convolutions included), int16 with int8 weights (its 16x8 variant) and float32
//! (`reference_ops::Conv`).
//!
//! Layouts: input `[batches, input_h, input_w, input_c]`, filter `[output_c, filter_h, filter_w,
//! filter_c]` with `input_c = groups * filter_c`, output `[batches, output_h, output_w, output_c]`.
//!
//! Access order (all kernels): for each output pixel in order, every output channel in order is
//! written after reading the pixel's whole input window (the paired kernels: a pair of pixels'
//! windows, then both pixels' channels); the input is read again for later pixels.
//!
//! The int8 1×1 and gathering kernels ([`conv2d_1x1_s8`], [`conv2d_1x1_widened_s8`],
//! [`conv2d_im2col_s8`], [`conv2d_im2col_pairs_s8`], [`conv2d_im2col_gather_pairs_s8`]) stream:
//! their output may overlap their input as the stream contract allows, in groups of two pixels.
//! Output pixel `p` (row-major over batch, y, x) is the `output_c` bytes at
//! `output + p * output_c`; `min_read(p)`, the lowest input byte of its window clamped to the
//! image, is `((b * input_h + row) * input_w + column) * input_c` after `input`, with
//! `row = max(0, y * stride_h - pad_top)` and `column = max(0, x * stride_w - pad_left)` (a 1×1
//! kernel is a one-row image: `p * input_c`). The plan guarantees that the
//! output bytes of each group of pixels `2k, 2k + 1` miss the input bytes from `min_read(2k)`
//! on; output bytes below that may overlap the input (the output starting below the input).
//! The kernels take the groups in order, each on views that split the arena at the group's
//! lowest read (`views::Stream`), so that the split's check tests the guarantee at run time.
//! [`conv2d_1x1_s8`]'s contract is also reversible: with its output starting above its input it
//! takes the same groups last to first, each on views that end at the group's highest read
//! (`(2k + 2) * input_c`), the plan keeping each group's output bytes clear of the input bytes
//! below that. One case needs more than the statement: where the
//! group's second pixel starts an output row whose window starts on the same input row as the
//! first pixel's (`pad_top >= stride_h` and an odd `output_w`), its window starts further left,
//! below `min_read(2k)`; the kernels split there, the lowest read of the group's pixels, and
//! refuse (panic) a plan that only kept the bytes from `min_read(2k)` on. Disjoint operands take
//! the kernels' code as it was, without views per group. The other kernels need their output and
//! input disjoint (checked).

use super::nn_common::requant::requantize_16x8;
use super::nn_common::wide::{
    pair_run, single_run, start_pairs, widen_into, Widened, PAIRED, WIDE_CHANNELS,
};
use super::nn_common::window::{coord, taps};
use super::nn_common::{
    clamp_f32, dot2_swizzled_s16, dot4_interleaved_s8, dot4_interleaved_s8_outlined, dot4_s8,
    dot_s16, dot_s8, views, Requantizer,
};
use crate::math::multiply_by_quantized_multiplier;

/// Constant parameters of [`conv2d_s8`].
#[derive(Clone, Copy, Debug)]
pub struct Conv2dS8<'a> {
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
    /// Input zero point (taps outside the image count as this value, i.e. contribute nothing).
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Filter weights, `[output_c, filter_h, filter_w, filter_c]` (zero point 0).
    pub filter: &'a [i8],
    /// Per-output-channel bias, in units of `input_scale * filter_scale[c]`.
    pub bias: Option<&'a [i32]>,
    /// Per-output-channel Q31 requantization multipliers.
    pub multipliers: &'a [i32],
    /// Per-output-channel requantization shifts (positive = left, within -31..=31).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

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
    /// (as int8's), instead of the 64-bit sum and [`requantize_16x8`].
    pub acc32: bool,
}

/// Constant parameters of [`conv2d_im2col_s16`]: an int16 CONV_2D with int8 weights and one group
/// whose window (`filter_h * filter_w * input_c` elements) fits [`super::IM2COL_MAX`] bytes as
/// int16, with its filter rows laid out for the gathered windows.
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
}

/// Constant parameters of [`conv2d_1x1_s8`]: an int8 CONV_2D with a 1×1 filter, stride 1, no
/// padding and one group, which is a matrix product of the `pixels × input_c` input and the
/// transposed `output_c × input_c` filter.
#[derive(Clone, Copy, Debug)]
pub struct Conv1x1S8<'a> {
    /// Pixels (batches × height × width, the same in the input and the output).
    pub pixels: usize,
    /// Input channels (at least 1).
    pub input_c: usize,
    /// Output channels (at least 1).
    pub output_c: usize,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Filter weights, the rows of `[output_c, 1, 1, input_c]` (zero point 0) re-laid out at
    /// generation time so that four rows are read through one pointer: each block of four rows
    /// as their 4-byte words interleaved (word 0 of rows 0, 1, 2, 3, then word 1 of each, …),
    /// then the block's rows' last `input_c % 4` bytes one row after another; the
    /// `output_c % 4` rows after the last block as they are. Word-aligned on ARMv7E-M, where
    /// the kernel reads it by words (generated code keeps it in 16-byte aligned `Flash`; checked).
    pub filter: &'a [i8],
    /// Per-output-channel bias with the input zero point folded in at generation time,
    /// `bias[c] - input_zero_point * Σ filter[c]` (wrapping), so that the kernel multiplies the
    /// raw int8 inputs: with no padding every tap is in the image, and the sums are equal.
    pub folded_bias: &'a [i32],
    /// Per-output-channel Q31 requantization multipliers.
    pub multipliers: &'a [i32],
    /// Per-output-channel requantization shifts (positive = left, within -31..=31).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// True when every shift is at most -1, the accumulator plus bias stays below 2^30 in
    /// magnitude for every input, and the output zero point and the activation range lie within
    /// int8 (all checked at generation time): the requantization then takes its short path, with
    /// the same results.
    pub narrow_requant: bool,
}

/// Constant parameters of [`conv2d_im2col_s8`]: an int8 CONV_2D with one group whose window
/// (`filter_h * filter_w * input_c` bytes) fits [`super::IM2COL_MAX`].
#[derive(Clone, Copy, Debug)]
pub struct Conv2dIm2colS8<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels (the filter's last dimension too).
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (at least 1).
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
    /// Input zero point: the value of the window's taps outside the image.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Filter weights, the rows of `[output_c, filter_h, filter_w, input_c]` (zero point 0)
    /// re-laid out at generation time as [`Conv1x1S8::filter`]'s, each row a whole window (for
    /// [`conv2d_im2col_gather_pairs_s8`], the window rounded up to whole words, the padding
    /// weights zero).
    pub filter: &'a [i8],
    /// Per-output-channel bias with the input zero point folded in at generation time, as
    /// [`Conv1x1S8::folded_bias`]: taps outside the image are gathered as the input zero point, so
    /// every tap of the window is multiplied and the sums are equal.
    pub folded_bias: &'a [i32],
    /// Per-output-channel Q31 requantization multipliers.
    pub multipliers: &'a [i32],
    /// Per-output-channel requantization shifts (positive = left, within -31..=31).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// True when every shift is at most -1, the accumulator plus bias stays below 2^30 in
    /// magnitude for every input, and the output zero point and the activation range lie within
    /// int8 (all checked at generation time): the requantization then takes its short path, with
    /// the same results.
    pub narrow_requant: bool,
}

/// Constant parameters of [`conv2d_f32`].
#[derive(Clone, Copy, Debug)]
pub struct Conv2dF32<'a> {
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
    /// Filter weights, `[output_c, filter_h, filter_w, filter_c]`.
    pub filter: &'a [f32],
    /// Per-output-channel bias.
    pub bias: Option<&'a [f32]>,
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
}

/// `Σ w * x` over two equally long float rows, accumulated in order from `acc`.
#[inline(always)]
fn dot_f32(mut acc: f32, w: &[f32], x: &[u8]) -> f32 {
    for (&w, x) in w.iter().zip(views::f32s(x)) {
        acc += x * w;
    }
    acc
}

/// The geometry both kernels share, as indexable strides.
struct Geometry {
    filter_row: usize,
    filter_tap: usize,
    filter_oc: usize,
    input_row: usize,
    input_image: usize,
    filters_per_group: usize,
}

macro_rules! geometry {
    ($p:expr) => {{
        let p = $p;
        assert!(
            p.filter_c > 0 && p.input_c % p.filter_c == 0,
            "input_c must be groups * filter_c"
        );
        let groups = p.input_c / p.filter_c;
        assert!(
            p.output_c % groups == 0,
            "output_c must be a multiple of groups"
        );
        Geometry {
            filter_row: p.filter_w * p.filter_c,
            filter_tap: p.filter_c,
            filter_oc: p.filter_h * p.filter_w * p.filter_c,
            input_row: p.input_w * p.input_c,
            input_image: p.input_h * p.input_w * p.input_c,
            filters_per_group: p.output_c / groups,
        }
    }};
}

/// int8 CONV_2D with per-channel requantization, bit-exact with TFLM's `ConvPerChannel`.
/// Reads `batches * input_h * input_w * input_c` bytes at `input`, writes
/// `batches * output_h * output_w * output_c` bytes at `output` (see the module docs for the order).
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_s8(arena: &mut [u8], input: usize, output: usize, p: &Conv2dS8) {
    let p = super::opaque(p);
    let g = geometry!(p);
    let in_len = p.batches * g.input_image;
    let out_len = p.batches * p.output_h * p.output_w * p.output_c;
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    let filter = &p.filter[..p.output_c * g.filter_oc];
    let requantizer = Requantizer::new(
        p.output_c,
        p.bias,
        p.multipliers,
        p.shifts,
        p.output_zero_point,
        (p.act_min, p.act_max),
    );
    // int8 zero points keep `x - zero_point` within i16 (see `dot4_s8`).
    assert!(
        (-128..=127).contains(&p.input_zero_point),
        "input zero point out of int8 range"
    );
    let offset = -p.input_zero_point;
    // Whole filter rows are contiguous in memory when there is one group and no horizontal dilation.
    let contiguous = p.filter_c == p.input_c && p.dilation_w == 1;
    let mut out_px = out.chunks_exact_mut(p.output_c);
    for b in 0..p.batches {
        let image = &inp[b * g.input_image..][..g.input_image];
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
                let mut oc = 0;
                if contiguous {
                    // Four output channels at a time: each input byte is loaded once for four filters.
                    let x = coord(x0, kx0, 1) * p.input_c;
                    let n = (kx1 - kx0) * p.input_c;
                    while oc + 4 <= p.output_c {
                        let mut acc = [0i32; 4];
                        for ky in ky0..ky1 {
                            let row = &image[coord(y0, ky, p.dilation_h) * g.input_row..][x..][..n];
                            let tap = ky * g.filter_row + kx0 * g.filter_tap;
                            let w: [&[i8]; 4] = core::array::from_fn(|k| {
                                &filter[(oc + k) * g.filter_oc + tap..][..n]
                            });
                            let d = dot4_s8(w, row, offset);
                            for (a, d) in acc.iter_mut().zip(d) {
                                *a = a.wrapping_add(d);
                            }
                        }
                        px[oc..oc + 4].copy_from_slice(&requantizer.four(oc, acc));
                        oc += 4;
                    }
                }
                for (oc, o) in px.iter_mut().enumerate().skip(oc) {
                    let w_oc = &filter[oc * g.filter_oc..][..g.filter_oc];
                    let group_c = (oc / g.filters_per_group) * p.filter_c;
                    let mut acc = 0i32;
                    // The channels left over from the blocks of four (or all of them when grouped
                    // or dilated): one tap at a time, which fits every layout.
                    for ky in ky0..ky1 {
                        let row =
                            &image[coord(y0, ky, p.dilation_h) * g.input_row..][..g.input_row];
                        let w_row = &w_oc[ky * g.filter_row..][..g.filter_row];
                        for kx in kx0..kx1 {
                            let x = coord(x0, kx, p.dilation_w) * p.input_c + group_c;
                            let w = &w_row[kx * g.filter_tap..][..p.filter_c];
                            acc = acc.wrapping_add(dot_s8(w, &row[x..][..p.filter_c], offset));
                        }
                    }
                    *o = requantizer.one(oc, acc);
                }
            }
        }
    }
}

/// The requantizer of a gathering or 1×1 kernel, whose sums start from the folded bias, for `$m`
/// channels of its parameter struct `$p` (a [`Conv1x1S8`] or a [`Conv2dIm2colS8`]: the same
/// requantization fields).
macro_rules! biased_requantizer {
    ($p:expr, $m:expr) => {
        Requantizer::for_biased_sums(
            $m,
            ($p.multipliers, $p.shifts),
            $p.output_zero_point,
            ($p.act_min, $p.act_max),
            $p.narrow_requant,
        )
    };
}

/// One pixel of [`conv2d_1x1_s8`] off the paired path: its `n` input bytes `x` to its `m` output
/// bytes `o`, in runs of up to [`ONE_PIXEL_RUN`] channels (their sums in `acc`), the `blocked`
/// channels of the filter's `blocks` of four rows, then its `rest` of rows one at a time. A
/// macro of the caller's names, as the other bodies the disjoint and stream paths share below:
/// the disjoint path's code is then exactly what it was before the stream path shared it (a
/// function or closure, however inlined, cost it up to 3% more instructions on the Cortex-M4,
/// `cargo xtask mcu --profile`).
macro_rules! conv1x1_pixel {
    (
        $x:ident, $o:ident, $acc:ident, $n:ident, $blocked:ident, $blocks:ident, $rest:ident,
        $bias:ident, $requantizer:ident
    ) => {{
        // Runs of up to ONE_PIXEL_RUN channels: their sums first, then their requantization, each
        // loop with its own values in registers.
        for (run, ((w, $o), b)) in $blocks
            .chunks(ONE_PIXEL_RUN * $n)
            .zip($o[..$blocked].chunks_mut(ONE_PIXEL_RUN))
            .zip($bias[..$blocked].chunks(ONE_PIXEL_RUN))
            .enumerate()
        {
            let $acc = &mut $acc[..$o.len()];
            if $n % 4 == 0 {
                // The sums start from the biases.
                super::nn_common::dot4_run_s8($x, w, b, $acc);
            } else {
                for ((a, w), b) in $acc
                    .chunks_exact_mut(4)
                    .zip(w.chunks_exact(4 * $n))
                    .zip(b.chunks_exact(4))
                {
                    a.copy_from_slice(&dot4_interleaved_s8($x, w, [b[0], b[1], b[2], b[3]]));
                }
            }
            $requantizer.run(run * ONE_PIXEL_RUN, $acc, $o);
        }
        for (c, (w, $o)) in $rest.chunks_exact($n).zip(&mut $o[$blocked..]).enumerate() {
            let sum = dot_s8(w, $x, 0).wrapping_add($bias[$blocked + c]);
            *$o = $requantizer.one($blocked + c, sum);
        }
    }};
}

/// Two pixels of [`conv2d_1x1_s8`] on the paired path, their `2 n` input bytes `x` to their
/// `2 m` output bytes `o`: both pixels' sums of a run of `RUN` channels (in `acc`, in the paired
/// layout of [`pair_run`]), then their requantization. A row that fits one chunk of
/// [`WIDE_CHANNELS`] (`single`) is widened into `wide` once per pair, a longer one chunk by chunk
/// for each run; `whole` and `tail` split `n` at its last whole word. (A macro: see
/// [`conv1x1_pixel`].)
macro_rules! conv1x1_pair {
    (
        $x:ident, $o:ident, $acc:ident, $wide:ident, $n:ident, $m:ident, $blocked:ident,
        $whole:ident, $tail:ident, $single:ident, $blocks:ident, $rest:ident, $bias:ident,
        $requantizer:ident
    ) => {{
        let (x0, x1) = $x.split_at($n);
        let (o0, o1) = $o.split_at_mut($m);
        if $single {
            $wide.fill(&x0[..$whole], &x1[..$whole]);
        }
        for (run, (w, b)) in $blocks
            .chunks(RUN * $n)
            .zip($bias[..$blocked].chunks(RUN))
            .enumerate()
        {
            let (c0, len) = (run * RUN, b.len());
            let sums = &mut $acc[..2 * len];
            // The sums start from the biases: the $requantizer adds none.
            start_pairs(sums, b);
            for k0 in (0..$whole).step_by(WIDE_CHANNELS) {
                if !$single {
                    let k1 = $whole.min(k0 + WIDE_CHANNELS);
                    $wide.fill(&x0[k0..k1], &x1[k0..k1]);
                }
                pair_run($wide.words(), w, (4 * $n, 4 * k0), sums);
            }
            if $tail > 0 {
                // Each row's last `$tail` bytes follow its block's words (see `Conv1x1S8::filter`).
                for r in 0..len {
                    let row = &w[(r / 4) * 4 * $n + 4 * $whole + (r % 4) * $tail..][..$tail];
                    // Row r's sums in the paired layout: pixel 0, then pixel 1 two words on.
                    let at = (r / 2) * 4 + r % 2;
                    for ((&w, &v0), &v1) in row.iter().zip(&x0[$whole..]).zip(&x1[$whole..]) {
                        sums[at] = sums[at].wrapping_add(i32::from(w) * i32::from(v0 as i8));
                        sums[at + 2] =
                            sums[at + 2].wrapping_add(i32::from(w) * i32::from(v1 as i8));
                    }
                }
            }
            $requantizer.run_pairs(c0, sums, &mut o0[c0..c0 + len], &mut o1[c0..c0 + len]);
        }
        for (c, w) in $rest.chunks_exact($n).enumerate() {
            let (c, b) = ($blocked + c, $bias[$blocked + c]);
            o0[c] = $requantizer.one(c, dot_s8(w, x0, 0).wrapping_add(b));
            o1[c] = $requantizer.one(c, dot_s8(w, x1, 0).wrapping_add(b));
        }
    }};
}

/// One pixel of [`conv2d_1x1_widened_s8`]: its `n` input bytes `x` widened into `wide` (once
/// when `single`, else a chunk of `CHUNK` at a time for each run), its output bytes `o` in runs
/// of up to [`ACC_RUN`] channels (their sums in `acc`). (A macro: see [`conv1x1_pixel`].)
macro_rules! widened_pixel {
    (
        $x:ident, $o:ident, $acc:ident, $wide:ident, $single:ident, $n:ident, $filter:ident,
        $bias:ident, $requantizer:ident
    ) => {{
        if $single {
            $wide.fill_single($x);
        }
        for (run, ((w, $o), b)) in $filter
            .chunks(ACC_RUN * $n)
            .zip($o.chunks_mut(ACC_RUN))
            .zip($bias.chunks(ACC_RUN))
            .enumerate()
        {
            let sums = &mut $acc[..$o.len()];
            sums.copy_from_slice(b);
            for k0 in (0..$n).step_by(CHUNK) {
                if !$single {
                    $wide.fill_single(&$x[k0..$n.min(k0 + CHUNK)]);
                }
                single_run($wide.words(), w, (4 * $n, 4 * k0), sums);
            }
            $requantizer.run(run * ACC_RUN, sums, $o);
        }
    }};
}

/// One output pixel of [`im2col_one_pixel`]: its window (the in-image taps `ky0..ky1`,
/// `kx0..kx1` from `y0`, `x0`) gathered from the batch's image at `origin` in `image` (see
/// [`gather_window`]) into `window`, then its output bytes (the next of `out_px`) in runs of
/// `run_len` sums in `acc`, each then requantized. (A macro: see [`conv1x1_pixel`].)
macro_rules! im2col_pixel {
    (
        $image:ident, $origin:ident, $p:ident, $ky0:ident, $ky1:ident, $y0:ident, $kx0:ident,
        $kx1:ident, $x0:ident, $window:ident, $out_px:ident, $blocked:ident, $blocks:ident,
        $run_len:ident, $k:ident, $acc:ident, $bias:ident, $requantizer:ident, $rest:ident
    ) => {{
        gather_window(
            $image,
            $origin,
            $p,
            (($ky0, $ky1, $y0), ($kx0, $kx1, $x0)),
            $window,
        );
        // One output chunk per pixel, by the output's length (views::split).
        let Some(px) = $out_px.next() else { return };
        let (px_blocks, px_rest) = px.split_at_mut($blocked);
        // As in the 1×1 kernel: runs of sums, then their requantization.
        for (run, ((w, o), b)) in $blocks
            .chunks($run_len * $k)
            .zip(px_blocks.chunks_mut($run_len))
            .zip($bias[..$blocked].chunks($run_len))
            .enumerate()
        {
            let $acc = &mut $acc[..o.len()];
            for ((a, w), b) in $acc
                .chunks_exact_mut(4)
                .zip(w.chunks_exact(4 * $k))
                .zip(b.chunks_exact(4))
            {
                let init = [b[0], b[1], b[2], b[3]];
                // Short windows: the call would cost more than the registers it frees.
                a.copy_from_slice(&if $k < 32 {
                    dot4_interleaved_s8($window, w, init)
                } else {
                    dot4_interleaved_s8_outlined($window, w, init)
                });
            }
            $requantizer.run(run * $run_len, $acc, o);
        }
        for (i, (w, o)) in $rest.chunks_exact($k).zip(px_rest).enumerate() {
            let sum = dot_s8(w, $window, 0).wrapping_add($bias[$blocked + i]);
            *o = $requantizer.one($blocked + i, sum);
        }
    }};
}

/// Output pixel `q` of [`conv2d_im2col_pairs_s8`] on the paired path and its `twin` (the next, or
/// `q` itself when it is the odd last one, its outputs then dropped into `dropped`), to `o0` and
/// `o1`: both `windows` (see [`Window`]; their image offsets in `inp`) gathered into `bytes` and
/// widened from there (`gathered`), or widened straight from `inp` a tap's words at a time, in
/// chunks of `N` bytes (once per pair when the window fits one chunk, `single`; once per run of
/// channels otherwise); then each run of `RUN` channels' sums in `acc`, requantized. (A macro:
/// see [`conv1x1_pixel`].)
macro_rules! im2col_pair {
    (
        $whole_images:tt, $image_len:ident, $gathered:ident, $windows:ident, $inp:ident, $p:ident,
        $bytes:ident, $k:ident, $wide:ident, $single:ident, $blocks:ident, $bias:ident, $acc:ident,
        $twin:ident, $q:ident, $o0:ident, $o1:ident, $dropped:ident, $requantizer:ident
    ) => {{
        if $gathered {
            for (&(image, ys, xs), $bytes) in $windows.iter().zip(&mut $bytes) {
                // The disjoint path's `inp` holds whole images: each sliced once per window. A
                // stream path's view may start inside one.
                if $whole_images {
                    gather_window(
                        &$inp[image..][..$image_len],
                        0,
                        $p,
                        (ys, xs),
                        &mut $bytes[..$k],
                    );
                } else {
                    gather_window($inp, image, $p, (ys, xs), &mut $bytes[..$k]);
                }
            }
            $wide.fill(&$bytes[0][..$k], &$bytes[1][..$k]);
        } else if $single {
            widen_windows($inp, $p, &$windows, 0, $k, &mut $wide);
        }
        for (run, (w, b)) in $blocks.chunks(RUN * $k).zip($bias.chunks(RUN)).enumerate() {
            let (c0, len) = (run * RUN, b.len());
            let sums = &mut $acc[..2 * len];
            start_pairs(sums, b);
            for k0 in (0..$k).step_by(N) {
                if !$single {
                    widen_windows($inp, $p, &$windows, k0, $k.min(k0 + N), &mut $wide);
                }
                pair_run($wide.words(), w, (4 * $k, 4 * k0), sums);
            }
            let second = if $twin > $q {
                &mut $o1[c0..c0 + len]
            } else {
                &mut $dropped[..len]
            };
            $requantizer.run_pairs(c0, sums, &mut $o0[c0..c0 + len], second);
        }
    }};
}

/// int8 1×1 CONV_2D ([`Conv1x1S8`]), bit-exact with TFLM's `ConvPerChannel`: on ARMv7E-M two
/// pixels by two output channels per pass over inputs widened once per pair of pixels
/// (`runtime/src/kernels/nn_common/wide.rs`), elsewhere one pixel by four output channels per
/// pass. Reads `pixels * input_c` bytes at `input`, writes `pixels * output_c` bytes at
/// `output`: the pixels in order (on the paired path in pairs), each written after reading its
/// input pixel (its pair's). The output may overlap the input as the stream contract allows
/// (module docs; `min_read(p) = p * input_c`), else they must be disjoint (checked).
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_1x1_s8(arena: &mut [u8], input: usize, output: usize, p: &Conv1x1S8) {
    let p = super::opaque(p);
    let (in_len, out_len) = (p.pixels * p.input_c, p.pixels * p.output_c);
    if views::overlapping(input, in_len, output, out_len) {
        conv1x1_streamed(arena, (input, output), p);
    } else {
        conv1x1_disjoint(arena, input, output, p);
    }
}

/// [`conv2d_1x1_s8`] with its input and output disjoint (checked). A function of its own, apart
/// from the overlap test: its code is then the kernel's as it was before the stream path.
#[cfg_attr(target_os = "none", inline(never))]
fn conv1x1_disjoint(arena: &mut [u8], input: usize, output: usize, p: &Conv1x1S8) {
    let p = super::opaque(p);
    let (n, m) = (p.input_c, p.output_c);
    assert!(n > 0 && m > 0, "1x1 convolution with no channels");
    let (inp, out) = views::split(arena, input, p.pixels * n, output, p.pixels * m);
    let blocked = m - m % 4;
    let (blocks, rest) = p.filter[..m * n].split_at(blocked * n);
    // The word loops read the filter by aligned words (generated filters are 16-byte aligned
    // `Flash`; a caller's own must be word-aligned).
    #[cfg(tinyaot_dsp)]
    super::nn_common::check_word_aligned(blocks);
    let bias = &p.folded_bias[..m];
    // The sums start from the biases: the requantizer adds none.
    let requantizer = biased_requantizer!(p, m);
    // The paired path's buffers (its sums and widened inputs) are set up only where it runs:
    // zeroing them costs a few hundred instructions a call, which one-pixel layers (FULLY_CONNECTED)
    // would pay for nothing.
    let paired = if PAIRED && n >= 4 && blocked > 0 && p.pixels >= 2 {
        conv1x1_pairs(inp, out, (n, m), (blocks, rest, bias), &requantizer)
    } else {
        0
    };
    let (inp, out) = (&inp[paired * n..], &mut out[paired * m..]);
    let mut acc = [0i32; ONE_PIXEL_RUN];
    for (x, o) in inp.chunks_exact(n).zip(out.chunks_exact_mut(m)) {
        conv1x1_pixel!(x, o, acc, n, blocked, blocks, rest, bias, requantizer);
    }
}

/// [`conv2d_1x1_s8`] for one pixel at a time (FULLY_CONNECTED; the lowering chooses it for a
/// single pixel with input channels in whole words and output channels in blocks of four): on
/// ARMv7E-M the pixel is widened to 16-bit lanes once (a chunk of up to `2 WIDE_CHANNELS`
/// channels at a time, again for each run of 64 channels when longer), then each block of four
/// filter rows is summed against it by `runtime/src/kernels/nn_common/wide.rs`'s one-pixel run
/// (where [`conv2d_1x1_s8`] unpacks the input again for every block) and each run requantized.
/// Elsewhere it is [`conv2d_1x1_s8`]. Reads and writes as [`conv2d_1x1_s8`] (one pixel at a
/// time), its output overlapping its input as that allows.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_1x1_widened_s8(arena: &mut [u8], input: usize, output: usize, p: &Conv1x1S8) {
    if !PAIRED {
        return conv2d_1x1_s8(arena, input, output, p);
    }
    let p = super::opaque(p);
    let (in_len, out_len) = (p.pixels * p.input_c, p.pixels * p.output_c);
    if views::overlapping(input, in_len, output, out_len) {
        widened_streamed(arena, (input, output), p);
    } else {
        widened_disjoint(arena, input, output, p);
    }
}

/// [`conv2d_1x1_widened_s8`] with its input and output disjoint (checked), on its own as
/// [`conv1x1_disjoint`] is.
#[cfg_attr(target_os = "none", inline(never))]
fn widened_disjoint(arena: &mut [u8], input: usize, output: usize, p: &Conv1x1S8) {
    let p = super::opaque(p);
    let (n, m) = (p.input_c, p.output_c);
    assert!(
        n > 0 && m > 0 && n % 4 == 0 && m % 4 == 0,
        "widened 1x1 convolution needs whole words of input channels and blocks of four outputs"
    );
    let (inp, out) = views::split(arena, input, p.pixels * n, output, p.pixels * m);
    let filter = &p.filter[..m * n];
    let bias = &p.folded_bias[..m];
    // The sums start from the biases: the requantizer adds none.
    let requantizer = biased_requantizer!(p, m);
    const CHUNK: usize = 2 * WIDE_CHANNELS;
    let single = n <= CHUNK;
    let mut wide = Widened::<WIDE_CHANNELS>::new();
    let mut acc = [0i32; ACC_RUN];
    for (x, o) in inp.chunks_exact(n).zip(out.chunks_exact_mut(m)) {
        widened_pixel!(x, o, acc, wide, single, n, filter, bias, requantizer);
    }
}

/// The pairs of pixels of [`conv2d_1x1_s8`] on the paired path: both pixels' sums of a run of
/// channels (in `acc`, in the paired layout of [`pair_run`]), then their requantization. A row
/// that fits one chunk of [`WIDE_CHANNELS`] is widened once per pair, a longer one chunk by chunk
/// for each run. Returns how many pixels it wrote: all but an odd last one, which the one-pixel
/// loop takes.
#[inline(always)]
fn conv1x1_pairs(
    inp: &[u8],
    out: &mut [u8],
    (n, m): (usize, usize),
    (blocks, rest, bias): (&[i8], &[i8], &[i32]),
    requantizer: &Requantizer,
) -> usize {
    const RUN: usize = ACC_RUN / 2;
    let mut acc = [0i32; ACC_RUN];
    let blocked = m - m % 4;
    let whole = n - n % 4;
    let tail = n - whole;
    let single = whole <= WIDE_CHANNELS;
    let mut wide = Widened::<WIDE_CHANNELS>::new();
    let mut done = 0;
    for (x, o) in inp.chunks_exact(2 * n).zip(out.chunks_exact_mut(2 * m)) {
        conv1x1_pair!(
            x,
            o,
            acc,
            wide,
            n,
            m,
            blocked,
            whole,
            tail,
            single,
            blocks,
            rest,
            bias,
            requantizer
        );
        done += 2;
    }
    done
}

/// The sums the 1×1 kernel gathers before requantizing them ([`Requantizer::run`]; two pixels'
/// sums of half as many channels on the paired path): a multiple of eight, on the stack (4 bytes
/// each). Longer runs mean fewer calls per pixel (measured with `cargo xtask mcu --profile`).
const ACC_RUN: usize = 64;

/// The channels whose sums the 1×1 kernel's one-pixel loop gathers before requantizing them
/// (fewer than the paired path's: zeroing its buffer costs every call, one-pixel layers included).
const ONE_PIXEL_RUN: usize = 16;

/// [`ACC_RUN`] for the gathering kernels, whose stack also holds a window (one-pixel) or a larger
/// widened chunk (paired): half as many.
const GATHER_ACC_RUN: usize = ACC_RUN / 2;

/// int8 CONV_2D with one group ([`Conv2dIm2colS8`]), bit-exact with TFLM's `ConvPerChannel`:
/// each output pixel's window is gathered into one contiguous run on the stack (taps outside the
/// image as the input zero point), then every block of four output channels is one long dot
/// product with their filter rows, interleaved by words at generation time
/// ([`Conv2dIm2colS8::filter`]). Reads
/// `batches * input_h * input_w * input_c` bytes at `input`, writes
/// `batches * output_h * output_w * output_c` bytes at `output`: the pixels in order, each written
/// after reading its window. The output may overlap the input as the stream contract allows
/// (module docs), else they must be disjoint (checked).
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_im2col_s8(arena: &mut [u8], input: usize, output: usize, p: &Conv2dIm2colS8) {
    let p = super::opaque(p);
    let k = p.filter_h * p.filter_w * p.input_c;
    im2col_one_pixel(arena, (input, output), p, k);
}

/// The body of [`conv2d_im2col_s8`], for filter rows of `k` bytes: the window's length, or (for
/// [`conv2d_im2col_pairs_s8`] off the paired path) that rounded up to whole words with zero
/// weights, the window buffer's padding bytes multiplied by them.
#[inline(always)]
fn im2col_one_pixel(
    arena: &mut [u8],
    (input, output): (usize, usize),
    p: &Conv2dIm2colS8,
    k: usize,
) {
    let in_len = p.batches * p.input_h * p.input_w * p.input_c;
    let out_len = p.batches * p.output_h * p.output_w * p.output_c;
    if views::overlapping(input, in_len, output, out_len) {
        im2col_one_pixel_streamed(arena, (input, output), p, k);
    } else {
        im2col_one_pixel_disjoint(arena, (input, output), p, k);
    }
}

/// [`im2col_one_pixel`] with its input and output disjoint (checked), on its own as
/// [`conv1x1_disjoint`] is.
#[cfg_attr(target_os = "none", inline(never))]
fn im2col_one_pixel_disjoint(
    arena: &mut [u8],
    (input, output): (usize, usize),
    p: &Conv2dIm2colS8,
    k: usize,
) {
    let c = p.input_c;
    let m = p.output_c;
    assert!(
        k > 0 && k >= p.filter_h * p.filter_w * c && k <= super::IM2COL_MAX && m > 0,
        "im2col window empty or larger than IM2COL_MAX"
    );
    assert!(
        (-128..=127).contains(&p.input_zero_point),
        "input zero point out of int8 range"
    );
    let image_len = p.input_h * p.input_w * c;
    let out_len = p.batches * p.output_h * p.output_w * m;
    let (inp, out) = views::split(arena, input, p.batches * image_len, output, out_len);
    let blocked = m - m % 4;
    let (blocks, rest) = p.filter[..m * k].split_at(blocked * k);
    let bias = &p.folded_bias[..m];
    // As in the 1×1 kernel: the word loops read the filter by aligned words.
    #[cfg(tinyaot_dsp)]
    super::nn_common::check_word_aligned(blocks);
    // The sums start from the biases: the requantizer adds none.
    let requantizer = biased_requantizer!(p, m);
    let mut buffer = [0u8; super::IM2COL_MAX];
    let window = &mut buffer[..k];
    // Half the 1×1 kernel's run: the window buffer is on the stack too.
    let mut acc = [0i32; GATHER_ACC_RUN / 2];
    let run_len = acc.len();
    let mut out_px = out.chunks_exact_mut(m);
    for b in 0..p.batches {
        let image = &inp[b * image_len..][..image_len];
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
                let origin = 0;
                im2col_pixel!(
                    image,
                    origin,
                    p,
                    ky0,
                    ky1,
                    y0,
                    kx0,
                    kx1,
                    x0,
                    window,
                    out_px,
                    blocked,
                    blocks,
                    run_len,
                    k,
                    acc,
                    bias,
                    requantizer,
                    rest
                );
            }
        }
    }
}

/// [`conv2d_im2col_s8`] for input channels in whole words and output channels in blocks of four
/// (the lowering chooses it then), two pixels at a time on ARMv7E-M: both pixels' windows are
/// widened straight from the image (no gathering buffer), then multiplied with the filter rows
/// two channels by two pixels per pass (`runtime/src/kernels/nn_common/wide.rs`) and requantized
/// together. Elsewhere it is [`conv2d_im2col_s8`]. Reads and writes as [`conv2d_im2col_s8`] (a
/// pair's windows, then both pixels' outputs), its output overlapping its input as that allows.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_im2col_pairs_s8(arena: &mut [u8], input: usize, output: usize, p: &Conv2dIm2colS8) {
    im2col_pairs_kernel(arena, (input, output), super::opaque(p), false);
}

/// [`conv2d_im2col_pairs_s8`] for short windows whose input channels are not whole words (the
/// lowering chooses it for windows of at most half of
/// [`WIDE_CHANNELS`](super::WIDE_CHANNELS) bytes once rounded up to whole words, and output
/// channels in blocks of four): on ARMv7E-M both pixels' windows are gathered into two small
/// buffers, then widened from there. Its filter rows are the windows rounded up to whole words,
/// the padding weights zero (see [`Conv2dIm2colS8::filter`]). Elsewhere it is
/// [`conv2d_im2col_s8`] on those rows. Reads and writes as [`conv2d_im2col_pairs_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_im2col_gather_pairs_s8(
    arena: &mut [u8],
    input: usize,
    output: usize,
    p: &Conv2dIm2colS8,
) {
    im2col_pairs_kernel(arena, (input, output), super::opaque(p), true);
}

/// The body of [`conv2d_im2col_pairs_s8`] (`gathered` false) and
/// [`conv2d_im2col_gather_pairs_s8`] (`gathered` true).
#[inline(always)]
fn im2col_pairs_kernel(
    arena: &mut [u8],
    (input, output): (usize, usize),
    p: &Conv2dIm2colS8,
    gathered: bool,
) {
    if !PAIRED {
        return im2col_one_pixel(arena, (input, output), p, padded_window(p));
    }
    let in_len = p.batches * p.input_h * p.input_w * p.input_c;
    let out_len = p.batches * p.output_h * p.output_w * p.output_c;
    if views::overlapping(input, in_len, output, out_len) {
        im2col_pairs_streamed(arena, (input, output), p, gathered);
    } else if gathered {
        im2col_pairs_disjoint::<true>(arena, (input, output), p);
    } else {
        im2col_pairs_disjoint::<false>(arena, (input, output), p);
    }
}

/// Checks what the paired kernels need (`gathered` for [`conv2d_im2col_gather_pairs_s8`]).
#[inline(always)]
fn check_paired(p: &Conv2dIm2colS8, k: usize, gathered: bool) {
    let (c, m) = (p.input_c, p.output_c);
    assert!(
        k > 0
            && m % 4 == 0
            && if gathered {
                k <= GATHERED_MAX
            } else {
                c % 4 == 0
            },
        "paired im2col needs blocks of four output channels, and whole words of input channels \
         or (gathering) a window of at most WIDE_CHANNELS / 2 bytes"
    );
}

/// [`im2col_pairs_kernel`] with its input and output disjoint (checked), on its own as
/// [`conv1x1_disjoint`] is: `GATHERED` as there.
#[cfg_attr(target_os = "none", inline(never))]
fn im2col_pairs_disjoint<const GATHERED: bool>(
    arena: &mut [u8],
    (input, output): (usize, usize),
    p: &Conv2dIm2colS8,
) {
    let (c, m) = (p.input_c, p.output_c);
    let k = padded_window(p);
    check_paired(p, k, GATHERED);
    let image_len = p.input_h * p.input_w * c;
    let out_len = p.batches * p.output_h * p.output_w * m;
    let (inp, out) = views::split(arena, input, p.batches * image_len, output, out_len);
    // The sums start from the biases: the requantizer adds none.
    let requantizer = biased_requantizer!(p, m);
    let parameters = (&p.filter[..m * k], &p.folded_bias[..m]);
    if GATHERED {
        im2col_pairs::<GATHERED_MAX>(inp, out, p, parameters, &requantizer, true);
    } else {
        im2col_pairs::<WIDE_CHANNELS>(inp, out, p, parameters, &requantizer, false);
    }
}

/// The longest window [`conv2d_im2col_gather_pairs_s8`] gathers: half of [`WIDE_CHANNELS`]
/// (see there).
const GATHERED_MAX: usize = WIDE_CHANNELS / 2;

/// The filter rows' length in bytes for the paired gathering convolutions: the window's, rounded
/// up to whole words (the padding weights zero) when its input channels are not whole words.
fn padded_window(p: &Conv2dIm2colS8) -> usize {
    (p.filter_h * p.filter_w * p.input_c).next_multiple_of(4)
}

/// The pixels of [`conv2d_im2col_pairs_s8`] on the paired path, two at a time (an odd last
/// pixel paired with itself, its twin's outputs dropped): both windows widened a tap's words at a
/// time (taps outside the image as the input zero point), in chunks of [`WIDE_CHANNELS`] bytes
/// (once per pair when the window fits one chunk, once per run of channels otherwise). Inlined:
/// one frame with its caller's (the stack is a budget).
#[inline(always)]
fn im2col_pairs<const N: usize>(
    inp: &[u8],
    out: &mut [u8],
    p: &Conv2dIm2colS8,
    (blocks, bias): (&[i8], &[i32]),
    requantizer: &Requantizer,
    gathered: bool,
) {
    const RUN: usize = GATHER_ACC_RUN / 2;
    let (k, m) = (padded_window(p), p.output_c);
    let single = k <= N;
    let plane = p.output_h * p.output_w;
    let pixels = p.batches * plane;
    let image_len = p.input_h * p.input_w * p.input_c;
    let mut wide = Widened::<N>::new();
    let mut acc = [0i32; 2 * RUN];
    let mut dropped = [0u8; RUN];
    // Only used when gathering (a window then fits); the padding bytes stay zero.
    let mut bytes = [[0u8; GATHERED_MAX]; 2];
    let mut q = 0;
    while q < pixels {
        let twin = (q + 1).min(pixels - 1);
        let windows = [window_of(p, plane, q), window_of(p, plane, twin)];
        let (o0, o1) = out[q * m..].split_at_mut(m);
        im2col_pair!(
            true,
            image_len,
            gathered,
            windows,
            inp,
            p,
            bytes,
            k,
            wide,
            single,
            blocks,
            bias,
            acc,
            twin,
            q,
            o0,
            o1,
            dropped,
            requantizer
        );
        q += 2;
    }
}

/// [`conv2d_1x1_s8`] when its output overlaps its input: the groups of two pixels in order, each
/// on its own views ([`views::Stream::groups`]), a pair by [`conv1x1_pair`] where the disjoint path
/// pairs pixels, else a pixel at a time by [`conv1x1_pixel`]; set up as [`conv1x1_disjoint`] is.
#[inline(never)]
fn conv1x1_streamed(arena: &mut [u8], operands: (usize, usize), p: &Conv1x1S8) {
    let (n, m) = (p.input_c, p.output_c);
    assert!(n > 0 && m > 0, "1x1 convolution with no channels");
    let blocked = m - m % 4;
    let (blocks, rest) = p.filter[..m * n].split_at(blocked * n);
    #[cfg(tinyaot_dsp)]
    super::nn_common::check_word_aligned(blocks);
    let bias = &p.folded_bias[..m];
    let requantizer = biased_requantizer!(p, m);
    let paired = PAIRED && n >= 4 && blocked > 0 && p.pixels >= 2;
    const RUN: usize = ACC_RUN / 2;
    let whole = n - n % 4;
    let tail = n - whole;
    let single = whole <= WIDE_CHANNELS;
    let mut wide = Widened::<WIDE_CHANNELS>::new();
    let (mut pair_acc, mut pixel_acc) = ([0i32; ACC_RUN], [0i32; ONE_PIXEL_RUN]);
    let stream = views::Stream::one_row(p.pixels, n, m);
    stream.groups(arena, operands, 2, |inp, _, out, pixels| {
        if paired && pixels.len() == 2 {
            let (x, o, acc) = (&inp[..2 * n], out, &mut pair_acc);
            conv1x1_pair!(
                x,
                o,
                acc,
                wide,
                n,
                m,
                blocked,
                whole,
                tail,
                single,
                blocks,
                rest,
                bias,
                requantizer
            );
        } else {
            let acc = &mut pixel_acc;
            for (x, o) in inp.chunks_exact(n).zip(out.chunks_exact_mut(m)) {
                conv1x1_pixel!(x, o, acc, n, blocked, blocks, rest, bias, requantizer);
            }
        }
    });
}

/// [`conv2d_1x1_widened_s8`] when its output overlaps its input: the groups of two pixels in
/// order, each on its own views, a pixel at a time by [`widened_pixel`]; set up as
/// [`widened_disjoint`] is.
#[inline(never)]
fn widened_streamed(arena: &mut [u8], operands: (usize, usize), p: &Conv1x1S8) {
    let (n, m) = (p.input_c, p.output_c);
    assert!(
        n > 0 && m > 0 && n % 4 == 0 && m % 4 == 0,
        "widened 1x1 convolution needs whole words of input channels and blocks of four outputs"
    );
    let filter = &p.filter[..m * n];
    let bias = &p.folded_bias[..m];
    let requantizer = biased_requantizer!(p, m);
    const CHUNK: usize = 2 * WIDE_CHANNELS;
    let single = n <= CHUNK;
    let mut wide = Widened::<WIDE_CHANNELS>::new();
    let mut acc = [0i32; ACC_RUN];
    let stream = views::Stream::one_row(p.pixels, n, m);
    stream.groups(arena, operands, 2, |inp, _, out, _| {
        for (x, o) in inp.chunks_exact(n).zip(out.chunks_exact_mut(m)) {
            widened_pixel!(x, o, acc, wide, single, n, filter, bias, requantizer);
        }
    });
}

/// [`im2col_one_pixel`] when the output overlaps the input: the groups of two pixels in order,
/// each on its own views, a pixel at a time by [`im2col_pixel`]; set up as
/// [`im2col_one_pixel_disjoint`] is.
#[inline(never)]
fn im2col_one_pixel_streamed(
    arena: &mut [u8],
    operands: (usize, usize),
    p: &Conv2dIm2colS8,
    k: usize,
) {
    let c = p.input_c;
    let m = p.output_c;
    assert!(
        k > 0 && k >= p.filter_h * p.filter_w * c && k <= super::IM2COL_MAX && m > 0,
        "im2col window empty or larger than IM2COL_MAX"
    );
    assert!(
        (-128..=127).contains(&p.input_zero_point),
        "input zero point out of int8 range"
    );
    let blocked = m - m % 4;
    let (blocks, rest) = p.filter[..m * k].split_at(blocked * k);
    let bias = &p.folded_bias[..m];
    #[cfg(tinyaot_dsp)]
    super::nn_common::check_word_aligned(blocks);
    let requantizer = biased_requantizer!(p, m);
    let mut buffer = [0u8; super::IM2COL_MAX];
    let window = &mut buffer[..k];
    let mut acc = [0i32; GATHER_ACC_RUN / 2];
    let run_len = acc.len();
    let plane = p.output_h * p.output_w;
    stream_of(p).groups(arena, operands, 2, |inp, from, out, pixels| {
        let mut out_px = out.chunks_exact_mut(m);
        for q in pixels {
            let (image, (ky0, ky1, y0), (kx0, kx1, x0)) = window_of(p, plane, q);
            // The view starts `from` bytes into the input: the batch's image starts at this
            // offset in it (wrapping when before it).
            let (image, origin) = (inp, image.wrapping_sub(from));
            im2col_pixel!(
                image,
                origin,
                p,
                ky0,
                ky1,
                y0,
                kx0,
                kx1,
                x0,
                window,
                out_px,
                blocked,
                blocks,
                run_len,
                k,
                acc,
                bias,
                requantizer,
                rest
            );
        }
    });
}

/// [`im2col_pairs_kernel`] when the output overlaps the input: the groups of two pixels in
/// order, each on its own views, by [`im2col_pair`] (`N` as [`im2col_pairs`]'s).
#[inline(never)]
fn im2col_pairs_streamed(
    arena: &mut [u8],
    operands: (usize, usize),
    p: &Conv2dIm2colS8,
    gathered: bool,
) {
    if gathered {
        im2col_pairs_streamed_by::<GATHERED_MAX>(arena, operands, p, true);
    } else {
        im2col_pairs_streamed_by::<WIDE_CHANNELS>(arena, operands, p, false);
    }
}

/// [`im2col_pairs_streamed`] in chunks of `N` bytes; set up as [`im2col_pairs`] is.
#[inline(always)]
fn im2col_pairs_streamed_by<const N: usize>(
    arena: &mut [u8],
    operands: (usize, usize),
    p: &Conv2dIm2colS8,
    gathered: bool,
) {
    const RUN: usize = GATHER_ACC_RUN / 2;
    let (k, m) = (padded_window(p), p.output_c);
    check_paired(p, k, gathered);
    let requantizer = biased_requantizer!(p, m);
    let (blocks, bias) = (&p.filter[..m * k], &p.folded_bias[..m]);
    let single = k <= N;
    let plane = p.output_h * p.output_w;
    let pixels = p.batches * plane;
    // Not slicing images: a view may start inside one.
    let image_len = 0;
    let mut wide = Widened::<N>::new();
    let mut acc = [0i32; 2 * RUN];
    let mut dropped = [0u8; RUN];
    let mut bytes = [[0u8; GATHERED_MAX]; 2];
    stream_of(p).groups(arena, operands, 2, |inp, from, out, group| {
        let q = group.start;
        let twin = (q + 1).min(pixels - 1);
        // The images' offsets in the view, which starts `from` bytes into the input (wrapping
        // when before it).
        let windows = [window_of(p, plane, q), window_of(p, plane, twin)]
            .map(|(image, ys, xs)| (image.wrapping_sub(from), ys, xs));
        let (o0, o1) = out.split_at_mut(m);
        im2col_pair!(
            false,
            image_len,
            gathered,
            windows,
            inp,
            p,
            bytes,
            k,
            wide,
            single,
            blocks,
            bias,
            acc,
            twin,
            q,
            o0,
            o1,
            dropped,
            requantizer
        );
    });
}

/// The stream geometry ([`views::Stream`]) of a [`Conv2dIm2colS8`] convolution.
fn stream_of(p: &Conv2dIm2colS8) -> views::Stream {
    views::Stream {
        batches: p.batches,
        input_h: p.input_h,
        input_w: p.input_w,
        input_c: p.input_c,
        output_h: p.output_h,
        output_w: p.output_w,
        output_c: p.output_c,
        stride_h: p.stride_h,
        stride_w: p.stride_w,
        pad_top: p.pad_top,
        pad_left: p.pad_left,
        window_h: (p.filter_h - 1) * p.dilation_h + 1,
        window_w: (p.filter_w - 1) * p.dilation_w + 1,
        pointwise: false,
    }
}

/// Where output pixel `q` (counted over batches, rows and columns) reads: its batch's image
/// offset (in the input, or in a view of it: wrapping when before the view) and its window's
/// in-image taps, `(image, (ky0, ky1, y0), (kx0, kx1, x0))` as [`taps`] gives them.
type Window = (usize, (usize, usize, isize), (usize, usize, isize));

/// The [`Window`] of output pixel `q`; `plane` is `output_h * output_w`.
fn window_of(p: &Conv2dIm2colS8, plane: usize, q: usize) -> Window {
    let (b, oy, ox) = (q / plane, q % plane / p.output_w, q % p.output_w);
    let image = b * p.input_h * p.input_w * p.input_c;
    let ys = taps(
        oy,
        p.stride_h,
        p.pad_top,
        p.dilation_h,
        p.filter_h,
        p.input_h,
    );
    let xs = taps(
        ox,
        p.stride_w,
        p.pad_left,
        p.dilation_w,
        p.filter_w,
        p.input_w,
    );
    (image, ys, xs)
}

/// Widens bytes `k0..k1` (multiples of four, at most `N` apart) of two pixels'
/// im2col windows: the taps in `(filter y, filter x)` order, each its `input_c` channels (whole
/// words), the taps outside the image as the input zero point; one run of words per tap.
fn widen_windows<const N: usize>(
    inp: &[u8],
    p: &Conv2dIm2colS8,
    windows: &[Window; 2],
    k0: usize,
    k1: usize,
    wide: &mut Widened<N>,
) {
    let c = p.input_c;
    let zero = u32::from_ne_bytes([p.input_zero_point as i8 as u8; 4]);
    // When both windows have every column in the image and none is dilated, a filter row's taps
    // are one run of the image: widened a row at a time rather than a tap at a time.
    let whole_rows = p.dilation_w == 1
        && windows
            .iter()
            .all(|&(_, _, (kx0, kx1, _))| kx0 == 0 && kx1 == p.filter_w);
    let unit = if whole_rows { p.filter_w * c } else { c };
    // A unit's bytes `j..j + n` in a window's image, or None outside the image.
    let source = |&(image, (ky0, ky1, y0), (kx0, kx1, x0)): &Window, u: usize, j: usize, n| {
        let (ky, kx) = if whole_rows {
            (u, 0)
        } else {
            (u / p.filter_w, u % p.filter_w)
        };
        ((ky0..ky1).contains(&ky) && (kx0..kx1).contains(&kx)).then(|| {
            let (y, x) = (coord(y0, ky, p.dilation_h), coord(x0, kx, p.dilation_w));
            &inp[image.wrapping_add((y * p.input_w + x) * c + j)..][..n]
        })
    };
    let mut dst = wide.words_mut(k1 - k0);
    let mut k = k0;
    while k < k1 {
        let (u, j) = (k / unit, k % unit);
        let n = (unit - j).min(k1 - k);
        let (run, rest) = dst.split_at_mut(n);
        let (a, b) = (source(&windows[0], u, j, n), source(&windows[1], u, j, n));
        widen_into(run, a, b, zero);
        dst = rest;
        k += n;
    }
}

/// Gathers the im2col window of one output pixel of a [`Conv2dIm2colS8`] convolution from its
/// batch's image, which starts at `origin` in `image` (wrapping: `image` may be a view of the
/// input that starts after the image's first byte; only the window's in-image taps, which lie in
/// the view, are indexed), into `window` (at least the window's length): the taps in
/// `(filter y, filter x)` order, each its `input_c` channels, and where the in-image taps
/// `(ky0, ky1, y0)`, `(kx0, kx1, x0)` (as [`taps`] gives them) leave some out, the whole buffer
/// first filled with the input zero point.
#[inline(always)]
fn gather_window(
    image: &[u8],
    origin: usize,
    p: &Conv2dIm2colS8,
    ((ky0, ky1, y0), (kx0, kx1, x0)): ((usize, usize, isize), (usize, usize, isize)),
    window: &mut [u8],
) {
    let c = p.input_c;
    let row = p.filter_w * c;
    if ky1 - ky0 < p.filter_h || kx1 - kx0 < p.filter_w {
        window.fill(p.input_zero_point as i8 as u8);
    }
    if p.dilation_w == 1 && kx0 < kx1 {
        // Each in-image row's taps are one run of the image: a short copy per row, both
        // positions stepped rather than recomputed.
        let n = (kx1 - kx0) * c;
        let step = p.dilation_h * p.input_w * c;
        let first = (coord(y0, ky0, p.dilation_h) * p.input_w + coord(x0, kx0, 1)) * c;
        let mut from = origin.wrapping_add(first);
        let mut to = ky0 * row + kx0 * c;
        for _ in ky0..ky1 {
            copy_short(&mut window[to..to + n], &image[from..from + n]);
            from += step;
            to += row;
        }
    } else {
        for ky in ky0..ky1 {
            let y = coord(y0, ky, p.dilation_h);
            // Tap by tap: a row's first byte may lie before a view's start.
            let image_row = origin.wrapping_add(y * p.input_w * c);
            let window_row = &mut window[ky * row..][..row];
            for kx in kx0..kx1 {
                let x = image_row.wrapping_add(coord(x0, kx, p.dilation_w) * c);
                copy_short(&mut window_row[kx * c..][..c], &image[x..][..c]);
            }
        }
    }
}

/// `dst.copy_from_slice(src)` (equally long), with the short lengths of one-channel windows'
/// rows (1 to 8 bytes) as inline loads and stores rather than a call of `memcpy`, which costs more
/// than such a copy.
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    match dst.len() {
        1 => dst.copy_from_slice(&src[..1]),
        2 => dst.copy_from_slice(&src[..2]),
        3 => dst.copy_from_slice(&src[..3]),
        4 => dst.copy_from_slice(&src[..4]),
        5 => dst.copy_from_slice(&src[..5]),
        6 => dst.copy_from_slice(&src[..6]),
        7 => dst.copy_from_slice(&src[..7]),
        8 => dst.copy_from_slice(&src[..8]),
        _ => dst.copy_from_slice(src),
    }
}

/// int16 CONV_2D with int8 weights, bit-exact with TFLM's 16x8 `ConvPerChannel` (64-bit sums and
/// bias, [`requantize_16x8`]). Reads `2 * batches * input_h * input_w * input_c` bytes at `input`,
/// writes `2 * batches * output_h * output_w * output_c` bytes at `output` (see the module docs for
/// the order).
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_s16(arena: &mut [u8], input: usize, output: usize, p: &Conv2dS16) {
    let p = super::opaque(p);
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
                    let x = 2 * coord(x0, kx0, 1) * p.input_c;
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
                            let x = coord(x0, kx0, 1) * p.input_c;
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
struct WindowBuffer([u8; super::IM2COL_MAX]);

/// int16 CONV_2D with int8 weights over gathered windows ([`Conv2dIm2colS16`]), bit-exact with
/// TFLM's 16x8 `ConvPerChannel`: each output pixel's window is copied into one stack buffer (taps
/// outside the image as 0, which int16's zero point 0 makes "no contribution"), then multiplied
/// with two filter rows at a time. A window of at most 288 products sums exactly in 32 bits (each
/// is at most 2^22 in magnitude), widened to 64 for the bias. Reads and writes as [`conv2d_s16`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_im2col_s16(arena: &mut [u8], input: usize, output: usize, p: &Conv2dIm2colS16) {
    let p = super::opaque(p);
    let c = p.input_c;
    let window = p.filter_h * p.filter_w * c;
    assert!(
        window > 0 && 2 * window <= super::IM2COL_MAX && p.output_c > 0,
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
        let sum = i64::from(sum).wrapping_add(bias.map_or(0, |b| b[oc]));
        requantize_16x8(sum, multipliers[oc], shifts[oc], act).to_le_bytes()
    };
    // Word-aligned, so that the dot product's input words load as words.
    let mut buffer = WindowBuffer([0; super::IM2COL_MAX]);
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
                        let x = 2 * coord(x0, kx0, 1) * c;
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

/// float32 CONV_2D, accumulating in TFLM's order (filter y, filter x, input channel), then adding the
/// bias and clamping. Reads `4 * batches * input_h * input_w * input_c` bytes at `input`, writes
/// `4 * batches * output_h * output_w * output_c` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_f32(arena: &mut [u8], input: usize, output: usize, p: &Conv2dF32) {
    let p = super::opaque(p);
    let g = geometry!(p);
    let in_len = 4 * p.batches * g.input_image;
    let out_len = 4 * p.batches * p.output_h * p.output_w * p.output_c;
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    let filter = &p.filter[..p.output_c * g.filter_oc];
    let bias = p.bias.map(|b| &b[..p.output_c]);
    let contiguous = p.filter_c == p.input_c && p.dilation_w == 1;
    let mut out_px = out.chunks_exact_mut(4 * p.output_c);
    for b in 0..p.batches {
        let image = &inp[4 * b * g.input_image..][..4 * g.input_image];
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
                for (oc, o) in px.chunks_exact_mut(4).enumerate() {
                    let w_oc = &filter[oc * g.filter_oc..][..g.filter_oc];
                    let group_c = (oc / g.filters_per_group) * p.filter_c;
                    let mut acc = 0.0f32;
                    for ky in ky0..ky1 {
                        let row = &image[4 * coord(y0, ky, p.dilation_h) * g.input_row..]
                            [..4 * g.input_row];
                        let w_row = &w_oc[ky * g.filter_row..][..g.filter_row];
                        if contiguous {
                            let x = coord(x0, kx0, 1) * p.input_c;
                            let n = (kx1 - kx0) * p.input_c;
                            let w = &w_row[kx0 * g.filter_tap..][..n];
                            acc = dot_f32(acc, w, &row[4 * x..][..4 * n]);
                        } else {
                            for kx in kx0..kx1 {
                                let x = coord(x0, kx, p.dilation_w) * p.input_c + group_c;
                                let w = &w_row[kx * g.filter_tap..][..p.filter_c];
                                acc = dot_f32(acc, w, &row[4 * x..][..4 * p.filter_c]);
                            }
                        }
                    }
                    let bias = bias.map_or(0.0, |b| b[oc]);
                    let v = clamp_f32(acc + bias, p.act_min, p.act_max);
                    o.copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::nn_common::dot::tests::interleave_rows4;
    use super::*;
    use std::{vec, vec::Vec};

    /// A 1x3x3x1 image, 3x3 filter of ones, SAME padding: each output is the sum of its in-image
    /// neighbourhood (zero point -1 is subtracted), times 0.5.
    #[test]
    fn s8_same_padding_sums_in_image_taps() {
        let input: [i8; 9] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
        let mut arena = [0u8; 18];
        for (a, &x) in arena.iter_mut().zip(&input) {
            *a = x as u8;
        }
        let p = Conv2dS8 {
            batches: 1,
            input_h: 3,
            input_w: 3,
            input_c: 1,
            output_h: 3,
            output_w: 3,
            output_c: 1,
            filter_h: 3,
            filter_w: 3,
            filter_c: 1,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 1,
            pad_left: 1,
            input_zero_point: -1,
            output_zero_point: 3,
            filter: &[1; 9],
            bias: Some(&[2]),
            multipliers: &[1 << 30],
            shifts: &[0],
            act_min: -128,
            act_max: 127,
        };
        conv2d_s8(&mut arena, 0, 9, &p);
        // Top-left: taps 0, 1, 3, 4 each + 1 = 12, + bias 2 = 14, / 2 = 7, + 3 = 10.
        // Centre: all nine, (0 + .. + 8) + 9 = 45, + 2 = 47, / 2 = 23.5 → 24 (away from zero), + 3 = 27.
        let out: [i8; 9] = core::array::from_fn(|i| arena[9 + i] as i8);
        assert_eq!(out, [10, 15, 12, 18, 27, 21, 16, 24, 18]);
    }

    #[test]
    fn s8_per_channel_requantization_and_clamp() {
        // 1x1x1x2 input, two output channels with 1x1 filters, different multipliers.
        let mut arena = [10u8, 20, 0, 0];
        let p = Conv2dS8 {
            batches: 1,
            input_h: 1,
            input_w: 1,
            input_c: 2,
            output_h: 1,
            output_w: 1,
            output_c: 2,
            filter_h: 1,
            filter_w: 1,
            filter_c: 2,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            input_zero_point: 0,
            output_zero_point: 0,
            filter: &[1, 1, 2, -1],
            bias: None,
            multipliers: &[1 << 30, 1 << 30],
            shifts: &[0, 3],
            act_min: -128,
            act_max: 12,
        };
        conv2d_s8(&mut arena, 0, 2, &p);
        // ch0: 30 * 0.5 = 15 → clamped to 12; ch1: (20 - 20) * 4 = 0.
        assert_eq!([arena[2] as i8, arena[3] as i8], [12, 0]);
    }

    #[test]
    fn s8_grouped_stride_and_dilation() {
        // 1x1x4x2 input, 2 groups of one channel, 1x2 filter dilated by 2, stride 2: output width 1.
        let mut arena = [1u8, 2, 3, 4, 5, 6, 7, 8, 0, 0];
        let p = Conv2dS8 {
            batches: 1,
            input_h: 1,
            input_w: 4,
            input_c: 2,
            output_h: 1,
            output_w: 1,
            output_c: 2,
            filter_h: 1,
            filter_w: 2,
            filter_c: 1,
            stride_h: 1,
            stride_w: 2,
            dilation_h: 1,
            dilation_w: 2,
            pad_top: 0,
            pad_left: 0,
            input_zero_point: 0,
            output_zero_point: 0,
            filter: &[1, 10, 1, -1],
            bias: None,
            multipliers: &[1 << 30, 1 << 30],
            shifts: &[1, 1],
            act_min: -128,
            act_max: 127,
        };
        conv2d_s8(&mut arena, 0, 8, &p);
        // oc0 (group 0, channel 0): x=0 → 1, x=2 → 5: 1*1 + 10*5 = 51. oc1 (channel 1): 2 - 6 = -4.
        assert_eq!([arena[8] as i8, arena[9] as i8], [51, -4]);
    }

    #[test]
    fn f32_valid_with_bias_and_relu() {
        // 1x2x2x1 input, 2x2 filter, VALID: one output.
        let mut arena = [0u8; 20];
        for (i, v) in [1.0f32, 2.0, 3.0, 4.0].iter().enumerate() {
            arena[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let mut p = Conv2dF32 {
            batches: 1,
            input_h: 2,
            input_w: 2,
            input_c: 1,
            output_h: 1,
            output_w: 1,
            output_c: 1,
            filter_h: 2,
            filter_w: 2,
            filter_c: 1,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            filter: &[0.5, -1.0, 0.25, 1.0],
            bias: Some(&[0.5]),
            act_min: 0.0,
            act_max: f32::MAX,
        };
        conv2d_f32(&mut arena, 0, 16, &p);
        // 0.5 - 2 + 0.75 + 4 + 0.5 = 3.75
        assert_eq!(f32::from_le_bytes(arena[16..20].try_into().unwrap()), 3.75);
        p.bias = Some(&[-10.0]);
        conv2d_f32(&mut arena, 0, 16, &p);
        assert_eq!(f32::from_le_bytes(arena[16..20].try_into().unwrap()), 0.0);
    }

    /// TFLM's loop nest, restated naively: the blocked kernel must agree with it everywhere.
    fn reference(p: &Conv2dS8, input: &[i8]) -> [i8; 2 * 3 * 5] {
        let mut out = [0i8; 2 * 3 * 5];
        for oy in 0..p.output_h {
            for ox in 0..p.output_w {
                for oc in 0..p.output_c {
                    let mut acc = 0i32;
                    for ky in 0..p.filter_h {
                        for kx in 0..p.filter_w {
                            let y = (oy * p.stride_h + ky) as isize - p.pad_top as isize;
                            let x = (ox * p.stride_w + kx) as isize - p.pad_left as isize;
                            if y < 0 || x < 0 || y >= p.input_h as isize || x >= p.input_w as isize
                            {
                                continue;
                            }
                            for ic in 0..p.input_c {
                                let v =
                                    input[(y as usize * p.input_w + x as usize) * p.input_c + ic];
                                let w = p.filter
                                    [((oc * p.filter_h + ky) * p.filter_w + kx) * p.filter_c + ic];
                                acc += i32::from(w) * (i32::from(v) - p.input_zero_point);
                            }
                        }
                    }
                    acc += p.bias.map_or(0, |b| b[oc]);
                    let v = crate::math::multiply_by_quantized_multiplier(
                        acc,
                        p.multipliers[oc],
                        i32::from(p.shifts[oc]),
                    ) + p.output_zero_point;
                    out[(oy * p.output_w + ox) * p.output_c + oc] =
                        v.clamp(p.act_min, p.act_max) as i8;
                }
            }
        }
        out
    }

    #[test]
    fn s8_blocked_channels_match_the_reference_loop() {
        // 1x4x5x3 input, 5 output channels (one block of four and one left over), 3x3 filter,
        // stride 2, SAME (pad 1 on both axes): output 2x3.
        let input: [i8; 60] = core::array::from_fn(|i| ((i * 53 + 7) % 256) as u8 as i8);
        let filter: [i8; 135] = core::array::from_fn(|i| ((i * 29 + 3) % 256) as u8 as i8);
        let p = Conv2dS8 {
            batches: 1,
            input_h: 4,
            input_w: 5,
            input_c: 3,
            output_h: 2,
            output_w: 3,
            output_c: 5,
            filter_h: 3,
            filter_w: 3,
            filter_c: 3,
            stride_h: 2,
            stride_w: 2,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 1,
            pad_left: 1,
            input_zero_point: -128,
            output_zero_point: 5,
            filter: &filter,
            bias: Some(&[100, -2000, 0, 77, -5]),
            multipliers: &[
                1_500_000_000,
                1_100_000_000,
                2_000_000_000,
                1 << 30,
                1_234_567_890,
            ],
            shifts: &[-9, -10, -8, -11, -9],
            act_min: -128,
            act_max: 127,
        };
        let mut arena = [0u8; 90];
        for (a, &v) in arena.iter_mut().zip(&input) {
            *a = v as u8;
        }
        conv2d_s8(&mut arena, 0, 60, &p);
        let got: [i8; 30] = core::array::from_fn(|i| arena[60 + i] as i8);
        let want = reference(&p, &input);
        assert_eq!(got, want);
        // The case is not degenerate: outputs vary and do not all saturate.
        assert!(want.iter().filter(|&&v| v != -128 && v != 127).count() > 10);
    }

    /// The 1×1 kernel, with the zero point folded into its bias, against the general kernel: odd
    /// and even pixel and channel counts, rows shorter and longer than a word.
    #[test]
    fn s8_1x1_matches_the_general_kernel() {
        for (pixels, n, m) in [
            (5, 7, 5),
            (4, 8, 6),
            (1, 3, 1),
            (3, 12, 4),
            (2, 1, 3),
            (2, 9, 11),
            // Longer than a widened chunk (three chunks, one byte of tail) and more channels than
            // a run; exactly one chunk with two bytes of tail.
            (3, 301, 37),
            (4, 130, 70),
            // Whole words in, blocks of four out (the widened one-pixel kernel): one chunk, and
            // three chunks (two of 256 channels) with more channels than a run.
            (1, 32, 8),
            (2, 600, 72),
        ] {
            let input: Vec<i8> = (0..pixels * n)
                .map(|i| ((i * 53 + 7) % 256) as u8 as i8)
                .collect();
            let filter: Vec<i8> = (0..m * n)
                .map(|i| ((i * 29 + 3) % 256) as u8 as i8)
                .collect();
            let bias: Vec<i32> = (0..m).map(|c| c as i32 * 977 - 2000).collect();
            let multipliers: Vec<i32> = (0..m)
                .map(|c| 1_100_000_000 + (c % 11) as i32 * 90_000_000)
                .collect();
            // Longer rows, larger sums: shifted further, so that not every output saturates.
            let extra = if n > 100 { 4 } else { 0 };
            let shifts: Vec<i8> = (0..m).map(|c| -7 - extra - (c % 4) as i8).collect();
            let zp = -37;
            let general = Conv2dS8 {
                batches: 1,
                input_h: 1,
                input_w: pixels,
                input_c: n,
                output_h: 1,
                output_w: pixels,
                output_c: m,
                filter_h: 1,
                filter_w: 1,
                filter_c: n,
                stride_h: 1,
                stride_w: 1,
                dilation_h: 1,
                dilation_w: 1,
                pad_top: 0,
                pad_left: 0,
                input_zero_point: zp,
                output_zero_point: 3,
                filter: &filter,
                bias: Some(&bias),
                multipliers: &multipliers,
                shifts: &shifts,
                act_min: -100,
                act_max: 120,
            };
            let folded: Vec<i32> = (0..m)
                .map(|c| {
                    let sum: i32 = filter[c * n..][..n].iter().map(|&w| i32::from(w)).sum();
                    bias[c].wrapping_sub(zp.wrapping_mul(sum))
                })
                .collect();
            let interleaved = interleave_rows4(&filter, n);
            let fast = Conv1x1S8 {
                pixels,
                input_c: n,
                output_c: m,
                output_zero_point: 3,
                filter: &interleaved,
                folded_bias: &folded,
                multipliers: &multipliers,
                shifts: &shifts,
                act_min: -100,
                act_max: 120,
                narrow_requant: false,
            };
            let mut arena = vec![0u8; pixels * (n + 2 * m)];
            for (a, &v) in arena.iter_mut().zip(&input) {
                *a = v as u8;
            }
            let (want_at, got_at) = (pixels * n, pixels * (n + m));
            conv2d_s8(&mut arena, 0, want_at, &general);
            conv2d_1x1_s8(&mut arena, 0, got_at, &fast);
            assert_eq!(arena[want_at..got_at], arena[got_at..], "{pixels} {n} {m}");
            // The shifts are right shifts and the sums small: the short requantization agrees.
            let narrow = Conv1x1S8 {
                narrow_requant: true,
                ..fast
            };
            conv2d_1x1_s8(&mut arena, 0, got_at, &narrow);
            assert_eq!(
                arena[want_at..got_at],
                arena[got_at..],
                "narrow {pixels} {n} {m}"
            );
            assert!(arena[want_at..got_at]
                .iter()
                .any(|&v| v != 0 && v != 120 && v as i8 != -100));
            // The widened one-pixel kernel, where the lowering would choose it (any pixel count
            // works: one at a time).
            if n % 4 == 0 && m % 4 == 0 {
                for params in [&fast, &narrow] {
                    arena[got_at..].fill(0);
                    conv2d_1x1_widened_s8(&mut arena, 0, got_at, params);
                    assert_eq!(
                        arena[want_at..got_at],
                        arena[got_at..],
                        "widened {pixels} {n} {m}"
                    );
                }
            }
        }
    }

    /// The im2col kernel, with the zero point folded into its bias, against the general kernel:
    /// padding on every side, stride, dilation, odd channel counts.
    #[test]
    fn s8_im2col_matches_the_general_kernel() {
        // (input h, w, c, output c, filter h, w, stride, dilation, pad top, pad left, output h, w)
        let cases = [
            (4, 5, 3, 5, 3, 3, 2, 1, 1, 1, 2, 3),
            (5, 5, 2, 4, 3, 3, 1, 2, 2, 2, 5, 5),
            (6, 4, 1, 7, 4, 2, 1, 1, 1, 0, 6, 3),
            (3, 3, 8, 9, 3, 3, 1, 1, 0, 0, 1, 1),
            // Windows of two widened chunks (180 bytes), runs of 16, 16 and 4 channels.
            (6, 6, 20, 36, 3, 3, 1, 1, 1, 1, 6, 6),
            // Three bytes of tail per window.
            (4, 4, 7, 8, 3, 3, 2, 1, 1, 1, 2, 2),
            // Whole words of channels (the paired path on ARMv7E-M and in these tests): one
            // chunk with stride and an odd pixel count, and dilation with padding.
            (5, 5, 8, 8, 3, 3, 2, 1, 1, 1, 3, 3),
            (5, 5, 4, 4, 3, 3, 1, 2, 2, 2, 5, 5),
            // Short windows of channels not in whole words (the gathering paired kernel): three
            // channels with stride and an odd pixel count, one channel with padding all round.
            (6, 6, 3, 8, 3, 3, 2, 1, 1, 1, 3, 3),
            (5, 5, 1, 8, 3, 3, 1, 1, 1, 1, 5, 5),
        ];
        for (ih, iw, c, m, fh, fw, stride, dilation, pad_top, pad_left, oh, ow) in cases {
            let input: Vec<i8> = (0..ih * iw * c)
                .map(|i| ((i * 53 + 7) % 256) as u8 as i8)
                .collect();
            let k = fh * fw * c;
            let filter: Vec<i8> = (0..m * k)
                .map(|i| ((i * 29 + 3) % 256) as u8 as i8)
                .collect();
            let bias: Vec<i32> = (0..m).map(|ch| ch as i32 * 977 - 2000).collect();
            let multipliers: Vec<i32> = (0..m)
                .map(|ch| 1_100_000_000 + (ch % 11) as i32 * 90_000_000)
                .collect();
            let extra = if k > 100 { 3 } else { 0 };
            let shifts: Vec<i8> = (0..m).map(|ch| -8 - extra - (ch % 4) as i8).collect();
            let zp = -37;
            let general = Conv2dS8 {
                batches: 1,
                input_h: ih,
                input_w: iw,
                input_c: c,
                output_h: oh,
                output_w: ow,
                output_c: m,
                filter_h: fh,
                filter_w: fw,
                filter_c: c,
                stride_h: stride,
                stride_w: stride,
                dilation_h: dilation,
                dilation_w: dilation,
                pad_top,
                pad_left,
                input_zero_point: zp,
                output_zero_point: 3,
                filter: &filter,
                bias: Some(&bias),
                multipliers: &multipliers,
                shifts: &shifts,
                act_min: -100,
                act_max: 120,
            };
            let folded: Vec<i32> = (0..m)
                .map(|ch| {
                    let sum: i32 = filter[ch * k..][..k].iter().map(|&w| i32::from(w)).sum();
                    bias[ch].wrapping_sub(zp.wrapping_mul(sum))
                })
                .collect();
            let interleaved = interleave_rows4(&filter, k);
            let fast = Conv2dIm2colS8 {
                batches: 1,
                input_h: ih,
                input_w: iw,
                input_c: c,
                output_h: oh,
                output_w: ow,
                output_c: m,
                filter_h: fh,
                filter_w: fw,
                stride_h: stride,
                stride_w: stride,
                dilation_h: dilation,
                dilation_w: dilation,
                pad_top,
                pad_left,
                input_zero_point: zp,
                output_zero_point: 3,
                filter: &interleaved,
                folded_bias: &folded,
                multipliers: &multipliers,
                shifts: &shifts,
                act_min: -100,
                act_max: 120,
                narrow_requant: false,
            };
            let (n_in, n_out) = (ih * iw * c, oh * ow * m);
            let mut arena = vec![0u8; n_in + 2 * n_out];
            for (a, &v) in arena.iter_mut().zip(&input) {
                *a = v as u8;
            }
            conv2d_s8(&mut arena, 0, n_in, &general);
            conv2d_im2col_s8(&mut arena, 0, n_in + n_out, &fast);
            let (want, got) = arena[n_in..].split_at(n_out);
            assert_eq!(want, got, "{ih}x{iw}x{c} -> {m}, {fh}x{fw}");
            let narrow = Conv2dIm2colS8 {
                narrow_requant: true,
                ..fast
            };
            conv2d_im2col_s8(&mut arena, 0, n_in + n_out, &narrow);
            let (want, got) = arena[n_in..].split_at(n_out);
            assert_eq!(want, got, "narrow {ih}x{iw}x{c} -> {m}, {fh}x{fw}");
            assert!(want.iter().any(|&v| v != 120 && v as i8 != -100));
            // The paired variant, where the lowering would choose it.
            if c % 4 == 0 && m % 4 == 0 {
                for params in [&fast, &narrow] {
                    arena[n_in + n_out..].fill(0);
                    conv2d_im2col_pairs_s8(&mut arena, 0, n_in + n_out, params);
                    let (want, got) = arena[n_in..].split_at(n_out);
                    assert_eq!(want, got, "paired {ih}x{iw}x{c} -> {m}, {fh}x{fw}");
                }
            }
            // The gathering paired variant, where the lowering would choose it: rows padded to
            // whole words with zero weights.
            let padded = k.next_multiple_of(4);
            if c % 4 != 0 && m % 4 == 0 && padded <= GATHERED_MAX {
                let rows: Vec<i8> = filter
                    .chunks_exact(k)
                    .flat_map(|r| {
                        r.iter()
                            .copied()
                            .chain(core::iter::repeat(0).take(padded - k))
                    })
                    .collect();
                let interleaved = interleave_rows4(&rows, padded);
                for narrow_requant in [false, true] {
                    let gathered = Conv2dIm2colS8 {
                        filter: &interleaved,
                        narrow_requant,
                        ..fast
                    };
                    arena[n_in + n_out..].fill(0);
                    conv2d_im2col_gather_pairs_s8(&mut arena, 0, n_in + n_out, &gathered);
                    let (want, got) = arena[n_in..].split_at(n_out);
                    assert_eq!(want, got, "gathered {ih}x{iw}x{c} -> {m}, {fh}x{fw}");
                }
            }
        }
    }

    /// The gathering int16 kernel (swizzled weights, 32-bit window sums) gives the general one's
    /// bytes: odd and even channel counts, windows with and without a whole last group of four,
    /// padding, stride and dilation, and inputs and weights at their extremes.
    #[test]
    fn s16_gathered_windows_match_the_general_kernel() {
        let cases = [
            // (input h, w, c, output c, filter h, w, stride, dilation, pad)
            (5, 6, 2, 3, 3, 3, 1, 1, 1),
            (6, 7, 3, 4, 2, 3, 2, 1, 0),
            (7, 7, 4, 5, 3, 3, 1, 2, 2),
            (4, 9, 8, 2, 1, 4, 1, 1, 0),
            (5, 5, 12, 3, 3, 3, 2, 1, 1),
        ];
        for (ih, iw, c, m, fh, fw, stride, dilation, pad) in cases {
            let out_dim = |i: usize, f: usize| (i + 2 * pad - dilation * (f - 1) - 1) / stride + 1;
            let (oh, ow) = (out_dim(ih, fh), out_dim(iw, fw));
            let window = fh * fw * c;
            let mut seed = 0x2545_f491u32 ^ window as u32;
            let mut next = move || {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                seed
            };
            let n_in = 2 * ih * iw * c;
            let n_out = 2 * oh * ow * m;
            let mut arena = vec![0u8; n_in + 2 * n_out];
            for (i, x) in arena[..n_in].chunks_exact_mut(2).enumerate() {
                let v = match i % 7 {
                    0 => i16::MIN,
                    1 => i16::MAX,
                    _ => next() as i16,
                };
                x.copy_from_slice(&v.to_le_bytes());
            }
            let filter: Vec<i8> = (0..m * window)
                .map(|i| if i % 5 == 0 { -128 } else { next() as i8 })
                .collect();
            let bias: Vec<i64> = (0..m).map(|k| i64::from(next() as i16) << 8 >> k).collect();
            let multipliers: Vec<i32> = (0..m).map(|k| 0x4000 + 997 * k as i32).collect();
            let shifts: Vec<i8> = (0..m).map(|k| 20 + k as i8).collect();
            let general = Conv2dS16 {
                batches: 1,
                input_h: ih,
                input_w: iw,
                input_c: c,
                output_h: oh,
                output_w: ow,
                output_c: m,
                filter_h: fh,
                filter_w: fw,
                filter_c: c,
                stride_h: stride,
                stride_w: stride,
                dilation_h: dilation,
                dilation_w: dilation,
                pad_top: pad,
                pad_left: pad,
                filter: &filter,
                bias: Some(&bias),
                multipliers: &multipliers,
                shifts: &shifts,
                act_min: -30000,
                act_max: 31000,
                swizzled: false,
                acc32: false,
            };
            conv2d_s16(&mut arena, 0, n_in, &general);
            let mut swizzled = filter.clone();
            for row in swizzled.chunks_exact_mut(window) {
                for q in row.chunks_exact_mut(4) {
                    q.swap(1, 2);
                }
            }
            let gathered = Conv2dIm2colS16 {
                batches: 1,
                input_h: ih,
                input_w: iw,
                input_c: c,
                output_h: oh,
                output_w: ow,
                output_c: m,
                filter_h: fh,
                filter_w: fw,
                stride_h: stride,
                stride_w: stride,
                dilation_h: dilation,
                dilation_w: dilation,
                pad_top: pad,
                pad_left: pad,
                filter: &swizzled,
                bias: Some(&bias),
                multipliers: &multipliers,
                shifts: &shifts,
                act_min: -30000,
                act_max: 31000,
            };
            conv2d_im2col_s16(&mut arena, 0, n_in + n_out, &gathered);
            let (want, got) = arena[n_in..].split_at(n_out);
            assert_eq!(want, got, "{ih}x{iw}x{c} -> {m}, {fh}x{fw}");
            assert!(want.iter().any(|&b| b != 0));
            // The general kernel's path for swizzled rows, where the lowering would choose it.
            if c % 4 == 0 && dilation == 1 {
                let rows = Conv2dS16 {
                    filter: &swizzled,
                    swizzled: true,
                    ..general
                };
                arena[n_in + n_out..].fill(0);
                conv2d_s16(&mut arena, 0, n_in + n_out, &rows);
                let (want, got) = arena[n_in..].split_at(n_out);
                assert_eq!(want, got, "swizzled {ih}x{iw}x{c} -> {m}, {fh}x{fw}");
            }
        }
    }
}

//! DEPTHWISE_CONV_2D: int8 with per-channel requantization (TFLM's
//! `reference_integer_ops::DepthwiseConvPerChannel`), int16 with int8 weights (its 16x8 variant)
//! and float32 (`reference_ops::DepthwiseConv`).
//!
//! Layouts: input `[batches, input_h, input_w, input_c]`, filter `[1, filter_h, filter_w, output_c]`
//! (the int16 kernel's in per-multiplier planes instead, laid out at generation time: see
//! [`DepthwiseConv2dS16::filter`]), output `[batches, output_h, output_w, output_c]` with
//! `output_c = input_c * depth_multiplier`; output channel `ic * depth_multiplier + m` reads input
//! channel `ic`.
//!
//! Access order (all kernels): for each output pixel in order, reads the pixel's input window, then
//! writes the pixel's output channels in order; the input is read again for later pixels.
//!
//! [`depthwise_conv2d_s8`] streams: its output may overlap its input as the stream contract
//! allows, in groups of one pixel. Output pixel `p` (row-major over batch, y, x) is the `output_c`
//! bytes at `output + p * output_c`; `min_read(p)`, the lowest input byte of its window clamped
//! to the image, is `((b * input_h + row) * input_w + column) * input_c` after `input`, with
//! `row = max(0, y * stride_h - pad_top)` and `column = max(0, x * stride_w - pad_left)`. The plan
//! guarantees that each pixel's output bytes miss the input bytes from its `min_read` on; output
//! bytes below that may overlap the input (the output starting below the input). The contract is
//! reversible: with the output starting above the input the pixels go last to first, and the
//! plan guarantees that each pixel's output bytes miss the input bytes below the highest byte
//! (exclusive) its window and every earlier pixel's read, the window's far corner clamped to the
//! image. The kernel takes the pixels in either order, each on views that split the arena at its
//! window's reads (`views::Stream`), so that the split's check tests the guarantee at run time;
//! where the output lies far enough from the input, a run of many pixels takes one pair of views,
//! and disjoint operands are one run of every pixel: the same code serves every case. The other
//! kernels need their output and input disjoint (checked).

use super::nn_common::mac16::{mac4_window_s16, mac_taps_s16};
use super::nn_common::requant::{requantize_16x8, requantize_16x8_narrow};
use super::nn_common::window::{coord, taps};
use super::nn_common::{
    clamp_f32, mac_broadcast_s8, mac_lanes_s8, views, window3x3_run_s8, window_run_s8, Requantizer,
    TapTable,
};
use crate::kernels::Within;

/// Output channels accumulated together: the window is walked once per block of this many channels,
/// with the accumulators on the stack.
const BLOCK: usize = 32;

/// The starting sums of a run of channels without a bias.
const ZEROS: [i32; BLOCK] = [0; BLOCK];

/// The most taps (`filter_h * filter_w`) whose input offsets [`depthwise_conv2d_s8`] tabulates
/// for the pixels whose window lies wholly in the image (a 5×5 filter; larger ones take the
/// general path everywhere).
const MAX_TAPS: usize = 25;

/// Constant parameters of [`depthwise_conv2d_s8`].
#[derive(Clone, Copy, Debug)]
pub struct DepthwiseConv2dS8<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels.
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (`input_c * depth_multiplier`).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Output channels per input channel.
    pub depth_multiplier: usize,
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
    /// Input zero point (taps outside the image contribute nothing).
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Filter weights, `[1, filter_h, filter_w, output_c]` (zero point 0).
    pub filter: &'a [i8],
    /// Per-output-channel bias.
    pub bias: Option<&'a [i32]>,
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

/// Constant parameters of [`depthwise_conv2d_s16`]: an int16 DEPTHWISE_CONV_2D with int8 weights
/// (TFLM's "16x8" `DepthwiseConvPerChannel`, 64-bit sums). Its zero points are 0 (generation-time
/// check), so there are no offsets.
#[derive(Clone, Copy, Debug)]
pub struct DepthwiseConv2dS16<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels.
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (`input_c * depth_multiplier`).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Output channels per input channel.
    pub depth_multiplier: usize,
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
    /// Filter weights (zero point 0) in planes, one per depth multiplier index:
    /// `[depth_multiplier, filter_h, filter_w, input_c]`, output channel `ic * depth_multiplier + m`
    /// at `[m, .., .., ic]` (the model's `[1, filter_h, filter_w, output_c]` when the multiplier is
    /// 1).
    pub filter: &'a [i8],
    /// Per-output-channel 64-bit bias, in units of `input_scale * filter_scale[c]`.
    pub bias: Option<&'a [i64]>,
    /// Per-output-channel multipliers reduced to 16 bits as TFLM's 64-bit
    /// `MultiplyByQuantizedMultiplier` reduces them (`0..=0x7FFF`).
    pub multipliers: &'a [i32],
    /// Per-output-channel right shifts of the product, `15 - shift` (within `1..=46`).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// Whether every channel's `32768 * Σ |w|` over its window plus `|bias|` is at most
    /// `i32::MAX` (generation-time check): then the sum of any window and the bias fits 32 bits.
    pub sums32: bool,
}

/// Constant parameters of [`depthwise_conv2d_f32`].
#[derive(Clone, Copy, Debug)]
pub struct DepthwiseConv2dF32<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels.
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (`input_c * depth_multiplier`).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Output channels per input channel.
    pub depth_multiplier: usize,
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
    /// Filter weights, `[1, filter_h, filter_w, output_c]`.
    pub filter: &'a [f32],
    /// Per-output-channel bias.
    pub bias: Option<&'a [f32]>,
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
}

/// One output pixel's window: the in-image taps and the input coordinates of tap 0.
struct Window {
    ky: (usize, usize),
    kx: (usize, usize),
    y0: isize,
    x0: isize,
}

/// Walks the output pixels in order and calls `pixel(batch, window, output_index)`.
macro_rules! for_each_pixel {
    ($p:expr, |$b:ident, $w:ident, $o:ident| $body:block) => {{
        let p = $p;
        let mut $o = 0usize;
        for $b in 0..p.batches {
            for oy in 0..p.output_h {
                let (ky0, ky1, y0) =
                    taps(oy, p.stride_h, p.pad_top, p.dilation_h, p.filter_h, p.input_h);
                for ox in 0..p.output_w {
                    let (kx0, kx1, x0) =
                        taps(ox, p.stride_w, p.pad_left, p.dilation_w, p.filter_w, p.input_w);
                    let $w = Window {
                        ky: (ky0, ky1),
                        kx: (kx0, kx1),
                        y0,
                        x0,
                    };
                    $body
                    $o += 1;
                }
            }
        }
    }};
}

/// Splits the block of `n` output channels starting at `c0` into runs that share an input channel:
/// calls `run(input_channel, block_range)` for each, in order.
#[inline(always)]
fn for_each_run(
    c0: usize,
    n: usize,
    dm: usize,
    mut run: impl FnMut(usize, core::ops::Range<usize>),
) {
    let mut j = 0;
    let mut ic = c0 / dm;
    let mut m = c0 % dm;
    while j < n {
        let len = (dm - m).min(n - j);
        run(ic, j..j + len);
        j += len;
        ic += 1;
        m = 0;
    }
}

fn check_shapes(input_c: usize, depth_multiplier: usize, output_c: usize) {
    // `assert!`, not `assert_eq!`: the message needs no integer formatting code in flash.
    ensure!(
        input_c * depth_multiplier == output_c,
        "output_c must be input_c * depth_multiplier"
    );
}

/// The whole of [`depthwise_conv2d_s8`] (given `$p`) but for the walk over its output pixels:
/// sets up what the pixels share, defines the macro `pixel!(input, from, batch, window, output)`
/// that computes one pixel (its window in `batch`, read from `input`, which holds the input from
/// byte `from` on, into its `output_c` bytes `output`), then runs `$walk`, which takes each pixel
/// in order. (`$d` is `$`, for the inner macro's own metavariables.) A macro rather than a
/// function taking a closure, so that the pixel's code sits in the walk's loop with every value
/// the pixels share in registers or the frame: a function or a closure cost the kernel up to 3%
/// more instructions on the Cortex-M4 (`cargo xtask mcu --profile`).
macro_rules! depthwise_s8 {
    ($d:tt, $p:ident, $walk:block) => {{
        let p = $p;
        let filter = p.filter.at(..p.filter_h * p.filter_w * p.output_c);
        let offset = -p.input_zero_point;
        let dm = p.depth_multiplier;
        let bias = p.bias.map(|b| b.at(..p.output_c));
        // The sums start from the biases: the requantizer adds none.
        let requantizer = Requantizer::for_biased_sums(
            p.output_c,
            (p.multipliers, p.shifts),
            p.output_zero_point,
            (p.act_min, p.act_max),
            p.narrow_requant,
        );
        // Without a depth multiplier, the taps of a window wholly in the image lie at fixed
        // offsets from its first: tabulated once, they make each tap two loads and the
        // multiply-accumulates. A window cut by the border takes a table of its own in-image
        // taps, built for the pixel.
        let taps = p.filter_h * p.filter_w;
        let tabulated = dm == 1 && taps <= MAX_TAPS;
        let mut tap_offsets = [[0usize; 2]; MAX_TAPS];
        if tabulated {
            for (k, o) in tap_offsets[..taps].iter_mut().enumerate() {
                super::keep_rolled();
                let (ky, kx) = (k / p.filter_w, k % p.filter_w);
                let input = (ky * p.dilation_h * p.input_w + kx * p.dilation_w) * p.input_c;
                *o = [input, k * p.output_c];
            }
        }
        let full_table = TapTable::new(tap_offsets.at(..taps.min(MAX_TAPS)));
        let mut border_offsets = [[0usize; 2]; MAX_TAPS];
        // The channels the tables serve: whole groups of four.
        let tabled = if tabulated {
            p.output_c - p.output_c % 4
        } else {
            0
        };
        let span_w = (p.filter_w - 1) * p.dilation_w;
        // 3×3 windows without dilation wholly in the image take the tableless run.
        let three_by_three = (p.filter_h, p.filter_w, p.dilation_h, p.dilation_w) == (3, 3, 1, 1);
        let row_bytes = p.input_w * p.input_c;
        // Helium: the usual layer's windows that the 3×3 runs leave (the border's) in one loop
        // per eight channels, requantized there (`nn_common::mve::window_taps_requant_s8`).
        #[cfg(tinyaot_mve)]
        let fused_taps = tabulated && p.narrow_requant && p.output_c.is_multiple_of(8);
        // One run of sums for both paths below (the stack is a budget).
        let mut sums = [0i32; BLOCK];
        macro_rules! pixel {
            ($d inp:expr, $d from:expr, $d b:expr, $d w:expr, $d out_px:expr) => {{
                let pixel = |y: usize, x: usize| {
                    &$d inp[(($d b * p.input_h + y) * p.input_w + x) * p.input_c - $d from..]
                };
                let mut c0 = 0;
                if tabled > 0 {
                    let inside = $d w.ky == (0, p.filter_h)
                        && $d w.x0 >= 0
                        && $d w.x0 as usize + span_w < p.input_w;
                    let border_table;
                    let (window, table) = if inside {
                        (pixel($d w.y0 as usize, $d w.x0 as usize), &full_table)
                    } else {
                        // The in-image taps, offset from the first of them.
                        let (y, x) = (
                            coord($d w.y0, $d w.ky.0, p.dilation_h),
                            coord($d w.x0, $d w.kx.0, p.dilation_w),
                        );
                        let mut count = 0;
                        for ky in $d w.ky.0..$d w.ky.1 {
                            for kx in $d w.kx.0..$d w.kx.1 {
                                let rows = (ky - $d w.ky.0) * p.dilation_h * p.input_w;
                                let input = (rows + (kx - $d w.kx.0) * p.dilation_w) * p.input_c;
                                let tap = (ky * p.filter_w + kx) * p.output_c;
                                border_offsets[count] = [input, tap];
                                count += 1;
                            }
                        }
                        border_table = TapTable::new(&border_offsets[..count]);
                        // A window with no tap in the image reads nothing: any pixel will do.
                        let window = if count > 0 { pixel(y, x) } else { &$d inp[..0] };
                        (window, &border_table)
                    };
                    #[cfg(tinyaot_mve)]
                    if let (true, Some(bias)) = (fused_taps, bias) {
                        if super::nn_common::window_taps_requant_s8(
                            window,
                            filter,
                            table,
                            (p.output_c, offset),
                            (bias, p.multipliers, p.shifts),
                            (p.output_zero_point, p.act_min, p.act_max),
                            $d out_px,
                        ) {
                            c0 = p.output_c;
                        }
                    }
                    // Runs of up to BLOCK channels: their sums, four at a time, then their
                    // requantization, each loop with its own values in registers.
                    while c0 < tabled {
                        let n = BLOCK.min(tabled - c0);
                        let init = bias.map_or(&ZEROS[..n], |b| &b[c0..c0 + n]);
                        if inside && three_by_three {
                            window3x3_run_s8(
                                window,
                                filter,
                                (p.input_c, row_bytes, c0, offset),
                                init,
                                &mut sums[..n],
                            );
                        } else {
                            window_run_s8(
                                window,
                                &filter[c0..],
                                table,
                                (c0, offset),
                                init,
                                &mut sums[..n],
                            );
                        }
                        requantizer.run(c0, &sums[..n], &mut $d out_px[c0..c0 + n]);
                        c0 += n;
                    }
                }
                if c0 < p.output_c {
                    untabled(
                        p,
                        ($d inp, $d from, $d b, &$d w),
                        (&requantizer, &mut sums),
                        $d out_px,
                        c0,
                    );
                }
            }};
        }
        $walk
    }};
}

/// [`depthwise_conv2d_s8`]'s channels from `c0` on that the tap tables do not serve (with a
/// depth multiplier, or after the last whole group of four) for one pixel: its window in batch
/// `b` of `inp` (the input from byte `from` on), into its `output_c` bytes `out_px`, in blocks of
/// up to [`BLOCK`] channels, each tap a multiply-accumulate of a row of filter taps. Out of line:
/// a path the usual layers (no depth multiplier, channels in fours) never take, whose inlined
/// copy cost every model with a depthwise convolution 1.3 KB of Cortex-M4 code.
#[inline(never)]
fn untabled(
    p: &DepthwiseConv2dS8,
    (inp, from, b, w): (&[u8], usize, usize, &Window),
    (requantizer, sums): (&Requantizer, &mut [i32; BLOCK]),
    out_px: &mut [u8],
    mut c0: usize,
) {
    let filter = p.filter.at(..p.filter_h * p.filter_w * p.output_c);
    let offset = -p.input_zero_point;
    let dm = p.depth_multiplier;
    let bias = p.bias.map(|b| b.at(..p.output_c));
    let pixel =
        |y: usize, x: usize| inp.at(((b * p.input_h + y) * p.input_w + x) * p.input_c - from..);
    while c0 < p.output_c {
        // A block of channels: with a depth multiplier, within the outputs of one input
        // channel (`shared`), so that each tap is one input byte times a row of filter
        // taps.
        let (n, shared) = if dm == 1 {
            (BLOCK.min(p.output_c - c0), None)
        } else {
            ((dm - c0 % dm).min(BLOCK), Some(c0 / dm))
        };
        let acc = sums.at_mut(..n);
        start_from(acc, bias, c0);
        for ky in w.ky.0..w.ky.1 {
            let y = coord(w.y0, ky, p.dilation_h);
            for kx in w.kx.0..w.kx.1 {
                let x = coord(w.x0, kx, p.dilation_w);
                let px = &pixel(y, x)[..p.input_c];
                let taps = filter
                    .at((ky * p.filter_w + kx) * p.output_c + c0..)
                    .at(..n);
                match shared {
                    None => mac_lanes_s8(acc, taps, px.at(c0..c0 + n), offset),
                    Some(ic) => mac_broadcast_s8(acc, taps, px[ic], offset),
                }
            }
        }
        requantizer.run(c0, acc, out_px.at_mut(c0..c0 + n));
        c0 += n;
    }
}

/// int8 DEPTHWISE_CONV_2D with per-channel requantization, bit-exact with TFLM's
/// `DepthwiseConvPerChannel`. Reads `batches * input_h * input_w * input_c` bytes at `input`,
/// writes `batches * output_h * output_w * output_c` bytes at `output` (see the module docs for
/// the order). The output may overlap the input as the stream contract allows (module docs, groups
/// of one pixel); otherwise they must be disjoint (checked).
#[cfg_attr(target_os = "none", inline(never))]
pub fn depthwise_conv2d_s8(arena: &mut [u8], input: usize, output: usize, p: &DepthwiseConv2dS8) {
    let p = super::opaque(p);
    check_shapes(p.input_c, p.depth_multiplier, p.output_c);
    let stream = views::Stream {
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
    };
    // Disjoint operands are one group of every pixel; overlapping ones (the stream contract) runs
    // of pixels or a pixel alone, each on its own views (`views::Stream::groups`). One copy of
    // the pixel loop serves both.
    // Helium's runs of pixels (`nn_common::mve::window3x3_requant_s8`) serve the usual layer:
    // 3×3 without dilation or depth multiplier, the narrow requantization.
    #[cfg(tinyaot_mve)]
    let fused = p.depth_multiplier == 1
        && (p.filter_h, p.filter_w, p.dilation_h, p.dilation_w) == (3, 3, 1, 1)
        && p.narrow_requant;
    depthwise_s8!($, p, {
        stream.groups::<1>(arena, (input, output), |inp, from, out, pixels| {
            // The group's pixels in order from its first, `(b0, oy0, ox0)`, as for_each_pixel!
            // walks them, until its output runs out.
            let (b0, oy0, ox0) = stream.pixel(pixels.start);
            // The group's output not yet written, a pixel's `output_c` bytes (or a run's) at a
            // time from its front.
            let mut rest: &mut [u8] = out;
            let mut first = true;
            'walk: for b in b0..p.batches {
                for oy in if first { oy0 } else { 0 }..p.output_h {
                    let (ky0, ky1, y0) =
                        taps(oy, p.stride_h, p.pad_top, p.dilation_h, p.filter_h, p.input_h);
                    let mut ox = if first { ox0 } else { 0 };
                    first = false;
                    while ox < p.output_w {
                        // Helium: a run of the row's pixels whose windows lie in the image, in
                        // one loop (the usual layer: 3×3, channels in eights, a bias, the narrow
                        // requantization), its outputs the next chunks of the group's.
                        #[cfg(tinyaot_mve)]
                        if let (Some(bias), true) = (p.bias, fused && (ky0, ky1) == (0, 3)) {
                            let x0 = (ox * p.stride_w) as isize - p.pad_left as isize;
                            if x0 >= 0 && x0 as usize + 2 < p.input_w {
                                // The last column whose window lies in the image.
                                let last = (p.input_w - 3 + p.pad_left) / p.stride_w;
                                let count = (last.min(p.output_w - 1) + 1 - ox)
                                    .min(rest.len() / p.output_c);
                                let at = ((b * p.input_h + y0 as usize) * p.input_w
                                    + x0 as usize)
                                    * p.input_c;
                                let window = inp.get(at.wrapping_sub(from)..);
                                if let (Some(window), true) = (window, count > 0) {
                                    let step = p.stride_w * p.input_c;
                                    let row = p.input_w * p.input_c;
                                    if super::nn_common::window3x3_requant_s8(
                                        window,
                                        p.filter,
                                        (p.input_c, row, step, -p.input_zero_point),
                                        (bias, p.multipliers, p.shifts),
                                        (p.output_zero_point, p.act_min, p.act_max),
                                        (count, &mut *rest),
                                    ) {
                                        rest = &mut core::mem::take(&mut rest)
                                            [count * p.output_c..];
                                        ox += count;
                                        continue;
                                    }
                                }
                            }
                        }
                        if rest.len() < p.output_c {
                            break 'walk;
                        }
                        let (out_px, tail) = core::mem::take(&mut rest).cut_mut(p.output_c);
                        rest = tail;
                        let (kx0, kx1, x0) =
                            taps(ox, p.stride_w, p.pad_left, p.dilation_w, p.filter_w, p.input_w);
                        let w = Window {
                            ky: (ky0, ky1),
                            kx: (kx0, kx1),
                            y0,
                            x0,
                        };
                        pixel!(inp, from, b, w, out_px);
                        ox += 1;
                    }
                }
            }
        });
    });
}

/// Sets `sums` to the biases of channels `c0..c0 + sums.len()` (zeros without a bias): the sums
/// start from them, so that the requantization adds none.
#[inline(always)]
fn start_from(sums: &mut [i32], bias: Option<&[i32]>, c0: usize) {
    match bias {
        Some(b) => sums.copy_from_slice(b.at(c0..c0 + sums.len())),
        None => sums.fill(0),
    }
}

/// int16 DEPTHWISE_CONV_2D with int8 weights, bit-exact with TFLM's 16x8
/// `DepthwiseConvPerChannel` (64-bit sums and bias, `requantize_16x8`). Reads
/// `2 * batches * input_h * input_w * input_c` bytes at `input`, writes
/// `2 * batches * output_h * output_w * output_c` bytes at `output` (see the module docs for the
/// order).
///
/// Each pixel takes its channels by depth multiplier index `m`, four input channels at a time
/// (the filter's planes, [`DepthwiseConv2dS16::filter`]), the window walked once per four with
/// the sums in registers. Each product is at most 2^22 in magnitude, so a row of at most 511 taps
/// sums exactly in 32 bits; the rows' sums are added in 64 bits, or, where
/// [`DepthwiseConv2dS16::sums32`] proves the whole window and bias fit, in 32, then requantized
/// by one rounded high multiply where the shift allows.
#[cfg_attr(target_os = "none", inline(never))]
pub fn depthwise_conv2d_s16(arena: &mut [u8], input: usize, output: usize, p: &DepthwiseConv2dS16) {
    let p = super::opaque(p);
    check_shapes(p.input_c, p.depth_multiplier, p.output_c);
    let (ic, dm) = (p.input_c, p.depth_multiplier);
    let image = p.input_h * p.input_w * ic;
    let out_len = 2 * p.batches * p.output_h * p.output_w * p.output_c;
    let (inp, out) = views::split(arena, input, 2 * p.batches * image, output, out_len);
    let plane = p.filter_h * p.filter_w * ic;
    let filter = p.filter.at(..dm * plane);
    let bias = p.bias.map(|b| b.at(..p.output_c));
    let (multipliers, shifts) = (p.multipliers.at(..p.output_c), p.shifts.at(..p.output_c));
    let act = (p.act_min, p.act_max);
    // Bytes between a row's taps in the input.
    let x_step = 2 * p.dilation_w * ic;
    for_each_pixel!(p, |b, w, o| {
        let image = inp.at(2 * b * image..).at(..2 * image);
        let out_px = out.at_mut(2 * o * p.output_c..).at_mut(..2 * p.output_c);
        let (rows, cols) = (w.ky.1 - w.ky.0, w.kx.1 - w.kx.0);
        // The window in one pass where its sums are exact in 32 bits (at most 511 products of
        // at most 2^22, or the generation-time bound); otherwise row by row, in parts of 511.
        let one_pass = p.sums32 || rows * cols <= EXACT_S16_TAPS;
        let part = cols.min(EXACT_S16_TAPS);
        for (m, plane) in filter.chunks_exact(plane).enumerate() {
            let mut c0 = 0;
            while c0 < ic {
                let n = 4.min(ic - c0);
                let mut total = [0i64; 4];
                let mut acc = [0i32; 4];
                if one_pass && n == 4 && rows * cols > 0 {
                    let (y, x) = (
                        coord(w.y0, w.ky.0, p.dilation_h),
                        coord(w.x0, w.kx.0, p.dilation_w),
                    );
                    let xs = image.at(2 * ((y * p.input_w + x) * ic + c0)..);
                    let ws = plane.at((w.ky.0 * p.filter_w + w.kx.0) * ic + c0..);
                    let x_row = 2 * p.dilation_h * p.input_w * ic;
                    mac4_window_s16(
                        &mut acc,
                        (xs, x_step, x_row),
                        (ws, ic, p.filter_w * ic),
                        (rows, cols),
                    );
                } else {
                    for ky in w.ky.0..w.ky.1 {
                        let y = coord(w.y0, ky, p.dilation_h);
                        let mut kx = w.kx.0;
                        while kx < w.kx.1 {
                            let len = part.min(w.kx.1 - kx);
                            let x = coord(w.x0, kx, p.dilation_w);
                            let xs = image.at(2 * ((y * p.input_w + x) * ic + c0)..);
                            let ws = plane.at((ky * p.filter_w + kx) * ic + c0..);
                            mac_taps_s16(acc.at_mut(..n), (xs, x_step), (ws, ic), len);
                            if !one_pass {
                                add_to_totals(&mut total, &mut acc);
                            }
                            kx += len;
                        }
                    }
                }
                if !p.sums32 {
                    add_to_totals(&mut total, &mut acc);
                }
                for j in 0..n {
                    let c = (c0 + j) * dm + m;
                    let bias = bias.map_or(0, |b| b[c]);
                    let v = if p.sums32 {
                        // The sum and bias fit 32 bits (generation-time bound): exact.
                        let sum = acc[j].wrapping_add(bias as i32);
                        requantize_16x8_narrow(sum, multipliers[c], shifts[c], act)
                    } else {
                        let sum = total[j].wrapping_add(bias);
                        requantize_16x8(sum, multipliers[c], shifts[c], act)
                    };
                    out_px[2 * c..][..2].copy_from_slice(&v.to_le_bytes());
                }
                c0 += n;
            }
        }
    });
}

/// How many int8 × int16 products (each at most 2^22 in magnitude) a 32-bit sum holds exactly.
const EXACT_S16_TAPS: usize = 511;

/// Adds the 32-bit sums to the 64-bit totals and clears them.
#[inline(always)]
fn add_to_totals(total: &mut [i64], acc: &mut [i32]) {
    for (t, a) in total.iter_mut().zip(acc) {
        *t += i64::from(*a);
        *a = 0;
    }
}

/// float32 DEPTHWISE_CONV_2D, accumulating each channel in TFLM's order (filter y, filter x), then
/// adding the bias and clamping. Reads `4 * batches * input_h * input_w * input_c` bytes at `input`,
/// writes `4 * batches * output_h * output_w * output_c` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn depthwise_conv2d_f32(arena: &mut [u8], input: usize, output: usize, p: &DepthwiseConv2dF32) {
    let p = super::opaque(p);
    check_shapes(p.input_c, p.depth_multiplier, p.output_c);
    let image = p.input_h * p.input_w * p.input_c;
    let out_len = 4 * p.batches * p.output_h * p.output_w * p.output_c;
    let (inp, out) = views::split(arena, input, 4 * p.batches * image, output, out_len);
    let filter = p.filter.at(..p.filter_h * p.filter_w * p.output_c);
    let bias = p.bias.map(|b| b.at(..p.output_c));
    let dm = p.depth_multiplier;
    for_each_pixel!(p, |b, w, o| {
        let out_px = out.at_mut(4 * o * p.output_c..).at_mut(..4 * p.output_c);
        let mut c0 = 0;
        while c0 < p.output_c {
            let n = BLOCK.min(p.output_c - c0);
            let mut acc = [0f32; BLOCK];
            let acc = acc.at_mut(..n);
            for ky in w.ky.0..w.ky.1 {
                let y = coord(w.y0, ky, p.dilation_h);
                for kx in w.kx.0..w.kx.1 {
                    let x = coord(w.x0, kx, p.dilation_w);
                    let px = inp
                        .at(4 * ((b * p.input_h + y) * p.input_w + x) * p.input_c..)
                        .at(..4 * p.input_c);
                    let taps = filter
                        .at((ky * p.filter_w + kx) * p.output_c + c0..)
                        .at(..n);
                    for_each_run(c0, n, dm, |i, range| {
                        let x = f32::from_le_bytes([
                            px[4 * i],
                            px[4 * i + 1],
                            px[4 * i + 2],
                            px[4 * i + 3],
                        ]);
                        for (a, &t) in acc[range.clone()].iter_mut().zip(&taps[range]) {
                            *a += x * t;
                        }
                    });
                }
            }
            for (j, (&a, o)) in acc
                .iter()
                .zip(out_px[4 * c0..4 * (c0 + n)].chunks_exact_mut(4))
                .enumerate()
            {
                let v = clamp_f32(
                    a + bias.map_or(0.0, |bias| bias[c0 + j]),
                    p.act_min,
                    p.act_max,
                );
                o.copy_from_slice(&v.to_le_bytes());
            }
            c0 += n;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params<'a>(filter: &'a [i8], dm: usize) -> DepthwiseConv2dS8<'a> {
        DepthwiseConv2dS8 {
            batches: 1,
            input_h: 2,
            input_w: 2,
            input_c: 1,
            output_h: 2,
            output_w: 2,
            output_c: dm,
            filter_h: 2,
            filter_w: 2,
            depth_multiplier: dm,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            input_zero_point: 1,
            output_zero_point: -5,
            filter,
            bias: None,
            multipliers: &[1 << 30, 1 << 30],
            shifts: &[1, 1],
            act_min: -128,
            act_max: 127,
            narrow_requant: false,
        }
    }

    /// 1x2x2x1 input, 2x2 filter, depth multiplier 2, SAME padding (extra row/column at the
    /// bottom/right, so pad_top = pad_left = 0).
    #[test]
    fn s8_depth_multiplier_two_same_padding() {
        let mut arena = [0u8; 12];
        for (a, x) in arena.iter_mut().zip([2i8, 3, 4, 5]) {
            *a = x as u8;
        }
        // Filter [1, 2, 2, 2]: channel 0 all ones, channel 1 = [1, -1; 0, 2].
        let filter = [1, 1, 1, -1, 1, 0, 1, 2];
        depthwise_conv2d_s8(&mut arena, 0, 4, &params(&filter, 2));
        // x - zp = [1, 2; 3, 4]. Pixel (0,0): ch0 1+2+3+4 = 10, ch1 1-2+0+8 = 7.
        // (0,1): ch0 2+4 = 6, ch1 2+0 = 2. (1,0): ch0 3+4 = 7, ch1 3-4 = -1. (1,1): 4, 4.
        // Multiplier 1.0 (0.5 << 1), zp -5.
        let out: [i8; 8] = core::array::from_fn(|i| arena[4 + i] as i8);
        assert_eq!(out, [5, 2, 1, -3, 2, -6, -1, -1]);
    }

    #[test]
    fn s8_bias_and_activation() {
        let mut arena = [0u8; 8];
        for (a, x) in arena.iter_mut().zip([2i8, 3, 4, 5]) {
            *a = x as u8;
        }
        let filter = [1, 1, 1, 1];
        let mut p = params(&filter, 1);
        p.bias = Some(&[100]);
        p.act_min = -4;
        p.act_max = 100;
        depthwise_conv2d_s8(&mut arena, 0, 4, &p);
        let out: [i8; 4] = core::array::from_fn(|i| arena[4 + i] as i8);
        // (10 + 100) - 5 = 105 → 100; (6 + 100) - 5 = 101 → 100; 102 → 100; 99.
        assert_eq!(out, [100, 100, 100, 99]);
    }

    /// The int16 kernel on the s8 test's shape: depth multiplier 2, SAME padding; the product
    /// `(acc * 0x4000 + 2^14) >> 15` halves the sums rounding half up, as TFLM's 64-bit
    /// requantization does.
    #[test]
    fn s16_depth_multiplier_two_rounds_half_up() {
        let mut arena = [0u8; 24];
        for (a, x) in arena.chunks_exact_mut(2).zip([100i16, -200, 300, 400]) {
            a.copy_from_slice(&x.to_le_bytes());
        }
        for sums32 in [false, true] {
            let p = DepthwiseConv2dS16 {
                batches: 1,
                input_h: 2,
                input_w: 2,
                input_c: 1,
                output_h: 2,
                output_w: 2,
                output_c: 2,
                filter_h: 2,
                filter_w: 2,
                depth_multiplier: 2,
                stride_h: 1,
                stride_w: 1,
                dilation_h: 1,
                dilation_w: 1,
                pad_top: 0,
                pad_left: 0,
                // Plane 0 (channel 0) all ones, plane 1 (channel 1) = [1, -1; 0, 2].
                filter: &[1, 1, 1, 1, 1, -1, 0, 2],
                bias: Some(&[0, 1]),
                multipliers: &[0x4000, 0x4000],
                shifts: &[15, 15],
                act_min: -32768,
                act_max: 500,
                sums32,
            };
            depthwise_conv2d_s16(&mut arena, 0, 8, &p);
            let out: [i16; 8] =
                core::array::from_fn(|i| i16::from_le_bytes([arena[8 + 2 * i], arena[9 + 2 * i]]));
            // Sums (channel 0, channel 1 + bias 1) per pixel: (600, 1101), (200, -199), (700,
            // -99), (400, 401); halved half up: 551 clamps to 500, -99.5 -> -99, -49.5 -> -49,
            // 200.5 -> 201.
            assert_eq!(out, [300, 500, 100, -99, 350, -49, 200, 201], "{sums32}");
        }
    }

    /// A window of 600 taps of extreme products (2^22 each): the 32-bit sums are added to the
    /// 64-bit totals before they overflow, so the sums stay exact past 2^31 as TFLM's.
    #[test]
    fn s16_sums_beyond_32_bits_stay_exact() {
        extern crate std;
        let taps = 600;
        let mut arena = std::vec![0u8; 2 * taps + 4];
        for a in arena[..2 * taps].chunks_exact_mut(2) {
            a.copy_from_slice(&i16::MIN.to_le_bytes());
        }
        // Plane 0 (channel 0) all -128, plane 1 (channel 1) all 127.
        let filter: std::vec::Vec<i8> = (0..2 * taps)
            .map(|i| if i < taps { -128 } else { 127 })
            .collect();
        let p = DepthwiseConv2dS16 {
            batches: 1,
            input_h: 1,
            input_w: taps,
            input_c: 1,
            output_h: 1,
            output_w: 1,
            output_c: 2,
            filter_h: 1,
            filter_w: taps,
            depth_multiplier: 2,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            filter: &filter,
            bias: None,
            multipliers: &[1, 1],
            shifts: &[20, 20],
            act_min: -32768,
            act_max: 32767,
            sums32: false,
        };
        depthwise_conv2d_s16(&mut arena, 0, 2 * taps, &p);
        let out: [i16; 2] = core::array::from_fn(|i| {
            i16::from_le_bytes([arena[2 * taps + 2 * i], arena[2 * taps + 2 * i + 1]])
        });
        // 600 * 2^22 = 2,516,582,400 and 600 * 127 * -32768 = -2,496,921,600, over 2^20 rounded
        // half up.
        assert_eq!(out, [2400, -2381]);
    }

    /// The int16 kernel against TFLM's loop restated, across blocks of four channels and a last
    /// shorter one, with and without a depth multiplier, both sums, with padding, strides and
    /// dilations, extreme inputs and a bias.
    #[test]
    fn s16_matches_the_reference_loop() {
        extern crate std;
        use std::vec::Vec;
        let (h, w, f) = (5usize, 6usize, 3usize);
        for (c, dm, dilation, pad, stride) in [(12, 3, 1, 1, 2), (40, 1, 2, 2, 1), (3, 2, 1, 0, 1)]
        {
            let oc = c * dm;
            let input: Vec<i16> = (0..h * w * c)
                .map(|i| match i % 7 {
                    0 => i16::MIN,
                    1 => i16::MAX,
                    _ => ((i * 7919 + 13) % 65536) as u16 as i16,
                })
                .collect();
            let filter: Vec<i8> = (0..f * f * oc)
                .map(|i| ((i * 29 + 3) % 256) as u8 as i8)
                .collect();
            let bias: Vec<i64> = (0..oc).map(|ch| ch as i64 * 100_003 - 1_500_000).collect();
            let multipliers: Vec<i32> = (0..oc).map(|ch| 0x4000 + 97 * ch as i32).collect();
            // Right shifts within 16..=32 take the narrow requantization's high multiply, the
            // others its 64-bit path.
            let shifts: Vec<i8> = (0..oc).map(|ch| [18, 12, 33, 21, 16, 32][ch % 6]).collect();
            // The kernel's planes: output channel ic * dm + m at [m, tap, ic].
            let planes: Vec<i8> = (0..f * f * oc)
                .map(|i| {
                    let (m, t, ic) = (i / (f * f * c), i / c % (f * f), i % c);
                    filter[t * oc + ic * dm + m]
                })
                .collect();
            let oh = (h + 2 * pad - dilation * (f - 1) - 1) / stride + 1;
            let ow = (w + 2 * pad - dilation * (f - 1) - 1) / stride + 1;
            // 9 taps of at most 2^22 and a bias below 2^21 fit 32 bits: both sums apply.
            for sums32 in [false, true] {
                let p = DepthwiseConv2dS16 {
                    batches: 1,
                    input_h: h,
                    input_w: w,
                    input_c: c,
                    output_h: oh,
                    output_w: ow,
                    output_c: oc,
                    filter_h: f,
                    filter_w: f,
                    depth_multiplier: dm,
                    stride_h: stride,
                    stride_w: stride,
                    dilation_h: dilation,
                    dilation_w: dilation,
                    pad_top: pad,
                    pad_left: pad,
                    filter: &planes,
                    bias: Some(&bias),
                    multipliers: &multipliers,
                    shifts: &shifts,
                    act_min: -30000,
                    act_max: 31000,
                    sums32,
                };
                let n = 2 * h * w * c;
                let mut arena = std::vec![0u8; n + 2 * oh * ow * oc];
                for (a, v) in arena.chunks_exact_mut(2).zip(&input) {
                    a.copy_from_slice(&v.to_le_bytes());
                }
                depthwise_conv2d_s16(&mut arena, 0, n, &p);
                for oy in 0..oh {
                    for ox in 0..ow {
                        for ch in 0..oc {
                            let mut acc = 0i64;
                            for ky in 0..f {
                                for kx in 0..f {
                                    let y = (oy * stride + ky * dilation) as isize - pad as isize;
                                    let x = (ox * stride + kx * dilation) as isize - pad as isize;
                                    if y < 0 || x < 0 || y >= h as isize || x >= w as isize {
                                        continue;
                                    }
                                    let v = input[(y as usize * w + x as usize) * c + ch / dm];
                                    acc +=
                                        i64::from(filter[(ky * f + kx) * oc + ch]) * i64::from(v);
                                }
                            }
                            acc += bias[ch];
                            let s = u32::from(shifts[ch] as u8);
                            let scaled = (acc * i64::from(multipliers[ch]) + (1 << (s - 1))) >> s;
                            let want = (scaled as i32).clamp(-30000, 31000);
                            let at = n + 2 * ((oy * ow + ox) * oc + ch);
                            let got = i16::from_le_bytes([arena[at], arena[at + 1]]);
                            assert_eq!(i32::from(got), want, "{c} {dm} {sums32} {oy} {ox} {ch}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn f32_matches_hand_sum() {
        let mut arena = [0u8; 32];
        for (i, v) in [1.0f32, 2.0, 3.0, 4.0].iter().enumerate() {
            arena[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let p = DepthwiseConv2dF32 {
            batches: 1,
            input_h: 2,
            input_w: 2,
            input_c: 1,
            output_h: 2,
            output_w: 2,
            output_c: 1,
            filter_h: 2,
            filter_w: 2,
            depth_multiplier: 1,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            filter: &[1.0, 0.5, -1.0, 2.0],
            bias: Some(&[0.25]),
            act_min: -1.0,
            act_max: 6.0,
        };
        depthwise_conv2d_f32(&mut arena, 0, 16, &p);
        let out: [f32; 4] = core::array::from_fn(|i| {
            f32::from_le_bytes(arena[16 + 4 * i..20 + 4 * i].try_into().unwrap())
        });
        // (0,0): 1 + 1 - 3 + 8 + 0.25 = 7.25 → 6; (0,1): 2 - 4 + 0.25 = -1.75 → -1;
        // (1,0): 3 + 2 + 0.25 = 5.25; (1,1): 4 + 0.25 = 4.25.
        assert_eq!(out, [6.0, -1.0, 5.25, 4.25]);
    }

    #[test]
    fn s8_blocks_split_inside_a_multiplier_group() {
        // 1x2x2x12 input, multiplier 3: 36 output channels, so the 32-channel block boundary falls
        // inside input channel 10's group. 2x2 filter, VALID: one output pixel.
        let input: [i8; 48] = core::array::from_fn(|i| ((i * 71 + 5) % 256) as u8 as i8);
        let filter: [i8; 144] = core::array::from_fn(|i| ((i * 37 + 1) % 256) as u8 as i8);
        let multipliers = [1 << 30; 36];
        let shifts = [-6; 36];
        let p = DepthwiseConv2dS8 {
            batches: 1,
            input_h: 2,
            input_w: 2,
            input_c: 12,
            output_h: 1,
            output_w: 1,
            output_c: 36,
            filter_h: 2,
            filter_w: 2,
            depth_multiplier: 3,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            input_zero_point: 7,
            output_zero_point: -1,
            filter: &filter,
            bias: None,
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: -128,
            act_max: 127,
            narrow_requant: false,
        };
        let mut arena = [0u8; 84];
        for (a, &v) in arena.iter_mut().zip(&input) {
            *a = v as u8;
        }
        depthwise_conv2d_s8(&mut arena, 0, 48, &p);
        for oc in 0..36 {
            let acc: i32 = (0..4)
                .map(|tap| {
                    i32::from(filter[tap * 36 + oc]) * (i32::from(input[tap * 12 + oc / 3]) - 7)
                })
                .sum();
            let want = (crate::math::multiply_by_quantized_multiplier(acc, 1 << 30, -6) - 1)
                .clamp(-128, 127);
            assert_eq!(i32::from(arena[48 + oc] as i8), want, "channel {oc}");
        }
    }

    /// Without a depth multiplier: windows wholly in the image take the full tap table, windows
    /// cut by the border a table of their in-image taps (four channels at a time), the last
    /// channels the blocks; all against TFLM's loop restated, with padding (down to windows with
    /// no tap in the image), stride 1 and 2, dilation 1 and 2, and the short requantization with
    /// a bias and the general one without.
    #[test]
    fn s8_tap_table_and_blocks_match_the_reference_loop() {
        extern crate std;
        use std::vec::Vec;
        let (h, w, c, f) = (5usize, 6usize, 6usize, 3usize);
        let input: Vec<i8> = (0..h * w * c)
            .map(|i| ((i * 53 + 7) % 256) as u8 as i8)
            .collect();
        let filter: Vec<i8> = (0..f * f * c)
            .map(|i| ((i * 29 + 3) % 256) as u8 as i8)
            .collect();
        let bias: Vec<i32> = (0..c).map(|ch| ch as i32 * 301 - 700).collect();
        let multipliers: Vec<i32> = (0..c)
            .map(|ch| 1_200_000_000 + ch as i32 * 50_000_000)
            .collect();
        let shifts: Vec<i8> = (0..c).map(|ch| -6 - (ch % 3) as i8).collect();
        for (dilation, pad, stride) in [(1, 1, 1), (2, 2, 1), (1, 1, 2), (1, 0, 2), (1, 3, 1)] {
            let oh = (h + 2 * pad - dilation * (f - 1) - 1) / stride + 1;
            let ow = (w + 2 * pad - dilation * (f - 1) - 1) / stride + 1;
            for narrow in [false, true] {
                let p = DepthwiseConv2dS8 {
                    batches: 1,
                    input_h: h,
                    input_w: w,
                    input_c: c,
                    output_h: oh,
                    output_w: ow,
                    output_c: c,
                    filter_h: f,
                    filter_w: f,
                    depth_multiplier: 1,
                    stride_h: stride,
                    stride_w: stride,
                    dilation_h: dilation,
                    dilation_w: dilation,
                    pad_top: pad,
                    pad_left: pad,
                    input_zero_point: -9,
                    output_zero_point: 4,
                    filter: &filter,
                    bias: if narrow { Some(&bias) } else { None },
                    multipliers: &multipliers,
                    shifts: &shifts,
                    act_min: -120,
                    act_max: 125,
                    narrow_requant: narrow,
                };
                let n = h * w * c;
                let mut arena = std::vec![0u8; n + oh * ow * c];
                for (a, &v) in arena.iter_mut().zip(&input) {
                    *a = v as u8;
                }
                depthwise_conv2d_s8(&mut arena, 0, n, &p);
                for oy in 0..oh {
                    for ox in 0..ow {
                        for ch in 0..c {
                            let mut acc = if narrow { bias[ch] } else { 0 };
                            for ky in 0..f {
                                for kx in 0..f {
                                    let y = (oy * stride + ky * dilation) as isize - pad as isize;
                                    let x = (ox * stride + kx * dilation) as isize - pad as isize;
                                    if y < 0 || x < 0 || y >= h as isize || x >= w as isize {
                                        continue;
                                    }
                                    let v = input[(y as usize * w + x as usize) * c + ch];
                                    acc += i32::from(filter[(ky * f + kx) * c + ch])
                                        * (i32::from(v) + 9);
                                }
                            }
                            let want = (crate::math::multiply_by_quantized_multiplier(
                                acc,
                                multipliers[ch],
                                shifts[ch].into(),
                            ) + 4)
                                .clamp(-120, 125);
                            let got = arena[n + (oy * ow + ox) * c + ch] as i8;
                            assert_eq!(i32::from(got), want, "{dilation} {narrow} {oy} {ox} {ch}");
                        }
                    }
                }
            }
        }
    }
}

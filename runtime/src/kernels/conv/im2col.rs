//! The int8 gathering CONV_2D of one group ([`conv2d_im2col_s8`], [`conv2d_im2col_pairs_s8`],
//! [`conv2d_im2col_gather_pairs_s8`]): each output pixel's window gathered (or, paired, widened) on
//! the stack, then multiplied with the filter rows as a matrix product, disjoint or streaming over
//! its input (module docs of [`super`]). The windows are in [`super::windows`].

use super::windows::{gather_window, stream_of, widen_windows, window_of};
use super::GATHER_ACC_RUN;
use crate::kernels::nn_common::wide::{pair_run, start_pairs, Widened, PAIRED, WIDE_CHANNELS};
use crate::kernels::nn_common::{
    dot4_interleaved_s8, dot4_interleaved_s8_outlined, dot_s8, Requantizer,
};
#[cfg(tinyaot_mve)]
use crate::kernels::nn_common::{gather_pixel_s8, GatherWindow};
use crate::kernels::Within;

/// Constant parameters of [`conv2d_im2col_s8`]: an int8 CONV_2D with one group whose window
/// (`filter_h * filter_w * input_c` bytes) fits [`crate::kernels::IM2COL_MAX`].
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
    /// Filter weights, the rows of `[output_c, filter_h, filter_w, input_c]` (zero point 0) re-laid
    /// out at generation time as [`Conv1x1S8::filter`](super::Conv1x1S8::filter)'s, each row a
    /// whole window (for [`conv2d_im2col_gather_pairs_s8`], the window rounded up to whole words,
    /// the padding weights zero).
    pub filter: &'a [i8],
    /// Per-output-channel bias with the input zero point folded in at generation time, as
    /// [`Conv1x1S8::folded_bias`](super::Conv1x1S8::folded_bias): taps outside the image are
    /// gathered as the input zero point, so every tap of the window is multiplied and the sums are
    /// equal.
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

/// One output pixel of [`im2col_one_pixel`]: its window (the in-image taps `ky0..ky1`,
/// `kx0..kx1` from `y0`, `x0`) gathered from the batch's image at `origin` in `image` (see
/// [`gather_window`]) into `window`, then its output bytes (the next of `out_px`) in runs of
/// `run_len` sums in `acc`, each then requantized.
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
        // Helium: the gathered window is a 1×1 pixel of k channels, summed and requantized in
        // one loop (narrow requantization, rows in whole words, channels in fours).
        #[cfg(tinyaot_mve)]
        if $p.narrow_requant && $blocked == $out_px.len() {
            let operands = ($bias, $p.multipliers, $p.shifts);
            let clamp = ($p.output_zero_point, $p.act_min, $p.act_max);
            if crate::kernels::nn_common::pointwise_pixel_s8(
                $window, $blocks, operands, clamp, $out_px,
            ) {
                continue;
            }
        }
        let (px_blocks, px_rest) = $out_px.cut_mut($blocked);
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
/// `o1`: both `windows` (see [`Window`](super::windows::Window); their image offsets in `inp`)
/// gathered into `bytes` and widened from there (`gathered`), or widened straight from `inp` a
/// tap's words at a time, in chunks of `N` bytes (once per pair when the window fits one chunk,
/// `single`; once per run of channels otherwise); then each run of `RUN` channels' sums in `acc`,
/// requantized.
macro_rules! im2col_pair {
    (
        $gathered:ident, $windows:ident, $inp:ident, $p:ident,
        $bytes:ident, $k:ident, $wide:ident, $single:ident, $blocks:ident, $bias:ident, $acc:ident,
        $twin:ident, $q:ident, $o0:ident, $o1:ident, $dropped:ident, $requantizer:ident
    ) => {{
        if $gathered {
            for (&(image, ys, xs), $bytes) in $windows.iter().zip(&mut $bytes) {
                gather_window($inp, image, $p, (ys, xs), &mut $bytes[..$k]);
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
    let p = crate::kernels::opaque(p);
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
    let c = p.input_c;
    let m = p.output_c;
    assert!(
        k > 0 && k >= p.filter_h * p.filter_w * c && k <= crate::kernels::IM2COL_MAX && m > 0,
        "im2col window empty or larger than IM2COL_MAX"
    );
    assert!(
        (-128..=127).contains(&p.input_zero_point),
        "input zero point out of int8 range"
    );
    let blocked = m - m % 4;
    let (blocks, rest) = p.filter[..m * k].cut(blocked * k);
    let bias = p.folded_bias.at(..m);
    #[cfg(tinyaot_dsp)]
    crate::kernels::nn_common::check_word_aligned(blocks);
    let requantizer = biased_requantizer!(p, m);
    let mut buffer = [0u8; crate::kernels::IM2COL_MAX];
    let window = buffer.at_mut(..k);
    let mut acc = [0i32; GATHER_ACC_RUN / 2];
    let run_len = acc.len();
    let plane = p.output_h * p.output_w;
    // Helium: the windows wholly in the image gathered straight from it, the whole pixel in one
    // loop (`nn_common::mve::gather_pixel_s8`), where the window's offsets fit its table.
    #[cfg(tinyaot_mve)]
    let gather = if p.narrow_requant && blocked == m {
        GatherWindow::new(
            (p.filter_h, p.filter_w, c),
            (p.dilation_h, p.dilation_w),
            p.input_w * c,
            k,
        )
    } else {
        None
    };
    // Disjoint operands are one group of every pixel, overlapping ones (the stream contract)
    // runs of groups of two or a group alone, each on its own views (`views::Stream::groups`):
    // one copy of the pixel loop serves both.
    stream_of(p).groups::<2>(arena, (input, output), |inp, from, out, pixels| {
        let mut out_px = out.chunks_exact_mut(m);
        for q in pixels {
            let (image, (ky0, ky1, y0), (kx0, kx1, x0)) = window_of(p, plane, q);
            // The view starts `from` bytes into the input: the batch's image starts at this
            // offset in it (wrapping when before it).
            let (image, origin) = (inp, image.wrapping_sub(from));
            // One output chunk per pixel, by the output's length (views::split).
            let Some(px) = out_px.next() else { return };
            #[cfg(tinyaot_mve)]
            if let Some(table) = &gather {
                if (ky0, ky1, kx0, kx1) == (0, p.filter_h, 0, p.filter_w) {
                    // Wholly in the image: y0, x0 >= 0.
                    let first = origin.wrapping_add((y0 as usize * p.input_w + x0 as usize) * c);
                    if let Some(x) = image.get(first..) {
                        let operands = (bias, p.multipliers, p.shifts);
                        let clamp = (p.output_zero_point, p.act_min, p.act_max);
                        if gather_pixel_s8(x, table, blocks, operands, clamp, px) {
                            continue;
                        }
                    }
                }
            }
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
                px,
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

/// [`conv2d_im2col_s8`] for input channels in whole words and output channels in blocks of four
/// (the lowering chooses it then), two pixels at a time on ARMv7E-M: both pixels' windows are
/// widened straight from the image (no gathering buffer), then multiplied with the filter rows
/// two channels by two pixels per pass (`runtime/src/kernels/nn_common/wide.rs`) and requantized
/// together. Elsewhere it is [`conv2d_im2col_s8`]. Reads and writes as [`conv2d_im2col_s8`] (a
/// pair's windows, then both pixels' outputs), its output overlapping its input as that allows.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_im2col_pairs_s8(arena: &mut [u8], input: usize, output: usize, p: &Conv2dIm2colS8) {
    im2col_pairs_kernel(arena, (input, output), crate::kernels::opaque(p), false);
}

/// [`conv2d_im2col_pairs_s8`] for short windows whose input channels are not whole words (the
/// lowering chooses it for windows of at most half of
/// [`WIDE_CHANNELS`] bytes once rounded up to whole words, and output
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
    im2col_pairs_kernel(arena, (input, output), crate::kernels::opaque(p), true);
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
    if gathered {
        im2col_pairs::<GATHERED_MAX>(arena, (input, output), p, true);
    } else {
        im2col_pairs::<WIDE_CHANNELS>(arena, (input, output), p, false);
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

/// The longest window [`conv2d_im2col_gather_pairs_s8`] gathers: half of [`WIDE_CHANNELS`]
/// (see there).
pub(super) const GATHERED_MAX: usize = WIDE_CHANNELS / 2;

/// The filter rows' length in bytes for the paired gathering convolutions: the window's, rounded
/// up to whole words (the padding weights zero) when its input channels are not whole words.
fn padded_window(p: &Conv2dIm2colS8) -> usize {
    (p.filter_h * p.filter_w * p.input_c).next_multiple_of(4)
}

/// The pixels of [`conv2d_im2col_pairs_s8`] on the paired path, two at a time (an odd last
/// pixel paired with itself, its twin's outputs dropped): both windows widened a tap's words at a
/// time (taps outside the image as the input zero point), in chunks of `N` bytes (once per pair
/// when the window fits one chunk, once per run of channels otherwise). Disjoint operands are
/// one group of every pixel, overlapping ones (the stream contract) runs of groups of two pixels
/// or a group alone, each on its own views (`views::Stream::groups`): one copy of the loop
/// serves both.
#[cfg_attr(target_os = "none", inline(never))]
fn im2col_pairs<const N: usize>(
    arena: &mut [u8],
    operands: (usize, usize),
    p: &Conv2dIm2colS8,
    gathered: bool,
) {
    const RUN: usize = GATHER_ACC_RUN / 2;
    let (k, m) = (padded_window(p), p.output_c);
    check_paired(p, k, gathered);
    // The sums start from the biases: the requantizer adds none.
    let requantizer = biased_requantizer!(p, m);
    let (blocks, bias) = (p.filter.at(..m * k), p.folded_bias.at(..m));
    let single = k <= N;
    let plane = p.output_h * p.output_w;
    let pixels = p.batches * plane;
    let mut wide = Widened::<N>::new();
    let mut acc = [0i32; 2 * RUN];
    let mut dropped = [0u8; RUN];
    // Only used when gathering (a window then fits); the padding bytes stay zero.
    let mut bytes = [[0u8; GATHERED_MAX]; 2];
    stream_of(p).groups::<2>(arena, operands, |inp, from, out, group| {
        let mut q = group.start;
        while q < group.end {
            let twin = (q + 1).min(pixels - 1);
            // The images' offsets in the view, which starts `from` bytes into the input
            // (wrapping when before it).
            let windows = [window_of(p, plane, q), window_of(p, plane, twin)]
                .map(|(image, ys, xs)| (image.wrapping_sub(from), ys, xs));
            let (o0, o1) = out[(q - group.start) * m..].cut_mut(m);
            im2col_pair!(
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
    });
}

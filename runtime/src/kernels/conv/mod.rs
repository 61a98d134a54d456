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
//! refuse (panic) a plan that only kept the bytes from `min_read(2k)` on. Where the output lies
//! far enough from the input, a run of many groups takes one pair of views (the groups' pixels
//! in the same order), and disjoint operands are one group of every pixel: the same code serves
//! every case (`views::Stream::groups`). The other kernels need their output and input disjoint
//! (checked).
//!
//! The family's files, by variant: `s8.rs` the general int8 kernel, `pointwise.rs` the 1×1
//! kernels, `im2col.rs` the gathering ones (with the windows they gather in `windows.rs`), `s16.rs`
//! the int16 ones, `float.rs` the float32 one and `dynamic.rs` those of weights or a bias computed
//! at run time, each with its parameter struct. This module holds
//! what several of them share: the geometry checks and the run lengths of the gathering kernels.

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

/// The sums the 1×1 kernel gathers before requantizing them
/// ([`Requantizer::run`](crate::kernels::nn_common::Requantizer::run); two pixels' sums of half as
/// many channels on the paired path): a multiple of eight, on the stack (4 bytes each). Longer runs
/// mean fewer calls per pixel (measured with `cargo xtask mcu --profile`).
const ACC_RUN: usize = 64;

/// The channels whose sums the 1×1 kernel's one-pixel loop gathers before requantizing them
/// (fewer than the paired path's: zeroing its buffer costs every call, one-pixel layers included).
const ONE_PIXEL_RUN: usize = 16;

/// [`ACC_RUN`] for the gathering kernels, whose stack also holds a window (one-pixel) or a larger
/// widened chunk (paired): half as many.
const GATHER_ACC_RUN: usize = ACC_RUN / 2;

// Declared after the macros above, which are in scope in these modules only from there on.
mod dynamic;
mod float;
mod im2col;
mod pointwise;
mod s16;
mod s8;
#[cfg(test)]
mod tests;
mod windows;

pub use dynamic::{
    conv2d_dyn_acc32_s16, conv2d_dyn_f32, conv2d_dyn_s16, conv2d_dyn_s8, conv2d_dyn_w4_s8,
    depthwise_conv2d_dyn_f32, depthwise_conv2d_dyn_s16, depthwise_conv2d_dyn_s8,
    depthwise_conv2d_dyn_w4_s8, Conv2dDyn, Conv2dDynF32, DepthwiseConv2dDyn, DepthwiseConv2dDynF32,
};
pub use float::{conv2d_f32, Conv2dF32};
pub use im2col::{
    conv2d_im2col_gather_pairs_s8, conv2d_im2col_pairs_s8, conv2d_im2col_s8, Conv2dIm2colS8,
};
pub use pointwise::{conv2d_1x1_s8, conv2d_1x1_widened_s8, Conv1x1S8};
pub use s16::{
    conv2d_1x1_s16, conv2d_im2col_s16, conv2d_pairs_s16, conv2d_s16, Conv1x1S16, Conv2dIm2colS16,
    Conv2dS16, ConvPairsS16, CONV_1X1_S16_MAX_DEPTH,
};
pub use s8::{conv2d_s8, Conv2dS8};

//! The int8 fast kernels of the family (`conv::conv2d_1x1_s8` and its widened twin, the
//! gathering `conv::conv2d_im2col_*_s8`): their filter rows interleaved and their bias folded with
//! the input zero point at generation time, the check that allows the short requantization, and
//! which kernel a convolution takes.

use super::super::{in_out, kernel, Kernel};
use super::{window_stream, ConvQuant, Geometry};
use crate::error::{Grounds, Result};
use crate::lower::params::conv as P;
use crate::lower::params::WIDE_CHANNELS;
use crate::lower::{Access, Data, OpContext, Stream, CONSTANT_SHORTER_THAN_SHAPE};

/// The int8 weights of a constant filter whose `channels` output channels lead its layout, as
/// `channels` rows of equal length.
pub(in crate::lower::ops) fn filter_rows<'m>(
    ctx: &OpContext,
    filter: &crate::ir::Tensor<'m>,
    channels: usize,
) -> Result<(Vec<i8>, usize)> {
    let row = filter.num_elements() / channels.max(1);
    let bytes = filter
        .data
        .as_deref()
        .and_then(|d| d.get(..channels * row))
        .ok_or_else(|| {
            ctx.invalid(
                "filter has fewer bytes than its shape needs",
                Grounds::undefined(CONSTANT_SHORTER_THAN_SHAPE),
            )
        })?;
    Ok((bytes.iter().map(|&b| b as i8).collect(), row))
}

/// The values of an optional int32 bias (zeros for `channels` channels without one), read at
/// generation time.
pub(in crate::lower::ops) fn bias_values(
    ctx: &OpContext,
    bias: Option<&Data<i32>>,
    channels: usize,
) -> Result<Vec<i32>> {
    Ok(match bias {
        None => vec![0; channels],
        Some(Data::Values(v) | Data::Packed(v)) => v.clone(),
        Some(Data::Tensor(t)) => ctx.const_i32s("bias", &ctx.graph().tensors[*t])?,
    })
}

/// `bias[c] - input_zero_point * Σ filter[c]` for each row of an int8 filter (wrapping, as the
/// kernels' sums do), so that a kernel whose taps are all in the image can multiply the raw
/// inputs: `Σ w (x - zp) + bias = Σ w x + (bias - zp Σ w)`.
pub(in crate::lower::ops) fn folded_bias(
    ctx: &OpContext,
    (weights, row): (&[i8], usize),
    bias: Option<&Data<i32>>,
    input_zero_point: i32,
    channels: usize,
) -> Result<Vec<i32>> {
    let bias = bias_values(ctx, bias, channels)?;
    Ok(weights
        .chunks_exact(row.max(1))
        .chain(core::iter::repeat(&[][..]))
        .zip(bias)
        .map(|(row, b)| {
            let sum = row.iter().fold(0i32, |s, &w| s.wrapping_add(i32::from(w)));
            b.wrapping_sub(input_zero_point.wrapping_mul(sum))
        })
        .collect())
}

/// Whether a kernel may take the short requantization (the runtime's `narrow_requant`): every
/// shift is a right shift, and for every channel `max_input * Σ|w| + |bias|` stays below 2^30,
/// so that no input can bring the accumulator plus bias to 2^30 in magnitude; and the output's
/// zero point and activation range `(zero_point, min, max)` lie within int8, as the runtime's
/// clamp by saturation needs (int8 outputs always have them there).
pub(in crate::lower::ops) fn narrow_requant(
    shifts: &Data<i8>,
    rows: impl Iterator<Item = (i64, i64)>,
    max_input: i64,
    (zero_point, min, max): (i32, i32, i32),
) -> bool {
    let Data::Values(shifts) = shifts else {
        return false;
    };
    let int8 = -128..=127;
    int8.contains(&zero_point)
        && int8.contains(&min)
        && int8.contains(&max)
        && min <= max
        && shifts.iter().all(|&s| s <= -1)
        && rows
            .map(|(weight_abs_sum, bias)| max_input * weight_abs_sum + bias.abs())
            .all(|bound| bound < 1 << 30)
}

/// `(Σ|w|, bias)` for each row of an int8 filter with the folded bias of that row.
pub(in crate::lower::ops) fn folded_rows<'a>(
    (weights, row): (&'a [i8], usize),
    folded: &'a [i32],
) -> impl Iterator<Item = (i64, i64)> + 'a {
    weights
        .chunks_exact(row.max(1))
        .map(|r| r.iter().map(|&w| i64::from(w).abs()).sum::<i64>())
        .zip(folded.iter().map(|&b| i64::from(b)))
}

/// An int8 convolution's parameters for the kernels that multiply every tap (none skipped) and so
/// fold the input zero point into the bias: see [`fold`].
pub(in crate::lower::ops) struct Folded {
    pub input_zero_point: i32,
    pub output_zero_point: i32,
    pub filter: Data<i8>,
    pub bias: Vec<i32>,
    pub multipliers: Data<i32>,
    pub shifts: Data<i8>,
    pub act: (i32, i32),
    /// Whether the short requantization applies ([`narrow_requant`]).
    pub narrow: bool,
}

/// The [`Folded`] parameters of an int8 convolution with `quant`, whose filter has the rows
/// `(weights, row)`, one per output channel (re-laid out for the kernels by [`interleave_rows4`]).
/// Inputs reach the kernels raw (int8, at most 128 in magnitude), and taps outside the image are
/// gathered as the zero point, so the folded bias gives TFLM's sums.
pub(in crate::lower::ops) fn fold(
    ctx: &OpContext,
    quant: &ConvQuant,
    (weights, row): (Vec<i8>, usize),
) -> Result<Folded> {
    let ConvQuant::I8 {
        input_zero_point,
        output_zero_point,
        bias,
        multipliers,
        shifts,
        act_min,
        act_max,
        ..
    } = quant
    else {
        return Err(ctx.internal("a float convolution has no zero point to fold"));
    };
    let channels = weights.len() / row.max(1);
    let folded = folded_bias(
        ctx,
        (&weights, row),
        bias.as_ref(),
        *input_zero_point,
        channels,
    )?;
    let narrow = narrow_requant(
        shifts,
        folded_rows((&weights, row), &folded),
        128,
        (*output_zero_point, *act_min, *act_max),
    );
    Ok(Folded {
        input_zero_point: *input_zero_point,
        output_zero_point: *output_zero_point,
        filter: Data::Packed(interleave_rows4(&weights, row)),
        bias: folded,
        multipliers: multipliers.clone(),
        shifts: shifts.clone(),
        act: (*act_min, *act_max),
        narrow,
    })
}

/// The rows of an int8 filter (`row` bytes each) in the order the matrix-product kernels read
/// them (the runtime's `Conv1x1S8::filter`): each block of four rows as their 4-byte words
/// interleaved (word 0 of rows 0, 1, 2, 3, then word 1 of each, …), then the rows' last
/// `row % 4` bytes one row after another; the rows after the last whole block as they are. The
/// kernels then read a block through one pointer, 16 bytes per step.
pub(in crate::lower::ops) fn interleave_rows4(weights: &[i8], row: usize) -> Vec<i8> {
    let mut out = Vec::with_capacity(weights.len());
    let whole = row - row % 4;
    let mut blocks = weights.chunks_exact(4 * row.max(1));
    for block in blocks.by_ref() {
        for j in (0..whole).step_by(4) {
            for r in 0..4 {
                out.extend_from_slice(&block[r * row + j..][..4]);
            }
        }
        for r in 0..4 {
            out.extend_from_slice(&block[r * row + whole..][..row - whole]);
        }
    }
    out.extend_from_slice(blocks.remainder());
    out
}

/// `conv::conv2d_1x1_s8` for an int8 product of `pixels` rows of `input_c` channels into
/// `output_c` (a 1×1 convolution with stride 1 and no padding, or a FULLY_CONNECTED);
/// `conv::conv2d_1x1_widened_s8` (the same parameters) for one row of at least [`WIDENED_MIN`]
/// channels in whole words into at least two blocks of four.
pub(in crate::lower::ops) fn pointwise(
    ctx: &OpContext,
    (pixels, input_c, output_c): (usize, usize, usize),
    folded: Folded,
) -> Result<Kernel> {
    // One pixel (FULLY_CONNECTED) with whole words in and blocks of four out, at least two of
    // them (the widening then serves several blocks): widened once.
    let widened = pixels == 1
        && input_c % 4 == 0
        && output_c % 4 == 0
        && output_c >= 8
        && input_c >= WIDENED_MIN;
    // Pairs of pixels on Cortex-M (one pixel elsewhere, which keeps a pair's contract too); the
    // one-pixel-at-a-time kernel streams either way (the widened one forwards only, in C).
    let stream = Stream::pointwise(pixels, (input_c, output_c), 2);
    let k = kernel(
        if widened {
            "conv2d_1x1_widened_s8"
        } else {
            "conv2d_1x1_s8"
        },
        in_out(ctx)?,
        P::Conv1x1S8 {
            pixels,
            input_c,
            output_c,
            output_zero_point: folded.output_zero_point,
            filter: folded.filter,
            folded_bias: Data::Values(folded.bias),
            multipliers: folded.multipliers,
            shifts: folded.shifts,
            act_min: folded.act.0,
            act_max: folded.act.1,
            narrow_requant: folded.narrow,
        },
    );
    if ctx.input(0)?.num_elements() != pixels * input_c {
        // The stream contract describes an input of exactly the pixels read; a longer one (a
        // FULLY_CONNECTED reads only its first rows, as TFLM's) keeps the output apart instead.
        return Ok(k);
    }
    Ok(k.with_access(Access::Stream {
        input: ctx.input_index(0)?,
        output: ctx.output_index(0)?,
        stream: if widened { stream } else { stream.reversible() },
    }))
}

/// The fewest input channels for which [`pointwise`] widens a single pixel once
/// (`conv::conv2d_1x1_widened_s8`): below that, setting up the widened buffer costs more than the
/// blocks save (measured with `cargo xtask mcu`).
const WIDENED_MIN: usize = 32;

/// The fewest output channels for which [`im2col`] gathers windows whose channels are not whole
/// words into the paired kernel: below that, widening both windows costs more than the pairs save
/// (measured with `cargo xtask mcu --profile`).
const GATHERED_PAIRS_MIN_OUTPUTS: usize = 8;

/// `conv::conv2d_im2col_s8` for an int8 convolution of one group with `quant` whose input,
/// filter window `(height, width)` and output have these shapes and whose filter has the rows
/// `(weights, window)`, one per output channel; `conv::conv2d_im2col_pairs_s8` (two pixels at a
/// time on Cortex-M4, the same parameters) when its output channels are whole blocks of four and
/// its input channels whole words; `conv::conv2d_im2col_gather_pairs_s8` when its output channels
/// are whole blocks of four, at least [`GATHERED_PAIRS_MIN_OUTPUTS`], and its window short enough
/// to gather (at most half of [`WIDE_CHANNELS`] bytes once rounded up to whole words, its
/// rows then padded with zero weights).
pub(in crate::lower::ops) fn im2col(
    ctx: &OpContext,
    (i, (filter_h, filter_w), out): (&[usize], (usize, usize), &[usize]),
    g: &Geometry,
    quant: &ConvQuant,
    (weights, window): (Vec<i8>, usize),
) -> Result<Kernel> {
    let padded = window.next_multiple_of(4);
    let blocks = out[3] % 4 == 0;
    let paired = blocks && i[3] % 4 == 0;
    let gathered =
        blocks && !paired && padded <= WIDE_CHANNELS / 2 && out[3] >= GATHERED_PAIRS_MIN_OUTPUTS;
    let rows = if gathered {
        let rows = weights
            .chunks_exact(window.max(1))
            .flat_map(|r| {
                r.iter()
                    .copied()
                    .chain(std::iter::repeat_n(0, padded - window))
            })
            .collect();
        (rows, padded)
    } else {
        (weights, window)
    };
    let folded = fold(ctx, quant, rows)?;
    Ok(kernel(
        if gathered {
            "conv2d_im2col_gather_pairs_s8"
        } else if paired {
            "conv2d_im2col_pairs_s8"
        } else {
            "conv2d_im2col_s8"
        },
        in_out(ctx)?,
        P::Conv2dIm2colS8 {
            batches: i[0],
            input_h: i[1],
            input_w: i[2],
            input_c: i[3],
            output_h: out[1],
            output_w: out[2],
            output_c: out[3],
            filter_h,
            filter_w,
            stride_h: g.stride_h,
            stride_w: g.stride_w,
            dilation_h: g.dilation_h,
            dilation_w: g.dilation_w,
            pad_top: g.pad_top,
            pad_left: g.pad_left,
            input_zero_point: folded.input_zero_point,
            output_zero_point: folded.output_zero_point,
            filter: folded.filter,
            folded_bias: Data::Values(folded.bias),
            multipliers: folded.multipliers,
            shifts: folded.shifts,
            act_min: folded.act.0,
            act_max: folded.act.1,
            narrow_requant: folded.narrow,
        },
    )
    .with_access(Access::Stream {
        input: ctx.input_index(0)?,
        output: ctx.output_index(0)?,
        stream: window_stream((i, out), g, 2),
    }))
}

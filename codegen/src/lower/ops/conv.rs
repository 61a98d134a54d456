//! CONV_2D → `conv::conv2d_{s8,f32}`: shapes, padding, per-channel requantization, activation
//! range. The window geometry and the requantization are shared with DEPTHWISE_CONV_2D
//! ([`super::depthwise`]), which TFLM also derives from the same `ConvParams`.

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{Activation, DType, OpCode, Options, Padding};
use crate::lower::params::conv as P;
use crate::lower::params::WIDE_CHANNELS;
use crate::lower::types::Types;
use crate::lower::{quant, Access, Data, Num, OpContext, Stream};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::CONV_2D,
    types: Types::WEIGHTED,
    inputs: 2..=3,
    outputs: 1,
    lower: Lowering::Kernel(conv2d),
}];

/// What both convolutions share, from their options.
pub(super) struct Window {
    pub padding: Padding,
    pub stride: (usize, usize),
    pub dilation: (usize, usize),
    pub activation: Activation,
}

/// One spatial axis of a convolution: sizes, stride and dilation.
struct Axis {
    name: &'static str,
    input: usize,
    filter: usize,
    stride: usize,
    dilation: usize,
    output: usize,
}

/// Leading padding along one axis, after checking the model's output size against TFLM's.
fn padding(ctx: &OpContext, padding: Padding, a: Axis) -> Result<usize> {
    let expected = quant::output_size(padding, a.input, a.filter, a.stride, a.dilation);
    if expected != Some(a.output) {
        return Err(ctx.unsupported(format!(
            "output {} is {} but {padding:?} padding with input {}, filter {}, stride {}, dilation {} gives {expected:?}",
            a.name, a.output, a.input, a.filter, a.stride, a.dilation
        )));
    }
    Ok(quant::padding_before(
        a.stride, a.dilation, a.input, a.filter, a.output,
    ))
}

/// What both convolutions' parameter structs hold after their channel fields: strides,
/// dilations and padding.
pub(super) struct Geometry {
    pub filter_h: usize,
    pub filter_w: usize,
    pub stride_h: usize,
    pub stride_w: usize,
    pub dilation_h: usize,
    pub dilation_w: usize,
    pub pad_top: usize,
    pub pad_left: usize,
}

/// The [`Geometry`] of a convolution, checked as TFLM's Prepare checks it.
pub(super) fn geometry(
    ctx: &OpContext,
    w: &Window,
    input: &[usize],
    filter_hw: (usize, usize),
    output: &[usize],
) -> Result<Geometry> {
    if w.stride.0 == 0 || w.stride.1 == 0 || w.dilation.0 == 0 || w.dilation.1 == 0 {
        return Err(ctx.invalid(
            "strides and dilations must be at least 1",
            Grounds::undefined(
                "padding.h ComputeOutSize divides by the stride (division by zero); \
                 TFLM's window arithmetic takes positive dilations",
            ),
        ));
    }
    // TFLM's ConvParams hold strides and dilations as int16_t: larger values wrap.
    for (name, value) in [
        ("stride", w.stride.0),
        ("stride", w.stride.1),
        ("dilation", w.dilation.0),
        ("dilation", w.dilation.1),
    ] {
        ctx.fits_i16(name, value)?;
    }
    let pad_top = padding(
        ctx,
        w.padding,
        Axis {
            name: "height",
            input: input[1],
            filter: filter_hw.0,
            stride: w.stride.0,
            dilation: w.dilation.0,
            output: output[1],
        },
    )?;
    let pad_left = padding(
        ctx,
        w.padding,
        Axis {
            name: "width",
            input: input[2],
            filter: filter_hw.1,
            stride: w.stride.1,
            dilation: w.dilation.1,
            output: output[2],
        },
    )?;
    ctx.fits_i16("padding", pad_top)?;
    ctx.fits_i16("padding", pad_left)?;
    Ok(Geometry {
        filter_h: filter_hw.0,
        filter_w: filter_hw.1,
        stride_h: w.stride.0,
        stride_w: w.stride.1,
        dilation_h: w.dilation.0,
        dilation_w: w.dilation.1,
        pad_top,
        pad_left,
    })
}

/// The weights, requantization and activation range of a convolution, int8 or float.
pub(super) enum ConvQuant {
    /// Per-channel requantization.
    I8 {
        input_zero_point: i32,
        output_zero_point: i32,
        filter: Data<i8>,
        bias: Option<Data<i32>>,
        multipliers: Data<i32>,
        shifts: Data<i8>,
        act_min: i32,
        act_max: i32,
    },
    /// Float weights and clamp.
    F32 {
        filter: Data<f32>,
        bias: Option<Data<f32>>,
        act_min: f32,
        act_max: f32,
    },
}

/// Where a convolution's data input, filter and optional bias are among its inputs.
#[derive(Clone, Copy)]
pub(super) struct Inputs {
    pub input: usize,
    pub filter: usize,
    pub bias: usize,
}

/// CONV_2D's and DEPTHWISE_CONV_2D's inputs.
pub(super) const CONV_INPUTS: Inputs = Inputs {
    input: 0,
    filter: 1,
    bias: 2,
};

/// Type checks, requantization and activation range for an int8 or float convolution with inputs
/// `at`, whose output channels lie along `filter_axis` of the filter.
pub(super) fn weights_and_range(
    ctx: &OpContext,
    (num, at): (Num, Inputs),
    filter_axis: usize,
    channels: usize,
    activation: Activation,
) -> Result<ConvQuant> {
    let (input, filter, output) = (ctx.input(at.input)?, ctx.input(at.filter)?, ctx.output(0)?);
    let filter_index = ctx.constant_input(at.filter, "filter")?;
    match num {
        Num::I8 => {
            // INT4 weights: for `int4`'s kernels (`int4::check_uses` keeps them to the operators
            // whose lowering hands them there).
            if filter.dtype != DType::I4 {
                ctx.expect_dtype("filter", filter, DType::I8)?;
            }
            ctx.expect_output_dtype("the output", output, DType::I8)?;
            let (s_in, zp_in) = ctx.int8_quant("input", input)?;
            let (s_out, zp_out) = ctx.int8_quant("output", output)?;
            let scales = ctx.weight_scales(filter, channels, filter_axis)?;
            let (multipliers, shifts) =
                ctx.per_channel_multipliers(s_in, &scales, s_out, channels)?;
            let (act_min, act_max) = ctx.activation_range_s8(activation, s_out, zp_out)?;
            Ok(ConvQuant::I8 {
                input_zero_point: zp_in,
                output_zero_point: zp_out,
                filter: Data::Tensor(filter_index),
                bias: ctx.bias(at.bias, DType::I32, channels)?,
                multipliers: Data::Values(multipliers),
                shifts: Data::Values(shifts),
                act_min,
                act_max,
            })
        }
        Num::F32 => {
            if filter.dtype != DType::F32 {
                return Err(ctx.unsupported(format!(
                    "float input with {} filter (hybrid quantization) is not supported; supported: all-INT8 or all-FLOAT32",
                    filter.dtype
                )));
            }
            ctx.expect_output_dtype("the output", output, DType::F32)?;
            let (act_min, act_max) = ctx.activation_range_f32(activation)?;
            Ok(ConvQuant::F32 {
                filter: Data::Tensor(filter_index),
                bias: ctx.bias(at.bias, DType::F32, channels)?,
                act_min,
                act_max,
            })
        }
    }
}

/// The weights, bias and requantization of a convolution with int16 activations and int8 weights
/// (TFLM's "16x8"): see [`quant_16x8`].
pub(super) struct Quant16x8 {
    pub filter: Data<i8>,
    pub bias: Option<Data<i64>>,
    /// Multipliers reduced to 16 bits, as TFLM's 64-bit `MultiplyByQuantizedMultiplier` reduces
    /// them at every call; with `acc32`, the Q31 multipliers.
    pub multipliers: Data<i32>,
    /// Right shifts of the product, `15 - shift`; with `acc32`, TFLM's shifts.
    pub shifts: Data<i8>,
    pub act: (i32, i32),
    /// TFLM's 32-bit sums (CONV_2D with an INT32 bias, widened here, or none where the options
    /// ask for INT32 biases) and its 32-bit `MultiplyByQuantizedMultiplier`.
    pub acc32: bool,
}

/// How a 16x8 convolution's Eval in TFLM reads its bias, which differs per operator.
#[derive(Clone, Copy)]
pub(super) enum Bias16x8 {
    /// CONV_2D's: an INT64 bias gives 64-bit sums, an INT32 one 32-bit sums; without a bias the
    /// options' `quantized_bias_type` (if the model has options) decides, INT32 meaning 32-bit
    /// sums.
    ByType(Option<tinyaot_schema::tflite::TensorType>),
    /// TRANSPOSE_CONV's: an INT16 bias is widened; any other is read as INT64.
    WidenInt16,
    /// DEPTHWISE_CONV_2D's: any bias is read as INT64, whatever its declared type.
    Int64,
}

/// Type checks, requantization and activation range of a 16x8 convolution with inputs `at`,
/// whose output channels lie along `filter_axis` of the filter, its bias read as `bias` says.
///
/// TFLM's 16x8 convolutions apply no zero points, so nonzero ones are refused (TFLM would ignore
/// them). A 64-bit bias (or none) gives TFLM's 64-bit sums; for CONV_2D a 32-bit bias, or none
/// where the options ask for 32-bit biases, gives its 32-bit sums and int8-style requantization
/// (`acc32`); a bias TFLM would misread is refused.
pub(super) fn quant_16x8(
    ctx: &OpContext,
    (at, filter_axis): (Inputs, usize),
    (channels, activation): (usize, Activation),
    bias: Bias16x8,
) -> Result<Quant16x8> {
    let (input, filter, output) = (ctx.input(at.input)?, ctx.input(at.filter)?, ctx.output(0)?);
    let filter_index = ctx.constant_input(at.filter, "filter")?;
    ctx.expect_dtype("filter", filter, DType::I8)?;
    ctx.expect_output_dtype("the output", output, DType::I16)?;
    let (s_in, zp_in) = ctx.int16_quant("input", input)?;
    let (s_out, zp_out) = ctx.int16_quant("output", output)?;
    if zp_in != 0 || zp_out != 0 {
        return Err(ctx.unsupported(format!(
            "int16 input zero point {zp_in} and output zero point {zp_out}: TFLM's int16 \
             kernels apply none; supported: both 0"
        )));
    }
    let bias_type = ctx
        .op()
        .input(at.bias)
        .map(|t| ctx.graph().tensors[t].dtype);
    let narrow_sums = match (bias, bias_type) {
        (Bias16x8::Int64, _) => false,
        (_, Some(t)) => t == DType::I32,
        (Bias16x8::ByType(options), None) => {
            options == Some(tinyaot_schema::tflite::TensorType::INT32)
        }
        (Bias16x8::WidenInt16, None) => false,
    };
    if narrow_sums && !matches!(bias, Bias16x8::ByType(_)) {
        return Err(ctx.unsupported(format!(
            "int16 input with a 32-bit bias is not supported; supported: an INT64 bias{} or none",
            if matches!(bias, Bias16x8::WidenInt16) {
                ", an INT16 bias"
            } else {
                ""
            }
        )));
    }
    if let (Bias16x8::Int64, Some(t)) = (bias, bias_type) {
        if t != DType::I64 {
            return Err(ctx.invalid(
                format!(
                    "bias has type {t}: TFLM's int16 kernel reads its bias as INT64 whatever the \
                     declared type, so it would misread this one; supported: an INT64 bias or none"
                ),
                Grounds::undefined(
                    "TFLM's int16 convolution reads its bias as int64_t whatever its \
                     declared type: a narrower bias is read past its end",
                ),
            ));
        }
    }
    let scales = ctx.weight_scales(filter, channels, filter_axis)?;
    let (multipliers, shifts) = ctx.per_channel_multipliers(s_in, &scales, s_out, channels)?;
    let (multipliers, shifts) = if narrow_sums {
        (multipliers, shifts)
    } else {
        reduce_16x8(ctx, &multipliers, &shifts)?
    };
    Ok(Quant16x8 {
        filter: Data::Tensor(filter_index),
        bias: if narrow_sums && bias_type.is_some() {
            // Widened for the kernel, which adds it to the 32-bit sum truncating it back.
            let values = ctx.const_ints("bias", ctx.input(at.bias)?)?;
            ctx.bias::<i32>(at.bias, DType::I32, channels)?;
            Some(Data::Values(values))
        } else if matches!(bias, Bias16x8::WidenInt16) && bias_type == Some(DType::I16) {
            ctx.bias::<i64>(at.bias, DType::I16, channels)?;
            let bytes = ctx.input(at.bias)?.data.as_deref().unwrap_or_default();
            let widened: Vec<i64> = bytes
                .chunks_exact(2)
                .map(|b| i64::from(i16::from_le_bytes([b[0], b[1]])))
                .collect();
            if widened.len() != channels {
                return Err(ctx.unsupported("bias has fewer bytes than its shape needs"));
            }
            Some(Data::Values(widened))
        } else {
            ctx.bias(at.bias, DType::I64, channels)?
        },
        multipliers: Data::Values(multipliers),
        shifts: Data::Values(shifts),
        act: ctx.activation_range_s16(activation, s_out, 0)?,
        acc32: narrow_sums,
    })
}

/// The constant int8 filter `filter` with `channels` output channels leading its layout, each
/// channel's row laid out by [`swizzle_quads`] for the 16x8 kernels' DSP loop.
pub(super) fn swizzled_filter(
    ctx: &OpContext,
    filter: &crate::ir::Tensor,
    channels: usize,
) -> Result<Data<i8>> {
    let (weights, row) = filter_rows(ctx, filter, channels)?;
    Ok(Data::Packed(swizzle_quads(&weights, row)))
}

/// Rows of `row` weights with each whole group of four stored as its weights 0, 2, 1, 3 (the rest
/// in order): the layout of `conv2d_im2col_s16`'s filter, whose DSP loop sign-extends bytes 0 and 2
/// of a weight word into one pair of lanes and bytes 1 and 3 into the other.
pub(super) fn swizzle_quads(weights: &[i8], row: usize) -> Vec<i8> {
    let mut out = weights.to_vec();
    for r in out.chunks_exact_mut(row.max(1)) {
        for q in r.chunks_exact_mut(4) {
            q.swap(1, 2);
        }
    }
    out
}

/// TFLM's `QuantizeMultiplier` results `(multiplier, shift)` as its 64-bit
/// `MultiplyByQuantizedMultiplier` uses them, reduced once at generation time: the multiplier
/// rounded to 16 bits and the shift made the right shift `15 - shift`, which must be at least 1.
pub(super) fn reduce_16x8(
    ctx: &OpContext,
    multipliers: &[i32],
    shifts: &[i8],
) -> Result<(Vec<i32>, Vec<i8>)> {
    multipliers
        .iter()
        .zip(shifts)
        .map(|(&m, &shift)| {
            if shift > 14 {
                return Err(ctx.unsupported(format!(
                    "input scale * weight scale / output scale is 2^{shift} or more: TFLM's \
                     64-bit requantization shifts by 15 - {shift}, less than 1"
                )));
            }
            let reduced = if m < 0x7FFF_0000 {
                (m + (1 << 15)) >> 16
            } else {
                0x7FFF
            };
            Ok((reduced, 15 - shift))
        })
        .collect()
}

/// The int8 weights of a constant filter whose `channels` output channels lead its layout, as
/// `channels` rows of equal length.
pub(super) fn filter_rows<'m>(
    ctx: &OpContext,
    filter: &crate::ir::Tensor<'m>,
    channels: usize,
) -> Result<(Vec<i8>, usize)> {
    let row = filter.num_elements() / channels.max(1);
    let bytes = filter
        .data
        .as_deref()
        .and_then(|d| d.get(..channels * row))
        .ok_or_else(|| ctx.unsupported("filter has fewer bytes than its shape needs"))?;
    Ok((bytes.iter().map(|&b| b as i8).collect(), row))
}

/// The values of an optional int32 bias (zeros for `channels` channels without one), read at
/// generation time.
pub(super) fn bias_values(
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
pub(super) fn folded_bias(
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
pub(super) fn narrow_requant(
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
pub(super) fn folded_rows<'a>(
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
pub(super) struct Folded {
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
pub(super) fn fold(
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
        return Err(ctx.unsupported("a float convolution has no zero point to fold"));
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
pub(super) fn interleave_rows4(weights: &[i8], row: usize) -> Vec<i8> {
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
pub(super) fn pointwise(
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
    Ok(kernel(
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
    )
    .with_access(Access::Stream {
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
pub(super) fn im2col(
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
                    .chain(core::iter::repeat(0).take(padded - window))
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

/// The [`Stream`] of a convolution-like kernel from an NHWC input of shape `i` to an output of
/// shape `out` (int8: a pixel's bytes are its channels) computing `group` pixels together.
pub(super) fn window_stream((i, out): (&[usize], &[usize]), g: &Geometry, group: usize) -> Stream {
    Stream {
        batches: i[0],
        input_h: i[1],
        input_w: i[2],
        input_pixel: i[3],
        output_h: out[1],
        output_w: out[2],
        output_pixel: out[3],
        stride_h: g.stride_h,
        stride_w: g.stride_w,
        pad_top: g.pad_top,
        pad_left: g.pad_left,
        window_h: (g.filter_h.max(1) - 1) * g.dilation_h + 1,
        window_w: (g.filter_w.max(1) - 1) * g.dilation_w + 1,
        group,
        reads_first: false,
        reversible: false,
    }
}

/// CONV_2D → `conv::conv2d_s8` / `conv::conv2d_f32`.
fn conv2d(ctx: &OpContext) -> Result<Kernel> {
    let Options::Conv2D(o) = &ctx.op().options else {
        return Err(ctx.unsupported("missing Conv2DOptions"));
    };
    let w = Window {
        padding: o.padding,
        stride: (o.stride_h, o.stride_w),
        dilation: (o.dilation_h, o.dilation_w),
        activation: o.activation,
    };
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let num = if input.dtype == DType::I16 {
        None
    } else {
        Some(ctx.input_num(input)?)
    };
    ctx.expect_rank("input", input, 4)?;
    ctx.expect_rank("filter", filter, 4)?;
    ctx.expect_rank("output", output, 4)?;
    let (i, f, out) = (&input.shape, &filter.shape, &output.shape);
    if i[0] != out[0] || f[0] != out[3] {
        return Err(ctx.unsupported(format!(
            "input {i:?}, filter {f:?} and output {out:?} disagree on batches or output channels"
        )));
    }
    if f[3] == 0 || i[3] % f[3] != 0 || out[3] % (i[3] / f[3]).max(1) != 0 {
        return Err(ctx.unsupported(format!(
            "input channels {} are not a whole number of groups of the filter's {} channels dividing output channels {}",
            i[3], f[3], out[3]
        )));
    }
    let g = geometry(ctx, &w, i, (f[1], f[2]), out)?;
    // The fields every CONV_2D parameter struct starts with: shapes, strides, dilation, padding.
    macro_rules! conv_params {
        ($ty:ident { $($field:ident: $value:expr),* $(,)? }) => {
            P::$ty {
                batches: i[0],
                input_h: i[1],
                input_w: i[2],
                input_c: i[3],
                output_h: out[1],
                output_w: out[2],
                output_c: out[3],
                filter_h: f[1],
                filter_w: f[2],
                stride_h: g.stride_h,
                stride_w: g.stride_w,
                dilation_h: g.dilation_h,
                dilation_w: g.dilation_w,
                pad_top: g.pad_top,
                pad_left: g.pad_left,
                $($field: $value),*
            }
        };
    }
    let Some(num) = num else {
        let options_bias_type = ctx
            .tflite_operator()
            .ok()
            .and_then(|op| op.builtin_options_as_conv_2_doptions())
            .map(|o| o.quantized_bias_type());
        let q = quant_16x8(
            ctx,
            (CONV_INPUTS, 0),
            (out[3], w.activation),
            Bias16x8::ByType(options_bias_type),
        )?;
        // One group and a window that fits the kernel's stack buffer as int16: gathered per pixel.
        let window = f[1] * f[2] * f[3];
        if !q.acc32 && f[3] == i[3] && window > 0 && 2 * window <= crate::lower::params::IM2COL_MAX
        {
            return Ok(kernel(
                "conv2d_im2col_s16",
                in_out(ctx)?,
                conv_params!(Conv2dIm2colS16 {
                    filter: swizzled_filter(ctx, filter, out[3])?,
                    bias: q.bias,
                    multipliers: q.multipliers,
                    shifts: q.shifts,
                    act_min: q.act.0,
                    act_max: q.act.1,
                }),
            ));
        }
        // Window rows of whole groups of four whose 32-bit sums cannot overflow: the general
        // kernel's DSP path, with the filter laid out for it.
        let swizzled = f[3] == i[3] && g.dilation_w == 1 && i[3] % 4 == 0 && f[2] * i[3] <= 511;
        let filter = if swizzled {
            swizzled_filter(ctx, filter, out[3])?
        } else {
            q.filter
        };
        return Ok(kernel(
            "conv2d_s16",
            in_out(ctx)?,
            conv_params!(Conv2dS16 {
                filter_c: f[3],
                filter: filter,
                bias: q.bias,
                multipliers: q.multipliers,
                shifts: q.shifts,
                act_min: q.act.0,
                act_max: q.act.1,
                swizzled: swizzled,
                acc32: q.acc32,
            }),
        ));
    };
    if filter.dtype == DType::I4 {
        return super::int4::conv2d(ctx, (i, f, out), &g, w.activation);
    }
    let quant = weights_and_range(ctx, (num, CONV_INPUTS), 0, out[3], w.activation)?;
    if matches!(quant, ConvQuant::I8 { .. }) && f[3] == i[3] && out[3] > 0 {
        // A 1×1 filter with stride 1, no padding and one group is a matrix product: every tap is
        // in the image, so the input zero point folds into the bias.
        let one_by_one = f[1] == 1 && f[2] == 1 && (g.stride_h, g.stride_w) == (1, 1);
        if one_by_one && (g.pad_top, g.pad_left) == (0, 0) && i[3] > 0 {
            let rows = filter_rows(ctx, ctx.input(1)?, out[3])?;
            let folded = fold(ctx, &quant, rows)?;
            return pointwise(ctx, (i[0] * i[1] * i[2], i[3], out[3]), folded);
        }
        // Any other single-group convolution whose window fits the kernel's stack buffer: gathered
        // per pixel (taps outside the image as the zero point, so the bias folds the same way).
        let window = f[1] * f[2] * f[3];
        if window > 0 && window <= crate::lower::params::IM2COL_MAX {
            let rows = filter_rows(ctx, ctx.input(1)?, out[3])?;
            return im2col(ctx, (i, (f[1], f[2]), out), &g, &quant, rows);
        }
    }
    Ok(match quant {
        ConvQuant::I8 {
            input_zero_point,
            output_zero_point,
            filter,
            bias,
            multipliers,
            shifts,
            act_min,
            act_max,
        } => kernel(
            "conv2d_s8",
            in_out(ctx)?,
            conv_params!(Conv2dS8 {
                filter_c: f[3],
                input_zero_point: input_zero_point,
                output_zero_point: output_zero_point,
                filter: filter,
                bias: bias,
                multipliers: multipliers,
                shifts: shifts,
                act_min: act_min,
                act_max: act_max,
            }),
        ),
        ConvQuant::F32 {
            filter,
            bias,
            act_min,
            act_max,
        } => kernel(
            "conv2d_f32",
            in_out(ctx)?,
            conv_params!(Conv2dF32 {
                filter_c: f[3],
                filter: filter,
                bias: bias,
                act_min: act_min,
                act_max: act_max,
            }),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{field, graph, kernel, quant, reason, tensor};
    use crate::ir::*;
    use crate::lower::{Data, Operand, Value};

    static W9: [u8; 18] = [1; 18];
    static BIAS2: [u8; 8] = [0; 8];

    #[test]
    fn interleaves_blocks_of_four_rows_by_words() {
        // Five rows of six: one block (words of rows 0..4, then their two-byte tails), one row left.
        let weights: Vec<i8> = (0..30).collect();
        let packed = super::interleave_rows4(&weights, 6);
        #[rustfmt::skip]
        let expected: Vec<i8> = vec![
            0, 1, 2, 3, 6, 7, 8, 9, 12, 13, 14, 15, 18, 19, 20, 21,
            4, 5, 10, 11, 16, 17, 22, 23,
            24, 25, 26, 27, 28, 29,
        ];
        assert_eq!(packed, expected);
        // A row shorter than a word: the block is its rows' tails.
        assert_eq!(super::interleave_rows4(&[1, 2, 3, 4], 1), vec![1, 2, 3, 4]);
        assert_eq!(super::interleave_rows4(&[], 0), Vec::<i8>::new());
    }

    fn conv_options(padding: Padding, activation: Activation) -> Options {
        Options::Conv2D(Conv2DOptions {
            padding,
            stride_w: 1,
            stride_h: 1,
            dilation_w: 1,
            dilation_h: 1,
            activation,
        })
    }

    /// 1x3x3x1 int8 input, 2x3x3x1 per-channel filter, SAME, RELU.
    fn conv_graph(filter_quant: Option<Quantization>, activation: Activation) -> Graph<'static> {
        graph(
            OpCode::CONV_2D,
            conv_options(Padding::Same, activation),
            vec![
                tensor(&[1, 3, 3, 1], DType::I8, quant(&[0.5], &[-1], 0), None),
                tensor(&[2, 3, 3, 1], DType::I8, filter_quant, Some(&W9)),
                tensor(
                    &[2],
                    DType::I32,
                    quant(&[0.1, 0.2], &[0, 0], 0),
                    Some(&BIAS2),
                ),
                tensor(&[1, 3, 3, 2], DType::I8, quant(&[0.25], &[3], 0), None),
            ],
            &[Some(0), Some(1), Some(2)],
        )
    }

    /// Input channels in whole words and output channels in blocks of four: the paired
    /// gathering kernel, with the same parameters.
    #[test]
    fn conv_s8_whole_words_take_the_paired_kernel() {
        static W: [u8; 4 * 9 * 4] = [1; 4 * 9 * 4];
        static BIAS: [u8; 16] = [0; 16];
        let g = graph(
            OpCode::CONV_2D,
            conv_options(Padding::Same, Activation::None),
            vec![
                tensor(&[1, 3, 3, 4], DType::I8, quant(&[0.5], &[-1], 0), None),
                tensor(
                    &[4, 3, 3, 4],
                    DType::I8,
                    quant(&[0.25; 4], &[0; 4], 0),
                    Some(&W),
                ),
                tensor(
                    &[4],
                    DType::I32,
                    quant(&[0.125; 4], &[0; 4], 0),
                    Some(&BIAS),
                ),
                tensor(&[1, 3, 3, 4], DType::I8, quant(&[0.25], &[3], 0), None),
            ],
            &[Some(0), Some(1), Some(2)],
        );
        let k = kernel(&g);
        assert_eq!((k.module, k.function), ("conv", "conv2d_im2col_pairs_s8"));
        let name = k.params.as_ref().map(|p| p.type_name.to_string());
        assert_eq!(name.as_deref(), Some("Conv2dIm2colS8"));
    }

    /// A FULLY_CONNECTED-like product of one pixel, 32 channels in whole words into 8: the
    /// widened one-pixel kernel; fewer input channels keep the general one.
    #[test]
    fn pointwise_single_pixel_takes_the_widened_kernel() {
        for (n, want) in [(32, "conv2d_1x1_widened_s8"), (16, "conv2d_1x1_s8")] {
            static W: [u8; 8 * 32] = [1; 8 * 32];
            static BIAS: [u8; 32] = [0; 32];
            let g = graph(
                OpCode::CONV_2D,
                conv_options(Padding::Valid, Activation::None),
                vec![
                    tensor(&[1, 1, 1, n], DType::I8, quant(&[0.5], &[-1], 0), None),
                    tensor(
                        &[8, 1, 1, n],
                        DType::I8,
                        quant(&[0.25; 8], &[0; 8], 0),
                        Some(&W[..8 * n]),
                    ),
                    tensor(
                        &[8],
                        DType::I32,
                        quant(&[0.125; 8], &[0; 8], 0),
                        Some(&BIAS),
                    ),
                    tensor(&[1, 1, 1, 8], DType::I8, quant(&[0.25], &[3], 0), None),
                ],
                &[Some(0), Some(1), Some(2)],
            );
            let k = kernel(&g);
            assert_eq!((k.module, k.function), ("conv", want), "{n} input channels");
        }
    }

    /// Three input channels (a window of 27 bytes) and eight output channels: the gathering
    /// paired kernel, its filter rows padded to 28 bytes with zero weights.
    #[test]
    fn conv_s8_short_windows_not_in_words_take_the_gathering_paired_kernel() {
        static W: [u8; 8 * 9 * 3] = [1; 8 * 9 * 3];
        static BIAS: [u8; 32] = [0; 32];
        let g = graph(
            OpCode::CONV_2D,
            conv_options(Padding::Same, Activation::None),
            vec![
                tensor(&[1, 3, 3, 3], DType::I8, quant(&[0.5], &[-1], 0), None),
                tensor(
                    &[8, 3, 3, 3],
                    DType::I8,
                    quant(&[0.25; 8], &[0; 8], 0),
                    Some(&W),
                ),
                tensor(
                    &[8],
                    DType::I32,
                    quant(&[0.125; 8], &[0; 8], 0),
                    Some(&BIAS),
                ),
                tensor(&[1, 3, 3, 8], DType::I8, quant(&[0.25], &[3], 0), None),
            ],
            &[Some(0), Some(1), Some(2)],
        );
        let k = kernel(&g);
        assert_eq!(
            (k.module, k.function),
            ("conv", "conv2d_im2col_gather_pairs_s8")
        );
        let Value::Packed(filter) = field(&k, "filter") else {
            panic!("a packed filter");
        };
        // Eight rows of 27 ones, each padded with a zero to 28 bytes.
        assert_eq!(filter.bytes.len(), 8 * 28);
        assert_eq!(filter.bytes.iter().filter(|&&w| w == 0).count(), 8);
        // The folded bias sums the 27 real weights: 0 - (-1) * 27.
        assert_eq!(field(&k, "folded_bias"), &Value::I32s(vec![27; 8]));
    }

    #[test]
    fn conv_s8_per_channel_params() {
        let g = conv_graph(quant(&[0.2, 0.4], &[0, 0], 0), Activation::Relu);
        let k = kernel(&g);
        // One group and a small window: the gathering kernel.
        assert_eq!((k.module, k.function), ("conv", "conv2d_im2col_s8"));
        assert_eq!(k.operands, vec![Operand::Offset(0), Operand::Offset(3)]);
        let names: Vec<_> = k
            .params
            .as_ref()
            .unwrap()
            .fields
            .iter()
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(
            names,
            [
                "batches",
                "input_h",
                "input_w",
                "input_c",
                "output_h",
                "output_w",
                "output_c",
                "filter_h",
                "filter_w",
                "stride_h",
                "stride_w",
                "dilation_h",
                "dilation_w",
                "pad_top",
                "pad_left",
                "input_zero_point",
                "output_zero_point",
                "filter",
                "folded_bias",
                "multipliers",
                "shifts",
                "act_min",
                "act_max",
                "narrow_requant"
            ]
        );
        // Shift 0 for the second channel: not every shift is a right shift.
        assert_eq!(field(&k, "narrow_requant"), &Value::Bool(false));
        assert_eq!(field(&k, "pad_top"), &Value::Usize(1));
        assert_eq!(field(&k, "pad_left"), &Value::Usize(1));
        // 0.5 * 0.2 / 0.25 = 0.8 * 2^-1 and 0.5 * 0.4 / 0.25 = 0.8 * 2^0, with the f32 scales
        // widened to f64 (0.2f32 is slightly above 0.2, and 0.4f32 is exactly twice it).
        let m = (f64::from(0.2f32) * 4.0 * f64::from(1u32 << 31)).round() as i32;
        assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![m, m]));
        assert_eq!(field(&k, "shifts"), &Value::I8s(vec![-1, 0]));
        assert_eq!(field(&k, "input_zero_point"), &Value::I32(-1));
        assert_eq!(field(&k, "act_min"), &Value::I32(3));
        assert_eq!(field(&k, "act_max"), &Value::I32(127));
        // Bias 0, nine weights of 1, input zero point -1: 0 - (-1) * 9.
        assert_eq!(field(&k, "folded_bias"), &Value::I32s(vec![9, 9]));
    }

    /// Two groups keep the general kernel, with the model's bias and the zero point applied per
    /// tap; a 1×1 filter with stride 1 and no padding takes the matrix-product kernel.
    #[test]
    fn conv_s8_kernel_choice() {
        let mut g = conv_graph(quant(&[0.2, 0.4], &[0, 0], 0), Activation::None);
        g.tensors[0].shape = vec![1, 3, 3, 2];
        g.tensors[0].bytes = 18;
        let k = kernel(&g);
        assert_eq!(k.function, "conv2d_s8");
        assert_eq!(field(&k, "bias"), &Value::Some(Box::new(Value::Tensor(2))));
        let mut g = conv_graph(quant(&[0.2, 0.4], &[0, 0], 0), Activation::None);
        g.tensors[0].shape = vec![1, 3, 3, 9];
        g.tensors[0].bytes = 81;
        g.tensors[1].shape = vec![2, 1, 1, 9];
        g.operators[0].options = conv_options(Padding::Valid, Activation::None);
        let k = kernel(&g);
        assert_eq!(k.function, "conv2d_1x1_s8");
        assert_eq!(field(&k, "pixels"), &Value::Usize(9));
        assert_eq!(field(&k, "folded_bias"), &Value::I32s(vec![9, 9]));
    }

    #[test]
    fn conv_s8_per_tensor_filter_repeats_the_multiplier() {
        let k = kernel(&conv_graph(quant(&[0.2], &[0], 0), Activation::None));
        assert_eq!(field(&k, "shifts"), &Value::I8s(vec![-1, -1]));
        // Right shifts only, and at most 128 * 9 + 9 in magnitude: the short requantization.
        assert_eq!(field(&k, "narrow_requant"), &Value::Bool(true));
        assert_eq!(field(&k, "act_min"), &Value::I32(-128));
    }

    #[test]
    fn conv_refusals_say_why() {
        assert!(
            reason(&conv_graph(quant(&[0.2], &[3], 0), Activation::None)).contains("zero point")
        );
        // Non-constant filter.
        let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
        g.tensors[1].data = None;
        assert!(reason(&g).contains("run time"));
        // Output shape that VALID padding would not give.
        let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
        g.operators[0].options = conv_options(Padding::Valid, Activation::None);
        assert!(reason(&g).contains("output height"));
        // int16 activations.
        let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
        g.tensors[0].dtype = DType::I16;
        assert!(reason(&g).contains("INT16"));
        // A zero output scale.
        let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
        g.tensors[3].quant = quant(&[0.0], &[0], 0);
        assert!(reason(&g).contains("positive, finite"));
        // Hybrid: float input, int8 filter.
        let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
        g.tensors[0].dtype = DType::F32;
        assert!(reason(&g).contains("hybrid"));
    }

    /// An int16 CONV_2D with a 64-bit bias: the 16x8 requantization (multiplier reduced to 16
    /// bits, right shift 15 - shift), the gathering kernel with its weights swizzled in fours;
    /// zero points other than 0 are refused; a 32-bit bias takes TFLM's 32-bit sums.
    #[test]
    fn conv_s16_lowering_and_refusals() {
        static W16: [u8; 8] = [1, 2, 3, 4, 5, 6, 7, 8];
        static BIAS64: [u8; 16] = [0; 16];
        let g16 = |input_zp: i64, bias_dtype: DType| {
            graph(
                OpCode::CONV_2D,
                conv_options(Padding::Same, Activation::None),
                vec![
                    tensor(
                        &[1, 3, 3, 4],
                        DType::I16,
                        quant(&[0.5], &[input_zp], 0),
                        None,
                    ),
                    tensor(
                        &[2, 1, 1, 4],
                        DType::I8,
                        quant(&[0.25], &[0], 0),
                        Some(&W16),
                    ),
                    tensor(&[2], bias_dtype, quant(&[0.125], &[0], 0), Some(&BIAS64)),
                    tensor(&[1, 3, 3, 2], DType::I16, quant(&[0.5], &[0], 0), None),
                ],
                &[Some(0), Some(1), Some(2)],
            )
        };
        let k = kernel(&g16(0, DType::I64));
        assert_eq!(k.function, "conv2d_im2col_s16");
        assert_eq!(
            field(&k, "filter"),
            &Value::from(Data::Packed(vec![1i8, 3, 2, 4, 5, 7, 6, 8]))
        );
        // 0.5 * 0.25 / 0.5 = 0.5 * 2^-1: Q31 multiplier 2^30, reduced (2^30 + 2^15) >> 16 = 2^14;
        // shift -1, so a right shift of 16.
        assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![1 << 14; 2]));
        assert_eq!(field(&k, "shifts"), &Value::I8s(vec![16; 2]));
        assert_eq!(field(&k, "act_min"), &Value::I32(-32768));
        assert!(reason(&g16(3, DType::I64)).contains("zero point"));
        // A 32-bit bias: TFLM's 32-bit sums, with the int8-style Q31 multiplier and shift.
        let k = kernel(&g16(0, DType::I32));
        assert_eq!(k.function, "conv2d_s16");
        assert_eq!(field(&k, "acc32"), &Value::Bool(true));
        assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![1 << 30; 2]));
        assert_eq!(field(&k, "shifts"), &Value::I8s(vec![-1; 2]));
    }

    /// The kernel reads its input from the arena: a constant input is refused here rather than
    /// failing in the emitter as a generator bug (it used to be `Error::Internal`).
    #[test]
    fn a_constant_input_is_refused() {
        static INPUT: [u8; 9] = [0; 9];
        let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
        g.tensors[0].data = Some((&INPUT[..]).into());
        assert!(reason(&g).contains("the input is a constant tensor"));
    }
}

//! CONV_2D → `conv::conv2d_{s8,f32}`: shapes, padding, per-channel requantization, activation
//! range. The window geometry and the requantization are shared with DEPTHWISE_CONV_2D
//! ([`super::depthwise`]), which TFLM also derives from the same `ConvParams`.
//!
//! The family's files: `geometry.rs` the window (padding, strides, dilations) and its stream
//! contract, `weights.rs` the weights and requantization of int8 and float, `int16.rs` those of
//! int16 activations (TFLM's 16x8), `int8.rs` the int8 fast kernels (their weights and bias folded
//! at generation time, and which of them a convolution takes), `dynamic.rs` the kernels of weights
//! or a bias computed at run time. This module holds the family's
//! `OPS` and the CONV_2D lowering that chooses among them.

mod dynamic;
mod geometry;
mod int16;
mod int8;
#[cfg(test)]
mod tests;
mod weights;

pub(super) use dynamic::depthwise_dyn;
pub(super) use geometry::{geometry, window_stream, Geometry, Window};
use int16::{abs_rows, pair_quads};
pub(super) use int16::{
    bias32_read_as_int64, quant_16x8, reduce_16x8, sums_fit_32, swizzle_quads, swizzled_filter,
    symmetric_16x8, Bias16x8,
};
pub(super) use int8::{
    bias_values, filter_rows, fold, folded_bias, im2col, narrow_requant, pointwise,
};
pub(super) use weights::{hybrid, weights_and_range, ConvQuant, Inputs, CONV_INPUTS};

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Options};
use crate::lower::params::conv as P;
use crate::lower::types::Types;
use crate::lower::{Data, Num, OpContext, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::CONV_2D,
    types: Types::WEIGHTED,
    inputs: 2..=3,
    outputs: 1,
    lower: Lowering::Kernel(conv2d),
}];

/// CONV_2D → `conv::conv2d_s8` / `conv::conv2d_f32`.
fn conv2d(ctx: &OpContext) -> Result<Kernel> {
    let Options::Conv2D(o) = &ctx.op().options else {
        // The loader refuses a convolution without options (strides 0) as corrupt.
        return Err(ctx.internal("no Conv2D options decoded"));
    };
    let w = Window {
        padding: o.padding,
        stride: (o.stride_h, o.stride_w),
        dilation: (o.dilation_h, o.dilation_w),
        activation: o.activation,
    };
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let num = ctx.input_num_or_i16(input)?;
    ctx.expect_rank("input", input, 4)?;
    ctx.expect_rank("filter", filter, 4)?;
    ctx.expect_rank("output", output, 4)?;
    let (i, f, out) = (&input.shape, &filter.shape, &output.shape);
    if i[0] != out[0] || f[0] != out[3] {
        // TFLM takes the batches from the input and the channels from the filter (MatchingDim,
        // a TFLITE_DCHECK): the output's rows are misaddressed, written past or left unwritten.
        return Err(ctx.invalid(
            format!(
                "input {i:?}, filter {f:?} and output {out:?} disagree on batches or output \
                 channels"
            ),
            Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
        ));
    }
    if f[3] == 0 || i[3] % f[3] != 0 || out[3] % (i[3] / f[3]).max(1) != 0 {
        return Err(ctx.invalid(
            format!(
                "input channels {} are not a whole number of groups of the filter's {} channels \
                 dividing output channels {}",
                i[3], f[3], out[3]
            ),
            Grounds::undefined(
                "reference Conv / ConvPerChannel: groups = input_depth / filter_input_depth and \
                 filters_per_group = output_depth / groups, checked only by TFLITE_DCHECK: a \
                 filter depth of 0 or above the input's divides by zero, a remainder misgroups \
                 the channels, and output channels not a multiple of the groups read input \
                 channels past the depth",
            ),
        ));
    }
    let g = geometry(ctx, &w, i, (f[1], f[2]))?;
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
    let options_bias_type = ctx
        .tflite_operator()
        .ok()
        .and_then(|op| op.builtin_options_as_conv_2_doptions())
        .map(|o| o.quantized_bias_type());
    // Weights or a bias written at run time (an operator's output, a graph input): TFLM's Prepare
    // reads only their types and scales, its Eval the tensors wherever they are (INT4 weights
    // computed at run time, an INT4 graph input, unpacked at every call as TFLM's Eval does).
    // INT4 constant weights with a bias computed at run time stay with `int4`.
    let bias_at_run_time = ctx.optional_input(2).is_some_and(|b| !b.is_constant());
    if !filter.is_constant() || (filter.dtype != DType::I4 && bias_at_run_time) {
        return dynamic::conv2d_dyn(ctx, num, (i, f, out), &g, w.activation, options_bias_type);
    }
    if num == Num::I16 {
        let q = quant_16x8(
            ctx,
            CONV_INPUTS,
            (out[3], w.activation),
            Bias16x8::ByType(options_bias_type),
        )?;
        // One group, a 1×1 filter, stride 1 and no padding over an output of the input's extent
        // (as int8's 1×1 kernel): a matrix product of the pixels, taken straight from the input,
        // whose sums over at most 511 channels are exact in 32 bits.
        let one_by_one = (f[1], f[2], g.stride_h, g.stride_w) == (1, 1, 1, 1)
            && (out[1], out[2]) == (i[1], i[2])
            && (g.pad_top, g.pad_left) == (0, 0);
        let depth = 1..=tinyaot_runtime::kernels::conv::CONV_1X1_S16_MAX_DEPTH;
        if !q.acc32 && f[3] == i[3] && one_by_one && depth.contains(&i[3]) && out[3] > 0 {
            let (weights, row) = filter_rows(ctx, filter, out[3])?;
            let sums32 = sums_fit_32(ctx, &abs_rows(&weights, row), q.bias.as_ref())?;
            return Ok(kernel(
                "conv2d_1x1_s16",
                in_out(ctx)?,
                P::Conv1x1S16 {
                    pixels: i[0] * i[1] * i[2],
                    input_c: i[3],
                    output_c: out[3],
                    filter: Data::Packed(pair_quads(&weights, row)),
                    bias: q.bias,
                    multipliers: q.multipliers,
                    shifts: q.shifts,
                    act_min: q.act.0,
                    act_max: q.act.1,
                    sums32,
                },
            ));
        }
        // One group, whole groups of four input channels and no horizontal dilation: two pixels
        // of a row times two output channels straight from the input, where 32-bit sums are exact
        // (the generation-time bound, or a window of at most 511 weights).
        let window = f[1] * f[2] * f[3];
        if !q.acc32
            && f[3] == i[3]
            && i[3] % 4 == 0
            && g.dilation_w == 1
            && window > 0
            && out[3] > 0
        {
            let (weights, row) = filter_rows(ctx, filter, out[3])?;
            let sums32 = sums_fit_32(ctx, &abs_rows(&weights, row), q.bias.as_ref())?;
            if sums32 || depth.contains(&window) {
                return Ok(kernel(
                    "conv2d_pairs_s16",
                    in_out(ctx)?,
                    conv_params!(ConvPairsS16 {
                        filter: Data::Packed(pair_quads(&weights, row)),
                        bias: q.bias,
                        multipliers: q.multipliers,
                        shifts: q.shifts,
                        act_min: q.act.0,
                        act_max: q.act.1,
                        sums32: sums32,
                    }),
                ));
            }
        }
        // One group and a window that fits the kernel's stack buffer as int16: gathered per pixel.

        if !q.acc32 && f[3] == i[3] && window > 0 && 2 * window <= crate::lower::params::IM2COL_MAX
        {
            let (weights, row) = filter_rows(ctx, filter, out[3])?;
            let sums32 = sums_fit_32(ctx, &abs_rows(&weights, row), q.bias.as_ref())?;
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
                    sums32: sums32,
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
    }
    if filter.dtype == DType::I4 {
        return super::int4::conv2d(ctx, (i, f, out), &g, w.activation);
    }
    let quant = weights_and_range(ctx, (num, CONV_INPUTS), out[3], w.activation)?;
    if matches!(quant, ConvQuant::I8 { .. }) && f[3] == i[3] && out[3] > 0 {
        // A 1×1 filter with stride 1, no padding and one group, over an output of the input's
        // extent, is a matrix product: every tap is in the image, so the input zero point folds
        // into the bias. (TFLM computes an output of another extent from the same padding; the
        // general kernels below skip its taps outside the image.)
        let one_by_one = f[1] == 1 && f[2] == 1 && (g.stride_h, g.stride_w) == (1, 1);
        let same_extent = (out[1], out[2]) == (i[1], i[2]);
        if one_by_one && same_extent && (g.pad_top, g.pad_left) == (0, 0) && i[3] > 0 {
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

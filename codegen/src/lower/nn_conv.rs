//! CONV_2D and DEPTHWISE_CONV_2D: shapes, padding, per-channel requantization, activation range.

use super::{
    activation_range_f32, activation_range_s8, bias, call, constant_input, expect_rank, flavour,
    int8_quant, per_channel_multipliers, weight_scales, Flavour,
};
use crate::error::Result;
use crate::ir::{Activation, DType, Options, Padding};
use crate::lower::{quant, CallKind, OpContext, Value};

/// What both convolutions share, from their options.
struct Window {
    padding: Padding,
    stride: (usize, usize),
    dilation: (usize, usize),
    activation: Activation,
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

/// The fields both convolutions' parameter structs start with after their channel fields:
/// strides, dilations and padding.
fn geometry_fields(
    ctx: &OpContext,
    w: &Window,
    input: &[usize],
    filter_hw: (usize, usize),
    output: &[usize],
) -> Result<Vec<(&'static str, Value)>> {
    if w.stride.0 == 0 || w.stride.1 == 0 || w.dilation.0 == 0 || w.dilation.1 == 0 {
        return Err(ctx.invalid("strides and dilations must be at least 1"));
    }
    // TFLM's ConvParams hold strides and dilations as int16_t: larger values wrap.
    for (name, value) in [
        ("stride", w.stride.0),
        ("stride", w.stride.1),
        ("dilation", w.dilation.0),
        ("dilation", w.dilation.1),
    ] {
        fits_i16(ctx, name, value)?;
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
    fits_i16(ctx, "padding", pad_top)?;
    fits_i16(ctx, "padding", pad_left)?;
    Ok(vec![
        ("stride_h", Value::Usize(w.stride.0)),
        ("stride_w", Value::Usize(w.stride.1)),
        ("dilation_h", Value::Usize(w.dilation.0)),
        ("dilation_w", Value::Usize(w.dilation.1)),
        ("pad_top", Value::Usize(pad_top)),
        ("pad_left", Value::Usize(pad_left)),
    ])
}

/// Type checks, requantization and activation fields for an int8 or float convolution whose output
/// channels lie along `filter_axis` of the filter.
fn quant_fields(
    ctx: &OpContext,
    kind: Flavour,
    filter_axis: usize,
    channels: usize,
    activation: Activation,
) -> Result<Vec<(&'static str, Value)>> {
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let filter_index = constant_input(ctx, 1, "filter")?;
    match kind {
        Flavour::Int8 => {
            ctx.expect_dtype("filter", filter, DType::I8)?;
            ctx.expect_dtype("output", output, DType::I8)?;
            let (s_in, zp_in) = int8_quant(ctx, "input", input)?;
            let (s_out, zp_out) = int8_quant(ctx, "output", output)?;
            let scales = weight_scales(ctx, filter, channels, filter_axis)?;
            let (multipliers, shifts) =
                per_channel_multipliers(ctx, s_in, &scales, s_out, channels)?;
            let (act_min, act_max) = activation_range_s8(ctx, activation, s_out, zp_out)?;
            Ok(vec![
                ("input_zero_point", Value::I32(zp_in)),
                ("output_zero_point", Value::I32(zp_out)),
                ("filter", Value::Tensor(filter_index)),
                ("bias", bias(ctx, 2, DType::I32, channels)?),
                ("multipliers", Value::I32s(multipliers)),
                ("shifts", Value::I8s(shifts)),
                ("act_min", Value::I32(act_min)),
                ("act_max", Value::I32(act_max)),
            ])
        }
        Flavour::Float32 => {
            if filter.dtype != DType::F32 {
                return Err(ctx.unsupported(format!(
                    "float input with {} filter (hybrid quantization) is not supported; supported: all-INT8 or all-FLOAT32",
                    filter.dtype
                )));
            }
            ctx.expect_dtype("output", output, DType::F32)?;
            let (act_min, act_max) = activation_range_f32(ctx, activation)?;
            Ok(vec![
                ("filter", Value::Tensor(filter_index)),
                ("bias", bias(ctx, 2, DType::F32, channels)?),
                ("act_min", Value::F32(act_min)),
                ("act_max", Value::F32(act_max)),
            ])
        }
    }
}

/// CONV_2D → `conv::conv2d_s8` / `conv::conv2d_f32`.
pub(super) fn conv2d(ctx: &OpContext) -> Result<CallKind> {
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
    let kind = flavour(ctx, input)?;
    expect_rank(ctx, "input", input, 4)?;
    expect_rank(ctx, "filter", filter, 4)?;
    expect_rank(ctx, "output", output, 4)?;
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
    let mut fields = vec![
        ("batches", Value::Usize(i[0])),
        ("input_h", Value::Usize(i[1])),
        ("input_w", Value::Usize(i[2])),
        ("input_c", Value::Usize(i[3])),
        ("output_h", Value::Usize(out[1])),
        ("output_w", Value::Usize(out[2])),
        ("output_c", Value::Usize(out[3])),
        ("filter_h", Value::Usize(f[1])),
        ("filter_w", Value::Usize(f[2])),
        ("filter_c", Value::Usize(f[3])),
    ];
    fields.extend(geometry_fields(ctx, &w, i, (f[1], f[2]), out)?);
    fields.extend(quant_fields(ctx, kind, 0, out[3], w.activation)?);
    match kind {
        Flavour::Int8 => call(ctx, "conv", "conv2d_s8", "Conv2dS8", fields),
        Flavour::Float32 => call(ctx, "conv", "conv2d_f32", "Conv2dF32", fields),
    }
}

/// DEPTHWISE_CONV_2D → `depthwise::depthwise_conv2d_s8` / `depthwise::depthwise_conv2d_f32`.
pub(super) fn depthwise(ctx: &OpContext) -> Result<CallKind> {
    let Options::DepthwiseConv2D(o) = &ctx.op().options else {
        return Err(ctx.unsupported("missing DepthwiseConv2DOptions"));
    };
    // TFLM's depthwise Prepare takes a third input as a bias without checking that it is present,
    // and crashes on an absent one (-1); CONV_2D and FULLY_CONNECTED handle that case.
    if ctx.op().inputs.len() == 3 && ctx.op().input(2).is_none() {
        return Err(ctx.invalid(
            "the bias input is written as absent (-1); TFLM's depthwise convolution crashes on \
             that: leave the bias input out instead",
        ));
    }
    let w = Window {
        padding: o.padding,
        stride: (o.stride_h, o.stride_w),
        dilation: (o.dilation_h, o.dilation_w),
        activation: o.activation,
    };
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let kind = flavour(ctx, input)?;
    expect_rank(ctx, "input", input, 4)?;
    expect_rank(ctx, "filter", filter, 4)?;
    expect_rank(ctx, "output", output, 4)?;
    let (i, f, out) = (&input.shape, &filter.shape, &output.shape);
    if i[0] != out[0] || f[0] != 1 || f[3] != out[3] || i[3] == 0 || out[3] % i[3] != 0 {
        return Err(ctx.unsupported(format!(
            "input {i:?}, filter {f:?} and output {out:?} do not fit a depthwise convolution (filter [1, h, w, input channels * multiplier])"
        )));
    }
    let depth_multiplier = out[3] / i[3];
    if o.depth_multiplier != 0 && o.depth_multiplier != depth_multiplier {
        return Err(ctx.unsupported(format!(
            "depth_multiplier option {} disagrees with the shapes ({depth_multiplier})",
            o.depth_multiplier
        )));
    }
    let mut fields = vec![
        ("batches", Value::Usize(i[0])),
        ("input_h", Value::Usize(i[1])),
        ("input_w", Value::Usize(i[2])),
        ("input_c", Value::Usize(i[3])),
        ("output_h", Value::Usize(out[1])),
        ("output_w", Value::Usize(out[2])),
        ("output_c", Value::Usize(out[3])),
        ("filter_h", Value::Usize(f[1])),
        ("filter_w", Value::Usize(f[2])),
        ("depth_multiplier", Value::Usize(depth_multiplier)),
    ];
    fields.extend(geometry_fields(ctx, &w, i, (f[1], f[2]), out)?);
    fields.extend(quant_fields(ctx, kind, 3, out[3], w.activation)?);
    match kind {
        Flavour::Int8 => call(
            ctx,
            "depthwise",
            "depthwise_conv2d_s8",
            "DepthwiseConv2dS8",
            fields,
        ),
        Flavour::Float32 => call(
            ctx,
            "depthwise",
            "depthwise_conv2d_f32",
            "DepthwiseConv2dF32",
            fields,
        ),
    }
}

/// Fails unless `value` fits TFLM's `int16_t` parameter fields (padding, strides, dilations),
/// where a larger value would wrap and compute something else.
pub(super) fn fits_i16(ctx: &OpContext, what: &str, value: usize) -> Result<()> {
    if value <= i16::MAX as usize {
        Ok(())
    } else {
        Err(ctx.invalid(format!(
            "{what} {value} is above 32767; TFLM stores it as int16 and would wrap"
        )))
    }
}

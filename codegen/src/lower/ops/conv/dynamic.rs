//! CONV_2D and DEPTHWISE_CONV_2D with weights or a bias computed at run time (a graph input, an
//! operator's output) → `conv::conv2d_dyn_*` and `conv::depthwise_conv2d_dyn_*`. TFLM's Prepare reads only the filter's and bias' types and quantization
//! parameters, which such a tensor carries as a constant does, and its Eval reads the tensors
//! wherever they are: the kernels read them from the arena and sum TFLM's reference terms, with
//! the requantization and clamp computed here as for constant weights.

use super::{geometry::Geometry, reduce_16x8, weights::hybrid};
use crate::error::Result;
use crate::ir::{Activation, DType};
use crate::lower::ops::{kernel, Kernel};
use crate::lower::params::conv as P;
use crate::lower::{Data, Num, OpContext, Operand};

/// The CONV_2D of input shape `i`, filter shape `f` and output shape `out` whose filter or bias is
/// computed at run time; `options_bias_type` is the options' `quantized_bias_type`, which decides
/// an int16 convolution's sums without a bias.
pub(super) fn conv2d_dyn(
    ctx: &OpContext,
    num: Num,
    (i, f, out): (&[usize], &[usize], &[usize]),
    g: &Geometry,
    activation: Activation,
    options_bias_type: Option<tinyaot_schema::tflite::TensorType>,
) -> Result<Kernel> {
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let channels = out[3];
    // The inputs, the bias (of `dtype`, one per output channel) last if there is one.
    let operands = |bias: DType| -> Result<Vec<Operand>> {
        let mut inputs = vec![ctx.input_index(0)?, ctx.input_index(1)?];
        inputs.extend(ctx.bias_index(2, bias, channels)?);
        Ok(vec![
            Operand::Srcs(inputs),
            Operand::Offset(ctx.output_index(0)?),
        ])
    };
    macro_rules! params {
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
                filter_c: f[3],
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
    match num {
        Num::I8 => {
            let int4 = filter.dtype == DType::I4;
            if !int4 {
                ctx.expect_dtype("filter", filter, DType::I8)?;
            }
            ctx.expect_output_dtype("the output", output, DType::I8)?;
            let (s_in, zp_in) = ctx.int8_quant("input", input)?;
            let (s_out, zp_out) = ctx.int8_quant("output", output)?;
            let scales = ctx.weight_scales(filter, channels)?;
            let (multipliers, shifts) =
                ctx.per_channel_multipliers(s_in, &scales, s_out, channels)?;
            let (act_min, act_max) = ctx.activation_range_s8(activation, s_out, zp_out)?;
            let k = kernel(
                if int4 {
                    "conv2d_dyn_w4_s8"
                } else {
                    "conv2d_dyn_s8"
                },
                operands(DType::I32)?,
                params!(Conv2dDyn {
                    multipliers: Data::Values(multipliers),
                    shifts: Data::Values(shifts),
                    input_zero_point: zp_in,
                    output_zero_point: zp_out,
                    act_min: act_min,
                    act_max: act_max,
                }),
            );
            Ok(unpacking_int4(k, int4, f.iter().product()))
        }
        Num::I16 => {
            ctx.expect_dtype("filter", filter, DType::I8)?;
            ctx.expect_output_dtype("the output", output, DType::I16)?;
            let (s_in, zp_in) = ctx.int16_quant("input", input)?;
            let (s_out, zp_out) = ctx.int16_quant("output", output)?;
            super::int16::symmetric_16x8(ctx, zp_in, zp_out)?;
            // As for constant weights: an INT32 bias (or none where the options ask for INT32
            // biases) gives TFLM's 32-bit sums, any other its 64-bit ones, reading the bias as
            // INT64 (another type is refused as the constant case refuses it).
            let narrow = match ctx.optional_input(2) {
                Some(b) => b.dtype == DType::I32,
                None => options_bias_type == Some(tinyaot_schema::tflite::TensorType::INT32),
            };
            let scales = ctx.weight_scales(filter, channels)?;
            let (multipliers, shifts) =
                ctx.per_channel_multipliers(s_in, &scales, s_out, channels)?;
            let (multipliers, shifts, function, bias) = if narrow {
                (multipliers, shifts, "conv2d_dyn_acc32_s16", DType::I32)
            } else {
                let (m, s) = reduce_16x8(ctx, &multipliers, &shifts)?;
                (m, s, "conv2d_dyn_s16", DType::I64)
            };
            let (act_min, act_max) = ctx.activation_range_s16(activation, s_out, 0)?;
            Ok(kernel(
                function,
                operands(bias)?,
                params!(Conv2dDyn {
                    multipliers: Data::Values(multipliers),
                    shifts: Data::Values(shifts),
                    input_zero_point: 0,
                    output_zero_point: 0,
                    act_min: act_min,
                    act_max: act_max,
                }),
            ))
        }
        Num::F32 => {
            if filter.dtype != DType::F32 {
                return Err(hybrid(ctx, filter.dtype));
            }
            ctx.expect_output_dtype("the output", output, DType::F32)?;
            let (act_min, act_max) = ctx.activation_range_f32(activation)?;
            Ok(kernel(
                "conv2d_dyn_f32",
                operands(DType::F32)?,
                params!(Conv2dDynF32 {
                    act_min: act_min,
                    act_max: act_max,
                }),
            ))
        }
    }
}

/// The DEPTHWISE_CONV_2D of input shape `i`, filter shape `f` (`[1, h, w, output channels]`, or
/// more slices of which TFLM reads the first) and output shape `out`, `depth_multiplier` output
/// channels per input channel, whose filter or bias is computed at run time: the kernels of the
/// `conv` module, which walk both convolutions alike.
pub(in crate::lower::ops) fn depthwise_dyn(
    ctx: &OpContext,
    num: Num,
    (i, f, out): (&[usize], &[usize], &[usize]),
    depth_multiplier: usize,
    g: &Geometry,
    activation: Activation,
) -> Result<Kernel> {
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let channels = out[3];
    let operands = |bias: DType| -> Result<Vec<Operand>> {
        let mut inputs = vec![ctx.input_index(0)?, ctx.input_index(1)?];
        inputs.extend(ctx.bias_index(2, bias, channels)?);
        Ok(vec![
            Operand::Srcs(inputs),
            Operand::Offset(ctx.output_index(0)?),
        ])
    };
    macro_rules! params {
        ($ty:ident { $($field:ident: $value:expr),* $(,)? }) => {
            crate::lower::params::conv::$ty {
                batches: i[0],
                input_h: i[1],
                input_w: i[2],
                input_c: i[3],
                output_h: out[1],
                output_w: out[2],
                output_c: out[3],
                filter_h: f[1],
                filter_w: f[2],
                depth_multiplier,
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
    let int4 = filter.dtype == DType::I4;
    let k = match num {
        Num::I8 => {
            if !int4 {
                ctx.expect_dtype("filter", filter, DType::I8)?;
            }
            ctx.expect_output_dtype("the output", output, DType::I8)?;
            let (s_in, zp_in) = ctx.int8_quant("input", input)?;
            let (s_out, zp_out) = ctx.int8_quant("output", output)?;
            let scales = ctx.weight_scales(filter, channels)?;
            let (multipliers, shifts) =
                ctx.per_channel_multipliers(s_in, &scales, s_out, channels)?;
            let (act_min, act_max) = ctx.activation_range_s8(activation, s_out, zp_out)?;
            kernel(
                if int4 {
                    "depthwise_conv2d_dyn_w4_s8"
                } else {
                    "depthwise_conv2d_dyn_s8"
                },
                operands(DType::I32)?,
                params!(DepthwiseConv2dDyn {
                    multipliers: Data::Values(multipliers),
                    shifts: Data::Values(shifts),
                    input_zero_point: zp_in,
                    output_zero_point: zp_out,
                    act_min: act_min,
                    act_max: act_max,
                }),
            )
        }
        Num::I16 => {
            ctx.expect_dtype("filter", filter, DType::I8)?;
            ctx.expect_output_dtype("the output", output, DType::I16)?;
            let (s_in, zp_in) = ctx.int16_quant("input", input)?;
            let (s_out, zp_out) = ctx.int16_quant("output", output)?;
            super::int16::symmetric_16x8(ctx, zp_in, zp_out)?;
            // TFLM's 16x8 depthwise kernel sums in 64 bits and reads any bias as INT64: another
            // type is refused (the bias' type check).
            let scales = ctx.weight_scales(filter, channels)?;
            let (multipliers, shifts) =
                ctx.per_channel_multipliers(s_in, &scales, s_out, channels)?;
            let (multipliers, shifts) = reduce_16x8(ctx, &multipliers, &shifts)?;
            let (act_min, act_max) = ctx.activation_range_s16(activation, s_out, 0)?;
            kernel(
                "depthwise_conv2d_dyn_s16",
                operands(DType::I64)?,
                params!(DepthwiseConv2dDyn {
                    multipliers: Data::Values(multipliers),
                    shifts: Data::Values(shifts),
                    input_zero_point: 0,
                    output_zero_point: 0,
                    act_min: act_min,
                    act_max: act_max,
                }),
            )
        }
        Num::F32 => {
            if filter.dtype != DType::F32 {
                return Err(hybrid(ctx, filter.dtype));
            }
            ctx.expect_output_dtype("the output", output, DType::F32)?;
            let (act_min, act_max) = ctx.activation_range_f32(activation)?;
            kernel(
                "depthwise_conv2d_dyn_f32",
                operands(DType::F32)?,
                params!(DepthwiseConv2dDynF32 {
                    act_min: act_min,
                    act_max: act_max,
                }),
            )
        }
    };
    let n = f[1] * f[2] * out[3];
    Ok(Kernel {
        module: Some("conv"),
        ..unpacking_int4(k, int4, n)
    })
}

/// `k`, an int8 `*_dyn_w4_s8` kernel when `int4`, with the scratch memory it unpacks the `n`
/// weights it reads into: INT4 weights computed at run time can only be an INT4 graph input (no
/// TFLM operator writes INT4), which TFLM's Eval unpacks (`UnpackDenseInt4IntoInt8`, the first
/// `ceil(n / 2)` bytes of its one-byte-per-element buffer) into a scratch buffer at every call
/// before its int8 kernel runs; the generated code takes such an input as its packed bytes.
fn unpacking_int4(mut k: Kernel, int4: bool, n: usize) -> Kernel {
    if int4 {
        k.operands.push(Operand::Scratch(n));
    }
    k
}

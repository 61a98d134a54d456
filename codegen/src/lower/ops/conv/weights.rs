//! The weights, requantization and activation range of an int8 or float convolution, as TFLM's
//! `Prepare` checks and computes them (shared by CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV and the
//! INT4-weight kernels).

use crate::error::{Error, Grounds, Result};
use crate::ir::{Activation, DType};
use crate::lower::{Data, Num, OpContext};

/// The weights, requantization and activation range of a convolution, int8 or float.
pub(in crate::lower::ops) enum ConvQuant {
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
pub(in crate::lower::ops) struct Inputs {
    pub input: usize,
    pub filter: usize,
    pub bias: usize,
}

/// CONV_2D's and DEPTHWISE_CONV_2D's inputs.
pub(in crate::lower::ops) const CONV_INPUTS: Inputs = Inputs {
    input: 0,
    filter: 1,
    bias: 2,
};

/// Type checks, requantization and activation range for an int8 or float convolution with inputs
/// `at` and `channels` output channels (one weight scale, or one per output channel whatever
/// dimension the scales run along: see `OpContext::weight_scales`). An int16 (16x8) convolution
/// is [`quant_16x8`](super::quant_16x8)'s: its lowerings take it there first.
pub(in crate::lower::ops) fn weights_and_range(
    ctx: &OpContext,
    (num, at): (Num, Inputs),
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
            let scales = ctx.weight_scales(filter, channels)?;
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
                return Err(hybrid(ctx, filter.dtype));
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
        Num::I16 => Err(Error::Internal {
            detail: format!(
                "operator #{}: an int16 convolution reached the int8 and float32 weights' checks \
                 (its lowering takes int16 to quant_16x8)",
                ctx.op().source_index
            ),
        }),
    }
}

/// The refusal of a float convolution whose filter has type `t`, not FLOAT32 (hybrid
/// quantization), which TFLM Micro's Prepare refuses.
pub(in crate::lower::ops) fn hybrid(ctx: &OpContext, t: DType) -> Error {
    ctx.invalid(
        format!(
            "float input with {t} filter (hybrid quantization): TFLM Micro does not run it; \
             supported: all-INT8 or all-FLOAT32"
        ),
        Grounds::tflm(
            "ConvPrepare (conv_common.cc), DepthwiseConvPrepare (depthwise_conv_common.cc), \
             TransposeConvPrepare (transpose_conv.cc): TF_LITE_ENSURE_MSG(input and filter \
             types, \"Hybrid models are not supported on TFLite Micro.\")",
        ),
    )
}

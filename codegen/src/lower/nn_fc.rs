//! FULLY_CONNECTED: batches from the weights' depth, per-tensor or per-channel requantization.

use super::{
    activation_range_f32, activation_range_s8, bias, call, constant_input, expect_rank, flavour,
    int8_quant, per_channel_multipliers, requantization, weight_scales, Flavour,
};
use crate::error::Result;
use crate::ir::{DType, Options};
use crate::lower::{CallKind, OpContext, Value};

/// FULLY_CONNECTED → `fully_connected::fully_connected_s8` / `fully_connected::fully_connected_f32`.
pub(super) fn fully_connected(ctx: &OpContext) -> Result<CallKind> {
    let Options::FullyConnected(o) = &ctx.op().options else {
        return Err(ctx.unsupported("missing FullyConnectedOptions"));
    };
    if o.shuffled_weights {
        return Err(ctx.unsupported(
            "shuffled weights format is not supported; supported: the default weights format",
        ));
    }
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let kind = flavour(ctx, input)?;
    expect_rank(ctx, "weights", filter, 2)?;
    let filter_index = constant_input(ctx, 1, "weights")?;
    let (units, depth) = (filter.shape[0], filter.shape[1]);
    if depth == 0 || units == 0 || input.num_elements() % depth != 0 {
        return Err(ctx.unsupported(format!(
            "input {:?} is not a whole number of rows of the weights' depth {depth}",
            input.shape
        )));
    }
    // keep_num_dims only changes the output's shape; the data is batches x units either way.
    // TFLM's Prepare computes the output shape: the input's with the last dimension replaced by
    // `units` under keep_num_dims (which needs the input's last dimension to be the depth), else
    // [batches, units].
    let batches = input.num_elements() / depth;
    let expected: Vec<usize> = if o.keep_num_dims {
        if input.shape.last() != Some(&depth) {
            return Err(ctx.invalid(format!(
                "keep_num_dims needs the input's last dimension to be the weights' depth {depth}; \
                 the input is {:?}",
                input.shape
            )));
        }
        let mut shape = input.shape.clone();
        if let Some(last) = shape.last_mut() {
            *last = units;
        }
        shape
    } else {
        vec![batches, units]
    };
    // Without keep_num_dims TFLM's kernels read the batch count off the output itself, so any
    // output of `batches` rows of `units` runs the same way.
    let fits = if o.keep_num_dims {
        output.shape == expected
    } else {
        output.num_elements() == batches * units && output.shape.last() == Some(&units)
    };
    if !fits {
        return Err(ctx.invalid(format!(
            "output shape {:?} is not the {expected:?} that input {:?} and weights {:?} give{}",
            output.shape,
            input.shape,
            filter.shape,
            if o.keep_num_dims {
                " with keep_num_dims"
            } else {
                ""
            }
        )));
    }
    let mut fields = vec![
        ("batches", Value::Usize(batches)),
        ("input_depth", Value::Usize(depth)),
        ("output_depth", Value::Usize(units)),
    ];
    match kind {
        Flavour::Int8 => {
            ctx.expect_dtype("weights", filter, DType::I8)?;
            ctx.expect_dtype("output", output, DType::I8)?;
            let (s_in, zp_in) = int8_quant(ctx, "input", input)?;
            let (s_out, zp_out) = int8_quant(ctx, "output", output)?;
            let scales = weight_scales(ctx, filter, units, 0)?;
            let (multipliers, shifts) = if scales.len() == 1 {
                // GetQuantizedConvolutionMultipler, in double throughout (as TFLM computes it:
                // taking the product in float first is 1 LSB off for some scale pairs).
                let product = f64::from(s_in) * f64::from(scales[0]);
                check_bias_scale(ctx, product, f64::from(s_out))?;
                let (m, s) = requantization(ctx, product / f64::from(s_out))?;
                (vec![m; units], vec![s; units])
            } else {
                per_channel_multipliers(ctx, s_in, &scales, s_out, units)?
            };
            let (act_min, act_max) = activation_range_s8(ctx, o.activation, s_out, zp_out)?;
            fields.extend([
                ("input_zero_point", Value::I32(zp_in)),
                ("output_zero_point", Value::I32(zp_out)),
                ("filter", Value::Tensor(filter_index)),
                ("bias", bias(ctx, 2, DType::I32, units)?),
                ("multipliers", Value::I32s(multipliers)),
                ("shifts", Value::I8s(shifts)),
                ("act_min", Value::I32(act_min)),
                ("act_max", Value::I32(act_max)),
            ]);
            call(
                ctx,
                "fully_connected",
                "fully_connected_s8",
                "FullyConnectedS8",
                fields,
            )
        }
        Flavour::Float32 => {
            if filter.dtype != DType::F32 {
                return Err(ctx.unsupported(format!(
                    "float input with {} weights (hybrid quantization) is not supported; supported: all-INT8 or all-FLOAT32",
                    filter.dtype
                )));
            }
            ctx.expect_dtype("output", output, DType::F32)?;
            let (act_min, act_max) = activation_range_f32(ctx, o.activation)?;
            fields.extend([
                ("filter", Value::Tensor(filter_index)),
                ("bias", bias(ctx, 2, DType::F32, units)?),
                ("act_min", Value::F32(act_min)),
                ("act_max", Value::F32(act_max)),
            ]);
            call(
                ctx,
                "fully_connected",
                "fully_connected_f32",
                "FullyConnectedF32",
                fields,
            )
        }
    }
}

/// TFLM's per-tensor FULLY_CONNECTED Prepare requires the bias scale to be within 2% of an output
/// step of `input scale × weight scale` (otherwise the integer bias means something else).
fn check_bias_scale(ctx: &OpContext, product: f64, s_out: f64) -> Result<()> {
    let Some(bias) = ctx.optional_input(2) else {
        return Ok(());
    };
    let bias_scale = bias
        .quant
        .as_ref()
        .and_then(|q| q.scales.first().copied())
        .unwrap_or(0.0);
    let diff = (product - f64::from(bias_scale)).abs() / s_out;
    if diff <= 0.02 {
        Ok(())
    } else {
        Err(ctx.invalid(format!(
            "bias scale {bias_scale:e} is not input scale × weight scale ({product:e}); TFLM \
             requires them to differ by at most 2% of the output scale"
        )))
    }
}

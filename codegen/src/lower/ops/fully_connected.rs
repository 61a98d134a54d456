//! FULLY_CONNECTED → `conv::conv2d_1x1_s8` (int8: the same product as a 1×1 convolution's) and
//! `fully_connected::fully_connected_f32`: batches from the weights' depth, per-tensor or
//! per-channel requantization.

use super::conv::{filter_rows, fold, pointwise, ConvQuant};
use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::Result;
use crate::ir::{DType, OpCode, Options};
use crate::lower::params::fully_connected as P;
use crate::lower::{Data, Num, OpContext};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::FULLY_CONNECTED,
    inputs: 2..=3,
    outputs: 1,
    lower: Lowering::Kernel(fully_connected),
}];

/// FULLY_CONNECTED → `conv::conv2d_1x1_s8` / `fully_connected::fully_connected_f32`.
fn fully_connected(ctx: &OpContext) -> Result<Kernel> {
    let Options::FullyConnected(o) = &ctx.op().options else {
        return Err(ctx.unsupported("missing FullyConnectedOptions"));
    };
    if o.shuffled_weights {
        return Err(ctx.unsupported(
            "shuffled weights format is not supported; supported: the default weights format",
        ));
    }
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let num = ctx.input_num(input)?;
    ctx.expect_rank("weights", filter, 2)?;
    let filter_index = ctx.constant_input(1, "weights")?;
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
    match num {
        Num::I8 => {
            ctx.expect_dtype("weights", filter, DType::I8)?;
            ctx.expect_dtype("output", output, DType::I8)?;
            let (s_in, zp_in) = ctx.int8_quant("input", input)?;
            let (s_out, zp_out) = ctx.int8_quant("output", output)?;
            let scales = ctx.weight_scales(filter, units, 0)?;
            let (multipliers, shifts) = if scales.len() == 1 {
                // GetQuantizedConvolutionMultipler, in double throughout (as TFLM computes it:
                // taking the product in float first is 1 LSB off for some scale pairs).
                let product = f64::from(s_in) * f64::from(scales[0]);
                check_bias_scale(ctx, product, f64::from(s_out))?;
                let (m, s) = ctx.requantization(product / f64::from(s_out))?;
                (vec![m; units], vec![s; units])
            } else {
                ctx.per_channel_multipliers(s_in, &scales, s_out, units)?
            };
            let (act_min, act_max) = ctx.activation_range_s8(o.activation, s_out, zp_out)?;
            // The int8 product is a 1×1 convolution's: `batches` pixels of `depth` channels into
            // `units`, the same sums requantized the same way per output (TFLM's per-tensor and
            // per-channel kernels agree once the multiplier is repeated), so it runs on that kernel
            // with the input zero point folded into the bias.
            let quant = ConvQuant::I8 {
                input_zero_point: zp_in,
                output_zero_point: zp_out,
                filter: Data::Tensor(filter_index),
                bias: ctx.bias(2, DType::I32, units)?,
                multipliers: Data::Values(multipliers),
                shifts: Data::Values(shifts),
                act_min,
                act_max,
            };
            let rows = filter_rows(ctx, filter, units)?;
            let folded = fold(ctx, &quant, rows)?;
            Ok(Kernel {
                module: Some("conv"),
                ..pointwise(ctx, (batches, depth, units), folded)?
            })
        }
        Num::F32 => {
            if filter.dtype != DType::F32 {
                return Err(ctx.unsupported(format!(
                    "float input with {} weights (hybrid quantization) is not supported; supported: all-INT8 or all-FLOAT32",
                    filter.dtype
                )));
            }
            ctx.expect_dtype("output", output, DType::F32)?;
            let (act_min, act_max) = ctx.activation_range_f32(o.activation)?;
            Ok(kernel(
                "fully_connected_f32",
                in_out(ctx)?,
                P::FullyConnectedF32 {
                    batches,
                    input_depth: depth,
                    output_depth: units,
                    filter: Data::Tensor(filter_index),
                    bias: ctx.bias(2, DType::F32, units)?,
                    act_min,
                    act_max,
                },
            ))
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

#[cfg(test)]
mod tests {
    use super::super::testing::{field, graph, kernel, quant, tensor};
    use crate::ir::*;
    use crate::lower::Value;

    #[test]
    fn fully_connected_per_tensor_multiplies_scales_in_double() {
        static W: [u8; 6] = [1; 6];
        let (s_in, s_w, s_out) = (0.1f32, 0.3f32, 0.7f32);
        let g = graph(
            OpCode::FULLY_CONNECTED,
            Options::FullyConnected(FullyConnectedOptions {
                activation: Activation::None,
                keep_num_dims: false,
                shuffled_weights: false,
            }),
            vec![
                tensor(&[2, 1, 3], DType::I8, quant(&[s_in], &[5], 0), None),
                tensor(&[2, 3], DType::I8, quant(&[s_w], &[0], 0), Some(&W)),
                tensor(&[2, 2], DType::I8, quant(&[s_out], &[-3], 0), None),
            ],
            &[Some(0), Some(1), None],
        );
        let k = kernel(&g);
        // The int8 product runs on the 1×1 convolution: batches are its pixels.
        assert_eq!((k.module, k.function), ("conv", "conv2d_1x1_s8"));
        assert_eq!(field(&k, "pixels"), &Value::Usize(2));
        assert_eq!(field(&k, "input_c"), &Value::Usize(3));
        // No bias, weights all 1, input zero point 5: -5 * 3 per output.
        assert_eq!(field(&k, "folded_bias"), &Value::I32s(vec![-15, -15]));
        let (m, s) = crate::lower::quant::quantize_multiplier(
            f64::from(s_in) * f64::from(s_w) / f64::from(s_out),
        );
        assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![m, m]));
        assert_eq!(field(&k, "shifts"), &Value::I8s(vec![s as i8, s as i8]));
    }

    #[test]
    fn a_scale_ratio_of_2_pow_31_or_more_is_refused() {
        static W: [u8; 6] = [1; 6];
        // 2^20 * 2^20 / 1: a left shift of 41 bits.
        let (s_in, s_w, s_out) = (1048576.0f32, 1048576.0f32, 1.0f32);
        let g = graph(
            OpCode::FULLY_CONNECTED,
            Options::FullyConnected(FullyConnectedOptions {
                activation: Activation::None,
                keep_num_dims: false,
                shuffled_weights: false,
            }),
            vec![
                tensor(&[2, 1, 3], DType::I8, quant(&[s_in], &[5], 0), None),
                tensor(&[2, 3], DType::I8, quant(&[s_w], &[0], 0), Some(&W)),
                tensor(&[2, 2], DType::I8, quant(&[s_out], &[-3], 0), None),
            ],
            &[Some(0), Some(1), None],
        );
        let message = crate::lower::lower(&g).unwrap_err().to_string();
        assert!(message.contains("FULLY_CONNECTED"), "{message}");
        assert!(message.contains("below 2^31"), "{message}");
    }

    #[test]
    fn float_fully_connected_lowers_to_the_float_kernel() {
        static W: [u8; 8] = [0; 8];
        let g = graph(
            OpCode::FULLY_CONNECTED,
            Options::FullyConnected(FullyConnectedOptions {
                activation: Activation::Relu,
                keep_num_dims: true,
                shuffled_weights: false,
            }),
            vec![
                tensor(&[1, 2], DType::F32, None, None),
                tensor(&[1, 2], DType::F32, None, Some(&W)),
                tensor(&[1, 1], DType::F32, None, None),
            ],
            &[Some(0), Some(1), None],
        );
        let k = kernel(&g);
        assert_eq!(
            (k.function, k.params.as_ref().unwrap().type_name),
            ("fully_connected_f32", "FullyConnectedF32")
        );
        assert_eq!(field(&k, "act_min"), &Value::F32(0.0));
    }
}

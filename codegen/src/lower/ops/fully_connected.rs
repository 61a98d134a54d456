//! FULLY_CONNECTED → `conv::conv2d_1x1_s8` (int8: the same product as a 1×1 convolution's),
//! `fully_connected::fully_connected_{s16,acc32_s16}` (int16 with int8 weights, 64-bit or 32-bit
//! sums) and `fully_connected::fully_connected_f32`: batches from the weights' depth, per-tensor or
//! per-channel requantization. INT4 weights go to [`super::int4`]. Weights computed at run time
//! (TFLM's kernels read the filter tensor at Eval, whatever wrote it) go to
//! `fully_connected::fully_connected_dyn_*`, which read them from the arena and precompute nothing
//! from them.

use super::conv::{
    filter_rows, fold, folded_bias, pointwise, reduce_16x8, swizzle_quads, ConvQuant,
};
use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Options};
use crate::lower::params::fully_connected as P;
use crate::lower::types::Types;
use crate::lower::Operand;
use crate::lower::{Data, Num, OpContext};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::FULLY_CONNECTED,
    types: Types::WEIGHTED,
    inputs: 2..=3,
    outputs: 1,
    lower: Lowering::Kernel(fully_connected),
}];

/// Why an output or input shape FULLY_CONNECTED's kernels cannot run is undefined in TFLM.
const FC_SHAPES_UNCHECKED: &str = "reference_ops::FullyConnected takes the batches from the \
    output shape and the depth from the weights, checked only by TFLITE_DCHECK: another shape \
    reads past the input or the weights, or writes past the output";

/// FULLY_CONNECTED → `conv::conv2d_1x1_s8` / `fully_connected::fully_connected_s16` /
/// `fully_connected::fully_connected_acc32_s16` / `fully_connected::fully_connected_f32`.
fn fully_connected(ctx: &OpContext) -> Result<Kernel> {
    let Options::FullyConnected(o) = &ctx.op().options else {
        // The loader gives an op without options TFLM's defaults (its zeroed params).
        return Err(ctx.internal("no FullyConnected options decoded"));
    };
    if o.shuffled_weights {
        // TFLM ignores the format and reads the bytes in the default layout: a result, but not
        // the one the format means, and the format means one only for types TFLM lacks.
        return Err(ctx.invalid(
            "the SHUFFLED4x16INT8 weights format is defined only for uint8 input and int16 \
             output",
            Grounds::spec(
                "TFLite's ShuffledFullyConnected (reference/fully_connected.h) defines the \
                 shuffled layout for uint8 input and int16 output only, types TFLM's \
                 FULLY_CONNECTED does not have; TFLite's kernel refuses the format otherwise",
            ),
        ));
    }
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let num = ctx.input_num_or_i16(input)?;
    ctx.expect_rank("weights", filter, 2)?;
    let filter_index = ctx.input_index(1)?;
    let (units, depth) = (filter.shape[0], filter.shape[1]);
    // Weights written at run time (an operator's output, a graph input) are read at Eval by TFLM's
    // kernels as constant ones are; the dyn kernels read them where they are. An input depth of 0
    // goes there too: TFLM's reference kernels sum no terms, so each output is the bias
    // requantized (the zero point where there is none), which the dyn kernels' loops compute as
    // written, where the constant-weight kernels walk rows of `depth` values.
    // A bias computed at run time goes there as well: TFLM's Prepare reads only its type and
    // scale, its Eval the tensor wherever it is, where the constant-weight kernels fold the bias
    // into constants.
    let bias_at_run_time = ctx.optional_input(2).is_some_and(|b| !b.is_constant());
    let dynamic = !filter.is_constant() || depth == 0 || bias_at_run_time;
    // TFLM's kernels take the batches from the output (all its dimensions but the last) and the
    // depth from the weights; the input is not checked against either, so they read its first
    // batches × depth values, whatever its shape. keep_num_dims is only TFLite's resizing rule
    // for the output, which TFLM does not apply: the output's shape in the file is what runs.
    let out_units = output.shape.last().copied().unwrap_or(0);
    // The integer kernels take the output's last dimension as the number of units and check it
    // against the weights' only with TFLITE_DCHECK_LE: with fewer, the first ones run (the
    // float kernel takes the weights' count, so another output is written past or left short).
    let first_units = num != Num::F32 && out_units < units;
    if out_units != units && !(first_units && out_units > 0) {
        return Err(ctx.invalid(
            format!(
                "output {:?} does not end in the weights' {units} units (weights {:?})",
                output.shape, filter.shape
            ),
            Grounds::undefined(FC_SHAPES_UNCHECKED),
        ));
    }
    // FlatSizeSkipDim of the last dimension: 1 for an output of the legacy shape [0] (no units,
    // which TFLM runs, writing nothing; another empty output its allocation refuses).
    let batches: usize = output.shape[..output.shape.len().saturating_sub(1)]
        .iter()
        .product();
    if input.num_elements() < batches * depth {
        return Err(ctx.invalid(
            format!(
                "input {:?} has fewer than the {batches} rows of {depth} values that output {:?} \
                 and weights {:?} read",
                input.shape, output.shape, filter.shape
            ),
            Grounds::undefined(FC_SHAPES_UNCHECKED),
        ));
    }
    match num {
        Num::I16 => fully_connected_16x8(
            ctx,
            o.activation,
            (batches, depth, units, out_units),
            dynamic,
        ),
        _ if filter.dtype == DType::I4 => {
            super::int4::fully_connected(ctx, o.activation, (batches, depth, units), out_units)
        }
        Num::I8 => {
            ctx.expect_dtype("weights", filter, DType::I8)?;
            ctx.expect_output_dtype("the output", output, DType::I8)?;
            let (s_in, zp_in) = ctx.int8_quant("input", input)?;
            let (s_out, zp_out) = ctx.int8_quant("output", output)?;
            let (multipliers, shifts) = requantization(ctx, s_in, out_units, s_out)?;
            let (act_min, act_max) = ctx.activation_range_s8(o.activation, s_out, zp_out)?;
            if dynamic {
                return dyn_s8(
                    ctx,
                    (batches, depth, units, out_units),
                    (multipliers, shifts),
                    (zp_in, zp_out, act_min, act_max),
                );
            }
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
            let (mut weights, row) = filter_rows(ctx, filter, units)?;
            weights.truncate(out_units * row);
            let mut folded = fold(ctx, &quant, (weights, row))?;
            folded.bias.truncate(out_units);
            Ok(Kernel {
                module: Some("conv"),
                ..pointwise(ctx, (batches, depth, out_units), folded)?
            })
        }
        Num::F32 => {
            if filter.dtype != DType::F32 {
                return Err(ctx.invalid(
                    format!(
                        "float input with {} weights (hybrid quantization); TFLM's \
                         FULLY_CONNECTED takes all-INT8 or all-FLOAT32",
                        filter.dtype
                    ),
                    Grounds::tflm(
                        "fully_connected.cc FullyConnectedPrepare: \"Input type: %s with filter \
                         type: %s not supported.\"",
                    ),
                ));
            }
            ctx.expect_output_dtype("the output", output, DType::F32)?;
            let (act_min, act_max) = ctx.activation_range_f32(o.activation)?;
            if dynamic {
                return Ok(kernel(
                    "fully_connected_dyn_f32",
                    dyn_operands(ctx, DType::F32, units)?,
                    P::FullyConnectedDynF32 {
                        batches,
                        input_depth: depth,
                        output_depth: units,
                        act_min,
                        act_max,
                    },
                ));
            }
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

/// The requantization multipliers and shifts of the first `units` outputs, per tensor or per
/// channel as the weights' scales are (TFLM's Prepare: the same for int8 and int16 inputs; its
/// kernel reads the multipliers of the output's units, the first per-channel scales whatever
/// dimension they run along).
pub(super) fn requantization(
    ctx: &OpContext,
    s_in: f32,
    units: usize,
    s_out: f32,
) -> Result<(Vec<i32>, Vec<i8>)> {
    let scales = ctx.fc_weight_scales(ctx.input(1)?, units)?;
    if scales.len() == 1 {
        // GetQuantizedConvolutionMultipler, in double throughout (as TFLM computes it: taking the
        // product in float first is 1 LSB off for some scale pairs).
        let product = f64::from(s_in) * f64::from(scales[0]);
        check_bias_scale(ctx, product, f64::from(s_out))?;
        let (m, s) = ctx.requantization(product / f64::from(s_out))?;
        Ok((vec![m; units], vec![s; units]))
    } else {
        ctx.per_channel_multipliers(s_in, &scales, s_out, units)
    }
}

/// FULLY_CONNECTED with int16 activations and int8 weights (TFLM's "16x8"), `batches` rows of
/// `depth` inputs into the first `out_units` of the weights' `units` outputs. Unlike its 16x8 convolutions, TFLM's kernel subtracts the
/// input zero point and adds the output zero point. Its Eval sums in 32 bits (and requantizes as
/// int8 does) for an INT32 bias, or for none when the options' `quantized_bias_type` is INT32;
/// otherwise in 64 bits, reading the bias as int64 whatever its type.
fn fully_connected_16x8(
    ctx: &OpContext,
    activation: crate::ir::Activation,
    (batches, depth, units, out_units): (usize, usize, usize, usize),
    dynamic: bool,
) -> Result<Kernel> {
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    ctx.expect_dtype("weights", filter, DType::I8)?;
    ctx.expect_output_dtype("the output", output, DType::I16)?;
    let (s_in, zp_in) = ctx.int16_quant("input", input)?;
    let (s_out, zp_out) = ctx.int16_quant("output", output)?;
    let (multipliers, shifts) = requantization(ctx, s_in, out_units, s_out)?;
    let (act_min, act_max) = ctx.activation_range_s16(activation, s_out, zp_out)?;
    let bias_type = ctx.optional_input(2).map(|t| t.dtype);
    let options_bias_type = ctx
        .tflite_operator()
        .ok()
        .and_then(|op| op.builtin_options_as_fully_connected_options())
        .map(|o| o.quantized_bias_type());
    let narrow_sums = match bias_type {
        Some(t) => t == DType::I32,
        None => options_bias_type == Some(tinyaot_schema::tflite::TensorType::INT32),
    };
    if dynamic {
        return fully_connected_dyn_16x8(
            ctx,
            (batches, depth, units, out_units),
            (multipliers, shifts),
            (zp_in, zp_out, act_min, act_max),
            narrow_sums,
        );
    }
    let (mut weights, row) = filter_rows(ctx, filter, units)?;
    weights.truncate(out_units * row);
    if narrow_sums {
        let bias = ctx.bias(2, DType::I32, units)?;
        // The input zero point folds into the bias (32-bit sums wrap the same in any order); a
        // bias of more units than run is cut to the ones that do.
        let bias = if zp_in == 0 && out_units == units {
            bias
        } else {
            let mut folded = folded_bias(ctx, (&weights, row), bias.as_ref(), zp_in, units)?;
            folded.truncate(out_units);
            Some(Data::Values(folded))
        };
        return Ok(kernel(
            "fully_connected_acc32_s16",
            in_out(ctx)?,
            P::FullyConnectedAcc32S16 {
                batches,
                input_depth: depth,
                output_depth: out_units,
                filter: Data::Packed(swizzle_quads(&weights, row)),
                bias,
                multipliers: Data::Values(multipliers),
                shifts: Data::Values(shifts),
                output_zero_point: zp_out,
                act_min,
                act_max,
            },
        ));
    }
    if let Some(t) = bias_type.filter(|&t| t != DType::I64) {
        return Err(wide_bias_misread(ctx, t));
    }
    let bias = ctx.bias(2, DType::I64, units)?;
    // The input zero point folds into the bias: the 64-bit sums are exact.
    let bias = if zp_in == 0 && out_units == units {
        bias
    } else {
        let values = match ctx.optional_input(2) {
            Some(b) => ctx.const_ints("bias", b)?,
            None => vec![0; units],
        };
        let folded = weights
            .chunks_exact(row.max(1))
            .zip(values)
            .map(|(w, b)| {
                let sum: i64 = w.iter().map(|&w| i64::from(w)).sum();
                b.wrapping_sub(i64::from(zp_in) * sum)
            })
            .collect();
        Some(Data::Values(folded))
    };
    let (multipliers, shifts) = reduce_16x8(ctx, &multipliers, &shifts)?;
    Ok(kernel(
        "fully_connected_s16",
        in_out(ctx)?,
        P::FullyConnectedS16 {
            batches,
            input_depth: depth,
            output_depth: out_units,
            filter: Data::Packed(swizzle_quads(&weights, row)),
            bias,
            multipliers: Data::Values(multipliers),
            shifts: Data::Values(shifts),
            output_zero_point: zp_out,
            act_min,
            act_max,
        },
    ))
}

/// The refusal of an int16 FULLY_CONNECTED's bias of type `t`, neither INT32 nor INT64, which
/// TFLM reads as INT64.
fn wide_bias_misread(ctx: &OpContext, t: DType) -> crate::error::Error {
    ctx.invalid(
        format!(
            "bias has type {t}: TFLM's int16 FULLY_CONNECTED reads any bias but an INT32 one as \
             INT64, so it would misread this one; supported: an INT64 or INT32 bias, or none"
        ),
        Grounds::undefined(
            "fully_connected.cc reads an int16 model's bias that is not INT32 as int64_t: a \
             narrower bias is read past its end",
        ),
    )
}

/// The operands of a `fully_connected_dyn_*` kernel: input, weights and the bias if any (a
/// `bias` of `units` elements), each wherever it is (the arena, or a constant beside operands
/// computed at run time), then the output.
fn dyn_operands(ctx: &OpContext, bias: DType, units: usize) -> Result<Vec<Operand>> {
    let mut inputs = vec![ctx.input_index(0)?, ctx.input_index(1)?];
    inputs.extend(ctx.bias_index(2, bias, units)?);
    Ok(vec![
        Operand::Srcs(inputs),
        Operand::Offset(ctx.output_index(0)?),
    ])
}

/// The int8 FULLY_CONNECTED of weights computed at run time (and of weights of no input channels,
/// whatever the weights' type: no weight is read): TFLM's sums term by term, the bias as stored.
pub(super) fn dyn_s8(
    ctx: &OpContext,
    dims: (usize, usize, usize, usize),
    rescale: (Vec<i32>, Vec<i8>),
    offsets: (i32, i32, i32, i32),
) -> Result<Kernel> {
    dyn_32_bit_sums(ctx, "fully_connected_dyn_s8", dims, rescale, offsets)
}

/// `function` (`fully_connected_dyn_s8` or `_acc32_s16`, which share their parameters) over
/// weights computed at run time, with 32-bit sums.
fn dyn_32_bit_sums(
    ctx: &OpContext,
    function: &'static str,
    (batches, depth, units, out_units): (usize, usize, usize, usize),
    (multipliers, shifts): (Vec<i32>, Vec<i8>),
    (zp_in, zp_out, act_min, act_max): (i32, i32, i32, i32),
) -> Result<Kernel> {
    Ok(kernel(
        function,
        dyn_operands(ctx, DType::I32, units)?,
        P::FullyConnectedDyn {
            batches,
            input_depth: depth,
            output_depth: out_units,
            multipliers: Data::Values(multipliers),
            shifts: Data::Values(shifts),
            input_zero_point: zp_in,
            output_zero_point: zp_out,
            act_min,
            act_max,
        },
    ))
}

/// The 16x8 FULLY_CONNECTED of weights computed at run time: TFLM's sums term by term, in 32 bits
/// (`narrow_sums`) or 64, with the bias as stored and the requantization of the constant case.
fn fully_connected_dyn_16x8(
    ctx: &OpContext,
    (batches, depth, units, out_units): (usize, usize, usize, usize),
    (multipliers, shifts): (Vec<i32>, Vec<i8>),
    (zp_in, zp_out, act_min, act_max): (i32, i32, i32, i32),
    narrow_sums: bool,
) -> Result<Kernel> {
    if narrow_sums {
        return dyn_32_bit_sums(
            ctx,
            "fully_connected_dyn_acc32_s16",
            (batches, depth, units, out_units),
            (multipliers, shifts),
            (zp_in, zp_out, act_min, act_max),
        );
    }
    if let Some(t) = ctx
        .optional_input(2)
        .map(|t| t.dtype)
        .filter(|&t| t != DType::I64)
    {
        return Err(wide_bias_misread(ctx, t));
    }
    let (multipliers, shifts) = reduce_16x8(ctx, &multipliers, &shifts)?;
    Ok(kernel(
        "fully_connected_dyn_s16",
        dyn_operands(ctx, DType::I64, units)?,
        P::FullyConnectedDynS16 {
            batches,
            input_depth: depth,
            output_depth: out_units,
            multipliers: Data::Values(multipliers),
            shifts: Data::Values(shifts),
            input_zero_point: zp_in,
            output_zero_point: zp_out,
            act_min,
            act_max,
        },
    ))
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
        Err(ctx.invalid(
            format!(
                "bias scale {bias_scale:e} is not input scale × weight scale ({product:e}); TFLM \
                 requires them to differ by at most 2% of the output scale"
            ),
            Grounds::tflm(
                "kernel_util.cc GetQuantizedConvolutionMultipler: TF_LITE_ENSURE(|input \
                 scale × weight scale − bias scale| / output scale <= 0.02)",
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{field, graph, kernel, quant, reason, tensor};
    use crate::ir::*;
    use crate::lower::{Operand, Value};

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
        assert!(message.contains("2^31 or more"), "{message}");
    }

    /// An int8 FULLY_CONNECTED of weights [2, 3] from `input` to `output`.
    fn int8_graph(input: &[usize], output: &[usize], keep_num_dims: bool) -> Graph<'static> {
        static W: [u8; 6] = [1; 6];
        graph(
            OpCode::FULLY_CONNECTED,
            Options::FullyConnected(FullyConnectedOptions {
                activation: Activation::None,
                keep_num_dims,
                shuffled_weights: false,
            }),
            vec![
                tensor(input, DType::I8, quant(&[0.5], &[0], 0), None),
                tensor(&[2, 3], DType::I8, quant(&[0.25], &[0], 0), Some(&W)),
                tensor(output, DType::I8, quant(&[1.0], &[0], 0), None),
            ],
            &[Some(0), Some(1), None],
        )
    }

    /// TFLM takes the batches from the output and reads that many rows of the input, whatever
    /// the input's shape and keep_num_dims say; an input too short for them is read past.
    #[test]
    fn batches_come_from_the_output() {
        for (input, output, keep) in [
            (&[1, 7][..], &[2, 2][..], false),
            (&[2, 4][..], &[1, 2, 2][..], true),
            (&[9][..], &[3, 2][..], false),
        ] {
            let k = kernel(&int8_graph(input, output, keep));
            assert_eq!(
                field(&k, "pixels"),
                &Value::Usize(output[..output.len() - 1].iter().product())
            );
        }
        let message = reason(&int8_graph(&[1, 5], &[2, 2], false));
        assert!(message.contains("fewer than the 2 rows of 3"), "{message}");
        // An output of fewer units than the weights have: the first ones.
        let k = kernel(&int8_graph(&[2, 3], &[2, 1], false));
        assert_eq!(field(&k, "output_c"), &Value::Usize(1));
        assert_eq!(field(&k, "folded_bias"), &Value::I32s(vec![0]));
        let message = reason(&int8_graph(&[2, 3], &[2, 3], false));
        assert!(
            message.contains("does not end in the weights' 2 units"),
            "{message}"
        );
    }

    /// Weights computed at run time (here with no data: a graph input) go to the kernels that
    /// read them from the arena, with the bias as stored and no sum folded into it.
    #[test]
    fn weights_computed_at_run_time_are_read_where_they_are() {
        let mut g = int8_graph(&[2, 3], &[2, 2], false);
        g.tensors[0].quant = quant(&[0.5], &[5], 0);
        g.tensors[1].data = None;
        let k = kernel(&g);
        assert_eq!(k.function, "fully_connected_dyn_s8");
        assert_eq!(
            k.operands,
            vec![Operand::Srcs(vec![0, 1]), Operand::Offset(2)]
        );
        assert_eq!(field(&k, "input_zero_point"), &Value::I32(5));
        assert_eq!(field(&k, "output_depth"), &Value::Usize(2));
        let mut s16 = s16_graph(Some(DType::I64));
        s16.tensors[1].data = None;
        assert_eq!(kernel(&s16).function, "fully_connected_dyn_s16");
        let mut s16 = s16_graph(Some(DType::I32));
        s16.tensors[1].data = None;
        assert_eq!(kernel(&s16).function, "fully_connected_dyn_acc32_s16");
        let mut s16 = s16_graph(Some(DType::I16));
        s16.tensors[1].data = None;
        assert!(reason(&s16).contains("misread"));
    }

    /// A bias computed at run time (here a graph input) beside constant weights goes to the dyn
    /// kernels too, read where it is as the third of their inputs; its type is checked as a
    /// constant one's.
    #[test]
    fn a_bias_computed_at_run_time_is_read_where_it_is() {
        let mut g = s16_graph(Some(DType::I64));
        g.tensors[2].data = None;
        let k = kernel(&g);
        assert_eq!(k.function, "fully_connected_dyn_s16");
        assert_eq!(
            k.operands,
            vec![Operand::Srcs(vec![0, 1, 2]), Operand::Offset(3)]
        );
        let mut g = s16_graph(Some(DType::I32));
        g.tensors[2].data = None;
        assert_eq!(kernel(&g).function, "fully_connected_dyn_acc32_s16");
        let mut g = s16_graph(Some(DType::I16));
        g.tensors[2].data = None;
        assert!(reason(&g).contains("misread"));
    }

    /// Weights of no input channels: TFLM sums no terms, so each output is the bias requantized;
    /// the dyn kernels' loops compute that, with an empty constant for the weights.
    #[test]
    fn an_input_depth_of_0_runs_the_dyn_kernel() {
        static W: [u8; 0] = [];
        let g = graph(
            OpCode::FULLY_CONNECTED,
            Options::FullyConnected(FullyConnectedOptions {
                activation: Activation::None,
                keep_num_dims: false,
                shuffled_weights: false,
            }),
            vec![
                tensor(&[2, 0], DType::F32, None, None),
                tensor(&[3, 0], DType::F32, None, Some(&W)),
                tensor(&[2, 3], DType::F32, None, None),
            ],
            &[Some(0), Some(1), None],
        );
        let k = kernel(&g);
        assert_eq!(k.function, "fully_connected_dyn_f32");
        assert_eq!(field(&k, "input_depth"), &Value::Usize(0));
        assert_eq!(field(&k, "batches"), &Value::Usize(2));
    }

    /// An int16 FULLY_CONNECTED of 2 rows of 3 into 2 outputs with per-channel weights, zero
    /// points 3 (input) and -4 (output), and a bias of type `bias` (10 and -20), if any.
    fn s16_graph(bias: Option<DType>) -> Graph<'static> {
        static W: [u8; 6] = [1, 2, 3, 0xFF, 0xFE, 4];
        static B64: [u8; 16] = [
            10, 0, 0, 0, 0, 0, 0, 0, 0xEC, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        ];
        static B32: [u8; 8] = [10, 0, 0, 0, 0xEC, 0xFF, 0xFF, 0xFF];
        static B16: [u8; 4] = [10, 0, 0xEC, 0xFF];
        let bias = bias.map(|dtype| {
            let data: &'static [u8] = match dtype {
                DType::I64 => &B64,
                DType::I32 => &B32,
                _ => &B16,
            };
            tensor(&[2], dtype, None, Some(data))
        });
        let has_bias = bias.is_some();
        let mut tensors = vec![
            tensor(&[2, 3], DType::I16, quant(&[0.5], &[3], 0), None),
            tensor(
                &[2, 3],
                DType::I8,
                quant(&[0.25, 0.5], &[0, 0], 0),
                Some(&W),
            ),
        ];
        tensors.extend(bias);
        tensors.push(tensor(&[2, 2], DType::I16, quant(&[0.125], &[-4], 0), None));
        graph(
            OpCode::FULLY_CONNECTED,
            Options::FullyConnected(FullyConnectedOptions {
                activation: Activation::None,
                keep_num_dims: false,
                shuffled_weights: false,
            }),
            tensors,
            &[Some(0), Some(1), has_bias.then_some(2)],
        )
    }

    /// An INT64 bias, or none: 64-bit sums, reduced multipliers, the input zero point folded into
    /// the bias (rows of the weights sum to 6 and 1), the output zero point kept.
    #[test]
    fn int16_with_a_64_bit_bias_or_none_sums_in_64_bits() {
        let k = kernel(&s16_graph(Some(DType::I64)));
        assert_eq!(k.function, "fully_connected_s16");
        assert_eq!(
            field(&k, "bias"),
            &Value::Some(Box::new(Value::I64s(vec![10 - 3 * 6, -20 - 3])))
        );
        // 0.5 * 0.25 / 0.125 = 1 = 2^30 * 2^-30 * 2^1; 0.5 * 0.5 / 0.125 = 2 (shift 2).
        assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![1 << 14; 2]));
        assert_eq!(field(&k, "shifts"), &Value::I8s(vec![14, 13]));
        assert_eq!(field(&k, "output_zero_point"), &Value::I32(-4));
        assert_eq!(field(&k, "act_min"), &Value::I32(-32768));
        let k = kernel(&s16_graph(None));
        assert_eq!(k.function, "fully_connected_s16");
        assert_eq!(
            field(&k, "bias"),
            &Value::Some(Box::new(Value::I64s(vec![-3 * 6, -3])))
        );
    }

    /// An INT32 bias: TFLM's 32-bit sums and 32-bit requantization.
    #[test]
    fn int16_with_a_32_bit_bias_sums_in_32_bits() {
        let k = kernel(&s16_graph(Some(DType::I32)));
        assert_eq!(k.function, "fully_connected_acc32_s16");
        assert_eq!(
            field(&k, "bias"),
            &Value::Some(Box::new(Value::I32s(vec![10 - 3 * 6, -20 - 3])))
        );
        assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![1 << 30; 2]));
        assert_eq!(field(&k, "shifts"), &Value::I8s(vec![1, 2]));
    }

    /// TFLM reads any int16 FULLY_CONNECTED bias but an INT32 one as int64.
    #[test]
    fn int16_with_another_bias_type_is_refused() {
        let message = reason(&s16_graph(Some(DType::I16)));
        assert!(message.contains("misread"), "{message}");
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

//! INT4 weights (TFLite's `INT4`, packed two to a byte, low nibble first) → the kernels of
//! `conv_int4`, `depthwise_int4` and `fully_connected_int4`, which read the packed constant
//! directly: the weights stay packed in flash and need no scratch memory.
//!
//! TFLM runs INT4 weights only as the constant filter of CONV_2D, DEPTHWISE_CONV_2D and
//! FULLY_CONNECTED with int8 activations: its Eval unpacks them (`UnpackDenseInt4IntoInt8`, the
//! whole tensor flat, an odd count's last element in a byte of its own) into a scratch buffer
//! and runs its int8 kernel, after a Prepare that is the int8 one (symmetric weights, per-tensor or
//! per-channel scales for the convolutions; one scale for FULLY_CONNECTED, whose Prepare refuses
//! per-channel INT4). [`check_uses`] and [`check_graph_io`] refuse INT4 anywhere else; the
//! operators' own lowerings (`conv.rs`, `depthwise.rs`, `fully_connected.rs`) validate shapes and
//! options as for int8 and hand INT4 filters to the functions here.
//!
//! INT4 weights computed at run time can only be an INT4 graph input (no TFLM operator writes
//! INT4). TFLM holds one at a byte per element and its Eval unpacks the first half as packed
//! nibbles, at every call, as it unpacks a constant: a defined result, compiled by taking the
//! input as its packed bytes and unpacking them into scratch memory before the int8 kernels of
//! weights computed at run time (`*_dyn_w4_s8`; the convolutions' in `conv/dynamic.rs`).

use super::conv::{folded_bias, weights_and_range, ConvQuant, Geometry, CONV_INPUTS};
use super::{in_out, kernel, Kernel};
use crate::error::{Error, Grounds, Result};
use crate::ir::{Activation, DType, Graph, OpCode, Tensor};
use crate::lower::params::{conv_int4, depthwise_int4, fully_connected_int4};
use crate::lower::{Data, Num, OpContext, Operand};

/// What INT4 tensors may be, for messages.
const SUPPORTED: &str = "supported: INT4 only as the weights (input 1, a constant or a graph \
                         input) of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED with INT8 \
                         input and output";

/// Refuses every INT4 tensor of the operator but the constant weights of a CONV_2D,
/// DEPTHWISE_CONV_2D or FULLY_CONNECTED with int8 input and output (what TFLM runs).
pub(in crate::lower) fn check_uses(ctx: &OpContext) -> Result<()> {
    let op = ctx.op();
    let tensors = &ctx.graph().tensors;
    let is_int4 = |t: &usize| tensors[*t].dtype == DType::I4;
    let weighted = matches!(
        op.kind.code(),
        Some(OpCode::CONV_2D | OpCode::DEPTHWISE_CONV_2D | OpCode::FULLY_CONNECTED)
    );
    for (i, t) in op.inputs.iter().enumerate() {
        let Some(t) = t.filter(is_int4) else { continue };
        if !weighted || i != 1 {
            return Err(ctx.invalid(
                format!("input {i} (tensor #{t}) has type INT4; {SUPPORTED}"),
                Grounds::undefined(
                    "TFLM unpacks INT4 only for the weights of CONV_2D, DEPTHWISE_CONV_2D and \
                     FULLY_CONNECTED: any other kernel reads the packed tensor as int8, past its \
                     end",
                ),
            ));
        }
        let input = ctx.input(0)?;
        let output = ctx.output(0)?;
        if input.dtype == DType::I8 {
            // An int8 convolution's output is int8 whatever its weights.
            ctx.same_dtype("the output", output, input)?;
        }
        if input.dtype != DType::I8 || output.dtype != DType::I8 {
            return Err(ctx.invalid(
                format!(
                    "INT4 weights with {} input and {} output (TFLM runs INT4 weights with int8 \
                     activations only); {SUPPORTED}",
                    input.dtype, output.dtype
                ),
                Grounds::tflm(
                    "the Prepare of conv.cc, depthwise_conv.cc and fully_connected.cc: INT4 \
                     weights only with an INT8 input",
                ),
            ));
        }
    }
    for &t in op.outputs.iter().chain(&op.intermediates) {
        if is_int4(&t) {
            return Err(
                ctx.unsupported(format!("tensor #{t} it writes has type INT4; {SUPPORTED}"))
            );
        }
    }
    Ok(())
}

/// Refuses INT4 graph outputs (a constant INT4 tensor too): no TFLM operator writes INT4. An INT4
/// graph input is what INT4 weights computed at run time can only be, which [`check_uses`]
/// accepts as the weights of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED alone: TFLM holds it
/// at one byte per element (`TfLiteTypeSizeOf`) and their Eval unpacks the first `ceil(n / 2)`
/// bytes as packed nibbles (`UnpackDenseInt4IntoInt8`) into a scratch buffer at every call, a
/// defined result the generated code gives by taking the input as its packed bytes.
pub(in crate::lower) fn check_graph_io(graph: &Graph) -> Result<()> {
    if let Some(&t) = graph
        .outputs
        .iter()
        .find(|&&t| graph.tensors[t].dtype == DType::I4)
    {
        return Err(Error::Unsupported {
            detail: format!(
                "graph output tensor #{t} {:?} has type INT4; {SUPPORTED}",
                graph.tensors[t].name
            ),
        });
    }
    Ok(())
}

/// The values of a constant INT4 tensor, unpacked (for the generation-time sums of the folded
/// bias).
fn unpacked(ctx: &OpContext, tensor: &Tensor) -> Result<Vec<i8>> {
    let n = tensor.num_elements();
    tensor
        .data
        .as_deref()
        .filter(|d| d.len() >= n.div_ceil(2))
        .map(|bytes| unpack(bytes, n))
        .ok_or_else(|| {
            ctx.invalid(
                "the INT4 weights have fewer bytes than their shape needs",
                Grounds::undefined(crate::lower::CONSTANT_SHORTER_THAN_SHAPE),
            )
        })
}

/// `n` INT4 values packed in `bytes`, as TFLM's `UnpackDenseInt4IntoInt8` reads them: element
/// `2i` is byte `i`'s low nibble, `2i + 1` its high one, each sign-extended.
fn unpack(bytes: &[u8], n: usize) -> Vec<i8> {
    (0..n)
        .map(|k| {
            let byte = bytes[k / 2];
            let nibble = if k % 2 == 0 { byte << 4 } else { byte & 0xF0 };
            (nibble as i8) >> 4
        })
        .collect()
}

/// The int8 requantization of a convolution with INT4 weights (TFLM's Prepare is the int8 one).
fn conv_quant(ctx: &OpContext, channels: usize, activation: Activation) -> Result<ConvQuant> {
    weights_and_range(ctx, (Num::I8, CONV_INPUTS), channels, activation)
}

/// CONV_2D with INT4 weights → `conv_int4::conv2d_s4`, for the shapes `(input, filter, output)`
/// and window `g` its lowering checked.
pub(in crate::lower::ops) fn conv2d(
    ctx: &OpContext,
    (i, f, out): (&[usize], &[usize], &[usize]),
    g: &Geometry,
    activation: Activation,
) -> Result<Kernel> {
    let ConvQuant::I8 {
        input_zero_point,
        output_zero_point,
        filter,
        bias,
        multipliers,
        shifts,
        act_min,
        act_max,
    } = conv_quant(ctx, out[3], activation)?
    else {
        return Err(ctx.internal(format!(
            "INT4 weights with a float requantization (the input was checked INT8); {SUPPORTED}"
        )));
    };
    let Data::Tensor(filter) = filter else {
        return Err(ctx.internal("INT4 weights that are not a constant tensor"));
    };
    Ok(Kernel {
        module: Some("conv_int4"),
        ..kernel(
            "conv2d_s4",
            in_out(ctx)?,
            conv_int4::Conv2dS4 {
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
                input_zero_point,
                output_zero_point,
                filter: Data::Tensor(filter),
                bias,
                multipliers,
                shifts,
                act_min,
                act_max,
            },
        )
    })
}

/// DEPTHWISE_CONV_2D with INT4 weights → `depthwise_int4::depthwise_conv2d_s4`, for the shapes
/// `(input, filter, output)`, depth multiplier and window `g` its lowering checked.
pub(in crate::lower::ops) fn depthwise(
    ctx: &OpContext,
    (i, f, out): (&[usize], &[usize], &[usize]),
    depth_multiplier: usize,
    g: &Geometry,
    activation: Activation,
) -> Result<Kernel> {
    let ConvQuant::I8 {
        input_zero_point,
        output_zero_point,
        filter,
        bias,
        multipliers,
        shifts,
        act_min,
        act_max,
    } = conv_quant(ctx, out[3], activation)?
    else {
        return Err(ctx.internal(format!(
            "INT4 weights with a float requantization (the input was checked INT8); {SUPPORTED}"
        )));
    };
    let Data::Tensor(filter) = filter else {
        return Err(ctx.internal("INT4 weights that are not a constant tensor"));
    };
    Ok(Kernel {
        module: Some("depthwise_int4"),
        ..kernel(
            "depthwise_conv2d_s4",
            in_out(ctx)?,
            depthwise_int4::DepthwiseConv2dS4 {
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
                input_zero_point,
                output_zero_point,
                filter: Data::Tensor(filter),
                bias,
                multipliers,
                shifts,
                act_min,
                act_max,
            },
        )
    })
}

/// FULLY_CONNECTED with INT4 weights → `fully_connected_int4::fully_connected_s4`: `batches` rows
/// of `depth` inputs into the first `out_units` of the weights' `units` outputs (shapes checked
/// by its lowering), per-tensor
/// requantization as TFLM's Prepare computes it, the input zero point folded into the bias.
pub(in crate::lower::ops) fn fully_connected(
    ctx: &OpContext,
    activation: Activation,
    (batches, depth, units): (usize, usize, usize),
    out_units: usize,
) -> Result<Kernel> {
    let (input, weights, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let (s_in, zp_in) = ctx.int8_quant("input", input)?;
    let (s_out, zp_out) = ctx.int8_quant("output", output)?;
    if ctx.fc_weight_scales(weights, 0)?.len() > 1 {
        return Err(ctx.invalid(
            "INT4 weights with per-channel scales: TFLM's FULLY_CONNECTED refuses them (its \
             Prepare takes per-channel scales with INT8 weights only); supported: INT4 weights \
             with one scale",
            Grounds::tflm(
                "fully_connected.cc FullyConnectedPrepare: per-channel quantization only with INT8 \
                 weights",
            ),
        ));
    }
    let (multipliers, shifts) = super::fully_connected::requantization(ctx, s_in, units, s_out)?;
    let (act_min, act_max) = ctx.activation_range_s8(activation, s_out, zp_out)?;
    if depth == 0 {
        // No weight to unpack or read: TFLM's int8 kernel then sums no terms, as the int8 one of
        // an empty depth does.
        return super::fully_connected::dyn_s8(
            ctx,
            (batches, depth, units, out_units),
            (multipliers, shifts),
            (zp_in, zp_out, act_min, act_max),
        );
    }
    if !weights.is_constant() {
        // INT4 weights computed at run time, an INT4 graph input (see `check_graph_io`): TFLM's
        // Eval unpacks them into a scratch buffer at every call and runs its int8 kernel, as
        // `fully_connected_dyn_w4_s8` does with the rows the outputs read.
        let mut k = super::fully_connected::dyn_s8(
            ctx,
            (batches, depth, units, out_units),
            (multipliers, shifts),
            (zp_in, zp_out, act_min, act_max),
        )?;
        k.function = "fully_connected_dyn_w4_s8";
        k.operands.push(Operand::Scratch(out_units * depth));
        return Ok(k);
    }
    let weights_index = ctx.constant_input(1, "weights")?;
    // A bias computed at run time (FullyConnectedPrepare reads its type and scale, the Eval the
    // tensor wherever it is): `fully_connected_dyn_s4` adds it to the folded zero-point terms.
    let bias_at_run_time = ctx.optional_input(2).is_some_and(|b| !b.is_constant());
    let bias = if bias_at_run_time {
        ctx.bias_index(2, DType::I32, units)?;
        None
    } else {
        ctx.bias(2, DType::I32, units)?
    };
    let values = unpacked(ctx, weights)?;
    let mut folded = folded_bias(ctx, (&values, depth), bias.as_ref(), zp_in, units)?;
    // An output of fewer units: TFLM's reference FullyConnected takes output_depth from the
    // output (TFLITE_DCHECK_LE against the weights'), so the first rows run; the kernel reads
    // only their packed nibbles.
    folded.truncate(out_units);
    Ok(Kernel {
        module: Some("fully_connected_int4"),
        ..kernel(
            if bias_at_run_time {
                "fully_connected_dyn_s4"
            } else {
                "fully_connected_s4"
            },
            if bias_at_run_time {
                vec![
                    Operand::Offset(ctx.input_index(0)?),
                    Operand::Src(ctx.input_index(2)?),
                    Operand::Offset(ctx.output_index(0)?),
                ]
            } else {
                in_out(ctx)?
            },
            fully_connected_int4::FullyConnectedS4 {
                batches,
                input_depth: depth,
                output_depth: out_units,
                output_zero_point: zp_out,
                filter: Data::Tensor(weights_index),
                folded_bias: Data::Values(folded),
                multiplier: multipliers.first().copied().unwrap_or_default(),
                shift: shifts.first().copied().map_or(0, i32::from),
                act_min,
                act_max,
            },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{graph, kernel, per_tensor, tensor};
    use super::unpack;
    use crate::ir::{Activation, DType, FullyConnectedOptions, OpCode, Options};
    use crate::lower::Operand;

    /// INT4 weights that are a graph input: the int8 kernel of weights computed at run time
    /// after an unpacking into scratch memory of one byte per weight the outputs read.
    #[test]
    fn weights_input_unpacks_into_scratch() {
        let mut g = graph(
            OpCode::FULLY_CONNECTED,
            Options::FullyConnected(FullyConnectedOptions {
                activation: Activation::None,
                keep_num_dims: false,
                shuffled_weights: false,
            }),
            vec![
                tensor(&[2, 7], DType::I8, per_tensor(0.05, 3), None),
                tensor(&[5, 7], DType::I4, per_tensor(0.03, 0), None),
                tensor(&[2, 5], DType::I8, per_tensor(0.08, -2), None),
            ],
            &[Some(0), Some(1), None],
        );
        g.tensors[1].bytes = 18;
        g.inputs.push(1);
        let k = kernel(&g);
        assert_eq!(k.function, "fully_connected_dyn_w4_s8");
        assert_eq!(k.operands[0], Operand::Srcs(vec![0, 1]));
        assert_eq!(k.operands[2], Operand::Scratch(35));
    }

    #[test]
    fn unpacks_low_nibble_first_and_odd_counts() {
        // TFLM's example: {0x12, 0x34} is {2, 1, 4, 3}; an odd count ignores the last high nibble.
        assert_eq!(
            unpack(&[0x12, 0x34, 0xF8, 0x97], 7),
            vec![2, 1, 4, 3, -8, -1, 7]
        );
    }
}

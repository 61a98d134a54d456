//! Neural-network ops: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, pools, SOFTMAX, LOGISTIC, TANH.
//!
//! Each lowering validates what TFLM's Prepare validates (and what our kernels assume), computes what
//! Prepare computes, and fills the kernel's parameter struct with fields named and ordered exactly as
//! in the runtime (`tinyaot::kernels::{conv, depthwise, fully_connected, pool, softmax,
//! logistic_tanh}`).

#[path = "nn_conv.rs"]
mod conv;
#[path = "nn_fc.rs"]
mod fc;
#[path = "nn_pool.rs"]
mod pool;
#[path = "nn_softmax.rs"]
mod softmax;
#[cfg(test)]
#[path = "nn_tests.rs"]
mod tests;

use super::{quant, CallKind, KernelCall, OpContext, Operand, Params, Value};
use crate::error::Result;
use crate::ir::{Activation, DType, OpCode, Tensor};

/// The builtin codes [`lower`] handles.
pub(super) const SUPPORTED: &[OpCode] = &[
    OpCode::CONV_2D,
    OpCode::DEPTHWISE_CONV_2D,
    OpCode::FULLY_CONNECTED,
    OpCode::AVERAGE_POOL_2D,
    OpCode::MAX_POOL_2D,
    OpCode::SOFTMAX,
    OpCode::LOGISTIC,
    OpCode::TANH,
];

/// Lowers one op whose code is in [`SUPPORTED`].
pub(super) fn lower(ctx: &OpContext, code: OpCode) -> Result<CallKind> {
    match code {
        OpCode::CONV_2D => conv::conv2d(ctx),
        OpCode::DEPTHWISE_CONV_2D => conv::depthwise(ctx),
        OpCode::FULLY_CONNECTED => fc::fully_connected(ctx),
        OpCode::AVERAGE_POOL_2D => pool::pool(ctx, pool::Kind::Average),
        OpCode::MAX_POOL_2D => pool::pool(ctx, pool::Kind::Max),
        OpCode::SOFTMAX => softmax::softmax(ctx),
        OpCode::LOGISTIC => softmax::logistic_or_tanh(ctx, softmax::Curve::Logistic),
        OpCode::TANH => softmax::logistic_or_tanh(ctx, softmax::Curve::Tanh),
        _ => Err(super::unsupported_op(ctx)),
    }
}

/// The numeric flavour of an op: all-int8 with int32 bias, or all-float32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flavour {
    Int8,
    Float32,
}

/// The flavour of an op from its first input's type; anything else is refused with what is supported.
fn flavour(ctx: &OpContext, input: &Tensor) -> Result<Flavour> {
    match input.dtype {
        DType::I8 => Ok(Flavour::Int8),
        DType::F32 => Ok(Flavour::Float32),
        other => Err(ctx.unsupported(format!(
            "input type {other} is not supported; supported: INT8 (quantized) and FLOAT32"
        ))),
    }
}

/// A kernel call with one arena input and one arena output.
fn call(
    ctx: &OpContext,
    module: &'static str,
    function: &'static str,
    type_name: &'static str,
    fields: Vec<(&'static str, Value)>,
) -> Result<CallKind> {
    Ok(CallKind::Kernel(KernelCall {
        module,
        function,
        operands: vec![
            Operand::Offset(ctx.input_index(0)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        params: Some(Params { type_name, fields }),
    }))
}

/// Fails unless `tensor` has exactly `rank` dimensions.
fn expect_rank(ctx: &OpContext, what: &str, tensor: &Tensor, rank: usize) -> Result<()> {
    if tensor.shape.len() == rank {
        Ok(())
    } else {
        Err(ctx.unsupported(format!(
            "{what} has shape {:?}; only rank {rank} is supported",
            tensor.shape
        )))
    }
}

/// The tensor index of a weights-like input that must be constant (in flash).
fn constant_input(ctx: &OpContext, i: usize, what: &str) -> Result<usize> {
    let index = ctx.input_index(i)?;
    if ctx.graph().tensors[index].is_constant() {
        Ok(index)
    } else {
        Err(ctx.unsupported(format!(
            "{what} is computed at run time; only constant {what} is supported"
        )))
    }
}

/// The optional bias at input `i`: `None`, or a constant of `dtype` with `len` elements.
fn bias(ctx: &OpContext, i: usize, dtype: DType, len: usize) -> Result<Value> {
    let Some(index) = ctx.op().input(i) else {
        return Ok(Value::None);
    };
    let tensor = &ctx.graph().tensors[index];
    ctx.expect_dtype("bias", tensor, dtype)?;
    if !tensor.is_constant() {
        return Err(
            ctx.unsupported("bias is computed at run time; only a constant bias is supported")
        );
    }
    if tensor.num_elements() != len {
        return Err(ctx.unsupported(format!(
            "bias has {} elements, expected one per output channel ({len})",
            tensor.num_elements()
        )));
    }
    Ok(Value::Some(Box::new(Value::Tensor(index))))
}

/// The fused activation's int8 output range, or an error for TANH / SIGN_BIT.
fn activation_range_s8(
    ctx: &OpContext,
    activation: Activation,
    scale: f32,
    zp: i32,
) -> Result<(i32, i32)> {
    activation_range(ctx, activation, scale, zp, -128, 127)
}

/// `CalculateActivationRangeQuantized` for an output of range `[qmin, qmax]`, refusing bounds
/// whose quantized value overflows `int32` (TFLM's Prepare refuses those) and TANH / SIGN_BIT.
pub(super) fn activation_range(
    ctx: &OpContext,
    activation: Activation,
    scale: f32,
    zp: i32,
    qmin: i32,
    qmax: i32,
) -> Result<(i32, i32)> {
    let bound = |value: f32| ctx.quantize_bound("fused activation bound", value, scale, zp);
    let (lo, hi) = match activation {
        Activation::None => (qmin, qmax),
        Activation::Relu => (qmin.max(bound(0.0)?), qmax),
        Activation::Relu6 => (qmin.max(bound(0.0)?), qmax.min(bound(6.0)?)),
        Activation::ReluN1To1 => (qmin.max(bound(-1.0)?), qmax.min(bound(1.0)?)),
        Activation::Tanh | Activation::SignBit => {
            return Err(unsupported_activation(ctx, activation))
        }
    };
    Ok((lo, hi))
}

/// The fused activation's float range, or an error for TANH / SIGN_BIT.
fn activation_range_f32(ctx: &OpContext, activation: Activation) -> Result<(f32, f32)> {
    quant::activation_range_f32(activation).ok_or_else(|| unsupported_activation(ctx, activation))
}

fn unsupported_activation(ctx: &OpContext, activation: Activation) -> crate::error::Error {
    ctx.unsupported(format!(
        "fused activation {activation:?} is not supported; supported: NONE, RELU, RELU6, RELU_N1_TO_1"
    ))
}

/// The validated per-tensor `(scale, zero_point)` of an int8 activation.
fn int8_quant(ctx: &OpContext, what: &str, tensor: &Tensor) -> Result<(f32, i32)> {
    ctx.int8_quant(what, tensor)
}

/// Scales of a symmetric int8 weight tensor: one, or one per channel of `channels` along `axis`.
/// Fails for other counts, another axis, or a non-zero zero point.
fn weight_scales(
    ctx: &OpContext,
    weights: &Tensor,
    channels: usize,
    axis: usize,
) -> Result<Vec<f32>> {
    let Some(q) = &weights.quant else {
        return Err(ctx.unsupported("weights have no quantization parameters"));
    };
    if q.zero_points.iter().any(|&z| z != 0) {
        return Err(ctx.unsupported(
            "weights have a non-zero zero point; only symmetric (zero point 0) int8 weights are supported",
        ));
    }
    for &scale in &q.scales {
        ctx.check_scale("weight", scale)?;
    }
    match q.scales.len() {
        1 => Ok(q.scales.clone()),
        n if n == channels && q.axis == axis => Ok(q.scales.clone()),
        n => Err(ctx.unsupported(format!(
            "weights have {n} scales along dimension {}; supported: one, or one per output channel ({channels}) along dimension {axis}",
            q.axis
        ))),
    }
}

/// Per-channel `QuantizeMultiplier((double)s_in * (double)s_w[c] / (double)s_out)`, one per channel
/// (a single weight scale is repeated), as TFLM's conv and per-channel fully-connected Prepare do.
fn per_channel_multipliers(
    ctx: &OpContext,
    s_in: f32,
    s_w: &[f32],
    s_out: f32,
    channels: usize,
) -> Result<(Vec<i32>, Vec<i8>)> {
    (0..channels)
        .map(|c| {
            let s = if s_w.len() == 1 { s_w[0] } else { s_w[c] };
            requantization(ctx, f64::from(s_in) * f64::from(s) / f64::from(s_out))
        })
        .collect()
}

/// `QuantizeMultiplier(real)` with the shift as the `i8` the kernels store. A ratio of scales of
/// 2^31 or more would need a left shift of 32 bits or more, which TFLM's integer kernels cannot do
/// either (the shift overflows `int32`): refused. Small ratios give shift -31 at the least.
fn requantization(ctx: &OpContext, real: f64) -> Result<(i32, i8)> {
    let (multiplier, shift) = ctx.multiplier("input scale * weight scale / output scale", real)?;
    // `multiplier` keeps the shift within -31..=31.
    let shift =
        i8::try_from(shift).map_err(|_| ctx.invalid("requantization shift out of range"))?;
    Ok((multiplier, shift))
}

//! Element-wise and data-movement ops: ADD, SUB, MUL, MAXIMUM, MINIMUM, QUANTIZE, DEQUANTIZE, PAD,
//! PADV2, MEAN, CONCATENATION, TRANSPOSE, STRIDED_SLICE, RELU, RELU6, LEAKY_RELU, HARD_SWISH.
//!
//! Each lowering restates what the TFLM kernel's Prepare (and the shape-dependent part of its Eval)
//! computes, and rejects what TFLM rejects, with a message naming the op.

#[path = "tensor_ops_binary.rs"]
mod binary;
#[path = "tensor_ops_shape.rs"]
mod shape;
#[path = "tensor_ops_unary.rs"]
mod unary;

use super::{CallKind, KernelCall, OpContext, Operand, Params, Value};
use crate::error::Result;
use crate::ir::{DType, OpCode, Tensor};

/// The builtin codes [`lower`] handles.
pub(super) const SUPPORTED: &[OpCode] = &[
    OpCode::ADD,
    OpCode::SUB,
    OpCode::MUL,
    OpCode::MAXIMUM,
    OpCode::MINIMUM,
    OpCode::QUANTIZE,
    OpCode::DEQUANTIZE,
    OpCode::PAD,
    OpCode::PADV2,
    OpCode::MEAN,
    OpCode::CONCATENATION,
    OpCode::TRANSPOSE,
    OpCode::STRIDED_SLICE,
    OpCode::RELU,
    OpCode::RELU6,
    OpCode::LEAKY_RELU,
    OpCode::HARD_SWISH,
];

/// Lowers one op whose code is in [`SUPPORTED`].
pub(super) fn lower(ctx: &OpContext, code: OpCode) -> Result<CallKind> {
    match code {
        OpCode::ADD | OpCode::SUB | OpCode::MUL => binary::arithmetic(ctx, code),
        OpCode::MAXIMUM | OpCode::MINIMUM => binary::min_max(ctx, code),
        OpCode::QUANTIZE => unary::quantize(ctx),
        OpCode::DEQUANTIZE => unary::dequantize(ctx),
        OpCode::RELU => unary::relu(ctx),
        OpCode::RELU6 => unary::relu6(ctx),
        OpCode::LEAKY_RELU => unary::leaky_relu(ctx),
        OpCode::HARD_SWISH => unary::hard_swish(ctx),
        OpCode::PAD | OpCode::PADV2 => shape::pad(ctx),
        OpCode::MEAN => shape::mean(ctx),
        OpCode::CONCATENATION => shape::concatenation(ctx),
        OpCode::TRANSPOSE => shape::transpose(ctx),
        OpCode::STRIDED_SLICE => shape::strided_slice(ctx),
        _ => Err(super::unsupported_op(ctx)),
    }
}

/// A kernel call step.
fn kernel(
    module: &'static str,
    function: &'static str,
    operands: Vec<Operand>,
    type_name: &'static str,
    fields: Vec<(&'static str, Value)>,
) -> CallKind {
    CallKind::Kernel(KernelCall {
        module,
        function,
        operands,
        params: Some(Params { type_name, fields }),
    })
}

/// The element types the arithmetic kernels here implement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Num {
    /// Quantized int8.
    I8,
    /// float32.
    F32,
}

/// The kernel flavour for `tensor`: int8 or float32; anything else is refused.
fn num_type(ctx: &OpContext, what: &str, tensor: &Tensor) -> Result<Num> {
    match tensor.dtype {
        DType::I8 => Ok(Num::I8),
        DType::F32 => Ok(Num::F32),
        other => Err(ctx.unsupported(format!(
            "{what} has type {other}; only INT8 and FLOAT32 are supported"
        ))),
    }
}

/// Fails unless `tensor` has the same element type as `like`.
fn same_dtype(ctx: &OpContext, what: &str, tensor: &Tensor, like: &Tensor) -> Result<()> {
    ctx.expect_dtype(what, tensor, like.dtype)
}

/// The integer contents of a constant INT32 or INT64 tensor (read at generation time).
fn const_ints(ctx: &OpContext, what: &str, tensor: &Tensor) -> Result<Vec<i64>> {
    let Some(data) = tensor.data else {
        return Err(ctx.unsupported(format!(
            "{what} is not a constant tensor; only constant {what} tensors are supported"
        )));
    };
    let n = tensor.num_elements();
    let values: Option<Vec<i64>> = match tensor.dtype {
        DType::I32 => (0..n)
            .map(|i| {
                data.get(4 * i..4 * i + 4)
                    .map(|b| i32::from_le_bytes(b.try_into().unwrap()) as i64)
            })
            .collect(),
        DType::I64 => (0..n)
            .map(|i| {
                data.get(8 * i..8 * i + 8)
                    .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
            })
            .collect(),
        other => {
            return Err(ctx.unsupported(format!("{what} has type {other}; expected INT32 or INT64")))
        }
    };
    values.ok_or_else(|| ctx.unsupported(format!("{what} has fewer bytes than its shape needs")))
}

/// Row-major element strides of `shape`.
fn strides_of(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// The one operand list of a unary kernel: input offset, output offset.
fn unary_operands(ctx: &OpContext) -> Result<Vec<Operand>> {
    let input = ctx.input_index(0)?;
    if ctx.graph().tensors[input].is_constant() {
        return Err(ctx.unsupported(
            "the input is a constant tensor; constant inputs to this op are not supported (fold it offline)",
        ));
    }
    Ok(vec![
        Operand::Offset(input),
        Operand::Offset(ctx.output_index(0)?),
    ])
}

#[cfg(test)]
#[path = "tensor_ops_tests.rs"]
mod tests;

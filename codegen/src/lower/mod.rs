//! Lowering: what TFLM computes in each kernel's Prepare (requantization multipliers and shifts,
//! padding, activation ranges, broadcast strides), done once at generation time.
//!
//! The result is a list of [`Call`]s: for each operator, the runtime kernel to call, its arena
//! operands, and the fields of its `'static` parameter struct. Both backends render the same calls;
//! they differ only in syntax. A kernel's Rust parameter struct lives at
//! `tinyaot::kernels::<module>::<params type>` and its fields are exactly [`Params::fields`], in order.

pub mod context;
mod nn;
pub mod quant;
mod tensor_ops;

use crate::error::{Error, Result};
use crate::ir::{Graph, OpCode, OpKind};
pub use context::OpContext;

/// One step of the generated `invoke`.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// Index of the operator this call implements.
    pub op: usize,
    /// What the step does.
    pub kind: CallKind,
}

/// The two forms a step takes.
#[derive(Clone, Debug, PartialEq)]
pub enum CallKind {
    /// A call `tinyaot::kernels::<module>::<function>(arena, operands…, &PARAMS)`.
    Kernel(KernelCall),
    /// The output holds the input's bytes unchanged (RESHAPE and friends). Nothing is emitted when the
    /// plan gives both tensors the same storage; otherwise the emitter copies `input` to `output`.
    Alias {
        /// Input tensor index.
        input: usize,
        /// Output tensor index.
        output: usize,
    },
}

/// A kernel call with everything constant.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelCall {
    /// Module under `tinyaot::kernels` (Rust) / kernel source file stem (C), e.g. `"conv"`.
    pub module: &'static str,
    /// Function name, e.g. `"conv2d_s8"`.
    pub function: &'static str,
    /// Arena operands in the order the kernel takes them (inputs, then outputs).
    pub operands: Vec<Operand>,
    /// The parameter struct, if the kernel takes one (it is then the last argument, by reference).
    pub params: Option<Params>,
}

/// How a tensor is passed to a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A byte offset into the arena (`usize`); the tensor must be an arena tensor.
    Offset(usize),
    /// A `tinyaot::Src`: `Src::Arena(offset)` for an arena tensor, `Src::Flash(bytes)` for a constant.
    Src(usize),
}

/// A kernel's parameter struct: `tinyaot::kernels::<module>::<type_name> { fields… }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// The struct's name, e.g. `"Conv2dS8"`.
    pub type_name: &'static str,
    /// Field names and values, in declaration order.
    pub fields: Vec<(&'static str, Value)>,
}

/// A constant field value. The Rust emitter renders these as literals of the field's type.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A `usize`.
    Usize(usize),
    /// An `i32`.
    I32(i32),
    /// An `f32` (rendered exactly).
    F32(f32),
    /// A `bool`.
    Bool(bool),
    /// A `&'static [usize]`.
    Usizes(Vec<usize>),
    /// A `&'static [i8]`.
    I8s(Vec<i8>),
    /// A `&'static [i32]`.
    I32s(Vec<i32>),
    /// A `&'static [f32]`.
    F32s(Vec<f32>),
    /// The data of a constant tensor as a typed slice: `&[i8]` for INT8, `&[i32]` for INT32,
    /// `&[f32]` for FLOAT32, `&[u8]` otherwise.
    Tensor(usize),
    /// `Some(value)`.
    Some(Box<Value>),
    /// `None`.
    None,
}

/// Lowers every operator of `graph`, in execution order.
pub fn lower(graph: &Graph) -> Result<Vec<Call>> {
    let mut calls = Vec::with_capacity(graph.operators.len());
    for index in 0..graph.operators.len() {
        let ctx = OpContext::new(graph, index);
        calls.push(Call {
            op: index,
            kind: lower_op(&ctx)?,
        });
    }
    Ok(calls)
}

/// The operators this build compiles, by name, sorted.
pub fn supported_ops() -> Vec<String> {
    let mut names: Vec<String> = RESHAPE_LIKE
        .iter()
        .chain(nn::SUPPORTED)
        .chain(tensor_ops::SUPPORTED)
        .map(|code| code.name())
        .collect();
    names.sort();
    names
}

/// Ops whose output is their input's bytes.
const RESHAPE_LIKE: &[OpCode] = &[OpCode::RESHAPE, OpCode::SQUEEZE, OpCode::EXPAND_DIMS];

/// `(least inputs, most inputs, outputs)` of each supported operator, as TFLM's Prepare checks
/// them (`NumInputs` counts absent optional inputs).
fn arity(code: OpCode) -> Option<(usize, usize, usize)> {
    Some(match code {
        OpCode::CONV_2D | OpCode::DEPTHWISE_CONV_2D | OpCode::FULLY_CONNECTED => (2, 3, 1),
        OpCode::ADD | OpCode::SUB | OpCode::MUL | OpCode::MAXIMUM | OpCode::MINIMUM => (2, 2, 1),
        OpCode::PAD | OpCode::PADV2 => (2, 3, 1),
        OpCode::MEAN | OpCode::TRANSPOSE | OpCode::EXPAND_DIMS => (2, 2, 1),
        OpCode::RESHAPE => (1, 2, 1),
        OpCode::STRIDED_SLICE => (4, 4, 1),
        // TFLM's kMaxInputNum.
        OpCode::CONCATENATION => (1, 10, 1),
        OpCode::AVERAGE_POOL_2D
        | OpCode::MAX_POOL_2D
        | OpCode::SOFTMAX
        | OpCode::LOGISTIC
        | OpCode::TANH
        | OpCode::QUANTIZE
        | OpCode::DEQUANTIZE
        | OpCode::RELU
        | OpCode::RELU6
        | OpCode::LEAKY_RELU
        | OpCode::HARD_SWISH
        | OpCode::SQUEEZE => (1, 1, 1),
        _ => return None,
    })
}

fn lower_op(ctx: &OpContext) -> Result<CallKind> {
    let Some((min, max, outputs)) = ctx.op().kind.code().and_then(arity) else {
        return Err(unsupported_op(ctx));
    };
    ctx.expect_arity(min, max, outputs)?;
    let op = ctx.op();
    for t in op.inputs.iter().flatten().chain(&op.outputs) {
        let tensor = &ctx.graph().tensors[*t];
        if tensor.is_variable {
            return Err(ctx.unsupported(format!(
                "tensor #{t} {:?} is a variable (state kept between invocations); stateful \
                 models are not supported yet",
                tensor.name
            )));
        }
    }
    match &ctx.op().kind {
        OpKind::Builtin(code) if RESHAPE_LIKE.contains(code) => reshape_like(ctx, *code),
        OpKind::Builtin(code) if nn::SUPPORTED.contains(code) => nn::lower(ctx, *code),
        OpKind::Builtin(code) if tensor_ops::SUPPORTED.contains(code) => {
            tensor_ops::lower(ctx, *code)
        }
        _ => Err(unsupported_op(ctx)),
    }
}

/// RESHAPE, SQUEEZE, EXPAND_DIMS: the output is the input's bytes; the shapes must be what the
/// op's definition gives, or TFLM's Prepare refuses.
fn reshape_like(ctx: &OpContext, code: OpCode) -> Result<CallKind> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if input.is_constant() {
        return Err(ctx.unsupported(
            "the input is a constant tensor; reshaping a constant at run time is not supported \
             (fold it into a constant of the new shape offline, as the TFLite converter does)",
        ));
    }
    if code == OpCode::SQUEEZE {
        let dims = match &ctx.op().options {
            crate::ir::Options::Squeeze { squeeze_dims } => squeeze_dims.clone(),
            _ => Vec::new(),
        };
        let rank = input.shape.len();
        let mut squeezed = vec![false; rank];
        if dims.is_empty() {
            for (d, &size) in input.shape.iter().enumerate() {
                squeezed[d] = size == 1;
            }
        }
        for &d in &dims {
            let axis = if d < 0 {
                i64::from(d) + rank as i64
            } else {
                i64::from(d)
            };
            if axis < 0 || axis >= rank as i64 || input.shape[axis as usize] != 1 {
                return Err(ctx.invalid(format!(
                    "squeeze_dims {dims:?}: {d} is not a dimension of size 1 of the input {:?}",
                    input.shape
                )));
            }
            squeezed[axis as usize] = true;
        }
        let expected: Vec<usize> = (0..rank)
            .filter(|&d| !squeezed[d])
            .map(|d| input.shape[d])
            .collect();
        if output.shape != expected {
            return Err(ctx.invalid(format!(
                "output shape {:?} is not the squeezed input shape {expected:?}",
                output.shape
            )));
        }
    }
    ctx.alias()
}

/// The error for an operator no lowering handles.
pub(crate) fn unsupported_op(ctx: &OpContext) -> Error {
    Error::UnsupportedOp {
        op: ctx.op().kind.name(),
        index: ctx.index(),
        supported: supported_ops(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_the_supported_ops_have_an_arity() {
        let supported: Vec<OpCode> = RESHAPE_LIKE
            .iter()
            .chain(nn::SUPPORTED)
            .chain(tensor_ops::SUPPORTED)
            .copied()
            .collect();
        for code in &supported {
            assert!(arity(*code).is_some(), "{} has no arity", code.name());
        }
        for n in 0..256 {
            let code = OpCode(n);
            assert_eq!(
                arity(code).is_some(),
                supported.contains(&code),
                "{}",
                code.name()
            );
        }
    }
}

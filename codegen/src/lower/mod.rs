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

fn lower_op(ctx: &OpContext) -> Result<CallKind> {
    match &ctx.op().kind {
        OpKind::Builtin(code) if RESHAPE_LIKE.contains(code) => ctx.alias(),
        OpKind::Builtin(code) if nn::SUPPORTED.contains(code) => nn::lower(ctx, *code),
        OpKind::Builtin(code) if tensor_ops::SUPPORTED.contains(code) => {
            tensor_ops::lower(ctx, *code)
        }
        _ => Err(unsupported_op(ctx)),
    }
}

/// The error for an operator no lowering handles.
pub(crate) fn unsupported_op(ctx: &OpContext) -> Error {
    Error::UnsupportedOp {
        op: ctx.op().kind.name(),
        index: ctx.index(),
        supported: supported_ops(),
    }
}

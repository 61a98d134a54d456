//! Lowering: what TFLM computes in each kernel's Prepare (requantization multipliers and shifts,
//! padding, activation ranges, broadcast strides), done once at generation time.
//!
//! The result is a list of [`Call`]s: for each operator, the runtime kernel to call, its arena
//! operands, and the fields of its `'static` parameter struct. Both backends render the same calls;
//! they differ only in syntax. A kernel's Rust parameter struct lives at
//! `tinyaot::kernels::<module>::<params type>` and its fields are exactly [`Params::fields`], in order.
//!
//! Each operator is lowered by its family in `ops/<family>.rs`, named like the kernel module its
//! calls name; the registry there (`ops/mod.rs`) is the one list of supported operators, their
//! arities and which ones only reshape. `context.rs` holds the validation every family shares.

mod access;
mod context;
pub(crate) mod ops;
pub(crate) mod params;
pub mod quant;
pub mod types;

use crate::error::{Error, Grounds, Result};
use crate::ir::{DType, Graph, OpCode, OpKind};
pub use access::{keeps, Access, Contract, Stream, CONTRACTS};
pub(crate) use context::{
    Num, OpContext, CONSTANT_SHORTER_THAN_SHAPE, MORE_THAN_SIX_DIMENSIONS,
    SHAPES_CHECKED_ONLY_BY_DCHECK,
};
pub(crate) use ops::{is_reshape_like, shape_bytes, zeros_like_bytes};

/// One step of the generated `invoke`.
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The operator this call implements: its position in [`Graph::operators`](crate::ir::Graph).
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
    /// Nothing happens at run time: the operator's effect was compiled away (VAR_HANDLE, whose
    /// variable is a tensor of the IR; CALL_ONCE, whose init subgraph the loader evaluated).
    Nothing,
    /// An inlined IF's output ([`IfStep::Select`](crate::ir::IfStep::Select)): the emitter copies
    /// `then` to `output` when the byte of `cond` is nonzero, else `otherwise`.
    Select {
        /// The IF's condition tensor (BOOL, one element).
        cond: usize,
        /// The then branch's output tensor.
        then: usize,
        /// The else branch's output tensor.
        otherwise: usize,
        /// The IF's output tensor.
        output: usize,
    },
    /// An inlined WHILE's exit ([`WhileStep::Exit`](crate::ir::WhileStep::Exit)): the emitter
    /// leaves the loop when the byte of `cond` is zero.
    Exit {
        /// The condition subgraph's output 0 (BOOL).
        cond: usize,
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
    /// The access contracts this kernel variant keeps ([`Access`]): which of its inputs its
    /// output may overlap, and how. Empty: the output must stay apart from every input.
    pub access: Vec<Access>,
    /// `Some((tensor, byte))` for a kernel that may end the invoke (TFLM's CIRCULAR_BUFFER,
    /// whose Eval returns `kTfLiteAbort` until enough frames have arrived): the emitters make
    /// `invoke` return, saying it stopped, when that byte of that tensor (one of the call's
    /// operands, in the state region) is nonzero after the call. `None` for every other kernel.
    pub stop: Option<(usize, usize)>,
}

/// How a tensor, or a list of tensors, is passed to a kernel.
///
/// [`Operand::Offsets`] and [`Operand::Srcs`] are the variadic operands: one argument standing for
/// any number of tensors (SPLIT's outputs, PACK's inputs), so that one kernel takes what TFLM's
/// takes however many there are. Every tensor they name is an operand like a single one: the
/// planner and the folder see each ([`Operand::tensors`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// A byte offset into the arena (`usize`); the tensor must be an arena tensor.
    Offset(usize),
    /// A `tinyaot::Src`: `Src::Arena(offset)` for an arena tensor, `Src::Bytes(bytes)` for a constant.
    Src(usize),
    /// Scratch memory of this many bytes for the call alone: the kernel gets a byte offset into
    /// the arena (`usize`), 16-byte aligned, whose contents are undefined on entry. The planner
    /// places it like a tensor live only at the call's step ([`crate::plan::Scratch`]).
    Scratch(usize),
    /// The arena tensors the kernel writes, in order, as one argument: `&[usize]` of their
    /// offsets in Rust (a slice literal), in C an array of `uint8_t *` and its length (a
    /// `static` array of address constants at the call). Each must be an arena tensor, as for
    /// [`Operand::Offset`]. C passes it as `uint8_t *const *`, so it stands for outputs only
    /// (the kernel generator refuses a read one).
    Offsets(Vec<usize>),
    /// Tensors the kernel reads, in order, as one argument: `&[Src]` in Rust (each as for
    /// [`Operand::Src`]), in C an array of `const uint8_t *` and its length.
    Srcs(Vec<usize>),
}

impl Operand {
    /// The tensors this operand passes, in order: one, several, or none for scratch memory.
    pub fn tensors(&self) -> &[usize] {
        match self {
            Operand::Offset(t) | Operand::Src(t) => std::slice::from_ref(t),
            Operand::Offsets(ts) | Operand::Srcs(ts) => ts,
            Operand::Scratch(_) => &[],
        }
    }
}

impl Call {
    /// The scratch sizes this call asks for, in operand order.
    pub fn scratch(&self) -> impl Iterator<Item = usize> + '_ {
        let operands = match &self.kind {
            CallKind::Kernel(k) => k.operands.as_slice(),
            CallKind::Alias { .. }
            | CallKind::Nothing
            | CallKind::Select { .. }
            | CallKind::Exit { .. } => &[],
        };
        operands.iter().filter_map(|o| match o {
            Operand::Scratch(bytes) => Some(*bytes),
            _ => None,
        })
    }
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
    /// A `&'static [i16]`.
    I16s(Vec<i16>),
    /// A `&'static [i32]`.
    I32s(Vec<i32>),
    /// A `&'static [i64]`.
    I64s(Vec<i64>),
    /// A `&'static [f32]`.
    F32s(Vec<f32>),
    /// The data of a constant tensor as a typed slice: `&[i8]` for INT8, `&[i16]` for INT16,
    /// `&[i32]` for INT32, `&[i64]` for INT64, `&[f32]` for FLOAT32, `&[u8]` otherwise.
    Tensor(usize),
    /// Constant data computed at generation time (weights re-laid out for a kernel, say), written
    /// like a constant tensor's data (a byte string in Rust, 64-bit words in C: fast to compile
    /// however large) and viewed as the same typed slice as [`Value::Tensor`] of its type.
    Packed(Packed),
    /// `Some(value)`.
    Some(Box<Value>),
    /// `None`.
    None,
}

/// Constant data computed at generation time: little-endian bytes viewed as elements of `dtype`.
#[derive(Clone, Debug, PartialEq)]
pub struct Packed {
    /// The element type of the slice the kernel reads.
    pub dtype: DType,
    /// The elements, little-endian.
    pub bytes: std::sync::Arc<[u8]>,
}

/// The value of a slice parameter in the typed constructors of [`params`]: computed at generation
/// time, or the data of a constant tensor (by index), which the emitters reference in place.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Data<T> {
    /// Values computed by the lowering.
    Values(Vec<T>),
    /// The data of this constant tensor.
    Tensor(usize),
    /// Values computed by the lowering and emitted as constant data ([`Value::Packed`]) rather
    /// than as a literal list: for large arrays, such as a filter re-laid out for its kernel.
    Packed(Vec<T>),
}

macro_rules! data_value {
    ($($t:ty => $variant:ident, $dtype:ident),*) => {$(
        impl From<Data<$t>> for Value {
            fn from(data: Data<$t>) -> Value {
                match data {
                    Data::Values(v) => Value::$variant(v),
                    Data::Tensor(t) => Value::Tensor(t),
                    Data::Packed(v) => Value::Packed(Packed {
                        dtype: DType::$dtype,
                        bytes: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                    }),
                }
            }
        }
    )*};
}
data_value!(
    i8 => I8s, I8, i16 => I16s, I16, i32 => I32s, I32, i64 => I64s, I64, f32 => F32s, F32
);

/// Bytes (the packed INT4 weights): a constant tensor's data, or bytes the lowering computed,
/// emitted as constant data either way.
impl From<Data<u8>> for Value {
    fn from(data: Data<u8>) -> Value {
        match data {
            Data::Tensor(t) => Value::Tensor(t),
            Data::Values(bytes) | Data::Packed(bytes) => Value::Packed(Packed {
                dtype: DType::U8,
                bytes: bytes.into(),
            }),
        }
    }
}

/// Lowers every operator of `graph`, in execution order.
pub fn lower(graph: &Graph) -> Result<Vec<Call>> {
    // A variable lives in the state region, where the emitters' input and output views cannot
    // reach it: a graph input or output that is a variable is refused.
    for &t in graph.inputs.iter().chain(&graph.outputs) {
        let tensor = &graph.tensors[t];
        if tensor.is_variable {
            return Err(Error::Unsupported {
                detail: format!(
                    "graph input or output tensor #{t} {:?} is a variable (state kept between \
                     invocations); tinyaot keeps state apart from the inputs and outputs",
                    tensor.name
                ),
            });
        }
    }
    let mut calls = Vec::with_capacity(graph.operators.len());
    for index in 0..graph.operators.len() {
        let ctx = OpContext::new(graph, index);
        calls.push(Call {
            op: index,
            kind: lower_op(&ctx)?,
        });
    }
    // After the operators, whose refusals name the one reading or writing an INT4 tensor.
    ops::int4::check_graph_io(graph)?;
    ops::one_entry_per_kernel(&mut calls);
    Ok(calls)
}

/// The operators this build compiles, by name (`CONV_2D`, `CUSTOM(SignalWindow)`), sorted.
pub fn supported_ops() -> Vec<String> {
    let mut names: Vec<String> = registry().into_iter().map(|(name, _)| name).collect();
    names.sort();
    names
}

/// The registry: every operator this build compiles, by name, with its tensor types (what
/// tinyaot compiles and what TFLM registers), in registry order (family by family).
pub fn registry() -> Vec<(String, types::Types)> {
    ops::entries()
        .map(|entry| (entry.kind().name(), entry.types))
        .collect()
}

/// The operators whose TFLM kernel computes a defined output from an empty input beside others:
/// CONCATENATION copies nothing from it, PAD and PADV2 write only padding, and SUM, REDUCE_MAX,
/// REDUCE_MIN and REDUCE_ALL over an empty axis leave their initial value (reduce.h fills the output, then returns
/// on an input with a zero-size dimension; the integer SUM leaves 0); BROADCAST_ARGS reads every
/// dimension of an empty shape as 1, and DYNAMIC_UPDATE_SLICE of an empty update copies the
/// operand. The integer MEAN too (below): QuantizedMeanOrSum fills its output with 0 and returns
/// the same way. (MEAN's float path has no such return: it reads the empty input.)
const EMPTY_INPUT_DEFINED: [OpCode; 9] = [
    OpCode::CONCATENATION,
    OpCode::BROADCAST_ARGS,
    OpCode::DYNAMIC_UPDATE_SLICE,
    OpCode::PAD,
    OpCode::PADV2,
    OpCode::SUM,
    OpCode::REDUCE_MAX,
    OpCode::REDUCE_MIN,
    OpCode::REDUCE_ALL,
];

/// The operators whose TFLM kernel computes a defined output from an image input (`[batches,
/// height, width, channels]`, input 0) of no rows or no columns: every tap of every window falls
/// outside it and is skipped, so a convolution's output is its bias (requantized) and a max
/// pool's the lowest value clamped by the activation. (An average pool divides by the count of
/// no taps: TFLM returns there, undefined; the batches and channels must not be empty.)
const EMPTY_IMAGE_DEFINED: [OpCode; 3] = [
    OpCode::CONV_2D,
    OpCode::DEPTHWISE_CONV_2D,
    OpCode::MAX_POOL_2D,
];

/// The custom operator Vela puts in a model for an Arm Ethos-U NPU (TFLM's
/// `GetString_ETHOSU()`): a command stream for the NPU's driver.
const ETHOS_U: &str = "ethos-u";

pub(crate) fn lower_op(ctx: &OpContext) -> Result<CallKind> {
    let Some((family, entry)) = ops::find(&ctx.op().kind) else {
        return Err(unsupported_op(ctx));
    };
    ctx.expect_arity(*entry.inputs.start(), *entry.inputs.end(), entry.outputs)?;
    ops::int4::check_uses(ctx)?;
    let empty = |t: usize| ctx.graph().tensors[t].num_elements() == 0;
    let op = ctx.op();
    if !op.outputs.is_empty() && op.outputs.iter().all(|&t| empty(t)) {
        // A zero-size dimension: TFLM's kernels loop over their output's elements, so an operator
        // whose every output is empty computes nothing there. Its lowering still runs, so that
        // what TFLM's Prepare refuses is refused here too.
        ops::lower(ctx, family, entry)?;
        return Ok(CallKind::Nothing);
    }
    // An empty constant list (shape [0]: no axes, an empty new shape) is a legitimate operand.
    let empty_input = op.inputs.iter().flatten().find(|&&t| {
        let tensor = &ctx.graph().tensors[t];
        empty(t) && !(tensor.is_constant() && tensor.shape.len() == 1)
    });
    let code = op.kind.code();
    // FULLY_CONNECTED's and TRANSPOSE_CONV's weights with no input channels (their last
    // dimension), UNIDIRECTIONAL_SEQUENCE_LSTM's input weights (inputs 1 to 4) for an input size
    // of 0: TFLM's reference kernels sum no terms, and every product is the bias (requantized),
    // whatever else is empty of the input; their lowerings compute that.
    let weights = op.inputs.get(1).copied().flatten();
    let no_depth = matches!(
        code,
        Some(
            OpCode::FULLY_CONNECTED | OpCode::TRANSPOSE_CONV | OpCode::UNIDIRECTIONAL_SEQUENCE_LSTM
        )
    ) && weights.is_some_and(|w| ctx.graph().tensors[w].shape.last() == Some(&0));
    let integer_mean = code == Some(OpCode::MEAN)
        && op
            .inputs
            .first()
            .copied()
            .flatten()
            .is_some_and(|t| matches!(ctx.graph().tensors[t].dtype, DType::I8 | DType::I16));
    let defined = |t: usize| {
        let shape = &ctx.graph().tensors[t].shape;
        no_depth
            || integer_mean
            || code.is_some_and(|c| {
                EMPTY_INPUT_DEFINED.contains(&c)
                    || (EMPTY_IMAGE_DEFINED.contains(&c)
                        && op.inputs.first() == Some(&Some(t))
                        && shape.len() == 4
                        && shape[0] > 0
                        && shape[3] > 0)
            })
    };
    if let Some(&t) = empty_input.filter(|&&t| !defined(t)) {
        let tensor = &ctx.graph().tensors[t];
        // An empty tensor nothing writes (no graph input, no operator's output: a constant of no
        // elements, whose buffer holds no data) is no constant for TFLM's `IsConstantTensor`:
        // where the operator's Prepare requires one (BROADCAST_TO's shape, PAD's paddings, …),
        // TFLM refuses the model there, before any kernel reads the empty input. The lowering
        // makes those checks first, so that the refusal gives TFLM's grounds.
        let graph = ctx.graph();
        let unwritten = !tensor.is_constant()
            && !tensor.is_variable
            && !graph.inputs.contains(&t)
            && !graph.operators.iter().any(|o| o.outputs.contains(&t));
        if unwritten {
            ops::lower(ctx, family, entry)?;
        }
        let detail = format!(
            "input tensor #{t} {:?} of shape {:?} is empty (a zero-size dimension) but the output \
             is not",
            tensor.name, tensor.shape
        );
        // (CONV_2D divides the output channels by input depth / filter depth, 0; DEPTHWISE_CONV_2D
        // loops over no input channel and writes nothing: both undefined, as below.)
        let empty_depth = tensor.shape.last() == Some(&0);
        return Err(match code {
            Some(OpCode::CONV_2D) if empty_depth => ctx.invalid(
                detail,
                Grounds::undefined(
                    "reference ConvPerChannel divides the output channels by the groups, input \
                     depth / filter depth = 0: a division by zero",
                ),
            ),
            _ => ctx.invalid(
                detail,
                Grounds::undefined(
                    "TFLM's kernel sizes its loops from the empty input and leaves the output \
                     unwritten, or from the output and reads the empty input out of bounds",
                ),
            ),
        });
    }
    let call = ops::lower(ctx, family, entry)?;
    // The registry's type lists are the README's table: a lowering that accepts a signature its
    // entry does not list is a registry bug, caught by every test that compiles a model.
    if cfg!(debug_assertions) {
        check_listed(ctx, &entry.types)?;
    }
    Ok(call)
}

/// Fails, as a generator bug, when the role types of the operator of `ctx` fit none of the
/// signatures `types` says tinyaot compiles.
fn check_listed(ctx: &OpContext, types: &types::Types) -> Result<()> {
    let found = types.of_op(ctx.graph(), ctx.op());
    if found.as_deref().is_some_and(|t| types.compiles(t)) {
        return Ok(());
    }
    let names: Vec<String> = ctx
        .op()
        .inputs
        .iter()
        .map(|i| {
            i.map_or("-".to_string(), |i| {
                ctx.graph().tensors[i].dtype.to_string()
            })
        })
        .chain(
            ctx.op()
                .outputs
                .iter()
                .map(|&o| ctx.graph().tensors[o].dtype.to_string()),
        )
        .collect();
    Err(Error::Internal {
        detail: format!(
            "operator #{} ({}) was lowered with tensor types {names:?} (inputs, then outputs), \
             which its registry entry does not list among the types tinyaot compiles \
             (codegen/src/lower/ops/<family>.rs, OpEntry::types)",
            ctx.op().source_index,
            ctx.op().kind.name()
        ),
    })
}

/// The error for an operator no lowering handles.
pub(crate) fn unsupported_op(ctx: &OpContext) -> Error {
    if matches!(&ctx.op().kind, OpKind::Custom(name) if name == ETHOS_U) {
        return ctx.unsupported(
            "an Arm Ethos-U NPU's command stream (a model compiled by Vela): it runs only through \
             the NPU's driver (TFLM's ethos-u kernel hands it to ethosu_invoke), which tinyaot, \
             compiling for the CPU, does not call; compile the model from before Vela",
        );
    }
    Error::UnsupportedOp {
        op: ctx.op().display_name(),
        index: ctx.index(),
        supported: supported_ops(),
    }
}

//! The graph IR: what the loader makes of a `.tflite`, and what planning, lowering and emission read.
//!
//! The IR borrows constant tensor data from the model bytes (`'m`), so loading a multi-megabyte model
//! copies no weights. Everything else is owned and already validated: every tensor index an operator
//! names is in range, every shape is static, and every byte size fits in `usize`.

use std::borrow::Cow;

use std::fmt;

/// Element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DType {
    /// 32-bit IEEE float.
    F32,
    /// 16-bit IEEE float.
    F16,
    /// 64-bit IEEE float.
    F64,
    /// Signed 4-bit integer, packed two to a byte (low nibble first, `ceil(n / 2)` bytes for `n`
    /// elements): TFLite's INT4, accepted only as the constant weights of CONV_2D,
    /// DEPTHWISE_CONV_2D and FULLY_CONNECTED with int8 activations, as TFLM runs them.
    I4,
    /// Signed 8-bit integer (the quantized type TFLM's int8 kernels use).
    I8,
    /// Unsigned 8-bit integer.
    U8,
    /// Signed 16-bit integer.
    I16,
    /// Unsigned 16-bit integer.
    U16,
    /// Signed 32-bit integer (biases, shapes, indices).
    I32,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 64-bit integer.
    I64,
    /// Unsigned 64-bit integer.
    U64,
    /// Boolean, one byte per element.
    Bool,
}

impl DType {
    /// Bytes per element; for [`DType::I4`] 1, as TFLM's `TfLiteTypeSizeOf` has it, though its
    /// data is packed (see [`bytes_for`](Self::bytes_for)).
    pub const fn size(self) -> usize {
        match self {
            DType::I4 | DType::I8 | DType::U8 | DType::Bool => 1,
            DType::F16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
        }
    }

    /// The bytes `elements` elements take: `elements * size()`, or `ceil(elements / 2)` packed
    /// INT4 bytes; `None` on overflow.
    pub const fn bytes_for(self, elements: usize) -> Option<usize> {
        match self {
            DType::I4 => Some(elements.div_ceil(2)),
            _ => elements.checked_mul(self.size()),
        }
    }

    /// The name TFLite's schema gives this type (`INT8`, `FLOAT32`, …).
    pub const fn name(self) -> &'static str {
        match self {
            DType::I4 => "INT4",
            DType::F32 => "FLOAT32",
            DType::F16 => "FLOAT16",
            DType::F64 => "FLOAT64",
            DType::I8 => "INT8",
            DType::U8 => "UINT8",
            DType::I16 => "INT16",
            DType::U16 => "UINT16",
            DType::I32 => "INT32",
            DType::U32 => "UINT32",
            DType::I64 => "INT64",
            DType::U64 => "UINT64",
            DType::Bool => "BOOL",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Affine quantization: `real = scale * (q - zero_point)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantization {
    /// One scale per tensor, or one per channel along `axis`.
    pub scales: Vec<f32>,
    /// Same length as `scales`.
    pub zero_points: Vec<i64>,
    /// The quantized dimension when there is more than one scale.
    pub axis: usize,
}

impl Quantization {
    /// True when there is one scale per channel (more than one scale).
    pub fn is_per_channel(&self) -> bool {
        self.scales.len() > 1
    }
}

/// One tensor of the graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor<'m> {
    /// The name the converter gave it (may be empty). TFLM never reads names, so the file may hold
    /// any bytes: those that are not UTF-8 are escaped as `\xNN`.
    pub name: String,
    /// Static shape, outermost dimension first. A scalar has an empty shape.
    pub shape: Vec<usize>,
    /// Element type.
    pub dtype: DType,
    /// Quantization parameters, when the tensor has any (scales present).
    pub quant: Option<Quantization>,
    /// Constant contents: borrowed from the model bytes, or computed at generation time (an
    /// operator whose inputs are all constant, folded by [`crate::fold`]); `None` for activations.
    pub data: Option<Cow<'m, [u8]>>,
    /// A variable (state) tensor: it keeps its value between invocations.
    pub is_variable: bool,
    /// For a variable tensor, the bytes it holds after `reset` (and before the first `invoke`),
    /// when the model sets them (a resource variable's value from a CALL_ONCE init subgraph).
    /// `None`: TFLM's reset value, every byte the zero point for an INT8 tensor, 0 otherwise.
    pub initial: Option<Cow<'m, [u8]>>,
    /// `shape.product() * dtype.size()` (for INT4 the packed `ceil(shape.product() / 2)`),
    /// checked for overflow by the loader.
    pub bytes: usize,
}

impl Tensor<'_> {
    /// Number of elements (product of the shape; 1 for a scalar).
    pub fn num_elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// True for tensors with constant data (they stay in flash, never in the arena).
    pub fn is_constant(&self) -> bool {
        self.data.is_some()
    }
}

/// A builtin operator code: the schema's `BuiltinOperator` (a newtype over the file's `i32`, with
/// one associated constant per operator), so that codes are never copied by hand. Codes newer than
/// the schema are kept as numbers.
pub use tinyaot_schema::tflite::BuiltinOperator as OpCode;

/// The schema's name for `code` (`CONV_2D`), or `BUILTIN_<n>` for a code this build does not know.
pub fn op_name(code: OpCode) -> String {
    match code.variant_name() {
        Some(name) => name.to_string(),
        None => format!("BUILTIN_{}", code.0),
    }
}

/// What an operator is: a builtin code, or a custom op known only by name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// A builtin operator.
    Builtin(OpCode),
    /// A custom operator (`CUSTOM` with a `custom_code` string; bytes that are not UTF-8 are
    /// escaped as `\xNN`).
    Custom(String),
}

impl OpKind {
    /// The name users see in messages: `CONV_2D`, or `CUSTOM(name)`.
    pub fn name(&self) -> String {
        match self {
            OpKind::Builtin(code) => op_name(*code),
            OpKind::Custom(name) => format!("CUSTOM({name})"),
        }
    }

    /// The builtin code, if this is a builtin op.
    pub fn code(&self) -> Option<OpCode> {
        match self {
            OpKind::Builtin(code) => Some(*code),
            OpKind::Custom(_) => None,
        }
    }
}

/// Padding scheme of convolutions and pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding {
    /// Output size `ceil(in / stride)`, zero-point padding split evenly, extra at the bottom/right.
    Same,
    /// No padding: output size `ceil((in - effective_filter + 1) / stride)`.
    Valid,
}

/// Activation fused into an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    /// No clamp beyond the type's range.
    None,
    /// `max(x, 0)`.
    Relu,
    /// `clamp(x, -1, 1)`.
    ReluN1To1,
    /// `clamp(x, 0, 6)`.
    Relu6,
    /// `tanh(x)` (not supported fused by TFLM's int8 kernels).
    Tanh,
    /// Sign bit (not supported by TFLM's kernels).
    SignBit,
}

/// CONV_2D options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv2DOptions {
    /// Padding scheme.
    pub padding: Padding,
    /// Stride along width.
    pub stride_w: usize,
    /// Stride along height.
    pub stride_h: usize,
    /// Dilation along width (1 = none).
    pub dilation_w: usize,
    /// Dilation along height (1 = none).
    pub dilation_h: usize,
    /// Fused activation.
    pub activation: Activation,
}

/// DEPTHWISE_CONV_2D options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthwiseConv2DOptions {
    /// Padding scheme.
    pub padding: Padding,
    /// Stride along width.
    pub stride_w: usize,
    /// Stride along height.
    pub stride_h: usize,
    /// Output channels per input channel. The loader keeps the file's value (0 in some old converters'
    /// output); lowering derives the effective value from the filter shape.
    pub depth_multiplier: usize,
    /// Dilation along width (1 = none).
    pub dilation_w: usize,
    /// Dilation along height (1 = none).
    pub dilation_h: usize,
    /// Fused activation.
    pub activation: Activation,
}

/// FULLY_CONNECTED options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FullyConnectedOptions {
    /// Fused activation.
    pub activation: Activation,
    /// Keep the input's leading dimensions in the output instead of flattening to 2-D.
    pub keep_num_dims: bool,
    /// False for the default weights format; true for any shuffled format (unsupported).
    pub shuffled_weights: bool,
}

/// AVERAGE_POOL_2D / MAX_POOL_2D options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool2DOptions {
    /// Padding scheme.
    pub padding: Padding,
    /// Stride along width.
    pub stride_w: usize,
    /// Stride along height.
    pub stride_h: usize,
    /// Window width.
    pub filter_w: usize,
    /// Window height.
    pub filter_h: usize,
    /// Fused activation.
    pub activation: Activation,
}

/// STRIDED_SLICE options (masks are bit sets over dimensions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StridedSliceOptions {
    /// Bit i set: ignore `begin[i]`, start at the first element.
    pub begin_mask: i32,
    /// Bit i set: ignore `end[i]`, run to the last element.
    pub end_mask: i32,
    /// Bit i set: an ellipsis at position i.
    pub ellipsis_mask: i32,
    /// Bit i set: insert a new axis of size 1.
    pub new_axis_mask: i32,
    /// Bit i set: take a single element and drop the dimension.
    pub shrink_axis_mask: i32,
    /// `end` is an offset from `begin` rather than an index.
    pub offset: bool,
}

/// SVDF options (its lowering: `lower/ops/svdf.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SvdfOptions {
    /// Rank of the decomposition.
    pub rank: usize,
    /// Fused activation.
    pub activation: Activation,
}

/// Typed builtin options of an operator. Ops without options, or whose options this build does not
/// decode, have `Options::None`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Options {
    /// No options (or none that matter).
    None,
    /// CONV_2D.
    Conv2D(Conv2DOptions),
    /// DEPTHWISE_CONV_2D.
    DepthwiseConv2D(DepthwiseConv2DOptions),
    /// FULLY_CONNECTED.
    FullyConnected(FullyConnectedOptions),
    /// AVERAGE_POOL_2D, MAX_POOL_2D.
    Pool2D(Pool2DOptions),
    /// SOFTMAX: `beta`.
    Softmax {
        /// Inverse temperature.
        beta: f32,
    },
    /// ADD, SUB, MUL: the fused activation.
    Arithmetic {
        /// Fused activation.
        activation: Activation,
    },
    /// CONCATENATION.
    Concatenation {
        /// Axis to concatenate along (may be negative, as in the file).
        axis: i32,
        /// Fused activation.
        activation: Activation,
    },
    /// RESHAPE: the target shape when given as an option rather than as a tensor.
    Reshape {
        /// Target shape (may contain one -1).
        new_shape: Vec<i32>,
    },
    /// SQUEEZE: the dimensions to remove (empty: all of size 1).
    Squeeze {
        /// Dimensions to remove.
        squeeze_dims: Vec<i32>,
    },
    /// STRIDED_SLICE.
    StridedSlice(StridedSliceOptions),
    /// MEAN and the other reducers.
    Reducer {
        /// Keep reduced dimensions with size 1.
        keep_dims: bool,
    },
    /// SVDF.
    Svdf(SvdfOptions),
    /// One step of an IF the loader inlined (`load/control.rs`).
    If(IfStep),
    /// One step of a WHILE the loader inlined (`load/while_loop.rs`).
    While(WhileStep),
}

/// What an operator of kind WHILE does after the loader inlined its subgraphs: it never runs a
/// subgraph, it moves bytes between the WHILE's tensors and those of its condition and body, or
/// leaves the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhileStep {
    /// Copies input 0 into output 0: a WHILE input into its output before the loop (TFLM's
    /// `CopyOpInputsToOpOutputs`), a WHILE output into a condition or body input at each
    /// iteration (`CopyOpOutputsToSubgraphInputs`), or a body output back into the WHILE's
    /// output (`CopySubgraphOutputsToOpOutputs`), the one step that writes a tensor an earlier
    /// step wrote.
    Copy,
    /// Leaves the loop when the condition subgraph's output (input 0, a BOOL) is false; writes
    /// nothing.
    Exit,
}

/// The loop of an inlined WHILE an operator runs in: the loop's operators are consecutive, and
/// run again and again until its [`WhileStep::Exit`] finds the condition false.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Loop {
    /// The WHILE operator's index in subgraph 0.
    pub caller: usize,
    /// The subgraph of the model the operator comes from (its [`Operator::source_index`] is its
    /// index there); 0 for the WHILE's own steps.
    pub subgraph: usize,
    /// True for an operator of the body subgraph, false for the condition's (or a step).
    pub body: bool,
}

/// What an operator of kind IF does after the loader inlined its branches: it never runs a
/// subgraph, it moves bytes between the IF's tensors and those of its branches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfStep {
    /// Copies an IF input (input 0) into a branch subgraph's input (output 0), as TFLM's
    /// `CopyOpInputsToSubgraphInputs` does; runs with its branch ([`Operator::branch`]).
    Copy,
    /// Writes an IF output (output 0): the then branch's output (input 1) when the condition
    /// (input 0) holds, else the else branch's (input 2), as TFLM's
    /// `CopySubgraphOutputsToOpOutputs` copies the branch it ran.
    Select,
}

/// The branch of an inlined IF an operator belongs to: it runs only when the IF's condition is
/// `taken` (true for the then branch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Branch {
    /// The IF's condition tensor (a BOOL of one element): read at each of the branch's steps.
    pub cond: usize,
    /// The condition's value for which the operator runs.
    pub taken: bool,
    /// The subgraph of the model the operator comes from (its [`Operator::source_index`] is its
    /// index there).
    pub subgraph: usize,
    /// The IF operator's index in subgraph 0.
    pub caller: usize,
}

/// One operator of the graph, in execution order.
#[derive(Clone, Debug, PartialEq)]
pub struct Operator {
    /// What the op is.
    pub kind: OpKind,
    /// Version of the op's definition in the model's operator table.
    pub version: i32,
    /// Decoded builtin options.
    pub options: Options,
    /// Input tensor indices; `None` where the model marks an optional input as absent (-1).
    pub inputs: Vec<Option<usize>>,
    /// Output tensor indices.
    pub outputs: Vec<usize>,
    /// Intermediate tensors (used by LSTM-style ops).
    pub intermediates: Vec<usize>,
    /// The operator's index in the model's subgraph: what messages, generated comments and
    /// operator hooks call it. Equal to its position in [`Graph::operators`] unless the operators
    /// run in another order than the file's ([`crate::plan::memory_order`]).
    pub source_index: usize,
    /// The branch of an inlined IF the operator runs in; `None` for an operator that always runs.
    pub branch: Option<Branch>,
    /// The loop of an inlined WHILE the operator runs in; `None` for an operator that runs once
    /// per invocation.
    pub looped: Option<Loop>,
}

impl Operator {
    /// The input at `i`, if present.
    pub fn input(&self, i: usize) -> Option<usize> {
        self.inputs.get(i).copied().flatten()
    }

    /// Every tensor the operator's step reads: its present inputs, and the condition of the
    /// branch it runs in (tested at its step, so it must stay live until then).
    pub fn reads(&self) -> impl Iterator<Item = usize> + '_ {
        self.inputs
            .iter()
            .flatten()
            .copied()
            .chain(self.branch.map(|b| b.cond))
    }

    /// The operator's name as messages give it after its index: `CONV_2D`, or for an operator of
    /// an IF's branch `ADD of subgraph 2 (the then branch of operator #3 IF)`, of a WHILE's
    /// `ADD of subgraph 2 (the body of operator #3 WHILE)`, its index being that subgraph's.
    pub fn display_name(&self) -> String {
        if let Some(l) = self.looped.filter(|l| l.subgraph != 0) {
            return format!(
                "{} of subgraph {} (the {} of operator #{} WHILE)",
                self.kind.name(),
                l.subgraph,
                if l.body { "body" } else { "condition" },
                l.caller
            );
        }
        match self.branch {
            Some(b) if self.kind != OpKind::Builtin(OpCode::IF) => format!(
                "{} of subgraph {} (the {} branch of operator #{} IF)",
                self.kind.name(),
                b.subgraph,
                if b.taken { "then" } else { "else" },
                b.caller
            ),
            _ => self.kind.name(),
        }
    }

    /// The operator's name in generated identifiers (parameter statics): its index, and for an
    /// operator of a branch also its subgraph (`2_1`), of a loop its WHILE and subgraph (`3_2_1`),
    /// a step of a WHILE the tensors it copies (`3_w1_5`), so that no two collide.
    pub fn ident(&self) -> String {
        let name = self.ident_by_index();
        if self.is_decode() {
            // One operator of a DECODE of several tensors (load::decode): by the tensor it writes.
            return format!("{name}_D{}", self.outputs.first().map_or(0, |t| t + 1));
        }
        name
    }

    /// Whether this is TFLM's DECODE custom operator (`TFLM_DECODE`: compressed tensors).
    pub fn is_decode(&self) -> bool {
        matches!(&self.kind, OpKind::Custom(code) if code == "TFLM_DECODE")
    }

    /// [`Self::ident`] before a split DECODE's suffix.
    fn ident_by_index(&self) -> String {
        if let Some(l) = self.looped.filter(|l| l.subgraph != 0) {
            // The caller too: two WHILEs may run the same subgraph.
            return format!("{}_{}_{}", l.caller, l.subgraph, self.source_index);
        }
        if let Options::While(_) = self.options {
            // A WHILE has many steps (a copy from a constant has parameters): each by the
            // tensors it copies, which no other step of the WHILE copies both.
            let input = self.input(0).map_or(0, |t| t + 1);
            let output = self.outputs.first().map_or(0, |t| t + 1);
            return format!("{}_w{input}_{output}", self.source_index);
        }
        match self.branch {
            Some(b) if self.kind != OpKind::Builtin(OpCode::IF) => {
                format!("{}_{}", b.subgraph, self.source_index)
            }
            _ => self.source_index.to_string(),
        }
    }
}

/// An operator whose inputs were all constant, run at generation time ([`crate::fold`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Folded {
    /// Its index in the model's subgraph.
    pub source_index: usize,
    /// Its name (`RESHAPE`, `SHAPE`, …).
    pub op: String,
}

/// A loaded model: one subgraph, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph<'m> {
    /// All tensors; operators refer to them by index.
    pub tensors: Vec<Tensor<'m>>,
    /// Operators in execution order (the file's, unless reordered to lower the memory peak: each
    /// keeps its file index in [`Operator::source_index`]).
    pub operators: Vec<Operator>,
    /// Graph input tensor indices.
    pub inputs: Vec<usize>,
    /// Graph output tensor indices.
    pub outputs: Vec<usize>,
    /// The `OfflineMemoryAllocation` metadata, if present: one offset per tensor, -1 for "plan online".
    pub offline_offsets: Option<Vec<i32>>,
    /// The model's description string (bytes that are not UTF-8 escaped as `\xNN`).
    pub description: String,
    /// The operators folded at generation time ([`crate::fold`]), in the order folded: their
    /// outputs are constants of this graph, and they are no longer in [`Graph::operators`].
    pub folded: Vec<Folded>,
    /// The subgraph as the `.tflite` stores it (verified when loaded), from which lowering reads
    /// builtin options that [`Options`] does not decode (see `OpContext::tflite_operator`).
    /// `None` for graphs built by hand in tests.
    pub source: Option<tinyaot_schema::tflite::SubGraph<'m>>,
    /// Every subgraph of the `.tflite`, by index, from which lowering reads the options of an
    /// inlined branch's operators ([`Branch::subgraph`]). Empty for graphs built by hand.
    pub subgraphs: Vec<tinyaot_schema::tflite::SubGraph<'m>>,
}

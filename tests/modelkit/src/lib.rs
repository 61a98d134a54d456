//! tinyaot-modelkit: TFLite FlatBuffers built from a small description, for tests and fuzzers.
//!
//! A [`ModelSpec`] describes one model the way the `.tflite` file spells it — operator codes,
//! tensors, operators, graph inputs and outputs, buffers, metadata — with every index a raw
//! integer, so hostile models (dangling indices, a non-empty buffer 0, options of the wrong type,
//! NaN scales, …) are as easy to write as valid ones. [`ModelSpec::to_bytes`] serialises it with
//! `tinyaot-schema`'s generated builder API.
//!
//! The helpers cover the common case in a few lines: [`ModelSpec::single_op`] wires tensors to one
//! operator (constant inputs carry their data, the other inputs become graph inputs),
//! [`TensorSpec::int8`] / [`TensorSpec::f32`] make tensors, and [`Options::default_for`] gives
//! each operator tinyaot lowers well-formed options.
//!
//! ```
//! use tinyaot_modelkit::{Activation, BuiltinOperator, ModelSpec, Options, Padding, TensorSpec};
//!
//! // CONV_2D: input [1,4,4,1] int8, per-channel filter [2,3,3,1], int32 bias [2], output [1,4,4,2].
//! let model = ModelSpec::single_op(
//!     BuiltinOperator::CONV_2D,
//!     Options::conv2d(Padding::SAME, (1, 1), Activation::RELU),
//!     vec![
//!         TensorSpec::int8(&[1, 4, 4, 1], 0.1, -3),
//!         TensorSpec::int8(&[2, 3, 3, 1], 1.0, 0)
//!             .per_channel(&[0.5, 0.25], 0)
//!             .constant_i8(&[1; 18]),
//!         TensorSpec::int32(&[2]).per_channel(&[0.05, 0.025], 0).constant_i32(&[2, -2]),
//!     ],
//!     vec![TensorSpec::int8(&[1, 4, 4, 2], 0.2, 5)],
//! );
//! let bytes: Vec<u8> = model.to_bytes();
//! assert_eq!(&bytes[4..8], b"TFL3");
//! ```
//!
//! [`patch`] edits built files in ways no builder writes but real models have (a zero-point vector
//! off its alignment, names that are not UTF-8).
//!
//! With the `arbitrary` feature, [`fuzz`] generates specs from `arbitrary::Unstructured`, biased
//! towards models that get through loading into lowering, planning and emission.
#![deny(missing_docs)]

pub use tinyaot_schema::tflite::{
    ActivationFunctionType as Activation, BuiltinOperator, BuiltinOptions,
    FullyConnectedOptionsWeightsFormat as WeightsFormat, Padding, TensorType,
};

pub mod flexbuffer;
#[cfg(feature = "arbitrary")]
pub mod fuzz;
pub mod hostile;
pub mod int4;
mod options;
pub mod patch;
mod write;

pub use options::Options;
pub use patch::misalign_zero_points;

/// The metadata name of TFLM's offline memory plan.
pub const OFFLINE_MEMORY_ALLOCATION: &str = "OfflineMemoryAllocation";

// ---------------------------------------------------------------------------------------------
// The model

/// A whole model. Every field is public and raw: tests edit it freely to make hostile variants.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelSpec {
    /// Schema version (3 for every real model).
    pub version: u32,
    /// How many copies of the subgraph described here the file holds first.
    pub subgraphs: usize,
    /// Subgraphs written after those copies (IF's branches, WHILE's condition and body, CALL_ONCE's
    /// init), numbered from `subgraphs` on; they
    /// share the model's operator codes and buffers.
    pub more_subgraphs: Vec<SubgraphSpec>,
    /// The model description string (`None` leaves it out).
    pub description: Option<String>,
    /// `operator_codes`, indexed by [`OpSpec::opcode_index`].
    pub opcodes: Vec<OpCodeSpec>,
    /// The subgraph's tensors.
    pub tensors: Vec<TensorSpec>,
    /// The subgraph's operators, in execution order.
    pub operators: Vec<OpSpec>,
    /// Graph input tensor indices (raw: out-of-range and negative values are written as given).
    pub inputs: Vec<i32>,
    /// Graph output tensor indices (raw).
    pub outputs: Vec<i32>,
    /// `buffers`. Buffer 0 is by convention the empty sentinel; [`ModelSpec::new`] puts one there.
    /// Tensors with [`TensorData::Constant`] get buffers appended after these.
    pub buffers: Vec<BufferSpec>,
    /// `metadata` entries.
    pub metadata: Vec<MetadataSpec>,
    /// Bytes appended after the FlatBuffer, for [`BufferSpec::Trailing`] (and external) buffers.
    pub trailing: Vec<u8>,
}

impl Default for ModelSpec {
    fn default() -> Self {
        Self::new()
    }
}

impl ModelSpec {
    /// An empty version-3 model with one subgraph and the empty buffer 0.
    pub fn new() -> Self {
        ModelSpec {
            version: 3,
            subgraphs: 1,
            more_subgraphs: Vec::new(),
            description: Some("modelkit".to_string()),
            opcodes: Vec::new(),
            tensors: Vec::new(),
            operators: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            buffers: vec![BufferSpec::Empty],
            metadata: Vec::new(),
            trailing: Vec::new(),
        }
    }

    /// A model of one operator `op` with `options`. Tensors are numbered inputs first, then
    /// outputs; inputs without constant data become the graph inputs, `outputs` the graph outputs.
    pub fn single_op(
        op: BuiltinOperator,
        options: Options,
        inputs: Vec<TensorSpec>,
        outputs: Vec<TensorSpec>,
    ) -> Self {
        let mut m = ModelSpec::new();
        let mut ins = Vec::new();
        for t in inputs {
            let is_graph_input = t.is_activation();
            let i = m.tensor(t);
            if is_graph_input {
                m.inputs.push(i);
            }
            ins.push(i);
        }
        let outs: Vec<i32> = outputs.into_iter().map(|t| m.tensor(t)).collect();
        m.outputs = outs.clone();
        m.op(op, options, &ins, &outs);
        m
    }

    /// One CUSTOM operator named `name`, with `custom_options` (a FlexBuffer: see
    /// [`flexbuffer`]), reading `inputs` (the activations among them are the graph inputs) and
    /// writing `outputs`, which are the graph outputs.
    pub fn single_custom_op(
        name: &str,
        custom_options: Option<Vec<u8>>,
        inputs: Vec<TensorSpec>,
        outputs: Vec<TensorSpec>,
    ) -> Self {
        let mut m = ModelSpec::single_op(BuiltinOperator::CUSTOM, Options::None, inputs, outputs);
        m.opcodes = vec![OpCodeSpec::custom(name)];
        m.operators[0].custom_options = custom_options;
        m
    }

    /// `n` chained float RELUs on `[1, width]`: n operators, n + 1 tensors, an arena of two
    /// tensors (the resource-limit tests of the library and the command line).
    pub fn relu_chain(n: usize, width: i32) -> Self {
        let mut m = ModelSpec::new();
        let mut prev = m.tensor(TensorSpec::f32(&[1, width]));
        m.inputs.push(prev);
        for _ in 0..n {
            let next = m.tensor(TensorSpec::f32(&[1, width]));
            m.op(
                BuiltinOperator::RELU,
                Options::default_for(BuiltinOperator::RELU),
                &[prev],
                &[next],
            );
            prev = next;
        }
        m.outputs.push(prev);
        m
    }

    /// A float FULLY_CONNECTED from `[1, inputs]` to `[1, units]` with all-zero constant weights
    /// (`4 * units * inputs` bytes) and bias (`4 * units` bytes).
    pub fn zero_fully_connected(inputs: i32, units: i32) -> Self {
        let weights = vec![0f32; (inputs * units) as usize];
        let bias = vec![0f32; units as usize];
        ModelSpec::single_op(
            BuiltinOperator::FULLY_CONNECTED,
            Options::default_for(BuiltinOperator::FULLY_CONNECTED),
            vec![
                TensorSpec::f32(&[1, inputs]),
                TensorSpec::f32(&[units, inputs]).constant_f32(&weights),
                TensorSpec::f32(&[units]).constant_f32(&bias),
            ],
            vec![TensorSpec::f32(&[1, units])],
        )
    }

    /// The index of builtin `op`'s operator code (version 1), added if not there yet.
    pub fn opcode(&mut self, op: BuiltinOperator) -> u32 {
        let code = OpCodeSpec::builtin(op);
        match self.opcodes.iter().position(|c| *c == code) {
            Some(i) => index_u32(i),
            None => self.push_opcode(code),
        }
    }

    /// Appends an operator code as given (no de-duplication) and returns its index.
    pub fn push_opcode(&mut self, code: OpCodeSpec) -> u32 {
        self.opcodes.push(code);
        index_u32(self.opcodes.len() - 1)
    }

    /// Appends a tensor and returns its index.
    pub fn tensor(&mut self, t: TensorSpec) -> i32 {
        self.tensors.push(t);
        index_i32(self.tensors.len() - 1)
    }

    /// Appends a buffer and returns its index.
    pub fn buffer(&mut self, b: BufferSpec) -> u32 {
        self.buffers.push(b);
        index_u32(self.buffers.len() - 1)
    }

    /// Appends an operator of builtin `op` (its code added as needed) and returns its index.
    pub fn op(
        &mut self,
        op: BuiltinOperator,
        options: Options,
        inputs: &[i32],
        outputs: &[i32],
    ) -> usize {
        let opcode_index = self.opcode(op);
        self.operators.push(OpSpec {
            opcode_index,
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            intermediates: Vec::new(),
            options,
            custom_options: None,
        });
        self.operators.len() - 1
    }

    /// Appends CUSTOM operator `name` (its code added as needed) with `custom_options` (a
    /// FlexBuffer: see [`flexbuffer`]) and returns its index.
    pub fn custom_op(
        &mut self,
        name: &str,
        custom_options: Option<Vec<u8>>,
        inputs: &[i32],
        outputs: &[i32],
    ) -> usize {
        let code = OpCodeSpec::custom(name);
        let opcode_index = match self.opcodes.iter().position(|c| *c == code) {
            Some(i) => index_u32(i),
            None => self.push_opcode(code),
        };
        self.operators.push(OpSpec {
            opcode_index,
            inputs: inputs.to_vec(),
            outputs: outputs.to_vec(),
            intermediates: Vec::new(),
            options: Options::None,
            custom_options,
        });
        self.operators.len() - 1
    }

    /// Appends IF's two branch subgraphs (then, else), each with the operator codes its
    /// operators index, and returns the index of the first. `passed` are the model's tensors IF
    /// passes after the branches' shared input 0: the then branch's own inputs after its input 0
    /// first, then the else branch's. Each branch takes them all (TFLM passes IF's inputs to
    /// whichever branch runs): its own where they are, an unread placeholder of the other's spec
    /// elsewhere; its operator codes become the model's (one list for every subgraph).
    pub fn push_branches(
        &mut self,
        branches: [(SubgraphSpec, Vec<OpCodeSpec>); 2],
        passed: &[i32],
    ) -> i32 {
        let first = index_i32(self.subgraphs + self.more_subgraphs.len());
        let then_count = branches[0].0.inputs.len().saturating_sub(1);
        for (n, (mut graph, codes)) in branches.into_iter().enumerate() {
            let own = graph.inputs.split_off(1.min(graph.inputs.len()));
            for (i, &main) in passed.iter().enumerate() {
                let index = if n == 0 {
                    i
                } else {
                    i.wrapping_sub(then_count)
                };
                match own.get(index).filter(|_| (n == 0) == (i < then_count)) {
                    Some(&t) => graph.inputs.push(t),
                    None => {
                        let mut placeholder = self.tensors[main as usize].clone();
                        placeholder.name = None;
                        placeholder.data = TensorData::Buffer(0);
                        graph.tensors.push(placeholder);
                        graph.inputs.push(index_i32(graph.tensors.len() - 1));
                    }
                }
            }
            self.push_subgraph(graph, &codes);
        }
        first
    }

    /// Appends `graph` as a subgraph after the others and returns its index; `codes` are the
    /// operator codes its operators index, which become the model's (one list for every
    /// subgraph: a code the model has already is shared; an index past `codes` stays as
    /// written).
    pub fn push_subgraph(&mut self, mut graph: SubgraphSpec, codes: &[OpCodeSpec]) -> i32 {
        let index = index_i32(self.subgraphs + self.more_subgraphs.len());
        for op in &mut graph.operators {
            // An index past `codes` stays as written (raw, as every index of a spec).
            let Some(code) = codes.get(op.opcode_index as usize) else {
                continue;
            };
            op.opcode_index = match self.opcodes.iter().position(|c| c == code) {
                Some(i) => index_u32(i),
                None => self.push_opcode(code.clone()),
            };
        }
        self.more_subgraphs.push(graph);
        index
    }

    /// Adds TFLM's `OfflineMemoryAllocation` metadata: `[version 1, subgraph 0, n, offsets…]`
    /// with `n = offsets.len()` (pass one offset per tensor, -1 for "plan online").
    pub fn offline_plan(&mut self, offsets: &[i32]) -> &mut Self {
        let n = index_i32(offsets.len());
        let words = [1, 0, n].into_iter().chain(offsets.iter().copied());
        let bytes = words.flat_map(i32::to_le_bytes).collect();
        let buffer = self.buffer(BufferSpec::Data(bytes));
        self.metadata.push(MetadataSpec {
            name: OFFLINE_MEMORY_ALLOCATION.to_string(),
            buffer,
        });
        self
    }

    /// The `.tflite` file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let has_trailing = self
            .buffers
            .iter()
            .any(|b| matches!(b, BufferSpec::Trailing { .. }));
        if !has_trailing {
            let mut out = self.build(0);
            out.extend_from_slice(&self.trailing);
            return out;
        }
        // Trailing offsets are relative to the end of the FlatBuffer, whose length is known only
        // once built. A first pass with a non-zero placeholder base writes every offset field
        // (zero would be elided) with the same width, so the second pass has the same length.
        let len = self.build(u64::MAX / 2).len();
        let mut out = self.build(len as u64);
        debug_assert_eq!(out.len(), len);
        out.extend_from_slice(&self.trailing);
        out
    }
}

/// An index as `u32`, saturating (specs never hold 4 G entries; saturation keeps this total).
fn index_u32(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

/// An index as `i32`, saturating.
fn index_i32(i: usize) -> i32 {
    i32::try_from(i).unwrap_or(i32::MAX)
}

/// A subgraph besides the first: its own tensors, operators, inputs and outputs (raw, as
/// [`ModelSpec`]'s), with operator codes indexing [`ModelSpec::opcodes`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SubgraphSpec {
    /// Its tensors.
    pub tensors: Vec<TensorSpec>,
    /// Its operators, in execution order.
    pub operators: Vec<OpSpec>,
    /// Its input tensor indices.
    pub inputs: Vec<i32>,
    /// Its output tensor indices.
    pub outputs: Vec<i32>,
}

/// One entry of `operator_codes`.
#[derive(Clone, Debug, PartialEq)]
pub struct OpCodeSpec {
    /// `builtin_code` (any `i32`: unknown codes are expressible).
    pub builtin_code: BuiltinOperator,
    /// The pre-2.3 field: the code itself below 127, 127 (`PLACEHOLDER_FOR_GREATER_OP_CODES`)
    /// above.
    pub deprecated_builtin_code: i8,
    /// `custom_code`, for CUSTOM operators.
    pub custom_code: Option<String>,
    /// The operator version.
    pub version: i32,
}

impl OpCodeSpec {
    /// A builtin code, version 1, with both code fields set as the TFLite converter sets them.
    pub fn builtin(op: BuiltinOperator) -> Self {
        OpCodeSpec {
            builtin_code: op,
            deprecated_builtin_code: i8::try_from(op.0).unwrap_or(127),
            custom_code: None,
            version: 1,
        }
    }

    /// A CUSTOM operator named `name`.
    pub fn custom(name: &str) -> Self {
        OpCodeSpec {
            custom_code: Some(name.to_string()),
            ..OpCodeSpec::builtin(BuiltinOperator::CUSTOM)
        }
    }
}

/// One operator.
#[derive(Clone, Debug, PartialEq)]
pub struct OpSpec {
    /// Index into [`ModelSpec::opcodes`] (raw).
    pub opcode_index: u32,
    /// Input tensor indices (raw; -1 is TFLite's "optional input absent").
    pub inputs: Vec<i32>,
    /// Output tensor indices (raw).
    pub outputs: Vec<i32>,
    /// Intermediate tensor indices (raw).
    pub intermediates: Vec<i32>,
    /// The builtin options.
    pub options: Options,
    /// `custom_options` bytes.
    pub custom_options: Option<Vec<u8>>,
}

/// One entry of `buffers`.
#[derive(Clone, Debug, PartialEq)]
pub enum BufferSpec {
    /// No data (buffer 0, and the buffer of every non-constant tensor).
    Empty,
    /// Inline data.
    Data(Vec<u8>),
    /// Data outside the FlatBuffer at absolute file `offset` (raw, written as given).
    External {
        /// Byte offset from the start of the file.
        offset: u64,
        /// Length in bytes.
        size: u64,
    },
    /// Data in [`ModelSpec::trailing`]: written as an external buffer whose offset is the end of
    /// the FlatBuffer plus `start`.
    Trailing {
        /// Offset into [`ModelSpec::trailing`].
        start: u64,
        /// Length in bytes.
        size: u64,
    },
}

/// One entry of `metadata`.
#[derive(Clone, Debug, PartialEq)]
pub struct MetadataSpec {
    /// Its name, e.g. [`OFFLINE_MEMORY_ALLOCATION`].
    pub name: String,
    /// Index of the buffer holding it (raw).
    pub buffer: u32,
}

// ---------------------------------------------------------------------------------------------
// Tensors

/// Where a tensor's data comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorData {
    /// Buffer index as written (raw; 0 and empty buffers mean "no data").
    Buffer(u32),
    /// Constant data, stored in a new buffer appended at serialisation.
    Constant(Vec<u8>),
}

/// Quantization parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantSpec {
    /// `scale`: one entry per tensor, or one per channel.
    pub scales: Vec<f32>,
    /// `zero_point` (`None` leaves the field out).
    pub zero_points: Option<Vec<i64>>,
    /// `quantized_dimension`: the channel axis of per-channel parameters.
    pub quantized_dimension: i32,
}

/// One tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorSpec {
    /// `shape` (`None` leaves the field out).
    pub shape: Option<Vec<i32>>,
    /// `shape_signature` (`-1` entries mark dynamic dimensions).
    pub shape_signature: Option<Vec<i32>>,
    /// Element type (any `i8`: unknown types are expressible).
    pub dtype: TensorType,
    /// Buffer or constant data.
    pub data: TensorData,
    /// Quantization parameters.
    pub quantization: Option<QuantSpec>,
    /// `is_variable`.
    pub is_variable: bool,
    /// Name; `None` writes `t<index>`.
    pub name: Option<String>,
}

impl TensorSpec {
    /// A tensor of `dtype` and `shape`, no data (buffer 0), not quantized.
    pub fn new(dtype: TensorType, shape: &[i32]) -> Self {
        TensorSpec {
            shape: Some(shape.to_vec()),
            shape_signature: None,
            dtype,
            data: TensorData::Buffer(0),
            quantization: None,
            is_variable: false,
            name: None,
        }
    }

    /// A float32 tensor.
    pub fn f32(shape: &[i32]) -> Self {
        Self::new(TensorType::FLOAT32, shape)
    }

    /// An int8 tensor quantized per tensor with `scale` and `zero_point`.
    pub fn int8(shape: &[i32], scale: f32, zero_point: i64) -> Self {
        Self::new(TensorType::INT8, shape).quant(scale, zero_point)
    }

    /// An int32 tensor, not quantized (add [`quant`](Self::quant) or
    /// [`per_channel`](Self::per_channel) for a bias).
    pub fn int32(shape: &[i32]) -> Self {
        Self::new(TensorType::INT32, shape)
    }

    /// Per-tensor quantization: one scale, one zero point.
    pub fn quant(mut self, scale: f32, zero_point: i64) -> Self {
        self.quantization = Some(QuantSpec {
            scales: vec![scale],
            zero_points: Some(vec![zero_point]),
            quantized_dimension: 0,
        });
        self
    }

    /// Per-channel quantization along `axis`: the given scales, zero points all 0.
    pub fn per_channel(mut self, scales: &[f32], axis: i32) -> Self {
        self.quantization = Some(QuantSpec {
            scales: scales.to_vec(),
            zero_points: Some(vec![0; scales.len()]),
            quantized_dimension: axis,
        });
        self
    }

    /// Constant data (raw bytes, little-endian elements).
    pub fn constant(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.data = TensorData::Constant(bytes.into());
        self
    }

    /// Constant int8 data.
    pub fn constant_i8(self, values: &[i8]) -> Self {
        self.constant(values.iter().map(|&v| v as u8).collect::<Vec<u8>>())
    }

    /// Constant int16 data.
    pub fn constant_i16(self, values: &[i16]) -> Self {
        self.constant(
            values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
    }

    /// Constant int32 data.
    pub fn constant_i32(self, values: &[i32]) -> Self {
        self.constant(
            values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
    }

    /// Constant int64 data.
    pub fn constant_i64(self, values: &[i64]) -> Self {
        self.constant(
            values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
    }

    /// Constant float32 data.
    pub fn constant_f32(self, values: &[f32]) -> Self {
        self.constant(
            values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
    }

    /// Points the tensor at buffer `index` (raw).
    pub fn buffer(mut self, index: u32) -> Self {
        self.data = TensorData::Buffer(index);
        self
    }

    /// Sets `shape_signature`.
    pub fn signature(mut self, signature: &[i32]) -> Self {
        self.shape_signature = Some(signature.to_vec());
        self
    }

    /// Marks the tensor `is_variable`.
    pub fn variable(mut self) -> Self {
        self.is_variable = true;
        self
    }

    /// Names the tensor.
    pub fn named(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }

    /// True when the tensor carries no constant data of its own (it is computed or fed).
    pub fn is_activation(&self) -> bool {
        matches!(self.data, TensorData::Buffer(0))
    }
}

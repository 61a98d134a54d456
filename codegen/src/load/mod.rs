//! Loading: bytes → verified FlatBuffer → [`Graph`].
//!
//! [`load`] is total: every malformed input is an [`Error`], never a panic, and
//! nothing is allocated beyond what the verified FlatBuffer itself describes (every vector the
//! loader copies was bounds-checked against the input by the verifier, and the verifier's
//! apparent-size limit bounds how often shared objects can be counted twice).
//!
//! The loader accepts any operator, known or not: refusing unsupported ops is lowering's job, so
//! that `tinyaot plan` works on every model TFLM can run.

mod buffer;
mod control;
mod decode;
mod dtype;
// Read by the loader (the state a signal operator keeps) and by the custom operators' lowerings.
pub(crate) mod flexbuffer;
pub mod graph;
mod index;
mod metadata;
mod operator;
mod options;
pub(crate) mod prepared;
mod resource;
mod tensor;
mod verify;
mod while_loop;

use tinyaot_schema::strings::escape_invalid_utf8;

use crate::error::{Error, Grounds, Result};
use crate::ir::Graph;
use crate::limits::Limits;

use buffer::Buffers;
pub(crate) use options::{activation_from, padding_from};

/// The only schema version tinyaot reads (every TFLite file written since 2018).
const SCHEMA_VERSION: u32 = 3;

/// Parses and validates a `.tflite` model held in `bytes`.
///
/// Constant tensor data in the returned graph borrows from `bytes`; nothing is copied.
///
/// # Errors
///
/// - [`Error::Truncated`] when `bytes` is too short for what its structure says;
/// - [`Error::WrongIdentifier`] when bytes 4..8 are not `TFL3`;
/// - [`Error::Corrupt`] when the FlatBuffer does not verify, or a value is out of its domain
///   (negative dimension, unknown activation, zero stride, inconsistent quantization, …);
/// - [`Error::UnsupportedVersion`] for a schema version other than 3;
/// - [`Error::InvalidModel`] when the data flow is not one TFLM runs with a defined result (a
///   tensor read before it is written, an operator reading its own output, an output no operator
///   writes, a zero-size or over-deep shape; see [`graph`]);
/// - [`Error::Subgraphs`] when the model has no subgraph;
/// - [`Error::Unsupported`] for resource variables used otherwise than streaming models use them,
///   and for control flow other than IF (see the `resource` and `control` modules);
/// - [`Error::UnsupportedDtype`], [`Error::DynamicShape`], [`Error::Overflow`] and
///   [`Error::IndexOutOfRange`] for the tensor and index problems they name.
pub fn load(bytes: &[u8]) -> Result<Graph<'_>> {
    load_with_limits(bytes, &Limits::default())
}

/// [`load`] under `limits`: the operator and tensor counts are checked against the FlatBuffer's
/// vector lengths before anything is copied, each tensor's byte size as it is loaded, and the
/// total of the constant bytes as it is summed.
///
/// # Errors
///
/// Those of [`load`], and [`Error::Limit`] for a count or size above `limits` or above what the
/// target's pointer width can address; [`Error::Config`] for an unsupported pointer width.
pub fn load_with_limits<'m>(bytes: &'m [u8], limits: &Limits) -> Result<Graph<'m>> {
    limits.validate()?;
    let model = verify::model(bytes)?;
    if model.version() != SCHEMA_VERSION {
        return Err(Error::UnsupportedVersion {
            version: model.version(),
        });
    }
    // Subgraph 0 is the model (TFLM invokes it); others run only through its operators: the
    // resource pass below evaluates CALL_ONCE's init subgraphs and refuses control flow other
    // than IF, whose branches the control pass inlines.
    let subgraphs = model.subgraphs();
    let count = subgraphs.map_or(0, |s| s.len());
    let Some(subgraph) = subgraphs.and_then(|s| s.iter().next()) else {
        return Err(Error::Subgraphs { count });
    };

    let buffers = Buffers::new(bytes, model.buffers());
    // Buffer 0 is TFLite's "no data" sentinel: tensors that name it are activations. With data
    // in it, TFLM would treat every activation as a constant holding that data.
    if buffers.len() > 0 && !buffers.contents(0, || "buffer 0".to_string())?.is_empty() {
        return Err(Error::InvalidModel {
            detail: "buffer 0 holds data; it must be empty (TFLite's sentinel for tensors \
                     without constant data)"
                .to_string(),
            grounds: Grounds::spec(
                "schema.fbs, Model.buffers: the 0th entry must be an empty buffer (the sentinel \
                 that tensors without data name)",
            ),
        });
    }

    limits.check_tensors(subgraph.tensors().map_or(0, |t| t.len()))?;
    limits.check_operators(subgraph.operators().map_or(0, |o| o.len()))?;
    // Summed in u128: at most 2^32 tensors of at most 2^64 bytes each.
    let mut constant_bytes = 0u128;
    // RESOURCE tensors (resource variable handles) load as placeholders that the resource pass
    // takes out of every operator.
    let mut resource = Vec::new();
    let mut tensors = subgraph
        .tensors()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, t)| {
            resource.push(t.type_() == tinyaot_schema::tflite::TensorType::RESOURCE);
            if resource[i] {
                return Ok(tensor::resource_handle(t));
            }
            let tensor = tensor::tensor(i, t, &buffers, limits)?;
            if let Some(data) = &tensor.data {
                constant_bytes += data.len() as u128;
                limits.check_constant_bytes(constant_bytes)?;
            }
            Ok(tensor)
        })
        .collect::<Result<Vec<_>>>()?;
    let num_tensors = tensors.len();

    let codes = model.operator_codes();
    let mut operators = subgraph
        .operators()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, op)| operator::operator(i, op, codes, num_tensors))
        .collect::<Result<Vec<_>>>()?;

    let inputs = index::tensor_list(subgraph.inputs(), num_tensors, "subgraph input")?;
    let outputs = index::tensor_list(subgraph.outputs(), num_tensors, "subgraph output")?;
    let offline_offsets = metadata::offline_offsets(model.metadata(), &buffers, num_tensors)?;
    let resources = resource::Model {
        model,
        buffers: &buffers,
        limits,
    };
    let initial_values = resource::resolve(
        &resources,
        &mut tensors,
        &mut operators,
        &resource,
        (&inputs, &outputs),
    )?;
    signal_state(&subgraph, &mut tensors, &mut operators);
    limits.check_tensors(tensors.len())?;
    for (t, bytes) in initial_values {
        tensors[t].initial = Some(bytes);
    }
    // The shapes TFLM's Prepare writes over the declared ones (GATHER, GATHER_ND,
    // EMBEDDING_LOOKUP).
    prepared::apply(subgraph, &mut tensors, &operators, limits)?;
    empty_constants(&mut tensors, &operators, &inputs);
    // After the passes that find an operator's options in subgraph 0 by its index: an IF's
    // branches (inlined here) keep their own subgraph's indices.
    let control = control::Model {
        model,
        buffers: &buffers,
        limits,
    };
    control::inline(&control, &mut tensors, &mut operators, &mut constant_bytes)?;
    decode::split(&mut operators);
    limits.check_tensors(tensors.len())?;
    limits.check_operators(operators.len())?;

    let graph = Graph {
        tensors,
        operators,
        inputs,
        outputs,
        offline_offsets,
        description: text(model.description_bytes()),
        folded: Vec::new(),
        source: Some(subgraph),
        subgraphs: subgraphs.into_iter().flatten().collect(),
    };
    graph::check(&graph)?;
    Ok(graph)
}

/// The custom operator of TFLM's signal library that keeps state of its own between invocations.
pub(crate) const SPECTRAL_SUBTRACTION: &str = "SignalFilterBankSpectralSubtraction";

/// SignalDelay, which keeps the last `delay_length` samples of each row.
pub(crate) const DELAY: &str = "SignalDelay";

/// SignalFramer, which keeps the samples of each row's next frames.
pub(crate) const FRAMER: &str = "SignalFramer";

/// SignalStacker, which keeps the frames of its next output.
pub(crate) const STACKER: &str = "SignalStacker";

/// A SignalStacker's samples per output, `num_channels · (stacker_left_context +
/// stacker_right_context + 1)`, for the positive channels and non-negative contexts its lowering
/// accepts, within TFLM's int32 arithmetic.
pub(crate) fn stacker_buffer_size(channels: i32, left: i32, right: i32) -> Option<usize> {
    if channels <= 0 || left < 0 || right < 0 {
        return None;
    }
    let size = i64::from(channels) * (i64::from(left) + i64::from(right) + 1);
    usize::try_from(i32::try_from(size).ok()?).ok()
}

/// SignalOverlapAdd, which keeps each row's running sums.
pub(crate) const OVERLAP_ADD: &str = "SignalOverlapAdd";

/// A SignalFramer's samples kept per row: `frame_size` rounded up to a multiple of `frame_step`
/// (TFLM's circular buffer's capacity), for the positive sizes its lowering accepts.
pub(crate) fn framer_capacity(frame_size: i32, frame_step: i32) -> Option<usize> {
    let (size, step) = (
        usize::try_from(frame_size).ok().filter(|&s| s > 0)?,
        usize::try_from(frame_step).ok().filter(|&s| s > 0)?,
    );
    size.div_ceil(step).checked_mul(step)
}

/// The state a custom operator of TFLM's signal library keeps between invocations in buffers of
/// its own (allocated by its Init or Prepare, reset by its Reset), as the type and element count
/// of the variable tensor that stands for it: SignalFilterBankSpectralSubtraction's noise
/// estimate (UINT32, one per input element); SignalDelay's kept samples (INT16, `delay_length`
/// per row of the input's last dimension); SignalFramer's (INT16: two for a uint32 count, then
/// [`framer_capacity`] per row); SignalStacker's (INT16: four for two uint32, then
/// [`stacker_buffer_size`]); SignalOverlapAdd's sums (INT16 or FLOAT32 as its `T`, a frame per
/// row of the input's last two dimensions). `None` for an operator without state, or options or
/// shapes its lowering refuses (it reads them again and says why).
fn signal_state_size(
    name: &str,
    input: &crate::ir::Tensor,
    options: &[u8],
) -> Option<(crate::ir::DType, usize)> {
    use crate::ir::DType;
    let options = flexbuffer::FlexVector::root(options);
    let int = |i: usize| -> Option<i32> { options.as_ref().ok()?.int(i).ok().map(|v| v as i32) };
    let elements = input.num_elements();
    let rows = || elements.checked_div(*input.shape.last()?);
    match name {
        SPECTRAL_SUBTRACTION => Some((DType::U32, elements)),
        DELAY => {
            let delay = usize::try_from(int(0)?).ok()?;
            Some((DType::I16, rows()?.checked_mul(delay)?))
        }
        FRAMER => {
            let capacity = framer_capacity(int(0)?, int(1)?)?;
            Some((DType::I16, rows()?.checked_mul(capacity)?.checked_add(2)?))
        }
        STACKER => {
            let size = stacker_buffer_size(int(0)?, int(1)?, int(2)?)?;
            Some((DType::I16, size.checked_add(4)?))
        }
        OVERLAP_ADD => {
            let dtype = match int(0)? {
                0 => DType::F32,
                7 => DType::I16,
                _ => return None,
            };
            let frames = *input.shape.get(input.shape.len().checked_sub(2)?)?;
            Some((dtype, elements.checked_div(frames)?))
        }
        _ => None,
    }
}

/// TFLM's custom operator CIRCULAR_BUFFER, which keeps its ring of frames in its output tensor
/// from one invocation to the next and counts the invocations in its own data.
pub(crate) const CIRCULAR_BUFFER: &str = "CIRCULAR_BUFFER";

/// A CIRCULAR_BUFFER's state (see `runtime::kernels::circular_buffer`): the count and the stop
/// byte in a header, then the ring, the `[1, slots, h, depth]` output's bytes from its
/// dimension 1 on. `None` for an output of another rank (refused by its lowering).
fn circular_buffer_state_size(output: &crate::ir::Tensor) -> Option<(crate::ir::DType, usize)> {
    let [_, slots, h, depth] = output.shape[..] else {
        return None;
    };
    let ring = slots.checked_mul(h)?.checked_mul(depth)?;
    let bytes = ring.checked_add(tinyaot_runtime::kernels::circular_buffer::STATE_HEADER)?;
    Some((crate::ir::DType::I8, bytes))
}

/// A CIRCULAR_BUFFER's state after a reset (`bytes` of it) when its ring, the output, is a
/// variable INT8 tensor, as TFLM's kernel expects it: the header's count 0, the ring every byte
/// the output's zero point, which TFLM's ResetVariableTensors (run by AllocateTensors and by
/// Reset) writes there. `None` (zeros) otherwise: an output TFLM does not reset starts with what
/// its arena held.
fn circular_buffer_initial<'m>(
    ring: &crate::ir::Tensor<'_>,
    bytes: usize,
) -> Option<std::borrow::Cow<'m, [u8]>> {
    let zero_point = ring.quant.as_ref()?.zero_points.first().copied()?;
    if !ring.is_variable || ring.dtype != crate::ir::DType::I8 || zero_point == 0 {
        return None;
    }
    let header = tinyaot_runtime::kernels::circular_buffer::STATE_HEADER;
    let mut state = vec![zero_point as i8 as u8; bytes];
    state[..header.min(bytes)].fill(0);
    Some(std::borrow::Cow::Owned(state))
}

/// Gives each custom operator of TFLM's signal library that keeps state of its own (see
/// [`signal_state_size`]), and each CIRCULAR_BUFFER ([`circular_buffer_state_size`]), a variable
/// tensor for it (not a tensor of the model): appended after
/// the model's tensors and to the operator's intermediates (the last one), so that the planner
/// puts it in the state region and `reset` zeroes it, as TFLM's Reset and Prepare clear theirs.
fn signal_state(
    subgraph: &tinyaot_schema::tflite::SubGraph<'_>,
    tensors: &mut Vec<crate::ir::Tensor>,
    operators: &mut [crate::ir::Operator],
) {
    use crate::ir::OpKind;
    for op in operators.iter_mut() {
        let OpKind::Custom(name) = &op.kind else {
            continue;
        };
        let Some(input) = op.input(0) else { continue };
        let options = subgraph
            .operators()
            .and_then(|ops| ops.iter().nth(op.source_index))
            .and_then(|o| o.custom_options())
            .map(|v| v.bytes())
            .unwrap_or(&[]);
        let ring = op.outputs.first().map(|&o| &tensors[o]);
        let size = match name.as_str() {
            CIRCULAR_BUFFER => ring.and_then(circular_buffer_state_size),
            _ => signal_state_size(name, &tensors[input], options),
        };
        let Some((dtype, elements)) = size else {
            continue;
        };
        // A state too large for its bytes to be counted is refused by the lowering (its size).
        let Some(bytes) = elements.checked_mul(dtype.size()) else {
            continue;
        };
        let initial = match ring {
            Some(ring) if name == CIRCULAR_BUFFER => circular_buffer_initial(ring, bytes),
            _ => None,
        };
        tensors.push(crate::ir::Tensor {
            name: format!("{} {name} state", tensors[input].name),
            shape: vec![elements],
            dtype,
            quant: None,
            data: None,
            is_variable: true,
            initial,
            bytes,
        });
        op.intermediates.push(tensors.len() - 1);
    }
}

/// Gives empty weights that nothing writes (not a graph input, not a variable, no operator's
/// output) their data: none. A converter writes the weights of no input channels
/// (FULLY_CONNECTED's and TRANSPOSE_CONV's `[.., 0]`, an LSTM's input weights for an input size of
/// 0) with an empty buffer, which TFLM takes for a tensor of its arena that nothing fills; their
/// kernels read no byte of it (nor ask whether it is constant), so it is a constant of no bytes.
/// Every other empty tensor keeps no data: the operators that require a constant (TFLM's
/// `IsConstantTensor`: a shape, an axis) refuse a tensor with an empty buffer, as TFLM does.
fn empty_constants(
    tensors: &mut [crate::ir::Tensor],
    operators: &[crate::ir::Operator],
    inputs: &[usize],
) {
    use crate::ir::{OpCode, OpKind};
    let mut written = vec![false; tensors.len()];
    for &t in operators.iter().flat_map(|op| &op.outputs).chain(inputs) {
        written[t] = true;
    }
    // Whether every read of the tensor is as weights of those kernels.
    let mut weights_only: Vec<Option<bool>> = vec![None; tensors.len()];
    for op in operators {
        let weights = match op.kind {
            OpKind::Builtin(OpCode::FULLY_CONNECTED | OpCode::TRANSPOSE_CONV) => 1..2,
            OpKind::Builtin(OpCode::UNIDIRECTIONAL_SEQUENCE_LSTM) => 1..5,
            _ => 0..0,
        };
        for (i, t) in op.inputs.iter().enumerate() {
            if let Some(t) = *t {
                let only = weights_only[t].unwrap_or(true);
                weights_only[t] = Some(only && weights.contains(&i));
            }
        }
    }
    for (t, tensor) in tensors.iter_mut().enumerate() {
        if weights_only[t] == Some(true)
            && tensor.data.is_none()
            && !tensor.is_variable
            && !written[t]
            && tensor.shape.contains(&0)
        {
            tensor.data = Some(std::borrow::Cow::Borrowed(&[]));
        }
    }
}

/// A string of the file (a name, the description) as text: its UTF-8 as it is, any other byte
/// escaped as `\xNN`; absent is empty. TFLM never reads names, so the file may hold any bytes;
/// the escaped text is for messages and comments, never a key (keys compare the bytes).
fn text(bytes: Option<&[u8]>) -> String {
    bytes.map_or_else(String::new, |b| escape_invalid_utf8(b).into_owned())
}

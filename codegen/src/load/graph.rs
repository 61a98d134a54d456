//! Whole-graph checks, after every tensor and operator has been read: the data flow must be one
//! that TFLM runs with a defined result, so that planning and lowering can rely on it.
//!
//! TFLM itself checks little of this (its interpreter runs operators in order over whatever the
//! arena holds), so a graph that breaks these rules computes garbage there. tinyaot refuses it with
//! [`Error::InvalidModel`], naming the operator and tensor, rather than plan around it.

use crate::error::{Error, Grounds, Result};
use crate::ir::{Graph, Options, Tensor, WhileStep};

/// The deepest tensor TFLM's kernels handle (`RuntimeShape` and the reference kernels stop at 6
/// dimensions; several ops at 4 or 5, which their lowering checks).
pub const MAX_RANK: usize = 6;

/// Reading a tensor before anything writes it.
pub(super) const UNINITIALIZED: Grounds =
    Grounds::undefined("TFLM's kernel reads arena memory nothing has written (uninitialized)");

/// A tensor with more than one writer (two operators, two outputs of one, a graph input).
pub(super) const SECOND_WRITER: Grounds = Grounds::undefined(
    "TFLM's memory planner gives each tensor one lifetime from its first writer; a second write \
     into a tensor another operator already wrote (or two outputs in one buffer) overwrites a \
     value the planner may have reused, an order no TFLM kernel contract defines",
);

/// Checks the graph's data flow and its tensors' basic well-formedness.
pub(super) fn check(graph: &Graph) -> Result<()> {
    // Only tensors the computation touches: converters leave unused and intermediate tensors
    // (an LSTM's `[0]`-shaped intermediates) that TFLM never looks at.
    let mut used = vec![false; graph.tensors.len()];
    for op in &graph.operators {
        for &t in op.inputs.iter().flatten().chain(&op.outputs) {
            used[t] = true;
        }
    }
    for &t in graph.inputs.iter().chain(&graph.outputs) {
        used[t] = true;
    }
    for (index, tensor) in graph.tensors.iter().enumerate() {
        if used[index] {
            check_tensor(index, tensor)?;
        }
    }
    // Which tensors hold a defined value before operator `i` runs: constants, graph inputs and
    // variables from the start, then each operator's outputs. A tensor of no elements is defined
    // too, whoever writes it: a kernel reads none of its bytes (a constant of no elements has an
    // empty buffer, which the file cannot tell from no buffer, and TFLM plans it as an arena
    // tensor of 0 bytes).
    let mut defined: Vec<bool> = graph
        .tensors
        .iter()
        .map(|t| t.is_constant() || t.is_variable || t.num_elements() == 0)
        .collect();
    for &input in &graph.inputs {
        let tensor = &graph.tensors[input];
        if tensor.is_constant() {
            return Err(invalid(
                format!(
                    "graph input tensor #{input} {:?} is a constant (it has data in its buffer)",
                    tensor.name
                ),
                Grounds::undefined(
                    "micro_allocator.cc InitializeTfLiteTensorFromFlatbuffer points a \
                     tensor with data at the read-only flatbuffer, so filling this input \
                     writes into const model data",
                ),
            ));
        }
        defined[input] = true;
    }
    let mut writer: Vec<Option<usize>> = vec![None; graph.tensors.len()];
    for (op_index, op) in graph.operators.iter().enumerate() {
        let name = op.kind.name();
        for input in op.inputs.iter().flatten().copied() {
            if op.outputs.contains(&input) {
                return Err(invalid(
                    format!(
                        "operator #{op_index} {name} reads its own output, tensor #{input} {:?}",
                        graph.tensors[input].name
                    ),
                    UNINITIALIZED,
                ));
            }
            if !defined[input] {
                return Err(invalid(
                    format!(
                        "operator #{op_index} {name} reads tensor #{input} {:?}, which is not a \
                         constant, a graph input, a variable, nor written by an earlier operator",
                        graph.tensors[input].name
                    ),
                    UNINITIALIZED,
                ));
            }
        }
        for (position, &output) in op.outputs.iter().enumerate() {
            let tensor = &graph.tensors[output];
            if op.outputs[..position].contains(&output) {
                return Err(invalid(
                    format!(
                    "operator #{op_index} {name} names tensor #{output} {:?} as two of its outputs",
                    tensor.name
                ),
                    SECOND_WRITER,
                ));
            }
            if tensor.is_constant() {
                return Err(invalid(
                    format!(
                    "operator #{op_index} {name} writes tensor #{output} {:?}, which is a constant",
                    tensor.name
                ),
                    Grounds::undefined(
                        "micro_allocator.cc InitializeTfLiteTensorFromFlatbuffer points a \
                         tensor with data at the read-only flatbuffer: the kernel would write \
                         into const model data",
                    ),
                ));
            }
            if graph.inputs.contains(&output) {
                return Err(invalid(
                    format!(
                    "operator #{op_index} {name} writes tensor #{output} {:?}, which is a graph \
                     input",
                    tensor.name
                ),
                    SECOND_WRITER,
                ));
            }
            // A variable (a resource variable's tensor) may be assigned several times, and a
            // WHILE's output is written again by its loop (the copy of the body's output).
            let again = tensor.is_variable
                || (op.looped.is_some() && op.options == Options::While(WhileStep::Copy));
            if let (Some(earlier), false) = (writer[output], again) {
                return Err(invalid(
                    format!(
                    "tensor #{output} {:?} is written by operator #{earlier} and again by operator \
                     #{op_index} {name}; each tensor must have one writer",
                    tensor.name
                ),
                    SECOND_WRITER,
                ));
            }
            // TFLM's PrepareSubgraphs refuses an operator output with a dimension <= 0 as a
            // dynamic tensor, except the shape [0] (a legacy scalar shape there).
            if tensor.shape.contains(&0) && tensor.shape != [0] {
                return Err(invalid(
                    format!(
                        "operator #{op_index} {name} writes tensor #{output} {:?}, which has a \
                         zero-size dimension {:?}",
                        tensor.name, tensor.shape
                    ),
                    Grounds::tflm(
                        "micro_interpreter_graph.cc PrepareSubgraphs: CheckDynamicTensors refuses \
                         an operator output with a dimension <= 0 (Dynamic tensors are not \
                         supported), the legacy shape [0] excepted",
                    ),
                ));
            }
            writer[output] = Some(op_index);
            defined[output] = true;
        }
    }
    // A graph output that is a graph input (a pass-through) or a constant is what TFLM returns
    // for it: the input's bytes, or the constant's; one of no elements (an empty constant) has
    // none to return. One that nothing defines would be whatever the arena held (TFLM's result
    // is undefined).
    for &output in &graph.outputs {
        let tensor = &graph.tensors[output];
        let defined_before = graph.inputs.contains(&output)
            || tensor.is_constant()
            || (tensor.num_elements() == 0 && !tensor.is_variable);
        if writer[output].is_none() && !defined_before {
            let what = if tensor.is_variable {
                "is a variable, which only its operators may expose"
            } else {
                "is not written by any operator, nor a graph input or a constant"
            };
            return Err(invalid(
                format!(
                    "graph output tensor #{output} {:?} {what}: TFLM would return whatever its \
                     arena holds (undefined)",
                    tensor.name
                ),
                Grounds::undefined("TFLM returns arena memory no operator wrote (uninitialized)"),
            ));
        }
    }
    Ok(())
}

/// A tensor's shape: at most [`MAX_RANK`] dimensions. A zero-size dimension is accepted: TFLM
/// runs such a tensor as an empty one (the lowering decides per operator).
fn check_tensor(index: usize, tensor: &Tensor) -> Result<()> {
    if tensor.shape.len() > MAX_RANK {
        return Err(invalid(
            format!(
            "tensor #{index} {:?} has rank {}; TFLM's kernels handle at most {MAX_RANK} dimensions",
            tensor.name,
            tensor.shape.len()
        ),
            Grounds::undefined(
                "runtime_shape.h RuntimeShape holds at most kMaxSmallSize = 6 \
                 dimensions, guarded only by TFLITE_DCHECK: a deeper shape writes past \
                 its array",
            ),
        ));
    }
    Ok(())
}

fn invalid(detail: String, grounds: Grounds) -> Error {
    Error::InvalidModel { detail, grounds }
}

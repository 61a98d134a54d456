//! Builders of one-operator graphs for the families' unit tests, and readers of what they lower to.

use crate::error::Error;
use crate::ir::{DType, Graph, OpCode, OpKind, Operator, Options, Quantization, Tensor};
use crate::lower::{lower, CallKind, KernelCall, Value};

/// Quantization with `scales` and `zero_points` along `axis`.
pub(super) fn quant(scales: &[f32], zero_points: &[i64], axis: usize) -> Option<Quantization> {
    Some(Quantization {
        scales: scales.to_vec(),
        zero_points: zero_points.to_vec(),
        axis,
    })
}

/// Per-tensor quantization.
pub(super) fn per_tensor(scale: f32, zero_point: i64) -> Option<Quantization> {
    quant(&[scale], &[zero_point], 0)
}

/// A tensor of `shape`; constant when `data` is given.
pub(super) fn tensor<'m>(
    shape: &[usize],
    dtype: DType,
    quant: Option<Quantization>,
    data: Option<&'m [u8]>,
) -> Tensor<'m> {
    let elements: usize = shape.iter().product();
    Tensor {
        name: String::new(),
        shape: shape.to_vec(),
        dtype,
        quant,
        data: data.map(std::borrow::Cow::Borrowed),
        is_variable: false,
        initial: None,
        bytes: elements * dtype.size(),
    }
}

/// A graph of one op over `tensors`, whose first tensor is the graph input and last the output.
pub(super) fn graph<'m>(
    code: OpCode,
    options: Options,
    tensors: Vec<Tensor<'m>>,
    inputs: &[Option<usize>],
) -> Graph<'m> {
    let output = tensors.len() - 1;
    Graph {
        tensors,
        operators: vec![Operator {
            kind: OpKind::Builtin(code),
            version: 1,
            options,
            inputs: inputs.to_vec(),
            outputs: vec![output],
            intermediates: vec![],
            source_index: 0,
            branch: None,
            looped: None,
        }],
        inputs: vec![0],
        outputs: vec![output],
        offline_offsets: None,
        subgraphs: Vec::new(),
        description: String::new(),
        folded: Vec::new(),
        source: None,
    }
}

/// The kernel call the graph's one op lowers to.
pub(super) fn kernel(graph: &Graph) -> KernelCall {
    match lower(graph).expect("lowers").remove(0).kind {
        CallKind::Kernel(k) => k,
        other => panic!("expected a kernel call, got {other:?}"),
    }
}

/// The parameter fields of the graph's one kernel call.
pub(super) fn fields(graph: &Graph) -> Vec<(&'static str, Value)> {
    kernel(graph).params.expect("params").fields
}

/// The value of field `name` of `k`'s parameters.
pub(super) fn field<'a>(k: &'a KernelCall, name: &str) -> &'a Value {
    let params = k.params.as_ref().expect("params");
    &params
        .fields
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no field {name}"))
        .1
}

/// The message of a refusal: an unsupported use, or a model TFLM would refuse.
pub(super) fn reason(graph: &Graph) -> String {
    match lower(graph) {
        Err(Error::UnsupportedOpUse { reason, .. }) => reason,
        Err(Error::InvalidModel { detail, .. }) => detail,
        other => panic!("expected UnsupportedOpUse or InvalidModel, got {other:?}"),
    }
}

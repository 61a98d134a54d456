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
mod dtype;
mod index;
mod metadata;
mod operator;
mod options;
mod tensor;
mod verify;

use crate::error::{Error, Result};
use crate::ir::Graph;

use buffer::Buffers;

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
/// - [`Error::Subgraphs`] unless the model has exactly one subgraph;
/// - [`Error::UnsupportedDtype`], [`Error::DynamicShape`], [`Error::Overflow`] and
///   [`Error::IndexOutOfRange`] for the tensor and index problems they name.
pub fn load(bytes: &[u8]) -> Result<Graph<'_>> {
    let model = verify::model(bytes)?;
    if model.version() != SCHEMA_VERSION {
        return Err(Error::UnsupportedVersion {
            version: model.version(),
        });
    }
    let subgraphs = model.subgraphs();
    let count = subgraphs.map_or(0, |s| s.len());
    let Some(subgraph) = subgraphs
        .filter(|_| count == 1)
        .and_then(|s| s.iter().next())
    else {
        return Err(Error::Subgraphs { count });
    };

    let buffers = Buffers::new(bytes, model.buffers());

    let tensors = subgraph
        .tensors()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, t)| tensor::tensor(i, t, &buffers))
        .collect::<Result<Vec<_>>>()?;
    let num_tensors = tensors.len();

    let codes = model.operator_codes();
    let operators = subgraph
        .operators()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, op)| operator::operator(i, op, codes, num_tensors))
        .collect::<Result<Vec<_>>>()?;

    let inputs = index::tensor_list(subgraph.inputs(), num_tensors, "subgraph input")?;
    let outputs = index::tensor_list(subgraph.outputs(), num_tensors, "subgraph output")?;
    let offline_offsets = metadata::offline_offsets(model.metadata(), &buffers, num_tensors)?;

    Ok(Graph {
        tensors,
        operators,
        inputs,
        outputs,
        offline_offsets,
        description: model.description().unwrap_or_default().to_string(),
    })
}

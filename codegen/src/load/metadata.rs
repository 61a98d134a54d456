//! Model metadata tinyaot reads: TFLM's `OfflineMemoryAllocation` plan.

use flatbuffers::{ForwardsUOffset, Vector};
use tinyaot_schema::tflite;

use super::buffer::Buffers;
use crate::error::{Error, Result};

/// The metadata name TFLM looks for.
const OFFLINE_MEMORY_ALLOCATION: &str = "OfflineMemoryAllocation";

/// Words before the per-tensor offsets: version, subgraph index, number of tensors.
const HEADER_WORDS: usize = 3;

/// The offline plan, if the model has one: one arena offset per tensor, -1 for "plan online".
///
/// The buffer is little-endian `int32`s `[version, subgraph, n, offset_0 … offset_{n-1}]`. Like
/// TFLM, the last entry with the name wins and `n` must equal the number of tensors.
pub(super) fn offline_offsets(
    metadata: Option<Vector<'_, ForwardsUOffset<tflite::Metadata<'_>>>>,
    buffers: &Buffers<'_>,
    num_tensors: usize,
) -> Result<Option<Vec<i32>>> {
    let Some(entry) = metadata
        .into_iter()
        .flatten()
        // Compared as bytes, exactly: a name that is not UTF-8 is just another name.
        .rfind(|m| m.name_bytes() == Some(OFFLINE_MEMORY_ALLOCATION.as_bytes()))
    else {
        return Ok(None);
    };
    let corrupt = |what: String| Error::Corrupt {
        detail: format!("metadata {OFFLINE_MEMORY_ALLOCATION:?}: {what}"),
    };
    let raw = buffers.contents(entry.buffer(), || {
        format!("metadata {OFFLINE_MEMORY_ALLOCATION:?} buffer")
    })?;
    if raw.len() % 4 != 0 {
        return Err(corrupt(format!(
            "{} bytes is not a whole number of int32 words",
            raw.len()
        )));
    }
    // `chunks_exact(4)` yields 4-byte chunks only, so the indexing below cannot fail.
    let mut words = raw
        .chunks_exact(4)
        .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]));
    let (Some(_version), Some(subgraph), Some(count)) = (words.next(), words.next(), words.next())
    else {
        return Err(corrupt(format!(
            "{} bytes is shorter than its {HEADER_WORDS}-word header",
            raw.len()
        )));
    };
    if subgraph != 0 {
        return Err(corrupt(format!(
            "plans subgraph {subgraph}, but the model's only subgraph is 0"
        )));
    }
    if usize::try_from(count).ok() != Some(num_tensors) {
        return Err(corrupt(format!(
            "holds offsets for {count} tensors, the subgraph has {num_tensors}"
        )));
    }
    let available = raw.len() / 4 - HEADER_WORDS;
    if available < num_tensors {
        return Err(corrupt(format!(
            "announces {num_tensors} offsets but holds {available}"
        )));
    }
    let offsets: Vec<i32> = words.take(num_tensors).collect();
    if let Some((tensor, offset)) = offsets.iter().enumerate().find(|(_, &o)| o < -1) {
        return Err(corrupt(format!(
            "offset {offset} for tensor {tensor}; offsets are -1 (plan online) or at least 0"
        )));
    }
    Ok(Some(offsets))
}

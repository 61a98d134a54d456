//! Constant data: the model's buffer table, resolved to slices of the input bytes.

use flatbuffers::{ForwardsUOffset, Vector};
use tinyaot_schema::tflite;

use crate::error::{Error, Result};

/// The buffer table of a model, and the whole file for buffers stored outside the FlatBuffer.
pub(super) struct Buffers<'m> {
    bytes: &'m [u8],
    table: Option<Vector<'m, ForwardsUOffset<tflite::Buffer<'m>>>>,
}

impl<'m> Buffers<'m> {
    /// Wraps the (verified) buffer table of the model read from `bytes`.
    pub(super) fn new(
        bytes: &'m [u8],
        table: Option<Vector<'m, ForwardsUOffset<tflite::Buffer<'m>>>>,
    ) -> Self {
        Buffers { bytes, table }
    }

    /// Number of buffers.
    pub(super) fn len(&self) -> usize {
        self.table.map_or(0, |t| t.len())
    }

    /// The contents of buffer `index`: empty when it has none. `context` names the referrer
    /// ("tensor 4 buffer") and is only built on failure.
    ///
    /// Files over 2 GB keep data after the FlatBuffer and give its place as `offset`/`size`
    /// (an offset of 0 or 1 means "not used"); such ranges are checked against the file.
    pub(super) fn contents(
        &self,
        index: u32,
        context: impl FnOnce() -> String,
    ) -> Result<&'m [u8]> {
        let len = self.len();
        let buffer = match (self.table, usize::try_from(index)) {
            // `Vector::get` asserts in range; the guard makes that assertion unreachable.
            (Some(table), Ok(i)) if i < len => table.get(i),
            _ => {
                return Err(Error::IndexOutOfRange {
                    context: context(),
                    index: i64::from(index),
                    len,
                })
            }
        };
        if let Some(data) = buffer.data() {
            if !data.is_empty() {
                return Ok(data.bytes());
            }
        }
        let (offset, size) = (buffer.offset(), buffer.size());
        if offset <= 1 || size == 0 {
            return Ok(&[]);
        }
        let range = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(size).ok())
            .and_then(|(start, n)| Some(start..start.checked_add(n)?));
        match range.and_then(|r| self.bytes.get(r)) {
            Some(slice) => Ok(slice),
            None => Err(Error::Truncated {
                len: self.bytes.len(),
                detail: format!(
                    "buffer {index} (used by {}) lies at bytes {offset}..+{size}, past the end \
                     of the file",
                    context()
                ),
            }),
        }
    }
}

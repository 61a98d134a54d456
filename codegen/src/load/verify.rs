//! The first gate: the file identifier and the FlatBuffers verifier, with explicit limits.
//!
//! The verifier is tinyaot-schema's ([`tinyaot_schema::verifier`]), which accepts what TFLM reads:
//! scalars, offsets and vectors at any position (no alignment), and strings of any bytes (names
//! are never required to be UTF-8; the loader reads them as bytes and escapes them for display).
//! Everything must still lie inside the file, and the limits below bound the work.

use tinyaot_schema::tflite;
use tinyaot_schema::verifier::{ErrorKind, InvalidFlatbuffer, VerifierOptions};

use crate::error::{Error, Result};

/// Bytes 4..8 of every TFLite file.
const IDENTIFIER: [u8; 4] = *b"TFL3";

/// Real models nest about six tables deep (Model → SubGraph → Tensor → QuantizationParameters →
/// details → …); anything near this limit is hostile.
const MAX_DEPTH: usize = 32;

/// Verifier limits derived from the input length, so that verification time and the loader's
/// allocations stay proportional to the file size.
pub(super) fn verifier_options(len: usize) -> VerifierOptions {
    VerifierOptions {
        max_depth: MAX_DEPTH,
        // Every table starts with a 4-byte offset to its vtable: an honest file cannot hold more.
        max_tables: len / 4 + 1,
        // Objects reachable from several places are counted once per reference; real models share
        // little (vtables), so four times the length plus slack never rejects them while still
        // bounding how much a crafted file of aliased vectors can make the loader copy.
        max_apparent_size: len.saturating_mul(4).saturating_add(1 << 16),
        ignore_missing_null_terminator: false,
    }
}

/// Checks the identifier and verifies the whole buffer, returning the root table.
pub(super) fn model(bytes: &[u8]) -> Result<tflite::Model<'_>> {
    let len = bytes.len();
    let Some(found) = bytes.get(4..8) else {
        return Err(Error::Truncated {
            len,
            detail: "a TFLite file starts with an 8-byte header (root offset and \"TFL3\")"
                .to_string(),
        });
    };
    let mut id = [0u8; 4];
    id.copy_from_slice(found);
    if id != IDENTIFIER {
        return Err(Error::WrongIdentifier { found: id });
    }
    tflite::root_as_model_with_opts(&verifier_options(len), bytes).map_err(|e| classify(&e, len))
}

/// Reads past the end mean the file ends before its structure does; everything else the verifier
/// reports (a vtable offset leading outside the file, a vtable length that is odd or shorter than
/// its header, a string without its terminator, an inconsistent union, a limit) is corruption.
/// Alignment and UTF-8 are not errors.
fn classify(e: &InvalidFlatbuffer, len: usize) -> Error {
    let detail = e.to_string();
    match &e.kind {
        ErrorKind::OutOfBounds { range } if range.end > len => Error::Truncated { len, detail },
        _ => Error::Corrupt { detail },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_scale_with_length() {
        let small = verifier_options(100);
        let large = verifier_options(1_000_000);
        assert!(small.max_tables < large.max_tables);
        assert!(small.max_apparent_size < large.max_apparent_size);
        // No overflow at the extreme.
        let huge = verifier_options(usize::MAX);
        assert_eq!(huge.max_apparent_size, usize::MAX);
    }

    #[test]
    fn short_and_foreign_inputs() {
        assert!(matches!(model(b""), Err(Error::Truncated { len: 0, .. })));
        assert!(matches!(
            model(b"1234567"),
            Err(Error::Truncated { len: 7, .. })
        ));
        assert!(matches!(
            model(b"\0\0\0\0TFL2\0\0\0\0"),
            Err(Error::WrongIdentifier { found }) if &found == b"TFL2"
        ));
        // Right identifier, root offset past the end.
        assert!(matches!(
            model(b"\xff\0\0\0TFL3"),
            Err(Error::Truncated { .. } | Error::Corrupt { .. })
        ));
    }
}

//! String fields whose bytes need not be UTF-8.
//!
//! FlatBuffers strings are meant to be UTF-8, but TFLM never reads tensor, subgraph or signature
//! names, and converters and vendor tools write whatever bytes they have. The
//! [verifier](crate::verifier) therefore checks a string's bounds and terminator only, and the
//! generated accessors do not trust the bytes:
//!
//! - `name()`, `custom_code()`, … (`Option<&str>`) read through [`LenientStr`]: the string when its
//!   bytes are UTF-8, [`REPLACEMENT`] (one U+FFFD) when they are not. A fixed stand-in rather
//!   than, say, the longest valid prefix: a prefix could equal a real key (`b"ETHOSU\xff"` would
//!   read as `"ETHOSU"`), the stand-in equals no name a converter writes. Nothing is lost: the
//!   bytes are there too —
//! - `name_bytes()`, `custom_code_bytes()`, … (`Option<&[u8]>`, added by `schema/regen.sh` next
//!   to every string accessor) return the bytes as stored. Compare keys with these.
//! - [`escape_invalid_utf8`] turns such bytes into text for messages: the UTF-8 parts as they are,
//!   each other byte as `\xNN`.
//!
//! No `&str` is ever made from bytes that were not checked to be UTF-8: the generated code has no
//! `Follow` of `&str` left (`regen.sh` rewrites each one to [`LenientStr`] and fails if one
//! remains), and [`LenientStr`] builds its `&str` with `core::str::from_utf8`.

use std::borrow::Cow;
use std::fmt::Write as _;

use flatbuffers::Follow;

use crate::verifier::{vector_range, ErrorKind, Result, Verifiable, Verifier};

/// What a string accessor returns for bytes that are not UTF-8: U+FFFD REPLACEMENT CHARACTER.
pub const REPLACEMENT: &str = "\u{FFFD}";

/// A FlatBuffers string field read leniently: verified as bytes (in bounds, null-terminated
/// unless the options say otherwise), followed as `&str` only when the bytes are UTF-8, else as
/// [`REPLACEMENT`].
#[derive(Clone, Copy, Debug)]
pub struct LenientStr;

impl Verifiable for LenientStr {
    #[inline]
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<()> {
        let range = vector_range(v, pos, 1)?;
        let terminated = v.buffer().get(range.end) == Some(&0);
        if !terminated && !v.options().ignore_missing_null_terminator {
            return Err(ErrorKind::MissingNullTerminator { range }.into());
        }
        Ok(())
    }
}

impl<'a> Follow<'a> for LenientStr {
    type Inner = &'a str;

    /// # Safety
    ///
    /// As for `&[u8]`: a verified string (its length and bytes in `buf`) is at `loc`.
    #[inline]
    unsafe fn follow(buf: &'a [u8], loc: usize) -> &'a str {
        // SAFETY: the caller's contract, which is `&[u8]`'s.
        let bytes = unsafe { <&'a [u8]>::follow(buf, loc) };
        core::str::from_utf8(bytes).unwrap_or(REPLACEMENT)
    }
}

/// `bytes` as text: the UTF-8 parts unchanged (borrowed when all of it is UTF-8), every byte
/// that is not part of a valid UTF-8 sequence as `\xNN` (lowercase hex).
pub fn escape_invalid_utf8(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(text) = core::str::from_utf8(bytes) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    Cow::Owned(out)
}

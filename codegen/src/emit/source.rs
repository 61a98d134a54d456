//! [`Source`]: generated text whose constant data stays in the model's bytes until it is written.
//!
//! A model's weights can be hundreds of megabytes, and their source text several times that (a C
//! initializer, a Rust byte-string literal). Rendering it whole into one `String`, as templates
//! and formatters do, costs several times the model in memory. So the emitters render only the
//! code, leaving each constant as a [`Source`] part that refers to the model's bytes, and
//! [`Source::write_to`] encodes the data into the writer in bounded chunks as it goes: peak memory is
//! the model plus the code plus one chunk, and the time is one pass over the data.

use std::io::{self, Write};
use std::sync::Arc;

/// How constant data is spelled in the generated text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// The bytes themselves.
    Raw,
    /// The inside of a Rust byte-string literal: printable ASCII as itself, `"` and `\` escaped,
    /// anything else as `\xNN`.
    RustByteString,
    /// The inside of a C `uint64_t` array initializer: little-endian words, six to a line (see
    /// [`super::c_data::words`]).
    #[cfg(feature = "c")]
    CWords,
}

#[derive(Clone, Debug)]
enum Part<'m> {
    Text(String),
    Data(Encoding, Bytes<'m>),
}

/// Constant data: the model's own bytes, or bytes computed at generation time (a filter
/// re-laid out for its kernel, say), shared with the lowering that made them.
#[derive(Clone, Debug)]
pub(crate) enum Bytes<'m> {
    /// Bytes of the model.
    Borrowed(&'m [u8]),
    /// Bytes computed at generation time.
    Shared(Arc<[u8]>),
}

impl std::ops::Deref for Bytes<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(b) => b,
            Bytes::Shared(b) => b,
        }
    }
}

impl<'m> Bytes<'m> {
    /// The data of a constant tensor: the model's bytes, or a folded constant's (copied: folded
    /// constants are the few results of operators whose inputs were all constant).
    pub(crate) fn of_constant(tensor: &crate::ir::Tensor<'m>) -> Bytes<'m> {
        match &tensor.data {
            Some(std::borrow::Cow::Borrowed(bytes)) => Bytes::Borrowed(bytes),
            Some(std::borrow::Cow::Owned(bytes)) => Bytes::Shared(bytes.as_slice().into()),
            None => Bytes::Borrowed(&[]),
        }
    }
}

impl<'m> From<&'m [u8]> for Bytes<'m> {
    fn from(bytes: &'m [u8]) -> Self {
        Bytes::Borrowed(bytes)
    }
}

impl From<Arc<[u8]>> for Bytes<'_> {
    fn from(bytes: Arc<[u8]>) -> Self {
        Bytes::Shared(bytes)
    }
}

/// Generated source text, with constant data kept by reference (`'m`: the model's bytes) and
/// encoded only when written. [`write_to`](Self::write_to) streams it to a file;
/// [`into_string`](Self::into_string) renders it whole for callers that want a `String`.
#[derive(Clone, Debug, Default)]
pub struct Source<'m> {
    parts: Vec<Part<'m>>,
}

/// Input bytes encoded per chunk: a multiple of 48 (six 8-byte words, one C line) so that chunk
/// boundaries fall on line boundaries, and small enough that a chunk's text (at most 4 bytes of
/// text per data byte) stays a fraction of a megabyte.
const CHUNK: usize = 48 * 1024;

impl<'m> Source<'m> {
    /// A source that is just `text`.
    pub fn text(text: impl Into<String>) -> Source<'m> {
        let mut source = Source::default();
        source.push_str(&text.into());
        source
    }

    /// A source that is just `bytes`, written as they are.
    pub fn raw(bytes: &'m [u8]) -> Source<'m> {
        let mut source = Source::default();
        source.push_data(Encoding::Raw, bytes);
        source
    }

    /// Appends text.
    pub(crate) fn push_str(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        match self.parts.last_mut() {
            Some(Part::Text(last)) => last.push_str(text),
            _ => self.parts.push(Part::Text(text.to_string())),
        }
    }

    /// Appends constant data, to be encoded as `encoding` when written.
    pub(crate) fn push_data(&mut self, encoding: Encoding, data: impl Into<Bytes<'m>>) {
        self.parts.push(Part::Data(encoding, data.into()));
    }

    /// Builds a source from rendered `text` in which each occurrence of `placeholder` stands for
    /// the next entry of `data`. `None` when the counts differ (the caller's bug: the template and
    /// the data disagree).
    #[cfg(feature = "c")] // The C templates' placeholders; the Rust emitter pushes data itself.
    pub(crate) fn splice(
        text: &str,
        placeholder: &str,
        encoding: Encoding,
        data: &[Bytes<'m>],
    ) -> Option<Source<'m>> {
        let mut source = Source::default();
        let mut pieces = text.split(placeholder);
        source.push_str(pieces.next().unwrap_or(""));
        let mut data = data.iter();
        for piece in pieces {
            source.push_data(encoding, data.next()?.clone());
            source.push_str(piece);
        }
        data.next().is_none().then_some(source)
    }

    /// Writes the whole text to `out`, encoding constant data in bounded chunks; returns the number
    /// of bytes written. `out` should be buffered (e.g. a `BufWriter`): the text parts are written
    /// as they are, the data a chunk at a time.
    pub fn write_to<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<u64> {
        let mut written = 0u64;
        let mut buf = Vec::new();
        for part in &self.parts {
            match part {
                Part::Text(text) => {
                    out.write_all(text.as_bytes())?;
                    written += text.len() as u64;
                }
                Part::Data(Encoding::Raw, data) => {
                    out.write_all(data)?;
                    written += data.len() as u64;
                }
                Part::Data(encoding, data) => {
                    let chunks = data.chunks(CHUNK);
                    let last = chunks.len().saturating_sub(1);
                    for (i, chunk) in chunks.enumerate() {
                        buf.clear();
                        encode(&mut buf, *encoding, chunk, i == last);
                        out.write_all(&buf)?;
                        written += buf.len() as u64;
                    }
                    if data.is_empty() {
                        buf.clear();
                        encode(&mut buf, *encoding, data, true);
                        out.write_all(&buf)?;
                        written += buf.len() as u64;
                    }
                }
            }
        }
        Ok(written)
    }

    /// The whole text in one `String` (for tests, the macro and other in-memory users).
    pub fn into_string(self) -> String {
        if let [Part::Text(_)] = self.parts.as_slice() {
            if let Some(Part::Text(text)) = self.parts.into_iter().next() {
                return text;
            }
            return String::new();
        }
        let mut out = Vec::new();
        // Writing to a Vec cannot fail, and every part is UTF-8 (text, or ASCII encodings).
        let _ = self.write_to(&mut out);
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// Appends the encoding of `chunk`; `last` says whether it ends the data (for the C line end).
fn encode(out: &mut Vec<u8>, encoding: Encoding, chunk: &[u8], last: bool) {
    #[cfg(not(feature = "c"))]
    let _ = last; // Only the C encoding ends its data with a line end.
    match encoding {
        Encoding::Raw => out.extend_from_slice(chunk),
        Encoding::RustByteString => escape_bytes(out, chunk),
        #[cfg(feature = "c")]
        Encoding::CWords => {
            // Chunks are whole lines (CHUNK is a multiple of 48), so each restarts a line.
            super::c_data::push_words(out, chunk);
            if last && out.last() != Some(&b'\n') {
                out.push(b'\n');
            }
        }
    }
}

/// Appends `data` as the inside of a Rust byte-string literal: printable ASCII but `"` and `\\` as
/// itself, everything else escaped (`\\"`, `\\\\`, `\\xNN`).
pub(crate) fn escape_bytes(out: &mut Vec<u8>, data: &[u8]) {
    /// Per byte: its escape, and how many of the four bytes it takes.
    const ESCAPES: [([u8; 4], u8); 256] = {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut table = [([0u8; 4], 0u8); 256];
        let mut b = 0;
        while b < 256 {
            table[b] = match b as u8 {
                b'"' => ([b'\\', b'"', 0, 0], 2),
                b'\\' => ([b'\\', b'\\', 0, 0], 2),
                c @ 0x20..=0x7e => ([c, 0, 0, 0], 1),
                c => (
                    [b'\\', b'x', HEX[(c >> 4) as usize], HEX[(c & 0xf) as usize]],
                    4,
                ),
            };
            b += 1;
        }
        table
    };
    out.reserve(data.len() * 4);
    for &b in data {
        let (text, len) = &ESCAPES[usize::from(b)];
        out.extend_from_slice(&text[..usize::from(*len)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "c")]
    fn splice_and_write_match_whole_rendering() {
        let data: Vec<u8> = (0..=255u8).cycle().take(3 * CHUNK + 17).collect();
        let source = Source::splice(
            "a@b@c",
            "@",
            Encoding::CWords,
            &[data[..].into(), (&[][..]).into()],
        )
        .unwrap();
        let mut expected = String::from("a");
        expected.push_str(&super::super::c_data::words(&data));
        expected.push('b');
        expected.push_str(&super::super::c_data::words(&[]));
        expected.push('c');
        let mut out = Vec::new();
        assert_eq!(source.write_to(&mut out).unwrap(), expected.len() as u64);
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        assert_eq!(source.into_string(), expected);
        assert!(Source::splice("a@b", "@", Encoding::CWords, &[]).is_none());
        assert!(Source::splice("ab", "@", Encoding::CWords, &[(&[1u8][..]).into()]).is_none());
    }

    #[test]
    fn rust_bytes_are_escaped() {
        let mut source = Source::text("b\"");
        source.push_data(Encoding::RustByteString, &b"a\"\\\x00\x7f~"[..]);
        source.push_str("\"");
        assert_eq!(source.into_string(), "b\"a\\\"\\\\\\x00\\x7f~\"");
    }
}

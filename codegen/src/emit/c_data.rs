//! C literals and names: exact numbers, constant data as 64-bit words, safe comments, identifiers.

use std::fmt::Write as _;

use crate::error::{Error, Result};

/// An exact `float` literal. Rust's `{:?}` prints the shortest decimal that reads back to the same
/// `f32`, and C compilers round decimal constants correctly, so the value survives unchanged.
pub(crate) fn f32_literal(v: f32) -> String {
    if v.is_nan() {
        "TINYAOT_NAN".to_string()
    } else if v == f32::INFINITY {
        "TINYAOT_INFINITY".to_string()
    } else if v == f32::NEG_INFINITY {
        "(-TINYAOT_INFINITY)".to_string()
    } else {
        let text = format!("{v:?}");
        // `1e-7` is a double constant in C as it stands; `f` makes it a float one.
        format!("{text}f")
    }
}

/// An `int32_t` literal; `INT32_MIN` is spelled as an expression because `-2147483648` is the
/// negation of a constant that does not fit in `int`.
pub(crate) fn i32_literal(v: i32) -> String {
    if v == i32::MIN {
        "(-2147483647 - 1)".to_string()
    } else {
        v.to_string()
    }
}

/// A C literal of `v`, which C99 writes through `INT64_C` (and the minimum as an expression, as
/// [`i32_literal`] does).
pub(crate) fn i64_literal(v: i64) -> String {
    if v == i64::MIN {
        "(-INT64_C(9223372036854775807) - 1)".to_string()
    } else {
        format!("INT64_C({v})")
    }
}

/// The number of 64-bit words holding `bytes` bytes (at least one: C has no empty arrays).
pub(crate) fn words_for(bytes: usize) -> usize {
    bytes.div_ceil(8).max(1)
}

/// `data` as the inside of a `uint64_t` array initializer: little-endian words, zero-padded, six to
/// a line. Words rather than bytes because compilers parse an initializer element by element: a
/// 4 MB model compiles in about 2 s this way, against about 11 s as a byte list (string literals
/// would be faster still, but ISO C99 only guarantees 4095 characters per literal, and
/// `-Wpedantic` rejects longer ones). The whole in one string, for tests: the emitter streams it
/// ([`push_words`]).
#[cfg(test)]
pub(crate) fn words(data: &[u8]) -> String {
    let mut out = Vec::new();
    push_words(&mut out, data);
    if out.last() != Some(&b'\n') {
        out.push(b'\n');
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Appends the lines of [`words`] for `data` without the final line end, starting a new line; for
/// data written in pieces ([`super::source::Source`]), each piece a multiple of 48 bytes but the
/// last, so that lines break where they would for the whole.
pub(crate) fn push_words(out: &mut Vec<u8>, data: &[u8]) {
    /// Each byte as two hex digits.
    const HEX2: [[u8; 2]; 256] = {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut table = [[0u8; 2]; 256];
        let mut b = 0;
        while b < 256 {
            table[b] = [HEX[b >> 4], HEX[b & 0xf]];
            b += 1;
        }
        table
    };
    let n = words_for(data.len());
    out.reserve(n * 21 + n / 6 * 5);
    for (i, chunk) in data.chunks(8).enumerate() {
        out.extend_from_slice(if i % 6 == 0 { b"    0x" } else { b" 0x" });
        // Little-endian: the last byte is the most significant, printed first; padding is zero.
        for k in (0..8).rev() {
            let byte = chunk.get(k).copied().unwrap_or(0);
            out.extend_from_slice(&HEX2[usize::from(byte)]);
        }
        out.push(b',');
        if i % 6 == 5 {
            out.push(b'\n');
        }
    }
    if data.is_empty() {
        out.extend_from_slice(b"    0x0000000000000000,");
    }
}

/// Text safe inside a `/* */` comment on one line: printable ASCII, no comment terminator.
pub(crate) fn comment(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if (' '..='~').contains(&c) { c } else { '?' })
        .collect();
    clean.replace("*/", "*?").replace("/*", "?*")
}

/// C keywords (C99 and C11), which a prefix must not be.
const KEYWORDS: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "_Bool",
    "_Complex",
    "_Imaginary",
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_Generic",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
];

/// Checks that `prefix` can start every name of the generated C: an identifier, not a keyword, and
/// not in the space C reserves for the implementation (a leading underscore).
pub(crate) fn check_prefix(prefix: &str) -> Result<()> {
    let valid = prefix
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !KEYWORDS.contains(&prefix);
    if valid {
        Ok(())
    } else {
        Err(Error::Config {
            detail: format!(
                "the C prefix `{prefix}` is not usable: it must be a C identifier that starts with \
                 a letter (letters, digits and `_` only) and is not a C keyword"
            ),
        })
    }
}

/// The default prefix for a model file stem: `person-detect.v2` → `person_detect_v2`; a stem that
/// does not start with a letter gets `m_` in front.
pub fn default_prefix(stem: &str) -> String {
    let mut out: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert_str(0, "m_");
    }
    if KEYWORDS.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// A shape as `1x3x224x224` (`scalar` for rank 0), for comments.
pub(crate) fn shape_text(shape: &[usize]) -> String {
    if shape.is_empty() {
        return "scalar".to_string();
    }
    let mut out = String::new();
    for (i, d) in shape.iter().enumerate() {
        if i > 0 {
            out.push('x');
        }
        let _ = write!(out, "{d}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_read_back_exactly() {
        assert_eq!(f32_literal(0.1), "0.1f");
        assert_eq!(f32_literal(1e-7), "1e-7f");
        assert_eq!(f32_literal(-2.0), "-2.0f");
        assert_eq!(f32_literal(f32::MAX), "3.4028235e38f");
        assert_eq!(f32_literal(f32::NEG_INFINITY), "(-TINYAOT_INFINITY)");
    }

    #[test]
    fn words_are_little_endian_and_padded() {
        assert_eq!(words(&[1, 2]), "    0x0000000000000201,\n");
        assert_eq!(words(&[]), "    0x0000000000000000,\n");
        assert_eq!(words(&[0; 56]).lines().count(), 2);
    }

    #[test]
    fn prefixes() {
        assert!(check_prefix("net").is_ok());
        assert!(check_prefix("net_2").is_ok());
        assert!(check_prefix("2net").is_err());
        assert!(check_prefix("_net").is_err());
        assert!(check_prefix("int").is_err());
        assert!(check_prefix("a-b").is_err());
        assert!(check_prefix("").is_err());
        assert_eq!(default_prefix("person-detect.v2"), "person_detect_v2");
        assert_eq!(default_prefix("1x"), "m_1x");
        assert_eq!(comment("a */ b\n"), "a *? b?");
    }
}

//! `tinyaot_schema::strings`: names that are not UTF-8 shown escaped.

use std::borrow::Cow;

use tinyaot_schema::strings::escape_invalid_utf8;

#[test]
fn escapes() {
    assert!(matches!(
        escape_invalid_utf8(b"conv/1"),
        Cow::Borrowed("conv/1")
    ));
    assert_eq!(escape_invalid_utf8(b"a\xffb"), "a\\xffb");
    assert_eq!(escape_invalid_utf8("é\u{0}".as_bytes()), "é\u{0}");
    // A truncated sequence is escaped byte by byte; what follows stays text.
    assert_eq!(escape_invalid_utf8(b"\xe2\x82x\xc3"), "\\xe2\\x82x\\xc3");
    assert_eq!(escape_invalid_utf8(b""), "");
}

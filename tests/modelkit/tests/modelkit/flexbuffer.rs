use tinyaot_modelkit::flexbuffer::*;

/// The bytes Python's `flexbuffers.Dumps` writes for the same maps.
#[test]
fn writes_what_flexbuffers_writes() {
    assert_eq!(
        int_map(&[("b", -2), ("a", 1)]),
        [97, 0, 98, 0, 2, 5, 4, 2, 1, 2, 1, 254, 4, 4, 4, 36, 1]
    );
    assert_eq!(
        int_map(&[("shift", 12)]),
        [115, 104, 105, 102, 116, 0, 1, 7, 1, 1, 1, 12, 4, 2, 36, 1]
    );
}

#[test]
fn widens_for_large_values() {
    let bytes = int_map(&[("shift", 300)]);
    assert_eq!(bytes[bytes.len() - 1], 2);
    let bytes = int_map(&[("x", i64::MIN)]);
    assert_eq!(bytes[bytes.len() - 1], 8);
}

/// A typed map: keys sorted, 4-byte fields, each value's type byte.
#[test]
fn writes_typed_maps() {
    let bytes = map(&[("b", Value::Float(0.5)), ("a", Value::Bool(true))]);
    let n = bytes.len();
    assert_eq!((bytes[n - 1], bytes[n - 2]), (4, TYPE_MAP << 2 | 2));
    // The two type bytes, then the root: a 4-byte offset, its type and its width.
    assert_eq!(
        &bytes[n - 8..n - 6],
        &[TYPE_BOOL << 2 | 2, TYPE_FLOAT << 2 | 2]
    );
    let wide = map(&[("x", Value::Int(1 << 40))]);
    assert_eq!(wide[wide.len() - 1], 8);
}

//! A FlexBuffer writer for custom operators' options (`Operator.custom_options`): a map of integer
//! parameters, as TFLM's signal operators read theirs (by index, the keys in alphabetical order).
//!
//! The layout is FlexBuffers' own, with one byte width for every field (the smallest that holds
//! each value and offset): the keys as strings, the keys vector, the map (keys vector offset,
//! keys width, size, the values, their types) and the root (offset, type, width). Python's
//! `flexbuffers.Dumps` writes the same bytes for maps of small integers.

/// FlexBuffers' type of a signed integer (`FBT_INT`).
pub const TYPE_INT: u8 = 1;
/// FlexBuffers' type of a map (`FBT_MAP`).
pub const TYPE_MAP: u8 = 9;

/// `entries` (any order; written sorted by key) as a FlexBuffer map of integers.
pub fn int_map(entries: &[(&str, i64)]) -> Vec<u8> {
    let mut entries = entries.to_vec();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    for width in [1usize, 2, 4, 8] {
        if let Some(bytes) = int_map_of_width(&entries, width) {
            return bytes;
        }
    }
    // Eight bytes hold every i64 and every offset of a buffer that fits in memory.
    unreachable!("an 8-byte FlexBuffer holds any map")
}

/// The map with every field `width` bytes wide, or `None` if a value or offset does not fit.
fn int_map_of_width(entries: &[(&str, i64)], width: usize) -> Option<Vec<u8>> {
    let bits = width * 8;
    let fits_signed = |v: i64| bits == 64 || (v >> (bits - 1) == 0 || v >> (bits - 1) == -1);
    let fits_unsigned = |v: usize| bits == 64 || (v as u64) < 1u64 << bits;
    let mut out = Vec::new();
    let push = |out: &mut Vec<u8>, v: u64| out.extend_from_slice(&v.to_le_bytes()[..width]);
    let align = |out: &mut Vec<u8>| out.resize(out.len().next_multiple_of(width), 0);
    let mut keys = Vec::new();
    for (key, _) in entries {
        keys.push(out.len());
        out.extend_from_slice(key.as_bytes());
        out.push(0);
    }
    align(&mut out);
    push(&mut out, entries.len() as u64);
    let keys_start = out.len();
    for key in keys {
        let offset = out.len() - key;
        if !fits_unsigned(offset) {
            return None;
        }
        push(&mut out, offset as u64);
    }
    let offset = out.len() - keys_start;
    push(&mut out, offset as u64);
    push(&mut out, width as u64);
    push(&mut out, entries.len() as u64);
    let values = out.len();
    for &(_, value) in entries {
        if !fits_signed(value) {
            return None;
        }
        push(&mut out, value as u64);
    }
    let log2 = width.trailing_zeros() as u8;
    out.extend(entries.iter().map(|_| TYPE_INT << 2 | log2));
    let offset = out.len() - values;
    if !fits_unsigned(offset) {
        return None;
    }
    push(&mut out, offset as u64);
    out.push(TYPE_MAP << 2 | log2);
    out.push(width as u8);
    Some(out)
}

/// FlexBuffers' type of a float (`FBT_FLOAT`).
pub const TYPE_FLOAT: u8 = 3;
/// FlexBuffers' type of a bool (`FBT_BOOL`).
pub const TYPE_BOOL: u8 = 26;

/// One value of a [`map`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A signed integer (`FBT_INT`).
    Int(i64),
    /// A float (`FBT_FLOAT`), 4 bytes wide in a map of 4-byte fields, else 8.
    Float(f64),
    /// A bool (`FBT_BOOL`).
    Bool(bool),
}

/// `entries` (any order; written sorted by key) as a FlexBuffer map of integers, floats and
/// bools, as kernels that look their parameters up by key read it (TFLM's
/// TFLite_Detection_PostProcess): every field 4 bytes wide (floats as float32) where every
/// value fits, else 8.
pub fn map(entries: &[(&str, Value)]) -> Vec<u8> {
    let mut entries = entries.to_vec();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let fits4 = entries.iter().all(|(_, v)| match *v {
        Value::Int(i) => i32::try_from(i).is_ok(),
        Value::Float(f) => f64::from(f as f32) == f || f.is_nan(),
        Value::Bool(_) => true,
    });
    let width = if fits4 { 4usize } else { 8 };
    let mut out = Vec::new();
    let push = |out: &mut Vec<u8>, v: u64| out.extend_from_slice(&v.to_le_bytes()[..width]);
    let mut keys = Vec::new();
    for (key, _) in &entries {
        keys.push(out.len());
        out.extend_from_slice(key.as_bytes());
        out.push(0);
    }
    out.resize(out.len().next_multiple_of(width), 0);
    push(&mut out, entries.len() as u64);
    let keys_start = out.len();
    for key in keys {
        let offset = out.len() - key;
        push(&mut out, offset as u64);
    }
    let offset = out.len() - keys_start;
    push(&mut out, offset as u64);
    push(&mut out, width as u64);
    push(&mut out, entries.len() as u64);
    let values = out.len();
    for &(_, value) in &entries {
        let bits = match value {
            Value::Int(i) => i as u64,
            Value::Float(f) if width == 4 => u64::from((f as f32).to_bits()),
            Value::Float(f) => f.to_bits(),
            Value::Bool(b) => u64::from(b),
        };
        push(&mut out, bits);
    }
    let log2 = width.trailing_zeros() as u8;
    out.extend(entries.iter().map(|(_, v)| {
        let kind = match v {
            Value::Int(_) => TYPE_INT,
            Value::Float(_) => TYPE_FLOAT,
            Value::Bool(_) => TYPE_BOOL,
        };
        kind << 2 | log2
    }));
    let offset = out.len() - values;
    push(&mut out, offset as u64);
    out.push(TYPE_MAP << 2 | log2);
    out.push(width as u8);
    out
}

//! Byte-level edits of a built `.tflite` that a FlatBuffers builder never produces but real files
//! contain, and TFLM runs: vectors off their natural alignment (as vendor post-processing leaves
//! them), strings that are not UTF-8.
//!
//! The edits that move one object find the offset field to change through the generated API (the
//! table's `_tab.loc()` plus the field's vtable entry), append the new object at the end of the
//! file and point the field at it. Nothing before the end moves, so every other offset (and any
//! data after the FlatBuffer) stays valid; the old object stays, unreferenced. The input must be a
//! model that verifies, with the field present; a test helper, each edit panics otherwise.

use flatbuffers::{Table, VOffsetT};
use tinyaot_schema::tflite;

/// The position of field `field` (a `VT_*` constant) of `table`. Panics when it is absent.
pub fn field_position(table: &Table<'_>, field: VOffsetT) -> usize {
    let entry = table.vtable().get(field);
    assert_ne!(entry, 0, "field at vtable offset {field} is absent");
    table.loc() + usize::from(entry)
}

/// The little-endian `u32` at `pos`.
pub fn u32_at(bytes: &[u8], pos: usize) -> u32 {
    u32::from_le_bytes([bytes[pos], bytes[pos + 1], bytes[pos + 2], bytes[pos + 3]])
}

/// Appends `object` (a vector or string as stored: its `u32` length, then its elements) so that its
/// elements start at a position ≡ `residue` (mod 8), and points the offset field at `field` to it.
pub fn append_and_point(bytes: &[u8], field: usize, object: &[u8], residue: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    while (out.len() + 4) % 8 != residue % 8 {
        out.push(0);
    }
    let at = out.len();
    out.extend_from_slice(object);
    let offset = u32::try_from(at - field).expect("a file under 4 GiB");
    out[field..field + 4].copy_from_slice(&offset.to_le_bytes());
    out
}

/// A string as stored: `u32` length, the bytes, the 0 terminator. The string edits append it with
/// its length 4-byte aligned, as a builder would: only its bytes are unusual.
fn string_object(text: &[u8]) -> Vec<u8> {
    let len = u32::try_from(text.len()).expect("a string under 4 GiB");
    let mut object = len.to_le_bytes().to_vec();
    object.extend_from_slice(text);
    object.push(0);
    object
}

/// The model `bytes` hold. Panics unless it verifies.
pub fn model(bytes: &[u8]) -> tflite::Model<'_> {
    tflite::root_as_model(bytes).expect("a model that verifies")
}

/// Tensor `tensor` of subgraph 0 of the model `bytes` hold. Panics unless it verifies.
pub fn tensor(bytes: &[u8], tensor: usize) -> tflite::Tensor<'_> {
    let subgraph = model(bytes).subgraphs().expect("subgraphs").get(0);
    subgraph.tensors().expect("tensors").get(tensor)
}

/// Moves the `[i64]` zero-point vector of tensor `tensor` (of subgraph 0) to a position ≡ 4
/// (mod 8), as a vendor toolkit's post-processing does: the flatbuffers crate's verifier refuses
/// it (`Unaligned`), TFLM reads it with unaligned loads. The values are unchanged.
pub fn misalign_zero_points(bytes: &[u8], tensor_index: usize) -> Vec<u8> {
    let q = tensor(bytes, tensor_index)
        .quantization()
        .expect("a quantized tensor");
    let field = field_position(&q._tab, tflite::QuantizationParameters::VT_ZERO_POINT);
    let start = field + u32_at(bytes, field) as usize;
    let len = u32_at(bytes, start) as usize;
    let object = bytes[start..start + 4 + 8 * len].to_vec();
    let out = append_and_point(bytes, field, &object, 4);
    debug_assert_eq!((out.len() - 8 * len) % 8, 4);
    out
}

/// Renames tensor `tensor` (of subgraph 0) to `name`, any bytes (TFLM never reads names).
pub fn rename_tensor(bytes: &[u8], tensor_index: usize, name: &[u8]) -> Vec<u8> {
    let t = tensor(bytes, tensor_index);
    let field = field_position(&t._tab, tflite::Tensor::VT_NAME);
    append_and_point(bytes, field, &string_object(name), 0)
}

/// Sets the model's description (which must be present) to `description`, any bytes.
pub fn set_description(bytes: &[u8], description: &[u8]) -> Vec<u8> {
    let field = field_position(&model(bytes)._tab, tflite::Model::VT_DESCRIPTION);
    append_and_point(bytes, field, &string_object(description), 0)
}

/// Sets the `custom_code` of operator code `code` (which must have one) to `name`, any bytes.
pub fn set_custom_code(bytes: &[u8], code: usize, name: &[u8]) -> Vec<u8> {
    let codes = model(bytes).operator_codes().expect("operator codes");
    let field = field_position(&codes.get(code)._tab, tflite::OperatorCode::VT_CUSTOM_CODE);
    append_and_point(bytes, field, &string_object(name), 0)
}

/// Renames metadata entry `entry` to `name`, any bytes.
pub fn set_metadata_name(bytes: &[u8], entry: usize, name: &[u8]) -> Vec<u8> {
    let metadata = model(bytes).metadata().expect("metadata");
    let field = field_position(&metadata.get(entry)._tab, tflite::Metadata::VT_NAME);
    append_and_point(bytes, field, &string_object(name), 0)
}

/// The whole FlatBuffer moved `by` (at least 4) bytes further into the file, so that every table,
/// vtable, vector and scalar after the header is off its natural alignment unless `by` is a
/// multiple of 8: the root offset grows by `by`, the identifier is written again at bytes 4..8,
/// and everything else is relative. (Only for models without external buffers: their offsets are
/// absolute.)
pub fn shift(bytes: &[u8], by: usize) -> Vec<u8> {
    assert!(by >= 4, "the identifier needs 4 bytes");
    let root = u32_at(bytes, 0) + u32::try_from(by).expect("a small shift");
    let mut out = root.to_le_bytes().to_vec();
    out.extend_from_slice(&bytes[4..8]);
    out.resize(4 + by, 0);
    out.extend_from_slice(&bytes[4..]);
    out
}

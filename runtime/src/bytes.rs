//! Views of constant byte data as typed slices, usable in `const` and `static` initializers, so that
//! generated code can keep weights as byte-string literals (fast to compile) without `unsafe` of its own.

/// Reinterprets bytes as `i8`s (same size, same alignment).
pub const fn as_i8(bytes: &[u8]) -> &[i8] {
    // SAFETY: u8 and i8 have the same size and alignment and every bit pattern is valid for both.
    unsafe { core::slice::from_raw_parts(bytes.as_ptr() as *const i8, bytes.len()) }
}

/// Reads the little-endian `i32` at element `index` of `bytes`.
#[inline(always)]
pub fn read_i32(bytes: &[u8], index: usize) -> i32 {
    let b = &bytes[index * 4..index * 4 + 4];
    i32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Reads the little-endian `f32` at element `index` of `bytes`.
#[inline(always)]
pub fn read_f32(bytes: &[u8], index: usize) -> f32 {
    let b = &bytes[index * 4..index * 4 + 4];
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Writes `value` little-endian at element `index` of `bytes`.
#[inline(always)]
pub fn write_f32(bytes: &mut [u8], index: usize, value: f32) {
    bytes[index * 4..index * 4 + 4].copy_from_slice(&value.to_le_bytes());
}

/// Writes `value` little-endian at element `index` of `bytes`.
#[inline(always)]
pub fn write_i32(bytes: &mut [u8], index: usize, value: i32) {
    bytes[index * 4..index * 4 + 4].copy_from_slice(&value.to_le_bytes());
}

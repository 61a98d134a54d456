//! INT4 weights: TFLite's packed `INT4` (two values to a byte, low nibble first, as TFLM's
//! `UnpackDenseInt4IntoInt8` reads them), made from int8 models whose weights fit `-8..=7`, as
//! TFLM's own INT4 tests make them.

use crate::{ModelSpec, TensorData, TensorType};

/// `values` (each within `-8..=7`) packed two to a byte over the whole list, low nibble first:
/// `ceil(n / 2)` bytes, an odd count's last high nibble 0.
///
/// # Panics
///
/// If a value is outside `-8..=7` (it would not survive the packing).
pub fn pack(values: &[i8]) -> Vec<u8> {
    let mut bytes = vec![0u8; values.len().div_ceil(2)];
    for (k, &v) in values.iter().enumerate() {
        assert!((-8..=7).contains(&v), "{v} is not an INT4 value");
        bytes[k / 2] |= ((v as u8) & 0x0F) << (4 * (k % 2));
    }
    bytes
}

/// Wraps an int8 weight value into `-8..=7` (keeps its low four bits, sign-extended).
pub fn wrap(v: i8) -> i8 {
    ((v as u8) << 4) as i8 >> 4
}

/// `m` with tensor `t`, a constant INT8 tensor, made INT4: its values wrapped into `-8..=7`
/// ([`wrap`]) and packed ([`pack`]), its quantization kept.
///
/// # Panics
///
/// If tensor `t` is not a constant INT8 tensor.
pub fn with_int4_weights(mut m: ModelSpec, t: usize) -> ModelSpec {
    let spec = &mut m.tensors[t];
    assert_eq!(spec.dtype, TensorType::INT8, "tensor {t} is not INT8");
    let TensorData::Constant(bytes) = &spec.data else {
        panic!("tensor {t} is not a constant");
    };
    let values: Vec<i8> = bytes.iter().map(|&b| wrap(b as i8)).collect();
    spec.data = TensorData::Constant(pack(&values));
    spec.dtype = TensorType::INT4;
    m
}

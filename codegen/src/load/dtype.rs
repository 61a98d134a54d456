//! TFLite element types → [`DType`].

use tinyaot_schema::tflite::TensorType;

use crate::ir::DType;

/// The IR type for a TFLite type, or `None` for types tinyaot does not handle (STRING, COMPLEX*,
/// RESOURCE, VARIANT, packed INT2/UINT4, BFLOAT16, FLOAT8_*, and unknown values).
pub(super) fn from_tflite(t: TensorType) -> Option<DType> {
    Some(match t {
        TensorType::FLOAT32 => DType::F32,
        TensorType::FLOAT16 => DType::F16,
        TensorType::FLOAT64 => DType::F64,
        TensorType::INT4 => DType::I4,
        TensorType::INT8 => DType::I8,
        TensorType::UINT8 => DType::U8,
        TensorType::INT16 => DType::I16,
        TensorType::UINT16 => DType::U16,
        TensorType::INT32 => DType::I32,
        TensorType::UINT32 => DType::U32,
        TensorType::INT64 => DType::I64,
        TensorType::UINT64 => DType::U64,
        TensorType::BOOL => DType::Bool,
        _ => return None,
    })
}

/// The schema's name for a type, or `TensorType(<n>)` for a value the schema does not define.
pub(super) fn name(t: TensorType) -> String {
    match t.variant_name() {
        Some(name) => name.to_string(),
        None => format!("TensorType({})", t.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_agree_with_ir() {
        for v in i8::MIN..=i8::MAX {
            let t = TensorType(v);
            if let Some(d) = from_tflite(t) {
                assert_eq!(d.name(), name(t));
            }
        }
        assert_eq!(from_tflite(TensorType::STRING), None);
        assert_eq!(from_tflite(TensorType::INT4), Some(DType::I4));
        assert_eq!(from_tflite(TensorType::INT2), None);
        assert_eq!(name(TensorType(99)), "TensorType(99)");
    }
}

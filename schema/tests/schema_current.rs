//! The checked-in generated code must come from the checked-in schema. This needs no flatc: it
//! compares the schema's SHA-256 with the hash `schema/regen.sh` recorded when it last ran.

use tinyaot_schema::{tflite, SCHEMA_FBS, SCHEMA_SHA256};
use tinyaot_test_support::{hex, sha256};

#[test]
fn generated_code_matches_schema() {
    let actual = hex(&sha256(SCHEMA_FBS.as_bytes()));
    let recorded = SCHEMA_SHA256.trim();
    assert_eq!(
        actual, recorded,
        "schema/tflite.fbs changed since schema/src/tflite_generated.rs was generated: \
         run schema/regen.sh"
    );
}

#[test]
fn sha256_known_answers() {
    // FIPS 180-2 test vectors, so a broken hash cannot make the check above vacuous.
    assert_eq!(
        hex(&sha256(b"")),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        hex(&sha256(b"abc")),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        hex(&sha256(
            b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        )),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
}

#[test]
fn wire_ids_of_well_known_members() {
    // Spot checks of values the loader and real files depend on.
    assert_eq!(tflite::BuiltinOperator::CONV_2D.0, 3);
    assert_eq!(
        tflite::BuiltinOperator::PLACEHOLDER_FOR_GREATER_OP_CODES.0,
        127
    );
    assert_eq!(tflite::BuiltinOperator::STABLEHLO_COMPOSITE.0, 206);
    assert_eq!(
        tflite::BuiltinOperator(4).variant_name(),
        Some("DEPTHWISE_CONV_2D")
    );
    assert_eq!(tflite::BuiltinOptions::Conv2DOptions.0, 1);
    assert_eq!(tflite::BuiltinOptions::SVDFOptions.0, 6);
    assert_eq!(tflite::BuiltinOptions::ReshapeOptions.0, 17);
    assert_eq!(tflite::BuiltinOptions::StridedSliceOptions.0, 32);
    assert_eq!(tflite::BuiltinOptions::LeakyReluOptions.0, 75);
    assert_eq!(tflite::BuiltinOptions::RightShiftOptions.0, 126);
    assert_eq!(tflite::BuiltinOptions2::StableHLOCompositeOptions.0, 21);
    assert_eq!(tflite::TensorType::INT8.0, 9);
    assert_eq!(tflite::TensorType::UINT16.0, 16);
    assert_eq!(tflite::MODEL_IDENTIFIER, "TFL3");
}

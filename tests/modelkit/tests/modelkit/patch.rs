use tinyaot_modelkit::patch::*;
use tinyaot_modelkit::{BuiltinOperator, ModelSpec, OpCodeSpec, Options, TensorSpec};
use tinyaot_schema::tflite;

fn quantized() -> Vec<u8> {
    let mut m = ModelSpec::single_op(
        BuiltinOperator::RELU,
        Options::default_for(BuiltinOperator::RELU),
        vec![TensorSpec::int8(&[1, 4], 0.5, -3)],
        vec![TensorSpec::int8(&[1, 4], 0.5, -3).per_channel(&[0.5; 4], 1)],
    );
    m.tensors[1].quantization.as_mut().unwrap().zero_points = Some(vec![1, -2, 3, i64::MIN]);
    m.push_opcode(OpCodeSpec::custom("MyOp"));
    m.to_bytes()
}

#[test]
fn zero_points_move_off_alignment_and_keep_their_values() {
    let bytes = quantized();
    for t in 0..2 {
        let moved = misalign_zero_points(&bytes, t);
        let before = tensor(&bytes, t)
            .quantization()
            .unwrap()
            .zero_point()
            .unwrap();
        let q = tensor(&moved, t).quantization().unwrap();
        let after = q.zero_point().unwrap();
        let field = field_position(&q._tab, tflite::QuantizationParameters::VT_ZERO_POINT);
        let start = field + u32_at(&moved, field) as usize;
        assert_eq!((start + 4) % 8, 4);
        assert_eq!(
            before.iter().collect::<Vec<_>>(),
            after.iter().collect::<Vec<_>>()
        );
    }
}

#[test]
fn strings_take_any_bytes() {
    let bytes = quantized();
    let renamed = rename_tensor(&bytes, 1, b"out\xff");
    assert_eq!(tensor(&renamed, 1).name_bytes(), Some(&b"out\xff"[..]));
    assert_eq!(tensor(&renamed, 0).name(), Some("t0"));
    let described = set_description(&renamed, b"\xc3(");
    assert_eq!(model(&described).description_bytes(), Some(&b"\xc3("[..]));
    let coded = set_custom_code(&described, 1, b"My\x80Op");
    let codes = model(&coded).operator_codes().unwrap();
    assert_eq!(codes.get(1).custom_code_bytes(), Some(&b"My\x80Op"[..]));
}

#[test]
fn shifted_models_read_the_same() {
    let bytes = quantized();
    for by in [4, 5, 6, 7, 8] {
        let shifted = shift(&bytes, by);
        assert_eq!(&shifted[4..8], b"TFL3");
        for t in 0..2 {
            assert_eq!(tensor(&shifted, t).name(), tensor(&bytes, t).name());
            let q = |b: &[u8]| {
                let q = tensor(b, t).quantization().unwrap();
                (
                    q.scale().unwrap().iter().collect::<Vec<_>>(),
                    q.zero_point().unwrap().iter().collect::<Vec<_>>(),
                )
            };
            assert_eq!(q(&shifted), q(&bytes));
        }
    }
}

use tinyaot_codegen::ir::{OpCode, OpKind, Options as IrOptions};
use tinyaot_codegen::load::load;
use tinyaot_modelkit::*;

fn conv() -> ModelSpec {
    ModelSpec::single_op(
        BuiltinOperator::CONV_2D,
        Options::conv2d(Padding::SAME, (1, 1), Activation::RELU),
        vec![
            TensorSpec::int8(&[1, 4, 4, 1], 0.1, -3),
            TensorSpec::int8(&[2, 3, 3, 1], 1.0, 0)
                .per_channel(&[0.5, 0.25], 0)
                .constant_i8(&[1; 18]),
            TensorSpec::int32(&[2])
                .per_channel(&[0.05, 0.025], 0)
                .constant_i32(&[2, -2]),
        ],
        vec![TensorSpec::int8(&[1, 4, 4, 2], 0.2, 5)],
    )
}

#[test]
fn the_loader_accepts_a_built_conv_model() {
    let bytes = conv().to_bytes();
    let g = load(&bytes).expect("conv model loads");
    assert_eq!(g.tensors.len(), 4);
    assert_eq!(g.inputs, vec![0]);
    assert_eq!(g.outputs, vec![3]);
    assert_eq!(g.tensors[1].data.as_deref(), Some(&[1u8; 18][..]));
    assert_eq!(g.tensors[2].data.as_deref().map(<[u8]>::len), Some(8));
    assert_eq!(g.operators.len(), 1);
    assert_eq!(g.operators[0].kind, OpKind::Builtin(OpCode::CONV_2D));
    assert!(matches!(g.operators[0].options, IrOptions::Conv2D(_)));
}

#[test]
fn the_whole_pipeline_accepts_a_built_conv_model() {
    let bytes = conv().to_bytes();
    let rust = tinyaot_codegen::Config::new()
        .generate(&bytes, "conv")
        .expect("rust source");
    assert!(rust.contains("conv"));
}

#[test]
fn trailing_buffers_point_past_the_flatbuffer() {
    let mut m = conv();
    m.trailing = vec![7; 18];
    let b = m.buffer(BufferSpec::Trailing { start: 0, size: 18 });
    m.tensors[1].data = TensorData::Buffer(b);
    let bytes = m.to_bytes();
    let g = load(&bytes).expect("external filter loads");
    assert_eq!(g.tensors[1].data.as_deref(), Some(&[7u8; 18][..]));
}

#[test]
fn the_offline_plan_is_read() {
    let mut m = conv();
    m.offline_plan(&[0, -1, -1, 16]);
    let bytes = m.to_bytes();
    let g = load(&bytes).expect("offline plan loads");
    assert_eq!(g.offline_offsets, Some(vec![0, -1, -1, 16]));
}

#[test]
fn every_lowered_op_has_default_options_the_loader_takes() {
    // The resource operators need handles and an init subgraph, IF its branch subgraphs and
    // WHILE its condition and body, which a one-op model lacks:
    // codegen/tests/load_resource.rs and load_control.rs load them.
    let resource = [
        "VAR_HANDLE",
        "READ_VARIABLE",
        "ASSIGN_VARIABLE",
        "CALL_ONCE",
        "IF",
        "WHILE",
    ];
    for name in tinyaot_codegen::lower::supported_ops() {
        // Custom operators have no builtin options (hostile/signal/ loads them).
        if resource.contains(&name.as_str()) || name.starts_with("CUSTOM(") {
            continue;
        }
        let op = (0..=210)
            .map(BuiltinOperator)
            .find(|b| b.variant_name() == Some(name.as_str()))
            .unwrap_or_else(|| panic!("{name} is a BuiltinOperator"));
        let o = Options::default_for(op);
        let t = || TensorSpec::f32(&[1, 2, 2, 1]);
        let m = ModelSpec::single_op(op, o, vec![t(), t()], vec![t()]);
        let bytes = m.to_bytes();
        let g = load(&bytes);
        assert!(g.is_ok(), "{name}: {:?}", g.err());
    }
}

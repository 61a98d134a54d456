//! Whole-pipeline regressions: models (built with tinyaot-modelkit) that the `pipeline` fuzz
//! target (`fuzz/fuzz_targets/pipeline.rs`) or its neighbourhood exercised, each with the outcome
//! the pipeline must give. Every case goes through load → plan → lower → both emitters, and must
//! never yield an internal error, a panic, or a disagreement between the Rust and C backends.

use tinyaot_codegen::{c_sources, COptions, Config, Error};
use tinyaot_modelkit::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
};

/// What the pipeline made of a model: `Ok(())`, or the (shared) error of the Rust backend.
fn run(spec: &ModelSpec) -> Result<(), Error> {
    let bytes = spec.to_bytes();
    if let Ok(graph) = tinyaot_codegen::load::load(&bytes) {
        // The planner on its own must not fail internally either.
        if let Err(e) = tinyaot_codegen::plan::plan_graph(&graph) {
            assert!(!e.is_internal(), "plan_graph: {e}");
        }
    }
    let rust = Config::new().generate(&bytes, "regression").map(drop);
    let c = c_sources(
        &bytes,
        &COptions {
            prefix: "regression".to_string(),
            source_name: "regression.tflite".to_string(),
        },
    )
    .map(drop);
    for (name, r) in [("rust", &rust), ("C", &c)] {
        if let Err(e) = r {
            assert!(!e.is_internal(), "{name} backend: internal error: {e}");
        }
    }
    assert_eq!(
        rust.is_ok(),
        c.is_ok(),
        "backend parity: rust {:?}, C {:?}",
        rust.as_ref().err(),
        c.as_ref().err()
    );
    rust
}

/// The error's message, for checks that it names the problem.
fn refused(spec: &ModelSpec) -> String {
    match run(spec) {
        Ok(()) => panic!("the model was accepted"),
        Err(e) => e.to_string(),
    }
}

/// An int8 CONV_2D, input [1,4,4,1], 2 output channels, with the given output scale.
fn conv(out_scale: f32) -> ModelSpec {
    ModelSpec::single_op(
        B::CONV_2D,
        Options::conv2d(Padding::SAME, (1, 1), Activation::NONE),
        vec![
            TensorSpec::int8(&[1, 4, 4, 1], 0.1, -3),
            TensorSpec::new(TensorType::INT8, &[2, 3, 3, 1])
                .per_channel(&[0.5, 0.25], 0)
                .constant_i8(&[1; 18]),
            TensorSpec::int32(&[2])
                .per_channel(&[0.05, 0.025], 0)
                .constant_i32(&[2, -2]),
        ],
        vec![TensorSpec::int8(&[1, 4, 4, 2], out_scale, 5)],
    )
}

#[test]
fn a_plain_conv_goes_through() {
    run(&conv(0.2)).expect("conv");
}

#[test]
fn degenerate_output_scales_are_refused_cleanly() {
    for s in [0.0, -0.2, f32::NAN, f32::INFINITY, 1e-45] {
        let msg = refused(&conv(s));
        assert!(msg.contains("scale"), "{s}: {msg}");
    }
}

#[test]
fn a_huge_output_scale_compiles_to_the_zero_point() {
    // input scale × weight scale / f32::MAX is below 2^-31: TFLM's QuantizeMultiplier gives
    // (0, 0), so every output is the zero point, a defined result that TFLM runs.
    run(&conv(f32::MAX)).expect("TFLM runs it");
}

#[test]
fn softmax_with_a_degenerate_beta_is_refused_cleanly() {
    for beta in [f32::NAN, f32::INFINITY, -1.0, 0.0] {
        let spec = ModelSpec::single_op(
            B::SOFTMAX,
            Options::Softmax { beta },
            vec![TensorSpec::int8(&[1, 8], 0.1, 0)],
            vec![TensorSpec::int8(&[1, 8], 1.0 / 256.0, -128)],
        );
        assert!(run(&spec).is_err(), "beta {beta}");
    }
}

/// Found by the pipeline fuzzer: a variable tensor that no operator touches but that is a graph
/// input went to the state region, and both emitters then failed internally looking for it in the
/// arena. Variables anywhere are refused as unsupported (stateful models), never internally.
#[test]
fn a_variable_graph_input_or_output_is_refused_as_unsupported() {
    let mut extra_input = ModelSpec::single_op(
        B::RELU,
        Options::None,
        vec![TensorSpec::int8(&[1, 8], 0.1, 0)],
        vec![TensorSpec::int8(&[1, 8], 0.1, 0)],
    );
    extra_input
        .tensors
        .push(TensorSpec::int8(&[1, 4], 0.5, 0).variable());
    extra_input.inputs.push(2);
    let msg = refused(&extra_input);
    assert!(msg.contains("variable") && msg.contains("#2"), "{msg}");

    let mut extra_output = extra_input.clone();
    extra_output.inputs.pop();
    extra_output.outputs.push(2);
    assert!(run(&extra_output).is_err());
}

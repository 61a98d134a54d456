//! Resource limits: each limit refuses a model just above it and accepts one at it, through the
//! library (both backends alike, and `tinyaot plan`'s front half). The command line's flags are
//! tested in tinyaot-cli's tests/limits.rs.

use std::path::PathBuf;

use tinyaot_codegen::config::{c_outputs_with_limits, plan_model, rust_output_with_limits};
use tinyaot_codegen::{COptions, Error, Limits, RustOptions};
use tinyaot_modelkit::{BuiltinOperator, ModelSpec, Options, TensorSpec};

// ---------------------------------------------------------------------------------------------
// Models

/// `n` chained float RELUs on `[1, width]`: n operators, n + 1 tensors, an arena of one tensor (each
/// RELU runs in place over the one before; two tensors planned without overlaps).
fn chain(n: usize, width: i32) -> Vec<u8> {
    ModelSpec::relu_chain(n, width).to_bytes()
}

/// A float FULLY_CONNECTED from `[1, inputs]` to `[1, units]` with constant weights
/// (`4 * units * inputs` bytes) and a constant bias (`4 * units` bytes).
fn fully_connected(inputs: i32, units: i32) -> Vec<u8> {
    ModelSpec::zero_fully_connected(inputs, units).to_bytes()
}

// ---------------------------------------------------------------------------------------------
// The library: both backends under the same limits

fn rust(bytes: &[u8], limits: &Limits) -> Result<String, Error> {
    let options = RustOptions {
        name: "Net".to_string(),
        runtime_path: "::tinyaot".to_string(),
        source_name: "net.tflite".to_string(),
    };
    rust_output_with_limits(bytes, &options, limits).map(|s| s.into_string())
}

fn c(bytes: &[u8], limits: &Limits) -> Result<usize, Error> {
    let options = COptions {
        prefix: "net".to_string(),
        source_name: "net.tflite".to_string(),
    };
    c_outputs_with_limits(bytes, &options, limits).map(|files| files.len())
}

/// Both backends and the planner accept `bytes` under `limits`.
fn accepted(bytes: &[u8], limits: &Limits) {
    if let Err(e) = plan_model(bytes, limits) {
        panic!("plan refused: {e}");
    }
    if let Err(e) = rust(bytes, limits) {
        panic!("Rust refused: {e}");
    }
    if let Err(e) = c(bytes, limits) {
        panic!("C refused: {e}");
    }
}

/// Both backends and the planner refuse `bytes` under `limits` with the same [`Error::Limit`];
/// returns its `(what, value, limit, setting)`.
fn refused(bytes: &[u8], limits: &Limits) -> (String, u128, u128, String) {
    let unpack = |r: Result<(), Error>, who: &str| match r {
        Err(Error::Limit {
            what,
            value,
            limit,
            setting,
        }) => (what, value, limit, setting),
        Err(other) => panic!("{who}: expected a limit error, got {other}"),
        Ok(()) => panic!("{who}: accepted"),
    };
    let plan = unpack(plan_model(bytes, limits).map(|_| ()), "plan");
    let r = unpack(rust(bytes, limits).map(|_| ()), "Rust");
    let c = unpack(c(bytes, limits).map(|_| ()), "C");
    assert_eq!(plan, r, "plan and Rust disagree");
    assert_eq!(r, c, "Rust and C disagree");
    r
}

#[test]
fn operator_count() {
    let model = chain(5, 4);
    let mut limits = Limits::default();
    limits.max_operators = 5;
    accepted(&model, &limits);
    limits.max_operators = 4;
    let (what, value, limit, setting) = refused(&model, &limits);
    assert_eq!((what.as_str(), value, limit), ("the operator count", 5, 4));
    assert_eq!(setting, "Config::max_operators or --max-operators");
}

#[test]
fn tensor_count() {
    let model = chain(5, 4);
    let mut limits = Limits::default();
    limits.max_tensors = 6;
    accepted(&model, &limits);
    limits.max_tensors = 5;
    let (what, value, limit, setting) = refused(&model, &limits);
    assert_eq!((what.as_str(), value, limit), ("the tensor count", 6, 5));
    assert_eq!(setting, "Config::max_tensors or --max-tensors");
}

#[test]
fn tensor_bytes() {
    // The weights are the largest tensor: 4 * 8 * 16 = 512 bytes.
    let model = fully_connected(16, 8);
    let mut limits = Limits::default();
    limits.max_tensor_bytes = 512;
    accepted(&model, &limits);
    limits.max_tensor_bytes = 511;
    let (what, value, limit, setting) = refused(&model, &limits);
    assert!(what.starts_with("the size of tensor #1 "), "{what}");
    assert!(what.ends_with(" (FLOAT32 [8, 16]) in bytes"), "{what}");
    assert_eq!((value, limit), (512, 511));
    assert_eq!(setting, "Config::max_tensor_bytes or --max-tensor-bytes");
}

#[test]
fn constant_bytes() {
    // Weights 512 bytes plus bias 32 bytes.
    let model = fully_connected(16, 8);
    let mut limits = Limits::default();
    limits.max_constant_bytes = 544;
    accepted(&model, &limits);
    limits.max_constant_bytes = 543;
    let (what, value, limit, setting) = refused(&model, &limits);
    assert_eq!(
        (what.as_str(), value, limit),
        ("the total size of the constant tensors in bytes", 544, 543)
    );
    assert_eq!(
        setting,
        "Config::max_constant_bytes or --max-constant-bytes"
    );
}

#[test]
fn arena_bytes() {
    // One [1, 100] float tensor at a time (the RELUs in place): 400 bytes.
    let model = chain(3, 100);
    let mut limits = Limits::default();
    limits.max_arena_bytes = 400;
    accepted(&model, &limits);
    limits.max_arena_bytes = 399;
    let (what, value, limit, setting) = refused(&model, &limits);
    assert_eq!(
        (what.as_str(), value, limit),
        ("the size of the activation arena in bytes", 400, 399)
    );
    assert_eq!(setting, "Config::max_arena_bytes or --max-arena-bytes");
}

#[test]
fn target_pointer_width() {
    // A 20,000-float activation (80,000 bytes) does not fit a 16-bit target's 32,767 bytes.
    let model = chain(1, 20_000);
    let mut limits = Limits::default();
    accepted(&model, &limits);
    limits.target_pointer_width = 16;
    let (what, value, limit, setting) = refused(&model, &limits);
    assert!(what.starts_with("the size of tensor #0"), "{what}");
    assert_eq!((value, limit), (80_000, 32_767));
    assert!(setting.contains("--target-pointer-width"), "{setting}");
    assert!(setting.contains("16-bit"), "{setting}");

    // An 8,000-byte arena fits; the check is against the target's isize::MAX, not the host's.
    accepted(&chain(2, 1_000), &limits);
}

#[test]
fn huge_activation_is_refused_on_a_32_bit_target_even_with_limits_raised() {
    // 10 × 2^30 float32 elements: 40 GiB, which the host's usize holds and a 32-bit target does not.
    let model = ModelSpec::single_op(
        BuiltinOperator::RELU,
        Options::default_for(BuiltinOperator::RELU),
        vec![TensorSpec::f32(&[10, 1024, 1024, 1024])],
        vec![TensorSpec::f32(&[10, 1024, 1024, 1024])],
    )
    .to_bytes();
    let mut limits = Limits::default();
    let (_, value, limit, setting) = refused(&model, &limits);
    assert_eq!((value, limit), (40 << 30, 256 << 20));
    assert!(setting.contains("--max-tensor-bytes"), "{setting}");

    limits.max_tensor_bytes = u64::MAX;
    limits.max_arena_bytes = u64::MAX;
    let (_, value, limit, setting) = refused(&model, &limits);
    assert_eq!((value, limit), (40 << 30, (1 << 31) - 1));
    assert!(setting.contains("--target-pointer-width"), "{setting}");

    // On a 64-bit target only the arena limit stands in the way.
    limits.target_pointer_width = 64;
    limits.max_arena_bytes = 64 << 20;
    let (what, value, _, _) = refused(&model, &limits);
    assert_eq!(what, "the size of the activation arena in bytes");
    // The RELU in place: one 40 GiB tensor.
    assert_eq!(value, 40 << 30);
}

#[test]
fn a_size_past_the_host_usize_is_a_limit() {
    // 2^31 × 2^31 × 2^31 int8 elements overflow u64 but not the wide computation's saturation.
    let t = || {
        TensorSpec::new(
            tinyaot_modelkit::TensorType::INT8,
            &[i32::MAX, i32::MAX, i32::MAX],
        )
    };
    let model = ModelSpec::single_op(
        BuiltinOperator::RELU,
        Options::default_for(BuiltinOperator::RELU),
        vec![t()],
        vec![t()],
    )
    .to_bytes();
    let (_, value, ..) = refused(&model, &Limits::default());
    assert_eq!(value, (i32::MAX as u128).pow(3));
}

#[test]
fn unsupported_pointer_width() {
    let mut limits = Limits::default();
    limits.target_pointer_width = 8;
    for result in [
        plan_model(&chain(1, 4), &limits).map(|_| ()),
        rust(&chain(1, 4), &limits).map(|_| ()),
        c(&chain(1, 4), &limits).map(|_| ()),
    ] {
        assert!(matches!(result, Err(Error::Config { .. })), "{result:?}");
    }
}

#[test]
fn config_setters() {
    let model = chain(3, 100);
    let dir = scratch("config");
    let mut config = tinyaot_codegen::Config::new();
    config.out_dir(&dir).max_arena_bytes(399);
    let path = dir.join("chain.tflite");
    std::fs::write(&path, &model).expect("write model");
    match config.compile(&path) {
        Err(Error::Limit { setting, .. }) => {
            assert_eq!(setting, "Config::max_arena_bytes or --max-arena-bytes")
        }
        other => panic!("expected a limit error, got {other:?}"),
    }
    assert!(
        !dir.join("chain.rs").exists(),
        "a refused model left a file"
    );
    config.max_arena_bytes(400);
    config.compile(&path).expect("compiles at the limit");

    let refused_by = |config: &tinyaot_codegen::Config, model: &[u8], flag: &str| match config
        .generate(model, "chain")
    {
        Err(Error::Limit { setting, .. }) => assert!(setting.contains(flag), "{setting}"),
        other => panic!("{flag}: expected a limit error, got {other:?}"),
    };
    let small = chain(3, 100);
    refused_by(
        tinyaot_codegen::Config::new().max_operators(2),
        &small,
        "--max-operators",
    );
    refused_by(
        tinyaot_codegen::Config::new().max_tensors(3),
        &small,
        "--max-tensors",
    );
    refused_by(
        tinyaot_codegen::Config::new().max_tensor_bytes(399),
        &small,
        "--max-tensor-bytes",
    );
    refused_by(
        tinyaot_codegen::Config::new()
            .target_pointer_width(16)
            .max_arena_bytes(u64::MAX),
        &chain(3, 10_000),
        "--target-pointer-width",
    );
    let mut config = tinyaot_codegen::Config::new();
    config.limits(Limits::default()).max_constant_bytes(543);
    assert!(matches!(
        config.generate(&fully_connected(16, 8), "fc"),
        Err(Error::Limit { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh, empty directory for one test's files.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tinyaot-limits-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

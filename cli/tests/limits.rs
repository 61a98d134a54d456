//! Resource limits through the command line: each `--max-…` flag (and `--target-pointer-width`)
//! refuses a model just above its value and accepts one at it, in `plan`, `rust` and `c` alike.
//! The library side is tinyaot-codegen's tests/limits.rs.

mod common;

use std::path::Path;
use std::process::Command;

use tinyaot_modelkit::ModelSpec;

/// `n` chained float RELUs on `[1, width]`: n operators, n + 1 tensors, an arena of one tensor
/// (each RELU in place).
fn chain(n: usize, width: i32) -> Vec<u8> {
    ModelSpec::relu_chain(n, width).to_bytes()
}

/// A float FULLY_CONNECTED from `[1, inputs]` to `[1, units]`: `4 * units * inputs` bytes of
/// constant weights and `4 * units` of bias.
fn fully_connected(inputs: i32, units: i32) -> Vec<u8> {
    ModelSpec::zero_fully_connected(inputs, units).to_bytes()
}

fn tinyaot(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tinyaot"))
        .args(args)
        .output()
        .expect("run tinyaot");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

#[test]
fn cli_flags_raise_and_lower_every_limit() {
    let dir = common::scratch("cli");
    let chain_path = dir.join("chain.tflite");
    std::fs::write(&chain_path, chain(3, 100)).expect("write");
    let fc_path = dir.join("fc.tflite");
    std::fs::write(&fc_path, fully_connected(16, 8)).expect("write");
    let rs = dir.join("out.rs");
    let c_dir = dir.join("c");

    // (model, flag, value refused, value accepted)
    let cases = [
        (&chain_path, "--max-operators", "2", "3"),
        (&chain_path, "--max-tensors", "3", "4"),
        // The RELUs run in place: one 400-byte tensor.
        (&chain_path, "--max-arena-bytes", "399", "400"),
        (&fc_path, "--max-tensor-bytes", "511", "512"),
        (&fc_path, "--max-constant-bytes", "543", "544"),
        (&chain_path, "--target-pointer-width", "16", "32"),
    ];
    for (model, flag, low, high) in cases {
        // The 16-bit case needs a model whose arena is above 32,767 bytes.
        let model_path = if flag == "--target-pointer-width" {
            let p = dir.join("wide.tflite");
            std::fs::write(&p, chain(1, 10_000)).expect("write");
            p
        } else {
            model.clone()
        };
        let m = s(&model_path);
        for command in [
            vec!["plan", m],
            vec!["rust", m, "-o", s(&rs)],
            vec!["c", m, "-o", s(&c_dir)],
        ] {
            let _ = std::fs::remove_file(&rs);
            let _ = std::fs::remove_dir_all(&c_dir);
            let mut args = command.clone();
            args.extend([flag, low]);
            let (code, stderr) = tinyaot(&args);
            assert_eq!(code, 1, "{args:?}: {stderr}");
            assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
            assert!(
                stderr.contains(flag),
                "{args:?} does not name {flag}: {stderr}"
            );
            assert!(!rs.exists() && !c_dir.exists(), "{args:?} left output");

            let mut args = command.clone();
            args.extend([flag, high]);
            let (code, stderr) = tinyaot(&args);
            assert_eq!(code, 0, "{args:?}: {stderr}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_defaults_refuse_a_large_model_and_flags_take_suffixes() {
    let dir = common::scratch("defaults");
    let path = dir.join("wide.tflite");
    // A [1, 17M] float activation: 68 MB, above the default 64 MiB arena (and per-tensor 256 MiB is
    // fine), so only --max-arena-bytes matters.
    std::fs::write(&path, chain(1, 17 << 20)).expect("write");
    let (code, stderr) = tinyaot(&["plan", s(&path)]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("--max-arena-bytes"), "{stderr}");
    let (code, stderr) = tinyaot(&["plan", s(&path), "--max-arena-bytes", "1G"]);
    assert_eq!(code, 0, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_bad_limit_values_are_usage_errors() {
    let dir = common::scratch("usage");
    let path = dir.join("chain.tflite");
    std::fs::write(&path, chain(1, 4)).expect("write");
    for (flag, value) in [
        ("--max-arena-bytes", "lots"),
        ("--max-operators", "-3"),
        ("--max-tensors", "1.5"),
        ("--target-pointer-width", "128"),
    ] {
        let (code, stderr) = tinyaot(&["plan", s(&path), flag, value]);
        assert_eq!(code, 2, "{flag} {value}: {stderr}");
        assert!(stderr.contains(flag), "{flag} {value}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

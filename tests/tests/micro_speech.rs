//! The keyword pipeline, end to end: TFLM's micro_speech audio preprocessor and keyword model
//! compiled as one group sharing one arena (examples/micro-speech: build.rs's `compile_group` in
//! Rust, `generate_group_c` here for C), raw 16 kHz audio in, the keyword scores out. Every clip
//! of tests/fixtures/pipelines/micro_speech (made by `micro_speech.py` beside it, from TFLM's own
//! interpreters run as TFLM's example runs them) must give TFLM's 49 x 40 features and its 4
//! scores byte for byte, in Rust (the example's library) and in C (the example's
//! `micro_speech.c`). The clips run one after another on one instance, and then again, so each
//! clip must start the preprocessor's noise estimates afresh, as TFLM's example does.
//!
//! Needs TFLM's models in ../shared: skipped, saying so, without them (failed in CI). This crate's
//! build.rs sets `cfg(micro_speech_models)` when they are there, as the example's build.rs does.

use std::path::{Path, PathBuf};
use std::process::Command;

use tinyaot_codegen::{Config, GroupModel};
use tinyaot_test_support::{self as support, load_cases, Case};

/// The clips, and TFLM's features (output 0) and scores (output 1) for each.
fn golden() -> Vec<Case> {
    let dir = support::fixtures_dir().join("pipelines/micro_speech");
    let cases = load_cases(&dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(cases.len(), 2, "two golden clips");
    for case in &cases {
        assert_eq!(
            case.inputs[0].bytes.len(),
            32_000,
            "a second of int16 audio"
        );
        assert_eq!(
            case.outputs[0].bytes.len(),
            49 * 40,
            "49 rows of 40 features"
        );
        assert_eq!(case.outputs[1].bytes.len(), 4, "4 scores");
    }
    cases
}

/// The clips in order, then again: the order in which both languages run them.
fn schedule(cases: &[Case]) -> Vec<usize> {
    (0..2 * cases.len()).map(|i| i % cases.len()).collect()
}

/// What each run of the schedule gave, features and scores, against TFLM's.
fn check(what: &str, cases: &[Case], got: &[(Vec<u8>, Vec<u8>)]) {
    let order = schedule(cases);
    assert_eq!(got.len(), order.len(), "{what}: one result per clip run");
    for (run, (&k, (features, scores))) in order.iter().zip(got).enumerate() {
        for (name, got, want) in [
            ("features", features, &cases[k].outputs[0]),
            ("scores", scores, &cases[k].outputs[1]),
        ] {
            if let Err(mismatch) = support::compare(&want.dtype, got, &want.bytes) {
                panic!("{what}: clip {k} (run {run}), {name}: {mismatch}");
            }
        }
    }
}

#[cfg(micro_speech_models)]
#[test]
fn audio_in_keyword_scores_out_bit_exact_in_rust() {
    use tinyaot::Model as _;
    use tinyaot_example_micro_speech as kws;

    let cases = golden();
    let mut models = Box::new(kws::Models::new());
    let mut got = Vec::new();
    for k in schedule(&cases) {
        let audio: Vec<i16> = cases[k].inputs[0]
            .bytes
            .chunks_exact(2)
            .map(|b| i16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(kws::features(&mut models, &audio), kws::FEATURE_COUNT);
        let features = models.keyword().input_bytes_mut(0).to_vec();
        let scores = kws::scores(&mut models).map(|s| s as u8).to_vec();
        got.push((features, scores));
    }
    check("Rust", &cases, &got);
    // The group: one shared arena as large as the larger model's, then the preprocessor's state
    // and the kept feature buffer.
    assert_eq!(
        kws::Models::SHARED_BYTES,
        kws::Preprocessor::ARENA_BYTES.max(kws::Keyword::ARENA_BYTES)
    );
    assert_eq!(
        kws::Models::MEMORY_BYTES - kws::Models::SHARED_BYTES,
        160 + 1_968,
        "the preprocessor's state, then the kept feature buffer (1,960 bytes, 16-byte aligned)"
    );
}

#[cfg(not(micro_speech_models))]
#[test]
fn audio_in_keyword_scores_out_bit_exact_in_rust() {
    support::skip_or_fail(
        "the keyword pipeline in Rust",
        "TFLM's micro_speech models are not in ../shared/models (set TINYAOT_SHARED_DIR)",
    );
}

/// The group as examples/micro-speech's C takes it: `tinyaot c PREPROCESSOR KEYWORD --prefix
/// preprocessor --prefix keyword --keep keyword:input0`.
fn members(shared: &Path) -> Vec<GroupModel> {
    let models = shared.join("models");
    vec![
        GroupModel::new(models.join("audio_frontend/audio_preprocessor_int8.tflite"))
            .prefix("preprocessor"),
        GroupModel::new(models.join("micro_speech_quantized.tflite"))
            .prefix("keyword")
            .keep("input0"),
    ]
}

#[test]
fn audio_in_keyword_scores_out_bit_exact_in_c() {
    let Some(shared) = support::shared_dir_or_skip("the keyword pipeline in C") else {
        return;
    };
    let dir = support::scratch_dir("micro-speech", "c");
    let files = Config::new()
        .generate_group_c(&members(&shared))
        .unwrap_or_else(|e| panic!("{e}"));
    let example = support::workspace_root().join("examples/micro-speech/c");
    let mut sources = vec![
        example.join("micro_speech.c"),
        support::workspace_root().join("tests/c/micro_speech_driver.c"),
    ];
    sources.extend(support::write_generated(&dir, &files));
    let exe = dir.join("driver");
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "-I".as_ref(),
        dir.as_os_str(),
        "-I".as_ref(),
        example.as_os_str(),
    ];
    args.extend(sources.iter().map(|s| s.as_os_str()));
    support::compile_host_c(&args, &exe);
    let cases = golden();
    let mut args = Vec::new();
    let mut outs: Vec<(PathBuf, PathBuf)> = Vec::new();
    for (run, k) in schedule(&cases).into_iter().enumerate() {
        let out = (
            dir.join(format!("features{run}.bin")),
            dir.join(format!("scores{run}.bin")),
        );
        args.extend([
            cases[k].inputs[0].path.clone(),
            out.0.clone(),
            out.1.clone(),
        ]);
        outs.push(out);
    }
    let result = Command::new(&exe)
        .args(&args)
        .output()
        .expect("run the driver");
    assert!(
        result.status.success(),
        "the driver failed: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    let read = |p: &PathBuf| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let got: Vec<_> = outs.iter().map(|(f, s)| (read(f), read(s))).collect();
    check("C", &cases, &got);
    let _ = std::fs::remove_dir_all(&dir);
}

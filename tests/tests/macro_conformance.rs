//! `include_model!` end to end: fixtures compiled by the macro run TFLM's golden cases, and Cargo
//! rebuilds a crate when a model it includes changes.
//!
//! The macro and build.rs share `tinyaot_codegen::Config::generate`, so the models the macro
//! compiles here must behave exactly like the ones build.rs compiled into `tinyaot_tests::models`:
//! each case's outputs must be the same bytes from both, and those must match TFLM's outputs under
//! the conformance rules (integers byte for byte, float32 within 1e-5 relative).

mod golden;

use std::path::{Path, PathBuf};
use std::process::Command;

use tinyaot_tests::models::ENTRIES;
use tinyaot_tests::models::{
    fixtures_conv_stride2_same_odd_int16, fixtures_ds_cnn, fixtures_micro_speech_like,
    fixtures_resnet8, fixtures_sine_mlp, fixtures_sine_mlp_float, fixtures_streaming_kws,
    fixtures_svdf_float, fixtures_svdf_int8, fixtures_transpose_conv_int16,
};
use tinyaot_tests::{DynModel, Outcome};

// Paths are relative to tests/, the directory of this crate's Cargo.toml.
tinyaot::include_model!("fixtures/models/sine_mlp.tflite");
tinyaot::include_model!("fixtures/models/sine_mlp_float.tflite", name = SineFloat);
tinyaot::include_model!("fixtures/models/ds_cnn.tflite");
// The same, planned without overlaps: its input survives invoke.
tinyaot::include_model!(
    "fixtures/models/ds_cnn.tflite",
    name = DsCnnKept,
    overlap = false
);
tinyaot::include_model!("fixtures/models/micro_speech_like.tflite");
tinyaot::include_model!("fixtures/models/resnet8.tflite");
// int16 activations with int8 weights and 64-bit biases (CONV_2D, TRANSPOSE_CONV).
tinyaot::include_model!("fixtures/models/conv_stride2_same_odd_int16.tflite");
tinyaot::include_model!("fixtures/models/transpose_conv_int16.tflite");
// Resource variables (state carried across the 8 golden cases) set up by a CALL_ONCE, uint8 output.
tinyaot::include_model!("fixtures/models/streaming_kws.tflite");
// Stateful: SVDF's activation state carries from case to case.
tinyaot::include_model!("fixtures/models/svdf_int8.tflite");
tinyaot::include_model!("fixtures/models/svdf_float.tflite");

/// A macro-compiled model, its build.rs-compiled twin, and the fixture name (model and golden).
type Pair = (
    &'static str,
    fn() -> Box<dyn DynModel>,
    fn() -> Box<dyn DynModel>,
);

const PAIRS: &[Pair] = &[
    (
        "sine_mlp",
        || Box::new(SineMlp::new()),
        || Box::new(fixtures_sine_mlp::Model::new()),
    ),
    (
        "sine_mlp_float",
        || Box::new(SineFloat::new()),
        || Box::new(fixtures_sine_mlp_float::Model::new()),
    ),
    (
        "ds_cnn",
        || Box::new(DsCnn::new()),
        || Box::new(fixtures_ds_cnn::Model::new()),
    ),
    (
        "micro_speech_like",
        || Box::new(MicroSpeechLike::new()),
        || Box::new(fixtures_micro_speech_like::Model::new()),
    ),
    (
        "resnet8",
        || Box::new(Resnet8::new()),
        || Box::new(fixtures_resnet8::Model::new()),
    ),
    (
        "conv_stride2_same_odd_int16",
        || Box::new(ConvStride2SameOddInt16::new()),
        || Box::new(fixtures_conv_stride2_same_odd_int16::Model::new()),
    ),
    (
        "transpose_conv_int16",
        || Box::new(TransposeConvInt16::new()),
        || Box::new(fixtures_transpose_conv_int16::Model::new()),
    ),
    (
        "streaming_kws",
        || Box::new(StreamingKws::new()),
        || Box::new(fixtures_streaming_kws::Model::new()),
    ),
    (
        "svdf_int8",
        || Box::new(SvdfInt8::new()),
        || Box::new(fixtures_svdf_int8::Model::new()),
    ),
    (
        "svdf_float",
        || Box::new(SvdfFloat::new()),
        || Box::new(fixtures_svdf_float::Model::new()),
    ),
];

/// Every model of TFLM's integration suite and the stateful reference models, compiled by
/// `include_model!` (the list is written by build.rs, which compiles their build.rs twins).
mod suite {
    include!(concat!(env!("OUT_DIR"), "/macro_suite.rs"));
}

/// `overlap = false` keeps the bound-only plan: a larger arena, the same outputs.
#[test]
fn overlap_false_keeps_the_bound_only_plan() {
    assert_eq!(
        (DsCnn::ARENA_BYTES, DsCnnKept::ARENA_BYTES),
        (8_448, 16_000)
    );
    let (mut overlapped, mut kept) = (DsCnn::new(), DsCnnKept::new());
    let input: Vec<i8> = (0..overlapped.input0_mut().len())
        .map(|i| (i * 37 % 251) as i8)
        .collect();
    overlapped.input0_mut().copy_from_slice(&input);
    kept.input0_mut().copy_from_slice(&input);
    overlapped.invoke();
    kept.invoke();
    assert_eq!(overlapped.output0(), kept.output0());
}

/// The macro compiles the quick selection of TFLM's integration suite (its stateful models and one
/// SEANet layer of each kind, in CI too: the macro generates through build.rs's `Config`, so each
/// further layer would check the same path again) and the stateful reference models (SVDF, LSTM)
/// to the bytes build.rs's twins compute, which match TFLM's goldens, case after case on one
/// instance. Skipped, saying so, without the shared data (failed in CI).
#[test]
fn macro_compiles_tflm_suite_like_build_rs() {
    let Some(shared) =
        tinyaot_test_support::shared_dir_or_skip("include_model! on TFLM's integration suite")
    else {
        return;
    };
    // build.rs compiled this run's selection of the suite (the Rust conformance test checks
    // each) and includes each one and the stateful reference models through the macro.
    let [.., tflm, _] = tinyaot_test_support::suites(&shared);
    let found = tflm.checked_model_files().len();
    assert_eq!(
        ENTRIES.iter().filter(|e| e.suite == tflm.name).count(),
        found,
        "build.rs compiled another set of models than {} holds",
        tflm.models.display()
    );
    let expected = ENTRIES
        .iter()
        .filter(|e| matches!(e.outcome, Outcome::Compiled(_)))
        .filter(|e| {
            e.suite == tflm.name
                || e.suite == "shared"
                    && tinyaot_test_support::MACRO_REFERENCE_MODELS.contains(&e.name)
        })
        .filter(|e| tinyaot_test_support::in_quick_selection(e.suite, e.name))
        .count();
    // A selection that left nothing would pass the count below having checked nothing.
    assert!(
        expected > 0,
        "no model of {} through include_model!",
        tflm.name
    );
    assert_eq!(
        suite::PAIRS.len(),
        expected,
        "include_model! pairs, for the {found} models of {}",
        tflm.models.display()
    );
    let mut failures = Vec::new();
    let mut ran = 0;
    for &(name, golden, from_macro, from_build_rs) in suite::PAIRS {
        match run_pair_on_big_stack(from_macro, from_build_rs, Path::new(golden)) {
            Ok(_) => ran += 1,
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(ran, expected);
}

fn tests_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn macro_models_match_build_rs_and_tflm() {
    let mut failures = Vec::new();
    for &(name, from_macro, from_build_rs) in PAIRS {
        let golden = tinyaot_test_support::fixtures_dir()
            .join("golden")
            .join(name);
        match run_pair_on_big_stack(from_macro, from_build_rs, &golden) {
            Ok(summary) => println!("ok       {name}: {summary}"),
            Err(e) => {
                println!("MISMATCH {name}: {e}");
                failures.push(format!("{name}: {e}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// [`run_pair`] on a thread of its own: `Box::new(Model::new())` may build the model on the stack
/// before moving it to the heap (unoptimised code does), and a large stack makes that safe for
/// every fixture's arena.
fn run_pair_on_big_stack(
    from_macro: fn() -> Box<dyn DynModel>,
    from_build_rs: fn() -> Box<dyn DynModel>,
    golden: &Path,
) -> Result<String, String> {
    let golden = golden.to_path_buf();
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || run_pair(from_macro, from_build_rs, &golden))
        .expect("spawn")
        .join()
        .unwrap_or_else(|_| Err("panicked".to_string()))
}

/// Runs every golden case, in order, on one instance from the macro and one from build.rs.
fn run_pair(
    from_macro: fn() -> Box<dyn DynModel>,
    from_build_rs: fn() -> Box<dyn DynModel>,
    golden: &Path,
) -> Result<String, String> {
    let cases = tinyaot_test_support::load_cases(golden)?;
    let (mut ours, mut twin) = (from_macro(), from_build_rs());
    let mut compared = 0;
    for (k, case) in cases.iter().enumerate() {
        golden::feed(ours.as_mut(), case).map_err(|e| format!("case {k}: {e}"))?;
        golden::feed(twin.as_mut(), case).map_err(|e| format!("case {k} (build.rs): {e}"))?;
        ours.invoke();
        twin.invoke();
        for j in 0..case.outputs.len() {
            if ours.output(j) != twin.output(j) {
                return Err(format!(
                    "case {k} output {j}: the macro's model and build.rs's differ"
                ));
            }
        }
        compared += golden::check(ours.as_ref(), case).map_err(|e| format!("case {k}: {e}"))?;
    }
    Ok(format!(
        "{} cases, {compared} output bytes, identical to build.rs",
        cases.len()
    ))
}

/// Cargo rebuilds a crate when a file listed in its dep-info changes. `include_model!` lists the
/// model there through the `include_bytes!` it expands to: this test binary's own dep-info must
/// name every model included above.
#[test]
fn dep_info_lists_the_models() {
    let exe = std::env::current_exe().expect("current_exe");
    let dep_info = exe.with_extension("d");
    let text = std::fs::read_to_string(&dep_info)
        .unwrap_or_else(|e| panic!("read {}: {e}", dep_info.display()));
    for &(name, ..) in PAIRS {
        let model = tests_dir().join(format!("fixtures/models/{name}.tflite"));
        let model = model.to_str().expect("UTF-8 path");
        assert!(
            text.lines().any(|line| line == format!("{model}:")),
            "{} does not list {model}",
            dep_info.display()
        );
    }
}

/// End to end: a crate using `include_model!` is built with Cargo; building again changes
/// nothing, touching the model rebuilds it, and replacing the model with another changes what the
/// program computes.
///
/// The probe crate builds in trybuild's target directory (`<target>/tests/trybuild`, as the UI
/// tests do) so that the dependencies compiled for one serve the other; a nested Cargo cannot use
/// the outer build's target directory, which is locked while tests run.
#[test]
#[cfg_attr(
    not(nested_cargo_builds),
    ignore = "a nested Cargo build of the macro: runs in CI (CI=true) or with --ignored"
)]
fn touching_the_model_rebuilds_the_crate() {
    let target = target_directory().join("tests/trybuild");
    let probe = target.join("tinyaot-rebuild-probe");
    let model = probe.join("models/probe.tflite");
    let fixture = |name: &str| tests_dir().join(format!("fixtures/models/{name}.tflite"));
    write_probe(&probe);
    std::fs::copy(fixture("sine_mlp"), &model).expect("copy the model");

    let first = build(&probe, &target);
    assert_eq!(run(&first.exe), "input 1 bytes", "the int8 sine model");
    let again = build(&probe, &target);
    assert!(
        again.fresh,
        "a second build with nothing changed recompiled the crate"
    );

    // Sets the model's modification time after anything the build of `exe` wrote (its
    // fingerprints come a moment after the executable), whatever the file system's timestamp
    // resolution: two seconds after the later of the executable's time and now. (From the
    // executable alone, a build slower than the margin on a loaded machine left the model older
    // than the fingerprint of the build before, and Cargo rightly called the crate fresh.)
    let touch_after = |exe: &std::path::Path| {
        let built = std::fs::metadata(exe)
            .and_then(|m| m.modified())
            .expect("mtime");
        let when = built.max(std::time::SystemTime::now()) + std::time::Duration::from_secs(2);
        std::fs::File::options()
            .append(true)
            .open(&model)
            .and_then(|f| f.set_modified(when))
            .expect("touch the model");
    };
    touch_after(&again.exe);
    let touched = build(&probe, &target);
    assert!(
        !touched.fresh,
        "touching the model did not rebuild the crate"
    );

    std::fs::copy(fixture("sine_mlp_float"), &model).expect("replace the model");
    touch_after(&touched.exe);
    let replaced = build(&probe, &target);
    assert!(!replaced.fresh, "replacing the model did not rebuild");
    assert_eq!(
        run(&replaced.exe),
        "input 4 bytes",
        "the rebuilt program still has the old model"
    );
}

/// Writes the probe crate: a binary that prints the size of its model's input.
fn write_probe(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).expect("create probe crate");
    std::fs::create_dir_all(dir.join("models")).expect("create probe crate");
    let runtime = tests_dir()
        .parent()
        .expect("workspace")
        .join("runtime/facade");
    let manifest = format!(
        "[package]\nname = \"tinyaot-rebuild-probe\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\ntinyaot = {{ path = {:?} }}\n\n\
         # Not a member of the workspace this directory may sit in.\n[workspace]\n",
        runtime.to_str().expect("UTF-8 path")
    );
    let main = "tinyaot::include_model!(\"models/probe.tflite\");\n\n\
                fn main() {\n    \
                let mut model = Probe::new();\n    \
                println!(\"input {} bytes\", tinyaot::Model::input_bytes_mut(&mut model, 0).len());\n\
                }\n";
    write_if_changed(&dir.join("Cargo.toml"), &manifest);
    write_if_changed(&dir.join("src/main.rs"), main);
    // The workspace's lock file: the same dependency versions as the workspace (and trybuild's
    // crate) use, and so the same compiled artifacts, with no registry access.
    let lock = std::fs::read_to_string(tests_dir().parent().unwrap().join("Cargo.lock"))
        .expect("read Cargo.lock");
    write_if_changed(&dir.join("Cargo.lock"), &lock);
}

/// Rewriting an unchanged file would make Cargo rebuild needlessly (and `again.fresh` fail).
fn write_if_changed(path: &Path, contents: &str) {
    if std::fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return;
    }
    std::fs::write(path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// What one `cargo build` of the probe did.
struct Built {
    /// Whether Cargo found the probe's binary up to date.
    fresh: bool,
    /// The binary.
    exe: PathBuf,
}

fn build(probe: &Path, target: &Path) -> Built {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["build", "--offline", "--message-format=json"])
        .current_dir(probe)
        .env("CARGO_TARGET_DIR", target)
        // The outer build's flags and incremental state are not the probe's concern.
        .env_remove("RUSTFLAGS")
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .expect("run cargo build");
    assert!(
        output.status.success(),
        "cargo build of the probe failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 cargo output");
    let artifact = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|message| {
            message["reason"] == "compiler-artifact"
                && message["target"]["name"] == "tinyaot-rebuild-probe"
        })
        .expect("cargo reports the probe's artifact");
    Built {
        fresh: artifact["fresh"].as_bool().expect("fresh flag"),
        exe: PathBuf::from(artifact["executable"].as_str().expect("an executable")),
    }
}

fn run(exe: &Path) -> String {
    let output = Command::new(exe).output().expect("run the probe");
    assert!(output.status.success(), "the probe failed");
    String::from_utf8(output.stdout)
        .expect("UTF-8 output")
        .trim()
        .to_string()
}

/// The target directory, from `cargo metadata` (as trybuild finds it).
fn target_directory() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version=1"])
        .current_dir(tests_dir())
        .output()
        .expect("run cargo metadata");
    assert!(output.status.success(), "cargo metadata failed");
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    PathBuf::from(
        metadata["target_directory"]
            .as_str()
            .expect("target_directory"),
    )
}

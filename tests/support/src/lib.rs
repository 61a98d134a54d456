//! Test data helpers, written once for tinyaot's tests, build scripts, benchmark and xtask:
//!
//! - where the data is: the workspace, its fixtures, and the shared reference data (`../shared`
//!   beside the repository, or `$TINYAOT_SHARED_DIR`), with the conformance [`suites`];
//! - TFLM's golden cases: `<golden dir>/manifest.json` and the raw little-endian tensors it names
//!   ([`load_cases`]);
//! - the conformance rule for comparing an output with TFLM's ([`compare`]): every integer type
//!   byte for byte, float32 within [`F32_RELATIVE_TOLERANCE`] relative;
//! - a [`sha256`], for tests that pin data to a recorded hash.
//!
//! Errors are `String`s naming the file at fault: every caller either prints them in a report or
//! fails with them. What a test needs and this machine lacks (the shared data, a cross compiler)
//! follows one rule, [`skip_or_fail`]: skipped with a message, or in CI ([`in_ci`]) a failure.
#![deny(missing_docs)]

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Host C compiler flags of the C tests: the C the README promises (C99, `<stddef.h>` and
/// `<stdint.h>` only), with every warning an error.
pub const HOST_C_FLAGS: &[&str] = &[
    "-std=c99",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Werror",
    "-O2",
];

/// The cross compiler of the C tests' Cortex-M4 builds.
pub const ARM_CC: &str = "arm-none-eabi-gcc";

/// [`ARM_CC`]'s flags: Cortex-M4 with its FPU (hard float), every warning an error.
pub const ARM_C_FLAGS: &[&str] = &[
    "-mcpu=cortex-m4",
    "-mthumb",
    "-mfloat-abi=hard",
    "-mfpu=fpv4-sp-d16",
    "-std=c99",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Werror",
    "-O2",
];

/// Whether [`ARM_CC`] runs here (CI installs it). Tests ask [`arm_compiler_or_skip`], which
/// applies the rule for what is missing.
pub fn arm_compiler_available() -> bool {
    std::process::Command::new(ARM_CC)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The environment variable that says the tests run in CI.
pub const CI_VAR: &str = "CI";

/// Whether the tests run in CI: [`CI_VAR`] is set to anything but the empty string, `0` or
/// `false`. There nothing a test needs may be missing: a missing tool or missing data fails the
/// test ([`skip_or_fail`]) instead of skipping part of it.
pub fn in_ci() -> bool {
    ci_value(std::env::var_os(CI_VAR).as_deref())
}

/// Whether the heavy conformance checks take every model: in CI ([`in_ci`]) they do; outside CI,
/// as in the README's `cargo test --workspace`, the checks that build each model once more (the C
/// backend's on the host and the Cortex-M4, the `include_model!` macro's) take only the models
/// [`in_quick_selection`] names, so that the README's command stays a few minutes on a 2-core
/// machine. The Rust conformance test takes every model either way. `CI=true cargo test
/// --workspace` runs what CI runs.
pub fn full_suites() -> bool {
    in_ci()
}

/// The cfg, `nested_cargo_builds`, under which the tests that build a crate with a nested Cargo
/// run: set in CI ([`in_ci`]); outside CI such a test is ignored (libtest lists it as ignored,
/// with the reason; `cargo test -- --ignored` runs it). Such a test (the macro's rebuild probe)
/// builds the code generator and every dependency of the macro again in a target directory of
/// its own: minutes of a fresh clone's `cargo test --workspace` on a 2-core machine, for a check
/// of Cargo's rebuild tracking. `CI=true cargo test --workspace` runs it. (The `include_model!`
/// UI cases under trybuild, the other nested build, are a test target that needs its crate's
/// feature `nested-builds`: not even built by `cargo test --workspace`.) Called by the build
/// script of a crate with such tests, which carry
/// `#[cfg_attr(not(nested_cargo_builds), ignore = "…")]`.
pub fn emit_nested_cargo_builds_cfg() {
    println!("cargo:rerun-if-env-changed={CI_VAR}");
    println!("cargo:rustc-check-cfg=cfg(nested_cargo_builds)");
    if in_ci() {
        println!("cargo:rustc-cfg=nested_cargo_builds");
    }
}

/// Which of `items` a cover takes: greedily the item with the most elements not yet covered (the
/// smaller size first among equals, then the earlier item), until every element of any item is
/// covered. An item without a set (`None`: it could not be read, and its error is to be reported)
/// is always taken. The mcu runner's `--cover` (the runtime kernels each model's Rust calls) and
/// the C conformance test's quick selection (the C kernels each model's C calls) choose by it.
pub fn greedy_cover<T: Ord>(items: &[Option<(std::collections::BTreeSet<T>, usize)>]) -> Vec<bool> {
    let mut chosen: Vec<bool> = items.iter().map(Option::is_none).collect();
    let mut covered = std::collections::BTreeSet::new();
    loop {
        let best = items
            .iter()
            .enumerate()
            .filter(|&(i, _)| !chosen[i])
            .filter_map(|(i, item)| {
                let (set, size) = item.as_ref()?;
                let new = set.iter().filter(|e| !covered.contains(e)).count();
                (new > 0).then_some((i, new, *size))
            })
            // Most new elements; then the smaller size; then the first in the list.
            .max_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)).then(b.0.cmp(&a.0)));
        let Some((i, ..)) = best else {
            return chosen;
        };
        chosen[i] = true;
        covered.extend(items[i].iter().flat_map(|(set, _)| set));
    }
}

/// Whether model `stem` of `suite` is checked by the heavy conformance tests outside CI (see
/// [`full_suites`]): every fixture and reference model, and of TFLM's integration suite its
/// stateful models and the first layer of each SEANet kind (`seanet_conv0`, not `seanet_conv7`:
/// the layers of one kind differ in shapes, not in the code paths they take). The accepted
/// hostile corners are left to CI there.
pub fn in_quick_selection(suite: &str, stem: &str) -> bool {
    match suite {
        "hostile" => false,
        "tflm_suite" => match stem.strip_prefix("seanet_") {
            Some(layer) => {
                let kind = layer.trim_end_matches(|c: char| c.is_ascii_digit());
                &layer[kind.len()..] == "0"
            }
            None => true,
        },
        _ => true,
    }
}

/// Whether a heavy conformance test checks model `stem` of `suite` in this run: every model in CI,
/// [`in_quick_selection`]'s outside it.
pub fn heavy_check_takes(suite: &str, stem: &str) -> bool {
    full_suites() || in_quick_selection(suite, stem)
}

/// Whether a value of [`CI_VAR`] (`None`: unset) says CI.
fn ci_value(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !matches!(v.to_str(), Some("" | "0" | "false")))
}

/// The rule for a test that cannot do `what` here because `why` (a tool is not installed, the
/// shared data is missing): outside CI it says so on stderr, past libtest's capture of a passing
/// test's output, and returns for the caller to skip that part; in CI ([`in_ci`]) it panics,
/// failing the test: a check skipped there is a check that passed having checked nothing.
pub fn skip_or_fail(what: &str, why: &str) {
    use std::io::Write as _;
    let message = skip_or_fail_in(in_ci(), what, why);
    let _ = writeln!(std::io::stderr(), "{message}");
}

/// [`skip_or_fail`] in CI (`ci`) or not: panics in CI, else returns the message to print.
fn skip_or_fail_in(ci: bool, what: &str, why: &str) -> String {
    if ci {
        panic!("{what} cannot run: {why}; {CI_VAR} is set, and in CI nothing may be skipped");
    }
    format!("SKIPPED: {what}: {why} (with {CI_VAR} set, this fails)")
}

/// Whether [`ARM_CC`] runs here; when it does not, [`skip_or_fail`] for `what` (in CI the test
/// fails).
pub fn arm_compiler_or_skip(what: &str) -> bool {
    if arm_compiler_available() {
        return true;
    }
    skip_or_fail(
        what,
        &format!(
            "{ARM_CC} is not installed (install it with `apt-get install gcc-arm-none-eabi \
             libnewlib-arm-none-eabi`)"
        ),
    );
    false
}

/// A fresh, empty scratch directory `tinyaot-<kind>-<pid>-<name>` for a test of this run, under
/// `CARGO_TARGET_TMPDIR` when it is set, else the system's temporary directory.
pub fn scratch_dir(kind: &str, name: &str) -> PathBuf {
    let base = std::env::var_os("CARGO_TARGET_TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let dir = base.join(format!("tinyaot-{kind}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch directory");
    dir
}

/// Writes generated files (`(name, contents)`, as `tinyaot_codegen`'s C generators return them)
/// into `dir`; returns the paths of the `.c` ones, in order.
pub fn write_generated(dir: &Path, files: &[(String, String)]) -> Vec<PathBuf> {
    let mut sources = Vec::new();
    for (name, contents) in files {
        let path = dir.join(name);
        std::fs::write(&path, contents).expect("write source");
        if name.ends_with(".c") {
            sources.push(path);
        }
    }
    sources
}

/// Compiles and links a host C program into `exe` with `cc`, [`HOST_C_FLAGS`] and then `args`
/// (include directories, sources, extra flags), failing the test on any error or warning.
pub fn compile_host_c<S: AsRef<std::ffi::OsStr>>(args: &[S], exe: &Path) {
    let output = std::process::Command::new("cc")
        .args(HOST_C_FLAGS)
        .args(args)
        .arg("-o")
        .arg(exe)
        .output()
        .expect("run cc");
    assert!(
        output.status.success() && output.stderr.is_empty(),
        "cc failed or warned:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The environment variable that says where the shared reference data is.
pub const SHARED_DIR_VAR: &str = "TINYAOT_SHARED_DIR";

/// One memory region of a test: its name, size in bytes and linker section.
pub type RegionSpec = (&'static str, usize, &'static str);

/// The fixture models the memory-region tests compile with regions besides the arena (the
/// fixture's stem, then each region's name, size and linker section, fastest first), in Rust
/// (tests/build.rs, tests/tests/memory_regions.rs) and in C (tests/tests/c_conformance.rs). Sizes
/// are picked so that some activations move and some stay: the regions split the models.
pub const REGION_MODELS: &[(&str, &[RegionSpec])] = &[
    (
        "mobilenet_v2_035",
        &[("dtcm", 16 << 10, ".dtcm"), ("sram2", 32 << 10, ".sram2")],
    ),
    ("parallel_branches", &[("dtcm", 2 << 10, ".dtcm")]),
    ("parallel_branches_float", &[("dtcm", 8 << 10, ".dtcm")]),
    ("streaming_kws", &[("dtcm", 1 << 10, ".dtcm")]),
    ("resnet8", &[("dtcm", 20 << 10, ".dtcm")]),
    ("add_sub_mul_broadcast", &[("dtcm", 512, ".dtcm")]),
    ("concatenation", &[("dtcm", 512, ".dtcm")]),
    ("ds_cnn", &[("dtcm", 16 << 10, ".dtcm")]),
];

/// The workspace root (the directory of the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    // This crate is `<workspace>/tests/support` and its manifest directory is fixed when it is
    // compiled, so every user (test, build script, binary, xtask) gets the same answer whatever its
    // own crate or current directory.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .nth(2)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The project's own fixtures: `<workspace>/tests/fixtures`.
pub fn fixtures_dir() -> PathBuf {
    workspace_root().join("tests/fixtures")
}

/// The fixture models `<fixtures>/models.json` lists (`fixtures/generate.py` writes the list with
/// the models), as paths in `<fixtures>/models`, in the list's order: the models a test running
/// the fixtures must find. An error when the list cannot be read.
pub fn listed_fixture_models() -> Result<Vec<PathBuf>, String> {
    let fixtures = fixtures_dir();
    let list = fixtures.join("models.json");
    let text = std::fs::read(&list).map_err(|e| format!("{}: {e}", list.display()))?;
    let json: Value =
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", list.display()))?;
    let models = json["models"]
        .as_array()
        .ok_or_else(|| format!("{}: no `models` array", list.display()))?;
    models
        .iter()
        .enumerate()
        .map(|(i, model)| {
            model["file"]
                .as_str()
                .map(|file| fixtures.join(file))
                .ok_or_else(|| format!("{}: model {i} has no `file`", list.display()))
        })
        .collect()
}

/// Every `*.tflite` of `<fixtures>/models` ([`tflite_files`]), after checking that it holds every
/// model [`listed_fixture_models`] lists: a missing or partly generated directory fails the test
/// (panics) rather than letting it loop over nothing.
pub fn fixture_models() -> Vec<PathBuf> {
    let dir = fixtures_dir().join("models");
    let found = tflite_files(&dir);
    let listed = listed_fixture_models().unwrap_or_else(|e| panic!("{e}"));
    let missing: Vec<String> = listed
        .iter()
        .filter(|p| !found.contains(p))
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    assert!(
        !listed.is_empty() && missing.is_empty(),
        "{} of the {} fixture models models.json lists are not in {} ({} .tflite files there), \
         first {}",
        missing.len(),
        listed.len(),
        dir.display(),
        found.len(),
        missing[..missing.len().min(5)].join(", ")
    );
    found
}

/// Where the shared reference data should be, unchecked: `$TINYAOT_SHARED_DIR` if set (taken as
/// given, so a relative path is relative to the current directory), else `<workspace>/../shared`.
pub fn shared_dir_unchecked() -> PathBuf {
    std::env::var_os(SHARED_DIR_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared"))
}

/// The shared reference data ([`shared_dir_unchecked`]), or an error saying where it was looked
/// for when it has no `models/` directory.
pub fn find_shared_dir() -> Result<PathBuf, String> {
    let dir = shared_dir_unchecked();
    if dir.join("models").is_dir() {
        Ok(dir)
    } else {
        Err(format!(
            "the reference models are missing: looked for {}/models. Put the project's shared/ \
             directory beside the repository or set {SHARED_DIR_VAR}.",
            dir.display()
        ))
    }
}

/// [`find_shared_dir`] for tests and build scripts that need the shared data to do `what`: `None`
/// when it is missing, after [`skip_or_fail`] said so (in CI the caller fails instead: a test
/// that silently passes without its data checks nothing).
pub fn shared_dir_or_skip(what: &str) -> Option<PathBuf> {
    match find_shared_dir() {
        Ok(dir) => Some(dir),
        Err(why) => {
            skip_or_fail(what, &why);
            None
        }
    }
}

/// Every `*.tflite` directly in `dir`, sorted; empty when `dir` does not exist or cannot be read.
pub fn tflite_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tflite"))
        .collect();
    files.sort();
    files
}

/// A set of models with TFLM goldens: `<golden>/<stem>/manifest.json` for each
/// `<models>/<stem>.tflite`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suite {
    /// `fixtures`, `hostile`, `shared`, `tflm_suite` or `audio_frontend`.
    pub name: &'static str,
    /// The directory of the `.tflite` files.
    pub models: PathBuf,
    /// The directory holding one golden directory per model.
    pub golden: PathBuf,
}

impl Suite {
    /// The suite's models, sorted: every `*.tflite` of [`Suite::models`]. Panics (failing the
    /// test or build script) when there are none, for a test looping over no models checks
    /// nothing, and for the fixtures when one that `models.json` lists is missing
    /// ([`fixture_models`]).
    pub fn model_files(&self) -> Vec<PathBuf> {
        let files = if self.name == "fixtures" {
            fixture_models()
        } else {
            tflite_files(&self.models)
        };
        assert!(
            !files.is_empty(),
            "the {} suite has no models: no .tflite files in {}",
            self.name,
            self.models.display()
        );
        files
    }

    /// The suite's models this run checks: [`Suite::model_files`] that [`heavy_check_takes`]
    /// (every one in CI, the quick selection outside it).
    pub fn checked_model_files(&self) -> Vec<PathBuf> {
        let mut files = self.model_files();
        files.retain(|model| {
            let stem = model.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            heavy_check_takes(self.name, stem)
        });
        files
    }
}

/// The stateful reference models (`<shared>/models`) that `tests/build.rs` also compiles through
/// `include_model!`, besides TFLM's integration suite: SVDF and LSTM state.
pub const MACRO_REFERENCE_MODELS: &[&str] = &["keyword_scrambled", "trained_lstm_int8"];

/// The conformance suites, in the order they run: the fixtures (`tests/fixtures`), the accepted
/// hostile models (`tests/fixtures/hostile`), the reference models of `shared` (the directory
/// [`find_shared_dir`] finds), TFLM's own integration suite beside them (`models/tflm_suite`:
/// the SEANet 16x8 layers and the LSTM/SVDF models) and TFLM's audio front-end models
/// (`models/audio_frontend`: micro_speech's preprocessors, TFLM's signal library, 8 golden cases
/// carrying state).
pub fn suites(shared: &Path) -> [Suite; 5] {
    let [fixtures, hostile] = repository_suites();
    let [reference, tflm, audio] = shared_suites(shared);
    [fixtures, hostile, reference, tflm, audio]
}

/// The conformance suites this machine has, for a test or build script that runs them to do
/// `what`: all five [`suites`] with the shared data, else the two of the repository, after
/// [`skip_or_fail`] said that the shared ones are skipped (in CI: failed).
pub fn available_suites(what: &str) -> Vec<Suite> {
    let mut suites = repository_suites().to_vec();
    if let Some(shared) = shared_dir_or_skip(&format!("{what} on the shared reference models")) {
        suites.extend(shared_suites(&shared));
    }
    suites
}

/// The suites of the repository's own fixtures: `fixtures` and `hostile`.
fn repository_suites() -> [Suite; 2] {
    let fixtures = fixtures_dir();
    [
        Suite {
            name: "fixtures",
            models: fixtures.join("models"),
            golden: fixtures.join("golden"),
        },
        Suite {
            name: "hostile",
            models: fixtures.join("hostile/models"),
            golden: fixtures.join("hostile/golden"),
        },
    ]
}

/// The suites of the shared data in `shared`: `shared`, `tflm_suite` and `audio_frontend`.
fn shared_suites(shared: &Path) -> [Suite; 3] {
    [
        Suite {
            name: "shared",
            models: shared.join("models"),
            golden: shared.join("models/golden"),
        },
        Suite {
            name: "tflm_suite",
            models: shared.join("models/tflm_suite"),
            golden: shared.join("models/tflm_suite/golden"),
        },
        Suite {
            name: "audio_frontend",
            models: shared.join("models/audio_frontend"),
            golden: shared.join("models/audio_frontend/golden"),
        },
    ]
}

/// One tensor of a golden case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// Its file: the manifest's `file`, joined to the golden directory.
    pub path: PathBuf,
    /// Its dtype as the manifest names it (`int8`, `float32`, …; empty when absent).
    pub dtype: String,
    /// Its raw little-endian bytes.
    pub bytes: Vec<u8>,
}

/// One golden case: the inputs to set and the outputs TFLM produced, in the model's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The input tensors.
    pub inputs: Vec<Tensor>,
    /// TFLM's output tensors.
    pub outputs: Vec<Tensor>,
    /// TFLM's invoke returned `kTfLiteAbort` (its manifest's `"status": 15`): a CIRCULAR_BUFFER
    /// waiting for frames ended it, the operators after it did not run, and the outputs hold
    /// nothing of the case (TFLM leaves whatever its arena held there). The model must say it
    /// stopped, and its outputs are not compared.
    pub waiting: bool,
}

/// TFLM's `kTfLiteAbort` (micro_context.h), the status a golden case records for an invoke a
/// CIRCULAR_BUFFER ended early.
pub const TFLM_ABORT: i64 = 15;

/// Reads every case of `<golden>/manifest.json`, in the order they must run (state carries
/// between cases, as on a device), with the bytes of every tensor. A manifest without cases is an
/// error: a test that ran it would have compared nothing.
pub fn load_cases(golden: &Path) -> Result<Vec<Case>, String> {
    let manifest = golden.join("manifest.json");
    let text = std::fs::read(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let json: Value =
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let cases = json["cases"]
        .as_array()
        .ok_or_else(|| format!("{}: no `cases` array", manifest.display()))?;
    if cases.is_empty() {
        return Err(format!("{}: no cases", manifest.display()));
    }
    let tensors = |k: usize, case: &Value, kind: &str| -> Result<Vec<Tensor>, String> {
        let list = case[kind]
            .as_array()
            .ok_or_else(|| format!("{}: case {k} has no `{kind}` array", manifest.display()))?;
        list.iter()
            .enumerate()
            .map(|(i, item)| {
                let file = item["file"].as_str().ok_or_else(|| {
                    format!("{}: case {k} {kind} {i} has no `file`", manifest.display())
                })?;
                let path = golden.join(file);
                let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                let dtype = item["dtype"].as_str().unwrap_or("").to_string();
                Ok(Tensor { path, dtype, bytes })
            })
            .collect()
    };
    cases
        .iter()
        .enumerate()
        .map(|(k, case)| {
            let waiting = match case.get("status").map(|s| s.as_i64()) {
                None | Some(Some(0)) => false,
                Some(Some(TFLM_ABORT)) => true,
                Some(status) => {
                    return Err(format!(
                        "{}: case {k} has status {status:?}, neither 0 nor {TFLM_ABORT}",
                        manifest.display()
                    ))
                }
            };
            Ok(Case {
                inputs: tensors(k, case, "inputs")?,
                outputs: tensors(k, case, "outputs")?,
                waiting,
            })
        })
        .collect()
}

/// Largest accepted relative difference between a float32 output and TFLM's.
pub const F32_RELATIVE_TOLERANCE: f32 = 1e-5;

/// Whether a float32 output element matches TFLM's `want`: within [`F32_RELATIVE_TOLERANCE`] of
/// it relatively (for `want` zero or subnormal, within that much of the smallest normal float), NaN
/// only where TFLM has NaN, and an infinity only where TFLM has the same infinity.
pub fn f32_matches(got: f32, want: f32) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    if got.is_infinite() || want.is_infinite() {
        // The relative bound of an infinite `want` is infinite and would accept anything.
        return got == want;
    }
    (got - want).abs() <= F32_RELATIVE_TOLERANCE * want.abs().max(f32::MIN_POSITIVE)
}

/// How an output differs from TFLM's: where first, and how much in all.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    /// The sizes differ.
    Length {
        /// Bytes of the output.
        got: usize,
        /// Bytes of TFLM's.
        want: usize,
    },
    /// A float32 element is out of tolerance ([`f32_matches`]).
    Float {
        /// The first element out of tolerance.
        index: usize,
        /// Its value.
        got: f32,
        /// TFLM's value.
        want: f32,
        /// How many elements are out of tolerance.
        differing: usize,
        /// How many elements there are.
        elements: usize,
    },
    /// A byte differs (any type but float32, compared byte for byte).
    Byte {
        /// The first differing byte.
        index: usize,
        /// Its value.
        got: u8,
        /// TFLM's value.
        want: u8,
        /// How many bytes differ.
        differing: usize,
        /// How many bytes there are.
        bytes: usize,
        /// The dtype compared.
        dtype: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Length { got, want } => write!(f, "{got} bytes, TFLM {want}"),
            Mismatch::Float {
                index, got, want, ..
            } => write!(f, "element {index}: got {got}, TFLM {want}"),
            // Bytes print as int8, the type of nearly every quantized output.
            Mismatch::Byte {
                index,
                got,
                want,
                differing,
                bytes,
                dtype,
            } => write!(
                f,
                "{differing} of {bytes} bytes differ; first at byte {index}: got {}, TFLM {} \
                 ({dtype})",
                *got as i8, *want as i8
            ),
        }
    }
}

impl std::error::Error for Mismatch {}

/// Compares an output of dtype `dtype` (as golden manifests name it) with TFLM's under the
/// conformance rule: `float32` element by element with [`f32_matches`], anything else byte for
/// byte. Returns the first mismatch.
pub fn compare(dtype: &str, got: &[u8], want: &[u8]) -> Result<(), Mismatch> {
    if got.len() != want.len() {
        return Err(Mismatch::Length {
            got: got.len(),
            want: want.len(),
        });
    }
    // A float32 tensor is whole elements; should it not be, its tail is compared exactly rather
    // than skipped.
    let floats = if dtype == "float32" { got.len() / 4 } else { 0 };
    let element = |b: &[u8], i: usize| {
        f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    };
    let bad_floats = (0..floats).filter(|&i| !f32_matches(element(got, i), element(want, i)));
    if let Some(index) = bad_floats.clone().next() {
        return Err(Mismatch::Float {
            index,
            got: element(got, index),
            want: element(want, index),
            differing: bad_floats.count(),
            elements: floats,
        });
    }
    let start = 4 * floats;
    if let Some(index) = (start..got.len()).find(|&i| got[i] != want[i]) {
        return Err(Mismatch::Byte {
            index,
            got: got[index],
            want: want[index],
            differing: (start..got.len()).filter(|&i| got[i] != want[i]).count(),
            bytes: got.len(),
            dtype: dtype.to_string(),
        });
    }
    Ok(())
}

/// Lower-case hexadecimal of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A plain SHA-256 (FIPS 180-4), enough to hash small test data without a dependency
/// (`schema/tests/schema_current.rs` checks it against FIPS 180-2's test vectors).
pub fn sha256(message: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut data = message.to_vec();
    let bit_len = (message.len() as u64).wrapping_mul(8);
    data.push(0x80);
    while data.len() % 64 != 56 {
        data.push(0);
    }
    data.extend_from_slice(&bit_len.to_be_bytes());
    for block in data.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (state, v) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *state = state.wrapping_add(v);
        }
    }
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn the_workspace_root_holds_the_workspace_manifest() {
        let root = workspace_root();
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
        assert!(manifest.contains("[workspace]"), "{}", root.display());
        assert!(fixtures_dir().join("golden").is_dir());
    }

    #[test]
    fn shared_dir_honours_the_variable_and_says_where_it_looked() {
        // The only test of this crate that reads or writes the variable.
        let saved = std::env::var_os(SHARED_DIR_VAR);
        let missing = workspace_root().join("no-such-shared-dir");
        std::env::set_var(SHARED_DIR_VAR, &missing);
        let error = find_shared_dir().unwrap_err();
        assert_eq!(shared_dir_unchecked(), missing);
        std::env::set_var(SHARED_DIR_VAR, workspace_root().join("tests"));
        let fixtures = find_shared_dir();
        std::env::remove_var(SHARED_DIR_VAR);
        let default = shared_dir_unchecked();
        if let Some(saved) = saved {
            std::env::set_var(SHARED_DIR_VAR, saved);
        }
        assert_eq!(
            error,
            format!(
                "the reference models are missing: looked for {}/models. Put the project's \
                 shared/ directory beside the repository or set TINYAOT_SHARED_DIR.",
                missing.display()
            )
        );
        // tests/ has no models/ directory either: only a directory holding models/ qualifies.
        assert!(fixtures.is_err());
        assert_eq!(default, workspace_root().join("../shared"));
    }

    #[test]
    fn the_quick_selection_takes_the_first_layer_of_each_seanet_kind() {
        for (suite, stem, taken) in [
            ("fixtures", "ds_cnn", true),
            ("shared", "person_detect", true),
            ("hostile", "zero_size_input_pad", false),
            ("tflm_suite", "seanet_conv0", true),
            ("tflm_suite", "seanet_conv10", false),
            ("tflm_suite", "seanet_conv7", false),
            ("tflm_suite", "seanet_leaky_relu0", true),
            ("tflm_suite", "micro_speech_lstm", true),
        ] {
            assert_eq!(in_quick_selection(suite, stem), taken, "{suite}/{stem}");
        }
    }

    #[test]
    fn ci_is_any_value_but_empty_zero_or_false() {
        use std::ffi::OsStr;
        assert!(!ci_value(None));
        for off in ["", "0", "false"] {
            assert!(!ci_value(Some(OsStr::new(off))), "{off:?}");
        }
        for on in ["true", "1", "yes"] {
            assert!(ci_value(Some(OsStr::new(on))), "{on:?}");
        }
    }

    /// Outside CI a missing tool or missing data skips, saying so; in CI it fails the test.
    #[test]
    fn a_skip_outside_ci_returns() {
        assert_eq!(
            skip_or_fail_in(false, "this unit test", "a tool is missing"),
            "SKIPPED: this unit test: a tool is missing (with CI set, this fails)"
        );
    }

    #[test]
    #[should_panic(expected = "this unit test cannot run: a tool is missing; CI is set")]
    fn a_skip_in_ci_fails() {
        skip_or_fail_in(true, "this unit test", "a tool is missing");
    }

    #[test]
    fn the_cover_takes_the_fewest_items_and_keeps_unread_ones() {
        let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect();
        let items = vec![
            Some((set(&["a", "b"]), 10)),
            None,
            Some((set(&["a", "b", "c"]), 30)),
            Some((set(&["c"]), 5)),
            Some((set(&["a", "b", "c"]), 20)),
        ];
        // The two three-element items tie on elements: the smaller (index 4) wins; the unread one
        // stays.
        assert_eq!(greedy_cover(&items), [false, true, false, false, true]);
    }

    /// Every fixture models.json lists is there, and nothing else is.
    #[test]
    fn the_fixture_models_are_the_listed_ones() {
        let listed = listed_fixture_models().expect("models.json");
        assert!(!listed.is_empty());
        let mut sorted = listed.clone();
        sorted.sort();
        assert_eq!(fixture_models(), sorted);
    }

    #[test]
    fn suites_pair_models_with_goldens() {
        let shared = Path::new("/data/shared");
        let [fixtures, hostile, reference, tflm, audio] = suites(shared);
        assert_eq!(audio.golden, shared.join("models/audio_frontend/golden"));
        assert_eq!(tflm.golden, shared.join("models/tflm_suite/golden"));
        assert_eq!(fixtures.models, fixtures_dir().join("models"));
        assert_eq!(hostile.golden, fixtures_dir().join("hostile/golden"));
        assert_eq!(reference.name, "shared");
        assert_eq!(reference.golden, shared.join("models/golden"));
        let models = tflite_files(&fixtures.models);
        assert!(models.windows(2).all(|w| w[0] < w[1]), "sorted");
        assert!(models.iter().any(|m| m.ends_with("sine_mlp.tflite")));
        assert!(tflite_files(&fixtures_dir().join("no-such-dir")).is_empty());
    }

    #[test]
    fn a_fixture_manifest_loads_in_order() {
        let golden = fixtures_dir().join("golden/sine_mlp");
        let cases = load_cases(&golden).expect("sine_mlp goldens");
        assert_eq!(cases.len(), 3);
        for (k, case) in cases.iter().enumerate() {
            assert_eq!(case.inputs.len(), 1);
            assert_eq!(case.outputs.len(), 1);
            assert_eq!(
                case.inputs[0].path,
                golden.join(format!("case{k}/input0.bin"))
            );
            assert_eq!(case.outputs[0].dtype, "int8");
            assert_eq!(case.outputs[0].bytes.len(), 1);
        }
    }

    #[test]
    fn broken_manifests_are_named() {
        let dir = std::env::temp_dir().join(format!("tinyaot-support-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let manifest = dir.join("manifest.json");
        let error = |json: &str| {
            std::fs::write(&manifest, json).expect("write manifest");
            load_cases(&dir).expect_err("an error")
        };
        let at = manifest.display().to_string();
        assert_eq!(error("{}"), format!("{at}: no `cases` array"));
        assert_eq!(error(r#"{"cases": []}"#), format!("{at}: no cases"));
        assert_eq!(
            error(r#"{"cases": [{"inputs": []}]}"#),
            format!("{at}: case 0 has no `outputs` array")
        );
        assert_eq!(
            error(r#"{"cases": [{"inputs": [{"dtype": "int8"}], "outputs": []}]}"#),
            format!("{at}: case 0 inputs 0 has no `file`")
        );
        assert!(
            error(r#"{"cases": [{"inputs": [{"file": "x.bin"}], "outputs": []}]}"#)
                .starts_with(&dir.join("x.bin").display().to_string())
        );
        assert!(error("not json").starts_with(&at));
        let _ = std::fs::remove_dir_all(&dir);
        assert!(load_cases(&dir).unwrap_err().starts_with(&at));
    }

    #[test]
    fn integers_compare_byte_for_byte() {
        assert_eq!(compare("int8", &[1, 2, 3], &[1, 2, 3]), Ok(()));
        let mismatch = compare("int8", &[1, 0xff, 3, 9], &[1, 0x7f, 3, 4]).unwrap_err();
        assert_eq!(
            mismatch.to_string(),
            "2 of 4 bytes differ; first at byte 1: got -1, TFLM 127 (int8)"
        );
        // One LSB is a difference too, in every integer type.
        assert!(compare("int32", &[0, 0, 0, 1], &[0, 0, 0, 0]).is_err());
        assert_eq!(
            compare("int8", &[1, 2], &[1, 2, 3])
                .unwrap_err()
                .to_string(),
            "2 bytes, TFLM 3"
        );
    }

    #[test]
    fn floats_compare_within_the_relative_tolerance() {
        let want = 1000.0f32;
        let inside = want * (1.0 + 0.9 * F32_RELATIVE_TOLERANCE);
        let outside = want * (1.0 + 2.0 * F32_RELATIVE_TOLERANCE);
        assert_eq!(compare("float32", &f32s(&[inside]), &f32s(&[want])), Ok(()));
        let mismatch = compare(
            "float32",
            &f32s(&[1.0, outside, 0.5]),
            &f32s(&[1.0, want, 0.0]),
        )
        .unwrap_err();
        assert_eq!(
            mismatch,
            Mismatch::Float {
                index: 1,
                got: outside,
                want,
                differing: 2,
                elements: 3
            }
        );
        assert_eq!(mismatch.to_string(), "element 1: got 1000.02, TFLM 1000");
        // The same bytes as int8 would differ: the dtype decides.
        assert!(compare("int8", &f32s(&[inside]), &f32s(&[want])).is_err());
    }

    #[test]
    fn zeros_nans_and_infinities() {
        assert!(f32_matches(-0.0, 0.0));
        assert!(
            f32_matches(1e-44, 0.0),
            "within 1e-5 of the smallest normal"
        );
        assert!(!f32_matches(1e-30, 0.0));
        assert!(f32_matches(f32::NAN, -f32::NAN));
        assert!(!f32_matches(f32::NAN, 1.0));
        assert!(!f32_matches(1.0, f32::NAN));
        assert!(f32_matches(f32::INFINITY, f32::INFINITY));
        assert!(!f32_matches(f32::NEG_INFINITY, f32::INFINITY));
        assert!(!f32_matches(1.0, f32::INFINITY));
        assert!(!f32_matches(f32::INFINITY, f32::MAX));
        assert!(!f32_matches(f32::MAX, -f32::MAX));
    }

    #[test]
    fn a_ragged_float_tail_is_compared_exactly() {
        let mut got = f32s(&[1.0]);
        let mut want = got.clone();
        got.push(1);
        want.push(2);
        assert_eq!(
            compare("float32", &got, &want),
            Err(Mismatch::Byte {
                index: 4,
                got: 1,
                want: 2,
                differing: 1,
                bytes: 5,
                dtype: "float32".to_string()
            })
        );
    }
}

//! UI tests of `include_model!` (trybuild): every `cases/*.rs` must fail to compile with exactly
//! the message in the `.stderr` beside it, and every `cases/pass/*.rs` must compile and run.
//! `cases/group_output_across_invoke.rs` is the borrow rule of a group of models sharing one arena
//! (this crate's `groups`): one model's output may not be held across the other's invoke.
//!
//! The test builds the macro and the code generator again with a nested Cargo (trybuild's own
//! target directory), so `cargo test --workspace` leaves it out: it needs the crate's feature
//! `nested-builds`, which CI turns on (`cargo test -p tinyaot-ui-tests --features nested-builds`).
//! To accept changed messages: `TRYBUILD=overwrite cargo test -p tinyaot-ui-tests --features
//! nested-builds`, then review the
//! `.stderr` diffs — each must still read as something a user can act on.
//! `cases/unsupported_op.stderr` lists the supported operators: `cargo xtask ops` writes that list
//! from the operator registry (and xtask's test fails while it is stale).
//!
//! `include_model!` resolves its path against `CARGO_MANIFEST_DIR`, and for the cases that is the
//! crate trybuild generates under `<target dir>/tests/trybuild/tinyaot-ui-tests/`, not the
//! repository: no relative path written in a case reaches the repository from there for every
//! target directory. So before running, [`stage`] copies the files the cases name into that
//! crate's directory at the same relative paths they have under the repository's `tests/`, and a
//! case's path reads as one relative to `tests/` (`ui/data/…`, `fixtures/models/…`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// Files the cases use, relative to the repository's `tests/` (directories are copied whole).
const STAGED: &[&str] = &["ui/data", "fixtures/models/sine_mlp.tflite"];

// trybuild builds the macro and the code generator again in a target directory of its own.
#[test]
fn ui() {
    stage(&trybuild_crate_dir());
    let cases = trybuild::TestCases::new();
    cases.compile_fail("cases/*.rs");
    cases.pass("cases/pass/*.rs");
    // The cases run when `cases` is dropped.
}

/// The directory of the crate trybuild generates: `<target_directory>/tests/trybuild/<crate name>/`,
/// with the target directory taken from `cargo metadata`, as trybuild itself takes it (so that
/// `CARGO_TARGET_DIR`, `--target-dir` in a config file and the default all agree).
fn trybuild_crate_dir() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version=1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let target = metadata["target_directory"]
        .as_str()
        .expect("cargo metadata has target_directory");
    Path::new(target)
        .join("tests/trybuild")
        .join(env!("CARGO_PKG_NAME"))
}

/// Copies [`STAGED`] from the repository's `tests/` into `dir`, replacing what an earlier run left there (so that a
/// data file removed from the repository does not linger and keep a case passing).
fn stage(dir: &Path) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for relative in STAGED {
        let from = source.join(relative);
        let to = dir.join(relative);
        if to.is_dir() {
            std::fs::remove_dir_all(&to).expect("remove stale staged directory");
        }
        copy(&from, &to);
    }
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("create staged directory");
        for entry in std::fs::read_dir(from).expect("read data directory") {
            let entry = entry.expect("read data directory entry");
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().expect("staged file has a parent"))
            .expect("create staged directory");
        std::fs::copy(from, to)
            .unwrap_or_else(|e| panic!("copy {} to {}: {e}", from.display(), to.display()));
    }
}

//! Helpers shared by the integration tests: where the reference models and fixtures live.
//!
//! Each test crate includes this with `mod common;`; not every crate uses every helper.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The workspace root (the directory holding the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    // CARGO_MANIFEST_DIR is `<workspace>/codegen` for this crate's tests.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// The shared reference data: `$TINYAOT_SHARED_DIR` if set, else `<workspace>/../shared`.
///
/// Panics (failing the test) when the directory is missing: a test that silently passes without
/// its data checks nothing.
pub fn shared_dir() -> PathBuf {
    let dir = match std::env::var_os("TINYAOT_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => workspace_root().join("..").join("shared"),
    };
    assert!(
        dir.join("models").is_dir(),
        "shared reference data not found: looked for {}/models (set TINYAOT_SHARED_DIR to the \
         directory holding models/ and tools/)",
        dir.display()
    );
    dir
}

/// `<shared>/models`.
pub fn shared_models_dir() -> PathBuf {
    shared_dir().join("models")
}

/// The project's own fixtures: `<workspace>/tests/fixtures` (may not exist yet).
pub fn fixture_dir() -> PathBuf {
    workspace_root().join("tests").join("fixtures")
}

/// Every `*.tflite` directly in `dir`, sorted; empty when `dir` does not exist.
pub fn tflite_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    files.sort();
    files
}

/// The reference models in `<shared>/models`; fails when there are none.
pub fn shared_models() -> Vec<PathBuf> {
    let dir = shared_models_dir();
    let models = tflite_files(&dir);
    assert!(!models.is_empty(), "no .tflite files in {}", dir.display());
    models
}

/// The fixture models in `<workspace>/tests/fixtures/models` (empty until they are generated).
pub fn fixture_models() -> Vec<PathBuf> {
    tflite_files(&fixture_dir().join("models"))
}

/// Reads a file, failing the test with its path on error.
pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Reads `<shared>/models/<name>`.
pub fn shared_model(name: &str) -> Vec<u8> {
    read(&shared_models_dir().join(name))
}

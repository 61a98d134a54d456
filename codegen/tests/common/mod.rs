//! Helpers shared by the integration tests: the reference models and fixtures they load. Where
//! the data lives is tinyaot-test-support's.
//!
//! Each test crate includes this with `mod common;`; not every crate uses every helper.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use tinyaot_test_support::{fixtures_dir, shared_dir, tflite_files};

/// `<shared>/models`; panics (failing the test) when the shared data is missing: a test that
/// silently passes without its data checks nothing.
pub fn shared_models_dir() -> PathBuf {
    shared_dir().join("models")
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
    tflite_files(&fixtures_dir().join("models"))
}

/// Reads a file, failing the test with its path on error.
pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Reads `<shared>/models/<name>`.
pub fn shared_model(name: &str) -> Vec<u8> {
    read(&shared_models_dir().join(name))
}

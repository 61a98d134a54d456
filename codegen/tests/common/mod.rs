//! Helpers shared by the integration tests: the reference models and fixtures they load. Where
//! the data lives, and what a test does when it is missing, is tinyaot-test-support's.
//!
//! Each test crate includes this with `mod common;`; not every crate uses every helper.
#![allow(dead_code)]

pub mod subgraphs;

use std::path::{Path, PathBuf};

use tinyaot_test_support::{shared_dir_or_skip, tflite_files};

/// `<shared>/models`, or `None` when the shared data is missing: the test then skips `what`,
/// saying so (in CI it fails instead; `tinyaot_test_support::skip_or_fail`).
pub fn shared_models_dir(what: &str) -> Option<PathBuf> {
    shared_dir_or_skip(what).map(|dir| dir.join("models"))
}

/// The reference models in `<shared>/models` (`None` as [`shared_models_dir`]); fails when there
/// are none.
pub fn shared_models(what: &str) -> Option<Vec<PathBuf>> {
    let dir = shared_models_dir(what)?;
    let models = tflite_files(&dir);
    assert!(!models.is_empty(), "no .tflite files in {}", dir.display());
    Some(models)
}

/// The fixture models in `<workspace>/tests/fixtures/models`: every one `models.json` lists
/// (fails when any is missing, so that a missing folder cannot pass as an empty list).
pub fn fixture_models() -> Vec<PathBuf> {
    tinyaot_test_support::fixture_models()
}

/// Reads a file, failing the test with its path on error.
pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// Reads `<shared>/models/<name>`, or `None` as [`shared_models_dir`] (the skip naming `name`).
pub fn shared_model(name: &str) -> Option<Vec<u8>> {
    shared_models_dir(&format!("the test on {name}")).map(|dir| read(&dir.join(name)))
}

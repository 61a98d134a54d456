//! Helpers shared by the command line's integration tests; each test crate includes this with
//! `mod common;`.

use std::path::PathBuf;

/// A fresh, empty directory for one test's files (test names are unique across the test crates).
pub fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tinyaot-cli-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch directory");
    dir
}

//! The build.rs API: [`Config`], and the pure [`rust_source`] under it that the macro and the
//! command line share.

use std::path::{Path, PathBuf};

use crate::emit::c::COptions;
use crate::emit::rust::{camel_case, RustOptions};
use crate::emit::Layout;
use crate::error::{Error, Result};

/// Compiles models from a build script, in the manner of `prost_build::Config`:
///
/// ```no_run
/// // build.rs
/// tinyaot_codegen::Config::new()
///     .compile("models/net.tflite")
///     .expect("compile net.tflite");
/// // src/lib.rs: include!(concat!(env!("OUT_DIR"), "/net.rs"));
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    name: Option<String>,
    runtime_path: String,
    out_dir: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

impl Config {
    /// Defaults: struct name from the file stem, runtime at `::tinyaot`, output to `$OUT_DIR`.
    pub fn new() -> Self {
        Config {
            name: None,
            runtime_path: "::tinyaot".to_string(),
            out_dir: None,
        }
    }

    /// The generated struct's name (default: the file stem in CamelCase, `person_detect` →
    /// `PersonDetect`).
    pub fn name(&mut self, name: impl Into<String>) -> &mut Self {
        self.name = Some(name.into());
        self
    }

    /// The path of the runtime crate in generated code (default `::tinyaot`), for crates that
    /// rename or re-export it.
    pub fn runtime_path(&mut self, path: impl Into<String>) -> &mut Self {
        self.runtime_path = path.into();
        self
    }

    /// Where [`compile`](Self::compile) writes (default: the `OUT_DIR` Cargo gives build scripts).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Compiles `model` into `<out_dir>/<stem>.rs`, writing only when the content changed (so
    /// Cargo does not rebuild needlessly), and tells Cargo to rerun when the model changes.
    /// Returns the path of the generated file.
    pub fn compile(&self, model: impl AsRef<Path>) -> Result<PathBuf> {
        let model = model.as_ref();
        let in_build_script = std::env::var_os("CARGO_MANIFEST_DIR").is_some()
            && std::env::var_os("OUT_DIR").is_some();
        if in_build_script {
            println!("cargo:rerun-if-changed={}", model.display());
        }
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| Error::Config {
                    detail: "OUT_DIR is not set: call Config::compile from a build script, or \
                             set Config::out_dir"
                        .to_string(),
                })?,
        };
        let bytes = read_model(model)?;
        let stem = file_stem(model)?;
        let source = self.generate(&bytes, &stem)?;
        let path = out_dir.join(format!("{stem}.rs"));
        write_if_changed(&path, source.as_bytes())?;
        Ok(path)
    }

    /// The Rust source for the model in `bytes`, whose file stem is `stem` (for the default name and
    /// the header). Pure: reads and writes nothing.
    pub fn generate(&self, bytes: &[u8], stem: &str) -> Result<String> {
        let options = RustOptions {
            name: self.name.clone().unwrap_or_else(|| camel_case(stem)),
            runtime_path: self.runtime_path.clone(),
            source_name: format!("{stem}.tflite"),
        };
        rust_source(bytes, &options)
    }
}

/// The whole pipeline for the Rust backend: load → plan → lower → emit.
pub fn rust_source(bytes: &[u8], options: &RustOptions) -> Result<String> {
    let graph = crate::load::load(bytes)?;
    let plan = crate::plan::plan_graph(&graph)?;
    let calls = crate::lower::lower(&graph)?;
    crate::emit::rust::generate(&graph, &Layout::from_plan(&plan), &calls, options)
}

/// The whole pipeline for the C backend: load → plan → lower → emit. Returns `(file name, contents)`
/// pairs — `<prefix>.h`, `<prefix>.c`, then the internal header and kernel sources; pure: reads
/// and writes nothing.
pub fn c_sources(bytes: &[u8], options: &COptions) -> Result<Vec<(String, String)>> {
    let graph = crate::load::load(bytes)?;
    let plan = crate::plan::plan_graph(&graph)?;
    let calls = crate::lower::lower(&graph)?;
    crate::emit::c::generate(&graph, &Layout::from_plan(&plan), &calls, options)
}

/// Reads a model file, with the path in the error.
pub fn read_model(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// The file stem of `path` as UTF-8.
pub fn file_stem(path: &Path) -> Result<String> {
    path.file_stem()
        .and_then(|s| s.to_str())
        .map(str::to_string)
        .ok_or_else(|| Error::Config {
            detail: format!(
                "{}: the model's file name is not valid UTF-8",
                path.display()
            ),
        })
}

/// Writes `contents` to `path` unless it already holds exactly that, through a temporary file and a
/// rename so that a failure never leaves a partial file.
pub fn write_if_changed(path: &Path, contents: &[u8]) -> Result<()> {
    if std::fs::read(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    let io_error = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let written = std::fs::write(&tmp, contents).and_then(|()| std::fs::rename(&tmp, path));
    written.map_err(|e| {
        // Whatever step failed, leave nothing behind but the previous file (if any).
        let _ = std::fs::remove_file(&tmp);
        io_error(e)
    })
}

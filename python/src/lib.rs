//! `tinyaot._native`: the extension module under the `tinyaot` Python package (`tinyaot/`), which
//! gives it its documented, typed API. Everything here is a thin shell over the Rust crates: the
//! generators are tinyaot-codegen's, called exactly as `tinyaot-cli` calls them (the same limits,
//! the same file stem and source name for a model read from a path), and [`run`] is the command
//! line itself, so a refusal reads the same from Python as on the CLI's `error:` line.
//!
//! The generators run with the GIL released: a large model takes seconds, and a notebook's other
//! threads keep running meanwhile.
#![deny(missing_docs)]

use std::io::Write;
use std::path::{Path, PathBuf};

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tinyaot_codegen::config::{c_outputs_with, file_stem, read_model};
use tinyaot_codegen::emit::c::COptions;
use tinyaot_codegen::emit::c_build::lay_out;
use tinyaot_codegen::plan::MemoryRegion;
use tinyaot_codegen::{CLayout, Config, Limits, Planning};

create_exception!(
    tinyaot,
    Error,
    PyValueError,
    "A model tinyaot refuses, or a model file that cannot be read. The message is the one the \
     `tinyaot` command prints after `error: `."
);

/// The file stem given to a model passed as bytes: it names the Rust struct (`Net`) unless a name
/// is given, and the model in the generated files' headers (`net.tflite`).
const BYTES_STEM: &str = "net";

/// A model as the generators take it: its bytes, the stem of its file (for the default Rust name)
/// and its file name (for the generated headers).
struct Model<'a> {
    bytes: &'a [u8],
    stem: &'a str,
    file_name: &'a str,
}

/// Runs `generate` on `model` (bytes, or a path as `str` or `os.PathLike`) with the GIL released,
/// turning a refusal into [`Error`].
fn with_model<T: Send>(
    model: &Bound<'_, PyAny>,
    generate: impl FnOnce(Model<'_>) -> tinyaot_codegen::Result<T> + Send,
) -> PyResult<T> {
    let py = model.py();
    let result = if let Ok(bytes) = model.cast::<PyBytes>() {
        // A `bytes` object is immutable and `model` keeps it alive, so its buffer may be read
        // while other Python threads run.
        let bytes = bytes.as_bytes();
        let file_name = format!("{BYTES_STEM}.tflite");
        py.detach(|| {
            generate(Model {
                bytes,
                stem: BYTES_STEM,
                file_name: &file_name,
            })
        })
    } else {
        let path: PathBuf = model.extract()?;
        py.detach(|| from_path(&path, generate))
    };
    result.map_err(|e| Error::new_err(e.to_string()))
}

/// Reads the model at `path` and runs `generate` on it, naming it as the command line does.
fn from_path<T>(
    path: &Path,
    generate: impl FnOnce(Model<'_>) -> tinyaot_codegen::Result<T>,
) -> tinyaot_codegen::Result<T> {
    let bytes = read_model(path)?;
    let stem = file_stem(path)?;
    let file_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("model.tflite");
    generate(Model {
        bytes: &bytes,
        stem: &stem,
        file_name,
    })
}

/// The C files of `model` with C prefix `prefix`, as `(file name, contents)` pairs in the order
/// `tinyaot c --layout LAYOUT` writes them: `<prefix>.h`, `<prefix>.c`, `<prefix>_kernels.h`, the
/// kernel files (under `src/` for Arduino), then the layout's build files.
#[pyfunction]
#[pyo3(signature = (model, prefix, layout="cmake", overlap=true, reorder=true, regions=Vec::new(), limits=Vec::new()))]
fn generate_c(
    model: &Bound<'_, PyAny>,
    prefix: String,
    layout: &str,
    overlap: bool,
    reorder: bool,
    regions: Vec<(String, usize, String)>,
    limits: Vec<(String, u64)>,
) -> PyResult<Vec<(String, String)>> {
    let limits = limits_from(limits)?;
    let layout = CLayout::from_name(layout).ok_or_else(|| {
        Error::new_err(format!(
            "`layout={layout}`: expected one of {}",
            CLayout::NAMES.join(", ")
        ))
    })?;
    with_model(model, |m| {
        let options = COptions {
            prefix,
            source_name: m.file_name.to_string(),
        };
        let planning = planning(overlap, reorder, regions);
        let files = c_outputs_with(m.bytes, &options, &limits, &planning)?;
        let files = lay_out(layout, &options, files)?;
        Ok(files
            .into_iter()
            .map(|(name, source)| (name, source.into_string()))
            .collect())
    })
}

/// The Rust module of `model` (what `tinyaot rust` writes), its struct named `name` or, by
/// default, after the file stem in CamelCase.
#[pyfunction]
#[pyo3(signature = (model, name=None, overlap=true, reorder=true, regions=Vec::new(), limits=Vec::new()))]
fn generate_rust(
    model: &Bound<'_, PyAny>,
    name: Option<String>,
    overlap: bool,
    reorder: bool,
    regions: Vec<(String, usize, String)>,
    limits: Vec<(String, u64)>,
) -> PyResult<String> {
    let limits = limits_from(limits)?;
    with_model(model, |m| {
        let mut config = Config::new();
        config
            .limits(limits)
            .planning(planning(overlap, reorder, regions));
        if let Some(name) = name {
            config.name(name);
        }
        config.generate(m.bytes, m.stem)
    })
}

/// The memory plan of `model`: the JSON `tinyaot plan --format json` prints, and the drawing
/// `tinyaot plan --svg` writes, titled with the model's file name.
#[pyfunction]
#[pyo3(signature = (model, overlap=true, reorder=true, regions=Vec::new(), limits=Vec::new()))]
fn plan(
    model: &Bound<'_, PyAny>,
    overlap: bool,
    reorder: bool,
    regions: Vec<(String, usize, String)>,
    limits: Vec<(String, u64)>,
) -> PyResult<(String, String)> {
    let limits = limits_from(limits)?;
    with_model(model, |m| {
        let mut config = Config::new();
        config
            .limits(limits)
            .planning(planning(overlap, reorder, regions));
        let report = config.plan(m.bytes)?;
        Ok((report.json(), report.svg(m.file_name)))
    })
}

/// The resource limits: the defaults, with each `(name, value)` pair set, named as
/// [`Limits`]' fields (the command line's `--max-…` options); an unknown name or a value out of
/// the field's range is a `ValueError`.
fn limits_from(pairs: Vec<(String, u64)>) -> PyResult<Limits> {
    let mut limits = Limits::default();
    for (name, value) in pairs {
        let out_of_range = || PyValueError::new_err(format!("`{name}={value}` is out of range"));
        match name.as_str() {
            "max_operators" => {
                limits.max_operators = value.try_into().map_err(|_| out_of_range())?
            }
            "max_tensors" => limits.max_tensors = value.try_into().map_err(|_| out_of_range())?,
            "max_tensor_bytes" => limits.max_tensor_bytes = value,
            "max_constant_bytes" => limits.max_constant_bytes = value,
            "max_arena_bytes" => limits.max_arena_bytes = value,
            "target_pointer_width" => match value {
                16 | 32 | 64 => limits.target_pointer_width = value as u32,
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "`target_pointer_width={value}`: expected 16, 32 or 64"
                    )))
                }
            },
            _ => return Err(PyValueError::new_err(format!("unknown limit `{name}`"))),
        }
    }
    Ok(limits)
}

/// The planning options: overlaps, operator order and memory regions as `(name, bytes, section)`.
fn planning(overlap: bool, reorder: bool, regions: Vec<(String, usize, String)>) -> Planning {
    Planning {
        overlap,
        reorder,
        regions: regions
            .into_iter()
            .map(|(name, capacity, section)| MemoryRegion {
                name,
                capacity,
                section,
            })
            .collect(),
    }
}

/// Runs the `tinyaot` command line on `args` (without the program name) in this process and
/// returns its exit status. It writes to the process's standard output and error (file
/// descriptors 1 and 2), flushed before it returns.
#[pyfunction]
fn run(py: Python<'_>, args: Vec<String>) -> i32 {
    py.detach(|| {
        let status = tinyaot_cli::main(args);
        // A cdylib has no Rust `main` to flush stdout at exit, and Python exits without it.
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        status
    })
}

/// Takes SIGINT and SIGTERM as the `tinyaot` binary does, so that an interrupted command leaves no
/// partial output. For the console command only, before it calls [`run`]: the process's signals
/// are then the command's, and it dies of the signal.
#[pyfunction]
fn install_signal_handlers() {
    tinyaot_cli::install_signal_handlers();
}

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(generate_c, m)?)?;
    m.add_function(wrap_pyfunction!(generate_rust, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(install_signal_handlers, m)?)?;
    Ok(())
}

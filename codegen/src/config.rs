//! The build.rs API: [`Config`] (Rust and C output, and the memory plan as [`PlanReport`]), and the
//! pure [`rust_source`] and [`c_sources`] under it that the macro and the command line share.

use std::path::{Path, PathBuf};

#[cfg(feature = "c")]
use crate::emit::c::{default_prefix, COptions};
#[cfg(feature = "c")]
use crate::emit::c_build::{lay_out, CLayout};
use crate::emit::files::write_file;
use crate::emit::rust::{camel_case, RustOptions};
use crate::emit::{Layout, Source};
use crate::error::{Error, Result};
use crate::ir::Graph;
use crate::limits::Limits;
use crate::plan::MemoryPlan;

/// Compiles models from a build script, in the manner of `prost_build::Config`: into Rust with
/// [`compile`](Self::compile), into C with [`compile_c`](Self::compile_c) (feature `c`).
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
    #[cfg(feature = "c")]
    prefix: Option<String>,
    #[cfg(feature = "c")]
    layout: CLayout,
    runtime_path: String,
    out_dir: Option<PathBuf>,
    limits: Limits,
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

impl Config {
    /// Defaults: struct name from the file stem, runtime at `::tinyaot`, output to `$OUT_DIR`,
    /// the default [`Limits`] with the target's pointer width from Cargo when run by a build script
    /// ([`Limits::from_env`]).
    pub fn new() -> Self {
        Config {
            name: None,
            #[cfg(feature = "c")]
            prefix: None,
            #[cfg(feature = "c")]
            layout: CLayout::default(),
            runtime_path: "::tinyaot".to_string(),
            out_dir: None,
            limits: Limits::from_env(),
        }
    }

    /// Replaces all resource limits at once (see [`Limits`] for each one and its default).
    pub fn limits(&mut self, limits: Limits) -> &mut Self {
        self.limits = limits;
        self
    }

    /// Largest activation arena, and largest state region, in bytes (default 64 MiB).
    pub fn max_arena_bytes(&mut self, bytes: u64) -> &mut Self {
        self.limits.max_arena_bytes = bytes;
        self
    }

    /// Largest total size of the constant tensors (weights), in bytes (default 256 MiB).
    pub fn max_constant_bytes(&mut self, bytes: u64) -> &mut Self {
        self.limits.max_constant_bytes = bytes;
        self
    }

    /// Largest size of any one tensor, in bytes (default 256 MiB).
    pub fn max_tensor_bytes(&mut self, bytes: u64) -> &mut Self {
        self.limits.max_tensor_bytes = bytes;
        self
    }

    /// Most operators a model may have (default 100,000).
    pub fn max_operators(&mut self, count: usize) -> &mut Self {
        self.limits.max_operators = count;
        self
    }

    /// Most tensors a model may have (default 1,000,000).
    pub fn max_tensors(&mut self, count: usize) -> &mut Self {
        self.limits.max_tensors = count;
        self
    }

    /// The width of the target's `usize` in bits: 16, 32 or 64 (default: Cargo's
    /// `CARGO_CFG_TARGET_POINTER_WIDTH` in a build script, else 32). No size may exceed the
    /// target's `isize::MAX`; other widths are refused when generating.
    pub fn target_pointer_width(&mut self, bits: u32) -> &mut Self {
        self.limits.target_pointer_width = bits;
        self
    }

    /// The generated struct's name (default: the file stem in CamelCase, `person_detect` →
    /// `PersonDetect`).
    pub fn name(&mut self, name: impl Into<String>) -> &mut Self {
        self.name = Some(name.into());
        self
    }

    /// The C prefix of every generated file and name, for [`compile_c`](Self::compile_c) and
    /// [`generate_c`](Self::generate_c) (`net` → `net.h`, `net_invoke`, `NET_ARENA_BYTES`; default:
    /// the file stem with every character that is not a letter or digit replaced by `_`).
    #[cfg(feature = "c")]
    pub fn prefix(&mut self, prefix: impl Into<String>) -> &mut Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// The build-system files [`compile_c`](Self::compile_c) and
    /// [`generate_c`](Self::generate_c) add to the sources (default [`CLayout::CMake`]: a
    /// `CMakeLists.txt`; `tinyaot c --layout`).
    #[cfg(feature = "c")]
    pub fn layout(&mut self, layout: CLayout) -> &mut Self {
        self.layout = layout;
        self
    }

    /// The path of the runtime crate in generated code (default `::tinyaot`), for crates that
    /// rename or re-export it.
    pub fn runtime_path(&mut self, path: impl Into<String>) -> &mut Self {
        self.runtime_path = path.into();
        self
    }

    /// Where [`compile`](Self::compile) and [`compile_c`](Self::compile_c) write (default: the
    /// `OUT_DIR` Cargo gives build scripts).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Compiles `model` into `<out_dir>/<stem>.rs`, writing only when the content changed (so
    /// Cargo does not rebuild needlessly), and tells Cargo to rerun when the model changes.
    /// Returns the path of the generated file.
    ///
    /// The file is written whole or not at all, its constant data streamed from the model: while
    /// writing, SIGXFSZ is ignored if it has its default disposition, so that exceeding
    /// `ulimit -f` is an error rather than a silent death.
    pub fn compile(&self, model: impl AsRef<Path>) -> Result<PathBuf> {
        let model = model.as_ref();
        let out_dir = self.output_dir(model, "compile")?;
        let bytes = read_model(model)?;
        let stem = file_stem(model)?;
        let source = self.generate_source(&bytes, &stem)?;
        let path = out_dir.join(format!("{stem}.rs"));
        write_file(&path, &source).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }

    /// The Rust source for the model in `bytes`, whose file stem is `stem` (for the default name and
    /// the header). Pure: reads and writes nothing.
    pub fn generate(&self, bytes: &[u8], stem: &str) -> Result<String> {
        self.generate_source(bytes, stem).map(Source::into_string)
    }

    /// Compiles `model` into self-contained C99 sources in `out_dir`, the files `tinyaot c` writes:
    /// `<prefix>.h` (the API: `<prefix>_invoke`, `<prefix>_input`, `<prefix>_output`, sizes and
    /// quantization as macros), `<prefix>.c`, `<prefix>_kernels.h` and the kernel sources the model
    /// uses, then the [`layout`](Self::layout)'s build files (by default a `CMakeLists.txt`).
    /// Returns their paths in that order; compile the `.c` ones (with the `cc` crate, say) with
    /// `out_dir` on the include path. Tells Cargo to rerun when the model changes.
    ///
    /// The files are moved into place whole or not at all, and files an earlier run generated for
    /// the same prefix that this model no longer needs (a kernel it stopped using) are removed;
    /// other files in `out_dir` are left alone, and a build file of the same name that tinyaot did
    /// not generate is an error rather than overwritten.
    #[cfg(feature = "c")]
    pub fn compile_c(&self, model: impl AsRef<Path>) -> Result<Vec<PathBuf>> {
        let model = model.as_ref();
        let out_dir = self.output_dir(model, "compile_c")?;
        let bytes = read_model(model)?;
        let stem = file_stem(model)?;
        let options = self.c_options(&stem);
        let files = c_outputs_with_limits(&bytes, &options, &self.limits)?;
        let files = lay_out(self.layout, &options, files)?;
        crate::emit::c_dir::write_dir(&out_dir, &options.prefix, &files)?;
        Ok(files.iter().map(|(name, _)| out_dir.join(name)).collect())
    }

    /// The files [`compile_c`](Self::compile_c) writes for the model in `bytes`, whose file stem
    /// is `stem` (for the default prefix and the header comments), as `(path relative to the
    /// output directory, contents)` pairs in the order it returns them. Pure: reads and writes
    /// nothing.
    #[cfg(feature = "c")]
    pub fn generate_c(&self, bytes: &[u8], stem: &str) -> Result<Vec<(String, String)>> {
        let options = self.c_options(stem);
        let files = c_outputs_with_limits(bytes, &options, &self.limits)?;
        Ok(lay_out(self.layout, &options, files)?
            .into_iter()
            .map(|(name, source)| (name, source.into_string()))
            .collect())
    }

    /// The memory plan of the model in `bytes` under this configuration's limits: what
    /// `tinyaot plan` prints, and the arena and state sizes the generated code will have.
    pub fn plan<'m>(&self, bytes: &'m [u8]) -> Result<PlanReport<'m>> {
        plan_report(bytes, &self.limits)
    }

    /// The directory [`compile`](Self::compile) and [`compile_c`](Self::compile_c) (named by
    /// `method`, for the error) write into; in a build script, also tells Cargo to rerun when
    /// `model` changes.
    fn output_dir(&self, model: &Path, method: &str) -> Result<PathBuf> {
        let in_build_script = std::env::var_os("CARGO_MANIFEST_DIR").is_some()
            && std::env::var_os("OUT_DIR").is_some();
        if in_build_script {
            println!("cargo:rerun-if-changed={}", model.display());
        }
        match &self.out_dir {
            Some(dir) => Ok(dir.clone()),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| Error::Config {
                    detail: format!(
                        "OUT_DIR is not set: call Config::{method} from a build script, or set \
                         Config::out_dir"
                    ),
                }),
        }
    }

    #[cfg(feature = "c")]
    fn c_options(&self, stem: &str) -> COptions {
        COptions {
            prefix: self.prefix.clone().unwrap_or_else(|| default_prefix(stem)),
            source_name: format!("{stem}.tflite"),
        }
    }

    /// [`generate`](Self::generate) with the constant data left in `bytes` until the `Source` is
    /// written (what [`compile`](Self::compile) and the command line write).
    #[doc(hidden)] // For the CLI crate, which streams the output to a file of its own choosing.
    pub fn generate_source<'m>(&self, bytes: &'m [u8], stem: &str) -> Result<Source<'m>> {
        let options = RustOptions {
            name: self.name.clone().unwrap_or_else(|| camel_case(stem)),
            runtime_path: self.runtime_path.clone(),
            source_name: format!("{stem}.tflite"),
        };
        rust_output_with_limits(bytes, &options, &self.limits)
    }
}

/// A model's memory plan together with the model it was made for: what `tinyaot plan` prints, from
/// [`Config::plan`].
#[derive(Clone, Debug)]
pub struct PlanReport<'m> {
    graph: Graph<'m>,
    plan: MemoryPlan,
    /// Why the model does not compile, when it does not: its plan then has no kernel scratch
    /// memory (the lowering decides it), and says so.
    refusal: Option<String>,
}

impl PlanReport<'_> {
    /// The plan itself: arena and state sizes, the liveness lower bound, every tensor's placement.
    pub fn memory_plan(&self) -> &MemoryPlan {
        &self.plan
    }

    /// The plan as a table, one row per arena tensor (offset, size, lifetime), then the arena
    /// size, the lower bound and the state size: `tinyaot plan`'s default output.
    pub fn text(&self) -> String {
        let mut text = crate::plan::report::text(&self.graph, &self.plan);
        if let Some(why) = &self.refusal {
            text.push_str(&format!(
                "scratch:      not planned: the model does not compile ({why})\n"
            ));
        }
        text
    }

    /// Why the model does not compile, if it does not (the plan then leaves out kernel scratch
    /// memory, which the lowering decides).
    pub fn refusal(&self) -> Option<&str> {
        self.refusal.as_deref()
    }

    /// The plan as JSON (`tinyaot plan --format json`): `arena_bytes`, `lower_bound_bytes`,
    /// `state_bytes` and one object per arena tensor.
    pub fn json(&self) -> String {
        crate::plan::report::json(&self.graph, &self.plan)
    }

    /// The plan drawn as SVG (`tinyaot plan --svg FILE`): op step across, offset down, titled
    /// `title`.
    pub fn svg(&self, title: &str) -> String {
        crate::plan::report::svg(&self.graph, &self.plan, title)
    }
}

/// The whole pipeline for the Rust backend: load → plan → lower → emit.
pub fn rust_source(bytes: &[u8], options: &RustOptions) -> Result<String> {
    rust_output(bytes, options).map(Source::into_string)
}

/// [`rust_source`] with the constant data left in `bytes` until the [`Source`] is written.
pub(crate) fn rust_output<'m>(bytes: &'m [u8], options: &RustOptions) -> Result<Source<'m>> {
    rust_output_with_limits(bytes, options, &Limits::default())
}

/// [`rust_source`] under `limits` instead of the defaults, with the constant data left in `bytes`
/// until the [`Source`] is written.
pub fn rust_output_with_limits<'m>(
    bytes: &'m [u8],
    options: &RustOptions,
    limits: &Limits,
) -> Result<Source<'m>> {
    let (graph, calls, plan) = lower_and_plan(bytes, limits)?;
    crate::emit::rust::source(&graph, &Layout::from_plan(&graph, &plan), &calls, options)
}

/// The whole pipeline for the C backend: load → plan → lower → emit. Returns `(file name, contents)`
/// pairs — `<prefix>.h`, `<prefix>.c`, then the internal header and kernel sources (no build
/// files: [`Config::generate_c`] adds them); pure: reads and writes nothing.
#[cfg(feature = "c")]
pub fn c_sources(bytes: &[u8], options: &COptions) -> Result<Vec<(String, String)>> {
    Ok(c_outputs(bytes, options)?
        .into_iter()
        .map(|(name, source)| (name, source.into_string()))
        .collect())
}

/// [`c_sources`] with the constant data left in `bytes` until each [`Source`] is written.
#[cfg(feature = "c")]
pub(crate) fn c_outputs<'m>(
    bytes: &'m [u8],
    options: &COptions,
) -> Result<Vec<(String, Source<'m>)>> {
    c_outputs_with_limits(bytes, options, &Limits::default())
}

/// [`c_sources`] under `limits` instead of the defaults, with the constant data left in `bytes`
/// until each [`Source`] is written.
#[cfg(feature = "c")]
pub fn c_outputs_with_limits<'m>(
    bytes: &'m [u8],
    options: &COptions,
    limits: &Limits,
) -> Result<Vec<(String, Source<'m>)>> {
    let (graph, calls, plan) = lower_and_plan(bytes, limits)?;
    crate::emit::c::sources(&graph, &Layout::from_plan(&graph, &plan), &calls, options)
}

/// All of `tinyaot plan`: load under `limits`, lower (the kernels' scratch memory is part of the
/// plan), plan, and check the plan's arena and state sizes against `limits`. A model that loads
/// but does not compile is still planned, without scratch memory ([`PlanReport::refusal`]).
pub fn plan_model<'m>(bytes: &'m [u8], limits: &Limits) -> Result<(Graph<'m>, MemoryPlan)> {
    plan_report(bytes, limits).map(|report| (report.graph, report.plan))
}

fn plan_report<'m>(bytes: &'m [u8], limits: &Limits) -> Result<PlanReport<'m>> {
    let graph = crate::load::load_with_limits(bytes, limits)?;
    let (scratch, refusal) = match crate::lower::lower(&graph) {
        Ok(calls) => (crate::plan::scratch_requests(&calls), None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let plan = crate::plan::plan_graph_with_scratch(&graph, &scratch)?;
    limits.check_plan(&plan)?;
    Ok(PlanReport {
        graph,
        plan,
        refusal,
    })
}

/// The front half of both pipelines: load, lower (refusing what does not compile), plan with the
/// kernels' scratch memory, and check the sizes against `limits`.
fn lower_and_plan<'m>(
    bytes: &'m [u8],
    limits: &Limits,
) -> Result<(Graph<'m>, Vec<crate::lower::Call>, MemoryPlan)> {
    let graph = crate::load::load_with_limits(bytes, limits)?;
    let calls = crate::lower::lower(&graph)?;
    let scratch = crate::plan::scratch_requests(&calls);
    let plan = crate::plan::plan_graph_with_scratch(&graph, &scratch)?;
    limits.check_plan(&plan)?;
    Ok((graph, calls, plan))
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

/// Writes `contents` to `path` unless it already holds exactly that, whole or not at all
/// ([`crate::emit::files::write_file`]).
pub fn write_if_changed(path: &Path, contents: &[u8]) -> Result<()> {
    write_file(path, &Source::raw(contents))
        .map(|_| ())
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
}

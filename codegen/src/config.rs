//! The build.rs API: [`Config`] (Rust and C output, and the memory plan as [`PlanReport`]), and the
//! pure [`rust_source`] and [`c_sources`] under it that the macro and the command line share.

use std::path::{Path, PathBuf};

#[cfg(feature = "c")]
use crate::emit::c::{default_prefix, COptions};
#[cfg(feature = "c")]
use crate::emit::c_build::{lay_out, CLayout};
use crate::emit::files::write_file;
use crate::emit::group::kept_tensors;
use crate::emit::rust::{camel_case, RustOptions};
use crate::emit::{Layout, Source};
use crate::error::{Error, Result};
use crate::ir::Graph;
use crate::limits::Limits;
use crate::plan::{MemoryPlan, MemoryRegion};

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
    group_name: Option<String>,
    runtime_path: String,
    out_dir: Option<PathBuf>,
    limits: Limits,
    planning: Planning,
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
            group_name: None,
            runtime_path: "::tinyaot".to_string(),
            out_dir: None,
            limits: Limits::from_env(),
            planning: Planning::default(),
        }
    }

    /// Whether the planner may overlap an operator's output with an input that dies at that
    /// operator, where the kernel's access contract allows it (default `true`): in place for
    /// element-wise operators, and convolutions' outputs written over the input rows they have
    /// finished reading ([`crate::plan::Overlap`]). The arena then goes below the liveness bound.
    /// `overlap(false)` keeps every tensor's bytes intact until its last reader has finished (the
    /// bound-only plan, and kernels' plain paths), at the cost of the bound-sized arena. Either
    /// way a graph input's bytes may be reused once its last reader has run, as in TFLM: the
    /// generated `invoke` docs say when, and the input must be written again before each
    /// `invoke`.
    pub fn overlap(&mut self, on: bool) -> &mut Self {
        self.planning.overlap = on;
        self
    }

    /// Whether the operators may run in another order than the model file's when that lowers the
    /// memory peak (default `true`): where a graph has parallel branches, an order that finishes
    /// one branch before starting the next can keep fewer bytes alive at once
    /// ([`crate::plan::memory_order`]). Any order that runs each operator after the producers of
    /// its inputs computes the same outputs; the generated comments, operator hooks and messages
    /// keep naming operators by their index in the file. `reorder(false)` (`--keep-order`) runs
    /// them in the file's order.
    pub fn reorder(&mut self, on: bool) -> &mut Self {
        self.planning.reorder = on;
        self
    }

    /// Sets [`overlap`](Self::overlap), [`reorder`](Self::reorder) and the
    /// [`memory_region`](Self::memory_region)s at once.
    pub fn planning(&mut self, planning: Planning) -> &mut Self {
        self.planning = planning;
        self
    }

    /// Adds a memory region besides the arena (call it once per region, fastest first): `name`
    /// (a lower-case identifier), at most `bytes` of it, and the linker `section` its static goes
    /// to. The planner moves the activations with the most accesses per byte there, as many as
    /// fit over time ([`crate::plan::plan_graph_in_regions`]): on a Cortex-M7, say,
    /// `memory_region("dtcm", 64 * 1024, ".dtcm")` for the zero-wait-state DTCM beside the AXI
    /// SRAM. The generated code gets one static per region: in Rust a
    /// `#[link_section = "<section>"]` `tinyaot::RegionCell` the model takes at construction
    /// (`Model::take()`, or `Model::new(&mut region)` for memory you place yourself), in C a
    /// `<prefix>_region_<name>` buffer with `__attribute__((section("<section>")))` and its size
    /// in `<PREFIX>_REGION_<NAME>_BYTES`. The linker script
    /// must map the section to the memory; its contents need not be initialised (the model
    /// writes every byte before reading it), but in Rust the `RegionCell`'s flag lives in the
    /// section too: initialise the section like `.bss` (zero) or `.data`. Not for a group of
    /// models ([`compile_group`](Self::compile_group)).
    pub fn memory_region(
        &mut self,
        name: impl Into<String>,
        bytes: usize,
        section: impl Into<String>,
    ) -> &mut Self {
        self.planning.regions.push(MemoryRegion {
            name: name.into(),
            capacity: bytes,
            section: section.into(),
        });
        self
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

    /// The name of a group of models ([`compile_group`](Self::compile_group)): the group's struct
    /// in Rust (default `Models`, written to `<out_dir>/models.rs`) and its C prefix (default
    /// `models`: `models.h`, `models_arena`, `MODELS_SHARED_BYTES`).
    pub fn group_name(&mut self, name: impl Into<String>) -> &mut Self {
        self.group_name = Some(name.into());
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
        let files = c_outputs_with(&bytes, &options, &self.limits, &self.planning)?;
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
        let files = c_outputs_with(bytes, &options, &self.limits, &self.planning)?;
        Ok(lay_out(self.layout, &options, files)?
            .into_iter()
            .map(|(name, source)| (name, source.into_string()))
            .collect())
    }

    /// The memory plan of the model in `bytes` under this configuration's limits: what
    /// `tinyaot plan` prints, and the arena and state sizes the generated code will have.
    pub fn plan<'m>(&self, bytes: &'m [u8]) -> Result<PlanReport<'m>> {
        plan_report(bytes, &self.limits, &self.planning)
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
        rust_output_with(bytes, &options, &self.limits, &self.planning)
    }
}

/// One model of a group compiled into one shared arena by [`Config::compile_group`] and
/// [`Config::compile_group_c`]: its file, its names, and what it keeps out of the shared arena.
///
/// ```no_run
/// // build.rs: a wake-word detector and the command recogniser it wakes, run one after another.
/// use tinyaot_codegen::{Config, GroupModel};
/// Config::new().compile_group(&[
///     GroupModel::new("models/kws.tflite").name("Kws").keep("output0"),
///     GroupModel::new("models/cmd.tflite").name("Cmd"),
/// ])?; // writes $OUT_DIR/models.rs: `Models`, with `kws()` and `cmd()`
/// # Ok::<(), tinyaot_codegen::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct GroupModel {
    path: PathBuf,
    name: Option<String>,
    prefix: Option<String>,
    keep: Vec<String>,
}

impl GroupModel {
    /// The model in the file `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        GroupModel {
            path: path.into(),
            name: None,
            prefix: None,
            keep: Vec::new(),
        }
    }

    /// Its handle's name in Rust (default: the file stem in CamelCase); the group's accessor for
    /// it is the name in snake case (`Kws` → `kws()`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Its C prefix (default: the file stem, sanitized): `kws` → `kws.h`, `kws_invoke()`.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Keeps an input or output out of the shared arena, so that it survives the other models'
    /// invokes: `input<i>`, `output<i>`, `inputs` (all of them) or `outputs`. Without it, invoking
    /// another model of the group may overwrite it.
    pub fn keep(mut self, io: impl Into<String>) -> Self {
        self.keep.push(io.into());
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn stem(&self) -> Result<String> {
        file_stem(&self.path)
    }

    fn rust_name(&self) -> Result<String> {
        Ok(self.name.clone().unwrap_or(camel_case(&self.stem()?)))
    }

    /// The model's C prefix, which also names it in the group's plan.
    #[cfg(feature = "c")]
    fn c_prefix(&self) -> Result<String> {
        Ok(self.prefix.clone().unwrap_or(default_prefix(&self.stem()?)))
    }

    /// Without the C backend the plan names the model by its prefix if one is set, else by its
    /// file stem.
    #[cfg(not(feature = "c"))]
    fn c_prefix(&self) -> Result<String> {
        self.prefix.clone().map_or_else(|| self.stem(), Ok)
    }

    fn source_name(&self) -> String {
        self.path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("model.tflite")
            .to_string()
    }
}

impl Config {
    /// Compiles several models that run one after another into one Rust file,
    /// `<out_dir>/<group>.rs` (the [`group_name`](Self::group_name) in snake case): a struct
    /// (default `Models`) owning ONE buffer — a shared arena as large as the largest of the
    /// models' arenas, then each model's own state and kept inputs and outputs — with an accessor
    /// per model (`models.kws()`) that borrows it and returns a handle with a single model's API
    /// (`input0_mut`, `output0`, `invoke`, `reset`, `tinyaot::Model`).
    ///
    /// Invoking one model overwrites the shared arena: the other models' inputs and outputs with
    /// it, except those declared with [`GroupModel::keep`]. The borrow checker keeps a reference
    /// into one model's inputs or outputs from living across another model's invoke; a kept
    /// output can be read again (`models.kws().output0()`) after the others ran. Each model's
    /// state is its own and survives the others' invokes. Written whole or not at all; a model
    /// that is refused is an error naming it, and nothing is written.
    pub fn compile_group(&self, models: &[GroupModel]) -> Result<PathBuf> {
        let out_dir = self.group_output_dir(models, "compile_group")?;
        let source = self.generate_group(models)?;
        let path = out_dir.join(format!(
            "{}.rs",
            crate::emit::rust::accessor_name(&self.rust_group_name())
        ));
        write_if_changed(&path, source.as_bytes())?;
        Ok(path)
    }

    /// The Rust source [`compile_group`](Self::compile_group) writes, reading the models' files
    /// and writing nothing.
    pub fn generate_group(&self, models: &[GroupModel]) -> Result<String> {
        let bytes = read_group(models)?;
        let group = self.rust_group_name();
        let names = models
            .iter()
            .map(GroupModel::rust_name)
            .collect::<Result<Vec<_>>>()?;
        let (compiled, layout) = self.compile_members(models, &bytes, names, &group, true)?;
        let members: Vec<_> = compiled
            .iter()
            .zip(models)
            .map(
                |((name, graph, calls), model)| crate::emit::rust::RustMember {
                    graph,
                    calls,
                    options: RustOptions {
                        name: name.clone(),
                        runtime_path: self.runtime_path.clone(),
                        source_name: model.source_name(),
                    },
                    keep: model.keep.clone(),
                },
            )
            .collect();
        crate::emit::rust::group_source(&group, &self.runtime_path, &members, &layout)
            .map(Source::into_string)
    }

    /// Compiles several models that run one after another into C sharing one buffer, in
    /// `out_dir`: `<group>.h` and `<group>.c` (the [`group_name`](Self::group_name), default
    /// `models`: the buffer `models_arena`, `MODELS_SHARED_BYTES`, `MODELS_MEMORY_BYTES`,
    /// `models_reset()`), then each model's files as [`compile_c`](Self::compile_c) writes them
    /// under its [`GroupModel::prefix`], its `.c` addressing the group's buffer. What
    /// [`compile_group`](Self::compile_group) says of the shared arena, the state and kept
    /// inputs and outputs holds here too. Returns the paths, the group's files first.
    #[cfg(feature = "c")]
    pub fn compile_group_c(&self, models: &[GroupModel]) -> Result<Vec<PathBuf>> {
        let out_dir = self.group_output_dir(models, "compile_group_c")?;
        let bytes = read_group(models)?;
        let (files, prefixes) = self.group_c_outputs(models, &bytes)?;
        let prefixes: Vec<&str> = prefixes.iter().map(String::as_str).collect();
        crate::emit::c_dir::write_group_dir(&out_dir, &self.c_group_name(), &prefixes, &files)?;
        Ok(files.iter().map(|(name, _)| out_dir.join(name)).collect())
    }

    /// The C sources [`compile_group_c`](Self::compile_group_c) writes, as `(file name,
    /// contents)` pairs, reading the models' files and writing nothing.
    #[cfg(feature = "c")]
    pub fn generate_group_c(&self, models: &[GroupModel]) -> Result<Vec<(String, String)>> {
        let bytes = read_group(models)?;
        Ok(self
            .group_c_outputs(models, &bytes)?
            .0
            .into_iter()
            .map(|(name, source)| (name, source.into_string()))
            .collect())
    }

    /// The memory plans of several models sharing one arena, and the group's sizes: what
    /// `tinyaot plan A B` prints. A model that does not compile is planned without scratch
    /// memory, as [`plan`](Self::plan) does.
    pub fn plan_group(&self, models: &[GroupModel]) -> Result<GroupPlan> {
        let bytes = read_group(models)?;
        let mut entries = Vec::new();
        let mut layouts = Vec::new();
        let mut names = Vec::new();
        for (model, bytes) in models.iter().zip(&bytes) {
            let name = model.c_prefix()?;
            let report =
                plan_report(bytes, &self.limits, &self.planning).map_err(|e| in_model(&name, e))?;
            let keep = kept_tensors(&report.graph, &model.keep, &name)?;
            layouts.push((Layout::from_plan(&report.graph, &report.plan), keep));
            entries.push((
                name.clone(),
                model.source_name(),
                report.text(),
                report.json(),
            ));
            names.push(name);
        }
        check_names(&self.c_group_name(), models, &names, false)?;
        let layout = crate::emit::group::layout(layouts, &self.limits)?;
        Ok(GroupPlan {
            group: self.c_group_name(),
            entries,
            layout,
        })
    }

    #[cfg(feature = "c")]
    fn group_c_outputs<'m>(
        &self,
        models: &[GroupModel],
        bytes: &'m [Vec<u8>],
    ) -> Result<(CFiles<'m>, Vec<String>)> {
        let group = self.c_group_name();
        let prefixes = models
            .iter()
            .map(GroupModel::c_prefix)
            .collect::<Result<Vec<_>>>()?;
        let (compiled, layout) =
            self.compile_members(models, bytes, prefixes.clone(), &group, false)?;
        let members: Vec<_> = compiled
            .iter()
            .zip(models)
            .map(
                |((prefix, graph, calls), model)| crate::emit::c_group::CMember {
                    graph,
                    calls,
                    options: COptions {
                        prefix: prefix.clone(),
                        source_name: model.source_name(),
                    },
                },
            )
            .collect();
        let files = crate::emit::c_group::group_sources(&group, &members, &layout)?;
        Ok((files, prefixes))
    }

    /// Lowers and plans each model of a group (named by `names`: Rust names or C prefixes, as
    /// `rust` says), checks the names, and lays out the group's buffer.
    #[allow(clippy::type_complexity)]
    fn compile_members<'m>(
        &self,
        models: &[GroupModel],
        bytes: &'m [Vec<u8>],
        names: Vec<String>,
        group: &str,
        rust: bool,
    ) -> Result<(
        Vec<(String, Graph<'m>, Vec<crate::lower::Call>)>,
        crate::emit::group::GroupLayout,
    )> {
        let mut compiled = Vec::new();
        let mut layouts = Vec::new();
        for ((model, bytes), name) in models.iter().zip(bytes).zip(names) {
            let named = |e| in_model(&name, e);
            let (graph, calls, plan) =
                lower_and_plan(bytes, &self.limits, &self.planning).map_err(named)?;
            let keep = kept_tensors(&graph, &model.keep, &name)?;
            layouts.push((Layout::from_plan(&graph, &plan), keep));
            compiled.push((name, graph, calls));
        }
        let names: Vec<String> = compiled.iter().map(|c| c.0.clone()).collect();
        check_names(group, models, &names, rust)?;
        let layout = crate::emit::group::layout(layouts, &self.limits)?;
        Ok((compiled, layout))
    }

    fn rust_group_name(&self) -> String {
        self.group_name
            .clone()
            .unwrap_or_else(|| "Models".to_string())
    }

    fn c_group_name(&self) -> String {
        self.group_name
            .clone()
            .unwrap_or_else(|| "models".to_string())
    }

    /// [`output_dir`](Self::output_dir) for every model of a group.
    fn group_output_dir(&self, models: &[GroupModel], method: &str) -> Result<PathBuf> {
        let mut dir = Err(no_models());
        for model in models {
            dir = Ok(self.output_dir(&model.path, method)?);
        }
        dir
    }
}

/// Generated C files: `(file name, contents)`.
#[cfg(feature = "c")]
type CFiles<'m> = Vec<(String, Source<'m>)>;

/// The memory plans of a group of models and the group's sizes, from [`Config::plan_group`].
#[derive(Clone, Debug)]
pub struct GroupPlan {
    group: String,
    /// Per model: its name, its file name, and its plan as text and as JSON.
    entries: Vec<(String, String, String, String)>,
    layout: crate::emit::group::GroupLayout,
}

impl GroupPlan {
    /// Bytes of the shared arena: the largest of the models' arenas, 16-byte aligned.
    pub fn shared_bytes(&self) -> usize {
        self.layout.shared_bytes
    }

    /// Bytes of the group's whole buffer: the shared arena, then each model's state and kept
    /// inputs and outputs.
    pub fn memory_bytes(&self) -> usize {
        self.layout.memory_bytes
    }

    /// What the models take as separate models: the sum of their arenas and states.
    pub fn separate_bytes(&self) -> usize {
        self.layout
            .members
            .iter()
            .map(|m| m.layout.arena_bytes + m.layout.state_bytes)
            .sum()
    }

    /// Every model's plan (as [`PlanReport::text`]), then the group's sizes.
    pub fn text(&self) -> String {
        let mut text = String::new();
        for (name, file, plan, _) in &self.entries {
            text.push_str(&format!("== {name} ({file})\n{plan}\n"));
        }
        text.push_str(&format!(
            "== group {}: {} models run one after another, sharing one arena\n",
            self.group,
            self.entries.len()
        ));
        for ((name, ..), m) in self.entries.iter().zip(&self.layout.members) {
            text.push_str(&format!(
                "{name}: arena {} bytes, state {} bytes, kept {} bytes\n",
                m.layout.arena_bytes, m.layout.state_bytes, m.kept_bytes
            ));
        }
        text.push_str(&format!(
            "shared arena: {} bytes (the largest arena)\n\
             group memory: {} bytes (shared arena, states, kept inputs and outputs)\n\
             separately:   {} bytes (the sum of the models' arenas and states)\n",
            self.shared_bytes(),
            self.memory_bytes(),
            self.separate_bytes()
        ));
        text
    }

    /// Every model's plan (as [`PlanReport::json`]) under `models`, and the group's sizes.
    pub fn json(&self) -> String {
        let string = crate::plan::report::json::string;
        let mut json = format!("{{\"group\": {}, \"models\": [", string(&self.group));
        for (i, ((name, file, _, plan), m)) in
            self.entries.iter().zip(&self.layout.members).enumerate()
        {
            if i > 0 {
                json.push_str(", ");
            }
            json.push_str(&format!(
                "{{\"name\": {}, \"file\": {}, \"state_base\": {}, \
                 \"kept_bytes\": {}, \"plan\": {}}}",
                string(name),
                string(file),
                m.layout.state_base,
                m.kept_bytes,
                plan.trim_end()
            ));
        }
        json.push_str(&format!(
            "], \"shared_arena_bytes\": {}, \"memory_bytes\": {}, \"separate_bytes\": {}}}\n",
            self.shared_bytes(),
            self.memory_bytes(),
            self.separate_bytes()
        ));
        json
    }
}

fn no_models() -> Error {
    Error::Config {
        detail: "a group needs at least one model".to_string(),
    }
}

fn in_model(name: &str, error: Error) -> Error {
    Error::InModel {
        model: name.to_string(),
        error: Box::new(error),
    }
}

/// Reads every model of a group; an empty group is an error.
fn read_group(models: &[GroupModel]) -> Result<Vec<Vec<u8>>> {
    if models.is_empty() {
        return Err(no_models());
    }
    models.iter().map(|m| read_model(&m.path)).collect()
}

/// Refuses a group whose models' names (Rust handle names when `rust`, else C prefixes) repeat
/// one another or the group's.
fn check_names(group: &str, models: &[GroupModel], names: &[String], rust: bool) -> Result<()> {
    for (i, name) in names.iter().enumerate() {
        let file = models[i].path.display();
        if name == group {
            return Err(Error::Config {
                detail: format!(
                    "model `{name}` ({file}) has the group's name: give the group another \
                     (group_name, --group) or the model another (name/prefix, --name/--prefix)"
                ),
            });
        }
        let key = |n: &str| {
            if rust {
                crate::emit::rust::accessor_name(n)
            } else {
                n.to_string()
            }
        };
        if rust && ["new", "reset", "default"].contains(&key(name).as_str()) {
            return Err(Error::Config {
                detail: format!(
                    "model `{name}` ({file}): its accessor `{}()` is a method of the group \
                     already; give the model another name",
                    key(name)
                ),
            });
        }
        // A model's Rust modules are `__tinyaot_<snake case>` and `…_constants`, the group's
        // `__tinyaot_group_<snake case>`: `Kws` and `KwsConstants` would collide, and so would a
        // model `GroupModels` with the group `Models`.
        let modules = |n: &str| {
            let snake = crate::emit::rust::accessor_name(n);
            [snake.clone(), format!("{snake}_constants")]
        };
        let group_module = format!("group_{}", crate::emit::rust::accessor_name(group));
        if rust && modules(name).contains(&group_module) {
            return Err(Error::Config {
                detail: format!(
                    "model `{name}` ({file}): its Rust module would be the group's \
                     (`__tinyaot_{group_module}`); give the model or the group another name"
                ),
            });
        }
        let clash = |n: &str| {
            key(n) == key(name) || (rust && modules(n).iter().any(|m| modules(name).contains(m)))
        };
        if let Some(j) = names[..i].iter().position(|n| clash(n)) {
            let same = if key(&names[j]) == key(name) {
                format!("the same name `{name}`")
            } else {
                format!(
                    "names `{}` and `{name}` that clash in the generated Rust modules",
                    names[j]
                )
            };
            return Err(Error::Config {
                detail: format!(
                    "models {} and {file} have {same}: give each a name of its own \
                     (name/prefix, --name/--prefix)",
                    models[j].path.display()
                ),
            });
        }
    }
    Ok(())
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
    /// The lowered calls, one per operator of `graph` in its order, when the model compiles.
    calls: Option<Vec<crate::lower::Call>>,
}

impl<'m> PlanReport<'m> {
    /// The plan itself: arena and state sizes, the liveness lower bound, every tensor's placement.
    pub fn memory_plan(&self) -> &MemoryPlan {
        &self.plan
    }

    /// The graph as planned: its operators in execution order, each with its index in the file
    /// ([`crate::ir::Operator::source_index`]), which may differ ([`Config::reorder`]).
    pub fn graph(&self) -> &Graph<'m> {
        &self.graph
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

    /// The kernel calls the plan was made with, one per operator of [`graph`](Self::graph) in
    /// its order (`None` when the model does not compile): which kernel variant each operator
    /// runs, for `tinyaot report`.
    #[doc(hidden)] // The lowering's types are not a stable API.
    pub fn calls(&self) -> Option<&[crate::lower::Call]> {
        self.calls.as_deref()
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
    rust_output_with(bytes, options, limits, &Planning::default())
}

/// [`rust_output_with_limits`], planned as `planning` says (with or without overlaps, in the
/// file's order or the one with the lowest peak).
pub fn rust_output_with<'m>(
    bytes: &'m [u8],
    options: &RustOptions,
    limits: &Limits,
    planning: &Planning,
) -> Result<Source<'m>> {
    let (graph, calls, plan) = lower_and_plan(bytes, limits, planning)?;
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
    c_outputs_with(bytes, options, limits, &Planning::default())
}

/// [`c_outputs_with_limits`], planned as `planning` says.
#[cfg(feature = "c")]
pub fn c_outputs_with<'m>(
    bytes: &'m [u8],
    options: &COptions,
    limits: &Limits,
    planning: &Planning,
) -> Result<Vec<(String, Source<'m>)>> {
    let (graph, calls, plan) = lower_and_plan(bytes, limits, planning)?;
    crate::emit::c::sources(&graph, &Layout::from_plan(&graph, &plan), &calls, options)
}

/// Loads `bytes` under `limits` and folds the operators whose inputs are all constant
/// ([`crate::fold`]): the graph every front end plans, lowers and emits.
pub fn load_and_fold<'m>(bytes: &'m [u8], limits: &Limits) -> Result<Graph<'m>> {
    let mut graph = crate::load::load_with_limits(bytes, limits)?;
    crate::fold::fold_constants(&mut graph, limits)?;
    Ok(graph)
}

/// All of `tinyaot plan`: load under `limits`, lower (the kernels' scratch memory is part of the
/// plan), plan, and check the plan's arena and state sizes against `limits`. A model that loads
/// but does not compile is still planned, without scratch memory ([`PlanReport::refusal`]).
pub fn plan_model<'m>(bytes: &'m [u8], limits: &Limits) -> Result<(Graph<'m>, MemoryPlan)> {
    plan_report(bytes, limits, &Planning::default()).map(|report| (report.graph, report.plan))
}

fn plan_report<'m>(
    bytes: &'m [u8],
    limits: &Limits,
    planning: &Planning,
) -> Result<PlanReport<'m>> {
    let graph = load_and_fold(bytes, limits)?;
    let (calls, refusal) = match crate::lower::lower(&graph) {
        Ok(calls) => (Some(calls), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let (graph, calls, plan) = plan_in_order(graph, calls, planning)?;
    limits.check_memory(plan.arena_bytes, plan.state_bytes)?;
    Ok(PlanReport {
        graph,
        plan,
        refusal,
        calls,
    })
}

/// The front half of both pipelines: load, lower (refusing what does not compile), plan with the
/// kernels' scratch memory, and check the sizes against `limits`.
fn lower_and_plan<'m>(
    bytes: &'m [u8],
    limits: &Limits,
    planning: &Planning,
) -> Result<(Graph<'m>, Vec<crate::lower::Call>, MemoryPlan)> {
    let graph = load_and_fold(bytes, limits)?;
    let calls = crate::lower::lower(&graph)?;
    let (graph, calls, plan) = plan_in_order(graph, Some(calls), planning)?;
    limits.check_memory(plan.arena_bytes, plan.state_bytes)?;
    Ok((graph, calls.unwrap_or_default(), plan))
}

/// Plans `graph` with its lowered `calls` (their scratch memory and, with overlaps, their access
/// contracts; `None`: a graph that does not lower, planned without them) in the file's order,
/// and, when `planning.reorder` (and the graph has no inlined IF) and
/// [`crate::plan::memory_order`] finds an order with a lower
/// liveness peak, in that order too: the reordered graph, calls and plan are returned when its
/// RAM besides the state (the arena and the memory regions) is smaller, the file's otherwise.
fn plan_in_order<'m>(
    graph: Graph<'m>,
    calls: Option<Vec<crate::lower::Call>>,
    planning: &Planning,
) -> Result<(Graph<'m>, Option<Vec<crate::lower::Call>>, MemoryPlan)> {
    let plan_of = |graph: &Graph, calls: &Option<Vec<crate::lower::Call>>| match calls {
        Some(calls) => {
            crate::plan::plan_graph_in_regions(graph, calls, planning.overlap, &planning.regions)
        }
        None => crate::plan::plan_graph(graph),
    };
    let plan = plan_of(&graph, &calls)?;
    // A model with an inlined IF keeps the file's order (branches inlined at the IF's place):
    // each branch stays one block of `if … else …` in the generated code, and the plan report's
    // branch spans stay whole. (Any order the reordering finds would be correct: a branch's
    // steps read its condition, so they stay after it.)
    let branched = graph.operators.iter().any(|op| op.branch.is_some());
    let order = if planning.reorder && !branched {
        crate::plan::memory_order(&graph)
    } else {
        None
    };
    let Some(order) = order else {
        return Ok((graph, calls, plan));
    };
    let reordered_graph = crate::plan::reordered(graph.clone(), &order);
    // Calls are made per operator and name tensors, not operators, except for their position.
    let reordered_calls = calls.as_ref().map(|calls| {
        order
            .iter()
            .enumerate()
            .map(|(position, &i)| crate::lower::Call {
                op: position,
                kind: calls[i].kind.clone(),
            })
            .collect::<Vec<_>>()
    });
    let reordered_plan = plan_of(&reordered_graph, &reordered_calls)?;
    // RAM besides the state: the arena and the memory regions.
    let ram = |plan: &MemoryPlan| {
        plan.memory_regions
            .iter()
            .fold(plan.arena_bytes, |sum, u| sum.saturating_add(u.bytes))
    };
    if ram(&reordered_plan) < ram(&plan) {
        Ok((reordered_graph, reordered_calls, reordered_plan))
    } else {
        Ok((graph, calls, plan))
    }
}

/// How the memory is planned: [`Config::overlap`] and [`Config::reorder`] (both on by default),
/// and [`Config::memory_region`] (none by default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planning {
    /// Let outputs overlap dying inputs where the kernels' contracts allow it.
    pub overlap: bool,
    /// Run the operators in another order than the file's when that lowers the memory peak.
    pub reorder: bool,
    /// Memory regions besides the arena, fastest first, that take the activations with the most
    /// accesses per byte ([`crate::plan::plan_graph_in_regions`]).
    pub regions: Vec<MemoryRegion>,
}

impl Default for Planning {
    fn default() -> Self {
        Planning {
            overlap: true,
            reorder: true,
            regions: Vec::new(),
        }
    }
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

//! The C backend: the plan and the lowered calls rendered through the tera templates of
//! `templates/c/` (embedded, so the `tinyaot` binary needs no files beside it) into self-contained
//! C99: `<prefix>.h` (the API), `<prefix>.c` (arena, weights, parameters, `invoke`),
//! `<prefix>_kernels.h` (internal: fixed-point math, parameter structs, kernel prototypes) and one
//! `<prefix>_<module>.c` per kernel module the model uses, holding only the functions it calls.
//!
//! Constant data never goes through the templates: each constant's initializer is rendered as a
//! placeholder and the data spliced in as the file is written ([`Source`]), so a model of hundreds
//! of megabytes costs about its own size in memory, not several times that in strings.
//!
//! Every name the generated code defines starts with the prefix, so several models link into one
//! program. The code needs `<stdint.h>` and `<stddef.h>` only: no malloc, no stdio, no libm (the float
//! transcendentals are computed as the Rust runtime computes them).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::Arc;

use tera::{Context, Map, Tera, Value};

use super::c_data::{self, comment, f32_literal, shape_text};
use super::c_decl::{tensor_view, Decls, Naming};
use super::source::{Bytes, Encoding};
use super::{io_tensors, Layout, Source};
use crate::error::{Error, Result};
use crate::ir::{DType, Graph};
use crate::lower::{Call, CallKind, KernelCall, Operand, Packed};

pub use super::c_data::default_prefix;

/// What the C backend needs besides the model.
#[derive(Clone, Debug)]
pub struct COptions {
    /// Prefix of every generated file and C name (`net` → `net.h`, `net_invoke`, `NET_ARENA_BYTES`).
    pub prefix: String,
    /// The model's file name, for the header comments.
    pub source_name: String,
}

/// A generated file: its name (no directory) and contents.
pub type CFile = (String, String);

/// `(name, header template, source template)` of a kernel module, embedded.
macro_rules! module {
    ($name:ident) => {
        (
            stringify!($name),
            include_str!(concat!(
                "../../templates/c/kernels/",
                stringify!($name),
                ".h.tera"
            )),
            include_str!(concat!(
                "../../templates/c/kernels/",
                stringify!($name),
                ".c.tera"
            )),
        )
    };
}

/// Makes [`MODULES`] from the operator registry's list ([`crate::lower::ops::families`]): every
/// family with a kernel, and the support modules the emitters call themselves.
macro_rules! c_modules {
    (
        kernels: [$($kernel:ident),* $(,)?],
        aliases: [$($alias:ident),* $(,)?],
        support: [$($support:ident),* $(,)?],
        c_parts: [$($part:literal),* $(,)?] $(,)?
    ) => {
        /// The kernel modules the C backend has: name, header template, source template. The
        /// module names are the Rust runtime's (`tinyaot::kernels::<module>`), which the lowering
        /// names in each call.
        const MODULES: &[(&str, &str, &str)] = &[$(module!($kernel),)* $(module!($support),)*];

        /// The parts of the source templates of the families that are folders: the name
        /// `<family>/<part>.c` under which `<family>.c.tera` includes
        /// `templates/c/kernels/<family>/<part>.c.tera`, and the template.
        const PARTS: &[(&str, &str)] = &[$((
            concat!($part, ".c"),
            include_str!(concat!("../../templates/c/kernels/", $part, ".c.tera")),
        ),)*];
    };
}
crate::lower::ops::families!(c_modules);

/// `(name, template)` of a part of the shared header `kernels.h`, embedded.
macro_rules! kernels_h_part {
    ($part:literal) => {
        (
            concat!("kernels_h/", $part, ".h"),
            include_str!(concat!("../../templates/c/kernels_h/", $part, ".h.tera")),
        )
    };
}

const PUBLIC_HEADER: &str = include_str!("../../templates/c/model.h.tera");
const MODEL_SOURCE: &str = include_str!("../../templates/c/model.c.tera");
const KERNELS_HEADER: &str = include_str!("../../templates/c/kernels.h.tera");

/// The parts of [`KERNELS_HEADER`], which it includes in this order: the name `kernels_h/<part>.h`
/// under which it includes `templates/c/kernels_h/<part>.h.tera`, and the template.
const KERNELS_HEADER_PARTS: &[(&str, &str)] = &[
    kernels_h_part!("math"),
    kernels_h_part!("dot"),
    kernels_h_part!("requant"),
    kernels_h_part!("elements"),
    kernels_h_part!("fixed_point"),
    kernels_h_part!("float_math"),
    kernels_h_part!("logistic_tanh"),
    kernels_h_part!("window"),
];

/// Renders the model as C source files, the public header first and the model source second, each
/// in one `String`; [`sources`] is the streaming form.
pub fn generate(
    graph: &Graph,
    layout: &Layout,
    calls: &[Call],
    options: &COptions,
) -> Result<Vec<CFile>> {
    Ok(sources(graph, layout, calls, options)?
        .into_iter()
        .map(|(name, source)| (name, source.into_string()))
        .collect())
}

/// Stands for a constant's initializer in the rendered model source. Nothing else in the output can
/// contain it: model-derived text reaches the C only through [`comment`] (printable ASCII) or as
/// identifiers and numbers, none of which holds a NUL.
const DATA_PLACEHOLDER: &str = "\0tinyaot-constant-data\0";

/// The files of [`generate`], in the same order and byte for byte the same, with constant data
/// written only when each [`Source`] is.
pub fn sources<'m>(
    graph: &Graph<'m>,
    layout: &Layout,
    calls: &[Call],
    options: &COptions,
) -> Result<Vec<(String, Source<'m>)>> {
    sources_in(graph, layout, calls, options, None)
}

/// [`sources`] for a model of its own (`group` `None`), or for a model of the group whose prefix
/// is `group` ([`super::c_group`]): its `.c` then addresses the group's arena, `<group>_arena`,
/// instead of defining one of its own.
pub(super) fn sources_in<'m>(
    graph: &Graph<'m>,
    layout: &Layout,
    calls: &[Call],
    options: &COptions,
    group: Option<&str>,
) -> Result<Vec<(String, Source<'m>)>> {
    c_data::check_prefix(&options.prefix)?;
    let prefix = options.prefix.as_str();
    let tera = templates()?;

    let used = used_kernels(layout, calls)?;
    let (module_headers, decls) = declarations(tera, prefix, graph, calls, &used)?;
    let arena_name = format!("{}_arena", group.unwrap_or(prefix));
    let emitter = Emitter {
        graph,
        layout,
        prefix,
        arena_name: &arena_name,
        decls,
        packed: RefCell::new(Vec::new()),
        arena_used: std::cell::Cell::new(false),
    };
    let mut constants = BTreeSet::new();
    let mut params = String::new();
    let mut each = Vec::new();
    for call in calls {
        each.push(emitter.step(call, &mut params, &mut constants)?);
    }
    // The steps of an IF's branches run under its condition, indented inside its block: a run of
    // the then branch's steps followed by a run of the else branch's is one `if … else …`.
    let mut steps = Vec::new();
    for run in super::branch_runs(graph, calls)? {
        // A WHILE's loop: its steps indented inside `for (;;)`, which its exit leaves (a
        // controlling expression left out is no constant one that C11 lets a compiler assume
        // ends).
        if run.looped.is_some() {
            let mut block: Vec<Value> = each[run.steps].to_vec();
            block[0]["open"] = "    for (;;) {".into();
            if let Some(last) = block.last_mut() {
                last["close"] = "    }".into();
            }
            for step in &mut block {
                step["pad"] = "    ".into();
            }
            steps.extend(block);
            continue;
        }
        let Some((cond, taken)) = run.guard else {
            steps.extend(each[run.steps].iter().cloned());
            continue;
        };
        let mut block: Vec<Value> = each[run.steps.clone()].to_vec();
        block[0]["open"] = format!("    if ({}) {{", emitter.condition(cond, taken)?).into();
        if let Some(otherwise) = run.otherwise.clone() {
            let first = block.len();
            block.extend(each[otherwise].iter().cloned());
            block[first]["open"] = "    } else {".into();
        }
        if let Some(last) = block.last_mut() {
            last["close"] = "    }".into();
        }
        for step in &mut block {
            step["pad"] = "    ".into();
        }
        steps.extend(block);
    }
    let (inputs, outputs) = emitter.io(&mut constants)?;

    let packed = emitter.packed.into_inner();
    let weights = super::constant_bytes(graph, &constants)
        + packed.iter().map(|p| p.data.len()).sum::<usize>();
    let mut files: Vec<(String, Source<'m>)> = Vec::new();
    let kernel_files: Vec<String> = used.keys().map(|m| format!("{prefix}_{m}.c")).collect();

    let mut ctx = base_context(prefix, options, graph, layout, weights);
    ctx.insert("stops", &crate::emit::stops(calls));
    ctx.insert(
        "arena_used",
        &(emitter.arena_used.get() || layout.memory_bytes() > 0),
    );
    if let Some(group) = group {
        ctx.insert("group", group);
        ctx.insert("state_base", &layout.state_base);
        ctx.insert("reset_code", &reset_code(&arena_name, layout));
    }
    ctx.insert("inputs", &inputs);
    ctx.insert("outputs", &outputs);
    ctx.insert("io_all", &inputs.iter().chain(&outputs).collect::<Vec<_>>());
    ctx.insert("kernel_files", &kernel_files);
    let mut consts = constant_values(graph, prefix, &constants);
    consts.extend(packed.iter().map(|p| {
        object(vec![
            ("name", p.name.clone().into()),
            ("comment", comment(&p.comment).into()),
            ("words", c_data::words_for(p.data.len()).into()),
            ("data", DATA_PLACEHOLDER.into()),
        ])
    }));
    ctx.insert("constants", &consts);
    ctx.insert("params", &params);
    ctx.insert("steps", &steps);
    ctx.insert("module_headers", &module_headers);

    let data: Vec<Bytes<'m>> = constants
        .iter()
        .map(|&t| Bytes::of_constant(&graph.tensors[t]))
        .chain(packed.iter().map(|p| Bytes::Shared(p.data.clone())))
        .collect();
    let model_c = render(tera, "model.c", &ctx)?;
    let model_c =
        Source::splice(&model_c, DATA_PLACEHOLDER, Encoding::CWords, &data).ok_or_else(|| {
            Error::Internal {
                detail: "the C model template does not place every constant's data once"
                    .to_string(),
            }
        })?;
    files.push((
        format!("{prefix}.h"),
        Source::text(render(tera, "model.h", &ctx)?),
    ));
    files.push((format!("{prefix}.c"), model_c));
    files.push((
        format!("{prefix}_kernels.h"),
        Source::text(render(tera, "kernels.h", &ctx)?),
    ));
    for (&module, functions) in &used {
        let mut mctx = module_context(prefix, functions);
        mctx.extend(base_context(prefix, options, graph, layout, weights));
        let source = render(tera, &format!("{module}.c"), &mctx)?;
        files.push((format!("{prefix}_{module}.c"), Source::text(source)));
    }
    Ok(files)
}

/// The kernel functions the model calls, per module (the copy of a non-aliased RESHAPE included).
fn used_kernels(
    layout: &Layout,
    calls: &[Call],
) -> Result<BTreeMap<&'static str, BTreeSet<&'static str>>> {
    let mut used: BTreeMap<&'static str, BTreeSet<&'static str>> = BTreeMap::new();
    for call in calls {
        match &call.kind {
            CallKind::Kernel(k) => {
                used.entry(k.module).or_default().insert(k.function);
            }
            CallKind::Nothing | CallKind::Exit { .. } => {}
            CallKind::Alias { input, output } => {
                if layout.place(*input)? != layout.place(*output)? {
                    used.entry("copy").or_default().insert("copy");
                }
            }
            CallKind::Select {
                then,
                otherwise,
                output,
                ..
            } => {
                // A branch output folded into a constant (no place) is copied from flash.
                let to = layout.place(*output)?;
                let apart = |t: usize| layout.place(t).map_or(true, |p| p != to);
                if apart(*then) || apart(*otherwise) {
                    used.entry("copy").or_default().insert("copy");
                }
            }
        }
    }
    Ok(used)
}

/// The used modules' headers, rendered and concatenated, and the parameter structs they declare.
/// A kernel the C templates do not have is a refusal naming the operator.
fn declarations(
    tera: &Tera,
    prefix: &str,
    graph: &Graph,
    calls: &[Call],
    used: &BTreeMap<&'static str, BTreeSet<&'static str>>,
) -> Result<(String, Decls)> {
    let first_call = |module: &str, function: Option<&str>| {
        calls
            .iter()
            .find(|c| {
                matches!(&c.kind, CallKind::Kernel(k)
                    if k.module == module && function.is_none_or(|f| f == k.function))
            })
            .map_or(0, |c| c.op)
    };
    let mut headers = String::new();
    for (&module, functions) in used {
        if !MODULES.iter().any(|(m, _, _)| *m == module) {
            let function = functions.iter().next().copied().unwrap_or("?");
            return Err(no_kernel(graph, first_call(module, None), module, function));
        }
        let header = render(
            tera,
            &format!("{module}.h"),
            &module_context(prefix, functions),
        )?;
        for function in functions {
            if !header.contains(&format!("{prefix}_{module}_{function}(")) {
                let op = first_call(module, Some(function));
                return Err(no_kernel(graph, op, module, function));
            }
        }
        headers.push_str(&header);
    }
    Ok((headers, Decls::generated()))
}

/// The template data of each referenced constant tensor; `data` is a placeholder for the
/// initializer ([`DATA_PLACEHOLDER`]).
fn constant_values(graph: &Graph, prefix: &str, constants: &BTreeSet<usize>) -> Vec<Value> {
    constants
        .iter()
        .map(|&t| {
            let tensor = &graph.tensors[t];
            let data = tensor.data.as_deref().unwrap_or(&[]);
            let text = format!(
                "tensor {t} {}: {} {}, {} bytes",
                comment(&format!("{:?}", tensor.name)),
                tensor.dtype,
                shape_text(&tensor.shape),
                data.len()
            );
            object(vec![
                ("name", format!("{prefix}_t{t}").into()),
                ("comment", text.into()),
                ("words", c_data::words_for(data.len()).into()),
                ("data", DATA_PLACEHOLDER.into()),
            ])
        })
        .collect()
}

/// Every file name [`generate`] can produce for `prefix`, whatever the model.
pub(crate) fn file_names(prefix: &str) -> Vec<String> {
    let mut names = vec![
        format!("{prefix}.h"),
        format!("{prefix}.c"),
        format!("{prefix}_kernels.h"),
    ];
    names.extend(MODULES.iter().map(|(m, _, _)| format!("{prefix}_{m}.c")));
    names
}

/// The embedded templates, parsed once per process (parsing dominated the C backend's time) and
/// shared: rendering only reads them.
fn templates() -> Result<&'static Tera> {
    static PARSED: std::sync::OnceLock<std::result::Result<Tera, String>> =
        std::sync::OnceLock::new();
    match PARSED.get_or_init(|| parse_templates().map_err(|e| e.to_string())) {
        Ok(tera) => Ok(tera),
        Err(detail) => Err(Error::Internal {
            detail: detail.clone(),
        }),
    }
}

/// Parses every embedded template.
fn parse_templates() -> Result<Tera> {
    let mut tera = Tera::default();
    // Generated C is not HTML: never escape.
    tera.autoescape_on(vec![]);
    let mut all: Vec<(String, &str)> = vec![
        ("model.h".to_string(), PUBLIC_HEADER),
        ("model.c".to_string(), MODEL_SOURCE),
        ("kernels.h".to_string(), KERNELS_HEADER),
    ];
    for (name, header, source) in MODULES {
        all.push((format!("{name}.h"), header));
        all.push((format!("{name}.c"), source));
    }
    for (name, part) in KERNELS_HEADER_PARTS {
        all.push((name.to_string(), part));
    }
    for (name, part) in PARTS {
        all.push((name.to_string(), part));
    }
    tera.add_raw_templates(all).map_err(template_error)?;
    Ok(tera)
}

fn render(tera: &Tera, name: &str, ctx: &Context) -> Result<String> {
    tera.render(name, ctx).map_err(template_error)
}

fn template_error(e: tera::Error) -> Error {
    // tera's Display names only the outermost error; the cause says what actually went wrong.
    let mut detail = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        let _ = write!(detail, ": {s}");
        source = s.source();
    }
    // The templates are ours: any failure to parse or render them is a bug in tinyaot.
    Error::Internal {
        detail: format!("in a C template: {detail}"),
    }
}

/// A lowered call names a kernel the C templates lack. Every kernel of the runtime has its C twin
/// (`cargo kernels` writes the C prototypes, and the parity harness links every one), so
/// only a generator bug gets here, whatever the model.
fn no_kernel(graph: &Graph, op: usize, module: &str, function: &str) -> Error {
    let operator = graph.operators.get(op);
    Error::Internal {
        detail: format!(
            "operator #{} ({}) calls {module}::{function}, which the C backend does not have",
            operator.map_or(op, |o| o.source_index),
            operator.map_or_else(|| "?".to_string(), |o| o.kind.name()),
        ),
    }
}

fn module_context(prefix: &str, functions: &BTreeSet<&str>) -> Context {
    let mut ctx = Context::new();
    ctx.insert("p", prefix);
    ctx.insert("P", &prefix.to_ascii_uppercase());
    ctx.insert("used", &functions.iter().collect::<Vec<_>>());
    ctx.insert("wide_channels", &crate::lower::params::WIDE_CHANNELS);
    ctx
}

fn base_context(
    prefix: &str,
    options: &COptions,
    graph: &Graph,
    layout: &Layout,
    weights: usize,
) -> Context {
    let mut ctx = Context::new();
    ctx.insert("p", prefix);
    ctx.insert("P", &prefix.to_ascii_uppercase());
    ctx.insert("max_rank", &crate::lower::params::MAX_RANK);
    ctx.insert("im2col_max", &crate::lower::params::IM2COL_MAX);
    ctx.insert("version", env!("CARGO_PKG_VERSION"));
    ctx.insert("source", &comment(&options.source_name));
    ctx.insert("operators", &graph.operators.len());
    ctx.insert("arena_bytes", &layout.arena_bytes);
    ctx.insert("state_bytes", &layout.state_bytes);
    ctx.insert("memory_bytes", &layout.memory_bytes());
    ctx.insert("state_flag", &!layout.state_starts_zeroed());
    ctx.insert(
        "reset_code",
        &reset_code(&format!("{prefix}_arena"), layout),
    );
    ctx.insert("weights_bytes", &weights);
    ctx.insert("num_inputs", &graph.inputs.len());
    ctx.insert("invoke_note", &layout.overwritten_inputs_note());
    ctx.insert("num_outputs", &graph.outputs.len());
    let regions: Vec<Value> = layout
        .memory_regions
        .iter()
        .map(|used| {
            object(vec![
                ("name", used.region.name.clone().into()),
                ("upper", used.region.name.to_ascii_uppercase().into()),
                ("section", used.region.section.clone().into()),
                ("bytes", used.bytes.into()),
                ("capacity", used.region.capacity.into()),
            ])
        })
        .collect();
    ctx.insert("regions", &regions);
    ctx
}

/// The body of `<prefix>_reset`: each run of the state region (after the arena in the model's
/// buffer, `arena`) set to its initial contents, by loops (the kernels' C uses no library calls).
fn reset_code(arena: &str, layout: &Layout) -> String {
    use std::fmt::Write as _;
    let mut code = String::new();
    if layout.state_init.is_empty() {
        return code;
    }
    code.push_str("    size_t i;\n");
    for (k, (offset, init)) in layout.state_init.iter().enumerate() {
        let start = layout.state_base + offset;
        match init {
            super::StateInit::Fill(bytes, value) => {
                let _ = writeln!(
                    code,
                    "    for (i = 0; i < {bytes}u; ++i) {{\n        \
                     {arena}.bytes[{start}u + i] = {value}u;\n    }}"
                );
            }
            super::StateInit::Bytes(bytes) => {
                let _ = write!(
                    code,
                    "    {{\n        static const uint8_t init{k}[{}] = {{",
                    bytes.len()
                );
                for (j, b) in bytes.iter().enumerate() {
                    if j % 16 == 0 {
                        code.push_str("\n            ");
                    }
                    let _ = write!(code, "{b},");
                }
                let _ = writeln!(
                    code,
                    "\n        }};\n        for (i = 0; i < {}u; ++i) {{\n            \
                     {arena}.bytes[{start}u + i] = init{k}[i];\n        }}\n    }}",
                    bytes.len()
                );
            }
        }
    }
    code
}

/// A JSON object for a template, from `(key, value)` pairs.
fn object(items: Vec<(&str, Value)>) -> Value {
    let mut map = Map::new();
    for (k, v) in items {
        map.insert(k.to_string(), v);
    }
    Value::Object(map)
}

/// `items` as the lines of an initialiser list: indented by 4, comma-terminated, wrapped before
/// 100 columns.
fn wrapped_list(items: &[String]) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for item in items {
        if !line.is_empty() && 4 + line.len() + 1 + item.len() + 1 > 100 {
            let _ = writeln!(out, "    {line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(item);
        line.push(',');
    }
    if !line.is_empty() {
        let _ = writeln!(out, "    {line}");
    }
    out
}

/// One step of `invoke`: the operator's index and name (for the operator hooks around it), a
/// comment and a statement (empty when the step costs nothing).
fn step_value(index: usize, name: String, comment: String, code: String) -> Value {
    object(vec![
        ("index", index.into()),
        ("name", name.into()),
        ("comment", comment.into()),
        ("code", code.into()),
        ("pad", "".into()),
        ("open", "".into()),
        ("close", "".into()),
        ("after", "".into()),
    ])
}

struct Emitter<'g, 'm> {
    graph: &'g Graph<'m>,
    layout: &'g Layout,
    prefix: &'g str,
    /// The arena's symbol: `<prefix>_arena`, or the group's.
    arena_name: &'g str,
    /// Whether the code refers to the arena (not when memory regions hold every tensor).
    arena_used: std::cell::Cell<bool>,
    decls: Decls,
    /// The generation-time constants of the kernel parameters, in the order met:
    /// (name, comment, element type, data).
    packed: RefCell<Vec<PackedConst>>,
}

/// A generation-time constant of a kernel parameter, declared like a constant tensor.
struct PackedConst {
    name: String,
    comment: String,
    data: Arc<[u8]>,
}

impl Emitter<'_, '_> {
    fn arena(&self, offset: usize) -> String {
        self.arena_used.set(true);
        format!("{}.bytes + {offset}", self.arena_name)
    }

    /// The C expression of tensor `t`'s bytes: in the arena (or state) or a memory region.
    fn tensor_bytes(&self, t: usize) -> Result<String> {
        let place = self.layout.place(t)?;
        Ok(
            match place
                .memory_region
                .and_then(|k| self.layout.memory_regions.get(k))
            {
                Some(used) => format!(
                    "{}_region_{}.bytes + {}",
                    self.prefix, used.region.name, place.offset
                ),
                None => self.arena(place.offset),
            },
        )
    }

    /// The C expression of the bytes of tensor `t` read as a `Src`: its constant data, or its
    /// place.
    fn src(&self, t: usize, constants: &mut BTreeSet<usize>) -> Result<String> {
        if self.graph.tensors[t].is_constant() {
            Ok(self.constant(t, "u8", constants))
        } else {
            self.tensor_bytes(t)
        }
    }

    fn constant(&self, t: usize, member: &str, constants: &mut BTreeSet<usize>) -> String {
        constants.insert(t);
        format!("{}_t{t}.{member}", self.prefix)
    }

    fn step(
        &self,
        call: &Call,
        params: &mut String,
        constants: &mut BTreeSet<usize>,
    ) -> Result<Value> {
        let op = &self.graph.operators[call.op];
        // Comments and hooks name the operator as the model does (its position may differ; an
        // operator of an IF's branch by its index in its subgraph, which the comment names).
        let label = op.source_index;
        let p = self.prefix;
        let name = op.display_name();
        let (comment, code) = match &call.kind {
            CallKind::Alias { input, output } => {
                let from = self.tensor_bytes(*input)?;
                let to = self.tensor_bytes(*output)?;
                let bytes = self.graph.tensors[*output].bytes;
                if from == to {
                    (
                        format!("operator {label}: {name} (its output aliases its input)"),
                        String::new(),
                    )
                } else {
                    (
                        format!("operator {label}: {name} (a copy)"),
                        format!("{p}_copy_copy({from}, {to}, {bytes}u);"),
                    )
                }
            }
            CallKind::Kernel(kernel) => (
                format!("operator {label}: {name}"),
                self.kernel_step(call.op, kernel, params, constants)?,
            ),
            CallKind::Nothing => (
                format!("operator {label}: {name} (done at generation time)"),
                String::new(),
            ),
            CallKind::Select {
                cond,
                then,
                otherwise,
                output,
            } => {
                let bytes = self.graph.tensors[*output].bytes;
                // A branch output that folding made a constant is copied from its data.
                let mut copy = |from: usize| -> Result<String> {
                    let (from, to) = (self.src(from, constants)?, self.tensor_bytes(*output)?);
                    Ok(match from == to {
                        true => "/* the branch's output is the IF's */".to_string(),
                        false => format!("{p}_copy_copy({from}, {to}, {bytes}u);"),
                    })
                };
                // A selection always runs (outside any branch's block): one level of indent.
                (
                    format!("operator {label}: {name} (the output of the branch that ran)"),
                    format!(
                        "if ({}) {{\n        {}\n    }} else {{\n        {}\n    }}",
                        self.condition(*cond, true)?,
                        copy(*then)?,
                        copy(*otherwise)?
                    ),
                )
            }
            CallKind::Exit { cond } => {
                // The loop's `break` follows the step's end hook.
                let mut value = step_value(
                    label,
                    op.kind.name(),
                    format!(
                        "operator {label}: {name} (leaves the loop when its condition is false)"
                    ),
                    String::new(),
                );
                value["after"] = format!("if ({}) break;", self.condition(*cond, false)?).into();
                return Ok(value);
            }
        };
        let mut value = step_value(label, op.kind.name(), comment, code);
        // A kernel that stops the invoke (a CIRCULAR_BUFFER waiting for frames) returns from it
        // after the step's end hook, saying so.
        if let CallKind::Kernel(KernelCall {
            stop: Some((tensor, byte)),
            ..
        }) = &call.kind
        {
            value["after"] = format!(
                "if ({}) return {}_WAITING;",
                self.stop_test(*tensor, *byte)?,
                p.to_ascii_uppercase()
            )
            .into();
        }
        Ok(value)
    }

    /// Byte `byte` of tensor `tensor` in its buffer (the arena or its memory region's), as a C
    /// lvalue.
    fn tensor_byte(&self, tensor: usize, byte: usize) -> Result<String> {
        let place = self.layout.place(tensor)?;
        let buffer = match place
            .memory_region
            .and_then(|k| self.layout.memory_regions.get(k))
        {
            Some(used) => format!("{}_region_{}", self.prefix, used.region.name),
            None => {
                self.arena_used.set(true);
                self.arena_name.to_string()
            }
        };
        Ok(format!("{buffer}.bytes[{}]", place.offset + byte))
    }

    /// The test that byte `byte` of tensor `tensor` is nonzero: a kernel's stop byte
    /// ([`crate::lower::KernelCall::stop`]).
    fn stop_test(&self, tensor: usize, byte: usize) -> Result<String> {
        Ok(format!("{} != 0", self.tensor_byte(tensor, byte)?))
    }

    /// The test that an IF's condition, the BOOL tensor `cond`, is `taken`: its byte is nonzero
    /// for true (TFLM reads `cond->data.b[0]`).
    fn condition(&self, cond: usize, taken: bool) -> Result<String> {
        let test = if taken { "!=" } else { "==" };
        Ok(format!("{} {test} 0", self.tensor_byte(cond, 0)?))
    }

    fn kernel_step(
        &self,
        op: usize,
        kernel: &KernelCall,
        params: &mut String,
        constants: &mut BTreeSet<usize>,
    ) -> Result<String> {
        let p = self.prefix;
        // Names of statics: an operator of an IF's branch also by its subgraph (`2_1`).
        let label = self.graph.operators[op].ident();
        let mut args = Vec::new();
        let mut scratch_slot = 0;
        for (i, operand) in kernel.operands.iter().enumerate() {
            args.push(match *operand {
                Operand::Scratch(_) => {
                    scratch_slot += 1;
                    self.arena(self.layout.scratch_offset(op, scratch_slot - 1)?)
                }
                Operand::Offset(t) => self.tensor_bytes(t)?,
                Operand::Src(t) => self.src(t, constants)?,
                Operand::Offsets(ref ts) | Operand::Srcs(ref ts) => {
                    // A variadic operand: a static array of its tensors' addresses (address
                    // constants: nothing is built at run time) and its length.
                    let (element, kind) = match operand {
                        Operand::Offsets(_) => ("uint8_t *", "outputs"),
                        _ => ("const uint8_t *", "inputs"),
                    };
                    let items = ts
                        .iter()
                        .map(|&t| match operand {
                            Operand::Offsets(_) => self.tensor_bytes(t),
                            _ => self.src(t, constants),
                        })
                        .collect::<Result<Vec<_>>>()?;
                    let (name, n) = (format!("{p}_p{label}_{kind}{i}"), ts.len());
                    let _ = writeln!(
                        params,
                        "/* operator {label}: {}, its {kind} */\n\
                         static {element}const {name}[{n}] = {{\n{}}};\n",
                        self.graph.operators[op].kind.name(),
                        wrapped_list(&items)
                    );
                    format!("{name}, {n}u")
                }
            });
        }
        if let Some(ps) = &kernel.params {
            let c_type = format!("{p}_{}_{}", kernel.module, ps.type_name);
            let decl =
                self.decls
                    .get(kernel.module, ps.type_name)
                    .ok_or_else(|| Error::Internal {
                        detail: format!(
                            "the C kernel header {}.h declares no struct {c_type}",
                            kernel.module
                        ),
                    })?;
            let used = std::cell::RefCell::new(BTreeSet::new());
            // The declaration check has already matched the field's element type to the dtype.
            let tensor = |t: usize| -> String {
                used.borrow_mut().insert(t);
                let (_, member) = tensor_view(self.graph.tensors[t].dtype);
                format!("{p}_t{t}.{member}")
            };
            let name = format!("{p}_p{label}");
            let packed = |field: &str, packed: &Packed| -> String {
                // `w`: weights, like the tensors (`t`) they are derived from.
                let ident = format!("{p}_w{label}_{field}");
                let (_, member) = tensor_view(packed.dtype);
                self.packed.borrow_mut().push(PackedConst {
                    name: ident.clone(),
                    comment: format!(
                        "operator {label}'s {field}, laid out for its kernel at generation time: {}, \
                         {} bytes",
                        packed.dtype,
                        packed.bytes.len()
                    ),
                    data: packed.bytes.clone(),
                });
                format!("{ident}.{member}")
            };
            let naming = Naming {
                array_prefix: name.clone(),
                tensor: &tensor,
                packed: &packed,
            };
            let init = decl.initializer(&c_type, ps, self.graph, &naming)?;
            constants.extend(used.into_inner());
            let _ = writeln!(
                params,
                "/* operator {label}: {} */\n{}static const {c_type} {name} = {};\n",
                self.graph.operators[op].kind.name(),
                init.arrays,
                init.body
            );
            args.push(format!("&{name}"));
        }
        Ok(format!(
            "{p}_{}_{}({});",
            kernel.module,
            kernel.function,
            args.join(", ")
        ))
    }

    /// The graph inputs and outputs, with the C expressions of their bytes.
    fn io(&self, constants: &mut BTreeSet<usize>) -> Result<(Vec<Value>, Vec<Value>)> {
        let (inputs, outputs) = io_tensors(self.graph);
        let mut lists = (Vec::new(), Vec::new());
        for (is_input, list) in [(true, &inputs), (false, &outputs)] {
            for io in list.iter() {
                let tensor = io.tensor;
                let expr = if tensor.is_constant() && !is_input {
                    self.constant(io.index, "u8", constants)
                } else {
                    self.tensor_bytes(io.index)?
                };
                // Only a finite per-tensor scale makes a usable macro (the header must compile
                // without the kernel header's float constants).
                let (scale, zero_point) = match &tensor.quant {
                    Some(q) if q.scales.len() == 1 && q.scales[0].is_finite() => (
                        Some(f32_literal(q.scales[0])),
                        q.zero_points.first().copied(),
                    ),
                    _ => (None, None),
                };
                let kind = if is_input { "input" } else { "output" };
                let position = if is_input {
                    lists.0.len()
                } else {
                    lists.1.len()
                };
                let item = object(vec![
                    ("kind", kind.into()),
                    ("index", position.into()),
                    (
                        "comment",
                        format!(
                            "tensor {} {}: {} {}",
                            io.index,
                            comment(&format!("{:?}", tensor.name)),
                            tensor.dtype,
                            shape_text(&tensor.shape)
                        )
                        .into(),
                    ),
                    ("expr", expr.into()),
                    ("bytes", tensor.bytes.into()),
                    ("elements", tensor.num_elements().into()),
                    ("ctype", c_element(tensor.dtype).into()),
                    ("shape", tensor.shape.clone().into()),
                    ("rank", tensor.shape.len().into()),
                    ("scale", scale.map_or(Value::Null, Value::from)),
                    ("zero_point", zero_point.map_or(Value::Null, Value::from)),
                ]);
                if is_input {
                    lists.0.push(item);
                } else {
                    lists.1.push(item);
                }
            }
        }
        Ok(lists)
    }
}

/// The C element type of a graph input or output, for the header's documentation.
fn c_element(dtype: DType) -> &'static str {
    match dtype {
        DType::F32 => "float",
        DType::I8 => "int8_t",
        DType::U8 | DType::Bool => "uint8_t",
        DType::I16 => "int16_t",
        DType::U16 => "uint16_t",
        DType::I32 => "int32_t",
        DType::U32 => "uint32_t",
        DType::I64 => "int64_t",
        DType::U64 => "uint64_t",
        DType::F16 => "uint16_t (float16 bits)",
        DType::F64 => "double",
        // Never a graph input or output (refused by lowering); packed bytes if it were.
        DType::I4 => "uint8_t (INT4 pairs)",
    }
}

/// Every C kernel module with all of its functions, and the internal header they include: the
/// kernel library that the per-kernel Rust↔C parity tests (`tests/parity`) compile once on the
/// host. Not part of the API: generated models use [`sources`].
#[doc(hidden)]
pub fn kernel_library(prefix: &str) -> Result<Vec<CFile>> {
    c_data::check_prefix(prefix)?;
    let tera = templates()?;
    let mut ctx = Context::new();
    ctx.insert("p", prefix);
    ctx.insert("P", &prefix.to_ascii_uppercase());
    ctx.insert("max_rank", &crate::lower::params::MAX_RANK);
    ctx.insert("im2col_max", &crate::lower::params::IM2COL_MAX);
    ctx.insert("version", env!("CARGO_PKG_VERSION"));
    ctx.insert("source", "the kernel library");
    let mut headers = String::new();
    let mut files = Vec::new();
    for (module, _, source) in MODULES {
        let mut mctx = module_context(prefix, &guarded_functions(module, source));
        mctx.extend(ctx.clone());
        headers.push_str(&render(tera, &format!("{module}.h"), &mctx)?);
        let text = render(tera, &format!("{module}.c"), &mctx)?;
        files.push((format!("{prefix}_{module}.c"), text));
    }
    ctx.insert("module_headers", &headers);
    files.insert(
        0,
        (
            format!("{prefix}_kernels.h"),
            render(tera, "kernels.h", &ctx)?,
        ),
    );
    Ok(files)
}

/// The function names a kernel module's source template, with the parts it includes when the
/// family is a folder, emits only when used (`{% if "name" in used %}`, or `{%- if …` at the start
/// of a part; each name of `{% if "a" in used or "b" in used %}`, so that a kernel whose code is
/// shared with another's behind such a guard is found even where its own guard is a variable,
/// as SignalIrfft's in the loop over types of `signal/rfft.c.tera`).
fn guarded_functions(module: &str, source: &'static str) -> BTreeSet<&'static str> {
    let parts = PARTS
        .iter()
        .filter(|(name, _)| {
            name.strip_prefix(module)
                .is_some_and(|rest| rest.starts_with('/'))
        })
        .map(|(_, part)| *part);
    std::iter::once(source)
        .chain(parts)
        .flat_map(|template| template.split(" if \"").skip(1))
        .filter_map(|rest| rest.split_once("%}").map(|(condition, _)| condition))
        .flat_map(|condition| condition.split(" or \""))
        .filter_map(|clause| clause.split_once("\" in used").map(|(name, _)| name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both names of an `or` guard are used; a condition on other variables names nothing.
    #[test]
    fn guards_name_each_function_of_an_or() {
        let names = guarded_functions(
            "none",
            "{% if \"rfft_s16\" in used or \"irfft_s16\" in used %}",
        );
        assert_eq!(
            names.into_iter().collect::<Vec<_>>(),
            ["irfft_s16", "rfft_s16"]
        );
        let names = guarded_functions("none", "{% if \"a_f32\" in used or t == \"f32\" %}");
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["a_f32"]);
    }

    /// Every header renders, and declares each generated struct of its module.
    #[test]
    fn templates_parse_and_headers_declare_structs() {
        let tera = templates().unwrap();
        for (module, _, _) in MODULES {
            let mut ctx = module_context("net", &BTreeSet::new());
            ctx.insert("p", "net");
            let header = render(tera, &format!("{module}.h"), &ctx).unwrap();
            for (m, name, _) in super::super::c_params::STRUCTS {
                if m == module {
                    assert!(
                        header.contains(&format!(" net_{module}_{name};")),
                        "{module}.h does not declare {name}"
                    );
                }
            }
        }
        for (m, _, _) in super::super::c_params::STRUCTS {
            assert!(MODULES.iter().any(|(module, _, _)| module == m), "{m}");
        }
    }
}

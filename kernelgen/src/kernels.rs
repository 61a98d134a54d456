//! `cargo kernels [--check]` (or `cargo xtask kernels [--check]`): everything about the kernels
//! that can be derived from the Rust runtime and the file layout, generated.
//!
//! A kernel family is a file `runtime/src/kernels/<family>.rs` with a C twin
//! `templates/c/kernels/<family>.c.tera`, and usually a lowering file
//! `codegen/src/lower/ops/<family>.rs`. A large family is a folder in each layer instead (see
//! [`Layout`]): `runtime/src/kernels/<family>/mod.rs` with its submodules,
//! `codegen/src/lower/ops/<family>/mod.rs` with its, and beside the C entry
//! `templates/c/kernels/<family>.c.tera` its parts `templates/c/kernels/<family>/*.c.tera`, which
//! the entry includes. Its parameter structs and entry points are written by hand once, in the
//! runtime's files (a folder's files in name order, `mod.rs` first); this command reads them with
//! `syn` and writes:
//! - the family's C header `templates/c/kernels/<family>.h.tera`: the runtime module's summary as
//!   a comment, the parameter typedefs and the kernels' prototypes;
//! - `codegen/src/emit/c_params.rs`: every struct's C fields, from which the C backend writes
//!   initialisers;
//! - `codegen/src/lower/params.rs`: the lowering's typed constructors of the same structs, and
//!   the runtime's `MAX_RANK` (the one rank limit of the kernels' loops);
//! - `tests/parity/src/generated.rs`: the per-kernel Rust↔C parity harness's dispatch and FFI
//!   declarations (see [`crate::parity_gen`]);
//! - the module lists: the `pub mod` lines of `runtime/src/kernels/mod.rs` and, in
//!   `codegen/src/lower/ops/mod.rs`, the `mod` lines and the `families!` list (kernel families,
//!   alias-only families without a runtime file, support modules without a lowering file, and
//!   the parts of the C templates of folder families), each between marker lines.
//!
//! `--check` writes nothing and fails when a checked-in file differs from what would be generated
//! (CI runs it, like `schema/regen.sh --check`).
//!
//! The C form is the one the C backend's initialisers expect (`codegen/src/emit/c_decl.rs`):
//! `usize` → `size_t`, `i32` → `int32_t`, `f32` → `float`, `bool` → `int`, a slice `&[T]` → a
//! `const T *` followed by its `size_t <name>_len`, an `Option<&[T]>` → the same, `NULL` for `None`;
//! `pub type A = B;` → `typedef B A;`. Any other field type is an error naming the field, so a
//! struct the C side cannot mirror is caught here rather than at a C compiler. Prototypes follow
//! the calling convention: a `const uint8_t *` per input operand, `uint8_t *output` (or one per
//! output, `output_a`, … for SPLIT), a variadic operand (`&[usize]` of outputs, `&[Src]` of
//! inputs) as an array and its length (`uint8_t *const *outputs, size_t outputs_len`; `const
//! uint8_t *const *inputs, size_t inputs_len`), then the parameter struct by pointer (or `size_t
//! bytes` for `copy`).

use std::fmt::Write as _;
use std::path::Path;

use syn::{GenericArgument, Item, PathArguments, Type};

/// Runs the generator with its arguments (`--check` or none): writes the generated files, or
/// with `--check` writes nothing and fails naming those that are out of date.
///
/// # Errors
///
/// An unknown argument, a runtime source the generator cannot mirror in C, a file it cannot read
/// or write, and with `--check` a stale file.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut check = false;
    for arg in args {
        match arg.as_str() {
            "--check" => check = true,
            other => return Err(format!("kernels: unknown argument `{other}`")),
        }
    }
    let root = crate::workspace_root()?;
    let outputs = generate(&root)?;
    let mut stale = Vec::new();
    for (path, text) in &outputs {
        let current = std::fs::read_to_string(path).unwrap_or_default();
        if current == *text {
            continue;
        }
        if check {
            stale.push(
                path.strip_prefix(&root)
                    .unwrap_or(path)
                    .display()
                    .to_string(),
            );
        } else {
            std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!("kernels: wrote {}", path.display());
        }
    }
    // Headers of families that are gone, and the typedef-only templates of earlier versions, must
    // not stay behind.
    let dir = root.join("templates/c/kernels");
    for entry in std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let is_header = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".h.tera"));
        if is_header && !outputs.iter().any(|(p, _)| *p == path) {
            if check {
                stale.push(format!("{} (no longer generated)", path.display()));
            } else {
                std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
    }
    if stale.is_empty() {
        if check {
            eprintln!("kernels: {} generated files are up to date", outputs.len());
        }
        Ok(())
    } else {
        Err(format!(
            "generated kernel declarations are out of date (run `cargo kernels`): {}",
            stale.join(", ")
        ))
    }
}

/// Every generated file: its path and contents.
fn generate(root: &Path) -> Result<Vec<(std::path::PathBuf, String)>, String> {
    let kernels = root.join("runtime/src/kernels");
    let layout = Layout::discover(root)?;
    let mut outputs = Vec::new();
    let mut with_params = Vec::new();
    let mut parity = Vec::new();
    for family in &layout.kernels {
        let sources = runtime_sources(root, family)?;
        let mut decls = Vec::new();
        let mut functions = Vec::new();
        for (path, source) in &sources {
            decls.extend(declarations(path, source)?);
            functions.extend(crate::parity_gen::functions(path, source)?);
        }
        let path = root.join(format!("templates/c/kernels/{family}.h.tera"));
        outputs.push((path, c_header(family, &sources, &decls, &functions)?));
        parity.push((family.clone(), decls_for_parity(&decls), functions));
        if !decls.is_empty() {
            with_params.push((family.clone(), decls));
        }
    }
    outputs.push((
        root.join("codegen/src/emit/c_params.rs"),
        struct_table(&with_params)?,
    ));
    outputs.push((
        root.join("tests/parity/src/generated.rs"),
        crate::parity_gen::source(&parity)?,
    ));
    outputs.push((
        root.join("codegen/src/fold/kernels.rs"),
        crate::parity_gen::fold_source(&parity)?,
    ));
    let runtime_mod = kernels.join("mod.rs");
    let runtime_mod_text = read(&runtime_mod)?;
    let limits = Limits {
        max_rank: usize_const(&runtime_mod_text, "MAX_RANK")?,
        im2col_max: usize_const(&runtime_mod_text, "IM2COL_MAX")?,
        wide_channels: usize_const(&runtime_mod_text, "WIDE_CHANNELS")?,
    };
    outputs.push((
        root.join("codegen/src/lower/params.rs"),
        lowering_params(&with_params, &limits)?,
    ));
    let lines: Vec<String> = layout
        .kernels
        .iter()
        .map(|f| format!("pub mod {f};"))
        .collect();
    let text = replace_block(&runtime_mod, &runtime_mod_text, &lines.join("\n"))?;
    outputs.push((runtime_mod, crate::parity_gen::rustfmt(&text)?));
    let ops_mod = root.join("codegen/src/lower/ops/mod.rs");
    let text = replace_block(&ops_mod, &read(&ops_mod)?, &layout.registry())?;
    outputs.push((ops_mod, crate::parity_gen::rustfmt(&text)?));
    Ok(outputs)
}

/// The families, found from the files that make them. In each layer a family is one file, or a
/// folder of the family's name: in the runtime and the lowering a module folder (`<family>/mod.rs`
/// and its submodules; in the lowering only one whose `mod.rs` declares the family's `OPS`, other
/// folders being helpers such as `int4/`), in the C templates the parts
/// `templates/c/kernels/<family>/*.c.tera` that the entry `<family>.c.tera` includes.
struct Layout {
    /// Runtime kernel modules with a C twin: the kernel families (sorted).
    kernels: Vec<String>,
    /// Lowering files (`codegen/src/lower/ops/<name>.rs`, not `mod.rs` or `testing.rs`) and
    /// folders (`<name>/mod.rs` with an `OPS` table), sorted.
    lowering: Vec<String>,
    /// The parts of folder families' C templates, `<family>/<part>` for
    /// `templates/c/kernels/<family>/<part>.c.tera`, sorted.
    c_parts: Vec<String>,
}

impl Layout {
    fn discover(root: &Path) -> Result<Layout, String> {
        let runtime = family_names(root, "runtime/src/kernels", ".rs", |_| true)?;
        let c = family_names(root, "templates/c/kernels", ".c.tera", |_| false)?;
        if let Some(orphan) = c.iter().find(|f| !runtime.contains(f)) {
            return Err(format!(
                "templates/c/kernels/{orphan}.c.tera has no Rust twin runtime/src/kernels/{orphan}.rs \
                 or runtime/src/kernels/{orphan}/mod.rs"
            ));
        }
        let lowering = family_names(root, "codegen/src/lower/ops", ".rs", |mod_rs| {
            mod_rs.contains("pub(crate) const OPS")
        })?
        .into_iter()
        .filter(|f| f != "mod" && f != "testing")
        .collect();
        let mut c_parts = Vec::new();
        for entry in read_dir(&root.join("templates/c/kernels"))? {
            if !entry.is_dir() {
                continue;
            }
            let family = file_name(&entry)?;
            if !c.contains(&family) {
                return Err(format!(
                    "templates/c/kernels/{family}/ holds the parts of a family's C template, but \
                     there is no templates/c/kernels/{family}.c.tera to include them"
                ));
            }
            for part in read_dir(&entry)? {
                let name = file_name(&part)?;
                let stem = name.strip_suffix(".c.tera").ok_or_else(|| {
                    format!("templates/c/kernels/{family}/{name}: not a C template part (.c.tera)")
                })?;
                c_parts.push(format!("{family}/{stem}"));
            }
        }
        c_parts.sort();
        Ok(Layout {
            kernels: c,
            lowering,
            c_parts,
        })
    }

    /// The generated part of `codegen/src/lower/ops/mod.rs`: the `mod` lines and `families!`.
    fn registry(&self) -> String {
        let list = |names: Vec<&String>| {
            names
                .iter()
                .map(|n| format!("                {n},\n"))
                .collect::<String>()
        };
        let kernels = list(
            self.lowering
                .iter()
                .filter(|f| self.kernels.contains(f))
                .collect(),
        );
        let aliases = list(
            self.lowering
                .iter()
                .filter(|f| !self.kernels.contains(f))
                .collect(),
        );
        let support = list(
            self.kernels
                .iter()
                .filter(|f| !self.lowering.contains(f))
                .collect(),
        );
        let c_parts: String = self
            .c_parts
            .iter()
            .map(|p| format!("                \"{p}\",\n"))
            .collect();
        let mut out = String::new();
        for family in &self.lowering {
            let _ = writeln!(out, "mod {family};");
        }
        let _ = write!(
            out,
            "
/// Calls `$then!` with the operator families and kernel modules, each named once:
///
/// - `kernels`: families whose operators call the kernel module of the same name;
/// - `aliases`: families whose operators lower to [`CallKind::Alias`] and so have no kernel module;
/// - `support`: kernel modules without a lowering file of their own, which the emitters call
///   themselves (`copy`, for an alias whose input and output the plan keeps apart) or another
///   family's lowering names (the INT4-weight kernels `conv_int4`, `depthwise_int4` and
///   `fully_connected_int4`);
/// - `c_parts`: the parts of the C templates of the families that are folders
///   (`templates/c/kernels/<family>/<part>.c.tera`, which `<family>.c.tera` includes).
///
/// The registry below takes the families, the C backend its kernel modules' templates (a file
/// path must be a literal for `include_str!`, hence a macro rather than a constant).
macro_rules! families {{
    ($then:ident) => {{
        $then! {{
            kernels: [
{kernels}            ],
            aliases: [
{aliases}            ],
            support: [
{support}            ],
            c_parts: [
{c_parts}            ],
        }}
    }};
}}"
        );
        out
    }
}

/// The end of the comment line that starts a generated block inside a hand-written file, and the
/// line that ends it.
const BLOCK_START: &str = "Do not edit down to the end marker.";
const BLOCK_END: &str = "// End of the lines written by `cargo kernels`.";

/// `text` with the lines between its marker lines replaced by `block`.
fn replace_block(path: &Path, text: &str, block: &str) -> Result<String, String> {
    crate::splice_lines(text, BLOCK_START, BLOCK_END, block).ok_or_else(|| {
        format!(
            "{}: no generated block (a comment line ending `{BLOCK_START}`, then `{BLOCK_END}`)",
            path.display()
        )
    })
}

/// The first paragraph of a module's `//!` documentation, on one line.
fn summary(source: &str) -> String {
    let mut words = Vec::new();
    for line in source.lines() {
        let Some(doc) = line.trim_start().strip_prefix("//!") else {
            break;
        };
        let doc = doc.trim();
        if doc.is_empty() {
            if words.is_empty() {
                continue;
            }
            break;
        }
        words.extend(doc.split_whitespace().map(str::to_string));
    }
    // Intra-doc links read as plain code in C: "[`concat()`]" is "`concat()`".
    words.join(" ").replace("[`", "`").replace("`]", "`")
}

/// `text` as a C block comment wrapped at 100 columns.
fn c_comment(text: &str) -> String {
    let mut out = String::from("/*");
    let mut column = 2;
    for word in text.split_whitespace() {
        if column + 1 + word.len() > 97 && column > 3 {
            out.push_str("\n *");
            column = 2;
        }
        out.push(' ');
        out.push_str(word);
        column += 1 + word.len();
    }
    out.push_str(" */\n");
    out
}

/// A family's C header template: its summary, its parameter typedefs and its prototypes.
fn c_header(
    family: &str,
    sources: &[(String, String)],
    decls: &[Decl],
    functions: &[crate::parity_gen::Function],
) -> Result<String, String> {
    // A folder family is named by its folder, its summary is its `mod.rs`'s (read first).
    let (first, source) = &sources[0];
    let location = first.strip_suffix("mod.rs").unwrap_or(first);
    let text = format!("{family} ({location}): {}", summary(source));
    if ["*/", "{{", "{%", "{#"].iter().any(|t| text.contains(t)) {
        return Err(format!(
            "{first}: the module summary may not contain `*/` or a tera tag"
        ));
    }
    let mut out = format!("{{# @generated by `cargo kernels` from {location}. Do not edit. #}}\n");
    out.push_str(&c_comment(&text));
    out.push_str(&c_typedefs(family, decls)?);
    for function in functions {
        let mut args: Vec<String> = function
            .operands
            .iter()
            .map(|(name, kind)| {
                use crate::parity_gen::Kind;
                match kind {
                    Kind::Offsets => format!("uint8_t *const *{name}, size_t {name}_len"),
                    Kind::Srcs => format!("const uint8_t *const *{name}, size_t {name}_len"),
                    _ if crate::parity_gen::is_written(name) => format!("uint8_t *{name}"),
                    _ => format!("const uint8_t *{name}"),
                }
            })
            .collect();
        args.push(match &function.params {
            Some(p) => format!("const {{{{ p }}}}_{family}_{p} *p"),
            None => "size_t bytes".to_string(),
        });
        let _ = writeln!(
            out,
            "void {{{{ p }}}}_{family}_{}({});",
            function.name,
            args.join(", ")
        );
    }
    Ok(out)
}

/// A declaration's name and fields: an alias has its target's.
fn fields_of<'d>(
    family: &str,
    decl: &'d Decl,
    decls: &'d [Decl],
) -> Result<(&'d String, &'d Vec<Field>), String> {
    match decl {
        Decl::Struct { name, fields } => Ok((name, fields)),
        Decl::Alias { name, target } => decls
            .iter()
            .find_map(|d| match d {
                Decl::Struct { name, fields } if name == target => Some(fields),
                _ => None,
            })
            .map(|fields| (name, fields))
            .ok_or_else(|| format!("{family}::{name}: alias of an unknown struct")),
    }
}

/// `codegen/src/emit/c_params.rs`: every struct's C fields, from which the C backend writes
/// initialisers.
fn struct_table(families: &[(String, Vec<Decl>)]) -> Result<String, String> {
    let mut out = String::from(
        "// @generated by `cargo kernels` from runtime/src/kernels/. Do not edit.\n\
         //! The C parameter structs of each kernel family, generated from the Rust runtime's structs\n\
         //! (`cargo kernels`): the fields of every struct, from which the C backend writes\n\
         //! initialisers.\n\n",
    );
    out.push_str(
        "/// `(module, struct, fields)` of a parameter struct or alias, each field as\n\
         /// `(name, C type)`: a slice is `const T *` followed by its `size_t <name>_len`.\n\
         pub(crate) type StructFields = (&'static str, &'static str, &'static [(&'static str, &'static str)]);\n\n\
         /// Every parameter struct and alias of every kernel family.\n\
         pub(crate) const STRUCTS: &[StructFields] = &[\n",
    );
    for (family, decls) in families {
        for decl in decls {
            let (name, fields) = fields_of(family, decl, decls)?;
            let _ = write!(out, "(\"{family}\", \"{name}\", &[");
            for field in fields {
                match &field.kind {
                    FieldKind::Scalar(ty) => {
                        let _ = write!(out, "(\"{}\", \"{ty}\"),", field.name);
                    }
                    FieldKind::Slice { element, .. } => {
                        let _ = write!(
                            out,
                            "(\"{0}\", \"const {element} *\"), (\"{0}_len\", \"size_t\"),",
                            field.name
                        );
                    }
                }
            }
            out.push_str("]),\n");
        }
    }
    out.push_str("];\n");
    crate::parity_gen::rustfmt(&out)
}

/// `codegen/src/lower/params.rs`: one typed struct per parameter struct (aliases included, as
/// their own struct: the Rust backend names the alias), with the conversion to the lowering's
/// field list in declaration order. The lowering fills these by field name, so a field it misses,
/// misspells or gives the wrong type is a compile error, and the order is the runtime's.
/// The runtime's fixed limits that the lowering must respect, copied from
/// `runtime/src/kernels/mod.rs`.
struct Limits {
    max_rank: usize,
    im2col_max: usize,
    wide_channels: usize,
}

fn lowering_params(families: &[(String, Vec<Decl>)], limits: &Limits) -> Result<String, String> {
    let Limits {
        max_rank,
        im2col_max,
        wide_channels,
    } = limits;
    let mut out = String::from(
        "// @generated by `cargo kernels` from runtime/src/kernels/. Do not edit.\n\
         //! Typed constructors of every kernel parameter struct, generated from the runtime's\n\
         //! declarations (`cargo kernels`): `tinyaot::kernels::<family>::<Struct>` has exactly\n\
         //! the fields of `<family>::<Struct>` here, in the same order. See the runtime for what each\n\
         //! field means.\n\n",
    );
    let _ = writeln!(
        out,
        "/// `tinyaot::kernels::MAX_RANK`: the most dimensions a kernel's shape parameters may have\n\
         /// (after merging); the lowering refuses longer ones, and the C backend declares it as\n\
         /// `<PREFIX>_MAX_RANK`.\npub(crate) const MAX_RANK: usize = {max_rank};\n\n\
         /// `tinyaot::kernels::IM2COL_MAX`: the most bytes of a window the stack buffer of\n\
         /// `conv::conv2d_im2col_s8` holds; the C backend declares it as `<PREFIX>_IM2COL_MAX`.\n\
         pub(crate) const IM2COL_MAX: usize = {im2col_max};\n\n\
         /// `tinyaot::kernels::WIDE_CHANNELS`: the bytes of a window the paired gathering\n\
         /// convolution widens at once; half of it is the longest window whose channels are\n\
         /// not whole words it takes. The C backend declares it as `<PREFIX>_WIDE_CHANNELS`.\n\
         pub(crate) const WIDE_CHANNELS: usize = {wide_channels};\n"
    );
    for (family, decls) in families {
        let uses_data = decls.iter().any(|d| match d {
            Decl::Struct { fields, .. } => fields.iter().any(
                |f| matches!(&f.kind, FieldKind::Slice { element, .. } if *element != "size_t"),
            ),
            Decl::Alias { .. } => false,
        });
        let imports = if uses_data {
            "Data, Params, Value"
        } else {
            "Params, Value"
        };
        let _ = writeln!(
            out,
            "/// The parameter structs of `tinyaot::kernels::{family}`.\npub(crate) mod {family} {{\n    use crate::lower::{{{imports}}};"
        );
        for decl in decls {
            let (name, fields) = fields_of(family, decl, decls)?;
            let _ = writeln!(
                out,
                "/// `tinyaot::kernels::{family}::{name}`.\n#[derive(Clone, Debug, PartialEq)]\npub(crate) struct {name} {{"
            );
            let mut conversions = String::new();
            for field in fields {
                let (ty, value) = match &field.kind {
                    FieldKind::Scalar(c) => {
                        let (ty, variant) = match *c {
                            "size_t" => ("usize", "Usize"),
                            "int32_t" => ("i32", "I32"),
                            "float" => ("f32", "F32"),
                            _ => ("bool", "Bool"),
                        };
                        (
                            ty.to_string(),
                            format!("Value::{variant}(p.{})", field.name),
                        )
                    }
                    FieldKind::Slice { element, optional } => {
                        let ty = match *element {
                            "size_t" => "Vec<usize>".to_string(),
                            "int8_t" => "Data<i8>".to_string(),
                            "int16_t" => "Data<i16>".to_string(),
                            "int32_t" => "Data<i32>".to_string(),
                            "int64_t" => "Data<i64>".to_string(),
                            "float" => "Data<f32>".to_string(),
                            _ => "Data<u8>".to_string(),
                        };
                        let one = if *element == "size_t" {
                            "Value::Usizes(v)".to_string()
                        } else {
                            "Value::from(v)".to_string()
                        };
                        if *optional {
                            (
                                format!("Option<{ty}>"),
                                format!(
                                    "p.{}.map_or(Value::None, |v| Value::Some(Box::new({one})))",
                                    field.name
                                ),
                            )
                        } else {
                            (ty, one.replace("(v)", &format!("(p.{})", field.name)))
                        }
                    }
                };
                let _ = writeln!(
                    out,
                    "    /// `{}`.\n    pub {}: {ty},",
                    field.name, field.name
                );
                let _ = writeln!(conversions, "(\"{}\", {value}),", field.name);
            }
            let _ = writeln!(
                out,
                "}}\n\nimpl From<{name}> for Params {{\n    fn from(p: {name}) -> Params {{\n        \
                 Params {{ type_name: \"{name}\", fields: vec![{conversions}] }}\n    }}\n}}\n"
            );
        }
        out.push_str("}\n\n");
    }
    crate::parity_gen::rustfmt(&out)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The entries of a directory, sorted.
fn read_dir(dir: &Path) -> Result<Vec<std::path::PathBuf>, String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        out.push(entry.map_err(|e| e.to_string())?.path());
    }
    out.sort();
    Ok(out)
}

fn file_name(path: &Path) -> Result<String, String> {
    path.file_name()
        .and_then(|n| n.to_str())
        .map(str::to_string)
        .ok_or_else(|| format!("{}: not a UTF-8 file name", path.display()))
}

/// The families of one layer's directory `dir`: its files `<family><suffix>`, and its folders
/// `<family>/` holding a `mod.rs` that `is_family` accepts (`suffix` `.rs`), sorted.
fn family_names(
    root: &Path,
    dir: &str,
    suffix: &str,
    is_family: impl Fn(&str) -> bool,
) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for path in read_dir(&root.join(dir))? {
        let name = file_name(&path)?;
        if path.is_dir() {
            let mod_rs = path.join("mod.rs");
            if suffix == ".rs" && mod_rs.is_file() && is_family(&read(&mod_rs)?) {
                out.push(name);
            }
        } else if let Some(stem) = name.strip_suffix(suffix) {
            out.push(stem.to_string());
        }
    }
    out.sort();
    Ok(out)
}

/// A runtime family's source files, as `(path from the root, text)`: its file, or its folder's
/// `mod.rs` and then its other files, at any depth, in name order (the order of the generated
/// declarations).
fn runtime_sources(root: &Path, family: &str) -> Result<Vec<(String, String)>, String> {
    let file = format!("runtime/src/kernels/{family}.rs");
    if root.join(&file).is_file() {
        return Ok(vec![(file.clone(), read(&root.join(&file))?)]);
    }
    let folder = format!("runtime/src/kernels/{family}/");
    let mut paths = Vec::new();
    let mut pending = vec![root.join(&folder)];
    while let Some(dir) = pending.pop() {
        for path in read_dir(&dir)? {
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path
                    .strip_prefix(root)
                    .map_err(|e| e.to_string())?
                    .to_string_lossy()
                    .replace('\\', "/");
                paths.push(relative);
            }
        }
    }
    let mod_rs = format!("{folder}mod.rs");
    if !paths.contains(&mod_rs) {
        return Err(format!("{folder}: a family folder needs a mod.rs"));
    }
    // `mod.rs` first (its summary is the family's), then the rest by path.
    paths.sort_by_key(|p| (*p != mod_rs, p.clone()));
    paths
        .into_iter()
        .map(|p| Ok((p.clone(), read(&root.join(&p))?)))
        .collect()
}

/// The value of `pub const <name>: usize = N;` in `runtime/src/kernels/mod.rs`.
fn usize_const(mod_rs: &str, name: &str) -> Result<usize, String> {
    let file = syn::parse_file(mod_rs).map_err(|e| format!("runtime/src/kernels/mod.rs: {e}"))?;
    file.items
        .iter()
        .find_map(|item| match item {
            Item::Const(c) if c.ident == name => match &*c.expr {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n.base10_parse().ok(),
                _ => None,
            },
            _ => None,
        })
        .ok_or_else(|| {
            format!("runtime/src/kernels/mod.rs: no `pub const {name}: usize = <integer>;`")
        })
}

/// The declarations as the parity generator sees them.
fn decls_for_parity(decls: &[Decl]) -> Vec<crate::parity_gen::Struct> {
    let mut structs: Vec<crate::parity_gen::Struct> = Vec::new();
    for decl in decls {
        match decl {
            Decl::Struct { name, fields } => structs.push(crate::parity_gen::Struct {
                name: name.clone(),
                target: None,
                fields: fields
                    .iter()
                    .map(|f| crate::parity_gen::FieldSpec {
                        name: f.name.clone(),
                        c_type: match &f.kind {
                            FieldKind::Scalar(t) | FieldKind::Slice { element: t, .. } => t,
                        },
                        slice: matches!(f.kind, FieldKind::Slice { .. }),
                        optional: matches!(f.kind, FieldKind::Slice { optional: true, .. }),
                    })
                    .collect(),
            }),
            Decl::Alias { name, target } => {
                if let Some(t) = structs.iter().find(|s| s.name == *target) {
                    let fields = t.fields.clone();
                    structs.push(crate::parity_gen::Struct {
                        name: name.clone(),
                        target: Some(target.clone()),
                        fields,
                    });
                }
            }
        }
    }
    structs
}

/// One parameter declaration of a family, in source order.
#[derive(Debug, PartialEq)]
enum Decl {
    /// `pub struct Name { fields }`.
    Struct { name: String, fields: Vec<Field> },
    /// `pub type Name = Target;`.
    Alias { name: String, target: String },
}

/// A field of a parameter struct, as C sees it.
#[derive(Debug, PartialEq)]
struct Field {
    name: String,
    kind: FieldKind,
}

#[derive(Debug, PartialEq)]
enum FieldKind {
    /// A scalar with its C type.
    Scalar(&'static str),
    /// A slice of the C element type; `optional` for `Option<&[T]>`.
    Slice {
        element: &'static str,
        optional: bool,
    },
}

/// The public structs and type aliases of one of a family's files (`path`, for messages).
fn declarations(path: &str, source: &str) -> Result<Vec<Decl>, String> {
    let file = syn::parse_file(source).map_err(|e| format!("{path}: {e}"))?;
    let family = path
        .trim_start_matches("runtime/src/kernels/")
        .trim_end_matches(".rs");
    let mut decls = Vec::new();
    for item in &file.items {
        match item {
            Item::Struct(s) if matches!(s.vis, syn::Visibility::Public(_)) => {
                let mut fields = Vec::new();
                for field in &s.fields {
                    let name = field
                        .ident
                        .as_ref()
                        .ok_or_else(|| {
                            format!(
                                "{family}::{}: tuple structs are not parameter structs",
                                s.ident
                            )
                        })?
                        .to_string();
                    let kind = field_kind(&field.ty).ok_or_else(|| {
                        format!(
                            "{family}::{}::{name}: a C parameter struct cannot mirror this type; \
                             use usize, i32, f32, bool, &[T] or Option<&[T]> (T: i8, u8, i32, usize, f32)",
                            s.ident
                        )
                    })?;
                    fields.push(Field { name, kind });
                }
                decls.push(Decl::Struct {
                    name: s.ident.to_string(),
                    fields,
                });
            }
            Item::Type(t) if matches!(t.vis, syn::Visibility::Public(_)) => {
                let target = type_name(&t.ty).ok_or_else(|| {
                    format!("{family}::{}: an alias must name another struct", t.ident)
                })?;
                decls.push(Decl::Alias {
                    name: t.ident.to_string(),
                    target,
                });
            }
            _ => {}
        }
    }
    Ok(decls)
}

/// The last path segment's name of a plain path type (`AddS8<'a>` → `AddS8`).
fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn field_kind(ty: &Type) -> Option<FieldKind> {
    if let Some(element) = slice_element(ty) {
        return Some(FieldKind::Slice {
            element,
            optional: false,
        });
    }
    let Type::Path(path) = ty else { return None };
    let segment = path.path.segments.last()?;
    if segment.ident == "Option" {
        let PathArguments::AngleBracketed(args) = &segment.arguments else {
            return None;
        };
        let [GenericArgument::Type(inner)] = args.args.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        return Some(FieldKind::Slice {
            element: slice_element(inner)?,
            optional: true,
        });
    }
    Some(FieldKind::Scalar(
        match segment.ident.to_string().as_str() {
            "usize" => "size_t",
            "i32" => "int32_t",
            "f32" => "float",
            "bool" => "int",
            _ => return None,
        },
    ))
}

/// The C element type of `&[T]`.
fn slice_element(ty: &Type) -> Option<&'static str> {
    let Type::Reference(reference) = ty else {
        return None;
    };
    if reference.mutability.is_some() {
        return None;
    }
    let Type::Slice(slice) = &*reference.elem else {
        return None;
    };
    Some(match type_name(&slice.elem)?.as_str() {
        "i8" => "int8_t",
        "u8" => "uint8_t",
        "i16" => "int16_t",
        "i32" => "int32_t",
        "i64" => "int64_t",
        "usize" => "size_t",
        "f32" => "float",
        _ => return None,
    })
}

/// The typedefs of one family, each followed by a blank line (none without structs).
fn c_typedefs(family: &str, decls: &[Decl]) -> Result<String, String> {
    let mut out = String::new();
    let c_name = |name: &str| format!("{{{{ p }}}}_{family}_{name}");
    let mut first = true;
    for decl in decls {
        match decl {
            Decl::Struct { name, fields } => {
                out.push_str("typedef struct {\n");
                for field in fields {
                    match &field.kind {
                        FieldKind::Scalar(ty) => {
                            let _ = writeln!(out, "    {ty} {};", field.name);
                        }
                        FieldKind::Slice { element, optional } => {
                            let note = if *optional {
                                format!(" /* NULL: no {} */", field.name)
                            } else {
                                String::new()
                            };
                            let _ = writeln!(out, "    const {element} *{};{note}", field.name);
                            let _ = writeln!(out, "    size_t {}_len;", field.name);
                        }
                    }
                }
                let _ = writeln!(out, "}} {};\n", c_name(name));
            }
            Decl::Alias { name, target } => {
                if first {
                    return Err(format!("{family}::{name}: an alias before any struct"));
                }
                let _ = writeln!(out, "typedef {} {};\n", c_name(target), c_name(name));
            }
        }
        first = false;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirrors_each_field_kind() {
        let source = "
            pub struct Demo<'a> {
                pub n: usize,
                pub zp: i32,
                pub scale: f32,
                pub on: bool,
                pub shape: &'a [usize],
                pub bias: Option<&'a [i32]>,
            }
            pub type Same<'a> = Demo<'a>;
            struct Private { x: u64 }
        ";
        let decls = declarations("demo", source).unwrap();
        assert_eq!(
            c_typedefs("demo", &decls).unwrap(),
            "typedef struct {\n    size_t n;\n    int32_t zp;\n    float scale;\n    int on;\n    \
             const size_t *shape;\n    size_t shape_len;\n    const int32_t *bias; /* NULL: no bias */\n    \
             size_t bias_len;\n} {{ p }}_demo_Demo;\n\ntypedef {{ p }}_demo_Demo {{ p }}_demo_Same;\n\n"
        );
    }

    #[test]
    fn reads_variadic_operands_and_refuses_read_offsets() {
        use crate::parity_gen::{functions, Kind};
        let source = "pub fn k(arena: &mut [u8], inputs: &[Src], outputs: &[usize], p: &P) {}";
        let f = &functions("runtime/src/kernels/demo.rs", source).unwrap()[0];
        assert_eq!(
            f.operands,
            vec![
                ("inputs".to_string(), Kind::Srcs),
                ("outputs".to_string(), Kind::Offsets)
            ]
        );
        // C would pass read offsets as `uint8_t *const *`, written sources as `const`: refused.
        let source = "pub fn k(arena: &mut [u8], inputs: &[usize], output: usize, p: &P) {}";
        let err = functions("runtime/src/kernels/demo.rs", source).unwrap_err();
        assert!(err.contains("demo::k: operand `inputs`"), "{err}");
    }

    #[test]
    fn refuses_what_c_cannot_mirror() {
        let err = declarations("demo", "pub struct Bad { pub x: u64 }").unwrap_err();
        assert!(err.contains("demo::Bad::x"), "{err}");
        let err = declarations("demo", "pub struct Bad<'a> { pub x: &'a mut [i8] }").unwrap_err();
        assert!(err.contains("demo::Bad::x"), "{err}");
    }
}

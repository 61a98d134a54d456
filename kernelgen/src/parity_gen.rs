//! The generated half of the per-kernel Rust↔C parity harness (`tests/parity`), written by
//! `cargo kernels` to `tests/parity/src/generated.rs`.
//!
//! From each family's file in `runtime/src/kernels/` it reads the kernel entry points
//! (`pub fn name(arena: &mut [u8], operands…, p: &Params)`, each operand an offset `usize`, a
//! `Src`, or a variadic `&[usize]` or `&[Src]`, plus the fixed-arity `concat_n!`/`split_n!`
//! family) and the parameter structs, and writes, for every kernel:
//! - `#[repr(C)]` mirrors of the C parameter typedefs and the `extern "C"` prototypes of the C
//!   kernels, which the harness links from the C templates compiled with `cc`;
//! - one function that builds the Rust parameter struct from a lowered call's fields and runs the
//!   Rust kernel, and one that builds the C struct from the same fields and runs the C kernel;
//! - `run_rust` / `run_c` dispatching on `(module, function)`, and the list of every kernel, so
//!   that the harness can demand each is covered.
//!
//! The Rust runners are written to `codegen/src/fold/kernels.rs` instead ([`fold_source`]): the
//! code generator runs the same kernels to fold operators whose inputs are all constant, and the
//! harness calls them from there.
//!
//! A new kernel joins the harness when `cargo kernels` is rerun; CI's `--check` fails when
//! that was forgotten.

use std::fmt::Write as _;

use syn::{FnArg, Item, Pat, Type};

/// A parameter struct (or an alias of one) as the harness needs it.
#[derive(Clone, Debug)]
pub struct Struct {
    /// Its Rust name.
    pub name: String,
    /// For an alias, the struct it names.
    pub target: Option<String>,
    /// Its fields (an alias's are its target's).
    pub fields: Vec<FieldSpec>,
}

/// One field: its name and C type (a slice's element type for slices).
#[derive(Clone, Debug)]
pub struct FieldSpec {
    pub name: String,
    pub c_type: &'static str,
    pub slice: bool,
    pub optional: bool,
}

/// Whether a kernel writes its operand `name`: its outputs (`output`, `output0`, …), the state
/// tensors it updates in place (`hidden_state`, `cell_state`: named `*_state`) and its scratch
/// memory (`scratch`). They are `uint8_t *` in C, the other operands `const uint8_t *`.
pub fn is_written(name: &str) -> bool {
    name.starts_with("output") || name.ends_with("_state") || name == "scratch"
}

/// How a kernel takes one of its operands (`codegen`'s `lower::Operand` of the same name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `usize`: an arena offset; C: a `uint8_t *` (`const` unless written).
    Offset,
    /// `Src`: an arena offset or constant bytes; C: a `const uint8_t *`.
    Src,
    /// `&[usize]`: the offsets of any number of tensors the kernel writes; C: `uint8_t *const
    /// *name, size_t name_len`.
    Offsets,
    /// `&[Src]`: any number of tensors the kernel reads; C: `const uint8_t *const *name,
    /// size_t name_len`.
    Srcs,
}

/// A kernel entry point.
#[derive(Debug)]
pub struct Function {
    /// Its name in the family's module.
    pub name: String,
    /// Operand names and how each is passed.
    pub operands: Vec<(String, Kind)>,
    /// The parameter struct it takes, if any (`copy` takes a byte count instead).
    pub params: Option<String>,
}

/// The kernel entry points of one of a family's source files (`path`, for messages).
pub fn functions(path: &str, source: &str) -> Result<Vec<Function>, String> {
    let file = syn::parse_file(source).map_err(|e| format!("{path}: {e}"))?;
    let family = path
        .trim_start_matches("runtime/src/kernels/")
        .trim_end_matches(".rs");
    let mut out = Vec::new();
    for item in &file.items {
        match item {
            Item::Fn(f) if matches!(f.vis, syn::Visibility::Public(_)) => {
                if let Some(function) = entry_point(family, f)? {
                    out.push(function);
                }
            }
            Item::Macro(m) if m.mac.path.is_ident("concat_n") => {
                // `concat_n! { concat1: a; concat2: a, b; … }`: each entry is
                // `fn name(arena, <inputs: Src>…, output: usize, p: &Concat)`.
                let body = m.mac.tokens.to_string();
                for entry in body.split(';').map(str::trim).filter(|e| !e.is_empty()) {
                    let (name, inputs) = entry
                        .split_once(':')
                        .ok_or_else(|| format!("{family}: unreadable concat_n! entry `{entry}`"))?;
                    let mut operands: Vec<(String, Kind)> = inputs
                        .split(',')
                        .map(|i| (i.trim().to_string(), Kind::Src))
                        .collect();
                    operands.push(("output".to_string(), Kind::Offset));
                    out.push(Function {
                        name: name.trim().to_string(),
                        operands,
                        params: Some("Concat".to_string()),
                    });
                }
            }
            Item::Macro(m) if m.mac.path.is_ident("split_n") => {
                // `split_n! { split1: a; split2: a, b; … }`: each entry is
                // `fn name(arena, input: Src, <outputs: usize>…, p: &Split)`.
                let body = m.mac.tokens.to_string();
                for entry in body.split(';').map(str::trim).filter(|e| !e.is_empty()) {
                    let (name, outputs) = entry
                        .split_once(':')
                        .ok_or_else(|| format!("{family}: unreadable split_n! entry `{entry}`"))?;
                    let mut operands = vec![("input".to_string(), Kind::Src)];
                    operands.extend(
                        outputs
                            .split(',')
                            .map(|o| (o.trim().to_string(), Kind::Offset)),
                    );
                    out.push(Function {
                        name: name.trim().to_string(),
                        operands,
                        params: Some("Split".to_string()),
                    });
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// `pub fn name(arena: &mut [u8], operands…, p: &T)` or `(…, bytes: usize)`; other public
/// functions (there are none today) are not kernels and are skipped.
fn entry_point(family: &str, f: &syn::ItemFn) -> Result<Option<Function>, String> {
    let args: Vec<(String, &Type)> = f
        .sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(i) => Some((i.ident.to_string(), &*t.ty)),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect();
    let Some(((first, _), rest)) = args.split_first() else {
        return Ok(None);
    };
    let Some(((last, last_ty), operands)) = rest.split_last() else {
        return Ok(None);
    };
    if first != "arena" {
        return Ok(None);
    }
    let params = match last_ty {
        Type::Reference(r) => Some(
            type_name(&r.elem)
                .ok_or_else(|| format!("{family}::{}: unreadable parameter type", f.sig.ident))?,
        ),
        _ if last == "bytes" => None,
        _ => return Ok(None),
    };
    let mut ops = Vec::new();
    for (name, ty) in operands {
        let kind = match ty {
            Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
                Type::Slice(slice) => match type_name(&slice.elem).as_deref() {
                    Some("usize") => Kind::Offsets,
                    Some("Src") => Kind::Srcs,
                    _ => return Ok(None),
                },
                _ => return Ok(None),
            },
            _ => match type_name(ty).as_deref() {
                Some("usize") => Kind::Offset,
                Some("Src") => Kind::Src,
                _ => return Ok(None),
            },
        };
        // C passes a variadic operand's offsets as `uint8_t *const *` and its sources as `const
        // uint8_t *const *`: offsets stand for outputs, sources for inputs.
        let misnamed = match kind {
            Kind::Offsets => !is_written(name),
            Kind::Srcs => is_written(name),
            Kind::Offset | Kind::Src => false,
        };
        if misnamed {
            return Err(format!(
                "{family}::{}: operand `{name}`: a slice of offsets (`&[usize]`) must be the \
                 kernel's outputs (named `output…`), a slice of sources (`&[Src]`) its inputs",
                f.sig.ident
            ));
        }
        ops.push((name.clone(), kind));
    }
    Ok(Some(Function {
        name: f.sig.ident.to_string(),
        operands: ops,
        params,
    }))
}

fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The accessor suffix of `Call` for a C type (`size_t` → `usize`).
fn rust_type(c_type: &str) -> &'static str {
    match c_type {
        "size_t" => "usize",
        "int32_t" => "i32",
        "int64_t" => "i64",
        "float" => "f32",
        "int" => "bool",
        "int8_t" => "i8",
        "int16_t" => "i16",
        "uint8_t" => "u8",
        _ => "unknown",
    }
}

/// The FFI mirror's field type for a C scalar or element type.
fn ffi_type(c_type: &str) -> &'static str {
    match c_type {
        "size_t" => "usize",
        "int32_t" => "i32",
        "int64_t" => "i64",
        "float" => "f32",
        "int" => "core::ffi::c_int",
        "int8_t" => "i8",
        "int16_t" => "i16",
        "uint8_t" => "u8",
        _ => "unknown",
    }
}

/// `tests/parity/src/generated.rs`.
pub fn source(families: &[(String, Vec<Struct>, Vec<Function>)]) -> Result<String, String> {
    let mut out = String::from(
        "// @generated by `cargo kernels` from runtime/src/kernels/. Do not edit.\n\
         //! Per kernel: the C parameter struct mirrors and prototypes, a function running the Rust\n\
         //! kernel and one running the C kernel on the same lowered call, and the dispatch.\n\n\
         use crate::Call;\n\n",
    );
    // The mirrors, one module per family.
    out.push_str("/// `#[repr(C)]` mirrors of the C kernels' parameter typedefs.\npub mod ffi {\n");
    for (family, structs, _) in families {
        if structs.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "    /// `{family}`'s typedefs.\n    pub mod {family} {{"
        );
        for s in structs {
            if let Some(target) = &s.target {
                let _ = writeln!(
                    out,
                    "        /// `{}` is `{target}` in C too.\n        pub type {} = {target};",
                    s.name, s.name
                );
                continue;
            }
            let _ = writeln!(
                out,
                "        /// The C `{family}_{}`.\n        #[repr(C)]\n        pub struct {} {{",
                s.name, s.name
            );
            for f in &s.fields {
                let ty = ffi_type(f.c_type);
                if f.slice {
                    let _ = writeln!(
                        out,
                        "            /// `{0}`'s data.\n            pub {0}: *const {ty},\n            \
                         /// `{0}`'s length.\n            pub {0}_len: usize,",
                        f.name
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "            /// `{0}`.\n            pub {0}: {ty},",
                        f.name
                    );
                }
            }
            out.push_str("        }\n");
        }
        out.push_str("    }\n");
    }
    // One pointer per tensor operand is the calling convention; concat10 takes eleven.
    out.push_str("\n    #[allow(clippy::too_many_arguments)]\n    extern \"C\" {\n");
    for (family, _, functions) in families {
        for function in functions {
            let mut args: Vec<String> = function
                .operands
                .iter()
                .map(|(name, kind)| match kind {
                    Kind::Offsets => format!("{name}: *const *mut u8, {name}_len: usize"),
                    Kind::Srcs => format!("{name}: *const *const u8, {name}_len: usize"),
                    _ if is_written(name) => format!("{name}: *mut u8"),
                    _ => format!("{name}: *const u8"),
                })
                .collect();
            match &function.params {
                Some(p) => args.push(format!("p: *const {family}::{p}")),
                None => args.push("bytes: usize".to_string()),
            }
            let _ = writeln!(
                out,
                "        /// The C `{family}::{0}`.\n        pub fn parity_{family}_{0}({1});",
                function.name,
                args.join(", ")
            );
        }
    }
    out.push_str("    }\n}\n");

    // Per kernel with a parameter struct: the C runner.
    let list = runners(families, true, &mut out)?;

    // Dispatch and the list. The Rust runners are the code generator's own (its constant
    // folding runs the same kernels): `tinyaot_codegen::fold::kernels`.
    out.push_str(
        "\n/// Runs the Rust kernel a call names on `arena` (the code generator's runners).\n\
         pub fn run_rust(call: &Call<'_>, arena: &mut [u8]) -> Result<(), String> {\n    \
         tinyaot_codegen::fold::kernels::run(call, arena)\n}\n",
    );
    let _ = writeln!(
        out,
        "\n/// Runs the C kernel a call names on `arena`.\npub fn run_c(call: &Call<'_>, arena: &mut [u8]) -> Result<(), String> {{\n    match (call.module(), call.function()) {{"
    );
    for (family, function) in &list {
        let _ = writeln!(
            out,
            "        (\"{family}\", \"{function}\") => c_{family}_{function}(call, arena),"
        );
    }
    let _ = writeln!(
        out,
        "        (module, function) => Err(format!(\"no kernel {{module}}::{{function}}\")),\n    }}\n}}"
    );
    out.push_str(
        "\n/// Every kernel with a parameter struct, as `(module, function)`.\npub const KERNELS: &[(&str, &str)] = &[\n",
    );
    for (family, function) in &list {
        let _ = writeln!(out, "    (\"{family}\", \"{function}\"),");
    }
    out.push_str("];\n");
    rustfmt(&out)
}

/// Appends the runner of every kernel with a parameter struct to `out`, in C (`c`) or in Rust,
/// and returns those kernels as `(module, function)`, for the dispatch.
fn runners(
    families: &[(String, Vec<Struct>, Vec<Function>)],
    c: bool,
    out: &mut String,
) -> Result<Vec<(String, String)>, String> {
    let mut list = Vec::new();
    for (family, structs, functions) in families {
        for function in functions {
            let Some(params) = &function.params else {
                continue;
            };
            let s = structs
                .iter()
                .find(|s| s.name == *params)
                .ok_or_else(|| format!("{family}::{}: no struct {params}", function.name))?;
            list.push((family.clone(), function.name.clone()));
            out.push_str(&runner(family, function, s, c));
        }
    }
    Ok(list)
}

/// `codegen/src/fold/kernels.rs`: per kernel with a parameter struct, a function that builds the
/// runtime's parameter struct from a lowered call's fields and runs the Rust kernel, generic over
/// where the call's values come from ([`KernelArgs`]: the code generator's constant folding, or
/// the parity harness), and `run`, the dispatch on `(module, function)`.
pub fn fold_source(families: &[(String, Vec<Struct>, Vec<Function>)]) -> Result<String, String> {
    let mut out = String::from(
        "// @generated by `cargo kernels` from runtime/src/kernels/. Do not edit.\n\
         //! Per kernel: a function that builds the runtime's parameter struct from a lowered\n\
         //! call and runs the Rust kernel on an arena, and [`run`], the dispatch.\n\n\
         use super::KernelArgs;\n",
    );
    let list = runners(families, false, &mut out)?;
    out.push_str(
        "\n/// Runs the Rust kernel `call` names on `arena`.\n\
         ///\n/// # Errors\n///\n\
         /// A kernel this build does not have, or a field or operand the call lacks.\n\
         pub fn run<C: KernelArgs + ?Sized>(call: &C, arena: &mut [u8]) -> Result<(), String> {\n    \
         match (call.module(), call.function()) {\n",
    );
    for (family, function) in &list {
        let _ = writeln!(
            out,
            "        (\"{family}\", \"{function}\") => {family}_{function}(call, arena),"
        );
    }
    let _ = writeln!(
        out,
        "        (module, function) => Err(format!(\"no kernel {{module}}::{{function}}\")),\n    }}\n}}"
    );
    rustfmt(&out)
}

/// `text` formatted by rustfmt (the generated files must pass `cargo fmt --check`).
pub fn rustfmt(text: &str) -> Result<String, String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run rustfmt: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("rustfmt has no stdin")?
        .write_all(text.as_bytes())
        .map_err(|e| format!("rustfmt: {e}"))?;
    let output = child
        .wait_with_output()
        .map_err(|e| format!("rustfmt: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "rustfmt refused the generated parity code: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    String::from_utf8(output.stdout).map_err(|e| format!("rustfmt: {e}"))
}

/// A scalar field's initialiser, read from the call (the same in both languages' structs).
fn scalar_field(f: &FieldSpec) -> String {
    format!(
        "        {0}: call.scalar::<{1}>(\"{0}\")?,\n",
        f.name,
        rust_type(f.c_type)
    )
}

/// The function that runs one kernel in one language.
fn runner(family: &str, function: &Function, s: &Struct, c: bool) -> String {
    let name = &function.name;
    let mut out = String::new();
    if c {
        let _ = writeln!(
            out,
            "\n/// `{family}::{name}` in C.\nfn c_{family}_{name}(call: &Call<'_>, arena: &mut [u8]) -> Result<(), String> {{"
        );
    } else {
        let _ = writeln!(
            out,
            "\n/// `{family}::{name}`.\nfn {family}_{name}<C: KernelArgs + ?Sized>(call: &C, arena: &mut [u8]) -> Result<(), String> {{"
        );
    }
    // Slices are read into owned vectors first (the struct borrows them).
    for f in s.fields.iter().filter(|f| f.slice) {
        let ty = rust_type(f.c_type);
        let accessor = if f.optional { "opt_slice" } else { "slice" };
        let _ = writeln!(
            out,
            "    let {0}: {1} = call.{accessor}(\"{0}\")?;",
            f.name,
            if f.optional {
                format!("Option<Vec<{ty}>>")
            } else {
                format!("Vec<{ty}>")
            }
        );
    }
    if c {
        let _ = writeln!(out, "    let p = ffi::{family}::{} {{", s.name);
        for f in &s.fields {
            if f.slice {
                if f.optional {
                    let _ = writeln!(
                        out,
                        "        {0}: {0}.as_ref().map_or(core::ptr::null(), |v| v.as_ptr()),\n        {0}_len: {0}.as_ref().map_or(0, Vec::len),",
                        f.name
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "        {0}: {0}.as_ptr(),\n        {0}_len: {0}.len(),",
                        f.name
                    );
                }
            } else if f.c_type == "int" {
                let _ = writeln!(
                    out,
                    "        {0}: core::ffi::c_int::from(call.scalar::<bool>(\"{0}\")?),",
                    f.name
                );
            } else {
                out.push_str(&scalar_field(f));
            }
        }
        out.push_str("    };\n    let base = arena.as_mut_ptr();\n");
        let mut args = Vec::new();
        for (i, (operand, kind)) in function.operands.iter().enumerate() {
            let accessor = match kind {
                Kind::Offsets => "c_outputs",
                Kind::Srcs => "c_inputs",
                _ if is_written(operand) => "c_output",
                _ => "c_input",
            };
            let _ = writeln!(
                out,
                "    let {operand} = call.{accessor}(base, arena.len(), {i})?;"
            );
            if matches!(kind, Kind::Offsets | Kind::Srcs) {
                args.push(format!("{operand}.as_ptr(), {operand}.len()"));
            } else {
                args.push(operand.clone());
            }
        }
        let _ = writeln!(
            out,
            "    // SAFETY: the pointers are into `arena` (or the call's constant copies) at the \
             offsets the\n    // memory plan gives, and the Rust kernel, run first on the same \
             call, bounds-checked every\n    // access the parameters describe.\n    unsafe {{ \
             ffi::parity_{family}_{name}({}, &p) }};\n    Ok(())\n}}",
            args.join(", ")
        );
    } else {
        let _ = writeln!(
            out,
            "    let p = tinyaot_runtime::kernels::{family}::{} {{",
            s.name
        );
        for f in &s.fields {
            if f.slice {
                if f.optional {
                    let _ = writeln!(out, "        {0}: {0}.as_deref(),", f.name);
                } else {
                    let _ = writeln!(out, "        {0}: &{0},", f.name);
                }
            } else {
                out.push_str(&scalar_field(f));
            }
        }
        out.push_str("    };\n");
        let mut args = vec!["arena".to_string()];
        for (i, (_, kind)) in function.operands.iter().enumerate() {
            args.push(match kind {
                Kind::Offset => format!("call.offset({i})?"),
                Kind::Src => format!("call.src({i})?"),
                Kind::Offsets => format!("&call.offsets({i})?"),
                Kind::Srcs => format!("&call.srcs({i})?"),
            });
        }
        let _ = writeln!(
            out,
            "    tinyaot_runtime::kernels::{family}::{name}({}, &p);\n    Ok(())\n}}",
            args.join(", ")
        );
    }
    out
}

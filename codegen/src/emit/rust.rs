//! The Rust backend: `quote!` for the code, `prettyplease` to format it, and constant data appended
//! as byte-string literals (one token each, so a multi-megabyte model stays fast to parse and compile).
//! The literals are [`Source`] data parts: encoded only as they are written ([`source`]), never held
//! whole in memory.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Arc;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use super::source::{Bytes, Encoding};
use super::{io_tensors, rust_element, Layout, Location, Source, StateInit};
use crate::error::{Error, Result};
use crate::ir::{DType, Graph, Quantization};
use crate::lower::{Call, CallKind, KernelCall, Operand, Value};

/// What the Rust backend needs besides the model.
#[derive(Clone, Debug)]
pub struct RustOptions {
    /// The model struct's name (a Rust identifier, CamelCase by convention).
    pub name: String,
    /// Path of the runtime crate in the generated code, e.g. `::tinyaot`.
    pub runtime_path: String,
    /// The model's file name, for the header.
    pub source_name: String,
}

/// Renders the model as one Rust source file, in one `String`; [`source`] is the streaming form.
pub fn generate(
    graph: &Graph,
    layout: &Layout,
    calls: &[Call],
    options: &RustOptions,
) -> Result<String> {
    source(graph, layout, calls, options).map(Source::into_string)
}

/// Renders the model as one Rust source file whose constant data is written only when the
/// [`Source`] is (the byte-for-byte same text as [`generate`]).
pub fn source<'m>(
    graph: &Graph<'m>,
    layout: &Layout,
    calls: &[Call],
    options: &RustOptions,
) -> Result<Source<'m>> {
    let model = model_code(graph, layout, calls, options, None)?;
    let packed_bytes: usize = model.packed.iter().map(|p| p.data.len()).sum();
    let mut out = Source::text(header(
        graph,
        layout,
        options,
        &model.constants,
        packed_bytes,
    ));
    out.push_str(&model.code);
    model.append_constants(&mut out, graph, &options.runtime_path);
    Ok(out)
}

/// One model's generated code: its module (formatted), and the constants it refers to, which go
/// to a sibling module appended after the code ([`ModelCode::append_constants`]).
struct ModelCode {
    code: String,
    module: Ident,
    constants: BTreeSet<usize>,
    packed: Vec<PackedConst>,
}

impl ModelCode {
    fn append_constants<'m>(&self, out: &mut Source<'m>, graph: &Graph<'m>, runtime_path: &str) {
        append_constants(
            out,
            graph,
            &self.module,
            runtime_path,
            &self.constants,
            &self.packed,
        );
    }
}

/// How a model of a group ([`group_source`]) reaches the group's buffer: it is a handle borrowing
/// the buffer (and its state flag) from the group's struct, not an owner.
struct Membership<'a> {
    /// Bytes of the group's buffer.
    memory_bytes: usize,
    /// The group's struct, for the documentation.
    group: &'a str,
    /// The model's accessor on the group.
    accessor: &'a str,
    /// What the model keeps out of the shared arena, for the documentation.
    kept: &'a str,
}

/// The module of one model: a struct owning its buffer, or with `member`, a handle borrowing the
/// group's.
fn model_code(
    graph: &Graph,
    layout: &Layout,
    calls: &[Call],
    options: &RustOptions,
    member: Option<&Membership>,
) -> Result<ModelCode> {
    let emitter = Emitter {
        graph,
        layout,
        rt: parse_tokens(&options.runtime_path, "runtime path")?,
        packed: RefCell::new(Vec::new()),
        used: RefCell::new(BTreeSet::new()),
    };
    let name = ident(&options.name)?;
    let module = format_ident!("__tinyaot_{}", snake_case(&options.name));

    let mut constants = BTreeSet::new();
    let mut statics = Vec::new();
    let mut steps = Vec::new();
    for call in calls {
        let op = &graph.operators[call.op];
        let name = op.kind.name();
        // Comments and hooks name the operator as the model does (its position may differ).
        let comment = format!("{STEP_MARK}operator {}: {name}", op.source_index);
        let index = lit(op.source_index);
        steps.push(quote! { #[doc = #comment] });
        steps.push(quote! { hook.before(#index, #name); });
        steps.push(emitter.step(call, &mut statics, &mut constants)?);
        steps.push(quote! { hook.after(#index, #name); });
    }
    if calls.is_empty() {
        steps.push(quote! { let _ = hook; });
    }
    // Only the buffers the steps use are bound: a model whose every step is a reshape sharing its
    // input's storage touches no arena bytes, and an unused binding would be a warning.
    let used = emitter.used.borrow().clone();
    let bindings: Vec<TokenStream> = used
        .iter()
        .map(|&memory| {
            let binding = emitter.binding(memory);
            let field = emitter.field(memory);
            quote! { let #binding: &mut [u8] = &mut #field; }
        })
        .collect();
    let bind_arena = quote! { #(#bindings)* };
    let accessors = emitter.accessors(&mut constants)?;
    let regions = &layout.memory_regions;
    let ty = match member {
        None if regions.is_empty() => quote! { #name },
        _ => quote! { #name<'_> },
    };
    let model_impl = emitter.model_impl(&name, &ty, &mut constants)?;
    let constants_module = format_ident!("{}_constants", module);

    let rt = &emitter.rt;
    let arena_bytes = lit(layout.arena_bytes);
    let state_bytes = lit(layout.state_bytes);
    let memory_bytes = lit(layout.memory_bytes());
    // State that a reset leaves nonzero is written on the first invoke (and by `reset`), not by
    // `new`: a nonzero byte in a `static` model would put its whole arena in flash as well.
    let state_flag = !layout.state_starts_zeroed();
    let reset_state = reset_statements(layout);
    let (flag_field, flag_init, flag_check) = match (state_flag, member) {
        (false, _) => (quote! {}, quote! {}, quote! {}),
        (true, None) => (
            quote! {
                /// Whether the state holds its initial value or a later one (false at start-up).
                state_ready: bool,
            },
            quote! { , state_ready: false },
            quote! {
                if !self.state_ready {
                    self.reset();
                }
            },
        ),
        (true, Some(_)) => (
            quote! {
                /// Whether the state holds its initial value or a later one (the group's).
                pub(super) state_ready: &'a mut bool,
            },
            quote! {},
            quote! {
                if !*self.state_ready {
                    self.reset();
                }
            },
        ),
    };
    let set_flag = match (state_flag, member) {
        (false, _) => quote! {},
        (true, None) => quote! { self.state_ready = true; },
        (true, Some(_)) => quote! { *self.state_ready = true; },
    };
    let invoke_doc = match layout.overwritten_inputs_note() {
        note if note.is_empty() => " Runs the model once on the current inputs.".to_string(),
        note => format!(" Runs the model once on the current inputs. {note}"),
    };
    let reset_doc = if layout.state_bytes == 0 {
        " Restores the initial state; this model has none, so it does nothing."
    } else if state_flag {
        " Restores the initial state of the variable tensors (the first `invoke` does it itself)."
    } else if member.is_some() {
        " Restores the initial state of the variable tensors (zero, as after the group's `new`)."
    } else {
        " Restores the initial state of the variable tensors (zero, as after `new`)."
    };
    let n_inputs = lit(graph.inputs.len());
    let n_outputs = lit(graph.outputs.len());
    let struct_doc = format!(
        " The model compiled from `{}`: {} operators, {} bytes of arena{}.",
        options.source_name,
        graph.operators.len(),
        layout.arena_bytes,
        if layout.state_bytes > 0 {
            format!(", {} bytes of state", layout.state_bytes)
        } else {
            String::new()
        }
    );
    let region_names: Vec<Ident> = regions
        .iter()
        .map(|used| format_ident!("{}", used.region.name))
        .collect();
    let region_cells: Vec<Ident> = regions
        .iter()
        .map(|used| format_ident!("REGION_{}", used.region.name.to_uppercase()))
        .collect();
    let region_sizes: Vec<proc_macro2::Literal> =
        regions.iter().map(|used| lit(used.bytes)).collect();
    let region_docs: Vec<String> = regions
        .iter()
        .map(|used| {
            format!(
                " Memory region `{}` (section `{}`): {} of its {} bytes, the activations with \
                 the most accesses per byte.",
                used.region.name, used.region.section, used.bytes, used.region.capacity
            )
        })
        .collect();
    let (struct_def, constructors) = match member {
        None if !regions.is_empty() => (
            quote! {
                #[doc = #struct_doc]
                ///
                /// Planned with memory regions besides its arena: it borrows each one's memory, from
                /// the `static` in the region's linker section (`take`) or from memory of your own
                /// (`new`).
                pub struct #name<'r> {
                    /// The arena, then the state of the variable tensors.
                    arena: rt::Arena<#memory_bytes>,
                    #(
                        #[doc = #region_docs]
                        #region_names: &'r mut rt::Arena<#region_sizes>,
                    )*
                    #flag_field
                }
            },
            quote! {},
        ),
        None => (
            quote! {
                #[doc = #struct_doc]
                pub struct #name {
                    /// The arena, then the state of the variable tensors.
                    arena: rt::Arena<#memory_bytes>,
                    #flag_field
                }
            },
            quote! {
                /// A model with a zeroed arena (its state, if any, takes its initial value on the
                /// first `invoke`); `const`, so it can be a `static`.
                pub const fn new() -> Self {
                    #name { arena: rt::Arena::new() #flag_init }
                }
            },
        ),
        Some(m) => {
            let group_bytes = lit(m.memory_bytes);
            let doc = doc_lines(&format!(
                "{struct_doc}\n\nBorrowed from the group `{group}` (`{accessor}()`), whose \
                 shared arena it runs in: invoking it overwrites what every other model of the \
                 group left in that arena, their inputs and outputs included, except what they \
                 keep. Its state is its own. {kept}",
                group = m.group,
                accessor = m.accessor,
                kept = m.kept,
            ));
            (
                quote! {
                    #doc
                    pub struct #name<'a> {
                        /// The group's buffer: the shared arena, then every model's own memory.
                        pub(super) arena: &'a mut rt::Arena<#group_bytes>,
                        #flag_field
                    }
                },
                quote! {},
            )
        }
    };
    let region_impl = if regions.is_empty() {
        quote! {}
    } else {
        let sections: Vec<&str> = regions.iter().map(|u| u.region.section.as_str()).collect();
        let consts: Vec<Ident> = regions
            .iter()
            .map(|u| format_ident!("{}_BYTES", u.region.name.to_uppercase()))
            .collect();
        let const_docs: Vec<String> = regions
            .iter()
            .map(|u| {
                format!(
                    " Bytes the model takes of memory region `{}`.",
                    u.region.name
                )
            })
            .collect();
        let cell_docs: Vec<String> = regions
            .iter()
            .map(|u| {
                format!(
                    " The memory of region `{}`, in linker section `{}` (`{}::take`).",
                    u.region.name, u.region.section, name
                )
            })
            .collect();
        quote! {
            impl<'r> #name<'r> {
                #(
                    #[doc = #const_docs]
                    pub const #consts: usize = #region_sizes;
                )*

                /// A model with a zeroed arena whose memory regions are the given buffers, in the
                /// order the regions were named (its state, if any, takes its initial value on
                /// the first `invoke`).
                pub fn new(#(#region_names: &'r mut rt::Arena<#region_sizes>),*) -> Self {
                    #name { arena: rt::Arena::new() #(, #region_names)* #flag_init }
                }
            }

            impl #name<'static> {
                /// The model, with the memory of each region from its `static` in the region's
                /// linker section; `None` if some region was taken before (each can be taken
                /// once). Needs atomic compare-and-swap; elsewhere, pass memory to `new`.
                #[cfg(target_has_atomic = "8")]
                pub fn take() -> Option<Self> {
                    Some(#name::new(#(#region_cells.take()?),*))
                }
            }

            #(
                #[doc = #cell_docs]
                #[link_section = #sections]
                static #region_cells: rt::RegionCell<#region_sizes> = rt::RegionCell::new();
            )*
        }
    };
    let default_impl = match member {
        None if !regions.is_empty() => quote! {},
        None => quote! {
            impl Default for #name {
                fn default() -> Self {
                    Self::new()
                }
            }
        },
        Some(_) => quote! {},
    };
    let code = quote! {
        #[doc(hidden)]
        #[allow(clippy::all, clippy::pedantic, dead_code, non_upper_case_globals, unused_imports)]
        pub mod #module {
            use #rt as rt;
            use super::#constants_module as constants;

            #struct_def

            impl #ty {
                /// Bytes of the activation arena.
                pub const ARENA_BYTES: usize = #arena_bytes;
                /// Bytes of the state of variable tensors.
                pub const STATE_BYTES: usize = #state_bytes;
                /// Number of inputs.
                pub const INPUTS: usize = #n_inputs;
                /// Number of outputs.
                pub const OUTPUTS: usize = #n_outputs;

                #constructors

                #[doc = #reset_doc]
                pub fn reset(&mut self) {
                    #reset_state
                    #set_flag
                }

                #accessors

                #[doc = #invoke_doc]
                pub fn invoke(&mut self) {
                    self.invoke_with(&mut rt::NoHook)
                }

                /// Runs the model once, calling `hook` before and after each operator (see
                /// `OperatorHook`); with `NoHook` this is `invoke`.
                pub fn invoke_with<H: rt::OperatorHook>(&mut self, hook: &mut H) {
                    #flag_check
                    #bind_arena
                    #(#steps)*
                }
            }

            #region_impl

            #default_impl

            #model_impl

            #(#statics)*
        }
        pub use #module::#name;
    };
    let file: syn::File = syn::parse2(code).map_err(|e| Error::Internal {
        detail: format!("generated Rust does not parse: {e}"),
    })?;
    Ok(ModelCode {
        code: plain_step_comments(&prettyplease::unparse(&file)),
        module,
        constants,
        packed: emitter.packed.into_inner(),
    })
}

/// One model of a group, for [`group_source`].
pub struct RustMember<'g, 'm> {
    /// The model.
    pub graph: &'g Graph<'m>,
    /// Its lowered calls.
    pub calls: &'g [Call],
    /// Its handle's name (`options.name`; its accessor on the group is that in snake case), the
    /// runtime path and its file name.
    pub options: RustOptions,
    /// What it keeps out of the shared arena, as declared (`output0`, `inputs`, …).
    pub keep: Vec<String>,
}

/// The accessor of a model named `name` on its group: `Kws` → `kws()`.
pub fn accessor_name(name: &str) -> String {
    snake_case(name)
}

/// Renders a group of models, run one after another in one buffer laid out as `group` says, as
/// one Rust source file: a struct `group_name` owning the buffer, with an accessor per model
/// returning a handle with a single model's API.
pub fn group_source<'m>(
    group_name: &str,
    runtime_path: &str,
    members: &[RustMember<'_, 'm>],
    group: &super::group::GroupLayout,
) -> Result<Source<'m>> {
    let rt = parse_tokens(runtime_path, "runtime path")?;
    let group_ident = ident(group_name)?;
    // No model's module (`__tinyaot_<snake case>`) is named so: `Config` refuses such names.
    let group_module = format_ident!("__tinyaot_group_{}", snake_case(group_name));
    let mut codes = Vec::new();
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut methods = Vec::new();
    let mut resets = Vec::new();
    let mut summary = String::new();
    for (member, place) in members.iter().zip(&group.members) {
        let name = ident(&member.options.name)?;
        let accessor_text = accessor_name(&member.options.name);
        let accessor = syn::parse_str::<Ident>(&accessor_text).map_err(|_| Error::Config {
            detail: format!(
                "model `{}`: its accessor `{accessor_text}` is not a Rust identifier; choose \
                 another name",
                member.options.name
            ),
        })?;
        let kept = if member.keep.is_empty() {
            "It keeps nothing out of the shared arena.".to_string()
        } else {
            format!(
                "It keeps {} out of the shared arena: {} the other models' invokes.",
                member.keep.join(", "),
                if member.keep.len() == 1 {
                    "that survives"
                } else {
                    "those survive"
                }
            )
        };
        let membership = Membership {
            memory_bytes: group.memory_bytes,
            group: group_name,
            accessor: &accessor_text,
            kept: &kept,
        };
        let code = model_code(
            member.graph,
            &place.layout,
            member.calls,
            &member.options,
            Some(&membership),
        )?;
        let packed_bytes: usize = code.packed.iter().map(|p| p.data.len()).sum();
        let _ = writeln!(
            summary,
            "// `{}` (`{}`): {} operators; arena {} bytes; state {} bytes; kept {} bytes; \
             constants {} bytes.",
            member.options.name,
            member.options.source_name,
            member.graph.operators.len(),
            place.layout.arena_bytes,
            place.layout.state_bytes,
            place.kept_bytes,
            super::constant_bytes(member.graph, &code.constants) + packed_bytes
        );
        let doc = doc_lines(&format!(
            "Model `{}` (from `{}`), borrowing the group: invoking it overwrites the shared \
             arena. The borrow checker keeps a reference into one model's inputs or outputs \
             from living across another model's invoke.",
            member.options.name, member.options.source_name
        ));
        let has_flag = !place.layout.state_starts_zeroed();
        let flag = format_ident!("{}_state_ready", accessor_text);
        if has_flag {
            let flag_doc = format!(
                " Whether `{}`'s state holds its initial value or a later one.",
                member.options.name
            );
            fields.push(quote! { #[doc = #flag_doc] #flag: bool, });
            inits.push(quote! { , #flag: false });
            methods.push(quote! {
                #doc
                pub fn #accessor(&mut self) -> super::#name<'_> {
                    super::#name { arena: &mut self.memory, state_ready: &mut self.#flag }
                }
            });
        } else {
            methods.push(quote! {
                #doc
                pub fn #accessor(&mut self) -> super::#name<'_> {
                    super::#name { arena: &mut self.memory }
                }
            });
        }
        resets.push(quote! { self.#accessor().reset(); });
        codes.push(code);
    }
    let shared = lit(group.shared_bytes);
    let memory = lit(group.memory_bytes);
    let group_doc = doc_lines(&format!(
        "{} models that run one after another in one buffer: a shared arena of {} bytes (the \
         largest of their arenas), then each model's own state and kept inputs and outputs ({} \
         bytes in all). Each accessor borrows the group and returns the model's handle.",
        members.len(),
        group.shared_bytes,
        group.memory_bytes
    ));
    let code = quote! {
        #[doc(hidden)]
        #[allow(clippy::all, clippy::pedantic, dead_code, non_upper_case_globals, unused_imports)]
        pub mod #group_module {
            use #rt as rt;

            #group_doc
            pub struct #group_ident {
                /// The shared arena, then each model's state and kept inputs and outputs.
                memory: rt::Arena<#memory>,
                #(#fields)*
            }

            impl #group_ident {
                /// Bytes of the shared arena: the largest of the models' arenas, 16-byte aligned.
                pub const SHARED_BYTES: usize = #shared;
                /// Bytes of the whole buffer: the shared arena, then each model's own memory.
                pub const MEMORY_BYTES: usize = #memory;

                /// The group with a zeroed buffer (each model's state, if any, takes its initial
                /// value on its first `invoke`); `const`, so it can be a `static`.
                pub const fn new() -> Self {
                    #group_ident { memory: rt::Arena::new() #(#inits)* }
                }

                #(#methods)*

                /// Restores every model's initial state.
                pub fn reset(&mut self) {
                    #(#resets)*
                }
            }

            impl Default for #group_ident {
                fn default() -> Self {
                    Self::new()
                }
            }
        }
        pub use #group_module::#group_ident;
    };
    let file: syn::File = syn::parse2(code).map_err(|e| Error::Internal {
        detail: format!("generated Rust does not parse: {e}"),
    })?;
    let sources: Vec<String> = members
        .iter()
        .map(|m| format!("`{}`", m.options.source_name))
        .collect();
    let mut out = Source::text(format!(
        "// @generated by tinyaot {} from {}. Do not edit: regenerate instead.\n\
         // Group `{group_name}`: {} models run one after another in one buffer of {} bytes: a \
         shared arena of {} bytes, then each model's state and kept inputs and outputs.\n\
         {summary}\n",
        env!("CARGO_PKG_VERSION"),
        sources.join(", "),
        members.len(),
        group.memory_bytes,
        group.shared_bytes,
    ));
    out.push_str(&prettyplease::unparse(&file));
    for code in &codes {
        out.push_str("\n");
        out.push_str(&code.code);
    }
    for (code, member) in codes.iter().zip(members) {
        code.append_constants(&mut out, member.graph, runtime_path);
    }
    Ok(out)
}

/// `text` as doc attributes of at most about 90 columns each, paragraphs (split by a blank line)
/// apart: one long `#[doc]` would be one long line of generated code.
fn doc_lines(text: &str) -> TokenStream {
    let mut lines: Vec<String> = Vec::new();
    for (i, paragraph) in text.split("\n\n").enumerate() {
        if i > 0 {
            lines.push(String::new());
        }
        let mut line = String::new();
        for word in paragraph.split_whitespace() {
            if !line.is_empty() && line.len() + word.len() > 90 {
                lines.push(std::mem::take(&mut line));
            }
            line.push(' ');
            line.push_str(word);
        }
        lines.push(line);
    }
    quote! { #(#[doc = #lines])* }
}

/// The statements of `reset`: each run of the state region set to its initial contents.
fn reset_statements(layout: &Layout) -> TokenStream {
    let mut statements = Vec::new();
    for (offset, init) in &layout.state_init {
        let start = layout.state_base + offset;
        match init {
            StateInit::Fill(bytes, value) => {
                let (start, end, value) =
                    (lit(start), lit(start + bytes), lit(usize::from(*value)));
                statements.push(quote! { self.arena.0[#start..#end].fill(#value); });
            }
            StateInit::Bytes(bytes) => {
                let end = lit(start + bytes.len());
                let start = lit(start);
                let data = proc_macro2::Literal::byte_string(bytes);
                statements.push(quote! { self.arena.0[#start..#end].copy_from_slice(#data); });
            }
        }
    }
    quote! { #(#statements)* }
}

fn header(
    graph: &Graph,
    layout: &Layout,
    options: &RustOptions,
    constants: &BTreeSet<usize>,
    packed_bytes: usize,
) -> String {
    let weights = super::constant_bytes(graph, constants) + packed_bytes;
    format!(
        "// @generated by tinyaot {} from `{}`. Do not edit: regenerate instead.\n\
         // {} operators; arena {} bytes; state {} bytes; constants {} bytes.\n\n",
        env!("CARGO_PKG_VERSION"),
        options.source_name,
        graph.operators.len(),
        layout.arena_bytes,
        layout.state_bytes,
        weights
    )
}

/// Appends `static T<i>: Flash<N>` for every referenced constant tensor and
/// `static W<op>_<FIELD>: Flash<N>` for every constant computed at generation time (`packed`), in
/// a sibling module of the model's.
/// The literals are written directly rather than through prettyplease: each is a single token, and
/// keeping them out of the syntax tree keeps generation fast for multi-megabyte models; their
/// contents are data parts of `out`, escaped only as they are written.
fn append_constants<'m>(
    out: &mut Source<'m>,
    graph: &Graph<'m>,
    module: &Ident,
    runtime_path: &str,
    constants: &BTreeSet<usize>,
    packed: &[PackedConst],
) {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "\n/// Constant tensors of [`{module}`], in flash.\n#[doc(hidden)]\npub mod {module}_constants {{"
    );
    for &t in constants {
        let tensor = &graph.tensors[t];
        let data = Bytes::of_constant(tensor);
        let _ = writeln!(
            text,
            "    /// Tensor {t} {:?}: {} {:?}.",
            tensor.name, tensor.dtype, tensor.shape
        );
        let _ = write!(
            text,
            "    pub static T{t}: {runtime_path}::bytes::Flash<{}> = {runtime_path}::bytes::Flash(*b\"",
            data.len()
        );
        out.push_str(&text);
        text.clear();
        out.push_data(Encoding::RustByteString, data);
        text.push_str("\");\n");
    }
    for p in packed {
        let _ = writeln!(text, "    /// {}", p.doc);
        let _ = write!(
            text,
            "    pub static {}: {runtime_path}::bytes::Flash<{}> = {runtime_path}::bytes::Flash(*b\"",
            p.name,
            p.data.len()
        );
        out.push_str(&text);
        text.clear();
        out.push_data(Encoding::RustByteString, p.data.clone());
        text.push_str("\");\n");
    }
    text.push_str("}\n");
    out.push_str(&text);
}

/// The `Flash` view that gives constant data of `dtype` as the slice the kernels read.
fn flash_view(dtype: DType) -> TokenStream {
    match dtype {
        DType::I8 => quote! { as_i8() },
        DType::I16 => quote! { as_i16() },
        DType::I32 => quote! { as_i32() },
        DType::I64 => quote! { as_i64() },
        DType::F32 => quote! { as_f32() },
        _ => quote! { bytes() },
    }
}

/// Marks the doc attributes that carry step comments through `quote!` (which drops comments).
const STEP_MARK: &str = "@step ";

/// Turns the marked doc comments inside `invoke` into plain `//` comments: doc comments on
/// statements are a warning, and these are for readers of the generated code, not for rustdoc.
fn plain_step_comments(code: &str) -> String {
    let marked = format!("///{STEP_MARK}");
    let mut out = String::with_capacity(code.len());
    for line in code.lines() {
        match line.trim_start().strip_prefix(&marked) {
            Some(rest) => {
                let indent = &line[..line.len() - line.trim_start().len()];
                out.push_str(indent);
                out.push_str("// ");
                out.push_str(rest);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

struct Emitter<'g, 'm> {
    graph: &'g Graph<'m>,
    layout: &'g Layout,
    rt: TokenStream,
    /// The generation-time constants of the kernel parameters, in the order met.
    packed: RefCell<Vec<PackedConst>>,
    /// The buffers `invoke` refers to (`None`: the model's own; `Some(k)`: memory region `k`),
    /// each bound to a local slice once.
    used: RefCell<BTreeSet<Option<usize>>>,
}

/// A generation-time constant of a kernel parameter, a static beside the constant tensors.
struct PackedConst {
    name: String,
    doc: String,
    data: Arc<[u8]>,
}

impl Emitter<'_, '_> {
    /// The local slice `invoke` binds to buffer `memory` (`arena`, or the region's name), noted
    /// as used.
    fn binding(&self, memory: Option<usize>) -> Ident {
        self.used.borrow_mut().insert(memory);
        match memory.and_then(|k| self.layout.memory_regions.get(k)) {
            Some(used) => format_ident!("{}", used.region.name),
            None => format_ident!("arena"),
        }
    }

    /// The struct field of buffer `memory`, through which accessors reach it.
    fn field(&self, memory: Option<usize>) -> TokenStream {
        match memory.and_then(|k| self.layout.memory_regions.get(k)) {
            Some(used) => {
                let name = format_ident!("{}", used.region.name);
                quote! { self.#name.0 }
            }
            None => quote! { self.arena.0 },
        }
    }

    fn step(
        &self,
        call: &Call,
        statics: &mut Vec<TokenStream>,
        constants: &mut BTreeSet<usize>,
    ) -> Result<TokenStream> {
        match &call.kind {
            CallKind::Alias { input, output } => {
                let (from, to) = (self.layout.place(*input)?, self.layout.place(*output)?);
                if from == to {
                    Ok(quote! { {} })
                } else if from.memory_region != to.memory_region {
                    Err(Error::Internal {
                        detail: format!("operator #{}: a copy between memory regions", call.op),
                    })
                } else {
                    let buffer = self.binding(to.memory_region);
                    let (from, to) = (lit(from.offset), lit(to.offset));
                    let bytes = lit(self.graph.tensors[*output].bytes);
                    Ok(quote! { rt::kernels::copy::copy(#buffer, #from, #to, #bytes); })
                }
            }
            CallKind::Kernel(kernel) => self.kernel_step(call.op, kernel, statics, constants),
            CallKind::Nothing => Ok(quote! { {} }),
        }
    }

    fn kernel_step(
        &self,
        op: usize,
        kernel: &KernelCall,
        statics: &mut Vec<TokenStream>,
        constants: &mut BTreeSet<usize>,
    ) -> Result<TokenStream> {
        let module = format_ident!("{}", kernel.module);
        let function = format_ident!("{}", kernel.function);
        // The kernel works in one buffer: that of its offset operands (and scratch memory, in
        // the model's own), which the planner keeps together.
        let mut memories = BTreeSet::new();
        for operand in &kernel.operands {
            match *operand {
                Operand::Offset(t) => {
                    memories.insert(self.layout.place(t)?.memory_region);
                }
                Operand::Scratch(_) => {
                    memories.insert(None);
                }
                Operand::Src(_) => {}
            }
        }
        if memories.len() > 1 {
            return Err(Error::Internal {
                detail: format!("operator #{op}: the kernel's offsets lie in two memory regions"),
            });
        }
        let memory = memories.into_iter().next().flatten();
        let mut args = Vec::new();
        let mut scratch_slot = 0;
        for operand in &kernel.operands {
            if let Operand::Scratch(_) = operand {
                let offset = lit(self.layout.scratch_offset(op, scratch_slot)?);
                scratch_slot += 1;
                args.push(quote! { #offset });
                continue;
            }
            args.push(self.operand(*operand, memory, constants)?);
        }
        if let Some(params) = &kernel.params {
            let ty = format_ident!("{}", params.type_name);
            let label = self.graph.operators[op].source_index;
            let name = format_ident!("P{}", label);
            let mut fields = Vec::new();
            for (field, value) in &params.fields {
                let value = self.value(value, constants, (label, field))?;
                let field = format_ident!("{}", field);
                fields.push(quote! { #field: #value });
            }
            statics.push(quote! {
                static #name: rt::kernels::#module::#ty = rt::kernels::#module::#ty { #(#fields),* };
            });
            args.push(quote! { &#name });
        }
        let buffer = self.binding(memory);
        Ok(quote! { rt::kernels::#module::#function(#buffer, #(#args),*); })
    }

    /// Operand `operand` of a kernel working in buffer `memory`.
    fn operand(
        &self,
        operand: Operand,
        memory: Option<usize>,
        constants: &mut BTreeSet<usize>,
    ) -> Result<TokenStream> {
        match operand {
            Operand::Offset(t) => {
                let offset = lit(self.layout.place(t)?.offset);
                Ok(quote! { #offset })
            }
            Operand::Src(t) if self.graph.tensors[t].is_constant() => {
                let path = self.constant_path(t, constants);
                Ok(quote! { rt::Src::Flash(#path.bytes()) })
            }
            Operand::Src(t) => {
                let place = self.layout.place(t)?;
                if place.memory_region == memory {
                    let offset = lit(place.offset);
                    Ok(quote! { rt::Src::Arena(#offset) })
                } else {
                    // In another buffer: its bytes, read like a constant's.
                    let buffer = self.binding(place.memory_region);
                    let (start, end) = (
                        lit(place.offset),
                        lit(place.offset + self.graph.tensors[t].bytes),
                    );
                    Ok(quote! { rt::Src::Flash(&#buffer[#start..#end]) })
                }
            }
            Operand::Scratch(_) => Err(Error::Internal {
                detail: "scratch memory is resolved by its operator's step".to_string(),
            }),
        }
    }

    fn constant_path(&self, t: usize, constants: &mut BTreeSet<usize>) -> TokenStream {
        constants.insert(t);
        let name = format_ident!("T{}", t);
        quote! { constants::#name }
    }

    /// The Rust expression of `value`, the field `at.1` of operator `at.0`'s parameters.
    fn value(
        &self,
        value: &Value,
        constants: &mut BTreeSet<usize>,
        at: (usize, &str),
    ) -> Result<TokenStream> {
        Ok(match value {
            Value::Usize(v) => unsuffixed(*v as i128),
            Value::I32(v) => unsuffixed(i128::from(*v)),
            Value::F32(v) => f32_literal(*v),
            Value::Bool(v) => quote! { #v },
            Value::Usizes(v) => {
                let items = v.iter().map(|x| unsuffixed(*x as i128));
                quote! { &[#(#items),*] }
            }
            Value::I8s(v) => {
                let items = v.iter().map(|x| unsuffixed(i128::from(*x)));
                quote! { &[#(#items),*] }
            }
            Value::I16s(v) => {
                let items = v.iter().map(|x| unsuffixed(i128::from(*x)));
                quote! { &[#(#items),*] }
            }
            Value::I32s(v) => {
                let items = v.iter().map(|x| unsuffixed(i128::from(*x)));
                quote! { &[#(#items),*] }
            }
            Value::I64s(v) => {
                let items = v.iter().map(|x| unsuffixed(i128::from(*x)));
                quote! { &[#(#items),*] }
            }
            Value::F32s(v) => {
                let items = v.iter().map(|x| f32_literal(*x));
                quote! { &[#(#items),*] }
            }
            Value::Tensor(t) => {
                let tensor = self.graph.tensors.get(*t).filter(|t| t.is_constant());
                let Some(tensor) = tensor else {
                    return Err(Error::Internal {
                        detail: format!("tensor {t} is used as a constant but has no data"),
                    });
                };
                let view = flash_view(tensor.dtype);
                let path = self.constant_path(*t, constants);
                quote! { #path.#view }
            }
            Value::Packed(packed) => {
                let (op, field) = at;
                // `W`: weights, like the tensors (`T`) they are derived from.
                let name = format!("W{op}_{}", field.to_uppercase());
                self.packed.borrow_mut().push(PackedConst {
                    name: name.clone(),
                    doc: format!(
                        "Operator {op}'s `{field}`, laid out for its kernel at generation time: \
                         {}, {} bytes.",
                        packed.dtype,
                        packed.bytes.len()
                    ),
                    data: packed.bytes.clone(),
                });
                let view = flash_view(packed.dtype);
                let name = format_ident!("{}", name);
                quote! { constants::#name.#view }
            }
            Value::Some(inner) => {
                let inner = self.value(inner, constants, at)?;
                quote! { Some(#inner) }
            }
            Value::None => quote! { None },
        })
    }

    /// Typed accessors and quantization constants of inputs and outputs.
    fn accessors(&self, constants: &mut BTreeSet<usize>) -> Result<TokenStream> {
        let (inputs, outputs) = io_tensors(self.graph);
        let mut items = Vec::new();
        for (kind, list) in [("input", &inputs), ("output", &outputs)] {
            for (i, io) in list.iter().enumerate() {
                let tensor = io.tensor;
                let upper = format!("{}{}", kind.to_uppercase(), i);
                let shape_name = format_ident!("{}_SHAPE", upper);
                let shape = tensor.shape.iter().map(|&d| lit(d));
                let rank = lit(tensor.shape.len());
                let shape_doc = format!(
                    " Shape of {kind} {i} ({:?}, {}).",
                    tensor.name, tensor.dtype
                );
                items.push(quote! {
                    #[doc = #shape_doc]
                    pub const #shape_name: [usize; #rank] = [#(#shape),*];
                });
                if let Some(q) = &tensor.quant {
                    items.push(quant_consts(&upper, kind, i, q));
                }
                let Some(element) = rust_element(tensor.dtype) else {
                    continue;
                };
                let element = format_ident!("{}", element);
                let len = lit(tensor.num_elements());
                let doc = format!(" {kind} {i} {:?}, typed.", tensor.name);
                if let (true, "output") = (tensor.is_constant(), kind) {
                    // A constant graph output (TFLM returns the constant's data): from flash.
                    let getter = format_ident!("output{}", i);
                    let path = self.constant_path(io.index, constants);
                    items.push(quote! {
                        #[doc = #doc]
                        pub fn #getter(&self) -> &[#element; #len] {
                            rt::bytes::array(#path.bytes(), 0)
                        }
                    });
                    continue;
                }
                let (field, offset) = match self.layout.locations[io.index] {
                    Some(Location::Arena(offset)) => (self.field(None), offset),
                    Some(Location::Memory(k, offset)) => (self.field(Some(k)), offset),
                    _ => continue,
                };
                let offset = lit(offset);
                if kind == "input" {
                    let getter = format_ident!("input{}_mut", i);
                    items.push(quote! {
                        #[doc = #doc]
                        pub fn #getter(&mut self) -> &mut [#element; #len] {
                            rt::bytes::array_mut(&mut #field, #offset)
                        }
                    });
                } else {
                    let getter = format_ident!("output{}", i);
                    items.push(quote! {
                        #[doc = #doc]
                        pub fn #getter(&self) -> &[#element; #len] {
                            rt::bytes::array(&#field, #offset)
                        }
                    });
                }
            }
        }
        Ok(quote! { #(#items)* })
    }

    fn model_impl(
        &self,
        name: &Ident,
        ty: &TokenStream,
        constants: &mut BTreeSet<usize>,
    ) -> Result<TokenStream> {
        let (inputs, outputs) = io_tensors(self.graph);
        let mut input_arms = Vec::new();
        for (i, io) in inputs.iter().enumerate() {
            let place = self.layout.place(io.index)?;
            let field = self.field(place.memory_region);
            let offset = place.offset;
            let (i, end, offset) = (lit(i), lit(offset + io.tensor.bytes), lit(offset));
            input_arms.push(quote! { #i => &mut #field[#offset..#end], });
        }
        let mut output_arms = Vec::new();
        for (i, io) in outputs.iter().enumerate() {
            let i = lit(i);
            if io.tensor.is_constant() {
                let path = self.constant_path(io.index, constants);
                output_arms.push(quote! { #i => #path.bytes(), });
            } else {
                let place = self.layout.place(io.index)?;
                let field = self.field(place.memory_region);
                let offset = place.offset;
                let (end, offset) = (lit(offset + io.tensor.bytes), lit(offset));
                output_arms.push(quote! { #i => &#field[#offset..#end], });
            }
        }
        Ok(quote! {
            impl rt::Model for #ty {
                const ARENA_BYTES: usize = #name::ARENA_BYTES;
                const INPUTS: usize = #name::INPUTS;
                const OUTPUTS: usize = #name::OUTPUTS;

                fn invoke(&mut self) {
                    #name::invoke(self)
                }

                fn invoke_with<H: rt::OperatorHook>(&mut self, hook: &mut H) {
                    #name::invoke_with(self, hook)
                }

                fn input_bytes_mut(&mut self, index: usize) -> &mut [u8] {
                    match index {
                        #(#input_arms)*
                        _ => panic!("input index out of range"),
                    }
                }

                fn output_bytes(&self, index: usize) -> &[u8] {
                    match index {
                        #(#output_arms)*
                        _ => panic!("output index out of range"),
                    }
                }

                fn reset(&mut self) {
                    #name::reset(self)
                }
            }
        })
    }
}

fn quant_consts(upper: &str, kind: &str, i: usize, q: &Quantization) -> TokenStream {
    let scale_name = format_ident!("{}_SCALE", upper);
    let zp_name = format_ident!("{}_ZERO_POINT", upper);
    let scale = f32_literal(q.scales.first().copied().unwrap_or(0.0));
    let zp = unsuffixed(i128::from(q.zero_points.first().copied().unwrap_or(0)));
    let scale_doc = format!(" Quantization scale of {kind} {i}: real = scale * (q - zero_point).");
    let zp_doc = format!(" Quantization zero point of {kind} {i}.");
    quote! {
        #[doc = #scale_doc]
        pub const #scale_name: f32 = #scale;
        #[doc = #zp_doc]
        pub const #zp_name: i32 = #zp;
    }
}

/// A `usize` literal without a type suffix.
fn lit(v: usize) -> proc_macro2::Literal {
    proc_macro2::Literal::usize_unsuffixed(v)
}

/// An integer literal without a type suffix (the field's type gives it one); negative values are a
/// minus sign and a literal, as Rust parses them.
fn unsuffixed(v: i128) -> TokenStream {
    let magnitude = proc_macro2::Literal::u128_unsuffixed(v.unsigned_abs());
    if v < 0 {
        quote! { -#magnitude }
    } else {
        quote! { #magnitude }
    }
}

/// An exact `f32` literal (Rust's `{:?}` prints the shortest text that reads back to the same value).
fn f32_literal(v: f32) -> TokenStream {
    if v.is_nan() {
        quote! { f32::NAN }
    } else if v == f32::INFINITY {
        quote! { f32::INFINITY }
    } else if v == f32::NEG_INFINITY {
        quote! { f32::NEG_INFINITY }
    } else {
        let text = format!("{v:?}f32");
        // `{:?}` of a finite f32 is always a valid literal (possibly with a leading minus).
        text.parse().unwrap_or_else(|_| quote! { 0.0f32 })
    }
}

fn parse_tokens(text: &str, what: &str) -> Result<TokenStream> {
    syn::parse_str::<syn::Path>(text)
        .map(|p| quote! { #p })
        .map_err(|e| Error::Config {
            detail: format!("invalid {what} `{text}`: {e}"),
        })
}

fn ident(name: &str) -> Result<Ident> {
    syn::parse_str::<Ident>(name)
        .map(|_| Ident::new(name, Span::call_site()))
        .map_err(|_| Error::Config {
            detail: format!("model name `{name}` is not a Rust identifier"),
        })
}

/// `PersonDetect` → `person_detect`.
pub(crate) fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `person_detect` / `person-detect.v2` → `PersonDetectV2`: the default struct name for a file stem.
pub fn camel_case(stem: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'M');
    }
    out
}

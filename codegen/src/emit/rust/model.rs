//! One model's module: its struct (owning its buffer, or borrowing a group's), its constants,
//! `reset` and `invoke`, formatted by prettyplease.

use std::cell::RefCell;
use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::constants::{append_constants, PackedConst};
use super::emitter::Emitter;
use super::tokens::{ident, lit, parse_tokens, snake_case};
use super::RustOptions;
use crate::emit::{Layout, Source, StateInit};
use crate::error::{Error, Result};
use crate::ir::Graph;
use crate::lower::{Call, CallKind};

/// One model's generated code: its module (formatted), and the constants it refers to, which go
/// to a sibling module appended after the code ([`ModelCode::append_constants`]).
pub(super) struct ModelCode {
    pub(super) code: String,
    pub(super) module: Ident,
    pub(super) constants: BTreeSet<usize>,
    pub(super) packed: Vec<PackedConst>,
}

impl ModelCode {
    pub(super) fn append_constants<'m>(
        &self,
        out: &mut Source<'m>,
        graph: &Graph<'m>,
        runtime_path: &str,
    ) {
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
pub(super) struct Membership<'a> {
    /// Bytes of the group's buffer.
    pub(super) memory_bytes: usize,
    /// The group's struct, for the documentation.
    pub(super) group: &'a str,
    /// The model's accessor on the group.
    pub(super) accessor: &'a str,
    /// What the model keeps out of the shared arena, for the documentation.
    pub(super) kept: &'a str,
}

/// The module of one model: a struct owning its buffer, or with `member`, a handle borrowing the
/// group's.
pub(super) fn model_code(
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
    let mut each = Vec::new();
    for call in calls {
        let op = &graph.operators[call.op];
        let name = op.kind.name();
        // Comments and hooks name the operator as the model does (its position may differ; an
        // operator of an IF's branch by its index in its subgraph, which the comment names).
        let comment = format!(
            "{STEP_MARK}operator {}: {}",
            op.source_index,
            op.display_name()
        );
        let index = lit(op.source_index);
        let step = emitter.step(call, &mut statics, &mut constants)?;
        // A WHILE's exit leaves its loop after the hook has seen the step end; a kernel that
        // stops the invoke (a CIRCULAR_BUFFER waiting for frames) returns from it there.
        let exit = match &call.kind {
            CallKind::Exit { cond } => {
                let test = emitter.condition(*cond, false)?;
                quote! { if #test { break; } }
            }
            CallKind::Kernel(k) => match k.stop {
                Some((tensor, byte)) => {
                    let test = emitter.stop_test(tensor, byte)?;
                    quote! { if #test { return false; } }
                }
                None => quote! {},
            },
            _ => quote! {},
        };
        each.push(quote! {
            #[doc = #comment]
            hook.before(#index, #name);
            #step
            hook.after(#index, #name);
            #exit
        });
    }
    // The steps of an IF's branches run under its condition: a run of the then branch's steps,
    // followed by a run of the else branch's, is one `if … else …`. The steps of a WHILE's loop
    // are one `loop`, which its exit leaves.
    let mut steps = Vec::new();
    for run in crate::emit::branch_runs(graph, calls)? {
        let body = &each[run.steps.clone()];
        if run.looped.is_some() {
            steps.push(quote! { loop { #(#body)* } });
            continue;
        }
        let Some((cond, taken)) = run.guard else {
            steps.extend(body.iter().cloned());
            continue;
        };
        let test = emitter.condition(cond, taken)?;
        steps.push(match run.otherwise.clone() {
            Some(otherwise) => {
                let otherwise = &each[otherwise];
                quote! { if #test { #(#body)* } else { #(#otherwise)* } }
            }
            None => quote! { if #test { #(#body)* } },
        });
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
    let stops = crate::emit::stops(calls);
    let model_impl = emitter.model_impl(&name, &ty, &mut constants, stops)?;
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
    let invoke_fns = if stops {
        let doc = format!(
            "{invoke_doc}\n\nReturns `true` when the model ran to its end, `false` when a \
             CIRCULAR_BUFFER operator is still waiting for frames: as TFLM's invoke returning \
             `kTfLiteAbort`, the operators after it did not run and the outputs hold nothing of \
             this invoke."
        );
        let doc = doc_lines(&doc);
        quote! {
            #doc
            pub fn invoke(&mut self) -> bool {
                self.invoke_with(&mut rt::NoHook)
            }

            /// Runs the model once, calling `hook` before and after each operator (see
            /// `OperatorHook`); with `NoHook` this is `invoke`, and returns what it returns.
            pub fn invoke_with<H: rt::OperatorHook>(&mut self, hook: &mut H) -> bool {
                #flag_check
                #bind_arena
                #(#steps)*
                true
            }
        }
    } else {
        quote! {
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

                #invoke_fns
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

/// `text` as doc attributes of at most about 90 columns each, paragraphs (split by a blank line)
/// apart: one long `#[doc]` would be one long line of generated code.
pub(super) fn doc_lines(text: &str) -> TokenStream {
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

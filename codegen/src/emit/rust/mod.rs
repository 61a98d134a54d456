//! The Rust backend: `quote!` for the code, `prettyplease` to format it, and constant data appended
//! as byte-string literals (one token each, so a multi-megabyte model stays fast to parse and compile).
//! The literals are [`Source`] data parts: encoded only as they are written ([`source`]), never held
//! whole in memory.

mod constants;
mod emitter;
mod model;
mod tokens;

use std::collections::BTreeSet;
use std::fmt::Write as _;

use proc_macro2::Ident;
use quote::{format_ident, quote};

use super::{Layout, Source};
use crate::error::{Error, Result};
use crate::ir::Graph;
use crate::lower::Call;
use model::{doc_lines, model_code, Membership};
pub use tokens::camel_case;
pub(crate) use tokens::snake_case;
use tokens::{ident, lit, parse_tokens};

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

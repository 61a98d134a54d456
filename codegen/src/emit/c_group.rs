//! The C backend for a group of models that run one after another in one buffer
//! ([`super::group`]): `<group>.h` and `<group>.c` define the buffer, `<group>_arena`, and each
//! model's files are those of a model of its own ([`super::c::sources`]) but for its `.c`, which
//! addresses the group's buffer instead of defining an arena.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::c::{file_names, sources_in, COptions};
use super::c_data::comment;
use super::group::GroupLayout;
use super::Source;
use crate::error::{Error, Result};
use crate::ir::Graph;
use crate::lower::Call;

/// One model of a group, for [`group_sources`].
pub struct CMember<'g, 'm> {
    /// The model.
    pub graph: &'g Graph<'m>,
    /// Its lowered calls.
    pub calls: &'g [Call],
    /// Its prefix and file name.
    pub options: COptions,
}

/// The files of a group: `<group>.h`, `<group>.c`, then every model's files in the order of
/// [`super::c::sources`]. Refuses prefixes whose files or names could collide.
pub fn group_sources<'m>(
    group: &str,
    members: &[CMember<'_, 'm>],
    layout: &GroupLayout,
) -> Result<Vec<(String, Source<'m>)>> {
    super::c_data::check_prefix(group)?;
    check_prefixes(group, members)?;
    let mut files = Vec::new();
    let mut summary = String::new();
    for (member, place) in members.iter().zip(&layout.members) {
        let prefix = &member.options.prefix;
        let model = sources_in(
            member.graph,
            &place.layout,
            member.calls,
            &member.options,
            Some(group),
        )
        .map_err(|e| in_model(prefix, e))?;
        let _ = writeln!(
            summary,
            " *   {prefix} ({}): arena {} bytes, state {} bytes at {}, kept {} bytes at {}",
            comment(&member.options.source_name),
            place.layout.arena_bytes,
            place.layout.state_bytes,
            place.layout.state_base,
            place.kept_bytes,
            place.kept_base
        );
        files.extend(model);
    }
    let mut names: BTreeMap<&str, ()> = BTreeMap::new();
    for (name, _) in &files {
        if names.insert(name.as_str(), ()).is_some() {
            return Err(Error::Internal {
                detail: format!("two models of the group generate the file {name}"),
            });
        }
    }
    let (header, source) = group_files(group, members, layout, &summary);
    files.insert(0, (format!("{group}.c"), Source::text(source)));
    files.insert(0, (format!("{group}.h"), Source::text(header)));
    Ok(files)
}

/// The error of model `prefix`, naming it.
fn in_model(prefix: &str, error: Error) -> Error {
    Error::InModel {
        model: prefix.to_string(),
        error: Box::new(error),
    }
}

/// Every name the generated C defines starts with its prefix and `_`, or is the prefix itself
/// (`<prefix>.h`): the group's and the models' prefixes are distinct, and none starts with another
/// followed by `_` (`kws` and `kws_conv` would both define `kws_conv.c`).
fn check_prefixes(group: &str, members: &[CMember]) -> Result<()> {
    let prefixes: Vec<(&str, String)> = std::iter::once((group, "the group".to_string()))
        .chain(members.iter().map(|m| {
            (
                m.options.prefix.as_str(),
                format!("model `{}`", m.options.source_name),
            )
        }))
        .collect();
    for (i, (a, what_a)) in prefixes.iter().enumerate() {
        for (b, what_b) in &prefixes[i + 1..] {
            let clash = a == b
                || b.strip_prefix(a).is_some_and(|r| r.starts_with('_'))
                || a.strip_prefix(b).is_some_and(|r| r.starts_with('_'));
            if clash {
                return Err(Error::Config {
                    detail: format!(
                        "the C prefixes `{a}` ({what_a}) and `{b}` ({what_b}) collide: each \
                         model and the group need a prefix of their own, none starting with \
                         another followed by `_`"
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Every file name [`group_sources`] can produce for these prefixes, whatever the models: what a
/// later run may replace or remove.
pub fn group_file_names(group: &str, prefixes: &[&str]) -> Vec<String> {
    let mut names = vec![format!("{group}.h"), format!("{group}.c")];
    for prefix in prefixes {
        names.extend(file_names(prefix));
    }
    names
}

/// `<group>.h` and `<group>.c`.
fn group_files(
    group: &str,
    members: &[CMember],
    layout: &GroupLayout,
    summary: &str,
) -> (String, String) {
    let upper = group.to_ascii_uppercase();
    let sources: Vec<String> = members
        .iter()
        .map(|m| format!("`{}`", comment(&m.options.source_name)))
        .collect();
    let includes: String = members
        .iter()
        .map(|m| format!("#include \"{}.h\"\n", m.options.prefix))
        .collect();
    let resets: String = members
        .iter()
        .map(|m| format!("    {}_reset();\n", m.options.prefix))
        .collect();
    let bytes = layout.memory_bytes.max(1);
    let header = format!(
        "/* @generated by tinyaot {version} from {sources}. Do not edit: regenerate instead.\n\
         \x20*\n\
         \x20* Group {group}: {n} models that run one after another in one buffer,\n\
         \x20* {group}_arena ({memory} bytes): a shared arena of {shared} bytes (the largest of\n\
         \x20* the models' arenas), then each model's own state and kept inputs and outputs:\n\
         {summary} *\n\
         \x20* Invoking one model overwrites what the others left in the shared arena, their\n\
         \x20* inputs and outputs included, except those kept after it; each model's state is\n\
         \x20* its own.\n\
         \x20* Run the models one at a time (never from two threads or an interrupt at once).\n\
         \x20* Build: cc -std=c99 {group}.c and every model's .c files.\n\
         \x20*/\n\
         #ifndef {upper}_TINYAOT_GROUP_H\n\
         #define {upper}_TINYAOT_GROUP_H\n\
         \n\
         #include <stddef.h>\n\
         #include <stdint.h>\n\
         \n\
         {includes}\
         \n\
         #ifdef __cplusplus\n\
         extern \"C\" {{\n\
         #endif\n\
         \n\
         /** Bytes of the shared arena: the largest of the models' arenas, 16-byte aligned. */\n\
         #define {upper}_SHARED_BYTES {shared}u\n\
         /** Bytes of the whole buffer: the shared arena, then every model's state and kept\n\
         \x20* inputs and outputs. */\n\
         #define {upper}_MEMORY_BYTES {memory}u\n\
         \n\
         /** The group's buffer, 16-byte aligned. The models' functions address it: use those. */\n\
         typedef union {{\n\
         \x20   uint8_t bytes[{bytes}];\n\
         \x20   uint64_t align_u64;\n\
         \x20   long double align_ld;\n\
         \x20   void *align_ptr;\n\
         }} {group}_arena_t;\n\
         extern {group}_arena_t {group}_arena;\n\
         \n\
         /** Restores every model's initial state. */\n\
         void {group}_reset(void);\n\
         \n\
         #ifdef __cplusplus\n\
         }}\n\
         #endif\n\
         \n\
         #endif /* {upper}_TINYAOT_GROUP_H */\n",
        version = env!("CARGO_PKG_VERSION"),
        sources = sources.join(", "),
        n = members.len(),
        memory = layout.memory_bytes,
        shared = layout.shared_bytes,
    );
    let source = format!(
        "/* @generated by tinyaot {version} from {sources}. Do not edit: regenerate instead.\n\
         \x20*\n\
         \x20* The buffer of group {group} ({group}.h).\n\
         \x20*/\n\
         #include \"{group}.h\"\n\
         \n\
         /* C99 has no alignas: GNU-compatible compilers get the attribute, others the alignment\n\
         \x20* of the union's widest member. */\n\
         #ifdef __GNUC__\n\
         {group}_arena_t __attribute__((aligned(16))) {group}_arena;\n\
         #else\n\
         {group}_arena_t {group}_arena;\n\
         #endif\n\
         \n\
         void {group}_reset(void)\n\
         {{\n\
         {resets}\
         }}\n",
        version = env!("CARGO_PKG_VERSION"),
        sources = sources.join(", "),
    );
    (header, source)
}

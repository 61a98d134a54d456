//! The code's structure, checked: each module of `codegen/src` imports only from its own layer or
//! the layers below it, and the memory planner's modules (`plan/`) import one another without a
//! cycle. docs/ARCHITECTURE.md describes the layers; a new module joins `LAYERS` there and here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules of `codegen/src`, lowest first: a module may use its own layer and the
/// ones before it. `fold` sits above `lower` and `plan` because it runs their kernels and their
/// alignment at generation time, though in the pipeline it comes first.
const LAYERS: &[&[&str]] = &[
    &["error", "limits"],
    &["ir"],
    &["load"],
    &["lower"],
    &["cost"],
    &["plan"],
    &["fold"],
    &["emit"],
    &["config"],
    &["lib"],
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read the source directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no Rust source under {}", dir.display());
    files
}

/// The file's code without comments (line comments, doc comments) and without its `#[cfg(test)]`
/// module, which may use anything.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("read a source file");
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => &text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers that follow `prefix` in `code` (`crate::` → `ir`, `plan`, …).
fn names_after<'a>(code: &'a str, prefix: &str) -> BTreeSet<&'a str> {
    code.match_indices(prefix)
        .filter(|(at, _)| {
            // A whole path segment: not `xcrate::`.
            !code[..*at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .filter_map(|(at, _)| {
            let rest = &code[at + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            (end > 0).then(|| &rest[..end])
        })
        .collect()
}

/// Names a `use path::{a, b::c, …}` group brings in after `prefix` (`use super::{alias, overlap}`).
fn grouped_after<'a>(code: &'a str, prefix: &str) -> BTreeSet<&'a str> {
    let mut names = BTreeSet::new();
    let group = format!("{prefix}{{");
    for (at, _) in code.match_indices(&group) {
        let rest = &code[at + group.len()..];
        let Some(end) = rest.find('}') else { continue };
        for item in rest[..end].split(',') {
            let first = item.trim().split("::").next().unwrap_or("").trim();
            if !first.is_empty() {
                names.insert(first);
            }
        }
    }
    names
}

fn top_module(path: &Path) -> String {
    let relative = path.strip_prefix(src()).expect("under src");
    let first = relative.components().next().expect("a component");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

#[test]
fn every_module_imports_only_from_its_layer_or_below() {
    let mut violations = Vec::new();
    for path in rust_files(&src()) {
        let module = top_module(&path);
        let Some(own) = layer_of(&module) else {
            panic!(
                "{}: module `{module}` is in no layer of LAYERS: add it (and to \
                 docs/ARCHITECTURE.md)",
                path.display()
            );
        };
        let code = code(&path);
        let used = names_after(&code, "crate::")
            .into_iter()
            .chain(grouped_after(&code, "crate::"));
        for target in used {
            if let Some(theirs) = layer_of(target) {
                if theirs > own {
                    violations.push(format!(
                        "{} ({module}) uses crate::{target}, a layer above its own",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_planner_modules_have_no_import_cycle() {
    let plan = src().join("plan");
    // Module name (`buffer`, `report`, `report::json`) → the modules it uses.
    let module_of = |path: &Path| -> String {
        let relative = path.strip_prefix(&plan).expect("under plan/");
        let mut parts: Vec<String> = relative
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .collect();
        if parts.last().is_some_and(|p| p == "mod") {
            parts.pop();
        }
        if parts.is_empty() {
            "plan".to_string()
        } else {
            parts.join("::")
        }
    };
    let files = rust_files(&plan);
    let modules: BTreeSet<String> = files.iter().map(|p| module_of(p)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in &files {
        let module = module_of(path);
        let code = code(path);
        // The module `super` names from here: a file's parent module.
        let parent = match module.rsplit_once("::") {
            Some((parent, _)) => parent.to_string(),
            None if module == "plan" => String::new(),
            None => "plan".to_string(),
        };
        let resolve = |base: &str, name: &str| -> String {
            let candidate = if base == "plan" || base.is_empty() {
                name.to_string()
            } else {
                format!("{base}::{name}")
            };
            if modules.contains(&candidate) {
                candidate
            } else {
                // An item of `base` itself (a type, a function): an edge to that module.
                if base.is_empty() {
                    "plan".to_string()
                } else {
                    base.to_string()
                }
            }
        };
        let mut uses = BTreeSet::new();
        for name in names_after(&code, "super::")
            .into_iter()
            .chain(grouped_after(&code, "super::"))
        {
            uses.insert(resolve(&parent, name));
        }
        for name in names_after(&code, "crate::plan::")
            .into_iter()
            .chain(grouped_after(&code, "crate::plan::"))
        {
            uses.insert(resolve("plan", name));
        }
        // A module's own children (`mod x;` in mod.rs) are its to use; `self::` is itself.
        uses.remove(&module);
        edges.entry(module).or_default().extend(uses);
    }
    // Depth-first search for a cycle.
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(node) {
            Some(2) => return None,
            Some(1) => {
                let start = stack.iter().position(|n| n == node).unwrap_or(0);
                let mut cycle = stack[start..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, state, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for module in edges.keys() {
        if let Some(cycle) = visit(module, &edges, &mut state, &mut Vec::new()) {
            panic!(
                "plan/ has an import cycle: {} (edges: {edges:?})",
                cycle.join(" → ")
            );
        }
    }
    assert!(modules.len() > 5, "plan/ has {} modules", modules.len());
}

//! `cargo xtask ops [--check]`: what the operator registry (`codegen/src/lower/ops/`, each
//! `OpEntry` with its types) says, written where people read it:
//!
//! - README.md, between `<!-- ops:begin -->` and `<!-- ops:end -->`: the operator count and the
//!   operator × type table (the types tinyaot compiles, those TFLM registers, and the gap);
//! - `tests/ui/cases/unsupported_op.stderr`: the supported operators that `include_model!` lists when
//!   it refuses an operator (the trybuild case `tests/ui/cases/unsupported_op.rs`).
//!
//! `--check` writes nothing and fails when either is out of date (CI runs it, and so does this
//! module's test, which makes `cargo test --workspace` fail on drift).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use tinyaot_codegen::lower::types::{Sig, Types};

/// The README block's name (its markers are `<!-- ops:begin -->` and `<!-- ops:end -->`).
const BLOCK: &str = "ops";

/// The trybuild case whose expected message lists the supported operators.
const UI_STDERR: &str = "tests/ui/cases/unsupported_op.stderr";

/// What precedes the list in that message.
const UI_PREFIX: &str = "supported operators: ";

/// Runs the command.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut check = false;
    for arg in args {
        match arg.as_str() {
            "--check" => check = true,
            other => return Err(format!("ops: unknown argument `{other}`")),
        }
    }
    let root = crate::workspace_root()?;
    let stale = update(&root, check)?;
    if check && !stale.is_empty() {
        return Err(format!(
            "out of date with the operator registry: {}; run `cargo xtask ops`",
            stale.join(", ")
        ));
    }
    Ok(())
}

/// Writes (or with `check`, only compares) the generated files; returns those that were stale.
fn update(root: &Path, check: bool) -> Result<Vec<String>, String> {
    let mut stale = Vec::new();
    for (path, text) in outputs(root)? {
        let current =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if current == text {
            continue;
        }
        let name = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        if check {
            stale.push(name);
        } else {
            std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            eprintln!("ops: wrote {name}");
        }
    }
    Ok(stale)
}

/// The files this command writes, with their new content.
fn outputs(root: &Path) -> Result<Vec<(PathBuf, String)>, String> {
    let readme_path = root.join("README.md");
    let readme = std::fs::read_to_string(&readme_path)
        .map_err(|e| format!("{}: {e}", readme_path.display()))?;
    let (begin, end) = (
        format!("<!-- {BLOCK}:begin -->"),
        format!("<!-- {BLOCK}:end -->"),
    );
    let readme = crate::readme::splice_lines(&readme, &begin, &end, &format!("\n{}", table()))
        .ok_or_else(|| format!("README.md has no {begin} … {end} block"))?;

    let ui_path = root.join(UI_STDERR);
    let ui =
        std::fs::read_to_string(&ui_path).map_err(|e| format!("{}: {e}", ui_path.display()))?;
    let ui = ui_stderr(&ui).ok_or_else(|| format!("{UI_STDERR} has no `{UI_PREFIX}` line"))?;
    Ok(vec![(readme_path, readme), (ui_path, ui)])
}

/// `stderr` with the list after [`UI_PREFIX`] (to the end of its line) replaced by the registry's.
fn ui_stderr(stderr: &str) -> Option<String> {
    let start = stderr.find(UI_PREFIX)? + UI_PREFIX.len();
    let end = stderr[start..]
        .find('\n')
        .map_or(stderr.len(), |e| start + e);
    Some(format!(
        "{}{}{}",
        &stderr[..start],
        tinyaot_codegen::lower::supported_ops().join(", "),
        &stderr[end..]
    ))
}

/// A list of signatures as the table writes it.
fn render(types: &Types, sigs: &[Sig]) -> String {
    let rendered: Vec<String> = sigs.iter().map(|s| s.render(types.roles)).collect();
    if rendered.iter().all(String::is_empty) {
        "(no tensors)".to_string()
    } else {
        rendered.join(", ")
    }
}

/// The README block: the count, the table and what the columns mean.
fn table() -> String {
    let mut rows = tinyaot_codegen::lower::registry();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let mut body = String::new();
    let mut gaps = 0;
    for (name, types) in &rows {
        let missing: Vec<Sig> = types
            .tflm
            .iter()
            .filter(|s| !types.tinyaot.contains(s))
            .copied()
            .collect();
        let extra: Vec<Sig> = types
            .tinyaot
            .iter()
            .filter(|s| !types.tflm.contains(s))
            .copied()
            .collect();
        let mut mark = Vec::new();
        if !missing.is_empty() {
            mark.push(format!("**TFLM only:** {}", render(types, &missing)));
        }
        if !extra.is_empty() {
            mark.push(format!("**tinyaot only:** {}", render(types, &extra)));
        }
        if !mark.is_empty() {
            gaps += 1;
        }
        let _ = writeln!(
            body,
            "| {name} | {} | {} | {} |",
            render(types, types.tinyaot),
            render(types, types.tflm),
            mark.join("; ")
        );
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "**{} operators**, with the tensor types each compiles next to those TFLM's kernel \
         registers for it (its Prepare and Eval); {gaps} of them differ, marked in the last \
         column. A type reads `input×weights→output` where the roles differ (CONV_2D's 16x8: \
         `int16×int8→int16`) and `input→output` for conversions; one name means every tensor \
         the kernel is chosen by has that type, and `any` every type, bytes copied unread. \
         Written by `cargo xtask ops` from the operator registry (`codegen/src/lower/ops/`).",
        rows.len()
    );
    out.push('\n');
    out.push_str("| operator | tinyaot compiles | TFLM registers | differs |\n");
    out.push_str("|---|---|---|---|\n");
    out.push_str(&body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// README.md's table and the trybuild case's list are what the registry gives.
    #[test]
    fn readme_and_ui_stderr_follow_the_registry() {
        let root = crate::workspace_root().unwrap();
        for (path, text) in outputs(&root).unwrap() {
            let current = std::fs::read_to_string(&path).unwrap();
            assert!(
                current == text,
                "{} is out of date with the operator registry (codegen/src/lower/ops/): run \
                 `cargo xtask ops` to regenerate it",
                path.display()
            );
        }
    }

    /// The random generators draw operators from tables of their own, one per family file (each
    /// op needs a builder): every op they draw as supported is in the registry, the fuzzer's
    /// unsupported ones are not, and the registry ops they leave out are the ones named here, so
    /// that an operator added to the registry fails this test until a generator learns it or it
    /// is listed below.
    #[test]
    fn the_generators_draw_registry_operators() {
        use std::collections::BTreeSet;
        let registry: BTreeSet<String> = tinyaot_codegen::lower::supported_ops()
            .into_iter()
            .collect();
        let name =
            |op: tinyaot_modelkit::BuiltinOperator| op.variant_name().unwrap_or("?").to_string();
        // The registry operators a generator leaves out; `custom`: with the custom operators
        // (the fuzzer draws TFLM_DECODE of them; the hostile suite's signal/ covers the signal
        // library's there).
        let left_out = |drawn: &BTreeSet<String>, custom: bool| -> Vec<String> {
            registry
                .difference(drawn)
                .filter(|name| custom || !name.starts_with("CUSTOM("))
                .cloned()
                .collect()
        };
        // The difftest's custom operators are named by their custom code, the registry's
        // `CUSTOM(code)`.
        let difftest: BTreeSet<String> = crate::difftest::ops()
            .iter()
            .map(|o| match o.op {
                tinyaot_modelkit::BuiltinOperator::CUSTOM => format!("CUSTOM({})", o.name),
                _ => o.name.to_string(),
            })
            .collect();
        for o in crate::difftest::ops()
            .iter()
            .filter(|o| o.op != tinyaot_modelkit::BuiltinOperator::CUSTOM)
        {
            assert_eq!(
                o.name,
                name(o.op),
                "difftest's table names {} for {:?}",
                o.name,
                o.op
            );
        }
        let fuzz: BTreeSet<String> = tinyaot_modelkit::fuzz::ops()
            .iter()
            .map(|&op| name(op))
            .chain(
                tinyaot_modelkit::fuzz::custom_ops()
                    .into_iter()
                    .map(|code| format!("CUSTOM({code})")),
            )
            .collect();
        for drawn in [&difftest, &fuzz] {
            let unknown: Vec<&String> = drawn.difference(&registry).collect();
            assert!(
                unknown.is_empty(),
                "drawn as supported but not in the registry: {unknown:?}"
            );
        }
        for &op in tinyaot_modelkit::fuzz::UNSUPPORTED {
            assert!(
                !registry.contains(&name(op)),
                "the fuzzer's unsupported {op:?} is in the registry"
            );
        }
        assert_eq!(
            left_out(&difftest, true),
            Vec::<String>::new(),
            "registry operators xtask/src/difftest does not draw"
        );
        assert_eq!(
            left_out(&fuzz, false),
            Vec::<String>::new(),
            "registry operators tests/modelkit/src/fuzz.rs does not draw"
        );
    }

    #[test]
    fn the_ui_list_is_replaced_to_the_end_of_its_line() {
        let stderr = "error: x; supported operators: A, B\n --> here\n";
        let out = ui_stderr(stderr).unwrap();
        assert!(out.starts_with("error: x; supported operators: ABS, ADD, "));
        // The list runs to the end of its line (its last operator is the registry's last by name).
        assert!(out.ends_with(", ZEROS_LIKE\n --> here\n"), "{out}");
        assert!(ui_stderr("nothing").is_none());
    }
}

//! `cargo xtask arena`: tinyaot's arena against the liveness lower bound and against TFLM's arena,
//! for the reference models of `../shared/models` and the larger fixture models, plus a count of
//! the fixture models that plan at or below their bound (below: by overlapping outputs with dying
//! inputs, the default, or by running the operators in another order than the file's; the bound
//! is the file order's, the order TFLM runs). A figure, not a test (the plan tests assert the bound). With
//! `--update-readme` the table replaces the `arena` block of README.md.
//!
//! tinyaot's figures come from the planner (`tinyaot_codegen::config::plan_model`); TFLM's from
//! `../shared/tools/tflm_reference.py arena`, run once for all models by `$TINYAOT_PYTHON` (default
//! `python3`, which needs `pip install --pre tflite-micro numpy`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::table::thousands;
use tinyaot_codegen::{c_sources, COptions, Config, Limits};

/// The reference models (paths under `../shared/models`, without `.tflite`), in the README's
/// order: the stateless ones, then the stateful ones (SVDF, LSTM).
const MODELS: &[&str] = &[
    "hello_world_int8",
    "hello_world_float",
    "micro_speech_quantized",
    "person_detect",
    "mobilenet_v2_quantized_1x3x224x224",
    "keyword_scrambled",
    "tflm_suite/keyword_scrambled_8bit",
    "trained_lstm_int8",
    "tflm_suite/trained_lstm_float",
    "tflm_suite/micro_speech_lstm",
    "tflm_suite/dtln_noise_suppression",
];

/// The fixture models (under `tests/fixtures/models`) after the reference models: the larger
/// stateless ones, then the stateful ones.
const FIXTURE_MODELS: &[&str] = &[
    "mobilenet_v1_025",
    "ds_cnn",
    "resnet8",
    "mobilenet_v2_035",
    "svdf_int8",
    "svdf_float",
    "lstm",
    "lstm_int16",
    "lstm_float",
    "streaming_kws",
    "streaming_kws_init",
];

/// TFLM's arena for one model, as `tflm_reference.py arena` prints it.
#[derive(Debug, Default, PartialEq)]
struct TflmArena {
    total: u64,
    /// Planned tensors (and, for stateful models, kernel scratch buffers).
    head: u64,
    /// Persistent bookkeeping.
    tail: u64,
}

/// tinyaot's plan of one model.
struct Planned {
    arena: usize,
    /// The liveness lower bound of the operators in the file's order (the order TFLM runs them
    /// in): a plan that reorders them may go below it without overlaps.
    lower_bound: usize,
    state: usize,
    /// The operators run in another order than the file's (a lower peak).
    reordered: bool,
}

/// Runs the command with its arguments (after `arena`).
pub fn run(args: &[String]) -> Result<(), String> {
    let mut update_readme = false;
    for arg in args {
        match arg.as_str() {
            "--update-readme" => update_readme = true,
            other => return Err(format!("arena: unknown argument `{other}`")),
        }
    }
    let root = crate::workspace_root()?;
    let shared = tinyaot_test_support::find_shared_dir()?;
    let fixtures = root.join("tests/fixtures/models");
    let paths: Vec<PathBuf> = MODELS
        .iter()
        .map(|m| shared.join("models").join(format!("{m}.tflite")))
        .chain(
            FIXTURE_MODELS
                .iter()
                .map(|m| fixtures.join(format!("{m}.tflite"))),
        )
        .collect();
    let tflm = tflm_arenas(&shared, &paths)?;

    let mut table = String::from(
        "| model | tinyaot arena | lower bound | arena − bound | state | tinyaot RAM | \
         TFLM arena: total / planned tensors / bookkeeping |\n\
         |---|---:|---:|---:|---:|---:|---|\n",
    );
    for (path_name, path) in MODELS.iter().chain(FIXTURE_MODELS).zip(&paths) {
        let name = path_name.rsplit('/').next().unwrap_or(path_name);
        let bytes = read(path)?;
        let planned = plan(path, &bytes)?;
        let t = tflm
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, a)| a)
            .ok_or_else(|| format!("tflm_reference.py printed nothing for {name}"))?;
        let difference = if planned.arena < planned.lower_bound {
            format!(
                "−{} (−{:.1}%)",
                thousands((planned.lower_bound - planned.arena) as u64),
                (planned.lower_bound - planned.arena) as f64 * 100.0 / planned.lower_bound as f64
            )
        } else {
            thousands((planned.arena - planned.lower_bound) as u64)
        };
        let state = thousands(planned.state as u64);
        let ram = thousands((planned.arena + planned.state) as u64);
        let label = if compiles(&bytes) {
            name.to_string()
        } else {
            format!("{name} (plan only)")
        };
        let _ = writeln!(
            table,
            "| {label} | {} | {} | {difference} | {state} | {ram} | {} / {} / {} |",
            thousands(planned.arena as u64),
            thousands(planned.lower_bound as u64),
            thousands(t.total),
            thousands(t.head),
            thousands(t.tail)
        );
    }
    let count = fixtures_at_bound(&root)?;
    let summary = format!(
        "{} of the {} fixture models (tests/fixtures/models) plan at or below their lower bound \
         (the liveness bound of the file's operator order), {} of them below it; {} run their \
         operators in another order, which keeps fewer bytes alive at once.",
        count.at_bound, count.models, count.below, count.reordered
    );
    print!("{table}\n{summary}\n");
    if update_readme {
        crate::readme::replace_block(
            &root,
            "arena",
            &format!("`cargo xtask arena --update-readme`:\n\n{table}\n{summary}"),
        )?;
    }
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The plan of a model (`path` names it in errors).
fn plan(path: &Path, bytes: &[u8]) -> Result<Planned, String> {
    let failed = |e: tinyaot_codegen::Error| format!("{}: {e}", path.display());
    let (graph, plan) =
        tinyaot_codegen::config::plan_model(bytes, &Limits::default()).map_err(failed)?;
    // Folded operators leave the graph (the others keep their file index): only a file index
    // that comes before an earlier-run one's is another order. The operators of an inlined IF's
    // branches and of a WHILE's loop (and their steps) stand for the IF or the WHILE: their
    // indices are their subgraphs'.
    let index = |op: &tinyaot_codegen::ir::Operator| match (op.branch, op.looped) {
        (Some(b), _) => b.caller,
        (None, Some(l)) => l.caller,
        (None, None) => op.source_index,
    };
    let reordered = graph
        .operators
        .windows(2)
        .any(|pair| index(&pair[0]) > index(&pair[1]));
    let lower_bound = if reordered {
        let mut config = Config::new();
        config.limits(Limits::default()).reorder(false);
        config
            .plan(bytes)
            .map_err(failed)?
            .memory_plan()
            .lower_bound_bytes
    } else {
        plan.lower_bound_bytes
    };
    Ok(Planned {
        arena: plan.arena_bytes,
        lower_bound,
        state: plan.state_bytes,
        reordered,
    })
}

/// Whether the backends generate code for the model (else the table says "plan only"): the C
/// backend's answer, the cheaper of the two, which accept the same models.
fn compiles(bytes: &[u8]) -> bool {
    let options = COptions {
        prefix: "model".to_string(),
        source_name: "model.tflite".to_string(),
    };
    c_sources(bytes, &options).is_ok()
}

/// How many of the fixture models there are, how many plan at or below their lower bound, and
/// how many below it.
fn fixtures_at_bound(root: &Path) -> Result<FixtureCount, String> {
    let models = tinyaot_test_support::tflite_files(&root.join("tests/fixtures/models"));
    let mut count = FixtureCount {
        models: models.len(),
        ..FixtureCount::default()
    };
    for path in &models {
        let planned = plan(path, &read(path)?)?;
        count.at_bound += usize::from(planned.arena <= planned.lower_bound);
        count.below += usize::from(planned.arena < planned.lower_bound);
        count.reordered += usize::from(planned.reordered);
    }
    Ok(count)
}

/// The fixture models, and how many plan at or below their lower bound, below it, and in another
/// operator order than the file's.
#[derive(Default)]
struct FixtureCount {
    models: usize,
    at_bound: usize,
    below: usize,
    reordered: usize,
}

/// Runs `tflm_reference.py arena` once on every model.
fn tflm_arenas(shared: &Path, models: &[PathBuf]) -> Result<Vec<(String, TflmArena)>, String> {
    let python = std::env::var("TINYAOT_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let script = shared.join("tools/tflm_reference.py");
    let output = Command::new(&python)
        .arg(&script)
        .arg("arena")
        .args(models)
        .output()
        .map_err(|e| format!("cannot run {python}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{} arena failed ({}): {}\n(needs `{python} -m pip install --pre tflite-micro numpy`)",
            script.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(parse_line)
        .collect())
}

/// `name.tflite\ttotal=1504\thead=32\ttail=1472` → `("name", TflmArena { … })`.
fn parse_line(line: &str) -> Option<(String, TflmArena)> {
    let mut fields = line.split('\t');
    let name = fields.next()?.strip_suffix(".tflite")?.to_string();
    let mut arena = TflmArena::default();
    for field in fields {
        let (key, value) = field.split_once('=')?;
        let value: u64 = value.parse().ok()?;
        match key {
            "total" => arena.total = value,
            "head" => arena.head = value,
            "tail" => arena.tail = value,
            _ => {}
        }
    }
    Some((name, arena))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_reference_scripts_lines() {
        assert_eq!(
            parse_line("hello_world_int8.tflite\ttotal=1504\thead=32\ttail=1472"),
            Some((
                "hello_world_int8".to_string(),
                TflmArena {
                    total: 1504,
                    head: 32,
                    tail: 1472
                }
            ))
        );
        assert_eq!(parse_line("not a line"), None);
    }
}

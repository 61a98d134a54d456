//! The planner on real models: every reference model in `../shared/models`, the SEANet layers of
//! TFLM's integration suite (both skipped, saying so, without the shared data; failed in CI) and
//! every fixture model in `tests/fixtures/models` (all that `models.json` lists, required) plans at exactly the liveness lower bound without overlaps, and at or below it with
//! them (the default; with the kernels' scratch memory, at or below the bound that counts it), and
//! the independent checker accepts both plans.

mod common;

use std::path::Path;
use tinyaot_codegen::plan::{check_plan, plan_graph, Storage};

/// Plans one model and checks the plan; returns a one-line summary.
fn plan_model(path: &Path) -> String {
    let bytes = common::read(path);
    let graph = tinyaot_codegen::load::load(&bytes)
        .unwrap_or_else(|e| panic!("{}: load: {e}", path.display()));
    let plan = plan_graph(&graph).unwrap_or_else(|e| panic!("{}: plan: {e}", path.display()));
    check_plan(&graph, &plan).unwrap_or_else(|e| panic!("{}: check: {e}", path.display()));
    assert_eq!(
        plan,
        plan_graph(&graph).expect("second plan"),
        "{}: planning is not deterministic",
        path.display()
    );
    assert_eq!(
        plan.arena_bytes,
        plan.lower_bound_bytes,
        "{}: arena above the lower bound",
        path.display()
    );
    // With overlaps (what the backends generate): never above the bound, deterministic, proven
    // (`plan_graph_with` checks every plan it returns against the calls' contracts). In another
    // operator order than the file's only with a lower bound of its own.
    let overlapped = || {
        tinyaot_codegen::config::plan_model(&bytes, &tinyaot_codegen::Limits::default())
            .unwrap_or_else(|e| panic!("{}: plan with overlaps: {e}", path.display()))
    };
    let (reordered_graph, with) = overlapped();
    let reordered = reordered_graph
        .operators
        .iter()
        .enumerate()
        .any(|(position, op)| position != op.source_index);
    // Kernels' scratch memory (live at its operator's step) is part of the generated plan's
    // bound, not of `plan_graph`'s: with scratch, the arena is held to its own plan's bound.
    let bound = if with.scratch.is_empty() {
        plan.lower_bound_bytes
    } else {
        with.lower_bound_bytes
    };
    assert!(
        with.arena_bytes <= bound
            && (with.lower_bound_bytes == plan.lower_bound_bytes
                || reordered && with.lower_bound_bytes < plan.lower_bound_bytes
                || !with.scratch.is_empty() && with.lower_bound_bytes > plan.lower_bound_bytes),
        "{}: overlaps made the arena {} against the bound {} (reordered: {reordered})",
        path.display(),
        with.arena_bytes,
        bound
    );
    assert_eq!(
        with,
        overlapped().1,
        "{}: not deterministic",
        path.display()
    );
    let arena_tensors = plan
        .tensors
        .iter()
        .filter(|p| p.storage == Storage::Arena)
        .count();
    format!(
        "{:<45} tensors {:>4} arena tensors {:>4} aliases {:>2} arena {:>9} bound {:>9} state {:>6}",
        path.file_name().unwrap_or_default().to_string_lossy(),
        graph.tensors.len(),
        arena_tensors,
        plan.aliases.len(),
        plan.arena_bytes,
        plan.lower_bound_bytes,
        plan.state_bytes
    )
}

#[test]
fn reference_models_plan_at_the_lower_bound() {
    let Some(models) = common::shared_models("planning the reference models") else {
        return;
    };
    for path in models {
        println!("{}", plan_model(&path));
    }
}

/// TFLM's integration suite (`<shared>/models/tflm_suite`): its SEANet layers, int16 CONV_2D and
/// TRANSPOSE_CONV included (their kernels need no scratch memory, so nothing is planned beyond
/// the tensors).
#[test]
fn tflm_suite_models_plan_at_the_lower_bound() {
    let Some(shared) = common::shared_models_dir("planning TFLM's SEANet layers") else {
        return;
    };
    let dir = shared.join("tflm_suite");
    let models: Vec<_> = tinyaot_test_support::tflite_files(&dir)
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("seanet_"))
        })
        .collect();
    assert!(
        models.len() >= 127,
        "{} SEANet models in {}",
        models.len(),
        dir.display()
    );
    for path in models {
        println!("{}", plan_model(&path));
    }
}

#[test]
fn fixture_models_plan_at_the_lower_bound() {
    // Every fixture models.json lists (fails when one is missing).
    for path in common::fixture_models() {
        println!("{}", plan_model(&path));
    }
}

/// Figures TFLM's own planner is known to reach: ours must never be worse.
#[test]
fn no_worse_than_tflm() {
    let tflm = [
        ("hello_world_int8.tflite", 32),
        ("hello_world_float.tflite", 128),
        ("micro_speech_quantized.tflite", 5_968),
        ("person_detect.tflite", 55_296),
        ("keyword_scrambled.tflite", 672),
        ("trained_lstm_int8.tflite", 1_536),
        ("mobilenet_v2_quantized_1x3x224x224.tflite", 2_451_840),
    ];
    for (name, tflm_bytes) in tflm {
        let Some(bytes) = common::shared_model(name) else {
            return;
        };
        let graph = tinyaot_codegen::load::load(&bytes).expect("load");
        let plan = plan_graph(&graph).expect("plan");
        assert!(
            plan.arena_bytes <= tflm_bytes,
            "{name}: {} bytes, TFLM plans {tflm_bytes}",
            plan.arena_bytes
        );
    }
}

//! The hostile-model suite (`tinyaot_modelkit::hostile`): every crafted model gets exactly the
//! outcome it names, in both backends, and none ever gets an internal error.
//!
//! Accepted cases must compile in both backends here; their TFLM goldens live in
//! `tests/fixtures/hostile`, where the conformance tests check them bit for bit.

use std::sync::OnceLock;

use tinyaot_codegen::{c_sources, COptions, Config, Error};
use tinyaot_modelkit::hostile::{Case, Category, Expect, Refusal};

/// The suite, built once for all tests of this file (a few of its models are large).
fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(tinyaot_modelkit::hostile::cases)
}

/// The refusal family of an error, or `None` for an internal error (never acceptable).
fn family(error: &Error) -> Option<Refusal> {
    Some(match error {
        Error::InvalidModel { .. } => Refusal::Invalid,
        Error::UnsupportedOpUse { .. } => Refusal::Unsupported,
        Error::UnsupportedOp { .. } => Refusal::UnsupportedOp,
        Error::Limit { .. } => Refusal::Limit,
        Error::Internal { .. } => return None,
        _ => Refusal::Load,
    })
}

fn c_options() -> COptions {
    COptions {
        prefix: "net".to_string(),
        source_name: "hostile.tflite".to_string(),
    }
}

/// The outcome of one case in one backend, as text for the failure report, or `Ok(())`.
fn check(case: &Case, backend: &str, result: Result<(), Error>) -> Result<(), String> {
    match (&case.expect, result) {
        (Expect::Accepted, Ok(())) => Ok(()),
        (Expect::Accepted, Err(e)) => Err(format!("expected acceptance, {backend} said: {e}")),
        (Expect::Refused(kind, _), Ok(())) => Err(format!(
            "expected a {kind:?} refusal, {backend} accepted it"
        )),
        (Expect::Refused(kind, mentions), Err(e)) => {
            let message = e.to_string();
            match family(&e) {
                None => Err(format!("{backend}: internal error: {message}")),
                Some(got) if got != *kind => Err(format!(
                    "expected a {kind:?} refusal, {backend} gave {got:?}: {message}"
                )),
                Some(_) if !message.contains(mentions) => Err(format!(
                    "{backend}'s message does not mention {mentions:?}: {message}"
                )),
                // Every invalid-model refusal says on which of the three grounds it refuses.
                Some(Refusal::Invalid)
                    if !e
                        .grounds()
                        .is_some_and(|g| message.ends_with(&format!("[{g}]"))) =>
                {
                    Err(format!(
                        "{backend}'s message does not end with its grounds: {message}"
                    ))
                }
                Some(_) => Ok(()),
            }
        }
    }
}

#[test]
fn every_hostile_model_gets_its_expected_outcome_in_both_backends() {
    let cases = cases();
    let mut failures = Vec::new();
    for case in cases {
        let rust = Config::new().generate(&case.model, &case.name).map(|_| ());
        let c = c_sources(&case.model, &c_options()).map(|_| ());
        for (backend, result) in [("Rust", rust), ("C", c)] {
            if let Err(why) = check(case, backend, result) {
                failures.push(format!("{} ({:?}): {why}", case.name, case.category));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} hostile cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn the_suite_covers_every_category() {
    let cases = cases();
    for category in [
        Category::Structure,
        Category::Graph,
        Category::Quantization,
        Category::TypesAndParameters,
        Category::ResourceLimits,
        Category::LegitimateCorners,
    ] {
        assert!(
            cases.iter().any(|c| c.category == category),
            "no case in {category:?}"
        );
    }
    assert!(cases.len() >= 100, "only {} cases", cases.len());
}

#[test]
fn an_offline_plan_is_reported_as_ignored() {
    let case = cases()
        .iter()
        .find(|c| c.name == "offline_memory_allocation_metadata")
        .expect("the suite has the offline-plan case");
    let graph = tinyaot_codegen::load::load(&case.model).expect("loads");
    assert!(graph.offline_offsets.is_some());
    let plan = tinyaot_codegen::plan::plan_graph(&graph).expect("plans");
    let text = tinyaot_codegen::plan::report::text(&graph, &plan);
    assert!(
        text.contains("offline plan: the model's OfflineMemoryAllocation metadata is not used"),
        "{text}"
    );
    let json = tinyaot_codegen::plan::report::json(&graph, &plan);
    assert!(json.contains("\"offline_plan\": \"ignored: "), "{json}");
    assert!(
        json.find("offline_plan") < json.find("\"tensors\""),
        "{json}"
    );
}

#[test]
fn the_committed_accepted_models_are_what_the_suite_builds() {
    // tests/fixtures/hostile holds the accepted cases with TFLM goldens (made by its generate.sh),
    // which the conformance tests run bit for bit in Rust and C: they must not drift from the suite.
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hostile/models");
    let mut expected: Vec<&str> = Vec::new();
    for case in cases().iter().filter(|c| c.expect == Expect::Accepted) {
        let path = dir.join(format!("{}.tflite", case.name));
        let committed = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (run tests/fixtures/hostile/generate.sh)",
                path.display()
            )
        });
        assert!(
            committed == case.model,
            "{} differs from what the suite builds (run tests/fixtures/hostile/generate.sh)",
            path.display()
        );
        expected.push(&case.name);
    }
    let mut committed: Vec<String> = std::fs::read_dir(&dir)
        .expect("tests/fixtures/hostile/models")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".tflite").map(str::to_string))
        .collect();
    committed.sort();
    expected.sort_unstable();
    assert_eq!(
        committed,
        expected,
        "stale or missing models in {}",
        dir.display()
    );
}

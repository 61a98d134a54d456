//! Conformance: every model build.rs compiled runs TFLM's golden cases, in order on one instance
//! (state carries between cases, as on a device), and must reproduce TFLM's outputs: int8 (and every
//! other integer type) byte for byte, float32 within 1e-5 relative. Models that build.rs refused must
//! be exactly the expected ones, refused with an `unsupported operator` error naming the op.

mod golden;

use std::path::Path;

use tinyaot_tests::models::ENTRIES;
use tinyaot_tests::Outcome;

/// Models of ../shared/models that use operators tinyaot does not support yet, and the operator.
const EXPECTED_REFUSALS: &[(&str, &str)] = &[];

/// Models of TFLM's integration suite (../shared/models/tflm_suite) that tinyaot does not compile
/// yet, by the start of their names, and how their refusal starts (none since the int16 SEANet
/// layers and the stateful models of issues 14 and 15).
const EXPECTED_SUITE_REFUSALS: &[(&str, &str)] = &[];

/// Whether `name` of the TFLM suite was refused as [`EXPECTED_SUITE_REFUSALS`] expects.
fn expected_suite_refusal(name: &str, message: &str) -> bool {
    EXPECTED_SUITE_REFUSALS
        .iter()
        .any(|(prefix, refusal)| name.starts_with(prefix) && message.starts_with(refusal))
}

#[test]
fn every_model_matches_tflm() {
    // The models each suite has (none is empty), and build.rs compiled exactly those of this run's
    // selection (outside CI the quick one: no hostile corners, one SEANet layer of each kind): the
    // count the loop below must reach. Without the shared data its suites are skipped, saying so
    // (in CI: failed), and build.rs compiled none of them either.
    let suites = tinyaot_test_support::available_suites("the Rust conformance test");
    if !tinyaot_test_support::full_suites() {
        println!(
            "quick selection: the hostile corners and most SEANet layers run with {} set, as in CI",
            tinyaot_test_support::CI_VAR
        );
    }
    let mut models = 0;
    for suite in &suites {
        let found = suite.checked_model_files().len();
        let entries = ENTRIES.iter().filter(|e| e.suite == suite.name).count();
        assert_eq!(
            entries,
            found,
            "the {} suite has {found} models in {} for this run, build.rs compiled {entries}",
            suite.name,
            suite.models.display()
        );
        models += found;
    }
    assert_eq!(
        ENTRIES.len(),
        models,
        "build.rs compiled models of suites this run does not have"
    );
    let (mut ran, mut refused) = (0, 0);
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for entry in ENTRIES {
        let label = format!("{}/{}", entry.suite, entry.name);
        match &entry.outcome {
            Outcome::Compiled(make) => {
                let golden = entry.golden.to_string();
                let make = *make;
                // Arenas of the large models are megabytes: construct and run on a big stack.
                let result = std::thread::Builder::new()
                    .stack_size(256 << 20)
                    .spawn(move || golden::run_cases(make, Path::new(&golden)))
                    .expect("spawn")
                    .join()
                    .unwrap_or_else(|_| Err("panicked".to_string()));
                match result {
                    Ok(summary) => {
                        ran += 1;
                        report.push(format!("ok       {label}: {summary}"))
                    }
                    Err(e) => {
                        report.push(format!("MISMATCH {label}: {e}"));
                        failures.push(format!("{label}: {e}"));
                    }
                }
            }
            Outcome::Refused(message)
                if entry.suite == "tflm_suite" && expected_suite_refusal(entry.name, message) =>
            {
                refused += 1;
                report.push(format!("refused  {label} as expected: {message}"))
            }
            Outcome::Refused(message) => {
                let expected = EXPECTED_REFUSALS
                    .iter()
                    .find(|(name, _)| entry.suite == "shared" && *name == entry.name);
                match expected {
                    Some((_, op))
                        if message.starts_with(&format!("unsupported operator {op} ")) =>
                    {
                        refused += 1;
                        report.push(format!("refused  {label} as expected: {message}"))
                    }
                    _ => {
                        report.push(format!("REFUSED  {label}: {message}"));
                        failures.push(format!("{label} was refused: {message}"));
                    }
                }
            }
        }
    }
    let shared = suites.iter().any(|s| s.name == "shared");
    for (name, _) in EXPECTED_REFUSALS.iter().filter(|_| shared) {
        if !ENTRIES.iter().any(|e| {
            e.suite == "shared" && e.name == *name && matches!(e.outcome, Outcome::Refused(_))
        }) {
            failures.push(format!(
                "shared/{name} was expected to be refused but was not"
            ));
        }
    }
    println!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        ran + refused,
        models,
        "each model found runs or is refused as expected"
    );
    println!("{ran} models matched TFLM, {refused} refused as expected");
    readme_counts_are_current(&suites);
}

/// The README's figures of this suite (its second paragraph: how many models the conformance
/// suite compiles; its list of them: how many fixtures and accepted hostile corners) are the
/// suites' own counts, checked when every suite is there (with the shared data).
fn readme_counts_are_current(suites: &[tinyaot_test_support::Suite]) {
    if suites.len() < 5 {
        return;
    }
    let models: usize = suites.iter().map(|s| s.model_files().len()).sum();
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README.md");
    let text = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let count = |name: &str| {
        suites
            .iter()
            .find(|s| s.name == name)
            .map_or(0, |s| s.model_files().len())
    };
    for phrase in [
        format!("the conformance suite: {models} models"),
        format!("{} fixture models", count("fixtures")),
        format!(
            "{} accepted corners of the hostile-model suite",
            count("hostile")
        ),
    ] {
        assert!(
            text.contains(&phrase),
            "README.md should say \"{phrase}\": update its figures"
        );
    }
}

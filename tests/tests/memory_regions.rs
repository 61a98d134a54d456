//! Memory regions besides the arena: the fixture models of `tinyaot_test_support::REGION_MODELS`,
//! planned with regions (tests/build.rs), move activations into each region and still reproduce
//! TFLM's outputs exactly on every golden case (the C backend: tests/c_conformance.rs), with the
//! regions' memory given to `new` or taken, once, from the generated statics.

mod golden;

use std::path::Path;

use tinyaot_tests::DynModel;

/// One model compiled with memory regions.
pub struct RegionEntry {
    name: &'static str,
    golden: &'static str,
    /// Bytes the plan takes of each region, in the order named.
    used: &'static [usize],
    /// A fresh instance, its regions' memory leaked boxes.
    make: fn() -> Box<dyn DynModel>,
    /// The instance with the generated statics' memory (`Model::take`).
    take: fn() -> Option<Box<dyn DynModel>>,
}

include!(concat!(env!("OUT_DIR"), "/regions.rs"));

#[test]
fn activations_move_and_outputs_match_tflm() {
    let mut failures = Vec::new();
    // build.rs compiled every model of the list, and each runs.
    assert!(!tinyaot_test_support::REGION_MODELS.is_empty());
    assert_eq!(
        REGION_ENTRIES.len(),
        tinyaot_test_support::REGION_MODELS.len()
    );
    let mut ran = 0;
    for entry in REGION_ENTRIES {
        assert!(
            entry.used.iter().any(|&bytes| bytes > 0),
            "{}: nothing moved into its regions",
            entry.name
        );
        let (make, golden) = (entry.make, entry.golden);
        let result = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || golden::run_cases(make, Path::new(golden)))
            .expect("spawn")
            .join()
            .unwrap_or_else(|_| Err("panicked".to_string()));
        match result {
            Ok(_) => ran += 1,
            Err(e) => failures.push(format!("{}: {e}", entry.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(ran, REGION_ENTRIES.len());
    // Two regions in one model, both used.
    assert!(REGION_ENTRIES
        .iter()
        .any(|e| e.used.len() == 2 && e.used.iter().all(|&b| b > 0)));
}

#[test]
fn each_region_static_is_taken_once() {
    assert_eq!(
        REGION_ENTRIES.len(),
        tinyaot_test_support::REGION_MODELS.len()
    );
    for entry in REGION_ENTRIES {
        let mut model = (entry.take)().unwrap_or_else(|| panic!("{}: not taken", entry.name));
        // The taken memory works like any other.
        for i in 0..model.counts().0 {
            model.input(i).fill(1);
        }
        model.invoke();
        assert!((entry.take)().is_none(), "{}: taken twice", entry.name);
    }
}

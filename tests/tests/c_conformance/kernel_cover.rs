//! The quick selection of the C conformance test outside CI: of the models it would check, the
//! fewest that together call every C kernel function the others' generated C calls.
//!
//! Building and running a model's C is this test's cost, and most quick-selection models call
//! kernels that others already exercise. So outside CI the test generates every model's C (the
//! cheap part, which also catches a model the C backend refuses and the Rust backend accepts),
//! collects the `net_…(` calls of each model's `net.c`, and builds and runs a greedy set cover of
//! them: the model adding the most calls not yet covered first, the smaller C source among equals.
//! Every kernel function is still compiled with the host's flags and run against TFLM's goldens;
//! the other models' shapes and parameters are CI's (`CI` set: every model).

use std::collections::BTreeSet;
use std::path::Path;

use tinyaot_codegen::config::c_outputs_with;
use tinyaot_codegen::emit::c::COptions;
use tinyaot_codegen::{Limits, Planning};

/// What a model's generated C calls, or `None` when the C backend refuses it (the model stays in
/// the selection: `check_model` then decides whether that refusal is a failure).
pub fn kernel_calls(model: &Path) -> Option<(BTreeSet<String>, usize)> {
    let bytes = std::fs::read(model).ok()?;
    let options = COptions {
        prefix: "net".to_string(),
        source_name: "model.tflite".to_string(),
    };
    let files = c_outputs_with(&bytes, &options, &Limits::default(), &Planning::default()).ok()?;
    let mut calls = BTreeSet::new();
    let mut size = 0;
    for (name, source) in files {
        let source = source.into_string();
        size += source.len();
        if name == "net.c" {
            calls.extend(calls_in(&source));
        }
    }
    Some((calls, size))
}

/// The identifiers `net_…` directly followed by `(` in `source`.
fn calls_in(source: &str) -> impl Iterator<Item = String> + '_ {
    let bytes = source.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    source.match_indices("net_").filter_map(move |(start, _)| {
        if start > 0 && is_ident(bytes[start - 1]) {
            return None;
        }
        let end = start + bytes[start..].iter().take_while(|&&b| is_ident(b)).count();
        (bytes.get(end) == Some(&b'(')).then(|| source[start..end].to_string())
    })
}

/// The indices of `models` to build and run: every model whose C could not be generated, and a
/// greedy cover of the others' calls.
pub fn select(models: &[Option<(BTreeSet<String>, usize)>]) -> Vec<usize> {
    let mut selected: Vec<usize> = (0..models.len()).filter(|&i| models[i].is_none()).collect();
    let mut uncovered: BTreeSet<&String> = models.iter().flatten().flat_map(|(c, _)| c).collect();
    while !uncovered.is_empty() {
        let best = models
            .iter()
            .enumerate()
            .filter_map(|(i, m)| m.as_ref().map(|(calls, size)| (i, calls, *size)))
            .map(|(i, calls, size)| {
                (
                    calls.iter().filter(|c| uncovered.contains(c)).count(),
                    size,
                    i,
                )
            })
            // Most new calls; among equals the smaller source, then the earlier model.
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2)))
            .expect("an uncovered call belongs to some model");
        let (_, _, i) = best;
        let (calls, _) = models[i].as_ref().expect("chosen among generated models");
        for call in calls {
            uncovered.remove(call);
        }
        selected.push(i);
    }
    selected.sort_unstable();
    selected
}

#[test]
fn calls_are_whole_identifiers_before_a_parenthesis() {
    let source =
        "net_conv_a(x); y = unet_b(1); net_pool_c (2); z = net_arena.bytes; net_d(net_e());";
    let calls: Vec<String> = calls_in(source).collect();
    assert_eq!(calls, ["net_conv_a", "net_d", "net_e"]);
}

#[test]
fn the_cover_takes_the_fewest_models_and_keeps_refused_ones() {
    let set = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let models = vec![
        Some((set(&["a", "b"]), 10)),
        None,
        Some((set(&["a", "b", "c"]), 30)),
        Some((set(&["c"]), 5)),
        Some((set(&["a", "b", "c"]), 20)),
    ];
    // The two three-call models tie on calls: the smaller (index 4) wins; the refused one stays.
    assert_eq!(select(&models), [1, 4]);
}

//! The quick selection of the C conformance test outside CI: of the models it would check, the
//! fewest that together call every C kernel function the others' generated C calls.
//!
//! Building and running a model's C is this test's cost, and most quick-selection models call
//! kernels that others already exercise. So outside CI the test generates every model's C (the
//! cheap part, which also catches a model the C backend refuses and the Rust backend accepts),
//! collects the `net_…(` calls of each model's `net.c`, and builds and runs a greedy set cover of
//! them (`tinyaot_test_support::greedy_cover`, as the mcu runner's `--cover`): the model adding the
//! most calls not yet covered first, the smaller C source among equals.
//! Every kernel function is still compiled with the host's flags and run against TFLM's goldens;
//! the other models' shapes and parameters are CI's (`CI` set: every model).

use std::collections::BTreeSet;
use std::path::Path;

use tinyaot_codegen::config::c_outputs_with;
use tinyaot_codegen::emit::c::COptions;
use tinyaot_codegen::{Limits, Planning};

/// What a model's generated C calls and its C's size, or `None` when the C backend refuses it (the
/// model stays in the selection: `check_model` then decides whether that refusal is a failure).
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

#[test]
fn calls_are_whole_identifiers_before_a_parenthesis() {
    let source =
        "net_conv_a(x); y = unet_b(1); net_pool_c (2); z = net_arena.bytes; net_d(net_e());";
    let calls: Vec<String> = calls_in(source).collect();
    assert_eq!(calls, ["net_conv_a", "net_d", "net_e"]);
}

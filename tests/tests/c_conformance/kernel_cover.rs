//! The kernel cover of the C conformance test: of the models it checks, the fewest that together
//! call every C kernel function the others' generated C calls.
//!
//! Building a model's C is this test's cost, and most models call kernels that others already
//! exercise. So the test generates every model's C first (the cheap part, which also catches a
//! model the C backend refuses and the Rust backend accepts), collects the `net_…(` calls of each
//! model's `net.c`, and takes a greedy set cover of them (`tinyaot_test_support::greedy_cover`, as
//! the mcu runner's `--cover`): the model adding the most calls not yet covered first, the smaller
//! C among equals. Outside CI only the cover is built and run, for the host; in CI every model
//! is, and the cover is what is also cross-compiled for the Cortex-M4 (a kernel file's object
//! differs between models only by the other families' declarations in its header). Every kernel
//! function is still compiled with both compilers' flags and run against TFLM's goldens.

use std::collections::BTreeSet;

use super::{GeneratedC, Generation};

/// What a generated model offers the cover: the kernel functions its C calls and its C's size;
/// `None` for a model with nothing to build (refused, or failed: the cover takes it, and its
/// outcome is reported as it is).
pub fn calls(generated: &Result<Generation, String>) -> Option<(BTreeSet<String>, usize)> {
    match generated {
        Ok(Generation::Written(GeneratedC { calls, size, .. })) => Some((calls.clone(), *size)),
        _ => None,
    }
}

/// The identifiers `net_…` directly followed by `(` in `source`.
pub fn calls_in(source: &str) -> impl Iterator<Item = String> + '_ {
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

//! `--cover CORES`: on those cores, only the fewest models of the list that together call every
//! kernel the whole list calls.
//!
//! The cores run the same kernels on different instruction sets and compilers: what a core adds
//! to the host's conformance tests is each kernel compiled for it and run on it. CI runs every
//! model on the Cortex-M4 and M55 (the cores of the README's tables and targets) and this cover on
//! the others, which takes about half of those cores' firmwares;
//! `--core all` without `--cover` (what `--update-readme` takes) still runs every model on every
//! core.

use std::collections::BTreeSet;

/// The runtime kernels a generated Rust model calls (`rt::kernels::conv::conv2d_1x1_s8(…)`): the
/// path after `rt::kernels::` of every call in its source.
pub(super) fn kernel_calls(source: &str) -> BTreeSet<&str> {
    const PREFIX: &str = "rt::kernels::";
    let mut calls = BTreeSet::new();
    let mut rest = source;
    while let Some(at) = rest.find(PREFIX) {
        rest = &rest[at + PREFIX.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(rest.len());
        // A call, not a parameter struct's type (`rt::kernels::conv::Conv1x1S8 {`).
        if rest[end..].starts_with('(') {
            calls.insert(&rest[..end]);
        }
        rest = &rest[end..];
    }
    calls
}

/// Which of `models` (each model's generated Rust, `None` where it has none) a core of `--cover`
/// runs: greedily, the model that calls the most kernels not yet covered, the smaller source
/// first among equals (a smaller model builds and runs sooner), until every kernel that any of
/// them calls is covered. A model without generated Rust is kept, so that its error is reported
/// on every core as without `--cover`.
pub(super) fn cover(models: &[Option<&str>]) -> Vec<bool> {
    let calls: Vec<_> = models
        .iter()
        .map(|source| source.map(|source| (kernel_calls(source), source.len())))
        .collect();
    tinyaot_test_support::greedy_cover(&calls)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calls_are_the_kernels_called_not_their_parameter_types() {
        let source = "rt::kernels::conv::conv2d_1x1_s8(arena, 448, 0, &P2);\n\
                      static P2: rt::kernels::conv::Conv1x1S8 = rt::kernels::conv::Conv1x1S8 {\n\
                      rt::kernels::softmax::softmax_s8(arena, 0, 16, &P11);\n\
                      rt::kernels::conv::conv2d_1x1_s8(arena, 0, 448, &P4);";
        let calls: Vec<&str> = kernel_calls(source).into_iter().collect();
        assert_eq!(calls, ["conv::conv2d_1x1_s8", "softmax::softmax_s8"]);
    }

    #[test]
    fn the_cover_calls_every_kernel_with_the_fewest_models() {
        let models = [
            Some("rt::kernels::a(); rt::kernels::b();"),
            Some("rt::kernels::a(); rt::kernels::b(); rt::kernels::c();"),
            Some("rt::kernels::c();"),
            Some("rt::kernels::d();"),
            // The same kernel as the model above, in a longer source: not taken.
            Some("rt::kernels::d(); // a longer source"),
            None,
        ];
        assert_eq!(cover(&models), [false, true, false, true, false, true]);
    }

    #[test]
    fn among_equals_the_smaller_model_is_taken() {
        let models = [
            Some("rt::kernels::a(); // the larger of the two"),
            Some("rt::kernels::a();"),
        ];
        assert_eq!(cover(&models), [false, true]);
    }
}

//! Human- and machine-readable views of a [`MemoryPlan`]: a text table, JSON and an SVG drawing.
//! Each is a pure function returning a `String`; writing files is the caller's business.
//!
//! All three list the tensors that take RAM (arena and state regions), in tensor index order, and
//! speak of operators rather than steps: `first_op` is the index of the operator that creates the
//! tensor, or -1 when it exists before the first operator runs (graph inputs, state tensors);
//! `last_op` is the index of the last operator that needs it (for graph outputs and state tensors,
//! the last operator of the graph: they must survive the whole invocation), or -1 when no operator
//! does (a graph input nothing reads). Operator numbers are positions in execution order; when
//! the operators run in another order than the file's, both the text and the JSON list the file
//! index of each position (`order`).

pub(crate) mod json;
mod svg;
mod text;

pub use json::json;
pub use svg::svg;
pub use text::text;

use super::{MemoryPlan, Overlap, Region, TensorPlacement};
use crate::lower::Access;

/// Why a model's `OfflineMemoryAllocation` metadata (TFLM's offline plan) is not used, as both
/// reports say it.
pub const OFFLINE_PLAN_IGNORED: &str = "the model's OfflineMemoryAllocation metadata is not used: \
    tinyaot plans every tensor itself, at or below the liveness lower bound, and its checker \
    proves that plan; the offline offsets are neither honoured nor checked";

/// The operators' file indices in execution order, when that differs from the file's order
/// ([`crate::plan::memory_order`]): both reports list it, since their operator numbers are
/// positions in execution order.
fn reordering(graph: &crate::ir::Graph) -> Option<Vec<usize>> {
    let order: Vec<usize> = graph.operators.iter().map(|op| op.source_index).collect();
    order
        .iter()
        .enumerate()
        .any(|(position, &index)| position != index)
        .then_some(order)
}

/// Whether `order` ([`reordering`]) runs operators in another order than the file's, rather
/// than only without the folded ones.
fn is_reordered(order: &[usize]) -> bool {
    order.windows(2).any(|pair| pair[0] > pair[1])
}

/// The operators folded at generation time ([`crate::fold`]), as `#index NAME` in file order.
fn folded(graph: &crate::ir::Graph) -> Vec<String> {
    let mut folded: Vec<_> = graph.folded.iter().collect();
    folded.sort_by_key(|f| f.source_index);
    folded
        .iter()
        .map(|f| format!("#{} {}", f.source_index, f.op))
        .collect()
}

/// The placements shown in reports: tensors that take RAM.
fn rows(plan: &MemoryPlan) -> impl Iterator<Item = &TensorPlacement> {
    plan.tensors
        .iter()
        .filter(|p| matches!(p.region, Region::Arena | Region::State | Region::Memory(_)))
}

/// The operator index of a step: operator *i* runs at step *i + 1*; step 0 is -1.
fn op_of_step(step: usize) -> i64 {
    i64::try_from(step).map_or(i64::MAX, |s| s - 1)
}

/// `"in place"` or `"stream"`: an overlap's kind as the reports name it.
fn overlap_kind(o: &Overlap) -> &'static str {
    match o.access {
        Access::InPlace { .. } => "in place",
        Access::Slice { .. } => "slice",
        Access::Stream { .. } => "stream",
    }
}

/// How far below the bound the arena is (bytes), when it is.
fn below_bound(plan: &MemoryPlan) -> usize {
    plan.lower_bound_bytes.saturating_sub(plan.arena_bytes)
}

/// [`below_bound`] in percent of the bound.
fn below_percent(plan: &MemoryPlan) -> f64 {
    if plan.lower_bound_bytes == 0 {
        0.0
    } else {
        below_bound(plan) as f64 * 100.0 / plan.lower_bound_bytes as f64
    }
}

/// How far above the lower bound the arena is, in percent of the bound.
fn excess_percent(plan: &MemoryPlan) -> f64 {
    if plan.lower_bound_bytes == 0 {
        0.0
    } else {
        plan.excess_bytes() as f64 * 100.0 / plan.lower_bound_bytes as f64
    }
}

/// `n` with a comma every three digits: 2,451,840. Shared with the project's tools and tests,
/// so that their figures read as the report's.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(2_451_840), "2,451,840");
    }

    #[test]
    fn steps_map_to_operators() {
        assert_eq!(op_of_step(0), -1);
        assert_eq!(op_of_step(1), 0);
    }
}

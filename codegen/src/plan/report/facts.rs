//! What every view of a plan says alike: the rows it lists, operator numbers, overlap kinds,
//! the figures against the lower bound, the reordering and folding lines, number formatting.

use crate::lower::Access;
use crate::plan::memory_plan::{MemoryPlan, Overlap, Storage, TensorPlacement};

/// Why a model's `OfflineMemoryAllocation` metadata (TFLM's offline plan) is not used, as both
/// reports say it.
pub const OFFLINE_PLAN_IGNORED: &str = "the model's OfflineMemoryAllocation metadata is not used: \
    tinyaot plans every tensor itself, at or below the liveness lower bound, and its checker \
    proves that plan; the offline offsets are neither honoured nor checked";

/// The operators' file indices in execution order, when that differs from the file's order
/// ([`crate::plan::memory_order`]): both reports list it, since their operator numbers are
/// positions in execution order.
pub(super) fn reordering(graph: &crate::ir::Graph) -> Option<Vec<usize>> {
    // An inlined IF's steps and its branches' operators all stand for the IF (its index, once:
    // [`branches`] lists them), an inlined WHILE's for the WHILE ([`loops`]).
    let mut order: Vec<usize> = graph
        .operators
        .iter()
        .map(|op| match (op.branch, op.looped) {
            (Some(b), _) => b.caller,
            (None, Some(l)) => l.caller,
            (None, None) => op.source_index,
        })
        .collect();
    order.dedup();
    order
        .iter()
        .enumerate()
        .any(|(position, &index)| position != index)
        .then_some(order)
}

/// Each inlined IF (`load/control.rs`) as `#3 IF: then subgraph 2 at operators 4..=7, else
/// subgraph 1 at operators 9..=12, its outputs at 13`: where its branches' operators run, as
/// positions in execution order (those the reports' operator numbers count).
pub(super) fn branches(graph: &crate::ir::Graph) -> Vec<String> {
    use crate::ir::{IfStep, Options};
    use std::collections::BTreeMap;
    // Per IF: (then subgraph and positions, else subgraph and positions, selection positions).
    type Steps = (
        Option<(usize, Vec<usize>)>,
        Option<(usize, Vec<usize>)>,
        Vec<usize>,
    );
    let mut ifs: BTreeMap<usize, Steps> = BTreeMap::new();
    for (position, op) in graph.operators.iter().enumerate() {
        if let Some(b) = op.branch {
            let entry = ifs.entry(b.caller).or_default();
            let side = if b.taken { &mut entry.0 } else { &mut entry.1 };
            side.get_or_insert_with(|| (b.subgraph, Vec::new()))
                .1
                .push(position);
        } else if op.options == Options::If(IfStep::Select) {
            ifs.entry(op.source_index).or_default().2.push(position);
        }
    }
    let span = |positions: &[usize]| match (positions.first(), positions.last()) {
        (Some(first), Some(last)) if first == last => format!("{first}"),
        (Some(first), Some(last)) => format!("{first}..={last}"),
        _ => "-".to_string(),
    };
    ifs.into_iter()
        .map(|(caller, (then, otherwise, selects))| {
            let mut parts = Vec::new();
            for (which, side) in [("then", then), ("else", otherwise)] {
                if let Some((subgraph, positions)) = side {
                    parts.push(format!(
                        "{which} subgraph {subgraph} at operators {}",
                        span(&positions)
                    ));
                }
            }
            if !selects.is_empty() {
                parts.push(format!("its outputs at {}", span(&selects)));
            }
            format!("#{caller} IF: {}", parts.join(", "))
        })
        .collect()
}

/// Each inlined WHILE (`load/while_loop.rs`) as `#4 WHILE: the loop at operators 9..=30,
/// condition subgraph 1 at 10..=14, body subgraph 2 at 17..=26`: where its loop and its
/// subgraphs' operators run, as positions in execution order.
pub(super) fn loops(graph: &crate::ir::Graph) -> Vec<String> {
    use std::collections::BTreeMap;
    // Per WHILE: the loop's positions, the condition's and the body's (with their subgraphs).
    type Steps = (
        Vec<usize>,
        Option<(usize, Vec<usize>)>,
        Option<(usize, Vec<usize>)>,
    );
    let mut whiles: BTreeMap<usize, Steps> = BTreeMap::new();
    for (position, op) in graph.operators.iter().enumerate() {
        let Some(l) = op.looped else { continue };
        let entry = whiles.entry(l.caller).or_default();
        entry.0.push(position);
        if l.subgraph != 0 {
            let side = if l.body { &mut entry.2 } else { &mut entry.1 };
            side.get_or_insert_with(|| (l.subgraph, Vec::new()))
                .1
                .push(position);
        }
    }
    let span = |positions: &[usize]| match (positions.first(), positions.last()) {
        (Some(first), Some(last)) if first == last => format!("{first}"),
        (Some(first), Some(last)) => format!("{first}..={last}"),
        _ => "-".to_string(),
    };
    whiles
        .into_iter()
        .map(|(caller, (all, cond, body))| {
            let mut parts = vec![format!("the loop at operators {}", span(&all))];
            for (which, side) in [("condition", cond), ("body", body)] {
                if let Some((subgraph, positions)) = side {
                    parts.push(format!(
                        "{which} subgraph {subgraph} at {}",
                        span(&positions)
                    ));
                }
            }
            format!("#{caller} WHILE: {}", parts.join(", "))
        })
        .collect()
}

/// Whether `order` ([`reordering`]) runs operators in another order than the file's, rather
/// than only without the folded ones.
pub(super) fn is_reordered(order: &[usize]) -> bool {
    order.windows(2).any(|pair| pair[0] > pair[1])
}

/// The operators folded at generation time ([`crate::fold`]), as `#index NAME` in file order.
pub(super) fn folded(graph: &crate::ir::Graph) -> Vec<String> {
    let mut folded: Vec<_> = graph.folded.iter().collect();
    folded.sort_by_key(|f| f.source_index);
    folded
        .iter()
        .map(|f| format!("#{} {}", f.source_index, f.op))
        .collect()
}

/// The placements shown in reports: tensors that take RAM.
pub(super) fn rows(plan: &MemoryPlan) -> impl Iterator<Item = &TensorPlacement> {
    plan.tensors.iter().filter(|p| {
        matches!(
            p.storage,
            Storage::Arena | Storage::State | Storage::Memory(_)
        )
    })
}

/// The operator index of a step: operator *i* runs at step *i + 1*; step 0 is -1.
pub(super) fn op_of_step(step: usize) -> i64 {
    i64::try_from(step).map_or(i64::MAX, |s| s - 1)
}

/// `"in place"` or `"stream"`: an overlap's kind as the reports name it.
pub(super) fn overlap_kind(o: &Overlap) -> &'static str {
    match o.access {
        Access::InPlace { .. } => "in place",
        Access::Slice { .. } => "slice",
        Access::Stream { .. } => "stream",
    }
}

/// How far below the bound the arena is (bytes), when it is.
pub(super) fn below_bound(plan: &MemoryPlan) -> usize {
    plan.lower_bound_bytes.saturating_sub(plan.arena_bytes)
}

/// [`below_bound`] in percent of the bound.
pub(super) fn below_percent(plan: &MemoryPlan) -> f64 {
    if plan.lower_bound_bytes == 0 {
        0.0
    } else {
        below_bound(plan) as f64 * 100.0 / plan.lower_bound_bytes as f64
    }
}

/// How far above the lower bound the arena is, in percent of the bound.
pub(super) fn excess_percent(plan: &MemoryPlan) -> f64 {
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
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
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

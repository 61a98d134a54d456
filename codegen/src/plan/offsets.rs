//! Offset assignment over plain lifetime intervals: the greedy orders, then shuffled orders and the
//! exact search where the greedy placement stays above the liveness lower bound.

use super::buffer::{height, to_bytes, Buffer, Permit, Problem};
use super::{greedy, search};

/// Assigns an [`ALIGN`](super::memory_plan::ALIGN)-aligned byte offset to every buffer so that buffers live at a common step
/// never share a byte; returns one offset per buffer, in order. Zero-sized buffers get offset 0.
///
/// Several deterministic greedy orders are tried and the best kept; when that is still above the
/// [`lower_bound`](super::buffer::lower_bound), first fit over shuffled orders (a fixed seed), then
/// a branch-and-bound search with a fixed node budget, look for a better one.
/// Deterministic: the same input always gets the same offsets. Sizes whose sum exceeds `usize::MAX`
/// give meaningless (but never panicking) results; [`plan_graph`](super::place::plan_graph) rejects them.
pub fn plan_buffers(buffers: &[Buffer]) -> Vec<usize> {
    let problem = Problem::new(buffers);
    let bound = problem.bound();
    let mut best = greedy::best(&problem, bound);
    if height(&problem.items, &best) > bound {
        if let Some(better) = greedy::shuffled(&problem, bound, height(&problem.items, &best)) {
            best = better;
        }
    }
    // The search spends at least (items + steps) work units per node and needs a path of
    // items + 1 nodes to find anything: when that is above its budget it cannot succeed, and
    // skipping it changes nothing but the time (quadratic in the items) it would waste.
    let path_cost =
        (problem.items.len() as u128 + 1) * (problem.items.len() as u128 + problem.steps as u128);
    if height(&problem.items, &best) > bound && path_cost <= u128::from(search::WORK_BUDGET) {
        if let Some(better) = search::improve(&problem, bound, height(&problem.items, &best)) {
            best = better;
        }
    }
    let mut offsets = vec![0usize; buffers.len()];
    for (&i, &o) in problem.origin.iter().zip(&best) {
        offsets[i] = to_bytes(o);
    }
    offsets
}

/// [`plan_buffers`] where some pairs of buffers may overlap by [`Permit`](Permit)s: the greedy
/// orders alone (the exact search knows nothing of permits), keeping the lowest placement.
pub(super) fn plan_buffers_with_permits(buffers: &[Buffer], permits: &[Permit]) -> Vec<usize> {
    let problem = Problem::with_permits(buffers, permits);
    // No bound to stop at: with overlaps the liveness bound is no floor.
    let best = greedy::best(&problem, 0);
    let mut offsets = vec![0usize; buffers.len()];
    for (&i, &o) in problem.origin.iter().zip(&best) {
        offsets[i] = to_bytes(o);
    }
    offsets
}

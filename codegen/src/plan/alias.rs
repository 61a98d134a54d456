//! Storage-sharing decisions. Each is recorded as an [`Alias`] so that the checker can verify it
//! against the graph; nothing else in the planner assumes that two tensors may overlap.

use super::memory_plan::{Alias, AliasKind, Storage};
use crate::ir::Graph;

/// The reshape-like ops whose output can simply be the input's bytes.
///
/// Only when both tensors are in the arena with the same non-zero size, and each tensor has at most
/// one writer (the output exactly one: this op, and it is not also a graph input): a second writer of
/// either would change the other's value behind its back.
pub(super) fn reshape_aliases(graph: &Graph, regions: &[Storage]) -> Vec<Alias> {
    let writers = writers(graph);

    let mut aliases = Vec::new();
    for (i, op) in graph.operators.iter().enumerate() {
        if !op.kind.code().is_some_and(crate::lower::is_reshape_like) {
            continue;
        }
        let (Some(of), Some(&tensor)) = (op.input(0), op.outputs.first()) else {
            continue;
        };
        let (Some(a), Some(b)) = (graph.tensors.get(of), graph.tensors.get(tensor)) else {
            continue;
        };
        // Both in the arena, or both in one memory region.
        let placed = |t: usize| matches!(regions.get(t), Some(Storage::Arena | Storage::Memory(_)));
        if of != tensor
            && placed(of)
            && regions[of] == regions[tensor]
            && a.bytes == b.bytes
            && a.bytes > 0
            && writers[of] <= 1
            && writers[tensor] == 1
        {
            aliases.push(Alias {
                tensor,
                of,
                op: i,
                kind: AliasKind::Reshape,
            });
        }
    }
    aliases
}

/// How many times each tensor is written: by an operator (as an output or intermediate), or as a
/// graph input. A tensor with more than one writer may not share another's storage.
pub(super) fn writers(graph: &Graph) -> Vec<usize> {
    let mut writers = vec![0usize; graph.tensors.len()];
    let written = graph
        .operators
        .iter()
        .flat_map(|op| op.outputs.iter().chain(&op.intermediates));
    for &t in written.chain(&graph.inputs) {
        if let Some(w) = writers.get_mut(t) {
            *w += 1;
        }
    }
    writers
}

/// For every tensor, the root of its alias group: follow `tensor -> of` edges until a tensor that
/// aliases nothing. Each tensor has at most one outgoing edge (one writer), and edges point to
/// tensors written earlier, so the walk ends. Each walk stops at the first tensor whose root is
/// already known and then records the root for every tensor it passed, so the whole is linear even
/// for long chains of reshapes; a cycle (which no valid graph has) ends the walk where it closes,
/// so that no input can hang it.
pub(super) fn roots(num_tensors: usize, aliases: &[Alias]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..num_tensors).collect();
    for a in aliases {
        if a.tensor < num_tensors && a.of < num_tensors {
            parent[a.tensor] = a.of;
        }
    }
    const UNKNOWN: usize = usize::MAX;
    let mut root = vec![UNKNOWN; num_tensors];
    // Walk number of the walk that last passed each tensor: a repeat within one walk is a cycle.
    let mut seen = vec![UNKNOWN; num_tensors];
    let mut path = Vec::new();
    for t in 0..num_tensors {
        path.clear();
        let mut r = t;
        let found = loop {
            if root[r] != UNKNOWN {
                break root[r];
            }
            if parent[r] == r || seen[r] == t {
                break r;
            }
            seen[r] = t;
            path.push(r);
            r = parent[r];
        };
        for &p in &path {
            root[p] = found;
        }
        root[t] = found;
    }
    root
}

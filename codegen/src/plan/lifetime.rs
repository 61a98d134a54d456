//! Tensor lifetimes and storage regions, as TFLM's `AllocationInfoBuilder` defines them.

use super::memory_plan::Storage;
use crate::ir::Graph;
use crate::{Error, Result};

/// An inclusive range of steps. Step 0 is before the first operator; operator *i* runs at step
/// *i + 1*.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Steps {
    /// First step the tensor is live.
    pub first: usize,
    /// Last step the tensor is live (inclusive).
    pub last: usize,
}

/// The live steps of every tensor, or `None` for a tensor no operator touches that is neither a
/// graph input nor a graph output.
///
/// Graph inputs are created at step 0; an operator's outputs and intermediates are created at its
/// step (the first producer wins, as in TFLM), and every tensor an operator touches is used at its
/// step; graph outputs are used at the last step. Constant tensors get their read range too
/// (harmless: they never enter the arena).
///
/// A non-constant, non-variable tensor read before anything creates it would be read
/// uninitialised (TFLM refuses such models too): that is an [`Error::Corrupt`].
///
/// The operators of a WHILE's loop run again and again: a tensor that lives across the loop's
/// back edge lives over the whole loop ([`across_loop`]).
pub(super) fn lifetimes(graph: &Graph) -> Result<Vec<Option<Steps>>> {
    let n = graph.tensors.len();
    let last_step = graph.operators.len();
    let mut first: Vec<Option<usize>> = vec![None; n];
    let mut last: Vec<Option<usize>> = vec![None; n];
    let touch = |v: &mut Vec<Option<usize>>, t: usize, step: usize, keep_min: bool| {
        if let Some(slot) = v.get_mut(t) {
            *slot = Some(match *slot {
                Some(old) if keep_min => old.min(step),
                Some(old) => old.max(step),
                None => step,
            });
        }
    };

    for &t in &graph.inputs {
        touch(&mut first, t, 0, true);
        touch(&mut last, t, 0, false);
    }
    for (i, op) in graph.operators.iter().enumerate() {
        let step = i + 1;
        for &t in op.outputs.iter().chain(&op.intermediates) {
            touch(&mut first, t, step, true);
            touch(&mut last, t, step, false);
        }
        for t in op.reads() {
            let Some(tensor) = graph.tensors.get(t) else {
                continue;
            };
            // A tensor of no elements needs none: nothing reads its bytes (an empty constant
            // has no buffer data, and lives in the arena with 0 bytes, as in TFLM).
            let needs_producer =
                tensor.data.is_none() && !tensor.is_variable && tensor.num_elements() > 0;
            if needs_producer && first[t].is_none() {
                return Err(Error::Corrupt {
                    detail: format!(
                        "operator #{i} reads tensor #{t} {:?}, which no earlier operator produces \
                         and which is neither a graph input nor constant",
                        tensor.name
                    ),
                });
            }
            touch(&mut first, t, step, true);
            touch(&mut last, t, step, false);
        }
    }
    for &t in &graph.outputs {
        touch(&mut first, t, last_step, true);
        touch(&mut last, t, last_step, false);
    }

    let mut steps: Vec<Option<Steps>> = first
        .into_iter()
        .zip(last)
        .map(|(f, l)| match (f, l) {
            (Some(first), Some(last)) => Some(Steps { first, last }),
            _ => None,
        })
        .collect();
    for (start, end) in loops(graph) {
        for s in steps.iter_mut().flatten() {
            across_loop(s, start, end);
        }
    }
    Ok(steps)
}

/// The steps of each WHILE's loop, `(first, last)` inclusive: the loop's operators are
/// consecutive (the loader inlines them so, and a graph with a loop keeps its order).
fn loops(graph: &Graph) -> Vec<(usize, usize)> {
    let mut loops: Vec<(usize, usize, usize)> = Vec::new();
    for (i, op) in graph.operators.iter().enumerate() {
        let Some(l) = op.looped else { continue };
        match loops.iter_mut().find(|(caller, _, _)| *caller == l.caller) {
            Some(found) => found.2 = i + 1,
            None => loops.push((l.caller, i + 1, i + 1)),
        }
    }
    loops.into_iter().map(|(_, a, b)| (a, b)).collect()
}

/// Widens `s` to the whole loop `start..=end` when the tensor lives across the loop's back edge,
/// where steps in a straight line do not show it: a tensor created before the loop and used in it
/// (read again at every iteration: its bytes must outlive every step of the loop), or created in
/// the loop and used after it (the last iteration may leave the loop at its exit, before the
/// step that writes the tensor: the value read after the loop is the previous iteration's, which
/// must survive the loop's first steps). A tensor created and last used within one iteration
/// keeps its steps: in each iteration it is written before it is read, as in a straight line.
/// (A tensor read in the loop before it is written there is one created before the loop: a read
/// before any write is refused.)
fn across_loop(s: &mut Steps, start: usize, end: usize) {
    if s.first < start && s.last >= start {
        s.last = s.last.max(end);
    }
    if (start..=end).contains(&s.first) && s.last > end {
        s.first = start;
    }
}

/// The region of every tensor: variable tensors in the state region, constants in flash, tensors
/// with no lifetime unused, everything else in the arena.
pub(super) fn regions(graph: &Graph, steps: &[Option<Steps>]) -> Vec<Storage> {
    graph
        .tensors
        .iter()
        .zip(steps)
        .map(|(tensor, s)| {
            if tensor.is_variable {
                Storage::State
            } else if tensor.is_constant() {
                Storage::Flash
            } else if s.is_none() {
                Storage::Unused
            } else {
                Storage::Arena
            }
        })
        .collect()
}

//! The plan as a table for people.

use super::facts::{
    below_bound, below_percent, excess_percent, op_of_step, overlap_kind, rows, thousands,
};
use crate::ir::Graph;
use crate::lower::Access;
use crate::plan::memory_plan::{MemoryPlan, Overlap, Storage};
use std::fmt::Write;

/// Names longer than this are shortened from the left (the end of a converter's name is the
/// distinctive part: `…/expanded_conv_3/project/BatchNorm`).
const NAME_WIDTH: usize = 44;

/// A table of the tensors that take RAM (index, name, bytes, offset, first and last operator, and
/// region, alias or overlap), followed by the arena size, the lower bound, how far above (or, with
/// overlaps, below) it the plan is (bytes and percent), and the state size when there is state.
pub fn text(graph: &Graph, plan: &MemoryPlan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>6}  {:<NAME_WIDTH$}  {:>10}  {:>10}  {:>8}  {:>7}  note",
        "index", "name", "bytes", "offset", "first op", "last op"
    );
    // Each overlap's note, by tensor (one pass, not a scan per row): on its output's row; a
    // slice's on its input's (a concatenation's output holds several).
    let mut overlap_into = vec![None; plan.tensors.len()];
    for o in &plan.overlaps {
        let (input, output) = o.access.tensors();
        let row = match o.access {
            Access::Slice { .. } => input,
            _ => output,
        };
        if let Some(slot) = overlap_into.get_mut(row) {
            *slot = Some(o);
        }
    }
    for p in rows(plan) {
        let name = graph.tensors.get(p.index).map_or("", |t| t.name.as_str());
        let over = overlap_into.get(p.index).copied().flatten();
        let region = |k: usize| {
            plan.memory_regions
                .get(k)
                .map_or("?", |u| u.region.name.as_str())
        };
        let note = match (p.storage, p.alias_of, over) {
            (Storage::State, ..) => "state region".to_string(),
            (Storage::Memory(k), Some(owner), _) => {
                format!("memory region {}, shares #{owner}", region(k))
            }
            (Storage::Memory(k), ..) => format!("memory region {}", region(k)),
            (_, Some(owner), _) => format!("shares #{owner}"),
            (
                _,
                None,
                Some(&Overlap {
                    op,
                    access: Access::Slice { output, offset, .. },
                }),
            ) => format!("slice of #{output} from byte {offset} (operator {op})"),
            (_, None, Some(o)) => {
                let input = o.access.tensors().0;
                let from = plan.tensors.get(input).map_or(0, |i| i.offset);
                let (distance, side) = if p.offset > from {
                    (p.offset - from, "above")
                } else {
                    (from - p.offset, "below")
                };
                format!(
                    "overlaps #{input} ({}, operator {}, {distance} bytes {side} it)",
                    overlap_kind(o),
                    o.op,
                )
            }
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "{:>6}  {:<NAME_WIDTH$}  {:>10}  {:>10}  {:>8}  {:>7}  {note}",
            p.index,
            shorten(name),
            p.bytes,
            p.offset,
            op_of_step(p.first_step),
            op_of_step(p.last_step),
        );
    }
    for s in &plan.scratch {
        let op = graph
            .operators
            .get(s.op)
            .map_or(String::new(), |o| o.kind.name());
        let _ = writeln!(
            out,
            "{:>6}  {:<NAME_WIDTH$}  {:>10}  {:>10}  {:>8}  {:>7}  scratch of the kernel",
            "-",
            shorten(&format!("scratch {} of #{} {op}", s.slot, s.op)),
            s.bytes,
            s.offset,
            s.op,
            s.op,
        );
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "arena:        {:>12} bytes",
        thousands(plan.arena_bytes)
    );
    let _ = writeln!(
        out,
        "lower bound:  {:>12} bytes",
        thousands(plan.lower_bound_bytes)
    );
    if plan.arena_bytes < plan.lower_bound_bytes {
        let _ = writeln!(
            out,
            "below bound:  {:>12} bytes ({:.2}%), by {} overlaps of outputs with dying inputs",
            thousands(below_bound(plan)),
            below_percent(plan),
            plan.overlaps.len()
        );
    } else {
        let _ = writeln!(
            out,
            "above bound:  {:>12} bytes ({:.2}%)",
            thousands(plan.excess_bytes()),
            excess_percent(plan)
        );
    }
    for used in &plan.memory_regions {
        let _ = writeln!(
            out,
            "region {}: {:>12} bytes of {} (section {}): the activations with the most accesses \
             per byte",
            used.region.name,
            thousands(used.bytes),
            thousands(used.region.capacity),
            used.region.section
        );
    }
    if plan.state_bytes > 0 {
        let _ = writeln!(
            out,
            "state:        {:>12} bytes",
            thousands(plan.state_bytes)
        );
        let _ = writeln!(
            out,
            "RAM:          {:>12} bytes (arena + state)",
            thousands(plan.arena_bytes + plan.state_bytes)
        );
    }
    if graph.offline_offsets.is_some() {
        let _ = writeln!(out, "offline plan: {}", super::facts::OFFLINE_PLAN_IGNORED);
    }
    let folded = super::facts::folded(graph);
    if !folded.is_empty() {
        let _ = writeln!(
            out,
            "folded:       {} (computed at generation time from constants and static shapes: \
             their outputs are constants)",
            folded.join(", ")
        );
    }
    for branch in super::facts::branches(graph) {
        let _ = writeln!(
            out,
            "branches:     {branch} (each branch's operators run only when the condition \
             selects it)"
        );
    }
    for l in super::facts::loops(graph) {
        let _ = writeln!(
            out,
            "loops:        {l} (the loop's operators run again until the condition is false)"
        );
    }
    if let Some(order) = super::facts::reordering(graph) {
        let why = if super::facts::is_reordered(&order) {
            "reordered: fewer bytes alive at once"
        } else {
            "the folded ones left out"
        };
        let order: Vec<String> = order.iter().map(usize::to_string).collect();
        let _ = writeln!(
            out,
            "order:        the file's operators {} ({why}; operator numbers above count \
             positions in this order)",
            order.join(", ")
        );
    }
    out.trim_end_matches('\n').to_string() + "\n"
}

/// `name` cut to [`NAME_WIDTH`] characters, keeping its end.
fn shorten(name: &str) -> String {
    let chars = name.chars().count();
    if chars <= NAME_WIDTH {
        return name.to_string();
    }
    let tail: String = name.chars().skip(chars - (NAME_WIDTH - 1)).collect();
    format!("…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_keep_their_end() {
        let long = format!("{}end", "x".repeat(100));
        let short = shorten(&long);
        assert_eq!(short.chars().count(), NAME_WIDTH);
        assert!(short.starts_with('…') && short.ends_with("end"));
        assert_eq!(shorten("input"), "input");
    }
}

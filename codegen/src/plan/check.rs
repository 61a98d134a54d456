//! The independent checker. It shares no code with the planner: lifetimes are recomputed here from
//! the graph by a different method (one scan per tensor), alias decisions are verified against the
//! operators that justify them, and overlap is tested pair by pair. Only the public plan types and
//! [`ALIGN`] are common.

use super::{AliasKind, Buffer, MemoryPlan, Region, ALIGN};
use crate::ir::Graph;
use crate::{Error, Result};

fn fail<T>(detail: String) -> Result<T> {
    Err(Error::Internal { detail })
}

/// Checks offsets for plain buffers: every offset is [`ALIGN`]-aligned, and two non-empty buffers
/// whose (inclusive) step ranges meet share no byte. Returns the arena size the offsets need: the
/// highest end, rounded up to [`ALIGN`].
///
/// # Errors
///
/// [`Error::Internal`] naming the first violation found, or when the lengths differ.
pub fn check_buffers(buffers: &[Buffer], offsets: &[usize]) -> Result<usize> {
    if buffers.len() != offsets.len() {
        return fail(format!(
            "{} offsets for {} buffers",
            offsets.len(),
            buffers.len()
        ));
    }
    let mut arena = 0usize;
    for (i, (b, &o)) in buffers.iter().zip(offsets).enumerate() {
        if o % ALIGN != 0 {
            return fail(format!(
                "buffer {i}: offset {o} is not {ALIGN}-byte aligned"
            ));
        }
        let Some(end) = o.checked_add(b.bytes).and_then(round_up) else {
            return fail(format!("buffer {i}: offset {o} + {} overflows", b.bytes));
        };
        if b.bytes > 0 {
            arena = arena.max(end);
        }
    }
    for i in 0..buffers.len() {
        for j in i + 1..buffers.len() {
            let (a, b) = (&buffers[i], &buffers[j]);
            let (a_lo, a_hi) = (a.first.min(a.last), a.first.max(a.last));
            let (b_lo, b_hi) = (b.first.min(b.last), b.first.max(b.last));
            let meet = a_lo <= b_hi && b_lo <= a_hi;
            if meet && bytes_intersect(offsets[i], a.bytes, offsets[j], b.bytes) {
                return fail(format!(
                    "buffers {i} (steps {a_lo}..={a_hi}, bytes {}..{}) and {j} (steps \
                     {b_lo}..={b_hi}, bytes {}..{}) are live together and overlap",
                    offsets[i],
                    offsets[i] + a.bytes,
                    offsets[j],
                    offsets[j] + b.bytes
                ));
            }
        }
    }
    Ok(arena)
}

fn round_up(n: usize) -> Option<usize> {
    Some(n.checked_add(ALIGN - 1)? / ALIGN * ALIGN)
}

/// True when `[a, a + a_len)` and `[b, b + b_len)` share a byte (empty ranges share none).
fn bytes_intersect(a: usize, a_len: usize, b: usize, b_len: usize) -> bool {
    a_len > 0 && b_len > 0 && a < b.saturating_add(b_len) && b < a.saturating_add(a_len)
}

/// Verifies a plan against its graph:
///
/// - one placement per tensor, with the tensor's index and size, and `num_steps` = operators + 1;
/// - regions: variable tensors in the state region, constants in flash, untouched tensors unused,
///   the rest in the arena; lifetimes of arena tensors equal to those recomputed here;
/// - offsets aligned to [`ALIGN`], every tensor inside its region, state tensors disjoint;
/// - every alias justified by its operator (a reshape-like op from `of` to `tensor`, equal sizes,
///   one writer each, same offset), and `alias_of` consistent with the alias groups;
/// - any two arena tensors live at a common step either in the same alias group or disjoint;
/// - `lower_bound_bytes` equal to the bound recomputed here, and `arena_bytes` not below it.
///
/// # Errors
///
/// [`Error::Internal`] naming the first violation found.
pub fn check_plan(graph: &Graph, plan: &MemoryPlan) -> Result<()> {
    let n = graph.tensors.len();
    let ops = graph.operators.len();
    if plan.tensors.len() != n {
        return fail(format!("{} placements for {n} tensors", plan.tensors.len()));
    }
    if plan.num_steps != ops + 1 {
        return fail(format!("num_steps {} with {ops} operators", plan.num_steps));
    }
    if plan.arena_bytes % ALIGN != 0 || plan.state_bytes % ALIGN != 0 {
        return fail(format!(
            "arena ({}) or state ({}) size not {ALIGN}-byte aligned",
            plan.arena_bytes, plan.state_bytes
        ));
    }

    for (t, (p, tensor)) in plan.tensors.iter().zip(&graph.tensors).enumerate() {
        if p.index != t || p.bytes != tensor.bytes {
            return fail(format!(
                "placement {t} claims tensor #{} of {} bytes; tensor #{t} has {} bytes",
                p.index, p.bytes, tensor.bytes
            ));
        }
        let live = live_steps(graph, t);
        let region = if tensor.is_variable {
            Region::State
        } else if tensor.data.is_some() {
            Region::Flash
        } else if live.is_some() {
            Region::Arena
        } else {
            Region::Unused
        };
        if p.region != region {
            return fail(format!(
                "tensor #{t} placed in {} but belongs in {}",
                p.region.name(),
                region.name()
            ));
        }
        let (limit, expected) = match region {
            Region::Arena => (plan.arena_bytes, live),
            Region::State => (plan.state_bytes, Some((0, ops))),
            Region::Flash | Region::Unused => continue,
        };
        if Some((p.first_step, p.last_step)) != expected {
            return fail(format!(
                "tensor #{t}: plan says steps {}..={}, the graph says {expected:?}",
                p.first_step, p.last_step
            ));
        }
        if p.offset % ALIGN != 0 {
            return fail(format!(
                "tensor #{t}: offset {} is not {ALIGN}-byte aligned",
                p.offset
            ));
        }
        if p.offset
            .checked_add(p.bytes)
            .map_or(true, |end| end > limit)
        {
            return fail(format!(
                "tensor #{t}: bytes {}..+{} lie outside the {} region of {limit} bytes",
                p.offset,
                p.bytes,
                region.name()
            ));
        }
    }

    check_state_disjoint(plan)?;
    let group = alias_groups(graph, plan)?;
    check_arena_disjoint(plan, &group)?;
    check_bound(plan, &group)
}

/// The steps tensor `t` is live, found by scanning the graph for this one tensor: created at 0 if a
/// graph input, else at its first writer's step; last used at the latest step touching it, or the
/// end for graph outputs. `None` if nothing touches it.
fn live_steps(graph: &Graph, t: usize) -> Option<(usize, usize)> {
    let end = graph.operators.len();
    let mut created = graph.inputs.contains(&t).then_some(0);
    let mut last = created;
    for (i, op) in graph.operators.iter().enumerate() {
        let writes = op.outputs.contains(&t) || op.intermediates.contains(&t);
        let reads = op.inputs.contains(&Some(t));
        if writes && created.is_none() {
            created = Some(i + 1);
        }
        if writes || reads {
            last = Some(i + 1);
        }
    }
    if graph.outputs.contains(&t) {
        created = created.or(Some(end));
        last = Some(end);
    }
    Some((created?, last?))
}

/// State tensors all live forever, so no two may share a byte.
fn check_state_disjoint(plan: &MemoryPlan) -> Result<()> {
    let mut state: Vec<_> = plan
        .tensors
        .iter()
        .filter(|p| p.region == Region::State && p.bytes > 0)
        .collect();
    state.sort_by_key(|p| p.offset);
    for w in state.windows(2) {
        if w[0].offset + w[0].bytes > w[1].offset {
            return fail(format!(
                "state tensors #{} and #{} overlap",
                w[0].index, w[1].index
            ));
        }
    }
    Ok(())
}

/// Verifies every alias decision against the graph and returns, for each tensor, a label of its
/// alias group (the smallest tensor index in the group).
fn alias_groups(graph: &Graph, plan: &MemoryPlan) -> Result<Vec<usize>> {
    let n = graph.tensors.len();
    let mut writers = vec![0usize; n];
    for op in &graph.operators {
        for &t in op.outputs.iter().chain(&op.intermediates) {
            if t < n {
                writers[t] += 1;
            }
        }
    }
    for &t in &graph.inputs {
        if t < n {
            writers[t] += 1;
        }
    }

    let mut label: Vec<usize> = (0..n).collect();
    for a in &plan.aliases {
        let what = format!(
            "alias of tensor #{} to #{} by operator #{}",
            a.tensor, a.of, a.op
        );
        let (Some(pt), Some(po), Some(op)) = (
            plan.tensors.get(a.tensor),
            plan.tensors.get(a.of),
            graph.operators.get(a.op),
        ) else {
            return fail(format!("{what}: index out of range"));
        };
        match a.kind {
            AliasKind::Reshape => {
                let reshape = op.kind.code().is_some_and(|c| c.is_reshape_like());
                let wired = op.input(0) == Some(a.of) && op.outputs.first() == Some(&a.tensor);
                if !reshape || !wired || a.tensor == a.of {
                    return fail(format!(
                        "{what}: the operator is not a reshape-like op from one to the other"
                    ));
                }
                if pt.region != Region::Arena || po.region != Region::Arena {
                    return fail(format!("{what}: both tensors must be in the arena"));
                }
                if pt.bytes != po.bytes || pt.offset != po.offset {
                    return fail(format!("{what}: sizes or offsets differ"));
                }
                if writers[a.tensor] != 1 || writers[a.of] > 1 {
                    return fail(format!(
                        "{what}: a tensor written more than once cannot share storage"
                    ));
                }
            }
        }
        // Merge the two groups, relabelling every member: quadratic, and obviously right.
        let (keep, drop) = (
            label[a.tensor].min(label[a.of]),
            label[a.tensor].max(label[a.of]),
        );
        for l in &mut label {
            if *l == drop {
                *l = keep;
            }
        }
    }

    for p in &plan.tensors {
        if let Some(r) = p.alias_of {
            let owner_ok = plan.tensors.get(r).is_some_and(|o| {
                r != p.index && o.alias_of.is_none() && label[r] == label[p.index]
            });
            if !owner_ok {
                return fail(format!(
                    "tensor #{}: alias_of #{r} is not the owner of its alias group",
                    p.index
                ));
            }
        }
    }
    Ok(label)
}

/// Any two arena tensors live at a common step share no byte unless they are in one alias group.
fn check_arena_disjoint(plan: &MemoryPlan, group: &[usize]) -> Result<()> {
    let arena: Vec<_> = plan
        .tensors
        .iter()
        .filter(|p| p.region == Region::Arena && p.bytes > 0)
        .collect();
    for (i, a) in arena.iter().enumerate() {
        for b in &arena[i + 1..] {
            let meet = a.first_step <= b.last_step && b.first_step <= a.last_step;
            if meet
                && group[a.index] != group[b.index]
                && bytes_intersect(a.offset, a.bytes, b.offset, b.bytes)
            {
                return fail(format!(
                    "tensors #{} (steps {}..={}, bytes {}..{}) and #{} (steps {}..={}, bytes \
                     {}..{}) are live together and overlap",
                    a.index,
                    a.first_step,
                    a.last_step,
                    a.offset,
                    a.offset + a.bytes,
                    b.index,
                    b.first_step,
                    b.last_step,
                    b.offset,
                    b.offset + b.bytes
                ));
            }
        }
    }
    Ok(())
}

/// Recomputes the liveness lower bound step by step: a group counts, once, at every step where any
/// member is live, with its largest member's size rounded up.
fn check_bound(plan: &MemoryPlan, group: &[usize]) -> Result<()> {
    let mut bound = 0usize;
    for step in 0..plan.num_steps {
        let mut live: Vec<(usize, usize)> = plan
            .tensors
            .iter()
            .filter(|p| p.region == Region::Arena && p.first_step <= step && step <= p.last_step)
            .map(|p| (group[p.index], round_up(p.bytes).unwrap_or(usize::MAX)))
            .collect();
        // Largest size first within a group, then keep one entry per group.
        live.sort_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(&x.1)));
        live.dedup_by_key(|x| x.0);
        let total = live.iter().fold(0usize, |acc, x| acc.saturating_add(x.1));
        bound = bound.max(total);
    }
    if bound != plan.lower_bound_bytes {
        return fail(format!(
            "lower bound is {bound} bytes, the plan says {}",
            plan.lower_bound_bytes
        ));
    }
    if plan.arena_bytes < bound {
        return fail(format!(
            "arena of {} bytes is below the lower bound {bound}",
            plan.arena_bytes
        ));
    }
    Ok(())
}

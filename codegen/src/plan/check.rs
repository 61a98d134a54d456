//! The independent checker. It shares no code with the planner: lifetimes are recomputed here from
//! the graph by a different method (every use of every tensor, sorted by tensor), alias decisions
//! are verified against the operators that justify them, and overlap is tested by a sweep over the
//! steps that keeps the live blocks ordered by offset. Only the public plan types and [`ALIGN`] are
//! common.
//!
//! Every check is O(n log n) in the size of the graph, so that checking never dominates generation
//! (a pairwise test takes minutes on a chain of 100,000 operators).

use std::collections::BTreeMap;

use super::buffer::Buffer;
use super::memory_plan::{AliasKind, MemoryPlan, Overlap, Storage, TensorPlacement, ALIGN};
use crate::ir::Graph;
use crate::lower::{Access, Stream};
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
    let mut blocks = Sweep::default();
    for (i, j) in sweep_order(buffers.iter().enumerate().filter_map(|(i, b)| {
        let (lo, hi) = (b.first.min(b.last), b.first.max(b.last));
        (b.bytes > 0).then_some((i, lo, hi))
    })) {
        let Some(i) = i else {
            blocks.remove(offsets[j]);
            continue;
        };
        let (a, o) = (&buffers[i], offsets[i]);
        if let Some(other) = blocks.insert(o, o + a.bytes, i, i) {
            let b = &buffers[other];
            let (a_lo, a_hi) = (a.first.min(a.last), a.first.max(a.last));
            let (b_lo, b_hi) = (b.first.min(b.last), b.first.max(b.last));
            return fail(format!(
                "buffers {other} (steps {b_lo}..={b_hi}, bytes {}..{}) and {i} (steps \
                 {a_lo}..={a_hi}, bytes {}..{}) are live together and overlap",
                offsets[other],
                offsets[other] + b.bytes,
                o,
                o + a.bytes
            ));
        }
    }
    Ok(arena)
}

/// The order in which a sweep over the steps meets the blocks `(index, first, last)` (inclusive
/// steps): `(Some(index), index)` when a block starts, `(None, index)` after its last step. At each
/// step the blocks that ended before it leave before the blocks that start at it arrive.
fn sweep_order(blocks: impl Iterator<Item = (usize, usize, usize)>) -> Vec<(Option<usize>, usize)> {
    let mut events: Vec<(usize, bool, usize)> = Vec::new();
    for (i, first, last) in blocks {
        events.push((first, true, i));
        events.push((last.saturating_add(1), false, i));
    }
    // `false` (leave) sorts before `true` (arrive) at the same step.
    events.sort_unstable();
    events
        .into_iter()
        .map(|(_, arrive, i)| (arrive.then_some(i), i))
        .collect()
}

/// The blocks live at the current step of a sweep, by offset. Blocks of different groups never
/// overlap in here (an overlapping arrival is reported instead of inserted), so the only block that
/// can overlap a newcomer `[start, end)` is the one with the largest offset below `end`. Blocks of
/// one alias group share their bytes exactly and are counted in one entry.
#[derive(Default)]
struct Sweep {
    /// Offset → (end, group, representative index, members live).
    live: BTreeMap<usize, (usize, usize, usize, usize)>,
}

impl Sweep {
    /// Adds block `index` of `group` at `[start, end)`; returns the index of a live block of another
    /// group that shares a byte with it, if any (and then adds nothing).
    fn insert(&mut self, start: usize, end: usize, group: usize, index: usize) -> Option<usize> {
        if let Some((&o, entry)) = self.live.range_mut(..end).next_back() {
            if o == start && entry.1 == group {
                entry.0 = entry.0.max(end);
                entry.3 += 1;
                return None;
            }
            if entry.0 > start {
                return Some(entry.2);
            }
        }
        self.live.insert(start, (end, group, index, 1));
        None
    }

    /// Removes one member of the block at `start`.
    fn remove(&mut self, start: usize) {
        if let Some(entry) = self.live.get_mut(&start) {
            entry.3 -= 1;
            if entry.3 == 0 {
                self.live.remove(&start);
            }
        }
    }
}

fn round_up(n: usize) -> Option<usize> {
    Some(n.checked_add(ALIGN - 1)? / ALIGN * ALIGN)
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
/// [`Error::Internal`] naming the first violation found, an overlap among them: a plan checked
/// here may have none ([`check_plan_with`] checks overlaps against the kernels' contracts).
pub fn check_plan(graph: &Graph, plan: &MemoryPlan) -> Result<()> {
    check_plan_with(graph, plan, &[])
}

/// [`check_plan`] for a plan with [`Overlap`]s, each proven from the contract its kernel declares
/// (`access`, by operator, as [`super::place::access_contracts`] lists them), not from the planner's
/// reasoning:
///
/// - the operator declares exactly that contract; the input dies at the operator's step (its last
///   use, no graph output), the output is born there and has no other writer; no operator, input
///   or output takes part in two overlaps;
/// - in place: one offset, the output no larger than the input;
/// - a stream: the geometry gives both tensors' sizes, and for every group of output pixels, in
///   its own recomputation here, the group's bytes avoid every input byte still to be read;
/// - at the step, the union of the two tensors' bytes is one block for the sweep: nothing else
///   live there may touch it. Before the step the input, after it the output, are swept as usual.
///
/// The liveness bound is recomputed without the overlaps; the arena may be below it only when
/// the plan has some.
///
/// # Errors
///
/// [`Error::Internal`] naming the first violation found.
pub fn check_plan_with(graph: &Graph, plan: &MemoryPlan, access: &[(usize, Access)]) -> Result<()> {
    let n = graph.tensors.len();
    let ops = graph.operators.len();
    if plan.tensors.len() != n {
        return fail(format!("{} placements for {n} tensors", plan.tensors.len()));
    }
    if plan.num_steps != ops + 1 {
        return fail(format!("num_steps {} with {ops} operators", plan.num_steps));
    }
    if !plan.arena_bytes.is_multiple_of(ALIGN) || !plan.state_bytes.is_multiple_of(ALIGN) {
        return fail(format!(
            "arena ({}) or state ({}) size not {ALIGN}-byte aligned",
            plan.arena_bytes, plan.state_bytes
        ));
    }
    for used in &plan.memory_regions {
        if used.bytes % ALIGN != 0 || used.bytes > used.region.capacity {
            return fail(format!(
                "memory region `{}`: {} bytes used of {}, or not {ALIGN}-byte aligned",
                used.region.name, used.bytes, used.region.capacity
            ));
        }
    }

    let lives = live_steps(graph);
    for (t, (p, tensor)) in plan.tensors.iter().zip(&graph.tensors).enumerate() {
        if p.index != t || p.bytes != tensor.bytes {
            return fail(format!(
                "placement {t} claims tensor #{} of {} bytes; tensor #{t} has {} bytes",
                p.index, p.bytes, tensor.bytes
            ));
        }
        let live = lives.get(t).copied().flatten();
        let region = if tensor.is_variable {
            Storage::State
        } else if tensor.data.is_some() {
            Storage::Flash
        } else if live.is_some() {
            Storage::Arena
        } else {
            Storage::Unused
        };
        // An activation may live in the arena or in a memory region the plan names.
        let moved = region == Storage::Arena
            && matches!(p.storage, Storage::Memory(k) if k < plan.memory_regions.len());
        if p.storage != region && !moved {
            return fail(format!(
                "tensor #{t} placed in {} but belongs in {}",
                p.storage.name(),
                region.name()
            ));
        }
        let (limit, expected) = match p.storage {
            Storage::Arena => (plan.arena_bytes, live),
            Storage::Memory(k) => (plan.memory_regions[k].bytes, live),
            Storage::State => (plan.state_bytes, Some((0, ops))),
            Storage::Flash | Storage::Unused => continue,
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
        if p.offset.checked_add(p.bytes).is_none_or(|end| end > limit) {
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
    for k in 0..plan.memory_regions.len() {
        check_arena_disjoint(plan, &tensor_blocks(plan, &group, Storage::Memory(k)))?;
    }
    let blocks = arena_blocks(plan, &group)?;
    check_bound(plan, &blocks)?;
    let blocks = overlap_blocks(graph, plan, &lives, access, blocks)?;
    check_arena_disjoint(plan, &blocks)
}

/// The tensors of `region` as blocks (the others empty), for the sweep: the arena's, or a memory
/// region's (which has no scratch memory and no overlaps).
fn tensor_blocks(plan: &MemoryPlan, group: &[usize], region: Storage) -> Vec<Block> {
    plan.tensors
        .iter()
        .map(|p| Block {
            group: group[p.index],
            first: p.first_step,
            last: p.last_step,
            offset: p.offset,
            bytes: if p.storage == region { p.bytes } else { 0 },
        })
        .collect()
}

/// Verifies every overlap of `plan` (see [`check_plan_with`]) and returns `blocks` with each
/// overlap's input ending before its step, its output starting after it, and one block for both
/// at the step (its own group).
fn overlap_blocks(
    graph: &Graph,
    plan: &MemoryPlan,
    lives: &[Option<(usize, usize)>],
    access: &[(usize, Access)],
    mut blocks: Vec<Block>,
) -> Result<Vec<Block>> {
    let n = graph.tensors.len();
    let writers = writers(graph);
    let mut is_output = vec![false; n];
    for &t in &graph.outputs {
        if let Some(o) = is_output.get_mut(t) {
            *o = true;
        }
    }
    let declared: std::collections::HashSet<&(usize, Access)> = access.iter().collect();
    let mut used = std::collections::HashMap::new();
    // The block at the step of each concatenation with slices: one for all its slices.
    let mut slice_block = std::collections::HashSet::new();
    for (k, &Overlap { op, access: a }) in plan.overlaps.iter().enumerate() {
        let (x, y) = a.tensors();
        let what = format!("overlap {k} (operator #{op}, tensor #{x} into #{y})");
        if !declared.contains(&(op, a)) {
            return fail(format!(
                "{what}: the operator's kernel declares no such contract"
            ));
        }
        let (Some(px), Some(py)) = (plan.tensors.get(x), plan.tensors.get(y)) else {
            return fail(format!("{what}: tensor index out of range"));
        };
        if px.storage != Storage::Arena || py.storage != Storage::Arena || x == y {
            return fail(format!(
                "{what}: both tensors must be distinct arena tensors"
            ));
        }
        let step = op + 1;
        let dies = lives[x].is_some_and(|(_, last)| last == step) && !is_output[x];
        let born = lives[y].is_some_and(|(first, _)| first == step) && writers[y] == 1;
        if !dies || !born {
            return fail(format!(
                "{what}: the input must die and the output be born (one writer) at step {step}"
            ));
        }
        // Each operator, input and output takes part in one overlap, except that the slices of
        // one concatenation share their operator and output.
        let slice = matches!(a, Access::Slice { .. });
        for key in [(0, op), (1, x), (2, y)] {
            match used.insert(key, slice) {
                Some(true) if slice && key.0 != 1 => {}
                Some(_) => return fail(format!("{what}: takes part in another overlap")),
                None => {}
            }
        }
        match a {
            Access::InPlace { .. } => {
                if px.offset != py.offset || py.bytes > px.bytes {
                    return fail(format!(
                        "{what}: in place needs one offset and an output no larger than the \
                         input"
                    ));
                }
            }
            Access::Slice { offset, .. } => {
                if offset.checked_add(py.offset) != Some(px.offset)
                    || offset
                        .checked_add(px.bytes)
                        .is_none_or(|end| end > py.bytes)
                {
                    return fail(format!(
                        "{what}: a slice lies at the output's offset plus {offset}, within the \
                         output"
                    ));
                }
                // The output's bytes, the slices inside them, as one block at the step.
                blocks[x].last = step - 1;
                blocks[y].first = step + 1;
                if slice_block.insert(op) {
                    blocks.push(Block {
                        group: usize::MAX - k,
                        first: step,
                        last: step,
                        offset: py.offset,
                        bytes: py.bytes,
                    });
                }
                continue;
            }
            Access::Stream { stream, .. } => check_stream(&what, &stream, px, py)?,
        }
        // The sweep: the input up to the step before, the output from the step after, and the
        // union of their bytes at the step.
        let low = px.offset.min(py.offset);
        let high = (px.offset + px.bytes).max(py.offset + py.bytes);
        if px.offset + px.bytes < py.offset || py.offset + py.bytes < px.offset {
            return fail(format!("{what}: the tensors do not overlap"));
        }
        blocks[x].last = step - 1;
        blocks[y].first = step + 1;
        blocks.push(Block {
            group: usize::MAX - k,
            first: step,
            last: step,
            offset: low,
            bytes: high - low,
        });
    }
    // A block shortened to nothing (an input made at the step before? no: `first > last`) is not
    // swept.
    for b in &mut blocks {
        if b.first > b.last {
            b.bytes = 0;
        }
    }
    Ok(blocks)
}

/// Proves one stream overlap: the contract's geometry gives both tensors' sizes, and each group
/// of output pixels, placed at the output's offset, avoids the input bytes still to be read when
/// it is written. Output below the input (or at it): the groups in order, and the bytes from the
/// lowest one any pixel from the group on reads (from the next group on, when the group reads
/// before it writes). Output above the input: only for a reversible stream, the groups in
/// decreasing order, and the bytes up to the highest one any pixel up to the group's end reads
/// (up to its start, when it reads first).
fn check_stream(
    what: &str,
    s: &Stream,
    input: &TensorPlacement,
    output: &TensorPlacement,
) -> Result<()> {
    let dims = [
        s.batches,
        s.input_h,
        s.input_w,
        s.input_pixel,
        s.output_h,
        s.output_w,
        s.output_pixel,
        s.stride_h,
        s.stride_w,
        s.group,
    ];
    let product = |v: &[usize]| v.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let in_len = product(&dims[0..4]);
    let out_len = product(&[dims[0], dims[4], dims[5], dims[6]]);
    if dims.contains(&0) || in_len != Some(input.bytes) || out_len != Some(output.bytes) {
        return fail(format!(
            "{what}: the stream's geometry does not give the tensors' sizes"
        ));
    }
    let (rows, cols) = (s.output_h, s.output_w);
    let pixels = s.batches * rows * cols;
    let last_group = (pixels - 1) / s.group;
    let group = |g: usize| (g * s.group, ((g + 1) * s.group).min(pixels));
    let written = |(start, end): (usize, usize)| {
        (
            output.offset + start * s.output_pixel,
            output.offset + end * s.output_pixel,
        )
    };
    let clash = |(start, end): (usize, usize), (from, to): (usize, usize)| {
        fail(format!(
            "{what}: output pixels {start}..{end} (bytes {from}..{to}) overwrite input bytes \
             still to be read"
        ))
    };
    if output.offset > input.offset {
        if !s.reversible {
            return fail(format!(
                "{what}: the output starts above the input, and the stream is not reversible"
            ));
        }
        // The highest input byte (exclusive) output pixel `p` reads: its window's far corner,
        // clamped to the image.
        let far = |p: usize| {
            let (b, y, x) = (p / (rows * cols), p / cols % rows, p % cols);
            let edge = |at: usize, span: usize, pad: usize, len: usize| {
                (at + span.max(1) - 1).saturating_sub(pad).min(len - 1)
            };
            let iy = edge(y * s.stride_h, s.window_h, s.pad_top, s.input_h);
            let ix = edge(x * s.stride_w, s.window_w, s.pad_left, s.input_w);
            (b * s.input_h * s.input_w + iy * s.input_w + ix + 1) * s.input_pixel
        };
        // Forwards over the groups: `highest` is the highest byte read up to the group's end.
        let mut highest = 0;
        for g in 0..=last_group {
            let (start, end) = group(g);
            let before = highest;
            highest = (start..end).map(far).fold(highest, usize::max);
            let pending = input.offset + if s.reads_first { before } else { highest };
            let bytes = written((start, end));
            if bytes.0 < pending && input.offset < bytes.1 {
                return clash((start, end), bytes);
            }
        }
        return Ok(());
    }
    // The lowest input byte output pixel `p` reads: its window's corner, clamped to the image.
    let corner = |p: usize| {
        let b = p / (rows * cols);
        let y = p / cols % rows;
        let x = p % cols;
        let iy = (y * s.stride_h).saturating_sub(s.pad_top);
        let ix = (x * s.stride_w).saturating_sub(s.pad_left);
        (b * s.input_h * s.input_w + iy * s.input_w + ix) * s.input_pixel
    };
    // Backwards over the groups: `lowest` is the lowest byte read from the group's end on.
    let mut lowest = input.bytes;
    for g in (0..=last_group).rev() {
        let (start, end) = group(g);
        let after = lowest;
        lowest = (start..end).map(corner).fold(lowest, usize::min);
        let pending = input.offset + if s.reads_first { after } else { lowest };
        let bytes = written((start, end));
        if bytes.0 < input.offset + input.bytes && pending < bytes.1 {
            return clash((start, end), bytes);
        }
    }
    Ok(())
}

/// The steps every tensor is live, from a list of every use of every tensor sorted by tensor: a
/// graph input is created at 0, anything else at its first writer's step; last used at the latest
/// step touching it, or the end for graph outputs; over the whole of a WHILE's loop when it lives
/// across the loop's back edge. `None` for a tensor nothing touches.
fn live_steps(graph: &Graph) -> Vec<Option<(usize, usize)>> {
    let n = graph.tensors.len();
    let end = graph.operators.len();
    // (tensor, step, writes)
    let mut uses: Vec<(usize, usize, bool)> = Vec::new();
    for (i, op) in graph.operators.iter().enumerate() {
        for &t in op.outputs.iter().chain(&op.intermediates) {
            uses.push((t, i + 1, true));
        }
        for t in op.reads() {
            uses.push((t, i + 1, false));
        }
    }
    uses.sort_unstable();
    // The steps of each WHILE's loop, first to last, by the WHILE: they run again and again.
    let mut by_caller: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for (i, op) in graph.operators.iter().enumerate() {
        if let Some(l) = op.looped {
            let e = by_caller.entry(l.caller).or_insert((i + 1, i + 1));
            e.0 = e.0.min(i + 1);
            e.1 = e.1.max(i + 1);
        }
    }
    let loops: Vec<(usize, usize)> = by_caller.into_values().collect();
    let mut is_input = vec![false; n];
    let mut is_output = vec![false; n];
    for &t in &graph.inputs {
        if let Some(slot) = is_input.get_mut(t) {
            *slot = true;
        }
    }
    for &t in &graph.outputs {
        if let Some(slot) = is_output.get_mut(t) {
            *slot = true;
        }
    }
    let mut live = Vec::with_capacity(n);
    let mut rest = uses.as_slice();
    for t in 0..n {
        let count = rest.iter().take_while(|u| u.0 == t).count();
        // Uses of indices past the table (none in a loaded graph) sort last and are never read.
        let (mine, after) = rest.split_at(count);
        rest = after;
        let mut created = is_input[t].then_some(0);
        let mut last = created;
        if created.is_none() {
            created = mine.iter().find(|u| u.2).map(|u| u.1);
        }
        // A tensor of no elements may be read unwritten (an empty constant has no data): it
        // lives from its first use.
        if created.is_none() && graph.tensors.get(t).is_some_and(|x| x.num_elements() == 0) {
            created = mine.first().map(|u| u.1);
        }
        if let Some(u) = mine.last() {
            last = Some(u.1);
        }
        if is_output[t] {
            created = created.or(Some(end));
            last = Some(end);
        }
        let mut steps = created.zip(last);
        if let Some((a, b)) = steps.as_mut() {
            for &(start, stop) in &loops {
                // Across the back edge: live when the loop starts (created before it, or read
                // in it before any write there) and used in it, or still needed after it (the
                // last iteration may leave at its exit, before the step that wrote the value
                // read after the loop). Such a tensor must survive every step of the loop.
                let inside: Vec<&(usize, usize, bool)> = mine
                    .iter()
                    .filter(|u| (start..=stop).contains(&u.1))
                    .collect();
                let entering = inside.first().is_some_and(|first| *a < start || !first.2);
                let leaving = (start..=stop).contains(a) && *b > stop;
                if entering || leaving {
                    *a = (*a).min(start);
                    *b = (*b).max(stop);
                }
            }
        }
        live.push(steps);
    }
    live
}

/// State tensors all live forever, so no two may share a byte.
fn check_state_disjoint(plan: &MemoryPlan) -> Result<()> {
    let mut state: Vec<_> = plan
        .tensors
        .iter()
        .filter(|p| p.storage == Storage::State && p.bytes > 0)
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
    let writers = writers(graph);

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
                let reshape = op.kind.code().is_some_and(crate::lower::is_reshape_like);
                let wired = op.input(0) == Some(a.of) && op.outputs.first() == Some(&a.tensor);
                if !reshape || !wired || a.tensor == a.of {
                    return fail(format!(
                        "{what}: the operator is not a reshape-like op from one to the other"
                    ));
                }
                let placed = matches!(pt.storage, Storage::Arena | Storage::Memory(_));
                if !placed || pt.storage != po.storage {
                    return fail(format!(
                        "{what}: both tensors must be in the arena, or in one memory region"
                    ));
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
        // Merge the two groups; the root of a group is always its smallest index.
        let (x, y) = (find(&mut label, a.tensor), find(&mut label, a.of));
        label[x.max(y)] = x.min(y);
    }
    for t in 0..n {
        label[t] = find(&mut label, t);
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

/// How many times each tensor is written: by an operator (as an output or intermediate), or as
/// a graph input.
fn writers(graph: &Graph) -> Vec<usize> {
    let n = graph.tensors.len();
    let mut writers = vec![0usize; n];
    let outputs = graph
        .operators
        .iter()
        .flat_map(|op| op.outputs.iter().chain(&op.intermediates));
    for &t in outputs.chain(&graph.inputs) {
        if t < n {
            writers[t] += 1;
        }
    }
    writers
}

/// The root of `t` in the union-find forest `parent`, halving the path on the way.
fn find(parent: &mut [usize], mut t: usize) -> usize {
    while parent[t] != t {
        parent[t] = parent[parent[t]];
        t = parent[t];
    }
    t
}

/// One block of arena bytes the checker sweeps over: a tensor, or a kernel's scratch memory.
struct Block {
    /// Alias group: blocks of one group may share bytes (scratch is always its own group).
    group: usize,
    first: usize,
    last: usize,
    offset: usize,
    bytes: usize,
}

/// The arena tensors (by tensor index) and then the scratch placements, as blocks; scratch
/// memory is checked to be aligned, inside the arena and at an operator's step.
fn arena_blocks(plan: &MemoryPlan, group: &[usize]) -> Result<Vec<Block>> {
    let n = plan.tensors.len();
    let mut blocks = tensor_blocks(plan, group, Storage::Arena);
    let mut slots: BTreeMap<usize, usize> = BTreeMap::new();
    for (k, s) in plan.scratch.iter().enumerate() {
        let slot = slots.entry(s.op).or_insert(0);
        if s.slot != *slot || s.op + 1 >= plan.num_steps {
            return fail(format!(
                "scratch {k}: slot {} of operator #{} is out of order or range",
                s.slot, s.op
            ));
        }
        *slot += 1;
        let inside = s
            .offset
            .checked_add(s.bytes)
            .is_some_and(|end| end <= plan.arena_bytes);
        if s.offset % ALIGN != 0 || !inside {
            return fail(format!(
                "scratch {k} of operator #{}: bytes {}..+{} are unaligned or outside the arena",
                s.op, s.offset, s.bytes
            ));
        }
        blocks.push(Block {
            group: n + k,
            first: s.op + 1,
            last: s.op + 1,
            offset: s.offset,
            bytes: s.bytes,
        });
    }
    Ok(blocks)
}

/// Any two blocks (arena tensors, scratch memory) live at a common step share no byte unless they
/// are in one alias group.
fn check_arena_disjoint(plan: &MemoryPlan, blocks: &[Block]) -> Result<()> {
    // Steps were checked against the graph before, so `first <= last` here.
    let live = blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.bytes > 0)
        .map(|(i, b)| (i, b.first, b.last));
    let name = |i: usize| match i.checked_sub(plan.tensors.len()) {
        None => format!("tensor #{i}"),
        Some(k) => format!("scratch {k} of operator #{}", plan.scratch[k].op),
    };
    let mut sweep = Sweep::default();
    for (arrives, i) in sweep_order(live) {
        let b = &blocks[i];
        if arrives.is_none() {
            sweep.remove(b.offset);
            continue;
        }
        // Offsets plus sizes were checked to fit in the arena before.
        if let Some(other) = sweep.insert(b.offset, b.offset + b.bytes, b.group, i) {
            let a = &blocks[other];
            return fail(format!(
                "{} (steps {}..={}, bytes {}..{}) and {} (steps {}..={}, bytes {}..{}) are live \
                 together and overlap",
                name(other),
                a.first,
                a.last,
                a.offset,
                a.offset + a.bytes,
                name(i),
                b.first,
                b.last,
                b.offset,
                b.offset + b.bytes
            ));
        }
    }
    Ok(())
}

/// Recomputes the liveness lower bound step by step: a group counts, once, at every step where any
/// member is live, with its largest member's size rounded up.
fn check_bound(plan: &MemoryPlan, blocks: &[Block]) -> Result<()> {
    // Members of one group share their bytes (checked with the aliases), so a group is one block
    // over the union of its members' lifetimes: merge those per group, then add every block's
    // size at its first step and take it away after its last.
    let mut members: Vec<(usize, usize, usize, usize)> = blocks
        .iter()
        .filter(|b| b.bytes > 0 && b.first < plan.num_steps)
        .map(|b| {
            let size = round_up(b.bytes).unwrap_or(usize::MAX);
            let last = b.last.min(plan.num_steps - 1);
            (b.group, b.first, last, size)
        })
        .filter(|m| m.1 <= m.2)
        .collect();
    members.sort_unstable();
    let mut delta = vec![0i128; plan.num_steps + 1];
    let mut add = |first: usize, last: usize, size: usize| {
        delta[first] += size as i128;
        delta[last + 1] -= size as i128;
    };
    let mut open: Option<(usize, usize, usize, usize)> = None;
    for m in members {
        match &mut open {
            Some(o) if o.0 == m.0 && m.1 <= o.2 => {
                o.2 = o.2.max(m.2);
                o.3 = o.3.max(m.3);
            }
            _ => {
                if let Some(o) = open.replace(m) {
                    add(o.1, o.2, o.3);
                }
            }
        }
    }
    if let Some(o) = open {
        add(o.1, o.2, o.3);
    }
    let mut running = 0i128;
    let mut bound = 0usize;
    for d in &delta[..plan.num_steps] {
        running += d;
        bound = bound.max(usize::try_from(running).unwrap_or(usize::MAX));
    }
    if bound != plan.lower_bound_bytes {
        return fail(format!(
            "lower bound is {bound} bytes, the plan says {}",
            plan.lower_bound_bytes
        ));
    }
    if plan.arena_bytes < bound && plan.overlaps.is_empty() {
        return fail(format!(
            "arena of {} bytes is below the lower bound {bound}",
            plan.arena_bytes
        ));
    }
    Ok(())
}

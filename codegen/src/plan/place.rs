//! Placing a graph's tensors: lifetimes, alias groups, buffers and their offsets, overlaps where
//! the kernels' contracts allow them, and the check of the result (stages 1 to 5 of the module
//! documentation of [`crate::plan`]).

use crate::ir::Graph;
use crate::lower::Access;
use crate::{Error, Result};

use super::buffer::{lower_bound, Buffer, Permit};
use super::check::check_plan_with;
use super::lifetime::{self, Steps};
use super::memory_plan::*;
use super::offsets::{plan_buffers, plan_buffers_with_permits};
use super::{alias, overlap};

/// Plans the memory of `graph` with no kernel scratch memory: [`plan_graph_with_scratch`] with
/// none requested.
///
/// # Errors
///
/// As [`plan_graph_with_scratch`].
pub fn plan_graph(graph: &Graph) -> Result<MemoryPlan> {
    plan_graph_with_scratch(graph, &[])
}

/// The scratch requests of lowered calls, in order: what [`plan_graph_with_scratch`] takes.
pub fn scratch_requests(calls: &[crate::lower::Call]) -> Vec<Scratch> {
    calls
        .iter()
        .flat_map(|call| call.scratch().map(|bytes| Scratch { op: call.op, bytes }))
        .collect()
}

/// Plans the memory of `graph`: regions, lifetimes, aliases and offsets of its tensors and of the
/// kernels' `scratch` memory (each live at its operator's step alone), then verifies the result
/// with [`check_plan`](super::check::check_plan). No tensors overlap: [`plan_graph_with`] with no contracts.
///
/// Deterministic: the same graph always gets the same plan.
///
/// # Errors
///
/// [`Error::Corrupt`] when an operator reads a non-constant tensor that nothing has produced yet,
/// [`Error::Overflow`] when sizes do not fit in `usize`, and [`Error::Internal`] if the result fails its
/// own check (a planner bug, reported instead of returned), or when a scratch request names an
/// operator the graph does not have.
pub fn plan_graph_with_scratch(graph: &Graph, scratch: &[Scratch]) -> Result<MemoryPlan> {
    plan_graph_with(graph, scratch, &[])
}

/// The access contracts of lowered calls, by operator: what [`plan_graph_with`] takes.
pub fn access_contracts(calls: &[crate::lower::Call]) -> Vec<(usize, Access)> {
    calls
        .iter()
        .flat_map(|call| {
            let access = match &call.kind {
                crate::lower::CallKind::Kernel(k) => k.access.as_slice(),
                _ => &[],
            };
            access.iter().map(|&a| (call.op, a))
        })
        .collect()
}

/// [`plan_graph_with_scratch`], letting operators' outputs overlap their dying inputs where the
/// kernels' contracts `access` (by operator, [`access_contracts`]) allow it ([`Overlap`]): in
/// place, a stream's output below its input (above it, for a reversible stream), or a
/// concatenation's input as a slice of its output. The plan with overlaps is kept only when its
/// arena is smaller than the plan without (or as small, with slices, which save copies);
/// overlaps the final offsets do not use are dropped. The result is verified with
/// [`check_plan_with`] against the same contracts.
///
/// # Errors
///
/// As [`plan_graph_with_scratch`].
pub fn plan_graph_with(
    graph: &Graph,
    scratch: &[Scratch],
    access: &[(usize, Access)],
) -> Result<MemoryPlan> {
    plan_placed(graph, scratch, access, &[], &[])
}

/// [`plan_graph_with`], with the tensors `moved[t] = Some(k)` in memory region `regions[k]`
/// instead of the arena (each region placed on its own, without overlaps; contracts naming a
/// moved tensor are set aside).
pub(super) fn plan_placed(
    graph: &Graph,
    scratch: &[Scratch],
    access: &[(usize, Access)],
    moved: &[Option<usize>],
    memory_regions: &[MemoryRegion],
) -> Result<MemoryPlan> {
    let steps = lifetime::lifetimes(graph)?;
    let mut regions = lifetime::regions(graph, &steps);
    for (t, &k) in moved.iter().enumerate() {
        if let (Some(k), Some(region @ Storage::Arena)) = (k, regions.get_mut(t)) {
            *region = Storage::Memory(k);
        }
    }
    let in_arena: Vec<(usize, Access)>;
    let access = if moved.iter().any(Option::is_some) {
        in_arena = access
            .iter()
            .copied()
            .filter(|(_, a)| {
                let (x, y) = a.tensors();
                regions.get(x) == Some(&Storage::Arena) && regions.get(y) == Some(&Storage::Arena)
            })
            .collect();
        &in_arena[..]
    } else {
        access
    };
    let aliases = alias::reshape_aliases(graph, &regions);
    let roots = alias::roots(graph.tensors.len(), &aliases);
    let scratch_buffers = scratch_buffers(graph, scratch)?;

    // Without overlaps: one buffer per reshape alias group, then the scratch memory.
    let mut buffer_offset = vec![0; graph.tensors.len()];
    let (mut buffers, mut buffer_of_root) = tensor_buffers(
        graph,
        &steps,
        &regions,
        Storage::Arena,
        &roots,
        &buffer_offset,
    )?;
    // (`buffers` is the plan without overlaps; a placement with overlaps has its own.)
    let mut tensor_buffers_len = buffers.len();
    buffers.extend_from_slice(&scratch_buffers);
    // Every sum the planner forms is at most the sum of all buffer sizes: check it once here so that
    // the unit arithmetic below cannot overflow.
    buffers
        .iter()
        .try_fold(0usize, |acc, b| acc.checked_add(b.bytes))
        .ok_or_else(|| Error::Overflow {
            context: "total size of the activation tensors".to_string(),
        })?;
    let lower_bound_bytes = lower_bound(&buffers);
    let mut offsets = plan_buffers(&buffers);
    let mut arena_bytes = arena_of(&buffers, &offsets);
    let mut root_of = roots.clone();
    let mut overlaps = Vec::new();

    let ctx = OverlapContext {
        graph,
        steps: &steps,
        regions: &regions,
        aliases: &aliases,
        scratch: &scratch_buffers,
    };
    if let Some(mut best) = ctx.place(access)? {
        // Each stream or in-place overlap costs its kernel a little time (the overlap-tolerant
        // path): drop those the arena does not need, one at a time, keeping the arena. Bounded,
        // so that a graph with very many overlaps or tensors plans in O(n log n) (it keeps them
        // all). A slice saves its concatenation a copy: kept.
        if best.overlaps.len() <= PRUNE_MAX_OVERLAPS && graph.tensors.len() <= PRUNE_MAX_TENSORS {
            let mut kept: Vec<(usize, Access)> = access.to_vec();
            let costly = best
                .overlaps
                .iter()
                .filter(|o| !matches!(o.access, Access::Slice { .. }))
                .copied()
                .collect::<Vec<_>>();
            for o in costly {
                let without: Vec<(usize, Access)> = kept
                    .iter()
                    .copied()
                    .filter(|&(op, a)| (op, a) != (o.op, o.access))
                    .collect();
                if let Some(p) = ctx.place(&without)? {
                    if p.arena <= best.arena {
                        kept = without;
                        best = p;
                    }
                }
            }
        }
        let slices = best
            .overlaps
            .iter()
            .any(|o| matches!(o.access, Access::Slice { .. }));
        if best.arena < arena_bytes || (best.arena == arena_bytes && slices) {
            arena_bytes = best.arena;
            offsets = best.offsets;
            buffer_of_root = best.buffer_of_root;
            root_of = best.root_of;
            buffer_offset = best.buffer_offset;
            tensor_buffers_len = best.tensor_buffers;
            overlaps = best.overlaps;
        }
    }

    let offset_of =
        |t: usize| buffer_of_root[root_of[t]].map_or(0, |b| offsets[b]) + buffer_offset[t];
    // A stream decision the offsets do not use (its tensors apart) is no overlap at all.
    overlaps.retain(|o: &Overlap| {
        let (x, y) = o.access.tensors();
        let (ox, oy) = (offset_of(x), offset_of(y));
        let (bx, by) = (graph.tensors[x].bytes, graph.tensors[y].bytes);
        ox < oy + by && oy < ox + bx
    });

    // The memory regions: each its own placement, without overlaps.
    let mut region_uses = Vec::with_capacity(memory_regions.len());
    let mut region_offset = vec![0usize; graph.tensors.len()];
    for (k, region) in memory_regions.iter().enumerate() {
        let (bytes, offsets) = place_region(graph, &steps, &regions, &roots, k)?;
        if bytes > region.capacity {
            return Err(Error::Internal {
                detail: format!(
                    "memory region `{}` takes {bytes} bytes of its {}",
                    region.name, region.capacity
                ),
            });
        }
        for (t, offset) in offsets {
            region_offset[t] = offset;
        }
        region_uses.push(MemoryRegionUse {
            region: region.clone(),
            bytes,
        });
    }

    let num_steps = graph.operators.len() + 1;
    let mut state_bytes = 0usize;
    let mut tensors = Vec::with_capacity(graph.tensors.len());
    for (t, tensor) in graph.tensors.iter().enumerate() {
        let s = steps[t].unwrap_or(Steps { first: 0, last: 0 });
        let (offset, first, last) = match regions[t] {
            Storage::Arena => (offset_of(t), s.first, s.last),
            Storage::State => {
                let offset = state_bytes;
                state_bytes = align_up(tensor.bytes)
                    .and_then(|b| state_bytes.checked_add(b))
                    .ok_or_else(|| overflow(t))?;
                (offset, 0, num_steps - 1)
            }
            Storage::Memory(_) => (region_offset[t], s.first, s.last),
            Storage::Flash => (0, s.first, s.last),
            Storage::Unused => (0, 0, 0),
        };
        tensors.push(TensorPlacement {
            index: t,
            bytes: tensor.bytes,
            offset,
            storage: regions[t],
            first_step: first,
            last_step: last,
            alias_of: (roots[t] != t).then_some(roots[t]),
        });
    }

    let mut slots = vec![0usize; graph.operators.len()];
    let scratch = scratch
        .iter()
        .zip(&offsets[tensor_buffers_len..])
        .map(|(s, &offset)| {
            let slot = slots[s.op];
            slots[s.op] += 1;
            ScratchPlacement {
                op: s.op,
                slot,
                bytes: s.bytes,
                offset,
            }
        })
        .collect();
    let plan = MemoryPlan {
        arena_bytes,
        lower_bound_bytes,
        state_bytes,
        num_steps,
        tensors,
        aliases,
        overlaps,
        scratch,
        memory_regions: region_uses,
    };
    check_plan_with(graph, &plan, access)?;
    Ok(plan)
}

/// Places the tensors of memory region `k` (one buffer per alias group, without overlaps): its
/// size and every member's offset.
pub(super) fn place_region(
    graph: &Graph,
    steps: &[Option<Steps>],
    regions: &[Storage],
    roots: &[usize],
    k: usize,
) -> Result<(usize, Vec<(usize, usize)>)> {
    let at = vec![0; graph.tensors.len()];
    let (buffers, buffer_of_root) =
        tensor_buffers(graph, steps, regions, Storage::Memory(k), roots, &at)?;
    let offsets = plan_buffers(&buffers);
    let members = (0..graph.tensors.len())
        .filter(|&t| regions[t] == Storage::Memory(k))
        .map(|t| (t, buffer_of_root[roots[t]].map_or(0, |b| offsets[b])))
        .collect();
    Ok((arena_of(&buffers, &offsets), members))
}

/// The most overlaps [`plan_graph_with`] tries to drop one by one (each try is a placement).
const PRUNE_MAX_OVERLAPS: usize = 64;

/// The most tensors of a graph whose overlaps [`plan_graph_with`] prunes: each try costs a whole
/// placement, so that a huge graph would spend minutes (it keeps every overlap instead).
const PRUNE_MAX_TENSORS: usize = 4096;

/// What placing with overlaps needs besides the contracts.
struct OverlapContext<'a, 'g> {
    graph: &'a Graph<'g>,
    steps: &'a [Option<Steps>],
    regions: &'a [Storage],
    aliases: &'a [Alias],
    scratch: &'a [Buffer],
}

/// A placement with overlaps.
struct Placed {
    arena: usize,
    offsets: Vec<usize>,
    buffer_of_root: Vec<Option<usize>>,
    root_of: Vec<usize>,
    buffer_offset: Vec<usize>,
    tensor_buffers: usize,
    overlaps: Vec<Overlap>,
}

impl OverlapContext<'_, '_> {
    /// The best placement with the overlaps `access` allows (greedy with permits, or without
    /// them on the buffers in-place pairs merge), or `None` when no overlap is possible.
    fn place(&self, access: &[(usize, Access)]) -> Result<Option<Placed>> {
        let decided = overlap::decide(self.graph, self.steps, self.regions, self.aliases, access);
        if decided.overlaps.is_empty() {
            return Ok(None);
        }
        let (mut buffers, of_root) = tensor_buffers(
            self.graph,
            self.steps,
            self.regions,
            Storage::Arena,
            &decided.buffer_root,
            &decided.buffer_offset,
        )?;
        let tensor_buffers_len = buffers.len();
        buffers.extend_from_slice(self.scratch);
        let buffer = |t: usize| of_root[decided.buffer_root[t]];
        let permits: Vec<Permit> = decided
            .streams
            .iter()
            .filter_map(|&(y, x, gap, above)| {
                Some(Permit {
                    output: buffer(y)?,
                    input: buffer(x)?,
                    gap,
                    above,
                })
            })
            .collect();
        let mut best: Option<(usize, Vec<usize>)> = None;
        for candidate in [
            plan_buffers_with_permits(&buffers, &permits),
            plan_buffers(&buffers),
        ] {
            let arena = arena_of(&buffers, &candidate);
            if best.as_ref().is_none_or(|(a, _)| arena < *a) {
                best = Some((arena, candidate));
            }
        }
        let Some((arena, offsets)) = best else {
            return Ok(None);
        };
        Ok(Some(Placed {
            arena,
            offsets,
            buffer_of_root: of_root,
            root_of: decided.buffer_root,
            buffer_offset: decided.buffer_offset,
            tensor_buffers: tensor_buffers_len,
            overlaps: decided.overlaps,
        }))
    }
}

/// One buffer per group of tensors of region `which` (the arena, or a memory region) that take
/// space (the groups given by `root`, indexed by the root; each tensor `at` its offset in the
/// buffer), and for every root its buffer, if any.
fn tensor_buffers(
    graph: &Graph,
    steps: &[Option<Steps>],
    regions: &[Storage],
    which: Storage,
    root: &[usize],
    at: &[usize],
) -> Result<(Vec<Buffer>, Vec<Option<usize>>)> {
    let mut buffer_of_root = vec![None; graph.tensors.len()];
    let mut buffers: Vec<Buffer> = Vec::new();
    for (t, tensor) in graph.tensors.iter().enumerate() {
        let Some(s) = steps[t] else { continue };
        if regions[t] != which || tensor.bytes == 0 {
            continue;
        }
        let bytes = align_up(tensor.bytes)
            .and_then(|b| b.checked_add(at[t]))
            .ok_or_else(|| overflow(t))?;
        match buffer_of_root[root[t]] {
            Some(b) => {
                let buf: &mut Buffer = &mut buffers[b];
                buf.bytes = buf.bytes.max(bytes);
                buf.first = buf.first.min(s.first);
                buf.last = buf.last.max(s.last);
            }
            None => {
                buffer_of_root[root[t]] = Some(buffers.len());
                buffers.push(Buffer {
                    bytes,
                    first: s.first,
                    last: s.last,
                });
            }
        }
    }
    Ok((buffers, buffer_of_root))
}

/// Scratch memory: one buffer per request, live at its operator's step alone.
fn scratch_buffers(graph: &Graph, scratch: &[Scratch]) -> Result<Vec<Buffer>> {
    scratch
        .iter()
        .enumerate()
        .map(|(k, s)| {
            if s.op >= graph.operators.len() {
                return Err(Error::Internal {
                    detail: format!("scratch request {k} names operator #{}", s.op),
                });
            }
            let bytes = align_up(s.bytes).ok_or_else(|| Error::Overflow {
                context: format!("memory plan: scratch memory of operator #{}", s.op),
            })?;
            Ok(Buffer {
                bytes,
                first: s.op + 1,
                last: s.op + 1,
            })
        })
        .collect()
}

/// The arena `offsets` need for `buffers`: the highest end.
fn arena_of(buffers: &[Buffer], offsets: &[usize]) -> usize {
    buffers
        .iter()
        .zip(offsets)
        .map(|(b, o)| o + b.bytes)
        .max()
        .unwrap_or(0)
}

fn overflow(tensor: usize) -> Error {
    Error::Overflow {
        context: format!("memory plan: aligned size of tensor #{tensor}"),
    }
}

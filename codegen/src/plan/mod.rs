//! Memory planning: lifetimes, offsets at the liveness lower bound (below it where kernels' access
//! contracts let outputs overlap dying inputs), and an independent checker.
//!
//! The planner works in five stages, each its own module:
//!
//! 1. Lifetimes (`lifetime`): the step range each tensor is live, exactly as TFLM defines it:
//!    graph inputs are created at step 0, operator *i* runs at step *i + 1* (creating its outputs
//!    and intermediates, using its inputs), graph outputs live to the last step (the number of
//!    operators), both ends inclusive.
//! 2. Aliases (`alias`): explicit decisions that two tensors share storage (today: the output of a
//!    reshape-like op and its input). They are data in the plan, [`MemoryPlan::aliases`], which the
//!    checker verifies against the graph rather than trusts.
//! 3. Offsets (`greedy`, `search`): the tensors of one alias group form one [`Buffer`];
//!    [`plan_buffers`] places buffers so that the arena meets the liveness [`lower_bound`] whenever
//!    it can.
//! 4. Overlaps (`overlap`, [`plan_graph_with`]): where a kernel's access contract
//!    ([`crate::lower::Access`]) allows, an operator's output shares bytes with an input that dies
//!    at that operator: in place (one buffer), as a stream (the output a computed gap below the
//!    input, or above it for a reversible stream: a permit the greedy placement honours) or as a
//!    slice (a concatenation's input inside its output's buffer, at its offset there). Kept only
//!    when the arena shrinks (or, with slices, which save copies, stays); recorded in
//!    [`MemoryPlan::overlaps`].
//! 5. The check (`check`): [`check_plan`] recomputes lifetimes from the graph with its own code
//!    and proves that no two tensors alive at a common step share a byte unless a verified alias
//!    allows it, or ([`check_plan_with`]) a declared contract proves the overlap pixel group by
//!    pixel group. [`plan_graph`] and [`plan_graph_with`] run it on every plan they return.
//!
//! Variable tensors live in a separate persistent "state" region; constant tensors stay in flash.
//!
//! Time: every stage is O(n log n) in the tensors and operators (plus, per stream overlap, its
//! output pixels), so that a chain of 100,000 operators plans in about a second; dropping unneeded
//! overlaps one by one is limited to small graphs. The greedy placement indexes placed buffers by time, so each
//! one costs the buffers it actually overlaps; a deterministic work budget bounds graphs where
//! thousands of buffers are live at once (they fall back to stacking). The exact search runs only
//! where its budget can complete a placement, and the checker sweeps over steps instead of comparing
//! pairs.

mod alias;
mod buffer;
mod check;
mod greedy;
mod lifetime;
mod order;
mod overlap;
mod regions;
pub mod report;
mod search;

use crate::ir::Graph;
use crate::lower::Access;
use crate::{Error, Result};

use buffer::plan_buffers_with_permits;
pub use buffer::{lower_bound, plan_buffers, Buffer};
pub use check::{check_buffers, check_plan, check_plan_with};
use lifetime::Steps;
pub use order::{memory_order, reordered};
pub use regions::plan_graph_in_regions;

/// Alignment, in bytes, of every offset and of every size the planner reserves.
pub const ALIGN: usize = 16;

/// `bytes` rounded up to a multiple of [`ALIGN`], or `None` on overflow.
pub fn align_up(bytes: usize) -> Option<usize> {
    Some(bytes.checked_add(ALIGN - 1)? / ALIGN * ALIGN)
}

/// Where a tensor's bytes live.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Region {
    /// The activation arena, shared over time by tensors whose lifetimes do not overlap.
    Arena,
    /// The persistent state region of variable tensors: each keeps its own bytes forever.
    State,
    /// Constant data, read in place from the model (flash); it takes no RAM.
    Flash,
    /// A non-constant tensor that no operator touches and that is neither a graph input nor a
    /// graph output: it needs no storage at all.
    Unused,
    /// One of the memory regions the user names besides the arena (a Cortex-M7's DTCM, say), by
    /// index into [`MemoryPlan::regions`]: an activation moved out of the arena into faster
    /// memory, placed there like in the arena, over time ([`MemoryRegion`]).
    Memory(usize),
}

impl Region {
    /// Lower-case name used in reports (`arena`, `state`, `flash`, `unused`).
    pub const fn name(self) -> &'static str {
        match self {
            Region::Arena => "arena",
            Region::State => "state",
            Region::Flash => "flash",
            Region::Unused => "unused",
            Region::Memory(_) => "memory region",
        }
    }
}

/// Why one tensor may share another's storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AliasKind {
    /// The tensor is the output of a reshape-like op (RESHAPE, SQUEEZE, EXPAND_DIMS) whose data
    /// input is `of`, with the same byte size: same bytes, another shape, same offset.
    Reshape,
}

/// One storage-sharing decision: `tensor` occupies the same bytes as `of`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Alias {
    /// The tensor that reuses storage (the op's output).
    pub tensor: usize,
    /// The tensor whose storage it reuses (the op's input).
    pub of: usize,
    /// The operator (index in execution order) that justifies the decision.
    pub op: usize,
    /// What kind of sharing it is; the checker verifies each kind by its own rule.
    pub kind: AliasKind,
}

/// One overlap decision: at operator `op`'s step the output of `access` shares bytes with the
/// input, which dies there, as the kernel's contract allows ([`Access`]). The two tensors keep
/// their own placements (an in-place pair at one offset); the checker proves each decision from the
/// contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Overlap {
    /// The operator (index in execution order) whose kernel keeps the contract.
    pub op: usize,
    /// The contract, naming the input and the output.
    pub access: Access,
}

/// Where one tensor lives and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorPlacement {
    /// Tensor index in the graph (equal to this placement's position in [`MemoryPlan::tensors`]).
    pub index: usize,
    /// The tensor's size in bytes (not rounded up).
    pub bytes: usize,
    /// Byte offset within `region` (multiple of [`ALIGN`]); 0 for [`Region::Flash`] and
    /// [`Region::Unused`].
    pub offset: usize,
    /// Which storage region holds it.
    pub region: Region,
    /// First step the tensor is live (0: before the first operator; operator *i* runs at step
    /// *i + 1*). State tensors: 0. Flash tensors: the first step that reads them. Unused: 0.
    pub first_step: usize,
    /// Last step the tensor is live, inclusive. Graph outputs and state tensors: the number of
    /// operators. Flash tensors: the last step that reads them. Unused: 0.
    pub last_step: usize,
    /// For a tensor that shares another's storage: the tensor that owns it (the root of its alias
    /// group, itself `alias_of: None`). The individual decisions are in [`MemoryPlan::aliases`].
    pub alias_of: Option<usize>,
}

/// A kernel's request for scratch memory: `bytes` bytes in the arena for the duration of operator
/// `op` alone (its step), as the lowering asks for it ([`crate::lower::Operand::Scratch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scratch {
    /// The operator (index in execution order) whose kernel uses it.
    pub op: usize,
    /// Its size in bytes (not rounded up).
    pub bytes: usize,
}

/// Where one scratch request lives: [`Scratch`] plus its arena offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScratchPlacement {
    /// The operator whose kernel uses it; it is live at step `op + 1` only.
    pub op: usize,
    /// Which of that operator's scratch requests it is (0 for the first, in operand order).
    pub slot: usize,
    /// Its size in bytes (not rounded up).
    pub bytes: usize,
    /// Byte offset within the arena (multiple of [`ALIGN`]).
    pub offset: usize,
}

/// A memory region besides the arena that the user names, with its size and the linker section
/// its generated static goes to (`Config::memory_region`): the planner moves the activations
/// with the most accesses per byte there ([`Region::Memory`]), as many as fit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemoryRegion {
    /// Its name in the generated code: a lower-case identifier (`dtcm`: Rust field `dtcm`, C
    /// static `<prefix>_region_dtcm`, macro `<PREFIX>_REGION_DTCM_BYTES`).
    pub name: String,
    /// The most bytes the plan may use of it.
    pub capacity: usize,
    /// The linker section of its static (`.dtcm`): Rust `#[link_section]`, C
    /// `__attribute__((section))`.
    pub section: String,
}

/// How a plan uses one [`MemoryRegion`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionUse {
    /// The region.
    pub region: MemoryRegion,
    /// The bytes its tensors take (a multiple of [`ALIGN`], at most its capacity): the size of
    /// its static.
    pub bytes: usize,
}

/// The memory plan of a graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryPlan {
    /// Size of the activation arena in bytes (a multiple of [`ALIGN`]).
    pub arena_bytes: usize,
    /// The liveness lower bound: the largest sum, over any single step, of the [`ALIGN`]-rounded
    /// sizes of the arena buffers live at that step (reshape aliases sharing one buffer). No plan
    /// without overlaps can be smaller; with [`MemoryPlan::overlaps`] the arena may be.
    pub lower_bound_bytes: usize,
    /// Size of the persistent state region (variable tensors), in bytes.
    pub state_bytes: usize,
    /// Number of steps: operators + 1 (step 0 is before the first operator).
    pub num_steps: usize,
    /// One placement per graph tensor, in tensor index order.
    pub tensors: Vec<TensorPlacement>,
    /// Every storage-sharing decision the plan relies on.
    pub aliases: Vec<Alias>,
    /// Every overlap of an operator's output with a dying input the plan relies on, in operator
    /// order (none when planned without overlaps).
    pub overlaps: Vec<Overlap>,
    /// Kernel scratch memory, in the order it was requested (by operator, then slot).
    pub scratch: Vec<ScratchPlacement>,
    /// The memory regions besides the arena, in the order named, and the bytes each one takes
    /// ([`Region::Memory`] indexes this); empty unless the user names some.
    pub regions: Vec<RegionUse>,
}

impl MemoryPlan {
    /// The placement of tensor `index`, if the graph has such a tensor.
    pub fn placement(&self, index: usize) -> Option<&TensorPlacement> {
        self.tensors.get(index)
    }

    /// Byte offset of tensor `index` within its region, for tensors in the arena or the state
    /// region; `None` for flash and unused tensors and for indices out of range.
    pub fn offset_of(&self, index: usize) -> Option<usize> {
        let p = self.tensors.get(index)?;
        matches!(p.region, Region::Arena | Region::State).then_some(p.offset)
    }

    /// The region holding tensor `index`, if the graph has such a tensor.
    pub fn region_of(&self, index: usize) -> Option<Region> {
        self.tensors.get(index).map(|p| p.region)
    }

    /// How many bytes the arena is above the lower bound.
    pub fn excess_bytes(&self) -> usize {
        self.arena_bytes.saturating_sub(self.lower_bound_bytes)
    }
}

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
/// with [`check_plan`]. No tensors overlap: [`plan_graph_with`] with no contracts.
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
fn plan_placed(
    graph: &Graph,
    scratch: &[Scratch],
    access: &[(usize, Access)],
    moved: &[Option<usize>],
    memory_regions: &[MemoryRegion],
) -> Result<MemoryPlan> {
    let steps = lifetime::lifetimes(graph)?;
    let mut regions = lifetime::regions(graph, &steps);
    for (t, &k) in moved.iter().enumerate() {
        if let (Some(k), Some(region @ Region::Arena)) = (k, regions.get_mut(t)) {
            *region = Region::Memory(k);
        }
    }
    let in_arena: Vec<(usize, Access)>;
    let access = if moved.iter().any(Option::is_some) {
        in_arena = access
            .iter()
            .copied()
            .filter(|(_, a)| {
                let (x, y) = a.tensors();
                regions.get(x) == Some(&Region::Arena) && regions.get(y) == Some(&Region::Arena)
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
        Region::Arena,
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
        region_uses.push(RegionUse {
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
            Region::Arena => (offset_of(t), s.first, s.last),
            Region::State => {
                let offset = state_bytes;
                state_bytes = align_up(tensor.bytes)
                    .and_then(|b| state_bytes.checked_add(b))
                    .ok_or_else(|| overflow(t))?;
                (offset, 0, num_steps - 1)
            }
            Region::Memory(_) => (region_offset[t], s.first, s.last),
            Region::Flash => (0, s.first, s.last),
            Region::Unused => (0, 0, 0),
        };
        tensors.push(TensorPlacement {
            index: t,
            bytes: tensor.bytes,
            offset,
            region: regions[t],
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
        regions: region_uses,
    };
    check_plan_with(graph, &plan, access)?;
    Ok(plan)
}

/// Places the tensors of memory region `k` (one buffer per alias group, without overlaps): its
/// size and every member's offset.
fn place_region(
    graph: &Graph,
    steps: &[Option<Steps>],
    regions: &[Region],
    roots: &[usize],
    k: usize,
) -> Result<(usize, Vec<(usize, usize)>)> {
    let at = vec![0; graph.tensors.len()];
    let (buffers, buffer_of_root) =
        tensor_buffers(graph, steps, regions, Region::Memory(k), roots, &at)?;
    let offsets = plan_buffers(&buffers);
    let members = (0..graph.tensors.len())
        .filter(|&t| regions[t] == Region::Memory(k))
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
    regions: &'a [Region],
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
            Region::Arena,
            &decided.buffer_root,
            &decided.buffer_offset,
        )?;
        let tensor_buffers_len = buffers.len();
        buffers.extend_from_slice(self.scratch);
        let buffer = |t: usize| of_root[decided.buffer_root[t]];
        let permits: Vec<overlap::Permit> = decided
            .streams
            .iter()
            .filter_map(|&(y, x, gap, above)| {
                Some(overlap::Permit {
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
            if best.as_ref().map_or(true, |(a, _)| arena < *a) {
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
    regions: &[Region],
    which: Region,
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

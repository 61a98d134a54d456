//! Emission: the plan and the lowered calls, rendered as source. The backends share [`Layout`] and
//! differ only in syntax. They render the code into [`Source`]s whose constant data is encoded only
//! as it is written, and [`files`] writes them whole or not at all.

// The C backend (feature `c`): its templates are the only use of `tera`.
#[cfg(feature = "c")]
pub mod c;
#[cfg(feature = "c")]
pub mod c_build;
#[cfg(feature = "c")]
mod c_data;
#[cfg(feature = "c")]
mod c_decl;
#[cfg(feature = "c")]
pub mod c_dir;
#[cfg(feature = "c")]
pub mod c_group;
#[cfg(feature = "c")]
mod c_params;
pub mod files;
pub mod group;
pub mod rust;
mod source;

pub use source::Source;

use crate::error::{Error, Result};
use crate::ir::{DType, Graph, Tensor};

/// Where a non-constant tensor lives at run time, and at which byte offset there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// In the activation arena, at this byte offset.
    Arena(usize),
    /// In the state region of variable tensors, at this byte offset.
    State(usize),
    /// In memory region `k` of [`Layout::memory_regions`], at this byte offset.
    Memory(usize, usize),
}

/// Which buffer of a model holds a tensor: the model's own (the arena, then the state) or one of
/// its memory regions, and the byte offset there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// `None`: the model's buffer; `Some(k)`: memory region `k` of [`Layout::memory_regions`].
    pub memory_region: Option<usize>,
    /// Byte offset in that buffer.
    pub offset: usize,
}

/// The run-time placement of every tensor: what the emitters need of the memory plan.
///
/// The generated model keeps its arena and its state in one buffer, the state after the arena's
/// `arena_bytes`: kernels address both through the one `arena` slice (or pointer) they take, and a
/// variable tensor is an operand like any other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Bytes of the activation arena.
    pub arena_bytes: usize,
    /// Bytes of the state region (variable tensors).
    pub state_bytes: usize,
    /// Where the state region starts in the model's buffer: `arena_bytes` for a model of its own;
    /// for a model of a group, its own place after the shared arena ([`group`]).
    pub state_base: usize,
    /// Per tensor index: its region, or `None` for constants and tensors nothing uses.
    pub locations: Vec<Option<Location>>,
    /// Arena offsets of kernel scratch memory, by `(operator, slot)`.
    pub scratch: std::collections::BTreeMap<(usize, usize), usize>,
    /// What the state region holds after a reset, as runs `(offset, contents)` covering it.
    pub state_init: Vec<(usize, StateInit)>,
    /// The graph inputs (by position among them) that `invoke` overwrites: another tensor or a
    /// kernel's scratch memory takes some of their bytes once they have been read (or, with an
    /// overlap, as they are read). The generated docs of `invoke` say so.
    pub overwritten_inputs: Vec<usize>,
    /// The memory regions besides the arena and the bytes each takes
    /// ([`crate::plan::MemoryPlan::memory_regions`]).
    pub memory_regions: Vec<crate::plan::MemoryRegionUse>,
}

/// What a run of the state region holds after a reset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateInit {
    /// This many bytes, each of this value.
    Fill(usize, u8),
    /// These bytes.
    Bytes(Vec<u8>),
}

impl Layout {
    /// The offset of tensor `t` in the model's buffer (arena, then state), or an internal error if
    /// it is in neither.
    pub fn arena_offset(&self, t: usize) -> Result<usize> {
        match self.locations.get(t).copied().flatten() {
            Some(Location::Arena(offset)) => Ok(offset),
            Some(Location::State(offset)) => Ok(self.state_base + offset),
            other => Err(Error::Internal {
                detail: format!("tensor {t} was expected in the arena but is {other:?}"),
            }),
        }
    }

    /// Where tensor `t` lives: the model's buffer (arena, then state) or a memory region, or an
    /// internal error if it is in none.
    pub fn place(&self, t: usize) -> Result<Place> {
        match self.locations.get(t).copied().flatten() {
            Some(Location::Memory(k, offset)) => Ok(Place {
                memory_region: Some(k),
                offset,
            }),
            _ => self.arena_offset(t).map(|offset| Place {
                memory_region: None,
                offset,
            }),
        }
    }

    /// The arena offset of slot `slot` of operator `op`'s scratch memory.
    pub fn scratch_offset(&self, op: usize, slot: usize) -> Result<usize> {
        self.scratch
            .get(&(op, slot))
            .copied()
            .ok_or_else(|| Error::Internal {
                detail: format!("operator #{op} has no scratch slot {slot} in the plan"),
            })
    }

    /// Bytes of the model's buffer: the arena, then the state.
    pub fn memory_bytes(&self) -> usize {
        self.arena_bytes + self.state_bytes
    }

    /// A sentence for the docs of `invoke` when it overwrites graph inputs (empty otherwise).
    pub fn overwritten_inputs_note(&self) -> String {
        match self.overwritten_inputs.as_slice() {
            [] => String::new(),
            list => {
                let names: Vec<String> = list.iter().map(|i| format!("input {i}")).collect();
                let (they, are, them, their) = if list.len() == 1 {
                    ("it", "is", "it", "its")
                } else {
                    ("they", "are", "them", "their")
                };
                format!(
                    "Overwrites {}: {they} {are} read first, then {their} bytes hold other \
                     tensors (the arena is shared over time); write {them} again before each \
                     invoke.",
                    names.join(", "),
                )
            }
        }
    }

    /// True when a reset leaves every state byte zero (the buffer starts so: nothing to do).
    pub fn state_starts_zeroed(&self) -> bool {
        self.state_init.iter().all(|(_, init)| match init {
            StateInit::Fill(_, v) => *v == 0,
            StateInit::Bytes(b) => b.iter().all(|&v| v == 0),
        })
    }
}

/// What a graph input or output is, for typed accessors and quantization constants.
pub(crate) struct IoTensor<'g, 'm> {
    /// Tensor index.
    pub index: usize,
    /// The tensor.
    pub tensor: &'g Tensor<'m>,
}

/// The graph inputs, then the graph outputs.
pub(crate) fn io_tensors<'g, 'm>(
    graph: &'g Graph<'m>,
) -> (Vec<IoTensor<'g, 'm>>, Vec<IoTensor<'g, 'm>>) {
    let io = |list: &[usize]| {
        list.iter()
            .map(|&index| IoTensor {
                index,
                tensor: &graph.tensors[index],
            })
            .collect()
    };
    (io(&graph.inputs), io(&graph.outputs))
}

/// Total bytes of the constant tensors `constants` (what goes to flash as weights).
pub fn constant_bytes<'a>(graph: &Graph, constants: impl IntoIterator<Item = &'a usize>) -> usize {
    constants.into_iter().map(|&t| graph.tensors[t].bytes).sum()
}

/// The element type name of `dtype` in Rust, when generated code exposes it typed.
pub(crate) fn rust_element(dtype: DType) -> Option<&'static str> {
    match dtype {
        DType::I8 => Some("i8"),
        DType::U8 => Some("u8"),
        DType::I16 => Some("i16"),
        DType::I32 => Some("i32"),
        DType::F32 => Some("f32"),
        _ => None,
    }
}

impl Layout {
    /// The layout of a memory plan of `graph`.
    pub fn from_plan(graph: &Graph, plan: &crate::plan::MemoryPlan) -> Layout {
        let locations = plan
            .tensors
            .iter()
            .map(|p| match p.storage {
                crate::plan::Storage::Arena => Some(Location::Arena(p.offset)),
                crate::plan::Storage::State => Some(Location::State(p.offset)),
                crate::plan::Storage::Memory(k) => Some(Location::Memory(k, p.offset)),
                _ => None,
            })
            .collect();
        let scratch = plan
            .scratch
            .iter()
            .map(|s| ((s.op, s.slot), s.offset))
            .collect();
        // One index per buffer a graph input may lie in: the arena, each memory region.
        let shared: Vec<SharedBytes> = std::iter::once(crate::plan::Storage::Arena)
            .chain((0..plan.memory_regions.len()).map(crate::plan::Storage::Memory))
            .map(|region| SharedBytes::new(plan, region))
            .collect();
        let overwritten_inputs = graph
            .inputs
            .iter()
            .enumerate()
            .filter(|(_, &t)| shared.iter().any(|s| s.overwritten(plan, t)))
            .map(|(i, _)| i)
            .collect();
        Layout {
            arena_bytes: plan.arena_bytes,
            state_bytes: plan.state_bytes,
            state_base: plan.arena_bytes,
            locations,
            scratch,
            state_init: state_init(graph, plan),
            overwritten_inputs,
            memory_regions: plan.memory_regions.clone(),
        }
    }
}

/// One buffer's blocks (the arena's tensors by alias group, then scratch memory; or a memory
/// region's tensors) sorted by offset, with the two furthest ends of distinct groups among each
/// prefix: "does anything of another group share bytes with this range?" is then a binary
/// search, so that many graph inputs cost O(n log n) rather than a scan of every tensor each.
struct SharedBytes {
    /// The buffer: [`crate::plan::Storage::Arena`] or a memory region.
    region: crate::plan::Storage,
    /// Block starts, ascending.
    starts: Vec<usize>,
    /// For the blocks up to each index: the furthest end and its group, and the furthest end of
    /// any other group (0 if none).
    reach: Vec<((usize, usize), usize)>,
}

impl SharedBytes {
    fn new(plan: &crate::plan::MemoryPlan, region: crate::plan::Storage) -> SharedBytes {
        let n = plan.tensors.len();
        // Scratch memory is in the arena.
        let scratch = if region == crate::plan::Storage::Arena {
            &plan.scratch[..]
        } else {
            &[]
        };
        let mut blocks: Vec<(usize, usize, usize)> = plan
            .tensors
            .iter()
            .filter(|q| q.storage == region && q.bytes > 0)
            .map(|q| (q.offset, q.offset + q.bytes, q.alias_of.unwrap_or(q.index)))
            .chain(
                scratch
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.bytes > 0)
                    .map(|(k, s)| (s.offset, s.offset + s.bytes, n + k)),
            )
            .collect();
        blocks.sort_unstable();
        let mut best = ((0, usize::MAX), 0);
        let reach = blocks
            .iter()
            .map(|&(_, end, group)| {
                let ((top, top_group), other) = best;
                best = if group == top_group {
                    ((top.max(end), group), other)
                } else if end > top {
                    ((end, group), top.max(other))
                } else {
                    ((top, top_group), other.max(end))
                };
                best
            })
            .collect();
        SharedBytes {
            region,
            starts: blocks.iter().map(|b| b.0).collect(),
            reach,
        }
    }

    /// Whether anything besides graph input `t` (and the reshapes sharing its bytes) takes some
    /// of its bytes in this buffer at any step: another tensor, a kernel's scratch memory.
    fn overwritten(&self, plan: &crate::plan::MemoryPlan, t: usize) -> bool {
        let Some(p) = plan.tensors.get(t) else {
            return false;
        };
        if p.storage != self.region || p.bytes == 0 {
            return false;
        }
        let group = p.alias_of.unwrap_or(t);
        // The blocks starting before the input's end; one of another group reaching past its
        // start shares bytes with it.
        let before = self.starts.partition_point(|&s| s < p.offset + p.bytes);
        let Some(&((top, top_group), other)) = before.checked_sub(1).map(|i| &self.reach[i]) else {
            return false;
        };
        let furthest = if top_group == group { other } else { top };
        furthest > p.offset
    }
}

/// The state region after a reset, tensor by tensor in offset order (gaps, which only alignment
/// leaves, are zero): a variable's `initial` bytes when the model sets them, else what TFLM's
/// `ResetVariableTensors` writes: the zero point in every byte of an INT8 tensor, 0 otherwise.
fn state_init(graph: &Graph, plan: &crate::plan::MemoryPlan) -> Vec<(usize, StateInit)> {
    let mut runs: Vec<(usize, StateInit)> = plan
        .tensors
        .iter()
        .filter(|p| p.storage == crate::plan::Storage::State && p.bytes > 0)
        .map(|p| {
            let tensor = &graph.tensors[p.index];
            let init = match tensor.initial.as_deref() {
                Some(bytes) => StateInit::Bytes(bytes.to_vec()),
                None => {
                    let zero_point = match (&tensor.quant, tensor.dtype) {
                        (Some(q), DType::I8) => q.zero_points.first().copied().unwrap_or(0),
                        _ => 0,
                    };
                    // TFLM memsets the int8 zero point: its low byte.
                    StateInit::Fill(p.bytes, zero_point as i8 as u8)
                }
            };
            (p.offset, init)
        })
        .collect();
    runs.sort_by_key(|r| r.0);
    runs
}

/// A run of consecutive steps of `invoke` under one guard: the steps of one branch of an inlined
/// IF ([`crate::ir::Operator::branch`]), the steps of the loop of an inlined WHILE
/// ([`crate::ir::Operator::looped`]), or steps that always run once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BranchRun {
    /// The condition tensor and the value for which [`steps`](Self::steps) run; `None`: always.
    pub guard: Option<(usize, bool)>,
    /// The steps are the loop of the WHILE of this index: they run again and again until its
    /// exit ([`crate::lower::CallKind::Exit`]) leaves the loop.
    pub looped: Option<usize>,
    /// The calls of the run (positions in the call list).
    pub steps: std::ops::Range<usize>,
    /// For a then branch's run followed at once by the same IF's else branch's: that run's calls,
    /// the `else` of one `if`.
    pub otherwise: Option<std::ops::Range<usize>>,
}

/// Whether a call of `calls` may stop the invoke early ([`crate::lower::KernelCall::stop`]): the
/// generated `invoke` then says whether it ran to its end (Rust `bool`, C `<PREFIX>_WAITING`).
pub(crate) fn stops(calls: &[crate::lower::Call]) -> bool {
    calls
        .iter()
        .any(|c| matches!(&c.kind, crate::lower::CallKind::Kernel(k) if k.stop.is_some()))
}

/// The calls in runs of one guard, in order: what both backends wrap in `if`/`else` blocks and
/// loops. A loop whose steps are not consecutive is an internal error (the loader makes them
/// consecutive, and nothing reorders a graph with a loop).
pub(crate) fn branch_runs(graph: &Graph, calls: &[crate::lower::Call]) -> Result<Vec<BranchRun>> {
    let guard = |i: usize| {
        let op = &graph.operators[calls[i].op];
        (
            op.branch.map(|b| (b.cond, b.taken)),
            op.looped.map(|l| l.caller),
        )
    };
    // The end of the run of `guard(start)` from `start`.
    let end = |start: usize| {
        let key = guard(start);
        (start..calls.len())
            .find(|&i| guard(i) != key)
            .unwrap_or(calls.len())
    };
    let mut runs: Vec<BranchRun> = Vec::new();
    let mut start = 0;
    while start < calls.len() {
        let stop = end(start);
        let (branch, looped) = guard(start);
        if looped.is_some() && runs.iter().any(|r| r.looped == looped) {
            return Err(Error::Internal {
                detail: format!(
                    "the loop of operator #{} WHILE is not one run of consecutive steps",
                    looped.unwrap_or_default()
                ),
            });
        }
        let mut run = BranchRun {
            guard: branch,
            looped,
            steps: start..stop,
            otherwise: None,
        };
        start = stop;
        if let (Some((cond, true)), None) = (run.guard, looped) {
            if start < calls.len() && guard(start) == (Some((cond, false)), None) {
                let stop = end(start);
                run.otherwise = Some(start..stop);
                start = stop;
            }
        }
        runs.push(run);
    }
    Ok(runs)
}

//! The memory plan's data: where each tensor lives and when ([`MemoryPlan`]), the storage-sharing
//! decisions it relies on, and the alignment every offset keeps. Every other module of the planner
//! builds or reads these; this one depends on none of them.

use crate::lower::Access;

/// Alignment, in bytes, of every offset and of every size the planner reserves.
pub const ALIGN: usize = 16;

/// `bytes` rounded up to a multiple of [`ALIGN`], or `None` on overflow.
pub fn align_up(bytes: usize) -> Option<usize> {
    Some(bytes.checked_add(ALIGN - 1)? / ALIGN * ALIGN)
}

/// Which storage holds a tensor's bytes: the arena, the state, flash, none, or a memory region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Storage {
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
    /// index into [`MemoryPlan::memory_regions`]: an activation moved out of the arena into faster
    /// memory, placed there like in the arena, over time ([`MemoryRegion`]).
    Memory(usize),
}

impl Storage {
    /// Lower-case name used in reports (`arena`, `state`, `flash`, `unused`).
    pub const fn name(self) -> &'static str {
        match self {
            Storage::Arena => "arena",
            Storage::State => "state",
            Storage::Flash => "flash",
            Storage::Unused => "unused",
            Storage::Memory(_) => "memory region",
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
    /// Byte offset within `storage` (multiple of [`ALIGN`]); 0 for [`Storage::Flash`] and
    /// [`Storage::Unused`].
    pub offset: usize,
    /// Which storage region holds it.
    pub storage: Storage,
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
/// with the most accesses per byte there ([`Storage::Memory`]), as many as fit.
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
pub struct MemoryRegionUse {
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
    /// ([`Storage::Memory`] indexes this); empty unless the user names some.
    pub memory_regions: Vec<MemoryRegionUse>,
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
        matches!(p.storage, Storage::Arena | Storage::State).then_some(p.offset)
    }

    /// The storage holding tensor `index`, if the graph has such a tensor.
    pub fn storage_of(&self, index: usize) -> Option<Storage> {
        self.tensors.get(index).map(|p| p.storage)
    }

    /// How many bytes the arena is above the lower bound.
    pub fn excess_bytes(&self) -> usize {
        self.arena_bytes.saturating_sub(self.lower_bound_bytes)
    }
}

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
mod memory_plan;
mod offsets;
mod order;
mod overlap;
mod place;
mod regions;
pub mod report;
mod search;

pub use buffer::{lower_bound, Buffer};
pub use check::{check_buffers, check_plan, check_plan_with};
pub use memory_plan::*;
pub use offsets::plan_buffers;
pub use order::{memory_order, reordered};
pub use place::{
    access_contracts, plan_graph, plan_graph_with, plan_graph_with_scratch, scratch_requests,
};
pub use regions::plan_graph_in_regions;

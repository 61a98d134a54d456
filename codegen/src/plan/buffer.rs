//! Offset assignment over plain lifetime intervals: the entry point that tries the greedy orders,
//! then the exact search, and the liveness lower bound they aim at.

use super::{greedy, search, ALIGN};

/// A block of memory needed during an inclusive range of steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Buffer {
    /// Size in bytes; rounded up to a multiple of [`ALIGN`] when placed. 0 takes no space.
    pub bytes: usize,
    /// First step the buffer is live.
    pub first: usize,
    /// Last step the buffer is live, inclusive. A range given backwards is read as `last..=first`.
    pub last: usize,
}

/// A buffer in the planner's own coordinates: size in [`ALIGN`] units, and steps renumbered to
/// `0..steps` so that only steps where some buffer starts remain (two inclusive ranges overlap
/// exactly when one contains the other's start, so nothing else matters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Item {
    pub size: u64,
    pub first: usize,
    pub last: usize,
}

impl Item {
    pub fn overlaps(&self, other: &Item) -> bool {
        self.first <= other.last && other.first <= self.last
    }
}

/// The problem in planner coordinates: items with a non-zero size, their positions in the caller's
/// slice, and the number of (renumbered) steps.
pub(super) struct Problem {
    pub items: Vec<Item>,
    pub origin: Vec<usize>,
    pub steps: usize,
    /// Permitted overlaps ([`super::overlap::Permit`]) in units: for `(i, j)`, item `i` placed
    /// after item `j` sees `j` as busy over `[offset_j + a, offset_j + b)` instead of its whole
    /// extent (an empty range still keeps `i` from straddling that point).
    pub permits: std::collections::HashMap<(usize, usize), (u64, u64)>,
    /// For the input item of a forward-only permit: its output item and the gap (units). A greedy
    /// placing the input before its output keeps the gap below the input free, for the output to
    /// start in.
    pub reserve: std::collections::HashMap<usize, (usize, u64)>,
}

impl Problem {
    pub fn new(buffers: &[Buffer]) -> Problem {
        let mut starts: Vec<usize> = buffers
            .iter()
            .filter(|b| b.bytes > 0)
            .map(|b| b.first.min(b.last))
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let mut items = Vec::new();
        let mut origin = Vec::new();
        for (i, b) in buffers.iter().enumerate() {
            if b.bytes == 0 {
                continue;
            }
            let (lo, hi) = (b.first.min(b.last), b.first.max(b.last));
            items.push(Item {
                size: (b.bytes / ALIGN + usize::from(b.bytes % ALIGN != 0)) as u64,
                first: starts.partition_point(|&s| s < lo),
                // The last start at or before `hi`; there is one, `lo` itself.
                last: starts.partition_point(|&s| s <= hi) - 1,
            });
            origin.push(i);
        }
        Problem {
            items,
            origin,
            steps: starts.len(),
            permits: std::collections::HashMap::new(),
            reserve: std::collections::HashMap::new(),
        }
    }

    /// [`Problem::new`] with permitted overlaps between buffers (indices into `buffers`).
    ///
    /// The output may start at least `gap` below the input (`F`), at least `above` above it
    /// (`R`, a reversible stream; otherwise the input's size: apart), or lie apart: its offset
    /// must avoid `(in − F, in + R)`. From the output's side the input is then busy over
    /// `[in + size_out − F, in + R)`, from the input's side the output over
    /// `[out + size_in − R, out + F)`. Either range may run backwards (start above end): the
    /// greedy walk, which sorts ranges by start and checks each gap against the item's size,
    /// then forbids exactly the offsets between, so that an item may lie below the range's
    /// start or from its end up. A permit that allows nothing more than apart is dropped, and so
    /// is a forward-only one whose output is so large that it would reach past the input's end.
    pub fn with_permits(buffers: &[Buffer], permits: &[super::overlap::Permit]) -> Problem {
        let mut p = Problem::new(buffers);
        let mut item_of = vec![None; buffers.len()];
        for (i, &b) in p.origin.iter().enumerate() {
            item_of[b] = Some(i);
        }
        for permit in permits {
            let (Some(Some(o)), Some(Some(i))) =
                (item_of.get(permit.output), item_of.get(permit.input))
            else {
                continue;
            };
            let (o, i) = (*o, *i);
            if o == i {
                continue;
            }
            let (so, si) = (p.items[o].size, p.items[i].size);
            let units = |bytes: usize| (bytes / ALIGN) as u64;
            let below = Some(units(permit.gap)).filter(|&g| g <= so);
            let above = permit.above.map(units).filter(|&g| g < si);
            let (below, above) = match (below, above) {
                (Some(f), None) if so - f > si => continue,
                (None, None) => continue,
                (f, r) => (f.unwrap_or(so), r.unwrap_or(si)),
            };
            p.permits.insert((o, i), (so - below, above));
            p.permits.insert((i, o), (si - above, below));
            // A reversible stream's output may as well go above an input placed first: keeping
            // room below it only pushed the chain of activations up (ds_cnn: 8,656 bytes with
            // the room, 8,448 without).
            if below < so && permit.above.is_none() {
                p.reserve.insert(i, (o, below));
            }
        }
        p
    }

    /// Sum of the sizes live at each step (saturated at `u64::MAX`).
    ///
    /// A running sum over start and end marks, linear in items plus steps: adding each size over
    /// its whole lifetime would be quadratic when many items live long.
    pub fn live_per_step(&self) -> Vec<u64> {
        // Sizes are u64, so a sum of fewer than 2^63 of them fits in i128.
        let mut delta = vec![0i128; self.steps + 1];
        for it in &self.items {
            delta[it.first] += i128::from(it.size);
            delta[it.last + 1] -= i128::from(it.size);
        }
        let mut running = 0i128;
        delta[..self.steps]
            .iter()
            .map(|d| {
                running += d;
                u64::try_from(running).unwrap_or(u64::MAX)
            })
            .collect()
    }

    /// The liveness lower bound in units.
    pub fn bound(&self) -> u64 {
        self.live_per_step().into_iter().max().unwrap_or(0)
    }
}

/// Height (in units) of a placement: the highest end of any item.
pub(super) fn height(items: &[Item], offsets: &[u64]) -> u64 {
    items
        .iter()
        .zip(offsets)
        .map(|(it, &o)| o.saturating_add(it.size))
        .max()
        .unwrap_or(0)
}

/// The liveness lower bound of `buffers`: the largest sum, over any single step, of the
/// [`ALIGN`]-rounded sizes of the buffers live at that step. Saturates instead of overflowing.
pub fn lower_bound(buffers: &[Buffer]) -> usize {
    to_bytes(Problem::new(buffers).bound())
}

/// Assigns an [`ALIGN`]-aligned byte offset to every buffer so that buffers live at a common step
/// never share a byte; returns one offset per buffer, in order. Zero-sized buffers get offset 0.
///
/// Several deterministic greedy orders are tried and the best kept; when that is still above the
/// [`lower_bound`], a branch-and-bound search with a fixed node budget looks for a better one.
/// Deterministic: the same input always gets the same offsets. Sizes whose sum exceeds `usize::MAX`
/// give meaningless (but never panicking) results; [`plan_graph`](super::plan_graph) rejects them.
pub fn plan_buffers(buffers: &[Buffer]) -> Vec<usize> {
    let problem = Problem::new(buffers);
    let bound = problem.bound();
    let mut best = greedy::best(&problem, bound);
    // The search spends at least (items + steps) work units per node and needs a path of
    // items + 1 nodes to find anything: when that is above its budget it cannot succeed, and
    // skipping it changes nothing but the time (quadratic in the items) it would waste.
    let path_cost =
        (problem.items.len() as u128 + 1) * (problem.items.len() as u128 + problem.steps as u128);
    if height(&problem.items, &best) > bound && path_cost <= u128::from(search::WORK_BUDGET) {
        if let Some(better) = search::improve(&problem, bound, height(&problem.items, &best)) {
            best = better;
        }
    }
    let mut offsets = vec![0usize; buffers.len()];
    for (&i, &o) in problem.origin.iter().zip(&best) {
        offsets[i] = to_bytes(o);
    }
    offsets
}

/// [`plan_buffers`] where some pairs of buffers may overlap by [`Permit`](super::overlap::Permit)s: the greedy
/// orders alone (the exact search knows nothing of permits), keeping the lowest placement.
pub(super) fn plan_buffers_with_permits(
    buffers: &[Buffer],
    permits: &[super::overlap::Permit],
) -> Vec<usize> {
    let problem = Problem::with_permits(buffers, permits);
    // No bound to stop at: with overlaps the liveness bound is no floor.
    let best = greedy::best(&problem, 0);
    let mut offsets = vec![0usize; buffers.len()];
    for (&i, &o) in problem.origin.iter().zip(&best) {
        offsets[i] = to_bytes(o);
    }
    offsets
}

fn to_bytes(units: u64) -> usize {
    usize::try_from(units)
        .unwrap_or(usize::MAX)
        .saturating_mul(ALIGN)
}

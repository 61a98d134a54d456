//! The offset-assignment problem: buffers with lifetimes, in the planner's own coordinates
//! ([`Problem`]), the overlaps permitted between them, and the liveness lower bound any placement
//! without overlaps meets or exceeds. [`super::offsets`] solves it.

use super::memory_plan::ALIGN;

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
    /// Permitted overlaps ([`Permit`]) in units: for `(i, j)`, item `i` placed
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
    pub fn with_permits(buffers: &[Buffer], permits: &[Permit]) -> Problem {
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

pub(super) fn to_bytes(units: u64) -> usize {
    usize::try_from(units)
        .unwrap_or(usize::MAX)
        .saturating_mul(ALIGN)
}

/// A permitted overlap between two buffers (by index in the planner's buffer list): `output` may
/// be placed at least `gap` bytes below `input`'s offset, at least `above` bytes above it when
/// that is given (a reversible stream), or apart from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Permit {
    /// The output's buffer.
    pub output: usize,
    /// The input's buffer.
    pub input: usize,
    /// How far below the input the output must start, in bytes (a multiple of [`ALIGN`]).
    pub gap: usize,
    /// How far above the input the output must start, in bytes (a multiple of [`ALIGN`]), for a
    /// reversible stream.
    pub above: Option<usize>,
}

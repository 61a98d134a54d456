//! Greedy placement: items in a fixed order, each at the lowest (first fit) or tightest (best fit)
//! gap left by the items already placed that overlap it in time. TFLM's planner is one of these
//! (size descending, first fit); trying several orders and keeping the best costs little and often
//! reaches the lower bound where a single order misses it on ties.

use super::buffer::{height, Item, Problem};

/// How an item chooses among the gaps it fits in.
#[derive(Clone, Copy)]
enum Fit {
    /// The lowest gap.
    First,
    /// The smallest gap (the open space above everything counts as infinitely large).
    Best,
}

/// Overlapping pairs (summed over every item placed, in all orders) the greedy phase may look at.
/// A chain of 100,000 operators needs about 2.4 million; only graphs where very many tensors are
/// live at once (thousands of graph outputs, say) come near, and there every placement would cost
/// O(n) and the whole O(n²). Fixed, not timed, so that plans stay deterministic.
const WORK_BUDGET: usize = 64_000_000;

/// The best placement over all orders and fits (lowest height; ties go to the earlier candidate,
/// so the result is deterministic).
///
/// Orders are tried while the [`WORK_BUDGET`] lasts; an order cut short by it is dropped. If not
/// even the first one completes, the items are stacked one above the other: a valid placement,
/// found in linear time, and at the lower bound whenever everything is live at once.
///
/// The search stops at the first placement whose height is `bound` (the liveness lower bound):
/// no later candidate can be strictly lower, so it could never replace it, and the result is the
/// same as trying them all.
pub(super) fn best(p: &Problem, bound: u64) -> Vec<u64> {
    let items = &p.items;
    const M: u64 = u64::MAX;
    // Sort keys, ascending; `M - x` sorts by `x` descending. The sort is stable over the index
    // order, which breaks the remaining ties.
    type Key = fn(&Item) -> [u64; 3];
    let keys: [Key; 6] = [
        |it| [M - it.size, it.first as u64, 0], // TFLM's order: largest first
        |it| [M - it.size, M - span(it), it.first as u64], // largest, then longest first
        |it| [it.first as u64, M - it.size, 0], // by creation
        |it| [M - area(it), it.first as u64, 0], // largest area first
        |it| [M - span(it), M - it.size, it.first as u64], // longest first
        |it| [M - it.last as u64, M - it.size, 0], // backwards in time
    ];
    let mut best: Option<(u64, Vec<u64>)> = None;
    let mut work = 0usize;
    'orders: for key in keys {
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|&i| key(&items[i]));
        for fit in [Fit::First, Fit::Best] {
            let Some(offsets) = place(p, &order, fit, &mut work) else {
                break 'orders;
            };
            let h = height(items, &offsets);
            if best.as_ref().is_none_or(|(bh, _)| h < *bh) {
                best = Some((h, offsets));
            }
            if h <= bound {
                break 'orders;
            }
        }
    }
    best.map_or_else(|| stacked(items), |(_, o)| o)
}

/// Work (overlapping pairs looked at, as [`WORK_BUDGET`]) the shuffled orders of [`shuffled`] may
/// spend in all: a few milliseconds, and a small share of a large graph's placement.
const SHUFFLE_WORK_BUDGET: usize = 4_000_000;

/// The most shuffled orders [`shuffled`] tries.
const SHUFFLED_ORDERS: usize = 512;

/// First fit over pseudo-random orders (a fixed seed: deterministic), for when every order of
/// [`best`] stays above `bound`. Ties in the fixed orders often decide between the bound and a
/// unit or two above it; a random order breaks them differently each time. On the transformer
/// keyword spotter (47 buffers, 16 bytes above the bound after the fixed orders, and out of reach
/// of the exact search's budget) about one shuffled order in sixteen meets the bound. Stops at the
/// first order at `bound`; returns the lowest placement found if it is below `current`, else
/// `None`.
pub(super) fn shuffled(p: &Problem, bound: u64, current: u64) -> Option<Vec<u64>> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        // xorshift64: the order only has to differ from one try to the next, reproducibly.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut order: Vec<usize> = (0..p.items.len()).collect();
    let mut best: Option<(u64, Vec<u64>)> = None;
    // `place` stops once `work` passes WORK_BUDGET: start it SHUFFLE_WORK_BUDGET short of that.
    let mut work = WORK_BUDGET - SHUFFLE_WORK_BUDGET;
    for _ in 0..SHUFFLED_ORDERS {
        // Fisher-Yates over the previous order.
        for i in (1..order.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        let Some(offsets) = place(p, &order, Fit::First, &mut work) else {
            break;
        };
        let h = height(&p.items, &offsets);
        if h < current && best.as_ref().is_none_or(|(bh, _)| h < *bh) {
            best = Some((h, offsets));
        }
        if h <= bound {
            break;
        }
    }
    best.map(|(_, o)| o)
}

/// Every item above the previous one, in index order.
fn stacked(items: &[Item]) -> Vec<u64> {
    let mut top = 0u64;
    items
        .iter()
        .map(|it| {
            let offset = top;
            top = top.saturating_add(it.size);
            offset
        })
        .collect()
}

/// Places `items` in `order`, each in a gap chosen by `fit` among the placed items it overlaps.
///
/// The placed items that overlap an item in time come from [`Placed`], an index by step, rather
/// than from a scan of everything placed: the cost is O((n + K) log n) for K overlapping pairs,
/// linear in a chain of operators, where a scan would make every placement cost O(n). `None` when
/// `work` (the overlapping pairs looked at) passes the [`WORK_BUDGET`].
fn place(p: &Problem, order: &[usize], fit: Fit, work: &mut usize) -> Option<Vec<u64>> {
    let items = &p.items;
    let mut offsets = vec![0u64; items.len()];
    let steps = items.iter().map(|it| it.last + 1).max().unwrap_or(0);
    let mut placed = Placed::new(steps);
    let mut overlapping: Vec<usize> = Vec::new();
    let mut busy: Vec<(u64, u64)> = Vec::new();
    // Units kept free below each placed item for its permitted output (see `Problem::reserve`).
    let mut reserved = vec![0u64; items.len()];
    let mut is_placed = vec![false; items.len()];
    for &i in order {
        let it = &items[i];
        placed.overlapping(it, &mut overlapping);
        *work += overlapping.len();
        if *work > WORK_BUDGET {
            return None;
        }
        busy.clear();
        busy.extend(overlapping.iter().map(|&j| match p.permits.get(&(i, j)) {
            Some(&(a, b)) => (offsets[j].saturating_add(a), offsets[j].saturating_add(b)),
            None => (
                offsets[j] - reserved[j],
                offsets[j].saturating_add(items[j].size),
            ),
        }));
        // An input placed before its output keeps the output's gap free below it.
        let below = match p.reserve.get(&i) {
            Some(&(output, gap)) if !is_placed[output] => gap,
            _ => 0,
        };
        let size = it.size.saturating_add(below);
        busy.sort_unstable();
        // Walk the gaps from the bottom: `cursor` is the lowest free byte above everything seen.
        let mut cursor = 0u64;
        let mut chosen: Option<(u64, u64)> = None; // (gap size, offset)
        for &(start, end) in &busy {
            if start > cursor {
                let gap = start - cursor;
                if gap >= size {
                    match fit {
                        Fit::First => {
                            chosen = Some((gap, cursor));
                            break;
                        }
                        Fit::Best => {
                            if chosen.is_none_or(|(g, _)| gap < g) {
                                chosen = Some((gap, cursor));
                            }
                        }
                    }
                }
            }
            cursor = cursor.max(end);
        }
        offsets[i] = chosen.map_or(cursor, |(_, o)| o).saturating_add(below);
        reserved[i] = below;
        is_placed[i] = true;
        placed.insert(i, it);
    }
    Some(offsets)
}

/// The items placed so far, indexed by time. An item overlaps `[first, last]` exactly when it is
/// live at step `first` or starts in `first + 1..=last`; the two cases are disjoint, and each has
/// its own index:
///
/// - a segment tree over the steps, where each item is stored at the O(log n) nodes that together
///   cover its lifetime, answers "live at step s" by walking from the leaf of `s` to the root;
/// - a list of items per start step, with the non-empty steps in an ordered set, answers "starts
///   in a range".
///
/// The lists are singly linked through one flat array (`next`), so that building the index for
/// every order tried costs a few allocations rather than one per node.
struct Placed {
    /// Number of leaves (a power of two, at least the number of steps).
    leaves: usize,
    /// First entry of node `k`'s list (1-based heap order), `NONE` when empty. Node `k` lists the
    /// items whose lifetime covers the node's whole range.
    node_head: Vec<usize>,
    /// First entry of the list of items starting at each step.
    start_head: Vec<usize>,
    /// The steps whose start list is not empty.
    starts: std::collections::BTreeSet<usize>,
    /// Entries: (item, next entry in the same list).
    entries: Vec<(usize, usize)>,
}

const NONE: usize = usize::MAX;

impl Placed {
    fn new(steps: usize) -> Placed {
        let leaves = steps.max(1).next_power_of_two();
        Placed {
            leaves,
            node_head: vec![NONE; 2 * leaves],
            start_head: vec![NONE; steps],
            starts: std::collections::BTreeSet::new(),
            entries: Vec::new(),
        }
    }

    fn push(entries: &mut Vec<(usize, usize)>, head: &mut usize, item: usize) {
        entries.push((item, *head));
        *head = entries.len() - 1;
    }

    fn insert(&mut self, index: usize, it: &Item) {
        // The canonical cover of the half-open leaf range [lo, hi), bottom up.
        let (mut lo, mut hi) = (it.first + self.leaves, it.last + 1 + self.leaves);
        while lo < hi {
            if lo & 1 == 1 {
                Self::push(&mut self.entries, &mut self.node_head[lo], index);
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                Self::push(&mut self.entries, &mut self.node_head[hi], index);
            }
            lo >>= 1;
            hi >>= 1;
        }
        Self::push(&mut self.entries, &mut self.start_head[it.first], index);
        self.starts.insert(it.first);
    }

    fn list(&self, mut entry: usize, out: &mut Vec<usize>) {
        while let Some(&(item, next)) = self.entries.get(entry) {
            out.push(item);
            entry = next;
        }
    }

    /// Replaces `out` with the placed items whose lifetime meets `it`'s (in no particular order).
    fn overlapping(&self, it: &Item, out: &mut Vec<usize>) {
        out.clear();
        let mut node = it.first + self.leaves;
        while node > 0 {
            self.list(self.node_head[node], out);
            node >>= 1;
        }
        if it.first < it.last {
            for &step in self.starts.range(it.first + 1..=it.last) {
                self.list(self.start_head[step], out);
            }
        }
    }
}

fn span(it: &Item) -> u64 {
    (it.last - it.first) as u64
}

fn area(it: &Item) -> u64 {
    it.size.saturating_mul(span(it) + 1)
}

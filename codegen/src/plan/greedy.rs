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

/// The best placement over all orders and fits (lowest height; ties go to the earlier candidate,
/// so the result is deterministic).
pub(super) fn best(p: &Problem) -> Vec<u64> {
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
    for key in keys {
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|&i| key(&items[i]));
        for fit in [Fit::First, Fit::Best] {
            let offsets = place(items, &order, fit);
            let h = height(items, &offsets);
            if best.as_ref().map_or(true, |(bh, _)| h < *bh) {
                best = Some((h, offsets));
            }
        }
    }
    best.map(|(_, o)| o).unwrap_or_default()
}

/// Places `items` in `order`, each in a gap chosen by `fit` among the placed items it overlaps.
fn place(items: &[Item], order: &[usize], fit: Fit) -> Vec<u64> {
    let mut offsets = vec![0u64; items.len()];
    let mut placed: Vec<usize> = Vec::with_capacity(items.len());
    let mut busy: Vec<(u64, u64)> = Vec::new();
    for &i in order {
        let it = &items[i];
        busy.clear();
        busy.extend(
            placed
                .iter()
                .filter(|&&j| items[j].overlaps(it))
                .map(|&j| (offsets[j], offsets[j].saturating_add(items[j].size))),
        );
        busy.sort_unstable();
        // Walk the gaps from the bottom: `cursor` is the lowest free byte above everything seen.
        let mut cursor = 0u64;
        let mut chosen: Option<(u64, u64)> = None; // (gap size, offset)
        for &(start, end) in &busy {
            if start > cursor {
                let gap = start - cursor;
                if gap >= it.size {
                    match fit {
                        Fit::First => {
                            chosen = Some((gap, cursor));
                            break;
                        }
                        Fit::Best => {
                            if chosen.map_or(true, |(g, _)| gap < g) {
                                chosen = Some((gap, cursor));
                            }
                        }
                    }
                }
            }
            cursor = cursor.max(end);
        }
        offsets[i] = chosen.map_or(cursor, |(_, o)| o);
        placed.push(i);
    }
    offsets
}

fn span(it: &Item) -> u64 {
    (it.last - it.first) as u64
}

fn area(it: &Item) -> u64 {
    it.size.saturating_mul(span(it) + 1)
}

//! Exact search for a lower placement, by branch and bound with a fixed work budget.
//!
//! Any placement can be pushed down until every item rests on an item below it or on 0 ("gravity"),
//! without changing which items overlap. Listed by offset, such a placement is rebuilt by placing
//! its items in that order, each at the top of the *skyline* (the highest item placed so far over
//! its lifetime). So the search enumerates orders, with offsets that never decrease, and loses no
//! solution. It prunes with the liveness bound of what is left: at every step, the unplaced items
//! live there must fit between `max(skyline, floor)` and the height limit.

use super::buffer::{height, Item, Problem};

/// Work units (item or step visits) one search phase may spend. Fixed, not timed, so that the
/// result is deterministic; about 20 ms of release-mode time. Measured on random instances of up to
/// 40 buffers that the greedy orders left above the bound: half of the searches reached the bound
/// within 7,500 units and four in five within 250,000; about one in ten ran out of budget.
pub(super) const WORK_BUDGET: u64 = 5_000_000;

/// Looks for a placement lower than `current` (in units), first one exactly at `bound`, then (if
/// that phase runs out of budget) the best below `current`. `None` if nothing better was found.
pub(super) fn improve(p: &Problem, bound: u64, current: u64) -> Option<Vec<u64>> {
    if current == 0 || p.items.is_empty() {
        return None;
    }
    let mut at_bound = Search::new(p, bound);
    at_bound.run();
    if at_bound.best.is_some() {
        return at_bound.best;
    }
    // Nothing at the bound (it may be unreachable, or the budget ran out): settle for better.
    let mut below = Search::new(p, current - 1);
    below.run();
    below.best
}

struct Search<'a> {
    items: &'a [Item],
    bound: u64,
    /// Largest height a solution may have; lowered after each solution found.
    limit: u64,
    skyline: Vec<u64>,
    /// Sum of the sizes of the unplaced items live at each step.
    remaining: Vec<u64>,
    placed: Vec<bool>,
    offsets: Vec<u64>,
    work: u64,
    done: bool,
    best: Option<Vec<u64>>,
}

impl<'a> Search<'a> {
    fn new(p: &'a Problem, limit: u64) -> Search<'a> {
        Search {
            items: &p.items,
            bound: p.bound(),
            limit,
            skyline: vec![0; p.steps],
            remaining: p.live_per_step(),
            placed: vec![false; p.items.len()],
            offsets: vec![0; p.items.len()],
            work: 0,
            done: false,
            best: None,
        }
    }

    fn run(&mut self) {
        self.dfs(0, None, self.items.len());
    }

    /// Highest skyline over an item's lifetime.
    fn rest(&self, it: &Item) -> u64 {
        self.skyline[it.first..=it.last]
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
    }

    /// `floor`: the offset of the last item placed (offsets never decrease); `last`: that item.
    ///
    /// Recursion depth is bounded by the budget: every node costs at least `items` work units, so
    /// no path is deeper than `min(items, WORK_BUDGET / items)`, about 2,200 at most.
    fn dfs(&mut self, floor: u64, last: Option<usize>, left: usize) {
        self.work += (self.items.len() + self.skyline.len()) as u64;
        if self.work > WORK_BUDGET {
            self.done = true;
            return;
        }
        if left == 0 {
            let h = height(self.items, &self.offsets);
            self.best = Some(self.offsets.clone());
            if h <= self.bound {
                self.done = true;
            } else {
                self.limit = h - 1;
            }
            return;
        }
        let limit = self.limit;
        let short = self
            .skyline
            .iter()
            .zip(&self.remaining)
            .any(|(&s, &r)| r > 0 && s.max(floor).saturating_add(r) > limit);
        if short {
            return;
        }

        let mut candidates: Vec<(u64, usize)> = Vec::new();
        for (j, it) in self.items.iter().enumerate() {
            if self.placed[j] {
                continue;
            }
            let rest = self.rest(it);
            let o = rest.max(floor);
            if o.saturating_add(it.size) > limit {
                return; // Offsets only grow: this item will never fit.
            }
            // Two items at the same offset whose lifetimes are disjoint commute: placing either
            // first leaves the same state. Keep only the order with the lower index first.
            if let Some(p) = last {
                if rest == floor && self.offsets[p] == floor && j < p && !self.items[p].overlaps(it)
                {
                    continue;
                }
            }
            candidates.push((o, j));
        }
        let items = self.items;
        candidates.sort_by_key(|&(o, j)| {
            let it = &items[j];
            (o, u64::MAX - it.size, usize::MAX - (it.last - it.first), j)
        });

        for (o, j) in candidates {
            let it = self.items[j];
            if o.saturating_add(it.size) > self.limit {
                continue; // The limit dropped since the list was made.
            }
            let saved: Vec<u64> = self.skyline[it.first..=it.last].to_vec();
            for s in it.first..=it.last {
                self.skyline[s] = o.saturating_add(it.size);
                self.remaining[s] = self.remaining[s].saturating_sub(it.size);
            }
            self.placed[j] = true;
            self.offsets[j] = o;
            self.dfs(o, Some(j), left - 1);
            self.placed[j] = false;
            for (k, s) in (it.first..=it.last).enumerate() {
                self.skyline[s] = saved[k];
                self.remaining[s] = self.remaining[s].saturating_add(it.size);
            }
            if self.done {
                return;
            }
        }
    }
}

//! Operator order: where the graph allows it, run the operators in an order whose liveness peak is
//! lower than the file's.
//!
//! A converter writes operators in one topological order; when a graph has parallel branches, that
//! order may start a second branch while the first one's large tensors are still alive. Any
//! order that runs every operator after the producers of its inputs computes the same outputs
//! (each tensor is written by one operator and never again), so the planner may pick the one
//! that keeps fewer bytes alive at once.
//!
//! [`memory_order`] tries two greedy orders (each step runs the ready operator that leaves the
//! fewest bytes alive; and the same, but finishing the branch of the last operator first) and
//! returns one only when its peak, measured as the planner's lower bound measures it, is below
//! the file order's. Graphs whose order carries meaning beyond their data dependencies keep the
//! file's: variable tensors (state read and written in place), custom operators (their effects
//! are unknown), a WHILE's loop (its operators run again and again, consecutively), or a tensor
//! written by more than one operator. Deterministic, and bounded: a
//! graph whose search would exceed [`WORK_BUDGET`] steps keeps the file's order.

use std::collections::BTreeSet;

use super::memory_plan::align_up;
use crate::ir::{Graph, OpKind};

/// Most (ready operator, step) pairs the greedy search examines before giving up: a chain of
/// 100,000 operators takes 100,000; only very wide graphs come near it.
const WORK_BUDGET: usize = 20_000_000;

/// An execution order (operator positions in the file's order, first to run first) whose
/// liveness peak is below the file order's, or `None` when the file's order is kept: no order
/// found is better, or the graph's order carries meaning beyond its data dependencies (module
/// docs).
pub fn memory_order(graph: &Graph) -> Option<Vec<usize>> {
    let deps = Dependencies::of(graph)?;
    let file_order: Vec<usize> = (0..graph.operators.len()).collect();
    let file_peak = deps.peak(&file_order)?;
    [false, true]
        .into_iter()
        .filter_map(|follow_branch| deps.greedy(follow_branch))
        .filter_map(|order| Some((deps.peak(&order)?, order)))
        .filter(|(peak, _)| *peak < file_peak)
        .min_by_key(|(peak, _)| *peak)
        .map(|(_, order)| order)
}

/// `graph` with its operators in `order` (positions in the current order, each once), every
/// operator keeping its [`source_index`](crate::ir::Operator::source_index).
///
/// # Panics
///
/// If `order` is not a permutation of the operator positions.
pub fn reordered<'m>(mut graph: Graph<'m>, order: &[usize]) -> Graph<'m> {
    assert_eq!(
        order.len(),
        graph.operators.len(),
        "an order names every operator"
    );
    let mut operators: Vec<Option<_>> = graph.operators.into_iter().map(Some).collect();
    graph.operators = order
        .iter()
        .map(|&i| {
            operators[i]
                .take()
                .expect("an order names each operator once")
        })
        .collect();
    graph
}

/// What the orders are computed from: per operator, the activation tensors it reads and writes;
/// per tensor, its size rounded as the planner rounds it and its readers.
struct Dependencies {
    /// Per operator: distinct activation tensors it reads (neither constant nor variable).
    reads: Vec<Vec<usize>>,
    /// Per operator: its outputs.
    writes: Vec<Vec<usize>>,
    /// Per operator: its intermediates, alive at its step only.
    intermediates: Vec<Vec<usize>>,
    /// Per tensor: [`align_up`] of its size, 0 for constants and variables.
    bytes: Vec<usize>,
    /// Per tensor: the operators that read it.
    readers: Vec<Vec<usize>>,
    /// Per tensor: the operator that writes it, if any.
    producer: Vec<Option<usize>>,
    /// Per tensor: alive to the end (a graph output).
    pinned: Vec<bool>,
    /// The graph inputs (alive from step 0), each once.
    inputs: Vec<usize>,
}

impl Dependencies {
    /// The dependencies of `graph`, or `None` when its order must be kept.
    fn of(graph: &Graph) -> Option<Self> {
        let n = graph.tensors.len();
        if graph.operators.len() < 3
            || graph.tensors.iter().any(|t| t.is_variable)
            || graph
                .operators
                .iter()
                .any(|op| matches!(op.kind, OpKind::Custom(_)) || op.looped.is_some())
        {
            return None;
        }
        let activation = |t: usize| graph.tensors.get(t).is_some_and(|t| !t.is_constant());
        let mut bytes = vec![0; n];
        for (t, tensor) in graph.tensors.iter().enumerate() {
            if !tensor.is_constant() {
                bytes[t] = align_up(tensor.bytes)?;
            }
        }
        let mut producer: Vec<Option<usize>> = vec![None; n];
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut reads: Vec<Vec<usize>> = Vec::with_capacity(graph.operators.len());
        let mut writes = Vec::with_capacity(graph.operators.len());
        let mut intermediates = Vec::with_capacity(graph.operators.len());
        let is_input: BTreeSet<usize> = graph.inputs.iter().copied().collect();
        for (i, op) in graph.operators.iter().enumerate() {
            let read: BTreeSet<usize> = op.reads().filter(|&t| activation(t)).collect();
            for &t in &read {
                readers[t].push(i);
            }
            for &t in op.outputs.iter().chain(&op.intermediates) {
                // One writer per tensor, and never a graph input: otherwise the order of the
                // writes (or of a write and the caller's) would matter.
                if producer[t].is_some() || is_input.contains(&t) || !activation(t) {
                    return None;
                }
                producer[t] = Some(i);
            }
            reads.push(read.into_iter().collect());
            writes.push(op.outputs.clone());
            intermediates.push(op.intermediates.clone());
        }
        // Every activation an operator reads must be a graph input or written by an operator
        // (the planner refuses anything else; keep the file's order and let it say so).
        if reads
            .iter()
            .flatten()
            .any(|&t| producer[t].is_none() && !is_input.contains(&t))
        {
            return None;
        }
        let mut pinned = vec![false; n];
        for &t in &graph.outputs {
            pinned[t] = true;
        }
        Some(Dependencies {
            reads,
            writes,
            intermediates,
            bytes,
            readers,
            producer,
            pinned,
            inputs: is_input.into_iter().collect(),
        })
    }

    /// The liveness peak of running the operators in `order`: the most bytes alive at one step,
    /// as the planner's lower bound counts them (graph inputs alive from the start, outputs to
    /// the end, each operator's outputs and intermediates alive at its step), reshape aliases
    /// counted apart (an upper bound on the planner's). `None` on overflow or if `order` runs
    /// an operator before a producer of its inputs.
    fn peak(&self, order: &[usize]) -> Option<usize> {
        let mut remaining: Vec<usize> = self.readers.iter().map(Vec::len).collect();
        let mut done = vec![false; self.reads.len()];
        let mut live = 0usize;
        for &t in &self.inputs {
            live = live.checked_add(self.bytes[t])?;
        }
        let mut peak = live;
        for &i in order {
            if self.reads[i]
                .iter()
                .any(|&t| self.producer[t].is_some_and(|p| !done[p]))
            {
                return None;
            }
            done[i] = true;
            let created = self.created(i)?;
            peak = peak.max(live.checked_add(created)?.checked_add(self.transient(i)?)?);
            live += created;
            for &t in &self.reads[i] {
                remaining[t] -= 1;
                if remaining[t] == 0 && !self.pinned[t] {
                    live -= self.bytes[t];
                }
            }
            // An output nothing reads and that is no graph output dies at its own step.
            for &t in &self.writes[i] {
                if remaining[t] == 0 && !self.pinned[t] {
                    live -= self.bytes[t];
                }
            }
        }
        Some(peak)
    }

    /// Bytes operator `i` creates: its outputs.
    fn created(&self, i: usize) -> Option<usize> {
        self.sum(&self.writes[i])
    }

    /// Bytes operator `i` needs at its step alone: its intermediates.
    fn transient(&self, i: usize) -> Option<usize> {
        self.sum(&self.intermediates[i])
    }

    /// The bytes of `tensors`, or `None` on overflow.
    fn sum(&self, tensors: &[usize]) -> Option<usize> {
        tensors
            .iter()
            .try_fold(0usize, |sum, &t| sum.checked_add(self.bytes[t]))
    }

    /// Bytes that die when operator `i` runs, given how many readers each tensor has left.
    fn freed(&self, i: usize, remaining: &[usize]) -> usize {
        let inputs = self.reads[i]
            .iter()
            .filter(|&&t| remaining[t] == 1 && !self.pinned[t])
            .map(|&t| self.bytes[t]);
        let unread = self.writes[i]
            .iter()
            .filter(|&&t| remaining[t] == 0 && !self.pinned[t])
            .map(|&t| self.bytes[t]);
        inputs.chain(unread).sum()
    }

    /// A greedy order: at each step, of the operators whose inputs are all computed, the one after
    /// which the fewest bytes are alive (ties: the one whose step holds fewest, then the file's
    /// order). With `follow_branch`, a reader of what the last operator wrote goes first when
    /// there is one (finishing a branch before starting another). `None` past [`WORK_BUDGET`].
    fn greedy(&self, follow_branch: bool) -> Option<Vec<usize>> {
        let ops = self.reads.len();
        let mut waiting: Vec<usize> = (0..ops)
            .map(|i| {
                self.reads[i]
                    .iter()
                    .filter(|&&t| self.producer[t].is_some())
                    .count()
            })
            .collect();
        let mut remaining: Vec<usize> = self.readers.iter().map(Vec::len).collect();
        let mut ready: BTreeSet<usize> = (0..ops).filter(|&i| waiting[i] == 0).collect();
        let mut order = Vec::with_capacity(ops);
        let mut work = 0usize;
        let mut last_written: Vec<usize> = Vec::new();
        while !ready.is_empty() {
            work = work.checked_add(ready.len())?;
            if work > WORK_BUDGET {
                return None;
            }
            let followers: BTreeSet<usize> = if follow_branch {
                last_written
                    .iter()
                    .flat_map(|&t| self.readers[t].iter().copied())
                    .filter(|i| ready.contains(i))
                    .collect()
            } else {
                BTreeSet::new()
            };
            let candidates = if followers.is_empty() {
                &ready
            } else {
                &followers
            };
            let score = |i: usize| -> Option<(isize, usize, usize)> {
                let created = self.created(i)?;
                let freed = self.freed(i, &remaining);
                let growth = isize::try_from(created).ok()? - isize::try_from(freed).ok()?;
                Some((growth, created.checked_add(self.transient(i)?)?, i))
            };
            let mut best: Option<(isize, usize, usize)> = None;
            for &i in candidates {
                let s = score(i)?;
                if best.is_none_or(|b| s < b) {
                    best = Some(s);
                }
            }
            let (_, _, next) = best?;
            ready.remove(&next);
            order.push(next);
            for &t in &self.reads[next] {
                remaining[t] -= 1;
            }
            for &t in &self.writes[next] {
                for &reader in &self.readers[t] {
                    waiting[reader] -= 1;
                    if waiting[reader] == 0 {
                        ready.insert(reader);
                    }
                }
            }
            last_written.clone_from(&self.writes[next]);
        }
        // Every operator ran (none waits on a producer that never runs).
        (order.len() == ops).then_some(order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DType, OpCode, Operator, Options, Tensor};

    fn tensor(bytes: usize) -> Tensor<'static> {
        Tensor {
            name: String::new(),
            shape: vec![bytes],
            dtype: DType::I8,
            quant: None,
            data: None,
            is_variable: false,
            initial: None,
            bytes,
        }
    }

    fn op(source_index: usize, inputs: &[usize], outputs: &[usize]) -> Operator {
        Operator {
            kind: OpKind::Builtin(OpCode::ADD),
            version: 1,
            options: Options::None,
            inputs: inputs.iter().map(|&t| Some(t)).collect(),
            outputs: outputs.to_vec(),
            intermediates: vec![],
            source_index,
            branch: None,
            looped: None,
        }
    }

    /// x(16) → a1(1024) → a2(16); x → b1(1024) → b2(16); (a2, b2) → y(32), written breadth
    /// first: a1 and b1 both alive.
    fn branches() -> Graph<'static> {
        let sizes = [16, 1024, 1024, 16, 16, 32];
        let (x, a1, b1, a2, b2, y) = (0, 1, 2, 3, 4, 5);
        Graph {
            tensors: sizes.iter().map(|&b| tensor(b)).collect(),
            operators: vec![
                op(0, &[x], &[a1]),
                op(1, &[x], &[b1]),
                op(2, &[a1], &[a2]),
                op(3, &[b1], &[b2]),
                op(4, &[a2, b2], &[y]),
            ],
            inputs: vec![x],
            outputs: vec![y],
            offline_offsets: None,
            subgraphs: Vec::new(),
            description: String::new(),
            folded: Vec::new(),
            source: None,
        }
    }

    #[test]
    fn finishes_one_branch_before_the_next() {
        let graph = branches();
        let order = memory_order(&graph).expect("a lower peak exists");
        assert_eq!(order, [0, 2, 1, 3, 4]);
        let deps = Dependencies::of(&graph).expect("reorderable");
        assert_eq!(deps.peak(&[0, 1, 2, 3, 4]), Some(16 + 1024 + 1024));
        assert_eq!(deps.peak(&order), Some(16 + 1024 + 16));
        let reordered = reordered(graph.clone(), &order);
        let sources: Vec<usize> = reordered.operators.iter().map(|o| o.source_index).collect();
        assert_eq!(sources, order);
        // The planner's own bound agrees.
        let before = crate::plan::place::plan_graph(&graph).expect("plans");
        let after = crate::plan::place::plan_graph(&reordered).expect("plans");
        assert_eq!(before.lower_bound_bytes, 16 + 1024 + 1024);
        assert!(after.arena_bytes < before.arena_bytes, "{after:?}");
    }

    #[test]
    fn keeps_an_order_that_is_already_best() {
        let graph = reordered(branches(), &[0, 2, 1, 3, 4]);
        assert_eq!(memory_order(&graph), None);
    }

    #[test]
    fn keeps_the_file_order_where_it_carries_meaning() {
        let mut state = branches();
        state.tensors[4].is_variable = true;
        assert_eq!(memory_order(&state), None, "a variable tensor");

        let mut custom = branches();
        custom.operators[1].kind = OpKind::Custom("side_effect".to_string());
        assert_eq!(memory_order(&custom), None, "a custom operator");

        let mut twice = branches();
        twice.operators[3].outputs = vec![1];
        assert_eq!(memory_order(&twice), None, "a tensor written twice");

        let mut input_written = branches();
        input_written.operators[1].outputs = vec![0];
        assert_eq!(memory_order(&input_written), None, "a graph input written");
    }

    /// Every order returned runs each operator after the producers of its inputs, on random
    /// layered graphs.
    #[test]
    fn orders_respect_every_dependency() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut reordered_count = 0;
        for _ in 0..300 {
            let ops = 3 + next(12);
            let mut tensors = vec![tensor(16 * (1 + next(64)))];
            let mut operators = Vec::new();
            for i in 0..ops {
                let reads: BTreeSet<usize> =
                    (0..1 + next(2)).map(|_| next(tensors.len())).collect();
                tensors.push(tensor(16 * (1 + next(64))));
                let reads: Vec<usize> = reads.into_iter().collect();
                operators.push(op(i, &reads, &[tensors.len() - 1]));
            }
            let graph = Graph {
                outputs: vec![tensors.len() - 1],
                tensors,
                operators,
                inputs: vec![0],
                offline_offsets: None,
                subgraphs: Vec::new(),
                description: String::new(),
                folded: Vec::new(),
                source: None,
            };
            let Some(order) = memory_order(&graph) else {
                continue;
            };
            reordered_count += 1;
            let mut done = vec![false; graph.tensors.len()];
            done[0] = true;
            for &i in &order {
                let op = &graph.operators[i];
                assert!(op.inputs.iter().flatten().all(|&t| done[t]), "{order:?}");
                done[op.outputs[0]] = true;
            }
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..graph.operators.len()).collect::<Vec<_>>());
            let deps = Dependencies::of(&graph).expect("reorderable");
            let file: Vec<usize> = (0..graph.operators.len()).collect();
            assert!(deps.peak(&order) < deps.peak(&file));
        }
        assert!(
            reordered_count > 20,
            "only {reordered_count} graphs were reordered"
        );
    }
}

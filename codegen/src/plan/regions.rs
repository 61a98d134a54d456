//! Memory regions besides the arena: which activations move to faster memory.
//!
//! A microcontroller often has a small fast memory beside its main SRAM (a Cortex-M7's DTCM,
//! zero wait states, against an AXI SRAM behind a bus matrix). The user names such regions and
//! their sizes ([`MemoryRegion`]); [`plan_graph_in_regions`] plans as usual, then moves the
//! activations with the most accesses per byte into the first region, as many as fit (placed
//! over time there too, so a region holds far more than its size in tensors over an
//! invocation), then into the next region, and plans the arena again without them (keeping the
//! arena no larger than before).
//!
//! Accesses are estimated from the graph: an operator reads each element of an input once per
//! multiply-accumulate of its output element (its constant weights' elements per output channel,
//! at least once) and writes each output element once. A tensor's heat is the sum over the
//! operators that touch it, per byte it takes.
//!
//! What moves together: a kernel works in one region (the Rust kernels index one slice; the
//! C ones would not mind), so the tensors one kernel call takes as byte offsets (its outputs and
//! most inputs, [`Operand::Offset`] and [`Operand::Offsets`]) form one unit with the alias groups
//! that join them; an input taken as a [`Operand::Src`] (or among [`Operand::Srcs`]) may lie in
//! any region. A call with kernel scratch memory (planned in the arena) or a state tensor keeps
//! its unit in the arena. An overlap between a moved tensor
//! and one left in the arena is given up (the arena is planned again without it).

use super::lifetime::{self, Steps};
use super::memory_plan::{align_up, MemoryPlan, MemoryRegion, Scratch, Storage, ALIGN};
use super::place::{access_contracts, place_region, plan_placed, scratch_requests};
use crate::ir::Graph;
use crate::lower::{Access, Call, CallKind, Operand};
use crate::{Error, Result};

/// The most placements the choice of what moves may try (each costs one placement of the
/// region's tensors): a region past this many candidates keeps those chosen so far.
const MAX_TRIES: usize = 2_000;

/// Plans `graph` for its lowered `calls` (their scratch memory, and their access contracts when
/// `overlap`), with the activations that have the most accesses per byte moved into the memory
/// `regions`, first to last, as many as each holds (module docs). Verified like every plan
/// ([`super::check::check_plan_with`]); with no regions, [`super::place::plan_graph_with`].
///
/// # Errors
///
/// As [`super::place::plan_graph_with`]; [`Error::Config`] for a region without a valid name, size or
/// section.
pub fn plan_graph_in_regions(
    graph: &Graph,
    calls: &[Call],
    overlap: bool,
    regions: &[MemoryRegion],
) -> Result<MemoryPlan> {
    let scratch: Vec<Scratch> = scratch_requests(calls);
    let access: Vec<(usize, Access)> = if overlap {
        access_contracts(calls)
    } else {
        Vec::new()
    };
    let plan = plan_placed(graph, &scratch, &access, &[], &[])?;
    if regions.is_empty() {
        return Ok(plan);
    }
    validate(regions)?;
    let moved = choose(graph, calls, &plan, regions)?;
    let placed = plan_placed(graph, &scratch, &access, &moved, regions)?;
    if placed.arena_bytes <= plan.arena_bytes {
        return Ok(placed);
    }
    // The greedy placement is not monotone: fewer tensors may (rarely) place worse. Moving
    // tensors out must never cost arena, so then nothing moves.
    plan_placed(graph, &scratch, &access, &vec![None; moved.len()], regions)
}

/// Names a region may not take: the generated struct's other fields and `invoke`'s other
/// locals, and Rust's keywords (a region's name is a field and a local there).
const RESERVED: &[&str] = &[
    "arena",
    "state",
    "state_ready",
    "hook",
    "abstract",
    "as",
    "async",
    "await",
    "become",
    "box",
    "break",
    "const",
    "continue",
    "crate",
    "do",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "final",
    "fn",
    "for",
    "gen",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "macro",
    "match",
    "mod",
    "move",
    "mut",
    "override",
    "priv",
    "pub",
    "ref",
    "return",
    "self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "try",
    "type",
    "typeof",
    "unsafe",
    "unsized",
    "use",
    "virtual",
    "where",
    "while",
    "yield",
];

/// Checks what the generated code will spell: names are lower-case identifiers, distinct, and
/// not the arena's; sections are non-empty and need no escaping in a string literal.
fn validate(regions: &[MemoryRegion]) -> Result<()> {
    for (k, region) in regions.iter().enumerate() {
        let name = &region.name;
        let identifier = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && name.len() <= 32;
        let reserved = RESERVED.contains(&name.as_str());
        let section_ok = !region.section.is_empty()
            && region.section.len() <= 128
            && region
                .section
                .chars()
                .all(|c| c.is_ascii_graphic() && c != '"' && c != '\\');
        let detail = if !identifier || reserved {
            format!(
                "memory region name `{name}`: expected a lower-case identifier (letters, digits, \
                 `_`, at most 32 characters) that is not a Rust keyword nor one of arena, state, \
                 state_ready and hook"
            )
        } else if regions[..k].iter().any(|r| r.name == *name) {
            format!("memory region `{name}` is named twice")
        } else if !section_ok {
            format!(
                "memory region `{name}`: section `{}` must be 1 to 128 printable characters \
                 without spaces, quotes or backslashes",
                region.section
            )
        } else if region.capacity < ALIGN {
            format!(
                "memory region `{name}`: {} bytes is less than one {}-byte block",
                region.capacity, ALIGN
            )
        } else {
            continue;
        };
        return Err(Error::Config { detail });
    }
    Ok(())
}

/// For every tensor, the memory region it moves to, if any (module docs).
fn choose(
    graph: &Graph,
    calls: &[Call],
    plan: &MemoryPlan,
    regions: &[MemoryRegion],
) -> Result<Vec<Option<usize>>> {
    let n = graph.tensors.len();
    let in_arena = |t: usize| {
        plan.tensors
            .get(t)
            .is_some_and(|p| p.storage == Storage::Arena && p.bytes > 0)
    };
    // Units: tensors one kernel must find in one region.
    let mut parent: Vec<usize> = (0..n).collect();
    let mut pinned = vec![false; n];
    for a in &plan.aliases {
        union(&mut parent, a.tensor, a.of);
    }
    for call in calls {
        let (offsets, keep): (Vec<usize>, bool) = match &call.kind {
            CallKind::Kernel(k) => {
                let offsets: Vec<usize> = k
                    .operands
                    .iter()
                    .filter(|o| matches!(o, Operand::Offset(_) | Operand::Offsets(_)))
                    .flat_map(Operand::tensors)
                    .copied()
                    .collect();
                let scratch = k.operands.iter().any(|o| matches!(o, Operand::Scratch(_)));
                let state = offsets.iter().any(|&t| {
                    plan.tensors
                        .get(t)
                        .is_some_and(|p| p.storage == Storage::State)
                });
                (offsets, scratch || state)
            }
            CallKind::Alias { input, output } => (vec![*input, *output], false),
            // The condition is read through its own buffer's binding, wherever it is.
            CallKind::Select {
                then,
                otherwise,
                output,
                ..
            } => (vec![*then, *otherwise, *output], false),
            // The exit reads the condition through its own buffer's binding, as a selection.
            CallKind::Nothing | CallKind::Exit { .. } => (Vec::new(), false),
        };
        for w in offsets.windows(2) {
            union(&mut parent, w[0], w[1]);
        }
        if keep {
            for &t in &offsets {
                pinned[t] = true;
            }
        }
    }
    let mut units: Vec<Unit> = Vec::new();
    let mut unit_of_root = vec![usize::MAX; n];
    let accesses = accesses(graph);
    for t in (0..n).filter(|&t| in_arena(t)) {
        let root = find(&mut parent, t);
        if unit_of_root[root] == usize::MAX {
            unit_of_root[root] = units.len();
            units.push(Unit::default());
        }
        let unit = &mut units[unit_of_root[root]];
        unit.tensors.push(t);
        unit.pinned |= pinned[t];
        unit.accesses += accesses[t];
        unit.bytes += align_up(graph.tensors[t].bytes).unwrap_or(usize::MAX / 2) as f64;
    }
    // A unit joined by a kernel to a tensor that cannot move (a state tensor, an empty tensor)
    // stays: the kernel would find its offsets in two buffers.
    for t in (0..n).filter(|&t| !in_arena(t)) {
        let root = find(&mut parent, t);
        if let Some(unit) = units.get_mut(unit_of_root[root]) {
            unit.pinned = true;
        }
    }
    let mut order: Vec<usize> = (0..units.len()).filter(|&u| !units[u].pinned).collect();
    // Hottest first; ties by the smallest tensor index (deterministic).
    order.sort_by(|&a, &b| {
        let (ua, ub) = (&units[a], &units[b]);
        (ub.accesses / ub.bytes)
            .total_cmp(&(ua.accesses / ua.bytes))
            .then(ua.tensors[0].cmp(&ub.tensors[0]))
    });

    let steps = lifetime::lifetimes(graph)?;
    let mut placed = lifetime::regions(graph, &steps);
    let roots = super::alias::roots(n, &plan.aliases);
    let mut moved = vec![None; n];
    for (k, region) in regions.iter().enumerate() {
        let mut tries = 0;
        for &u in &order {
            let unit = &units[u];
            if moved[unit.tensors[0]].is_some() {
                continue;
            }
            if tries == MAX_TRIES {
                break;
            }
            tries += 1;
            for &t in &unit.tensors {
                placed[t] = Storage::Memory(k);
            }
            if fits(graph, &steps, &placed, &roots, k, region.capacity)? {
                for &t in &unit.tensors {
                    moved[t] = Some(k);
                }
            } else {
                for &t in &unit.tensors {
                    placed[t] = Storage::Arena;
                }
            }
        }
    }
    Ok(moved)
}

/// Whether the tensors `placed` in region `k` fit its `capacity`.
fn fits(
    graph: &Graph,
    steps: &[Option<Steps>],
    placed: &[Storage],
    roots: &[usize],
    k: usize,
    capacity: usize,
) -> Result<bool> {
    Ok(place_region(graph, steps, placed, roots, k)?.0 <= capacity)
}

/// Tensors that move together, their estimated accesses and their aligned bytes.
#[derive(Default)]
struct Unit {
    tensors: Vec<usize>,
    pinned: bool,
    accesses: f64,
    bytes: f64,
}

/// Estimated element accesses per tensor over one invocation (module docs).
fn accesses(graph: &Graph) -> Vec<f64> {
    let mut accesses = vec![0.0; graph.tensors.len()];
    for op in &graph.operators {
        let outputs = &op.outputs;
        let out_elements: f64 = outputs
            .iter()
            .map(|&t| graph.tensors[t].num_elements() as f64)
            .sum();
        let channels = outputs
            .first()
            .and_then(|&t| graph.tensors[t].shape.last().copied())
            .unwrap_or(1)
            .max(1) as f64;
        let weights = op
            .inputs
            .iter()
            .flatten()
            .map(|&t| &graph.tensors[t])
            .filter(|t| t.is_constant() && t.shape.len() >= 2)
            .map(|t| t.num_elements() as f64)
            .fold(0.0, f64::max);
        let reads = out_elements * (weights / channels).max(1.0);
        for &t in op.inputs.iter().flatten() {
            if !graph.tensors[t].is_constant() {
                accesses[t] += reads;
            }
        }
        for &t in outputs {
            accesses[t] += graph.tensors[t].num_elements() as f64;
        }
    }
    accesses
}

fn find(parent: &mut [usize], mut t: usize) -> usize {
    while parent[t] != t {
        parent[t] = parent[parent[t]];
        t = parent[t];
    }
    t
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    if a >= parent.len() || b >= parent.len() {
        return;
    }
    let (ra, rb) = (find(parent, a), find(parent, b));
    parent[ra.max(rb)] = ra.min(rb);
}

//! Overlap decisions: where an operator's output may share bytes with an input that dies at the
//! operator's step, by the kernel's access contract ([`Access`]).
//!
//! Two kinds, decided operator by operator in execution order:
//!
//! - [`Access::InPlace`]: the output takes exactly the input's bytes. The two tensors join one
//!   buffer (like a reshape's alias group), so the placement needs nothing new.
//! - [`Access::Stream`]: the output may start a *gap* below the input and overlap its early part
//!   (or lie apart from it); a reversible stream's output may also start a gap above the input
//!   and overlap its late part. The pair becomes a [`Permit`](super::buffer::Permit) the greedy placement honours.
//!
//! - [`Access::Slice`]: the input takes the output's bytes from the contract's offset on (a
//!   CONCATENATION's input written by its producer straight into its slice of the output). The
//!   input joins the output's buffer at that offset; decided first, since it saves a copy
//!   outright, and its tensors then take part in no other overlap.
//!
//! Each needs the input's buffer to die at the operator's step with no other of its tensors
//! live there (nothing reads those bytes afterwards), and the output's buffer to be born there.
//! Nothing here is trusted: the checker proves every decision from the contract with its own code.

use super::alias::{roots, writers};
use super::lifetime::Steps;
use super::memory_plan::{align_up, Alias, Overlap, Storage, ALIGN};
use crate::ir::Graph;
use crate::lower::{Access, Stream};

/// The decisions for one graph.
pub(super) struct Decisions {
    /// For every tensor, the root of its buffer: reshape aliases, in-place pairs and slices
    /// joined.
    pub buffer_root: Vec<usize>,
    /// For every tensor, where in its buffer it starts (a slice's offset; 0 for the rest).
    pub buffer_offset: Vec<usize>,
    /// Every overlap decided, in operator order.
    pub overlaps: Vec<Overlap>,
    /// The stream overlaps as tensor pairs with their gaps: `(output, input, gap below, gap
    /// above)`, the last for a reversible stream.
    pub streams: Vec<(usize, usize, usize, Option<usize>)>,
}

/// Per buffer (union-find root): what the decisions need to know about its tensors.
#[derive(Clone, Copy)]
struct Group {
    first: usize,
    last: usize,
    /// How many tensors of the buffer are live at `last`.
    at_last: usize,
    /// A graph output is in the buffer (it must survive to the end).
    output: bool,
}

/// Decides the overlaps of `graph` from the contracts `access` (by operator). `steps` and
/// `regions` are the planner's, `reshape` its reshape aliases.
pub(super) fn decide(
    graph: &Graph,
    steps: &[Option<Steps>],
    regions: &[Storage],
    reshape: &[Alias],
    access: &[(usize, Access)],
) -> Decisions {
    let n = graph.tensors.len();
    let mut parent = roots(n, reshape);
    let writers = writers(graph);
    let mut is_output = vec![false; n];
    for &t in &graph.outputs {
        if let Some(o) = is_output.get_mut(t) {
            *o = true;
        }
    }
    // Aggregates per reshape root.
    let mut group: Vec<Option<Group>> = vec![None; n];
    for t in 0..n {
        let (Some(s), Storage::Arena) = (steps[t], regions[t]) else {
            continue;
        };
        let g = group[parent[t]].get_or_insert(Group {
            first: s.first,
            last: s.last,
            at_last: 0,
            output: false,
        });
        g.first = g.first.min(s.first);
        if s.last > g.last {
            g.last = s.last;
            g.at_last = 0;
        }
        if s.last == g.last {
            g.at_last += 1;
        }
        g.output |= is_output[t];
    }

    let mut decisions = Decisions {
        buffer_root: Vec::new(),
        buffer_offset: vec![0; n],
        overlaps: Vec::new(),
        streams: Vec::new(),
    };
    let tensor_ok = |t: usize| {
        t < n && regions[t] == Storage::Arena && graph.tensors[t].bytes > 0 && steps[t].is_some()
    };
    // Slices first. A slice is a buffer of its own (no reshape alias), written by one operator,
    // dying at the concatenation (which gives birth to the output), at an aligned offset.
    let mut members = vec![0usize; n];
    for t in (0..n).filter(|&t| tensor_ok(t)) {
        members[parent[t]] += 1;
    }
    let born: Vec<Option<usize>> = (0..n).map(|t| group[parent[t]].map(|g| g.first)).collect();
    let mut in_slice = vec![false; n];
    // Buffers that hold slices: such a buffer cannot itself become a slice (offsets would nest).
    let mut holds_slices = vec![false; n];
    for &(op, access) in access {
        let Access::Slice {
            input: x,
            output: y,
            offset,
        } = access
        else {
            continue;
        };
        let s = op + 1;
        if op >= graph.operators.len()
            || x == y
            || !tensor_ok(x)
            || !tensor_ok(y)
            || writers[x] != 1
            || writers[y] != 1
            || in_slice[x]
            || offset % ALIGN != 0
            || offset.checked_add(graph.tensors[x].bytes) > Some(graph.tensors[y].bytes)
        {
            continue;
        }
        let ry = find(&mut parent, y);
        let Some(gx) = group[x] else { continue };
        let x_alone = parent[x] == x && members[x] == 1 && !holds_slices[x];
        let x_dies =
            x_alone && gx.last == s && gx.at_last == 1 && !gx.output && ry != x && !in_slice[y];
        let y_born = steps[y].is_some_and(|st| st.first == s) && born[y] == Some(s);
        if !x_dies || !y_born {
            continue;
        }
        parent[x] = ry;
        decisions.buffer_offset[x] = offset;
        in_slice[x] = true;
        holds_slices[ry] = true;
        if let Some(g) = group[ry].as_mut() {
            g.first = g.first.min(gx.first);
        }
        decisions.overlaps.push(Overlap { op, access });
    }
    let mut used_op = vec![false; graph.operators.len()];
    for &(op, access) in access {
        if op >= graph.operators.len() || used_op[op] || matches!(access, Access::Slice { .. }) {
            continue;
        }
        let s = op + 1;
        let (x, y) = access.tensors();
        if x == y || !tensor_ok(x) || !tensor_ok(y) || writers[y] != 1 || in_slice[x] || in_slice[y]
        {
            continue;
        }
        let (rx, ry) = (find(&mut parent, x), find(&mut parent, y));
        let (Some(gx), Some(gy)) = (group[rx], group[ry]) else {
            continue;
        };
        let x_dies = rx != ry
            && steps[x].is_some_and(|st| st.last == s)
            && gx.last == s
            && gx.at_last == 1
            && !gx.output;
        let y_born = steps[y].is_some_and(|st| st.first == s) && gy.first == s;
        if !x_dies || !y_born {
            continue;
        }
        let (xb, yb) = (graph.tensors[x].bytes, graph.tensors[y].bytes);
        match access {
            Access::InPlace { .. } => {
                if yb > xb {
                    continue;
                }
                // One buffer from now on: the input's bytes become the output's.
                parent[rx] = ry;
                let g = group[ry].as_mut().expect("checked above");
                g.first = g.first.min(gx.first);
            }
            Access::Slice { .. } => continue,
            Access::Stream { stream, .. } => {
                if stream.input_len() != xb || stream.output_len() != yb {
                    continue;
                }
                let Some(gap) = stream_gap(&stream).and_then(align_up) else {
                    continue;
                };
                let above = if stream.reversible {
                    stream_gap_above(&stream).and_then(align_up)
                } else {
                    None
                };
                decisions.streams.push((y, x, gap, above));
            }
        }
        used_op[op] = true;
        decisions.overlaps.push(Overlap { op, access });
    }
    decisions.buffer_root = (0..n).map(|t| find(&mut parent, t)).collect();
    decisions
}

/// The root of `t`, halving the path.
fn find(parent: &mut [usize], mut t: usize) -> usize {
    while parent[t] != t {
        parent[t] = parent[parent[t]];
        t = parent[t];
    }
    t
}

/// The smallest distance `D >= 0` such that an output placed `D` bytes below its input keeps the
/// contract: the largest, over the groups, of the group's end minus the lowest input byte still to
/// be read when it is written ([`Stream`]). `None` for a degenerate stream (no group size).
pub(super) fn stream_gap(s: &Stream) -> Option<usize> {
    if s.group == 0 {
        return None;
    }
    let pixels = s.pixels();
    // Backwards over the groups, `pending` is the lowest input byte read by any pixel from the
    // group's end on (the input length past the last pixel): constant memory, however large.
    let mut pending = s.input_len();
    let mut gap = 0usize;
    if pixels == 0 {
        return Some(0);
    }
    let mut start = (pixels - 1) / s.group * s.group;
    loop {
        let end = (start + s.group).min(pixels);
        let after = pending;
        for p in start..end {
            pending = pending.min(s.min_read(p));
        }
        let still = if s.reads_first { after } else { pending };
        gap = gap.max((end * s.output_pixel).saturating_sub(still));
        if start == 0 {
            break;
        }
        start -= s.group;
    }
    Some(gap.div_ceil(ALIGN) * ALIGN)
}

/// The smallest distance `D >= 0` such that an output placed `D` bytes above its input keeps a
/// reversible stream's contract (groups in decreasing order): the largest, over the groups, of the
/// highest input byte still to be read when the group is written (its own pixels' and every
/// earlier pixel's `maxread`; only the earlier ones' when it reads first) minus the group's start.
/// `None` for a degenerate stream (no group size).
pub(super) fn stream_gap_above(s: &Stream) -> Option<usize> {
    if s.group == 0 {
        return None;
    }
    // Forwards over the groups, `pending` is the highest input byte (exclusive) any pixel up to
    // the group's start reads.
    let mut pending = 0usize;
    let mut gap = 0usize;
    let pixels = s.pixels();
    let mut start = 0;
    while start < pixels {
        let end = (start + s.group).min(pixels);
        let before = pending;
        for p in start..end {
            pending = pending.max(s.max_read(p));
        }
        let still = if s.reads_first { before } else { pending };
        gap = gap.max(still.saturating_sub(start * s.output_pixel));
        start = end;
    }
    Some(gap.div_ceil(ALIGN) * ALIGN)
}

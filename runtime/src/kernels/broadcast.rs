//! The broadcasting loop of the binary element-wise kernels.
//!
//! Generation time reduces both inputs to a common, collapsed output shape with per-input element
//! strides (0 along a broadcast dimension); adjacent dimensions that broadcast the same way are
//! merged, so the common cases (same shape; one scalar; per-channel) are one or two dimensions.
//!
//! Code size: every path (inputs apart from the output, in place, overlapping) computes its rows
//! through one function per kernel, [`row_op`] (both inputs vary, or one is a repeated element:
//! three loops), called through `&dyn Fn` once per row or chunk; the paths themselves are not
//! generic, so one copy of each serves every kernel. The element function is thus inlined three
//! times per kernel, where a path per case inlined it ten times (12 KB of Cortex-M4 code for int8
//! ADD, against 2 KB for the C kernel). The paths that need a copy of the output (in place,
//! overlapping) stage it through stack buffers of [`STAGE`] bytes, in functions of their own, so
//! that the kernel's frame does not hold them.

use super::elem::{copy_run, next_row_index, Elem, CHUNK};
use super::MAX_RANK;
use crate::Src;

/// `out[i] = f(a[ia], b[ib])` over `shape` in C order, where `ia`/`ib` follow `a_strides`/`b_strides`.
///
/// Reads and writes proceed in output order, chunk by chunk along the innermost dimension: an input
/// with the output's shape (strides not zero) may be the output itself.
#[inline(always)]
pub(crate) fn binary<T: Elem>(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    f: impl Fn(T, T) -> T,
) {
    walk(
        arena,
        (a, b, output),
        (shape, a_strides, b_strides),
        &f,
        true,
    );
}

/// [`binary`] with a second input of another element type `U` (int16 PRELU's int8 alpha): the
/// output has the first input's type, so only the first input may be the output itself.
#[inline(always)]
pub(crate) fn binary_mixed<T: Elem, U: Elem>(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    f: impl Fn(T, U) -> T,
) {
    walk(
        arena,
        (a, b, output),
        (shape, a_strides, b_strides),
        &f,
        false,
    );
}

/// [`binary`] for inputs of the output's shape (the lowering's same-shape entries, `*_flat`):
/// `out[i] = f(a[i], b[i])` over the `shape.iter().product()` elements, in order. Only the
/// element-by-element loop is compiled, once, where [`binary`] also compiles its broadcast paths
/// (about 4 KB of Cortex-M4 code) and inlines `f` three times; same access order as [`binary`],
/// so either input may be the output itself, or the output lie before an input.
#[inline(always)]
pub(crate) fn binary_flat<T: Elem>(
    arena: &mut [u8],
    srcs: (Src, Src, usize),
    shape: &[usize],
    f: impl Fn(T, T) -> T,
) {
    flat_runs(
        arena,
        srcs,
        (super::elements(shape), T::SIZE),
        &|out, xs, ys| both_vary(out, xs, ys, &f),
    );
}

/// `out[i] = f(x[i], y[i])`: [`binary_flat`]'s element loop, kept rolled and not inlined on bare
/// metal (a few bytes per kernel: a model that also links the kernel's broadcast entry pays
/// little for this one).
#[cfg_attr(target_os = "none", inline(never))]
fn both_vary<T: Elem, U: Elem, O: Elem, F: Fn(T, U) -> O>(
    out: &mut [u8],
    xs: &[u8],
    ys: &[u8],
    f: &F,
) {
    for ((o, x), y) in out
        .chunks_exact_mut(O::SIZE)
        .zip(xs.chunks_exact(T::SIZE))
        .zip(ys.chunks_exact(U::SIZE))
    {
        // Rolled: unrolled four times with its remainder, an int8 MUL's loop was 1.5 KB of
        // Cortex-M4 code (about 2 instructions per element fewer of 15 to 30).
        super::keep_rolled();
        f(T::read(x), U::read(y)).write(o);
    }
}

/// A run's computation in [`binary_flat`]: `op(out, x, y)`, all three equally long.
type FlatOp<'f> = dyn Fn(&mut [u8], &[u8], &[u8]) + 'f;

/// [`binary_flat`]'s walk over `n` elements of `size` bytes. Not generic: one copy for every
/// kernel. Inputs apart from the output: one run. Otherwise each input that overlaps the output is
/// copied to the stack a chunk at a time (half a stage each when both do) before that chunk of
/// output is computed, the other read in place.
#[inline(never)]
fn flat_runs(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (n, size): (usize, usize),
    op: &FlatOp,
) {
    let len = n * size;
    let end = output + len;
    let overlaps =
        |src: &Src| matches!(*src, Src::Arena(offset) if offset < end && offset + len > output);
    let (stage_a, stage_b) = (overlaps(&a), overlaps(&b));
    if !(stage_a || stage_b) {
        // The usual case: one run, and no stage to clear.
        if let Some((x, y, out)) = disjoint(arena, (a, len), (b, len), output, len) {
            op(out, x, y);
        }
        return;
    }
    let mut stage = Stage([0; STAGE]);
    let (sa, sb) = stage.0.split_at_mut(match (stage_a, stage_b) {
        (true, true) => STAGE / 2,
        (true, false) => STAGE,
        _ => 0,
    });
    // Bytes per run: whole elements that fit each staged input's buffer.
    let step = if stage_b { sb.len() } else { sa.len() } / size * size;
    let mut start = 0;
    while start < len {
        let k = step.min(len - start);
        let x = flat_piece(arena, a, (start, k), stage_a, &mut *sa);
        let y = flat_piece(arena, b, (start, k), stage_b, &mut *sb);
        // Staged inputs are stack bytes, the others lie outside the whole output: apart.
        let Some((x, y, out)) = disjoint(arena, (x, k), (y, k), output + start, k) else {
            return;
        };
        op(out, x, y);
        start += k;
    }
}

/// Bytes `start..start + k` of input `src` as a source: copied into `buf` (`staged`), or the
/// input's own bytes. One copy for both inputs (the copy is a call to `memcpy`: a chunk of at
/// most a stage, once per chunk).
#[inline(never)]
fn flat_piece<'x>(
    arena: &[u8],
    src: Src<'x>,
    (start, k): (usize, usize),
    staged: bool,
    buf: &'x mut [u8],
) -> Src<'x> {
    match src {
        Src::Arena(offset) if staged => {
            buf[..k].copy_from_slice(&arena[offset + start..offset + start + k]);
            Src::Bytes(&buf[..k])
        }
        Src::Arena(offset) => Src::Arena(offset + start),
        Src::Bytes(bytes) => Src::Bytes(&bytes[start..]),
    }
}

/// Bytes of a stack buffer through which the in-place and overlapping paths stage a chunk of a
/// row: [`CHUNK`] elements of four bytes.
const STAGE: usize = CHUNK * 4;

/// A stack buffer of [`STAGE`] bytes, word-aligned for [`copy_run`]'s block copies.
#[repr(C, align(4))]
struct Stage([u8; STAGE]);

/// A row's computation: `op(out, (x, x repeated), (y, y repeated))`, [`row_op`] with the kernel's
/// element function.
type RowOp<'f> = dyn Fn(&mut [u8], (&[u8], bool), (&[u8], bool)) + 'f;

/// The loop of [`binary`] and [`binary_mixed`]. `second_may_be_output`: the second input has the
/// output's type (`U` is `T`), so it may be the output itself.
#[inline(always)]
fn walk<T: Elem, U: Elem>(
    arena: &mut [u8],
    srcs: (Src, Src, usize),
    shapes: (&[usize], &[usize], &[usize]),
    f: &impl Fn(T, U) -> T,
    second_may_be_output: bool,
) {
    walk_rows(
        arena,
        srcs,
        shapes,
        ((T::SIZE, U::SIZE), second_may_be_output),
        &|out, x, y| row_op(out, x, y, f),
    );
}

/// [`walk`]'s paths, with the element types' sizes (`size`: the first input's and the output's)
/// and the element function in `op`. Not generic: one copy for every kernel.
#[inline(never)]
fn walk_rows(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    ((size, b_size), second_may_be_output): ((usize, usize), bool),
    op: &RowOp,
) {
    // A scalar operation is one row of one element.
    let (shape, a_strides, b_strides) = if shape.is_empty() {
        (&[1usize][..], &[0usize][..], &[0usize][..])
    } else {
        (shape, a_strides, b_strides)
    };
    let rank = shape.len();
    assert!(rank <= MAX_RANK && a_strides.len() == rank && b_strides.len() == rank);
    // Once per call, in one rolled loop: the output's elements and one past the last element
    // each input is read at.
    let (mut total, mut a_last, mut b_last) = (1usize, 1usize, 1usize);
    for ((&n, &sa), &sb) in shape.iter().zip(a_strides).zip(b_strides) {
        super::keep_rolled();
        if n == 0 {
            return;
        }
        total *= n;
        a_last += (n - 1) * sa;
        b_last += (n - 1) * sb;
    }
    let (a_len, b_len) = (a_last * size, b_last * b_size);
    let shapes = (shape, a_strides, b_strides);
    let sizes = (size, b_size);
    if let Some((xa, xb, out)) = disjoint(arena, (a, a_len), (b, b_len), output, total * size) {
        direct((xa, xb, out), shapes, sizes, op);
    } else if !in_place(
        arena,
        (a, b, output),
        shapes,
        (sizes, (a_len, b_len), total),
        second_may_be_output,
        op,
    ) {
        staged(arena, (a, b, output), shapes, sizes, op);
    }
}

/// The loop when one input is the output itself (its offset and the output's shape: the plan's
/// in-place operation) and the other lies apart from it: each chunk of output is copied to the
/// stack, then computed from that copy into its place. Returns false, having done nothing,
/// otherwise.
#[inline(always)]
fn in_place(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    ((size, b_size), (a_len, b_len), total): ((usize, usize), (usize, usize), usize),
    second_may_be_output: bool,
    op: &RowOp,
) -> bool {
    let out_len = total * size;
    let is_output = |src: Src, strides: &[usize], len: usize| {
        matches!(src, Src::Arena(offset) if offset == output)
            && len == out_len
            && contiguous(shape, strides)
    };
    let nothing = (Src::Bytes(&[]), 0);
    if is_output(a, a_strides, a_len) {
        let Some((y, _, out)) = disjoint(arena, (b, b_len), nothing, output, out_len) else {
            return false;
        };
        rows_in_place((out, y), (shape, b_strides), (size, b_size), true, op);
    } else if second_may_be_output && is_output(b, b_strides, b_len) {
        let Some((x, _, out)) = disjoint(arena, (a, a_len), nothing, output, out_len) else {
            return false;
        };
        rows_in_place((out, x), (shape, a_strides), (b_size, size), false, op);
    } else {
        return false;
    }
    true
}

/// Whether `strides` (in elements) lay `shape` out contiguously, row-major (dimensions of one
/// element may have any stride).
#[inline(always)]
fn contiguous(shape: &[usize], strides: &[usize]) -> bool {
    let mut expected = 1;
    for (&n, &stride) in shape.iter().zip(strides).rev() {
        super::keep_rolled();
        if n != 1 && stride != expected {
            return false;
        }
        expected *= n;
    }
    true
}

/// The rows of [`in_place`]: `out` (elements of `out_size` bytes) is the first operand
/// (`output_first`) or the second, `other` (elements of `other_size` bytes) the other, read with
/// `strides` as [`direct`] reads an input. The output is staged a block at a time (as many whole
/// rows as fit in the buffer, or a chunk of one long row), then `op` computes each row (or chunk)
/// from the staged copy and the other operand: one copy per block, not per short row.
#[inline(never)]
fn rows_in_place(
    (out, other): (&mut [u8], &[u8]),
    (shape, strides): (&[usize], &[usize]),
    (out_size, other_size): (usize, usize),
    output_first: bool,
    op: &RowOp,
) {
    let rank = shape.len();
    let inner = shape[rank - 1];
    let step = strides[rank - 1];
    let outer = &shape[..rank - 1];
    let mut index = [0usize; MAX_RANK];
    let mut stage = Stage([0; STAGE]);
    let stage = &mut stage.0;
    let per_chunk = STAGE / out_size;
    // The other operand's piece for `n` elements from element `in_row` of the row whose
    // first element of `other` is `pos`.
    let piece = |pos: usize, in_row: usize, n: usize| {
        if step == 0 {
            (&other[pos * other_size..(pos + 1) * other_size], true)
        } else {
            let from = pos + in_row;
            (&other[from * other_size..(from + n) * other_size], false)
        }
    };
    let row_bytes = inner * out_size;
    if inner <= per_chunk {
        // Short rows: as many whole rows as fit staged at once.
        let rows_per_block = per_chunk / inner;
        for block in out.chunks_mut(rows_per_block * row_bytes) {
            let staged = &mut stage[..block.len()];
            // Word-aligned blocks of 32 bytes by `ldm`/`stm` where the core has them: the copy
            // is this path's cost (3 % of an int16 ADD in place through `memcpy`).
            copy_run(staged, block);
            for (row, staged) in block
                .chunks_exact_mut(row_bytes)
                .zip(staged.chunks_exact(row_bytes))
            {
                let pos = row_start(&index[..rank - 1], strides);
                let other = piece(pos, 0, inner);
                if output_first {
                    op(row, (staged, false), other);
                } else {
                    op(row, other, (staged, false));
                }
                next_row_index(&mut index[..rank - 1], outer);
            }
        }
    } else {
        // Long rows: a chunk at a time.
        for row in out.chunks_exact_mut(row_bytes) {
            let pos = row_start(&index[..rank - 1], strides);
            for (k, chunk) in row.chunks_mut(per_chunk * out_size).enumerate() {
                let staged = &mut stage[..chunk.len()];
                copy_run(staged, chunk);
                let other = piece(pos, k * per_chunk, chunk.len() / out_size);
                if output_first {
                    op(chunk, (staged, false), other);
                } else {
                    op(chunk, other, (staged, false));
                }
            }
            next_row_index(&mut index[..rank - 1], outer);
        }
    }
}

/// The element of an operand read with `strides` where the row at `index` (the outer
/// dimensions' position) starts.
/// Not inlined on bare metal: at each of its call sites the compiler vectorised the sum into
/// about 400 bytes of Cortex-M4 code, where the call costs a few instructions per row (of the
/// paths that stage their rows; [`direct`] takes [`row_starts`]).
#[cfg_attr(target_os = "none", inline(never))]
fn row_start(index: &[usize], strides: &[usize]) -> usize {
    // At most MAX_RANK terms (`take`).
    let mut sum = 0;
    for (i, s) in index.iter().zip(strides).take(MAX_RANK) {
        super::keep_rolled();
        sum += i * s;
    }
    sum
}

/// [`row_start`] of both inputs in one loop, inlined: [`direct`]'s rows, where the calls cost
/// short rows (per-channel broadcasting) measurably more instructions.
#[inline(always)]
fn row_starts(index: &[usize], (a, b): (&[usize], &[usize])) -> (usize, usize) {
    let (mut pa, mut pb) = (0, 0);
    for (i, (sa, sb)) in index.iter().zip(a.iter().zip(b)).take(MAX_RANK) {
        super::keep_rolled();
        (pa, pb) = (pa + i * sa, pb + i * sb);
    }
    (pa, pb)
}

/// The input and output byte slices when neither arena input overlaps the output (the usual case);
/// `None` when one does (in-place operation), which the staged loop handles.
pub(crate) fn disjoint<'x>(
    arena: &'x mut [u8],
    (a, a_len): (Src<'x>, usize),
    (b, b_len): (Src<'x>, usize),
    output: usize,
    out_len: usize,
) -> Option<(&'x [u8], &'x [u8], &'x mut [u8])> {
    let end = output + out_len;
    let outside = |src: &Src, len: usize| match *src {
        Src::Arena(offset) => offset + len <= output || offset >= end,
        Src::Bytes(_) => true,
    };
    if !outside(&a, a_len) || !outside(&b, b_len) {
        return None;
    }
    let (low, rest) = arena.split_at_mut(output);
    let (out, high) = rest.split_at_mut(out_len);
    let (low, high): (&'x [u8], &'x [u8]) = (low, high);
    let view = |src: Src<'x>, len: usize| -> &'x [u8] {
        match src {
            Src::Arena(offset) if offset < output => &low[offset..offset + len],
            Src::Arena(offset) => &high[offset - end..offset - end + len],
            Src::Bytes(bytes) => &bytes[..len],
        }
    };
    Some((view(a, a_len), view(b, b_len), out))
}

/// The broadcast loop on separate input and output slices: no staging. Elements of `size` bytes
/// (the first input's and the output's) and `b_size` (the second input's); `op` computes each row.
#[inline(never)]
fn direct(
    (a, b, out): (&[u8], &[u8], &mut [u8]),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    (size, b_size): (usize, usize),
    op: &RowOp,
) {
    let rank = shape.len();
    let inner = shape[rank - 1];
    let (a_step, b_step) = (a_strides[rank - 1], b_strides[rank - 1]);
    let outer = &shape[..rank - 1];
    let mut index = [0usize; MAX_RANK];
    // A repeated input (step 0) is read as its one element.
    let (a_run, b_run) = (
        if a_step == 0 { 1 } else { inner },
        if b_step == 0 { 1 } else { inner },
    );
    for row in out.chunks_exact_mut(inner * size) {
        let idx = &index[..rank - 1];
        let (a_pos, b_pos) = row_starts(idx, (a_strides, b_strides));
        op(
            row,
            (&a[a_pos * size..(a_pos + a_run) * size], a_step == 0),
            (&b[b_pos * b_size..(b_pos + b_run) * b_size], b_step == 0),
        );
        next_row_index(&mut index[..rank - 1], outer);
    }
}

/// One run of output: `out[i] = f(x[i], y[i])`, an operand marked `true` being one element
/// repeated along the run (read once, so that what depends on it alone is computed once).
#[inline(always)]
fn row_op<T: Elem, U: Elem, O: Elem>(
    out: &mut [u8],
    (xs, x_repeated): (&[u8], bool),
    (ys, y_repeated): (&[u8], bool),
    f: &impl Fn(T, U) -> O,
) {
    match (x_repeated, y_repeated) {
        (false, false) => out
            .chunks_exact_mut(O::SIZE)
            .zip(xs.chunks_exact(T::SIZE))
            .zip(ys.chunks_exact(U::SIZE))
            .for_each(|((o, x), y)| f(T::read(x), U::read(y)).write(o)),
        (false, true) => {
            let y = U::read(ys);
            out.chunks_exact_mut(O::SIZE)
                .zip(xs.chunks_exact(T::SIZE))
                .for_each(|(o, x)| f(T::read(x), y).write(o));
        }
        (true, false) => {
            let x = T::read(xs);
            out.chunks_exact_mut(O::SIZE)
                .zip(ys.chunks_exact(U::SIZE))
                .for_each(|(o, y)| f(x, U::read(y)).write(o));
        }
        (true, true) => {
            // Every element the same: computed once, then copied along the run.
            f(T::read(xs), U::read(ys)).write(&mut out[..O::SIZE]);
            for at in (O::SIZE..out.len()).step_by(O::SIZE) {
                super::keep_rolled();
                out.copy_within(0..O::SIZE, at);
            }
        }
    }
}

/// The broadcast loop through stack buffers, chunk by chunk, when an input overlaps the output
/// otherwise than as the whole of it: each chunk of both inputs is read before the chunk of output
/// is written. Elements of `size` bytes (the first input's and the output's) and `b_size` (the
/// second input's); `op` computes each chunk.
#[inline(never)]
fn staged(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    (size, b_size): (usize, usize),
    op: &RowOp,
) {
    let rank = shape.len();
    let inner = shape[rank - 1];
    let (a_step, b_step) = (a_strides[rank - 1], b_strides[rank - 1]);
    let outer = &shape[..rank - 1];
    let mut index = [0usize; MAX_RANK];
    let mut out_pos = 0;
    // Three buffers of half a stage: a rare path, kept small.
    const HALF: usize = STAGE / 2;
    let (mut xa, mut xb, mut xo) = ([0u8; HALF], [0u8; HALF], [0u8; HALF]);
    let per_chunk = HALF / size.max(b_size);
    loop {
        let idx = &index[..rank - 1];
        let (a_pos, b_pos) = (row_start(idx, a_strides), row_start(idx, b_strides));
        let mut done = 0;
        while done < inner {
            let n = per_chunk.min(inner - done);
            let xs = load_run(arena, a, (a_pos, a_step), done, n, size, &mut xa);
            let ys = load_run(arena, b, (b_pos, b_step), done, n, b_size, &mut xb);
            let out = &mut xo[..n * size];
            op(out, (xs, a_step == 0), (ys, b_step == 0));
            let at = output + (out_pos + done) * size;
            arena[at..at + out.len()].copy_from_slice(out);
            done += n;
        }
        out_pos += inner;
        if !next_row_index(&mut index[..rank - 1], outer) {
            break;
        }
    }
}

/// Copies into `buf` the bytes of elements `done..done + n` of a run starting at element `pos`
/// with element step `step` (0: its one element, which is all it copies; otherwise contiguous),
/// and returns them.
#[inline(always)]
fn load_run<'b>(
    arena: &[u8],
    src: Src,
    (pos, step): (usize, usize),
    done: usize,
    n: usize,
    size: usize,
    buf: &'b mut [u8],
) -> &'b [u8] {
    let (start, count) = if step == 0 {
        (pos, 1)
    } else {
        (pos + done * step, n)
    };
    let (from, len) = (start * size, count * size);
    let bytes = match src {
        Src::Arena(offset) => &arena[offset + from..offset + from + len],
        Src::Bytes(bytes) => &bytes[from..from + len],
    };
    buf[..len].copy_from_slice(bytes);
    &buf[..len]
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;
    use std::vec;
    use std::vec::Vec;

    /// An element function whose operands do not commute, so that an operand order swapped by a
    /// path shows.
    fn f(x: i16, y: i16) -> i16 {
        x.wrapping_mul(3).wrapping_sub(y)
    }

    /// `out[i] = f(a[ia], b[ib])` element by element, the reference of every path.
    fn reference(a: &[i16], b: &[i16], shape: &[usize], strides: (&[usize], &[usize])) -> Vec<i16> {
        let total: usize = shape.iter().product();
        let mut index = vec![0usize; shape.len()];
        let mut out = Vec::new();
        for _ in 0..total {
            let at = |s: &[usize]| index.iter().zip(s).map(|(i, s)| i * s).sum::<usize>();
            out.push(f(a[at(strides.0)], b[at(strides.1)]));
            next_row_index(&mut index, shape);
        }
        out
    }

    fn bytes(values: &[i16]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    fn values(bytes: &[u8]) -> Vec<i16> {
        bytes
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect()
    }

    /// Inputs of `n` elements with distinct values.
    fn input(n: usize, seed: i16) -> Vec<i16> {
        (0..n as i16)
            .map(|i| i.wrapping_mul(7).wrapping_add(seed))
            .collect()
    }

    /// The shapes and strides each path is run on: same shape (one long row, longer than a stage
    /// chunk), a repeated second or first operand, per-channel rows (short rows, many per staged
    /// block, and rows longer than a block), both repeated along the row, and a scalar.
    fn cases() -> Vec<(Vec<usize>, Vec<usize>, Vec<usize>)> {
        vec![
            (vec![300], vec![1], vec![1]),
            (vec![300], vec![1], vec![0]),
            (vec![300], vec![0], vec![1]),
            (vec![50, 4], vec![4, 1], vec![0, 1]),
            (vec![3, 150], vec![150, 1], vec![0, 1]),
            (vec![6, 5], vec![0, 1], vec![5, 1]),
            (vec![4, 7], vec![1, 0], vec![1, 0]),
            (vec![5, 3], vec![3, 1], vec![1, 0]),
            (vec![], vec![], vec![]),
        ]
    }

    fn len(shape: &[usize], strides: &[usize]) -> usize {
        1 + shape
            .iter()
            .zip(strides)
            .map(|(n, s)| (n - 1) * s)
            .sum::<usize>()
    }

    #[test]
    fn every_path_computes_the_reference() {
        for (shape, sa, sb) in cases() {
            let total: usize = shape.iter().product();
            let (a, b) = (input(len(&shape, &sa), 3), input(len(&shape, &sb), -5));
            let want = reference(&a, &b, &shape, (&sa, &sb));
            let shapes = (&shape[..], &sa[..], &sb[..]);
            let what = format!("shape {shape:?}, strides {sa:?} and {sb:?}");

            // Apart: a and b in the arena before the output, and b from flash.
            let mut arena = [bytes(&a), bytes(&b), vec![0; total * 2]].concat();
            let output = (a.len() + b.len()) * 2;
            let srcs = (Src::Arena(0), Src::Arena(a.len() * 2), output);
            binary(&mut arena, srcs, shapes, f);
            assert_eq!(values(&arena[output..]), want, "apart, {what}");
            let b_bytes = bytes(&b);
            let mut arena = [bytes(&a), vec![0; total * 2]].concat();
            let srcs = (Src::Arena(0), Src::Bytes(&b_bytes), a.len() * 2);
            binary(&mut arena, srcs, shapes, f);
            assert_eq!(values(&arena[a.len() * 2..]), want, "b in flash, {what}");

            // In place: the output is a (when a has the output's shape), or b.
            let a_bytes = bytes(&a);
            if a.len() == total && contiguous(&shape, &sa) {
                let mut arena = [bytes(&a), bytes(&b)].concat();
                let srcs = (Src::Arena(0), Src::Arena(a.len() * 2), 0);
                binary(&mut arena, srcs, shapes, f);
                assert_eq!(values(&arena[..total * 2]), want, "in place of a, {what}");
            }
            if b.len() == total && contiguous(&shape, &sb) {
                let mut arena = bytes(&b);
                binary(
                    &mut arena,
                    (Src::Bytes(&a_bytes), Src::Arena(0), 0),
                    shapes,
                    f,
                );
                assert_eq!(values(&arena), want, "in place of b, {what}");
            }

            // The same-shape walk, for inputs of the output's layout: apart, in place of each
            // input, and the output one element before a.
            if a.len() == total
                && b.len() == total
                && contiguous(&shape, &sa)
                && contiguous(&shape, &sb)
            {
                let mut arena = [bytes(&a), bytes(&b), vec![0; total * 2]].concat();
                let srcs = (Src::Arena(0), Src::Arena(total * 2), total * 4);
                binary_flat(&mut arena, srcs, &shape, f);
                assert_eq!(values(&arena[total * 4..]), want, "flat apart, {what}");
                let mut arena = [bytes(&a), bytes(&b)].concat();
                binary_flat(
                    &mut arena,
                    (Src::Arena(0), Src::Arena(total * 2), 0),
                    &shape,
                    f,
                );
                assert_eq!(
                    values(&arena[..total * 2]),
                    want,
                    "flat in place of a, {what}"
                );
                let mut arena = [bytes(&a), bytes(&b)].concat();
                let srcs = (Src::Arena(0), Src::Arena(total * 2), total * 2);
                binary_flat(&mut arena, srcs, &shape, f);
                assert_eq!(
                    values(&arena[total * 2..]),
                    want,
                    "flat in place of b, {what}"
                );
                let mut arena = [bytes(&a), bytes(&a)].concat();
                binary_flat(&mut arena, (Src::Arena(0), Src::Arena(0), 0), &shape, f);
                let same = reference(&a, &a, &shape, (&sa, &sa));
                assert_eq!(
                    values(&arena[..total * 2]),
                    same,
                    "flat a op a in place, {what}"
                );
                let mut arena = [vec![0; 2], bytes(&a)].concat();
                binary_flat(
                    &mut arena,
                    (Src::Arena(2), Src::Bytes(&b_bytes), 0),
                    &shape,
                    f,
                );
                assert_eq!(
                    values(&arena[..total * 2]),
                    want,
                    "flat overlapping, {what}"
                );
            }

            // Overlapping otherwise: the output one element before a (each chunk of input is
            // read before the chunk of output written over it, which is what the staged path
            // promises; an output ahead of its input would overwrite what it has yet to read).
            // Only an input of the output's layout: a repeated one would be overwritten.
            if a.len() == total && contiguous(&shape, &sa) {
                let mut arena = [vec![0; 2], bytes(&a)].concat();
                let srcs = (Src::Arena(2), Src::Bytes(&b_bytes), 0);
                binary(&mut arena, srcs, shapes, f);
                assert_eq!(values(&arena[..total * 2]), want, "overlapping, {what}");
            }
        }
    }
}

//! The broadcasting loop of the binary element-wise kernels.
//!
//! Generation time reduces both inputs to a common, collapsed output shape with per-input element
//! strides (0 along a broadcast dimension); adjacent dimensions that broadcast the same way are
//! merged, so the common cases (same shape; one scalar; per-channel) are one or two dimensions.
//!
//! Code size: the broadcast walk computes its rows through one function per kernel, [`row_op`]
//! (both inputs vary, or one is a repeated element: three loops), called through `&dyn Fn` once
//! per row; the walk itself is not generic, so one copy serves every kernel. The element function
//! is thus inlined three times per kernel, where a path per case inlined it ten times (12 KB of
//! Cortex-M4 code for int8 ADD, against 2 KB for the C kernel). The walk is one path for every
//! placement (inputs apart from the output, in place, overlapping), as the C kernel's: it reads
//! and writes through pointers whose bounds it checks once per call, each element's operands read
//! before it is written, where paths of slices (apart; in place and overlapping, staged through
//! the stack chunk by chunk) took 3.5 KB more of Cortex-M4 code and a copy per chunk. The
//! same-shape entries ([`binary_flat`]) keep slices: one loop, staged only when they overlap.

use super::elem::{next_row_index, Elem, CHUNK};
use super::MAX_RANK;
use crate::kernels::Within;
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
    walk(arena, (a, b, output), (shape, a_strides, b_strides), &f);
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
    walk(arena, (a, b, output), (shape, a_strides, b_strides), &f);
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
    let (sa, sb) = stage.0.cut_mut(match (stage_a, stage_b) {
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
            buf[..k].copy_from_slice(arena.at(offset + start..offset + start + k));
            Src::Bytes(buf.at(..k))
        }
        Src::Arena(offset) => Src::Arena(offset + start),
        Src::Bytes(bytes) => Src::Bytes(bytes.at(start..)),
    }
}

/// Bytes of a stack buffer through which [`flat_runs`] stages a chunk of an input that overlaps
/// the output: [`CHUNK`] elements of four bytes.
const STAGE: usize = CHUNK * 4;

/// A stack buffer of [`STAGE`] bytes, word-aligned.
#[repr(C, align(4))]
struct Stage([u8; STAGE]);

/// A row's computation: [`row_op`] with the kernel's element function, on a [`Run`] of the arena.
type RowOp<'f> = dyn Fn(&mut [u8], Run) + 'f;

/// Where a run's operand is: at a byte offset of the arena, or at a pointer into the input's own
/// bytes (flash), outside the arena.
#[derive(Clone, Copy)]
enum Operand {
    Arena(usize),
    Bytes(*const u8),
}

/// One run of output and the runs of both inputs it is computed from: `rows` rows of `n`
/// elements of output, consecutive from byte `out` of the arena, and per input its first
/// element, whether that one element is repeated along each row (`true`) or a row has `n`
/// consecutive elements, and the bytes from one row's first element to the next's (the
/// second-innermost dimension's stride: 0 where it broadcasts). Only [`walk_rows`] makes one (the
/// fields are private to this module), for the arena it passes with it, and only for runs it has
/// checked lie within that arena or the input's bytes: that is what makes [`row_op`]'s reads and
/// writes sound. The runs may overlap (the output is an input, in place): [`row_op`] reads each
/// element's operands before it writes the element.
#[derive(Clone, Copy)]
struct Run {
    out: usize,
    rows: usize,
    n: usize,
    x: (Operand, bool, usize),
    y: (Operand, bool, usize),
}

/// The loop of [`binary`] and [`binary_mixed`].
#[inline(always)]
fn walk<T: Elem, U: Elem>(
    arena: &mut [u8],
    srcs: (Src, Src, usize),
    shapes: (&[usize], &[usize], &[usize]),
    f: &impl Fn(T, U) -> T,
) {
    walk_rows(arena, srcs, shapes, (T::SIZE, U::SIZE), &|arena, run| {
        row_op(arena, run, f)
    });
}

/// [`walk`]'s rows, with the element types' sizes (`size`: the first input's and the output's;
/// `b_size`: the second input's) and the element function in `op`. Not generic: one copy for
/// every kernel. One path for every placement, as the C kernel: row by row in output order, each
/// element's operands read before it is written, so the output may be an input itself (the
/// plan's in-place operation, with no copy, where staging each chunk through the stack cost a
/// path of its own and a copy per chunk).
#[inline(never)]
fn walk_rows(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    (size, b_size): (usize, usize),
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
    // each input is read at (checked: the bounds below must not wrap).
    let (mut total, mut a_last, mut b_last) = (1usize, 1usize, 1usize);
    for ((&n, &sa), &sb) in shape.iter().zip(a_strides).zip(b_strides) {
        super::keep_rolled();
        if n == 0 {
            return;
        }
        let (ta, tb) = ((n - 1).checked_mul(sa), (n - 1).checked_mul(sb));
        let grown = (total.checked_mul(n), ta.and_then(|t| a_last.checked_add(t)));
        let (Some(t), Some(la), Some(lb)) =
            (grown.0, grown.1, tb.and_then(|t| b_last.checked_add(t)))
        else {
            panic!("broadcast shape too large");
        };
        (total, a_last, b_last) = (t, la, lb);
    }
    // Every byte the walk touches, checked once: the output's `total` elements from `output`, and
    // each input's elements up to `*_last` (row `index` of an input starts at `row_starts`, at
    // most `*_last - 1 - (inner - 1) * step`, and reads `inner` elements, or one when repeated).
    let within = |start: usize, elements: usize, size: usize, len: usize| {
        elements
            .checked_mul(size)
            .and_then(|bytes| start.checked_add(bytes))
            .is_some_and(|end| end <= len)
    };
    let len = arena.len();
    ensure!(
        within(output, total, size, len),
        "broadcast output out of the arena"
    );
    let input = |src: Src, last: usize, size: usize| match src {
        Src::Arena(offset) => {
            ensure!(
                within(offset, last, size, len),
                "broadcast input out of the arena"
            );
            Operand::Arena(offset)
        }
        Src::Bytes(bytes) => {
            ensure!(
                within(0, last, size, bytes.len()),
                "broadcast input too short"
            );
            Operand::Bytes(bytes.as_ptr())
        }
    };
    let (a, b) = (input(a, a_last, size), input(b, b_last, b_size));
    // The operand's first element of a row `pos` elements in.
    let at = |operand: Operand, pos: usize, size: usize| match operand {
        Operand::Arena(offset) => Operand::Arena(offset + pos * size),
        Operand::Bytes(p) => Operand::Bytes(p.wrapping_add(pos * size)),
    };
    // One call of `op` per block of the last two dimensions (rows of a few elements, as a
    // per-channel operand's, would otherwise pay a call and a row start each).
    let inner = shape[rank - 1];
    let (a_repeated, b_repeated) = (a_strides[rank - 1] == 0, b_strides[rank - 1] == 0);
    let blocked = rank - rank.min(2);
    let (rows, a_step, b_step) = if rank >= 2 {
        (shape[rank - 2], a_strides[rank - 2], b_strides[rank - 2])
    } else {
        (1, 0, 0)
    };
    let outer = shape.at(..blocked);
    let mut index = [0usize; MAX_RANK];
    let mut out_pos = 0;
    loop {
        let (a_pos, b_pos) = row_starts(index.at(..blocked), (a_strides, b_strides));
        let run = Run {
            out: output + out_pos * size,
            rows,
            n: inner,
            x: (at(a, a_pos, size), a_repeated, a_step.wrapping_mul(size)),
            y: (
                at(b, b_pos, b_size),
                b_repeated,
                b_step.wrapping_mul(b_size),
            ),
        };
        op(arena, run);
        out_pos += rows * inner;
        if !next_row_index(index.at_mut(..blocked), outer) {
            break;
        }
    }
}

/// Both inputs' first elements of the row at `index` (the outer dimensions' position), in one
/// loop, inlined.
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
    let (low, rest) = arena.cut_mut(output);
    let (out, high) = rest.cut_mut(out_len);
    let (low, high): (&'x [u8], &'x [u8]) = (low, high);
    let view = |src: Src<'x>, len: usize| -> &'x [u8] {
        match src {
            Src::Arena(offset) if offset < output => low.at(offset..offset + len),
            Src::Arena(offset) => high.at(offset - end..offset - end + len),
            Src::Bytes(bytes) => bytes.at(..len),
        }
    };
    Some((view(a, a_len), view(b, b_len), out))
}

/// One run of output, row by row: `out[i] = f(x[i], y[i])`, an operand marked repeated being one
/// element per row, read once (so that what depends on it alone is computed once). Element `i`'s
/// operands are read before it is written, and no later element's: an operand run may be the
/// output run itself.
#[inline(always)]
fn row_op<T: Elem, U: Elem, O: Elem>(arena: &mut [u8], run: Run, f: &impl Fn(T, U) -> O) {
    let Run { out, rows, n, x, y } = run;
    // Every pointer into the arena derives from `arena`, a `&mut` that no other pointer reaches
    // while this runs: so the compiler knows the stores leave the kernel's parameters alone, and
    // keeps what it loaded from them in registers along the run.
    let base = arena.as_mut_ptr();
    let operand = |o: Operand| match o {
        Operand::Arena(offset) => base.wrapping_add(offset).cast_const(),
        Operand::Bytes(p) => p,
    };
    let (mut xp, mut yp, mut out) = (operand(x.0), operand(y.0), base.wrapping_add(out));
    for _ in 0..rows {
        // SAFETY: a `Run` is made by `walk_rows` alone, with this arena, for runs it checked lie
        // within the arena or the input's bytes (`within`: every row of the block is a row of
        // the walk): `n` elements at `out` and at each operand not repeated, one at a repeated
        // operand, for each of the `rows` rows.
        unsafe {
            match (x.1, y.1) {
                (false, false) => {
                    for i in 0..n {
                        let v = f(T::read_at(xp, i), U::read_at(yp, i));
                        v.write_at(out, i);
                    }
                }
                (false, true) => {
                    let yv = U::read_at(yp, 0);
                    for i in 0..n {
                        f(T::read_at(xp, i), yv).write_at(out, i);
                    }
                }
                (true, false) => {
                    let xv = T::read_at(xp, 0);
                    for i in 0..n {
                        f(xv, U::read_at(yp, i)).write_at(out, i);
                    }
                }
                (true, true) => {
                    // Every element the same: computed once, then stored along the row.
                    let v = f(T::read_at(xp, 0), U::read_at(yp, 0));
                    for i in 0..n {
                        super::keep_rolled();
                        v.write_at(out, i);
                    }
                }
            }
        }
        (xp, yp) = (xp.wrapping_add(x.2), yp.wrapping_add(y.2));
        out = out.wrapping_add(n * O::SIZE);
    }
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
    /// block, and rows longer than a block), both repeated along the row, blocks of the last two
    /// dimensions under an outer one (an operand broadcast along rows or along the block), and a
    /// scalar.
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
            (vec![3, 4, 2], vec![8, 2, 1], vec![0, 1, 0]),
            (vec![2, 3, 4], vec![0, 4, 1], vec![12, 4, 1]),
            (vec![2, 1, 3, 5], vec![15, 7, 5, 1], vec![0, 0, 0, 1]),
            (vec![], vec![], vec![]),
        ]
    }

    /// Whether `strides` (in elements) lay `shape` out contiguously, row-major (dimensions of one
    /// element may have any stride).
    fn contiguous(shape: &[usize], strides: &[usize]) -> bool {
        let mut expected = 1;
        for (&n, &stride) in shape.iter().zip(strides).rev() {
            if n != 1 && stride != expected {
                return false;
            }
            expected *= n;
        }
        true
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

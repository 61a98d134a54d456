//! The broadcasting loop of the binary element-wise kernels.
//!
//! Generation time reduces both inputs to a common, collapsed output shape with per-input element
//! strides (0 along a broadcast dimension); adjacent dimensions that broadcast the same way are
//! merged, so the common cases (same shape; one scalar; per-channel) are one or two dimensions.

use super::elem::{load, next_index, store, Elem, CHUNK};
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
        Some(&f),
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
    // No function for the second input as the output: an input of another type is never it.
    walk(
        arena,
        (a, b, output),
        (shape, a_strides, b_strides),
        &f,
        None::<&fn(T, U) -> U>,
    );
}

/// The loop of [`binary`] and [`binary_mixed`]. `f_b` is `f` again when both inputs have the
/// output's type (`U` is `T`), for the rows when the second input is the output itself; `None`
/// otherwise, as only a second input of the output's type can be it. (A function, not a closure
/// that runs those rows: the closure was not inlined, and cost Cortex-M4 code 1.8 KB a kernel.)
#[inline(always)]
fn walk<T: Elem, U: Elem>(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    f: &impl Fn(T, U) -> T,
    f_b: Option<&impl Fn(T, U) -> U>,
) {
    let rank = shape.len();
    assert!(rank <= MAX_RANK && a_strides.len() == rank && b_strides.len() == rank);
    if rank == 0 {
        let (mut x, mut y) = ([T::default()], [U::default()]);
        load(arena, a, 0, &mut x);
        load(arena, b, 0, &mut y);
        store(arena, output, 0, &[f(x[0], y[0])]);
        return;
    }
    if shape.contains(&0) {
        return;
    }
    let total: usize = shape.iter().product();
    let in_len = |strides: &[usize]| {
        // One past the last element the input is read at.
        1 + shape
            .iter()
            .zip(strides)
            .map(|(n, s)| (n - 1) * s)
            .sum::<usize>()
    };
    let (a_len, b_len) = (in_len(a_strides) * T::SIZE, in_len(b_strides) * U::SIZE);
    if let Some((xa, xb, out)) = disjoint(arena, (a, a_len), (b, b_len), output, total * T::SIZE) {
        direct(xa, xb, out, shape, a_strides, b_strides, f);
    } else if !in_place(
        arena,
        (a, b, output),
        (shape, a_strides, b_strides),
        (a_len, b_len),
        f,
        f_b,
    ) {
        staged(arena, (a, b, output), (shape, a_strides, b_strides), f);
    }
}

/// The loop when one input is the output itself (its offset and the output's shape: the plan's
/// in-place operation) and the other lies apart from it: each output element is read, then
/// written, with no staging (which cost an in-place MAXIMUM on Cortex-M4 2.7 times the
/// instructions of the same call apart). Returns false, having done nothing, otherwise.
#[inline(always)]
fn in_place<T: Elem, U: Elem>(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    (a_len, b_len): (usize, usize),
    f: &impl Fn(T, U) -> T,
    f_b: Option<&impl Fn(T, U) -> U>,
) -> bool {
    let out_len = shape.iter().product::<usize>() * T::SIZE;
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
        rows_in_place(out, y, shape, b_strides, f);
    } else if let (Some(f_b), true) = (f_b, is_output(b, b_strides, b_len)) {
        let Some((x, _, out)) = disjoint(arena, (a, a_len), nothing, output, out_len) else {
            return false;
        };
        rows_in_place(out, x, shape, a_strides, |o, x| f_b(x, o));
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
        if n != 1 && stride != expected {
            return false;
        }
        expected *= n;
    }
    true
}

/// [`direct`] with the output as one operand: `out[i] = g(out[i], other[...])`, `other` read with
/// `strides` as [`direct`] reads an input.
#[inline(always)]
fn rows_in_place<T: Elem, U: Elem>(
    out: &mut [u8],
    other: &[u8],
    shape: &[usize],
    strides: &[usize],
    g: impl Fn(T, U) -> T,
) {
    let rank = shape.len();
    let inner = shape[rank - 1];
    let step = strides[rank - 1];
    let outer = &shape[..rank - 1];
    let mut index = [0usize; MAX_RANK];
    let (size, other_size) = (T::SIZE, U::SIZE);
    for row in out.chunks_exact_mut(inner * size) {
        let pos: usize = index[..rank - 1]
            .iter()
            .zip(strides)
            .map(|(i, s)| i * s)
            .sum();
        let cells = row.chunks_exact_mut(size);
        if step == 0 {
            let y = U::read(&other[pos * other_size..]);
            cells.for_each(|o| g(T::read(o), y).write(o));
        } else {
            let ys = other[pos * other_size..(pos + inner) * other_size].chunks_exact(other_size);
            cells
                .zip(ys)
                .for_each(|(o, y)| g(T::read(o), U::read(y)).write(o));
        }
        next_index(&mut index[..rank - 1], outer);
    }
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

/// The broadcast loop on separate input and output slices: no staging.
#[inline(always)]
fn direct<T: Elem, U: Elem>(
    a: &[u8],
    b: &[u8],
    out: &mut [u8],
    shape: &[usize],
    a_strides: &[usize],
    b_strides: &[usize],
    f: impl Fn(T, U) -> T,
) {
    let rank = shape.len();
    let inner = shape[rank - 1];
    let (a_step, b_step) = (a_strides[rank - 1], b_strides[rank - 1]);
    let outer = &shape[..rank - 1];
    let mut index = [0usize; MAX_RANK];
    let (size, b_size) = (T::SIZE, U::SIZE);
    for row in out.chunks_exact_mut(inner * size) {
        let idx = &index[..rank - 1];
        let a_pos: usize = idx.iter().zip(a_strides).map(|(i, s)| i * s).sum();
        let b_pos: usize = idx.iter().zip(b_strides).map(|(i, s)| i * s).sum();
        let rows = row.chunks_exact_mut(size);
        match (a_step, b_step) {
            (0, 0) => {
                let v = f(T::read(&a[a_pos * size..]), U::read(&b[b_pos * b_size..]));
                rows.for_each(|o| v.write(o));
            }
            (0, _) => {
                let x = T::read(&a[a_pos * size..]);
                let ys = b[b_pos * b_size..(b_pos + inner) * b_size].chunks_exact(b_size);
                rows.zip(ys).for_each(|(o, y)| f(x, U::read(y)).write(o));
            }
            (_, 0) => {
                let y = U::read(&b[b_pos * b_size..]);
                let xs = a[a_pos * size..(a_pos + inner) * size].chunks_exact(size);
                rows.zip(xs).for_each(|(o, x)| f(T::read(x), y).write(o));
            }
            _ => {
                let xs = a[a_pos * size..(a_pos + inner) * size].chunks_exact(size);
                let ys = b[b_pos * b_size..(b_pos + inner) * b_size].chunks_exact(b_size);
                rows.zip(xs)
                    .zip(ys)
                    .for_each(|((o, x), y)| f(T::read(x), U::read(y)).write(o));
            }
        }
        next_index(&mut index[..rank - 1], outer);
    }
}

/// The broadcast loop through stack buffers, chunk by chunk: correct when the output is an input.
#[inline(always)]
fn staged<T: Elem, U: Elem>(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    (shape, a_strides, b_strides): (&[usize], &[usize], &[usize]),
    f: impl Fn(T, U) -> T,
) {
    let rank = shape.len();
    let inner = shape[rank - 1];
    let (a_step, b_step) = (a_strides[rank - 1], b_strides[rank - 1]);
    let outer = &shape[..rank - 1];
    let mut index = [0usize; MAX_RANK];
    let mut out_pos = 0;
    let mut xa = [T::default(); CHUNK];
    let mut xb = [U::default(); CHUNK];
    let mut xo = [T::default(); CHUNK];
    loop {
        let idx = &index[..rank - 1];
        let a_pos: usize = idx.iter().zip(a_strides).map(|(i, s)| i * s).sum();
        let b_pos: usize = idx.iter().zip(b_strides).map(|(i, s)| i * s).sum();
        let mut done = 0;
        while done < inner {
            let n = CHUNK.min(inner - done);
            load_run(arena, a, a_pos, a_step, done, &mut xa[..n]);
            load_run(arena, b, b_pos, b_step, done, &mut xb[..n]);
            for ((o, &x), &y) in xo[..n].iter_mut().zip(&xa[..n]).zip(&xb[..n]) {
                *o = f(x, y);
            }
            store(arena, output, out_pos + done, &xo[..n]);
            done += n;
        }
        out_pos += inner;
        if !next_index(&mut index[..rank - 1], outer) {
            break;
        }
    }
}

/// Loads elements `done..done + dst.len()` of a run starting at `pos` with element step `step`
/// (0: one value repeated; otherwise contiguous).
#[inline(always)]
fn load_run<T: Elem>(arena: &[u8], src: Src, pos: usize, step: usize, done: usize, dst: &mut [T]) {
    if step == 0 {
        let mut one = [T::default()];
        load(arena, src, pos, &mut one);
        dst.fill(one[0]);
    } else {
        load(arena, src, pos + done * step, dst);
    }
}

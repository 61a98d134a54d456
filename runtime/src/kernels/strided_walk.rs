//! Strided walks: the output in C order, each element read from
//! `input[base + Σ index[d] * steps[d]]` (in elements, steps possibly negative). TRANSPOSE and
//! STRIDED_SLICE are both this loop with different constants.

use super::nn_common::views;
use super::MAX_RANK;
use crate::kernels::Within;

/// Copies the strided selection of the `in_len`-byte input at `input` to `output`, element size
/// `elem` bytes. Input and output must not overlap.
#[allow(clippy::too_many_arguments)]
pub(crate) fn strided_walk(
    arena: &mut [u8],
    input: usize,
    in_len: usize,
    output: usize,
    elem: usize,
    base: usize,
    counts: &[usize],
    steps: &[i32],
) {
    let rank = counts.len();
    assert!(rank <= MAX_RANK && steps.len() == rank && elem > 0);
    let total: usize = crate::kernels::elements(counts);
    let (src, dst) = views::split(arena, input, in_len, output, total * elem);
    if total == 0 {
        return;
    }
    if rank == 0 {
        dst.copy_from_slice(src.at(base * elem..base * elem + elem));
        return;
    }
    let inner = counts[rank - 1];
    let step = steps[rank - 1] as isize;
    let run = inner * elem;
    // The last two dimensions as a plain nested loop (rows of `inner` elements, `mid` of them
    // `mid_step` apart), and an odometer over the others that keeps the group's first element up
    // to date as the index steps rather than recomputing a sum of products: DEPTH_TO_SPACE and
    // the other block permutations have many short rows, where that bookkeeping cost more than
    // the copy.
    let (mid, mid_step) = if rank >= 2 {
        (counts[rank - 2], steps[rank - 2] as isize)
    } else {
        (1, 0)
    };
    let outer = counts.at(..rank.saturating_sub(2));
    let mut index = [0usize; MAX_RANK];
    let mut start = base as isize;
    for group in dst.chunks_exact_mut(run * mid) {
        let mut row_start = start;
        for out_row in group.chunks_exact_mut(run) {
            copy_run(src, row_start, step, elem, out_row);
            row_start += mid_step;
        }
        let mut d = outer.len();
        while d > 0 {
            d -= 1;
            let s = steps[d] as isize;
            index[d] += 1;
            start += s;
            if index[d] < outer[d] {
                break;
            }
            index[d] = 0;
            start -= outer[d] as isize * s;
        }
    }
}

/// Contiguous rows shorter than this many bytes are copied a word at a time here: a `memcpy`
/// call costs more.
const SHORT_RUN: usize = 64;

/// Fills `out` with elements `start, start + step, …` of `src` (in elements of `elem` bytes).
#[inline(always)]
fn copy_run(src: &[u8], start: isize, step: isize, elem: usize, out: &mut [u8]) {
    let start = start as usize;
    if step == 1 {
        let from = src.at(start * elem..start * elem + out.len());
        if out.len() >= SHORT_RUN {
            out.copy_from_slice(from);
        } else if out.len() < 4 {
            for (o, &b) in out.iter_mut().zip(from) {
                *o = b;
            }
        } else {
            // Fixed-size four-byte copies (one load and one store each), then the odd bytes.
            let mut to = out.chunks_exact_mut(4);
            let mut words = from.chunks_exact(4);
            for (o, w) in (&mut to).zip(&mut words) {
                o.copy_from_slice(w);
            }
            for (o, &b) in to.into_remainder().iter_mut().zip(words.remainder()) {
                *o = b;
            }
        }
    } else if elem == 1 {
        let mut pos = start as isize;
        for o in out.iter_mut() {
            *o = src[pos as usize];
            pos += step;
        }
    } else if elem == 4 {
        copy_elems::<4>(src, start, step, out);
    } else {
        copy_other(src, start, step, elem, out);
    }
}

/// [`copy_run`]'s strided rows of other element sizes (int16 and the rarer 8-byte ones), out of
/// line on bare metal: inlined in the walk, they cost more code than their rows' calls cost time.
#[cfg_attr(target_os = "none", inline(never))]
fn copy_other(src: &[u8], start: usize, step: isize, elem: usize, out: &mut [u8]) {
    if elem == 2 {
        copy_elems::<2>(src, start, step, out);
    } else {
        let mut pos = start as isize;
        for o in out.chunks_exact_mut(elem) {
            let p = pos as usize * elem;
            o.copy_from_slice(src.at(p..p + elem));
            pos += step;
        }
    }
}

/// [`copy_run`] for `E`-byte elements: a fixed-size copy each (one load and one store), not a
/// `memcpy` call of a run-time length.
#[inline(always)]
fn copy_elems<const E: usize>(src: &[u8], start: usize, step: isize, out: &mut [u8]) {
    let mut pos = start as isize;
    for o in out.chunks_exact_mut(E) {
        let p = pos as usize * E;
        let mut e = [0u8; E];
        e.copy_from_slice(src.at(p..p + E));
        o.copy_from_slice(&e);
        pos += step;
    }
}

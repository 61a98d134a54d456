//! Strided walks: the output in C order, each element read from
//! `input[base + Σ index[d] * steps[d]]` (in elements, steps possibly negative). TRANSPOSE and
//! STRIDED_SLICE are both this loop with different constants.

use super::elem::next_index;
use super::nn_common::views;
use super::MAX_RANK;

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
    let total: usize = counts.iter().product();
    let (src, dst) = views::split(arena, input, in_len, output, total * elem);
    if total == 0 {
        return;
    }
    if rank == 0 {
        dst.copy_from_slice(&src[base * elem..base * elem + elem]);
        return;
    }
    let inner = counts[rank - 1];
    let step = steps[rank - 1] as isize;
    let outer = &counts[..rank - 1];
    let mut index = [0usize; MAX_RANK];
    let run = inner * elem;
    for out_row in dst.chunks_exact_mut(run) {
        let start = base as isize + row_offset(&index[..rank - 1], steps);
        copy_run(src, start, step, elem, out_row);
        next_index(&mut index[..rank - 1], outer);
    }
}

/// `Σ index[d] * steps[d]`: where a row starts, from the walk's base. Not inlined on bare metal:
/// the compiler vectorised the sum into 600 bytes of Cortex-M4 code, where the call costs a few
/// instructions per row.
#[cfg_attr(target_os = "none", inline(never))]
fn row_offset(index: &[usize], steps: &[i32]) -> isize {
    index
        .iter()
        .zip(steps)
        .take(MAX_RANK)
        .map(|(&i, &s)| i as isize * s as isize)
        .sum()
}

/// Fills `out` with elements `start, start + step, …` of `src` (in elements of `elem` bytes).
#[inline(always)]
fn copy_run(src: &[u8], start: isize, step: isize, elem: usize, out: &mut [u8]) {
    let start = start as usize;
    if step == 1 {
        out.copy_from_slice(&src[start * elem..start * elem + out.len()]);
    } else if elem == 1 {
        let mut pos = start as isize;
        for o in out.iter_mut() {
            *o = src[pos as usize];
            pos += step;
        }
    } else {
        let mut pos = start as isize;
        for o in out.chunks_exact_mut(elem) {
            let p = pos as usize * elem;
            o.copy_from_slice(&src[p..p + elem]);
            pos += step;
        }
    }
}

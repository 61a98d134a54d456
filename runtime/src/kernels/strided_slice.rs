//! STRIDED_SLICE and SLICE (any element type). Begin/end/strides and all masks (SLICE: begin and
//! size) are resolved at generation time into a first element and one signed element step per
//! output dimension (so is REVERSE_V2 with constant axes); REVERSE_V2 with axes computed at run
//! time.

use super::elem::load;
use super::nn_common::views;
use super::strided_walk::strided_walk;
use super::MAX_RANK;
use crate::Src;

/// Constants of a strided slice, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct StridedSlice<'a> {
    /// Bytes per element.
    pub elem_bytes: usize,
    /// Input size in bytes.
    pub input_bytes: usize,
    /// Input element index of the first output element.
    pub start: usize,
    /// Elements taken along each kept dimension (shrunk dimensions removed).
    pub counts: &'a [usize],
    /// Input element step along each kept dimension (negative for negative strides).
    pub steps: &'a [i32],
}

/// Copies the slice of the tensor at `input` into `output`.
///
/// Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn strided_slice(arena: &mut [u8], input: usize, output: usize, p: &StridedSlice) {
    let p = super::opaque(p);
    strided_walk(
        arena,
        input,
        p.input_bytes,
        output,
        p.elem_bytes,
        p.start,
        p.counts,
        p.steps,
    );
}

/// Constants of REVERSE_V2 whose axes are computed at run time: TFLM's `ReverseV2Prepare` checks
/// only the axis tensor's type, rank and element count, and `ReverseV2Eval` reads its values per
/// call, so they are read per call here.
#[derive(Clone, Copy, Debug)]
pub struct ReverseDyn<'a> {
    /// Bytes per element.
    pub elem_bytes: usize,
    /// Input (and output) shape.
    pub shape: &'a [usize],
    /// Elements of the INT32 axis tensor: 1 to the rank.
    pub num_axes: usize,
}

/// REVERSE_V2 with axes computed at run time, as TFLM's `ReverseV2Eval` and reference `Reverse`:
/// each axis taken as `axis + rank` if negative; the sorted axes must be in `0..rank` and
/// contiguous (a repeated axis is not), and the block of dimensions from the first to the last is
/// reversed as one, runs of the dimensions after it copied whole. Where TFLM's Eval fails (an
/// axis out of range: `TF_LITE_ENSURE`; non-contiguous axes: "Non-contiguous `axes` not
/// supported"), its invoke returns an error with the output unwritten, nothing a model can rely
/// on: this kernel writes zeros to the whole output then. The input may be a constant (read where
/// it is); the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn reverse_dyn(arena: &mut [u8], input: Src, axes: Src, output: usize, p: &ReverseDyn) {
    let p = super::opaque(p);
    let rank = p.shape.len();
    let n = p.num_axes;
    assert!(rank <= MAX_RANK && (1..=rank).contains(&n) && p.elem_bytes > 0);
    let mut raw = [0i32; MAX_RANK];
    load(arena, axes, 0, &mut raw[..n]);
    // In i64: `axis + rank` cannot overflow for any int32 (TFLM's int sum cannot either, the
    // rank being at most 6 and the axis negative).
    let mut sorted = [0i64; MAX_RANK];
    for (s, &a) in sorted.iter_mut().zip(&raw[..n]) {
        *s = if a < 0 {
            i64::from(a) + rank as i64
        } else {
            i64::from(a)
        };
    }
    let sorted = &mut sorted[..n];
    sorted.sort_unstable();
    let valid = sorted.iter().all(|a| (0..rank as i64).contains(a))
        && sorted.windows(2).all(|w| w[0] + 1 == w[1]);
    let total = p.shape.iter().product::<usize>() * p.elem_bytes;
    let (src, dst) = match input {
        Src::Arena(offset) => views::split(arena, offset, total, output, total),
        Src::Bytes(bytes) => (&bytes[..total], &mut arena[output..output + total]),
    };
    if !valid {
        dst.fill(0);
        return;
    }
    if total == 0 {
        return;
    }
    let (first, last) = (sorted[0] as usize, sorted[n - 1] as usize);
    let outer: usize = p.shape[..first].iter().product();
    let middle: usize = p.shape[first..=last].iter().product();
    let run = p.shape[last + 1..].iter().product::<usize>() * p.elem_bytes;
    let block = middle * run;
    for o in 0..outer {
        let (s, d) = (&src[o * block..][..block], &mut dst[o * block..][..block]);
        for (j, from) in s.chunks_exact(run).enumerate() {
            let at = (middle - 1 - j) * run;
            d[at..at + run].copy_from_slice(from);
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    #[test]
    fn reverses_and_strides() {
        // input 2x4: [[0,1,2,3],[4,5,6,7]]; slice [1::-1, 3:0:-2] -> [[7,5],[3,1]]
        let mut arena = [0u8, 1, 2, 3, 4, 5, 6, 7, 9, 9, 9, 9];
        let p = StridedSlice {
            elem_bytes: 1,
            input_bytes: 8,
            start: 7,
            counts: &[2, 2],
            steps: &[-4, -2],
        };
        strided_slice(&mut arena, 0, 8, &p);
        assert_eq!(&arena[8..], &[7, 5, 3, 1]);
    }

    /// Every axis set of a rank-3 input against the constant walk's order, negative axes, and
    /// the zeros written where TFLM's Eval fails (out of range, repeated, non-contiguous), the
    /// input in the arena or constant, elements of two bytes.
    #[test]
    fn reverse_dyn_like_tflm() {
        // 2x3x2 int16 elements 0..12.
        let shape: &[usize] = &[2, 3, 2];
        let input: std::vec::Vec<u8> = (0..12i16).flat_map(|v| v.to_le_bytes()).collect();
        let reversed = |axes: &[usize]| -> std::vec::Vec<u8> {
            let mut out = std::vec![0u8; 24];
            for i in 0..2 {
                for j in 0..3 {
                    for k in 0..2 {
                        let (a, b, c) = (
                            if axes.contains(&0) { 1 - i } else { i },
                            if axes.contains(&1) { 2 - j } else { j },
                            if axes.contains(&2) { 1 - k } else { k },
                        );
                        let (from, to) = ((a * 6 + b * 2 + c) * 2, (i * 6 + j * 2 + k) * 2);
                        out[to..to + 2].copy_from_slice(&input[from..from + 2]);
                    }
                }
            }
            out
        };
        let cases: &[(&[i32], Option<&[usize]>)] = &[
            (&[0], Some(&[0])),
            (&[1], Some(&[1])),
            (&[-1], Some(&[2])),
            (&[2, 1], Some(&[1, 2])),
            (&[-3, 1], Some(&[0, 1])),
            (&[1, -1, 0], Some(&[0, 1, 2])),
            (&[0, 2], None),
            (&[1, 1], None),
            (&[3], None),
            (&[-4], None),
            (&[i32::MIN, 0], None),
            (&[i32::MAX], None),
        ];
        for &(axes, want) in cases {
            let p = ReverseDyn {
                elem_bytes: 2,
                shape,
                num_axes: axes.len(),
            };
            let want = want.map_or(std::vec![0u8; 24], &reversed);
            let axis_bytes: std::vec::Vec<u8> = axes.iter().flat_map(|a| a.to_le_bytes()).collect();
            let mut arena = std::vec![0x5au8; 24 + 12 + 24];
            arena[..24].copy_from_slice(&input);
            arena[24..24 + axis_bytes.len()].copy_from_slice(&axis_bytes);
            reverse_dyn(&mut arena, Src::Arena(0), Src::Arena(24), 36, &p);
            assert_eq!(&arena[36..], &want[..], "axes {axes:?}");
            let mut arena = std::vec![0x5au8; 24];
            reverse_dyn(
                &mut arena,
                Src::Bytes(&input),
                Src::Bytes(&axis_bytes),
                0,
                &p,
            );
            assert_eq!(&arena[..], &want[..], "axes {axes:?}, constant input");
        }
        // An empty input writes nothing, whatever the axes.
        let p = ReverseDyn {
            elem_bytes: 1,
            shape: &[2, 0],
            num_axes: 1,
        };
        let mut arena = [7u8; 4];
        reverse_dyn(&mut arena, Src::Bytes(&[]), Src::Arena(0), 4, &p);
        assert_eq!(arena, [7; 4]);
    }
}

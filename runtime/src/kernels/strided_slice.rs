//! STRIDED_SLICE and SLICE (any element type). Begin/end/strides and all masks (SLICE: begin and
//! size) are resolved at generation time into a first element and one signed element step per
//! output dimension (so is REVERSE_V2 with constant axes); REVERSE_V2 with axes computed at run
//! time, and SLICE with begin or size computed at run time, read per call.

use super::elem::{load, next_index};
use super::nn_common::views;
use super::strided_walk::strided_walk;
use super::MAX_RANK;
use crate::kernels::Within;
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
    load(arena, axes, 0, raw.at_mut(..n));
    // Every axis in range, then sorted and contiguous.
    let mut sorted = [0usize; MAX_RANK];
    let mut valid = true;
    for (s, &a) in sorted.iter_mut().zip(raw.at(..n)) {
        match super::run_time_axis(a, rank) {
            Some(a) => *s = a,
            None => valid = false,
        }
    }
    let sorted = sorted.at_mut(..n);
    sorted.sort_unstable();
    let valid = valid && sorted.windows(2).all(|w| w[0] + 1 == w[1]);
    let total = p.shape.iter().product::<usize>() * p.elem_bytes;
    let (src, dst) = views::split_src(arena, input, total, output, total);
    if !valid {
        dst.fill(0);
        return;
    }
    if total == 0 {
        return;
    }
    let (first, last) = (sorted[0], sorted[n - 1]);
    let outer: usize = crate::kernels::elements(p.shape.at(..first));
    let middle: usize = crate::kernels::elements(p.shape.at(first..=last));
    let run = p.shape[last + 1..].iter().product::<usize>() * p.elem_bytes;
    let block = middle * run;
    for o in 0..outer {
        let (s, d) = (
            src.at(o * block..).at(..block),
            dst.at_mut(o * block..).at_mut(..block),
        );
        for (j, from) in s.chunks_exact(run).enumerate() {
            let at = (middle - 1 - j) * run;
            d[at..at + run].copy_from_slice(from);
        }
    }
}

/// Constants of a SLICE whose begin or size is computed at run time: TFLM's `SlicePrepare` checks
/// them only by `TFLITE_DCHECK` and `SliceEval` reads their values per call, so they are read per
/// call here; the output's shape is the model's whatever they are (TFLM resizes nothing).
#[derive(Clone, Copy, Debug)]
pub struct SliceDyn<'a> {
    /// Bytes per element.
    pub elem_bytes: usize,
    /// Input shape (at most 5 dimensions; begin and size hold at least as many values).
    pub shape: &'a [usize],
    /// Elements of the output.
    pub output_len: usize,
    /// Begin and size are INT64; otherwise INT32.
    pub int64: bool,
}

/// Value `i` of the INT32 or (`int64`) INT64 tensor `t`, narrowed to int32 as TFLM's
/// `GetBeginAndSizeVectors` stores an INT64 one into `SliceParams`' `int32_t` (its low 32 bits,
/// the conversion GCC and Clang define).
#[inline(always)]
fn narrowed(arena: &[u8], t: Src, i: usize, int64: bool) -> i64 {
    if int64 {
        let mut v = [0i64];
        load(arena, t, i, &mut v);
        i64::from(v[0] as i32)
    } else {
        let mut v = [0i32];
        load(arena, t, i, &mut v);
        i64::from(v[0])
    }
}

/// SLICE with begin and size read per call, as TFLM's `SliceEval` and reference `Slice`: along
/// each dimension `d` the indices from `begin[d]` to `begin[d] + size[d]` (a size of -1: to the
/// end), taken in C order and written to the output one after another.
///
/// Where TFLM is undefined the output is zeros: a range outside its dimension (reference `Slice`
/// loops unclamped, checked only by `TFLITE_DCHECK`: read out of bounds) or a negative count, and
/// a slice of more elements than the output holds (written past its end). A slice of fewer (none
/// included) leaves TFLM's output past them unwritten, nothing a model can rely on: zeros here.
/// The 64-bit sums cannot overflow where TFLM's int `begin + size` can (undefined, and then
/// outside the dimension: zeros). The input may be a constant (read where it is); the output must
/// not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn slice_dyn(arena: &mut [u8], input: Src, begin: Src, size: Src, output: usize, p: &SliceDyn) {
    let p = super::opaque(p);
    let rank = p.shape.len();
    assert!(rank <= MAX_RANK && p.elem_bytes > 0);
    let elem = p.elem_bytes;
    let mut start = [0usize; MAX_RANK];
    let mut count = [0usize; MAX_RANK];
    let mut valid = true;
    for d in 0..rank {
        let b = narrowed(arena, begin, d, p.int64);
        let s = narrowed(arena, size, d, p.int64);
        let dim = p.shape[d] as i64;
        let c = if s == -1 { dim - b } else { s };
        if b < 0 || c < 0 || b + c > dim {
            valid = false;
            break;
        }
        (start[d], count[d]) = (b as usize, c as usize);
    }
    let mut strides = [0usize; MAX_RANK];
    let mut in_elems = 1;
    for d in (0..rank).rev() {
        strides[d] = in_elems;
        in_elems *= p.shape[d];
    }
    let out_bytes = p.output_len * elem;
    let (src, dst) = views::split_src(arena, input, in_elems * elem, output, out_bytes);
    let taken: usize = crate::kernels::elements(count.at(..rank));
    if !valid || taken > p.output_len {
        dst.fill(0);
        return;
    }
    let (head, rest) = dst.cut_mut(taken * elem);
    rest.fill(0);
    if taken == 0 {
        return;
    }
    if rank == 0 {
        head.copy_from_slice(src.at(..elem));
        return;
    }
    let last = rank - 1;
    let run = count[last] * elem;
    let mut index = [0usize; MAX_RANK];
    for row in head.chunks_exact_mut(run) {
        let mut at = start[last];
        for d in 0..last {
            at += (start[d] + index[d]) * strides[d];
        }
        row.copy_from_slice(src.at(at * elem..at * elem + run));
        next_index(index.at_mut(..last), count.at(..last));
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

    /// SLICE with begin and size read per call: in-range slices (INT32 and INT64, a size of -1,
    /// an INT64 value narrowed to its low 32 bits) as a plain gather computes them; zeros where
    /// TFLM is undefined (a range outside a dimension, a negative count, int32 extremes, more
    /// elements than the output holds) and after fewer elements than it holds; the input in the
    /// arena or constant.
    #[test]
    fn slice_dyn_like_tflm() {
        // A [2, 3, 4] int16 input of elements 0..24, an output of 6 elements.
        let shape: &[usize] = &[2, 3, 4];
        let input: std::vec::Vec<u8> = (0..24i16).flat_map(|v| v.to_le_bytes()).collect();
        let gather = |begin: [usize; 3], count: [usize; 3]| -> std::vec::Vec<u8> {
            let mut out = std::vec::Vec::new();
            for i in 0..count[0] {
                for j in 0..count[1] {
                    for k in 0..count[2] {
                        let at = ((begin[0] + i) * 12 + (begin[1] + j) * 4 + begin[2] + k) * 2;
                        out.extend_from_slice(&input[at..at + 2]);
                    }
                }
            }
            out.resize(12, 0);
            out
        };
        let run = |begin: [i64; 3], size: [i64; 3], int64: bool| -> std::vec::Vec<u8> {
            let p = SliceDyn {
                elem_bytes: 2,
                shape,
                output_len: 6,
                int64,
            };
            let bytes = |v: [i64; 3]| -> std::vec::Vec<u8> {
                if int64 {
                    v.iter().flat_map(|x| x.to_le_bytes()).collect()
                } else {
                    v.iter().flat_map(|&x| (x as i32).to_le_bytes()).collect()
                }
            };
            let (b, s) = (bytes(begin), bytes(size));
            let mut arena = std::vec![0x5au8; 48 + 2 * b.len() + 12];
            arena[..48].copy_from_slice(&input);
            arena[48..48 + b.len()].copy_from_slice(&b);
            arena[48 + b.len()..48 + 2 * b.len()].copy_from_slice(&s);
            let out = 48 + 2 * b.len();
            let (tb, ts) = (Src::Arena(48), Src::Arena(48 + b.len()));
            slice_dyn(&mut arena, Src::Arena(0), tb, ts, out, &p);
            let from_arena = arena[out..].to_vec();
            let mut flash = std::vec![0x5au8; 12];
            slice_dyn(
                &mut flash,
                Src::Bytes(&input),
                Src::Bytes(&b),
                Src::Bytes(&s),
                0,
                &p,
            );
            assert_eq!(flash, from_arena, "begin {begin:?} size {size:?}");
            from_arena
        };
        for int64 in [false, true] {
            assert_eq!(
                run([1, 0, 1], [1, 2, 3], int64),
                gather([1, 0, 1], [1, 2, 3])
            );
            assert_eq!(
                run([0, 2, 1], [2, 1, 3], int64),
                gather([0, 2, 1], [2, 1, 3])
            );
            assert_eq!(
                run([1, 1, 2], [-1, -1, 1], int64),
                gather([1, 1, 2], [1, 2, 1])
            );
            // Fewer elements than the output holds: zeros after them; none at all: zeros.
            assert_eq!(
                run([0, 0, 0], [1, 1, 4], int64),
                gather([0, 0, 0], [1, 1, 4])
            );
            assert_eq!(run([1, 3, 0], [1, -1, 4], int64), [0; 12]);
            // Undefined in TFLM: zeros.
            for (begin, size) in [
                ([0, 0, 3], [1, 2, 2]),
                ([-1, 0, 0], [1, 2, 3]),
                ([0, 0, 0], [1, 2, -2]),
                ([0, 0, 0], [2, 3, 4]),
                ([0, 0, 0], [2, 2, 2]),
                ([0, 0, -5], [1, 1, -1]),
                ([i32::MAX as i64, 0, 0], [1, 2, 3]),
                ([0, 0, 1], [1, 2, i32::MAX as i64]),
                ([i32::MIN as i64, 0, 0], [-1, 2, 3]),
            ] {
                assert_eq!(run(begin, size, int64), [0; 12], "{begin:?} {size:?}");
            }
        }
        // INT64 values narrowed to their low 32 bits: (1 << 32) + 1 is 1, 0xffff_ffff is -1.
        assert_eq!(
            run([1 << 32 | 1, 0, 1], [1, 2, 0xffff_ffff], true),
            gather([1, 0, 1], [1, 2, 3])
        );
        // A scalar input: one element, whatever begin and size (none read).
        let p = SliceDyn {
            elem_bytes: 4,
            shape: &[],
            output_len: 1,
            int64: false,
        };
        let mut arena = [0u8; 4];
        slice_dyn(
            &mut arena,
            Src::Bytes(&[1, 2, 3, 4]),
            Src::Bytes(&[]),
            Src::Bytes(&[]),
            0,
            &p,
        );
        assert_eq!(arena, [1, 2, 3, 4]);
    }
}

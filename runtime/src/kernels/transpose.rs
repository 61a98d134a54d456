//! TRANSPOSE (any element type, up to 6 dimensions after collapsing; TFLM accepts up to 5);
//! SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND whose block shape, paddings or crops are computed at
//! run time (constant ones lower to the transpose's walk).

use super::elem::load;
use super::nn_common::views;
use super::strided_walk::strided_walk;
use crate::kernels::Within;
use crate::Src;

/// Constants of a transpose, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct Transpose<'a> {
    /// Bytes per element (1 for INT8, 4 for FLOAT32).
    pub elem_bytes: usize,
    /// Input size in bytes.
    pub input_bytes: usize,
    /// Output shape, with adjacent dimensions that stay adjacent in the input merged.
    pub shape: &'a [usize],
    /// For each output dimension, the input element stride it walks (the input's strides, permuted).
    pub input_strides: &'a [usize],
}

/// Transposes the tensor at `input` into `output`.
///
/// Writes the output in order, reading the input with the permuted strides; the output must not
/// overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn transpose(arena: &mut [u8], input: usize, output: usize, p: &Transpose) {
    let p = super::opaque(p);
    if let ([count], [0]) = (p.shape, p.input_strides) {
        // One element repeated (FILL; BROADCAST_TO of one element): stored without the walk's
        // set-up, which cost more than a FILL of a few dozen elements.
        let elem = p.elem_bytes;
        let (src, dst) = views::split(arena, input, elem, output, count * elem);
        if let [a, b, c, d] = *src {
            for o in dst.chunks_exact_mut(4) {
                o.copy_from_slice(&[a, b, c, d]);
            }
        } else if elem != 0 {
            for o in dst.chunks_exact_mut(elem) {
                o.copy_from_slice(src);
            }
        }
        return;
    }
    let mut steps = [0i32; super::MAX_RANK];
    for (s, &v) in steps.iter_mut().zip(p.input_strides) {
        *s = v as i32;
    }
    strided_walk(
        arena,
        input,
        p.input_bytes,
        output,
        p.elem_bytes,
        0,
        p.shape,
        steps.at(..p.input_strides.len()),
    );
}

/// Constants of a SPACE_TO_BATCH_ND or BATCH_TO_SPACE_ND whose block shape, paddings or crops
/// are computed at run time: TFLM's Prepare checks only the tensors' ranks and types, and its
/// Eval reads the values per call (INT32 whatever the tensors' type, the block's and the
/// margins' first values only), so they are read per call here; the output's shape is the
/// model's whatever they are (TFLM resizes nothing).
#[derive(Clone, Copy, Debug)]
pub struct BatchSpaceDyn<'a> {
    /// Bytes per element.
    pub elem_bytes: usize,
    /// Input shape as `[n, h, w, c]` (a 3-D `[n, h, c]` as `[n, h, 1, c]`, TFLM's
    /// `ExtendShapeSpaceToBatch`).
    pub input_shape: &'a [usize],
    /// Output shape as `[n, h, w, c]` likewise, its depth the input's.
    pub output_shape: &'a [usize],
    /// 4-D tensors: the block's width (element 1) and the left padding or crop (element 2) are
    /// read; 3-D ones have a block width of 1 and no left margin, as in TFLM.
    pub two_spatial: bool,
}

/// The block's height and width, and the top and left paddings or crops (elements 0 and 2; the
/// bottom and right ones TFLM never reads), from the INT32 tensors `block` and `margins`.
#[inline(always)]
fn block_and_margins(arena: &[u8], block: Src, margins: Src, p: &BatchSpaceDyn) -> [i64; 4] {
    let read = |t: Src, i: usize| {
        let mut v = [0i32];
        load(arena, t, i, &mut v);
        i64::from(v[0])
    };
    if p.two_spatial {
        [
            read(block, 0),
            read(block, 1),
            read(margins, 0),
            read(margins, 2),
        ]
    } else {
        [read(block, 0), 1, read(margins, 0), 0]
    }
}

/// The input and output byte views of a [`BatchSpaceDyn`] kernel, and its two 4-D shapes.
#[inline(always)]
fn batch_space_views<'b>(
    arena: &'b mut [u8],
    input: Src<'b>,
    output: usize,
    p: &BatchSpaceDyn,
) -> (&'b [u8], &'b mut [u8], [usize; 4], [usize; 4]) {
    assert!(p.input_shape.len() == 4 && p.output_shape.len() == 4 && p.elem_bytes > 0);
    let i = [0, 1, 2, 3].map(|d| p.input_shape[d]);
    let o = [0, 1, 2, 3].map(|d| p.output_shape[d]);
    let in_bytes = i.iter().product::<usize>() * p.elem_bytes;
    let out_bytes = o.iter().product::<usize>() * p.elem_bytes;
    let (src, dst) = views::split_src(arena, input, in_bytes, output, out_bytes);
    (src, dst, i, o)
}

/// SPACE_TO_BATCH_ND with the block and paddings read per call, as TFLM's `SpaceToBatchNDEval`
/// and reference `SpaceToBatchND` compute it over the model's output shape: output batch `b`
/// takes input batch `b % n` at shifts `(b / n) / bw` (rows) and `(b / n) % bw` (columns), output
/// pixel `(y, x)` the input pixel `(y * bh + shift - top, x * bw + shift - left)`, or padding
/// where that is outside the input.
///
/// TFLM writes its padding pixels with `SpaceToBatchParams::output_offset`, which it never sets
/// (undefined): zero bytes here. A block below 1 (TFLite's SpaceToBatchND takes blocks of at least
/// 1; TFLM divides by the width's, by zero for 0) and an empty input batch under a non-empty
/// output (TFLM takes `b % 0`) are undefined: the whole output is zeros. In 64 bits the indices
/// cannot overflow where TFLM's int ones can (undefined): such a pixel is outside the input,
/// padding. The input may be a constant (read where it is); the output must not overlap the
/// input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn space_to_batch_dyn(
    arena: &mut [u8],
    input: Src,
    block: Src,
    paddings: Src,
    output: usize,
    p: &BatchSpaceDyn,
) {
    let p = super::opaque(p);
    let [bh, bw, top, left] = block_and_margins(arena, block, paddings, p);
    let (src, dst, [n, h, w, c], [ob, oh, ow, _]) = batch_space_views(arena, input, output, p);
    if bh < 1 || bw < 1 || n == 0 {
        dst.fill(0);
        return;
    }
    let pixel = c * p.elem_bytes;
    if pixel == 0 {
        return;
    }
    let mut pixels = dst.chunks_exact_mut(pixel);
    for b in 0..ob {
        let (batch, shift) = (b % n, (b / n) as i64);
        let (shift_h, shift_w) = (shift / bw, shift % bw);
        for y in 0..oh {
            let iy = y as i64 * bh + shift_h - top;
            for x in 0..ow {
                let ix = x as i64 * bw + shift_w - left;
                let Some(out) = pixels.next() else { return };
                if (0..h as i64).contains(&iy) && (0..w as i64).contains(&ix) {
                    let at = ((batch * h + iy as usize) * w + ix as usize) * pixel;
                    out.copy_from_slice(src.at(at..at + pixel));
                } else {
                    out.fill(0);
                }
            }
        }
    }
}

/// BATCH_TO_SPACE_ND with the block and crops read per call, as TFLM's `BatchToSpaceNDEval` and
/// reference `BatchToSpaceND` compute it over the model's output shape: input batch `b`, pixel
/// `(y, x)` goes to output batch `b % ob`, pixel `(y * bh + (b / ob) / bw - top, x * bw +
/// (b / ob) % bw - left)` if that is inside the output, in the input's order (a later pixel over
/// an earlier one).
///
/// The output pixels no input pixel reaches TFLM leaves unwritten, nothing a model can rely on:
/// zeros here. A block below 1 (TFLite's BatchToSpaceND takes blocks of at least 1; TFLM divides
/// by the width's, by zero for 0) is undefined: the whole output is zeros. In 64 bits the indices
/// cannot overflow where TFLM's int ones can (undefined): such a pixel is outside the output,
/// skipped. The input may be a constant (read where it is); the output must not overlap the
/// input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn batch_to_space_dyn(
    arena: &mut [u8],
    input: Src,
    block: Src,
    crops: Src,
    output: usize,
    p: &BatchSpaceDyn,
) {
    let p = super::opaque(p);
    let [bh, bw, top, left] = block_and_margins(arena, block, crops, p);
    let (src, dst, [n, h, w, c], [ob, oh, ow, _]) = batch_space_views(arena, input, output, p);
    dst.fill(0);
    let pixel = c * p.elem_bytes;
    if bh < 1 || bw < 1 || ob == 0 || pixel == 0 {
        return;
    }
    let mut pixels = src.chunks_exact(pixel);
    for b in 0..n {
        let (batch, spatial) = (b % ob, (b / ob) as i64);
        let (shift_h, shift_w) = (spatial / bw, spatial % bw);
        for y in 0..h {
            let oy = y as i64 * bh + shift_h - top;
            for x in 0..w {
                let ox = x as i64 * bw + shift_w - left;
                let Some(from) = pixels.next() else { return };
                if (0..oh as i64).contains(&oy) && (0..ow as i64).contains(&ox) {
                    let at = ((batch * oh + oy as usize) * ow + ox as usize) * pixel;
                    dst[at..at + pixel].copy_from_slice(from);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;

    #[test]
    fn fills_one_element_repeated() {
        // FILL's walk: shape [n], stride 0. Four-byte elements as words, others byte by byte.
        let mut arena = [0u8; 4 + 12];
        arena[..4].copy_from_slice(&1.5f32.to_le_bytes());
        let p = Transpose {
            elem_bytes: 4,
            input_bytes: 4,
            shape: &[3],
            input_strides: &[0],
        };
        transpose(&mut arena, 0, 4, &p);
        for k in 0..3 {
            assert_eq!(crate::bytes::read_f32(&arena[4..], k), 1.5);
        }
        let mut arena = [7u8, 0, 0, 0, 0];
        let p = Transpose {
            elem_bytes: 1,
            input_bytes: 1,
            shape: &[4],
            input_strides: &[0],
        };
        transpose(&mut arena, 0, 1, &p);
        assert_eq!(arena, [7; 5]);
    }

    #[test]
    fn transposes_2x3_bytes() {
        // [[1,2,3],[4,5,6]] -> [[1,4],[2,5],[3,6]]
        let mut arena = [1u8, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0];
        let p = Transpose {
            elem_bytes: 1,
            input_bytes: 6,
            shape: &[3, 2],
            input_strides: &[1, 3],
        };
        transpose(&mut arena, 0, 6, &p);
        assert_eq!(&arena[6..], &[1, 4, 2, 5, 3, 6]);
    }

    #[test]
    fn transposes_f32_nchw_to_nhwc() {
        // 1x2x2x2 NCHW -> NHWC: out[h][w][c] = in[c][h][w]; collapsed shape [4, 2], strides [1, 4].
        let mut arena = [0u8; 64];
        for i in 0..8 {
            arena[i * 4..i * 4 + 4].copy_from_slice(&(i as f32).to_le_bytes());
        }
        let p = Transpose {
            elem_bytes: 4,
            input_bytes: 32,
            shape: &[4, 2],
            input_strides: &[1, 4],
        };
        transpose(&mut arena, 0, 32, &p);
        let out: [f32; 8] = core::array::from_fn(|i| crate::bytes::read_f32(&arena[32..], i));
        assert_eq!(out, [0.0, 4.0, 1.0, 5.0, 2.0, 6.0, 3.0, 7.0]);
    }

    /// A [`BatchSpaceDyn`] kernel's output for int8 `input` of `shape` into `out_shape` (both
    /// 4-D), the block and margins INT32 values; the input in the arena and constant agree.
    fn batch_space_run(
        to_batch: bool,
        shape: [usize; 4],
        out_shape: [usize; 4],
        block: &[i32],
        margins: &[i32],
    ) -> std::vec::Vec<u8> {
        let p = BatchSpaceDyn {
            elem_bytes: 1,
            input_shape: &shape,
            output_shape: &out_shape,
            two_spatial: block.len() == 2,
        };
        let n: usize = shape.iter().product();
        let m: usize = out_shape.iter().product();
        let input: std::vec::Vec<u8> = (1..=n as u8).collect();
        let (b, g): (std::vec::Vec<u8>, std::vec::Vec<u8>) = (
            block.iter().flat_map(|v| v.to_le_bytes()).collect(),
            margins.iter().flat_map(|v| v.to_le_bytes()).collect(),
        );
        let kernel = if to_batch {
            space_to_batch_dyn
        } else {
            batch_to_space_dyn
        };
        let mut arena = std::vec![0x5au8; n + b.len() + g.len() + m];
        arena[..n].copy_from_slice(&input);
        arena[n..n + b.len()].copy_from_slice(&b);
        arena[n + b.len()..n + b.len() + g.len()].copy_from_slice(&g);
        let out = n + b.len() + g.len();
        kernel(
            &mut arena,
            Src::Arena(0),
            Src::Arena(n),
            Src::Arena(n + b.len()),
            out,
            &p,
        );
        let mut flash = std::vec![0x5au8; m];
        kernel(
            &mut flash,
            Src::Bytes(&input),
            Src::Bytes(&b),
            Src::Bytes(&g),
            0,
            &p,
        );
        assert_eq!(flash, arena[out..], "block {block:?} margins {margins:?}");
        flash
    }

    /// SPACE_TO_BATCH_ND read per call: TFLM's loop over the model's output (a consistent block,
    /// one the output was not shaped for, negative paddings), zeros for the padding TFLM writes
    /// with an unset value, and for the whole output where TFLM is undefined (a block below 1).
    #[test]
    fn space_to_batch_dyn_like_tflm() {
        // [1, 2, 4, 1] by [2, 2]: batches (0,0) (0,1) (1,0) (1,1) of the 2x4 image 1..=8.
        let out = batch_space_run(true, [1, 2, 4, 1], [4, 1, 2, 1], &[2, 2], &[0, 0, 0, 0]);
        assert_eq!(out, [1, 3, 2, 4, 5, 7, 6, 8]);
        // The bottom and right paddings are never read; the top one shifts the rows, padding
        // (zeros) where they fall outside.
        let out = batch_space_run(true, [1, 2, 4, 1], [4, 1, 2, 1], &[2, 2], &[1, 99, 0, -7]);
        assert_eq!(out, [0, 0, 0, 0, 1, 3, 2, 4]);
        // Left -1: columns shift by one, the last one past the input.
        let out = batch_space_run(true, [1, 2, 4, 1], [4, 1, 2, 1], &[2, 2], &[0, 0, -1, 0]);
        assert_eq!(out, [2, 4, 3, 0, 6, 8, 7, 0]);
        // A block of [1, 2] over the output shaped for [2, 2]: rows from shift (b / n) / 2.
        let out = batch_space_run(true, [1, 2, 4, 1], [4, 1, 2, 1], &[1, 2], &[0, 0, 0, 0]);
        assert_eq!(out, [1, 3, 2, 4, 5, 7, 6, 8]);
        // 3-D (the width's block 1, no left padding read): [1, 4, 1] by [2].
        let out = batch_space_run(true, [1, 4, 1, 1], [2, 2, 1, 1], &[2], &[0, 0]);
        assert_eq!(out, [1, 3, 2, 4]);
        for block in [[0, 2], [2, 0], [-1, 2], [i32::MIN, 1]] {
            let out = batch_space_run(true, [1, 2, 4, 1], [4, 1, 2, 1], &block, &[0, 0, 0, 0]);
            assert_eq!(out, [0; 8], "block {block:?}");
        }
        // Extremes: no overflow, padding.
        let out = batch_space_run(
            true,
            [1, 2, 4, 1],
            [4, 1, 2, 1],
            &[i32::MAX, i32::MAX],
            &[i32::MIN, 0, i32::MAX, 0],
        );
        assert_eq!(out, [0; 8]);
    }

    /// BATCH_TO_SPACE_ND read per call: TFLM's loop over the input into the model's output
    /// (consistent values, crops it was not shaped for, negative crops), zeros where TFLM writes
    /// nothing, and for the whole output where it is undefined (a block below 1).
    #[test]
    fn batch_to_space_dyn_like_tflm() {
        // Batches 1 2, 3 4, 5 6, 7 8 at shifts (0,0) (0,1) (1,0) (1,1).
        let input = [4, 1, 2, 1];
        let out = batch_space_run(false, input, [1, 2, 4, 1], &[2, 2], &[0, 0, 0, 0]);
        assert_eq!(out, [1, 3, 2, 4, 5, 7, 6, 8]);
        // Crops top 1, left 1 into a 1x3 output (bottom and right never read).
        let out = batch_space_run(false, input, [1, 1, 3, 1], &[2, 2], &[1, -5, 1, 77]);
        assert_eq!(out, [7, 6, 8]);
        // Top crop 1 into the 2x4 output: its last row no pixel reaches (zeros).
        let out = batch_space_run(false, input, [1, 2, 4, 1], &[2, 2], &[1, 0, 0, 0]);
        assert_eq!(out, [5, 7, 6, 8, 0, 0, 0, 0]);
        // Negative crops move the image down and right.
        let out = batch_space_run(false, input, [1, 2, 4, 1], &[2, 2], &[-1, 0, -1, 0]);
        assert_eq!(out, [0, 0, 0, 0, 0, 1, 3, 2]);
        // 3-D: [2, 2, 1] by [2] into [1, 4, 1].
        let out = batch_space_run(false, [2, 2, 1, 1], [1, 4, 1, 1], &[2], &[0, 0]);
        assert_eq!(out, [1, 3, 2, 4]);
        for block in [[0, 2], [2, 0], [-3, 1], [1, i32::MIN]] {
            let out = batch_space_run(false, input, [1, 2, 4, 1], &block, &[0, 0, 0, 0]);
            assert_eq!(out, [0; 8], "block {block:?}");
        }
        let out = batch_space_run(
            false,
            input,
            [1, 2, 4, 1],
            &[i32::MAX, i32::MAX],
            &[i32::MIN, 0, i32::MIN, 0],
        );
        assert_eq!(out, [0; 8]);
    }
}

//! RESIZE_NEAREST_NEIGHBOR (any element type: whole pixels copied) and RESIZE_BILINEAR (float32,
//! int8), as TFLM's reference kernels compute them. Which input rows and columns each output row
//! and column reads, and with what weights, depends only on the sizes and the flags: generation
//! time computes them once (TFLM recomputes them per pixel), so the kernels only walk tables.

use super::nn_common::views;
use crate::kernels::Within;

/// Constants of RESIZE_NEAREST_NEIGHBOR.
#[derive(Clone, Copy, Debug)]
pub struct ResizeNearest<'a> {
    /// Batches (input and output).
    pub batches: usize,
    /// Input bytes per batch (`height * width * depth * element size`).
    pub batch_bytes: usize,
    /// Bytes per pixel (`depth * element size`), the run copied per output pixel.
    pub pixel_bytes: usize,
    /// For each output row, the byte offset within an input batch of the input row it copies.
    pub rows: &'a [usize],
    /// For each output column, the byte offset within an input row of the pixel it copies.
    pub cols: &'a [usize],
}

/// RESIZE_NEAREST_NEIGHBOR: each output pixel a copy of the input pixel its row and column name.
/// The output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn resize_nearest(arena: &mut [u8], input: usize, output: usize, p: &ResizeNearest) {
    let p = super::opaque(p);
    let out_len = p.batches * p.rows.len() * p.cols.len() * p.pixel_bytes;
    let (src, dst) = views::split(arena, input, p.batches * p.batch_bytes, output, out_len);
    if out_len == 0 || p.batch_bytes == 0 {
        return;
    }
    let mut pixels = dst.chunks_exact_mut(p.pixel_bytes);
    for batch in src.chunks_exact(p.batch_bytes).take(p.batches) {
        for &row in p.rows {
            for &col in p.cols {
                let at = row + col;
                if let Some(out) = pixels.next() {
                    out.copy_from_slice(batch.at(at..at + p.pixel_bytes));
                }
            }
        }
    }
}

/// Constants of float32 RESIZE_BILINEAR. Row `y` of the output interpolates input rows
/// `rows0[y]` and `rows1[y]` with weights `row_w0[y]` and `row_w1[y]`, columns likewise.
#[derive(Clone, Copy, Debug)]
pub struct ResizeBilinearF32<'a> {
    /// Batches (input and output).
    pub batches: usize,
    /// Input elements per batch (`height * width * depth`).
    pub batch_len: usize,
    /// Channels (input and output).
    pub depth: usize,
    /// For each output row, the element offset within an input batch of its lower input row
    /// (`y0 * width * depth`).
    pub rows0: &'a [usize],
    /// For each output row, the element offset of its upper input row (`y1 * width * depth`).
    pub rows1: &'a [usize],
    /// For each output row, TFLM's `1 - (input_y - y0)`.
    pub row_w0: &'a [f32],
    /// For each output row, TFLM's `input_y - y0`.
    pub row_w1: &'a [f32],
    /// For each output column, the element offset within a row of its left pixel (`x0 * depth`).
    pub cols0: &'a [usize],
    /// For each output column, the element offset of its right pixel (`x1 * depth`).
    pub cols1: &'a [usize],
    /// For each output column, TFLM's `1 - (input_x - x0)`.
    pub col_w0: &'a [f32],
    /// For each output column, TFLM's `input_x - x0`.
    pub col_w1: &'a [f32],
}

/// Constants of int8 RESIZE_BILINEAR (TFLM's `ResizeBilinearInteger`: weights in units of
/// 2^-10). The lowering has checked that `128 * Σ|weight products|` and its rounding stay within
/// int32, so the kernel sums in int32 where TFLM sums in int64, with the same result.
#[derive(Clone, Copy, Debug)]
pub struct ResizeBilinearS8<'a> {
    /// Batches (input and output).
    pub batches: usize,
    /// Input elements per batch (`height * width * depth`).
    pub batch_len: usize,
    /// Channels (input and output).
    pub depth: usize,
    /// For each output row, the element offset within an input batch of its lower input row.
    pub rows0: &'a [usize],
    /// For each output row, the element offset of its upper input row.
    pub rows1: &'a [usize],
    /// For each output row, TFLM's `(1 << 10) - (input_y - (1 << 10) * y0)`.
    pub row_w0: &'a [i32],
    /// For each output row, TFLM's `input_y - (1 << 10) * y0`.
    pub row_w1: &'a [i32],
    /// For each output column, the element offset within a row of its left pixel.
    pub cols0: &'a [usize],
    /// For each output column, the element offset of its right pixel.
    pub cols1: &'a [usize],
    /// For each output column, TFLM's `(1 << 10) - (input_x - (1 << 10) * x0)`.
    pub col_w0: &'a [i32],
    /// For each output column, TFLM's `input_x - (1 << 10) * x0`.
    pub col_w1: &'a [i32],
}

/// float32 RESIZE_BILINEAR: each output element TFLM's sum of the four neighbours, each times
/// its row weight then its column weight, added in TFLM's order (then `+ 0.0`, its rounding
/// offset for floats). The output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn resize_bilinear_f32(arena: &mut [u8], input: usize, output: usize, p: &ResizeBilinearF32) {
    let p = super::opaque(p);
    let out_len = p.batches * p.rows0.len() * p.cols0.len() * p.depth * 4;
    let (src, dst) = views::split(arena, input, p.batches * p.batch_len * 4, output, out_len);
    if out_len == 0 {
        return;
    }
    // A pixel's `depth` elements sliced once (four slices per output pixel, not four range checks
    // per element: those took 1.2 to 1.3 times TFLM's reference kernel on the Cortex-M4).
    let d = p.depth * 4;
    let pixel = |at: usize| src.at(at * 4..at * 4 + d);
    let f = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let mut out = dst.chunks_exact_mut(d);
    // The tables walked by iterators: no index check per output pixel.
    let rows = p
        .rows0
        .iter()
        .zip(p.rows1)
        .zip(p.row_w0.iter().zip(p.row_w1));
    let cols = p
        .cols0
        .iter()
        .zip(p.cols1)
        .zip(p.col_w0.iter().zip(p.col_w1));
    for b in 0..p.batches {
        let base = b * p.batch_len;
        for ((&r0, &r1), (&wy0, &wy1)) in rows.clone() {
            let (r0, r1) = (base + r0, base + r1);
            for ((&c0, &c1), (&wx0, &wx1)) in cols.clone() {
                let Some(o) = out.next() else { return };
                let (p00, p10) = (pixel(r0 + c0), pixel(r1 + c0));
                let (p01, p11) = (pixel(r0 + c1), pixel(r1 + c1));
                let four = p00
                    .chunks_exact(4)
                    .zip(p10.chunks_exact(4))
                    .zip(p01.chunks_exact(4).zip(p11.chunks_exact(4)));
                for (o, ((v00, v10), (v01, v11))) in o.chunks_exact_mut(4).zip(four) {
                    let (v00, v10, v01, v11) = (f(v00), f(v10), f(v01), f(v11));
                    let v = v00 * wy0 * wx0 + v10 * wy1 * wx0 + v01 * wy0 * wx1 + v11 * wy1 * wx1;
                    o.copy_from_slice(&(v + 0.0).to_le_bytes());
                }
            }
        }
    }
}

/// int8 RESIZE_BILINEAR: TFLM's integer interpolation, the sum of the four neighbours times
/// their row and column weights (2^20 for a whole pixel), rounded half away from zero to an
/// integer (TFLM's double-rounding build) and narrowed to int8 as TFLM's cast narrows it. The
/// output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn resize_bilinear_s8(arena: &mut [u8], input: usize, output: usize, p: &ResizeBilinearS8) {
    let p = super::opaque(p);
    let out_len = p.batches * p.rows0.len() * p.cols0.len() * p.depth;
    let (src, dst) = views::split(arena, input, p.batches * p.batch_len, output, out_len);
    let mut out = dst.iter_mut();
    for b in 0..p.batches {
        let base = b * p.batch_len;
        for y in 0..p.rows0.len() {
            let (r0, r1) = (base + p.rows0[y], base + p.rows1[y]);
            let (wy0, wy1) = (p.row_w0[y], p.row_w1[y]);
            for x in 0..p.cols0.len() {
                let (c0, c1) = (p.cols0[x], p.cols1[x]);
                let (wx0, wx1) = (p.col_w0[x], p.col_w1[x]);
                let (w00, w10, w01, w11) = (wy0 * wx0, wy1 * wx0, wy0 * wx1, wy1 * wx1);
                for c in 0..p.depth {
                    let v00 = i32::from(src[r0 + c0 + c] as i8);
                    let v10 = i32::from(src[r1 + c0 + c] as i8);
                    let v01 = i32::from(src[r0 + c1 + c] as i8);
                    let v11 = i32::from(src[r1 + c1 + c] as i8);
                    let sum = v00 * w00 + v10 * w10 + v01 * w01 + v11 * w11;
                    let round = if sum > 0 { 1 << 19 } else { -(1 << 19) };
                    if let Some(o) = out.next() {
                        *o = ((sum + round) / (1 << 20)) as i8 as u8;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_doubles_a_2x2_image() {
        // 1x2x2x1 int8 [[1,2],[3,4]] -> 1x4x4x1, rows 0,0,1,1 and columns 0,0,1,1.
        let mut arena = [0u8; 20];
        arena[..4].copy_from_slice(&[1, 2, 3, 4]);
        let p = ResizeNearest {
            batches: 1,
            batch_bytes: 4,
            pixel_bytes: 1,
            rows: &[0, 0, 2, 2],
            cols: &[0, 0, 1, 1],
        };
        resize_nearest(&mut arena, 0, 4, &p);
        assert_eq!(
            &arena[4..],
            &[1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4]
        );
    }

    #[test]
    fn bilinear_s8_interpolates_and_rounds_away_from_zero() {
        // 1x1x2x1 [-3, 4] -> 1x1x3x1 at x = 0, 0.5, 1 (weights in units of 2^-10).
        let mut arena = [0u8; 5];
        arena[0] = -3i8 as u8;
        arena[1] = 4;
        let p = ResizeBilinearS8 {
            batches: 1,
            batch_len: 2,
            depth: 1,
            rows0: &[0],
            rows1: &[0],
            row_w0: &[1024],
            row_w1: &[0],
            cols0: &[0, 0, 1],
            cols1: &[0, 1, 1],
            col_w0: &[1024, 512, 1024],
            col_w1: &[0, 512, 0],
        };
        resize_bilinear_s8(&mut arena, 0, 2, &p);
        // (-3 + 4) / 2 = 0.5 rounds to 1.
        assert_eq!(&arena[2..], &[-3i8 as u8, 1, 4]);
    }

    #[test]
    fn bilinear_f32_weights_rows_then_columns() {
        let mut arena = [0u8; 8 + 12];
        arena[..4].copy_from_slice(&1.0f32.to_le_bytes());
        arena[4..8].copy_from_slice(&3.0f32.to_le_bytes());
        let p = ResizeBilinearF32 {
            batches: 1,
            batch_len: 2,
            depth: 1,
            rows0: &[0],
            rows1: &[0],
            row_w0: &[1.0],
            row_w1: &[0.0],
            cols0: &[0, 0, 1],
            cols1: &[0, 1, 1],
            col_w0: &[1.0, 0.25, 1.0],
            col_w1: &[0.0, 0.75, 0.0],
        };
        resize_bilinear_f32(&mut arena, 0, 8, &p);
        let out: [f32; 3] = core::array::from_fn(|i| crate::bytes::read_f32(&arena[8..], i));
        assert_eq!(out, [1.0, 2.5, 3.0]);
    }
}

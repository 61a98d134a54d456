//! BATCH_MATMUL, float32, int8 and int16 (TFLM's batch_matmul.cc: `reference_ops::BatchMatMul`):
//! `output[b][m][n] = sum over k of lhs[b][m][k] * rhs[b][k][n]`, the batch dimensions (up to three,
//! the operands extended to rank 5) broadcast where one side has 1.
//!
//! TFLM transposes an operand into a scratch buffer where the adjoint flags ask for it; here the
//! generation time picks the strides instead (each element of a row or column is found by its
//! stride), so nothing is copied and the sums run in the same order (k ascending), giving the same
//! bytes. int8: the sum of `(lhs - lhs_zero_point) * (rhs - rhs_zero_point)` in 32 bits, computed
//! as the raw products' sum less the zero points times the row and column sums (a ring identity,
//! exact modulo 2^32, and the true sum fits: the depth is checked at generation time; the row sum
//! once per output row, the column sum only when the LHS zero point is not 0), then TFLM's
//! per-tensor requantization. int16: zero points 0, the sum in 64 bits, TFLM's 64-bit
//! requantization. float32: the products summed in order, no activation.
//!
//! The output is written in order, `[batch0][batch1][batch2][rows][cols]`; it must not overlap
//! either input.

use super::elem::Elem;
use super::nn_common::requant::scale_16x8;
use super::nn_common::views::split_src;
use super::nn_common::{dot4_packed_s8, pack4_columns_s8, packed4_bytes, Requantizer};
use crate::kernels::Within;
use crate::Src;

/// Constant parameters of the BATCH_MATMUL kernels: the geometry they walk, in elements, and the
/// int8 and int16 requantization.
#[derive(Clone, Copy, Debug)]
pub struct BatchMatmul {
    /// Output batch dimensions (1 where absent), outermost first.
    pub batch0: usize,
    /// Second batch dimension.
    pub batch1: usize,
    /// Third (innermost) batch dimension.
    pub batch2: usize,
    /// LHS element stride of each batch dimension (0 where the LHS broadcasts it).
    pub lhs_batch0: usize,
    /// LHS stride of the second batch dimension.
    pub lhs_batch1: usize,
    /// LHS stride of the third batch dimension.
    pub lhs_batch2: usize,
    /// RHS stride of the first batch dimension (0 where the RHS broadcasts it).
    pub rhs_batch0: usize,
    /// RHS stride of the second batch dimension.
    pub rhs_batch1: usize,
    /// RHS stride of the third batch dimension.
    pub rhs_batch2: usize,
    /// Output rows (M).
    pub rows: usize,
    /// Output columns (N).
    pub cols: usize,
    /// Length of each dot product (K).
    pub depth: usize,
    /// LHS stride from one output row to the next (K, or 1 with adj_x).
    pub lhs_row: usize,
    /// LHS stride along the depth (1, or M with adj_x).
    pub lhs_depth: usize,
    /// RHS stride along the depth (N, or 1 with adj_y).
    pub rhs_depth: usize,
    /// RHS stride from one output column to the next (1, or K with adj_y).
    pub rhs_col: usize,
    /// Elements of the LHS.
    pub lhs_len: usize,
    /// Elements of the RHS.
    pub rhs_len: usize,
    /// The LHS zero point (int8; 0 otherwise).
    pub lhs_zero_point: i32,
    /// The RHS zero point (int8; 0 otherwise).
    pub rhs_zero_point: i32,
    /// The output zero point (int8; 0 otherwise).
    pub output_zero_point: i32,
    /// int8: TFLM's Q31 multiplier of `lhs scale * rhs scale / output scale`; int16: that
    /// multiplier reduced to 16 bits as TFLM's 64-bit `MultiplyByQuantizedMultiplier` does;
    /// float32: unused (0).
    pub multiplier: i32,
    /// int8: its shift (positive = left); int16: the right shift `15 - shift` (1..=46).
    pub shift: i32,
    /// Lowest output value (the type's minimum: BATCH_MATMUL has no activation).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// int8 kernels with contiguous LHS rows: the short requantization may be taken (checked at
    /// generation time: the shift is a right shift and `depth * max|lhs - zp| * max|rhs - zp|`
    /// is below 2^30, so that no sum reaches 2^30 in magnitude).
    pub narrow_requant: bool,
}

/// Calls `f(lhs_start, rhs_start, out_index, row_start)` for every output element in order: the
/// offsets of the element's LHS row and RHS column (in elements), its index in the output, and
/// whether it is the first of its output row (a new LHS row).
#[inline(always)]
fn walk(g: &BatchMatmul, mut f: impl FnMut(usize, usize, usize, bool)) {
    let mut o = 0;
    for b0 in 0..g.batch0 {
        for b1 in 0..g.batch1 {
            for b2 in 0..g.batch2 {
                let l = b0 * g.lhs_batch0 + b1 * g.lhs_batch1 + b2 * g.lhs_batch2;
                let r = b0 * g.rhs_batch0 + b1 * g.rhs_batch1 + b2 * g.rhs_batch2;
                for m in 0..g.rows {
                    for n in 0..g.cols {
                        f(l + m * g.lhs_row, r + n * g.rhs_col, o, n == 0);
                        o += 1;
                    }
                }
            }
        }
    }
}

/// float32 BATCH_MATMUL. Reads `4 * lhs_len` bytes at `lhs` and `4 * rhs_len` at `rhs`, writes
/// `4 * batch0 * batch1 * batch2 * rows * cols` bytes at `output`. Every index it reads is
/// range-checked once per call (`check_geometry`), not per product: checked per product, a
/// 4x3 by 3x5 product took 65 instructions a multiply-accumulate on the Cortex-M4.
#[cfg_attr(target_os = "none", inline(never))]
pub fn batch_matmul_f32(arena: &mut [u8], lhs: Src, rhs: Src, output: usize, p: &BatchMatmul) {
    let p = super::opaque(p);
    let g = p;
    let (lb, rb, out) = views_of(
        arena,
        (lhs, 4 * g.lhs_len),
        (rhs, 4 * g.rhs_len),
        output,
        4,
        g,
    );
    check_geometry(g, lb.len() / 4, rb.len() / 4);
    let (lp, rp) = (lb.as_ptr(), rb.as_ptr());
    let (ld, rd) = (g.lhs_depth, g.rhs_depth);
    walk(g, |l0, r0, o, _| {
        let mut total = 0.0f32;
        let (mut l, mut r) = (l0, r0);
        for _ in 0..g.depth {
            super::keep_rolled();
            // SAFETY: `l` and `r` are at most the last indices `check_geometry` found within
            // the operands' elements; `lp` and `rp` point at those shared slices.
            let (x, y) = unsafe { (f32::read_at(lp, l), f32::read_at(rp, r)) };
            total += x * y;
            l += ld;
            r += rd;
        }
        out[4 * o..4 * o + 4].copy_from_slice(&total.to_le_bytes());
    });
}

/// Panics unless every element the walk reads lies within the operands (`lhs_elems` and
/// `rhs_elems` elements): the largest LHS and RHS index of a non-empty walk, once per call.
fn check_geometry(g: &BatchMatmul, lhs_elems: usize, rhs_elems: usize) {
    let counts = [g.batch0, g.batch1, g.batch2, g.rows, g.depth];
    if counts.contains(&0) || g.cols == 0 {
        return;
    }
    let lhs_strides = [
        g.lhs_batch0,
        g.lhs_batch1,
        g.lhs_batch2,
        g.lhs_row,
        g.lhs_depth,
    ];
    let rhs_strides = [
        g.rhs_batch0,
        g.rhs_batch1,
        g.rhs_batch2,
        g.rhs_col,
        g.rhs_depth,
    ];
    let rhs_counts = [g.batch0, g.batch1, g.batch2, g.cols, g.depth];
    ensure!(
        last_index(&counts, &lhs_strides) < lhs_elems
            && last_index(&rhs_counts, &rhs_strides) < rhs_elems,
        "BATCH_MATMUL geometry past its operands"
    );
}

/// int8 BATCH_MATMUL. Reads `lhs_len` bytes at `lhs` and `rhs_len` at `rhs`, writes
/// `batch0 * batch1 * batch2 * rows * cols` bytes at `output`.
///
/// The kernel of the small products (fewer rows than the packed kernel takes, or adj_x): every
/// index it reads is range-checked once per call (`check_geometry`), not per product, which took a
/// 3x4 by 4x5 product to 1.5 times TFLM's reference kernel on the Cortex-M4 (eight range checks
/// and reloads for each multiply-accumulate).
#[cfg_attr(target_os = "none", inline(never))]
pub fn batch_matmul_s8(arena: &mut [u8], lhs: Src, rhs: Src, output: usize, p: &BatchMatmul) {
    let g = *super::opaque(p);
    let (zl, zr) = (g.lhs_zero_point, g.rhs_zero_point);
    // K * zl * zr, the constant term of the zero-point expansion (wrapping, as the whole sum).
    let constant = (g.depth as i32).wrapping_mul(zl).wrapping_mul(zr);
    let (multiplier, shift) = ([g.multiplier], [g.shift as i8]);
    let requantizer = Requantizer::new(
        1,
        None,
        &multiplier,
        &shift,
        g.output_zero_point,
        (g.act_min, g.act_max),
    )
    .narrow(g.narrow_requant);
    let (lb, rb, out) = views_of(arena, (lhs, g.lhs_len), (rhs, g.rhs_len), output, 1, &g);
    if out.is_empty() {
        return;
    }
    check_geometry(&g, lb.len(), rb.len());
    let (ld, rd) = (g.lhs_depth, g.rhs_depth);
    let mut o = 0;
    for b0 in 0..g.batch0 {
        for b1 in 0..g.batch1 {
            for b2 in 0..g.batch2 {
                let lbase = b0 * g.lhs_batch0 + b1 * g.lhs_batch1 + b2 * g.lhs_batch2;
                let rbase = b0 * g.rhs_batch0 + b1 * g.rhs_batch1 + b2 * g.rhs_batch2;
                for m in 0..g.rows {
                    let l0 = lbase + m * g.lhs_row;
                    let mut lsum = 0i32;
                    let mut l = l0;
                    for _ in 0..g.depth {
                        super::keep_rolled();
                        // SAFETY: `l` is at most the LHS's last index, which `check_geometry`
                        // checked below `lb.len()` above.
                        lsum = lsum.wrapping_add(i32::from(unsafe { *lb.get_unchecked(l) } as i8));
                        l += ld;
                    }
                    // K * zl * zr - zr * (the row's LHS sum): fixed for the whole output row.
                    let row_term = constant.wrapping_sub(zr.wrapping_mul(lsum));
                    for n in 0..g.cols {
                        let (mut l, mut r) = (l0, rbase + n * g.rhs_col);
                        let (mut acc, mut rsum) = (0i32, 0i32);
                        if zl == 0 {
                            // No column sum needed: one multiply-accumulate per term.
                            for _ in 0..g.depth {
                                // Rolled (also below): the depths this kernel takes are short,
                                // and unrolled, the loops spilled their pointers.
                                super::keep_rolled();
                                // SAFETY: `l` and `r` are at most the last indices that
                                // `check_geometry` checked above, below `lb.len()` and `rb.len()`.
                                let (x, y) =
                                    unsafe { (*lb.get_unchecked(l), *rb.get_unchecked(r)) };
                                acc = acc.wrapping_add(i32::from(x as i8) * i32::from(y as i8));
                                l += ld;
                                r += rd;
                            }
                        } else {
                            for _ in 0..g.depth {
                                super::keep_rolled();
                                // SAFETY: as above.
                                let (x, y) =
                                    unsafe { (*lb.get_unchecked(l), *rb.get_unchecked(r)) };
                                let y = i32::from(y as i8);
                                acc = acc.wrapping_add(i32::from(x as i8) * y);
                                rsum = rsum.wrapping_add(y);
                                l += ld;
                                r += rd;
                            }
                        }
                        let total = acc
                            .wrapping_add(row_term)
                            .wrapping_sub(zl.wrapping_mul(rsum));
                        out[o] = requantizer.one(0, total);
                        o += 1;
                    }
                }
            }
        }
    }
}

/// The largest index a walk of `counts[i]` steps of `strides[i]` reaches (every count at least
/// 1), saturated at `usize::MAX` (past any slice) where it overflows.
fn last_index(counts: &[usize; 5], strides: &[usize; 5]) -> usize {
    let mut last = 0usize;
    for (&n, &s) in counts.iter().zip(strides) {
        last = last.saturating_add(n.saturating_sub(1).saturating_mul(s));
    }
    last
}

/// The scratch memory [`batch_matmul_s8_packed`] needs: the rows' zero-point terms (4 bytes each)
/// and one block of four packed RHS columns (`pack4_columns_s8`).
pub const fn packed_scratch_bytes(rows: usize, depth: usize) -> usize {
    4 * rows + packed4_bytes(depth)
}

/// int8 BATCH_MATMUL with contiguous LHS rows (no adj_x: `lhs_depth == 1`), the RHS plain or
/// adjoint, using [`packed_scratch_bytes`] of scratch memory at `scratch`. Per batch: each LHS
/// row's term for the RHS zero point, `-zr * Σ (l - zl)`, into the scratch; then per block of four
/// output columns (the last one possibly fewer), the block's RHS columns packed into the scratch
/// as 16-bit pairs (`pack4_columns_s8`, once for all rows) and each LHS row against them, four
/// sums at a time (`dot4_packed_s8`), then TFLM's per-tensor requantization. `Σ (l - zl) *
/// (r - zr)` is `Σ (l - zl) * r - zr * Σ (l - zl)`, exact modulo 2^32 (the true sum fits: the
/// depth is checked at generation time). Reads and writes as [`batch_matmul_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn batch_matmul_s8_packed(
    arena: &mut [u8],
    lhs: Src,
    rhs: Src,
    output: usize,
    scratch: usize,
    p: &BatchMatmul,
) {
    let g = super::opaque(p);
    let depth = g.depth;
    let offset = g.lhs_zero_point.wrapping_neg();
    let (multipliers, shifts) = ([g.multiplier; 4], [g.shift as i8; 4]);
    let requantizer = Requantizer::new(
        4,
        None,
        &multipliers,
        &shifts,
        g.output_zero_point,
        (g.act_min, g.act_max),
    )
    .narrow(g.narrow_requant);
    let (terms_at, packed_at) = (scratch, scratch + 4 * g.rows);
    let packed_len = packed4_bytes(depth);
    let mut o = output;
    for b0 in 0..g.batch0 {
        for b1 in 0..g.batch1 {
            for b2 in 0..g.batch2 {
                let l = b0 * g.lhs_batch0 + b1 * g.lhs_batch1 + b2 * g.lhs_batch2;
                let r = b0 * g.rhs_batch0 + b1 * g.rhs_batch1 + b2 * g.rhs_batch2;
                {
                    let (lb, terms) = split_src(arena, lhs, g.lhs_len, terms_at, 4 * g.rows);
                    for (m, term) in terms.chunks_exact_mut(4).enumerate() {
                        let x = lb.at(l + m * g.lhs_row..).at(..depth);
                        let sum = x.iter().fold(0i32, |s, &v| {
                            s.wrapping_add(i32::from(v as i8)).wrapping_add(offset)
                        });
                        let t = g.rhs_zero_point.wrapping_mul(sum).wrapping_neg();
                        term.copy_from_slice(&t.to_le_bytes());
                    }
                }
                for n in (0..g.cols).step_by(4) {
                    let columns = (g.cols - n).min(4);
                    {
                        let (rb, packed) = split_src(arena, rhs, g.rhs_len, packed_at, packed_len);
                        let first = rb.at(r + n * g.rhs_col..);
                        let strides = (g.rhs_depth, g.rhs_col);
                        pack4_columns_s8(first, strides, (depth, columns), packed);
                    }
                    for m in 0..g.rows {
                        let sums = {
                            let x = &lhs.bytes(arena, g.lhs_len)[l + m * g.lhs_row..][..depth];
                            let sums =
                                dot4_packed_s8(x, arena.at(packed_at..).at(..packed_len), offset);
                            let t = arena.at(terms_at + 4 * m..).at(..4);
                            let term = i32::from_le_bytes([t[0], t[1], t[2], t[3]]);
                            sums.map(|s| s.wrapping_add(term))
                        };
                        let at = o + m * g.cols + n;
                        let bytes = requantizer.four(0, sums);
                        if columns == 4 {
                            // A copy of constant length: no call to `memcpy`.
                            arena[at..at + 4].copy_from_slice(&bytes);
                        } else {
                            arena[at..at + columns].copy_from_slice(bytes.at(..columns));
                        }
                    }
                }
                o += g.rows * g.cols;
            }
        }
    }
}

/// The two inputs' bytes and the output's (`elem` bytes an element), taken once per call: the
/// inputs matched and range-checked per output element took a tiny BATCH_MATMUL (6x6 by 6x4) to
/// 1.6 times TFLM's reference kernel on the Cortex-M4. Panics if an input overlaps the output
/// (no plan makes them: BATCH_MATMUL has no access contract), as [`split`] does.
fn views_of<'b>(
    arena: &'b mut [u8],
    lhs: (Src<'b>, usize),
    rhs: (Src<'b>, usize),
    output: usize,
    elem: usize,
    g: &BatchMatmul,
) -> (&'b [u8], &'b [u8], &'b mut [u8]) {
    let out_len = elem * g.batch0 * g.batch1 * g.batch2 * g.rows * g.cols;
    match super::broadcast::disjoint(arena, lhs, rhs, output, out_len) {
        Some(views) => views,
        None => panic!("kernel input and output overlap"),
    }
}

/// int16 BATCH_MATMUL (zero points 0). Reads `2 * lhs_len` bytes at `lhs` and `2 * rhs_len` at
/// `rhs`, writes `2 * batch0 * batch1 * batch2 * rows * cols` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn batch_matmul_s16(arena: &mut [u8], lhs: Src, rhs: Src, output: usize, p: &BatchMatmul) {
    let p = super::opaque(p);
    let g = p;
    let (lb, rb, out) = views_of(
        arena,
        (lhs, 2 * g.lhs_len),
        (rhs, 2 * g.rhs_len),
        output,
        2,
        g,
    );
    check_geometry(g, lb.len() / 2, rb.len() / 2);
    let (lp, rp) = (lb.as_ptr(), rb.as_ptr());
    let (ld, rd) = (g.lhs_depth, g.rhs_depth);
    walk(g, |l0, r0, o, _| {
        let mut acc = 0i64;
        let (mut l, mut r) = (l0, r0);
        for _ in 0..g.depth {
            super::keep_rolled();
            // SAFETY: as in `batch_matmul_f32`: within the elements `check_geometry` checked.
            let (x, y) = unsafe { (i16::read_at(lp, l), i16::read_at(rp, r)) };
            acc += i64::from(i32::from(x) * i32::from(y));
            l += ld;
            r += rd;
        }
        let v = scale_16x8(acc, p.multiplier, p.shift as i8).wrapping_add(p.output_zero_point);
        let v = crate::kernels::clamp(v, p.act_min, p.act_max) as i16;
        out[2 * o..2 * o + 2].copy_from_slice(&v.to_le_bytes());
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One [2, 3] × [3, 2] product in one batch, the RHS by rows (`rhs_depth` and `rhs_col` swap
    /// for adj_y), no zero points, no requantization.
    fn two_by_two_by_three() -> BatchMatmul {
        BatchMatmul {
            batch0: 1,
            batch1: 1,
            batch2: 1,
            lhs_batch0: 0,
            lhs_batch1: 0,
            lhs_batch2: 0,
            rhs_batch0: 0,
            rhs_batch1: 0,
            rhs_batch2: 0,
            rows: 2,
            cols: 2,
            depth: 3,
            lhs_row: 3,
            lhs_depth: 1,
            rhs_depth: 2,
            rhs_col: 1,
            lhs_len: 6,
            rhs_len: 6,
            lhs_zero_point: 0,
            rhs_zero_point: 0,
            output_zero_point: 0,
            multiplier: 0,
            shift: 0,
            act_min: 0,
            act_max: 0,
            narrow_requant: false,
        }
    }

    /// [[1, 2, 3], [4, 5, 6]] x [[1, 0], [0, 1], [1, 1]] = [[4, 5], [10, 11]], and the same with
    /// the RHS given transposed (adj_y) through its strides.
    #[test]
    fn s8_plain_and_adjoint() {
        let lhs = [1i8, 2, 3, 4, 5, 6].map(|x| x as u8);
        let rhs = [1i8, 0, 0, 1, 1, 1].map(|x| x as u8);
        let rhs_t = [1i8, 0, 1, 0, 1, 1].map(|x| x as u8);
        let mut p = BatchMatmul {
            multiplier: 1 << 30,
            shift: 1,
            act_min: -128,
            act_max: 127,
            ..two_by_two_by_three()
        };
        let mut arena = [0u8; 4];
        batch_matmul_s8(&mut arena, Src::Bytes(&lhs), Src::Bytes(&rhs), 0, &p);
        assert_eq!(arena, [4, 5, 10, 11]);
        (p.rhs_depth, p.rhs_col) = (1, 3);
        let mut arena = [0u8; 4];
        batch_matmul_s8(&mut arena, Src::Bytes(&lhs), Src::Bytes(&rhs_t), 0, &p);
        assert_eq!(arena, [4, 5, 10, 11]);
        // Zero points: lhs - 1, rhs - 1 → [[0, 1, 2], [3, 4, 5]] x [[0, -1], [-1, 0], [0, 0]].
        (p.lhs_zero_point, p.rhs_zero_point) = (1, 1);
        let mut arena = [0u8; 4];
        batch_matmul_s8(&mut arena, Src::Bytes(&lhs), Src::Bytes(&rhs_t), 0, &p);
        assert_eq!(arena.map(|x| x as i8), [-1, 0, -4, -3]);
    }

    /// float32: [[1.5, 2, 3], [4, 5, 6.25]] x [[1, 0], [0, 1], [1, 1]], plain and with the RHS
    /// given transposed (adj_y) through its strides.
    #[test]
    fn f32_plain_and_adjoint() {
        let bytes = |v: [f32; 6]| -> [u8; 24] {
            let mut b = [0u8; 24];
            for (c, x) in b.chunks_exact_mut(4).zip(v) {
                c.copy_from_slice(&x.to_le_bytes());
            }
            b
        };
        let lhs = bytes([1.5, 2.0, 3.0, 4.0, 5.0, 6.25]);
        let rhs = bytes([1.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
        let rhs_t = bytes([1.0, 0.0, 1.0, 0.0, 1.0, 1.0]);
        let mut p = two_by_two_by_three();
        let run = |p: &BatchMatmul, rhs: &[u8]| {
            let mut arena = [0u8; 24];
            batch_matmul_f32(&mut arena, Src::Bytes(&lhs), Src::Bytes(rhs), 0, p);
            let out: [f32; 4] = core::array::from_fn(|i| {
                f32::from_le_bytes([
                    arena[4 * i],
                    arena[4 * i + 1],
                    arena[4 * i + 2],
                    arena[4 * i + 3],
                ])
            });
            out
        };
        assert_eq!(run(&p, &rhs), [4.5, 5.0, 10.25, 11.25]);
        (p.rhs_depth, p.rhs_col) = (1, 3);
        assert_eq!(run(&p, &rhs_t), [4.5, 5.0, 10.25, 11.25]);
    }

    #[test]
    #[should_panic(expected = "BATCH_MATMUL geometry past its operands")]
    fn f32_geometry_past_the_lhs_is_refused() {
        let lhs = [0u8; 24];
        let rhs = [0u8; 24];
        // A third row of the LHS, which holds two.
        let p = BatchMatmul {
            rows: 3,
            ..two_by_two_by_three()
        };
        let mut arena = [0u8; 24];
        batch_matmul_f32(&mut arena, Src::Bytes(&lhs), Src::Bytes(&rhs), 0, &p);
    }

    /// The contiguous-row kernels give the bytes of the strided one, plain and adjoint RHS, with
    /// zero points, depths that are not multiples of four, columns past the last block of four
    /// and a broadcast batch.
    #[test]
    fn s8_contiguous_rows_match_the_strided_walk() {
        let mut seed = 0x2545_f491u32;
        let mut byte = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed >> 24) as u8
        };
        for (rows, cols, depth, zl, zr) in [
            (3, 4, 8, 0, 0),
            (2, 7, 5, -3, 7),
            (5, 9, 13, 12, -128),
            (1, 3, 1, 127, 1),
            (4, 12, 16, -128, 0),
        ] {
            let lhs: [u8; 2 * 5 * 16] = core::array::from_fn(|_| byte());
            let rhs: [u8; 16 * 12] = core::array::from_fn(|_| byte());
            for adj_y in [false, true] {
                let p = BatchMatmul {
                    batch0: 1,
                    batch1: 1,
                    batch2: 2,
                    lhs_batch0: 0,
                    lhs_batch1: 0,
                    lhs_batch2: rows * depth,
                    rhs_batch0: 0,
                    rhs_batch1: 0,
                    rhs_batch2: 0,
                    rows,
                    cols,
                    depth,
                    lhs_row: depth,
                    lhs_depth: 1,
                    rhs_depth: if adj_y { 1 } else { cols },
                    rhs_col: if adj_y { depth } else { 1 },
                    lhs_len: 2 * rows * depth,
                    rhs_len: depth * cols,
                    lhs_zero_point: zl,
                    rhs_zero_point: zr,
                    output_zero_point: -5,
                    multiplier: 1_518_500_250,
                    shift: -6,
                    act_min: -128,
                    act_max: 127,
                    narrow_requant: depth <= 16,
                };
                let (lhs, rhs) = (Src::Bytes(&lhs[..p.lhs_len]), Src::Bytes(&rhs[..p.rhs_len]));
                let mut want = [0u8; 2 * 5 * 12];
                batch_matmul_s8(&mut want, lhs, rhs, 0, &p);
                // The scratch after the output.
                let mut arena = [0u8; 2 * 5 * 12 + 4 * 5 + 4 * 32 + 32];
                assert!(packed_scratch_bytes(rows, depth) <= 4 * 5 + 4 * 32 + 32);
                batch_matmul_s8_packed(&mut arena, lhs, rhs, 0, 2 * 5 * 12, &p);
                let got: [u8; 2 * 5 * 12] = arena[..2 * 5 * 12].try_into().expect("output");
                assert_eq!(got, want, "{rows}x{depth} by {depth}x{cols}, adj_y {adj_y}");
            }
        }
    }
}

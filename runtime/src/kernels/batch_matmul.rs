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

use super::nn_common::requant::scale_16x8;
use crate::math::multiply_by_quantized_multiplier;
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
/// `4 * batch0 * batch1 * batch2 * rows * cols` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn batch_matmul_f32(arena: &mut [u8], lhs: Src, rhs: Src, output: usize, p: &BatchMatmul) {
    let p = super::opaque(p);
    let g = p;
    walk(g, |l0, r0, o, _| {
        let (lb, rb) = (
            lhs.bytes(arena, 4 * g.lhs_len),
            rhs.bytes(arena, 4 * g.rhs_len),
        );
        let mut total = 0.0f32;
        for k in 0..g.depth {
            let (l, r) = (4 * (l0 + k * g.lhs_depth), 4 * (r0 + k * g.rhs_depth));
            let x = f32::from_le_bytes([lb[l], lb[l + 1], lb[l + 2], lb[l + 3]]);
            let y = f32::from_le_bytes([rb[r], rb[r + 1], rb[r + 2], rb[r + 3]]);
            total += x * y;
        }
        arena[output + 4 * o..output + 4 * o + 4].copy_from_slice(&total.to_le_bytes());
    });
}

/// int8 BATCH_MATMUL. Reads `lhs_len` bytes at `lhs` and `rhs_len` at `rhs`, writes
/// `batch0 * batch1 * batch2 * rows * cols` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn batch_matmul_s8(arena: &mut [u8], lhs: Src, rhs: Src, output: usize, p: &BatchMatmul) {
    let p = super::opaque(p);
    let g = p;
    let (zl, zr) = (p.lhs_zero_point, p.rhs_zero_point);
    // K * zl * zr, the constant term of the zero-point expansion (wrapping, as the whole sum).
    let constant = (g.depth as i32).wrapping_mul(zl).wrapping_mul(zr);
    // K * zl * zr - zr * (the row's LHS sum): the part of the sum fixed for a whole output row.
    let mut row_term = 0i32;
    walk(g, |l0, r0, o, row_start| {
        let (lb, rb) = (lhs.bytes(arena, g.lhs_len), rhs.bytes(arena, g.rhs_len));
        if row_start {
            let lsum = (0..g.depth).fold(0i32, |s, k| {
                s.wrapping_add(i32::from(lb[l0 + k * g.lhs_depth] as i8))
            });
            row_term = constant.wrapping_sub(zr.wrapping_mul(lsum));
        }
        let (mut acc, mut rsum) = (0i32, 0i32);
        let (mut l, mut r) = (l0, r0);
        if zl == 0 {
            // No column sum needed: one multiply-accumulate per term.
            for _ in 0..g.depth {
                acc = acc.wrapping_add(i32::from(lb[l] as i8) * i32::from(rb[r] as i8));
                l += g.lhs_depth;
                r += g.rhs_depth;
            }
        } else {
            for _ in 0..g.depth {
                let (x, y) = (i32::from(lb[l] as i8), i32::from(rb[r] as i8));
                acc = acc.wrapping_add(x * y);
                rsum = rsum.wrapping_add(y);
                l += g.lhs_depth;
                r += g.rhs_depth;
            }
        }
        let total = acc
            .wrapping_add(row_term)
            .wrapping_sub(zl.wrapping_mul(rsum));
        let v = multiply_by_quantized_multiplier(total, p.multiplier, p.shift)
            .wrapping_add(p.output_zero_point);
        arena[output + o] = crate::kernels::clamp(v, p.act_min, p.act_max) as i8 as u8;
    });
}

/// int16 BATCH_MATMUL (zero points 0). Reads `2 * lhs_len` bytes at `lhs` and `2 * rhs_len` at
/// `rhs`, writes `2 * batch0 * batch1 * batch2 * rows * cols` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn batch_matmul_s16(arena: &mut [u8], lhs: Src, rhs: Src, output: usize, p: &BatchMatmul) {
    let p = super::opaque(p);
    let g = p;
    walk(g, |l0, r0, o, _| {
        let (lb, rb) = (
            lhs.bytes(arena, 2 * g.lhs_len),
            rhs.bytes(arena, 2 * g.rhs_len),
        );
        let mut acc = 0i64;
        for k in 0..g.depth {
            let (l, r) = (2 * (l0 + k * g.lhs_depth), 2 * (r0 + k * g.rhs_depth));
            let x = i16::from_le_bytes([lb[l], lb[l + 1]]);
            let y = i16::from_le_bytes([rb[r], rb[r + 1]]);
            acc += i64::from(i32::from(x) * i32::from(y));
        }
        let v = scale_16x8(acc, p.multiplier, p.shift as i8).wrapping_add(p.output_zero_point);
        let v = crate::kernels::clamp(v, p.act_min, p.act_max) as i16;
        arena[output + 2 * o..output + 2 * o + 2].copy_from_slice(&v.to_le_bytes());
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [[1, 2, 3], [4, 5, 6]] x [[1, 0], [0, 1], [1, 1]] = [[4, 5], [10, 11]], and the same with
    /// the RHS given transposed (adj_y) through its strides.
    #[test]
    fn s8_plain_and_adjoint() {
        let lhs = [1i8, 2, 3, 4, 5, 6].map(|x| x as u8);
        let rhs = [1i8, 0, 0, 1, 1, 1].map(|x| x as u8);
        let rhs_t = [1i8, 0, 1, 0, 1, 1].map(|x| x as u8);
        let mut p = BatchMatmul {
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
            multiplier: 1 << 30,
            shift: 1,
            act_min: -128,
            act_max: 127,
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
}

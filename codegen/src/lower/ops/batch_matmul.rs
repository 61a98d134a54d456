//! BATCH_MATMUL → `batch_matmul::batch_matmul_{f32,s8,s16}` (int8 with contiguous LHS rows:
//! `batch_matmul_s8_packed`, with scratch memory for packed RHS columns), as TFLM's
//! batch_matmul.cc: ranks 2 to 5, the batch dimensions broadcast, adj_x / adj_y turned into strides (TFLM transposes into
//! scratch buffers instead; the sums are the same), int8 with TFLM's per-tensor requantization,
//! int16 with zero points 0 and its 64-bit requantization. Either operand may be a constant.

use super::conv::{narrow_requant, reduce_16x8};
use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::batch_matmul as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{Data, OpContext, Operand};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::BATCH_MATMUL,
    types: Types {
        roles: &[
            crate::lower::types::Role::In(0),
            crate::lower::types::Role::In(1),
            crate::lower::types::Role::Out(0),
        ],
        tinyaot: &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        tflm: &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
    },
    inputs: 2..=2,
    outputs: 1,
    lower: Lowering::Kernel(batch_matmul),
}];

/// The most terms of an int8 dot product whose sum of `(lhs - zp) * (rhs - zp)` (each at most
/// 255^2 in magnitude) fits in int32.
const MAX_S8_DEPTH: usize = (i32::MAX / (255 * 255)) as usize;

/// The fewest output rows for which int8 BATCH_MATMUL packs its RHS columns.
const PACKED_MIN_ROWS: usize = 8;

/// BATCH_MATMUL: BatchMatMulPrepare's checks, then the strides of the plain or adjoint operands.
fn batch_matmul(ctx: &OpContext) -> Result<Kernel> {
    let (lhs, rhs, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let (adj_x, adj_y) = ctx
        .tflite_operator()?
        .builtin_options_as_batch_mat_mul_options()
        .map_or((false, false), |o| (o.adj_x(), o.adj_y()));
    ctx.same_dtype("the RHS", rhs, lhs)?;
    ctx.same_dtype("the output", output, lhs)?;
    for (what, t) in [("LHS", lhs), ("RHS", rhs)] {
        if !(2..=5).contains(&t.shape.len()) {
            return Err(ctx.invalid(
                format!("{what} of rank {}; TFLM takes ranks 2 to 5", t.shape.len()),
                Grounds::tflm(
                    "batch_matmul.cc BatchMatMulPrepare: TF_LITE_ENSURE(rank >= 2), \
                     TF_LITE_ENSURE(rank <= 5)",
                ),
            ));
        }
    }
    // Both extended to rank 5 (leading 1s): three batch dimensions, then the matrices.
    let extend = |s: &[usize]| -> [usize; 5] {
        let mut e = [1; 5];
        e[5 - s.len()..].copy_from_slice(s);
        e
    };
    let (l, r) = (extend(&lhs.shape), extend(&rhs.shape));
    let mut batch = [1usize; 3];
    for i in 0..3 {
        if l[i] != r[i] && l[i] != 1 && r[i] != 1 {
            return Err(ctx.invalid(
                format!(
                    "batch dimensions of {:?} and {:?} do not broadcast",
                    lhs.shape, rhs.shape
                ),
                Grounds::tflm(
                    "batch_matmul.cc BatchMatMulPrepare: TF_LITE_ENSURE_EQ(rhs_dim, 1) where the \
                     batch dimensions differ and the LHS's is not 1",
                ),
            ));
        }
        batch[i] = if l[i] == 1 { r[i] } else { l[i] };
    }
    let (rows, depth) = if adj_x { (l[4], l[3]) } else { (l[3], l[4]) };
    let (rhs_depth_dim, cols) = if adj_y { (r[4], r[3]) } else { (r[3], r[4]) };
    if depth != rhs_depth_dim {
        return Err(ctx.invalid(
            format!(
                "the LHS {:?} (adj_x {adj_x}) sums over {depth} and the RHS {:?} (adj_y {adj_y}) \
                 over {rhs_depth_dim}",
                lhs.shape, rhs.shape
            ),
            Grounds::tflm("batch_matmul.cc BatchMatMulPrepare: TF_LITE_ENSURE_EQ(accum_dim_lhs, accum_dim_rhs)"),
        ));
    }
    // ReshapeOutputTensor: the output keeps its element count and has at least the result's rank.
    let out_rank = lhs.shape.len().max(rhs.shape.len());
    let out_elements = batch.iter().product::<usize>() * rows * cols;
    if output.shape.len() < out_rank || output.num_elements() != out_elements {
        return Err(ctx.invalid(
            format!(
                "output {:?}: the product of {:?} and {:?} has {out_elements} elements in rank \
                 {out_rank}",
                output.shape, lhs.shape, rhs.shape
            ),
            Grounds::tflm(
                "batch_matmul_common.cc ReshapeOutputTensor: TF_LITE_ENSURE(output_rank <= \
                 NumDimensions(output)), TF_LITE_ENSURE_EQ(orig_size, NumElements(output))",
            ),
        ));
    }
    // Element strides of each batch dimension (0 where broadcast), then of the matrices.
    let strides = |e: &[usize; 5]| -> [usize; 3] {
        let stride = |i: usize| {
            if e[i] == 1 {
                0
            } else {
                e[i + 1..].iter().product()
            }
        };
        [stride(0), stride(1), stride(2)]
    };
    let (ls, rs) = (strides(&l), strides(&r));
    let (lhs_row, lhs_depth) = if adj_x { (1, rows) } else { (depth, 1) };
    let (rhs_depth, rhs_col) = if adj_y { (1, depth) } else { (cols, 1) };
    let mut p = P::BatchMatmul {
        batch0: batch[0],
        batch1: batch[1],
        batch2: batch[2],
        lhs_batch0: ls[0],
        lhs_batch1: ls[1],
        lhs_batch2: ls[2],
        rhs_batch0: rs[0],
        rhs_batch1: rs[1],
        rhs_batch2: rs[2],
        rows,
        cols,
        depth,
        lhs_row,
        lhs_depth,
        rhs_depth,
        rhs_col,
        lhs_len: lhs.num_elements(),
        rhs_len: rhs.num_elements(),
        lhs_zero_point: 0,
        rhs_zero_point: 0,
        output_zero_point: 0,
        multiplier: 0,
        shift: 0,
        act_min: 0,
        act_max: 0,
        narrow_requant: false,
    };
    let function = match lhs.dtype {
        DType::F32 => "batch_matmul_f32",
        DType::I8 | DType::I16 => {
            let int16 = lhs.dtype == DType::I16;
            let quant = |what, t| {
                if int16 {
                    ctx.int16_quant(what, t)
                } else {
                    ctx.int8_quant(what, t)
                }
            };
            let ((s_l, z_l), (s_r, z_r), (s_o, z_o)) = (
                quant("LHS", lhs)?,
                quant("RHS", rhs)?,
                quant("output", output)?,
            );
            // GetQuantizedConvolutionMultipler (the LHS as its input, the RHS as its filter), in
            // double as the pip build computes it.
            let real = f64::from(s_l) * f64::from(s_r) / f64::from(s_o);
            let (multiplier, shift) = ctx.requantization(real)?;
            if int16 {
                if (z_l, z_r, z_o) != (0, 0, 0) {
                    return Err(ctx.invalid(
                        format!("int16 zero points {z_l}, {z_r}, {z_o}; TFLM requires 0"),
                        Grounds::tflm(
                            "batch_matmul.cc BatchMatMulPrepare: TF_LITE_ENSURE_EQ(zero_point, \
                             0) for the int16 LHS, RHS and output",
                        ),
                    ));
                }
                let (m, s) = reduce_16x8(ctx, &[multiplier], &[shift])?;
                (p.multiplier, p.shift) = (m[0], i32::from(s[0]));
                (p.act_min, p.act_max) = (i32::from(i16::MIN), i32::from(i16::MAX));
                "batch_matmul_s16"
            } else {
                if depth > MAX_S8_DEPTH {
                    return Err(ctx.invalid(
                        format!(
                            "dot products of {depth} int8 terms: their int32 sum can overflow \
                             beyond {MAX_S8_DEPTH}"
                        ),
                        Grounds::undefined(
                            "reference_ops::BatchMatMul sums (lhs - zp) * (rhs - zp) products of \
                             up to 255^2 in int32 (signed overflow)",
                        ),
                    ));
                }
                (p.multiplier, p.shift) = (multiplier, i32::from(shift));
                (p.lhs_zero_point, p.rhs_zero_point, p.output_zero_point) = (z_l, z_r, z_o);
                (p.act_min, p.act_max) = (i32::from(i8::MIN), i32::from(i8::MAX));
                // The short requantization (the convolutions' check): a right shift, and no sum
                // of `depth` products `(l - zl) * (r - zr)` reaching 2^30 in magnitude, the LHS
                // as the input and a column of the RHS as a filter row of `depth` widest terms.
                let widest = |zero_point: i32| i64::from((127 - zero_point).max(zero_point + 128));
                p.narrow_requant = narrow_requant(
                    &Data::Values(vec![shift]),
                    core::iter::once((depth as i64 * widest(z_r), 0)),
                    widest(z_l),
                    (z_o, p.act_min, p.act_max),
                );
                // Contiguous LHS rows (no adj_x): the kernel that packs blocks of four RHS
                // columns into scratch memory, for two products per `smlad`, where at least 8
                // rows share each packed block (on fewer, its scratch memory costs more of a
                // small arena than the time it saves is worth).
                if p.lhs_depth == 1 && depth > 0 && rows >= PACKED_MIN_ROWS {
                    "batch_matmul_s8_packed"
                } else {
                    "batch_matmul_s8"
                }
            }
        }
        other => {
            return Err(ctx.invalid(
                format!("input type {other}; TFLM's BATCH_MATMUL takes FLOAT32, INT8 and INT16"),
                Grounds::tflm(
                    "batch_matmul.cc BatchMatMulPrepare: TF_LITE_ENSURE(lhs type is \
                     kTfLiteFloat32, kTfLiteInt8 or kTfLiteInt16)",
                ),
            ))
        }
    };
    let mut operands = vec![
        Operand::Src(ctx.input_index(0)?),
        Operand::Src(ctx.input_index(1)?),
        Operand::Offset(ctx.output_index(0)?),
    ];
    if function == "batch_matmul_s8_packed" {
        operands.push(Operand::Scratch(
            tinyaot_runtime::kernels::batch_matmul::packed_scratch_bytes(rows, depth),
        ));
    }
    Ok(kernel(function, operands, p))
}

//! TRANSPOSE → `transpose::transpose`: a constant permutation read at generation time and turned
//! into the runtime's collapsed gather loop (TFLM: up to 5 dimensions).

use super::{collapse_gather, in_out, kernel, strides_of, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::transpose as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{OpContext, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::TRANSPOSE,
    types: Types::unary(
        &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
    ),
    inputs: 2..=2,
    outputs: 1,
    lower: Lowering::Kernel(transpose),
}];

/// TRANSPOSE (TFLM: up to 5 dimensions, constant permutation).
fn transpose(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    // int16 (16x8 models) is permuted as the other types: bytes moved, no arithmetic. TFLM's
    // Eval refuses every other type ("Only float32, int8 and int16 are supported").
    if !matches!(input.dtype, DType::I8 | DType::I16 | DType::F32) {
        return Err(ctx.invalid(
            format!(
            "the input has type {}; TFLM's TRANSPOSE refuses it (it takes FLOAT32, INT8 and INT16)",
            input.dtype
        ),
            Grounds::tflm(
                "transpose.cc TransposeEval: type not supported (kTfLiteError) but \
                 FLOAT32, INT8 and INT16",
            ),
        ));
    }
    ctx.same_dtype("the output", output, input)?;
    let rank = input.shape.len();
    if rank > 5 {
        return Err(ctx.invalid(
            format!("rank {rank}; TFLM transposes up to 5 dimensions"),
            Grounds::tflm(
                "transpose.cc TransposePrepare: TF_LITE_ENSURE_MSG(NumDimensions(input) <= 5)",
            ),
        ));
    }
    let perm = ctx.const_int32_tensor("perm", ctx.input(1)?)?;
    let mut seen = vec![false; rank];
    let valid = perm.len() == rank
        && perm.iter().all(|&p| {
            (0..rank as i64).contains(&p) && !std::mem::replace(&mut seen[p as usize], true)
        });
    if !valid {
        return Err(ctx.unsupported(format!("perm {perm:?} is not a permutation of 0..{rank}")));
    }
    let expected: Vec<usize> = perm.iter().map(|&p| input.shape[p as usize]).collect();
    if expected != output.shape {
        let why = format!(
            "output shape {:?} is not the permuted input shape {expected:?}",
            output.shape
        );
        // reference_ops::Transpose walks the output's shape, checking it against the permuted
        // input's only with TFLITE_DCHECK: a larger output reads the input out of bounds.
        return Err(
            if output.num_elements() > expected.iter().product::<usize>() {
                ctx.invalid(why, Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK))
            } else {
                ctx.unsupported(why)
            },
        );
    }
    let strides = strides_of(&input.shape);
    let dims: Vec<(usize, i64)> = perm
        .iter()
        .map(|&p| (input.shape[p as usize], strides[p as usize] as i64))
        .collect();
    let dims = collapse_gather(&dims);
    Ok(kernel(
        "transpose",
        in_out(ctx)?,
        P::Transpose {
            elem_bytes: input.dtype.size(),
            input_bytes: input.bytes,
            shape: dims.iter().map(|d| d.0).collect(),
            input_strides: dims.iter().map(|d| d.1 as usize).collect(),
        },
    ))
}

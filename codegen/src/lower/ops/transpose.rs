//! TRANSPOSE → `transpose::transpose`: a constant permutation read at generation time and turned
//! into the runtime's collapsed strided walk (TFLM: up to 5 dimensions).

use super::{collapse_walk, in_out, kernel, strides_of, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::transpose as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::OpContext;

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
    if perm.len() != rank || perm.iter().any(|&p| !(0..rank as i64).contains(&p)) {
        return Err(ctx.invalid(
            format!("perm {perm:?} does not name one of the {rank} input dimensions per dimension"),
            Grounds::tflm(
                "transpose.cc TransposePrepare: TF_LITE_ENSURE_EQ(perm size, dims) and \
                 \"Transpose op permutations array is out of bounds.\"",
            ),
        ));
    }
    if output.shape.len() != rank {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} has not the input's rank {rank}",
                output.shape
            ),
            Grounds::undefined(
                "reference_ops::Transpose reads the input's rank of dimensions from the output's \
                 shape, past its end",
            ),
        ));
    }
    // reference_ops::Transpose walks the output's shape, each dimension d stepping through the
    // input by the input's stride of dimension perm[d]; it never compares the shapes. Whatever
    // the perm (a repeated dimension too) and the output's extents, that is a defined gather as
    // long as it stays inside the input.
    let strides = strides_of(&input.shape);
    let dims: Vec<(usize, i64)> = output
        .shape
        .iter()
        .zip(&perm)
        .map(|(&extent, &p)| (extent, strides[p as usize] as i64))
        .collect();
    let last_read = dims.iter().fold(0usize, |sum, &(extent, step)| {
        sum.saturating_add(extent.saturating_sub(1).saturating_mul(step as usize))
    });
    if output.num_elements() > 0 && last_read >= input.num_elements() {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} with perm {perm:?} reads input element {last_read} of {}",
                output.shape,
                input.num_elements()
            ),
            Grounds::undefined(
                "reference_ops::Transpose walks the output's shape with the input's permuted \
                 strides, checking neither: it reads past the input",
            ),
        ));
    }
    let dims = collapse_walk(&dims);
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

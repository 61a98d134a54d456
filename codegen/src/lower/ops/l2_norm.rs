//! L2_NORMALIZATION → `l2_norm::l2_norm_{f32,s8}`, over the last dimension, as TFLM's l2norm.cc:
//! float32, and int8 whose output is in TFLM's fixed scale 1/128 (zero point 0) whatever the output
//! tensor's quantization says (TFLM's Prepare does not look at it).

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::l2_norm as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{OpContext, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::L2_NORMALIZATION,
    types: Types::unary(
        &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
        &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
    ),
    inputs: 1..=1,
    outputs: 1,
    lower: Lowering::Kernel(l2_norm),
}];

/// The most elements of a row whose int8 sum of squares (each at most 255^2) fits in int32.
const MAX_S8_DEPTH: usize = (i32::MAX / (255 * 255)) as usize;

/// L2_NORMALIZATION over the last dimension.
fn l2_norm(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let activation = ctx
        .tflite_operator()?
        .builtin_options_as_l2_norm_options()
        .map_or(0, |o| o.fused_activation_function().0);
    if activation != 0 {
        return Err(ctx.invalid(
            format!("fused activation {activation}; TFLM's L2_NORMALIZATION takes none"),
            Grounds::tflm(
                "l2norm.cc L2NormPrepare: TF_LITE_ENSURE_EQ(params->activation, kTfLiteActNone)",
            ),
        ));
    }
    if input.shape.len() > 4 {
        return Err(ctx.invalid(
            format!("input of rank {}", input.shape.len()),
            Grounds::tflm("l2norm.cc L2NormPrepare: TF_LITE_ENSURE(NumDimensions(input) <= 4)"),
        ));
    }
    ctx.same_dtype("the output", output, input)?;
    if input.shape != output.shape {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} differs from the input's {:?}",
                output.shape, input.shape
            ),
            Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
        ));
    }
    let Some(&depth) = input.shape.last() else {
        return Err(ctx.invalid(
            "the input is a scalar (rank 0)",
            Grounds::undefined("l2norm.cc L2NormEval: the trailing dimension of rank 0 is -1"),
        ));
    };
    let rows = input.num_elements().checked_div(depth).unwrap_or(0);
    match input.dtype {
        DType::F32 => Ok(kernel(
            "l2_norm_f32",
            in_out(ctx)?,
            P::L2Norm {
                rows,
                depth,
                zero_point: 0,
            },
        )),
        DType::I8 => {
            let (_, zero_point) = ctx.int8_quant("input", input)?;
            if depth > MAX_S8_DEPTH {
                return Err(ctx.invalid(
                    format!(
                        "rows of {depth} int8 elements: the sum of their squares can overflow \
                         int32 beyond {MAX_S8_DEPTH}"
                    ),
                    Grounds::undefined(
                        "reference_integer_ops::L2Normalization sums squared differences of up \
                         to 255^2 in int32 (signed overflow)",
                    ),
                ));
            }
            Ok(kernel(
                "l2_norm_s8",
                in_out(ctx)?,
                P::L2Norm {
                    rows,
                    depth,
                    zero_point,
                },
            ))
        }
        other => Err(ctx.invalid(
            format!("input type {other}; TFLM's L2_NORMALIZATION takes FLOAT32 and INT8"),
            Grounds::tflm(
                "l2norm.cc L2NormPrepare: TF_LITE_ENSURE(output type == kTfLiteFloat32 || \
                 output type == kTfLiteInt8)",
            ),
        )),
    }
}

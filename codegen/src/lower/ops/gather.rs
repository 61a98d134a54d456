//! GATHER → `gather::gather`: the rows of input 0 along `axis` named by the INT32 positions
//! (input 1), per batch of the first `batch_dims` dimensions, as TFLM's `gather.cc` computes them
//! (FLOAT32 and INT8, bytes moved unread). The sizes are computed here once; constant positions
//! are checked here, as TFLM's Eval checks them.

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::gather as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{OpContext, Operand};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::GATHER,
    types: Types {
        roles: &[Role::In(0), Role::In(1), Role::Out(0)],
        tinyaot: &[
            Sig::Each(&[Ty::F32, Ty::I32, Ty::F32]),
            Sig::Each(&[Ty::I8, Ty::I32, Ty::I8]),
        ],
        tflm: &[
            Sig::Each(&[Ty::F32, Ty::I32, Ty::F32]),
            Sig::Each(&[Ty::I8, Ty::I32, Ty::I8]),
        ],
    },
    inputs: 2..=2,
    outputs: 1,
    lower: Lowering::Kernel(gather),
}];

/// GATHER: GatherOptions' axis and batch_dims (TFLM's zeroed defaults without them), resolved and
/// checked as TFLM's GatherPrepare does.
fn gather(ctx: &OpContext) -> Result<Kernel> {
    let (input, positions, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    if positions.dtype != DType::I32 {
        return Err(ctx.invalid(
            format!(
                "the positions have type {}; TFLM's GATHER takes INT32 positions",
                positions.dtype
            ),
            Grounds::tflm("gather.cc GatherPrepare: positions type not supported but INT32"),
        ));
    }
    if !matches!(input.dtype, DType::F32 | DType::I8) {
        return Err(ctx.invalid(
            format!(
                "the input has type {}; TFLM's GATHER refuses it (it takes FLOAT32 and INT8)",
                input.dtype
            ),
            Grounds::tflm("gather.cc GatherPrepare: input type not supported but FLOAT32 and INT8"),
        ));
    }
    // TFLM sets the output's type to the input's: one of another declared type would be read as
    // the input's.
    ctx.same_dtype("the output", output, input)?;
    let (axis, batch_dims) = ctx
        .tflite_operator()?
        .builtin_options_as_gather_options()
        .map_or((0, 0), |o| (o.axis(), o.batch_dims()));
    let rank = input.shape.len() as i64;
    let coords_rank = positions.shape.len() as i64;
    let a = if axis < 0 {
        i64::from(axis) + rank
    } else {
        i64::from(axis)
    };
    if a < 0 || a >= rank {
        return Err(ctx.invalid(
            format!("axis {axis} is out of range for the input's rank {rank}"),
            Grounds::tflm(
                "gather.cc GatherPrepare: TF_LITE_ENSURE(0 <= axis < NumDimensions(input))",
            ),
        ));
    }
    let b = if batch_dims < 0 {
        i64::from(batch_dims) + coords_rank
    } else {
        i64::from(batch_dims)
    };
    if b > a || b < 0 || b >= rank || b > coords_rank {
        return Err(ctx.invalid(
            format!(
                "batch_dims {batch_dims} (axis {a}, input rank {rank}, positions rank \
                 {coords_rank}) is out of range"
            ),
            Grounds::tflm(
                "gather.cc GatherPrepare: TF_LITE_ENSURE(batch_dims <= axis, 0 <= batch_dims < \
                 NumDimensions(input), batch_dims <= NumDimensions(positions))",
            ),
        ));
    }
    let (a, b) = (a as usize, b as usize);
    if input.shape[..b] != positions.shape[..b] {
        return Err(ctx.invalid(
            format!(
                "the first {b} dimensions of the input {:?} and the positions {:?} differ",
                input.shape, positions.shape
            ),
            Grounds::tflm(
                "gather.cc GatherPrepare: TF_LITE_ENSURE_EQ(input dims[i], positions dims[i]) \
                 for i < batch_dims",
            ),
        ));
    }
    let expected: Vec<usize> = input.shape[..a]
        .iter()
        .chain(&positions.shape[b..])
        .chain(&input.shape[a + 1..])
        .copied()
        .collect();
    if output.shape != expected {
        return Err(ctx.unsupported(format!(
            "the output has shape {:?}; TFLM's GATHER gives it the shape {expected:?} (its \
             Prepare rewrites the output's dimensions), which tinyaot's static plan needs as \
             written",
            output.shape
        )));
    }
    let axis_size = input.shape[a];
    if positions.is_constant() {
        let values = ctx.const_ints("the positions", positions)?;
        if let Some(&bad) = values.iter().find(|&&v| v < 0 || v >= axis_size as i64) {
            return Err(ctx.invalid(
                format!("position {bad} is outside the axis' {axis_size} entries"),
                Grounds::tflm(
                    "gather.cc Gather: kTfLiteError at Eval on a position outside [0, axis \
                     size) (the TFLM build the goldens come from; older sources TFLITE_DCHECK it)",
                ),
            ));
        }
    }
    let product = |dims: &[usize]| dims.iter().product::<usize>();
    Ok(kernel(
        "gather",
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::Gather {
            row_bytes: product(&input.shape[a + 1..]) * input.dtype.size(),
            batches: product(&input.shape[..b]),
            outer: product(&input.shape[b..a]),
            axis_size,
            coords: product(&positions.shape[b..]),
        },
    ))
}

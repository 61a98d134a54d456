//! DYNAMIC_UPDATE_SLICE → `dynamic_update_slice::dynamic_update_slice`: the operand with the
//! update written over it at the start indices, as TFLM's `dynamic_update_slice.cc` computes it
//! (FLOAT32, INT8, INT16, INT32, elements moved unread; INT32 or INT64 start indices, constant or
//! computed at run time, clamped by the kernel as TFLM's CalculateClampedStartIndices clamps
//! them, so no index is out of range). TFLM's Prepare also accepts INT64 and BOOL operands, which
//! its Eval then refuses: refused here on those grounds.

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::dynamic_update_slice as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{OpContext, Operand};

/// The signatures of the operand (the update and the output have its type), the start indices
/// (INT32 or INT64) and the output.
const TYPES: &[Sig] = &[
    Sig::Each(&[Ty::F32, Ty::I32, Ty::F32]),
    Sig::Each(&[Ty::F32, Ty::I64, Ty::F32]),
    Sig::Each(&[Ty::I8, Ty::I32, Ty::I8]),
    Sig::Each(&[Ty::I8, Ty::I64, Ty::I8]),
    Sig::Each(&[Ty::I16, Ty::I32, Ty::I16]),
    Sig::Each(&[Ty::I16, Ty::I64, Ty::I16]),
    Sig::Each(&[Ty::I32, Ty::I32, Ty::I32]),
    Sig::Each(&[Ty::I32, Ty::I64, Ty::I32]),
];

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::DYNAMIC_UPDATE_SLICE,
    types: Types {
        roles: &[Role::In(0), Role::In(2), Role::Out(0)],
        tinyaot: TYPES,
        tflm: TYPES,
    },
    inputs: 3..=3,
    outputs: 1,
    lower: Lowering::Kernel(dynamic_update_slice),
}];

/// DYNAMIC_UPDATE_SLICE: Prepare's checks (operand and update of one type, a vector of one INT32
/// or INT64 start index per dimension, an update of the operand's rank no larger along any
/// dimension) and Eval's types.
fn dynamic_update_slice(ctx: &OpContext) -> Result<Kernel> {
    let (operand, update, start, output) =
        (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.output(0)?);
    if update.dtype != operand.dtype {
        return Err(ctx.invalid(
            format!(
                "the update has type {}, the operand {}",
                update.dtype, operand.dtype
            ),
            Grounds::tflm(
                "dynamic_update_slice.cc Prepare: TF_LITE_ENSURE_TYPES_EQ(operand->type, \
                 update->type)",
            ),
        ));
    }
    if !matches!(start.dtype, DType::I32 | DType::I64) {
        return Err(ctx.invalid(
            format!(
                "the start indices have type {}; TFLM takes INT32 or INT64",
                start.dtype
            ),
            Grounds::tflm(
                "dynamic_update_slice.cc Prepare: TF_LITE_ENSURE(start_indices->type == \
                 kTfLiteInt32 || start_indices->type == kTfLiteInt64)",
            ),
        ));
    }
    let rank = operand.shape.len();
    if rank == 0 {
        return Err(ctx.invalid(
            "the operand is a scalar; TFLM takes an operand of 1 to 6 dimensions",
            Grounds::tflm(
                "dynamic_update_slice.cc Prepare: TF_LITE_ENSURE(NumDimensions(operand) >= 1 && \
                 NumDimensions(operand) <= kMaxDimensions) (the TFLM build the goldens come \
                 from; older sources lack it)",
            ),
        ));
    }
    if start.shape.len() != 1 || start.shape[0] != rank || update.shape.len() != rank {
        return Err(ctx.invalid(
            format!(
                "operand {:?}, update {:?}, start indices {:?}: TFLM takes a vector of one start \
                 index per dimension and an update of the operand's rank",
                operand.shape, update.shape, start.shape
            ),
            Grounds::tflm(
                "dynamic_update_slice.cc Prepare: TF_LITE_ENSURE_EQ(NumDimensions(start_indices), \
                 1), SizeOfDimension(start_indices, 0) == NumDimensions(operand), \
                 NumDimensions(update) == NumDimensions(operand)",
            ),
        ));
    }
    if update.shape.iter().zip(&operand.shape).any(|(u, o)| u > o) {
        return Err(ctx.invalid(
            format!(
                "the update {:?} is larger than the operand {:?}",
                update.shape, operand.shape
            ),
            Grounds::tflm(
                "dynamic_update_slice.cc Prepare: TF_LITE_ENSURE(SizeOfDimension(update, i) <= \
                 SizeOfDimension(operand, i))",
            ),
        ));
    }
    if !matches!(
        operand.dtype,
        DType::F32 | DType::I8 | DType::I16 | DType::I32
    ) {
        return Err(ctx.invalid(
            format!(
                "the operand has type {}; TFLM's DYNAMIC_UPDATE_SLICE computes FLOAT32, INT8, \
                 INT16 and INT32",
                operand.dtype
            ),
            Grounds::tflm(
                "dynamic_update_slice.cc Eval: kTfLiteError (\"Operand type ... not \
                 supported\") for any other type",
            ),
        ));
    }
    // TFLM writes the output as the operand's type and shape (its Prepare does not check them).
    ctx.same_dtype("the output", output, operand)?;
    if output.shape != operand.shape {
        return Err(ctx.invalid(
            format!(
                "the output has shape {:?}, the operand {:?}",
                output.shape, operand.shape
            ),
            Grounds::undefined(
                "TFLM's Eval writes the operand's elements at the operand's strides into the \
                 output whatever its shape: past a smaller output, leaving a larger one's other \
                 elements unwritten",
            ),
        ));
    }
    let output_strides: Vec<usize> = (0..rank)
        .map(|d| operand.shape[d + 1..].iter().product())
        .collect();
    Ok(kernel(
        "dynamic_update_slice",
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Src(ctx.input_index(2)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::DynamicUpdateSlice {
            elem_bytes: operand.dtype.size(),
            operand_dims: operand.shape.clone(),
            update_dims: update.shape.clone(),
            output_strides,
            index_bytes: start.dtype.size(),
        },
    ))
}

//! BROADCAST_ARGS → `broadcast_args::broadcast_args`: the shape two INT32 or INT64 shape vectors
//! broadcast to, as TFLM's `broadcast_args.cc` computes it. Constant shapes (the usual case: the
//! SHAPEs of static tensors, folded) are folded through the kernel at generation time, where two
//! dimensions that do not broadcast are refused (TFLM aborts on its TFLITE_CHECK_EQ); shapes
//! computed at run time run the kernel, which writes the first shape's dimension there.

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::broadcast_args as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{OpContext, Operand};

/// The signatures of the first shape and the output (the second shape has their type).
const TYPES: &[Sig] = &[
    Sig::Each(&[Ty::I32, Ty::I32]),
    Sig::Each(&[Ty::I64, Ty::I64]),
];

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::BROADCAST_ARGS,
    types: Types {
        roles: &[Role::In(0), Role::Out(0)],
        tinyaot: TYPES,
        tflm: TYPES,
    },
    inputs: 2..=2,
    outputs: 1,
    lower: Lowering::Kernel(broadcast_args),
}];

/// BROADCAST_ARGS: BroadcastArgsPrepare's checks (one type of INT32 or INT64 for the three
/// vectors, each of rank 1), and the reference's check of constant shapes.
fn broadcast_args(ctx: &OpContext) -> Result<Kernel> {
    let (shape1, shape2, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    if !matches!(shape1.dtype, DType::I32 | DType::I64)
        || shape2.dtype != shape1.dtype
        || output.dtype != shape1.dtype
    {
        return Err(ctx.invalid(
            format!(
                "the shapes have types {} and {}, the output {}; TFLM takes one type, INT32 or \
                 INT64",
                shape1.dtype, shape2.dtype, output.dtype
            ),
            Grounds::tflm(
                "broadcast_args.cc BroadcastArgsPrepare: shape1->type == kTfLiteInt32 || \
                 kTfLiteInt64, TF_LITE_ENSURE_EQ(shape1->type, shape2->type), \
                 TF_LITE_ENSURE_EQ(shape1->type, output->type)",
            ),
        ));
    }
    if shape1.shape.len() != 1 || shape2.shape.len() != 1 || output.shape.len() != 1 {
        return Err(ctx.invalid(
            format!(
                "the shapes {:?} and {:?} and the output {:?} are not all vectors",
                shape1.shape, shape2.shape, output.shape
            ),
            Grounds::tflm(
                "broadcast_args.cc BroadcastArgsPrepare: TF_LITE_ENSURE_EQ(NumDimensions(...), \
                 1) for both shapes and the output",
            ),
        ));
    }
    let (len1, len2, out_len) = (shape1.shape[0], shape2.shape[0], output.shape[0]);
    if shape1.is_constant() && shape2.is_constant() {
        // TFLM's reference reads each dimension into an `int`.
        let a = ctx.const_ints("the first shape", shape1)?;
        let b = ctx.const_ints("the second shape", shape2)?;
        let dim = |v: &[i64], back: usize| {
            if back < v.len() {
                v[v.len() - 1 - back] as i32
            } else {
                1
            }
        };
        for back in 0..out_len {
            let (x, y) = (dim(&a, back), dim(&b, back));
            if x != 1 && y != 1 && x != y {
                return Err(ctx.invalid(
                    format!("the shapes {a:?} and {b:?} do not broadcast ({x} against {y})"),
                    Grounds::tflm(
                        "reference/broadcast_args.h BroadcastArgs: TFLITE_CHECK_EQ(shape1_i, \
                         shape2_i) aborts at Eval",
                    ),
                ));
            }
        }
    }
    Ok(kernel(
        "broadcast_args",
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::BroadcastArgs {
            len1,
            len2,
            out_len,
            elem_bytes: shape1.dtype.size(),
        },
    ))
}

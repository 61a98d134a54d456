//! LOGICAL_AND, LOGICAL_OR → `logical::logical_{and,or}` over the element-wise family's collapsed
//! broadcast; LOGICAL_NOT → `logical::logical_not`. BOOL only.
//!
//! TFLM's `logical.cc` has no Prepare: its Eval reads both inputs and the output as `bool`
//! whatever their type. tinyaot refuses other types (TFLM would read their bytes as bools) on the
//! specification's ground. LOGICAL_NOT's `GenericPrepare<IsLogicalSupportedType>` refuses a
//! non-BOOL input and an output of another type.

use super::elementwise::broadcast::Broadcast;
use super::elementwise::{binary_layout_as, OtherShape};
use super::{kernel, unary, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::logical as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::OpContext;

/// LOGICAL_AND and LOGICAL_OR: both inputs and the output BOOL.
const BINARY_TYPES: Types = Types {
    roles: &[Role::In(0), Role::In(1), Role::Out(0)],
    tinyaot: &[Sig::Same(Ty::Bool)],
    tflm: &[Sig::Same(Ty::Bool)],
};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::LOGICAL_AND,
        types: BINARY_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| binary(ctx, "logical_and")),
    },
    OpEntry {
        code: OpCode::LOGICAL_OR,
        types: BINARY_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| binary(ctx, "logical_or")),
    },
    OpEntry {
        code: OpCode::LOGICAL_NOT,
        types: Types::unary(&[Sig::Same(Ty::Bool)], &[Sig::Same(Ty::Bool)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(not),
    },
];

/// LOGICAL_AND or LOGICAL_OR (`function`) of two BOOL inputs, broadcast.
fn binary(ctx: &OpContext, function: &'static str) -> Result<Kernel> {
    let a = ctx.input(0)?;
    if a.dtype != DType::Bool {
        return Err(ctx.invalid(
            format!("input type {}; TFLM's kernel reads BOOL", a.dtype),
            Grounds::spec(
                "TFLite's LOGICAL_AND and LOGICAL_OR take BOOL tensors (logical_common.cc \
                 LogicalImpl reads any input as bool)",
            ),
        ));
    }
    let (
        Broadcast {
            shape,
            a_strides,
            b_strides,
        },
        operands,
    ) = binary_layout_as(
        ctx,
        // An output of another shape: TFLM runs flat when the inputs' shapes are equal
        // (logical_common.cc LogicalImpl, HaveSameShapes), else BroadcastBinaryFunction4DSlow,
        // which is BroadcastBinaryOpSimple over the output's shape.
        OtherShape::FlatOrSimple { extended: false },
    )?;
    let p = P::Logical {
        shape,
        a_strides,
        b_strides,
    };
    Ok(kernel(function, operands, p))
}

/// LOGICAL_NOT of a BOOL input.
fn not(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if input.dtype != DType::Bool {
        return Err(ctx.invalid(
            format!(
                "input type {}; TFLM's LOGICAL_NOT takes BOOL only",
                input.dtype
            ),
            Grounds::tflm(
                "elementwise.cc GenericPrepare<IsLogicalSupportedType>: \"Input data type %s \
                 (%d) is not supported.\" (kTfLiteError)",
            ),
        ));
    }
    ctx.same_dtype("the output", output, input)?;
    unary(ctx, "logical_not", |len| P::LogicalNot { len })
}

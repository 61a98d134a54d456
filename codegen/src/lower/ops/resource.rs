//! Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE) and CALL_ONCE, after the
//! loader's resource pass (`load/resource.rs`) has made each variable a variable tensor of the IR
//! and evaluated the init subgraph: READ_VARIABLE copies the variable's tensor to its output,
//! ASSIGN_VARIABLE copies its value into the variable's tensor (both lower to
//! [`CallKind::Alias`](crate::lower::CallKind::Alias), a byte copy, since the planner never lets
//! an arena tensor share the state region), and VAR_HANDLE and CALL_ONCE do nothing at run time.
//! An alias family: no kernel module of its own.

use super::{Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::OpCode;
use crate::lower::types::{Sig, Types};
use crate::lower::OpContext;

/// The operators of this family. The arities are those the resource pass leaves.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::READ_VARIABLE,
        types: Types::unary(&[Sig::Any], &[Sig::Any]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Alias(variable_copy),
    },
    OpEntry {
        code: OpCode::ASSIGN_VARIABLE,
        types: Types::unary(&[Sig::Any], &[Sig::Any]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Alias(variable_copy),
    },
    OpEntry {
        code: OpCode::VAR_HANDLE,
        types: Types::UNTYPED,
        inputs: 0..=0,
        outputs: 0,
        lower: Lowering::Nothing(compiled_away),
    },
    OpEntry {
        code: OpCode::CALL_ONCE,
        types: Types::UNTYPED,
        inputs: 0..=0,
        outputs: 0,
        lower: Lowering::Nothing(compiled_away),
    },
];

/// READ_VARIABLE, ASSIGN_VARIABLE: one side is the variable's tensor (the resource pass checked
/// that type and size agree, which [`OpContext::alias`] checks again).
fn variable_copy(ctx: &OpContext) -> Result<()> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if input.is_variable == output.is_variable {
        return Err(ctx.invalid(
            "exactly one of its input and output must be a resource variable's tensor (a model \
             whose resource operators the loader did not resolve)",
            Grounds::undefined(
                "TFLM would treat a resource handle's id as the variable's value, or \
                 the value as an id",
            ),
        ));
    }
    Ok(())
}

/// VAR_HANDLE, CALL_ONCE: the loader resolved them.
fn compiled_away(_ctx: &OpContext) -> Result<()> {
    Ok(())
}

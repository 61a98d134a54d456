//! IF, after the loader has inlined its branches (`load/control.rs`): each branch's operators are
//! operators of the graph that run only when the condition selects their branch
//! ([`Operator::branch`](crate::ir::Operator::branch)), and the IF itself becomes byte copies:
//! its inputs into the taken branch's inputs ([`IfStep::Copy`], a [`CallKind::Alias`] copy the
//! planner never shares, since the IF is not reshape-like), and each output from the branch that
//! ran ([`IfStep::Select`], a [`CallKind::Select`]). An alias family: no kernel module of its own.

use super::{Lowering, OpEntry};
use crate::error::Result;
use crate::ir::{DType, IfStep, OpCode, Options};
use crate::lower::types::{Role, Sig, Types};
use crate::lower::{CallKind, OpContext};

/// The operators of this family. The arities are those of the steps the loader leaves (a copy
/// has one input, a selection three).
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::IF,
    // The condition is BOOL (the loader checks it); the tensors moved are of any type, their
    // bytes copied unread.
    types: Types {
        roles: &[Role::In(0)],
        tinyaot: &[Sig::Any],
        tflm: &[Sig::Any],
    },
    inputs: 1..=3,
    outputs: 1,
    lower: Lowering::Step(if_step),
}];

/// An IF's step: its copy into a branch input, or its selection of an output. The loader checked
/// the types and sizes against TFLM's Prepare and Eval; they are checked again here because a
/// wrong size would copy out of bounds.
fn if_step(ctx: &OpContext) -> Result<CallKind> {
    match ctx.op().options {
        Options::If(IfStep::Copy) if ctx.op().inputs.len() == 1 => ctx.alias(),
        Options::If(IfStep::Select) if ctx.op().inputs.len() == 3 => {
            let (cond, then, otherwise, output) = (
                ctx.input_index(0)?,
                ctx.input_index(1)?,
                ctx.input_index(2)?,
                ctx.output_index(0)?,
            );
            let tensors = &ctx.graph().tensors;
            let agree = |t: usize| {
                tensors[t].dtype == tensors[output].dtype
                    && tensors[t].bytes == tensors[output].bytes
            };
            if tensors[cond].dtype != DType::Bool
                || tensors[cond].num_elements() != 1
                || !agree(then)
                || !agree(otherwise)
            {
                return Err(ctx.internal(
                    "the loader left an IF selection whose condition is not one BOOL or whose \
                     branch outputs differ from the IF's output in type or size",
                ));
            }
            Ok(CallKind::Select {
                cond,
                then,
                otherwise,
                output,
            })
        }
        _ => Err(ctx.internal(
            "an IF the loader did not inline (its branches are inlined when the model is loaded)",
        )),
    }
}

//! IF, after the loader has inlined its branches (`load/control.rs`): each branch's operators are
//! operators of the graph that run only when the condition selects their branch
//! ([`Operator::branch`](crate::ir::Operator::branch)), and the IF itself becomes byte copies:
//! its inputs into the taken branch's inputs ([`IfStep::Copy`], a [`CallKind::Alias`] copy the
//! planner never shares, since the IF is not reshape-like), and each output from the branch that
//! ran ([`IfStep::Select`], a [`CallKind::Select`]). An alias family: no kernel module of its own.
//!
//! WHILE, after the loader has inlined its condition and body as a loop (`load/while_loop.rs`):
//! its copies ([`WhileStep::Copy`]) are [`CallKind::Alias`] copies, or, from a constant (an
//! initial value, or a body output the body never changes), the one-input concatenation kernel,
//! which reads its input from flash; its exit ([`WhileStep::Exit`]) is a [`CallKind::Exit`].

use super::{Lowering, OpEntry};
use crate::error::Error;
use crate::error::Result;
use crate::ir::{DType, IfStep, OpCode, Options, WhileStep};
use crate::lower::types::{Role, Sig, Types};
use crate::lower::{CallKind, OpContext};

/// The operators of this family. The arities are those of the steps the loader leaves (a copy
/// has one input, a selection three).
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
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
    },
    OpEntry {
        code: OpCode::WHILE,
        // The tensors moved are of any type, their bytes copied unread; the exit reads a BOOL (the
        // loader checks it).
        types: Types {
            roles: &[Role::In(0)],
            tinyaot: &[Sig::Any],
            tflm: &[Sig::Any],
        },
        inputs: 1..=1,
        outputs: super::ANY_OUTPUTS,
        lower: Lowering::Step(while_step),
    },
];

/// A WHILE's step: a copy (from a constant by the one-input concatenation), or its exit. The
/// loader checked the types and sizes against TFLM's Prepare and Eval; `alias` checks them again
/// because a wrong size would copy out of bounds.
fn while_step(ctx: &OpContext) -> Result<CallKind> {
    let op = ctx.op();
    match (&op.options, op.outputs.len()) {
        // A copy from a constant (an initial value, or a body output the body never changes) is
        // the one-input concatenation, which reads its input from flash (`OpContext::alias`).
        (Options::While(WhileStep::Copy), 1) => ctx.alias(),
        (Options::While(WhileStep::Exit), 0) => {
            let cond = ctx.input_index(0)?;
            let c = &ctx.graph().tensors[cond];
            if c.is_constant() {
                // Folding made it one: the condition computes it from constants alone.
                return Err(Error::Unsupported {
                    detail: format!(
                        "operator #{} WHILE: the output of its condition is computed from \
                         constants alone, so the loop would run never or forever; tinyaot \
                         compiles WHILE loops whose condition depends on the loop's tensors",
                        op.source_index
                    ),
                });
            }
            if c.dtype != DType::Bool || c.num_elements() == 0 {
                return Err(ctx.internal(
                    "the loader left a WHILE exit whose condition is not a BOOL with an element",
                ));
            }
            Ok(CallKind::Exit { cond })
        }
        _ => Err(ctx.internal(
            "a WHILE the loader did not inline (its subgraphs are inlined when the model is \
             loaded)",
        )),
    }
}

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

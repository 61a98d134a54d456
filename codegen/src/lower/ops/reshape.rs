//! RESHAPE, SQUEEZE and EXPAND_DIMS: the output is the input's bytes under another shape, so these
//! lower to [`CallKind::Alias`](crate::lower::CallKind::Alias) and have no kernel module of their
//! own (no `runtime/src/kernels/reshape.rs`, no `templates/c/kernels/reshape.*`). The planner lets
//! the output share the input's storage; when the plan keeps them apart, the emitters copy the
//! bytes with the `copy` kernel module.
//!
//! The functions here only check what TFLM's Prepare checks: the shapes must be what the op's
//! definition gives.

use super::{Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Options};
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::OpContext;

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::RESHAPE,
        types: Types::unary(&[Sig::Any], &[Sig::Any]),
        // The new shape comes from the options or from a second (shape) input.
        inputs: 1..=2,
        outputs: 1,
        lower: Lowering::Alias(reshape),
    },
    OpEntry {
        code: OpCode::SQUEEZE,
        types: Types::unary(&[Sig::Any], &[Sig::Any]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Alias(squeeze),
    },
    OpEntry {
        code: OpCode::EXPAND_DIMS,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Alias(expand_dims),
    },
];

/// RESHAPE, EXPAND_DIMS: the input must be computed at run time (the sizes and types are checked
/// by [`OpContext::alias`]).
fn reshape(ctx: &OpContext) -> Result<()> {
    if ctx.input(0)?.is_constant() && !ctx.constant_in_arena_ok() {
        return Err(ctx.unsupported(
            "the input is a constant tensor; reshaping a constant at run time is not supported \
             (fold it into a constant of the new shape offline, as the TFLite converter does)",
        ));
    }
    Ok(())
}

/// EXPAND_DIMS: as [`reshape`], for the types TFLM's kernel copies (its Eval: "Expand_Dims only
/// currently supports int8, int16 and float32").
fn expand_dims(ctx: &OpContext) -> Result<()> {
    let input = ctx.input(0)?;
    if !matches!(input.dtype, DType::F32 | DType::I8 | DType::I16) {
        return Err(ctx.invalid(
            format!(
                "the input has type {}; TFLM's EXPAND_DIMS refuses it (it takes FLOAT32, INT8 and \
                 INT16)",
                input.dtype
            ),
            Grounds::tflm(
                "expand_dims.cc ExpandDimsEval: type not supported (kTfLiteError) but \
                 FLOAT32, INT8 and INT16",
            ),
        ));
    }
    // Whatever wrote the input (a constant too): the copy's element type is the input's.
    let output = ctx.output(0)?;
    if output.dtype != input.dtype {
        return Err(ctx.invalid(
            format!(
                "the output has type {}, the input {}: TFLM's EXPAND_DIMS copies the input's \
                 elements as the input's type whatever the output's",
                output.dtype, input.dtype
            ),
            Grounds::undefined(
                "expand_dims.cc: ExpandDimsPrepare sets the output's type on a temporary tensor \
                 only, and ExpandDimsEval copies ElementCount(input) elements of the input's type \
                 into the output: a narrower output is written past its end, a wider one left \
                 partly unwritten (its other bytes uninitialized)",
            ),
        ));
    }
    reshape(ctx)
}

/// SQUEEZE: as [`reshape`], and the output shape must be the input's without the squeezed
/// dimensions (all of size 1, or those `squeeze_dims` names).
fn squeeze(ctx: &OpContext) -> Result<()> {
    reshape(ctx)?;
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let dims = match &ctx.op().options {
        Options::Squeeze { squeeze_dims } => squeeze_dims.clone(),
        _ => Vec::new(),
    };
    let rank = input.shape.len();
    let mut squeezed = vec![false; rank];
    if dims.is_empty() {
        for (d, &size) in input.shape.iter().enumerate() {
            squeezed[d] = size == 1;
        }
    }
    for &d in &dims {
        let axis = if d < 0 {
            i64::from(d) + rank as i64
        } else {
            i64::from(d)
        };
        if axis < 0 || axis >= rank as i64 || input.shape[axis as usize] != 1 {
            return Err(ctx.invalid(
                format!(
                    "squeeze_dims {dims:?}: {d} is not a dimension of size 1 of the input {:?}",
                    input.shape
                ),
                Grounds::tflm(
                    "squeeze.cc SqueezePrepare: TF_LITE_ENSURE(squeeze dimension in range \
                     and of size 1)",
                ),
            ));
        }
        squeezed[axis as usize] = true;
    }
    let expected: Vec<usize> = (0..rank)
        .filter(|&d| !squeezed[d])
        .map(|d| input.shape[d])
        .collect();
    if output.shape != expected {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} is not the squeezed input shape {expected:?}",
                output.shape
            ),
            Grounds::tflm(
                "squeeze.cc SqueezePrepare: TFLITE_CHECK_GE(each output dim, the \
                 squeezed input's) aborts, and SqueezeEval: TF_LITE_ENSURE_EQ(input \
                 bytes, output bytes)",
            ),
        ));
    }
    Ok(())
}

//! SHAPE and ZEROS_LIKE: values known from the input's static shape alone.
//!
//! SHAPE: the input's dimensions as an INT32 vector. Shapes are static in tinyaot (the loader
//! reads `shape`, never a dynamic one), so SHAPE is always known at generation time: the constant
//! folder ([`crate::fold`]) replaces its output by [`shape_bytes`], and the chain converters build
//! on it for a dynamic batch (SHAPE → STRIDED_SLICE → PACK → RESHAPE) folds away with it. No
//! kernel module: the lowering here only validates what TFLM validates, for the one SHAPE the
//! folder leaves (one whose output is a graph input).
//!
//! ZEROS_LIKE: zeros of the input's type and shape (TFLM's zeros_like.cc: FLOAT32, INT8, INT32,
//! INT64; its output takes the input's type), folded the same way into a constant of zero bytes
//! ([`zeros_like_bytes`]). The input's producer still runs, as in TFLM (its output is then only
//! not read); the converter folds `tf.zeros_like` of a static shape itself, so ZEROS_LIKE comes
//! from other tools.

use super::{Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::OpContext;

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::SHAPE,
        // The input's values are never read: only the output is typed.
        types: Types {
            roles: &[Role::Out(0)],
            tinyaot: &[Sig::Same(Ty::I32)],
            tflm: &[Sig::Same(Ty::I32)],
        },
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Nothing(shape),
    },
    OpEntry {
        code: OpCode::ZEROS_LIKE,
        types: Types::unary(ZEROS_LIKE_TYPES, ZEROS_LIKE_TYPES),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Nothing(zeros_like),
    },
];

/// ZEROS_LIKE's types (TFLM's ZerosLikeEval switch).
const ZEROS_LIKE_TYPES: &[Sig] = &[
    Sig::Same(Ty::F32),
    Sig::Same(Ty::I8),
    Sig::Same(Ty::I32),
    Sig::Same(Ty::I64),
];

/// The bytes of SHAPE's output (little-endian INT32 dimensions of its input), after TFLM's
/// checks: what the constant folder writes.
pub(crate) fn shape_bytes(ctx: &OpContext) -> Result<Vec<u8>> {
    // TFLM's ShapePrepare: one input, one output (lowering checks it too; the folder comes first).
    ctx.expect_arity(1, 1, 1)?;
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if output.dtype != DType::I32 {
        return Err(ctx.invalid(
            format!(
                "the output has type {}; TFLM's SHAPE refuses it (it writes INT32)",
                output.dtype
            ),
            Grounds::tflm("shape.cc ShapeEval: output type not supported (kTfLiteError) but INT32"),
        ));
    }
    if output.num_elements() != input.shape.len() {
        return Err(ctx.invalid(
            format!(
                "the output has shape {:?}, not one element per dimension of the input {:?}",
                output.shape, input.shape
            ),
            Grounds::undefined(
                "shape.cc ExtractShape writes one int32 per input dimension whatever the \
                 output's size: past a shorter output's end, or leaving a longer one's tail \
                 unwritten",
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(4 * input.shape.len());
    for &d in &input.shape {
        let d = i32::try_from(d).map_err(|_| ctx.internal(format!("dimension {d} over int32")))?;
        bytes.extend_from_slice(&d.to_le_bytes());
    }
    Ok(bytes)
}

/// SHAPE reaching lowering: the folder folds every valid one it may, so this one is refused
/// with TFLM's grounds, or (its output a graph input) as unsupported.
fn shape(ctx: &OpContext) -> Result<()> {
    shape_bytes(ctx)?;
    Err(ctx.unsupported(
        "its output is a graph input; supported: a SHAPE whose output the generator can make a \
         constant (its input's static shape)",
    ))
}

/// The bytes of ZEROS_LIKE's output (zeros of its size), after TFLM's checks: what the constant
/// folder writes.
pub(crate) fn zeros_like_bytes(ctx: &OpContext) -> Result<Vec<u8>> {
    ctx.expect_arity(1, 1, 1)?;
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if !matches!(
        input.dtype,
        DType::F32 | DType::I8 | DType::I32 | DType::I64
    ) {
        return Err(ctx.invalid(
            format!(
                "the input has type {}; TFLM's ZEROS_LIKE takes FLOAT32, INT8, INT32 and INT64",
                input.dtype
            ),
            Grounds::tflm("zeros_like.cc ZerosLikeEval: type not supported (kTfLiteError)"),
        ));
    }
    // TFLM's Prepare sets the output's type to the input's: one declared otherwise would be
    // written as the input's.
    ctx.same_dtype("the output", output, input)?;
    super::same_size(ctx, input, output)?;
    Ok(vec![0; output.bytes])
}

/// ZEROS_LIKE reaching lowering: the folder folds every valid one it may, so this one is refused
/// with TFLM's grounds, or (its output a graph input) as unsupported.
fn zeros_like(ctx: &OpContext) -> Result<()> {
    zeros_like_bytes(ctx)?;
    Err(ctx.unsupported(
        "its output is a graph input; supported: a ZEROS_LIKE whose output the generator can \
         make a constant (zeros of its static shape)",
    ))
}

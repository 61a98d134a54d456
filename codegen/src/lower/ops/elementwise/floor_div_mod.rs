//! FLOOR_DIV and FLOOR_MOD: float32 only, the one type TFLM's `floor_div.cc` and `floor_mod.cc`
//! take (their Prepare checks that both inputs and the output share a type; their Eval refuses
//! any other than FLOAT32). FLOOR_DIV's Eval fails on any zero in the divisor: a constant divisor
//! holding one is refused; a divisor computed at run time is not checked (the generated code has
//! no error path) and its zeros give what `floor(x / 0.0)` gives, an infinity or NaN.

use super::super::{kernel, Kernel};
use super::{binary_layout_as, Broadcast, OtherShape};
use crate::error::{Grounds, Result};
use crate::ir::DType;
use crate::lower::params::elementwise as P;
use crate::lower::OpContext;

/// FLOOR_DIV (`div` true) or FLOOR_MOD of float32 inputs.
pub(super) fn floor_div_mod(ctx: &OpContext, div: bool) -> Result<Kernel> {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let name = if div { "FLOOR_DIV" } else { "FLOOR_MOD" };
    if a.dtype != DType::F32 {
        return Err(ctx.invalid(
            format!(
                "input type {}; TFLM's {name} supports FLOAT32 only",
                a.dtype
            ),
            Grounds::tflm(if div {
                "floor_div.cc FloorDivEval: \"Type '%s' is not supported by FLOOR_DIV.\" \
                 (kTfLiteError)"
            } else {
                "floor_mod.cc FloorModEval: \"Type '%s' is not supported by FLOOR_MOD.\" \
                 (kTfLiteError)"
            }),
        ));
    }
    // An output of another shape: TFLM runs flat when the inputs' shapes are equal (floor_div.cc,
    // floor_mod.cc: HaveSameShapes), else BroadcastBinaryFunction4DSlow, which is
    // BroadcastBinaryOpSimple over the output's shape.
    let (bc, operands) = binary_layout_as(ctx, OtherShape::FlatOrSimple { extended: false })?;
    // TFLM's check compares each float with 0 (-0.0 is one too).
    let zero = b.data.as_deref().and_then(|data| {
        data.chunks_exact(4)
            .position(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) == 0.0)
    });
    if div {
        if let Some(i) = zero {
            return Err(ctx.invalid(
                format!("the constant divisor has a zero (element {i})"),
                Grounds::tflm(
                    "floor_div.cc EvalFloorDiv: \"Division by 0\" for any zero element of the \
                     divisor (kTfLiteError)",
                ),
            ));
        }
    }
    let Broadcast {
        shape,
        a_strides,
        b_strides,
    } = bc;
    let p = P::FloorDivModF32 {
        shape,
        a_strides,
        b_strides,
    };
    Ok(kernel(
        if div {
            "floor_div_f32"
        } else {
            "floor_mod_f32"
        },
        operands,
        p,
    ))
}

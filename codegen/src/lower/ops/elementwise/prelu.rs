//! PRELU: float32, and int8 and int16 (with an int8 alpha) with `CalculatePreluParams`' two
//! multipliers.

use super::super::{kernel, Kernel};
use super::{binary_layout_as, mixed_broadcast_operands, Broadcast, OtherShape};
use crate::error::{Grounds, Result};
use crate::ir::DType;
use crate::lower::params::elementwise as P;
use crate::lower::OpContext;

/// PRELU: `x >= 0 ? x : x * alpha` with alpha (input 2) broadcast as ADD's second input is
/// (TFLM's `BroadcastPrelu4DSlow`), float32, or int8 or int16 with `CalculatePreluParams`' two
/// multipliers; int16's alpha is int8 (TFLM's `PreluPrepare` requires it of an int16 output).
pub(super) fn prelu(ctx: &OpContext) -> Result<Kernel> {
    let input = ctx.input(0)?;
    // An output that is not the broadcast: TFLM's int8 and int16 PRELU loop over its shape with
    // BroadcastBinaryOpSimple (prelu.h BroadcastPrelu4DSlow), whatever the inputs' shapes; its
    // float PRELU with NdArrayDesc strides over its shape extended to 4 dimensions
    // (prelu_common.cc BroadcastPrelu4DSlowFloat).
    if input.dtype == DType::F32 {
        let rank = [input, ctx.input(1)?, ctx.output(0)?]
            .iter()
            .map(|t| t.shape.len())
            .max()
            .unwrap_or(0);
        if rank > 4 {
            return Err(ctx.invalid(
                format!("a float PRELU of {rank} dimensions; TFLM's float kernel takes at most 4"),
                Grounds::tflm(
                    "prelu_common.cc BroadcastPrelu4DSlowFloat: RuntimeShape::ExtendedShape(4, \
                     shape)'s TFLITE_CHECK_GE(4, rank) aborts",
                ),
            ));
        }
    }
    let (bc, operands) = match input.dtype {
        DType::F32 => binary_layout_as(ctx, OtherShape::Desc4)?,
        DType::I8 => binary_layout_as(ctx, OtherShape::Simple)?,
        DType::I16 => {
            // TFLM's Eval writes the output as int16 whatever its type: one type, as
            // TFLite's signature has it.
            ctx.same_dtype("the output", ctx.output(0)?, input)?;
            let alpha = ctx.input(1)?;
            if alpha.dtype != DType::I8 {
                return Err(ctx.invalid(
                    format!(
                        "alpha has type {} with an INT16 output; TFLM's PRELU takes an INT8 \
                         alpha there",
                        alpha.dtype
                    ),
                    Grounds::tflm(
                        "prelu_common.cc PreluPrepare: TF_LITE_ENSURE(alpha->type == \
                         kTfLiteInt8) when the output is int16",
                    ),
                ));
            }
            mixed_broadcast_operands(ctx, OtherShape::Simple)?
        }
        other => {
            return Err(ctx.invalid(
                format!("input type {other}; TFLM's PRELU supports FLOAT32, INT8 and INT16"),
                Grounds::tflm("prelu.cc PreluEval: Input type is not supported (kTfLiteError)"),
            ))
        }
    };
    let Broadcast {
        shape,
        a_strides,
        b_strides,
    } = bc;
    if input.dtype == DType::F32 {
        let params = P::PreluF32 {
            shape,
            a_strides,
            b_strides,
        };
        return Ok(kernel("prelu_f32", operands, params));
    }
    let int16 = input.dtype == DType::I16;
    // TFLM reads every zero point as it is (CalculatePreluParams), an int16 one too: only the
    // type's range is checked, as every quantized tensor's.
    let quant = |what: &str, tensor| {
        if int16 {
            ctx.int16_quant(what, tensor)
        } else {
            ctx.int8_quant(what, tensor)
        }
    };
    let (si, zi) = quant("the input", input)?;
    let (sa, za) = ctx.int8_quant("alpha", ctx.input(1)?)?;
    let (so, zo) = quant("the output", ctx.output(0)?)?;
    // CalculatePreluParams: both ratios in double.
    let (multiplier_1, shift_1) =
        ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    let (multiplier_2, shift_2) = ctx.multiplier(
        "input scale × alpha scale / output scale",
        f64::from(si) * f64::from(sa) / f64::from(so),
    )?;
    if int16 {
        let params = P::PreluS16 {
            shape,
            a_strides,
            b_strides,
            input_offset: -zi,
            alpha_offset: -za,
            output_offset: zo,
            multiplier_1,
            shift_1,
            multiplier_2,
            shift_2,
        };
        return Ok(kernel("prelu_s16", operands, params));
    }
    let params = P::PreluS8 {
        shape,
        a_strides,
        b_strides,
        input_offset: -zi,
        alpha_offset: -za,
        output_offset: zo,
        multiplier_1,
        shift_1,
        multiplier_2,
        shift_2,
    };
    Ok(kernel("prelu_s8", operands, params))
}

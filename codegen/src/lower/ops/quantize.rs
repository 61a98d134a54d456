//! QUANTIZE and DEQUANTIZE → `quantize::*`: float32 → int8, int8 / int16 → int8 requantization,
//! int8 → float32.

use super::{unary, Kernel, Lowering, OpEntry};
use crate::error::Result;
use crate::ir::{DType, OpCode};
use crate::lower::params::quantize as P;
use crate::lower::OpContext;

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::QUANTIZE,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(quantize),
    },
    OpEntry {
        code: OpCode::DEQUANTIZE,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(dequantize),
    },
];

/// QUANTIZE: float32 → int8, or int8 / int16 → int8 requantization; the other conversions TFLM's
/// QUANTIZE runs between float32, int8, int16 and int32 in [`quantize_wide`].
fn quantize(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if matches!(output.dtype, DType::I16 | DType::I32) || input.dtype == DType::I32 {
        return quantize_wide(ctx);
    }
    ctx.expect_dtype("the output", output, DType::I8)?;
    let (so, zo) = ctx.int8_quant("the output", output)?;
    match input.dtype {
        DType::F32 => {
            // TFLM converts round(x / scale) to int32 without a range check (undefined beyond
            // it): refuse scales so small that an input of magnitude 1 already overflows.
            ctx.quantize_bound("the output scale", 1.0, so, zo)?;
            unary(ctx, "quantize_f32_s8", |len| P::QuantizeF32S8 {
                len,
                scale: so,
                zero_point: zo,
            })
        }
        DType::I8 | DType::I16 => {
            // An int16 input's zero point is not in the int8 range: only the scale is checked.
            let (si, zi) = if input.dtype == DType::I8 {
                ctx.int8_quant("the input", input)?
            } else {
                ctx.per_tensor_quant("the input", input)?
            };
            let (m, shift) =
                ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
            let function = if input.dtype == DType::I8 {
                "requantize_s8"
            } else {
                "requantize_s16_s8"
            };
            unary(ctx, function, |len| P::RequantizeS8 {
                len,
                input_zero_point: zi,
                output_zero_point: zo,
                multiplier: m,
                shift,
            })
        }
        other => Err(ctx.unsupported(format!(
            "input type {other} is not supported; QUANTIZE supports FLOAT32, INT8 or INT16 to INT8"
        ))),
    }
}

/// QUANTIZE into int16 or int32, or from int32: the requantizations between int16 and int32 of
/// TFLM's `quantize_common.cc` (`Requantize<input, output>`, `input scale / output scale` as a
/// `QuantizeMultiplier` in double).
fn quantize_wide(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let function = match (input.dtype, output.dtype) {
        (DType::I16, DType::I32) => "requantize_s16_s32",
        (DType::I32, DType::I16) => "requantize_s32_s16",
        (i, o) => {
            return Err(ctx.unsupported(format!(
                "QUANTIZE from {i} to {o} is not supported; supported: FLOAT32, INT8 or INT16 to \
                 INT8, INT16 to INT32 and INT32 to INT16"
            )))
        }
    };
    let (so, zo) = ctx.per_tensor_quant("the output", output)?;
    if output.dtype == DType::I16 && !(-32768..=32767).contains(&zo) {
        return Err(ctx.invalid(format!(
            "the output zero point {zo} is outside the int16 range"
        )));
    }
    let (si, zi) = ctx.per_tensor_quant("the input", input)?;
    let (m, shift) = ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    unary(ctx, function, |len| P::RequantizeS8 {
        len,
        input_zero_point: zi,
        output_zero_point: zo,
        multiplier: m,
        shift,
    })
}

/// DEQUANTIZE: int8 → float32.
fn dequantize(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    ctx.expect_dtype("the input", input, DType::I8)?;
    ctx.expect_dtype("the output", output, DType::F32)?;
    let (si, zi) = ctx.int8_quant("the input", input)?;
    unary(ctx, "dequantize_s8_f32", |len| P::DequantizeS8F32 {
        len,
        scale: si,
        zero_point: zi,
    })
}

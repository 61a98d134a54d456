//! QUANTIZE, DEQUANTIZE, RELU, RELU6, LEAKY_RELU, HARD_SWISH: one input, one output of its size.

use super::{kernel, num_type, same_dtype, unary_operands, Num};
use crate::error::Result;
use crate::ir::{DType, Options};
use crate::lower::quant::quantize_multiplier;
use crate::lower::{CallKind, OpContext, Value};

/// Fails unless input and output have the same number of elements; returns it.
fn element_count(ctx: &OpContext) -> Result<usize> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if input.num_elements() != output.num_elements() {
        return Err(ctx.unsupported(format!(
            "input shape {:?} and output shape {:?} differ in size",
            input.shape, output.shape
        )));
    }
    Ok(input.num_elements())
}

/// A unary kernel call whose parameters start with `len`.
fn unary(
    ctx: &OpContext,
    module: &'static str,
    function: &'static str,
    type_name: &'static str,
    more: Vec<(&'static str, Value)>,
) -> Result<CallKind> {
    let mut fields = vec![("len", Value::Usize(element_count(ctx)?))];
    fields.extend(more);
    Ok(kernel(
        module,
        function,
        unary_operands(ctx)?,
        type_name,
        fields,
    ))
}

/// `FloatToQuantizedType<int8_t>`: `round(value / scale) + zero_point`, clamped to int8.
fn float_to_quantized_s8(value: f32, scale: f32, zero_point: i32) -> i32 {
    ((value / scale).round() as i32)
        .saturating_add(zero_point)
        .clamp(-128, 127)
}

/// QUANTIZE: float32 → int8, or int8 / int16 → int8 requantization.
pub(super) fn quantize(ctx: &OpContext) -> Result<CallKind> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    ctx.expect_dtype("the output", output, DType::I8)?;
    let (so, zo) = ctx.int8_quant("the output", output)?;
    match input.dtype {
        DType::F32 => {
            // TFLM converts round(x / scale) to int32 without a range check (undefined beyond
            // it): refuse scales so small that an input of magnitude 1 already overflows.
            ctx.quantize_bound("the output scale", 1.0, so, zo)?;
            unary(
                ctx,
                "quantize",
                "quantize_f32_s8",
                "QuantizeF32S8",
                vec![("scale", Value::F32(so)), ("zero_point", Value::I32(zo))],
            )
        }
        DType::I8 | DType::I16 => {
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
            unary(
                ctx,
                "quantize",
                function,
                "RequantizeS8",
                vec![
                    ("input_zero_point", Value::I32(zi)),
                    ("output_zero_point", Value::I32(zo)),
                    ("multiplier", Value::I32(m)),
                    ("shift", Value::I32(shift)),
                ],
            )
        }
        other => Err(ctx.unsupported(format!(
            "input type {other} is not supported; QUANTIZE supports FLOAT32, INT8 or INT16 to INT8"
        ))),
    }
}

/// DEQUANTIZE: int8 → float32.
pub(super) fn dequantize(ctx: &OpContext) -> Result<CallKind> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    ctx.expect_dtype("the input", input, DType::I8)?;
    ctx.expect_dtype("the output", output, DType::F32)?;
    let (si, zi) = ctx.int8_quant("the input", input)?;
    unary(
        ctx,
        "quantize",
        "dequantize_s8_f32",
        "DequantizeS8F32",
        vec![("scale", Value::F32(si)), ("zero_point", Value::I32(zi))],
    )
}

/// The element type of a same-type unary op (input and output).
fn same_type_unary(ctx: &OpContext) -> Result<Num> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let num = num_type(ctx, "the input", input)?;
    same_dtype(ctx, "the output", output, input)?;
    Ok(num)
}

/// RELU: float clamp, or int8 requantization then clamp at the output's zero.
pub(super) fn relu(ctx: &OpContext) -> Result<CallKind> {
    if same_type_unary(ctx)? == Num::F32 {
        return unary(ctx, "activations", "relu_f32", "UnaryF32", vec![]);
    }
    let (si, zi) = ctx.int8_quant("the input", ctx.input(0)?)?;
    let (so, zo) = ctx.int8_quant("the output", ctx.output(0)?)?;
    // CalculateReluOpData: the ratio in double (in float it is 1 LSB off for some scale pairs).
    let (m, shift) = ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    let act_min = (-128i32).max(ctx.quantize_bound("RELU's lower bound", 0.0, so, zo)?);
    unary(
        ctx,
        "activations",
        "relu_s8",
        "ReluS8",
        vec![
            ("input_zero_point", Value::I32(zi)),
            ("output_zero_point", Value::I32(zo)),
            ("multiplier", Value::I32(m)),
            ("shift", Value::I32(shift)),
            ("act_min", Value::I32(act_min)),
            ("act_max", Value::I32(127)),
        ],
    )
}

/// RELU6: float clamp, or TFLM's int8 clamp of the raw values to the input's quantized 0 and 6.
pub(super) fn relu6(ctx: &OpContext) -> Result<CallKind> {
    if same_type_unary(ctx)? == Num::F32 {
        return unary(ctx, "activations", "relu6_f32", "UnaryF32", vec![]);
    }
    let (si, zi) = ctx.int8_quant("the input", ctx.input(0)?)?;
    // FloatToQuantizedType converts round(6 / scale) to int32 unchecked: refuse what overflows.
    ctx.quantize_bound("RELU6's upper bound", 6.0, si, zi)?;
    let upper = float_to_quantized_s8(6.0, si, zi);
    unary(
        ctx,
        "activations",
        "relu6_s8",
        "Relu6S8",
        vec![("lower", Value::I32(zi)), ("upper", Value::I32(upper))],
    )
}

/// LEAKY_RELU.
pub(super) fn leaky_relu(ctx: &OpContext) -> Result<CallKind> {
    let alpha = match &ctx.op().options {
        Options::LeakyRelu { alpha } => *alpha,
        _ => return Err(ctx.unsupported("the op has no LeakyReluOptions (alpha)")),
    };
    if !alpha.is_finite() {
        return Err(ctx.invalid(format!("alpha {alpha} is not a finite number")));
    }
    if same_type_unary(ctx)? == Num::F32 {
        return unary(
            ctx,
            "activations",
            "leaky_relu_f32",
            "LeakyReluF32",
            vec![("alpha", Value::F32(alpha))],
        );
    }
    let (si, zi) = ctx.int8_quant("the input", ctx.input(0)?)?;
    let (so, zo) = ctx.int8_quant("the output", ctx.output(0)?)?;
    // leaky_relu_common.cc: both ratios in double (in float they are 1 LSB off for some scales).
    // A zero alpha is a RELU: its multiplier is 0 by design, not an underflow.
    let alpha_ratio = f64::from(si) * f64::from(alpha) / f64::from(so);
    if alpha != 0.0 {
        // Range checks on the magnitude; the signed value is quantized as TFLM does (a negative
        // mantissa that rounds to -2^31 is kept, not renormalised).
        ctx.multiplier("input scale × |alpha| / output scale", alpha_ratio.abs())?;
    }
    let (am, ash) = quantize_multiplier(alpha_ratio);
    let (im, ish) = ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    unary(
        ctx,
        "activations",
        "leaky_relu_s8",
        "LeakyReluS8",
        vec![
            ("input_zero_point", Value::I32(zi)),
            ("output_zero_point", Value::I32(zo)),
            ("identity_multiplier", Value::I32(im)),
            ("identity_shift", Value::I32(ish)),
            ("alpha_multiplier", Value::I32(am)),
            ("alpha_shift", Value::I32(ash)),
        ],
    )
}

/// `DownScaleInt32ToInt16Multiplier`: a Q31 multiplier rounded to Q15.
fn downscale_to_i16(m: i32) -> i32 {
    const ROUNDING: i32 = 1 << 15;
    if m >= i32::MAX - ROUNDING {
        i16::MAX as i32
    } else {
        (m + ROUNDING) >> 16
    }
}

/// HARD_SWISH.
pub(super) fn hard_swish(ctx: &OpContext) -> Result<CallKind> {
    if same_type_unary(ctx)? == Num::F32 {
        return unary(ctx, "activations", "hard_swish_f32", "UnaryF32", vec![]);
    }
    let (si, zi) = ctx.int8_quant("the input", ctx.input(0)?)?;
    let (so, zo) = ctx.int8_quant("the output", ctx.output(0)?)?;
    // hard_swish_common.cc, all in float before widening.
    let hires_input_scale = (1.0f32 / 128.0) * si;
    let reluish_scale = 3.0f32 / 32768.0;
    let (om, oexp) = quantize_multiplier((hires_input_scale / so) as f64);
    if oexp > 0 {
        return Err(ctx.unsupported(format!(
            "output multiplier exponent {oexp} > 0 (input scale {si} too large for output scale {so}); TFLM rejects this"
        )));
    }
    let (rm, rexp) = quantize_multiplier((hires_input_scale / reluish_scale) as f64);
    if om < 0 || rm < 0 {
        return Err(ctx.unsupported("negative scale"));
    }
    unary(
        ctx,
        "activations",
        "hard_swish_s8",
        "HardSwishS8",
        vec![
            ("input_zero_point", Value::I32(zi)),
            ("output_zero_point", Value::I32(zo)),
            ("reluish_multiplier", Value::I32(downscale_to_i16(rm))),
            ("reluish_exponent", Value::I32(rexp)),
            ("output_multiplier", Value::I32(downscale_to_i16(om))),
            ("output_exponent", Value::I32(oexp)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downscale_rounds_and_saturates() {
        assert_eq!(downscale_to_i16(1 << 30), 1 << 14);
        assert_eq!(downscale_to_i16((1 << 30) + (1 << 15)), (1 << 14) + 1);
        assert_eq!(downscale_to_i16(i32::MAX), i16::MAX as i32);
    }

    #[test]
    fn quantized_six() {
        assert_eq!(float_to_quantized_s8(6.0, 0.05, -128), -8);
        assert_eq!(float_to_quantized_s8(6.0, 0.01, 0), 127);
    }
}

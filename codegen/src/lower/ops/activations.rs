//! RELU, RELU6, LEAKY_RELU, HARD_SWISH, FLOOR → `activations::*`: one input, one output of its
//! size.

use super::{unary, Kernel, Lowering, OpEntry};
use crate::error::Result;
use crate::ir::{DType, OpCode};
use crate::lower::params::activations as P;
use crate::lower::quant::quantize_multiplier;
use crate::lower::{Num, OpContext};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::RELU,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(relu),
    },
    OpEntry {
        code: OpCode::RELU6,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(relu6),
    },
    OpEntry {
        code: OpCode::LEAKY_RELU,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(leaky_relu),
    },
    OpEntry {
        code: OpCode::HARD_SWISH,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(hard_swish),
    },
    OpEntry {
        code: OpCode::FLOOR,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(floor),
    },
];

/// FLOOR: float32 only (TFLM's kernel checks the input type and nothing else).
fn floor(ctx: &OpContext) -> Result<Kernel> {
    if same_type_unary(ctx)? != Num::F32 {
        return Err(ctx.invalid("int8 input; TFLM's FLOOR refuses all but FLOAT32"));
    }
    unary(ctx, "floor_f32", |len| P::UnaryF32 { len })
}

/// `FloatToQuantizedType<int8_t>`: `round(value / scale) + zero_point`, clamped to int8.
fn float_to_quantized_s8(value: f32, scale: f32, zero_point: i32) -> i32 {
    ((value / scale).round() as i32)
        .saturating_add(zero_point)
        .clamp(-128, 127)
}

/// The element type of a same-type unary op (input and output).
fn same_type_unary(ctx: &OpContext) -> Result<Num> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let num = ctx.num("the input", input)?;
    ctx.same_dtype("the output", output, input)?;
    Ok(num)
}

/// RELU: float clamp, or int8 requantization then clamp at the output's zero.
fn relu(ctx: &OpContext) -> Result<Kernel> {
    if same_type_unary(ctx)? == Num::F32 {
        return unary(ctx, "relu_f32", |len| P::UnaryF32 { len });
    }
    let (si, zi) = ctx.int8_quant("the input", ctx.input(0)?)?;
    let (so, zo) = ctx.int8_quant("the output", ctx.output(0)?)?;
    // CalculateReluOpData: the ratio in double (in float it is 1 LSB off for some scale pairs).
    let (m, shift) = ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    let act_min = (-128i32).max(ctx.quantize_bound("RELU's lower bound", 0.0, so, zo)?);
    unary(ctx, "relu_s8", |len| P::ReluS8 {
        len,
        input_zero_point: zi,
        output_zero_point: zo,
        multiplier: m,
        shift,
        act_min,
        act_max: 127,
    })
}

/// RELU6: float clamp, or TFLM's int8 clamp of the raw values to the input's quantized 0 and 6.
fn relu6(ctx: &OpContext) -> Result<Kernel> {
    if same_type_unary(ctx)? == Num::F32 {
        return unary(ctx, "relu6_f32", |len| P::UnaryF32 { len });
    }
    let (si, zi) = ctx.int8_quant("the input", ctx.input(0)?)?;
    // FloatToQuantizedType converts round(6 / scale) to int32 unchecked: refuse what overflows.
    ctx.quantize_bound("RELU6's upper bound", 6.0, si, zi)?;
    let upper = float_to_quantized_s8(6.0, si, zi);
    unary(ctx, "relu6_s8", |len| P::Relu6S8 {
        len,
        lower: zi,
        upper,
    })
}

/// LEAKY_RELU.
fn leaky_relu(ctx: &OpContext) -> Result<Kernel> {
    // Read from the FlatBuffer here rather than decoded by the loader (which only checks that the
    // options present are LeakyReluOptions): TFLM's parser defaults alpha to 0 without them.
    let alpha = ctx
        .tflite_operator()?
        .builtin_options_as_leaky_relu_options()
        .map_or(0.0, |o| o.alpha());
    if !alpha.is_finite() {
        return Err(ctx.invalid(format!("alpha {alpha} is not a finite number")));
    }
    // int16 (16x8 models): TFLM's QuantizeLeakyRelu<int16_t>, the same arithmetic.
    let int16 = ctx.input(0)?.dtype == DType::I16;
    if !int16 && same_type_unary(ctx)? == Num::F32 {
        return unary(ctx, "leaky_relu_f32", |len| P::LeakyReluF32 { len, alpha });
    }
    let ((si, zi), (so, zo)) = if int16 {
        ctx.same_dtype("the output", ctx.output(0)?, ctx.input(0)?)?;
        (
            ctx.int16_quant("the input", ctx.input(0)?)?,
            ctx.int16_quant("the output", ctx.output(0)?)?,
        )
    } else {
        (
            ctx.int8_quant("the input", ctx.input(0)?)?,
            ctx.int8_quant("the output", ctx.output(0)?)?,
        )
    };
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
        if int16 {
            "leaky_relu_s16"
        } else {
            "leaky_relu_s8"
        },
        |len| P::LeakyReluS8 {
            len,
            input_zero_point: zi,
            output_zero_point: zo,
            identity_multiplier: im,
            identity_shift: ish,
            alpha_multiplier: am,
            alpha_shift: ash,
        },
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
fn hard_swish(ctx: &OpContext) -> Result<Kernel> {
    if same_type_unary(ctx)? == Num::F32 {
        return unary(ctx, "hard_swish_f32", |len| P::UnaryF32 { len });
    }
    let (si, zi) = ctx.int8_quant("the input", ctx.input(0)?)?;
    let (so, zo) = ctx.int8_quant("the output", ctx.output(0)?)?;
    // hard_swish_common.cc, all in float before widening. TFLM checks only the output exponent
    // (below); the multipliers are its `QuantizeMultiplier` without `OpContext::multiplier`'s
    // range checks, which would refuse models TFLM runs.
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
    unary(ctx, "hard_swish_s8", |len| P::HardSwishS8 {
        len,
        input_zero_point: zi,
        output_zero_point: zo,
        reluish_multiplier: downscale_to_i16(rm),
        reluish_exponent: rexp,
        output_multiplier: downscale_to_i16(om),
        output_exponent: oexp,
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{graph, per_tensor, tensor};
    use super::*;
    use crate::ir::{DType, Options};
    use crate::lower::lower;

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

    #[test]
    fn int16_is_refused_clearly() {
        let g = graph(
            OpCode::RELU,
            Options::None,
            vec![
                tensor(&[4], DType::I16, per_tensor(0.5, 0), None),
                tensor(&[4], DType::I16, per_tensor(0.5, 0), None),
            ],
            &[Some(0)],
        );
        let err = lower(&g).unwrap_err().to_string();
        assert!(err.contains("INT16"), "{err}");
    }
}

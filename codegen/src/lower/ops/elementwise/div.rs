//! DIV of every type TFLM's `div.cc` takes: float32 and int32 `a / b` clamped to the fused
//! activation's range, int8 with `CalculateOpDataDiv`'s multiplier.

use super::super::{kernel, Kernel};
use super::{binary_layout_as, Broadcast, OtherShape};
use crate::error::{Grounds, Result};
use crate::ir::{Activation, DType, Options};
use crate::lower::params::elementwise as P;
use crate::lower::quant::{activation_range_f32, activation_range_s32};
use crate::lower::OpContext;

/// DIV: float32, int32 (unquantized inputs) and int8, the types `DivEval` dispatches on.
pub(super) fn div(ctx: &OpContext) -> Result<Kernel> {
    let activation = match &ctx.op().options {
        Options::Arithmetic { activation } => *activation,
        _ => Activation::None,
    };
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    if !matches!(a.dtype, DType::F32 | DType::I32 | DType::I8) {
        return Err(ctx.invalid(
            format!(
                "input type {}; TFLM's DIV supports FLOAT32, INT32 and INT8",
                a.dtype.name()
            ),
            Grounds::tflm(
                "div.cc DivEval: \"DIV only supports FLOAT32, INT32, quantized INT8 now\" \
                 (kTfLiteError)",
            ),
        ));
    }
    // An output of another shape: TFLM runs flat when the inputs' shapes are equal once
    // extended (div.cc: ProcessBroadcastShapes), else BroadcastDivSlow(Quantized), which is
    // BroadcastBinaryOpSimple over the output's shape.
    let (bc, operands) = binary_layout_as(ctx, OtherShape::FlatOrSimple { extended: true })?;
    let Broadcast {
        shape,
        a_strides,
        b_strides,
    } = bc;
    match a.dtype {
        DType::F32 => {
            // Always Some: CalculateActivationRange<float> clamps nothing for TANH and SIGN_BIT.
            let (act_min, act_max) =
                activation_range_f32(activation).unwrap_or((f32::MIN, f32::MAX));
            let p = P::BinaryF32 {
                shape,
                a_strides,
                b_strides,
                act_min,
                act_max,
            };
            Ok(kernel("div_f32", operands, p))
        }
        DType::I32 => {
            if let Some((what, _)) = [("input 1", a), ("input 2", b)]
                .into_iter()
                .find(|(_, t)| t.quant.is_some())
            {
                return Err(ctx.invalid(
                    format!("{what} is quantized; TFLM's INT32 DIV requires unquantized inputs"),
                    Grounds::tflm(
                        "div.cc DivPrepare: TF_LITE_ENSURE_EQ(quantization type, \
                         kTfLiteNoQuantization) for INT32 inputs",
                    ),
                ));
            }
            let (act_min, act_max) = activation_range_s32(activation);
            let p = P::BinaryS32 {
                shape,
                a_strides,
                b_strides,
                act_min,
                act_max,
            };
            Ok(kernel("div_s32", operands, p))
        }
        _ => {
            let (s1, z1) = ctx.int8_quant("input 1", a)?;
            let (s2, z2) = ctx.int8_quant("input 2", b)?;
            let (so, zo) = ctx.int8_quant("the output", out)?;
            let (act_min, act_max) = ctx.activation_range_s8(activation, so, zo)?;
            // The TFLM the goldens come from takes the ratio in double (in float, as the source
            // the project reads has it, 1/3 quantizes 85 units of 2^-31 lower).
            let real = f64::from(s1) / (f64::from(s2) * f64::from(so));
            let (output_multiplier, output_shift) =
                ctx.multiplier("input 1 scale / (input 2 scale × output scale)", real)?;
            // DivElementwise divides by 2^(headroom + reciprocal shift - output shift), with an
            // int8 dividend's headroom from 23 to 31 and a divisor's shift from -1 to 7: that
            // exponent must lie within 0..=63 (a negative one, or one of 64 or more, shifts by an
            // undefined amount even in 64 bits; 32..=63 the kernels take as TFLM's build does).
            if !(-25..=22).contains(&output_shift) {
                return Err(ctx.invalid(
                    format!(
                        "the rescaling factor input 1 scale / (input 2 scale × output scale) = \
                         {real:e} has shift {output_shift}; TFLM's int8 DIV then divides by a \
                         power of two outside 2^0 ..= 2^63"
                    ),
                    Grounds::undefined(
                        "div.h DivElementwise: RoundingDivideByPOT(x, headroom + recip_shift - \
                         output_shift) with a negative exponent, or one of 64 or more (1ll << e)",
                    ),
                ));
            }
            let p = P::DivS8 {
                shape,
                a_strides,
                b_strides,
                a_offset: -z1,
                b_offset: -z2,
                output_multiplier,
                output_shift,
                output_offset: zo,
                act_min,
                act_max,
            };
            Ok(kernel("div_s8", operands, p))
        }
    }
}

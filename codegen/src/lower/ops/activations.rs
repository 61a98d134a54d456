//! RELU, RELU6, LEAKY_RELU, HARD_SWISH, FLOOR, CEIL, ROUND, ELU → `activations::*` (int8 ELU →
//! the math family's `lut_s8`): one input, one output of its size.

use super::{unary_in_place as unary, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::activations as P;
use crate::lower::quant::quantize_multiplier;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{Num, OpContext};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::RELU,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(relu),
    },
    OpEntry {
        code: OpCode::RELU6,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(relu6),
    },
    OpEntry {
        code: OpCode::LEAKY_RELU,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(leaky_relu),
    },
    OpEntry {
        code: OpCode::HARD_SWISH,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(hard_swish),
    },
    OpEntry {
        code: OpCode::ELU,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(elu),
    },
    OpEntry {
        code: OpCode::FLOOR,
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(floor),
    },
    OpEntry {
        code: OpCode::CEIL,
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| float_only(ctx, "CEIL", "ceil.cc CeilPrepare", "ceil_f32")),
    },
    OpEntry {
        code: OpCode::ROUND,
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| {
            float_only(ctx, "ROUND", "round.cc RoundPrepare", "round_f32")
        }),
    },
];

/// ELU: float32 `x < 0 ? expm1(x) : x`, or int8 as TFLM's `PopulateLookupTable` builds its
/// table in Prepare (in float: `round((exp(s_in (x - zp_in)) - 1) / s_out) + zp_out` below 0),
/// run by the math family's `lut_s8`.
fn elu(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if !matches!(input.dtype, DType::F32 | DType::I8) {
        return Err(ctx.invalid(
            format!(
                "input type {}; TFLM's ELU supports FLOAT32 and INT8",
                input.dtype.name()
            ),
            Grounds::tflm(
                "elu.cc EluEval: \"ELU only supports float32 and int8 currently\" (kTfLiteError)",
            ),
        ));
    }
    ctx.same_dtype("the output", output, input)?;
    if input.dtype == DType::F32 {
        return unary(ctx, "elu_f32", |len| P::UnaryF32 { len });
    }
    let (si, zi) = ctx.int8_quant("the input", input)?;
    let (so, zo) = ctx.int8_quant("the output", output)?;
    let inverse_scale = 1.0 / so;
    let mut table = Vec::with_capacity(256);
    for val in -128..=127i32 {
        let dequantized = si * (val - zi) as f32;
        // `std::exp` of a float: the host's expf, as TFLM's build calls it.
        let transformed = if dequantized < 0.0 {
            dequantized.exp() - 1.0
        } else {
            dequantized
        };
        let rescaled = (transformed * inverse_scale).round() + zo as f32;
        if !(rescaled > -2_147_483_648.0 && rescaled < 2_147_483_648.0) {
            return Err(ctx.invalid(
                format!(
                    "the table entry of input {val} is {rescaled:e} output steps, beyond int32                      (input scale {si:e}, output scale {so:e})"
                ),
                Grounds::undefined(
                    "elu.cc PopulateLookupTable: static_cast<int32_t> of a float beyond int32",
                ),
            ));
        }
        table.push((rescaled as i32).clamp(-128, 127) as i8);
    }
    let mut k = unary(ctx, "lut_s8", |len| crate::lower::params::math::LutS8 {
        len,
        table: crate::lower::Data::Packed(table),
    })?;
    k.module = Some("math");
    Ok(k)
}

/// FLOOR: float32 only (TFLM's kernel checks the input type and nothing else).
fn floor(ctx: &OpContext) -> Result<Kernel> {
    if same_type_unary(ctx)? != Num::F32 {
        return Err(ctx.invalid(
            "int8 input; TFLM's FLOOR refuses all but FLOAT32",
            Grounds::tflm(
                "floor.cc FloorPrepare: TF_LITE_ENSURE_TYPES_EQ(input type, kTfLiteFloat32)",
            ),
        ));
    }
    unary(ctx, "floor_f32", |len| P::UnaryF32 { len })
}

/// CEIL and ROUND (`op`): float32 only, whose Prepare (`prepare`) checks the input type, the
/// output's type and its shape.
fn float_only(
    ctx: &OpContext,
    op: &str,
    prepare: &'static str,
    function: &'static str,
) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if input.dtype != DType::F32 {
        return Err(ctx.invalid(
            format!("input type {}; TFLM's {op} takes FLOAT32 only", input.dtype),
            Grounds::tflm(prepare),
        ));
    }
    ctx.same_dtype("the output", output, input)?;
    if output.shape != input.shape {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} is not the input shape {:?}",
                output.shape, input.shape
            ),
            Grounds::tflm(prepare),
        ));
    }
    unary(ctx, function, |len| P::UnaryF32 { len })
}

/// The element type of a same-type unary op (input and output).
fn same_type_unary(ctx: &OpContext) -> Result<Num> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let num = ctx.num("the input", input)?;
    ctx.same_dtype("the output", output, input)?;
    Ok(num)
}

/// RELU: float clamp, or int8 / int16 requantization then clamp at the output's zero.
fn relu(ctx: &OpContext) -> Result<Kernel> {
    let int16 = ctx.input(0)?.dtype == DType::I16;
    if !int16 && same_type_unary(ctx)? == Num::F32 {
        return unary(ctx, "relu_f32", |len| P::UnaryF32 { len });
    }
    let ((si, zi), (so, zo), (qmin, qmax)) = if int16 {
        ctx.same_dtype("the output", ctx.output(0)?, ctx.input(0)?)?;
        let (input, output) = (
            ctx.int16_quant("the input", ctx.input(0)?)?,
            ctx.int16_quant("the output", ctx.output(0)?)?,
        );
        // ReluPrepare ENSUREs both for int16 (int8 takes any).
        if input.1 != 0 || output.1 != 0 {
            return Err(ctx.invalid(
                format!(
                    "int16 zero points {} (input) and {} (output); TFLM requires both to be 0",
                    input.1, output.1
                ),
                Grounds::tflm(
                    "activations_common.cc ReluPrepare: TF_LITE_ENSURE_EQ(zero point, 0) \
                     for int16 input and output",
                ),
            ));
        }
        (input, output, (-32768, 32767))
    } else {
        (
            ctx.int8_quant("the input", ctx.input(0)?)?,
            ctx.int8_quant("the output", ctx.output(0)?)?,
            (-128, 127),
        )
    };
    // CalculateReluOpData: the ratio in double (in float it is 1 LSB off for some scale pairs).
    let (m, shift) = ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    let act_min = qmin.max(ctx.quantize_bound("RELU's lower bound", 0.0, so, zo)?);
    let params = |len| P::ReluS8 {
        len,
        input_zero_point: zi,
        output_zero_point: zo,
        multiplier: m,
        shift,
        act_min,
        act_max: qmax,
    };
    unary(ctx, if int16 { "relu_s16" } else { "relu_s8" }, params)
}

/// RELU6: float clamp, or TFLM's int8 / int16 clamp of the raw values to the input's quantized 0
/// and 6 (no requantization, and no check of the output's quantization, for either type).
fn relu6(ctx: &OpContext) -> Result<Kernel> {
    let int16 = ctx.input(0)?.dtype == DType::I16;
    if !int16 && same_type_unary(ctx)? == Num::F32 {
        return unary(ctx, "relu6_f32", |len| P::UnaryF32 { len });
    }
    let ((si, zi), (qmin, qmax)) = if int16 {
        ctx.same_dtype("the output", ctx.output(0)?, ctx.input(0)?)?;
        (
            ctx.int16_quant("the input", ctx.input(0)?)?,
            (-32768, 32767),
        )
    } else {
        (ctx.int8_quant("the input", ctx.input(0)?)?, (-128, 127))
    };
    // FloatToQuantizedType converts round(6 / scale) to int32 unchecked: refuse what overflows.
    let upper = ctx
        .quantize_bound("RELU6's upper bound", 6.0, si, zi)?
        .clamp(qmin, qmax);
    let params = |len| P::Relu6S8 {
        len,
        lower: zi,
        upper,
    };
    unary(ctx, if int16 { "relu6_s16" } else { "relu6_s8" }, params)
}

/// LEAKY_RELU.
fn leaky_relu(ctx: &OpContext) -> Result<Kernel> {
    // Read from the FlatBuffer here rather than decoded by the loader (which only checks that the
    // options present are LeakyReluOptions): TFLM's parser defaults alpha to 0 without them.
    let alpha = ctx
        .tflite_operator()?
        .builtin_options_as_leaky_relu_options()
        .map_or(0.0, |o| o.alpha());
    // int16 (16x8 models): TFLM's QuantizeLeakyRelu<int16_t>, the same arithmetic.
    let int16 = ctx.input(0)?.dtype == DType::I16;
    if !int16 && same_type_unary(ctx)? == Num::F32 {
        return unary(ctx, "leaky_relu_f32", |len| P::LeakyReluF32 { len, alpha });
    }
    // The float kernel multiplies by a NaN or infinite alpha as TFLM's does (a defined result);
    // the quantized ones turn it into a multiplier first.
    if !alpha.is_finite() {
        return Err(ctx.invalid(
            format!("alpha {alpha} is not a finite number"),
            Grounds::undefined(
                "leaky_relu_common.cc LeakyReluPrepare: QuantizeMultiplier of the \
                 non-finite ratio input scale × alpha / output scale converts NaN or \
                 infinity to an integer",
            ),
        ));
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
    // hard_swish_common.cc computes parameters for int8 only: TFLM's Prepare accepts an int16
    // model, then its Eval fails on it ("Unsupported type INT16").
    if ctx.input(0)?.dtype == DType::I16 {
        return Err(ctx.invalid(
            "input type INT16: TFLM's HARD_SWISH has no int16 kernel (its Eval fails); \
             supported: INT8 and FLOAT32",
            Grounds::tflm("hard_swish.cc HardSwishEval: Unsupported type for INT16 (kTfLiteError)"),
        ));
    }
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
        return Err(ctx.invalid(
            format!(
                "output multiplier exponent {oexp} > 0 (input scale {si} too large for output \
                 scale {so}); TFLM rejects this"
            ),
            Grounds::tflm(
                "hard_swish_common.cc HardSwishPrepare: \
                 TF_LITE_ENSURE(params->output_multiplier_exponent <= 0)",
            ),
        ));
    }
    let (rm, rexp) = quantize_multiplier((hires_input_scale / reluish_scale) as f64);
    if om < 0 || rm < 0 {
        // Unreachable: both ratios are of positive scales (`int8_quant`).
        return Err(ctx.invalid(
            "negative scale",
            Grounds::spec("TFLite quantization specification: scales are positive and finite"),
        ));
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
    use crate::lower::{lower, CallKind, Value};

    #[test]
    fn downscale_rounds_and_saturates() {
        assert_eq!(downscale_to_i16(1 << 30), 1 << 14);
        assert_eq!(downscale_to_i16((1 << 30) + (1 << 15)), (1 << 14) + 1);
        assert_eq!(downscale_to_i16(i32::MAX), i16::MAX as i32);
    }

    /// RELU6's upper bound, TFLM's `FloatToQuantizedType`: `round(6 / scale) + zero point`,
    /// clamped to the type (int8 or int16); the lower bound is the input's zero point.
    #[test]
    fn relu6_bounds_are_the_quantized_six() {
        let bounds = |dtype, scale, zp| {
            let g = graph(
                OpCode::RELU6,
                Options::None,
                vec![
                    tensor(&[4], dtype, per_tensor(scale, zp), None),
                    tensor(&[4], dtype, per_tensor(1.0, 0), None),
                ],
                &[Some(0)],
            );
            match &lower(&g).unwrap()[0].kind {
                CallKind::Kernel(k) => (k.function, k.params.clone().unwrap().fields),
                other => panic!("{other:?}"),
            }
        };
        let fields = |lower, upper| {
            vec![
                ("len", Value::Usize(4)),
                ("lower", Value::I32(lower)),
                ("upper", Value::I32(upper)),
            ]
        };
        assert_eq!(
            bounds(DType::I8, 0.05, -128),
            ("relu6_s8", fields(-128, -8))
        );
        assert_eq!(bounds(DType::I8, 0.01, 0), ("relu6_s8", fields(0, 127)));
        assert_eq!(
            bounds(DType::I16, 6.0 / 12288.0, -10),
            ("relu6_s16", fields(-10, 12278))
        );
        assert_eq!(bounds(DType::I16, 1e-4, 5), ("relu6_s16", fields(5, 32767)));
    }

    #[test]
    fn relu_s16_requires_zero_points_of_0() {
        let make = |zp| {
            graph(
                OpCode::RELU,
                Options::None,
                vec![
                    tensor(&[4], DType::I16, per_tensor(0.5, zp), None),
                    tensor(&[4], DType::I16, per_tensor(0.25, 0), None),
                ],
                &[Some(0)],
            )
        };
        match &lower(&make(0)).unwrap()[0].kind {
            CallKind::Kernel(k) => assert_eq!(k.function, "relu_s16"),
            other => panic!("{other:?}"),
        }
        let err = lower(&make(3)).unwrap_err().to_string();
        assert!(err.contains("zero points"), "{err}");
    }

    #[test]
    fn int16_hard_swish_is_refused_clearly() {
        let g = graph(
            OpCode::HARD_SWISH,
            Options::None,
            vec![
                tensor(&[4], DType::I16, per_tensor(0.5, 0), None),
                tensor(&[4], DType::I16, per_tensor(0.5, 0), None),
            ],
            &[Some(0)],
        );
        let err = lower(&g).unwrap_err().to_string();
        assert!(err.contains("INT16") && err.contains("HARD_SWISH"), "{err}");
    }
}

//! SOFTMAX, LOGISTIC and TANH: the fixed-point input scaling TFLM's Prepare computes for int8.

use super::{call, flavour, int8_quant, Flavour};
use crate::error::Result;
use crate::ir::{DType, Options, Tensor};
use crate::lower::{quant, CallKind, OpContext, Value};

/// Which curve an element-wise op applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Curve {
    Logistic,
    Tanh,
}

/// TFLM's `CalculateInputRadius`: the largest input difference whose rescaled value (`input_integer_bits`
/// integer bits out of `total_signed_bits`) stays in range.
fn input_radius(input_integer_bits: i32, input_left_shift: i32, total_signed_bits: i32) -> i32 {
    let max = f64::from((1 << input_integer_bits) - 1)
        * (1i64 << (total_signed_bits - input_integer_bits)) as f64
        / (1i64 << input_left_shift) as f64;
    max.floor() as i32
}

/// Input and output must have the same type and element count.
fn same_size(ctx: &OpContext, input: &Tensor, output: &Tensor) -> Result<()> {
    if input.dtype != output.dtype || input.num_elements() != output.num_elements() {
        return Err(ctx.unsupported(format!(
            "output {} {:?} does not match input {} {:?}",
            output.dtype, output.shape, input.dtype, input.shape
        )));
    }
    Ok(())
}

/// SOFTMAX → `softmax::softmax_s8` / `softmax::softmax_f32`, over the last dimension.
pub(super) fn softmax(ctx: &OpContext) -> Result<CallKind> {
    let Options::Softmax { beta } = ctx.op().options else {
        return Err(ctx.unsupported("missing SoftmaxOptions"));
    };
    if !beta.is_finite() {
        return Err(ctx.invalid(format!("beta {beta} is not a finite number")));
    }
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let kind = flavour(ctx, input)?;
    let int16_output = kind == Flavour::Int8 && output.dtype == DType::I16;
    if output.dtype != input.dtype && !int16_output {
        return Err(ctx.unsupported(format!(
            "{} input with {} output is not supported; supported: INT8 → INT8, INT8 → INT16 and FLOAT32 → FLOAT32",
            input.dtype, output.dtype
        )));
    }
    if input.num_elements() != output.num_elements() {
        return Err(ctx.unsupported(format!(
            "output shape {:?} does not match input shape {:?}",
            output.shape, input.shape
        )));
    }
    let depth = match input.shape.last() {
        Some(&d) if d > 0 => d,
        _ => {
            return Err(ctx.unsupported(format!(
                "input shape {:?} has no last dimension",
                input.shape
            )))
        }
    };
    let rows = input.num_elements() / depth;
    let mut fields = vec![("rows", Value::Usize(rows)), ("depth", Value::Usize(depth))];
    match kind {
        Flavour::Int8 => {
            let (s_in, _) = int8_quant(ctx, "input", input)?;
            let (s_out, zp_out) = ctx.per_tensor_quant("output", output)?;
            if int16_output {
                // TF_LITE_ENSURE_NEAR(scale, 1/65536, 0.001/65536), compared in float.
                let target = 1.0f32 / 65536.0;
                if zp_out != -32768 || (s_out - target).abs() > 0.001 * target {
                    return Err(ctx.unsupported(format!(
                        "int16 output quantization ({s_out}, {zp_out}) is not supported; TFLM requires scale 1/65536 and zero point -32768"
                    )));
                }
            } else if zp_out != -128 || s_out != 1.0 / 256.0 {
                return Err(ctx.unsupported(format!(
                    "int8 output quantization ({s_out}, {zp_out}) is not supported; TFLM requires scale 1/256 and zero point -128"
                )));
            }
            // PreprocessSoftmaxScaling with 5 integer bits (Q5.26), capped below 2^31.
            const SCALED_DIFF_INTEGER_BITS: i32 = 5;
            let real = (f64::from(beta)
                * f64::from(s_in)
                * f64::from(1 << (31 - SCALED_DIFF_INTEGER_BITS)))
            .min(f64::from(i32::MAX));
            // QuantizeMultiplierGreaterThanOne, which TFLM checks.
            let (multiplier, shift) = quant::quantize_multiplier(real);
            if real.is_nan() || real <= 1.0 || shift < 0 {
                return Err(ctx.unsupported(format!(
                    "beta * input scale * 2^26 = {real} is not above 1 (TFLM requires it)"
                )));
            }
            let diff_min = -input_radius(SCALED_DIFF_INTEGER_BITS, shift, 31);
            fields.extend([
                ("input_multiplier", Value::I32(multiplier)),
                ("input_left_shift", Value::I32(shift)),
                ("diff_min", Value::I32(diff_min)),
            ]);
            if int16_output {
                call(ctx, "softmax", "softmax_s8_s16", "SoftmaxS8", fields)
            } else {
                call(ctx, "softmax", "softmax_s8", "SoftmaxS8", fields)
            }
        }
        Flavour::Float32 => {
            fields.push(("beta", Value::F32(beta)));
            call(ctx, "softmax", "softmax_f32", "SoftmaxF32", fields)
        }
    }
}

/// LOGISTIC / TANH → `logistic_tanh::{logistic,tanh}_{s8,f32}`.
pub(super) fn logistic_or_tanh(ctx: &OpContext, curve: Curve) -> Result<CallKind> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let kind = flavour(ctx, input)?;
    same_size(ctx, input, output)?;
    let len = input.num_elements();
    match kind {
        Flavour::Int8 => {
            let (s_in, zp_in) = int8_quant(ctx, "input", input)?;
            let (s_out, zp_out) = int8_quant(ctx, "output", output)?;
            // The kernels write a fixed-point result whose meaning is fixed: LOGISTIC's [0, 1) in
            // steps of 1/256 from -128, TANH's [-1, 1) in steps of 1/128 around 0. TFLM checks
            // only LOGISTIC's zero point; any other output quantization reads back as garbage.
            let (scale, zero_point) = match curve {
                Curve::Logistic => (1.0 / 256.0, -128),
                Curve::Tanh => (1.0 / 128.0, 0),
            };
            if s_out != scale || zp_out != zero_point {
                return Err(ctx.invalid(format!(
                    "int8 output quantization (scale {s_out:e}, zero point {zp_out}) is not the \
                     fixed (scale {scale}, zero point {zero_point}) the kernel produces"
                )));
            }
            // Input rescaled to Q4.27: frexp of s_in * 2^27, rounded to Q31 without the 2^31 fix-up
            // (a mantissa that rounds up to 2^31 wraps, as TFLM's static_cast does).
            const INPUT_INTEGER_BITS: i32 = 4;
            let real = f64::from(s_in) * f64::from(1 << (31 - INPUT_INTEGER_BITS));
            let (q, shift) = quant::frexp(real);
            if !(0..=62).contains(&shift) {
                return Err(
                    ctx.unsupported(format!("input scale {s_in} is out of the supported range"))
                );
            }
            let multiplier = (q * (1i64 << 31) as f64).round() as i64 as i32;
            let radius = input_radius(INPUT_INTEGER_BITS, shift, 31);
            let fields = vec![
                ("len", Value::Usize(len)),
                ("input_zero_point", Value::I32(zp_in)),
                ("input_range_radius", Value::I32(radius)),
                ("input_multiplier", Value::I32(multiplier)),
                ("input_left_shift", Value::I32(shift)),
            ];
            match curve {
                Curve::Logistic => call(ctx, "logistic_tanh", "logistic_s8", "LogisticS8", fields),
                Curve::Tanh => call(ctx, "logistic_tanh", "tanh_s8", "TanhS8", fields),
            }
        }
        Flavour::Float32 => {
            ctx.expect_dtype("output", output, DType::F32)?;
            let fields = vec![("len", Value::Usize(len))];
            match curve {
                Curve::Logistic => {
                    call(ctx, "logistic_tanh", "logistic_f32", "ElementsF32", fields)
                }
                Curve::Tanh => call(ctx, "logistic_tanh", "tanh_f32", "ElementsF32", fields),
            }
        }
    }
}

//! SOFTMAX → `softmax::softmax_{s8,s8_s16,f32}`, over the last dimension: the fixed-point input
//! scaling TFLM's Prepare computes for int8.

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::Result;
use crate::ir::{DType, OpCode, Options};
use crate::lower::params::softmax as P;
use crate::lower::{quant, Num, OpContext};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::SOFTMAX,
    inputs: 1..=1,
    outputs: 1,
    lower: Lowering::Kernel(softmax),
}];

/// SOFTMAX → `softmax::softmax_s8` / `softmax::softmax_f32`, over the last dimension.
fn softmax(ctx: &OpContext) -> Result<Kernel> {
    let Options::Softmax { beta } = ctx.op().options else {
        return Err(ctx.unsupported("missing SoftmaxOptions"));
    };
    if !beta.is_finite() {
        return Err(ctx.invalid(format!("beta {beta} is not a finite number")));
    }
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let num = ctx.input_num(input)?;
    let int16_output = num == Num::I8 && output.dtype == DType::I16;
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
    match num {
        Num::I8 => {
            let (s_in, _) = ctx.int8_quant("input", input)?;
            // An int16 output has its own zero point, checked against TFLM's exact one below.
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
            // QuantizeMultiplierGreaterThanOne, which TFLM checks (the cap above keeps the shift
            // within 31, so `OpContext::multiplier`'s range check is implied).
            let (multiplier, shift) = quant::quantize_multiplier(real);
            if real.is_nan() || real <= 1.0 || shift < 0 {
                return Err(ctx.unsupported(format!(
                    "beta * input scale * 2^26 = {real} is not above 1 (TFLM requires it)"
                )));
            }
            let diff_min = -quant::input_radius(SCALED_DIFF_INTEGER_BITS, shift, 31);
            let function = if int16_output {
                "softmax_s8_s16"
            } else {
                "softmax_s8"
            };
            Ok(kernel(
                function,
                in_out(ctx)?,
                P::SoftmaxS8 {
                    rows,
                    depth,
                    input_multiplier: multiplier,
                    input_left_shift: shift,
                    diff_min,
                },
            ))
        }
        Num::F32 => Ok(kernel(
            "softmax_f32",
            in_out(ctx)?,
            P::SoftmaxF32 { rows, depth, beta },
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{field, graph, kernel, quant, reason, tensor};
    use crate::ir::*;
    use crate::lower::Value;

    #[test]
    fn softmax_s8_matches_tflm_prepare() {
        let make = |out_scale: f32| {
            graph(
                OpCode::SOFTMAX,
                Options::Softmax { beta: 1.0 },
                vec![
                    tensor(&[1, 10], DType::I8, quant(&[0.0625], &[0], 0), None),
                    tensor(&[1, 10], DType::I8, quant(&[out_scale], &[-128], 0), None),
                ],
                &[Some(0)],
            )
        };
        let k = kernel(&make(1.0 / 256.0));
        // 1/16 * 2^26 = 2^22 → multiplier 2^30, shift 23; diff_min = -floor(31 * 2^26 / 2^23) = -248.
        assert_eq!(field(&k, "input_multiplier"), &Value::I32(1 << 30));
        assert_eq!(field(&k, "input_left_shift"), &Value::I32(23));
        assert_eq!(field(&k, "diff_min"), &Value::I32(-248));
        assert_eq!(field(&k, "rows"), &Value::Usize(1));
        assert!(reason(&make(1.0 / 128.0)).contains("1/256"));
        // int8 in, int16 out: the same scaling, another kernel.
        let mut g = make(1.0 / 65536.0);
        g.tensors[1].dtype = DType::I16;
        g.tensors[1].quant = quant(&[1.0 / 65536.0], &[-32768], 0);
        let k = kernel(&g);
        assert_eq!(
            (k.function, k.params.as_ref().unwrap().type_name),
            ("softmax_s8_s16", "SoftmaxS8")
        );
        assert_eq!(field(&k, "diff_min"), &Value::I32(-248));
        g.tensors[1].quant = quant(&[1.0 / 65536.0], &[0], 0);
        assert!(reason(&g).contains("-32768"));
    }
}

//! LOGISTIC and TANH → `logistic_tanh::{logistic,tanh}_{s8,f32}`: the fixed-point input scaling
//! TFLM's Prepare computes for int8, and the fixed output quantization the int8 kernels produce.

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::Result;
use crate::ir::{DType, OpCode, Tensor};
use crate::lower::params::logistic_tanh as P;
use crate::lower::{quant, Num, OpContext};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::LOGISTIC,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| logistic_or_tanh(ctx, Curve::Logistic)),
    },
    OpEntry {
        code: OpCode::TANH,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| logistic_or_tanh(ctx, Curve::Tanh)),
    },
];

/// Which curve an element-wise op applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Curve {
    Logistic,
    Tanh,
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

/// LOGISTIC / TANH → `logistic_tanh::{logistic,tanh}_{s8,f32}`.
fn logistic_or_tanh(ctx: &OpContext, curve: Curve) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let num = ctx.input_num(input)?;
    same_size(ctx, input, output)?;
    let len = input.num_elements();
    match num {
        Num::I8 => {
            let (s_in, zp_in) = ctx.int8_quant("input", input)?;
            let (s_out, zp_out) = ctx.int8_quant("output", output)?;
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
            // (a mantissa that rounds up to 2^31 wraps, as TFLM's static_cast does), so not
            // `OpContext::multiplier`; the shift range is checked here instead.
            const INPUT_INTEGER_BITS: i32 = 4;
            let real = f64::from(s_in) * f64::from(1 << (31 - INPUT_INTEGER_BITS));
            let (q, shift) = quant::frexp(real);
            if !(0..=62).contains(&shift) {
                return Err(
                    ctx.unsupported(format!("input scale {s_in} is out of the supported range"))
                );
            }
            let multiplier = (q * (1i64 << 31) as f64).round() as i64 as i32;
            let radius = quant::input_radius(INPUT_INTEGER_BITS, shift, 31);
            Ok(match curve {
                Curve::Logistic => kernel(
                    "logistic_s8",
                    in_out(ctx)?,
                    P::LogisticS8 {
                        len,
                        input_zero_point: zp_in,
                        input_range_radius: radius,
                        input_multiplier: multiplier,
                        input_left_shift: shift,
                    },
                ),
                Curve::Tanh => kernel(
                    "tanh_s8",
                    in_out(ctx)?,
                    P::TanhS8 {
                        len,
                        input_zero_point: zp_in,
                        input_range_radius: radius,
                        input_multiplier: multiplier,
                        input_left_shift: shift,
                    },
                ),
            })
        }
        Num::F32 => {
            ctx.expect_dtype("output", output, DType::F32)?;
            let function = match curve {
                Curve::Logistic => "logistic_f32",
                Curve::Tanh => "tanh_f32",
            };
            Ok(kernel(function, in_out(ctx)?, P::ElementsF32 { len }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{field, graph, kernel, quant, reason, tensor};
    use crate::ir::*;
    use crate::lower::Value;

    #[test]
    fn logistic_and_tanh_s8_match_tflm_prepare() {
        let make = |code, out_scale, out_zp| {
            graph(
                code,
                Options::None,
                vec![
                    tensor(&[4], DType::I8, quant(&[0.0625], &[2], 0), None),
                    tensor(&[4], DType::I8, quant(&[out_scale], &[out_zp], 0), None),
                ],
                &[Some(0)],
            )
        };
        let k = kernel(&make(OpCode::LOGISTIC, 1.0 / 256.0, -128));
        assert_eq!(k.function, "logistic_s8");
        // 2^-4 * 2^27 = 2^23 → frexp (0.5, 24); radius floor(15 * 2^27 / 2^24) = 120.
        assert_eq!(field(&k, "input_multiplier"), &Value::I32(1 << 30));
        assert_eq!(field(&k, "input_left_shift"), &Value::I32(24));
        assert_eq!(field(&k, "input_range_radius"), &Value::I32(120));
        assert_eq!(field(&k, "input_zero_point"), &Value::I32(2));
        assert!(reason(&make(OpCode::LOGISTIC, 1.0 / 256.0, 0)).contains("-128"));
        assert_eq!(
            kernel(&make(OpCode::TANH, 1.0 / 128.0, 0)).function,
            "tanh_s8"
        );
        // The kernels' output quantization is fixed; any other reads back as garbage.
        assert!(reason(&make(OpCode::TANH, 1.0 / 256.0, 0)).contains("fixed"));
        assert!(reason(&make(OpCode::LOGISTIC, 1.0 / 128.0, -128)).contains("fixed"));
    }

    #[test]
    fn float_tanh_lowers_to_the_float_kernel() {
        let g = graph(
            OpCode::TANH,
            Options::None,
            vec![
                tensor(&[3], DType::F32, None, None),
                tensor(&[3], DType::F32, None, None),
            ],
            &[Some(0)],
        );
        assert_eq!(kernel(&g).function, "tanh_f32");
    }
}

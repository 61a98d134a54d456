//! LOGISTIC and TANH → `logistic_tanh::{logistic,tanh}_{s8,s16,f32}`: the fixed-point input
//! scaling TFLM's Prepare computes for int8 and int16, and the fixed output quantization the
//! integer kernels produce.

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Tensor};
use crate::lower::params::logistic_tanh as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{quant, Num, OpContext, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::LOGISTIC,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| logistic_or_tanh(ctx, Curve::Logistic)),
    },
    OpEntry {
        code: OpCode::TANH,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
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
    ctx.same_dtype("the output", output, input)?;
    if input.num_elements() != output.num_elements() {
        return Err(ctx.invalid(
            format!(
                "output {} {:?} does not match input {} {:?}",
                output.dtype, output.shape, input.dtype, input.shape
            ),
            Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
        ));
    }
    Ok(())
}

/// `CheckedLog2`: `log(x) / log(2)` in float, rounded, and whether it is within 1e-3 of an integer.
fn checked_log2(x: f32) -> (i32, bool) {
    let log2 = x.ln() * (1.0f32 / 2.0f32.ln());
    let rounded = log2.round();
    (rounded as i32, (log2 - rounded).abs() < 1e-3)
}

/// The int16 kernels' input rescaling as TFLM's Prepare computes it (`logistic_common.cc`,
/// `tanh.cc`), its power-of-two case resolved as the kernel resolves it: `(multiplier, right
/// shift)` taking the input to 1/12288 per LSB, or `None` for an input scale TFLM cannot rescale
/// (a multiplier above 32767, which its DCHECK refuses, or one truncated to 0, which the kernel
/// would mistake for the power-of-two case with an overflowing shift).
fn input_rescaling_s16(s_in: f32, curve: Curve) -> Option<(i32, i32)> {
    let (log2, exact) = checked_log2(s_in);
    // 15 - 3 integer bits: the shift that takes the input to 2^-12 per LSB.
    let shift = 12 + log2;
    let pot = exact
        && match curve {
            Curve::Logistic => shift == 0,
            Curve::Tanh => shift == 0 || shift == 1,
        };
    if pot {
        // 2^-12 (or TANH's 2^-11) per LSB: times 3 (or 6) is 1/12288 per LSB.
        return Some((3 << shift, 0));
    }
    let mut multiplier = f64::from(s_in) * 4096.0 * 3.0;
    let mut shift = 0;
    while multiplier <= 32767.0 / 2.0 && shift <= 30 {
        shift += 1;
        multiplier *= 2.0;
    }
    // Truncated, as TFLM's cast.
    let multiplier = multiplier as i32;
    (1..=32767)
        .contains(&multiplier)
        .then_some((multiplier, shift))
}

/// LOGISTIC / TANH int16 → `logistic_tanh::{logistic,tanh}_s16`: TFLM's Prepare checks (zero
/// points 0, output scale 2^-15 within `CheckedLog2`'s tolerance) and input rescaling.
fn logistic_or_tanh_s16(ctx: &OpContext, curve: Curve) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let (s_in, zp_in) = ctx.int16_quant("the input", input)?;
    let (s_out, zp_out) = ctx.int16_quant("the output", output)?;
    if zp_in != 0 || zp_out != 0 {
        return Err(ctx.invalid(
            format!(
            "int16 zero points {zp_in} (input) and {zp_out} (output); TFLM requires both to be 0"
        ),
            Grounds::tflm(
                "logistic_common.cc / tanh_common.cc CalculateArithmeticOpData: \
                 TF_LITE_ENSURE_EQ(int16 input and output zero points, 0)",
            ),
        ));
    }
    if checked_log2(s_out) != (-15, true) {
        return Err(ctx.invalid(
            format!(
            "int16 output scale {s_out:e} is not the 2^-15 TFLM requires (the kernel's output is \
             fixed: Q0.15)"
        ),
            Grounds::tflm(
                "logistic_common.cc / tanh_common.cc CalculateArithmeticOpData: \
                 TF_LITE_ENSURE_EQ(log2 of the int16 output scale, -15)",
            ),
        ));
    }
    let (input_multiplier, input_right_shift) =
        input_rescaling_s16(s_in, curve).ok_or_else(|| {
            ctx.invalid(
                format!(
                    "int16 input scale {s_in:e} is out of the range TFLM rescales (above 32767 / \
                     12288, or so small that its multiplier truncates to 0)"
                ),
                Grounds::undefined(
                    "logistic_common.cc / tanh_common.cc CalculateArithmeticOpData checks the \
                     int16 input multiplier only with TFLITE_DCHECK_LE(multiplier, 32767): above \
                     it the kernel's input * multiplier overflows int32; truncated to 0, the \
                     kernel takes the power-of-two path with a shift of 31 or more",
                ),
            )
        })?;
    let params = P::LogisticS16 {
        len: input.num_elements(),
        input_multiplier,
        input_right_shift,
    };
    Ok(match curve {
        Curve::Logistic => kernel("logistic_s16", in_out(ctx)?, params),
        Curve::Tanh => kernel("tanh_s16", in_out(ctx)?, params),
    })
}

/// LOGISTIC / TANH → `logistic_tanh::{logistic,tanh}_{s8,s16,f32}`.
fn logistic_or_tanh(ctx: &OpContext, curve: Curve) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let num = ctx.input_num_or_i16(input)?;
    same_size(ctx, input, output)?;
    let len = input.num_elements();
    match num {
        Num::I16 => logistic_or_tanh_s16(ctx, curve),
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
                return Err(ctx.invalid(
                    format!(
                    "int8 output quantization (scale {s_out:e}, zero point {zp_out}) is not the \
                     fixed (scale {scale}, zero point {zero_point}) the kernel produces"
                ),
                    Grounds::tflm(
                        "logistic_common.cc / tanh_common.cc CalculateArithmeticOpData: \
                         TF_LITE_ENSURE_EQ(int8 output zero point, -128 or 0) and \
                         TF_LITE_ENSURE_NEAR(output scale, 1/256 or 1/128)",
                    ),
                ));
            }
            // Input rescaled to Q4.27: frexp of s_in * 2^27, rounded to Q31 without the 2^31 fix-up
            // (a mantissa that rounds up to 2^31 wraps, as TFLM's static_cast does), so not
            // `OpContext::multiplier`; the shift range is checked here instead.
            const INPUT_INTEGER_BITS: i32 = 4;
            let real = f64::from(s_in) * f64::from(1 << (31 - INPUT_INTEGER_BITS));
            let (q, shift) = quant::frexp(real);
            if !(0..=62).contains(&shift) {
                return Err(ctx.invalid(
                    format!("input scale {s_in} is out of the range TFLM's kernels shift by"),
                    Grounds::undefined(
                        "the int8 LOGISTIC and TANH input multiplier's shift (frexp of scale × \
                         2^27) falls outside [0, 62]: a shift of 32 bits or more in TFLM's \
                         fixed-point rescaling",
                    ),
                ));
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
            ctx.expect_output_dtype("the output", output, DType::F32)?;
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
    fn logistic_and_tanh_s16_match_tflm_prepare() {
        let make = |code, in_scale: f32, out_scale: f32, zp: i64| {
            graph(
                code,
                Options::None,
                vec![
                    tensor(&[4], DType::I16, quant(&[in_scale], &[zp], 0), None),
                    tensor(&[4], DType::I16, quant(&[out_scale], &[0], 0), None),
                ],
                &[Some(0)],
            )
        };
        let q15 = 1.0 / 32768.0;
        let params = |g: &Graph| {
            let k = kernel(g);
            (
                k.function,
                field(&k, "input_multiplier").clone(),
                field(&k, "input_right_shift").clone(),
            )
        };
        // 2^-12: TFLM's power-of-two case for both, multiplier 3 << 0.
        assert_eq!(
            params(&make(OpCode::LOGISTIC, 1.0 / 4096.0, q15, 0)),
            ("logistic_s16", Value::I32(3), Value::I32(0))
        );
        // 2^-11: power-of-two for TANH only (3 << 1); LOGISTIC's general case gives
        // 2^-11 · 12288 = 6 doubled 12 times: 24576, shift 12.
        assert_eq!(
            params(&make(OpCode::TANH, 1.0 / 2048.0, q15, 0)),
            ("tanh_s16", Value::I32(6), Value::I32(0))
        );
        assert_eq!(
            params(&make(OpCode::LOGISTIC, 1.0 / 2048.0, q15, 0)),
            ("logistic_s16", Value::I32(24576), Value::I32(12))
        );
        // 6 / 32767 (the fixture's range): 2.2500 doubled 13 times = 18432.56…, truncated.
        let s = 6.0f32 / 32767.0;
        let expected = (f64::from(s) * 12288.0 * 8192.0) as i32;
        assert_eq!(
            params(&make(OpCode::TANH, s, q15, 0)),
            ("tanh_s16", Value::I32(expected), Value::I32(13))
        );
        // Refusals: a zero point, another output scale, an input scale beyond 32767 / 12288.
        assert!(reason(&make(OpCode::LOGISTIC, 1.0 / 4096.0, q15, 1)).contains("zero points"));
        assert!(reason(&make(OpCode::TANH, 1.0 / 4096.0, 1.0 / 256.0, 0)).contains("2^-15"));
        assert!(reason(&make(OpCode::TANH, 3.0, q15, 0)).contains("input scale"));
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

//! SOFTMAX → `softmax::softmax_{s8,s8_s16,s16,f32}`, over the last dimension: the fixed-point
//! input scaling TFLM's Prepare computes for int8 and int16, and int16's exp and reciprocal tables.
//! LOG_SOFTMAX → `softmax::log_softmax_{f32,s8}`: int8 with the multipliers TFLM's Prepare computes.

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Options};
use crate::lower::params::softmax as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{quant, Data, Num, OpContext, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::SOFTMAX,
        types: Types::unary(
            &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Each(&[Ty::I8, Ty::I16]),
                Sig::Same(Ty::I16),
            ],
            &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Each(&[Ty::I8, Ty::I16]),
                Sig::Same(Ty::I16),
            ],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(softmax),
    },
    OpEntry {
        code: OpCode::LOG_SOFTMAX,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(log_softmax),
    },
];

/// LOG_SOFTMAX over the last dimension: float32 as TFLM's `reference_ops::LogSoftmax`, int8 as
/// its `LogSoftmaxQuantized`. TFLM's Prepare requires the input's type and shape of the output.
fn log_softmax(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    match input.dtype {
        DType::F32 | DType::I8 => {}
        other => {
            return Err(ctx.invalid(
                format!("input type {other}; TFLM's LOG_SOFTMAX supports FLOAT32 and INT8"),
                Grounds::tflm(
                    "log_softmax.cc LogSoftmaxEval: \"LOG_SOFTMAX only supports float32, int8\" \
                     (kTfLiteError)",
                ),
            ))
        }
    }
    ctx.same_dtype("the output", output, input)?;
    if input.shape != output.shape {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} differs from the input's {:?}; TFLM requires them equal",
                output.shape, input.shape
            ),
            Grounds::tflm("log_softmax.cc CalculateOpData: TF_LITE_ENSURE(HaveSameShapes)"),
        ));
    }
    let depth = match input.shape.last() {
        Some(&d) if d > 0 => d,
        None => {
            return Err(ctx.invalid(
                "the input is a scalar (rank 0)",
                Grounds::undefined(
                    "log_softmax.h LogSoftmax: the trailing dimension of a rank-0 shape is -1",
                ),
            ))
        }
        Some(_) => {
            return Err(ctx.unsupported(format!(
                "input shape {:?} has an empty last dimension; supported: a non-empty one",
                input.shape
            )))
        }
    };
    let rows = input.num_elements() / depth;
    if input.dtype == DType::I8 {
        return log_softmax_s8(ctx, rows, depth);
    }
    Ok(kernel(
        "log_softmax_f32",
        in_out(ctx)?,
        P::LogSoftmaxF32 { rows, depth },
    ))
}

/// int8 LOG_SOFTMAX: log_softmax.cc CalculateOpData's checks and multipliers.
fn log_softmax_s8(ctx: &OpContext, rows: usize, depth: usize) -> Result<Kernel> {
    /// kScaledDiffIntegerBits: the scaled differences are Q5.26.
    const SCALED_DIFF_INTEGER_BITS: i32 = 5;
    let (s_in, _) = ctx.int8_quant("input", ctx.input(0)?)?;
    let (s_out, zp_out) = ctx.int8_quant("output", ctx.output(0)?)?;
    if s_out != 16.0 / 256.0 || zp_out != 127 {
        return Err(ctx.invalid(
            format!(
                "int8 output quantization ({s_out}, {zp_out}); TFLM requires scale 16/256 and \
                 zero point 127"
            ),
            Grounds::tflm(
                "log_softmax.cc CalculateOpData: TF_LITE_ENSURE(output scale == 16.0 / 256), \
                 TF_LITE_ENSURE(output zero point == 127)",
            ),
        ));
    }
    // The Q12.19 sum of up to `depth` exps of at most 1 each must stay below 2^12.
    if depth >= 1 << 12 {
        return Err(ctx.invalid(
            format!("rows of {depth} elements: the sum of their exps can overflow Q12.19"),
            Grounds::undefined(
                "log_softmax.h LogSoftmaxQuantized: \"sum_of_exps_in_q12 is safe from \
                 overflowing in 2^12 steps\"; beyond, the int32 sum can overflow",
            ),
        ));
    }
    // PreprocessLogSoftmaxScalingExp with beta 1: PreprocessSoftmaxScaling, capped below 2^31.
    let real = (f64::from(s_in) * f64::from(1 << (31 - SCALED_DIFF_INTEGER_BITS)))
        .min(f64::from(i32::MAX));
    let (multiplier, shift) = quant::quantize_multiplier(real);
    if real.is_nan() || real <= 1.0 || shift < 0 {
        return Err(ctx.invalid(
            format!("input scale * 2^26 = {real} is not above 1 (TFLM requires it)"),
            Grounds::tflm(
                "log_softmax.cc CalculateOpData → PreprocessLogSoftmaxScalingExp → \
                 QuantizeMultiplierGreaterThanOne: TFLITE_CHECK_GT(double_multiplier, 1.) aborts",
            ),
        ));
    }
    // The reverse scaling: 2^(31 - shift) / multiplier, which QuantizeMultiplierSmallerThanOneExp
    // requires below 1.
    let reverse = f64::from(1u32 << (31 - shift)) / f64::from(multiplier);
    let (reverse_scaling_divisor, reverse_scaling_shift) = quant::quantize_multiplier(reverse);
    // Also TFLITE_CHECK_LE(shift, 0): a divisor just below 1 may round up to 1.
    if reverse >= 1.0 || reverse_scaling_shift > 0 {
        return Err(ctx.invalid(
            format!("the reverse scaling divisor {reverse} is not below 1 (TFLM requires it)"),
            Grounds::tflm(
                "quantization_util.cc PreprocessLogSoftmaxScalingExp → \
                 QuantizeMultiplierSmallerThanOneExp: TFLITE_CHECK_LT(double_multiplier, 1.) \
                 aborts",
            ),
        ));
    }
    let diff_min = -quant::input_radius(SCALED_DIFF_INTEGER_BITS, shift, 31);
    Ok(kernel(
        "log_softmax_s8",
        in_out(ctx)?,
        P::LogSoftmaxS8 {
            rows,
            depth,
            input_multiplier: multiplier,
            input_left_shift: shift,
            reverse_scaling_divisor,
            reverse_scaling_shift,
            diff_min,
        },
    ))
}

/// SOFTMAX → `softmax::softmax_s8` / `softmax::softmax_f32`, over the last dimension.
fn softmax(ctx: &OpContext) -> Result<Kernel> {
    let Options::Softmax { beta } = ctx.op().options else {
        // The loader gives an op without options TFLM's default (its zeroed params: beta 0).
        return Err(ctx.internal("no Softmax options decoded"));
    };
    if !beta.is_finite() {
        return Err(ctx.invalid(
            format!("beta {beta} is not a finite number"),
            Grounds::undefined(
                "softmax_common.cc CalculateSoftmaxParams: PreprocessSoftmaxScaling \
                 converts a non-finite scaled beta to an integer",
            ),
        ));
    }
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    // int16: TFLM's `SoftmaxInt16`, int16 to int16 only.
    let num = ctx.input_num_or_i16(input)?;
    let int16_output = num == Num::I8 && output.dtype == DType::I16;
    if output.dtype != input.dtype && !int16_output {
        return Err(ctx.invalid(
            format!(
                "{} input with {} output; TFLM's SOFTMAX takes INT8 → INT8, INT8 → INT16, \
                 INT16 → INT16 and FLOAT32 → FLOAT32",
                input.dtype, output.dtype
            ),
            Grounds::tflm("softmax_common.cc CalculateSoftmaxParams: the input and output types"),
        ));
    }
    if input.num_elements() != output.num_elements() {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} does not match input shape {:?}",
                output.shape, input.shape
            ),
            Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
        ));
    }
    let depth =
        match input.shape.last() {
            Some(&d) if d > 0 => d,
            None => return Err(ctx.invalid(
                "the input is a scalar (rank 0)",
                Grounds::tflm(
                    "softmax_common.cc SoftmaxPrepare: TF_LITE_ENSURE(NumDimensions(input) >= 1)",
                ),
            )),
            // An empty last dimension: TFLM runs over no elements.
            Some(_) => {
                return Err(ctx.unsupported(format!(
                    "input shape {:?} has an empty last dimension; supported: a non-empty one",
                    input.shape
                )))
            }
        };
    let rows = input.num_elements() / depth;
    match num {
        Num::I16 => softmax_s16(ctx, beta, rows, depth),
        Num::I8 => {
            let (s_in, _) = ctx.int8_quant("input", input)?;
            // An int16 output has its own zero point, checked against TFLM's exact one below.
            let (s_out, zp_out) = ctx.per_tensor_quant("output", output)?;
            if int16_output {
                // TF_LITE_ENSURE_NEAR(scale, 1/65536, 0.001/65536), compared in float.
                let target = 1.0f32 / 65536.0;
                if zp_out != -32768 || (s_out - target).abs() > 0.001 * target {
                    return Err(ctx.invalid(
                        format!(
                            "int16 output quantization ({s_out}, {zp_out}); TFLM requires scale \
                             1/65536 and zero point -32768"
                        ),
                        Grounds::tflm(
                            "softmax_common.cc CalculateSoftmaxParams: TF_LITE_ENSURE_EQ(output \
                             zero point, -32768), TF_LITE_ENSURE_NEAR(output scale, 1/65536)",
                        ),
                    ));
                }
            } else if zp_out != -128 || s_out != 1.0 / 256.0 {
                return Err(ctx.invalid(
                    format!(
                        "int8 output quantization ({s_out}, {zp_out}); TFLM requires scale 1/256 \
                         and zero point -128"
                    ),
                    Grounds::tflm(
                        "softmax_common.cc CalculateSoftmaxParams: TF_LITE_ENSURE_EQ(output zero \
                         point, -128), TF_LITE_ENSURE(output scale == 1/256)",
                    ),
                ));
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
                return Err(ctx.invalid(
                    format!("beta * input scale * 2^26 = {real} is not above 1 (TFLM requires it)"),
                    Grounds::tflm(
                        "softmax_common.cc CalculateSoftmaxParams → quantization_util.cc \
                         PreprocessSoftmaxScaling → QuantizeMultiplierGreaterThanOne: \
                         TFLITE_CHECK_GT(double_multiplier, 1.) aborts",
                    ),
                ));
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

/// int16 SOFTMAX → `softmax::softmax_s16`, as TFLM's Prepare checks and computes it.
fn softmax_s16(ctx: &OpContext, beta: f32, rows: usize, depth: usize) -> Result<Kernel> {
    let (s_in, zp_in) = ctx.int16_quant("input", ctx.input(0)?)?;
    let (s_out, zp_out) = ctx.int16_quant("output", ctx.output(0)?)?;
    // TF_LITE_ENSURE_NEAR(scale, 1/32768, 0.001/32768), compared in float.
    let target = 1.0f32 / 32768.0;
    if zp_in != 0 || zp_out != 0 || (s_out - target).abs() > 0.001 * target {
        return Err(ctx.invalid(
            format!(
                "int16 input zero point {zp_in}, output quantization ({s_out}, {zp_out}): TFLM \
                 requires input zero point 0, output scale 1/32768 and zero point 0"
            ),
            Grounds::tflm(
                "softmax_common.cc CalculateSoftmaxParams: TF_LITE_ENSURE_EQ(int16 zero \
                 points, 0) and TF_LITE_ENSURE_NEAR(output scale, 1/32768)",
            ),
        ));
    }
    // A row's exps, each below 2^15, are summed in 32 bits.
    if depth > 65538 {
        return Err(ctx.invalid(
            format!(
                "rows of {depth} int16 elements: TFLM's 32-bit sum of exps overflows beyond 65538"
            ),
            Grounds::undefined(
                "reference softmax.h SoftmaxInt16 sums a row's exps (each up to 32767) in an \
                 int32_t: beyond 65538 elements the sum can overflow (signed overflow)",
            ),
        ));
    }
    // Differences from the row maximum (down to -65535) in exp table units, -65535 being -10.0.
    let (input_multiplier, input_shift) = ctx.multiplier(
        "input scale × beta × 65535 / 10",
        f64::from(s_in) * f64::from(beta) / (10.0 / 65535.0),
    )?;
    if input_shift > 15 {
        return Err(ctx.invalid(
            format!(
                "input scale × beta = {:e} is too large: TFLM shifts differences of up to 65535 \
                 left by {input_shift} bits in 32-bit arithmetic, which overflows (supported: at \
                 most 15)",
                f64::from(s_in) * f64::from(beta)
            ),
            Grounds::undefined(
                "reference softmax.h SoftmaxInt16: MultiplyByQuantizedMultiplier(input_diff, \
                 input_multiplier, input_left_shift) shifts a difference of up to 65535 left by \
                 more than 15 bits in int32 (signed overflow)",
            ),
        ));
    }
    let (exp_lut, recip_lut) = int16_tables();
    Ok(kernel(
        "softmax_s16",
        in_out(ctx)?,
        P::SoftmaxS16 {
            rows,
            depth,
            input_multiplier,
            input_shift,
            exp_lut: Data::Packed(exp_lut.to_vec()),
            recip_lut: Data::Packed(recip_lut.to_vec()),
        },
    ))
}

/// The two tables TFLM's int16 SOFTMAX builds in Prepare, which depend on no tensor: `exp(x)` for
/// x in [-10, 0] and `1 / (1 + x)` for x in [0, 1], both in Q0.15 (see [`exp_f32`] for the exp).
fn int16_tables() -> ([i16; 513], [i16; 513]) {
    // `range` is an int32 65535 in TFLM; its quotients are f32.
    let range = 65535.0f32;
    let exp = quant::lut_populate_int16((10.0 / range, 32767), (2.0 / range, 0), exp_f32);
    let recip =
        quant::lut_populate_int16((1.0 / range, -32768), (2.0 / range, 0), |x| 1.0 / (1.0 + x));
    (exp, recip)
}

/// The single-precision exp of the exp table. TFLM calls the C library's `expf`, which need not be
/// correctly rounded (glibc's is within 0.502 ulp: at -2.216796875, an argument of the table, it
/// gives 0x3DDF2524 where the correctly rounded value is 0x3DDF2523), nor the same on every host.
/// The table does not change when any of its exp values moves by one ulp either way (a test checks
/// every combination), so exp in double precision, rounded once, gives TFLM's table anywhere.
fn exp_f32(x: f32) -> f32 {
    f64::from(x).exp() as f32
}

#[cfg(test)]
mod tests {
    use super::super::testing::{field, graph, kernel, quant, reason, tensor};
    use super::{exp_f32, int16_tables};
    use crate::ir::*;
    use crate::lower::{quant::lut_populate_int16, Value};
    use std::cell::Cell;
    use tinyaot_test_support::{hex, sha256};

    /// Σ, first and last entries and the sha256 of the comma-joined decimal values, as
    /// docs/ARITHMETIC-INT16.md records them from TFLM's own `LUTPopulateInt16`.
    fn check_table(lut: &[i16; 513], sum: i64, first: [i16; 4], last: [i16; 3], sha: &str) {
        assert_eq!(lut.iter().map(|&v| i64::from(v)).sum::<i64>(), sum);
        assert_eq!(lut[..4], first);
        assert_eq!(lut[510..], last);
        let text = lut.iter().map(i16::to_string).collect::<Vec<_>>().join(",");
        let hash = hex(&sha256(text.as_bytes()));
        assert!(hash.starts_with(sha), "sha256 {hash}");
    }

    #[test]
    fn int16_tables_are_tflms() {
        let (exp, recip) = int16_tables();
        check_table(
            &exp,
            1_694_030,
            [2; 4],
            [31512, 32133, 32767],
            "9bdd476d5d308a47",
        );
        let recip_first = [32767, 32704, 32640, 32578];
        check_table(
            &recip,
            11_653_643,
            recip_first,
            [16416, 16400, 16384],
            "8bc66134991ac647",
        );
    }

    #[test]
    fn int16_exp_table_is_the_same_for_any_expf_within_one_ulp() {
        let (exp, _) = int16_tables();
        let range = 65535.0f32;
        let ulp = |x: f32, d: i32| f32::from_bits((x.to_bits() as i32 + d) as u32);
        // Each entry reads three exps in turn (at its point, the midpoint, the next point): move
        // each of the three by -1, 0 or +1 ulp, in all 27 ways.
        for pattern in 0..27i32 {
            let call = Cell::new(0);
            let moved = lut_populate_int16((10.0 / range, 32767), (2.0 / range, 0), |x| {
                let k = call.get();
                call.set(k + 1);
                let d = [pattern % 3, pattern / 3 % 3, pattern / 9][k % 3] - 1;
                ulp(exp_f32(x), d)
            });
            assert_eq!(moved, exp, "pattern {pattern}");
        }
        // glibc's expf at -2.216796875 (0x3DDF2524), one ulp above the correctly rounded value.
        assert_eq!(exp_f32(-2.216_796_9).to_bits(), 0x3DDF_2523);
    }

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

    #[test]
    fn softmax_s16_matches_tflm_prepare() {
        let make = |in_scale: f32, out_scale: f32, out_zp: i64| {
            graph(
                OpCode::SOFTMAX,
                Options::Softmax { beta: 1.0 },
                vec![
                    tensor(&[2, 5], DType::I16, quant(&[in_scale], &[0], 0), None),
                    tensor(&[2, 5], DType::I16, quant(&[out_scale], &[out_zp], 0), None),
                ],
                &[Some(0)],
            )
        };
        // 10 / 65535 per LSB is the exp table's own unit: multiplier 1 (2^30, shift 1).
        let k = kernel(&make(10.0 / 65535.0, 1.0 / 32768.0, 0));
        assert_eq!(k.function, "softmax_s16");
        assert_eq!(field(&k, "input_multiplier"), &Value::I32(1 << 30));
        assert_eq!(field(&k, "input_shift"), &Value::I32(1));
        assert_eq!(field(&k, "rows"), &Value::Usize(2));
        assert!(reason(&make(1e-4, 1.0 / 32768.0, 1)).contains("zero point 0"));
        assert!(reason(&make(1e-4, 1.0 / 65536.0, 0)).contains("1/32768"));
        // Up to 2^15 table units per LSB is a shift of 15 (65535 << 15 fits in 32 bits); beyond
        // that, TFLM's shifted differences overflow.
        let limit = (32767.0 * 10.0 / 65535.0) as f32;
        assert_eq!(
            field(&kernel(&make(limit, 1.0 / 32768.0, 0)), "input_shift"),
            &Value::I32(15)
        );
        assert!(reason(&make(6.0, 1.0 / 32768.0, 0)).contains("overflows"));
        let mut g = make(1e-4, 1.0 / 32768.0, 0);
        g.tensors[1].dtype = DType::I8;
        assert!(reason(&g).contains("INT16 → INT16"));
    }
}

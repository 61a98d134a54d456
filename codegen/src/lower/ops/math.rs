//! ABS, NEG, RSQRT, SQRT, SQUARE, LOG, EXP, SIN, COS → `math::*`: TFLM's `elementwise.cc` (and `neg.cc`,
//! `exp.cc`) math operators, one input and one output of its size and type. float32 kernels
//! compute the function; an int8 operator becomes a 256-entry table (`lut_s8`) computed here with
//! TFLM's integer arithmetic, so the device runs a lookup.

use super::{unary_in_place as unary, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::math as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{Data, OpContext};
use tinyaot_runtime::math::{
    multiply_by_quantized_multiplier as mbqm, saturating_rounding_doubling_high_mul as mul,
    saturating_rounding_multiply_by_pot as srm_by_pot,
};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::ABS,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(abs),
    },
    OpEntry {
        code: OpCode::NEG,
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        // TFLM's NEG has no Prepare: its Eval reads input 0 and writes output 0, and ignores
        // any other input.
        inputs: 1..=usize::MAX,
        outputs: 1,
        lower: Lowering::Kernel(neg),
    },
    OpEntry {
        code: OpCode::RSQRT,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(rsqrt),
    },
    OpEntry {
        code: OpCode::SQRT,
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(sqrt),
    },
    OpEntry {
        code: OpCode::EXP,
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(exp),
    },
    OpEntry {
        code: OpCode::LOG,
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(log),
    },
    OpEntry {
        code: OpCode::SIN,
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(sin),
    },
    OpEntry {
        code: OpCode::COS,
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(cos),
    },
    OpEntry {
        code: OpCode::SQUARE,
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(square),
    },
];

/// The input's type, after TFLM's `TF_LITE_ENSURE_TYPES_EQ(input type, output type)` and its
/// check against the types the operator's Prepare accepts (`supported`, named in the refusal
/// with the check's `ground`).
fn checked_type(ctx: &OpContext, supported: &[DType], ground: &'static str) -> Result<DType> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if !supported.contains(&input.dtype) {
        let names: Vec<_> = supported.iter().map(|d| d.name()).collect();
        return Err(ctx.invalid(
            format!(
                "input type {}; TFLM's kernel supports {}",
                input.dtype.name(),
                names.join(" and ")
            ),
            Grounds::tflm(ground),
        ));
    }
    ctx.same_dtype("the output", output, input)?;
    Ok(input.dtype)
}

/// A 256-entry int8 table: `f(x)` for every int8 `x`, at index `x + 128`.
fn table_s8(f: impl Fn(i32) -> i32) -> Data<i8> {
    Data::Packed((-128..=127).map(|x| f(x).clamp(-128, 127) as i8).collect())
}

/// RSQRT: float32 `1 / sqrt(x)`, or int8 as TFLM's `RsqrtEvalQuantized` (a table).
fn rsqrt(ctx: &OpContext) -> Result<Kernel> {
    let dtype = checked_type(
        ctx,
        &[DType::F32, DType::I8],
        "elementwise.cc PrepareAbsRsqrt: IsRsqrtSupportedType (FLOAT32 and INT8)",
    )?;
    if dtype == DType::F32 {
        return unary(ctx, "rsqrt_f32", |len| P::UnaryF32 { len });
    }
    let (si, zi) = ctx.int8_quant("the input", ctx.input(0)?)?;
    let (so, zo) = ctx.int8_quant("the output", ctx.output(0)?)?;
    // SetRsqrtOutputMultiplier: the root and the product in float, the reciprocal in double.
    let real = 1.0 / f64::from(si.sqrt() * so);
    let (m, shift) = ctx.multiplier("1 / (sqrt(input scale) × output scale)", real)?;
    // RsqrtEvalQuantized rescales by shift - 20: below -31 its RoundingDivideByPOT shifts an
    // int32 by 32 bits or more.
    if shift - 20 < -31 {
        return Err(ctx.invalid(
            format!(
                "the rescaling factor 1 / (sqrt(input scale) × output scale) = {real:e} is below \
                 2^-12: TFLM's int8 RSQRT divides by 2^{} (a shift of 32 bits or more)",
                20 - shift
            ),
            Grounds::undefined(
                "elementwise.cc RsqrtEvalQuantized: MultiplyByQuantizedMultiplier by shift - 20 \
                 below -31 shifts an int32 right by 32 bits or more",
            ),
        ));
    }
    let table = table_s8(|x| rsqrt_s8(x - zi, m, shift, zo));
    unary(ctx, "lut_s8", |len| P::LutS8 { len, table })
}

/// ABS: float32 `|x|`; int8 as TFLM's `AbsEvalQuantized` (a table); int16 as
/// `AbsEvalQuantized` (zero points 0) or, unquantized, `std::abs`.
fn abs(ctx: &OpContext) -> Result<Kernel> {
    let dtype = checked_type(
        ctx,
        &[DType::F32, DType::I8, DType::I16],
        "elementwise.cc PrepareAbsRsqrt: IsAbsSupportedType (FLOAT32, INT8 and INT16)",
    )?;
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    match dtype {
        DType::F32 => unary(ctx, "abs_f32", |len| P::UnaryF32 { len }),
        DType::I8 => {
            let (si, zi) = ctx.int8_quant("the input", input)?;
            let (so, zo) = ctx.int8_quant("the output", output)?;
            // |x - input zero point| is at most 255.
            let (m, shift) = abs_multiplier(ctx, si, so, 255)?;
            let table = table_s8(|x| {
                let value = (x - zi).abs();
                match m {
                    Some(m) => mbqm(value, m, shift) + zo,
                    None => value + zo,
                }
            });
            unary(ctx, "lut_s8", |len| P::LutS8 { len, table })
        }
        _ if input.quant.is_none() && output.quant.is_none() => {
            unary(ctx, "abs_s16", |len| P::AbsS16 {
                len,
                quantized: false,
                rescale: false,
                multiplier: 0,
                shift: 0,
            })
        }
        _ => {
            // PrepareAbsRsqrt: a quantized int16 input needs affine quantization on both
            // tensors, and zero points 0.
            let (si, zi) = ctx.int16_quant("the input", input)?;
            let (so, zo) = ctx.int16_quant("the output", output)?;
            if zi != 0 || zo != 0 {
                return Err(ctx.invalid(
                    format!("int16 zero points {zi} (input) and {zo} (output); TFLM requires 0"),
                    Grounds::tflm(
                        "elementwise.cc PrepareAbsRsqrt: TF_LITE_ENSURE_EQ(input_offset, 0) and \
                         TF_LITE_ENSURE_EQ(output_offset, 0) for int16",
                    ),
                ));
            }
            // |x| is at most 32768.
            let (m, shift) = abs_multiplier(ctx, si, so, 32768)?;
            unary(ctx, "abs_s16", |len| P::AbsS16 {
                len,
                quantized: true,
                rescale: m.is_some(),
                multiplier: m.unwrap_or(0),
                shift,
            })
        }
    }
}

/// `SetAbsOutputMultiplier`: `None` when the scales are equal (`needs_rescale` false), else
/// `QuantizeMultiplier(input scale / output scale)` with the ratio taken in double (the TFLM the
/// tests run rounds a ratio whose float quotient is exactly 1.5, but whose double one is below
/// it, down: `cargo xtask difftest` found it on int16 ABS). Refused: a
/// multiplier whose left shift overflows int32 for a value up to `max_value` (TFLM's
/// `MultiplyByQuantizedMultiplier` computes `x * (1 << shift)` in int32).
fn abs_multiplier(ctx: &OpContext, si: f32, so: f32, max_value: i64) -> Result<(Option<i32>, i32)> {
    if si == so {
        return Ok((None, 0));
    }
    let real = f64::from(si) / f64::from(so);
    let (m, shift) = ctx.multiplier("input scale / output scale", real)?;
    if shift > 0 && max_value << shift > i64::from(i32::MAX) {
        return Err(ctx.invalid(
            format!(
                "the rescaling factor input scale / output scale = {real:e} shifts |x| up to \
                 {max_value} left by {shift} bits: TFLM's int32 product overflows"
            ),
            Grounds::undefined(
                "elementwise.cc AbsEvalQuantized: MultiplyByQuantizedMultiplier computes \
                 x * (1 << shift) in int32, a signed overflow",
            ),
        ));
    }
    Ok((Some(m), shift))
}

/// NEG: float32 `-x` (TFLM's `neg.cc`, whose Eval takes FLOAT32 only). TFLM checks neither
/// the output's type nor its size; it writes floats into it.
fn neg(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if input.dtype != DType::F32 {
        return Err(ctx.invalid(
            format!(
                "input type {}; TFLM's kernel supports FLOAT32",
                input.dtype.name()
            ),
            Grounds::tflm("neg.cc NegEval: FLOAT32 only (\"Type %s (%d) not supported.\")"),
        ));
    }
    if output.dtype != DType::F32 {
        return Err(ctx.invalid(
            format!(
                "output type {}; TFLM writes float32 values into it",
                output.dtype.name()
            ),
            Grounds::undefined(
                "neg.cc NegEval writes GetTensorData<float>(output) without checking the \
                 output's type: a narrower output is overrun",
            ),
        ));
    }
    unary(ctx, "neg_f32", |len| P::UnaryF32 { len })
}

/// SQRT: float32 `sqrt(x)`, correctly rounded (TFLM's `std::sqrt`).
fn sqrt(ctx: &OpContext) -> Result<Kernel> {
    checked_type(
        ctx,
        &[DType::F32],
        "elementwise.cc GenericPrepare: IsNumericSupportedType (FLOAT32)",
    )?;
    unary(ctx, "sqrt_f32", |len| P::UnaryF32 { len })
}

/// EXP: float32 `std::exp` (TFLM's `exp.cc`, whose Prepare takes FLOAT32 only and checks the
/// output's type, bytes and shape against the input's).
fn exp(ctx: &OpContext) -> Result<Kernel> {
    checked_type(
        ctx,
        &[DType::F32],
        "exp.cc ExpPrepare: TF_LITE_ENSURE_TYPES_EQ(input type, kTfLiteFloat32)",
    )?;
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if input.shape != output.shape {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} differs from the input's {:?}; TFLM requires them equal",
                output.shape, input.shape
            ),
            Grounds::tflm("exp.cc ExpPrepare: TF_LITE_ENSURE_EQ(output dims, input dims)"),
        ));
    }
    unary(ctx, "exp_f32", |len| P::UnaryF32 { len })
}

/// LOG: float32 `std::log` (NaN below 0, -inf at 0).
fn log(ctx: &OpContext) -> Result<Kernel> {
    checked_type(
        ctx,
        &[DType::F32],
        "elementwise.cc GenericPrepare: IsNumericSupportedType (FLOAT32)",
    )?;
    unary(ctx, "log_f32", |len| P::UnaryF32 { len })
}

/// SIN: float32 `std::sin` (TFLM's `SinEval`; NaN for ±inf).
fn sin(ctx: &OpContext) -> Result<Kernel> {
    checked_type(
        ctx,
        &[DType::F32],
        "elementwise.cc GenericPrepare: IsNumericSupportedType (FLOAT32)",
    )?;
    unary(ctx, "sin_f32", |len| P::UnaryF32 { len })
}

/// COS: float32 `std::cos` (TFLM's `CosEval`; NaN for ±inf).
fn cos(ctx: &OpContext) -> Result<Kernel> {
    checked_type(
        ctx,
        &[DType::F32],
        "elementwise.cc GenericPrepare: IsNumericSupportedType (FLOAT32)",
    )?;
    unary(ctx, "cos_f32", |len| P::UnaryF32 { len })
}

/// SQUARE: float32 `x * x`.
fn square(ctx: &OpContext) -> Result<Kernel> {
    checked_type(
        ctx,
        &[DType::F32],
        "elementwise.cc GenericPrepare: IsNumericSupportedType (FLOAT32)",
    )?;
    unary(ctx, "square_f32", |len| P::UnaryF32 { len })
}

/// `RsqrtEvalQuantized` of `value = x - input zero point`, before the clamp: int8's maximum for 0
/// (without the output zero point), else the rescaled root plus the output zero point. TFLM's
/// Invoke fails on a value below 0 ("Rsqrt is only defined
/// for positive values"), an input tinyaot cannot refuse ahead of time: its table holds what the
/// same arithmetic gives without that check (`GetInvSqrtQuantizedMultiplierExp` takes every value
/// up to 1 as 1).
fn rsqrt_s8(value: i32, multiplier: i32, shift: i32, output_zero_point: i32) -> i32 {
    const SHIFT: i32 = 20;
    if value == 0 {
        return i32::from(i8::MAX);
    }
    let (inv_sqrt, inv_sqrt_shift) = inv_sqrt_multiplier_exp(value, -1);
    let data = mbqm(1, inv_sqrt, inv_sqrt_shift + SHIFT);
    mbqm(data, multiplier, shift - SHIFT) + output_zero_point
}

/// TFLM's `GetInvSqrtQuantizedMultiplierExp`: `1 / sqrt(input)` as a Q31 multiplier and a shift
/// (times `reverse_shift`), by five Newton-Raphson steps in gemmlowp's Q3.28 from 1.
fn inv_sqrt_multiplier_exp(mut input: i32, reverse_shift: i32) -> (i32, i32) {
    if input <= 1 {
        return (i32::MAX, 0);
    }
    let mut shift = 11;
    while input >= 1 << 29 {
        input /= 4;
        shift += 1;
    }
    let max_left_shift_bits = (input as u32).leading_zeros() - 1;
    let left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
    shift -= left_shift_bit_pairs as i32;
    input <<= 2 * left_shift_bit_pairs;
    // Q3.28 values; a product of two is Q6.25, of three Q9.22 (`Rescale<3>` shifts them back).
    let half_input = srm_by_pot(input >> 1, -1);
    let half_three = (1 << 28) + (1 << 27);
    let mut x = 1 << 28;
    for _ in 0..5 {
        let x3 = srm_by_pot(mul(mul(x, x), x), 6);
        x = srm_by_pot(mul(half_three, x).wrapping_sub(mul(half_input, x3)), 3);
    }
    // sqrt(2) / 2 in Q0.31.
    let mut inv_sqrt = mul(x, 1_518_500_250);
    if shift < 0 {
        inv_sqrt = ((inv_sqrt as u32) << -shift) as i32;
        shift = 0;
    }
    (inv_sqrt, shift * reverse_shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `GetInvSqrtQuantizedMultiplierExp(x, -1)` gives `2^31 / sqrt(x) ≈ inv * 2^-shift`
    /// (`shift` <= 0 here): within a few parts in 10^6 of the real root.
    #[test]
    fn inv_sqrt_is_close_to_the_root() {
        for x in [
            2,
            3,
            4,
            17,
            100,
            255,
            1000,
            65_535,
            1 << 20,
            (1 << 29) + 5,
            i32::MAX,
        ] {
            let (inv, shift) = inv_sqrt_multiplier_exp(x, -1);
            let got = f64::from(inv) * 2f64.powi(shift) / 2f64.powi(31);
            let want = 1.0 / f64::from(x).sqrt();
            assert!((got / want - 1.0).abs() < 1e-5, "{x}: {got} vs {want}");
        }
        assert_eq!(inv_sqrt_multiplier_exp(1, -1), (i32::MAX, 0));
        assert_eq!(inv_sqrt_multiplier_exp(0, -1), (i32::MAX, 0));
    }
}

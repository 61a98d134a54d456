//! SQUARED_DIFFERENCE of every type TFLM's `squared_difference.cc` takes: float32 and int32
//! `(a - b)²`, int8 and int16 with its `PrepareQuantized` (`left_shift` 7 and 0).

use super::super::{kernel, Kernel};
use super::{binary_layout_as, Broadcast, OtherShape};
use crate::error::{Grounds, Result};
use crate::ir::DType;
use crate::lower::params::elementwise as P;
use crate::lower::OpContext;
use tinyaot_runtime::math::multiply_by_quantized_multiplier_smaller_than_one_exp as mbqm_below_one;

/// SQUARED_DIFFERENCE: the types `SquaredDifferenceEval` dispatches on (its Prepare checks only
/// that the inputs' types agree).
pub(super) fn squared_difference(ctx: &OpContext) -> Result<Kernel> {
    let dtype = ctx.input(0)?.dtype;
    if !matches!(dtype, DType::F32 | DType::I32 | DType::I8 | DType::I16) {
        return Err(ctx.invalid(
            format!(
                "input type {}; TFLM's SQUARED_DIFFERENCE supports FLOAT32, INT32, INT8 and INT16",
                dtype.name()
            ),
            Grounds::tflm(
                "squared_difference.cc SquaredDifferenceEval: \"SquaredDifference only supports \
                 FLOAT32, INT32 , INT16 and INT8 now\" (kTfLiteError)",
            ),
        ));
    }
    // An output of another shape: TFLM runs flat when the inputs' shapes are equal
    // (squared_difference.cc SquaredDifferencePrepare, HaveSameShapes), else
    // BroadcastBinaryFunction4DSlow, which is BroadcastBinaryOpSimple over the output's shape.
    let (bc, operands) = binary_layout_as(ctx, OtherShape::FlatOrSimple { extended: false })?;
    let Broadcast {
        shape,
        a_strides,
        b_strides,
    } = bc;
    match dtype {
        DType::F32 => {
            let p = P::SquaredDifferenceF32 {
                shape,
                a_strides,
                b_strides,
            };
            return Ok(kernel("squared_difference_f32", operands, p));
        }
        DType::I32 => {
            let p = P::SquaredDifferenceS32 {
                shape,
                a_strides,
                b_strides,
            };
            return Ok(kernel("squared_difference_s32", operands, p));
        }
        _ => {}
    }
    let int16 = dtype == DType::I16;
    let quant = |what: &str, i: Option<usize>| {
        let t = match i {
            Some(i) => ctx.input(i)?,
            None => ctx.output(0)?,
        };
        if int16 {
            ctx.int16_quant(what, t)
        } else {
            ctx.int8_quant(what, t)
        }
    };
    let (s1, z1) = quant("input 1", Some(0))?;
    let (s2, z2) = quant("input 2", Some(1))?;
    let (so, zo) = quant("the output", None)?;
    if int16 && (z1, z2, zo) != (0, 0, 0) {
        return Err(ctx.invalid(
            format!(
                "int16 zero points {z1}, {z2} (inputs) and {zo} (output); TFLM requires all to \
                 be 0"
            ),
            Grounds::tflm(
                "squared_difference.cc SquaredDifferencePrepare: TF_LITE_ENSURE(zero_point == 0) \
                 for int16",
            ),
        ));
    }
    // PrepareQuantized: 7 keeps 255² << 14 within int32, int16 values need none.
    let left_shift = if int16 { 0 } else { 7 };
    let twice_max = 2.0 * f64::from(s1.max(s2));
    // Each ratio is at most 1/2: QuantizeMultiplierSmallerThanOneExp's is QuantizeMultiplier's.
    let (a_multiplier, a_shift) =
        ctx.multiplier("input 1 scale / (2 × max scale)", f64::from(s1) / twice_max)?;
    let (b_multiplier, b_shift) =
        ctx.multiplier("input 2 scale / (2 × max scale)", f64::from(s2) / twice_max)?;
    // `(1 << left_shift * 2) * output scale` is an int times a float: a float product (exact).
    let real_output = twice_max * twice_max / f64::from((1 << (2 * left_shift)) as f32 * so);
    let (output_multiplier, output_shift) = ctx.multiplier(
        "(2 × max input scale)² / (2^(2 × left shift) × output scale)",
        real_output,
    )?;
    // MultiplyByQuantizedMultiplier shifts the square left by a positive shift in int32 first:
    // the rescaled inputs grow with the input (a monotone map), so the largest square comes from
    // the ends of the two ranges.
    let (lo, hi) = if int16 { (-32768, 32767) } else { (-128, 127) };
    let scaled = |x: i32, offset: i32, m: i32, s: i32| {
        mbqm_below_one((x - offset).wrapping_mul(1 << left_shift), m, s)
    };
    let (a_lo, a_hi) = (
        scaled(lo, z1, a_multiplier, a_shift),
        scaled(hi, z1, a_multiplier, a_shift),
    );
    let (b_lo, b_hi) = (
        scaled(lo, z2, b_multiplier, b_shift),
        scaled(hi, z2, b_multiplier, b_shift),
    );
    let max_diff = (i64::from(a_hi) - i64::from(b_lo))
        .abs()
        .max((i64::from(a_lo) - i64::from(b_hi)).abs());
    if output_shift > 0 && (max_diff * max_diff) << output_shift > i64::from(i32::MAX) {
        return Err(ctx.invalid(
            format!(
                "the rescaling factor (2 × max input scale)² / (2^(2 × left shift) × output \
                 scale) = {real_output:e} shifts squared differences up to {} left by \
                 {output_shift} bits: TFLM's int32 product overflows",
                max_diff * max_diff
            ),
            Grounds::undefined(
                "squared_difference.cc SquaredDifference: MultiplyByQuantizedMultiplier computes \
                 x * (1 << shift) in int32, a signed overflow",
            ),
        ));
    }
    macro_rules! params {
        ($ty:ident) => {
            P::$ty {
                shape,
                a_strides,
                b_strides,
                a_offset: -z1,
                a_multiplier,
                a_shift,
                b_offset: -z2,
                b_multiplier,
                b_shift,
                left_shift,
                output_multiplier,
                output_shift,
                output_offset: zo,
            }
        };
    }
    Ok(if int16 {
        kernel(
            "squared_difference_s16",
            operands,
            params!(SquaredDifferenceS16),
        )
    } else {
        kernel(
            "squared_difference_s8",
            operands,
            params!(SquaredDifferenceS8),
        )
    })
}

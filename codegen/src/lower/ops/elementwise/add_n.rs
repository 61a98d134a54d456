//! ADD_N (TFLM's add_n.cc): float32 and int8, 2 or more inputs of one shape and type (int8: one
//! quantization) → `elementwise::add_nK_f32` / `add_nK_s8` for up to 8 inputs (one operand per
//! tensor: the form, and the measured code, of the models that need no more stay as they were),
//! `elementwise::add_n_f32` / `add_n_s8` with the inputs as one variadic operand for more.

use super::super::{kernel, Kernel};
use crate::error::{Grounds, Result};
use crate::ir::DType;
use crate::lower::params::elementwise as P;
use crate::lower::{OpContext, Operand};

/// Where TFLM takes int8 ADD_N's rescalings, which must be below 1.
const RESCALING_BELOW_ONE: &str = "add_n.cc CalculateOpData: QuantizeMultiplierSmallerThanOneExp \
    TFLITE_CHECK(0 < multiplier < 1) and TFLITE_CHECK_LE(shift, 0) abort";

/// The fixed-arity kernels by input count (2 to 8), float32 and int8.
const F32_FUNCTIONS: [&str; 7] = [
    "add_n2_f32",
    "add_n3_f32",
    "add_n4_f32",
    "add_n5_f32",
    "add_n6_f32",
    "add_n7_f32",
    "add_n8_f32",
];
const S8_FUNCTIONS: [&str; 7] = [
    "add_n2_s8",
    "add_n3_s8",
    "add_n4_s8",
    "add_n5_s8",
    "add_n6_s8",
    "add_n7_s8",
    "add_n8_s8",
];

/// TFLM's `kAddNIntegerShift`.
const LEFT_SHIFT: i32 = 20;

/// ADD_N: TFLM's `CalculateOpData` checks (at least 2 inputs, every input of the first's shape
/// and type, int8 inputs of one scale and zero point, the output of the inputs' type; FLOAT32
/// and INT8 only), then the sum; int8 with TFLM's parameters.
pub(super) fn add_n(ctx: &OpContext) -> Result<Kernel> {
    let n = ctx.op().inputs.len();
    let (first, output) = (ctx.input(0)?, ctx.output(0)?);
    ctx.same_dtype("the output", output, first)?;
    for i in 1..n {
        let input = ctx.input(i)?;
        if input.shape != first.shape {
            return Err(ctx.invalid(
                format!(
                    "input {i} has shape {:?}, input 0 {:?}; TFLM requires them equal",
                    input.shape, first.shape
                ),
                Grounds::tflm("add_n.cc CalculateOpData: TF_LITE_ENSURE(HaveSameShapes)"),
            ));
        }
        ctx.same_dtype(&format!("input {i}"), input, first)?;
    }
    if !matches!(first.dtype, DType::F32 | DType::I8) {
        return Err(ctx.invalid(
            format!("type {}; TFLM's ADD_N takes FLOAT32 and INT8", first.dtype),
            Grounds::tflm("add_n.cc CalculateOpData: \"ADD_N only supports FLOAT32 and INT8\""),
        ));
    }
    if output.num_elements() != first.num_elements() {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} and input shape {:?} differ in size",
                output.shape, first.shape
            ),
            Grounds::undefined(
                "add_n.cc checks no output shape; reference AddN writes the output's FlatSize \
                 elements, reading the inputs as far",
            ),
        ));
    }
    let inputs = (0..n)
        .map(|i| ctx.input_index(i))
        .collect::<Result<Vec<_>>>()?;
    let out = Operand::Offset(ctx.output_index(0)?);
    // A fixed-arity kernel (the inputs one operand each) up to 8 inputs, else the variadic one.
    let call = |fixed: &[&'static str; 7], variadic: &'static str| match n
        .checked_sub(2)
        .and_then(|k| fixed.get(k))
    {
        Some(&function) => {
            let mut operands: Vec<Operand> = inputs.iter().copied().map(Operand::Src).collect();
            operands.push(out.clone());
            (function, operands)
        }
        None => (variadic, vec![Operand::Srcs(inputs.clone()), out.clone()]),
    };
    let len = output.num_elements();
    if first.dtype == DType::F32 {
        let (function, operands) = call(&F32_FUNCTIONS, "add_n_f32");
        return Ok(kernel(function, operands, P::AddNF32 { len }));
    }
    let (scale, zero_point) = ctx.int8_quant("input 0", first)?;
    for i in 1..n {
        let (s, z) = ctx.int8_quant(&format!("input {i}"), ctx.input(i)?)?;
        if (s, z) != (scale, zero_point) {
            return Err(ctx.invalid(
                format!(
                    "input {i} has scale {s:e} and zero point {z}, input 0 {scale:e} and \
                     {zero_point}; TFLM requires int8 inputs of one quantization"
                ),
                Grounds::tflm(
                    "add_n.cc CalculateOpData: TF_LITE_ENSURE of equal zero points and scales",
                ),
            ));
        }
    }
    let (out_scale, out_zero_point) = ctx.int8_quant("the output", output)?;
    // ADD's rescaling with both input scales this one (TFLM's CalculateOpData computes the same).
    let scales = super::arithmetic::add_sub_scales(
        ctx,
        (scale, scale, out_scale),
        LEFT_SHIFT,
        RESCALING_BELOW_ONE,
    )?;
    let ((input_multiplier, input_shift), (output_multiplier, output_shift)) =
        (scales.inputs[0], scales.output);
    // TFLM sums in int32 from the input offset itself, then one rescaled term per input: refused
    // where that sum can overflow.
    let offset = -zero_point;
    let scaled = |y: i32| {
        i64::from(
            tinyaot_runtime::math::multiply_by_quantized_multiplier_smaller_than_one_exp(
                y << LEFT_SHIFT,
                input_multiplier,
                input_shift,
            ),
        )
    };
    let extreme = scaled(offset - 128).abs().max(scaled(offset + 127).abs());
    if scaled(offset).abs() + n as i64 * extreme > i64::from(i32::MAX) {
        return Err(ctx.invalid(
            format!("{n} int8 inputs: TFLM's int32 sum of their rescaled values can overflow"),
            Grounds::undefined(
                "reference add_n.h AddN accumulates each input's value shifted left by 20 and \
                 halved in int32: a signed overflow",
            ),
        ));
    }
    let (function, operands) = call(&S8_FUNCTIONS, "add_n_s8");
    Ok(kernel(
        function,
        operands,
        P::AddNS8 {
            len,
            input_offset: offset,
            input_multiplier,
            input_shift,
            output_multiplier,
            output_shift,
            output_offset: out_zero_point,
        },
    ))
}

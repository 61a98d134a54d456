//! CUMSUM → `cumsum::cumsum_{f32,s8}`: a constant axis read at generation time and turned into
//! `[outer, axis_len, inner]` around it, and TFLM's int8 parameters (cumsum.cc CalculateOpData);
//! an axis computed at run time → `cumsum::cumsum_dyn`, which reads it per call as TFLM's Eval
//! does.
//!
//! TFLM's `Prepare` takes 2 inputs and 1 output, a FLOAT32 or INT8 input of rank 1 or more, an
//! INT32 axis tensor of exactly one element, and an output of the input's type and shape; its
//! `Eval` reads the axis, adds the rank to a negative one and refuses one still out of range.
//! tinyaot refuses int8 parameters under which TFLM's int32 running sum can overflow along a
//! constant axis (along one computed at run time, the kernel writes zeros then).

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::cumsum as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{OpContext, Operand};
use tinyaot_runtime::math::multiply_by_quantized_multiplier_smaller_than_one_exp as mbqm_small;

/// Where TFLM takes int8 CUMSUM's rescalings, which must be below 1.
const RESCALING_BELOW_ONE: &str = "cumsum.cc CalculateOpData: QuantizeMultiplierSmallerThanOneExp \
    TFLITE_CHECK(0 < multiplier < 1) and TFLITE_CHECK_LE(shift, 0) abort";

/// The element types TFLM's CUMSUM sums (cumsum.cc CalculateOpData).
const SUMMED: &[Sig] = &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)];

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::CUMSUM,
    types: Types::unary(SUMMED, SUMMED),
    inputs: 2..=2,
    outputs: 1,
    lower: Lowering::Kernel(cumsum),
}];

/// TFLM's `kCumSumIntegerShift`.
const LEFT_SHIFT: i32 = 20;

/// CUMSUM: CalculateOpData's and Eval's checks, then the shape around the axis and, for int8,
/// TFLM's multipliers.
fn cumsum(ctx: &OpContext) -> Result<Kernel> {
    let (input, axis_tensor, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    if !matches!(input.dtype, DType::F32 | DType::I8) {
        return Err(ctx.invalid(
            format!(
                "input type {}; TFLM's CUMSUM takes FLOAT32 and INT8",
                input.dtype
            ),
            Grounds::tflm(
                "cumsum.cc CalculateOpData: TF_LITE_ENSURE(input->type == kTfLiteFloat32 || \
                 input->type == kTfLiteInt8)",
            ),
        ));
    }
    if axis_tensor.dtype != DType::I32 {
        return Err(ctx.invalid(
            format!(
                "axis tensor of type {}; TFLM requires INT32",
                axis_tensor.dtype
            ),
            Grounds::tflm("cumsum.cc CalculateOpData: TF_LITE_ENSURE_EQ(axis->type, kTfLiteInt32)"),
        ));
    }
    if axis_tensor.num_elements() != 1 {
        return Err(ctx.invalid(
            format!(
                "axis tensor of {} elements; TFLM requires exactly one",
                axis_tensor.num_elements()
            ),
            Grounds::tflm("cumsum.cc CalculateOpData: TF_LITE_ENSURE_EQ(NumElements(axis), 1)"),
        ));
    }
    let rank = input.shape.len();
    if rank == 0 {
        return Err(ctx.invalid(
            "a scalar input; TFLM requires rank 1 or more",
            Grounds::tflm("cumsum.cc CalculateOpData: TF_LITE_ENSURE(NumDimensions(input) >= 1)"),
        ));
    }
    ctx.same_dtype("the output", output, input)?;
    if output.shape != input.shape {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} differs from the input's {:?}",
                output.shape, input.shape
            ),
            Grounds::tflm(
                "cumsum.cc CalculateOpData: TF_LITE_ENSURE(HaveSameShapes(input, output))",
            ),
        ));
    }
    if !axis_tensor.is_constant() {
        return cumsum_dyn(ctx);
    }
    let axis = ctx.const_int32_tensor("axis", axis_tensor)?[0];
    let normalized = if axis < 0 { axis + rank as i64 } else { axis };
    if !(0..rank as i64).contains(&normalized) {
        return Err(ctx.invalid(
            format!("axis {axis} is out of range for rank {rank}"),
            Grounds::tflm("cumsum.cc CumSumEval: \"CUMSUM Invalid axis\" (kTfLiteError)"),
        ));
    }
    let axis = normalized as usize;
    let (exclusive, reverse) = ctx
        .tflite_operator()?
        .builtin_options_as_cumsum_options()
        .map_or((false, false), |o| (o.exclusive(), o.reverse()));
    let (outer, axis_len, inner) = (
        input.shape[..axis].iter().product(),
        input.shape[axis],
        input.shape[axis + 1..].iter().product(),
    );
    if input.dtype == DType::F32 {
        return Ok(kernel(
            "cumsum_f32",
            in_out(ctx)?,
            P::CumsumF32 {
                outer,
                axis_len,
                inner,
                exclusive,
                reverse,
            },
        ));
    }
    let q = int8_params(ctx)?;
    // TFLM's running sum starts at the rescaled input offset and adds one rescaled term per
    // element of the line (the exclusive sum too adds the last one): refused where it can leave
    // int32, which is monotone in the number of terms, so the whole line bounds it.
    if axis_len > q.max_axis_len {
        return Err(ctx.invalid(
            format!(
                "{axis_len} int8 elements along the axis (input zero point {}): TFLM's \
                 int32 running sum of their rescaled values can overflow",
                -q.input_offset
            ),
            Grounds::undefined(OVERFLOW),
        ));
    }
    Ok(kernel(
        "cumsum_s8",
        in_out(ctx)?,
        P::CumsumS8 {
            outer,
            axis_len,
            inner,
            exclusive,
            reverse,
            input_offset: q.input_offset,
            input_multiplier: q.input_multiplier,
            input_shift: q.input_shift,
            output_multiplier: q.output_multiplier,
            output_shift: q.output_shift,
            output_offset: q.output_offset,
        },
    ))
}

/// Why an int8 CUMSUM along too long an axis is undefined in TFLM.
const OVERFLOW: &str = "reference cumsum.h CumSum (int8) accumulates each element's offset value \
    shifted left by 20 and halved in int32: a signed overflow";

/// TFLM's int8 CUMSUM parameters (CalculateOpData), and the longest axis along which its int32
/// running sum cannot overflow.
struct Int8Params {
    input_offset: i32,
    input_multiplier: i32,
    input_shift: i32,
    output_multiplier: i32,
    output_shift: i32,
    output_offset: i32,
    max_axis_len: usize,
}

/// The int8 parameters of the operator's CUMSUM, as TFLM's CalculateOpData computes them.
fn int8_params(ctx: &OpContext) -> Result<Int8Params> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let (scale, zero_point) = ctx.int8_quant("the input", input)?;
    let (out_scale, out_zero_point) = ctx.int8_quant("the output", output)?;
    // ADD's rescaling with both input scales this one (TFLM's CalculateOpData computes the same).
    let scales = super::elementwise::arithmetic::add_sub_scales(
        ctx,
        (scale, scale, out_scale),
        LEFT_SHIFT,
        RESCALING_BELOW_ONE,
    )?;
    let ((input_multiplier, input_shift), (output_multiplier, output_shift)) =
        (scales.inputs[0], scales.output);
    // TFLM's running sum starts at the rescaled input offset and adds one rescaled term per
    // element of the line: the most terms that keep it in int32 whatever the elements.
    let input_offset = -zero_point;
    let scaled = |y: i32| i64::from(mbqm_small(y << LEFT_SHIFT, input_multiplier, input_shift));
    let (start, lowest, highest) = (
        scaled(input_offset),
        scaled(input_offset - 128),
        scaled(input_offset + 127),
    );
    let up = if highest > 0 {
        (i64::from(i32::MAX) - start) / highest
    } else {
        i64::MAX
    };
    let down = if lowest < 0 {
        (start - i64::from(i32::MIN)) / -lowest
    } else {
        i64::MAX
    };
    Ok(Int8Params {
        input_offset,
        input_multiplier,
        input_shift,
        output_multiplier,
        output_shift,
        output_offset: out_zero_point,
        max_axis_len: usize::try_from(up.min(down).max(0)).unwrap_or(usize::MAX),
    })
}

/// CUMSUM whose axis is computed at run time: CalculateOpData reads only the axis tensor's type
/// and element count (checked above, as the shapes and types), and CumSumEval reads its value
/// per call, so `cumsum_dyn` does; an int8 axis long enough for the running sum to overflow is
/// the kernel's to meet (zeros), as is an axis out of range.
fn cumsum_dyn(ctx: &OpContext) -> Result<Kernel> {
    let input = ctx.input(0)?;
    let (exclusive, reverse) = ctx
        .tflite_operator()?
        .builtin_options_as_cumsum_options()
        .map_or((false, false), |o| (o.exclusive(), o.reverse()));
    let float_input = input.dtype == DType::F32;
    let q = if float_input {
        Int8Params {
            input_offset: 0,
            input_multiplier: 0,
            input_shift: 0,
            output_multiplier: 0,
            output_shift: 0,
            output_offset: 0,
            max_axis_len: 0,
        }
    } else {
        let q = int8_params(ctx)?;
        // No axis is longer than the longest dimension: bounded so (a value the target's
        // `usize` holds) where the parameters allow any length.
        let longest = input.shape.iter().copied().max().unwrap_or(0);
        Int8Params {
            max_axis_len: q.max_axis_len.min(longest),
            ..q
        }
    };
    Ok(kernel(
        "cumsum_dyn",
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::CumsumDyn {
            shape: input.shape.clone(),
            float_input,
            exclusive,
            reverse,
            input_offset: q.input_offset,
            input_multiplier: q.input_multiplier,
            input_shift: q.input_shift,
            output_multiplier: q.output_multiplier,
            output_shift: q.output_shift,
            output_offset: q.output_offset,
            max_axis_len: q.max_axis_len,
        },
    ))
}

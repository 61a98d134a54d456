//! ARG_MAX, ARG_MIN → `arg_min_max::arg_{max,min}_{s8,f32}`: a constant axis read at generation
//! time and turned into `[outer, axis_len, inner]` around it; an axis computed at run time →
//! `arg_min_max::arg_min_max_dyn`, which reads it per call as TFLM's Eval does.
//!
//! TFLM's kernel has no `Prepare`: at `Eval` it takes an INT32 axis, an INT32 output and a FLOAT32
//! or INT8 input and refuses anything else; it reads only the axis tensor's first element and
//! trusts the output shape. tinyaot refuses what TFLM refuses, and also what it would compute
//! garbage on: an axis out of range, an axis tensor with other than one element, and an output
//! shape other than the input's without the axis.

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::arg_min_max as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{OpContext, Operand};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::ARG_MAX,
        types: Types::unary(
            &[
                Sig::Each(&[Ty::F32, Ty::I32]),
                Sig::Each(&[Ty::I8, Ty::I32]),
            ],
            &[
                Sig::Each(&[Ty::F32, Ty::I32]),
                Sig::Each(&[Ty::I8, Ty::I32]),
            ],
        ),
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| arg_min_max(ctx, ["arg_max_s8", "arg_max_f32"])),
    },
    OpEntry {
        code: OpCode::ARG_MIN,
        types: Types::unary(
            &[
                Sig::Each(&[Ty::F32, Ty::I32]),
                Sig::Each(&[Ty::I8, Ty::I32]),
            ],
            &[
                Sig::Each(&[Ty::F32, Ty::I32]),
                Sig::Each(&[Ty::I8, Ty::I32]),
            ],
        ),
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| arg_min_max(ctx, ["arg_min_s8", "arg_min_f32"])),
    },
];

/// ARG_MAX or ARG_MIN, whose kernels for INT8 and FLOAT32 input are `[int8, float]`.
fn arg_min_max(ctx: &OpContext, [int8, float]: [&'static str; 2]) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let function = match input.dtype {
        DType::I8 => int8,
        DType::F32 => float,
        other => {
            return Err(ctx.invalid(
                format!("input type {other}; TFLM's kernel supports FLOAT32 and INT8"),
                Grounds::tflm(
                    "arg_min_max.cc ArgMinMaxEval: only FLOAT32 and INT8 inputs (kTfLiteError)",
                ),
            ))
        }
    };
    if output.dtype != DType::I32 {
        return Err(ctx.invalid(
            format!(
                "output type {}; TFLM's kernel writes INT32 indices only",
                output.dtype
            ),
            Grounds::tflm("arg_min_max.cc ArgMinMaxEval: only INT32 output (kTfLiteError)"),
        ));
    }
    if !ctx.input(1)?.is_constant() {
        return arg_min_max_dyn(ctx, int8.starts_with("arg_max"));
    }
    let axes = ctx.const_int32_tensor("axis", ctx.input(1)?)?;
    // TFLM's reference ArgMinMax reads element 0 of the axis tensor and ignores any others.
    let Some(&axis) = axes.first() else {
        return Err(ctx.invalid(
            "the axis tensor is empty",
            Grounds::undefined(
                "reference_ops::ArgMinMax reads element 0 of the axis tensor: an empty one is \
                 read out of bounds",
            ),
        ));
    };
    let rank = input.shape.len();
    let normalized = if axis < 0 { axis + rank as i64 } else { axis };
    if !(0..rank as i64).contains(&normalized) {
        return Err(ctx.invalid(
            format!("axis {axis} is out of range for rank {rank}"),
            Grounds::undefined(
                "reference_ops::ArgMinMax indexes the input shape by the axis, checked \
                 only by TFLITE_DCHECK: out of bounds",
            ),
        ));
    }
    let axis = normalized as usize;
    let mut expected = input.shape.clone();
    expected.remove(axis);
    if expected != output.shape {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} is not the input shape without axis {axis}, {expected:?}",
                output.shape
            ),
            Grounds::undefined(
                "reference_ops::ArgMinMax sizes its loops from the input shape and \
                 checks the output's only with TFLITE_DCHECK: another output shape is \
                 written past its end or left partly unwritten",
            ),
        ));
    }
    if input.num_elements() == 0 {
        return Err(ctx.invalid(
            "empty input",
            Grounds::undefined(
                "reference arg_min_max.h ArgMinMax reads input1_data[outer * axis_size * \
                 inner_size + inner] before looping over the axis: an empty input is read out \
                 of bounds",
            ),
        ));
    }
    Ok(kernel(
        function,
        in_out(ctx)?,
        P::ArgMinMax {
            outer: input.shape[..axis].iter().product(),
            axis_len: input.shape[axis],
            inner: input.shape[axis + 1..].iter().product(),
        },
    ))
}

/// ARG_MAX (`max`) or ARG_MIN whose axis is computed at run time: TFLM's kernel has no `Prepare`
/// and its Eval reads element 0 of the INT32 axis tensor per call, so `arg_min_max_dyn` does.
/// Refused here as for a constant axis: an axis of another type (TFLM's Eval fails), an empty
/// one, an empty input, and an output that is not the input's shape without any axis (what
/// reference `ArgMinMax` checks by `TFLITE_DCHECK`); what a value does at run time (out of range,
/// an axis the output is not shaped for) is the kernel's to handle.
fn arg_min_max_dyn(ctx: &OpContext, max: bool) -> Result<Kernel> {
    let (input, axis, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    if axis.dtype != DType::I32 {
        return Err(ctx.invalid(
            format!("axis type {}; TFLM's kernel takes INT32", axis.dtype),
            Grounds::tflm("arg_min_max.cc ArgMinMaxEval: only INT32 axis (kTfLiteError)"),
        ));
    }
    if axis.num_elements() == 0 {
        return Err(ctx.invalid(
            "the axis tensor is empty",
            Grounds::undefined(
                "reference_ops::ArgMinMax reads element 0 of the axis tensor: an empty one is \
                 read out of bounds",
            ),
        ));
    }
    if input.num_elements() == 0 {
        return Err(ctx.invalid(
            "empty input",
            Grounds::undefined(
                "reference arg_min_max.h ArgMinMax reads input1_data[outer * axis_size * \
                 inner_size + inner] before looping over the axis: an empty input is read out \
                 of bounds",
            ),
        ));
    }
    let fits = (0..input.shape.len()).any(|a| {
        let mut expected = input.shape.clone();
        expected.remove(a);
        expected == output.shape
    });
    if !fits {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} is not the input shape {:?} without one of its axes",
                output.shape, input.shape
            ),
            Grounds::undefined(
                "reference_ops::ArgMinMax checks the output's rank and dimensions against the \
                 input's without the axis only with TFLITE_DCHECK",
            ),
        ));
    }
    Ok(kernel(
        "arg_min_max_dyn",
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::ArgMinMaxDyn {
            shape: input.shape.clone(),
            output_len: output.num_elements(),
            float_input: input.dtype == DType::F32,
            max,
        },
    ))
}

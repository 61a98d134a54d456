//! ARG_MAX, ARG_MIN → `arg_min_max::arg_{max,min}_{s8,f32}`: a constant axis read at generation
//! time and turned into `[outer, axis_len, inner]` around it.
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
use crate::lower::OpContext;

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

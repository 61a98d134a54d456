//! SELECT_V2 → `select::select`: x where the BOOL condition holds, else y, with TFLM's broadcast
//! of the three inputs (select.cc: FLOAT32, INT8, INT16; bytes copied, quantization not read).
//! TFLM registers no SELECT (the converter writes SELECT for `tf.where` of three equal shapes: a
//! model TFLM refuses). The broadcast is collapsed here into an output shape and per-input
//! element strides.

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::select as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{OpContext, Operand, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// SELECT_V2's signatures: a BOOL condition, x, y and the output of one type.
const SELECT_TYPES: &[Sig] = &[
    Sig::Each(&[Ty::Bool, Ty::F32, Ty::F32, Ty::F32]),
    Sig::Each(&[Ty::Bool, Ty::I8, Ty::I8, Ty::I8]),
    Sig::Each(&[Ty::Bool, Ty::I16, Ty::I16, Ty::I16]),
];

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::SELECT_V2,
    types: Types {
        roles: &[Role::In(0), Role::In(1), Role::In(2), Role::Out(0)],
        tinyaot: SELECT_TYPES,
        tflm: SELECT_TYPES,
    },
    inputs: 3..=3,
    outputs: 1,
    lower: Lowering::Kernel(select),
}];

/// The collapsed walk of `shapes` (condition, x, y) broadcast to `out`: the shape and each
/// input's element strides; `None` when they do not broadcast to `out` (TFLM's
/// CheckBroadcastShape: a dimension of 0 makes the output's 0, the others then 1 or 0).
fn broadcast(shapes: [&[usize]; 3], out: &[usize]) -> Option<(Vec<usize>, [Vec<usize>; 3])> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    if out.len() != rank {
        return None;
    }
    let ext = |s: &[usize]| {
        let mut e = vec![1; rank - s.len()];
        e.extend_from_slice(s);
        e
    };
    let ext: Vec<Vec<usize>> = shapes.iter().map(|s| ext(s)).collect();
    for d in 0..rank {
        let dims = [ext[0][d], ext[1][d], ext[2][d]];
        let min = *dims.iter().min().unwrap_or(&1);
        let max = if min == 0 {
            0
        } else {
            *dims.iter().max().unwrap_or(&1)
        };
        if dims.iter().any(|&n| n != 1 && n != max) || out[d] != max {
            return None;
        }
    }
    // Input element strides over the full rank (0 where an input has extent 1), then dimensions
    // of extent 1 dropped and neighbours every input walks contiguously merged.
    let strides: Vec<Vec<usize>> = ext
        .iter()
        .map(|e| {
            let mut s = vec![0; rank];
            let mut acc = 1;
            for d in (0..rank).rev() {
                if e[d] != 1 {
                    s[d] = acc;
                }
                acc *= e[d];
            }
            s
        })
        .collect();
    let mut shape: Vec<usize> = Vec::new();
    let mut merged: [Vec<usize>; 3] = Default::default();
    for d in 0..rank {
        if out[d] == 1 {
            continue;
        }
        let contiguous = !shape.is_empty()
            && (0..3).all(|i| merged[i][shape.len() - 1] == strides[i][d] * out[d]);
        if contiguous {
            let last = shape.len() - 1;
            shape[last] *= out[d];
            for (m, s) in merged.iter_mut().zip(&strides) {
                m[last] = s[d];
            }
        } else {
            shape.push(out[d]);
            for (m, s) in merged.iter_mut().zip(&strides) {
                m.push(s[d]);
            }
        }
    }
    Some((shape, merged))
}

/// SELECT_V2: TFLM's SelectPrepare checks, then the collapsed broadcast. Three inputs of one
/// shape (or all of one element) select element by element over their flat data, as TFLM's
/// non-broadcast Select does.
fn select(ctx: &OpContext) -> Result<Kernel> {
    let (c, x, y, output) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.output(0)?);
    if c.dtype != DType::Bool {
        return Err(ctx.invalid(
            format!("the condition has type {}; TFLM takes BOOL", c.dtype),
            Grounds::tflm(
                "select.cc SelectPrepare: TF_LITE_ENSURE_TYPES_EQ(condition, kTfLiteBool)",
            ),
        ));
    }
    if x.dtype != y.dtype {
        return Err(ctx.invalid(
            format!("x has type {}, y {}", x.dtype, y.dtype),
            Grounds::tflm("select.cc SelectPrepare: TF_LITE_ENSURE_TYPES_EQ(x, y)"),
        ));
    }
    if !matches!(x.dtype, DType::F32 | DType::I8 | DType::I16) {
        return Err(ctx.invalid(
            format!(
                "x and y have type {}; TFLM's SELECT_V2 takes FLOAT32, INT8 and INT16",
                x.dtype
            ),
            Grounds::tflm(
                "select.cc SelectEval: \"Does not support type other than int8|int16|float32\"",
            ),
        ));
    }
    // TFLM's Prepare sets the output's type to x's: one declared otherwise would be written as x's.
    ctx.same_dtype("the output", output, x)?;
    let all_one = [c, x, y, output].iter().all(|t| t.num_elements() == 1);
    let same_shape = c.shape == x.shape && x.shape == y.shape;
    let (shape, [cs, xs, ys]) = if all_one || same_shape {
        let n = x.num_elements();
        if !all_one && output.num_elements() != n {
            return Err(ctx.invalid(
                format!(
                    "the inputs' shape {:?} and the output's {:?} differ in size",
                    x.shape, output.shape
                ),
                Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
            ));
        }
        (vec![n], [vec![1], vec![1], vec![1]])
    } else {
        if output.shape.len() > 5 {
            return Err(ctx.invalid(
                format!("an output of rank {}", output.shape.len()),
                Grounds::undefined(
                    "reference_ops::BroadcastSelect5DSlow: TFLITE_DCHECK_LE(output rank, 5)",
                ),
            ));
        }
        broadcast([&c.shape, &x.shape, &y.shape], &output.shape).ok_or_else(|| {
            ctx.invalid(
                format!(
                    "condition {:?}, x {:?} and y {:?} do not broadcast to the output {:?}",
                    c.shape, x.shape, y.shape, output.shape
                ),
                Grounds::tflm(
                    "select.cc CheckBroadcastShape: \"Given shapes are not broadcastable.\" and \
                     TF_LITE_ENSURE_EQ(output dim, broadcast dim)",
                ),
            )
        })?
    };
    Ok(kernel(
        "select",
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Src(ctx.input_index(2)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::Select {
            elem_bytes: x.dtype.size(),
            shape,
            condition_strides: cs,
            x_strides: xs,
            y_strides: ys,
        },
    ))
}

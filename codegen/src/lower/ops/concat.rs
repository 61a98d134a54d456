//! CONCATENATION and PACK → `concat::concat<n>`: chunks copied in turn, one fixed-arity kernel
//! per input count up to 10 (TFLM: no activation, int8 inputs quantized exactly as the output,
//! int16 zero points 0, at most 10 inputs, `kMaxInputNum`; PACK is a concatenation along a new
//! axis of size 1 in each input, with no quantization checks and any number of inputs, as TFLM's:
//! beyond 10, `concat::concat`, whose inputs are one variadic operand). As TFLM's, the rows and
//! inner size are the output's and only each input's extent along the axis is its own, so an
//! input of a higher rank or larger outside the axis is read in part. A concatenation of whole
//! rows declares each input read whole a slice of its output ([`Access::Slice`]): the planner may
//! place an input there, and the kernel then copies nothing.

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{Activation, DType, OpCode, Options, Tensor};
use crate::lower::params::concat as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{Access, OpContext, Operand, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// Function names of the fixed-arity concatenation kernels; TFLM's `kMaxInputNum` is 10.
const CONCAT_FUNCTIONS: [&str; 10] = [
    "concat1", "concat2", "concat3", "concat4", "concat5", "concat6", "concat7", "concat8",
    "concat9", "concat10",
];

/// The concatenation kernel call of `ctx`'s operator's `n` inputs into its output: a fixed-arity
/// kernel, one operand per input, for up to 10 (the form and the measured code of the models
/// that need no more stay as they were), else `concat::concat` with the inputs as one variadic
/// operand (PACK's more; TFLM's CONCATENATION refuses them before this).
fn concat_kernel(ctx: &OpContext, n: usize, params: P::Concat) -> Result<Kernel> {
    let inputs = (0..n)
        .map(|i| ctx.input_index(i))
        .collect::<Result<Vec<_>>>()?;
    let output = Operand::Offset(ctx.output_index(0)?);
    Ok(
        match n.checked_sub(1).and_then(|i| CONCAT_FUNCTIONS.get(i)) {
            Some(&function) => {
                let mut operands: Vec<Operand> = inputs.into_iter().map(Operand::Src).collect();
                operands.push(output);
                kernel(function, operands, params)
            }
            None => kernel("concat", vec![Operand::Srcs(inputs), output], params),
        },
    )
}

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::CONCATENATION,
        types: Types::unary(
            &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Same(Ty::I16),
                Sig::Same(Ty::I32),
                Sig::Same(Ty::I64),
                Sig::Same(Ty::Bool),
            ],
            &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Same(Ty::I16),
                Sig::Same(Ty::I32),
                Sig::Same(Ty::I64),
                Sig::Same(Ty::Bool),
            ],
        ),
        // TFLM refuses more than kMaxInputNum = 10 inputs: `concatenation` says so, naming it.
        inputs: 1..=usize::MAX,
        outputs: 1,
        lower: Lowering::Kernel(concatenation),
    },
    OpEntry {
        code: OpCode::PACK,
        types: Types::unary(
            &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Same(Ty::I16),
                Sig::Same(Ty::I32),
                Sig::Same(Ty::I64),
            ],
            &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Same(Ty::I16),
                Sig::Same(Ty::I32),
                Sig::Same(Ty::I64),
            ],
        ),
        // TFLM's PACK reads `values_count` inputs, any number of them.
        inputs: 1..=usize::MAX,
        outputs: 1,
        lower: Lowering::Kernel(pack),
    },
];

/// PACK (TFLM `pack.cc`: FLOAT32, INT8, INT16, INT32, INT64; `values_count` inputs of one shape,
/// stacked along a new output axis `axis`; the bytes copied as they are, quantization unread).
fn pack(ctx: &OpContext) -> Result<Kernel> {
    let (values_count, axis) = ctx
        .tflite_operator()?
        .builtin_options_as_pack_options()
        .map_or((0, 0), |o| (o.values_count(), o.axis()));
    let output = ctx.output(0)?;
    match output.dtype {
        DType::F32 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => {}
        other => {
            return Err(ctx.invalid(
                format!(
                    "the output has type {other}; TFLM's PACK supports FLOAT32, INT8, INT16, \
                     INT32 and INT64"
                ),
                Grounds::tflm(
                    "pack.cc PackEval: \"Type '%s' is not supported by pack.\" (kTfLiteError)",
                ),
            ))
        }
    }
    let n = ctx.op().inputs.len();
    if usize::try_from(values_count).ok() != Some(n) {
        return Err(ctx.invalid(
            format!(
            "values_count {values_count} is not the number of inputs, {n} (TFLM reads that many)"
        ),
            Grounds::undefined(
                "pack.cc PackImpl copies values_count inputs of the output's shape \
                 without axis, checked only by TFLITE_DCHECK: other shapes or counts \
                 read or write out of bounds, or leave the output partly unwritten",
            ),
        ));
    }
    let rank = output.shape.len();
    let axis_pos = if axis < 0 { axis + rank as i32 } else { axis };
    if axis_pos < 0 || axis_pos as usize >= rank {
        return Err(ctx.invalid(
            format!("axis {axis} is out of range for the output's rank {rank}"),
            Grounds::undefined(
                "concatenation.cc and pack.cc make a negative axis positive without a \
                 range check, and the reference kernels index shapes by it \
                 (TFLITE_DCHECK only): out of bounds",
            ),
        ));
    }
    let axis = axis_pos as usize;
    let mut input_shape = output.shape.clone();
    let stacked = input_shape.remove(axis);
    if stacked != n {
        return Err(ctx.invalid(
            format!(
            "the output's dimension {axis} is {stacked}, not the number of inputs {n} (TFLM's PACK \
             would write past its output or leave part of it unwritten: undefined)"
        ),
            Grounds::undefined(
                "pack.cc PackImpl copies values_count inputs of the output's shape \
                 without axis, checked only by TFLITE_DCHECK: other shapes or counts \
                 read or write out of bounds, or leave the output partly unwritten",
            ),
        ));
    }
    let elem = output.dtype.size();
    for i in 0..n {
        let input = ctx.input(i)?;
        ctx.same_dtype(&format!("input {i}"), input, output)?;
        if input.shape != input_shape {
            return Err(ctx.invalid(
                format!(
                "input {i} has shape {:?}; PACK's inputs all have the shape {input_shape:?} (the \
                 output's without axis {axis}; TFLM's PACK would read or write out of bounds: \
                 undefined)",
                input.shape
            ),
                Grounds::undefined(
                    "pack.cc PackImpl copies values_count inputs of the output's shape \
                     without axis, checked only by TFLITE_DCHECK: other shapes or counts \
                     read or write out of bounds, or leave the output partly unwritten",
                ),
            ));
        }
    }
    let inner = input_shape[axis..].iter().product::<usize>() * elem;
    let outer = output.shape[..axis].iter().product::<usize>();
    let mut lowered = concat_kernel(
        ctx,
        n,
        P::Concat {
            outer,
            chunk_bytes: vec![inner; n],
        },
    )?;
    // One row: each input is a contiguous slice of the output, as for CONCATENATION.
    if outer == 1 {
        for i in 0..n {
            lowered = lowered.with_access(Access::Slice {
                input: ctx.input_index(i)?,
                output: ctx.output_index(0)?,
                offset: i * inner,
            });
        }
    }
    Ok(lowered)
}

/// The zero point TFLM reads from an int16 tensor's quantization (0 without one), which its
/// CONCATENATION requires to be 0: every zero point is checked.
fn int16_zero_point_is_0(ctx: &OpContext, what: &str, tensor: &Tensor) -> Result<()> {
    let zero_points = tensor
        .quant
        .as_ref()
        .map_or(&[][..], |q| &q.zero_points[..]);
    match zero_points.iter().find(|&&z| z != 0) {
        Some(z) => Err(ctx.invalid(
            format!(
            "{what} has int16 zero point {z}; TFLM's CONCATENATION requires int16 zero points of \
             0 (it concatenates int16 values raw, whatever their scales)"
        ),
            Grounds::tflm(
                "concatenation.cc ConcatenationPrepare: TF_LITE_ENSURE_EQ(int16 input \
                 and output zero points, 0)",
            ),
        )),
        None => Ok(()),
    }
}

/// CONCATENATION (TFLM: no activation, int8 inputs quantized exactly as the output, int16 zero
/// points 0 and scales not compared, ≤ 10 inputs).
fn concatenation(ctx: &OpContext) -> Result<Kernel> {
    let (axis, activation) = match &ctx.op().options {
        Options::Concatenation { axis, activation } => (*axis, *activation),
        _ => (0, Activation::None),
    };
    if activation != Activation::None {
        return Err(ctx.invalid(
            format!("fused activation {activation:?}: TFLM's CONCATENATION supports none"),
            Grounds::tflm(
                "concatenation.cc ConcatenationPrepare: TF_LITE_ENSURE_EQ(params->activation, \
                 kTfLiteActNone)",
            ),
        ));
    }
    let output = ctx.output(0)?;
    // TFLM's Eval: FLOAT32, INT8, INT16, INT32, INT64 and BOOL, all copied as bytes.
    match output.dtype {
        DType::F32 | DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::Bool => {}
        other => {
            return Err(ctx.invalid(
                format!(
                "the output has type {other}; TFLM's CONCATENATION refuses it (it takes FLOAT32, \
                 INT8, INT16, INT32, INT64 and BOOL)"
            ),
                Grounds::tflm(
                    "concatenation.cc ConcatenationPrepare: TF_LITE_ENSURE(type is FLOAT32, \
                     INT8, INT16, INT32, INT64 or BOOL)",
                ),
            ))
        }
    }
    let n = ctx.op().inputs.len();
    if n == 0 || n > CONCAT_FUNCTIONS.len() {
        return Err(ctx.invalid(
            format!("{n} inputs; TFLM's CONCATENATION takes 1 to 10 (PACK takes any number)"),
            Grounds::tflm(
                "concatenation.cc ConcatenationPrepare: TF_LITE_ENSURE(input 0 != nullptr) and \
                 TF_LITE_ENSURE(num_inputs <= kMaxInputNum = 10)",
            ),
        ));
    }
    // The loader refuses ranks above TFLM's 6 (`load::MAX_RANK`), and the kernel walks no shape.
    let rank = output.shape.len();
    let axis_pos = if axis < 0 { axis + rank as i32 } else { axis };
    if axis_pos < 0 || axis_pos as usize >= rank.max(1) {
        return Err(ctx.invalid(
            format!("axis {axis} is out of range for rank {rank}"),
            Grounds::undefined(
                "concatenation.cc reads the dimension at the axis, past the shape's rank, checked \
                 only by TFLITE_DCHECK",
            ),
        ));
    }
    let axis = axis_pos as usize;
    if output.dtype == DType::I16 {
        int16_zero_point_is_0(ctx, "the output", output)?;
    }
    let out_q = if output.dtype == DType::I8 {
        Some(ctx.int8_quant("the output", output)?)
    } else {
        None
    };
    let elem = output.dtype.size();
    // TFLM's rows (outer) and inner size come from the output's shape.
    let outer = output.shape[..axis.min(rank)].iter().product::<usize>();
    let inner = output
        .shape
        .get(axis + 1..)
        .map_or(1, |d| d.iter().product());
    let mut chunk_bytes = Vec::with_capacity(n);
    // Whether each input is exactly what is read of it (a slice of a one-row output only then).
    let mut exact = Vec::with_capacity(n);
    let mut axis_total = 0;
    for i in 0..n {
        let input = ctx.input(i)?;
        let what = format!("input {i}");
        ctx.same_dtype(&what, input, output)?;
        if output.dtype == DType::I16 {
            int16_zero_point_is_0(ctx, &what, input)?;
        }
        if let Some(q) = out_q {
            if ctx.int8_quant(&what, input)? != q {
                return Err(ctx.invalid(
                    format!(
                        "{what} is quantized differently from the output; TFLM's CONCATENATION \
                         requires identical scale and zero point (no requantization)"
                    ),
                    Grounds::tflm(
                        "concatenation.cc ConcatenationPrepare: TF_LITE_ENSURE_EQ(input scale, \
                         output scale), TF_LITE_ENSURE_EQ(input zero point, output zero point)",
                    ),
                ));
            }
        }
        // reference_ops::Concatenation takes only the input's extent along the axis
        // (`Dims(axis)`); the rest of each copy, and the rows, come from the output. It checks
        // the input's other dimensions only with MatchingDim's TFLITE_DCHECK: an input of
        // another rank or larger outside the axis is read in part, defined while every read
        // stays inside the input's rank and data.
        let in_rank = input.shape.len();
        if in_rank < rank.max(1) {
            return Err(ctx.invalid(
                format!(
                    "{what} has rank {in_rank}, below the output's {rank}: TFLM reads its \
                     dimensions up to the output's rank (axis {axis})"
                ),
                Grounds::undefined(
                    "concatenation.h Concatenation reads Dims(axis) and, in MatchingDim, Dims(j) \
                     of every input for each output dimension j: RuntimeShape::Dims past the \
                     input's rank (checked only by TFLITE_DCHECK) reads uninitialized dims_",
                ),
            ));
        }
        let extent = input.shape[axis];
        let chunk = extent * inner;
        if outer * chunk > input.num_elements() {
            return Err(ctx.invalid(
                format!(
                    "{what} shape {:?} holds {} elements, fewer than the {outer} rows of {chunk} \
                     TFLM reads from it for output shape {:?} (axis {axis})",
                    input.shape,
                    input.num_elements(),
                    output.shape
                ),
                Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
            ));
        }
        axis_total += extent;
        chunk_bytes.push(chunk * elem);
        exact.push(outer * chunk == input.num_elements());
    }
    // A scalar output (TFLM's axis 0 of rank 0) takes one element.
    let out_extent = output.shape.get(axis).copied().unwrap_or(1);
    if axis_total != out_extent {
        // reference_ops::Concatenation copies every input's chunk in turn, checking the sum only
        // with TFLITE_DCHECK: past the end of a shorter output, short of a longer one's end.
        return Err(ctx.invalid(
            format!("inputs sum to {axis_total} along axis {axis}, output has {out_extent}"),
            Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
        ));
    }
    // One row: each input read whole is a contiguous slice of the output, which its producer may
    // write straight into (the kernel then skips it); one read in part stays apart.
    let slices = if outer == 1 {
        let mut offset = 0;
        let mut slices = Vec::with_capacity(n);
        for (i, &bytes) in chunk_bytes.iter().enumerate() {
            if exact[i] {
                slices.push(Access::Slice {
                    input: ctx.input_index(i)?,
                    output: ctx.output_index(0)?,
                    offset,
                });
            }
            offset += bytes;
        }
        slices
    } else {
        Vec::new()
    };
    let mut lowered = concat_kernel(ctx, n, P::Concat { outer, chunk_bytes })?;
    for slice in slices {
        lowered = lowered.with_access(slice);
    }
    Ok(lowered)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{graph, per_tensor, tensor};
    use crate::ir::{DType, OpCode, Options, Quantization};
    use crate::lower::{lower, CallKind, Operand, Value};

    #[test]
    fn concatenation_refuses_requantization_and_lowers_chunks() {
        let axis_options = Options::Concatenation {
            axis: -1,
            activation: crate::ir::Activation::None,
        };
        let mut g = graph(
            OpCode::CONCATENATION,
            axis_options,
            vec![
                tensor(&[1, 2, 3], DType::I8, per_tensor(0.5, 1), None),
                tensor(&[1, 2, 1], DType::I8, per_tensor(0.5, 1), None),
                tensor(&[1, 2, 4], DType::I8, per_tensor(0.5, 1), None),
            ],
            &[Some(0), Some(1)],
        );
        match &lower(&g).unwrap()[0].kind {
            CallKind::Kernel(k) => {
                assert_eq!(k.function, "concat2");
                assert_eq!(
                    k.operands,
                    vec![Operand::Src(0), Operand::Src(1), Operand::Offset(2)]
                );
                assert_eq!(
                    k.params.clone().unwrap().fields,
                    vec![
                        ("outer", Value::Usize(2)),
                        ("chunk_bytes", Value::Usizes(vec![3, 1]))
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
        g.tensors[1].quant = Some(Quantization {
            scales: vec![0.25],
            zero_points: vec![1],
            axis: 0,
        });
        let err = lower(&g).unwrap_err().to_string();
        assert!(err.contains("quantized differently"), "{err}");
    }
}

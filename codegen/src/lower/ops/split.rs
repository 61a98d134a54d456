//! SPLIT and SPLIT_V → `split::split<n>`: the input's rows cut into the outputs' chunks, one
//! fixed-arity kernel per output count up to 10, and `split::split`, whose outputs are one
//! variadic operand, for more (TFLM: any number of outputs; a constant int32 axis, possibly
//! negative; FLOAT32, INT8, INT16 and INT32; the outputs' shapes say where to cut, as TFLM's Eval
//! reads them; the values are copied, never requantized). SPLIT_V's sizes (one of them may be -1,
//! "the rest") are checked against the outputs. UNPACK is a SPLIT into one-row chunks along its
//! axis, the axis then dropped from the outputs' shapes: the same kernels.
//!
//! The copies are real: an output is a contiguous byte range of the input only when the axis
//! has no larger dimension before it, and the planner has no alias at a byte offset yet.

use super::{kernel, Kernel, Lowering, OpEntry, ANY_OUTPUTS};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::split as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{OpContext, Operand};

/// Function names of the fixed-arity split kernels.
const SPLIT_FUNCTIONS: [&str; 10] = [
    "split1", "split2", "split3", "split4", "split5", "split6", "split7", "split8", "split9",
    "split10",
];

/// The split kernel call of `input` into the `n` outputs of `ctx`'s operator: a fixed-arity
/// kernel, one operand per output, for up to 10 (the form and the measured code of the models
/// that need no more stay as they were), else `split::split` with the outputs as one variadic
/// operand (TFLM's SPLIT, SPLIT_V and UNPACK take any number of outputs).
fn split_kernel(ctx: &OpContext, input: usize, n: usize, params: P::Split) -> Result<Kernel> {
    let outputs = (0..n)
        .map(|i| ctx.output_index(i))
        .collect::<Result<Vec<_>>>()?;
    let input = Operand::Src(ctx.input_index(input)?);
    Ok(
        match n.checked_sub(1).and_then(|i| SPLIT_FUNCTIONS.get(i)) {
            Some(&function) => {
                let mut operands = vec![input];
                operands.extend(outputs.into_iter().map(Operand::Offset));
                kernel(function, operands, params)
            }
            None => kernel("split", vec![input, Operand::Offsets(outputs)], params),
        },
    )
}

/// The element types SPLIT, SPLIT_V and UNPACK move, in TFLM (their Eval switches) and here.
const SPLIT_TYPES: &[Sig] = &[
    Sig::Same(Ty::F32),
    Sig::Same(Ty::I8),
    Sig::Same(Ty::I16),
    Sig::Same(Ty::I32),
];

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::SPLIT,
        types: Types {
            roles: &[Role::In(1), Role::Out(0)],
            tinyaot: SPLIT_TYPES,
            tflm: SPLIT_TYPES,
        },
        inputs: 2..=2,
        outputs: ANY_OUTPUTS,
        lower: Lowering::Kernel(split),
    },
    OpEntry {
        code: OpCode::SPLIT_V,
        types: Types::unary(SPLIT_TYPES, SPLIT_TYPES),
        inputs: 3..=3,
        outputs: ANY_OUTPUTS,
        lower: Lowering::Kernel(split_v),
    },
    OpEntry {
        code: OpCode::UNPACK,
        types: Types::unary(SPLIT_TYPES, SPLIT_TYPES),
        inputs: 1..=1,
        outputs: ANY_OUTPUTS,
        lower: Lowering::Kernel(unpack),
    },
];

/// The grounds of an UNPACK whose options, input and outputs disagree: TFLM's kernel has no
/// Prepare, and its Eval checks the sizes only by TFLITE_DCHECK.
const UNPACK_UNCHECKED: &str = "unpack.cc UnpackImpl writes data->num outputs (GetEvalOutput \
     unchecked against the node's outputs) of outer * copy sizes computed from the input, read at \
     k * num * copy + i * copy, and checks axis and sizes only by TFLITE_DCHECK: outputs of other \
     sizes are written past their end, an axis of another size is read past the input";

/// Refuses an operator without outputs: TFLM's kernels read output 0's shape whatever their
/// count.
fn some_output(ctx: &OpContext) -> Result<()> {
    if ctx.op().outputs.is_empty() {
        return Err(ctx.invalid(
            "it has no outputs",
            Grounds::undefined(
                "split.cc / split_v.cc SplitImpl and unpack.cc UnpackImpl read the shape of \
                 GetEvalOutput(context, node, 0) whatever the node's output count: with none, \
                 past the end of its outputs",
            ),
        ));
    }
    Ok(())
}

/// UNPACK: input 0 cut into `num` outputs along `axis` (UnpackOptions; TFLM's zeroed defaults
/// without them), each the input's shape without the axis.
fn unpack(ctx: &OpContext) -> Result<Kernel> {
    some_output(ctx)?;
    let input = ctx.input(0)?;
    match input.dtype {
        DType::F32 | DType::I8 | DType::I16 | DType::I32 => {}
        other => {
            return Err(ctx.invalid(
                format!(
                    "the input has type {other}; TFLM's UNPACK refuses it (it takes FLOAT32, \
                     INT8, INT16 and INT32)"
                ),
                Grounds::tflm(
                    "unpack.cc UnpackEval: type not supported (kTfLiteError) but FLOAT32, INT32, \
                     INT16 and INT8",
                ),
            ))
        }
    }
    let (num, axis) = ctx
        .tflite_operator()?
        .builtin_options_as_unpack_options()
        .map_or((0, 0), |o| (o.num(), o.axis()));
    let rank = input.shape.len() as i64;
    let resolved = if axis < 0 {
        i64::from(axis) + rank
    } else {
        i64::from(axis)
    };
    if resolved < 0 || resolved >= rank {
        return Err(ctx.invalid(
            format!("axis {axis} is out of range for the input's rank {rank}"),
            Grounds::undefined(UNPACK_UNCHECKED),
        ));
    }
    let axis = resolved as usize;
    let n = ctx.op().outputs.len();
    if i64::from(num) != n as i64 || n != input.shape[axis] {
        return Err(ctx.invalid(
            format!(
                "num {num}, {n} outputs and the input's {} along axis {axis} differ",
                input.shape[axis]
            ),
            Grounds::undefined(UNPACK_UNCHECKED),
        ));
    }
    let mut row: Vec<usize> = input.shape.clone();
    row.remove(axis);
    for i in 0..n {
        let output = ctx.output(i)?;
        ctx.same_dtype(&format!("output {i}"), output, input)?;
        if output.shape != row {
            return Err(ctx.invalid(
                format!(
                    "output {i} has shape {:?}, not the input's {:?} without axis {axis}",
                    output.shape, input.shape
                ),
                Grounds::undefined(UNPACK_UNCHECKED),
            ));
        }
    }
    let elem = input.dtype.size();
    let chunk = input.shape[axis + 1..].iter().product::<usize>() * elem;
    split_kernel(
        ctx,
        0,
        n,
        P::Split {
            outer: input.shape[..axis].iter().product::<usize>(),
            chunk_bytes: vec![chunk; n],
        },
    )
}

/// SPLIT: inputs (axis, input); equal outputs.
fn split(ctx: &OpContext) -> Result<Kernel> {
    some_output(ctx)?;
    let axis = axis(ctx, 0, 1)?;
    let input = ctx.input(1)?;
    let n = ctx.op().outputs.len();
    let first = ctx.output(0)?;
    for i in 1..n {
        if ctx.output(i)?.shape != first.shape {
            return Err(ctx.invalid(
                format!(
                    "output {i} has shape {:?}, output 0 {:?}; SPLIT's outputs are equal (TFLM \
                     copies each with output 0's size)",
                    ctx.output(i)?.shape,
                    first.shape
                ),
                Grounds::undefined(
                    "split.cc / split_v.cc SplitImpl copies each output with the sizes it \
                     computes from the shapes, checked only by TFLITE_DCHECK: mismatched \
                     outputs are written past their end, or read past the input",
                ),
            ));
        }
    }
    if first.shape.len() == input.shape.len() && first.shape[axis] * n != input.shape[axis] {
        return Err(ctx.invalid(
            format!(
                "{n} outputs of {} along axis {axis} do not make the input's {}",
                first.shape[axis], input.shape[axis]
            ),
            Grounds::undefined(
                "split.cc / split_v.cc SplitImpl copies each output with the sizes it \
                 computes from the shapes, checked only by TFLITE_DCHECK: mismatched \
                 outputs are written past their end, or read past the input",
            ),
        ));
    }
    lower(ctx, 1, axis)
}

/// SPLIT_V: inputs (input, size_splits, axis).
fn split_v(ctx: &OpContext) -> Result<Kernel> {
    some_output(ctx)?;
    let axis = axis(ctx, 2, 0)?;
    let input = ctx.input(0)?;
    let n = ctx.op().outputs.len();
    let sizes = ctx.input(1)?;
    if sizes.is_constant() {
        let sizes = ctx.const_ints("size_splits", sizes)?;
        let negative = sizes.iter().filter(|&&s| s < 0).count();
        let known: i64 = sizes.iter().filter(|&&s| s >= 0).sum();
        let rest = input.shape[axis] as i64 - known;
        let resolved: Vec<i64> = sizes
            .iter()
            .map(|&s| if s < 0 { rest } else { s })
            .collect();
        let outputs: Vec<i64> = (0..n)
            .map(|i| Ok(ctx.output(i)?.shape.get(axis).map_or(-1, |&d| d as i64)))
            .collect::<Result<_>>()?;
        if negative > 1 || sizes.iter().any(|&s| s < -1) || resolved != outputs {
            return Err(ctx.invalid(
                format!(
                    "size_splits {sizes:?} (-1: the rest of {}) do not match the outputs' sizes \
                     {outputs:?} along axis {axis}",
                    input.shape[axis]
                ),
                Grounds::undefined(
                    "split.cc / split_v.cc SplitImpl copies each output with the sizes it \
                     computes from the shapes, checked only by TFLITE_DCHECK: mismatched \
                     outputs are written past their end, or read past the input",
                ),
            ));
        }
    }
    lower(ctx, 0, axis)
}

/// The resolved axis, from the constant int32 tensor at input `at` (TFLM refuses a computed
/// one), for the input tensor at `input`.
fn axis(ctx: &OpContext, at: usize, input: usize) -> Result<usize> {
    let rank = ctx.input(input)?.shape.len();
    let tensor = ctx.input(at)?;
    if !tensor.is_constant() {
        return Err(
            ctx.unsupported("the axis is computed at run time; TFLM supports only a constant axis")
        );
    }
    let values = ctx.const_int32_tensor("the axis", tensor)?;
    let Some(&value) = values.first() else {
        return Err(ctx.invalid(
            "the axis tensor is empty",
            Grounds::undefined(
                "split.cc SplitPrepare reads element 0 of the axis tensor: an empty one \
                 is read out of bounds",
            ),
        ));
    };
    let resolved = if value < 0 {
        value + rank as i64
    } else {
        value
    };
    if resolved < 0 || resolved >= rank as i64 {
        return Err(ctx.invalid(
            format!("axis {value} is out of range for the input's rank {rank}"),
            Grounds::tflm(
                "split.cc SplitPrepare: TF_LITE_ENSURE(axis_value >= 0 && axis_value < \
                 NumDimensions(input))",
            ),
        ));
    }
    Ok(resolved as usize)
}

/// The kernel call for input `input` cut along `axis` into the outputs, whose shapes must be the
/// input's outside the axis and add up to it along the axis.
fn lower(ctx: &OpContext, input: usize, axis: usize) -> Result<Kernel> {
    let tensor = ctx.input(input)?;
    ctx.movable("the input", tensor)?;
    let n = ctx.op().outputs.len();
    let rank = tensor.shape.len();
    let elem = tensor.dtype.size();
    let mut chunk_bytes = Vec::with_capacity(n);
    let mut total = 0;
    for i in 0..n {
        let output = ctx.output(i)?;
        let what = format!("output {i}");
        ctx.same_dtype(&what, output, tensor)?;
        let shape_ok = output.shape.len() == rank
            && (0..rank).all(|d| d == axis || output.shape[d] == tensor.shape[d]);
        if !shape_ok {
            return Err(ctx.invalid(
                format!(
                    "{what} has shape {:?}, which is not the input's {:?} cut along axis {axis}",
                    output.shape, tensor.shape
                ),
                Grounds::undefined(
                    "split.cc / split_v.cc SplitImpl copies each output with the sizes it \
                     computes from the shapes, checked only by TFLITE_DCHECK: mismatched \
                     outputs are written past their end, or read past the input",
                ),
            ));
        }
        total += output.shape[axis];
        chunk_bytes.push(output.shape[axis..].iter().product::<usize>() * elem);
    }
    if total != tensor.shape[axis] {
        return Err(ctx.invalid(
            format!(
                "the outputs add up to {total} along axis {axis}, the input has {}",
                tensor.shape[axis]
            ),
            Grounds::undefined(
                "split.cc / split_v.cc SplitImpl copies each output with the sizes it \
                 computes from the shapes, checked only by TFLITE_DCHECK: mismatched \
                 outputs are written past their end, or read past the input",
            ),
        ));
    }
    let outer = tensor.shape[..axis].iter().product::<usize>();
    split_kernel(ctx, input, n, P::Split { outer, chunk_bytes })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{field, graph, kernel, reason, tensor};
    use crate::ir::{DType, OpCode, Options};
    use crate::lower::{Operand, Value};

    /// SPLIT_V of a float32 [2, 5, 3] along `axis` (bytes of `axis_bytes`) with `sizes` into
    /// outputs of `shapes`.
    fn split_v<'m>(
        axis_bytes: &'m [u8],
        sizes: &'m [u8],
        n_sizes: usize,
        shapes: &[&[usize]],
    ) -> crate::ir::Graph<'m> {
        let mut tensors = vec![
            tensor(&[2, 5, 3], DType::F32, None, None),
            tensor(&[n_sizes], DType::I32, None, Some(sizes)),
            tensor(&[1], DType::I32, None, Some(axis_bytes)),
        ];
        tensors.extend(shapes.iter().map(|s| tensor(s, DType::F32, None, None)));
        let mut g = graph(
            OpCode::SPLIT_V,
            Options::None,
            tensors,
            &[Some(0), Some(1), Some(2)],
        );
        g.operators[0].outputs = (3..3 + shapes.len()).collect();
        g.outputs = g.operators[0].outputs.clone();
        g
    }

    fn ints(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn split_v_resolves_minus_one_and_negative_axis() {
        let (axis, sizes) = (ints(&[-2]), ints(&[2, -1]));
        let g = split_v(&axis, &sizes, 2, &[&[2, 2, 3], &[2, 3, 3]]);
        let k = kernel(&g);
        assert_eq!(k.function, "split2");
        assert_eq!(
            k.operands,
            vec![Operand::Src(0), Operand::Offset(3), Operand::Offset(4)]
        );
        assert_eq!(field(&k, "outer"), &Value::Usize(2));
        assert_eq!(field(&k, "chunk_bytes"), &Value::Usizes(vec![24, 36]));
    }

    #[test]
    fn more_than_ten_outputs_are_one_variadic_operand() {
        // SPLIT_V of a float32 [2, 5, 11] into 11 outputs along axis 2: past the fixed arities.
        let (axis, sizes) = (ints(&[2]), ints(&[1; 11]));
        let mut tensors = vec![
            tensor(&[2, 5, 11], DType::F32, None, None),
            tensor(&[11], DType::I32, None, Some(&sizes)),
            tensor(&[1], DType::I32, None, Some(&axis)),
        ];
        tensors.extend((0..11).map(|_| tensor(&[2, 5, 1], DType::F32, None, None)));
        let mut g = graph(
            OpCode::SPLIT_V,
            Options::None,
            tensors,
            &[Some(0), Some(1), Some(2)],
        );
        g.operators[0].outputs = (3..14).collect();
        g.outputs = g.operators[0].outputs.clone();
        let k = kernel(&g);
        assert_eq!(k.function, "split");
        assert_eq!(
            k.operands,
            vec![Operand::Src(0), Operand::Offsets((3..14).collect())]
        );
        assert_eq!(field(&k, "chunk_bytes"), &Value::Usizes(vec![4; 11]));
    }

    #[test]
    fn split_v_refuses_sizes_that_disagree_with_outputs() {
        let (axis, sizes) = (ints(&[1]), ints(&[1, -1]));
        let g = split_v(&axis, &sizes, 2, &[&[2, 2, 3], &[2, 3, 3]]);
        assert!(reason(&g).contains("size_splits [1, -1]"), "{}", reason(&g));
        let (axis, sizes) = (ints(&[3]), ints(&[2, -1]));
        let g = split_v(&axis, &sizes, 2, &[&[2, 2, 3], &[2, 3, 3]]);
        assert!(
            reason(&g).contains("axis 3 is out of range"),
            "{}",
            reason(&g)
        );
    }
}

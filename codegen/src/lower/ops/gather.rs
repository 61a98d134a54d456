//! GATHER → `gather::gather`: the rows of input 0 along `axis` named by the INT32 positions
//! (input 1), per batch of the first `batch_dims` dimensions, as TFLM's `gather.cc` computes them
//! (FLOAT32 and INT8, bytes moved unread). The sizes are computed here once; constant positions
//! are checked here, as TFLM's Eval checks them. GATHER_ND → `gather::gather_nd`: the slices of
//! input 0 named by the INT32 index vectors (the last dimension of input 1), as TFLM's
//! `gather_nd.cc` computes them (FLOAT32 and INT8); constant indices checked as its Eval checks
//! them (the flat start of each slice, not each index, inside the input), run-time ones as
//! GATHER's (a slice outside the input writes zero bytes where TFLM's Invoke fails).
//! EMBEDDING_LOOKUP, as TFLM's `embedding_lookup.cc`: FLOAT32 and INT8 rows copied as GATHER
//! along axis 0 (`gather::gather`, the operands swapped), INT8 rows with a FLOAT32 output
//! dequantized (`gather::embedding_lookup_hybrid`, the first scale of the values for every row,
//! as TFLM's `params.scale`); ids checked as GATHER's positions (constant: at generation time;
//! at run time one outside the rows writes a row of zeros where TFLM's Invoke fails).
//! GATHER's, GATHER_ND's and EMBEDDING_LOOKUP's output has the shape their `Prepare` writes over
//! the declared one, which the loader gave it (`load::prepared`); declared with fewer dimensions,
//! it is refused (undefined for GATHER and GATHER_ND, refused by EMBEDDING_LOOKUP's `Prepare`).

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::load::prepared;
use crate::lower::params::gather as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{OpContext, Operand};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::GATHER,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::Out(0)],
            tinyaot: &[
                Sig::Each(&[Ty::F32, Ty::I32, Ty::F32]),
                Sig::Each(&[Ty::I8, Ty::I32, Ty::I8]),
            ],
            tflm: &[
                Sig::Each(&[Ty::F32, Ty::I32, Ty::F32]),
                Sig::Each(&[Ty::I8, Ty::I32, Ty::I8]),
            ],
        },
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(gather),
    },
    OpEntry {
        code: OpCode::GATHER_ND,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::Out(0)],
            tinyaot: &[
                Sig::Each(&[Ty::F32, Ty::I32, Ty::F32]),
                Sig::Each(&[Ty::I8, Ty::I32, Ty::I8]),
            ],
            tflm: &[
                Sig::Each(&[Ty::F32, Ty::I32, Ty::F32]),
                Sig::Each(&[Ty::I8, Ty::I32, Ty::I8]),
            ],
        },
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(gather_nd),
    },
    OpEntry {
        code: OpCode::EMBEDDING_LOOKUP,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::Out(0)],
            tinyaot: &[
                Sig::Each(&[Ty::I32, Ty::F32, Ty::F32]),
                Sig::Each(&[Ty::I32, Ty::I8, Ty::I8]),
                Sig::Each(&[Ty::I32, Ty::I8, Ty::F32]),
            ],
            tflm: &[
                Sig::Each(&[Ty::I32, Ty::F32, Ty::F32]),
                Sig::Each(&[Ty::I32, Ty::I8, Ty::I8]),
                Sig::Each(&[Ty::I32, Ty::I8, Ty::F32]),
            ],
        },
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(embedding_lookup),
    },
];

/// Checks that the output has the shape `expected` that TFLM's `Prepare` writes over its
/// dimensions: the loader gives it that shape ([`prepared`]) unless it has more dimensions than
/// declared, which `Prepare` writes past the end of its copy of the declared ones (`why`).
fn prepared_output(ctx: &OpContext, op: &str, why: &'static str, expected: &[usize]) -> Result<()> {
    let output = ctx.output(0)?;
    if output.shape == expected {
        return Ok(());
    }
    if output.shape.len() < expected.len() {
        return Err(ctx.invalid(
            format!(
                "the output has shape {:?}; TFLM's {op} gives it the shape {expected:?}, of more \
                 dimensions than the {} it declares",
                output.shape,
                output.shape.len()
            ),
            Grounds::undefined(why),
        ));
    }
    // Only a graph built in memory, which the loader did not reshape, gets here.
    Err(ctx.unsupported(format!(
        "the output has shape {:?}; TFLM's {op} gives it the shape {expected:?} (its Prepare \
         rewrites the output's dimensions, as the loader does for a .tflite file)",
        output.shape
    )))
}

/// GATHER: GatherOptions' axis and batch_dims (TFLM's zeroed defaults without them), resolved and
/// checked as TFLM's GatherPrepare does.
fn gather(ctx: &OpContext) -> Result<Kernel> {
    let (input, positions, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    if positions.dtype != DType::I32 {
        return Err(ctx.invalid(
            format!(
                "the positions have type {}; TFLM's GATHER takes INT32 positions",
                positions.dtype
            ),
            Grounds::tflm("gather.cc GatherPrepare: positions type not supported but INT32"),
        ));
    }
    if !matches!(input.dtype, DType::F32 | DType::I8) {
        return Err(ctx.invalid(
            format!(
                "the input has type {}; TFLM's GATHER refuses it (it takes FLOAT32 and INT8)",
                input.dtype
            ),
            Grounds::tflm("gather.cc GatherPrepare: input type not supported but FLOAT32 and INT8"),
        ));
    }
    // TFLM sets the output's type to the input's: one of another declared type would be read as
    // the input's.
    ctx.same_dtype("the output", output, input)?;
    let (axis, batch_dims) = ctx
        .tflite_operator()?
        .builtin_options_as_gather_options()
        .map_or((0, 0), |o| (o.axis(), o.batch_dims()));
    let rank = input.shape.len() as i64;
    let coords_rank = positions.shape.len() as i64;
    let a = if axis < 0 {
        i64::from(axis) + rank
    } else {
        i64::from(axis)
    };
    if a < 0 || a >= rank {
        return Err(ctx.invalid(
            format!("axis {axis} is out of range for the input's rank {rank}"),
            Grounds::tflm(
                "gather.cc GatherPrepare: TF_LITE_ENSURE(0 <= axis < NumDimensions(input))",
            ),
        ));
    }
    let b = if batch_dims < 0 {
        i64::from(batch_dims) + coords_rank
    } else {
        i64::from(batch_dims)
    };
    if b > a || b < 0 || b >= rank || b > coords_rank {
        return Err(ctx.invalid(
            format!(
                "batch_dims {batch_dims} (axis {a}, input rank {rank}, positions rank \
                 {coords_rank}) is out of range"
            ),
            Grounds::tflm(
                "gather.cc GatherPrepare: TF_LITE_ENSURE(batch_dims <= axis, 0 <= batch_dims < \
                 NumDimensions(input), batch_dims <= NumDimensions(positions))",
            ),
        ));
    }
    let (a, b) = (a as usize, b as usize);
    if input.shape[..b] != positions.shape[..b] {
        return Err(ctx.invalid(
            format!(
                "the first {b} dimensions of the input {:?} and the positions {:?} differ",
                input.shape, positions.shape
            ),
            Grounds::tflm(
                "gather.cc GatherPrepare: TF_LITE_ENSURE_EQ(input dims[i], positions dims[i]) \
                 for i < batch_dims",
            ),
        ));
    }
    let Some(expected) = prepared::gather_shape(&input.shape, &positions.shape, axis, batch_dims)
    else {
        return Err(ctx.internal("GatherPrepare's checks passed but its shape was not computed"));
    };
    prepared_output(
        ctx,
        "GATHER",
        "gather.cc GatherPrepare copies the output's declared dimensions into an array of their \
         count (CreateWritableTensorDimsWithCopy) and writes the computed ones into it, past its \
         end",
        &expected,
    )?;
    let axis_size = input.shape[a];
    if positions.is_constant() {
        let values = ctx.const_ints("the positions", positions)?;
        if let Some(&bad) = values.iter().find(|&&v| v < 0 || v >= axis_size as i64) {
            return Err(ctx.invalid(
                format!("position {bad} is outside the axis' {axis_size} entries"),
                Grounds::tflm(
                    "gather.cc Gather: kTfLiteError at Eval on a position outside [0, axis \
                     size) (the TFLM build the goldens come from; older sources TFLITE_DCHECK it)",
                ),
            ));
        }
    }
    let product = |dims: &[usize]| dims.iter().product::<usize>();
    Ok(kernel(
        "gather",
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::Gather {
            row_bytes: product(&input.shape[a + 1..]) * input.dtype.size(),
            batches: product(&input.shape[..b]),
            outer: product(&input.shape[b..a]),
            axis_size,
            coords: product(&positions.shape[b..]),
        },
    ))
}

/// GATHER_ND: GatherNdPrepare's checks and output shape, then the input's element stride of each
/// indexed dimension.
fn gather_nd(ctx: &OpContext) -> Result<Kernel> {
    let (input, indices, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    if !matches!(input.dtype, DType::F32 | DType::I8) {
        return Err(ctx.invalid(
            format!(
                "the input has type {}; TFLM's GATHER_ND takes FLOAT32 and INT8",
                input.dtype
            ),
            Grounds::tflm("gather_nd.cc GatherNdPrepare: params type not supported"),
        ));
    }
    if indices.dtype != DType::I32 {
        return Err(ctx.invalid(
            format!(
                "the indices have type {}; TFLM's GATHER_ND takes INT32 indices",
                indices.dtype
            ),
            Grounds::tflm("gather_nd.cc GatherNdPrepare: indices type not supported"),
        ));
    }
    // TFLM sets the output's type to the input's.
    ctx.same_dtype("the output", output, input)?;
    let (rank, indices_rank) = (input.shape.len(), indices.shape.len());
    let depth = indices.shape.last().copied().unwrap_or(0);
    if rank < 1 || indices_rank < 1 || depth > rank || depth > 5 {
        return Err(ctx.invalid(
            format!(
                "input shape {:?} and indices shape {:?}: TFLM takes an input and indices of \
                 rank 1 or more, index vectors of at most the input's rank and of 5",
                input.shape, indices.shape
            ),
            Grounds::tflm(
                "gather_nd.cc GatherNdPrepare: \"Params must be at least a vector.\", \"Indices \
                 must be at least a vector.\", \"Index innermost dimension length must be <= \
                 params rank.\", \"... must not exceed 5\"",
            ),
        ));
    }
    let Some(expected) = prepared::gather_nd_shape(&input.shape, &indices.shape) else {
        return Err(ctx.internal("GatherNdPrepare's checks passed but its shape was not computed"));
    };
    prepared_output(
        ctx,
        "GATHER_ND",
        "gather_nd.cc GatherNdPrepare copies the output's declared dimensions into an array of \
         their count (CreateWritableTensorDimsWithCopy) and writes the computed ones into it, \
         past its end",
        &expected,
    )?;
    let input_elems = input.num_elements();
    let slice_elems: usize = input.shape[depth..].iter().product();
    let slices: usize = indices.shape[..indices_rank - 1].iter().product();
    // TFLM's dims_to_count: each indexed dimension's element stride.
    let strides: Vec<usize> = (0..depth)
        .map(|j| input.shape[j + 1..].iter().product())
        .collect();
    if indices.is_constant() {
        let values = ctx.const_ints("the indices", indices)?;
        for vector in values.chunks(depth.max(1)).take(slices) {
            let from: i64 = vector
                .iter()
                .zip(&strides)
                .map(|(&v, &s)| v * s as i64)
                .sum();
            if from < 0 || from + slice_elems as i64 > input_elems as i64 {
                return Err(ctx.invalid(
                    format!(
                        "index {vector:?} starts a slice at element {from}, outside the input's \
                         {input_elems}"
                    ),
                    Grounds::tflm(
                        "gather_nd.cc GatherNd: kTfLiteError at Eval (\"gather_nd index out of \
                         bounds\") on a slice outside the input",
                    ),
                ));
            }
        }
    }
    Ok(kernel(
        "gather_nd",
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::GatherNd {
            elem_bytes: input.dtype.size(),
            slice_elems,
            slices,
            strides,
            input_elems,
        },
    ))
}

/// EMBEDDING_LOOKUP: EmbeddingLookUpPrepare's checks (rank-1 INT32 ids, values of rank 2 or more
/// in FLOAT32 or INT8, a FLOAT32 output for FLOAT32 values, INT8 or FLOAT32 for INT8 values),
/// its output shape, and CalculateOpData's scale for the hybrid (INT8 → FLOAT32) path.
fn embedding_lookup(ctx: &OpContext) -> Result<Kernel> {
    let (ids, values, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    if ids.dtype != DType::I32 || ids.shape.len() != 1 {
        return Err(ctx.invalid(
            format!(
                "the ids are {} of shape {:?}; TFLM's EMBEDDING_LOOKUP takes a vector of INT32 ids",
                ids.dtype, ids.shape
            ),
            Grounds::tflm(
                "embedding_lookup.cc EmbeddingLookUpPrepare: TF_LITE_ENSURE_EQ(NumDimensions(\
                 lookup), 1), TF_LITE_ENSURE_EQ(lookup->type, kTfLiteInt32)",
            ),
        ));
    }
    if !matches!(values.dtype, DType::F32 | DType::I8) || values.shape.len() < 2 {
        return Err(ctx.invalid(
            format!(
                "the values are {} of shape {:?}; TFLM's EMBEDDING_LOOKUP takes FLOAT32 or INT8 \
                 values of rank 2 or more",
                values.dtype, values.shape
            ),
            Grounds::tflm(
                "embedding_lookup.cc EmbeddingLookUpPrepare: TF_LITE_ENSURE(NumDimensions(value) \
                 >= 2), value->type == kTfLiteFloat32 || value->type == kTfLiteInt8",
            ),
        ));
    }
    let hybrid = values.dtype == DType::I8 && output.dtype == DType::F32;
    if !(output.dtype == values.dtype || hybrid) {
        return Err(ctx.invalid(
            format!(
                "the output has type {} for {} values; TFLM's EMBEDDING_LOOKUP writes FLOAT32 \
                 for FLOAT32 values, INT8 or FLOAT32 for INT8 values",
                output.dtype, values.dtype
            ),
            Grounds::tflm(
                "embedding_lookup.cc EmbeddingLookUpPrepare: TF_LITE_ENSURE(output->type == \
                 kTfLiteFloat32 [|| output->type == kTfLiteInt8 for INT8 values])",
            ),
        ));
    }
    let rows = values.shape[0];
    let n = ids.shape[0];
    if output.shape.len() < values.shape.len() {
        return Err(ctx.invalid(
            format!(
                "the output has shape {:?}, of fewer dimensions than the values' {:?}",
                output.shape, values.shape
            ),
            Grounds::tflm(
                "embedding_lookup.cc EmbeddingLookUpPrepare: TF_LITE_ENSURE(output->dims->size \
                 >= NumDimensions(value))",
            ),
        ));
    }
    // The shape Prepare writes over the declared one (the loader gave the output that shape,
    // unless Prepare's size check below fails).
    let expected = prepared::embedding_lookup_shape(&ids.shape, &values.shape, &output.shape)
        .ok_or_else(|| ctx.internal("EMBEDDING_LOOKUP's shapes were checked"))?;
    if output.num_elements() < expected.iter().product::<usize>() {
        return Err(ctx.invalid(
            format!(
                "the output has shape {:?}, fewer elements than the shape {expected:?} TFLM's \
                 Prepare gives it",
                output.shape
            ),
            Grounds::tflm(
                "embedding_lookup.cc EmbeddingLookUpPrepare: TF_LITE_ENSURE(new_dims_size <= \
                 output->bytes)",
            ),
        ));
    }
    prepared_output(
        ctx,
        "EMBEDDING_LOOKUP",
        "embedding_lookup.cc EmbeddingLookUpPrepare: CreateWritableTensorDimsWithCopy",
        &expected,
    )?;
    if rows == 0 {
        return Err(ctx.invalid(
            format!("the values {:?} have no rows", values.shape),
            Grounds::undefined(
                "embedding_lookup.cc CalculateOpData: num_columns = NumElements(tensor_1) / \
                 tensor_1->dims->data[0] divides by zero",
            ),
        ));
    }
    let columns: usize = values.shape[1..].iter().product();
    // Declared dimensions past the values' rank stay in the output's shape (Prepare writes the
    // first ones only); Eval writes n rows of the values' columns whatever they are, so the rest
    // of a larger output is never written.
    let extra: usize = expected[values.shape.len()..].iter().product();
    if extra != 1 && n * columns != 0 {
        return Err(ctx.invalid(
            format!(
                "the output has shape {:?}: its dimensions past the values' rank ({:?}) make \
                 it {extra} times the {n} rows of {columns} elements looked up",
                output.shape,
                &expected[values.shape.len()..]
            ),
            Grounds::undefined(
                "embedding_lookup.cc EmbeddingLookUpPrepare keeps the declared dimensions past \
                 the values' rank, and EvalSimple/EvalHybrid write only the rows looked up: the \
                 rest of the output is never written (uninitialized arena memory)",
            ),
        ));
    }
    if ids.is_constant() {
        let values = ctx.const_ints("the ids", ids)?;
        if let Some(&bad) = values.iter().find(|&&v| v < 0 || v >= rows as i64) {
            return Err(ctx.invalid(
                format!("id {bad} is outside the values' {rows} rows"),
                Grounds::tflm(
                    "embedding_lookup.cc EvalSimple/EvalHybrid: kTfLiteError at Eval \
                     (\"EMBEDDING_LOOKUP: index out of bounds\") on an id outside [0, rows)",
                ),
            ));
        }
    }
    let operands = vec![
        Operand::Src(ctx.input_index(1)?),
        Operand::Src(ctx.input_index(0)?),
        Operand::Offset(ctx.output_index(0)?),
    ];
    if !hybrid {
        // EvalSimple: rows of bytes moved unread, GATHER along axis 0.
        return Ok(kernel(
            "gather",
            operands,
            P::Gather {
                row_bytes: columns * values.dtype.size(),
                batches: 1,
                outer: 1,
                axis_size: rows,
                coords: n,
            },
        ));
    }
    // CalculateOpData: TFLM reads `params.scale` and `params.zero_point`, the first entries of
    // the values' quantization (a per-row quantized table is dequantized with row 0's scale).
    let (scale, zero_point) = match &values.quant {
        Some(q) if !q.scales.is_empty() && !q.zero_points.is_empty() => {
            (q.scales[0], q.zero_points[0])
        }
        _ => {
            return Err(ctx.invalid(
                "the INT8 values have no quantization parameters for the FLOAT32 output",
                Grounds::spec(
                    "TFLite quantization specification: a quantized tensor carries its scale \
                     and zero point (TFLM would dequantize with a scale of 0)",
                ),
            ))
        }
    };
    if zero_point != 0 {
        return Err(ctx.invalid(
            format!("the INT8 values have zero point {zero_point}; the hybrid path takes 0"),
            Grounds::tflm(
                "embedding_lookup.cc CalculateOpData: TF_LITE_ENSURE_EQ(tensor_1->params.\
                 zero_point, 0)",
            ),
        ));
    }
    ctx.check_scale("the values'", scale)?;
    Ok(kernel(
        "embedding_lookup_hybrid",
        operands,
        P::EmbeddingLookupHybrid {
            columns,
            rows,
            ids: n,
            scale,
        },
    ))
}

//! The output shapes TFLM's `Prepare` writes over the file's: GATHER, GATHER_ND and
//! EMBEDDING_LOOKUP copy their output's dimensions into the arena
//! (`CreateWritableTensorDimsWithCopy`, an array of the declared rank) and overwrite them with the
//! shape they compute from their inputs; TFLM then plans the tensor's buffer
//! (`CommitStaticMemoryPlan` runs after every `Prepare`) and every later operator reads it with
//! that shape, whatever the file declares. So the loader gives such an output the computed shape,
//! operator by operator in TFLM's `Prepare` order, where `Prepare` passes (otherwise the lowering
//! refuses the operator with its reason). A computed shape of more dimensions than the declared
//! one is not applied: GATHER and GATHER_ND write it past the copy's end (undefined), which the
//! lowering refuses (EMBEDDING_LOOKUP's `Prepare` refuses it itself).

use tinyaot_schema::tflite;

use super::tensor::byte_size;
use crate::error::{Error, Result};
use crate::ir::{DType, OpCode, Operator, Tensor};
use crate::limits::Limits;

/// TFLM's `GatherPrepare` output shape for an input of shape `input` and positions of shape
/// `positions` (their types checked by the caller), or `None` where its checks fail: the input's
/// dimensions before the axis, the positions' after the batch dimensions, the input's after the
/// axis.
pub(crate) fn gather_shape(
    input: &[usize],
    positions: &[usize],
    axis: i32,
    batch_dims: i32,
) -> Option<Vec<usize>> {
    let (rank, coords_rank) = (input.len() as i64, positions.len() as i64);
    let resolve = |v: i32, by: i64| {
        if v < 0 {
            i64::from(v) + by
        } else {
            i64::from(v)
        }
    };
    let (a, b) = (resolve(axis, rank), resolve(batch_dims, coords_rank));
    if a < 0 || a >= rank || b > a || b < 0 || b >= rank || b > coords_rank {
        return None;
    }
    let (a, b) = (a as usize, b as usize);
    if input[..b] != positions[..b] {
        return None;
    }
    Some(
        input[..a]
            .iter()
            .chain(&positions[b..])
            .chain(&input[a + 1..])
            .copied()
            .collect(),
    )
}

/// TFLM's `GatherNdPrepare` output shape for an input of shape `params` and indices of shape
/// `indices`, or `None` where its checks fail: the indices' dimensions but the last, then the
/// input's after the indexed ones.
pub(crate) fn gather_nd_shape(params: &[usize], indices: &[usize]) -> Option<Vec<usize>> {
    let depth = *indices.last()?;
    if params.is_empty() || depth > params.len() || depth > 5 {
        return None;
    }
    Some(
        indices[..indices.len() - 1]
            .iter()
            .chain(&params[depth..])
            .copied()
            .collect(),
    )
}

/// TFLM's `EmbeddingLookUpPrepare` output shape for ids of shape `ids`, values of shape `values`
/// and an output declared of shape `declared`, or `None` where its shape checks fail (ids of rank
/// 1, values of rank 2 or more, an output of at least the values' rank): the number of ids, the
/// values' dimensions after the rows, then the declared dimensions past the values' rank, which
/// `Prepare` leaves as they are.
pub(crate) fn embedding_lookup_shape(
    ids: &[usize],
    values: &[usize],
    declared: &[usize],
) -> Option<Vec<usize>> {
    if ids.len() != 1 || values.len() < 2 || declared.len() < values.len() {
        return None;
    }
    Some(
        ids.iter()
            .chain(&values[1..])
            .chain(&declared[values.len()..])
            .copied()
            .collect(),
    )
}

/// Gives each GATHER, GATHER_ND and EMBEDDING_LOOKUP output the shape TFLM's `Prepare` writes (see the module's
/// documentation), in operator order, so that a later operator sees an earlier one's.
pub(super) fn apply(
    subgraph: tflite::SubGraph<'_>,
    tensors: &mut [Tensor<'_>],
    operators: &[Operator],
    limits: &Limits,
) -> Result<()> {
    let raw = subgraph.operators();
    for (i, op) in operators.iter().enumerate() {
        let code = op.kind.code();
        let Some(code) = code
            .filter(|c| [OpCode::GATHER, OpCode::GATHER_ND, OpCode::EMBEDDING_LOOKUP].contains(c))
        else {
            continue;
        };
        let ([Some(input), Some(positions)], [output]) = (&op.inputs[..], &op.outputs[..]) else {
            continue;
        };
        let (input, positions) = (&tensors[*input], &tensors[*positions]);
        let declared = &tensors[*output];
        let computed = if code == OpCode::EMBEDDING_LOOKUP {
            // EMBEDDING_LOOKUP's inputs are the ids, then the values. Prepare's type checks: ids
            // INT32, values FLOAT32 or INT8, a FLOAT32 output (or INT8 for INT8 values); and its
            // size check, that the computed shape fits in the declared one's bytes.
            let (ids, values) = (input, positions);
            let types = ids.dtype == DType::I32
                && match values.dtype {
                    DType::F32 => declared.dtype == DType::F32,
                    DType::I8 => matches!(declared.dtype, DType::F32 | DType::I8),
                    _ => false,
                };
            embedding_lookup_shape(&ids.shape, &values.shape, &declared.shape)
                .filter(|s| types && s.iter().product::<usize>() <= declared.num_elements())
        } else if positions.dtype != DType::I32 || !matches!(input.dtype, DType::F32 | DType::I8) {
            // GATHER's and GATHER_ND's type checks: positions INT32, input FLOAT32 or INT8.
            None
        } else if code == OpCode::GATHER {
            let (axis, batch_dims) = raw
                .filter(|ops| i < ops.len())
                .and_then(|ops| ops.get(i).builtin_options_as_gather_options())
                .map_or((0, 0), |o| (o.axis(), o.batch_dims()));
            gather_shape(&input.shape, &positions.shape, axis, batch_dims)
        } else {
            gather_nd_shape(&input.shape, &positions.shape)
        };
        let output = &mut tensors[*output];
        let Some(shape) = computed else { continue };
        if shape == output.shape || shape.len() > output.shape.len() || output.data.is_some() {
            continue;
        }
        let what = format!(
            "the size of tensor #{} {:?} ({} {shape:?}, the shape TFLM's Prepare gives it) in \
             bytes",
            op.outputs[0], output.name, output.dtype
        );
        let wide = shape
            .iter()
            .try_fold(output.dtype.size() as u128, |acc, &d| {
                acc.checked_mul(d as u128)
            })
            .unwrap_or(u128::MAX);
        limits.check_tensor_bytes(|| what.clone(), wide)?;
        output.bytes = byte_size(output.dtype, &shape).ok_or(Error::Overflow { context: what })?;
        output.shape = shape;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{embedding_lookup_shape, gather_nd_shape, gather_shape};

    #[test]
    fn shapes_as_tflm_prepares_them() {
        assert_eq!(
            gather_shape(&[4, 5, 6], &[2, 3], 1, 0),
            Some(vec![4, 2, 3, 6])
        );
        assert_eq!(
            gather_shape(&[2, 5, 6], &[2, 3], -2, 1),
            Some(vec![2, 3, 6])
        );
        assert_eq!(gather_shape(&[4, 5], &[2], 2, 0), None);
        assert_eq!(gather_shape(&[2, 5], &[3, 3], 1, 1), None);
        assert_eq!(gather_nd_shape(&[4, 5, 6], &[3, 2]), Some(vec![3, 6]));
        assert_eq!(gather_nd_shape(&[4, 5], &[3, 3]), None);
        assert_eq!(gather_nd_shape(&[4, 5], &[]), None);
        assert_eq!(
            embedding_lookup_shape(&[1], &[2, 3, 1, 2], &[2, 3, 1, 2]),
            Some(vec![1, 3, 1, 2])
        );
        assert_eq!(
            embedding_lookup_shape(&[4], &[3, 5], &[5, 5, 1]),
            Some(vec![4, 5, 1])
        );
        assert_eq!(embedding_lookup_shape(&[4], &[3, 5, 2], &[4, 10]), None);
        assert_eq!(embedding_lookup_shape(&[4], &[3], &[4]), None);
    }
}

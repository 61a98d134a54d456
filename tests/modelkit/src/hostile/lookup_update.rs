//! The corners of EMBEDDING_LOOKUP, DYNAMIC_UPDATE_SLICE and BROADCAST_ARGS (issue 35): what
//! TFLM's kernels refuse, the types no fixture has, and the inputs they treat specially.

use super::{Category, Refusal, Suite};
use crate::{BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

/// An unquantized tensor of `dtype` and `shape`.
fn raw(dtype: TensorType, shape: &[i32]) -> TensorSpec {
    TensorSpec::new(dtype, shape)
}

/// An EMBEDDING_LOOKUP of `ids` into `values`.
fn lookup(ids: TensorSpec, values: TensorSpec, out: TensorSpec) -> ModelSpec {
    ModelSpec::single_op(
        B::EMBEDDING_LOOKUP,
        Options::None,
        vec![ids, values],
        vec![out],
    )
}

/// A DYNAMIC_UPDATE_SLICE of `update` into `operand` at `start`.
fn update_slice(
    operand: TensorSpec,
    update: TensorSpec,
    start: TensorSpec,
    out: TensorSpec,
) -> ModelSpec {
    ModelSpec::single_op(
        B::DYNAMIC_UPDATE_SLICE,
        Options::None,
        vec![operand, update, start],
        vec![out],
    )
}

/// A RELU of a float input beside a BROADCAST_ARGS of two constant shapes (the model's second
/// output; the RELU gives it a graph input).
fn constant_broadcast_args(a: TensorSpec, b: TensorSpec, out: TensorSpec) -> ModelSpec {
    let mut m = ModelSpec::new();
    let x = m.tensor(TensorSpec::f32(&[4]));
    let y = m.tensor(TensorSpec::f32(&[4]));
    m.op(B::RELU, Options::None, &[x], &[y]);
    let (a, b, o) = (m.tensor(a), m.tensor(b), m.tensor(out));
    m.op(B::BROADCAST_ARGS, Options::None, &[a, b], &[o]);
    m.inputs = vec![x];
    m.outputs = vec![y, o];
    m
}

/// The cases, appended to `cases`.
pub(super) fn lookup_update(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // EMBEDDING_LOOKUP: constant ids, and an int8 table into int8 whose output quantization
    // differs (TFLM copies the bytes).
    s.accepted(
        "embedding_lookup_constant_ids_int8_requantized_output",
        lookup(
            TensorSpec::int32(&[3]).constant_i32(&[2, 0, 2]),
            TensorSpec::int8(&[3, 4], 0.1, 5),
            TensorSpec::int8(&[3, 4], 0.3, -7),
        ),
    );
    // An output declared of another shape: TFLM's Prepare writes the looked-up shape over it
    // (fewer elements than declared, or a trailing dimension of 1 kept), and plans that.
    s.accepted(
        "embedding_lookup_output_declared_larger",
        lookup(
            TensorSpec::int32(&[1]).constant_i32(&[1]),
            TensorSpec::f32(&[2, 3, 1, 2]),
            TensorSpec::f32(&[2, 3, 1, 2]),
        ),
    );
    s.accepted(
        "embedding_lookup_int8_output_declared_larger",
        lookup(
            TensorSpec::int32(&[4]).constant_i32(&[2, 0, 1, 2]),
            TensorSpec::int8(&[3, 5], 0.1, 5),
            TensorSpec::int8(&[5, 5], 0.1, 5),
        ),
    );
    s.accepted(
        "embedding_lookup_output_trailing_one",
        lookup(
            TensorSpec::int32(&[2]).constant_i32(&[2, 1]),
            TensorSpec::f32(&[3, 2]),
            TensorSpec::f32(&[4, 2, 1]),
        ),
    );
    s.refused(
        "embedding_lookup_output_trailing_dimension",
        lookup(
            TensorSpec::int32(&[2]).constant_i32(&[2, 1]),
            TensorSpec::f32(&[3, 2]),
            TensorSpec::f32(&[2, 2, 3]),
        ),
        Refusal::Invalid,
        "never written",
    );
    s.refused(
        "embedding_lookup_output_too_small",
        lookup(
            TensorSpec::int32(&[3]).constant_i32(&[2, 1, 0]),
            TensorSpec::f32(&[3, 2]),
            TensorSpec::f32(&[2, 2]),
        ),
        Refusal::Invalid,
        "new_dims_size <= output->bytes",
    );
    s.refused(
        "embedding_lookup_no_rows",
        lookup(
            TensorSpec::int32(&[1]).constant_i32(&[0]),
            TensorSpec::f32(&[0, 2]),
            TensorSpec::f32(&[1, 2]),
        ),
        Refusal::Invalid,
        // The empty input's own refusal is first (and TFLM's CalculateOpData divides by zero).
        "is empty",
    );
    s.refused(
        "embedding_lookup_constant_id_out_of_range",
        lookup(
            TensorSpec::int32(&[2]).constant_i32(&[1, 3]),
            TensorSpec::f32(&[3, 2]),
            TensorSpec::f32(&[2, 2]),
        ),
        Refusal::Invalid,
        "outside the values' 3 rows",
    );
    s.refused(
        "embedding_lookup_int64_ids",
        lookup(
            raw(TensorType::INT64, &[1]).constant_i64(&[0]),
            TensorSpec::f32(&[3, 2]),
            TensorSpec::f32(&[1, 2]),
        ),
        Refusal::Invalid,
        "vector of INT32 ids",
    );
    s.refused(
        "embedding_lookup_rank_1_values",
        lookup(
            TensorSpec::int32(&[1]).constant_i32(&[0]),
            TensorSpec::f32(&[3]),
            TensorSpec::f32(&[1]),
        ),
        Refusal::Invalid,
        "rank 2 or more",
    );
    s.refused(
        "embedding_lookup_hybrid_zero_point",
        lookup(
            TensorSpec::int32(&[1]).constant_i32(&[0]),
            TensorSpec::int8(&[3, 2], 0.1, 4).constant_i8(&[1, 2, 3, 4, 5, 6]),
            TensorSpec::f32(&[1, 2]),
        ),
        Refusal::Invalid,
        "the hybrid path takes 0",
    );
    s.refused(
        "embedding_lookup_float_to_int8",
        lookup(
            TensorSpec::int32(&[1]).constant_i32(&[0]),
            TensorSpec::f32(&[3, 2]),
            TensorSpec::int8(&[1, 2], 0.1, 0),
        ),
        Refusal::Invalid,
        "FLOAT32 for FLOAT32 values",
    );
    // DYNAMIC_UPDATE_SLICE: an update of zero elements (the operand copied), and the types
    // TFLM's Prepare accepts but its Eval refuses.
    s.accepted(
        "dynamic_update_slice_empty_update",
        update_slice(
            TensorSpec::f32(&[3, 2]),
            TensorSpec::f32(&[0, 2]),
            TensorSpec::int32(&[2]).constant_i32(&[1, 0]),
            TensorSpec::f32(&[3, 2]),
        ),
    );
    s.accepted(
        "dynamic_update_slice_int32_int64_starts_clamped",
        update_slice(
            raw(TensorType::INT32, &[2, 5]),
            raw(TensorType::INT32, &[1, 2]),
            raw(TensorType::INT64, &[2]).constant_i64(&[-(1 << 40), 1 << 40]),
            raw(TensorType::INT32, &[2, 5]),
        ),
    );
    for (name, t) in [
        ("dynamic_update_slice_int64", TensorType::INT64),
        ("dynamic_update_slice_bool", TensorType::BOOL),
    ] {
        s.refused(
            name,
            update_slice(
                raw(t, &[3]),
                raw(t, &[1]),
                TensorSpec::int32(&[1]).constant_i32(&[1]),
                raw(t, &[3]),
            ),
            Refusal::Invalid,
            "TFLM's DYNAMIC_UPDATE_SLICE computes",
        );
    }
    s.refused(
        "dynamic_update_slice_scalar",
        update_slice(
            TensorSpec::f32(&[]),
            TensorSpec::f32(&[]),
            TensorSpec::int32(&[1]).constant_i32(&[0]),
            TensorSpec::f32(&[]),
        ),
        Refusal::Invalid,
        "the operand is a scalar",
    );
    s.refused(
        "dynamic_update_slice_update_larger",
        update_slice(
            TensorSpec::f32(&[3, 2]),
            TensorSpec::f32(&[1, 3]),
            TensorSpec::int32(&[2]).constant_i32(&[0, 0]),
            TensorSpec::f32(&[3, 2]),
        ),
        Refusal::Invalid,
        "larger than the operand",
    );
    s.refused(
        "dynamic_update_slice_int16_starts",
        update_slice(
            TensorSpec::f32(&[3]),
            TensorSpec::f32(&[1]),
            raw(TensorType::INT16, &[1]).constant(vec![1, 0]),
            TensorSpec::f32(&[3]),
        ),
        Refusal::Invalid,
        "INT32 or INT64",
    );
    // BROADCAST_ARGS of constant shapes: folded at generation time (INT64 and INT32, an output
    // longer than both, a dimension past 32 bits read truncated as TFLM's `int` reads it).
    s.accepted(
        "broadcast_args_int64_constant",
        constant_broadcast_args(
            raw(TensorType::INT64, &[3]).constant_i64(&[2, 1, 3]),
            raw(TensorType::INT64, &[2]).constant_i64(&[(1 << 32) + 4, 1]),
            raw(TensorType::INT64, &[4]),
        ),
    );
    s.accepted(
        "broadcast_args_int32_constant",
        constant_broadcast_args(
            TensorSpec::int32(&[2]).constant_i32(&[1, 5]),
            TensorSpec::int32(&[3]).constant_i32(&[7, 3, 1]),
            TensorSpec::int32(&[3]),
        ),
    );
    // BROADCAST_ARGS of two empty shapes, then a DIV of its empty result by an empty constant
    // (an empty buffer, which the file cannot tell from none): TFLM runs both over no elements.
    s.accepted("broadcast_args_empty_then_div_by_empty_constant", {
        let mut m = ModelSpec::new();
        let (a, b) = (
            m.tensor(TensorSpec::int32(&[0])),
            m.tensor(TensorSpec::int32(&[0])),
        );
        let shape = m.tensor(TensorSpec::int32(&[0]));
        m.op(B::BROADCAST_ARGS, Options::None, &[a, b], &[shape]);
        let divisor = m.tensor(TensorSpec::int32(&[0]).constant(Vec::new()));
        let out = m.tensor(TensorSpec::int32(&[0]));
        m.op(
            B::DIV,
            Options::Div {
                activation: crate::Activation::NONE,
            },
            &[shape, divisor],
            &[out],
        );
        m.inputs = vec![a, b];
        m.outputs = vec![out];
        m
    });
    s.refused(
        "broadcast_args_constant_mismatch",
        constant_broadcast_args(
            TensorSpec::int32(&[2]).constant_i32(&[2, 3]),
            TensorSpec::int32(&[2]).constant_i32(&[2, 4]),
            TensorSpec::int32(&[2]),
        ),
        Refusal::Invalid,
        "do not broadcast",
    );
    s.refused(
        "broadcast_args_mixed_types",
        constant_broadcast_args(
            TensorSpec::int32(&[1]).constant_i32(&[2]),
            raw(TensorType::INT64, &[1]).constant_i64(&[2]),
            TensorSpec::int32(&[1]),
        ),
        Refusal::Invalid,
        "TFLM takes one type",
    );
}

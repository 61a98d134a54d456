//! The corners of the tensor-structure operators of issue 34 (CAST, ZEROS_LIKE, FILL,
//! BROADCAST_TO, SELECT_V2, GATHER_ND): the types no converter-made fixture has, what TFLM's
//! kernels refuse, and the inputs they treat specially.

use super::{Category, Refusal, Suite};
use crate::{BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

/// An unquantized tensor of `dtype` and `shape`.
fn raw(dtype: TensorType, shape: &[i32]) -> TensorSpec {
    TensorSpec::new(dtype, shape)
}

/// A CAST of a `from` input to a `to` output, both of `shape`.
fn cast(from: TensorType, to: TensorType, shape: &[i32]) -> ModelSpec {
    ModelSpec::single_op(
        B::CAST,
        Options::None,
        vec![raw(from, shape)],
        vec![raw(to, shape)],
    )
}

/// The cases, appended to `cases`.
pub(super) fn ops_tensor(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // CAST to the input's own type: TFLM's Eval copies (the converter never writes one).
    for (name, t) in [
        ("cast_float32_to_float32", TensorType::FLOAT32),
        ("cast_int8_to_int8", TensorType::INT8),
        ("cast_int16_to_int16", TensorType::INT16),
        ("cast_int32_to_int32", TensorType::INT32),
        ("cast_bool_to_bool", TensorType::BOOL),
    ] {
        s.accepted(name, cast(t, t, &[2, 5]));
    }
    // CAST's output of another shape with as many elements (TFLM casts the flat data).
    s.accepted(
        "cast_output_reshaped",
        ModelSpec::single_op(
            B::CAST,
            Options::None,
            vec![raw(TensorType::INT16, &[2, 6])],
            vec![raw(TensorType::FLOAT32, &[3, 4])],
        ),
    );
    s.refused(
        "cast_int64_input",
        cast(TensorType::INT64, TensorType::FLOAT32, &[4]),
        Refusal::Invalid,
        "TFLM's CAST takes",
    );
    s.refused(
        "cast_output_of_another_size",
        ModelSpec::single_op(
            B::CAST,
            Options::None,
            vec![raw(TensorType::INT8, &[2, 3])],
            vec![raw(TensorType::INT32, &[2, 4])],
        ),
        Refusal::Invalid,
        "differ in size",
    );
    // ZEROS_LIKE of each type TFLM's kernel takes (the converter folds tf.zeros_like of a static
    // shape itself: these are the only models of it), int8 with a zero point that is not 0 (TFLM
    // writes raw zeros). tinyaot folds them into constants; the input is still a graph input.
    let zeros_like = |input: TensorSpec, output: TensorSpec| {
        ModelSpec::single_op(B::ZEROS_LIKE, Options::None, vec![input], vec![output])
    };
    s.accepted(
        "zeros_like_float32",
        zeros_like(TensorSpec::f32(&[2, 3]), TensorSpec::f32(&[2, 3])),
    );
    s.accepted(
        "zeros_like_int8",
        zeros_like(
            TensorSpec::int8(&[1, 4, 3], 0.05, 7),
            TensorSpec::int8(&[1, 4, 3], 0.05, 7),
        ),
    );
    s.accepted(
        "zeros_like_int32",
        zeros_like(raw(TensorType::INT32, &[5]), raw(TensorType::INT32, &[5])),
    );
    s.accepted(
        "zeros_like_int64",
        zeros_like(
            raw(TensorType::INT64, &[3, 2]),
            raw(TensorType::INT64, &[3, 2]),
        ),
    );
    s.refused(
        "zeros_like_int16",
        zeros_like(raw(TensorType::INT16, &[4]), raw(TensorType::INT16, &[4])),
        Refusal::Invalid,
        "TFLM's ZEROS_LIKE takes",
    );
    s.refused(
        "zeros_like_output_of_another_type",
        zeros_like(TensorSpec::f32(&[4]), raw(TensorType::INT32, &[4])),
        Refusal::Invalid,
        "expected FLOAT32",
    );
    // FILL: an int8 value (quantized: TFLM copies the raw value) and INT64 dims; the value is a
    // graph input, so the kernel runs (a constant one folds).
    let fill = |dims: TensorSpec, value: TensorSpec, output: TensorSpec| {
        ModelSpec::single_op(B::FILL, Options::None, vec![dims, value], vec![output])
    };
    s.accepted(
        "fill_int8_int64_dims",
        fill(
            raw(TensorType::INT64, &[2]).constant_i64(&[2, 3]),
            TensorSpec::int8(&[], 0.1, -3),
            TensorSpec::int8(&[2, 3], 0.1, -3),
        ),
    );
    s.accepted(
        "fill_float32_int16_dims",
        fill(
            raw(TensorType::INT16, &[3]).constant(vec![1, 0, 4, 0, 2, 0]),
            TensorSpec::f32(&[]),
            TensorSpec::f32(&[1, 4, 2]),
        ),
    );
    s.refused(
        "fill_value_not_a_scalar",
        fill(
            TensorSpec::int32(&[1]).constant_i32(&[4]),
            TensorSpec::f32(&[1]),
            TensorSpec::f32(&[4]),
        ),
        Refusal::Invalid,
        "not a scalar",
    );
    s.refused(
        "fill_int16_value",
        fill(
            TensorSpec::int32(&[1]).constant_i32(&[4]),
            raw(TensorType::INT16, &[]),
            raw(TensorType::INT16, &[4]),
        ),
        Refusal::Invalid,
        "TFLM's FILL takes",
    );
    s.refused(
        "fill_dims_not_the_output_shape",
        fill(
            TensorSpec::int32(&[2]).constant_i32(&[2, 3]),
            TensorSpec::f32(&[]),
            TensorSpec::f32(&[3, 2]),
        ),
        Refusal::Invalid,
        "not the output's shape",
    );
    s.refused(
        "fill_dims_at_run_time",
        fill(
            TensorSpec::int32(&[2]),
            TensorSpec::f32(&[]),
            TensorSpec::f32(&[3, 2]),
        ),
        Refusal::Invalid,
        "computed at run time",
    );
    // BROADCAST_TO of BOOL (TFLM moves any type's bytes) to a higher rank, and what its Prepare
    // refuses.
    let broadcast_to = |input: TensorSpec, shape: TensorSpec, output: TensorSpec| {
        ModelSpec::single_op(
            B::BROADCAST_TO,
            Options::None,
            vec![input, shape],
            vec![output],
        )
    };
    s.accepted(
        "broadcast_to_bool_int64_shape",
        broadcast_to(
            raw(TensorType::BOOL, &[2, 1, 3]),
            raw(TensorType::INT64, &[4]).constant_i64(&[2, 2, 4, 3]),
            raw(TensorType::BOOL, &[2, 2, 4, 3]),
        ),
    );
    s.refused(
        "broadcast_to_not_broadcastable",
        broadcast_to(
            TensorSpec::f32(&[2, 3]),
            TensorSpec::int32(&[2]).constant_i32(&[4, 3]),
            TensorSpec::f32(&[4, 3]),
        ),
        Refusal::Invalid,
        "do not broadcast",
    );
    s.refused(
        "broadcast_to_shape_at_run_time",
        broadcast_to(
            TensorSpec::f32(&[1, 3]),
            TensorSpec::int32(&[2]),
            TensorSpec::f32(&[4, 3]),
        ),
        Refusal::Invalid,
        "computed at run time",
    );
    s.refused(
        "broadcast_to_rank_6",
        broadcast_to(
            TensorSpec::f32(&[1, 3]),
            TensorSpec::int32(&[6]).constant_i32(&[1, 1, 1, 1, 2, 3]),
            TensorSpec::f32(&[1, 1, 1, 1, 2, 3]),
        ),
        Refusal::Invalid,
        "up to 5 dimensions",
    );
    // SELECT_V2: a constant y (read from flash) with a broadcast condition, and one element in
    // each of four shapes (TFLM's "mixed scalar" case, no broadcast check).
    let select = |c: TensorSpec, x: TensorSpec, y: TensorSpec, out: TensorSpec| {
        ModelSpec::single_op(B::SELECT_V2, Options::None, vec![c, x, y], vec![out])
    };
    let values: Vec<f32> = (0..12).map(|i| i as f32 * 0.25 - 1.0).collect();
    s.accepted(
        "select_v2_constant_y",
        select(
            raw(TensorType::BOOL, &[4]),
            TensorSpec::f32(&[3, 1]),
            TensorSpec::f32(&[3, 4]).constant_f32(&values),
            TensorSpec::f32(&[3, 4]),
        ),
    );
    s.accepted(
        "select_v2_mixed_scalars",
        select(
            raw(TensorType::BOOL, &[]),
            TensorSpec::int8(&[1], 0.1, 2),
            TensorSpec::int8(&[1, 1], 0.1, 2),
            TensorSpec::int8(&[1, 1, 1], 0.1, 2),
        ),
    );
    s.refused(
        "select_v2_int32",
        select(
            raw(TensorType::BOOL, &[4]),
            raw(TensorType::INT32, &[4]),
            raw(TensorType::INT32, &[4]),
            raw(TensorType::INT32, &[4]),
        ),
        Refusal::Invalid,
        "TFLM's SELECT_V2 takes",
    );
    s.refused(
        "select_v2_float_condition",
        select(
            TensorSpec::f32(&[4]),
            TensorSpec::f32(&[4]),
            TensorSpec::f32(&[4]),
            TensorSpec::f32(&[4]),
        ),
        Refusal::Invalid,
        "TFLM takes BOOL",
    );
    s.refused(
        "select_v2_not_broadcastable",
        select(
            raw(TensorType::BOOL, &[3]),
            TensorSpec::f32(&[2, 4]),
            TensorSpec::f32(&[1]),
            TensorSpec::f32(&[2, 4]),
        ),
        Refusal::Invalid,
        "do not broadcast",
    );
    // GATHER_ND: TFLM checks only where each slice starts in the flat input, so an index past
    // its dimension that stays inside the input is accepted (row 1, column 1 of a 3x4 input
    // read as [0, 5]); a slice outside the input is refused.
    let gather_nd = |input: TensorSpec, indices: TensorSpec, out: TensorSpec| {
        ModelSpec::single_op(B::GATHER_ND, Options::None, vec![input, indices], vec![out])
    };
    s.accepted(
        "gather_nd_index_past_its_dimension",
        gather_nd(
            TensorSpec::f32(&[3, 4]),
            TensorSpec::int32(&[2, 2]).constant_i32(&[0, 5, 2, 3]),
            TensorSpec::f32(&[2]),
        ),
    );
    s.refused(
        "gather_nd_slice_outside_the_input",
        gather_nd(
            TensorSpec::f32(&[3, 4]),
            TensorSpec::int32(&[1, 1]).constant_i32(&[3]),
            TensorSpec::f32(&[1, 4]),
        ),
        Refusal::Invalid,
        "outside the input",
    );
    s.refused(
        "gather_nd_int16_input",
        gather_nd(
            raw(TensorType::INT16, &[3, 4]),
            TensorSpec::int32(&[1, 1]).constant_i32(&[1]),
            raw(TensorType::INT16, &[1, 4]),
        ),
        Refusal::Invalid,
        "TFLM's GATHER_ND takes",
    );
    s.refused(
        "gather_nd_int64_indices",
        gather_nd(
            TensorSpec::f32(&[3, 4]),
            raw(TensorType::INT64, &[1, 1]).constant_i64(&[1]),
            TensorSpec::f32(&[1, 4]),
        ),
        Refusal::Invalid,
        "INT32 indices",
    );
    s.refused(
        "gather_nd_index_longer_than_the_rank",
        gather_nd(
            TensorSpec::f32(&[3, 4]),
            TensorSpec::int32(&[1, 3]).constant_i32(&[0, 0, 0]),
            TensorSpec::f32(&[1]),
        ),
        Refusal::Invalid,
        "index vectors of at most",
    );
}

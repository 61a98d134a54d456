//! The corners of issue 35's comparison, logical and rounding operators (EQUAL, NOT_EQUAL,
//! GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT, FLOOR_DIV,
//! FLOOR_MOD, CEIL, ROUND): the types no converter-made fixture has (bool, int32, int64 inputs),
//! what TFLM's kernels refuse or leave undefined, and the inputs they treat specially.

use super::builders::int16;
use super::{Category, Refusal, Suite};
use crate::{BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

/// An unquantized tensor of `dtype` and `shape`.
fn raw(dtype: TensorType, shape: &[i32]) -> TensorSpec {
    TensorSpec::new(dtype, shape)
}

/// A BOOL constant of `shape` holding `values` (0 or 1).
fn bools(shape: &[i32], values: &[u8]) -> TensorSpec {
    raw(TensorType::BOOL, shape).constant(values.to_vec())
}

/// `op` of two inputs with a BOOL output of `out` elements' shape.
fn comparison(op: B, a: TensorSpec, b: TensorSpec, out: &[i32]) -> ModelSpec {
    ModelSpec::single_op(
        op,
        Options::None,
        vec![a, b],
        vec![raw(TensorType::BOOL, out)],
    )
}

/// The cases, appended to `cases`.
pub(super) fn logic(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // Every comparison on INT32 (broadcast against a lower-rank input) and on INT64 (against a
    // constant beyond 32 bits and 0).
    let orders = [
        ("equal", B::EQUAL),
        ("not_equal", B::NOT_EQUAL),
        ("greater", B::GREATER),
        ("greater_equal", B::GREATER_EQUAL),
        ("less", B::LESS),
        ("less_equal", B::LESS_EQUAL),
    ];
    for (name, op) in orders {
        s.accepted(
            &format!("{name}_int32_broadcast"),
            comparison(
                op,
                TensorSpec::int32(&[2, 3, 4]),
                TensorSpec::int32(&[3, 1]),
                &[2, 3, 4],
            ),
        );
        s.accepted(
            &format!("{name}_int64_constant"),
            comparison(
                op,
                raw(TensorType::INT64, &[2, 3]),
                raw(TensorType::INT64, &[3]).constant_i64(&[-5_000_000_000, 0, 5_000_000_000]),
                &[2, 3],
            ),
        );
    }
    // EQUAL and NOT_EQUAL of BOOL: an input against a constant of both values, broadcast.
    for (name, op) in [("equal", B::EQUAL), ("not_equal", B::NOT_EQUAL)] {
        s.accepted(
            &format!("{name}_bool_constant_broadcast"),
            comparison(
                op,
                raw(TensorType::BOOL, &[2, 4]),
                bools(&[4], &[1, 0, 0, 1]),
                &[2, 4],
            ),
        );
    }
    // int8 NOT_EQUAL and GREATER of inputs of different scales and zero points: each rescaled
    // by TFLM's ComparisonWithScaling, rounding as it does, scalar broadcast; a scale so small
    // that its multiplier is 0 (every value rescales to 0: all equal).
    s.accepted(
        "not_equal_int8_rescaled",
        comparison(
            B::NOT_EQUAL,
            TensorSpec::int8(&[3, 8], 0.0123, -5),
            TensorSpec::int8(&[3, 8], 0.0456, 17),
            &[3, 8],
        ),
    );
    s.accepted(
        "greater_int8_scalar",
        comparison(
            B::GREATER,
            TensorSpec::int8(&[], 0.5, 3),
            TensorSpec::int8(&[2, 5], 0.003, -100),
            &[2, 5],
        ),
    );
    s.accepted(
        "equal_int8_tiny_scale",
        comparison(
            B::EQUAL,
            TensorSpec::int8(&[6], 1e-12, 0),
            TensorSpec::int8(&[6], 1e-12, 7),
            &[6],
        ),
    );
    // LOGICAL_AND and LOGICAL_OR broadcast against a constant; LOGICAL_NOT of an input.
    for (name, op) in [
        ("logical_and", B::LOGICAL_AND),
        ("logical_or", B::LOGICAL_OR),
    ] {
        s.accepted(
            &format!("{name}_constant_broadcast"),
            ModelSpec::single_op(
                op,
                Options::None,
                vec![
                    bools(&[3, 1], &[1, 0, 1]),
                    raw(TensorType::BOOL, &[2, 1, 4]),
                ],
                vec![raw(TensorType::BOOL, &[2, 3, 4])],
            ),
        );
    }
    s.accepted(
        "logical_not_rank5",
        ModelSpec::single_op(
            B::LOGICAL_NOT,
            Options::None,
            vec![raw(TensorType::BOOL, &[1, 2, 1, 3, 2])],
            vec![raw(TensorType::BOOL, &[1, 2, 1, 3, 2])],
        ),
    );
    // FLOOR_MOD by a constant holding zeros (TFLM gives NaN there; only FLOOR_DIV fails) and
    // both signs; FLOOR_DIV by a negative constant, broadcast.
    s.accepted(
        "floor_mod_constant_zero_divisor",
        ModelSpec::single_op(
            B::FLOOR_MOD,
            Options::None,
            vec![
                TensorSpec::f32(&[2, 4]),
                TensorSpec::f32(&[4]).constant_f32(&[0.0, -0.25, 0.3, -0.0]),
            ],
            vec![TensorSpec::f32(&[2, 4])],
        ),
    );
    s.accepted(
        "floor_div_constant_broadcast",
        ModelSpec::single_op(
            B::FLOOR_DIV,
            Options::None,
            vec![
                TensorSpec::f32(&[2, 3, 2]),
                TensorSpec::f32(&[3, 1]).constant_f32(&[-0.25, 0.125, -3.0]),
            ],
            vec![TensorSpec::f32(&[2, 3, 2])],
        ),
    );

    s.category = Category::TypesAndParameters;
    s.refused(
        "greater_int16",
        comparison(
            B::GREATER,
            int16(&[2, 4], (0.01, 0)),
            int16(&[2, 4], (0.02, 0)),
            &[2, 4],
        ),
        Refusal::Invalid,
        "Prepare never sets",
    );
    s.refused(
        "equal_int16",
        comparison(
            B::EQUAL,
            int16(&[2, 4], (0.01, 0)),
            int16(&[2, 4], (0.01, 0)),
            &[2, 4],
        ),
        Refusal::Invalid,
        "TFLM's kernel compares BOOL",
    );
    s.refused(
        "less_bool",
        comparison(
            B::LESS,
            raw(TensorType::BOOL, &[4]),
            raw(TensorType::BOOL, &[4]),
            &[4],
        ),
        Refusal::Invalid,
        "TFLM's kernel compares FLOAT32",
    );
    s.refused(
        "greater_equal_int8_scale_one",
        comparison(
            B::GREATER_EQUAL,
            TensorSpec::int8(&[4], 1.0, 0),
            TensorSpec::int8(&[4], 0.5, 0),
            &[4],
        ),
        Refusal::Invalid,
        "is not below 1",
    );
    s.refused(
        "less_equal_int8_output",
        ModelSpec::single_op(
            B::LESS_EQUAL,
            Options::None,
            vec![TensorSpec::f32(&[4]), TensorSpec::f32(&[4])],
            vec![TensorSpec::int8(&[4], 1.0, 0)],
        ),
        Refusal::Invalid,
        "the output",
    );
    s.refused(
        "not_equal_mixed_types",
        comparison(
            B::NOT_EQUAL,
            TensorSpec::f32(&[4]),
            TensorSpec::int32(&[4]),
            &[4],
        ),
        Refusal::Invalid,
        "input 2",
    );
    s.refused(
        "logical_and_int8",
        ModelSpec::single_op(
            B::LOGICAL_AND,
            Options::None,
            vec![
                TensorSpec::int8(&[4], 1.0, 0),
                TensorSpec::int8(&[4], 1.0, 0),
            ],
            vec![TensorSpec::int8(&[4], 1.0, 0)],
        ),
        Refusal::Invalid,
        "TFLM's kernel reads BOOL",
    );
    s.refused(
        "logical_not_float",
        ModelSpec::single_op(
            B::LOGICAL_NOT,
            Options::None,
            vec![TensorSpec::f32(&[4])],
            vec![TensorSpec::f32(&[4])],
        ),
        Refusal::Invalid,
        "takes BOOL only",
    );
    s.refused(
        "floor_div_constant_zero_divisor",
        ModelSpec::single_op(
            B::FLOOR_DIV,
            Options::None,
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::f32(&[3]).constant_f32(&[1.0, -0.0, 2.0]),
            ],
            vec![TensorSpec::f32(&[2, 3])],
        ),
        Refusal::Invalid,
        "Division by 0",
    );
    for (name, op) in [
        ("floor_div_int32", B::FLOOR_DIV),
        ("floor_mod_int32", B::FLOOR_MOD),
    ] {
        s.refused(
            name,
            ModelSpec::single_op(
                op,
                Options::None,
                vec![TensorSpec::int32(&[4]), TensorSpec::int32(&[4])],
                vec![TensorSpec::int32(&[4])],
            ),
            Refusal::Invalid,
            "supports FLOAT32 only",
        );
    }
    for (name, op) in [("ceil_int8", B::CEIL), ("round_int8", B::ROUND)] {
        s.refused(
            name,
            ModelSpec::single_op(
                op,
                Options::None,
                vec![TensorSpec::int8(&[4], 0.5, 0)],
                vec![TensorSpec::int8(&[4], 0.5, 0)],
            ),
            Refusal::Invalid,
            "takes FLOAT32 only",
        );
    }
}

//! The corners of issue 34's matrix and normalization operators (L2_POOL_2D, L2_NORMALIZATION,
//! int8 LOG_SOFTMAX, BATCH_MATMUL): what TFLM's Prepare refuses, and the shapes it treats
//! specially.

use super::builders::int16;
use super::{Category, Refusal, Suite};
use crate::{Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec};

/// BATCH_MATMUL of `lhs` by `rhs` into `out`, plain.
fn matmul(lhs: TensorSpec, rhs: TensorSpec, out: TensorSpec) -> ModelSpec {
    ModelSpec::single_op(
        B::BATCH_MATMUL,
        Options::BatchMatMul {
            adj_x: false,
            adj_y: false,
        },
        vec![lhs, rhs],
        vec![out],
    )
}

/// The cases, appended to `cases`.
pub(super) fn matmul_corners(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // ReshapeOutputTensor keeps any output of the right element count and at least the result's
    // rank: TFLM writes the [2, 3, 5] product into a [2, 1, 3, 5] tensor.
    s.accepted(
        "batch_matmul_int8_output_rank4",
        matmul(
            TensorSpec::int8(&[2, 3, 4], 0.02, -5),
            TensorSpec::int8(&[2, 4, 5], 0.03, 7),
            TensorSpec::int8(&[2, 1, 3, 5], 0.01, 3),
        ),
    );
    // Rank 5 with every batch dimension broadcast one way or the other.
    s.accepted(
        "batch_matmul_float_rank5_broadcast",
        ModelSpec::single_op(
            B::BATCH_MATMUL,
            Options::BatchMatMul {
                adj_x: true,
                adj_y: false,
            },
            vec![
                TensorSpec::f32(&[2, 1, 3, 4, 2]),
                TensorSpec::f32(&[1, 2, 1, 4, 3]),
            ],
            vec![TensorSpec::f32(&[2, 2, 3, 2, 3])],
        ),
    );
    // A wide int8 LOG_SOFTMAX row (many terms of the Q12.19 sum).
    s.accepted(
        "log_softmax_int8_wide_row",
        ModelSpec::single_op(
            B::LOG_SOFTMAX,
            Options::None,
            vec![TensorSpec::int8(&[2, 300], 0.05, 10)],
            vec![TensorSpec::int8(&[2, 300], 16.0 / 256.0, 127)],
        ),
    );
    s.category = Category::TypesAndParameters;
    // log_softmax.cc CalculateOpData: the int8 output is in scale 16/256, zero point 127.
    s.refused(
        "log_softmax_int8_output_scale",
        ModelSpec::single_op(
            B::LOG_SOFTMAX,
            Options::None,
            vec![TensorSpec::int8(&[1, 10], 0.05, 0)],
            vec![TensorSpec::int8(&[1, 10], 0.1, 127)],
        ),
        Refusal::Invalid,
        "16/256",
    );
    // BatchMatMulPrepare: int16 zero points 0; batch dimensions that broadcast; ranks 2 to 5.
    s.refused(
        "batch_matmul_int16_zero_point",
        matmul(
            int16(&[2, 3, 4], (0.001, 5)),
            int16(&[2, 4, 5], (0.001, 0)),
            int16(&[2, 3, 5], (0.01, 0)),
        ),
        Refusal::Invalid,
        "zero points",
    );
    s.refused(
        "batch_matmul_batches_differ",
        matmul(
            TensorSpec::f32(&[2, 3, 4]),
            TensorSpec::f32(&[3, 4, 5]),
            TensorSpec::f32(&[2, 3, 5]),
        ),
        Refusal::Invalid,
        "broadcast",
    );
    s.refused(
        "batch_matmul_depths_differ",
        matmul(
            TensorSpec::f32(&[3, 4]),
            TensorSpec::f32(&[5, 2]),
            TensorSpec::f32(&[3, 2]),
        ),
        Refusal::Invalid,
        "sums over",
    );
    s.refused(
        "batch_matmul_rank6",
        matmul(
            TensorSpec::f32(&[1, 1, 1, 1, 3, 4]),
            TensorSpec::f32(&[4, 5]),
            TensorSpec::f32(&[1, 1, 1, 1, 3, 5]),
        ),
        Refusal::Invalid,
        "ranks 2 to 5",
    );
    // L2Prepare writes the output's dims from its own output size.
    s.refused(
        "l2_pool_output_dims",
        ModelSpec::single_op(
            B::L2_POOL_2D,
            Options::pool(Padding::VALID, (2, 2), (2, 2), Activation::NONE),
            vec![TensorSpec::f32(&[1, 6, 6, 2])],
            vec![TensorSpec::f32(&[1, 2, 4, 2])],
        ),
        Refusal::Invalid,
        "L2Prepare",
    );
    // TFLM's L2_POOL_2D is float32 only; L2_NORMALIZATION takes rank 4 at most.
    s.refused(
        "l2_pool_int8",
        ModelSpec::single_op(
            B::L2_POOL_2D,
            Options::pool(Padding::VALID, (2, 2), (2, 2), Activation::NONE),
            vec![TensorSpec::int8(&[1, 4, 4, 2], 0.1, 0)],
            vec![TensorSpec::int8(&[1, 2, 2, 2], 0.1, 0)],
        ),
        Refusal::Invalid,
        "INT8",
    );
    s.refused(
        "l2_norm_rank5",
        ModelSpec::single_op(
            B::L2_NORMALIZATION,
            Options::None,
            vec![TensorSpec::f32(&[1, 2, 2, 2, 3])],
            vec![TensorSpec::f32(&[1, 2, 2, 2, 3])],
        ),
        Refusal::Invalid,
        "rank 5",
    );
}

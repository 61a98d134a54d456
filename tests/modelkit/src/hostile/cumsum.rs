//! The corners of issue 35's CUMSUM: what TFLM's cumsum.cc refuses, the int8 lines at the edge of
//! TFLM's int32 running sum, and the shapes and options no converter-made fixture has.

use super::{Category, Refusal, Suite};
use crate::{BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

/// A CUMSUM of `input` along the constant tensor `axis`, written to `output`.
fn cumsum(
    input: TensorSpec,
    axis: TensorSpec,
    output: TensorSpec,
    exclusive: bool,
    reverse: bool,
) -> ModelSpec {
    ModelSpec::single_op(
        B::CUMSUM,
        Options::Cumsum { exclusive, reverse },
        vec![input, axis],
        vec![output],
    )
}

/// A constant INT32 axis tensor of one element.
fn axis(value: i32) -> TensorSpec {
    TensorSpec::int32(&[1]).constant_i32(&[value])
}

/// The cases, appended to `cases`.
pub(super) fn cumsum_corners(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // int8 with the input zero point at -128: each element adds (x + 128) · 2^19 to a sum that
    // starts at 128 · 2^19 (TFLM's accumulator starts at the offset), so 15 elements of 127 are
    // the most that fit int32; exclusive and reversed, the first output is that start rescaled.
    s.accepted(
        "cumsum_int8_longest_line_exclusive_reverse",
        cumsum(
            TensorSpec::int8(&[2, 15], 0.02, -128),
            axis(-1),
            TensorSpec::int8(&[2, 15], 0.3, 40),
            true,
            true,
        ),
    );
    // Along the first axis of a rank-1 float input, exclusive (the first output 0.0), and along
    // a middle axis of length 1 (each output its input, or 0.0 when exclusive).
    s.accepted(
        "cumsum_float_rank1_exclusive",
        cumsum(
            TensorSpec::f32(&[9]),
            axis(0),
            TensorSpec::f32(&[9]),
            true,
            false,
        ),
    );
    s.accepted(
        "cumsum_int8_axis_of_one_reverse",
        cumsum(
            TensorSpec::int8(&[3, 1, 4], 0.05, 9),
            axis(-2),
            TensorSpec::int8(&[3, 1, 4], 0.04, -20),
            false,
            true,
        ),
    );
    s.category = Category::TypesAndParameters;
    // One element more than the longest line: the int32 sum can overflow (undefined in TFLM).
    s.refused(
        "cumsum_int8_line_overflows",
        cumsum(
            TensorSpec::int8(&[16], 0.02, -128),
            axis(0),
            TensorSpec::int8(&[16], 0.3, 40),
            false,
            false,
        ),
        Refusal::Invalid,
        "can overflow",
    );
    // TFLM's CalculateOpData: an INT32 axis of exactly one element, rank 1 or more.
    s.refused(
        "cumsum_axis_int64",
        cumsum(
            TensorSpec::f32(&[2, 3]),
            TensorSpec::new(TensorType::INT64, &[1]).constant_i64(&[1]),
            TensorSpec::f32(&[2, 3]),
            false,
            false,
        ),
        Refusal::Invalid,
        "INT32",
    );
    s.refused(
        "cumsum_axis_two_elements",
        cumsum(
            TensorSpec::f32(&[2, 3]),
            TensorSpec::int32(&[2]).constant_i32(&[0, 1]),
            TensorSpec::f32(&[2, 3]),
            false,
            false,
        ),
        Refusal::Invalid,
        "exactly one",
    );
    s.refused(
        "cumsum_scalar",
        cumsum(
            TensorSpec::f32(&[]),
            axis(0),
            TensorSpec::f32(&[]),
            false,
            false,
        ),
        Refusal::Invalid,
        "rank 1",
    );
    // TFLM's Eval: "CUMSUM Invalid axis" once the rank is added to a negative one.
    s.refused(
        "cumsum_axis_out_of_range",
        cumsum(
            TensorSpec::int8(&[2, 3], 0.05, 0),
            axis(-3),
            TensorSpec::int8(&[2, 3], 0.1, 0),
            false,
            false,
        ),
        Refusal::Invalid,
        "out of range",
    );
    // An axis computed at run time is compiled (registry_types.rs's
    // cumsum_axis_at_run_time: TFLM's Eval reads it per call, as cumsum_dyn does).
    // TFLM's CUMSUM takes float32 and int8 only (CalculateOpData's TF_LITE_ENSURE).
    s.refused(
        "cumsum_int16",
        cumsum(
            TensorSpec::new(TensorType::INT16, &[2, 3]).quant(0.01, 0),
            axis(1),
            TensorSpec::new(TensorType::INT16, &[2, 3]).quant(0.02, 0),
            false,
            false,
        ),
        Refusal::Invalid,
        "INT16",
    );
}

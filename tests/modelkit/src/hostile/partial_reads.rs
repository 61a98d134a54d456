//! [`Category::LegitimateCorners`] where TFLM reads only part of an operand, because its kernels
//! take their extents from another tensor and check the operand's shape only with
//! `TFLITE_DCHECK` (or not at all): a longer FULLY_CONNECTED input, a DEPTHWISE_CONV_2D filter of
//! several slices, STRIDED_SLICE and SLICE operands longer than the input's rank. TFLM runs
//! them, so they are accepted and must match it; an operand too short for what is read stays
//! refused.
//! Also the STRIDED_SLICE `offset` option, which TFLM does not apply, SLICE's INT64 begin and
//! size, which it narrows to int32, and SLICE's begin and size computed at run time.

use super::builders::{control, fc16, fc8, strided_slice_of, with, Control};
use super::{Case, Category, Refusal, Suite};
use crate::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
    WeightsFormat,
};

pub(super) fn partial_reads(cases: &mut Vec<Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // FULLY_CONNECTED takes its batches from the output: 2 rows of 8 from an input of 19
    // values (the last 3 unread), and with keep_num_dims an input whose last dimension is not
    // the depth (TFLM does not apply the option's shape rule).
    s.accepted(
        "fully_connected_input_longer_than_its_rows",
        fully_connected(&[1, 19], &[2, 4], false),
    );
    s.accepted(
        "fully_connected_keep_num_dims_input_of_other_rows",
        fully_connected(&[2, 2, 4], &[2, 4], true),
    );
    s.accepted(
        "fully_connected_keep_num_dims_output_not_kept",
        fully_connected(&[1, 1, 8], &[1, 4], true),
    );
    s.refused(
        "fully_connected_input_shorter_than_its_rows",
        fully_connected(&[1, 15], &[2, 4], false),
        Refusal::Invalid,
        "fewer than the 2 rows of 8",
    );
    // An int8 or int16 FULLY_CONNECTED output of fewer units than the weights have: TFLM's
    // integer kernels take the output's count and compute the first ones (the float kernel
    // takes the weights', so there it stays refused).
    s.accepted(
        "fully_connected_output_of_the_first_units",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.tensors[3].shape = Some(vec![1, 3])
        }),
    );
    for (name, bias) in [
        (
            "fully_connected_int16_output_of_the_first_units",
            TensorType::INT64,
        ),
        (
            "fully_connected_int16_int32_bias_output_of_the_first_units",
            TensorType::INT32,
        ),
    ] {
        s.accepted(
            name,
            with(fc16(bias), |m| m.tensors[3].shape = Some(vec![16, 2])),
        );
    }
    s.refused(
        "fully_connected_float_output_of_the_first_units",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.tensors[0] = TensorSpec::f32(&[1, 8]);
            m.tensors[1] = TensorSpec::f32(&[4, 8]).constant_f32(&[0.5; 32]);
            m.tensors[2] = TensorSpec::f32(&[4]).constant_f32(&[1.0; 4]);
            m.tensors[3] = TensorSpec::f32(&[1, 3]);
        }),
        Refusal::Invalid,
        "does not end in the weights' 4 units",
    );
    // DEPTHWISE_CONV_2D with a filter [2, 3, 3, 4]: TFLM reads the first slice only.
    s.accepted("depthwise_filter_of_two_slices", depthwise_two_slices());
    // STRIDED_SLICE with one more begin/end/strides value than the input has dimensions (TFLM
    // reads the first two of each), and with `offset` set (TFLM leaves it off: end is not
    // relative to begin, so [0:2, 1:3] rather than [0:2, 1:4]).
    s.accepted(
        "strided_slice_begin_end_strides_longer_than_rank",
        strided_slice(&[0, 1, 5], &[2, 3, 7], false),
    );
    s.accepted(
        "strided_slice_offset_not_applied",
        strided_slice(&[0, 1], &[2, 3], true),
    );
    // SLICE with begin/size longer than the rank (TFLM reads the first two of each), and with
    // INT64 values that TFLM narrows to their low 32 bits (2^32 + 1 is begin 1).
    s.accepted(
        "slice_begin_size_longer_than_rank",
        slice(
            TensorSpec::int32(&[3]).constant_i32(&[1, 1, 9]),
            TensorSpec::int32(&[3]).constant_i32(&[2, -1, 9]),
        ),
    );
    s.accepted(
        "slice_int64_begin_narrowed_as_tflm_narrows_it",
        slice(
            TensorSpec::new(TensorType::INT64, &[2]).constant_i64(&[1, (1 << 32) + 1]),
            TensorSpec::new(TensorType::INT64, &[2]).constant_i64(&[2, 3]),
        ),
    );
    slice_at_run_time(&mut s);
}

/// SLICE of `input` (a graph input, or a constant if it has data) into `output` with begin and
/// size built by [`control`].
fn slice_of(input: TensorSpec, begin: Control<'_>, size: Control<'_>, output: TensorSpec) -> ModelSpec {
    let mut m = ModelSpec::new();
    let rank = input.shape.as_ref().map_or(0, |s| s.len()) as i32;
    let constant = !input.is_activation();
    let x = m.tensor(input);
    if !constant {
        m.inputs.push(x);
    }
    let begin = control(&mut m, begin, &[rank]);
    let size = control(&mut m, size, &[rank]);
    let out = m.tensor(output);
    m.outputs = vec![out];
    m.op(B::SLICE, Options::Slice, &[x, begin, size], &[out]);
    m
}

/// SLICE whose begin or size is computed at run time (issue 32): TFLM's `SlicePrepare` checks
/// them only by `TFLITE_DCHECK` and `SliceEval` reads their values per call, so tinyaot's
/// `slice_dyn` does. Each value stays where the slice is the output's shape and inside the input
/// whatever the graph inputs are (a size the output was not made for leaves TFLM's output partly
/// unwritten); the begins vary per case. One corner per type TFLM's Eval moves.
fn slice_at_run_time(s: &mut Suite<'_>) {
    let clamped = |bounds| Control::Clamped {
        wide: false,
        bounds,
    };
    // float32, begin and size both INT32 graph inputs: begins in [0, 1], 2 (its size -1: to
    // the end) and [0, 2].
    s.accepted(
        "slice_begin_size_computed",
        slice_of(
            TensorSpec::f32(&[3, 4, 5]),
            clamped(&[(0, 1), (2, 2), (0, 2)]),
            clamped(&[(2, 2), (-1, -1), (3, 3)]),
            TensorSpec::f32(&[2, 2, 3]),
        ),
    );
    // int8, INT64 begin clamped past int32 (TFLM narrows 2^32 + 1 to 1), a constant size.
    s.accepted(
        "slice_int64_begin_computed_int8",
        slice_of(
            TensorSpec::int8(&[2, 3, 4, 2], 0.1, -5),
            Control::Clamped {
                wide: true,
                bounds: &[(0, 1), (1 << 32, (1 << 32) + 1), (1, 2), (0, 0)],
            },
            Control::Constant64(&[1, 2, 2, -1]),
            TensorSpec::int8(&[1, 2, 2, 2], 0.1, -5),
        ),
    );
    // int16, a constant begin and a size computed at run time.
    s.accepted(
        "slice_size_computed_int16",
        slice_of(
            TensorSpec::new(TensorType::INT16, &[4, 6]),
            Control::Constant(&[1, 2]),
            clamped(&[(3, 3), (-1, -1)]),
            TensorSpec::new(TensorType::INT16, &[3, 4]),
        ),
    );
    // int32 of a constant input (read where it is), begin CAST(x * 1.99) + 1 in [0, 2].
    s.accepted(
        "slice_begin_computed_int32_constant_input",
        slice_of(
            TensorSpec::int32(&[5, 4]).constant_i32(&(0..20).map(|v| v * 7 - 70).collect::<Vec<_>>()),
            Control::CastOf {
                scale: 1.99,
                offsets: &[1, 1],
            },
            Control::Constant(&[3, 2]),
            TensorSpec::int32(&[3, 2]),
        ),
    );
    // BOOL of rank 5, begins in [0, 1] and [0, 2].
    s.accepted(
        "slice_begin_computed_bool_rank5",
        slice_of(
            TensorSpec::new(TensorType::BOOL, &[2, 1, 3, 2, 4]),
            clamped(&[(0, 1), (0, 0), (0, 1), (0, 0), (0, 2)]),
            Control::Constant(&[1, -1, 2, 2, 2]),
            TensorSpec::new(TensorType::BOOL, &[1, 1, 2, 2, 2]),
        ),
    );
}

/// float32 SLICE of a [3, 4] input into [2, 3] with the given begin and size tensors.
fn slice(begin: TensorSpec, size: TensorSpec) -> ModelSpec {
    ModelSpec::single_op(
        B::SLICE,
        Options::Slice,
        vec![TensorSpec::f32(&[3, 4]), begin, size],
        vec![TensorSpec::f32(&[2, 3])],
    )
}

/// int8 FULLY_CONNECTED with per-tensor weights [4, 8] and a bias, from `input` to `output`.
fn fully_connected(input: &[i32], output: &[i32], keep_num_dims: bool) -> ModelSpec {
    let weights: Vec<i8> = (0..32).map(|i| ((i * 37) % 255 - 127) as i8).collect();
    ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::FullyConnected {
            activation: Activation::NONE,
            weights_format: WeightsFormat::DEFAULT,
            keep_num_dims,
        },
        vec![
            TensorSpec::int8(input, 0.05, 3),
            TensorSpec::int8(&[4, 8], 0.01, 0).constant_i8(&weights),
            TensorSpec::int32(&[4])
                .quant(0.0005, 0)
                .constant_i32(&[100, -100, 7, 0]),
        ],
        vec![TensorSpec::int8(output, 0.1, -2)],
    )
}

/// int8 DEPTHWISE_CONV_2D: input [1, 4, 5, 2], filter [2, 3, 3, 4] (depth multiplier 2, the
/// second slice other values than the first), bias [4], output [1, 2, 3, 4], VALID.
fn depthwise_two_slices() -> ModelSpec {
    let filter: Vec<i8> = (0..72).map(|i| ((i * 53) % 255 - 127) as i8).collect();
    ModelSpec::single_op(
        B::DEPTHWISE_CONV_2D,
        Options::depthwise(Padding::VALID, (1, 1), 2, Activation::NONE),
        vec![
            TensorSpec::int8(&[1, 4, 5, 2], 0.05, -1),
            TensorSpec::int8(&[2, 3, 3, 4], 0.02, 0).constant_i8(&filter),
            TensorSpec::int32(&[4])
                .quant(0.001, 0)
                .constant_i32(&[500, -500, 7, 0]),
        ],
        vec![TensorSpec::int8(&[1, 2, 3, 4], 0.2, 4)],
    )
}

/// int8 STRIDED_SLICE of a [3, 4] input with stride 1 into [2, 2].
fn strided_slice(begin: &[i32], end: &[i32], offset: bool) -> ModelSpec {
    strided_slice_of(
        TensorSpec::int8(&[3, 4], 0.5, 1),
        (begin, end, &vec![1; begin.len()]),
        TensorSpec::int8(&[2, 2], 0.5, 1),
        Options::StridedSlice {
            begin_mask: 0,
            end_mask: 0,
            ellipsis_mask: 0,
            new_axis_mask: 0,
            shrink_axis_mask: 0,
            offset,
        },
    )
}

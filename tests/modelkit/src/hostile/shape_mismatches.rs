//! Selections that take nothing, and operands whose shapes disagree with what the operator
//! computes, decided by what TFLM's kernel reads and writes: accepted where its result is
//! defined (and compiled to the same bytes), refused where it is undefined.
//!
//! STRIDED_SLICE's shrink axis: TFLM's reference `StridedSlice` loops from
//! `StridedSliceStartForAxis` to `StridedSliceEndForAxis`, which for a shrink axis is `start + 1`
//! (or `start` past the axis): past the axis, or with a negative stride (the loop runs while
//! `index > end`), it takes nothing, and a non-empty output is left unwritten.

use super::builders::strided_slice_of;
use super::{Case, Category, Refusal, Suite};
use crate::{Options, TensorSpec};

pub(super) fn shape_mismatches(cases: &mut Vec<Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // A shrink axis 0 of a [3, 4] input that selects nothing: begin past the axis, or a negative
    // stride (TFLM's loop stops before its first index). The output [4] is never written.
    s.refused(
        "strided_slice_shrink_axis_past_the_end",
        shrink_axis_0(5, 1, &[4]),
        Refusal::Invalid,
        "shrink axis 0 selects no element",
    );
    s.refused(
        "strided_slice_shrink_axis_negative_stride",
        shrink_axis_0(1, -1, &[4]),
        Refusal::Invalid,
        "shrink axis 0 selects no element",
    );
    // Into an empty output ([0]: axis 1 takes [2:2]), nothing is left unwritten: TFLM runs it.
    s.accepted(
        "strided_slice_shrink_axis_past_the_end_empty_output",
        strided_slice_of(
            TensorSpec::int8(&[3, 4], 0.5, 1),
            (&[5, 2], &[6, 2], &[1, 1]),
            TensorSpec::int8(&[0], 0.5, 1),
            masks(1),
        ),
    );
    // A 1-D slice that selects nothing ([3:1]) into the shape [0].
    s.accepted(
        "strided_slice_empty_selection",
        strided_slice_of(
            TensorSpec::f32(&[4]),
            (&[3], &[1], &[1]),
            TensorSpec::f32(&[0]),
            masks(0),
        ),
    );
}

/// STRIDED_SLICE options with only `shrink_axis_mask` set.
fn masks(shrink_axis_mask: i32) -> Options {
    Options::StridedSlice {
        begin_mask: 0,
        end_mask: 0,
        ellipsis_mask: 0,
        new_axis_mask: 0,
        shrink_axis_mask,
        offset: false,
    }
}

/// int8 STRIDED_SLICE of a [3, 4] input shrinking axis 0 at `begin` with `stride` (axis 1 whole)
/// into `output`.
fn shrink_axis_0(begin: i32, stride: i32, output: &[i32]) -> crate::ModelSpec {
    strided_slice_of(
        TensorSpec::int8(&[3, 4], 0.5, 1),
        (&[begin, 0], &[begin + 1, 4], &[stride, 1]),
        TensorSpec::int8(output, 0.5, 1),
        masks(1),
    )
}

//! Selections that take nothing, and operands whose shapes disagree with what the operator
//! computes, decided by what TFLM's kernel reads and writes: accepted where its result is
//! defined (and compiled to the same bytes), refused where it is undefined.
//!
//! STRIDED_SLICE's shrink axis: TFLM's reference `StridedSlice` loops from
//! `StridedSliceStartForAxis` to `StridedSliceEndForAxis`, which for a shrink axis is `start + 1`
//! (or `start` past the axis): past the axis, or with a negative stride (the loop runs while
//! `index > end`), it takes nothing, and a non-empty output is left unwritten.
//!
//! CONCATENATION's inputs: TFLM's reference `Concatenation` takes the rows and the inner size
//! from the output and only `Dims(axis)` from each input, checking the rest with
//! `TFLITE_DCHECK`: an input of a higher rank, or larger outside the axis, is read in part (its
//! first `rows × Dims(axis) × inner` elements, row by row); one of a lower rank has its shape read
//! past its rank, and one too small for what is read is read past its end.
//!
//! GATHER's and GATHER_ND's output: their `Prepare` copies the declared dimensions
//! (`CreateWritableTensorDimsWithCopy`) and overwrites them with the computed shape, which TFLM
//! then plans and every later operator reads; a computed shape of more dimensions than declared
//! is written past the copy's end.
//!
//! The binary operators with an output that is not the inputs' broadcast: TFLM runs ADD, SUB,
//! MUL, DIV, SQUARED_DIFFERENCE, FLOOR_DIV, FLOOR_MOD, MAXIMUM, MINIMUM, the comparisons and
//! LOGICAL_AND / LOGICAL_OR flat where the inputs' shapes are equal, and otherwise (the int8
//! PRELU always) with `BroadcastBinaryOpSimple`, whose loops come from the output's shape (and
//! its fusion of them); the float PRELU loops over it extended to 4 dimensions with
//! `NdArrayDesc` strides. An input is read in part, or past its end (undefined).

use super::builders::strided_slice_of;
use super::{Case, Category, Refusal, Suite};
use crate::{Activation, BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

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

    // CONCATENATION along axis 1 into [2, 5], input 0 beside a [2, 2] input: of rank 3
    // ([2, 3, 2]: TFLM reads two rows of 3 from its flat data, half of it), or larger outside
    // the axis ([3, 3]: its first 2 rows).
    s.accepted(
        "concatenation_input_of_higher_rank",
        concatenation(&[2, 3, 2], &[2, 5], 1),
    );
    s.accepted(
        "concatenation_input_larger_outside_the_axis",
        concatenation(&[3, 3], &[2, 5], 1),
    );
    // Along axis -1 of a rank-3 output, with input 0 of rank 4: the axis is the output's.
    s.accepted(
        "concatenation_negative_axis_input_of_higher_rank",
        concatenation(&[2, 1, 3, 2], &[2, 1, 5], -1),
    );
    s.refused(
        "concatenation_input_of_lower_rank",
        concatenation(&[2, 3], &[2, 5, 1], 1),
        Refusal::Invalid,
        "input 0 has rank 2, below the output's 3",
    );
    s.refused(
        "concatenation_input_of_too_few_rows",
        concatenation(&[1, 3], &[2, 5], 1),
        Refusal::Invalid,
        "fewer than the 2 rows of 3",
    );

    // GATHER of rows 3 and 1 of a [4, 3] input, declared [3, 2, 1]: TFLM makes it [2, 3], and a
    // second GATHER (column 2, declared [2, 1]) reads it so. GATHER_ND of rows 2 and 0 of a
    // [3, 4] input, declared [4, 2]: TFLM makes it [2, 4].
    s.accepted(
        "gather_output_declared_of_another_shape",
        gathers(&[3, 2, 1]),
    );
    s.accepted(
        "gather_nd_output_declared_of_another_shape",
        gather_nd(&[4, 2]),
    );
    s.refused(
        "gather_output_of_fewer_dimensions",
        gathers(&[6]),
        Refusal::Invalid,
        "of more dimensions than the 1 it declares",
    );
    s.refused(
        "gather_nd_output_of_fewer_dimensions",
        gather_nd(&[8]),
        Refusal::Invalid,
        "of more dimensions than the 1 it declares",
    );

    // ADD into [3, 2] of two [2, 3] inputs (flat), int8 ADD of [2, 3] and [1, 3] into [2, 1, 3]
    // (TFLM's loops: the first row of each, twice), SQUARED_DIFFERENCE of [4] and [4] into
    // [2, 2] (flat), and an ADD of [2, 3] and [1, 3] into [3, 2], whose loops read input 1 past
    // its end.
    s.accepted(
        "add_output_of_another_shape",
        binary(B::ADD, TensorSpec::f32, (&[2, 3], &[2, 3]), &[3, 2]),
    );
    s.accepted(
        "add_int8_output_of_another_shape_broadcast",
        binary(
            B::ADD,
            |shape| TensorSpec::int8(shape, 0.5, 1),
            (&[2, 3], &[1, 3]),
            &[2, 1, 3],
        ),
    );
    s.accepted(
        "squared_difference_output_of_another_shape",
        binary(
            B::SQUARED_DIFFERENCE,
            TensorSpec::f32,
            (&[4], &[4]),
            &[2, 2],
        ),
    );
    // The same loops where the inputs do not broadcast (ADD of [3] and [2] into [2]: the first
    // two of each) and into an output larger than the broadcast (int8 MUL of [2, 3] and [1, 3]
    // into [2, 2, 3]: the broadcast twice).
    s.accepted(
        "add_inputs_not_broadcasting_read_in_part",
        binary(B::ADD, TensorSpec::f32, (&[3], &[2]), &[2]),
    );
    s.accepted(
        "mul_int8_output_larger_than_the_broadcast",
        binary(
            B::MUL,
            |shape| TensorSpec::int8(shape, 0.5, 1),
            (&[2, 3], &[1, 3]),
            &[2, 2, 3],
        ),
    );
    // The comparisons and the logical operators likewise: LESS of [2, 3] and [1, 3] into
    // [2, 1, 3] (the first row of each, twice), LOGICAL_AND of two [2, 3] into [3, 2] (flat).
    let bool_tensor = |shape: &[i32]| TensorSpec::new(TensorType::BOOL, shape);
    s.accepted(
        "less_output_of_another_shape_broadcast",
        ModelSpec::single_op(
            B::LESS,
            Options::default_for(B::LESS),
            vec![TensorSpec::f32(&[2, 3]), TensorSpec::f32(&[1, 3])],
            vec![bool_tensor(&[2, 1, 3])],
        ),
    );
    s.accepted(
        "logical_and_output_of_another_shape",
        binary(B::LOGICAL_AND, bool_tensor, (&[2, 3], &[2, 3]), &[3, 2]),
    );
    // PRELU: int8 always loops over the output's shape (two [2, 3] into [2, 1, 3]: the first
    // row twice, where ADD runs flat); float with 4-dimensional NdArrayDesc strides ([3, 2] and
    // an alpha [3, 1] into [2, 3]: input element 2y + c with alpha y).
    s.accepted(
        "prelu_int8_output_of_another_shape",
        binary(
            B::PRELU,
            |shape| TensorSpec::int8(shape, 0.5, 1),
            (&[2, 3], &[2, 3]),
            &[2, 1, 3],
        ),
    );
    s.accepted(
        "prelu_float_output_of_another_shape",
        binary(B::PRELU, TensorSpec::f32, (&[3, 2], &[3, 1]), &[2, 3]),
    );
    // The float kernel extends its shapes to 4 dimensions, and aborts on more.
    s.refused(
        "prelu_float_rank_5",
        binary(
            B::PRELU,
            TensorSpec::f32,
            (&[1, 1, 2, 2, 3], &[3]),
            &[1, 1, 2, 2, 3],
        ),
        Refusal::Invalid,
        "TFLM's float kernel takes at most 4",
    );
    s.refused(
        "add_output_of_another_shape_read_past_an_input",
        binary(B::ADD, TensorSpec::f32, (&[2, 3], &[1, 3]), &[3, 2]),
        Refusal::Invalid,
        "read an input past its end",
    );
}

/// `op` of two graph inputs of shapes `a` and `b` into `out`, each tensor made by `tensor`.
fn binary(
    op: B,
    tensor: fn(&[i32]) -> TensorSpec,
    (a, b): (&[i32], &[i32]),
    out: &[i32],
) -> ModelSpec {
    ModelSpec::single_op(
        op,
        Options::default_for(op),
        vec![tensor(a), tensor(b)],
        vec![tensor(out)],
    )
}

/// float32 GATHER of rows 3 and 1 of a [4, 3] graph input into `declared` (TFLM: [2, 3]), then
/// GATHER of its column 2 into [2, 1]; both graph outputs.
fn gathers(declared: &[i32]) -> ModelSpec {
    let mut m = ModelSpec::new();
    let x = m.tensor(TensorSpec::f32(&[4, 3]));
    let rows = m.tensor(TensorSpec::int32(&[2]).constant_i32(&[3, 1]));
    let gathered = m.tensor(TensorSpec::f32(declared));
    let column = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[2]));
    let out = m.tensor(TensorSpec::f32(&[2, 1]));
    let gather = |axis| Options::Gather {
        axis,
        batch_dims: 0,
    };
    m.op(B::GATHER, gather(0), &[x, rows], &[gathered]);
    m.op(B::GATHER, gather(1), &[gathered, column], &[out]);
    m.inputs = vec![x];
    m.outputs = vec![gathered, out];
    m
}

/// int8 GATHER_ND of rows 2 and 0 of a [3, 4] graph input into `declared` (TFLM: [2, 4]).
fn gather_nd(declared: &[i32]) -> ModelSpec {
    ModelSpec::single_op(
        B::GATHER_ND,
        Options::None,
        vec![
            TensorSpec::int8(&[3, 4], 0.5, 1),
            TensorSpec::int32(&[2, 1]).constant_i32(&[2, 0]),
        ],
        vec![TensorSpec::int8(declared, 0.5, 1)],
    )
}

/// int8 CONCATENATION along `axis` of a graph input of shape `first` and one of [2, 2] into
/// `output`, all quantized alike.
fn concatenation(first: &[i32], output: &[i32], axis: i32) -> ModelSpec {
    let mut second = output.to_vec();
    let last = if axis < 0 {
        output.len() as i32 + axis
    } else {
        axis
    } as usize;
    second[last] = 2;
    ModelSpec::single_op(
        B::CONCATENATION,
        Options::Concatenation {
            axis,
            activation: Activation::NONE,
        },
        vec![
            TensorSpec::int8(first, 0.1, 2),
            TensorSpec::int8(&second, 0.1, 2),
        ],
        vec![TensorSpec::int8(output, 0.1, 2)],
    )
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
fn shrink_axis_0(begin: i32, stride: i32, output: &[i32]) -> ModelSpec {
    strided_slice_of(
        TensorSpec::int8(&[3, 4], 0.5, 1),
        (&[begin, 0], &[begin + 1, 4], &[stride, 1]),
        TensorSpec::int8(output, 0.5, 1),
        masks(1),
    )
}

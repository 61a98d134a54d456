//! The corners of issue 35's math and structure operators (REVERSE_V2, ADD_N): the types no
//! converter-made fixture has, what TFLM's kernels refuse, and the inputs they treat specially.

use super::{Category, Refusal, Suite};
use crate::{BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

/// A REVERSE_V2 of a `dtype` input of `shape` along the constant INT32 `axes`.
fn reverse(dtype: TensorType, shape: &[i32], axes: &[i32]) -> ModelSpec {
    ModelSpec::single_op(
        B::REVERSE_V2,
        Options::None,
        vec![
            TensorSpec::new(dtype, shape),
            TensorSpec::int32(&[axes.len() as i32]).constant_i32(axes),
        ],
        vec![TensorSpec::new(dtype, shape)],
    )
}

/// A REVERSE_V2 of `input` (a graph input, or a constant if it has data) into `output` along axes
/// computed at run time: `CAST(x * scale) + offsets`, `x` a FLOAT32 graph input of one element
/// (uniform in [-1, 1) in the goldens), so that every value TFLM's Eval reads is an axis in range
/// and the axes contiguous, whatever `x` is, yet they vary per case.
fn reverse_at_run_time(
    input: TensorSpec,
    scale: f32,
    offsets: &[i32],
    output: TensorSpec,
) -> ModelSpec {
    let mut m = ModelSpec::new();
    let constant = !input.is_activation();
    let x = m.tensor(input);
    if !constant {
        m.inputs.push(x);
    }
    let raw = m.tensor(TensorSpec::f32(&[1]));
    m.inputs.push(raw);
    let scale = m.tensor(TensorSpec::f32(&[1]).constant_f32(&[scale]));
    let scaled = m.tensor(TensorSpec::f32(&[1]));
    m.op(B::MUL, Options::default_for(B::MUL), &[raw, scale], &[scaled]);
    let v = m.tensor(TensorSpec::int32(&[1]));
    m.op(B::CAST, Options::None, &[scaled], &[v]);
    let n = offsets.len() as i32;
    let offsets = m.tensor(TensorSpec::int32(&[n]).constant_i32(offsets));
    let axes = m.tensor(TensorSpec::int32(&[n]));
    m.op(B::ADD, Options::default_for(B::ADD), &[v, offsets], &[axes]);
    let out = m.tensor(output);
    m.outputs = vec![out];
    m.op(B::REVERSE_V2, Options::None, &[x, axes], &[out]);
    m
}

/// REVERSE_V2 whose axes are computed at run time (issue 32): TFLM's `ReverseV2Prepare` checks
/// only their type and count, `ReverseV2Eval` reads their values, so tinyaot's `reverse_dyn` does.
fn reverse_axes_at_run_time(s: &mut Suite<'_>) {
    // One axis of a rank-4 float32 input, anywhere in [-3, 3].
    s.accepted(
        "reverse_v2_axis_computed",
        reverse_at_run_time(
            TensorSpec::f32(&[2, 3, 2, 2]),
            3.99,
            &[0],
            TensorSpec::f32(&[2, 3, 2, 2]),
        ),
    );
    // Two axes of int8, v + 2 and v + 1 for v in [-1, 1] (unsorted: TFLM sorts them).
    s.accepted(
        "reverse_v2_two_axes_computed_int8",
        reverse_at_run_time(
            TensorSpec::int8(&[2, 3, 4, 2], 0.1, -3),
            1.99,
            &[2, 1],
            TensorSpec::int8(&[2, 3, 4, 2], 0.1, -3),
        ),
    );
    // Two negative axes, v - 3 and v - 2, of a constant int16 input (read where it is).
    s.accepted(
        "reverse_v2_negative_axes_computed_constant_input",
        reverse_at_run_time(
            TensorSpec::new(TensorType::INT16, &[2, 2, 3, 2])
                .constant_i16(&(0..24).map(|v| v * 1000 - 12_000).collect::<Vec<_>>()),
            1.99,
            &[-3, -2],
            TensorSpec::new(TensorType::INT16, &[2, 2, 3, 2]),
        ),
    );
}

/// The cases, appended to `cases`.
pub(super) fn trig_reverse_add_n(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // REVERSE_V2 of the types TFLM moves that no fixture has; negative and several contiguous
    // axes (unsorted: TFLM sorts them), and the innermost axis (element by element).
    s.accepted(
        "reverse_v2_int32_axes_2_1",
        reverse(TensorType::INT32, &[2, 3, 4, 2], &[2, 1]),
    );
    s.accepted(
        "reverse_v2_int64_last_axis",
        reverse(TensorType::INT64, &[3, 5], &[-1]),
    );
    s.accepted(
        "reverse_v2_uint8_first_axis",
        reverse(TensorType::UINT8, &[4, 3, 2], &[0]),
    );
    s.accepted(
        "reverse_v2_bool_axes_neg",
        reverse(TensorType::BOOL, &[2, 3, 4], &[-2, -1]),
    );
    reverse_axes_at_run_time(&mut s);
    s.refused(
        "reverse_v2_non_contiguous_axes",
        reverse(TensorType::FLOAT32, &[2, 3, 4], &[0, 2]),
        Refusal::Invalid,
        "Non-contiguous",
    );
    s.refused(
        "reverse_v2_duplicate_axes",
        reverse(TensorType::FLOAT32, &[2, 3, 4], &[1, 1]),
        Refusal::Invalid,
        "Non-contiguous",
    );
    s.refused(
        "reverse_v2_axis_out_of_range",
        reverse(TensorType::INT8, &[2, 3], &[2]),
        Refusal::Invalid,
        "out of range",
    );
    // An empty axis tensor has no data (a tensor of no elements nothing writes, which is
    // defined): refused as an empty input of a non-empty output (the lowering's own refusal,
    // TFLM's read of axes[-1], is behind that one).
    s.refused(
        "reverse_v2_no_axis",
        reverse(TensorType::FLOAT32, &[2, 3], &[]),
        Refusal::Invalid,
        "is empty",
    );
    s.refused(
        "reverse_v2_int64_axis",
        ModelSpec::single_op(
            B::REVERSE_V2,
            Options::None,
            vec![
                TensorSpec::new(TensorType::FLOAT32, &[2, 3]),
                TensorSpec::new(TensorType::INT64, &[1]).constant_i64(&[1]),
            ],
            vec![TensorSpec::new(TensorType::FLOAT32, &[2, 3])],
        ),
        Refusal::Invalid,
        "Axis Type",
    );
    // ADD_N: int8 with a constant input and zero points far from 0 (TFLM's sum starts from the
    // rescaled input offset itself), accepted; what TFLM's CalculateOpData refuses, refused.
    let x = TensorSpec::int8(&[2, 5], 0.05, 37);
    s.accepted(
        "add_n_int8_constant_zero_point_37",
        ModelSpec::single_op(
            B::ADD_N,
            Options::None,
            vec![
                x.clone(),
                x.clone(),
                x.clone()
                    .constant_i8(&[-128, -100, -50, -1, 0, 1, 37, 50, 100, 127]),
            ],
            vec![TensorSpec::int8(&[2, 5], 0.11, -90)],
        ),
    );
    s.refused(
        "add_n_int8_two_quantizations",
        ModelSpec::single_op(
            B::ADD_N,
            Options::None,
            vec![x.clone(), TensorSpec::int8(&[2, 5], 0.05, 36)],
            vec![TensorSpec::int8(&[2, 5], 0.1, 0)],
        ),
        Refusal::Invalid,
        "one quantization",
    );
    s.refused(
        "add_n_int16",
        ModelSpec::single_op(
            B::ADD_N,
            Options::None,
            vec![
                TensorSpec::new(TensorType::INT16, &[4]).quant(0.01, 0),
                TensorSpec::new(TensorType::INT16, &[4]).quant(0.01, 0),
            ],
            vec![TensorSpec::new(TensorType::INT16, &[4]).quant(0.01, 0)],
        ),
        Refusal::Invalid,
        "FLOAT32 and INT8",
    );
    s.refused(
        "add_n_float_shapes_differ",
        ModelSpec::single_op(
            B::ADD_N,
            Options::None,
            vec![TensorSpec::f32(&[2, 3]), TensorSpec::f32(&[3, 2])],
            vec![TensorSpec::f32(&[2, 3])],
        ),
        Refusal::Invalid,
        "HaveSameShapes",
    );
    // ADD_N of more than 8 inputs (TFLM takes any number from 2): the variadic kernels, float32
    // of 9 graph inputs, int8 of 12 with every third constant.
    s.accepted(
        "add_n_float_nine_inputs",
        ModelSpec::single_op(
            B::ADD_N,
            Options::None,
            vec![TensorSpec::f32(&[3]); 9],
            vec![TensorSpec::f32(&[3])],
        ),
    );
    s.accepted(
        "add_n_int8_twelve_inputs_some_constant",
        ModelSpec::single_op(
            B::ADD_N,
            Options::None,
            (0..12i8)
                .map(|k| {
                    let t = TensorSpec::int8(&[2, 3], 0.03, -4);
                    if k % 3 == 2 {
                        t.constant_i8(&[-128, -60, -4, 0, 77, 127].map(|v: i8| v.wrapping_add(k)))
                    } else {
                        t
                    }
                })
                .collect(),
            vec![TensorSpec::int8(&[2, 3], 0.25, 3)],
        ),
    );
    // ADD_N of 4 to 8 inputs (one input repeated; the fixtures have 2 and 3), float32 and int8:
    // every arity of the kernels.
    for (name, spec, out) in [
        (
            "add_n_float_4_to_8_inputs",
            TensorSpec::f32(&[3, 2]),
            TensorSpec::f32(&[3, 2]),
        ),
        (
            "add_n_int8_4_to_8_inputs",
            TensorSpec::int8(&[3, 2], 0.02, -5),
            TensorSpec::int8(&[3, 2], 0.09, 11),
        ),
    ] {
        let mut m = ModelSpec::new();
        let x = m.tensor(spec);
        m.inputs = vec![x];
        for n in 4..=8 {
            let y = m.tensor(out.clone());
            m.op(B::ADD_N, Options::None, &vec![x; n], &[y]);
            m.outputs.push(y);
        }
        s.accepted(name, m);
    }
}

//! Accepted corners for the types the operator registry lists (the README's operator × type
//! table) that no other model of the suite or of tests/fixtures/models uses: each runs
//! bit-exact against TFLM in Rust and C once `tests/fixtures/hostile/generate.sh` has written its
//! goldens. `codegen/tests/registry_types.rs` fails while a listed type has no such model.

use super::builders::int16;
use super::{Category, Suite};
use crate::{BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

/// An unquantized tensor of `dtype` and `shape`.
fn raw(dtype: TensorType, shape: &[i32]) -> TensorSpec {
    TensorSpec::new(dtype, shape)
}

/// The cases, appended to `cases` as legitimate corners.
pub(super) fn registry_types(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // PAD and PADV2 of INT32 (TFLM's pad.cc): 0, or PADV2's raw constant, around the input.
    s.accepted(
        "pad_int32",
        ModelSpec::single_op(
            B::PAD,
            Options::Pad,
            vec![
                raw(TensorType::INT32, &[1, 2, 3]),
                TensorSpec::int32(&[3, 2]).constant_i32(&[0, 0, 1, 2, 0, 1]),
            ],
            vec![raw(TensorType::INT32, &[1, 5, 4])],
        ),
    );
    s.accepted(
        "padv2_int32_constant",
        ModelSpec::single_op(
            B::PADV2,
            Options::PadV2,
            vec![
                raw(TensorType::INT32, &[2, 3]),
                TensorSpec::int32(&[2, 2]).constant_i32(&[1, 0, 2, 1]),
                TensorSpec::int32(&[1]).constant_i32(&[-70_000]),
            ],
            vec![raw(TensorType::INT32, &[3, 6])],
        ),
    );
    padv2_value_at_run_time(&mut s);
    arg_min_max_axis_at_run_time(&mut s);
    cumsum_axis_at_run_time(&mut s);
    reduce_axes_at_run_time(&mut s);
    // MAXIMUM and MINIMUM of INT64 (TFLM's maximum_minimum.cc), broadcasting, and with a
    // constant operand whose values sit beyond int32.
    s.accepted(
        "maximum_int64_broadcast",
        ModelSpec::single_op(
            B::MAXIMUM,
            Options::MaximumMinimum,
            vec![
                raw(TensorType::INT64, &[2, 3]),
                raw(TensorType::INT64, &[3]),
            ],
            vec![raw(TensorType::INT64, &[2, 3])],
        ),
    );
    s.accepted(
        "minimum_int64_constant",
        ModelSpec::single_op(
            B::MINIMUM,
            Options::MaximumMinimum,
            vec![
                raw(TensorType::INT64, &[2, 2]),
                raw(TensorType::INT64, &[2, 2]).constant_i64(&[
                    i64::MIN,
                    -5_000_000_000,
                    0,
                    5_000_000_000,
                ]),
            ],
            vec![raw(TensorType::INT64, &[2, 2])],
        ),
    );
    // The byte-moving operators on the types no other model gives them.
    s.accepted(
        "concatenation_int32",
        ModelSpec::single_op(
            B::CONCATENATION,
            Options::Concatenation {
                axis: 1,
                activation: crate::Activation::NONE,
            },
            vec![TensorSpec::int32(&[2, 2]), TensorSpec::int32(&[2, 3])],
            vec![TensorSpec::int32(&[2, 5])],
        ),
    );
    for (name, dtype) in [
        ("pack_int16", TensorType::INT16),
        ("pack_int64", TensorType::INT64),
    ] {
        s.accepted(
            name,
            ModelSpec::single_op(
                B::PACK,
                Options::Pack {
                    values_count: 2,
                    axis: 1,
                },
                vec![raw(dtype, &[2, 3]), raw(dtype, &[2, 3])],
                vec![raw(dtype, &[2, 2, 3])],
            ),
        );
    }
    s.accepted(
        "padv2_int16_constant",
        ModelSpec::single_op(
            B::PADV2,
            Options::PadV2,
            vec![
                int16(&[2, 3], (0.5, 0)),
                TensorSpec::int32(&[2, 2]).constant_i32(&[0, 1, 1, 0]),
                int16(&[1], (0.5, 0)).constant((-300i16).to_le_bytes()),
            ],
            vec![int16(&[3, 4], (0.5, 0))],
        ),
    );
    s.accepted(
        "expand_dims_int16",
        ModelSpec::single_op(
            B::EXPAND_DIMS,
            Options::ExpandDims,
            vec![
                int16(&[2, 3], (0.5, 0)),
                TensorSpec::int32(&[1]).constant_i32(&[0]),
            ],
            vec![int16(&[1, 2, 3], (0.5, 0))],
        ),
    );
    for (name, dtype) in [
        ("split_int16", TensorType::INT16),
        ("split_int32", TensorType::INT32),
    ] {
        s.accepted(
            name,
            ModelSpec::single_op(
                B::SPLIT,
                Options::Split { num_splits: 2 },
                vec![
                    TensorSpec::int32(&[1]).constant_i32(&[1]),
                    raw(dtype, &[2, 4]),
                ],
                vec![raw(dtype, &[2, 2]), raw(dtype, &[2, 2])],
            ),
        );
    }
    for (name, dtype) in [
        ("split_v_int16", TensorType::INT16),
        ("split_v_int32", TensorType::INT32),
    ] {
        s.accepted(
            name,
            ModelSpec::single_op(
                B::SPLIT_V,
                Options::SplitV { num_splits: 2 },
                vec![
                    raw(dtype, &[3, 2]),
                    TensorSpec::int32(&[2]).constant_i32(&[1, 2]),
                    TensorSpec::int32(&[1]).constant_i32(&[0]),
                ],
                vec![raw(dtype, &[1, 2]), raw(dtype, &[2, 2])],
            ),
        );
    }
    // QUANTIZE between int16 and int32, each way (TFLM's requantization).
    s.accepted(
        "quantize_int16_int32",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![int16(&[1, 8], (0.5, 0))],
            vec![TensorSpec::int32(&[1, 8]).quant(0.125, 0)],
        ),
    );
    s.accepted(
        "quantize_int32_int16",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int32(&[1, 8]).quant(0.125, 0)],
            vec![int16(&[1, 8], (0.5, 0))],
        ),
    );
    // SLICE of INT32 (begin and size INT64) and of BOOL, UNPACK of INT32 (slice.cc,
    // unpack.cc).
    s.accepted(
        "slice_int32_int64_begin",
        ModelSpec::single_op(
            B::SLICE,
            Options::Slice,
            vec![
                TensorSpec::int32(&[3, 4, 2]),
                TensorSpec::new(TensorType::INT64, &[3]).constant_i64(&[1, 0, 1]),
                TensorSpec::new(TensorType::INT64, &[3]).constant_i64(&[2, -1, 1]),
            ],
            vec![TensorSpec::int32(&[2, 4, 1])],
        ),
    );
    s.accepted(
        "slice_bool",
        ModelSpec::single_op(
            B::SLICE,
            Options::Slice,
            vec![
                raw(TensorType::BOOL, &[4, 5]),
                TensorSpec::int32(&[2]).constant_i32(&[1, 2]),
                TensorSpec::int32(&[2]).constant_i32(&[-1, 2]),
            ],
            vec![raw(TensorType::BOOL, &[3, 2])],
        ),
    );
    s.accepted(
        "unpack_int32",
        ModelSpec::single_op(
            B::UNPACK,
            Options::Unpack { num: 3, axis: -2 },
            vec![TensorSpec::int32(&[2, 3, 2])],
            vec![
                TensorSpec::int32(&[2, 2]),
                TensorSpec::int32(&[2, 2]),
                TensorSpec::int32(&[2, 2]),
            ],
        ),
    );
    // GATHER with a negative axis and a negative batch_dims (counted from the positions' rank).
    s.accepted(
        "gather_negative_axis_and_batch_dims",
        ModelSpec::single_op(
            B::GATHER,
            Options::Gather {
                axis: -2,
                batch_dims: -1,
            },
            vec![
                TensorSpec::f32(&[2, 4, 3]),
                TensorSpec::int32(&[2, 3]).constant_i32(&[3, 0, 3, 1, 2, 1]),
            ],
            vec![TensorSpec::f32(&[2, 3, 3])],
        ),
    );
}

/// PADV2 whose constant value (input 2) is computed at run time (issue 32): TFLM's `PadPrepare`
/// checks only its type, element count and (int8) quantization, and `PadEval` reads its element
/// per call, so tinyaot's `pad_dyn` does; any value is defined, so the goldens' random graph
/// inputs (whole ranges) vary it per case.
fn padv2_value_at_run_time(s: &mut Suite<'_>) {
    let padv2 = |input: TensorSpec, value: TensorSpec, output: TensorSpec, pads: &[i32]| {
        let rank = input.shape.as_ref().map_or(0, |s| s.len()) as i32;
        ModelSpec::single_op(
            B::PADV2,
            Options::PadV2,
            vec![
                input,
                TensorSpec::int32(&[rank, 2]).constant_i32(pads),
                value,
            ],
            vec![output],
        )
    };
    // INT32 and int16 (16x8 models): the raw value, a graph input.
    s.accepted(
        "padv2_int32_value_at_run_time",
        padv2(
            raw(TensorType::INT32, &[2, 3]),
            raw(TensorType::INT32, &[1]),
            raw(TensorType::INT32, &[3, 6]),
            &[1, 0, 2, 1],
        ),
    );
    s.accepted(
        "padv2_int16_value_at_run_time",
        padv2(
            int16(&[1, 2, 2, 3], (0.01, 0)),
            int16(&[1], (0.01, 0)),
            int16(&[1, 4, 3, 3], (0.01, 0)),
            &[0, 0, 1, 1, 0, 1, 0, 0],
        ),
    );
    // int8 of a constant input (read where it is), the value a graph input of the output's
    // quantization, as PadPrepare requires.
    s.accepted(
        "padv2_int8_value_at_run_time_constant_input",
        padv2(
            TensorSpec::int8(&[2, 2], 0.1, -5).constant_i8(&[-128, 127, 0, -5]),
            TensorSpec::int8(&[1, 1], 0.1, -5),
            TensorSpec::int8(&[4, 5], 0.1, -5),
            &[1, 1, 2, 1],
        ),
    );
    // float32, the value an operator's output: a graph input times 3e38 (up to ±3e38, no
    // infinity), padding every dimension of a rank-5 input.
    let mut m = ModelSpec::new();
    let x = m.tensor(TensorSpec::f32(&[1, 2, 1, 2, 1]));
    let raw_value = m.tensor(TensorSpec::f32(&[]));
    m.inputs = vec![x, raw_value];
    let scale = m.tensor(TensorSpec::f32(&[]).constant_f32(&[3e38]));
    let value = m.tensor(TensorSpec::f32(&[]));
    m.op(B::MUL, Options::default_for(B::MUL), &[raw_value, scale], &[value]);
    let pads = m.tensor(TensorSpec::int32(&[5, 2]).constant_i32(&[1, 0, 0, 1, 1, 1, 0, 0, 2, 1]));
    let out = m.tensor(TensorSpec::f32(&[2, 3, 3, 2, 4]));
    m.outputs = vec![out];
    m.op(B::PADV2, Options::PadV2, &[x, pads, value], &[out]);
    s.accepted("padv2_float_value_computed", m);
}

/// ARG_MAX and ARG_MIN whose axis is computed at run time (issue 32): TFLM's kernel has no
/// `Prepare`, and its Eval reads the axis per call, so tinyaot's `arg_min_max_dyn` does. The axis
/// is an INT32 graph input (its whole range in the goldens) clamped by MAXIMUM and MINIMUM to two
/// axes of the same length, for both of which the output's static shape holds TFLM's indices.
fn arg_min_max_axis_at_run_time(s: &mut Suite<'_>) {
    let arg = |op: B, input: TensorSpec, (low, high): (i32, i32), output: TensorSpec| {
        let mut m = ModelSpec::new();
        let x = m.tensor(input);
        let raw = m.tensor(TensorSpec::int32(&[1]));
        m.inputs = vec![x, raw];
        let low = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[low]));
        let high = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[high]));
        let floored = m.tensor(TensorSpec::int32(&[1]));
        m.op(B::MAXIMUM, Options::None, &[raw, low], &[floored]);
        let axis = m.tensor(TensorSpec::int32(&[1]));
        m.op(B::MINIMUM, Options::None, &[floored, high], &[axis]);
        let out = m.tensor(output);
        m.outputs = vec![out];
        m.op(op, Options::None, &[x, axis], &[out]);
        m
    };
    // Axes 1 and 2 of [2, 3, 3, 2] (both of length 3): the indices fill [2, 3, 2] either way.
    s.accepted(
        "arg_max_axis_computed",
        arg(
            B::ARG_MAX,
            TensorSpec::f32(&[2, 3, 3, 2]),
            (1, 2),
            TensorSpec::int32(&[2, 3, 2]),
        ),
    );
    // int8 ARG_MIN, negative axes -3 and -2 of the same input.
    s.accepted(
        "arg_min_negative_axis_computed_int8",
        arg(
            B::ARG_MIN,
            TensorSpec::int8(&[2, 3, 3, 2], 0.1, 4),
            (-3, -2),
            TensorSpec::int32(&[2, 3, 2]),
        ),
    );
}

/// In model `m`, an INT32 graph input of `low.len()` elements (its whole range in the goldens)
/// clamped element-wise by MAXIMUM and MINIMUM to `low..=high`: axes computed at run time.
fn clamped_axes(m: &mut ModelSpec, low: &[i32], high: &[i32]) -> i32 {
    let n = low.len() as i32;
    let raw = m.tensor(TensorSpec::int32(&[n]));
    m.inputs.push(raw);
    let low = m.tensor(TensorSpec::int32(&[n]).constant_i32(low));
    let high = m.tensor(TensorSpec::int32(&[n]).constant_i32(high));
    let floored = m.tensor(TensorSpec::int32(&[n]));
    m.op(B::MAXIMUM, Options::None, &[raw, low], &[floored]);
    let axes = m.tensor(TensorSpec::int32(&[n]));
    m.op(B::MINIMUM, Options::None, &[floored, high], &[axes]);
    axes
}

/// CUMSUM whose axis is computed at run time (issue 32): TFLM's Prepare reads only the axis
/// tensor's type and element count, its Eval the value per call, as tinyaot's `cumsum_dyn` does.
/// The axis is clamped to the input's whole range of valid axes, negative ones included.
fn cumsum_axis_at_run_time(s: &mut Suite<'_>) {
    let cumsum = |input: TensorSpec, (low, high): (i32, i32), exclusive: bool, reverse: bool| {
        let mut m = ModelSpec::new();
        let x = m.tensor(input.clone());
        m.inputs = vec![x];
        let axis = clamped_axes(&mut m, &[low], &[high]);
        let out = m.tensor(input);
        m.outputs = vec![out];
        m.op(
            B::CUMSUM,
            Options::Cumsum { exclusive, reverse },
            &[x, axis],
            &[out],
        );
        m
    };
    s.accepted(
        "cumsum_axis_computed_exclusive_reverse",
        cumsum(TensorSpec::f32(&[2, 3, 3, 2]), (-4, 3), true, true),
    );
    s.accepted(
        "cumsum_axis_computed_int8",
        cumsum(TensorSpec::int8(&[3, 4, 5], 0.05, -3), (-3, 2), false, false),
    );
}

/// MEAN, SUM, REDUCE_MAX, REDUCE_MIN and REDUCE_ALL whose axes are computed at run time (issue
/// 32): TFLM's
/// Prepare reads only the axis tensor's type and element count, its Eval the values per call, as
/// tinyaot's `reduce_dyn` does. Two axes of [2, 3, 3, 2] clamped to 1..=2 reduce one axis (12
/// outputs, what the output holds) or both (4 outputs, and the 8 after them TFLM's initial
/// values); one axis clamped to 2..=3 of a rank-3 int8 SUM is out of range at 3 (TFLM's integer
/// SUM leaves zeros and succeeds); a float MEAN with keep_dims takes TFLM's 4-D path on axes
/// 65537 and 2 (compared by their low 16 bits, never range-checked).
fn reduce_axes_at_run_time(s: &mut Suite<'_>) {
    let reduce = |op: B,
                  keep_dims: bool,
                  input: TensorSpec,
                  (low, high): (&[i32], &[i32]),
                  output: TensorSpec| {
        let mut m = ModelSpec::new();
        let x = m.tensor(input);
        m.inputs = vec![x];
        let axes = clamped_axes(&mut m, low, high);
        let out = m.tensor(output);
        m.outputs = vec![out];
        m.op(op, Options::Reducer { keep_dims }, &[x, axes], &[out]);
        m
    };
    let one_or_both: (&[i32], &[i32]) = (&[1, 1], &[2, 2]);
    let (big, small) = (&[2, 3, 3, 2][..], &[2, 3, 2][..]);
    s.accepted(
        "sum_axes_computed",
        reduce(B::SUM, false, TensorSpec::f32(big), one_or_both, TensorSpec::f32(small)),
    );
    s.accepted(
        "mean_axes_computed",
        reduce(B::MEAN, false, TensorSpec::f32(big), one_or_both, TensorSpec::f32(small)),
    );
    s.accepted(
        "mean_axes_computed_int8",
        reduce(
            B::MEAN,
            false,
            TensorSpec::int8(big, 0.1, 3),
            one_or_both,
            TensorSpec::int8(small, 0.05, -2),
        ),
    );
    s.accepted(
        "mean_axes_computed_int16",
        reduce(
            B::MEAN,
            true,
            int16(big, (0.01, 0)),
            one_or_both,
            int16(&[2, 1, 3, 2], (0.02, 0)),
        ),
    );
    s.accepted(
        "sum_axes_computed_int16",
        reduce(
            B::SUM,
            false,
            int16(big, (0.01, 0)),
            one_or_both,
            int16(small, (0.5, 0)),
        ),
    );
    s.accepted(
        "sum_axis_out_of_range_computed_int8",
        reduce(
            B::SUM,
            false,
            TensorSpec::int8(&[2, 3, 2], 0.1, -5),
            (&[2], &[3]),
            TensorSpec::int8(&[2, 3], 0.4, 7),
        ),
    );
    for (op, name) in [(B::REDUCE_MAX, "reduce_max"), (B::REDUCE_MIN, "reduce_min")] {
        s.accepted(
            &format!("{name}_axes_computed"),
            reduce(op, false, TensorSpec::f32(big), one_or_both, TensorSpec::f32(small)),
        );
        s.accepted(
            &format!("{name}_axes_computed_int8"),
            reduce(
                op,
                false,
                TensorSpec::int8(big, 0.1, 3),
                one_or_both,
                TensorSpec::int8(small, 0.1, 3),
            ),
        );
    }
    // REDUCE_ALL of a comparison made in the model (TFLM's REDUCE_ALL takes BOOL only).
    let mut m = ModelSpec::new();
    let x = m.tensor(TensorSpec::f32(big));
    m.inputs = vec![x];
    let zero = m.tensor(TensorSpec::f32(&[1]).constant_f32(&[0.0]));
    let positive = m.tensor(TensorSpec::new(TensorType::BOOL, big));
    m.op(B::GREATER, Options::None, &[x, zero], &[positive]);
    let axes = clamped_axes(&mut m, one_or_both.0, one_or_both.1);
    let out = m.tensor(TensorSpec::new(TensorType::BOOL, small));
    m.outputs = vec![out];
    m.op(
        B::REDUCE_ALL,
        Options::Reducer { keep_dims: false },
        &[positive, axes],
        &[out],
    );
    s.accepted("reduce_all_axes_computed", m);
    s.accepted(
        "mean_4d_axes_computed_out_of_range",
        reduce(
            B::MEAN,
            true,
            TensorSpec::f32(big),
            (&[65537, 2], &[65537, 2]),
            TensorSpec::f32(&[2, 1, 1, 2]),
        ),
    );
    // An input with a zero-size dimension: reduce.h fills the whole output (the initial value, 0
    // for the integer MEAN and SUM) and returns before it resolves the axes, so a kept empty
    // dimension (the output shaped for a fuller input) and an axis out of range change nothing
    // (difftest seed 20261201 case 1121: an int8 SUM wrote the rescaled sum of nothing).
    s.accepted(
        "sum_empty_input_axes_computed_int8",
        reduce(
            B::SUM,
            false,
            TensorSpec::int8(&[0, 4, 3], 0.002, 15),
            (&[1], &[1]),
            TensorSpec::int8(&[4, 3], 0.006, -78),
        ),
    );
    s.accepted(
        "mean_empty_input_axes_computed_int16",
        reduce(
            B::MEAN,
            false,
            int16(&[2, 0, 3], (0.01, 0)),
            (&[0], &[2]),
            int16(&[2, 3], (0.02, 0)),
        ),
    );
    for (op, name) in [(B::REDUCE_MAX, "reduce_max"), (B::REDUCE_MIN, "reduce_min")] {
        s.accepted(
            &format!("{name}_empty_input_axis_out_of_range_computed_int8"),
            reduce(
                op,
                false,
                TensorSpec::int8(&[2, 0, 3], 0.1, 3),
                (&[3], &[3]),
                TensorSpec::int8(&[2, 3], 0.1, 3),
            ),
        );
    }
    // The integer MEAN with constant axes over an empty dimension: QuantizedMeanOrSum leaves 0
    // (was refused as undefined, which only the float MEAN is).
    s.accepted(
        "mean_int8_empty_axis",
        ModelSpec::single_op(
            B::MEAN,
            Options::Reducer { keep_dims: true },
            vec![
                TensorSpec::int8(&[2, 0, 3], 0.05, 4),
                TensorSpec::int32(&[1]).constant_i32(&[1]),
            ],
            vec![TensorSpec::int8(&[2, 1, 3], 0.1, -6)],
        ),
    );
}

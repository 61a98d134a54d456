//! Accepted corners: graph outputs TFLM passes through without computing them, and operators
//! with only constant inputs, which tinyaot folds at generation time.

use super::builders::{relu8, strided_slice_of, with};
use super::Suite;
use crate::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
};

/// Graph outputs TFLM returns without computing them (a graph input, a constant), and operators
/// whose inputs are all constant, which tinyaot folds at generation time.
pub(super) fn folded_and_passed_through(s: &mut Suite<'_>) {
    let relu = || relu8((0.1, 0), (0.1, 0));
    // TFLM's output is the input tensor itself: its bytes as written before invoke.
    s.accepted(
        "graph_output_is_the_graph_input",
        with(relu(), |m| m.outputs = vec![0]),
    );
    s.accepted(
        "graph_outputs_input_and_computed",
        with(relu(), |m| m.outputs = vec![1, 0]),
    );
    s.accepted(
        "no_operators_output_is_input",
        with(relu(), |m| {
            m.operators.clear();
            m.outputs = vec![0];
        }),
    );
    // A constant output: its data.
    s.accepted(
        "graph_output_is_a_constant",
        with(relu(), |m| {
            let c =
                m.tensor(TensorSpec::int8(&[2, 3], 0.5, 1).constant_i8(&[1, -2, 3, -4, 5, 127]));
            m.outputs.push(c);
        }),
    );
    // An empty constant output (no data in its buffer, so no constant to the loader): TFLM
    // returns its no elements.
    s.accepted(
        "graph_output_is_an_empty_constant",
        with(relu(), |m| {
            let c = m.tensor(TensorSpec::int8(&[0], 0.5, 1).constant(Vec::new()));
            m.outputs.push(c);
        }),
    );
    // RESHAPE of a constant feeding an ADD: folded into a constant of the new shape.
    s.accepted("add_of_a_reshaped_constant", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::f32(&[2, 4]));
        let c = m.tensor(
            TensorSpec::f32(&[8]).constant_f32(&[0.5, -1.0, 2.0, 0.25, -0.75, 3.0, 1.5, -2.5]),
        );
        let shape = m.tensor(TensorSpec::int32(&[2]).constant_i32(&[2, 4]));
        let r = m.tensor(TensorSpec::f32(&[2, 4]));
        let out = m.tensor(TensorSpec::f32(&[2, 4]));
        m.inputs = vec![x];
        m.outputs = vec![out];
        m.op(
            B::RESHAPE,
            Options::default_for(B::RESHAPE),
            &[c, shape],
            &[r],
        );
        m.op(B::ADD, Options::default_for(B::ADD), &[x, r], &[out]);
        m
    });
    // SHAPE of a static tensor feeding RESHAPE's shape input (what a Keras model with a dynamic
    // batch dimension leaves in the graph), and QUANTIZE and MUL of constants (int8).
    s.accepted("reshape_by_a_computed_shape", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::f32(&[3, 4]));
        let like = m.tensor(TensorSpec::f32(&[2, 6]).constant_f32(&[0.0; 12]));
        let shape = m.tensor(TensorSpec::int32(&[2]));
        let out = m.tensor(TensorSpec::f32(&[2, 6]));
        m.inputs = vec![x];
        m.outputs = vec![out];
        m.op(B::SHAPE, Options::None, &[like], &[shape]);
        m.op(
            B::RESHAPE,
            Options::default_for(B::RESHAPE),
            &[x, shape],
            &[out],
        );
        m
    });
    s.accepted("add_of_quantized_and_multiplied_constants", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::int8(&[1, 6], 0.05, 3));
        let cf =
            m.tensor(TensorSpec::f32(&[1, 6]).constant_f32(&[0.1, -0.7, 1.3, 2.2, -3.1, 0.01]));
        let cq = m.tensor(TensorSpec::int8(&[1, 6], 0.03, -2));
        let two =
            m.tensor(TensorSpec::int8(&[1, 6], 0.02, 0).constant_i8(&[20, 40, -60, 80, 100, -127]));
        let prod = m.tensor(TensorSpec::int8(&[1, 6], 0.05, 1));
        let out = m.tensor(TensorSpec::int8(&[1, 6], 0.1, -4));
        m.inputs = vec![x];
        m.outputs = vec![out];
        m.op(B::QUANTIZE, Options::Quantize, &[cf], &[cq]);
        m.op(B::MUL, Options::default_for(B::MUL), &[cq, two], &[prod]);
        m.op(B::ADD, Options::default_for(B::ADD), &[x, prod], &[out]);
        m
    });
    // What a Keras model with a dynamic batch dimension computes at run time for its RESHAPE:
    // SHAPE → STRIDED_SLICE (the batch) → PACK ([batch, 24]) → RESHAPE, all folded.
    s.accepted("reshape_by_shape_arithmetic", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::f32(&[1, 4, 6]));
        let shape = m.tensor(TensorSpec::int32(&[3]));
        let begin = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[0]));
        let end = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[1]));
        let strides = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[1]));
        let batch = m.tensor(TensorSpec::int32(&[]));
        let rest = m.tensor(TensorSpec::int32(&[]).constant_i32(&[24]));
        let target = m.tensor(TensorSpec::int32(&[2]));
        let flat = m.tensor(TensorSpec::f32(&[1, 24]));
        let out = m.tensor(TensorSpec::f32(&[1, 24]));
        m.inputs = vec![x];
        m.outputs = vec![out];
        m.op(B::SHAPE, Options::None, &[x], &[shape]);
        m.op(
            B::STRIDED_SLICE,
            Options::StridedSlice {
                begin_mask: 0,
                end_mask: 0,
                ellipsis_mask: 0,
                new_axis_mask: 0,
                shrink_axis_mask: 1,
                offset: false,
            },
            &[shape, begin, end, strides],
            &[batch],
        );
        m.op(
            B::PACK,
            Options::Pack {
                values_count: 2,
                axis: 0,
            },
            &[batch, rest],
            &[target],
        );
        m.op(
            B::RESHAPE,
            Options::default_for(B::RESHAPE),
            &[x, target],
            &[flat],
        );
        m.op(B::RELU, Options::None, &[flat], &[out]);
        m
    });
    // PACK of computed tensors, on an inner axis (float32) and the outer one (int8, quantized
    // differently: TFLM's PACK copies the bytes).
    s.accepted("pack_inner_axis_float", {
        let mut m = ModelSpec::new();
        let a = m.tensor(TensorSpec::f32(&[2, 3]));
        let b = m.tensor(TensorSpec::f32(&[2, 3]));
        let c = m.tensor(TensorSpec::f32(&[2, 3]));
        let out = m.tensor(TensorSpec::f32(&[2, 3, 3]));
        m.inputs = vec![a, b, c];
        m.outputs = vec![out];
        m.op(
            B::PACK,
            Options::Pack {
                values_count: 3,
                axis: -1,
            },
            &[a, b, c],
            &[out],
        );
        m
    });
    s.accepted("pack_outer_axis_int8", {
        let mut m = ModelSpec::new();
        let a = m.tensor(TensorSpec::int8(&[4, 2], 0.1, 3));
        let b = m.tensor(TensorSpec::int8(&[4, 2], 0.2, -1));
        let out = m.tensor(TensorSpec::int8(&[2, 4, 2], 0.1, 3));
        m.inputs = vec![a, b];
        m.outputs = vec![out];
        m.op(
            B::PACK,
            Options::Pack {
                values_count: 2,
                axis: 0,
            },
            &[a, b],
            &[out],
        );
        m
    });
    // More than 10 tensors (issue 32: TFLM's UNPACK, SPLIT_V and PACK take any number; the
    // variadic kernels): UNPACK of int16 along a middle axis (12 outputs of 3 rows), SPLIT_V of
    // int8 along axis 0 into 11, and PACK of 12 float32 inputs along an inner axis (2 rows, so no
    // slices), every third a constant (an input read from flash; the others are not all constant,
    // so it is not folded).
    s.accepted("unpack_12_outputs_int16", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::new(TensorType::INT16, &[3, 12, 2]));
        let outputs: Vec<i32> = (0..12)
            .map(|_| m.tensor(TensorSpec::new(TensorType::INT16, &[3, 2])))
            .collect();
        m.inputs = vec![x];
        m.outputs = outputs.clone();
        m.op(
            B::UNPACK,
            Options::Unpack { num: 12, axis: 1 },
            &[x],
            &outputs,
        );
        m
    });
    s.accepted("split_v_11_outputs_int8", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::int8(&[20, 3], 0.05, -2));
        let sizes = [1, 3, 2, 1, -1, 2, 1, 1, 2, 1, 2];
        let size_splits = m.tensor(TensorSpec::int32(&[11]).constant_i32(&sizes));
        let axis = m.tensor(TensorSpec::int32(&[]).constant_i32(&[0]));
        let outputs: Vec<i32> = [1, 3, 2, 1, 4, 2, 1, 1, 2, 1, 2]
            .iter()
            .map(|&rows| m.tensor(TensorSpec::int8(&[rows, 3], 0.05, -2)))
            .collect();
        m.inputs = vec![x];
        m.outputs = outputs.clone();
        m.op(
            B::SPLIT_V,
            Options::SplitV { num_splits: 11 },
            &[x, size_splits, axis],
            &outputs,
        );
        m
    });
    s.accepted("pack_12_inputs_some_constant", {
        let mut m = ModelSpec::new();
        let mut inputs = Vec::new();
        for k in 0..12 {
            let spec = TensorSpec::f32(&[2, 3]);
            if k % 3 == 2 {
                let values: Vec<f32> = (0..6).map(|i| (k * 6 + i) as f32 * 0.125 - 4.0).collect();
                inputs.push(m.tensor(spec.constant_f32(&values)));
            } else {
                let t = m.tensor(spec);
                m.inputs.push(t);
                inputs.push(t);
            }
        }
        let out = m.tensor(TensorSpec::f32(&[2, 12, 3]));
        m.outputs = vec![out];
        m.op(
            B::PACK,
            Options::Pack {
                values_count: 12,
                axis: 1,
            },
            &inputs,
            &[out],
        );
        m
    });
    // The byte-moving operators on every type TFLM's kernel takes: CONCATENATION of INT64 and
    // BOOL, STRIDED_SLICE of BOOL (and with the ellipsis and new-axis masks TFLM sets to 0).
    for (name, dtype) in [
        ("concatenation_int64", TensorType::INT64),
        ("concatenation_bool", TensorType::BOOL),
    ] {
        s.accepted(name, {
            let mut m = ModelSpec::new();
            let a = m.tensor(TensorSpec::new(dtype, &[2, 3]));
            let b = m.tensor(TensorSpec::new(dtype, &[2, 2]));
            let out = m.tensor(TensorSpec::new(dtype, &[2, 5]));
            m.inputs = vec![a, b];
            m.outputs = vec![out];
            m.op(
                B::CONCATENATION,
                Options::Concatenation {
                    axis: 1,
                    activation: Activation::NONE,
                },
                &[a, b],
                &[out],
            );
            m
        });
    }
    for (name, ellipsis_mask, new_axis_mask) in [
        ("strided_slice_bool", 0, 0),
        ("strided_slice_masks_tflm_ignores", 1, 2),
    ] {
        s.accepted(
            name,
            strided_slice_of(
                TensorSpec::new(TensorType::BOOL, &[3, 4]),
                (&[0, 1], &[3, 4], &[2, 2]),
                TensorSpec::new(TensorType::BOOL, &[2, 2]),
                Options::StridedSlice {
                    begin_mask: 0,
                    end_mask: 0,
                    ellipsis_mask,
                    new_axis_mask,
                    shrink_axis_mask: 0,
                    offset: false,
                },
            ),
        );
    }
    // TANH and SIGN_BIT fused into a float kernel that takes TFLM's CalculateActivationRange:
    // it names neither, so they clamp nothing.
    for (name, activation) in [
        ("float_ops_fused_tanh", Activation::TANH),
        ("float_ops_fused_sign_bit", Activation::SIGN_BIT),
    ] {
        s.accepted(name, {
            let mut m = ModelSpec::new();
            let x = m.tensor(TensorSpec::f32(&[1, 4, 4, 2]));
            let y = m.tensor(TensorSpec::f32(&[1, 4, 4, 2]));
            let sum = m.tensor(TensorSpec::f32(&[1, 4, 4, 2]));
            let prod = m.tensor(TensorSpec::f32(&[1, 4, 4, 2]));
            let filter = m.tensor(
                TensorSpec::f32(&[3, 3, 3, 2]).constant_f32(
                    &(0..54)
                        .map(|i| ((i * 7) % 11) as f32 * 0.25 - 1.2)
                        .collect::<Vec<_>>(),
                ),
            );
            let conv = m.tensor(TensorSpec::f32(&[1, 4, 4, 3]));
            let pooled = m.tensor(TensorSpec::f32(&[1, 2, 2, 3]));
            let flat = m.tensor(TensorSpec::f32(&[1, 12]));
            let shape = m.tensor(TensorSpec::int32(&[2]).constant_i32(&[1, 12]));
            let weights = m.tensor(
                TensorSpec::f32(&[5, 12]).constant_f32(
                    &(0..60)
                        .map(|i| ((i * 5) % 13) as f32 * 0.3 - 1.8)
                        .collect::<Vec<_>>(),
                ),
            );
            let out = m.tensor(TensorSpec::f32(&[1, 5]));
            m.inputs = vec![x, y];
            m.outputs = vec![out, sum];
            m.op(B::ADD, Options::Add { activation }, &[x, y], &[sum]);
            m.op(B::MUL, Options::Mul { activation }, &[sum, y], &[prod]);
            m.op(
                B::CONV_2D,
                Options::conv2d(Padding::SAME, (1, 1), activation),
                &[prod, filter],
                &[conv],
            );
            m.op(
                B::AVERAGE_POOL_2D,
                Options::pool(Padding::VALID, (2, 2), (2, 2), activation),
                &[conv],
                &[pooled],
            );
            m.op(
                B::RESHAPE,
                Options::default_for(B::RESHAPE),
                &[pooled, shape],
                &[flat],
            );
            m.op(
                B::FULLY_CONNECTED,
                Options::fully_connected(activation),
                &[flat, weights],
                &[out],
            );
            m
        });
    }
    // Every operator folds: the graph's outputs are constants computed at generation time.
    s.accepted("everything_folds", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::f32(&[1, 4]));
        let a = m.tensor(TensorSpec::f32(&[1, 4]).constant_f32(&[1.0, -2.0, 3.5, -0.5]));
        let b = m.tensor(TensorSpec::f32(&[1, 4]).constant_f32(&[0.25, 4.0, -1.5, 2.0]));
        let sum = m.tensor(TensorSpec::f32(&[1, 4]));
        let out = m.tensor(TensorSpec::f32(&[1, 4]));
        m.inputs = vec![x];
        m.outputs = vec![out, x];
        m.op(B::ADD, Options::default_for(B::ADD), &[a, b], &[sum]);
        m.op(B::RELU, Options::None, &[sum], &[out]);
        m
    });
}

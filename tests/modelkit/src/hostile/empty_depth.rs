//! Accepted corners: FULLY_CONNECTED and TRANSPOSE_CONV whose weights have no input channels (an
//! input depth of 0). TFLM's reference kernels then sum no terms: every output is the bias
//! requantized (the output zero point without one), clamped by the activation, a defined result.

use super::{Refusal, Suite};
use crate::int4::with_int4_weights;
use crate::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
};

/// FULLY_CONNECTED of input `[2, 0]` and weights `[3, 0]` (`weights` a constant or a graph
/// input) with an INT32 bias into `[2, 3]` (int8), RELU.
fn fc8(weights: TensorSpec) -> ModelSpec {
    ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::fully_connected(Activation::RELU),
        vec![
            TensorSpec::int8(&[2, 0], 0.05, 3),
            weights,
            TensorSpec::int32(&[3])
                .quant(0.001, 0)
                .constant_i32(&[1700, -1500, 30]),
        ],
        vec![TensorSpec::int8(&[2, 3], 0.1, -2)],
    )
}

/// The int16 FULLY_CONNECTED (16x8) of input `[2, 0]` and constant weights `[3, 0]` with a bias
/// of type `bias` into `[2, 3]`.
fn fc16(bias: TensorType) -> ModelSpec {
    let values = [3000i64, -2000, 70];
    let bias = match bias {
        TensorType::INT32 => TensorSpec::int32(&[3]).constant_i32(&values.map(|v| v as i32)),
        _ => TensorSpec::new(bias, &[3]).constant_i64(&values),
    };
    ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::fully_connected(Activation::NONE),
        vec![
            TensorSpec::new(TensorType::INT16, &[2, 0]).quant(0.002, 1234),
            TensorSpec::int8(&[3, 0], 0.01, 0).constant_i8(&[]),
            bias,
        ],
        vec![TensorSpec::new(TensorType::INT16, &[2, 3]).quant(0.001, -77)],
    )
}

/// TRANSPOSE_CONV of input `[1, 2, 2, 0]` and filter `[3, 2, 2, 0]` with a bias into
/// `[1, 3, 3, 3]` (stride 1, VALID), int8 or float32. Tensors: 0 output shape, 1 filter, 2
/// input, 3 bias, 4 output.
fn transpose_conv(float: bool) -> ModelSpec {
    let (input, filter, bias, output) = if float {
        (
            TensorSpec::f32(&[1, 2, 2, 0]),
            TensorSpec::f32(&[3, 2, 2, 0]).constant_f32(&[]),
            TensorSpec::f32(&[3]).constant_f32(&[0.5, -1.25, 7.0]),
            TensorSpec::f32(&[1, 3, 3, 3]),
        )
    } else {
        (
            TensorSpec::int8(&[1, 2, 2, 0], 0.05, 1),
            TensorSpec::int8(&[3, 2, 2, 0], 1.0, 0)
                .per_channel(&[0.02, 0.01, 0.04], 0)
                .constant_i8(&[]),
            TensorSpec::int32(&[3]).constant_i32(&[1700, -1500, 30]),
            TensorSpec::int8(&[1, 3, 3, 3], 0.1, -2),
        )
    };
    ModelSpec::single_op(
        B::TRANSPOSE_CONV,
        Options::TransposeConv {
            padding: Padding::VALID,
            stride_w: 1,
            stride_h: 1,
            activation: Activation::RELU6,
        },
        vec![
            TensorSpec::int32(&[4]).constant_i32(&[1, 3, 3, 3]),
            filter,
            input,
            bias,
        ],
        vec![output],
    )
}

/// FULLY_CONNECTED of input `[2, 4]` and weights `[0, 4]` (no units) with a bias of no values
/// into `[2, 0]`: TFLM's Prepare checks types and scales, its Eval loops over no output, and the
/// output has no element to write (issue 32). int8 or float32.
fn fc_no_units(float: bool) -> ModelSpec {
    let (input, weights, bias, output) = if float {
        (
            TensorSpec::f32(&[2, 4]),
            TensorSpec::f32(&[0, 4]).constant_f32(&[]),
            TensorSpec::f32(&[0]).constant_f32(&[]),
            TensorSpec::f32(&[0]),
        )
    } else {
        (
            TensorSpec::int8(&[2, 4], 0.05, 3),
            TensorSpec::int8(&[0, 4], 0.02, 0).constant_i8(&[]),
            TensorSpec::int32(&[0]).quant(0.001, 0).constant_i32(&[]),
            TensorSpec::int8(&[0], 0.1, -2),
        )
    };
    ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::fully_connected(Activation::RELU),
        vec![input, weights, bias],
        vec![output],
    )
}

pub(super) fn empty_depth(s: &mut Suite<'_>) {
    s.accepted("fully_connected_no_units", fc_no_units(false));
    s.accepted("fully_connected_float_no_units", fc_no_units(true));
    s.accepted("fully_connected_int16_no_units", {
        let mut m = fc_no_units(false);
        m.tensors[0] = TensorSpec::new(TensorType::INT16, &[2, 4]).quant(0.002, 0);
        m.tensors[2] = TensorSpec::new(TensorType::INT64, &[0])
            .quant(0.00004, 0)
            .constant_i64(&[]);
        m.tensors[3] = TensorSpec::new(TensorType::INT16, &[0]).quant(0.05, 0);
        m
    });
    s.accepted(
        "fully_connected_depth_0",
        fc8(TensorSpec::int8(&[3, 0], 0.02, 0).constant_i8(&[])),
    );
    s.accepted(
        "fully_connected_depth_0_weights_input",
        fc8(TensorSpec::int8(&[3, 0], 0.02, 0)),
    );
    s.accepted(
        "fully_connected_depth_0_int4",
        with_int4_weights(fc8(TensorSpec::int8(&[3, 0], 0.02, 0).constant_i8(&[])), 1),
    );
    s.accepted("fully_connected_depth_0_int16", fc16(TensorType::INT64));
    s.accepted(
        "fully_connected_depth_0_int16_int32_bias",
        fc16(TensorType::INT32),
    );
    s.accepted("fully_connected_depth_0_float", {
        ModelSpec::single_op(
            B::FULLY_CONNECTED,
            Options::fully_connected(Activation::RELU),
            vec![
                TensorSpec::f32(&[2, 0]),
                TensorSpec::f32(&[3, 0]).constant_f32(&[]),
                TensorSpec::f32(&[3]).constant_f32(&[0.5, -1.25, 7.0]),
            ],
            vec![TensorSpec::f32(&[2, 3])],
        )
    });
    // Only such weights: an empty shape tensor with an empty buffer is no constant for TFLM
    // (BROADCAST_TO's Prepare: "Non-constant >shape< tensor is not supported").
    s.refused(
        "broadcast_to_shape_empty_buffer",
        {
            let mut m = ModelSpec::single_op(
                B::BROADCAST_TO,
                Options::None,
                vec![TensorSpec::f32(&[]), TensorSpec::int32(&[0])],
                vec![TensorSpec::f32(&[])],
            );
            m.inputs = vec![0];
            m
        },
        Refusal::Invalid,
        "Non-constant >shape<",
    );
    s.accepted("transpose_conv_depth_0", transpose_conv(false));
    s.accepted("transpose_conv_depth_0_float", transpose_conv(true));
    s.accepted("transpose_conv_depth_0_int16", {
        let mut m = transpose_conv(false);
        m.tensors[2] = TensorSpec::new(TensorType::INT16, &[1, 2, 2, 0]).quant(0.002, 0);
        m.tensors[3] = TensorSpec::new(TensorType::INT64, &[3]).constant_i64(&[1700, -1500, 30]);
        m.tensors[4] = TensorSpec::new(TensorType::INT16, &[1, 3, 3, 3]).quant(0.0001, 0);
        m
    });
}

//! Accepted corners: FULLY_CONNECTED whose weights are not a constant. TFLM's Prepare asks nothing
//! of the filter's data (only its type and quantization parameters, which a graph input or an
//! operator's output carries as a constant does) and its Eval reads the filter tensor wherever it
//! is, so such a model runs there with a defined result: int8 (per-tensor and per-channel), int16
//! with 32-bit and 64-bit sums, and float32, from a graph input or an earlier operator. A bias
//! computed at run time likewise: Prepare reads its type and scale, Eval the tensor.

use super::{Refusal, Suite};
use crate::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
};

/// An int8 FULLY_CONNECTED of input [3, 8] (0.05, 3) and weights [4, 8] (a graph input, `weights`
/// gives their quantization) with a constant INT32 bias, into `units` of output (1.0, -2), RELU.
fn fc8_weights_input(weights: TensorSpec, units: i32) -> ModelSpec {
    ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::fully_connected(Activation::RELU),
        vec![
            TensorSpec::int8(&[3, 8], 0.05, 3),
            weights,
            TensorSpec::int32(&[4])
                .quant(0.001, 0)
                .constant_i32(&[700, -1500, 30, 0]),
        ],
        vec![TensorSpec::int8(&[3, units], 1.0, -2)],
    )
}

/// An int16 FULLY_CONNECTED (16x8) of input [5, 8] (0.002, 1234) and per-tensor weights [4, 8]
/// (a graph input), a constant bias of type `bias`, into [5, 4] (0.05, -77).
fn fc16_weights_input(bias: TensorType) -> ModelSpec {
    let values = [3000i64, -2000, 70, 0];
    let bias = match bias {
        TensorType::INT32 => TensorSpec::int32(&[4]).constant_i32(&values.map(|v| v as i32)),
        _ => TensorSpec::new(bias, &[4]).constant_i64(&values),
    };
    ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::fully_connected(Activation::NONE),
        vec![
            TensorSpec::new(TensorType::INT16, &[5, 8]).quant(0.002, 1234),
            TensorSpec::int8(&[4, 8], 0.01, 0),
            bias,
        ],
        vec![TensorSpec::new(TensorType::INT16, &[5, 4]).quant(0.05, -77)],
    )
}

/// A FULLY_CONNECTED of `input`, `weights` and `output` whose bias of 4 is computed at run time:
/// `bias` (a graph input) as it is, or, if `cast` is set, a CAST of an int16 graph input to it
/// (biases within ±32768, as a bias of the model's scale has, where a graph input of INT32
/// draws its whole range and saturates every output).
fn fc_bias_at_run_time(
    tensors: (TensorSpec, TensorSpec, TensorSpec),
    bias: TensorSpec,
    cast: bool,
    activation: Activation,
) -> ModelSpec {
    weighted_op(
        (B::FULLY_CONNECTED, Options::fully_connected(activation)),
        tensors,
        Some(bias),
        cast,
    )
}

/// An operator `op` of `input`, `weights` and `output`, and the optional `bias`, the weights a
/// graph input unless constant; a bias that is not constant is a graph input, or if `cast` is
/// set a CAST of an int16 graph input of its shape (see [`fc_bias_at_run_time`]).
fn weighted_op(
    (op, options): (B, Options),
    (input, weights, output): (TensorSpec, TensorSpec, TensorSpec),
    bias: Option<TensorSpec>,
    cast: bool,
) -> ModelSpec {
    let mut m = ModelSpec::new();
    let x = m.tensor(input);
    m.inputs.push(x);
    let weights_input = weights.is_activation();
    let w = m.tensor(weights);
    if weights_input {
        m.inputs.push(w);
    }
    let b = match bias {
        None => -1,
        Some(bias) => {
            let computed = bias.is_activation();
            let shape = bias.shape.clone().unwrap_or_default();
            let b = m.tensor(bias);
            if computed && cast {
                let raw = m.tensor(TensorSpec::new(TensorType::INT16, &shape));
                m.inputs.push(raw);
                m.op(B::CAST, Options::None, &[raw], &[b]);
            } else if computed {
                m.inputs.push(b);
            }
            b
        }
    };
    let out = m.tensor(output);
    m.outputs = vec![out];
    m.op(op, options, &[x, w, b], &[out]);
    m
}

/// Constant int8 weights [4, 8] of scale 0.02.
fn int8_weights() -> TensorSpec {
    let values: Vec<i8> = (0..32).map(|i| (i * 37 % 255 - 127) as i8).collect();
    TensorSpec::int8(&[4, 8], 0.02, 0).constant_i8(&values)
}

/// Biases computed at run time (issue 32).
fn biases_at_run_time(s: &mut Suite<'_>) {
    // int8, constant weights, an INT32 bias CAST from int16: the dyn kernel, not the folded one.
    s.accepted(
        "fully_connected_bias_computed",
        fc_bias_at_run_time(
            (
                TensorSpec::int8(&[3, 8], 0.05, 3),
                int8_weights(),
                TensorSpec::int8(&[3, 4], 0.5, -2),
            ),
            TensorSpec::int32(&[4]).quant(0.001, 0),
            true,
            Activation::NONE,
        ),
    );
    // Per-channel weights and the bias both computed at run time.
    s.accepted(
        "fully_connected_bias_and_weights_input_per_channel",
        fc_bias_at_run_time(
            (
                TensorSpec::int8(&[3, 8], 0.05, 3),
                TensorSpec::int8(&[4, 8], 1.0, 0).per_channel(&[0.02, 0.01, 0.04, 0.005], 0),
                TensorSpec::int8(&[3, 4], 0.1, -2),
            ),
            TensorSpec::int32(&[4]).quant(0.001, 0),
            true,
            Activation::RELU,
        ),
    );
    // 16x8 with 32-bit sums (an INT32 bias) and constant weights.
    s.accepted(
        "fully_connected_int16_int32_bias_computed",
        fc_bias_at_run_time(
            (
                TensorSpec::new(TensorType::INT16, &[5, 8]).quant(0.002, 1234),
                int8_weights(),
                TensorSpec::new(TensorType::INT16, &[5, 4]).quant(0.05, -77),
            ),
            TensorSpec::int32(&[4]).quant(0.00004, 0),
            true,
            Activation::NONE,
        ),
    );
    // float32, constant weights, the bias a graph input.
    s.accepted(
        "fully_connected_float_bias_input",
        fc_bias_at_run_time(
            (
                TensorSpec::f32(&[2, 8]),
                TensorSpec::f32(&[4, 8])
                    .constant_f32(&(0..32).map(|i| (i as f32 - 15.5) / 8.0).collect::<Vec<_>>()),
                TensorSpec::f32(&[2, 4]),
            ),
            TensorSpec::f32(&[4]),
            false,
            Activation::RELU6,
        ),
    );
}

/// CONV_2D with weights or a bias computed at run time (issue 32): the reference sums term by
/// term, taps outside the image skipped.
fn convolutions_at_run_time(s: &mut Suite<'_>) {
    let conv =
        |padding, stride, activation| (B::CONV_2D, Options::conv2d(padding, stride, activation));
    // int8 per-tensor weights from a graph input, SAME padding, a constant bias.
    s.accepted(
        "conv_weights_input",
        weighted_op(
            conv(Padding::SAME, (1, 1), Activation::RELU),
            (
                TensorSpec::int8(&[1, 5, 5, 3], 0.05, 3),
                TensorSpec::int8(&[4, 3, 3, 3], 0.01, 0),
                TensorSpec::int8(&[1, 5, 5, 4], 0.2, -5),
            ),
            Some(
                TensorSpec::int32(&[4])
                    .quant(0.0005, 0)
                    .constant_i32(&[700, -1500, 30, 0]),
            ),
            false,
        ),
    );
    // Per-channel weights and a bias both computed at run time, stride 2, VALID, two groups.
    s.accepted(
        "conv_weights_and_bias_input_per_channel_grouped",
        weighted_op(
            conv(Padding::VALID, (2, 2), Activation::NONE),
            (
                TensorSpec::int8(&[2, 7, 6, 4], 0.05, -7),
                TensorSpec::int8(&[4, 3, 2, 2], 1.0, 0).per_channel(&[0.02, 0.01, 0.04, 0.005], 0),
                TensorSpec::int8(&[2, 3, 3, 4], 0.3, 2),
            ),
            Some(TensorSpec::int32(&[4]).quant(0.001, 0)),
            true,
        ),
    );
    // int8 constant weights with a bias computed at run time: the dyn kernel, not the folded one.
    s.accepted(
        "conv_bias_computed",
        weighted_op(
            conv(Padding::SAME, (2, 1), Activation::RELU6),
            (
                TensorSpec::int8(&[1, 6, 5, 8], 0.05, 3),
                TensorSpec::int8(&[4, 2, 2, 8], 0.02, 0).constant_i8(
                    &(0..128)
                        .map(|i| (i * 37 % 255 - 127) as i8)
                        .collect::<Vec<_>>(),
                ),
                TensorSpec::int8(&[1, 6, 3, 4], 0.1, -20),
            ),
            Some(TensorSpec::int32(&[4]).quant(0.001, 0)),
            true,
        ),
    );
    // 16x8: 64-bit sums (an INT64 bias) and 32-bit sums (an INT32 bias), weights from an input.
    for (name, bias) in [
        (
            "conv_int16_weights_input",
            TensorSpec::new(TensorType::INT64, &[4]).constant_i64(&[3000, -2000, 70, 0]),
        ),
        (
            "conv_int16_int32_bias_weights_input",
            TensorSpec::int32(&[4]).constant_i32(&[3000, -2000, 70, 0]),
        ),
    ] {
        s.accepted(
            name,
            weighted_op(
                conv(Padding::SAME, (1, 1), Activation::NONE),
                (
                    TensorSpec::new(TensorType::INT16, &[1, 4, 4, 3]).quant(0.002, 0),
                    TensorSpec::int8(&[4, 3, 3, 3], 0.01, 0),
                    TensorSpec::new(TensorType::INT16, &[1, 4, 4, 4]).quant(0.05, 0),
                ),
                Some(bias.quant(0.00002, 0)),
                false,
            ),
        );
    }
    // float32 weights computed by an earlier operator (a RELU of a graph input), a bias input.
    s.accepted("conv_float_weights_computed", {
        let mut m = ModelSpec::new();
        let input = m.tensor(TensorSpec::f32(&[1, 4, 5, 2]));
        let raw = m.tensor(TensorSpec::f32(&[3, 2, 3, 2]));
        let weights = m.tensor(TensorSpec::f32(&[3, 2, 3, 2]));
        let bias = m.tensor(TensorSpec::f32(&[3]));
        let output = m.tensor(TensorSpec::f32(&[1, 4, 5, 3]));
        m.inputs = vec![input, raw, bias];
        m.outputs = vec![output];
        m.op(B::RELU, Options::None, &[raw], &[weights]);
        m.op(
            B::CONV_2D,
            Options::conv2d(Padding::SAME, (1, 1), Activation::RELU6),
            &[input, weights, bias],
            &[output],
        );
        m
    });
}

/// DEPTHWISE_CONV_2D with weights or a bias computed at run time (issue 32).
fn depthwise_at_run_time(s: &mut Suite<'_>) {
    let dw = |padding, stride, multiplier, activation| {
        (
            B::DEPTHWISE_CONV_2D,
            Options::depthwise(padding, stride, multiplier, activation),
        )
    };
    // int8 per-channel weights (along dimension 3) from a graph input, SAME, a constant bias.
    s.accepted(
        "depthwise_weights_input_per_channel",
        weighted_op(
            dw(Padding::SAME, (1, 1), 2, Activation::RELU),
            (
                TensorSpec::int8(&[1, 5, 4, 2], 0.05, 3),
                TensorSpec::int8(&[1, 3, 3, 4], 1.0, 0).per_channel(&[0.02, 0.01, 0.04, 0.005], 3),
                TensorSpec::int8(&[1, 5, 4, 4], 0.05, -5),
            ),
            Some(TensorSpec::int32(&[4]).constant_i32(&[700, -1500, 30, 0])),
            false,
        ),
    );
    // int8 constant weights with a bias computed at run time, stride 2, VALID.
    s.accepted(
        "depthwise_bias_computed",
        weighted_op(
            dw(Padding::VALID, (2, 2), 1, Activation::NONE),
            (
                TensorSpec::int8(&[2, 5, 5, 3], 0.05, -3),
                TensorSpec::int8(&[1, 2, 2, 3], 0.02, 0).constant_i8(
                    &(0..12)
                        .map(|i| (i * 37 % 255 - 127) as i8)
                        .collect::<Vec<_>>(),
                ),
                TensorSpec::int8(&[2, 2, 2, 3], 0.1, 4),
            ),
            Some(TensorSpec::int32(&[3]).quant(0.001, 0)),
            true,
        ),
    );
    // int16 with an INT64 bias, weights from a graph input.
    s.accepted(
        "depthwise_int16_weights_input",
        weighted_op(
            dw(Padding::SAME, (1, 1), 2, Activation::NONE),
            (
                TensorSpec::new(TensorType::INT16, &[1, 4, 4, 2]).quant(0.002, 0),
                TensorSpec::int8(&[1, 3, 3, 4], 0.01, 0),
                TensorSpec::new(TensorType::INT16, &[1, 4, 4, 4]).quant(0.02, 0),
            ),
            Some(
                TensorSpec::new(TensorType::INT64, &[4])
                    .constant_i64(&[3000, -2000, 70, 0])
                    .quant(0.00002, 0),
            ),
            false,
        ),
    );
    // float32 weights computed by an earlier operator (a RELU of a graph input), a bias input.
    s.accepted("depthwise_float_weights_computed", {
        let mut m = ModelSpec::new();
        let input = m.tensor(TensorSpec::f32(&[1, 4, 5, 2]));
        let raw = m.tensor(TensorSpec::f32(&[1, 2, 3, 6]));
        let weights = m.tensor(TensorSpec::f32(&[1, 2, 3, 6]));
        let bias = m.tensor(TensorSpec::f32(&[6]));
        let output = m.tensor(TensorSpec::f32(&[1, 4, 5, 6]));
        m.inputs = vec![input, raw, bias];
        m.outputs = vec![output];
        m.op(B::RELU, Options::None, &[raw], &[weights]);
        m.op(
            B::DEPTHWISE_CONV_2D,
            Options::depthwise(Padding::SAME, (1, 1), 3, Activation::RELU6),
            &[input, weights, bias],
            &[output],
        );
        m
    });
}

/// A TRANSPOSE_CONV (inputs: the output shape, the filter, the input, the optional bias) of
/// `input`, `weights` and `output`, `stride` and `padding`: the weights a graph input unless
/// constant; a bias that is not constant a graph input, or if `cast` is set a CAST of an int16
/// graph input of its shape.
fn transpose_op(
    (padding, stride, activation): (Padding, (i32, i32), Activation),
    (input, weights, output): (TensorSpec, TensorSpec, TensorSpec),
    bias: Option<TensorSpec>,
    cast: bool,
) -> ModelSpec {
    let out_shape = output.shape.clone().unwrap_or_default();
    let mut m = weighted_op(
        (
            B::TRANSPOSE_CONV,
            Options::TransposeConv {
                padding,
                stride_w: stride.1,
                stride_h: stride.0,
                activation,
            },
        ),
        (input, weights, output),
        bias,
        cast,
    );
    // weighted_op's operator reads [input, weights, bias]: TRANSPOSE_CONV's order is [output
    // shape, weights, input, bias].
    let shape = m.tensor(TensorSpec::int32(&[4]).constant_i32(&out_shape));
    let op = m.operators.last_mut().expect("the operator");
    let (x, w, b) = (op.inputs[0], op.inputs[1], op.inputs[2]);
    op.inputs = vec![shape, w, x];
    if b >= 0 {
        op.inputs.push(b);
    }
    m
}

/// TRANSPOSE_CONV with weights or a bias computed at run time (issue 32): TFLM's Prepare reads only
/// their types and quantization (transpose_conv.cc), its Eval the tensors wherever they are.
fn transpose_convolutions_at_run_time(s: &mut Suite<'_>) {
    // int8 per-tensor weights from a graph input, SAME, stride 2, a constant bias.
    s.accepted(
        "transpose_conv_weights_input",
        transpose_op(
            (Padding::SAME, (2, 2), Activation::RELU),
            (
                TensorSpec::int8(&[1, 3, 3, 3], 0.05, 3),
                TensorSpec::int8(&[4, 3, 3, 3], 0.01, 0),
                TensorSpec::int8(&[1, 6, 6, 4], 0.05, -5),
            ),
            Some(
                TensorSpec::int32(&[4])
                    .quant(0.0005, 0)
                    .constant_i32(&[700, -1500, 30, 0]),
            ),
            false,
        ),
    );
    // Per-channel weights and a bias both computed at run time, VALID, strides (2, 1), batches.
    s.accepted(
        "transpose_conv_weights_and_bias_input_per_channel",
        transpose_op(
            (Padding::VALID, (2, 1), Activation::NONE),
            (
                TensorSpec::int8(&[2, 3, 4, 2], 0.05, -7),
                TensorSpec::int8(&[4, 3, 2, 2], 1.0, 0).per_channel(&[0.02, 0.01, 0.04, 0.005], 0),
                TensorSpec::int8(&[2, 7, 5, 4], 0.1, 2),
            ),
            Some(TensorSpec::int32(&[4]).quant(0.001, 0)),
            true,
        ),
    );
    // int8 constant weights with a bias computed at run time: the dyn kernel, not the gathering
    // one of constant weights.
    s.accepted(
        "transpose_conv_bias_computed",
        transpose_op(
            (Padding::SAME, (1, 2), Activation::RELU6),
            (
                TensorSpec::int8(&[1, 3, 3, 5], 0.05, 3),
                TensorSpec::int8(&[3, 2, 3, 5], 0.02, 0).constant_i8(
                    &(0..90)
                        .map(|i| (i * 37 % 255 - 127) as i8)
                        .collect::<Vec<_>>(),
                ),
                TensorSpec::int8(&[1, 3, 6, 3], 0.1, -20),
            ),
            Some(TensorSpec::int32(&[3]).quant(0.001, 0)),
            true,
        ),
    );
    // 16x8: weights from a graph input with a constant INT64 bias, and constant weights with an
    // INT16 bias from a graph input (TFLM's Eval widens it at every call).
    s.accepted(
        "transpose_conv_int16_weights_input",
        transpose_op(
            (Padding::SAME, (2, 2), Activation::NONE),
            (
                TensorSpec::new(TensorType::INT16, &[1, 3, 3, 3]).quant(0.002, 0),
                TensorSpec::int8(&[4, 3, 3, 3], 0.01, 0),
                TensorSpec::new(TensorType::INT16, &[1, 6, 6, 4]).quant(0.01, 0),
            ),
            Some(
                TensorSpec::new(TensorType::INT64, &[4])
                    .constant_i64(&[3000, -2000, 70, 0])
                    .quant(0.00002, 0),
            ),
            false,
        ),
    );
    s.accepted(
        "transpose_conv_int16_int16_bias_input",
        transpose_op(
            (Padding::VALID, (1, 1), Activation::RELU),
            (
                TensorSpec::new(TensorType::INT16, &[1, 3, 2, 4]).quant(0.002, 0),
                TensorSpec::int8(&[3, 2, 2, 4], 0.01, 0).constant_i8(
                    &(0..48)
                        .map(|i| (i * 53 % 255 - 127) as i8)
                        .collect::<Vec<_>>(),
                ),
                TensorSpec::new(TensorType::INT16, &[1, 4, 3, 3]).quant(0.02, 0),
            ),
            Some(TensorSpec::new(TensorType::INT16, &[3]).quant(0.00002, 0)),
            false,
        ),
    );
    // A 32-bit bias of an int16 TRANSPOSE_CONV is read as int64_t by TFLM's Eval: past its end.
    s.refused(
        "transpose_conv_int16_int32_bias_input",
        transpose_op(
            (Padding::VALID, (1, 1), Activation::NONE),
            (
                TensorSpec::new(TensorType::INT16, &[1, 3, 2, 4]).quant(0.002, 0),
                TensorSpec::int8(&[3, 2, 2, 4], 0.01, 0),
                TensorSpec::new(TensorType::INT16, &[1, 4, 3, 3]).quant(0.02, 0),
            ),
            Some(TensorSpec::int32(&[3]).quant(0.00002, 0)),
            false,
        ),
        Refusal::Invalid,
        "reads it as INT64",
    );
    // float32 weights computed by an earlier operator (a RELU of a graph input), a bias input.
    s.accepted("transpose_conv_float_weights_computed", {
        let mut m = ModelSpec::new();
        let shape = m.tensor(TensorSpec::int32(&[4]).constant_i32(&[1, 5, 7, 3]));
        let input = m.tensor(TensorSpec::f32(&[1, 3, 4, 2]));
        let raw = m.tensor(TensorSpec::f32(&[3, 3, 2, 2]));
        let weights = m.tensor(TensorSpec::f32(&[3, 3, 2, 2]));
        let bias = m.tensor(TensorSpec::f32(&[3]));
        let output = m.tensor(TensorSpec::f32(&[1, 5, 7, 3]));
        m.inputs = vec![input, raw, bias];
        m.outputs = vec![output];
        m.op(B::RELU, Options::None, &[raw], &[weights]);
        m.op(
            B::TRANSPOSE_CONV,
            Options::TransposeConv {
                padding: Padding::SAME,
                stride_w: 2,
                stride_h: 2,
                activation: Activation::RELU6,
            },
            &[shape, weights, input, bias],
            &[output],
        );
        m
    });
}

/// An SVDF of input [2, 4], four filters of rank 2 over a memory of 3 and its variable state,
/// whose bias of two units is computed at run time: a CAST of an int16 graph input (int8, `state`
/// the time weights' and state's type), or a float32 graph input.
fn svdf_bias_at_run_time(state: TensorType) -> ModelSpec {
    svdf_model(state, Activation::RELU, true)
}

/// The SVDF of [`svdf_bias_at_run_time`] with `activation`, its bias computed at run time or (if
/// not `bias_at_run_time`) a constant.
pub(super) fn svdf_model(
    state: TensorType,
    activation: Activation,
    bias_at_run_time: bool,
) -> ModelSpec {
    svdf_computed(state, activation, [false, false, bias_at_run_time])
}

/// The SVDF of [`svdf_model`] with its feature weights, time weights and bias each computed at
/// run time where `at_run_time` says so (in that order), else constants. int8: the feature
/// weights an INT8 graph input; the time weights an INT8 graph input (int8 state) or a CAST of
/// one to INT16 (int16 state: the cast keeps the time products of int16 states well inside
/// int32, where TFLM's sums would overflow, undefined in C++); the bias a CAST of an INT16 input.
/// float32: the feature weights a RELU of a graph input, the time weights and bias graph inputs.
fn svdf_computed(state: TensorType, activation: Activation, at_run_time: [bool; 3]) -> ModelSpec {
    let [feature_at_run_time, time_at_run_time, bias_at_run_time] = at_run_time;
    let mut m = ModelSpec::new();
    let float = state == TensorType::FLOAT32;
    let (input, feature, time, bias, st, output) = if float {
        (
            TensorSpec::f32(&[2, 4]),
            TensorSpec::f32(&[4, 4])
                .constant_f32(&(0..16).map(|i| (i as f32 - 7.5) / 8.0).collect::<Vec<_>>()),
            TensorSpec::f32(&[4, 3])
                .constant_f32(&(0..12).map(|i| (5.5 - i as f32) / 6.0).collect::<Vec<_>>()),
            if bias_at_run_time {
                TensorSpec::f32(&[2])
            } else {
                TensorSpec::f32(&[2]).constant_f32(&[0.25, -0.5])
            },
            TensorSpec::f32(&[2, 12]).variable(),
            TensorSpec::f32(&[2, 2]),
        )
    } else {
        let (s_state, s_time) = (1.0 / 64.0, 1.0 / 128.0);
        let time: Vec<u8> = (0..12i32)
            .flat_map(|i| {
                let v = (i * 37 % 201 - 100) as i16;
                if state == TensorType::INT16 {
                    v.to_le_bytes().to_vec()
                } else {
                    vec![v as i8 as u8]
                }
            })
            .collect();
        (
            TensorSpec::int8(&[2, 4], 0.05, 3),
            TensorSpec::int8(&[4, 4], 0.02, 0).constant_i8(
                &(0..16)
                    .map(|i| (i * 53 % 255 - 127) as i8)
                    .collect::<Vec<_>>(),
            ),
            TensorSpec::new(state, &[4, 3])
                .constant(time)
                .quant(s_time, 0),
            if bias_at_run_time {
                TensorSpec::int32(&[2]).quant(s_state * s_time, 0)
            } else {
                TensorSpec::int32(&[2])
                    .quant(s_state * s_time, 0)
                    .constant_i32(&[300, -200])
            },
            TensorSpec::new(state, &[2, 12])
                .quant(s_state, 0)
                .variable(),
            TensorSpec::int8(&[2, 2], 0.1, -4),
        )
    };
    // A tensor computed at run time: the constant's type, shape and quantization, no data.
    let computed = |spec: TensorSpec, at_run_time: bool| {
        if at_run_time {
            TensorSpec {
                data: crate::TensorData::Buffer(0),
                ..spec
            }
        } else {
            spec
        }
    };
    let x = m.tensor(input);
    let f = m.tensor(computed(feature, feature_at_run_time));
    let t = m.tensor(computed(time, time_at_run_time));
    let b = m.tensor(bias);
    let st = m.tensor(st);
    let out = m.tensor(output);
    m.inputs = vec![x];
    if feature_at_run_time && float {
        let raw = m.tensor(TensorSpec::f32(&[4, 4]));
        m.inputs.push(raw);
        m.op(B::RELU, Options::None, &[raw], &[f]);
    } else if feature_at_run_time {
        m.inputs.push(f);
    }
    if time_at_run_time && state == TensorType::INT16 {
        let raw = m.tensor(TensorSpec::new(TensorType::INT8, &[4, 3]));
        m.inputs.push(raw);
        m.op(B::CAST, Options::None, &[raw], &[t]);
    } else if time_at_run_time {
        m.inputs.push(t);
    }
    if bias_at_run_time && float {
        m.inputs.push(b);
    } else if bias_at_run_time {
        let raw = m.tensor(TensorSpec::new(TensorType::INT16, &[2]));
        m.inputs.push(raw);
        m.op(B::CAST, Options::None, &[raw], &[b]);
    }
    m.outputs = vec![out];
    m.op(
        B::SVDF,
        Options::Svdf {
            rank: 2,
            activation,
        },
        &[x, f, t, b, st],
        &[out],
    );
    m
}

pub(super) fn weights_at_run_time(s: &mut Suite<'_>) {
    // SVDF with a bias computed at run time (issue 32): PrepareSvdf reads its type, shape and
    // scale, the Eval the tensor wherever it is.
    for (name, state) in [
        ("svdf_bias_computed", TensorType::INT16),
        ("svdf_state8_bias_computed", TensorType::INT8),
        ("svdf_float_bias_input", TensorType::FLOAT32),
    ] {
        s.accepted(name, svdf_bias_at_run_time(state));
    }
    // SVDF with feature weights, time weights or both computed at run time (issue 32): the same,
    // PrepareSvdf reads their types, shapes and scales (int8: its two multipliers come from the
    // scales), the Eval the tensors wherever they are.
    let int16 = TensorType::INT16;
    let float = TensorType::FLOAT32;
    for (name, state, at_run_time) in [
        ("svdf_feature_weights_input", int16, [true, false, false]),
        ("svdf_time_weights_computed", int16, [false, true, false]),
        ("svdf_weights_computed", int16, [true, true, false]),
        (
            "svdf_state8_weights_input",
            TensorType::INT8,
            [true, true, true],
        ),
        (
            "svdf_float_feature_weights_computed",
            float,
            [true, false, false],
        ),
        ("svdf_float_time_weights_input", float, [false, true, false]),
        ("svdf_float_weights_input", float, [true, true, true]),
    ] {
        s.accepted(name, svdf_computed(state, Activation::RELU, at_run_time));
    }
    biases_at_run_time(s);
    convolutions_at_run_time(s);
    depthwise_at_run_time(s);
    transpose_convolutions_at_run_time(s);
    s.accepted(
        "fully_connected_weights_input",
        fc8_weights_input(TensorSpec::int8(&[4, 8], 0.02, 0), 4),
    );
    s.accepted(
        "fully_connected_weights_input_per_channel",
        fc8_weights_input(
            TensorSpec::int8(&[4, 8], 1.0, 0).per_channel(&[0.02, 0.01, 0.04, 0.005], 0),
            4,
        ),
    );
    // The integer kernels run the output's units, the weights' first rows.
    s.accepted(
        "fully_connected_weights_input_first_units",
        fc8_weights_input(TensorSpec::int8(&[4, 8], 0.02, 0), 3),
    );
    s.accepted(
        "fully_connected_int16_weights_input",
        fc16_weights_input(TensorType::INT64),
    );
    s.accepted(
        "fully_connected_int16_int32_bias_weights_input",
        fc16_weights_input(TensorType::INT32),
    );
    // A constant input beside weights computed at run time: the kernel reads it from flash.
    s.accepted("fully_connected_constant_input_weights_input", {
        let input: Vec<i8> = (0..24).map(|i| (i * 29 % 256 - 128) as i8).collect();
        let mut m = fc8_weights_input(TensorSpec::int8(&[4, 8], 0.02, 0), 4);
        m.tensors[0] = TensorSpec::int8(&[3, 8], 0.05, 3).constant_i8(&input);
        m.inputs = vec![1];
        m
    });
    // float32 weights computed by an earlier operator (a RELU of a graph input), no bias.
    s.accepted("fully_connected_float_weights_computed", {
        let mut m = ModelSpec::new();
        let input = m.tensor(TensorSpec::f32(&[2, 5]));
        let raw = m.tensor(TensorSpec::f32(&[3, 5]));
        let weights = m.tensor(TensorSpec::f32(&[3, 5]));
        let output = m.tensor(TensorSpec::f32(&[2, 3]));
        m.inputs = vec![input, raw];
        m.outputs = vec![output];
        m.op(B::RELU, Options::None, &[raw], &[weights]);
        m.op(
            B::FULLY_CONNECTED,
            Options::fully_connected(Activation::RELU6),
            &[input, weights, -1],
            &[output],
        );
        m
    });
}

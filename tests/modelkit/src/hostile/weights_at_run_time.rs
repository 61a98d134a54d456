//! Accepted corners: FULLY_CONNECTED whose weights are not a constant. TFLM's Prepare asks nothing
//! of the filter's data (only its type and quantization parameters, which a graph input or an
//! operator's output carries as a constant does) and its Eval reads the filter tensor wherever it
//! is, so such a model runs there with a defined result: int8 (per-tensor and per-channel), int16
//! with 32-bit and 64-bit sums, and float32, from a graph input or an earlier operator.

use super::Suite;
use crate::{Activation, BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

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

pub(super) fn weights_at_run_time(s: &mut Suite<'_>) {
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

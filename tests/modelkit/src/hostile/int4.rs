//! INT4 weights (TFLite's packed `INT4`): the convolutions and FULLY_CONNECTED that TFLM runs with
//! them (accepted, bit-exact), and every other use of INT4 (refused). The models are int8 ones
//! whose weights are wrapped into `-8..=7` and packed ([`crate::int4::with_int4_weights`]).

use super::{Refusal, Suite};
use crate::int4::with_int4_weights;
use crate::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
};

/// Pseudo-random int8 values (all of int8: the packing wraps them into `-8..=7`).
fn values(n: usize, seed: usize) -> Vec<i8> {
    (0..n)
        .map(|i| ((i * 53 + seed * 29 + 11) % 256) as u8 as i8)
        .collect()
}

/// Per-channel scales 0.02 + 0.007·c.
fn scales(channels: usize) -> Vec<f32> {
    (0..channels).map(|c| 0.02 + 0.007 * c as f32).collect()
}

/// An int32 bias of `channels` channels, scales `s_in * s_w[c]`.
fn bias(s_in: f32, s_w: &[f32]) -> TensorSpec {
    let channels = s_w.len();
    let values: Vec<i32> = (0..channels as i32)
        .map(|c| (c * 131) % 500 - 250)
        .collect();
    TensorSpec::int32(&[channels as i32])
        .per_channel(&s_w.iter().map(|s| s * s_in).collect::<Vec<_>>(), 0)
        .constant_i32(&values)
}

/// FULLY_CONNECTED `[batches, depth] → [batches, units]` with INT4 weights, per tensor (or per
/// channel: what TFLM refuses), a bias or none, input zero point 3. Tensors: 0 input, 1
/// weights, (2 bias), then output.
fn fc4(
    (batches, depth, units): (i32, i32, i32),
    per_channel: bool,
    with_bias: bool,
    activation: Activation,
) -> ModelSpec {
    let s_in = 0.05f32;
    let s_w = if per_channel {
        scales(units as usize)
    } else {
        vec![0.03]
    };
    let weights = TensorSpec::int8(&[units, depth], s_w[0], 0);
    let weights = if per_channel {
        weights.per_channel(&s_w, 0)
    } else {
        weights
    };
    let mut inputs = vec![
        TensorSpec::int8(&[batches, depth], s_in, 3),
        weights.constant_i8(&values((units * depth) as usize, 1)),
    ];
    if with_bias {
        let s = vec![s_w[0]; units as usize];
        inputs.push(bias(s_in, if per_channel { &s_w } else { &s }));
    }
    let m = ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::fully_connected(activation),
        inputs,
        vec![TensorSpec::int8(&[batches, units], 0.08, -2)],
    );
    with_int4_weights(m, 1)
}

/// CONV_2D with INT4 weights: input `[1, h, h, cin]` (0.05, -4), filter `[cout, k, k, filter_c]`
/// (per channel, or per tensor), a bias, output per `padding` and `stride` (0.1, 3).
/// Tensors: 0 input, 1 filter, 2 bias, 3 output.
fn conv4(
    (h, cin, cout, k, filter_c): (i32, i32, i32, i32, i32),
    (padding, stride): (Padding, i32),
    per_channel: bool,
    activation: Activation,
) -> ModelSpec {
    let s_in = 0.05f32;
    let s_w = if per_channel {
        scales(cout as usize)
    } else {
        vec![0.04; cout as usize]
    };
    let filter = TensorSpec::int8(&[cout, k, k, filter_c], s_w[0], 0);
    let filter = if per_channel {
        filter.per_channel(&s_w, 0)
    } else {
        filter
    };
    let out = match padding {
        Padding::VALID => (h - k) / stride + 1,
        _ => (h + stride - 1) / stride,
    };
    let m = ModelSpec::single_op(
        B::CONV_2D,
        Options::conv2d(padding, (stride, stride), activation),
        vec![
            TensorSpec::int8(&[1, h, h, cin], s_in, -4),
            filter.constant_i8(&values((cout * k * k * filter_c) as usize, 2)),
            bias(s_in, &s_w),
        ],
        vec![TensorSpec::int8(&[1, out, out, cout], 0.1, 3)],
    );
    with_int4_weights(m, 1)
}

/// DEPTHWISE_CONV_2D 3×3 with INT4 weights: input `[1, h, h, channels]` (0.05, 2), depth
/// multiplier `multiplier`, per-channel (or per-tensor) weights, a bias, output (0.1, -5).
fn depthwise4(
    (h, channels, multiplier): (i32, i32, i32),
    (padding, stride): (Padding, i32),
    per_channel: bool,
) -> ModelSpec {
    let s_in = 0.05f32;
    let cout = channels * multiplier;
    let s_w = if per_channel {
        scales(cout as usize)
    } else {
        vec![0.04; cout as usize]
    };
    let filter = TensorSpec::int8(&[1, 3, 3, cout], s_w[0], 0);
    let filter = if per_channel {
        filter.per_channel(&s_w, 3)
    } else {
        filter
    };
    let out = match padding {
        Padding::VALID => (h - 3) / stride + 1,
        _ => (h + stride - 1) / stride,
    };
    let m = ModelSpec::single_op(
        B::DEPTHWISE_CONV_2D,
        Options::depthwise(padding, (stride, stride), multiplier, Activation::NONE),
        vec![
            TensorSpec::int8(&[1, h, h, channels], s_in, 2),
            filter.constant_i8(&values((9 * cout) as usize, 3)),
            bias(s_in, &s_w),
        ],
        vec![TensorSpec::int8(&[1, out, out, cout], 0.1, -5)],
    );
    with_int4_weights(m, 1)
}

/// The accepted corners: each operator TFLM runs with INT4 weights, per tensor and per channel,
/// with weight counts odd and even (an odd count's rows start mid-byte), and a FULLY_CONNECTED
/// of a constant input, which tinyaot folds.
pub(super) fn accepted(s: &mut Suite<'_>) {
    // A bias computed at run time (a CAST of an int8 graph input, biases of the weights' own
    // magnitude) beside the packed constant weights: TFLM's Prepare reads its type and scale,
    // its Eval the tensor wherever it is.
    s.accepted("fully_connected_int4_bias_computed", {
        let mut m = fc4((2, 7, 5), false, true, Activation::RELU);
        m.tensors[2].data = crate::TensorData::Buffer(0);
        let raw = m.tensor(TensorSpec::new(crate::TensorType::INT8, &[5]));
        m.inputs.push(raw);
        m.op(B::CAST, Options::None, &[raw], &[2]);
        let cast = m.operators.pop().expect("the CAST");
        m.operators.insert(0, cast);
        m
    });
    s.accepted(
        "fully_connected_int4",
        fc4((2, 16, 6), false, true, Activation::RELU),
    );
    s.accepted(
        "fully_connected_int4_odd_count_no_bias",
        fc4((3, 7, 5), false, false, Activation::NONE),
    );
    // An output of fewer units than the weights: TFLM's reference FullyConnected takes the
    // output's, so the first 3 of 5 rows run (7 values each: the third ends mid-byte).
    s.accepted("fully_connected_int4_output_of_the_first_units", {
        let mut m = fc4((2, 7, 5), false, true, Activation::RELU);
        m.tensors[3].shape = Some(vec![2, 3]);
        m
    });
    s.accepted(
        "conv_int4_3x3_per_channel",
        conv4((6, 3, 4, 3, 3), (Padding::SAME, 1), true, Activation::NONE),
    );
    s.accepted(
        "conv_int4_1x1_per_channel_relu6",
        conv4(
            (5, 5, 8, 1, 5),
            (Padding::VALID, 1),
            true,
            Activation::RELU6,
        ),
    );
    s.accepted(
        "conv_int4_odd_count_strided",
        conv4(
            (7, 1, 3, 3, 1),
            (Padding::VALID, 2),
            false,
            Activation::NONE,
        ),
    );
    s.accepted(
        "conv_int4_grouped",
        conv4((5, 4, 6, 3, 2), (Padding::SAME, 1), true, Activation::RELU),
    );
    s.accepted(
        "depthwise_int4_multiplier",
        depthwise4((5, 3, 2), (Padding::SAME, 1), true),
    );
    s.accepted(
        "depthwise_int4_odd_count_strided",
        depthwise4((6, 3, 1), (Padding::SAME, 2), false),
    );
    // INT4 weights computed at run time: a graph input (no TFLM operator writes INT4), which TFLM
    // holds at one byte per element and its Eval unpacks from the first ceil(n / 2) bytes at
    // every call; tinyaot takes it as its packed bytes. The pip TFLM cannot set an INT4 input, so
    // generate.sh takes these goldens from int4_input_goldens.py: TFLM running a twin whose INT4
    // weights are a constant holding each case's packed bytes, which its Eval unpacks the same way.
    for (name, m) in [
        (
            "fully_connected_int4_weights_input",
            fc4((2, 7, 5), false, true, Activation::RELU),
        ),
        (
            "conv_int4_weights_input",
            conv4((6, 3, 4, 3, 3), (Padding::SAME, 1), true, Activation::NONE),
        ),
        (
            "depthwise_int4_weights_input",
            depthwise4((5, 3, 2), (Padding::SAME, 1), true),
        ),
    ] {
        let mut m = m;
        m.tensors[1].data = crate::TensorData::Buffer(0);
        m.inputs.push(1);
        s.accepted(name, m);
    }
    // A constant input: the FULLY_CONNECTED folds to a constant the ADD reads.
    s.accepted("fully_connected_int4_folded", {
        let mut m = fc4((1, 9, 4), false, true, Activation::NONE);
        m.tensors[0] = TensorSpec::int8(&[1, 9], 0.05, 3).constant_i8(&values(9, 4));
        let x = m.tensor(TensorSpec::int8(&[1, 4], 0.08, -2));
        let out = m.tensor(TensorSpec::int8(&[1, 4], 0.15, 1));
        let fc_out = m.outputs[0];
        m.inputs = vec![x];
        m.outputs = vec![out];
        m.op(B::ADD, Options::default_for(B::ADD), &[fc_out, x], &[out]);
        m
    });
}

/// The refusals: what TFLM refuses (per-channel INT4 FULLY_CONNECTED), INT4 anywhere but the
/// weights with int8 activations, and INT4 data that is not packed.
pub(super) fn refused(s: &mut Suite<'_>) {
    use Refusal::{Invalid, Load};
    s.refused(
        "fully_connected_int4_per_channel",
        fc4((2, 8, 4), true, true, Activation::NONE),
        Invalid,
        "per-channel",
    );
    // An INT4 activation: a RELU reading and writing INT4.
    s.refused(
        "relu_int4_activations",
        ModelSpec::single_op(
            B::RELU,
            Options::None,
            vec![TensorSpec::new(TensorType::INT4, &[1, 8]).quant(0.1, 0)],
            vec![TensorSpec::int8(&[1, 8], 0.1, 0)],
        ),
        Invalid,
        "INT4 only as the weights",
    );
    // INT4 data read by another operator: a constant INT4 operand of ADD.
    s.refused(
        "add_int4_constant",
        {
            let mut m = super::builders::binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 0));
            m.tensors[1] = TensorSpec::int8(&[1, 4], 0.1, 0).constant_i8(&[1, -2, 3, -4]);
            m.inputs = vec![0];
            with_int4_weights(m, 1)
        },
        Invalid,
        "INT4 only as the weights",
    );
    // A graph output that is the INT4 constant (no operator writes INT4, so no graph output is:
    // an INT4 graph input is weights computed at run time, accepted above).
    s.refused(
        "graph_output_int4_constant",
        {
            let mut m = fc4((1, 8, 2), false, false, Activation::NONE);
            m.outputs.push(1);
            m
        },
        Load,
        "graph output tensor #1",
    );
    // TFLM runs INT4 weights with int8 activations only.
    s.refused(
        "conv_int4_int16_activations",
        {
            let mut m = conv4((4, 1, 2, 3, 1), (Padding::SAME, 1), true, Activation::NONE);
            m.tensors[0] = TensorSpec::new(TensorType::INT16, &[1, 4, 4, 1]).quant(0.01, 0);
            m.tensors[3] = TensorSpec::new(TensorType::INT16, &[1, 4, 4, 2]).quant(0.02, 0);
            m.tensors[2] = TensorSpec::new(TensorType::INT64, &[2])
                .per_channel(&[0.0002, 0.0003], 0)
                .constant_i64(&[1, 2]);
            m
        },
        Invalid,
        "INT4 weights with INT16 input",
    );
    // Symmetric weights only, as for int8.
    s.refused(
        "depthwise_int4_nonzero_zero_point",
        {
            let mut m = depthwise4((4, 2, 1), (Padding::SAME, 1), false);
            m.tensors[1] = m.tensors[1].clone().quant(0.04, 1);
            m
        },
        Invalid,
        "zero point",
    );
    // One byte per element: not TFLM's packed layout.
    s.refused(
        "fully_connected_int4_unpacked",
        {
            let mut m = fc4((1, 8, 2), false, false, Activation::NONE);
            m.tensors[1].data = crate::TensorData::Constant(vec![1; 16]);
            m
        },
        Load,
        "packed two elements to a byte",
    );
}

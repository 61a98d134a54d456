//! Dead channels (accepted corners): convolutions and FULLY_CONNECTED whose all-zero filters
//! carry a tiny or zero weight scale, and the models that build them.

use super::builders::pseudo_random_weights;
use super::Suite;
use crate::{Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec};

/// Per-channel scales of `channels` output channels, 0.02 + 0.005·c, with the channels in `dead`
/// given `dead_scale` instead (a pruned or batch-norm-folded channel: the converter writes a scale
/// of 1e-11 or so for its all-zero filter).
fn channel_scales(channels: usize, dead: &[usize], dead_scale: f32) -> Vec<f32> {
    (0..channels)
        .map(|c| {
            if dead.contains(&c) {
                dead_scale
            } else {
                0.02 + 0.005 * c as f32
            }
        })
        .collect()
}

/// Weights laid out with the output channel `c` at index `i` given by `channel_of(i)`, pseudo-random
/// but all zero in the `dead` channels.
fn weights_with_dead(len: usize, dead: &[usize], channel_of: impl Fn(usize) -> usize) -> Vec<i8> {
    let mut weights = pseudo_random_weights(len);
    for (i, w) in weights.iter_mut().enumerate() {
        if dead.contains(&channel_of(i)) {
            *w = 0;
        }
    }
    weights
}

/// Biases of `channels` channels (scale `s_in * s_w[c]`), with a large value in each dead channel
/// (what a tiny scale makes of a small real bias; TFLM's multiplier of 0 discards it).
fn biases_with_dead(channels: usize, dead: &[usize]) -> Vec<i32> {
    (0..channels)
        .map(|c| {
            if dead.contains(&c) {
                1_000_000_000
            } else {
                (c as i32 * 97) % 400 - 200
            }
        })
        .collect()
}

/// CONV_2D `kernel`, input [1,6,6,cin] (0.05, -4), per-channel weights with dead channels, output
/// [1,6,6,channels] (0.1, 3) (SAME, stride 1).
fn conv8_dead(
    kernel: usize,
    cin: usize,
    channels: usize,
    dead: &[usize],
    dead_scale: f32,
    activation: Activation,
) -> ModelSpec {
    let s_in = 0.05f32;
    let scales = channel_scales(channels, dead, dead_scale);
    let per = kernel * kernel * cin;
    ModelSpec::single_op(
        B::CONV_2D,
        Options::conv2d(Padding::SAME, (1, 1), activation),
        vec![
            TensorSpec::int8(&[1, 6, 6, cin as i32], s_in, -4),
            TensorSpec::int8(
                &[channels as i32, kernel as i32, kernel as i32, cin as i32],
                1.0,
                0,
            )
            .per_channel(&scales, 0)
            .constant_i8(&weights_with_dead(channels * per, dead, |i| i / per)),
            TensorSpec::int32(&[channels as i32])
                .per_channel(&scales.iter().map(|s| s * s_in).collect::<Vec<_>>(), 0)
                .constant_i32(&biases_with_dead(channels, dead)),
        ],
        vec![TensorSpec::int8(&[1, 6, 6, channels as i32], 0.1, 3)],
    )
}

/// DEPTHWISE_CONV_2D 3x3, input [1,6,6,channels] (0.05, 2), depth multiplier 1, per-channel
/// weights with dead channels, output (0.1, -5).
fn depthwise8_dead(channels: usize, dead: &[usize], activation: Activation) -> ModelSpec {
    let s_in = 0.05f32;
    let scales = channel_scales(channels, dead, 3e-11);
    ModelSpec::single_op(
        B::DEPTHWISE_CONV_2D,
        Options::depthwise(Padding::SAME, (1, 1), 1, activation),
        vec![
            TensorSpec::int8(&[1, 6, 6, channels as i32], s_in, 2),
            TensorSpec::int8(&[1, 3, 3, channels as i32], 1.0, 0)
                .per_channel(&scales, 3)
                .constant_i8(&weights_with_dead(9 * channels, dead, |i| i % channels)),
            TensorSpec::int32(&[channels as i32])
                .per_channel(&scales.iter().map(|s| s * s_in).collect::<Vec<_>>(), 0)
                .constant_i32(&biases_with_dead(channels, dead)),
        ],
        vec![TensorSpec::int8(&[1, 6, 6, channels as i32], 0.1, -5)],
    )
}

/// FULLY_CONNECTED [2,16] → [2,units], per-channel weights with dead units.
fn fc8_dead(units: usize, dead: &[usize]) -> ModelSpec {
    let s_in = 0.05f32;
    let scales = channel_scales(units, dead, 1e-11);
    ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::fully_connected(Activation::NONE),
        vec![
            TensorSpec::int8(&[2, 16], s_in, 1),
            TensorSpec::int8(&[units as i32, 16], 1.0, 0)
                .per_channel(&scales, 0)
                .constant_i8(&weights_with_dead(units * 16, dead, |i| i / 16)),
            TensorSpec::int32(&[units as i32])
                .per_channel(&scales.iter().map(|s| s * s_in).collect::<Vec<_>>(), 0)
                .constant_i32(&biases_with_dead(units, dead)),
        ],
        vec![TensorSpec::int8(&[2, units as i32], 0.2, -2)],
    )
}

/// Dead channels: all-zero filters whose tiny (or zero) weight scale makes TFLM's requantization
/// multiplier 0, so the channel's output is the output zero point clamped by the activation.
/// Each convolution shape reaches another kernel (3x3, 1x1, and the DSP pairs of many channels).
pub(super) fn dead_channels(s: &mut Suite<'_>) {
    s.accepted(
        "conv_dead_channels_3x3",
        conv8_dead(3, 3, 8, &[1, 6], 2.29e-10, Activation::NONE),
    );
    s.accepted(
        "conv_dead_channels_1x1_relu6",
        conv8_dead(1, 16, 16, &[0, 5, 15], 1e-11, Activation::RELU6),
    );
    s.accepted(
        "conv_dead_channels_zero_scale",
        conv8_dead(1, 8, 4, &[2], 0.0, Activation::RELU),
    );
    s.accepted(
        "depthwise_dead_channels",
        depthwise8_dead(8, &[3, 4], Activation::NONE),
    );
    s.accepted(
        "depthwise_dead_channels_relu",
        depthwise8_dead(16, &[0, 15], Activation::RELU),
    );
    s.accepted("fully_connected_dead_units", fc8_dead(6, &[0, 4]));
}

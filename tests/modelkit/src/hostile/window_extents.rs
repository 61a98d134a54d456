//! Windowed operators (CONV_2D, DEPTHWISE_CONV_2D, the pools) whose output tensor's extent is not
//! the one their padding gives. TFLM computes the padding from the window alone
//! (`ComputePaddingHeightWidth`, which never looks at the output tensor), then its kernels walk
//! the output tensor's extent, skipping the taps outside the image: a defined result, compiled
//! (accepted corners), and so is an image of no rows or columns. The exception is an average whose
//! window has no tap in the image: TFLM's `AveragePool` returns there and leaves the rest of the
//! output unwritten (refused, undefined).

use super::builders::{conv8, dw16, pseudo_random_weights as weights, with};
use super::{Refusal, Suite};
use crate::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
};

/// Pseudo-random float weights in [-1, 1).
fn float_weights(len: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 37 + 5) % 64) as f32 / 32.0 - 1.0)
        .collect()
}

/// float32 CONV_2D of a `[1, h, w, 2]` input with a `[3, kh, kw, 2]` filter, strides `(w, h)`.
fn conv_f32(
    input: [i32; 2],
    filter: [i32; 2],
    stride: (i32, i32),
    padding: Padding,
    output: [i32; 2],
) -> ModelSpec {
    let taps = (filter[0] * filter[1] * 2) as usize;
    ModelSpec::single_op(
        B::CONV_2D,
        Options::conv2d(padding, stride, Activation::NONE),
        vec![
            TensorSpec::f32(&[1, input[0], input[1], 2]),
            TensorSpec::f32(&[3, filter[0], filter[1], 2]).constant_f32(&float_weights(3 * taps)),
            TensorSpec::f32(&[3]).constant_f32(&[0.5, -0.25, 1.0]),
        ],
        vec![TensorSpec::f32(&[1, output[0], output[1], 3])],
    )
}

/// An int8 pool over `[1, 3, 3, 2]`, VALID, 2×2 windows moved by 2 (one output pixel), into an
/// output of `output` rows and columns.
fn pool8(op: B, output: [i32; 2], activation: Activation) -> ModelSpec {
    ModelSpec::single_op(
        op,
        Options::pool(Padding::VALID, (2, 2), (2, 2), activation),
        vec![TensorSpec::int8(&[1, 3, 3, 2], 0.1, -5)],
        vec![TensorSpec::int8(&[1, output[0], output[1], 2], 0.1, -5)],
    )
}

pub(super) fn window_extents(s: &mut Suite) {
    // SAME 3×3 over 4×4 pads 1 for a 4×4 output; TFLM keeps that padding for 6×5 (the last rows
    // and columns mostly outside the image) and for 2×3.
    s.accepted(
        "conv_output_larger_than_padding_gives",
        with(conv8(Activation::RELU), |m| {
            m.tensors[3].shape = Some(vec![1, 6, 5, 2])
        }),
    );
    s.accepted(
        "conv_output_smaller_than_padding_gives",
        with(conv8(Activation::NONE), |m| {
            m.tensors[3].shape = Some(vec![1, 2, 3, 2])
        }),
    );
    // A 1×1 convolution whose output is larger than its input: not a matrix product any more
    // (the pixels past the input's are the bias alone).
    s.accepted(
        "conv_pointwise_output_larger_than_input",
        ModelSpec::single_op(
            B::CONV_2D,
            Options::conv2d(Padding::VALID, (1, 1), Activation::NONE),
            vec![
                TensorSpec::int8(&[1, 4, 4, 3], 0.05, 7),
                TensorSpec::int8(&[4, 1, 1, 3], 1.0, 0)
                    .per_channel(&[0.01, 0.02, 0.015, 0.03], 0)
                    .constant_i8(&weights(12)),
                TensorSpec::int32(&[4])
                    .per_channel(&[0.0005, 0.001, 0.00075, 0.0015], 0)
                    .constant_i32(&[300, -300, 50, 0]),
            ],
            vec![TensorSpec::int8(&[1, 5, 6, 4], 0.1, -3)],
        ),
    );
    // VALID windows wider than the input. 9×9 moved by 4 over 2×2: ComputeOutSize truncates
    // (2 + 4 - 9) / 4 to 0, and the total padding (0 - 1) * 4 + 9 - 2 = 3 puts 1 before.
    s.accepted(
        "conv_float_valid_window_wider_than_input",
        conv_f32([2, 2], [9, 9], (4, 4), Padding::VALID, [1, 1]),
    );
    // 11 taps moved by 4 over 1 column: the extent (1 + 4 - 11) / 4 = -1 is TFLM's error, which
    // leaves both paddings 0 (the rows' 1 as well).
    s.accepted(
        "conv_float_valid_extent_negative",
        conv_f32([2, 1], [9, 11], (4, 4), Padding::VALID, [2, 2]),
    );
    s.accepted(
        "conv_float_valid_output_larger",
        conv_f32([5, 4], [3, 2], (1, 2), Padding::VALID, [4, 3]),
    );
    // int16 depthwise: VALID 3×3 over 4×5 gives 2×3; the model says 3×4.
    s.accepted(
        "depthwise_int16_output_larger_than_padding_gives",
        with(dw16(Some(TensorType::INT64), 0), |m| {
            let output = m.tensors.len() - 1;
            m.tensors[output].shape = Some(vec![1, 3, 4, 4]);
        }),
    );
    // int8 depthwise: SAME 3×3 moved by 2 over 5×5 gives 3×3 with 1 before; the model says 4×2.
    s.accepted(
        "depthwise_output_of_another_extent",
        ModelSpec::single_op(
            B::DEPTHWISE_CONV_2D,
            Options::depthwise(Padding::SAME, (2, 2), 1, Activation::RELU6),
            vec![
                TensorSpec::int8(&[1, 5, 5, 2], 0.1, -2),
                TensorSpec::int8(&[1, 3, 3, 2], 1.0, 0)
                    .per_channel(&[0.01, 0.02], 3)
                    .constant_i8(&weights(18)),
                TensorSpec::int32(&[2])
                    .per_channel(&[0.001, 0.002], 0)
                    .constant_i32(&[100, -100]),
            ],
            vec![TensorSpec::int8(&[1, 4, 2, 2], 0.05, 1)],
        ),
    );
    // Max pools over windows with no tap in the image: TFLM's lowest value, clamped by the
    // activation (the zero point under RELU; -FLT_MAX for floats without one).
    s.accepted(
        "max_pool_windows_outside_the_image",
        pool8(B::MAX_POOL_2D, [3, 2], Activation::RELU),
    );
    s.accepted(
        "max_pool_float_windows_outside_the_image",
        ModelSpec::single_op(
            B::MAX_POOL_2D,
            Options::pool(Padding::VALID, (2, 2), (2, 2), Activation::NONE),
            vec![TensorSpec::f32(&[1, 3, 3, 1])],
            vec![TensorSpec::f32(&[1, 3, 3, 1])],
        ),
    );
    // Averages whose every window keeps a tap in the image: an int16 SAME 2×2 moved by 2 over
    // 5×7 (3×4) into 2×3; a float SAME 3×3 over 4×4 (4×4, 1 before) into 5×5.
    s.accepted(
        "average_pool_int16_output_smaller_than_padding_gives",
        ModelSpec::single_op(
            B::AVERAGE_POOL_2D,
            Options::pool(Padding::SAME, (2, 2), (2, 2), Activation::NONE),
            vec![TensorSpec::new(TensorType::INT16, &[1, 5, 7, 3]).quant(1.0 / 4096.0, 0)],
            vec![TensorSpec::new(TensorType::INT16, &[1, 2, 3, 3]).quant(1.0 / 4096.0, 0)],
        ),
    );
    s.accepted(
        "average_pool_float_output_larger_than_padding_gives",
        ModelSpec::single_op(
            B::AVERAGE_POOL_2D,
            Options::pool(Padding::SAME, (1, 1), (3, 3), Activation::NONE),
            vec![TensorSpec::f32(&[1, 4, 4, 2])],
            vec![TensorSpec::f32(&[1, 5, 5, 2])],
        ),
    );
    // An image of no rows (or no columns): every window is outside it. TFLM's convolution then
    // outputs its bias, its max pool the lowest value clamped; its average pool is undefined.
    s.accepted(
        "conv_empty_image",
        with(conv8(Activation::NONE), |m| {
            m.tensors[0].shape = Some(vec![1, 0, 4, 1])
        }),
    );
    s.accepted(
        "max_pool_empty_image",
        with(pool8(B::MAX_POOL_2D, [2, 2], Activation::RELU), |m| {
            m.tensors[0].shape = Some(vec![1, 3, 0, 2])
        }),
    );
    s.refused(
        "average_pool_empty_image",
        with(pool8(B::AVERAGE_POOL_2D, [2, 2], Activation::NONE), |m| {
            m.tensors[0].shape = Some(vec![1, 0, 3, 2])
        }),
        Refusal::Invalid,
        "empty",
    );
    s.refused(
        "average_pool_window_outside_the_image",
        pool8(B::AVERAGE_POOL_2D, [3, 2], Activation::NONE),
        Refusal::Invalid,
        "no tap in the image",
    );
}

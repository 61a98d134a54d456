//! [`Category::Quantization`]: scales, zero points and the multipliers derived from them.

use super::builders::{binary8, conv8, fc8, relu8, unary8, unary_f32, with};
use super::{Case, Category, Refusal, Suite};
use crate::{Activation, BuiltinOperator as B, ModelSpec, Options, TensorSpec};

pub(super) fn quantization(cases: &mut Vec<Case>) {
    use Refusal::Invalid;
    let mut s = Suite {
        cases,
        category: Category::Quantization,
    };
    let not_normal = "not a positive, finite, normal number";
    for (name, scale) in [
        ("relu_input_scale_zero", 0.0),
        ("relu_input_scale_negative", -0.5),
        ("relu_input_scale_nan", f32::NAN),
        ("relu_input_scale_inf", f32::INFINITY),
        ("relu_input_scale_denormal", 1e-40),
    ] {
        s.refused(name, relu8((scale, 0), (0.1, 0)), Invalid, not_normal);
    }
    s.refused(
        "relu_output_scale_zero",
        relu8((0.1, 0), (0.0, 0)),
        Invalid,
        not_normal,
    );
    for (name, zp) in [
        ("relu_zero_point_128", 128),
        ("relu_zero_point_200", 200),
        ("relu_zero_point_minus_129", -129),
        ("relu_zero_point_2_pow_40", 1 << 40),
    ] {
        s.refused(name, relu8((0.1, zp), (0.1, 0)), Invalid, "zero point");
    }
    s.refused(
        "add_output_zero_point_128",
        binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 128)),
        Invalid,
        "outside the int8 range",
    );
    s.refused(
        "conv_input_zero_point_minus_129",
        with(conv8(Activation::NONE), |m| {
            m.tensors[0] = m.tensors[0].clone().quant(0.1, -129)
        }),
        Invalid,
        "outside the int8 range",
    );
    // A denormal weight scale is a dead channel's (TFLM's multiplier for it is 0): compiled.
    s.accepted(
        "conv_weight_scale_denormal",
        with(conv8(Activation::NONE), |m| {
            m.tensors[1] = m.tensors[1].clone().per_channel(&[1e-40, 0.25], 0)
        }),
    );
    s.refused(
        "conv_weight_scale_nan",
        with(conv8(Activation::NONE), |m| {
            m.tensors[1] = m.tensors[1].clone().per_channel(&[f32::NAN, 0.25], 0)
        }),
        Invalid,
        "not a finite number",
    );
    s.refused(
        "conv_weights_asymmetric",
        with(conv8(Activation::NONE), |m| {
            if let Some(q) = &mut m.tensors[1].quantization {
                q.zero_points = Some(vec![3, 0]);
            }
        }),
        Invalid,
        "zero point",
    );
    s.refused(
        "conv_per_channel_count_mismatch",
        with(conv8(Activation::NONE), |m| {
            m.tensors[1] = m.tensors[1].clone().per_channel(&[0.5, 0.25, 0.1], 0)
        }),
        Refusal::Load,
        "",
    );
    s.refused(
        "conv_fused_relu6_tiny_output_scale",
        with(conv8(Activation::RELU6), |m| {
            m.tensors[0] = m.tensors[0].clone().quant(1e-12, 0);
            m.tensors[3] = m.tensors[3].clone().quant(1e-12, 0);
        }),
        Invalid,
        "does not fit in int32",
    );
    s.refused(
        "conv_requantization_above_2_pow_31",
        with(conv8(Activation::NONE), |m| {
            m.tensors[0] = m.tensors[0].clone().quant(1e6, 0);
            m.tensors[3] = m.tensors[3].clone().quant(1e-6, 0);
        }),
        Invalid,
        "2^31 or more",
    );
    s.refused(
        "fully_connected_bias_scale_mismatch",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.tensors[2] = m.tensors[2].clone().quant(1.0, 0)
        }),
        Invalid,
        "bias scale",
    );
    s.refused(
        "fully_connected_scale_product_overflows",
        with(fc8(3e38, 1e10, 1.0), |m| {
            m.tensors[2] = m.tensors[2].clone().quant(f32::MAX, 0)
        }),
        Invalid,
        "",
    );
    s.refused(
        "fully_connected_output_scale_zero",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.tensors[3] = m.tensors[3].clone().quant(0.0, 0)
        }),
        Invalid,
        not_normal,
    );
    s.refused(
        "leaky_relu_alpha_nan",
        unary8(
            B::LEAKY_RELU,
            Options::LeakyRelu { alpha: f32::NAN },
            (0.1, 0),
            (0.1, 0),
        ),
        Invalid,
        "alpha",
    );
    s.refused(
        "leaky_relu_alpha_inf",
        unary8(
            B::LEAKY_RELU,
            Options::LeakyRelu {
                alpha: f32::INFINITY,
            },
            (0.1, 0),
            (0.1, 0),
        ),
        Invalid,
        "alpha",
    );
    // A float LEAKY_RELU multiplies by its alpha as it is: TFLM computes -inf or NaN, not garbage.
    for (name, alpha) in [
        ("leaky_relu_f32_alpha_inf", f32::INFINITY),
        ("leaky_relu_f32_alpha_nan", f32::NAN),
    ] {
        s.accepted(
            name,
            ModelSpec::single_op(
                B::LEAKY_RELU,
                Options::LeakyRelu { alpha },
                vec![TensorSpec::f32(&[2, 8])],
                vec![TensorSpec::f32(&[2, 8])],
            ),
        );
    }
    s.refused(
        "softmax_beta_nan",
        unary8(
            B::SOFTMAX,
            Options::Softmax { beta: f32::NAN },
            (0.1, 0),
            (1.0 / 256.0, -128),
        ),
        Invalid,
        "beta",
    );
    s.refused(
        "softmax_beta_inf_float",
        unary_f32(
            B::SOFTMAX,
            Options::Softmax {
                beta: f32::INFINITY,
            },
        ),
        Invalid,
        "beta",
    );
    s.refused(
        "softmax_output_zero_point_not_minus_128",
        unary8(
            B::SOFTMAX,
            Options::Softmax { beta: 1.0 },
            (0.1, 0),
            (1.0 / 256.0, 0),
        ),
        Invalid,
        "-128",
    );
    s.refused(
        "tanh_output_scale_not_1_128",
        unary8(B::TANH, Options::None, (0.1, 0), (1.0 / 256.0, 0)),
        Invalid,
        "fixed",
    );
    s.refused(
        "logistic_output_scale_not_1_256",
        unary8(B::LOGISTIC, Options::None, (0.1, 0), (1.0 / 128.0, -128)),
        Invalid,
        "fixed",
    );
    s.refused(
        "logistic_output_zero_point_0",
        unary8(B::LOGISTIC, Options::None, (0.1, 0), (1.0 / 256.0, 0)),
        Invalid,
        "fixed",
    );
    s.refused(
        "quantize_to_a_tiny_scale",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::f32(&[1, 8])],
            vec![TensorSpec::int8(&[1, 8], 1e-12, 0)],
        ),
        Invalid,
        "does not fit in int32",
    );
    s.refused(
        "dequantize_scale_nan",
        ModelSpec::single_op(
            B::DEQUANTIZE,
            Options::Dequantize,
            vec![TensorSpec::int8(&[1, 8], f32::NAN, 0)],
            vec![TensorSpec::f32(&[1, 8])],
        ),
        Invalid,
        not_normal,
    );
    s.refused(
        "relu6_input_scale_1e_minus_10",
        unary8(B::RELU6, Options::None, (1e-10, 0), (1e-10, 0)),
        Invalid,
        "does not fit in int32",
    );
    s.refused(
        "int8_activation_without_quantization",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[0].quantization = None
        }),
        Invalid,
        "no quantization",
    );
    s.refused(
        "sub_input_multiplier_not_below_one",
        binary8(B::SUB, (0.1, 0), (0.1, 0), (1e-9, 0)),
        Invalid,
        "",
    );
    per_channel_axes(&mut s);
}

/// Per-channel weight scales along another dimension than the output channels' (issue 32): TFLM's
/// Prepare checks their count against that dimension's size (PopulateConvolutionQuantizationParams
/// also against the output channels) and its kernels take scale `c` for output channel `c`.
fn per_channel_axes(s: &mut Suite<'_>) {
    // CONV_2D filter [4, 3, 3, 4]: four scales along the input channels (dimension 3), which the
    // output channels match.
    s.accepted(
        "conv_per_channel_along_input_channels",
        ModelSpec::single_op(
            B::CONV_2D,
            Options::conv2d(crate::Padding::SAME, (1, 1), Activation::NONE),
            vec![
                TensorSpec::int8(&[1, 5, 5, 4], 0.05, 3),
                TensorSpec::int8(&[4, 3, 3, 4], 1.0, 0)
                    .per_channel(&[0.02, 0.005, 0.01, 0.04], 3)
                    .constant_i8(&super::builders::pseudo_random_weights(144)),
                TensorSpec::int32(&[4]).constant_i32(&[300, -200, 0, 50]),
            ],
            vec![TensorSpec::int8(&[1, 5, 5, 4], 0.5, -4)],
        ),
    );
    // FULLY_CONNECTED weights [4, 8] with eight scales along the depth: the kernel reads the
    // first four, one per unit.
    s.accepted(
        "fully_connected_per_channel_along_depth",
        with(fc8(0.05, 1.0, 0.5), |m| {
            let weights = m.tensors[1].clone();
            m.tensors[1] = weights.per_channel(&[0.02, 0.01, 0.04, 0.005, 0.1, 0.2, 0.3, 0.4], 1);
        }),
    );
    // Weights [8, 4] with four scales along the depth and eight units: TFLM's kernel reads
    // multipliers past the four it allocated.
    s.refused(
        "fully_connected_per_channel_fewer_scales_than_units",
        ModelSpec::single_op(
            B::FULLY_CONNECTED,
            Options::fully_connected(Activation::NONE),
            vec![
                TensorSpec::int8(&[2, 4], 0.05, 1),
                TensorSpec::int8(&[8, 4], 1.0, 0)
                    .per_channel(&[0.02, 0.01, 0.04, 0.005], 1)
                    .constant_i8(&super::builders::pseudo_random_weights(32)),
            ],
            vec![TensorSpec::int8(&[2, 8], 0.5, -2)],
        ),
        Refusal::Invalid,
        "fewer than the 8 units",
    );
    // A CONV_2D filter [2, 3, 3, 3] with three scales along the input channels: not one per
    // output channel, which PopulateConvolutionQuantizationParams refuses.
    s.refused(
        "conv_per_channel_scales_not_per_output_channel",
        ModelSpec::single_op(
            B::CONV_2D,
            Options::conv2d(crate::Padding::SAME, (1, 1), Activation::NONE),
            vec![
                TensorSpec::int8(&[1, 4, 4, 3], 0.05, 3),
                TensorSpec::int8(&[2, 3, 3, 3], 1.0, 0)
                    .per_channel(&[0.02, 0.005, 0.01], 3)
                    .constant_i8(&super::builders::pseudo_random_weights(54)),
            ],
            vec![TensorSpec::int8(&[1, 4, 4, 2], 0.5, -4)],
        ),
        Refusal::Invalid,
        "one per output channel (2)",
    );
}

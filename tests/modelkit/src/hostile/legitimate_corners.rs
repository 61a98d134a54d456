//! [`Category::LegitimateCorners`]: unusual but legitimate models, which must be accepted (and
//! match TFLM).

use super::builders::{
    binary32, binary8_shaped, concatenation_of, conv8, dw16, fc16, fc8, int16, relu8, unary16,
    unary8, unary8_shaped, with,
};
use super::dead_channels::dead_channels;
use super::empty_depth::empty_depth;
use super::folded_and_passed_through::folded_and_passed_through;
use super::int4;
use super::weights_at_run_time::weights_at_run_time;
use super::window_extents::window_extents;
use super::{divergent_scales, Case, Category, Expect, Suite};
use crate::{
    Activation, BufferSpec, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec,
    TensorType,
};

pub(super) fn legitimate_corners(cases: &mut Vec<Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // A float SVDF's fused activation is TFLM's ActivationValFloat (issue 32): TANH is std::tanh
    // and SIGN_BIT std::signbit (1 or 0), not clamps; RELU_N1_TO_1 and RELU6 clamp.
    for (name, activation) in [
        ("svdf_float_tanh", Activation::TANH),
        ("svdf_float_sign_bit", Activation::SIGN_BIT),
        ("svdf_float_relu_n1_to_1", Activation::RELU_N1_TO_1),
    ] {
        s.accepted(
            name,
            super::weights_at_run_time::svdf_model(TensorType::FLOAT32, activation, false),
        );
    }
    // Scale pairs where a float multiplier is 1 LSB off: RELU, LEAKY_RELU, SUB, ADD, MUL, FC,
    // CONV, QUANTIZE (requantize) and MEAN must all take TFLM's double arithmetic.
    const WIDE: &[i32] = &[4, 256];
    for k in 0..4u32 {
        let (a, b) = divergent_scales(k);
        s.accepted(
            &format!("relu_divergent_scales_{k}"),
            unary8_shaped(WIDE, B::RELU, Options::None, (a, -3), (b, 2)),
        );
        s.accepted(
            &format!("leaky_relu_divergent_scales_{k}"),
            unary8_shaped(
                WIDE,
                B::LEAKY_RELU,
                Options::LeakyRelu { alpha: 0.3 },
                (a, 1),
                (b, -1),
            ),
        );
        s.accepted(
            &format!("sub_divergent_scales_{k}"),
            binary8_shaped(WIDE, B::SUB, (a, 0), (b, 3), (a.max(b) * 2.0, -5)),
        );
        s.accepted(
            &format!("add_divergent_scales_{k}"),
            binary8_shaped(WIDE, B::ADD, (a, 0), (b, 3), (a.max(b) * 2.0, -5)),
        );
        s.accepted(
            &format!("fully_connected_divergent_scales_{k}"),
            fc8(a, 0.02, b * 4.0),
        );
        s.accepted(
            &format!("requantize_divergent_scales_{k}"),
            unary8_shaped(WIDE, B::QUANTIZE, Options::Quantize, (a, 4), (b, -4)),
        );
        s.accepted(
            &format!("hard_swish_divergent_scales_{k}"),
            unary8_shaped(WIDE, B::HARD_SWISH, Options::HardSwish, (a, 2), (b, -2)),
        );
    }
    // int16 activations (16x8): FULLY_CONNECTED applies both zero points, summing in 64 bits for
    // an INT64 bias and in 32 for an INT32 one; DEPTHWISE_CONV_2D with per-tensor weights and
    // without a bias.
    s.accepted("fully_connected_int16_zero_points", fc16(TensorType::INT64));
    s.accepted(
        "fully_connected_int16_int32_bias_zero_points",
        fc16(TensorType::INT32),
    );
    s.accepted("depthwise_int16_no_bias", dw16(None, 0));
    // int16 PRELU with an int8 alpha: TFLM's CalculatePreluParams reads every zero point, the
    // int16 ones too (inputs far enough below theirs to saturate the output); alpha a constant
    // broadcast over the rows, then a graph input of the output's shape.
    let prelu16 = |alpha: TensorSpec| {
        ModelSpec::single_op(
            B::PRELU,
            Options::None,
            vec![int16(&[1, 4, 6], (0.001, 300)), alpha],
            vec![int16(&[1, 4, 6], (0.0007, -150))],
        )
    };
    s.accepted(
        "prelu_int16_zero_points",
        prelu16(TensorSpec::int8(&[6], 0.02, -5).constant_i8(&[-128, -40, -5, 20, 60, 127])),
    );
    s.accepted(
        "prelu_int16_alpha_input",
        prelu16(TensorSpec::int8(&[1, 4, 6], 0.03, 7)),
    );
    // input scale / output scale is 0.75 exactly in f32 but just below in f64: TFLM's multiplier
    // is 1610612690, the float one 1610612736, and half the odd inputs round differently.
    let (s_in, s_out) = (0.75f32 * 0.7f32, 0.7f32);
    s.accepted(
        "relu_ratio_three_quarters_in_float",
        unary8_shaped(WIDE, B::RELU, Options::None, (s_in, 0), (s_out, 0)),
    );
    s.accepted(
        "leaky_relu_ratio_three_quarters_in_float",
        unary8_shaped(
            WIDE,
            B::LEAKY_RELU,
            Options::LeakyRelu { alpha: 0.5 },
            (s_in, 0),
            (s_out, 0),
        ),
    );
    s.accepted(
        "fully_connected_product_three_quarters_in_float",
        fc8(s_in, 1.0, s_out),
    );
    s.accepted(
        "leaky_relu_alpha_zero",
        unary8(
            B::LEAKY_RELU,
            Options::LeakyRelu { alpha: 0.0 },
            (0.1, 0),
            (0.1, 0),
        ),
    );
    s.accepted(
        "leaky_relu_alpha_negative",
        unary8(
            B::LEAKY_RELU,
            Options::LeakyRelu { alpha: -0.5 },
            (0.1, 3),
            (0.1, 0),
        ),
    );
    // A rescaling factor below 2^-31 quantizes to multiplier 0, shift 0 in TFLM: every output is
    // the output zero point (then clamped), a defined result.
    s.accepted("relu_multiplier_underflows", relu8((1e-20, 0), (1e20, 7)));
    dead_channels(&mut s);
    int4::accepted(&mut s);
    folded_and_passed_through(&mut s);
    window_extents(&mut s);
    weights_at_run_time(&mut s);
    empty_depth(&mut s);
    // A FlatBuffer that TFLM reads and the flatbuffers crate's verifier would refuse: an i64
    // zero-point vector at a position ≡ 4 (mod 8), as a vendor's post-processing leaves it; the
    // whole model 4 bytes off its alignment; tensor names and a description that are not UTF-8.
    let conv = conv8(Activation::RELU).to_bytes();
    let misaligned = crate::patch::misalign_zero_points(&conv, 1);
    s.bytes(
        "zero_points_unaligned",
        crate::patch::misalign_zero_points(&misaligned, 3),
        Expect::Accepted,
    );
    s.bytes(
        "model_off_its_alignment",
        crate::patch::shift(&conv, 4),
        Expect::Accepted,
    );
    let renamed =
        crate::patch::rename_tensor(&relu8((0.1, 0), (0.1, 0)).to_bytes(), 0, b"in\xff\xfe");
    let renamed = crate::patch::rename_tensor(&renamed, 1, b"\xc3(out");
    s.bytes(
        "names_not_utf8",
        crate::patch::set_description(&renamed, b"\x80description"),
        Expect::Accepted,
    );
    s.accepted(
        "relu_zero_points_at_the_int8_ends",
        relu8((0.05, -128), (0.05, 127)),
    );
    s.accepted("relu_scalar", {
        ModelSpec::single_op(
            B::RELU,
            Options::None,
            vec![TensorSpec::int8(&[], 0.1, 0)],
            vec![TensorSpec::int8(&[], 0.1, 0)],
        )
    });
    s.accepted("add_rank_6_broadcast", {
        ModelSpec::single_op(
            B::ADD,
            Options::default_for(B::ADD),
            vec![
                TensorSpec::f32(&[2, 1, 2, 1, 2, 1]),
                TensorSpec::f32(&[1, 2, 1, 2, 1, 2]),
            ],
            vec![TensorSpec::f32(&[2, 2, 2, 2, 2, 2])],
        )
    });
    s.accepted(
        "squeeze_all_size_1",
        ModelSpec::single_op(
            B::SQUEEZE,
            Options::Squeeze {
                squeeze_dims: Vec::new(),
            },
            vec![TensorSpec::f32(&[1, 3, 1])],
            vec![TensorSpec::f32(&[3])],
        ),
    );
    s.accepted(
        "squeeze_negative_dim",
        ModelSpec::single_op(
            B::SQUEEZE,
            Options::Squeeze {
                squeeze_dims: vec![-1],
            },
            vec![TensorSpec::f32(&[1, 3, 1])],
            vec![TensorSpec::f32(&[1, 3])],
        ),
    );
    s.accepted(
        "softmax_int8_to_int16",
        ModelSpec::single_op(
            B::SOFTMAX,
            Options::Softmax { beta: 1.0 },
            vec![TensorSpec::int8(&[2, 5], 0.1, 3)],
            vec![TensorSpec::new(TensorType::INT16, &[2, 5]).quant(1.0 / 65536.0, -32768)],
        ),
    );
    s.accepted(
        "quantize_int16_to_int8",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::new(TensorType::INT16, &[1, 8]).quant(0.001, 0)],
            vec![TensorSpec::int8(&[1, 8], 0.05, 1)],
        ),
    );
    // int16 (16x8) corners. LOGISTIC and TANH: TFLM's power-of-two input scales (2^-12 for both,
    // 2^-11 for TANH: multiplier 3 or 6, no shift) and a large general one (multiplier 30720, most
    // inputs saturate); full-range random inputs reach every table entry.
    const WIDE16: &[i32] = &[4, 256];
    let q15 = (1.0 / 32768.0, 0);
    s.accepted(
        "logistic_int16_input_scale_2_pow_minus_12",
        unary16(WIDE16, B::LOGISTIC, (1.0 / 4096.0, 0), q15),
    );
    s.accepted(
        "tanh_int16_input_scale_2_pow_minus_11",
        unary16(WIDE16, B::TANH, (1.0 / 2048.0, 0), q15),
    );
    s.accepted(
        "logistic_int16_input_scale_2_5",
        unary16(WIDE16, B::LOGISTIC, (2.5, 0), q15),
    );
    s.accepted(
        "tanh_int16_input_scale_1e_minus_4",
        unary16(WIDE16, B::TANH, (1e-4, 0), q15),
    );
    // RELU int16 requantizes with TFLM's double ratio (the divergent pairs), RELU6 int16 clamps
    // raw values to [zp_in, q(6)] and looks at no zero point or output scale.
    for k in 0..2u32 {
        let (a, b) = divergent_scales(k);
        s.accepted(
            &format!("relu_int16_divergent_scales_{k}"),
            unary16(WIDE16, B::RELU, (a, 0), (b * 16.0, 0)),
        );
    }
    s.accepted(
        "relu6_int16_zero_point",
        unary16(WIDE16, B::RELU6, (0.0004, -3000), (0.05, 7)),
    );
    // CONCATENATION int16 with different scales: concatenated raw, no requantization.
    s.accepted(
        "concatenation_int16_different_scales",
        ModelSpec::single_op(
            B::CONCATENATION,
            Options::default_for(B::CONCATENATION),
            vec![int16(&[2, 3], (0.01, 0)), int16(&[2, 5], (0.5, 0))],
            vec![int16(&[2, 8], (0.02, 0))],
        ),
    );
    // The QUANTIZE and DEQUANTIZE conversions into and out of int16 with nonzero zero points.
    s.accepted(
        "quantize_int8_to_int16",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int8(WIDE16, 0.05, 3)],
            vec![int16(WIDE16, (0.0013, -20))],
        ),
    );
    // int8 ↔ int32, TFLM's other integer conversions: zero points on both sides, and int32 inputs
    // beyond the int8 range (clamped).
    s.accepted(
        "quantize_int8_to_int32",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int8(WIDE16, 0.05, 3)],
            vec![TensorSpec::int32(WIDE16).quant(0.0007, -1000)],
        ),
    );
    s.accepted(
        "quantize_int32_to_int8",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int32(WIDE16).quant(0.0007, 12)],
            vec![TensorSpec::int8(WIDE16, 0.01, -5)],
        ),
    );
    s.accepted("quantize_int16_to_int16_divergent_scales", {
        let (a, b) = divergent_scales(2);
        unary16(WIDE16, B::QUANTIZE, (a, 5), (b * 8.0, -9))
    });
    s.accepted(
        "quantize_float_to_int16_zero_point",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::f32(WIDE16)],
            vec![int16(WIDE16, (0.0001, -7))],
        ),
    );
    s.accepted(
        "dequantize_int16_zero_point",
        ModelSpec::single_op(
            B::DEQUANTIZE,
            Options::Dequantize,
            vec![int16(WIDE16, (0.002, 11))],
            vec![TensorSpec::f32(WIDE16)],
        ),
    );
    // TFLM's uint8 conversions: int8 ↔ uint8 (with the zero points 128 apart at equal scales, its
    // `x ^ 0x80` shortcut) and uint8 → float32.
    let uint8 = |scale: f32, zero_point: i64| {
        TensorSpec::new(TensorType::UINT8, WIDE16).quant(scale, zero_point)
    };
    s.accepted(
        "quantize_int8_to_uint8_zero_points_128_apart",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int8(WIDE16, 0.05, -3)],
            vec![uint8(0.05, 125)],
        ),
    );
    s.accepted(
        "quantize_int8_to_uint8",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int8(WIDE16, 0.05, 3)],
            vec![uint8(0.03, 140)],
        ),
    );
    s.accepted(
        "quantize_uint8_to_int8",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![uint8(0.1, 100)],
            vec![TensorSpec::int8(WIDE16, 0.07, -10)],
        ),
    );
    s.accepted(
        "dequantize_uint8",
        ModelSpec::single_op(
            B::DEQUANTIZE,
            Options::Dequantize,
            vec![uint8(0.02, 131)],
            vec![TensorSpec::f32(WIDE16)],
        ),
    );
    // MEAN int16 with zero points and different scales (TFLM's integer path, as int8's).
    s.accepted(
        "mean_int16_zero_points",
        ModelSpec::single_op(
            B::MEAN,
            Options::Reducer { keep_dims: false },
            vec![
                int16(&[1, 5, 7, 6], (0.003, 40)),
                TensorSpec::int32(&[1]).constant_i32(&[2]),
            ],
            vec![int16(&[1, 5, 6], (0.002, -15))],
        ),
    );
    // SUM int8 over duplicate and negative axes (ResolveAxis reduces an axis once), rescaled,
    // with zero points; and int16 with zero points (TFLM's integer path checks none).
    s.accepted(
        "sum_int8_duplicate_negative_axes",
        ModelSpec::single_op(
            B::SUM,
            Options::Reducer { keep_dims: true },
            vec![
                TensorSpec::int8(&[2, 3, 4, 5], 0.02, -7),
                TensorSpec::int32(&[4]).constant_i32(&[-1, 1, 3, -3]),
            ],
            vec![TensorSpec::int8(&[2, 1, 4, 1], 0.09, 11)],
        ),
    );
    s.accepted(
        "sum_int16_zero_points",
        ModelSpec::single_op(
            B::SUM,
            Options::Reducer { keep_dims: false },
            vec![
                int16(&[3, 4, 5], (0.001, 25)),
                TensorSpec::int32(&[2]).constant_i32(&[0, 2]),
            ],
            vec![int16(&[4], (0.004, -9))],
        ),
    );
    // An empty reduced dimension: TFLM's ReduceGeneric fills the output with its initial value
    // (REDUCE_MIN: the float maximum; float SUM: 0) and returns; the integer SUM leaves 0.
    s.accepted(
        "reduce_min_float_empty_axis",
        ModelSpec::single_op(
            B::REDUCE_MIN,
            Options::Reducer { keep_dims: true },
            vec![
                TensorSpec::f32(&[2, 0, 3]),
                TensorSpec::int32(&[1]).constant_i32(&[1]),
            ],
            vec![TensorSpec::f32(&[2, 1, 3])],
        ),
    );
    s.accepted(
        "sum_int8_empty_axis",
        ModelSpec::single_op(
            B::SUM,
            Options::Reducer { keep_dims: false },
            vec![
                TensorSpec::int8(&[3, 0], 0.05, 4),
                TensorSpec::int32(&[1]).constant_i32(&[1]),
            ],
            vec![TensorSpec::int8(&[3], 0.1, 6)],
        ),
    );
    // REDUCE_ALL over an empty dimension: ReduceGeneric fills the output with `true` and returns.
    s.accepted(
        "reduce_all_empty_axis",
        ModelSpec::single_op(
            B::REDUCE_ALL,
            Options::Reducer { keep_dims: false },
            vec![
                TensorSpec::new(TensorType::BOOL, &[2, 0, 3]),
                TensorSpec::int32(&[1]).constant_i32(&[1]),
            ],
            vec![TensorSpec::new(TensorType::BOOL, &[2, 3])],
        ),
    );
    // int32 ADD, SUB, MUL, MAXIMUM and MINIMUM: TFLM's unquantized int32 arithmetic, same shape
    // and broadcast. Full-range random inputs overflow often: tinyaot wraps (TFLM's MUL wraps by
    // definition, its ADD and SUB overflow a C++ int32, undefined, and wrap as compiled).
    // ADD's int32 path ignores the fused activation (its range is int32's); SUB and MUL clamp to
    // `CalculateActivationRange<int32_t>`: RELU [0, max], RELU6 [0, 6], RELU_N1_TO_1 [-1, 1], and
    // the whole range for the others, TANH and SIGN_BIT included.
    s.accepted(
        "add_int32_relu_ignored",
        binary32(B::ADD, &[2, 8], &[2, 8], &[2, 8], Activation::RELU),
    );
    s.accepted(
        "add_int32_broadcast",
        binary32(B::ADD, &[2, 3, 4], &[4], &[2, 3, 4], Activation::NONE),
    );
    s.accepted(
        "add_int32_constant_overflows",
        with(
            binary32(B::ADD, &[2, 1, 4], &[3, 1], &[2, 3, 4], Activation::NONE),
            |m| {
                m.tensors[1] = m.tensors[1].clone().constant_i32(&[i32::MAX, i32::MIN, -1]);
                m.inputs = vec![0];
            },
        ),
    );
    s.accepted(
        "sub_int32_relu",
        binary32(B::SUB, &[2, 8], &[2, 8], &[2, 8], Activation::RELU),
    );
    s.accepted(
        "sub_int32_broadcast_relu6",
        binary32(B::SUB, &[2, 1, 4], &[3, 1], &[2, 3, 4], Activation::RELU6),
    );
    s.accepted(
        "sub_int32_tanh_clamps_nothing",
        binary32(B::SUB, &[4, 4], &[4], &[4, 4], Activation::TANH),
    );
    s.accepted(
        "mul_int32",
        binary32(B::MUL, &[2, 8], &[2, 8], &[2, 8], Activation::NONE),
    );
    s.accepted(
        "mul_int32_broadcast_relu_n1_to_1",
        with(
            binary32(
                B::MUL,
                &[3, 1],
                &[2, 1, 4],
                &[2, 3, 4],
                Activation::RELU_N1_TO_1,
            ),
            |m| {
                // Small factors: products within [-1, 1] and beyond it both occur.
                m.tensors[0] = m.tensors[0].clone().constant_i32(&[0, 1, -1]);
                m.inputs = vec![1];
            },
        ),
    );
    s.accepted(
        "mul_int32_broadcast_relu",
        binary32(B::MUL, &[2, 3, 1], &[3, 4], &[2, 3, 4], Activation::RELU),
    );
    s.accepted(
        "maximum_int32",
        binary32(B::MAXIMUM, &[2, 8], &[2, 8], &[2, 8], Activation::NONE),
    );
    s.accepted(
        "minimum_int32_broadcast",
        binary32(
            B::MINIMUM,
            &[2, 3, 4],
            &[3, 1],
            &[2, 3, 4],
            Activation::NONE,
        ),
    );
    s.accepted(
        "maximum_int32_scalar",
        binary32(B::MAXIMUM, &[], &[2, 5], &[2, 5], Activation::NONE),
    );
    // Quantization parameters TFLM does not look at: ADD checks its inputs only, MUL, MAXIMUM and
    // MINIMUM none (their int32 paths read no scale or zero point).
    s.accepted(
        "add_int32_quantized_output",
        with(
            binary32(B::ADD, &[2, 4], &[2, 4], &[2, 4], Activation::NONE),
            |m| m.tensors[2] = m.tensors[2].clone().quant(0.5, 3),
        ),
    );
    s.accepted(
        "mul_int32_quantized",
        with(
            binary32(B::MUL, &[2, 4], &[4], &[2, 4], Activation::RELU6),
            |m| {
                for (t, (scale, zero_point)) in
                    [(0.5, 3), (0.25, -7), (2.0, 11)].into_iter().enumerate()
                {
                    m.tensors[t] = m.tensors[t].clone().quant(scale, zero_point);
                }
            },
        ),
    );
    s.accepted(
        "minimum_int32_quantized",
        with(
            binary32(B::MINIMUM, &[2, 4], &[2, 4], &[2, 4], Activation::NONE),
            |m| {
                m.tensors[0] = m.tensors[0].clone().quant(0.5, 3);
                m.tensors[2] = m.tensors[2].clone().quant(0.1, -2);
            },
        ),
    );
    s.accepted("conv_fused_relu6", conv8(Activation::RELU6));
    s.accepted(
        "conv_dilation_2",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].options = Options::Conv2D {
                padding: Padding::SAME,
                stride_w: 1,
                stride_h: 1,
                dilation_w: 2,
                dilation_h: 2,
                activation: Activation::NONE,
            }
        }),
    );
    s.accepted(
        "conv_without_bias",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].inputs = vec![0, 1, -1]
        }),
    );
    s.accepted(
        "fully_connected_keep_num_dims",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.operators[0].options = Options::FullyConnected {
                activation: Activation::RELU,
                weights_format: crate::WeightsFormat::DEFAULT,
                keep_num_dims: true,
            };
            m.tensors[0].shape = Some(vec![1, 1, 8]);
            m.tensors[3].shape = Some(vec![1, 1, 4]);
        }),
    );
    s.accepted(
        "max_pool_window_larger_than_input",
        ModelSpec::single_op(
            B::MAX_POOL_2D,
            Options::pool(Padding::SAME, (2, 2), (5, 5), Activation::NONE),
            vec![TensorSpec::int8(&[1, 3, 3, 2], 0.1, 1)],
            vec![TensorSpec::int8(&[1, 2, 2, 2], 0.1, 1)],
        ),
    );
    // int16 pools with a zero point, which TFLM allows (16x8 models have none): the average rounds
    // around raw 0, not around the zero point; the activation ranges are the zero point's.
    s.accepted(
        "average_pool_int16_zero_point",
        ModelSpec::single_op(
            B::AVERAGE_POOL_2D,
            Options::pool(Padding::SAME, (2, 2), (2, 2), Activation::RELU_N1_TO_1),
            vec![int16(&[1, 5, 7, 3], (1.0 / 4096.0, -300))],
            vec![int16(&[1, 3, 4, 3], (1.0 / 4096.0, -300))],
        ),
    );
    s.accepted(
        "max_pool_int16_zero_point_relu",
        ModelSpec::single_op(
            B::MAX_POOL_2D,
            Options::pool(Padding::SAME, (2, 2), (2, 2), Activation::RELU),
            vec![int16(&[1, 5, 7, 2], (0.5, 20000))],
            vec![int16(&[1, 3, 4, 2], (0.5, 20000))],
        ),
    );
    // int16 SOFTMAX with beta 0.5 and an input scale whose multiplier shifts left (by 3): most
    // differences saturate to the exp table's first entry.
    s.accepted(
        "softmax_int16_beta_and_left_shift",
        ModelSpec::single_op(
            B::SOFTMAX,
            Options::Softmax { beta: 0.5 },
            vec![int16(&[3, 7], (0.002, 0))],
            vec![int16(&[3, 7], (1.0 / 32768.0, 0))],
        ),
    );
    s.accepted(
        "strided_slice_rank_4_with_masks",
        ModelSpec::single_op(
            B::STRIDED_SLICE,
            Options::StridedSlice {
                begin_mask: 1,
                end_mask: 2,
                ellipsis_mask: 0,
                new_axis_mask: 0,
                shrink_axis_mask: 0,
                offset: false,
            },
            vec![
                TensorSpec::f32(&[2, 3, 2, 2]),
                TensorSpec::int32(&[4]).constant_i32(&[1, 0, 0, 1]),
                TensorSpec::int32(&[4]).constant_i32(&[2, 3, 2, 2]),
                TensorSpec::int32(&[4]).constant_i32(&[1, 2, 1, 1]),
            ],
            vec![TensorSpec::f32(&[2, 2, 2, 1])],
        ),
    );
    s.accepted("concatenation_10_inputs", concatenation_of(10));
    s.accepted(
        "unused_tensors_and_buffers",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensor(TensorSpec::f32(&[100]));
            m.tensor(TensorSpec::int8(&[4], 0.1, 0).constant_i8(&[1, 2, 3, 4]));
            m.buffer(BufferSpec::Data(vec![9; 16]));
        }),
    );
    s.accepted(
        "offline_memory_allocation_metadata",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.offline_plan(&[0, 16]);
        }),
    );
    s.accepted(
        "reshape_chain",
        with(ModelSpec::new(), |m| {
            let x = m.tensor(TensorSpec::f32(&[2, 3]));
            let a = m.tensor(TensorSpec::f32(&[3, 2]));
            let b = m.tensor(TensorSpec::f32(&[6]));
            let c = m.tensor(TensorSpec::f32(&[6]));
            m.op(
                B::RESHAPE,
                Options::Reshape {
                    new_shape: Some(vec![3, 2]),
                },
                &[x],
                &[a],
            );
            m.op(
                B::RESHAPE,
                Options::Reshape {
                    new_shape: Some(vec![6]),
                },
                &[a],
                &[b],
            );
            m.op(B::RELU, Options::None, &[b], &[c]);
            m.inputs = vec![x];
            m.outputs = vec![c];
        }),
    );
    s.accepted(
        "two_graph_outputs_from_one_op_chain",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            let t = m.tensor(TensorSpec::int8(&[1, 8], 0.1, 0));
            m.op(B::RELU6, Options::None, &[1], &[t]);
            m.outputs = vec![1, t];
        }),
    );
}

//! [`Category::TypesAndParameters`]: operator arity, element types, shapes and options.

use super::builders::{
    binary32, binary8, concatenation_of, conv8, dw16, fc16, fc8, int16, relu8, unary16, unary8,
    unary8_shaped, with,
};
use super::int4;
use super::{Case, Category, Refusal, Suite};
use crate::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
};

pub(super) fn types_and_parameters(cases: &mut Vec<Case>) {
    use Refusal::Invalid;
    let mut s = Suite {
        cases,
        category: Category::TypesAndParameters,
    };
    int4::refused(&mut s);
    // TFLM's EXPAND_DIMS copies FLOAT32, INT8 and INT16 only ("Expand_Dims only currently
    // supports int8, int16 and float32").
    s.refused(
        "expand_dims_int32",
        {
            let mut m = ModelSpec::new();
            let x = m.tensor(TensorSpec::int32(&[2, 3]));
            let axis = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[0]));
            let out = m.tensor(TensorSpec::int32(&[1, 2, 3]));
            m.inputs = vec![x];
            m.outputs = vec![out];
            m.op(B::EXPAND_DIMS, Options::None, &[x, axis], &[out]);
            m
        },
        Invalid,
        "TFLM's EXPAND_DIMS refuses it",
    );
    s.refused(
        "leaky_relu_with_3_inputs",
        with(
            unary8(
                B::LEAKY_RELU,
                Options::LeakyRelu { alpha: 0.2 },
                (0.1, 0),
                (0.1, 0),
            ),
            |m| {
                let a = m.tensor(TensorSpec::int8(&[1, 8], 0.1, 0).constant_i8(&[0; 8]));
                m.operators[0].inputs = vec![0, a, a];
            },
        ),
        Invalid,
        "3 inputs",
    );
    s.refused(
        "tanh_with_3_outputs",
        with(
            unary8(B::TANH, Options::None, (0.1, 0), (1.0 / 128.0, 0)),
            |m| {
                let a = m.tensor(TensorSpec::int8(&[1, 8], 1.0 / 128.0, 0));
                let b = m.tensor(TensorSpec::int8(&[1, 8], 1.0 / 128.0, 0));
                m.operators[0].outputs = vec![1, a, b];
            },
        ),
        Invalid,
        "3 outputs",
    );
    s.refused(
        "add_with_one_input",
        with(binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 0)), |m| {
            m.operators[0].inputs = vec![0];
            m.inputs = vec![0];
        }),
        Invalid,
        "1 inputs",
    );
    s.refused(
        "conv_with_4_inputs",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].inputs = vec![0, 1, 2, 2]
        }),
        Invalid,
        "4 inputs",
    );
    s.refused(
        "squeeze_dim_out_of_range",
        ModelSpec::single_op(
            B::SQUEEZE,
            Options::Squeeze {
                squeeze_dims: vec![5],
            },
            vec![TensorSpec::f32(&[1, 3, 1])],
            vec![TensorSpec::f32(&[3])],
        ),
        Invalid,
        "squeeze_dims",
    );
    s.refused(
        "squeeze_dim_not_size_1",
        ModelSpec::single_op(
            B::SQUEEZE,
            Options::Squeeze {
                squeeze_dims: vec![1],
            },
            vec![TensorSpec::f32(&[1, 3, 1])],
            vec![TensorSpec::f32(&[1, 3])],
        ),
        Invalid,
        "squeeze_dims",
    );
    s.refused(
        "squeeze_output_shape_wrong",
        ModelSpec::single_op(
            B::SQUEEZE,
            Options::Squeeze {
                squeeze_dims: vec![0],
            },
            vec![TensorSpec::f32(&[1, 3, 1])],
            vec![TensorSpec::f32(&[3])],
        ),
        Invalid,
        "squeezed input shape",
    );
    s.refused(
        "strided_slice_rank_5",
        ModelSpec::single_op(
            B::STRIDED_SLICE,
            Options::default_for(B::STRIDED_SLICE),
            vec![
                TensorSpec::f32(&[1, 1, 1, 2, 2]),
                TensorSpec::int32(&[5]).constant_i32(&[0; 5]),
                TensorSpec::int32(&[5]).constant_i32(&[1, 1, 1, 2, 2]),
                TensorSpec::int32(&[5]).constant_i32(&[1; 5]),
            ],
            vec![TensorSpec::f32(&[1, 1, 1, 2, 2])],
        ),
        Invalid,
        "at most 4",
    );
    s.refused(
        "transpose_int32",
        ModelSpec::single_op(
            B::TRANSPOSE,
            Options::Transpose,
            vec![
                TensorSpec::int32(&[2, 3]),
                TensorSpec::int32(&[2]).constant_i32(&[1, 0]),
            ],
            vec![TensorSpec::int32(&[3, 2])],
        ),
        Invalid,
        "TFLM's TRANSPOSE refuses it",
    );
    s.refused(
        "transpose_int64_perm",
        ModelSpec::single_op(
            B::TRANSPOSE,
            Options::Transpose,
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::new(TensorType::INT64, &[2]).constant_i64(&[1, 0]),
            ],
            vec![TensorSpec::f32(&[3, 2])],
        ),
        Invalid,
        "INT64",
    );
    // TFLM's TRANSPOSE walks the output's shape with the input's strides taken in perm's order,
    // comparing neither with anything: a repeated dimension or a smaller output is a defined
    // gather while it stays inside the input (out[i][j] = in[i + j] for perm [1, 1]).
    let transpose = |perm: &[i32], output: &[i32]| {
        ModelSpec::single_op(
            B::TRANSPOSE,
            Options::Transpose,
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::int32(&[perm.len() as i32]).constant_i32(perm),
            ],
            vec![TensorSpec::f32(output)],
        )
    };
    s.accepted(
        "transpose_perm_repeats_a_dimension",
        transpose(&[1, 1], &[3, 2]),
    );
    s.accepted("transpose_output_smaller", transpose(&[1, 0], &[2, 2]));
    s.refused(
        "transpose_output_reads_past_the_input",
        transpose(&[1, 0], &[3, 3]),
        Invalid,
        "reads input element",
    );
    s.refused(
        "transpose_perm_out_of_range",
        transpose(&[2, 0], &[3, 2]),
        Invalid,
        "does not name",
    );
    // ARG_MAX / ARG_MIN: TFLM's kernel has no Prepare; at Eval it takes an INT32 axis and output
    // and FLOAT32 or INT8 input, reads the axis tensor's first element and trusts the output shape.
    let arg = |op: B, input: TensorSpec, axis: TensorSpec, output: TensorSpec| {
        ModelSpec::single_op(op, Options::None, vec![input, axis], vec![output])
    };
    let axis = |a: i32| TensorSpec::int32(&[1]).constant_i32(&[a]);
    s.refused(
        "arg_max_int64_output",
        arg(
            B::ARG_MAX,
            TensorSpec::f32(&[2, 3]),
            axis(1),
            TensorSpec::new(TensorType::INT64, &[2]),
        ),
        Invalid,
        "INT32 indices only",
    );
    s.refused(
        "arg_min_int32_input",
        arg(
            B::ARG_MIN,
            TensorSpec::int32(&[2, 3]),
            axis(1),
            TensorSpec::int32(&[2]),
        ),
        Invalid,
        "FLOAT32 and INT8",
    );
    s.refused(
        "arg_max_axis_out_of_range",
        arg(
            B::ARG_MAX,
            TensorSpec::f32(&[2, 3]),
            axis(-3),
            TensorSpec::int32(&[2]),
        ),
        Invalid,
        "axis -3 is out of range",
    );
    // TFLM's reference ArgMinMax reads the axis tensor's first element and ignores the rest.
    s.accepted(
        "arg_max_two_axes",
        arg(
            B::ARG_MAX,
            TensorSpec::f32(&[2, 3]),
            TensorSpec::int32(&[2]).constant_i32(&[1, 0]),
            TensorSpec::int32(&[2]),
        ),
    );
    // TFLM's TRANSPOSE_CONV never reads its output_shape input: the output tensor's shape rules,
    // whatever output_shape says.
    s.accepted(
        "transpose_conv_output_shape_ignored",
        ModelSpec::single_op(
            B::TRANSPOSE_CONV,
            Options::TransposeConv {
                padding: Padding::VALID,
                stride_w: 1,
                stride_h: 1,
                activation: Activation::NONE,
            },
            vec![
                TensorSpec::int32(&[4]).constant_i32(&[1, 7, 7, 1]),
                TensorSpec::f32(&[1, 2, 2, 1]).constant_f32(&[1.0, -2.0, 0.5, 3.0]),
                TensorSpec::f32(&[1, 3, 3, 1]),
            ],
            vec![TensorSpec::f32(&[1, 4, 4, 1])],
        ),
    );
    s.refused(
        "arg_min_output_keeps_the_axis",
        arg(
            B::ARG_MIN,
            TensorSpec::f32(&[2, 3]),
            axis(1),
            TensorSpec::int32(&[2, 1]),
        ),
        Invalid,
        "without axis 1",
    );
    s.refused(
        "arg_max_int64_axis",
        arg(
            B::ARG_MAX,
            TensorSpec::f32(&[2, 3]),
            TensorSpec::new(TensorType::INT64, &[1]).constant_i64(&[1]),
            TensorSpec::int32(&[2]),
        ),
        Invalid,
        "reads it as INT32",
    );
    s.refused(
        "conv_dilation_above_int16",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].options = Options::Conv2D {
                padding: Padding::SAME,
                stride_w: 1,
                stride_h: 1,
                dilation_w: 40_000,
                dilation_h: 1,
                activation: Activation::NONE,
            }
        }),
        Invalid,
        "above 32767",
    );
    s.refused(
        "pool_padding_above_int16",
        ModelSpec::single_op(
            B::MAX_POOL_2D,
            Options::pool(Padding::SAME, (1, 1), (65_600, 1), Activation::NONE),
            vec![TensorSpec::int8(&[1, 1, 1, 1], 0.1, 0)],
            vec![TensorSpec::int8(&[1, 1, 1, 1], 0.1, 0)],
        ),
        Invalid,
        "above 32767",
    );
    s.refused(
        "fully_connected_shuffled_weights",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.operators[0].options = Options::FullyConnected {
                activation: Activation::NONE,
                weights_format: crate::WeightsFormat::SHUFFLED4x16INT8,
                keep_num_dims: false,
            }
        }),
        Invalid,
        "SHUFFLED4x16INT8",
    );
    s.refused(
        "fully_connected_hybrid",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.tensors[0] = TensorSpec::f32(&[1, 8]);
            m.tensors[3] = TensorSpec::f32(&[1, 4]);
        }),
        Invalid,
        "hybrid",
    );
    // TANH and SIGN_BIT fused into an integer kernel: TFLM's CalculateActivationRangeQuantized
    // names neither and leaves the output type's whole range, a clamp of nothing.
    s.accepted("conv_fused_tanh", conv8(Activation::TANH));
    s.accepted(
        "add_int8_fused_sign_bit",
        with(binary8(B::ADD, (0.1, 3), (0.05, -2), (0.2, 1)), |m| {
            m.operators[0].options = Options::Add {
                activation: Activation::SIGN_BIT,
            }
        }),
    );
    s.refused(
        "conv_zero_stride",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].options = Options::conv2d(Padding::SAME, (0, 1), Activation::NONE)
        }),
        Refusal::Load,
        "",
    );
    s.refused(
        "conv_unknown_padding",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].options = Options::conv2d(Padding(7), (1, 1), Activation::NONE)
        }),
        Refusal::Load,
        "",
    );
    // Input channels 3 with a filter depth of 1: 3 groups, which 2 output channels do not
    // divide (TFLM checks the grouping only with TFLITE_DCHECK).
    s.refused(
        "conv_groups_do_not_divide_output_channels",
        with(conv8(Activation::NONE), |m| {
            m.tensors[0].shape = Some(vec![1, 4, 4, 3]);
        }),
        Invalid,
        "not a whole number of groups",
    );
    // A float input with int8 weights (hybrid): TFLM's ConvPrepare refuses it.
    s.refused(
        "conv_float_input_int8_filter",
        with(conv8(Activation::NONE), |m| {
            m.tensors[0] = crate::TensorSpec::f32(&[1, 4, 4, 1]);
            m.tensors[3] = crate::TensorSpec::f32(&[1, 4, 4, 2]);
            m.tensors[2] = crate::TensorSpec::f32(&[2]).constant_f32(&[0.5, -0.5]);
        }),
        Invalid,
        "hybrid",
    );
    // Weights computed at run time are compiled as TFLM runs them (weights_at_run_time.rs): here
    // int16 depthwise ones without a bias.
    s.accepted(
        "depthwise_non_constant_filter",
        with(dw16(None, 0), |m| {
            m.tensors[1].data = crate::TensorData::Buffer(0);
            m.inputs = vec![0, 1];
        }),
    );
    // TFLM's kernels loop over the option's multiplier whatever the shapes say (0: nothing
    // written), checked only by TFLITE_DCHECK_EQ.
    for (name, multiplier) in [
        ("depthwise_multiplier_disagrees", 3),
        ("depthwise_multiplier_zero", 0),
    ] {
        s.refused(
            name,
            ModelSpec::single_op(
                B::DEPTHWISE_CONV_2D,
                Options::depthwise(Padding::VALID, (1, 1), multiplier, Activation::NONE),
                vec![
                    TensorSpec::f32(&[1, 3, 3, 2]),
                    TensorSpec::f32(&[1, 3, 3, 4]).constant_f32(&[0.5; 36]),
                ],
                vec![TensorSpec::f32(&[1, 1, 1, 4])],
            ),
            Invalid,
            "depth_multiplier",
        );
    }
    // TFLM reads an int16 DEPTHWISE_CONV_2D bias as int64 whatever its type, an int16
    // FULLY_CONNECTED one as int64 unless it is INT32; its 16x8 convolutions apply no zero points.
    s.refused(
        "depthwise_int16_int32_bias",
        dw16(Some(TensorType::INT32), 0),
        Invalid,
        "reads its bias as INT64",
    );
    s.refused(
        "fully_connected_int16_int16_bias",
        fc16(TensorType::INT16),
        Invalid,
        "misread",
    );
    s.refused(
        "depthwise_int16_zero_point",
        dw16(Some(TensorType::INT64), 5),
        Invalid,
        "zero point 5",
    );
    s.refused(
        "depthwise_bias_written_as_absent",
        with(
            ModelSpec::single_op(
                B::DEPTHWISE_CONV_2D,
                Options::depthwise(Padding::VALID, (1, 1), 1, Activation::NONE),
                vec![
                    TensorSpec::f32(&[1, 3, 3, 2]),
                    TensorSpec::f32(&[1, 3, 3, 2]).constant_f32(&[0.5; 18]),
                ],
                vec![TensorSpec::f32(&[1, 1, 1, 2])],
            ),
            |m| m.operators[0].inputs.push(-1),
        ),
        Invalid,
        "absent",
    );
    // TFLM's own limit, which PACK, SPLIT, SPLIT_V and UNPACK do not have: the refusal names it.
    s.refused(
        "concatenation_11_inputs",
        concatenation_of(11),
        Invalid,
        "kMaxInputNum = 10",
    );
    s.refused(
        "concatenation_axis_out_of_range",
        ModelSpec::single_op(
            B::CONCATENATION,
            Options::Concatenation {
                axis: 4,
                activation: Activation::NONE,
            },
            vec![TensorSpec::f32(&[1, 2]), TensorSpec::f32(&[1, 2])],
            vec![TensorSpec::f32(&[1, 4])],
        ),
        Invalid,
        "axis",
    );
    s.refused(
        "mean_axis_out_of_range",
        ModelSpec::single_op(
            B::MEAN,
            Options::Reducer { keep_dims: true },
            vec![
                TensorSpec::f32(&[1, 2, 2, 3]),
                TensorSpec::int32(&[1]).constant_i32(&[9]),
            ],
            vec![TensorSpec::f32(&[1, 2, 2, 1])],
        ),
        Invalid,
        "axis",
    );
    // REDUCE_MAX and REDUCE_MIN compare stored int8 values: TFLM's EvalMinMaxHelper ensures the
    // input and output scales and zero points are equal.
    s.refused(
        "reduce_max_int8_scales_differ",
        ModelSpec::single_op(
            B::REDUCE_MAX,
            Options::Reducer { keep_dims: false },
            vec![
                TensorSpec::int8(&[1, 4, 4, 3], 0.05, 3),
                TensorSpec::int32(&[2]).constant_i32(&[1, 2]),
            ],
            vec![TensorSpec::int8(&[1, 3], 0.1, 3)],
        ),
        Invalid,
        "differs from the output's",
    );
    s.refused(
        "reduce_min_int8_zero_points_differ",
        ModelSpec::single_op(
            B::REDUCE_MIN,
            Options::Reducer { keep_dims: true },
            vec![
                TensorSpec::int8(&[2, 5], 0.05, 3),
                TensorSpec::int32(&[1]).constant_i32(&[-1]),
            ],
            vec![TensorSpec::int8(&[2, 1], 0.05, -3)],
        ),
        Invalid,
        "differs from the output's",
    );
    // TFLM's PrepareSimple takes an INT32 axis tensor only, for every reduction.
    s.refused(
        "sum_axis_int64",
        ModelSpec::single_op(
            B::SUM,
            Options::Reducer { keep_dims: false },
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::new(TensorType::INT64, &[1]).constant_i64(&[1]),
            ],
            vec![TensorSpec::f32(&[2])],
        ),
        Invalid,
        "INT32",
    );
    // TFLM's REDUCE_MAX takes float32 and int8 only ("Only float32 and int8 types are supported").
    s.refused(
        "reduce_max_int16",
        ModelSpec::single_op(
            B::REDUCE_MAX,
            Options::Reducer { keep_dims: false },
            vec![
                int16(&[2, 3], (0.01, 0)),
                TensorSpec::int32(&[1]).constant_i32(&[1]),
            ],
            vec![int16(&[2], (0.01, 0))],
        ),
        Invalid,
        "INT16",
    );
    // TFLM's REDUCE_ALL takes BOOL only (PrepareAllHelper's TF_LITE_ENSURE_TYPES_EQ).
    s.refused(
        "reduce_all_int8",
        ModelSpec::single_op(
            B::REDUCE_ALL,
            Options::Reducer { keep_dims: false },
            vec![
                TensorSpec::int8(&[2, 3], 0.05, 0),
                TensorSpec::int32(&[1]).constant_i32(&[1]),
            ],
            vec![TensorSpec::int8(&[2], 0.05, 0)],
        ),
        Invalid,
        "BOOL",
    );
    s.refused(
        "pad_negative",
        ModelSpec::single_op(
            B::PAD,
            Options::Pad,
            vec![
                TensorSpec::f32(&[1, 3]),
                TensorSpec::int32(&[2, 2]).constant_i32(&[0, 0, -1, 2]),
            ],
            vec![TensorSpec::f32(&[1, 4])],
        ),
        Invalid,
        "negative",
    );
    // A graph without inputs: its output is folded at generation time.
    s.accepted(
        "mul_of_two_constants",
        with(binary8(B::MUL, (0.1, 0), (0.1, 0), (0.2, 0)), |m| {
            m.tensors[0] = m.tensors[0].clone().constant_i8(&[1; 4]);
            m.tensors[1] = m.tensors[1].clone().constant_i8(&[2; 4]);
            m.inputs.clear();
        }),
    );
    s.refused(
        "add_int8_inputs_float_output",
        with(binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 0)), |m| {
            m.tensors[2] = TensorSpec::f32(&[1, 4])
        }),
        Invalid,
        "FLOAT32",
    );
    s.refused(
        "add_shapes_do_not_broadcast",
        with(binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 0)), |m| {
            m.tensors[1].shape = Some(vec![1, 3])
        }),
        Invalid,
        "",
    );
    // float32 → uint8 passes TFLM's QUANTIZE Prepare and fails in its Eval.
    s.refused(
        "quantize_float_to_uint8",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::f32(&[1, 8])],
            vec![TensorSpec::new(TensorType::UINT8, &[1, 8]).quant(0.1, 128)],
        ),
        Invalid,
        "UINT8",
    );
    // TFLM's HARD_SWISH passes Prepare on int16 and fails in Eval.
    s.refused(
        "hard_swish_int16",
        unary16(&[1, 8], B::HARD_SWISH, (0.1, 0), (0.1, 0)),
        Invalid,
        "INT16",
    );
    // TFLM's RSQRT Prepare accepts FLOAT32 and INT8 only (IsRsqrtSupportedType), although its
    // Eval has an int16 branch; and its int8 rescaling by shift - 20 must stay a shift of at most
    // 31 bits: 1 / (sqrt(10^4) × 100) = 10^-4 is below 2^-12.
    s.refused(
        "rsqrt_int16",
        unary16(&[1, 8], B::RSQRT, (0.1, 0), (0.1, 0)),
        Invalid,
        "INT16",
    );
    s.refused(
        "rsqrt_int8_tiny_rescaling",
        unary8(B::RSQRT, Options::None, (10_000.0, -128), (100.0, 0)),
        Invalid,
        "2^-12",
    );
    // ABS (PrepareAbsRsqrt): FLOAT32, INT8 and INT16 only, int16 zero points 0; its int8 /
    // int16 rescaling computes |x| * 2^shift in int32 (undefined past 2^31: input scale / output
    // scale = 2^24 shifts 255 left by 25 bits). NEG (neg.cc Eval), SQRT and SQUARE
    // (GenericPrepare): FLOAT32 only.
    s.refused(
        "abs_int32",
        ModelSpec::single_op(
            B::ABS,
            Options::None,
            vec![TensorSpec::int32(&[1, 8])],
            vec![TensorSpec::int32(&[1, 8])],
        ),
        Invalid,
        "INT32",
    );
    s.refused(
        "abs_int16_zero_point",
        unary16(&[1, 8], B::ABS, (0.1, 3), (0.1, 0)),
        Invalid,
        "zero point",
    );
    // A rescaling whose float quotient is exactly 1.5 and whose double one is just below: TFLM
    // takes the double one, so odd inputs round down (accepted, bit-exact).
    s.accepted(
        "abs_int16_ratio_taken_in_double",
        unary16(&[1, 256], B::ABS, (4.924_427_7e-3, 0), (3.282_952e-3, 0)),
    );
    s.accepted(
        "abs_int8_ratio_taken_in_double",
        unary8_shaped(
            &[1, 256],
            B::ABS,
            Options::None,
            (4.924_427_7e-3, 0),
            (3.282_952e-3, 0),
        ),
    );
    s.refused(
        "abs_int8_shift_overflow",
        unary8(B::ABS, Options::None, (1.0, 0), (1.0 / 16_777_216.0, 0)),
        Invalid,
        "overflow",
    );
    for (name, op) in [
        ("neg_int8", B::NEG),
        ("sqrt_int8", B::SQRT),
        ("square_int8", B::SQUARE),
    ] {
        s.refused(
            name,
            unary8(op, Options::None, (0.1, 0), (0.1, 0)),
            Invalid,
            "INT8",
        );
    }
    // PRELU's Eval takes FLOAT32, INT8 and INT16 inputs (the last with an int8 alpha).
    s.refused(
        "prelu_int32",
        ModelSpec::single_op(
            B::PRELU,
            Options::None,
            vec![TensorSpec::int32(&[1, 8]), TensorSpec::int32(&[8])],
            vec![TensorSpec::int32(&[1, 8])],
        ),
        Invalid,
        "INT32",
    );
    // int16 PRELU: PreluPrepare requires an int8 alpha of an int16 output; Eval writes an int16
    // input's output as int16 whatever its type. Accepted (in legitimate corners): zero points,
    // which TFLM reads as they are, an int16 one too.
    let alpha16 = int16(&[6], (0.02, 0)).constant(
        [1i16, -2, 3, 40, 5, 6]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    s.refused(
        "prelu_int16_alpha_int16",
        ModelSpec::single_op(
            B::PRELU,
            Options::None,
            vec![int16(&[1, 4, 6], (0.001, 0)), alpha16],
            vec![int16(&[1, 4, 6], (0.001, 0))],
        ),
        Invalid,
        "INT8 alpha",
    );
    s.refused(
        "prelu_int16_output_int8",
        ModelSpec::single_op(
            B::PRELU,
            Options::None,
            vec![
                int16(&[1, 4, 6], (0.001, 0)),
                TensorSpec::int8(&[6], 0.02, 0).constant_i8(&[1, -2, 3, 40, 5, 6]),
            ],
            vec![TensorSpec::int8(&[1, 4, 6], 0.01, 0)],
        ),
        Invalid,
        "expected INT16",
    );
    // int16 quantization TFLM's Prepare refuses: nonzero zero points (RELU, LOGISTIC, TANH, MUL,
    // CONCATENATION), a LOGISTIC / TANH output scale other than 2^-15, an input scale LOGISTIC
    // cannot rescale (its multiplier would exceed 32767).
    s.refused(
        "relu_int16_zero_point",
        unary16(&[1, 8], B::RELU, (0.1, 2), (0.1, 0)),
        Invalid,
        "zero points",
    );
    s.refused(
        "logistic_int16_zero_point",
        unary16(&[1, 8], B::LOGISTIC, (1.0 / 4096.0, -1), (1.0 / 32768.0, 0)),
        Invalid,
        "zero points",
    );
    s.refused(
        "tanh_int16_output_scale",
        unary16(&[1, 8], B::TANH, (1.0 / 4096.0, 0), (1.0 / 16384.0, 0)),
        Invalid,
        "2^-15",
    );
    s.refused(
        "logistic_int16_input_scale_too_large",
        unary16(&[1, 8], B::LOGISTIC, (3.0, 0), (1.0 / 32768.0, 0)),
        Invalid,
        "input scale",
    );
    s.refused(
        "mul_int16_zero_point",
        ModelSpec::single_op(
            B::MUL,
            Options::default_for(B::MUL),
            vec![int16(&[1, 4], (0.01, 0)), int16(&[1, 4], (0.01, 3))],
            vec![int16(&[1, 4], (0.01, 0))],
        ),
        Invalid,
        "zero points",
    );
    // int32 ADD and SUB: TFLM's Prepare requires unquantized inputs (ADD) and output (SUB).
    s.refused(
        "add_int32_quantized_input",
        with(
            binary32(B::ADD, &[2, 4], &[4], &[2, 4], Activation::NONE),
            |m| m.tensors[1] = m.tensors[1].clone().quant(1.0, 0),
        ),
        Invalid,
        "quantized",
    );
    s.refused(
        "sub_int32_quantized_output",
        with(
            binary32(B::SUB, &[2, 4], &[2, 4], &[2, 4], Activation::NONE),
            |m| m.tensors[2] = m.tensors[2].clone().quant(1.0, 0),
        ),
        Invalid,
        "quantized",
    );
    s.refused(
        "concatenation_int16_zero_point",
        ModelSpec::single_op(
            B::CONCATENATION,
            Options::default_for(B::CONCATENATION),
            vec![int16(&[1, 2], (0.01, 0)), int16(&[1, 2], (0.01, 0))],
            vec![int16(&[1, 4], (0.01, 1))],
        ),
        Invalid,
        "zero point",
    );
    s.refused(
        "softmax_int16_to_int8",
        ModelSpec::single_op(
            B::SOFTMAX,
            Options::Softmax { beta: 1.0 },
            vec![int16(&[2, 5], (1e-3, 0))],
            vec![TensorSpec::int8(&[2, 5], 1.0 / 256.0, -128)],
        ),
        Invalid,
        "INT16 → INT16",
    );
    s.refused(
        "softmax_int16_output_zero_point_not_0",
        ModelSpec::single_op(
            B::SOFTMAX,
            Options::Softmax { beta: 1.0 },
            vec![int16(&[2, 5], (1e-3, 0))],
            vec![int16(&[2, 5], (1.0 / 32768.0, -32768))],
        ),
        Invalid,
        "zero point 0",
    );
    s.refused(
        // 257 x 257 taps of int16 can overflow TFLM's 32-bit window sum.
        "average_pool_int16_window_over_65536_taps",
        ModelSpec::single_op(
            B::AVERAGE_POOL_2D,
            Options::pool(Padding::VALID, (1, 1), (257, 257), Activation::NONE),
            vec![int16(&[1, 257, 257, 1], (0.01, 0))],
            vec![int16(&[1, 1, 1, 1], (0.01, 0))],
        ),
        Invalid,
        "65536 taps",
    );
    s.refused(
        "relu_output_size_differs",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[1].shape = Some(vec![1, 9])
        }),
        Invalid,
        "differ in size",
    );
    // An output of another type than the input: TFLM's Eval copies the input's elements as the
    // input's type (difftest: a folded ZEROS_LIKE whose EXPAND_DIMS output was made int8).
    for (name, constant) in [
        ("expand_dims_output_type_differs", false),
        ("expand_dims_constant_output_type_differs", true),
    ] {
        let input = TensorSpec::f32(&[2, 3]);
        s.refused(
            name,
            ModelSpec::single_op(
                B::EXPAND_DIMS,
                Options::ExpandDims,
                vec![
                    if constant {
                        input.constant_f32(&[0.0; 6])
                    } else {
                        input
                    },
                    TensorSpec::int32(&[1]).constant_i32(&[0]),
                ],
                vec![TensorSpec::int8(&[1, 2, 3], 0.1, 0)],
            ),
            Invalid,
            "copies the input's elements as the input's type",
        );
    }
    s.refused(
        "expand_dims_output_size_differs",
        ModelSpec::single_op(
            B::EXPAND_DIMS,
            Options::ExpandDims,
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::int32(&[1]).constant_i32(&[0]),
            ],
            vec![TensorSpec::f32(&[1, 2, 4])],
        ),
        Invalid,
        "differ in size",
    );
    // SLICE: TFLM checks neither begin nor size (a range past the input is read out of
    // bounds); UNPACK: num must be the outputs' count and the axis' size; SHAPE writes INT32
    // only.
    s.refused(
        "slice_past_the_input",
        ModelSpec::single_op(
            B::SLICE,
            Options::Slice,
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::int32(&[2]).constant_i32(&[1, 2]),
                TensorSpec::int32(&[2]).constant_i32(&[1, 2]),
            ],
            vec![TensorSpec::f32(&[1, 2])],
        ),
        Invalid,
        "not a range",
    );
    s.refused(
        "slice_begin_and_size_types_differ",
        ModelSpec::single_op(
            B::SLICE,
            Options::Slice,
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::int32(&[2]).constant_i32(&[0, 1]),
                TensorSpec::new(TensorType::INT64, &[2]).constant_i64(&[1, 2]),
            ],
            vec![TensorSpec::f32(&[1, 2])],
        ),
        Invalid,
        "reads both as begin's type",
    );
    // A size computed at run time is read per call (slice_dyn), but one shorter than the rank
    // is read past its end whatever its values.
    s.refused(
        "slice_runtime_size_shorter_than_rank",
        ModelSpec::single_op(
            B::SLICE,
            Options::Slice,
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::int32(&[2]).constant_i32(&[0, 1]),
                TensorSpec::int32(&[1]),
            ],
            vec![TensorSpec::f32(&[1, 2])],
        ),
        Invalid,
        "2/1 values for an input of rank 2",
    );
    s.refused(
        "unpack_num_differs",
        ModelSpec::single_op(
            B::UNPACK,
            Options::Unpack { num: 3, axis: 0 },
            vec![TensorSpec::f32(&[2, 3])],
            vec![TensorSpec::f32(&[3]), TensorSpec::f32(&[3])],
        ),
        Invalid,
        "num 3, 2 outputs",
    );
    s.refused(
        "unpack_int64",
        ModelSpec::single_op(
            B::UNPACK,
            Options::Unpack { num: 2, axis: 1 },
            vec![TensorSpec::new(TensorType::INT64, &[3, 2])],
            vec![
                TensorSpec::new(TensorType::INT64, &[3]),
                TensorSpec::new(TensorType::INT64, &[3]),
            ],
        ),
        Invalid,
        "TFLM's UNPACK refuses it",
    );
    s.refused(
        "shape_int64",
        ModelSpec::single_op(
            B::SHAPE,
            Options::Shape {
                out_type: TensorType::INT64,
            },
            vec![TensorSpec::f32(&[2, 3])],
            vec![TensorSpec::new(TensorType::INT64, &[2])],
        ),
        Invalid,
        "TFLM's SHAPE refuses it",
    );
    // GATHER: TFLM takes INT32 positions and FLOAT32 or INT8 input (GatherPrepare) and fails at
    // Eval on a position outside the axis, which constant positions show at generation time.
    s.refused(
        "gather_constant_position_out_of_range",
        ModelSpec::single_op(
            B::GATHER,
            Options::Gather {
                axis: 1,
                batch_dims: 0,
            },
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::int32(&[2]).constant_i32(&[0, 3]),
            ],
            vec![TensorSpec::f32(&[2, 2])],
        ),
        Invalid,
        "outside the axis",
    );
    s.refused(
        "gather_int64_positions",
        ModelSpec::single_op(
            B::GATHER,
            Options::default_for(B::GATHER),
            vec![
                TensorSpec::f32(&[3, 2]),
                TensorSpec::new(TensorType::INT64, &[2]).constant_i64(&[0, 2]),
            ],
            vec![TensorSpec::f32(&[2, 2])],
        ),
        Invalid,
        "INT32 positions",
    );
    s.refused(
        "gather_int16",
        ModelSpec::single_op(
            B::GATHER,
            Options::default_for(B::GATHER),
            vec![
                int16(&[3, 2], (0.5, 0)),
                TensorSpec::int32(&[2]).constant_i32(&[0, 2]),
            ],
            vec![int16(&[2, 2], (0.5, 0))],
        ),
        Invalid,
        "TFLM's GATHER refuses it",
    );
    s.refused(
        "gather_batch_dims_above_axis",
        ModelSpec::single_op(
            B::GATHER,
            Options::Gather {
                axis: 0,
                batch_dims: 1,
            },
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::int32(&[2, 1]).constant_i32(&[0, 1]),
            ],
            vec![TensorSpec::f32(&[1, 3])],
        ),
        Invalid,
        "batch_dims 1",
    );
}

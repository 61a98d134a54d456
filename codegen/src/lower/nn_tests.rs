//! Lowering of the nn ops on tiny hand-built graphs: the parameters TFLM's Prepare would compute,
//! and refusals with reasons.

use crate::error::Error;
use crate::ir::*;
use crate::lower::{lower, CallKind, KernelCall, Operand, Value};

fn quant(scales: &[f32], zero_points: &[i64], axis: usize) -> Option<Quantization> {
    Some(Quantization {
        scales: scales.to_vec(),
        zero_points: zero_points.to_vec(),
        axis,
    })
}

fn tensor<'m>(
    shape: &[usize],
    dtype: DType,
    quant: Option<Quantization>,
    data: Option<&'m [u8]>,
) -> Tensor<'m> {
    let elements: usize = shape.iter().product();
    Tensor {
        name: String::new(),
        shape: shape.to_vec(),
        dtype,
        quant,
        data,
        is_variable: false,
        bytes: elements * dtype.size(),
    }
}

/// A graph of one op over `tensors`, whose first tensor is the graph input and last the output.
fn graph<'m>(
    code: OpCode,
    options: Options,
    tensors: Vec<Tensor<'m>>,
    inputs: &[Option<usize>],
) -> Graph<'m> {
    let output = tensors.len() - 1;
    Graph {
        tensors,
        operators: vec![Operator {
            kind: OpKind::Builtin(code),
            version: 1,
            options,
            inputs: inputs.to_vec(),
            outputs: vec![output],
            intermediates: vec![],
        }],
        inputs: vec![0],
        outputs: vec![output],
        offline_offsets: None,
        description: String::new(),
    }
}

fn kernel(graph: &Graph) -> KernelCall {
    match lower(graph).expect("lowers").remove(0).kind {
        CallKind::Kernel(k) => k,
        other => panic!("expected a kernel call, got {other:?}"),
    }
}

fn field<'a>(k: &'a KernelCall, name: &str) -> &'a Value {
    let params = k.params.as_ref().expect("params");
    &params
        .fields
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no field {name}"))
        .1
}

/// The message of a refusal: an unsupported use, or a model TFLM would refuse.
fn reason(graph: &Graph) -> String {
    match lower(graph) {
        Err(Error::UnsupportedOpUse { reason, .. }) => reason,
        Err(Error::InvalidModel { detail }) => detail,
        other => panic!("expected UnsupportedOpUse or InvalidModel, got {other:?}"),
    }
}

static W9: [u8; 18] = [1; 18];
static BIAS2: [u8; 8] = [0; 8];

fn conv_options(padding: Padding, activation: Activation) -> Options {
    Options::Conv2D(Conv2DOptions {
        padding,
        stride_w: 1,
        stride_h: 1,
        dilation_w: 1,
        dilation_h: 1,
        activation,
    })
}

/// 1x3x3x1 int8 input, 2x3x3x1 per-channel filter, SAME, RELU.
fn conv_graph(filter_quant: Option<Quantization>, activation: Activation) -> Graph<'static> {
    graph(
        OpCode::CONV_2D,
        conv_options(Padding::Same, activation),
        vec![
            tensor(&[1, 3, 3, 1], DType::I8, quant(&[0.5], &[-1], 0), None),
            tensor(&[2, 3, 3, 1], DType::I8, filter_quant, Some(&W9)),
            tensor(
                &[2],
                DType::I32,
                quant(&[0.1, 0.2], &[0, 0], 0),
                Some(&BIAS2),
            ),
            tensor(&[1, 3, 3, 2], DType::I8, quant(&[0.25], &[3], 0), None),
        ],
        &[Some(0), Some(1), Some(2)],
    )
}

#[test]
fn conv_s8_per_channel_params() {
    let g = conv_graph(quant(&[0.2, 0.4], &[0, 0], 0), Activation::Relu);
    let k = kernel(&g);
    assert_eq!((k.module, k.function), ("conv", "conv2d_s8"));
    assert_eq!(k.operands, vec![Operand::Offset(0), Operand::Offset(3)]);
    let names: Vec<_> = k
        .params
        .as_ref()
        .unwrap()
        .fields
        .iter()
        .map(|(n, _)| *n)
        .collect();
    assert_eq!(
        names,
        [
            "batches",
            "input_h",
            "input_w",
            "input_c",
            "output_h",
            "output_w",
            "output_c",
            "filter_h",
            "filter_w",
            "filter_c",
            "stride_h",
            "stride_w",
            "dilation_h",
            "dilation_w",
            "pad_top",
            "pad_left",
            "input_zero_point",
            "output_zero_point",
            "filter",
            "bias",
            "multipliers",
            "shifts",
            "act_min",
            "act_max"
        ]
    );
    assert_eq!(field(&k, "pad_top"), &Value::Usize(1));
    assert_eq!(field(&k, "pad_left"), &Value::Usize(1));
    // 0.5 * 0.2 / 0.25 = 0.8 * 2^-1 and 0.5 * 0.4 / 0.25 = 0.8 * 2^0, with the f32 scales widened
    // to f64 (0.2f32 is slightly above 0.2, and 0.4f32 is exactly twice it).
    let m = (f64::from(0.2f32) * 4.0 * f64::from(1u32 << 31)).round() as i32;
    assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![m, m]));
    assert_eq!(field(&k, "shifts"), &Value::I8s(vec![-1, 0]));
    assert_eq!(field(&k, "input_zero_point"), &Value::I32(-1));
    assert_eq!(field(&k, "act_min"), &Value::I32(3));
    assert_eq!(field(&k, "act_max"), &Value::I32(127));
    assert_eq!(field(&k, "bias"), &Value::Some(Box::new(Value::Tensor(2))));
}

#[test]
fn conv_s8_per_tensor_filter_repeats_the_multiplier() {
    let k = kernel(&conv_graph(quant(&[0.2], &[0], 0), Activation::None));
    assert_eq!(field(&k, "shifts"), &Value::I8s(vec![-1, -1]));
    assert_eq!(field(&k, "act_min"), &Value::I32(-128));
}

#[test]
fn conv_refusals_say_why() {
    assert!(reason(&conv_graph(quant(&[0.2], &[3], 0), Activation::None)).contains("zero point"));
    assert!(reason(&conv_graph(
        quant(&[0.2, 0.4], &[0, 0], 0),
        Activation::Tanh
    ))
    .contains("activation"));
    // Non-constant filter.
    let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
    g.tensors[1].data = None;
    assert!(reason(&g).contains("run time"));
    // Output shape that VALID padding would not give.
    let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
    g.operators[0].options = conv_options(Padding::Valid, Activation::None);
    assert!(reason(&g).contains("output height"));
    // int16 activations.
    let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
    g.tensors[0].dtype = DType::I16;
    assert!(reason(&g).contains("INT16"));
    // A zero output scale.
    let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
    g.tensors[3].quant = quant(&[0.0], &[0], 0);
    assert!(reason(&g).contains("positive, finite"));
    // Hybrid: float input, int8 filter.
    let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
    g.tensors[0].dtype = DType::F32;
    assert!(reason(&g).contains("hybrid"));
}

#[test]
fn depthwise_derives_the_multiplier_and_uses_axis_3() {
    static W: [u8; 8] = [1; 8];
    let g = graph(
        OpCode::DEPTHWISE_CONV_2D,
        Options::DepthwiseConv2D(DepthwiseConv2DOptions {
            padding: Padding::Valid,
            stride_w: 1,
            stride_h: 1,
            depth_multiplier: 0,
            dilation_w: 1,
            dilation_h: 1,
            activation: Activation::Relu6,
        }),
        vec![
            tensor(&[1, 2, 2, 1], DType::I8, quant(&[0.5], &[0], 0), None),
            tensor(
                &[1, 2, 2, 2],
                DType::I8,
                quant(&[0.5, 0.25], &[0, 0], 3),
                Some(&W),
            ),
            tensor(&[1, 1, 1, 2], DType::I8, quant(&[0.125], &[-128], 0), None),
        ],
        &[Some(0), Some(1)],
    );
    let k = kernel(&g);
    assert_eq!(k.function, "depthwise_conv2d_s8");
    assert_eq!(field(&k, "depth_multiplier"), &Value::Usize(2));
    assert_eq!(field(&k, "bias"), &Value::None);
    // 0.5 * 0.5 / 0.125 = 2 = 0.5 * 2^2; 0.5 * 0.25 / 0.125 = 1 = 0.5 * 2^1.
    assert_eq!(
        field(&k, "multipliers"),
        &Value::I32s(vec![1 << 30, 1 << 30])
    );
    assert_eq!(field(&k, "shifts"), &Value::I8s(vec![2, 1]));
    // RELU6: [-128, -128 + 48].
    assert_eq!(
        (field(&k, "act_min"), field(&k, "act_max")),
        (&Value::I32(-128), &Value::I32(-80))
    );
}

#[test]
fn fully_connected_per_tensor_multiplies_scales_in_double() {
    static W: [u8; 6] = [1; 6];
    let (s_in, s_w, s_out) = (0.1f32, 0.3f32, 0.7f32);
    let g = graph(
        OpCode::FULLY_CONNECTED,
        Options::FullyConnected(FullyConnectedOptions {
            activation: Activation::None,
            keep_num_dims: false,
            shuffled_weights: false,
        }),
        vec![
            tensor(&[2, 1, 3], DType::I8, quant(&[s_in], &[5], 0), None),
            tensor(&[2, 3], DType::I8, quant(&[s_w], &[0], 0), Some(&W)),
            tensor(&[2, 2], DType::I8, quant(&[s_out], &[-3], 0), None),
        ],
        &[Some(0), Some(1), None],
    );
    let k = kernel(&g);
    assert_eq!(field(&k, "batches"), &Value::Usize(2));
    assert_eq!(field(&k, "input_depth"), &Value::Usize(3));
    let (m, s) = crate::lower::quant::quantize_multiplier(
        f64::from(s_in) * f64::from(s_w) / f64::from(s_out),
    );
    assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![m, m]));
    assert_eq!(field(&k, "shifts"), &Value::I8s(vec![s as i8, s as i8]));
}

#[test]
fn a_scale_ratio_of_2_pow_31_or_more_is_refused() {
    static W: [u8; 6] = [1; 6];
    // 2^20 * 2^20 / 1: a left shift of 41 bits.
    let (s_in, s_w, s_out) = (1048576.0f32, 1048576.0f32, 1.0f32);
    let g = graph(
        OpCode::FULLY_CONNECTED,
        Options::FullyConnected(FullyConnectedOptions {
            activation: Activation::None,
            keep_num_dims: false,
            shuffled_weights: false,
        }),
        vec![
            tensor(&[2, 1, 3], DType::I8, quant(&[s_in], &[5], 0), None),
            tensor(&[2, 3], DType::I8, quant(&[s_w], &[0], 0), Some(&W)),
            tensor(&[2, 2], DType::I8, quant(&[s_out], &[-3], 0), None),
        ],
        &[Some(0), Some(1), None],
    );
    let message = crate::lower::lower(&g).unwrap_err().to_string();
    assert!(message.contains("FULLY_CONNECTED"), "{message}");
    assert!(message.contains("below 2^31"), "{message}");
}

#[test]
fn pools_compute_same_padding_and_keep_quantization() {
    let options = Options::Pool2D(Pool2DOptions {
        padding: Padding::Same,
        stride_w: 2,
        stride_h: 2,
        filter_w: 3,
        filter_h: 3,
        activation: Activation::None,
    });
    let make = |out_zp| {
        graph(
            OpCode::AVERAGE_POOL_2D,
            options.clone(),
            vec![
                tensor(&[1, 5, 5, 2], DType::I8, quant(&[0.5], &[1], 0), None),
                tensor(&[1, 3, 3, 2], DType::I8, quant(&[0.5], &[out_zp], 0), None),
            ],
            &[Some(0)],
        )
    };
    let k = kernel(&make(1));
    assert_eq!(k.function, "average_pool2d_s8");
    // (3 - 1) * 2 + 3 - 5 = 2 → 1 before.
    assert_eq!(field(&k, "pad_top"), &Value::Usize(1));
    assert!(reason(&make(2)).contains("differs"));
}

#[test]
fn softmax_s8_matches_tflm_prepare() {
    let make = |out_scale: f32| {
        graph(
            OpCode::SOFTMAX,
            Options::Softmax { beta: 1.0 },
            vec![
                tensor(&[1, 10], DType::I8, quant(&[0.0625], &[0], 0), None),
                tensor(&[1, 10], DType::I8, quant(&[out_scale], &[-128], 0), None),
            ],
            &[Some(0)],
        )
    };
    let k = kernel(&make(1.0 / 256.0));
    // 1/16 * 2^26 = 2^22 → multiplier 2^30, shift 23; diff_min = -floor(31 * 2^26 / 2^23) = -248.
    assert_eq!(field(&k, "input_multiplier"), &Value::I32(1 << 30));
    assert_eq!(field(&k, "input_left_shift"), &Value::I32(23));
    assert_eq!(field(&k, "diff_min"), &Value::I32(-248));
    assert_eq!(field(&k, "rows"), &Value::Usize(1));
    assert!(reason(&make(1.0 / 128.0)).contains("1/256"));
    // int8 in, int16 out: the same scaling, another kernel.
    let mut g = make(1.0 / 65536.0);
    g.tensors[1].dtype = DType::I16;
    g.tensors[1].quant = quant(&[1.0 / 65536.0], &[-32768], 0);
    let k = kernel(&g);
    assert_eq!(
        (k.function, k.params.as_ref().unwrap().type_name),
        ("softmax_s8_s16", "SoftmaxS8")
    );
    assert_eq!(field(&k, "diff_min"), &Value::I32(-248));
    g.tensors[1].quant = quant(&[1.0 / 65536.0], &[0], 0);
    assert!(reason(&g).contains("-32768"));
}

#[test]
fn logistic_and_tanh_s8_match_tflm_prepare() {
    let make = |code, out_scale, out_zp| {
        graph(
            code,
            Options::None,
            vec![
                tensor(&[4], DType::I8, quant(&[0.0625], &[2], 0), None),
                tensor(&[4], DType::I8, quant(&[out_scale], &[out_zp], 0), None),
            ],
            &[Some(0)],
        )
    };
    let k = kernel(&make(OpCode::LOGISTIC, 1.0 / 256.0, -128));
    assert_eq!(k.function, "logistic_s8");
    // 2^-4 * 2^27 = 2^23 → frexp (0.5, 24); radius floor(15 * 2^27 / 2^24) = 120.
    assert_eq!(field(&k, "input_multiplier"), &Value::I32(1 << 30));
    assert_eq!(field(&k, "input_left_shift"), &Value::I32(24));
    assert_eq!(field(&k, "input_range_radius"), &Value::I32(120));
    assert_eq!(field(&k, "input_zero_point"), &Value::I32(2));
    assert!(reason(&make(OpCode::LOGISTIC, 1.0 / 256.0, 0)).contains("-128"));
    assert_eq!(
        kernel(&make(OpCode::TANH, 1.0 / 128.0, 0)).function,
        "tanh_s8"
    );
    // The kernels' output quantization is fixed; any other reads back as garbage.
    assert!(reason(&make(OpCode::TANH, 1.0 / 256.0, 0)).contains("fixed"));
    assert!(reason(&make(OpCode::LOGISTIC, 1.0 / 128.0, -128)).contains("fixed"));
}

#[test]
fn float_ops_lower_to_float_kernels() {
    static W: [u8; 8] = [0; 8];
    let g = graph(
        OpCode::FULLY_CONNECTED,
        Options::FullyConnected(FullyConnectedOptions {
            activation: Activation::Relu,
            keep_num_dims: true,
            shuffled_weights: false,
        }),
        vec![
            tensor(&[1, 2], DType::F32, None, None),
            tensor(&[1, 2], DType::F32, None, Some(&W)),
            tensor(&[1, 1], DType::F32, None, None),
        ],
        &[Some(0), Some(1), None],
    );
    let k = kernel(&g);
    assert_eq!(
        (k.function, k.params.as_ref().unwrap().type_name),
        ("fully_connected_f32", "FullyConnectedF32")
    );
    assert_eq!(field(&k, "act_min"), &Value::F32(0.0));
    let g = graph(
        OpCode::TANH,
        Options::None,
        vec![
            tensor(&[3], DType::F32, None, None),
            tensor(&[3], DType::F32, None, None),
        ],
        &[Some(0)],
    );
    assert_eq!(kernel(&g).function, "tanh_f32");
}

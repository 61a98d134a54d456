//! The CONV_2D lowering's tests: which kernel a convolution takes, its parameters and its refusals.

use crate::ir::*;
use crate::lower::ops::testing::{field, graph, kernel, quant, reason, tensor};
use crate::lower::{Data, Operand, Value};

static W9: [u8; 18] = [1; 18];
static BIAS2: [u8; 8] = [0; 8];

#[test]
fn interleaves_blocks_of_four_rows_by_words() {
    // Five rows of six: one block (words of rows 0..4, then their two-byte tails), one row left.
    let weights: Vec<i8> = (0..30).collect();
    let packed = super::int8::interleave_rows4(&weights, 6);
    #[rustfmt::skip]
    let expected: Vec<i8> = vec![
        0, 1, 2, 3, 6, 7, 8, 9, 12, 13, 14, 15, 18, 19, 20, 21,
        4, 5, 10, 11, 16, 17, 22, 23,
        24, 25, 26, 27, 28, 29,
    ];
    assert_eq!(packed, expected);
    // A row shorter than a word: the block is its rows' tails.
    assert_eq!(
        super::int8::interleave_rows4(&[1, 2, 3, 4], 1),
        vec![1, 2, 3, 4]
    );
    assert_eq!(super::int8::interleave_rows4(&[], 0), Vec::<i8>::new());
}

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

/// Input channels in whole words and output channels in blocks of four: the paired
/// gathering kernel, with the same parameters.
#[test]
fn conv_s8_whole_words_take_the_paired_kernel() {
    static W: [u8; 4 * 9 * 4] = [1; 4 * 9 * 4];
    static BIAS: [u8; 16] = [0; 16];
    let g = graph(
        OpCode::CONV_2D,
        conv_options(Padding::Same, Activation::None),
        vec![
            tensor(&[1, 3, 3, 4], DType::I8, quant(&[0.5], &[-1], 0), None),
            tensor(
                &[4, 3, 3, 4],
                DType::I8,
                quant(&[0.25; 4], &[0; 4], 0),
                Some(&W),
            ),
            tensor(
                &[4],
                DType::I32,
                quant(&[0.125; 4], &[0; 4], 0),
                Some(&BIAS),
            ),
            tensor(&[1, 3, 3, 4], DType::I8, quant(&[0.25], &[3], 0), None),
        ],
        &[Some(0), Some(1), Some(2)],
    );
    let k = kernel(&g);
    assert_eq!((k.module, k.function), ("conv", "conv2d_im2col_pairs_s8"));
    let name = k.params.as_ref().map(|p| p.type_name.to_string());
    assert_eq!(name.as_deref(), Some("Conv2dIm2colS8"));
}

/// A FULLY_CONNECTED-like product of one pixel, 32 channels in whole words into 8: the
/// widened one-pixel kernel; fewer input channels keep the general one.
#[test]
fn pointwise_single_pixel_takes_the_widened_kernel() {
    for (n, want) in [(32, "conv2d_1x1_widened_s8"), (16, "conv2d_1x1_s8")] {
        static W: [u8; 8 * 32] = [1; 8 * 32];
        static BIAS: [u8; 32] = [0; 32];
        let g = graph(
            OpCode::CONV_2D,
            conv_options(Padding::Valid, Activation::None),
            vec![
                tensor(&[1, 1, 1, n], DType::I8, quant(&[0.5], &[-1], 0), None),
                tensor(
                    &[8, 1, 1, n],
                    DType::I8,
                    quant(&[0.25; 8], &[0; 8], 0),
                    Some(&W[..8 * n]),
                ),
                tensor(
                    &[8],
                    DType::I32,
                    quant(&[0.125; 8], &[0; 8], 0),
                    Some(&BIAS),
                ),
                tensor(&[1, 1, 1, 8], DType::I8, quant(&[0.25], &[3], 0), None),
            ],
            &[Some(0), Some(1), Some(2)],
        );
        let k = kernel(&g);
        assert_eq!((k.module, k.function), ("conv", want), "{n} input channels");
    }
}

/// Three input channels (a window of 27 bytes) and eight output channels: the gathering
/// paired kernel, its filter rows padded to 28 bytes with zero weights.
#[test]
fn conv_s8_short_windows_not_in_words_take_the_gathering_paired_kernel() {
    static W: [u8; 8 * 9 * 3] = [1; 8 * 9 * 3];
    static BIAS: [u8; 32] = [0; 32];
    let g = graph(
        OpCode::CONV_2D,
        conv_options(Padding::Same, Activation::None),
        vec![
            tensor(&[1, 3, 3, 3], DType::I8, quant(&[0.5], &[-1], 0), None),
            tensor(
                &[8, 3, 3, 3],
                DType::I8,
                quant(&[0.25; 8], &[0; 8], 0),
                Some(&W),
            ),
            tensor(
                &[8],
                DType::I32,
                quant(&[0.125; 8], &[0; 8], 0),
                Some(&BIAS),
            ),
            tensor(&[1, 3, 3, 8], DType::I8, quant(&[0.25], &[3], 0), None),
        ],
        &[Some(0), Some(1), Some(2)],
    );
    let k = kernel(&g);
    assert_eq!(
        (k.module, k.function),
        ("conv", "conv2d_im2col_gather_pairs_s8")
    );
    let Value::Packed(filter) = field(&k, "filter") else {
        panic!("a packed filter");
    };
    // Eight rows of 27 ones, each padded with a zero to 28 bytes.
    assert_eq!(filter.bytes.len(), 8 * 28);
    assert_eq!(filter.bytes.iter().filter(|&&w| w == 0).count(), 8);
    // The folded bias sums the 27 real weights: 0 - (-1) * 27.
    assert_eq!(field(&k, "folded_bias"), &Value::I32s(vec![27; 8]));
}

#[test]
fn conv_s8_per_channel_params() {
    let g = conv_graph(quant(&[0.2, 0.4], &[0, 0], 0), Activation::Relu);
    let k = kernel(&g);
    // One group and a small window: the gathering kernel.
    assert_eq!((k.module, k.function), ("conv", "conv2d_im2col_s8"));
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
            "stride_h",
            "stride_w",
            "dilation_h",
            "dilation_w",
            "pad_top",
            "pad_left",
            "input_zero_point",
            "output_zero_point",
            "filter",
            "folded_bias",
            "multipliers",
            "shifts",
            "act_min",
            "act_max",
            "narrow_requant"
        ]
    );
    // Shift 0 for the second channel: not every shift is a right shift.
    assert_eq!(field(&k, "narrow_requant"), &Value::Bool(false));
    assert_eq!(field(&k, "pad_top"), &Value::Usize(1));
    assert_eq!(field(&k, "pad_left"), &Value::Usize(1));
    // 0.5 * 0.2 / 0.25 = 0.8 * 2^-1 and 0.5 * 0.4 / 0.25 = 0.8 * 2^0, with the f32 scales
    // widened to f64 (0.2f32 is slightly above 0.2, and 0.4f32 is exactly twice it).
    let m = (f64::from(0.2f32) * 4.0 * f64::from(1u32 << 31)).round() as i32;
    assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![m, m]));
    assert_eq!(field(&k, "shifts"), &Value::I8s(vec![-1, 0]));
    assert_eq!(field(&k, "input_zero_point"), &Value::I32(-1));
    assert_eq!(field(&k, "act_min"), &Value::I32(3));
    assert_eq!(field(&k, "act_max"), &Value::I32(127));
    // Bias 0, nine weights of 1, input zero point -1: 0 - (-1) * 9.
    assert_eq!(field(&k, "folded_bias"), &Value::I32s(vec![9, 9]));
}

/// Two groups keep the general kernel, with the model's bias and the zero point applied per
/// tap; a 1×1 filter with stride 1 and no padding takes the matrix-product kernel.
#[test]
fn conv_s8_kernel_choice() {
    let mut g = conv_graph(quant(&[0.2, 0.4], &[0, 0], 0), Activation::None);
    g.tensors[0].shape = vec![1, 3, 3, 2];
    g.tensors[0].bytes = 18;
    let k = kernel(&g);
    assert_eq!(k.function, "conv2d_s8");
    assert_eq!(field(&k, "bias"), &Value::Some(Box::new(Value::Tensor(2))));
    let mut g = conv_graph(quant(&[0.2, 0.4], &[0, 0], 0), Activation::None);
    g.tensors[0].shape = vec![1, 3, 3, 9];
    g.tensors[0].bytes = 81;
    g.tensors[1].shape = vec![2, 1, 1, 9];
    g.operators[0].options = conv_options(Padding::Valid, Activation::None);
    let k = kernel(&g);
    assert_eq!(k.function, "conv2d_1x1_s8");
    assert_eq!(field(&k, "pixels"), &Value::Usize(9));
    assert_eq!(field(&k, "folded_bias"), &Value::I32s(vec![9, 9]));
}

#[test]
fn conv_s8_per_tensor_filter_repeats_the_multiplier() {
    let k = kernel(&conv_graph(quant(&[0.2], &[0], 0), Activation::None));
    assert_eq!(field(&k, "shifts"), &Value::I8s(vec![-1, -1]));
    // Right shifts only, and at most 128 * 9 + 9 in magnitude: the short requantization.
    assert_eq!(field(&k, "narrow_requant"), &Value::Bool(true));
    assert_eq!(field(&k, "act_min"), &Value::I32(-128));
}

/// An output extent other than the one VALID padding gives (3×3 where a 3×3 window over 3×3 gives
/// 1×1): TFLM pads for 1×1 (no padding) and computes all nine pixels, skipping the taps outside
/// the image; so does the lowering, with the general gathering kernel.
#[test]
fn conv_output_of_another_extent_is_computed_as_tflm_computes_it() {
    let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
    g.operators[0].options = conv_options(Padding::Valid, Activation::None);
    let k = kernel(&g);
    assert_eq!(k.function, "conv2d_im2col_s8");
    assert_eq!(field(&k, "output_h"), &Value::Usize(3));
    assert_eq!(field(&k, "pad_top"), &Value::Usize(0));
    assert_eq!(field(&k, "pad_left"), &Value::Usize(0));
}

#[test]
fn conv_refusals_say_why() {
    assert!(reason(&conv_graph(quant(&[0.2], &[3], 0), Activation::None)).contains("zero point"));
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

/// An int16 CONV_2D with a 64-bit bias: the 16x8 requantization (multiplier reduced to 16
/// bits, right shift 15 - shift), the 1×1 kernel with its weights by pairs of channels and its
/// 32-bit sums, and with stride 2 the gathering kernel with its weights swizzled in fours; zero
/// points other than 0 are refused; a 32-bit bias takes TFLM's 32-bit sums.
#[test]
fn conv_s16_lowering_and_refusals() {
    static W16: [u8; 8] = [1, 2, 3, 4, 5, 6, 7, 8];
    static BIAS64: [u8; 16] = [0; 16];
    let g16 = |input_zp: i64, bias_dtype: DType| {
        graph(
            OpCode::CONV_2D,
            conv_options(Padding::Same, Activation::None),
            vec![
                tensor(
                    &[1, 3, 3, 4],
                    DType::I16,
                    quant(&[0.5], &[input_zp], 0),
                    None,
                ),
                tensor(
                    &[2, 1, 1, 4],
                    DType::I8,
                    quant(&[0.25], &[0], 0),
                    Some(&W16),
                ),
                tensor(&[2], bias_dtype, quant(&[0.125], &[0], 0), Some(&BIAS64)),
                tensor(&[1, 3, 3, 2], DType::I16, quant(&[0.5], &[0], 0), None),
            ],
            &[Some(0), Some(1), Some(2)],
        )
    };
    let k = kernel(&g16(0, DType::I64));
    assert_eq!(k.function, "conv2d_1x1_s16");
    // Both channels' first (and only) group of four, each as weights 0, 2, 1, 3.
    assert_eq!(
        field(&k, "filter"),
        &Value::from(Data::Packed(vec![1i8, 3, 2, 4, 5, 7, 6, 8]))
    );
    assert_eq!(field(&k, "pixels"), &Value::Usize(9));
    assert_eq!(field(&k, "sums32"), &Value::Bool(true));
    // Stride 2 (a 2x2 output), input channels a multiple of 4: the pairs kernel, its filter by
    // pairs of channels as the 1x1 kernel's, 32-bit sums.
    let mut strided = g16(0, DType::I64);
    if let Options::Conv2D(o) = &mut strided.operators[0].options {
        (o.stride_h, o.stride_w) = (2, 2);
    }
    strided.tensors[3].shape = vec![1, 2, 2, 2];
    let k = kernel(&strided);
    assert_eq!(k.function, "conv2d_pairs_s16");
    assert_eq!(field(&k, "sums32"), &Value::Bool(true));
    assert_eq!(field(&k, "stride_w"), &Value::Usize(2));
    assert_eq!(
        field(&k, "filter"),
        &Value::from(Data::Packed(vec![1i8, 3, 2, 4, 5, 7, 6, 8]))
    );
    // 0.5 * 0.25 / 0.5 = 0.5 * 2^-1: Q31 multiplier 2^30, reduced (2^30 + 2^15) >> 16 = 2^14;
    // shift -1, so a right shift of 16.
    assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![1 << 14; 2]));
    assert_eq!(field(&k, "shifts"), &Value::I8s(vec![16; 2]));
    assert_eq!(field(&k, "act_min"), &Value::I32(-32768));
    assert!(reason(&g16(3, DType::I64)).contains("zero point"));
    // A 32-bit bias: TFLM's 32-bit sums, with the int8-style Q31 multiplier and shift.
    let k = kernel(&g16(0, DType::I32));
    assert_eq!(k.function, "conv2d_s16");
    assert_eq!(field(&k, "acc32"), &Value::Bool(true));
    assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![1 << 30; 2]));
    assert_eq!(field(&k, "shifts"), &Value::I8s(vec![-1; 2]));
}

/// The kernel reads its input from the arena: a constant input is refused here rather than
/// failing in the emitter as a generator bug (it used to be `Error::Internal`).
#[test]
fn a_constant_input_is_refused() {
    static INPUT: [u8; 9] = [0; 9];
    let mut g = conv_graph(quant(&[0.2], &[0], 0), Activation::None);
    g.tensors[0].data = Some((&INPUT[..]).into());
    assert!(reason(&g).contains("the input is a constant tensor"));
}

/// A filter or a bias computed at run time (here with no data: a graph input) goes to the
/// `conv2d_dyn_*` kernels, which read input, filter and bias where they are; constant ones keep
/// the folded kernels.
#[test]
fn weights_or_bias_computed_at_run_time_are_read_where_they_are() {
    for computed in [1, 2] {
        let mut g = conv_graph(quant(&[0.2, 0.1], &[0, 0], 0), Activation::None);
        g.tensors[computed].data = None;
        let k = kernel(&g);
        assert_eq!(k.function, "conv2d_dyn_s8");
        assert_eq!(
            k.operands,
            vec![Operand::Srcs(vec![0, 1, 2]), Operand::Offset(3)]
        );
        assert_eq!(field(&k, "input_zero_point"), &Value::I32(-1));
        assert_eq!(field(&k, "pad_top"), &Value::Usize(1));
    }
    // float32: the hybrid refusal as for constant weights.
    let mut g = conv_graph(quant(&[0.2, 0.1], &[0, 0], 0), Activation::None);
    g.tensors[1].data = None;
    g.tensors[0].dtype = DType::F32;
    g.tensors[3].dtype = DType::F32;
    assert!(reason(&g).contains("hybrid"));
}

/// The 1×1 int16 kernel's filter: rows by pairs, the last paired with itself when their count is
/// odd; per pair each whole group of four of both rows (each as weights 0, 2, 1, 3), then both
/// rows' remaining weights.
#[test]
fn pair_quads_interleaves_two_rows_by_groups_of_four() {
    let rows: Vec<i8> = (1..=15).collect();
    assert_eq!(
        super::int16::pair_quads(&rows, 5),
        vec![
            1, 3, 2, 4, 6, 8, 7, 9, 5, 10, // rows 0 and 1
            11, 13, 12, 14, 11, 13, 12, 14, 15, 15, // row 2 twice
        ]
    );
}

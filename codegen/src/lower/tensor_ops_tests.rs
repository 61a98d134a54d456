//! Lowering tests on tiny hand-built graphs.

use super::binary::broadcast;
use super::shape::{mean_multiplier, slice_axis, AxisFlags, SliceAxis};

#[test]
fn broadcast_collapses_and_strides() {
    let b = broadcast(&[1, 4, 4, 8], &[8], &[1, 4, 4, 8]).unwrap();
    assert_eq!(b.shape, vec![16, 8]);
    assert_eq!(b.a_strides, vec![8, 1]);
    assert_eq!(b.b_strides, vec![0, 1]);
    let b = broadcast(&[2, 3], &[2, 3], &[2, 3]).unwrap();
    assert_eq!(
        (b.shape, b.a_strides, b.b_strides),
        (vec![6], vec![1], vec![1])
    );
    let b = broadcast(&[2, 1, 3], &[1, 5, 1], &[2, 5, 3]).unwrap();
    assert_eq!(b.shape, vec![2, 5, 3]);
    assert_eq!(b.a_strides, vec![3, 0, 1]);
    assert_eq!(b.b_strides, vec![0, 1, 0]);
    let b = broadcast(&[], &[], &[]).unwrap();
    assert_eq!(
        (b.shape, b.a_strides, b.b_strides),
        (vec![1], vec![0], vec![0])
    );
    assert!(broadcast(&[2, 3], &[3, 2], &[2, 3]).is_err());
    assert!(broadcast(&[2, 3], &[3], &[3, 3]).is_err());
}

#[test]
fn mean_multiplier_follows_tflm_eval() {
    // Same scales: (2^30, 1); n = 49: shift = 5, multiplier (2^30 << 5) / 49, shift 1 - 5.
    assert_eq!(
        mean_multiplier(0.5, 0.5, 49),
        Some((((1i64 << 35) / 49) as i32, -4))
    );
    assert_eq!(mean_multiplier(0.5, 0.5, 4), Some((1 << 30, -1)));
}

#[test]
fn slice_axes_resolve_like_tflm() {
    let ax = |size, b, e, s, begin_masked, end_masked, shrink| {
        let flags = AxisFlags {
            begin_masked,
            end_masked,
            shrink,
            offset: false,
        };
        slice_axis(size, b, e, s, flags)
    };
    assert_eq!(
        ax(5, 1, 4, 1, false, false, false),
        SliceAxis { start: 1, count: 3 }
    );
    assert_eq!(
        ax(5, -1, 0, -2, false, false, false),
        SliceAxis { start: 4, count: 2 }
    );
    assert_eq!(
        ax(5, 3, 0, 1, true, true, false),
        SliceAxis { start: 0, count: 5 }
    );
    assert_eq!(
        ax(5, 0, 0, -1, true, true, false),
        SliceAxis { start: 4, count: 5 }
    );
    assert_eq!(
        ax(5, -2, 0, 1, false, false, true),
        SliceAxis { start: 3, count: 1 }
    );
    assert_eq!(
        ax(5, 10, 20, 1, false, false, false),
        SliceAxis { start: 5, count: 0 }
    );
    assert_eq!(
        slice_axis(
            5,
            1,
            2,
            1,
            AxisFlags {
                offset: true,
                ..AxisFlags::default()
            }
        ),
        SliceAxis { start: 1, count: 2 }
    );
}

mod graphs {
    use crate::ir::{DType, Graph, OpCode, OpKind, Operator, Options, Quantization, Tensor};
    use crate::lower::{lower, CallKind, Operand, Value};

    fn tensor(
        shape: &[usize],
        dtype: DType,
        quant: Option<(f32, i64)>,
        data: Option<&'static [u8]>,
    ) -> Tensor<'static> {
        Tensor {
            name: String::new(),
            shape: shape.to_vec(),
            dtype,
            quant: quant.map(|(s, z)| Quantization {
                scales: vec![s],
                zero_points: vec![z],
                axis: 0,
            }),
            data,
            is_variable: false,
            bytes: shape.iter().product::<usize>() * dtype.size(),
        }
    }

    fn graph(
        tensors: Vec<Tensor<'static>>,
        code: OpCode,
        options: Options,
        inputs: &[usize],
        output: usize,
    ) -> Graph<'static> {
        Graph {
            tensors,
            operators: vec![Operator {
                kind: OpKind::Builtin(code),
                version: 1,
                options,
                inputs: inputs.iter().map(|&i| Some(i)).collect(),
                outputs: vec![output],
                intermediates: vec![],
            }],
            inputs: vec![0],
            outputs: vec![output],
            offline_offsets: None,
            description: String::new(),
        }
    }

    fn fields(g: &Graph) -> Vec<(&'static str, Value)> {
        match &lower(g).unwrap()[0].kind {
            CallKind::Kernel(k) => k.params.clone().unwrap().fields,
            other => panic!("{other:?}"),
        }
    }

    const PADDINGS: &[u8] = &[
        0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];

    #[test]
    fn pad_merges_unpadded_channels_and_uses_zero_point() {
        let g = graph(
            vec![
                tensor(&[1, 2, 3, 4], DType::I8, Some((0.5, -3)), None),
                tensor(&[3, 2], DType::I32, None, Some(PADDINGS)),
                tensor(&[1, 5, 3, 4], DType::I8, Some((0.5, -3)), None),
            ],
            OpCode::PAD,
            Options::None,
            &[0, 1],
            2,
        );
        // Rank 3 paddings for a rank-4 tensor is refused.
        assert!(lower(&g).is_err());
        let mut g = g;
        g.tensors[1] = tensor(&[4, 2], DType::I32, None, Some(&PADDINGS_4D));
        assert_eq!(
            fields(&g),
            vec![
                // H rows of W*C bytes: padding 1 and 2 rows become 12 and 24 bytes.
                ("input_shape", Value::Usizes(vec![1, 24])),
                ("before", Value::Usizes(vec![0, 12])),
                ("after", Value::Usizes(vec![0, 24])),
                ("pad_value", Value::I32(-3)),
            ]
        );
    }

    static PADDINGS_4D: [u8; 32] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0,
    ];

    #[test]
    fn concatenation_refuses_requantization_and_lowers_chunks() {
        let axis_options = Options::Concatenation {
            axis: -1,
            activation: crate::ir::Activation::None,
        };
        let mut g = graph(
            vec![
                tensor(&[1, 2, 3], DType::I8, Some((0.5, 1)), None),
                tensor(&[1, 2, 1], DType::I8, Some((0.5, 1)), None),
                tensor(&[1, 2, 4], DType::I8, Some((0.5, 1)), None),
            ],
            OpCode::CONCATENATION,
            axis_options,
            &[0, 1],
            2,
        );
        match &lower(&g).unwrap()[0].kind {
            CallKind::Kernel(k) => {
                assert_eq!(k.function, "concat2");
                assert_eq!(
                    k.operands,
                    vec![Operand::Src(0), Operand::Src(1), Operand::Offset(2)]
                );
                assert_eq!(
                    k.params.clone().unwrap().fields,
                    vec![
                        ("outer", Value::Usize(2)),
                        ("chunk_bytes", Value::Usizes(vec![3, 1]))
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
        g.tensors[1].quant = Some(Quantization {
            scales: vec![0.25],
            zero_points: vec![1],
            axis: 0,
        });
        let err = lower(&g).unwrap_err().to_string();
        assert!(err.contains("quantized differently"), "{err}");
    }

    #[test]
    fn add_s8_parameters_follow_tflm_prepare() {
        let g = graph(
            vec![
                tensor(&[1, 4], DType::I8, Some((0.5, 0)), None),
                tensor(&[4], DType::I8, Some((0.25, 2)), None),
                tensor(&[1, 4], DType::I8, Some((1.0, -1)), None),
            ],
            OpCode::ADD,
            Options::Arithmetic {
                activation: crate::ir::Activation::Relu,
            },
            &[0, 1],
            2,
        );
        // twice_max = 1.0: input multipliers 0.5 and 0.25, output 2^-20.
        assert_eq!(
            fields(&g),
            vec![
                ("shape", Value::Usizes(vec![4])),
                ("a_strides", Value::Usizes(vec![1])),
                ("b_strides", Value::Usizes(vec![1])),
                ("a_offset", Value::I32(0)),
                ("a_multiplier", Value::I32(1 << 30)),
                ("a_shift", Value::I32(0)),
                ("b_offset", Value::I32(-2)),
                ("b_multiplier", Value::I32(1 << 30)),
                ("b_shift", Value::I32(-1)),
                ("left_shift", Value::I32(20)),
                ("output_multiplier", Value::I32(1 << 30)),
                ("output_shift", Value::I32(-19)),
                ("output_offset", Value::I32(-1)),
                ("act_min", Value::I32(-1)),
                ("act_max", Value::I32(127)),
            ]
        );
    }

    #[test]
    fn int16_is_refused_clearly() {
        let g = graph(
            vec![
                tensor(&[4], DType::I16, Some((0.5, 0)), None),
                tensor(&[4], DType::I16, Some((0.5, 0)), None),
            ],
            OpCode::RELU,
            Options::None,
            &[0],
            1,
        );
        let err = lower(&g).unwrap_err().to_string();
        assert!(err.contains("INT16"), "{err}");
    }

    static BEGIN: [u8; 8] = [1, 0, 0, 0, 3, 0, 0, 0];
    static END: [u8; 8] = [0; 8];
    static STRIDES: [u8; 8] = [1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff];

    #[test]
    fn strided_slice_shrinks_and_walks_backwards() {
        use crate::ir::StridedSliceOptions;
        let options = Options::StridedSlice(StridedSliceOptions {
            begin_mask: 0,
            end_mask: 0,
            ellipsis_mask: 0,
            new_axis_mask: 0,
            shrink_axis_mask: 1,
            offset: false,
        });
        // x[1, 3:0:-2] of a 2x4 tensor: elements 7 and 5.
        let mut g = graph(
            vec![
                tensor(&[2, 4], DType::I8, Some((1.0, 0)), None),
                tensor(&[2], DType::I32, None, Some(&BEGIN)),
                tensor(&[2], DType::I32, None, Some(&END)),
                tensor(&[2], DType::I32, None, Some(&STRIDES)),
                tensor(&[2], DType::I8, Some((1.0, 0)), None),
            ],
            OpCode::STRIDED_SLICE,
            options.clone(),
            &[0, 1, 2, 3],
            4,
        );
        assert_eq!(
            fields(&g),
            vec![
                ("elem_bytes", Value::Usize(1)),
                ("input_bytes", Value::Usize(8)),
                ("start", Value::Usize(7)),
                ("counts", Value::Usizes(vec![2])),
                ("steps", Value::I32s(vec![-2])),
            ]
        );
        // A non-constant begin is refused.
        g.tensors[1].data = None;
        assert!(lower(&g).unwrap_err().to_string().contains("begin"));
    }
}

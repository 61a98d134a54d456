//! The loader on hand-built models: each way a file can be wrong maps to the error variant the
//! contract promises, and each TFLite convention (optional inputs, the two opcode fields, missing
//! options, external buffers, the offline plan) is honoured.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use tinyaot_codegen::ir::{Activation, OpCode, OpKind, Options, Padding};
use tinyaot_codegen::load::load;
use tinyaot_codegen::Error;
use tinyaot_schema::tflite;

// ---------------------------------------------------------------------------------------------
// A small description of a model, and its serialisation with the generated builder API.

#[derive(Clone)]
struct Quant {
    scale: Vec<f32>,
    zero_point: Option<Vec<i64>>,
    dim: i32,
}

#[derive(Clone)]
struct Tensor {
    shape: Option<Vec<i32>>,
    signature: Option<Vec<i32>>,
    ty: tflite::TensorType,
    buffer: u32,
    quant: Option<Quant>,
    variable: bool,
}

fn tensor(shape: &[i32], ty: tflite::TensorType, buffer: u32) -> Tensor {
    Tensor {
        shape: Some(shape.to_vec()),
        signature: None,
        ty,
        buffer,
        quant: None,
        variable: false,
    }
}

#[derive(Clone)]
enum Opts {
    None,
    Conv {
        padding: i8,
        stride: (i32, i32),
        dilation: (i32, i32),
        act: i8,
    },
    Pool {
        filter: (i32, i32),
        act: i8,
    },
    Softmax(f32),
    FullyConnected {
        act: i8,
        weights_format: i8,
    },
    Reshape(Vec<i32>),
}

#[derive(Clone)]
struct Op {
    opcode: u32,
    inputs: Vec<i32>,
    outputs: Vec<i32>,
    intermediates: Vec<i32>,
    options: Opts,
}

#[derive(Clone)]
struct Code {
    deprecated: i8,
    builtin: i32,
    custom: Option<&'static str>,
    version: i32,
}

fn code(builtin: OpCode) -> Code {
    Code {
        deprecated: i8::try_from(builtin.0).unwrap_or(127),
        builtin: builtin.0,
        custom: None,
        version: 1,
    }
}

#[derive(Clone)]
enum Buf {
    Empty,
    Data(Vec<u8>),
    External { offset: u64, size: u64 },
}

#[derive(Clone)]
struct Spec {
    version: u32,
    subgraphs: usize,
    codes: Vec<Code>,
    tensors: Vec<Tensor>,
    ops: Vec<Op>,
    inputs: Vec<i32>,
    outputs: Vec<i32>,
    buffers: Vec<Buf>,
    metadata: Vec<(&'static str, u32)>,
}

/// A conv net of one CONV_2D: input [1,4,4,1] i8, filter [2,3,3,1] i8 (per-channel), bias [2]
/// i32, output [1,4,4,2] i8.
fn conv_spec() -> Spec {
    let mut filter = tensor(&[2, 3, 3, 1], tflite::TensorType::INT8, 1);
    filter.quant = Some(Quant {
        scale: vec![0.5, 0.25],
        zero_point: Some(vec![0, 0]),
        dim: 0,
    });
    let mut input = tensor(&[1, 4, 4, 1], tflite::TensorType::INT8, 0);
    input.quant = Some(Quant {
        scale: vec![0.1],
        zero_point: Some(vec![-3]),
        dim: 0,
    });
    Spec {
        version: 3,
        subgraphs: 1,
        codes: vec![code(OpCode::CONV_2D)],
        tensors: vec![
            input,
            filter,
            tensor(&[2], tflite::TensorType::INT32, 2),
            tensor(&[1, 4, 4, 2], tflite::TensorType::INT8, 0),
        ],
        ops: vec![Op {
            opcode: 0,
            inputs: vec![0, 1, 2],
            outputs: vec![3],
            intermediates: vec![],
            options: Opts::Conv {
                padding: 0,
                stride: (1, 1),
                dilation: (1, 1),
                act: 1,
            },
        }],
        inputs: vec![0],
        outputs: vec![3],
        buffers: vec![Buf::Empty, Buf::Data(vec![1; 18]), Buf::Data(vec![2; 8])],
        metadata: vec![],
    }
}

fn build(spec: &Spec) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let codes: Vec<_> = spec
        .codes
        .iter()
        .map(|c| {
            let custom_code = c.custom.map(|s| fbb.create_string(s));
            tflite::OperatorCode::create(
                &mut fbb,
                &tflite::OperatorCodeArgs {
                    deprecated_builtin_code: c.deprecated,
                    custom_code,
                    version: c.version,
                    builtin_code: tflite::BuiltinOperator(c.builtin),
                },
            )
        })
        .collect();
    let tensors: Vec<_> = spec
        .tensors
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let shape = t.shape.as_ref().map(|s| fbb.create_vector(s));
            let shape_signature = t.signature.as_ref().map(|s| fbb.create_vector(s));
            let name = Some(fbb.create_string(&format!("t{i}")));
            let quantization = t.quant.as_ref().map(|q| {
                let scale = Some(fbb.create_vector(&q.scale));
                let zero_point = q.zero_point.as_ref().map(|z| fbb.create_vector(z));
                tflite::QuantizationParameters::create(
                    &mut fbb,
                    &tflite::QuantizationParametersArgs {
                        scale,
                        zero_point,
                        quantized_dimension: q.dim,
                        ..Default::default()
                    },
                )
            });
            tflite::Tensor::create(
                &mut fbb,
                &tflite::TensorArgs {
                    shape,
                    type_: t.ty,
                    buffer: t.buffer,
                    name,
                    quantization,
                    is_variable: t.variable,
                    shape_signature,
                    ..Default::default()
                },
            )
        })
        .collect();
    let ops: Vec<_> = spec
        .ops
        .iter()
        .map(|op| {
            let inputs = Some(fbb.create_vector(&op.inputs));
            let outputs = Some(fbb.create_vector(&op.outputs));
            let intermediates = Some(fbb.create_vector(&op.intermediates));
            let (builtin_options_type, builtin_options) = options(&mut fbb, &op.options);
            tflite::Operator::create(
                &mut fbb,
                &tflite::OperatorArgs {
                    opcode_index: op.opcode,
                    inputs,
                    outputs,
                    intermediates,
                    builtin_options_type,
                    builtin_options,
                    ..Default::default()
                },
            )
        })
        .collect();
    let tensors = fbb.create_vector(&tensors);
    let ops = fbb.create_vector(&ops);
    let inputs = fbb.create_vector(&spec.inputs);
    let outputs = fbb.create_vector(&spec.outputs);
    let subgraphs: Vec<_> = (0..spec.subgraphs)
        .map(|_| {
            tflite::SubGraph::create(
                &mut fbb,
                &tflite::SubGraphArgs {
                    tensors: Some(tensors),
                    inputs: Some(inputs),
                    outputs: Some(outputs),
                    operators: Some(ops),
                    ..Default::default()
                },
            )
        })
        .collect();
    let buffers: Vec<_> = spec
        .buffers
        .iter()
        .map(|b| {
            let args = match b {
                Buf::Empty => tflite::BufferArgs::default(),
                Buf::Data(d) => {
                    let data = Some(fbb.create_vector(d));
                    tflite::BufferArgs {
                        data,
                        ..Default::default()
                    }
                }
                Buf::External { offset, size } => tflite::BufferArgs {
                    data: None,
                    offset: *offset,
                    size: *size,
                },
            };
            tflite::Buffer::create(&mut fbb, &args)
        })
        .collect();
    let metadata: Vec<_> = spec
        .metadata
        .iter()
        .map(|(name, buffer)| {
            let name = Some(fbb.create_string(name));
            tflite::Metadata::create(
                &mut fbb,
                &tflite::MetadataArgs {
                    name,
                    buffer: *buffer,
                },
            )
        })
        .collect();
    let model = tflite::ModelArgs {
        version: spec.version,
        operator_codes: Some(fbb.create_vector(&codes)),
        subgraphs: Some(fbb.create_vector(&subgraphs)),
        description: Some(fbb.create_string("hand-built")),
        buffers: Some(fbb.create_vector(&buffers)),
        metadata: Some(fbb.create_vector(&metadata)),
        ..Default::default()
    };
    let model = tflite::Model::create(&mut fbb, &model);
    tflite::finish_model_buffer(&mut fbb, model);
    fbb.finished_data().to_vec()
}

fn options(
    fbb: &mut FlatBufferBuilder<'_>,
    opts: &Opts,
) -> (
    tflite::BuiltinOptions,
    Option<WIPOffset<flatbuffers::UnionWIPOffset>>,
) {
    use tflite::{ActivationFunctionType as A, BuiltinOptions as B};
    match opts {
        Opts::None => (B::NONE, None),
        Opts::Conv {
            padding,
            stride,
            dilation,
            act,
        } => {
            let o = tflite::Conv2DOptions::create(
                fbb,
                &tflite::Conv2DOptionsArgs {
                    padding: tflite::Padding(*padding),
                    stride_w: stride.0,
                    stride_h: stride.1,
                    dilation_w_factor: dilation.0,
                    dilation_h_factor: dilation.1,
                    fused_activation_function: A(*act),
                    ..Default::default()
                },
            );
            (B::Conv2DOptions, Some(o.as_union_value()))
        }
        Opts::Pool { filter, act } => {
            let o = tflite::Pool2DOptions::create(
                fbb,
                &tflite::Pool2DOptionsArgs {
                    padding: tflite::Padding::VALID,
                    stride_w: 1,
                    stride_h: 1,
                    filter_width: filter.0,
                    filter_height: filter.1,
                    fused_activation_function: A(*act),
                },
            );
            (B::Pool2DOptions, Some(o.as_union_value()))
        }
        Opts::Softmax(beta) => {
            let o =
                tflite::SoftmaxOptions::create(fbb, &tflite::SoftmaxOptionsArgs { beta: *beta });
            (B::SoftmaxOptions, Some(o.as_union_value()))
        }
        Opts::FullyConnected {
            act,
            weights_format,
        } => {
            let o = tflite::FullyConnectedOptions::create(
                fbb,
                &tflite::FullyConnectedOptionsArgs {
                    fused_activation_function: A(*act),
                    weights_format: tflite::FullyConnectedOptionsWeightsFormat(*weights_format),
                    ..Default::default()
                },
            );
            (B::FullyConnectedOptions, Some(o.as_union_value()))
        }
        Opts::Reshape(shape) => {
            let new_shape = Some(fbb.create_vector(shape));
            let o = tflite::ReshapeOptions::create(fbb, &tflite::ReshapeOptionsArgs { new_shape });
            (B::ReshapeOptions, Some(o.as_union_value()))
        }
    }
}

fn load_spec(spec: &Spec) -> Result<usize, Error> {
    let bytes = build(spec);
    load(&bytes).map(|g| g.tensors.len())
}

fn corrupt_detail(spec: &Spec) -> String {
    match load_spec(spec) {
        Err(Error::Corrupt { detail }) => detail,
        other => panic!("expected Error::Corrupt, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------

#[test]
fn the_base_model_loads() {
    let bytes = build(&conv_spec());
    let g = load(&bytes).expect("base model");
    assert_eq!(g.tensors.len(), 4);
    assert_eq!(g.description, "hand-built");
    assert_eq!(g.inputs, vec![0]);
    assert_eq!(g.outputs, vec![3]);
    let filter = &g.tensors[1];
    assert_eq!(filter.shape, vec![2, 3, 3, 1]);
    assert_eq!(filter.bytes, 18);
    assert_eq!(filter.data, Some(&[1u8; 18][..]));
    let q = filter.quant.as_ref().expect("filter quantization");
    assert!(q.is_per_channel());
    assert_eq!((q.axis, q.scales.len(), q.zero_points.len()), (0, 2, 2));
    let input = &g.tensors[0];
    assert_eq!(input.data, None);
    assert_eq!(
        input.quant.as_ref().map(|q| q.zero_points.clone()),
        Some(vec![-3])
    );
    assert_eq!(g.tensors[2].bytes, 8);
    let op = &g.operators[0];
    assert_eq!(op.kind, OpKind::Builtin(OpCode::CONV_2D));
    assert_eq!(op.version, 1);
    match &op.options {
        Options::Conv2D(o) => {
            assert_eq!(o.padding, Padding::Same);
            assert_eq!(
                (o.stride_w, o.stride_h, o.dilation_w, o.dilation_h),
                (1, 1, 1, 1)
            );
            assert_eq!(o.activation, Activation::Relu);
        }
        other => panic!("conv options: {other:?}"),
    }
    assert_eq!(g.offline_offsets, None);
}

#[test]
fn header_errors() {
    assert!(matches!(load(&[]), Err(Error::Truncated { len: 0, .. })));
    assert!(matches!(
        load(&[0; 7]),
        Err(Error::Truncated { len: 7, .. })
    ));
    let mut bytes = build(&conv_spec());
    bytes[4..8].copy_from_slice(b"TFL2");
    assert!(matches!(load(&bytes), Err(Error::WrongIdentifier { found }) if &found == b"TFL2"));
    // Root offset pointing past the end.
    let mut bytes = build(&conv_spec());
    bytes[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = load(&bytes).unwrap_err();
    assert!(matches!(err, Error::Truncated { .. }), "{err:?}");
    // Cut in the middle: the verifier sees offsets past the end.
    let bytes = build(&conv_spec());
    let err = load(&bytes[..bytes.len() / 2]).unwrap_err();
    assert!(
        matches!(err, Error::Truncated { .. } | Error::Corrupt { .. }),
        "{err:?}"
    );
}

#[test]
fn version_and_subgraphs() {
    let mut spec = conv_spec();
    spec.version = 2;
    assert!(matches!(
        load_spec(&spec),
        Err(Error::UnsupportedVersion { version: 2 })
    ));
    let mut spec = conv_spec();
    spec.subgraphs = 0;
    assert!(matches!(
        load_spec(&spec),
        Err(Error::Subgraphs { count: 0 })
    ));
    spec.subgraphs = 2;
    assert!(matches!(
        load_spec(&spec),
        Err(Error::Subgraphs { count: 2 })
    ));
}

#[test]
fn dtypes() {
    for (ty, name) in [
        (tflite::TensorType::STRING, "STRING"),
        (tflite::TensorType::COMPLEX64, "COMPLEX64"),
        (tflite::TensorType::RESOURCE, "RESOURCE"),
        (tflite::TensorType::VARIANT, "VARIANT"),
        (tflite::TensorType::INT4, "INT4"),
        (tflite::TensorType(100), "TensorType(100)"),
    ] {
        let mut spec = conv_spec();
        spec.tensors[3].ty = ty;
        match load_spec(&spec) {
            Err(Error::UnsupportedDtype { tensor, dtype, .. }) => {
                assert_eq!((tensor, dtype.as_str()), (3, name));
            }
            other => panic!("{name}: {other:?}"),
        }
    }
    for ty in [
        tflite::TensorType::FLOAT32,
        tflite::TensorType::FLOAT16,
        tflite::TensorType::FLOAT64,
        tflite::TensorType::UINT8,
        tflite::TensorType::INT16,
        tflite::TensorType::UINT16,
        tflite::TensorType::UINT32,
        tflite::TensorType::INT64,
        tflite::TensorType::UINT64,
        tflite::TensorType::BOOL,
    ] {
        let mut spec = conv_spec();
        spec.tensors[3].ty = ty;
        assert!(load_spec(&spec).is_ok(), "{ty:?}");
    }
}

#[test]
fn shapes() {
    let mut spec = conv_spec();
    spec.tensors[3].shape = Some(vec![1, -4, 4, 2]);
    assert!(corrupt_detail(&spec).contains("dimension -4 at axis 1"));

    // -1 in the shape itself: not known before run time.
    let mut spec = conv_spec();
    spec.tensors[0].shape = Some(vec![-1, 4, 4, 1]);
    assert!(matches!(
        load_spec(&spec),
        Err(Error::DynamicShape { tensor: 0, .. })
    ));

    // A signature that disagrees with the shape on rank.
    let mut spec = conv_spec();
    spec.tensors[0].signature = Some(vec![-1, 4, 4]);
    assert!(matches!(
        load_spec(&spec),
        Err(Error::DynamicShape { tensor: 0, signature, .. }) if signature == vec![-1, 4, 4]
    ));

    // The converter's usual open batch dimension: loads at `shape`, as TFLM runs it.
    let mut spec = conv_spec();
    spec.tensors[0].signature = Some(vec![-1, 4, 4, 1]);
    let bytes = build(&spec);
    assert_eq!(load(&bytes).unwrap().tensors[0].shape, vec![1, 4, 4, 1]);

    // No shape at all: a scalar.
    let mut spec = conv_spec();
    spec.tensors[3].shape = None;
    let bytes = build(&spec);
    let g = load(&bytes).unwrap();
    assert_eq!((g.tensors[3].shape.len(), g.tensors[3].bytes), (0, 1));

    let mut spec = conv_spec();
    spec.tensors[3].shape = Some(vec![i32::MAX, i32::MAX, i32::MAX, 2]);
    spec.tensors[3].ty = tflite::TensorType::INT64;
    assert!(matches!(load_spec(&spec), Err(Error::Overflow { .. })));
}

#[test]
fn quantization() {
    let mut spec = conv_spec();
    spec.tensors[1].quant.as_mut().unwrap().zero_point = Some(vec![0, 0, 0]);
    assert!(corrupt_detail(&spec).contains("2 quantization scales but 3 zero points"));

    let mut spec = conv_spec();
    spec.tensors[1].quant.as_mut().unwrap().zero_point = None;
    assert!(corrupt_detail(&spec).contains("no zero points"));

    // One zero point for all channels (TFLM applies it to each).
    let mut spec = conv_spec();
    spec.tensors[1].quant.as_mut().unwrap().zero_point = Some(vec![0]);
    let bytes = build(&spec);
    let g = load(&bytes).unwrap();
    assert_eq!(g.tensors[1].quant.as_ref().unwrap().zero_points, vec![0, 0]);

    // Per-channel along a dimension of the wrong size, or outside the rank.
    for dim in [1, 3, 4, -1] {
        let mut spec = conv_spec();
        spec.tensors[1].quant.as_mut().unwrap().dim = dim;
        assert!(
            corrupt_detail(&spec).contains("per-channel scales"),
            "dim {dim}"
        );
    }

    // A bias carrying its filter's quantized_dimension (as real converters write it).
    let mut spec = conv_spec();
    spec.tensors[2].quant = Some(Quant {
        scale: vec![0.05, 0.025],
        zero_point: Some(vec![0, 0]),
        dim: 3,
    });
    let bytes = build(&spec);
    assert_eq!(
        load(&bytes).unwrap().tensors[2]
            .quant
            .as_ref()
            .unwrap()
            .axis,
        0
    );

    // Empty scales: not quantized.
    let mut spec = conv_spec();
    spec.tensors[0].quant = Some(Quant {
        scale: vec![],
        zero_point: None,
        dim: 0,
    });
    let bytes = build(&spec);
    assert_eq!(load(&bytes).unwrap().tensors[0].quant, None);
}

#[test]
fn buffers() {
    let mut spec = conv_spec();
    spec.tensors[1].buffer = 9;
    match load_spec(&spec) {
        Err(Error::IndexOutOfRange {
            context,
            index: 9,
            len: 3,
        }) => assert_eq!(context, "tensor 1 buffer"),
        other => panic!("{other:?}"),
    }

    let mut spec = conv_spec();
    spec.buffers[1] = Buf::Data(vec![1; 17]);
    assert!(corrupt_detail(&spec).contains("needs 18 bytes of constant data"));

    // An empty buffer other than 0 is an activation too.
    let mut spec = conv_spec();
    spec.buffers[2] = Buf::Empty;
    let bytes = build(&spec);
    assert_eq!(load(&bytes).unwrap().tensors[2].data, None);

    // Data stored after the FlatBuffer (the > 2 GB layout): offset and size from the file start.
    let mut spec = conv_spec();
    spec.buffers[1] = Buf::External {
        offset: 2,
        size: 18,
    };
    let probe = build(&spec);
    let offset = probe.len().next_multiple_of(16) as u64;
    spec.buffers[1] = Buf::External { offset, size: 18 };
    let mut bytes = build(&spec);
    assert_eq!(bytes.len(), probe.len());
    bytes.resize(offset as usize, 0);
    bytes.extend((0..18).map(|i| i as u8));
    let g = load(&bytes).unwrap();
    assert_eq!(g.tensors[1].data, Some(&bytes[offset as usize..]));

    // The same layout, cut before the data ends.
    let cut = &bytes[..bytes.len() - 1];
    assert!(matches!(load(cut), Err(Error::Truncated { .. })));
    // An offset no file can reach.
    spec.buffers[1] = Buf::External {
        offset: u64::MAX - 4,
        size: 18,
    };
    assert!(matches!(load_spec(&spec), Err(Error::Truncated { .. })));
}

#[test]
fn operator_indices() {
    let mut spec = conv_spec();
    spec.ops[0].opcode = 1;
    assert!(matches!(
        load_spec(&spec),
        Err(Error::IndexOutOfRange { context, index: 1, len: 1 }) if context == "operator 0 opcode_index"
    ));

    let mut spec = conv_spec();
    spec.ops[0].inputs[1] = 7;
    assert!(matches!(
        load_spec(&spec),
        Err(Error::IndexOutOfRange { context, index: 7, len: 4 }) if context == "operator 0 input 1"
    ));

    let mut spec = conv_spec();
    spec.ops[0].inputs[2] = -2;
    assert!(matches!(
        load_spec(&spec),
        Err(Error::IndexOutOfRange { index: -2, .. })
    ));

    let mut spec = conv_spec();
    spec.ops[0].outputs[0] = -1;
    assert!(matches!(
        load_spec(&spec),
        Err(Error::IndexOutOfRange { context, .. }) if context == "operator 0 output 0"
    ));

    let mut spec = conv_spec();
    spec.ops[0].intermediates = vec![4];
    assert!(matches!(
        load_spec(&spec),
        Err(Error::IndexOutOfRange { context, .. }) if context == "operator 0 intermediate 0"
    ));

    // -1 is an omitted optional input.
    let mut spec = conv_spec();
    spec.ops[0].inputs[2] = -1;
    spec.ops[0].intermediates = vec![2];
    let bytes = build(&spec);
    let g = load(&bytes).unwrap();
    assert_eq!(g.operators[0].inputs, vec![Some(0), Some(1), None]);
    assert_eq!(g.operators[0].input(2), None);
    assert_eq!(g.operators[0].intermediates, vec![2]);

    let mut spec = conv_spec();
    spec.outputs = vec![4];
    assert!(matches!(
        load_spec(&spec),
        Err(Error::IndexOutOfRange { context, .. }) if context == "subgraph output 0"
    ));
    let mut spec = conv_spec();
    spec.inputs = vec![0, -1];
    assert!(matches!(
        load_spec(&spec),
        Err(Error::IndexOutOfRange { context, .. }) if context == "subgraph input 1"
    ));
}

#[test]
fn operator_codes() {
    // Old files: only the byte-wide field.
    let mut spec = conv_spec();
    spec.codes[0] = Code {
        deprecated: 3,
        builtin: 0,
        custom: None,
        version: 2,
    };
    let bytes = build(&spec);
    let g = load(&bytes).unwrap();
    assert_eq!(g.operators[0].kind, OpKind::Builtin(OpCode::CONV_2D));
    assert_eq!(g.operators[0].version, 2);

    // Codes past 127: the byte field holds the placeholder, the wide one the code.
    let mut spec = conv_spec();
    spec.codes[0] = Code {
        deprecated: 127,
        builtin: 150,
        custom: None,
        version: 1,
    };
    spec.ops[0].options = Opts::None;
    let bytes = build(&spec);
    let g = load(&bytes).unwrap();
    assert_eq!(g.operators[0].kind.name(), "GELU");
    assert_eq!(g.operators[0].options, Options::None);

    // Unknown codes load; lowering refuses them.
    let mut spec = conv_spec();
    spec.codes[0] = Code {
        deprecated: 127,
        builtin: 9999,
        custom: None,
        version: 1,
    };
    spec.ops[0].options = Opts::None;
    let bytes = build(&spec);
    assert_eq!(
        load(&bytes).unwrap().operators[0].kind.name(),
        "BUILTIN_9999"
    );

    let mut spec = conv_spec();
    spec.codes[0] = Code {
        deprecated: -5,
        builtin: -7,
        custom: None,
        version: 1,
    };
    assert!(corrupt_detail(&spec).contains("negative"));

    let mut spec = conv_spec();
    spec.codes[0] = Code {
        deprecated: 32,
        builtin: 32,
        custom: Some("TFLite_Detection_PostProcess"),
        version: 1,
    };
    let bytes = build(&spec);
    let g = load(&bytes).unwrap();
    assert_eq!(
        g.operators[0].kind,
        OpKind::Custom("TFLite_Detection_PostProcess".into())
    );
    assert_eq!(g.operators[0].options, Options::None);

    spec.codes[0].custom = None;
    assert!(corrupt_detail(&spec).contains("no custom_code"));

    // A name that would be copied once per operator is bounded.
    spec.codes[0].custom = Some(Box::leak("x".repeat(5000).into_boxed_str()));
    assert!(corrupt_detail(&spec).contains("5000-byte custom_code"));
}

#[test]
fn conv_options() {
    let with = |padding: i8, stride: (i32, i32), dilation: (i32, i32), act: i8| {
        let mut spec = conv_spec();
        spec.ops[0].options = Opts::Conv {
            padding,
            stride,
            dilation,
            act,
        };
        spec
    };
    let d = corrupt_detail(&with(0, (1, 1), (1, 1), 42));
    assert!(
        d.contains("operator 0 (CONV_2D)") && d.contains("fused activation 42"),
        "{d}"
    );
    let d = corrupt_detail(&with(9, (1, 1), (1, 1), 0));
    assert!(
        d.contains("operator 0 (CONV_2D)") && d.contains("padding 9"),
        "{d}"
    );
    assert!(corrupt_detail(&with(0, (0, 1), (1, 1), 0)).contains("stride_w is 0"));
    assert!(corrupt_detail(&with(0, (1, -2), (1, 1), 0)).contains("stride_h is -2"));
    assert!(corrupt_detail(&with(0, (1, 1), (0, 1), 0)).contains("dilation_w_factor is 0"));
    assert!(corrupt_detail(&with(0, (1, 1), (1, 0), 0)).contains("dilation_h_factor is 0"));

    let bytes = build(&with(1, (2, 3), (1, 2), 3));
    match &load(&bytes).unwrap().operators[0].options {
        Options::Conv2D(o) => {
            assert_eq!(o.padding, Padding::Valid);
            assert_eq!(
                (o.stride_w, o.stride_h, o.dilation_w, o.dilation_h),
                (2, 3, 1, 2)
            );
            assert_eq!(o.activation, Activation::Relu6);
        }
        other => panic!("{other:?}"),
    }

    // CONV_2D without options: TFLite would run with strides of 0; refuse.
    let mut spec = conv_spec();
    spec.ops[0].options = Opts::None;
    assert!(corrupt_detail(&spec).contains("has no Conv2DOptions"));

    // Options of the wrong type.
    let mut spec = conv_spec();
    spec.ops[0].options = Opts::Softmax(1.0);
    assert!(corrupt_detail(&spec).contains("carries SoftmaxOptions but expects Conv2DOptions"));
}

/// One op of `code` with `options` on a [1, 4, 4, 2] int8 tensor.
fn single_op(code: OpCode, options: Opts) -> Spec {
    let mut spec = conv_spec();
    spec.codes = vec![self::code(code)];
    spec.ops[0] = Op {
        opcode: 0,
        inputs: vec![0],
        outputs: vec![3],
        intermediates: vec![],
        options,
    };
    spec
}

fn options_of(spec: &Spec) -> Options {
    let bytes = build(spec);
    let g = load(&bytes).unwrap_or_else(|e| panic!("{e}"));
    g.operators[0].options.clone()
}

#[test]
fn other_options() {
    // SOFTMAX without options: TFLite's parser leaves beta at 0.
    assert_eq!(
        options_of(&single_op(OpCode::SOFTMAX, Opts::None)),
        Options::Softmax { beta: 0.0 }
    );
    assert_eq!(
        options_of(&single_op(OpCode::SOFTMAX, Opts::Softmax(0.5))),
        Options::Softmax { beta: 0.5 }
    );
    match options_of(&single_op(
        OpCode::FULLY_CONNECTED,
        Opts::FullyConnected {
            act: 2,
            weights_format: 1,
        },
    )) {
        Options::FullyConnected(o) => {
            assert!(o.shuffled_weights);
            assert_eq!(o.activation, Activation::ReluN1To1);
        }
        other => panic!("{other:?}"),
    }
    match options_of(&single_op(OpCode::FULLY_CONNECTED, Opts::None)) {
        Options::FullyConnected(o) => {
            assert!(!o.shuffled_weights && !o.keep_num_dims);
            assert_eq!(o.activation, Activation::None);
        }
        other => panic!("{other:?}"),
    }
    let d = corrupt_detail(&single_op(
        OpCode::FULLY_CONNECTED,
        Opts::FullyConnected {
            act: 0,
            weights_format: 7,
        },
    ));
    assert!(d.contains("weights_format 7"), "{d}");
    assert_eq!(
        options_of(&single_op(OpCode::RESHAPE, Opts::Reshape(vec![1, -1]))),
        Options::Reshape {
            new_shape: vec![1, -1]
        }
    );
    assert_eq!(
        options_of(&single_op(OpCode::RESHAPE, Opts::None)),
        Options::Reshape { new_shape: vec![] }
    );
    assert_eq!(
        options_of(&single_op(OpCode::ADD, Opts::None)),
        Options::Arithmetic {
            activation: Activation::None
        }
    );
    assert_eq!(
        options_of(&single_op(OpCode::MEAN, Opts::None)),
        Options::Reducer { keep_dims: false }
    );
    let d = corrupt_detail(&single_op(
        OpCode::MAX_POOL_2D,
        Opts::Pool {
            filter: (2, 0),
            act: 0,
        },
    ));
    assert!(
        d.contains("operator 0 (MAX_POOL_2D)") && d.contains("filter_height is 0"),
        "{d}"
    );
    assert!(
        corrupt_detail(&single_op(OpCode::AVERAGE_POOL_2D, Opts::None))
            .contains("has no Pool2DOptions")
    );
    assert!(corrupt_detail(&single_op(OpCode::SVDF, Opts::None)).contains("has no SVDFOptions"));
    // Ops outside `Options` load with none, whatever they carry.
    assert_eq!(
        options_of(&single_op(OpCode::TANH, Opts::Softmax(1.0))),
        Options::None
    );
}

#[test]
fn offline_memory_allocation() {
    let plan = |words: &[i32]| {
        let mut spec = conv_spec();
        spec.buffers.push(Buf::Data(
            words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        ));
        spec.metadata = vec![("min_runtime_version", 0), ("OfflineMemoryAllocation", 3)];
        spec
    };
    let bytes = build(&plan(&[1, 0, 4, 0, -1, -1, 16]));
    assert_eq!(
        load(&bytes).unwrap().offline_offsets,
        Some(vec![0, -1, -1, 16])
    );
    assert!(corrupt_detail(&plan(&[1, 0, 3, 0, -1, -1])).contains("offsets for 3 tensors"));
    assert!(corrupt_detail(&plan(&[1, 0, 4, 0, -1, -1])).contains("holds 3"));
    assert!(corrupt_detail(&plan(&[1, 0, 4, 0, -2, -1, 0])).contains("offset -2 for tensor 1"));
    assert!(corrupt_detail(&plan(&[1, 1, 4, 0, 0, 0, 0])).contains("subgraph 1"));
    assert!(corrupt_detail(&plan(&[1, 0])).contains("header"));
    let mut spec = plan(&[1, 0, 4, 0, 0, 0, 0]);
    spec.buffers[3] = Buf::Data(vec![0; 13]);
    assert!(corrupt_detail(&spec).contains("whole number"));
    let mut spec = plan(&[1, 0, 4, 0, 0, 0, 0]);
    spec.metadata[1].1 = 7;
    assert!(matches!(
        load_spec(&spec),
        Err(Error::IndexOutOfRange { .. })
    ));
}

#[test]
fn variable_tensors() {
    let mut spec = conv_spec();
    spec.tensors[3].variable = true;
    let bytes = build(&spec);
    let g = load(&bytes).unwrap();
    assert!(g.tensors[3].is_variable && !g.tensors[0].is_variable);
}

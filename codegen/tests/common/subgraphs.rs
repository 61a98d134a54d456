//! A builder of models of several subgraphs (tensors, operators with the options of the
//! multi-subgraph operators, inputs, outputs), for the loader's tests of CALL_ONCE, resource
//! variables, IF and WHILE.

use flatbuffers::{FlatBufferBuilder, WIPOffset};
use tinyaot_schema::tflite::{self, BuiltinOperator as B, TensorType as T};

/// A tensor: type, shape, constant bytes.
pub type Tensor = (T, Vec<i32>, Option<Vec<u8>>);

/// An operator's options: its CALL_ONCE target, VAR_HANDLE shared name (any bytes), IF
/// branches (then, else) or WHILE subgraphs (cond, body).
#[derive(Clone)]
pub enum Opt {
    None,
    CallOnce(i32),
    VarHandle(&'static [u8]),
    If(i32, i32),
    While(i32, i32),
}
pub type Op = (B, Vec<i32>, Vec<i32>, Opt);

/// A subgraph: tensors, operators, inputs, outputs.
pub type Subgraph = (Vec<Tensor>, Vec<Op>, Vec<i32>, Vec<i32>);

/// A model of subgraphs of (tensors, operators, inputs, outputs).
pub fn model(subgraphs: &[Subgraph]) -> Vec<u8> {
    let mut fbb = FlatBufferBuilder::new();
    let mut codes: Vec<B> = Vec::new();
    let mut buffers = vec![tflite::Buffer::create(&mut fbb, &Default::default())];
    let mut graphs = Vec::new();
    for (tensors, ops, inputs, outputs) in subgraphs {
        let mut ts = Vec::new();
        for (ty, shape, data) in tensors {
            let buffer = match data {
                Some(d) => {
                    let data = Some(fbb.create_vector(d));
                    buffers.push(tflite::Buffer::create(
                        &mut fbb,
                        &tflite::BufferArgs {
                            data,
                            ..Default::default()
                        },
                    ));
                    buffers.len() as u32 - 1
                }
                None => 0,
            };
            let shape = Some(fbb.create_vector(shape));
            let quantization = (*ty == T::INT8).then(|| {
                let scale = Some(fbb.create_vector(&[0.5f32]));
                let zero_point = Some(fbb.create_vector(&[0i64]));
                tflite::QuantizationParameters::create(
                    &mut fbb,
                    &tflite::QuantizationParametersArgs {
                        scale,
                        zero_point,
                        ..Default::default()
                    },
                )
            });
            ts.push(tflite::Tensor::create(
                &mut fbb,
                &tflite::TensorArgs {
                    shape,
                    type_: *ty,
                    buffer,
                    quantization,
                    ..Default::default()
                },
            ));
        }
        let mut os = Vec::new();
        for (code, ins, outs, opt) in ops {
            let index = codes.iter().position(|c| c == code).unwrap_or_else(|| {
                codes.push(*code);
                codes.len() - 1
            });
            let (options_type, options) = match opt {
                Opt::None => (tflite::BuiltinOptions::NONE, None),
                Opt::CallOnce(i) => (
                    tflite::BuiltinOptions::CallOnceOptions,
                    Some(
                        tflite::CallOnceOptions::create(
                            &mut fbb,
                            &tflite::CallOnceOptionsArgs {
                                init_subgraph_index: *i,
                            },
                        )
                        .as_union_value(),
                    ),
                ),
                Opt::VarHandle(name) => {
                    let shared_name = Some(WIPOffset::new(fbb.create_byte_string(name).value()));
                    (
                        tflite::BuiltinOptions::VarHandleOptions,
                        Some(
                            tflite::VarHandleOptions::create(
                                &mut fbb,
                                &tflite::VarHandleOptionsArgs {
                                    container: None,
                                    shared_name,
                                },
                            )
                            .as_union_value(),
                        ),
                    )
                }
                Opt::If(then, otherwise) => (
                    tflite::BuiltinOptions::IfOptions,
                    Some(
                        tflite::IfOptions::create(
                            &mut fbb,
                            &tflite::IfOptionsArgs {
                                then_subgraph_index: *then,
                                else_subgraph_index: *otherwise,
                            },
                        )
                        .as_union_value(),
                    ),
                ),
                Opt::While(cond, body) => (
                    tflite::BuiltinOptions::WhileOptions,
                    Some(
                        tflite::WhileOptions::create(
                            &mut fbb,
                            &tflite::WhileOptionsArgs {
                                cond_subgraph_index: *cond,
                                body_subgraph_index: *body,
                            },
                        )
                        .as_union_value(),
                    ),
                ),
            };
            let inputs = Some(fbb.create_vector(ins));
            let outputs = Some(fbb.create_vector(outs));
            os.push(tflite::Operator::create(
                &mut fbb,
                &tflite::OperatorArgs {
                    opcode_index: index as u32,
                    inputs,
                    outputs,
                    builtin_options_type: options_type,
                    builtin_options: options,
                    ..Default::default()
                },
            ));
        }
        let args = tflite::SubGraphArgs {
            tensors: Some(fbb.create_vector(&ts)),
            operators: Some(fbb.create_vector(&os)),
            inputs: Some(fbb.create_vector(inputs)),
            outputs: Some(fbb.create_vector(outputs)),
            ..Default::default()
        };
        graphs.push(tflite::SubGraph::create(&mut fbb, &args));
    }
    let codes: Vec<_> = codes
        .iter()
        .map(|c| {
            tflite::OperatorCode::create(
                &mut fbb,
                &tflite::OperatorCodeArgs {
                    deprecated_builtin_code: c.0.min(127) as i8,
                    builtin_code: *c,
                    version: 1,
                    ..Default::default()
                },
            )
        })
        .collect();
    let args = tflite::ModelArgs {
        version: 3,
        operator_codes: Some(fbb.create_vector(&codes)),
        subgraphs: Some(fbb.create_vector(&graphs)),
        buffers: Some(fbb.create_vector(&buffers)),
        ..Default::default()
    };
    let m = tflite::Model::create(&mut fbb, &args);
    fbb.finish(m, Some("TFL3"));
    fbb.finished_data().to_vec()
}

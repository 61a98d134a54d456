//! Serialising a [`ModelSpec`] into a `.tflite` FlatBuffer with `tinyaot-schema`'s builder API.

use flatbuffers::FlatBufferBuilder;
use tinyaot_schema::tflite;

use crate::{index_u32, BufferSpec, ModelSpec, OpSpec, TensorData, TensorSpec};

impl ModelSpec {
    /// Serialises the FlatBuffer, resolving [`BufferSpec::Trailing`] against `trailing_base`.
    pub(crate) fn build(&self, trailing_base: u64) -> Vec<u8> {
        let mut fbb = FlatBufferBuilder::new();
        let codes: Vec<_> = self
            .opcodes
            .iter()
            .map(|c| {
                let custom_code = c.custom_code.as_deref().map(|s| fbb.create_string(s));
                tflite::OperatorCode::create(
                    &mut fbb,
                    &tflite::OperatorCodeArgs {
                        deprecated_builtin_code: c.deprecated_builtin_code,
                        custom_code,
                        version: c.version,
                        builtin_code: c.builtin_code,
                    },
                )
            })
            .collect();

        // Constant tensor data goes into buffers after the explicit ones, in tensor order, the
        // first subgraph's tensors first.
        let mut buffers: Vec<BufferSpec> = self.buffers.clone();
        let first = write_subgraph(
            &mut fbb,
            &mut buffers,
            &self.tensors,
            &self.operators,
            &self.inputs,
            &self.outputs,
        );
        let mut subgraphs: Vec<_> = (0..self.subgraphs)
            .map(|_| tflite::SubGraph::create(&mut fbb, &first))
            .collect();
        for more in &self.more_subgraphs {
            let args = write_subgraph(
                &mut fbb,
                &mut buffers,
                &more.tensors,
                &more.operators,
                &more.inputs,
                &more.outputs,
            );
            subgraphs.push(tflite::SubGraph::create(&mut fbb, &args));
        }

        let buffers: Vec<_> = buffers
            .iter()
            .map(|b| {
                let args = match b {
                    BufferSpec::Empty => tflite::BufferArgs::default(),
                    BufferSpec::Data(d) => tflite::BufferArgs {
                        data: Some(fbb.create_vector(d)),
                        ..Default::default()
                    },
                    BufferSpec::External { offset, size } => tflite::BufferArgs {
                        data: None,
                        offset: *offset,
                        size: *size,
                    },
                    BufferSpec::Trailing { start, size } => tflite::BufferArgs {
                        data: None,
                        offset: trailing_base.saturating_add(*start),
                        size: *size,
                    },
                };
                tflite::Buffer::create(&mut fbb, &args)
            })
            .collect();
        let metadata: Vec<_> = self
            .metadata
            .iter()
            .map(|m| {
                let name = Some(fbb.create_string(&m.name));
                tflite::Metadata::create(
                    &mut fbb,
                    &tflite::MetadataArgs {
                        name,
                        buffer: m.buffer,
                    },
                )
            })
            .collect();
        let model = tflite::ModelArgs {
            version: self.version,
            operator_codes: Some(fbb.create_vector(&codes)),
            subgraphs: Some(fbb.create_vector(&subgraphs)),
            description: self.description.as_deref().map(|d| fbb.create_string(d)),
            buffers: Some(fbb.create_vector(&buffers)),
            metadata: Some(fbb.create_vector(&metadata)),
            ..Default::default()
        };
        let model = tflite::Model::create(&mut fbb, &model);
        tflite::finish_model_buffer(&mut fbb, model);
        fbb.finished_data().to_vec()
    }
}

/// Writes one subgraph's tensors (their constant data appended to `buffers`) and operators, and
/// returns the arguments of its table.
fn write_subgraph<'a>(
    fbb: &mut FlatBufferBuilder<'a>,
    buffers: &mut Vec<BufferSpec>,
    tensors: &[TensorSpec],
    operators: &[OpSpec],
    inputs: &[i32],
    outputs: &[i32],
) -> tflite::SubGraphArgs<'a> {
    let mut tensor_buffer = Vec::with_capacity(tensors.len());
    for t in tensors {
        tensor_buffer.push(match &t.data {
            TensorData::Buffer(b) => *b,
            TensorData::Constant(bytes) => {
                buffers.push(BufferSpec::Data(bytes.clone()));
                index_u32(buffers.len() - 1)
            }
        });
    }
    let tensors: Vec<_> = tensors
        .iter()
        .zip(tensor_buffer)
        .enumerate()
        .map(|(i, (t, buffer))| {
            let shape = t.shape.as_ref().map(|s| fbb.create_vector(s));
            let shape_signature = t.shape_signature.as_ref().map(|s| fbb.create_vector(s));
            let name = match &t.name {
                Some(n) => fbb.create_string(n),
                None => fbb.create_string(&format!("t{i}")),
            };
            let quantization = t.quantization.as_ref().map(|q| {
                let scale = Some(fbb.create_vector(&q.scales));
                let zero_point = q.zero_points.as_ref().map(|z| fbb.create_vector(z));
                tflite::QuantizationParameters::create(
                    fbb,
                    &tflite::QuantizationParametersArgs {
                        scale,
                        zero_point,
                        quantized_dimension: q.quantized_dimension,
                        ..Default::default()
                    },
                )
            });
            tflite::Tensor::create(
                fbb,
                &tflite::TensorArgs {
                    shape,
                    type_: t.dtype,
                    buffer,
                    name: Some(name),
                    quantization,
                    is_variable: t.is_variable,
                    shape_signature,
                    ..Default::default()
                },
            )
        })
        .collect();

    let ops: Vec<_> = operators
        .iter()
        .map(|op| {
            let inputs = Some(fbb.create_vector(&op.inputs));
            let outputs = Some(fbb.create_vector(&op.outputs));
            let intermediates = Some(fbb.create_vector(&op.intermediates));
            let custom_options = op.custom_options.as_ref().map(|c| fbb.create_vector(c));
            let (builtin_options_type, builtin_options) = op.options.write(fbb);
            tflite::Operator::create(
                fbb,
                &tflite::OperatorArgs {
                    opcode_index: op.opcode_index,
                    inputs,
                    outputs,
                    intermediates,
                    builtin_options_type,
                    builtin_options,
                    custom_options,
                    ..Default::default()
                },
            )
        })
        .collect();

    let tensors = fbb.create_vector(&tensors);
    let ops = fbb.create_vector(&ops);
    let inputs = fbb.create_vector(inputs);
    let outputs = fbb.create_vector(outputs);
    tflite::SubGraphArgs {
        tensors: Some(tensors),
        inputs: Some(inputs),
        outputs: Some(outputs),
        operators: Some(ops),
        ..Default::default()
    }
}

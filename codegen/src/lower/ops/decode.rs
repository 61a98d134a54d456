//! CUSTOM(TFLM_DECODE) → `decode::decode_lut`: weights compressed by TFLM's compression tool,
//! kept compressed in flash and decoded into the arena before their consumer, as TFLM's DECODE
//! operator (kernels/decode.cc) decodes them into its output tensor; the planner gives that
//! tensor a lifetime from the decode to its last consumer. Never folded: a folded decode would
//! store the uncompressed weights, which is what compression saves.
//!
//! The operator's inputs are pairs (the compressed tensor, its ancillary tensor: a 16-byte
//! "decode common metadata" header, then the decoder's data), one pair per output. Its Prepare
//! (checked here as it checks it) takes an even number of inputs, twice the outputs, both of a
//! pair constant, the header's version 1 and decode type LUT (0), Huffman (1) or pruning (2).
//! Lookup-table decoding (decode_state_lut.cc) of INT8 and FLOAT32 tensors is compiled; Huffman and pruning,
//! the other output types and a DECODE of more than one tensor (TFLM's tool writes one DECODE per
//! consumer, of every tensor it reads compressed) are refused as not supported yet.

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::decode as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{Data, OpContext, Operand};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::CUSTOM,
    types: Types {
        roles: &[Role::In(0), Role::In(1), Role::Out(0)],
        tinyaot: &[
            Sig::Each(&[Ty::U8, Ty::U8, Ty::F32]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::I8]),
        ],
        tflm: &[
            Sig::Each(&[Ty::U8, Ty::U8, Ty::Bool]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::F32]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::I8]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::I16]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::I32]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::I64]),
        ],
    },
    inputs: 2..=usize::MAX,
    outputs: super::ANY_OUTPUTS,
    lower: Lowering::Custom("TFLM_DECODE", decode),
}];

/// Bytes of the decode common metadata header, before the decoder's data.
const HEADER: usize = 16;
/// The header's decode types (byte 0).
const LUT: u8 = 0;
const HUFFMAN: u8 = 1;
const PRUNE: u8 = 2;

/// TFLM_DECODE of one tensor by lookup table.
fn decode(ctx: &OpContext) -> Result<Kernel> {
    let (n_in, n_out) = (ctx.op().inputs.len(), ctx.op().outputs.len());
    if n_out == 0 || n_in != 2 * n_out {
        return Err(ctx.invalid(
            format!("{n_in} inputs and {n_out} outputs; DECODE takes two inputs per output"),
            Grounds::tflm(
                "decode.cc Prepare: TF_LITE_ENSURE(num_outputs > 0), \
                 TF_LITE_ENSURE_EQ(num_inputs, num_outputs * 2)",
            ),
        ));
    }
    let encoded = ctx.input_index(0)?;
    let ancillary = ctx.input_index(1)?;
    for (what, t) in [("compressed", encoded), ("ancillary", ancillary)] {
        if !ctx.graph().tensors[t].is_constant() {
            return Err(ctx.invalid(
                format!("the {what} tensor is computed at run time"),
                Grounds::tflm("decode.cc Prepare: TF_LITE_ENSURE(IsConstantTensor(...))"),
            ));
        }
    }
    let bytes = |t: usize| ctx.graph().tensors[t].data.as_deref().unwrap_or(&[]);
    let (indices, meta) = (bytes(encoded), bytes(ancillary));
    if meta.len() < HEADER {
        return Err(ctx.invalid(
            format!(
                "the ancillary tensor has {} bytes, fewer than its 16-byte header",
                meta.len()
            ),
            Grounds::undefined("decode.cc Prepare reads the header's bytes beyond the tensor"),
        ));
    }
    if meta[1] != 1 {
        return Err(ctx.invalid(
            format!("decode metadata version {}; TFLM's DECODE takes 1", meta[1]),
            Grounds::tflm("decode.cc Prepare: DecodeState::Version(*ancillary) != 1"),
        ));
    }
    match meta[0] {
        LUT => {}
        HUFFMAN | PRUNE => {
            return Err(ctx.unsupported(format!(
                "decode type {} ({}); tinyaot decodes lookup tables (type 0) only so far",
                meta[0],
                if meta[0] == HUFFMAN {
                    "Huffman"
                } else {
                    "pruning"
                }
            )))
        }
        t => {
            return Err(ctx.invalid(
                format!("decode type {t}; TFLM's DECODE takes 0 (LUT), 1 (Huffman), 2 (pruning)"),
                Grounds::tflm("decode.cc Prepare: unsupported decode type"),
            ))
        }
    }
    if n_out > 1 {
        return Err(ctx.unsupported(format!(
            "{n_out} tensors decoded by one operator; tinyaot decodes one per TFLM_DECODE so far"
        )));
    }
    let output = ctx.output(0)?;
    lut(ctx, indices, meta, output)
}

/// The lookup-table decode of `indices` by the tables of `meta` into `output`, checked as
/// `DecodeStateLut::Setup` checks it, and every index's table entry within the tables (TFLM reads
/// whatever follows them otherwise).
fn lut(ctx: &OpContext, indices: &[u8], meta: &[u8], output: &crate::ir::Tensor) -> Result<Kernel> {
    if meta[4] != 1 {
        return Err(ctx.invalid(
            format!("lookup-table version {}; TFLM's DECODE takes 1", meta[4]),
            Grounds::tflm("decode_state_lut.cc Setup: unsupported version"),
        ));
    }
    let size = match output.dtype {
        DType::I8 | DType::F32 => output.dtype.size(),
        // The kernel copies any element size; these wait for a fixture with TFLM's goldens.
        t @ (DType::Bool | DType::I16 | DType::I32 | DType::I64) => {
            return Err(ctx.unsupported(format!(
                "the output has type {t}; tinyaot decodes INT8 and FLOAT32 tensors so far (TFLM \
                 also BOOL, INT16, INT32 and INT64)"
            )))
        }
        t => {
            return Err(ctx.invalid(
                format!(
                    "the output has type {t}; TFLM's lookup-table DECODE writes BOOL, FLOAT32, \
                     INT8, INT16, INT32 or INT64"
                ),
                Grounds::tflm("decode_state_lut.cc Decode: unsupported tensor type"),
            ))
        }
    };
    let rank = output.shape.len();
    let (channels, last_axis) = match &output.quant {
        Some(q) => {
            let n = q.scales.len();
            if n > 1 && rank > 0 && q.axis == rank - 1 {
                (n, true)
            } else if q.axis != 0 {
                return Err(ctx.invalid(
                    format!(
                        "quantization axis {}; TFLM decodes along axis 0 or the last",
                        q.axis
                    ),
                    Grounds::tflm("decode_state_lut.cc Setup: unsupported quantization axis"),
                ));
            } else {
                (n, false)
            }
        }
        None => (1, false),
    };
    let bit_width = usize::from(meta[5] & 0x07);
    if bit_width == 0 {
        return Err(ctx.invalid(
            "index width 0 bits; TFLM decodes indices of 1 to 7 bits",
            Grounds::tflm("decode_state_lut.cc: TFLITE_DCHECK(compressed_bit_width_ > 0)"),
        ));
    }
    let stride = usize::from(meta[6]);
    let count = output.num_elements();
    if channels == 0 || !count.is_multiple_of(channels) {
        return Err(ctx.invalid(
            format!("{count} elements in {channels} channels: not a whole number per channel"),
            Grounds::undefined(
                "decode_state_lut.cc leaves the remainder unwritten (axis 0) or counts past it \
                 (the last axis)",
            ),
        ));
    }
    let needed = (count * bit_width).div_ceil(8);
    if indices.len() < needed {
        return Err(ctx.invalid(
            format!(
                "{count} indices of {bit_width} bits need {needed} bytes; the compressed tensor \
                 has {}",
                indices.len()
            ),
            Grounds::undefined("decode_state_lut.cc reads indices beyond the tensor"),
        ));
    }
    let values = &meta[HEADER..];
    let lut = tinyaot_runtime::kernels::decode::DecodeLut {
        indices: &indices[..needed],
        values,
        count,
        bit_width,
        element_size: size,
        channels,
        stride,
        last_axis,
    };
    for i in 0..count {
        let (channel, index) = lut.entry(i);
        if (channel * stride + index + 1) * size > values.len() {
            return Err(ctx.invalid(
                format!(
                    "element {i} reads value {index} of channel {channel}'s table ({stride} \
                     values apart), beyond the {} bytes of tables",
                    values.len()
                ),
                Grounds::undefined("decode_state_lut.cc reads beyond the ancillary tensor"),
            ));
        }
    }
    Ok(kernel(
        "decode_lut",
        vec![Operand::Offset(ctx.output_index(0)?)],
        P::DecodeLut {
            indices: Data::Packed(indices[..needed].to_vec()),
            values: Data::Packed(values.to_vec()),
            count,
            bit_width,
            element_size: size,
            channels,
            stride,
            last_axis,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{field, graph, kernel, quant, reason, tensor};
    use crate::ir::{DType, Graph, OpCode, OpKind, Options, Quantization};
    use crate::lower::Value;

    /// A 16-byte LUT header (type 0, versions 1) of `bits`-wide indices, tables `stride` apart,
    /// then `tables`.
    fn ancillary(bits: u8, stride: u8, tables: &[u8]) -> Vec<u8> {
        let mut a = vec![0, 1, 0, 0, 1, bits, stride, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        a.extend_from_slice(tables);
        a
    }

    /// TFLM_DECODE of `indices` by `meta` into an INT8 tensor of `shape` quantized by `q`.
    fn decode<'m>(
        indices: &'m [u8],
        meta: &'m [u8],
        shape: &[usize],
        q: Option<Quantization>,
    ) -> Graph<'m> {
        let mut g = graph(
            OpCode::CUSTOM,
            Options::None,
            vec![
                tensor(&[indices.len()], DType::U8, None, Some(indices)),
                tensor(&[meta.len()], DType::U8, None, Some(meta)),
                tensor(shape, DType::I8, q, None),
            ],
            &[Some(0), Some(1)],
        );
        g.operators[0].kind = OpKind::Custom("TFLM_DECODE".into());
        g.inputs.clear();
        g
    }

    /// Indices 1, 0, 0, 1 of 3 bits (12 bits: 2 bytes), into tables of two values.
    const INDICES: [u8; 2] = [0b0010_0000, 0b0001_0000];

    fn two_channels() -> Option<Quantization> {
        quant(&[0.5, 0.25], &[0, 0], 0)
    }

    #[test]
    fn a_lookup_table_decode_lowers_with_its_tables() {
        let meta = ancillary(3, 2, &[1, 2, 3, 4]);
        let g = decode(&INDICES, &meta, &[2, 2], two_channels());
        let k = kernel(&g);
        assert_eq!(k.function, "decode_lut");
        assert!(matches!(field(&k, "count"), Value::Usize(4)));
        assert!(matches!(field(&k, "channels"), Value::Usize(2)));
        assert!(matches!(field(&k, "bit_width"), Value::Usize(3)));
        assert!(matches!(field(&k, "last_axis"), Value::Bool(false)));
        match field(&k, "values") {
            Value::Packed(p) => assert_eq!(&p.bytes[..], &[1, 2, 3, 4]),
            other => panic!("values {other:?}"),
        }
    }

    #[test]
    fn the_last_axis_of_a_per_channel_tensor_is_its_channel() {
        let meta = ancillary(3, 2, &[1, 2, 3, 4]);
        let g = decode(&INDICES, &meta, &[2, 2], quant(&[0.5, 0.25], &[0, 0], 1));
        assert!(matches!(field(&kernel(&g), "last_axis"), Value::Bool(true)));
    }

    /// The ancillary bytes, the indices, the output's shape and quantization, and a part of the
    /// refusal's message.
    type Case<'a> = (Vec<u8>, &'a [u8], Vec<usize>, Option<Quantization>, &'a str);

    #[test]
    fn refusals_name_what_tflm_refuses_or_leaves_undefined() {
        let tables = [1u8, 2, 3, 4];
        let cases: Vec<Case> = vec![
            (
                {
                    let mut m = ancillary(3, 2, &tables);
                    m[1] = 2;
                    m
                },
                &INDICES,
                vec![2, 2],
                two_channels(),
                "decode metadata version 2",
            ),
            (
                {
                    let mut m = ancillary(3, 2, &tables);
                    m[0] = 1;
                    m
                },
                &INDICES,
                vec![2, 2],
                two_channels(),
                "decode type 1 (Huffman)",
            ),
            (
                {
                    let mut m = ancillary(3, 2, &tables);
                    m[0] = 127;
                    m
                },
                &INDICES,
                vec![2, 2],
                two_channels(),
                "decode type 127",
            ),
            (
                {
                    let mut m = ancillary(3, 2, &tables);
                    m[4] = 0;
                    m
                },
                &INDICES,
                vec![2, 2],
                two_channels(),
                "lookup-table version 0",
            ),
            (
                ancillary(0, 2, &tables),
                &INDICES,
                vec![2, 2],
                two_channels(),
                "index width 0 bits",
            ),
            (
                ancillary(3, 2, &tables),
                &INDICES[..1],
                vec![2, 2],
                two_channels(),
                "need 2 bytes; the compressed tensor has 1",
            ),
            (
                // Index 5 of the first table, stride 2: beyond the 4 bytes of tables.
                ancillary(3, 2, &tables),
                &[0b1010_0000, 0],
                vec![2, 2],
                two_channels(),
                "element 0 reads value 5 of channel 0's table",
            ),
            (
                ancillary(3, 2, &tables),
                &INDICES,
                vec![1, 2, 2],
                quant(&[0.5, 0.25], &[0, 0], 1),
                "quantization axis 1",
            ),
            (
                ancillary(3, 2, &tables),
                &INDICES,
                vec![3],
                two_channels(),
                "3 elements in 2 channels",
            ),
            (
                ancillary(3, 2, &[]),
                &INDICES,
                vec![2, 2],
                None,
                "beyond the 0 bytes",
            ),
            (
                ancillary(3, 2, &tables)[..8].to_vec(),
                &INDICES,
                vec![2, 2],
                None,
                "fewer than its 16-byte header",
            ),
        ];
        for (meta, indices, shape, q, want) in &cases {
            let g = decode(indices, meta, shape, q.clone());
            let got = reason(&g);
            assert!(got.contains(want), "{want:?} not in {got:?}");
        }
    }

    #[test]
    fn a_run_time_input_two_outputs_and_other_types_are_refused() {
        let meta = ancillary(3, 2, &[1, 2, 3, 4]);
        let mut g = decode(&INDICES, &meta, &[2, 2], two_channels());
        g.tensors[0].data = None;
        assert!(reason(&g).contains("the compressed tensor is computed at run time"));

        let mut g = decode(&INDICES, &meta, &[2, 2], two_channels());
        g.tensors[2].dtype = DType::I16;
        g.tensors[2].quant = None;
        assert!(reason(&g).contains("tinyaot decodes INT8 and FLOAT32 tensors so far"));

        let mut g = decode(&INDICES, &meta, &[2, 2], two_channels());
        g.operators[0].inputs.push(Some(0));
        assert!(reason(&g).contains("3 inputs and 1 outputs"));
    }
}

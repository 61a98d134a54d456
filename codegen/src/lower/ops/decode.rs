//! CUSTOM(TFLM_DECODE) → `decode::decode_lut`, `decode_prune`, `decode_huffman`: weights
//! compressed by TFLM's compression tool (or any encoder of its formats), kept compressed in flash
//! and decoded into the arena before their consumer, as TFLM's DECODE operator (kernels/decode.cc)
//! decodes them into its output tensor; the planner gives that tensor a lifetime from the decode
//! to its last consumer. Never folded: a folded decode would store the uncompressed weights, which
//! is what compression saves.
//!
//! The operator's inputs are pairs (the compressed tensor, its ancillary tensor: a 16-byte
//! "decode common metadata" header, then the decoder's data), one pair per output; the loader
//! splits a DECODE of several tensors into one per pair (`load::decode`), which is what TFLM's
//! Eval does in turn. Its Prepare (checked here as it checks it) takes an even number of inputs,
//! twice the outputs, both of a pair constant, the header's version 1 and decode type LUT (0),
//! Huffman (1) or pruning (2), each decoder's own version 1. Lookup tables and pruning decode
//! every type TFLM's decoders write (BOOL, FLOAT32, INT8, INT16, INT32, INT64), Huffman INT8
//! and INT16 (its 16-bit tables INT8 only). Everything a decoder reads is constant, so each decode is walked here once: a model
//! whose decoder would read beyond its tensors (which TFLM does without a check) is refused.

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Error, Grounds, Result};
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
            Sig::Each(&[Ty::U8, Ty::U8, Ty::Bool]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::F32]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::I8]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::I16]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::I32]),
            Sig::Each(&[Ty::U8, Ty::U8, Ty::I64]),
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
    if meta[0] != LUT && meta[0] != HUFFMAN && meta[0] != PRUNE {
        return Err(ctx.invalid(
            format!(
                "decode type {}; TFLM's DECODE takes 0 (LUT), 1 (Huffman), 2 (pruning)",
                meta[0]
            ),
            Grounds::tflm("decode.cc Prepare: unsupported decode type"),
        ));
    }
    if n_out > 1 {
        // The loader splits these (load::decode); a graph built otherwise is a bug.
        return Err(Error::Internal {
            detail: format!("a TFLM_DECODE of {n_out} tensors reached the lowering unsplit"),
        });
    }
    let output = ctx.output(0)?;
    if meta[4] != 1 {
        let decoder = ["lookup-table", "Huffman", "pruning"][usize::from(meta[0])];
        return Err(ctx.invalid(
            format!(
                "{decoder} decoder version {}; TFLM's DECODE takes 1",
                meta[4]
            ),
            Grounds::tflm("decode_state_*.cc Setup: unsupported version"),
        ));
    }
    match meta[0] {
        LUT => lut(ctx, indices, meta, output),
        PRUNE => prune(ctx, indices, meta, output),
        _ => huffman(ctx, indices, meta, output),
    }
}

/// The element size of a tensor TFLM's lookup-table and pruning decoders write (`grounds`: where
/// TFLM refuses the others).
fn element_size(
    ctx: &OpContext,
    output: &crate::ir::Tensor,
    decoder: &str,
    grounds: &'static str,
) -> Result<usize> {
    match output.dtype {
        DType::Bool | DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::F32 => {
            Ok(output.dtype.size())
        }
        t => Err(ctx.invalid(
            format!(
                "the output has type {t}; TFLM's {decoder} DECODE writes BOOL, FLOAT32, INT8, \
                 INT16, INT32 or INT64"
            ),
            Grounds::tflm(grounds),
        )),
    }
}

/// The channels of `output` as TFLM's lookup-table and pruning decoders' Setup reads them: its
/// quantization's scales (1 without quantization), along its last axis when there are several
/// and that is their axis, otherwise along its first; any other axis is refused (`grounds`: the
/// decoder's refusal).
fn channel_axis(
    ctx: &OpContext,
    output: &crate::ir::Tensor,
    grounds: &'static str,
) -> Result<(usize, bool)> {
    let Some(q) = &output.quant else {
        return Ok((1, false));
    };
    let channels = q.scales.len();
    let rank = output.shape.len();
    if channels > 1 && rank > 0 && q.axis == rank - 1 {
        Ok((channels, true))
    } else if q.axis != 0 {
        Err(ctx.invalid(
            format!(
                "quantization axis {}; TFLM decodes along axis 0 or the last",
                q.axis
            ),
            Grounds::tflm(grounds),
        ))
    } else {
        Ok((channels, false))
    }
}

/// Refuses `count` elements that are not a whole number per channel, which the decoders'
/// per-channel loops leave partly unwritten or overrun (`grounds`).
fn whole_channels(
    ctx: &OpContext,
    count: usize,
    channels: usize,
    grounds: &'static str,
) -> Result<()> {
    if channels == 0 || !count.is_multiple_of(channels) {
        return Err(ctx.invalid(
            format!("{count} elements in {channels} channels: not a whole number per channel"),
            Grounds::undefined(grounds),
        ));
    }
    Ok(())
}

/// The pruning decode of `mask` and the values of `meta` into `output`, checked as
/// `DecodeStatePrune::Setup` checks it, and the mask and values long enough for every element
/// (TFLM reads whatever follows them otherwise).
fn prune(ctx: &OpContext, mask: &[u8], meta: &[u8], output: &crate::ir::Tensor) -> Result<Kernel> {
    let size = element_size(
        ctx,
        output,
        "pruning",
        "decode_state_prune.cc Decode: unsupported tensor type",
    )?;
    let count = output.num_elements();
    let (channels, channels_last) = channel_axis(
        ctx,
        output,
        "decode_state_prune.cc Setup: unsupported quantization axis",
    )?;
    // TFLM's Setup: the zero points only with quantization; one zero point unless an INT8 tensor
    // has several channels and a non-zero one among them.
    let (zero_points, last_axis) = match &output.quant {
        Some(q) => {
            let non_zero = q.zero_points.iter().any(|&z| z != 0);
            if non_zero && output.dtype != DType::I8 {
                return Err(ctx.invalid(
                    format!("a {} tensor with a non-zero zero point", output.dtype),
                    Grounds::tflm(
                        "decode_state_prune.cc Setup: All zero-points must be zero (but INT8's)",
                    ),
                ));
            }
            if channels > 1 && non_zero {
                whole_channels(
                    ctx,
                    count,
                    channels,
                    "decode_state_prune.cc leaves the remainder unwritten (axis 0) or counts \
                     past it (the last axis)",
                )?;
                // TFLM keeps them as int8_t.
                (
                    q.zero_points.iter().map(|&z| z as i8).collect(),
                    channels_last,
                )
            } else {
                (vec![q.zero_points.first().map_or(0, |&z| z as i8)], false)
            }
        }
        None => (vec![0], false),
    };
    let needed = count.div_ceil(8);
    if mask.len() < needed {
        return Err(ctx.invalid(
            format!(
                "{count} elements need a {needed}-byte mask; the compressed tensor has {}",
                mask.len()
            ),
            Grounds::undefined("decode_state_prune.cc reads the mask beyond the tensor"),
        ));
    }
    let mask = &mask[..needed];
    let full = count / 8;
    let kept = mask[..full]
        .iter()
        .map(|b| b.count_ones() as usize)
        .sum::<usize>()
        + (mask[full..]
            .iter()
            .map(|&b| (b >> (8 - count % 8)).count_ones() as usize))
        .sum::<usize>();
    let values = &meta[HEADER..];
    if kept * size > values.len() {
        return Err(ctx.invalid(
            format!(
                "the mask keeps {kept} elements of {size} bytes; the ancillary tensor holds {} \
                 bytes of values",
                values.len()
            ),
            Grounds::undefined("decode_state_prune.cc reads values beyond the ancillary tensor"),
        ));
    }
    Ok(kernel(
        "decode_prune",
        vec![Operand::Offset(ctx.output_index(0)?)],
        P::DecodePrune {
            mask: Data::Packed(mask.to_vec()),
            values: Data::Packed(values[..kept * size].to_vec()),
            count,
            element_size: size,
            zero_points: Data::Values(zero_points),
            last_axis,
        },
    ))
}

/// The Huffman decode of `stream` by the tables of `meta` into `output`, checked as
/// `DecodeStateHuffman::Setup` and `Decode` check it, and walked here to its end: a code that
/// reads beyond the stream's words or the tables is refused.
fn huffman(
    ctx: &OpContext,
    stream: &[u8],
    meta: &[u8],
    output: &crate::ir::Tensor,
) -> Result<Kernel> {
    use tinyaot_runtime::kernels::decode::{huffman_walk, DecodeHuffman, HuffmanFault};
    let wide = meta[5] & 0x01 != 0;
    let first_bits = usize::from((meta[5] & 0xf0) >> 4) + 1;
    let element_size = match (output.dtype, wide) {
        (DType::I8, _) => 1,
        (DType::I16, true) => 2,
        (t, false) => {
            return Err(ctx.invalid(
                format!("the output has type {t}; TFLM's 16-bit Huffman tables decode INT8 only"),
                Grounds::tflm(
                    "decode_state_huffman.cc Setup: TF_LITE_ENSURE_TYPES_EQ(output, INT8)",
                ),
            ))
        }
        (t, true) => {
            return Err(ctx.invalid(
                format!("the output has type {t}; TFLM's Huffman DECODE writes INT8 or INT16"),
                Grounds::tflm("decode_state_huffman.cc Decode: unsupported tensor type"),
            ))
        }
    };
    let p = DecodeHuffman {
        stream,
        tables: &meta[HEADER..],
        count: output.num_elements(),
        first_bits,
        wide,
        element_size,
    };
    if let Err(fault) = huffman_walk(&p, |_, _| {}) {
        let detail = match fault {
            HuffmanFault::Stream { element, word } => format!(
                "element {element}'s code reads 32-bit word {word} of a {}-byte stream",
                stream.len()
            ),
            HuffmanFault::Table { element, entry } => format!(
                "element {element}'s code reads table entry {entry}, beyond the {} bytes of \
                 tables",
                p.tables.len()
            ),
        };
        return Err(ctx.invalid(
            detail,
            Grounds::undefined("decode_state_huffman.cc reads beyond the tensor"),
        ));
    }
    Ok(kernel(
        "decode_huffman",
        vec![Operand::Offset(ctx.output_index(0)?)],
        P::DecodeHuffman {
            stream: Data::Packed(stream.to_vec()),
            tables: Data::Packed(p.tables.to_vec()),
            count: p.count,
            first_bits,
            wide,
            element_size,
        },
    ))
}

/// The lookup-table decode of `indices` by the tables of `meta` into `output`, checked as
/// `DecodeStateLut::Setup` checks it, and every index's table entry within the tables (TFLM reads
/// whatever follows them otherwise).
fn lut(ctx: &OpContext, indices: &[u8], meta: &[u8], output: &crate::ir::Tensor) -> Result<Kernel> {
    let size = element_size(
        ctx,
        output,
        "lookup-table",
        "decode_state_lut.cc Decode: unsupported tensor type",
    )?;
    let (channels, last_axis) = channel_axis(
        ctx,
        output,
        "decode_state_lut.cc Setup: unsupported quantization axis",
    )?;
    let bit_width = usize::from(meta[5] & 0x07);
    if bit_width == 0 {
        return Err(ctx.invalid(
            "index width 0 bits; TFLM decodes indices of 1 to 7 bits",
            Grounds::tflm("decode_state_lut.cc: TFLITE_DCHECK(compressed_bit_width_ > 0)"),
        ));
    }
    let stride = usize::from(meta[6]);
    let count = output.num_elements();
    whole_channels(
        ctx,
        count,
        channels,
        "decode_state_lut.cc leaves the remainder unwritten (axis 0) or counts past it (the last \
         axis)",
    )?;
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
                "element 0's code reads 32-bit word 0 of a 2-byte stream",
            ),
            (
                // Pruning: a mask keeping 4 elements, 2 bytes of values.
                prune_meta(&[1, 2]),
                &[0b1111_0000],
                vec![2, 2],
                two_channels(),
                "the mask keeps 4 elements of 1 bytes; the ancillary tensor holds 2 bytes",
            ),
            (
                prune_meta(&[1, 2]),
                &[],
                vec![2, 2],
                two_channels(),
                "4 elements need a 1-byte mask; the compressed tensor has 0",
            ),
            (
                prune_meta(&[1, 2]),
                &[0b1000_0000],
                vec![1, 2, 2],
                quant(&[0.5, 0.25], &[0, 0], 1),
                "quantization axis 1",
            ),
            (
                prune_meta(&[1, 2]),
                &[0b1000_0000],
                vec![3],
                quant(&[0.5, 0.25], &[0, 3], 0),
                "3 elements in 2 channels",
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
                "lookup-table decoder version 0",
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
        g.tensors[2].dtype = DType::U8;
        g.tensors[2].quant = None;
        assert!(reason(&g).contains(
            "the output has type UINT8; TFLM's lookup-table DECODE writes BOOL, FLOAT32, INT8"
        ));

        let tables = huffman_tables();
        let meta = huffman_meta(false, &tables);
        let mut g = decode(&HUFFMAN_STREAM, &meta, &[5], None);
        g.tensors[2].dtype = DType::I16;
        assert!(reason(&g).contains("TFLM's 16-bit Huffman tables decode INT8 only"));

        let meta = prune_meta(&[1]);
        let mut g = decode(&INDICES, &meta, &[2, 2], None);
        g.tensors[2].dtype = DType::F32;
        g.tensors[2].quant = quant(&[0.5], &[1], 0);
        assert!(reason(&g).contains("a FLOAT32 tensor with a non-zero zero point"));

        let mut g = decode(&INDICES, &meta, &[2, 2], two_channels());
        g.operators[0].inputs.push(Some(0));
        assert!(reason(&g).contains("3 inputs and 1 outputs"));
    }

    /// A pruning header (type 2, versions 1), then `values`.
    fn prune_meta(values: &[u8]) -> Vec<u8> {
        let mut a = vec![2, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        a.extend_from_slice(values);
        a
    }

    /// A Huffman header (type 1, versions 1, a 2-bit first table), then `tables`.
    fn huffman_meta(wide: bool, tables: &[u8]) -> Vec<u8> {
        let mut a = vec![
            1,
            1,
            0,
            0,
            1,
            (1 << 4) | u8::from(wide),
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
        ];
        a.extend_from_slice(tables);
        a
    }

    /// The runtime's test code (`kernels::decode`): a = 0, b = 10, c = 110, d = 111 for 1, 2,
    /// 3, 4, 16-bit entries, "a b c d a" in one word.
    fn huffman_tables() -> Vec<u8> {
        let found = 0x8000u16;
        [
            found | (1 << 11) | 1,
            found | (1 << 11) | 1,
            found | (2 << 11) | 2,
            1,
        ]
        .into_iter()
        .chain([found | (1 << 11) | 3, found | (1 << 11) | 4])
        .flat_map(u16::to_le_bytes)
        .collect()
    }

    const HUFFMAN_STREAM: [u8; 4] = [0b0101_1011, 0b1000_0000, 0, 0];

    #[test]
    fn a_pruning_decode_lowers_with_its_kept_values_and_zero_points() {
        // Elements 0 and 3 kept; per-channel zero points 0 and -3 along the first axis.
        let meta = prune_meta(&[7, 8, 9]);
        let g = decode(
            &[0b1001_0000],
            &meta,
            &[2, 2],
            quant(&[0.5, 0.25], &[0, -3], 0),
        );
        let k = kernel(&g);
        assert_eq!(k.function, "decode_prune");
        assert!(matches!(field(&k, "count"), Value::Usize(4)));
        assert!(matches!(field(&k, "last_axis"), Value::Bool(false)));
        match field(&k, "values") {
            Value::Packed(p) => assert_eq!(&p.bytes[..], &[7, 8]),
            other => panic!("values {other:?}"),
        }
        match field(&k, "zero_points") {
            Value::I8s(z) => assert_eq!(&z[..], &[0, -3]),
            other => panic!("zero points {other:?}"),
        }
        // All zero points 0: one, as TFLM's single-zero-point path.
        let g = decode(&[0b1001_0000], &meta, &[2, 2], two_channels());
        match field(&kernel(&g), "zero_points") {
            Value::I8s(z) => assert_eq!(&z[..], &[0]),
            other => panic!("zero points {other:?}"),
        }
    }

    #[test]
    fn a_huffman_decode_lowers_after_walking_every_code() {
        let tables = huffman_tables();
        let meta = huffman_meta(false, &tables);
        let g = decode(&HUFFMAN_STREAM, &meta, &[5], None);
        let k = kernel(&g);
        assert_eq!(k.function, "decode_huffman");
        assert!(matches!(field(&k, "first_bits"), Value::Usize(2)));
        assert!(matches!(field(&k, "wide"), Value::Bool(false)));
        assert!(matches!(field(&k, "element_size"), Value::Usize(1)));
        // A sub-table pointer past the tables: refused, naming the element.
        let meta = huffman_meta(false, &tables[..8]);
        let g = decode(&HUFFMAN_STREAM, &meta, &[5], None);
        assert!(reason(&g).contains("element 2's code reads table entry 4, beyond the 8 bytes"));
    }
}

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
//! Lookup-table decoding (decode_state_lut.cc) of INT8 tensors is compiled; Huffman and pruning,
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
        tinyaot: &[Sig::Each(&[Ty::U8, Ty::U8, Ty::I8])],
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
        DType::I8 => 1,
        // The kernel copies any element size; these wait for a fixture with TFLM's goldens.
        t @ (DType::Bool | DType::F32 | DType::I16 | DType::I32 | DType::I64) => {
            return Err(ctx.unsupported(format!(
                "the output has type {t}; tinyaot decodes INT8 tensors so far (TFLM also BOOL, \
                 FLOAT32, INT16, INT32 and INT64)"
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
    let per_channel = if last_axis { 1 } else { count / channels };
    for i in 0..count {
        let bit = i * bit_width;
        let word = (usize::from(indices[bit / 8]) << 8)
            | usize::from(indices.get(bit / 8 + 1).copied().unwrap_or(0));
        let index = (word >> (16 - bit % 8 - bit_width)) & ((1 << bit_width) - 1);
        let channel = if last_axis {
            i % channels
        } else {
            i / per_channel
        };
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

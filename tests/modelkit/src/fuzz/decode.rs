//! TFLM_DECODE (TFLM's compressed tensors, a custom operator): a decoded tensor shaped like the
//! latest value, from constant compressed bytes and an ancillary tensor whose 16-byte header
//! mostly names a decoder TFLM has (lookup table, Huffman, pruning) at version 1, its parameter
//! bytes and data random: index widths, strides, Huffman tables that point anywhere, masks and
//! streams shorter than the output needs. Now and then two pairs (a DECODE of two tensors) or an
//! odd input count. The lowering must refuse what a decoder would read outside its tensors, and
//! walk hostile Huffman tables without hanging.

use super::{FuzzOp, Gen, Value};
use crate::{BuiltinOperator as B, TensorSpec, TensorType};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[FuzzOp::custom("TFLM_DECODE", decode)];

fn decode(g: &mut Gen<'_, '_>, _: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    let pairs = if g.chance(15) { 2 } else { 1 };
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for _ in 0..pairs {
        let mut out = g.same_quant(v, &shape);
        if g.chance(20) {
            out.dtype = g.pick(&[
                TensorType::INT8,
                TensorType::INT16,
                TensorType::INT32,
                TensorType::INT64,
                TensorType::FLOAT32,
                TensorType::BOOL,
                TensorType::UINT8,
            ]);
        }
        let len = g.int(0, 48) as usize;
        let compressed = g.bytes(len);
        let mut meta = vec![0u8; 16];
        meta[0] = if g.chance(90) { g.int(0, 2) as u8 } else { g.byte() };
        meta[1] = if g.chance(95) { 1 } else { g.byte() };
        meta[4] = if g.chance(95) { 1 } else { g.byte() };
        meta[5] = g.byte();
        meta[6] = g.byte();
        let tables = g.int(0, 64) as usize;
        meta.extend(g.bytes(tables));
        if g.chance(3) {
            meta.truncate(g.int(0, 15) as usize);
        }
        let compressed = g.constant(
            TensorSpec::new(TensorType::UINT8, &[compressed.len() as i32]).constant(compressed),
        );
        let meta =
            g.constant(TensorSpec::new(TensorType::UINT8, &[meta.len() as i32]).constant(meta));
        inputs.extend([compressed, meta]);
        outputs.push(g.m.tensor(out));
    }
    if g.chance(3) {
        inputs.pop();
    }
    g.m.custom_op("TFLM_DECODE", None, &inputs, &outputs);
    g.values.extend(outputs.iter().map(|&index| Value { index }));
}

//! Reductions: MEAN, SUM, REDUCE_MAX, REDUCE_MIN, ARG_MAX, ARG_MIN and CUMSUM.

use super::{FuzzOp, Gen};
use crate::{BuiltinOperator as B, Options, TensorSpec};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::ARG_MAX, arg_min_max),
    FuzzOp::new(B::ARG_MIN, arg_min_max),
    FuzzOp::new(B::CUMSUM, cumsum),
    FuzzOp::new(B::MEAN, reduce),
    FuzzOp::new(B::REDUCE_MAX, reduce),
    FuzzOp::new(B::REDUCE_MIN, reduce),
    FuzzOp::new(B::SUM, reduce),
];

/// MEAN, SUM, REDUCE_MAX or REDUCE_MIN over one axis (or H and W) of the latest value.
fn reduce(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    let keep_dims = g.chance(70);
    let axes: Vec<i32> = if shape.len() == 4 && g.chance(70) {
        vec![1, 2]
    } else if shape.is_empty() {
        vec![0]
    } else {
        vec![g.int(0, shape.len() as i32 - 1)]
    };
    let out: Vec<i32> = shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| match axes.contains(&(i as i32)) {
            true if keep_dims => Some(1),
            true => None,
            false => Some(d),
        })
        .collect();
    let mut a = g.constant(TensorSpec::int32(&[axes.len() as i32]).constant_i32(&axes));
    // Now and then the axes are a graph input of any values (TFLM's reductions read them per
    // call), so that parity's random models run reduce_dyn in Rust and C, its initial values
    // and zeros where TFLM fails included.
    if g.chance(20) {
        a = g.graph_input(TensorSpec::int32(&[axes.len() as i32]));
    }
    // TFLM's int8 REDUCE_MAX and REDUCE_MIN take the input's quantization only.
    let out_t = if matches!(op, B::REDUCE_MAX | B::REDUCE_MIN) {
        g.same_quant(v, &out)
    } else {
        g.activation(&out)
    };
    g.push_op(op, Options::Reducer { keep_dims }, &[v.index, a], out_t);
}

/// CUMSUM of the latest value along one axis.
fn cumsum(g: &mut Gen<'_, '_>, op: B) {
    // One axis, negative now and then (a rank-0 value's is out of range, which
    // TFLM refuses), exclusive and reversed at random; the output in the input's
    // quantization (a long int8 line is refused: TFLM's int32 sum could overflow).
    let v = g.latest();
    let shape = g.shape_of(v);
    let rank = shape.len() as i32;
    let a = g.int(0, (rank - 1).max(0));
    let axis = if g.chance(30) { a - rank } else { a };
    let mut a = g.constant(TensorSpec::int32(&[1]).constant_i32(&[axis]));
    // Now and then the axis is a graph input of any value (TFLM's CUMSUM reads it per call):
    // cumsum_dyn in Rust and C, zeros where TFLM fails included.
    if g.chance(20) {
        a = g.graph_input(TensorSpec::int32(&[1]));
    }
    let options = Options::Cumsum {
        exclusive: g.chance(50),
        reverse: g.chance(50),
    };
    let out_t = g.same_quant(v, &shape);
    g.push_op(op, options, &[v.index, a], out_t);
}

/// ARG_MAX or ARG_MIN of the latest value along a random axis.
fn arg_min_max(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    let rank = shape.len() as i32;
    let axis = g.int(-rank.max(1), (rank - 1).max(0));
    let a = if axis < 0 { axis + rank } else { axis };
    let mut out = shape.clone();
    if (0..rank).contains(&a) {
        out.remove(a as usize);
    }
    let axis = g.constant(TensorSpec::int32(&[1]).constant_i32(&[axis]));
    // Indices are INT32 whatever the input: later operators of the chain mostly
    // refuse them, which the refusal paths need too.
    g.push_op(op, Options::None, &[v.index, axis], TensorSpec::int32(&out));
}

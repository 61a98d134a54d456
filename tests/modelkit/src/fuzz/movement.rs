//! The operators that move values without arithmetic: PAD, PADV2, CONCATENATION, PACK, TRANSPOSE,
//! REVERSE_V2, STRIDED_SLICE, SLICE, GATHER, SHAPE, RESHAPE, SQUEEZE and EXPAND_DIMS.

use super::{elements, FuzzOp, Gen};
use crate::{Activation, BuiltinOperator as B, Options, TensorSpec, TensorType};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::CONCATENATION, concatenation),
    FuzzOp::new(B::EXPAND_DIMS, expand_dims),
    FuzzOp::new(B::GATHER, gather),
    FuzzOp::new(B::PACK, pack),
    FuzzOp::new(B::PAD, pad),
    FuzzOp::new(B::PADV2, pad),
    FuzzOp::new(B::RESHAPE, reshape),
    FuzzOp::new(B::REVERSE_V2, reverse_v2),
    FuzzOp::new(B::SHAPE, shape),
    FuzzOp::new(B::SLICE, slice),
    FuzzOp::new(B::SQUEEZE, squeeze),
    FuzzOp::new(B::STRIDED_SLICE, strided_slice),
    FuzzOp::new(B::TRANSPOSE, transpose),
];

/// PAD or PADV2 by up to 2 on each side of every dimension; PADV2's value constant or, one in
/// four, a graph input.
fn pad(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    let mut pads = Vec::new();
    let mut out = Vec::new();
    for d in &shape {
        let (a, b) = (g.int(0, 2), g.int(0, 2));
        pads.extend([a, b]);
        out.push(d + a + b);
    }
    let rank = shape.len() as i32;
    let p = g.constant(TensorSpec::int32(&[rank, 2]).constant_i32(&pads));
    let out_t = g.same_quant(v, &out);
    let mut inputs = vec![v.index, p];
    if op == B::PADV2 {
        let value = g.same_quant(v, &[]);
        if g.chance(25) {
            // Now and then computed at run time (a graph input: TFLM's PadEval reads it per
            // call), so that parity's random models run `pad_dyn` in Rust and C.
            let i = g.graph_input(value);
            inputs.push(i);
        } else {
            let bytes = if g.int8 { 1 } else { 4 };
            let data = g.bytes(bytes);
            inputs.push(g.constant(value.constant(data)));
        }
    }
    g.push_op(op, Options::default_for(op), &inputs, out_t);
}

/// The latest value and a constant or a new input, concatenated along a random axis.
fn concatenation(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    let rank = shape.len() as i32;
    let axis = if rank == 0 {
        0
    } else {
        g.int(-rank, rank - 1)
    };
    let a = if axis < 0 { axis + rank } else { axis } as usize;
    let mut other_shape = shape.clone();
    if let Some(d) = other_shape.get_mut(a) {
        *d = g.int(1, 4);
    }
    // TFLM's int8 CONCATENATION needs every input at the output's scale and zero point.
    let other = g.same_quant(v, &other_shape);
    let other = if g.chance(50) {
        let data = g.bytes(elements(&other_shape) * if g.int8 { 1 } else { 4 });
        g.constant(other.constant(data))
    } else {
        g.graph_input(other)
    };
    let mut out = shape.clone();
    if let (Some(d), Some(e)) = (out.get_mut(a), other_shape.get(a)) {
        *d += e;
    }
    let out_t = g.same_quant(v, &out);
    let act = Activation::NONE;
    g.push_op(
        op,
        Options::Concatenation {
            axis,
            activation: act,
        },
        &[v.index, other],
        out_t,
    );
}

/// The latest value and a constant or a new input of its shape, stacked along a new axis.
fn pack(g: &mut Gen<'_, '_>, op: B) {
    // The latest tensor and a constant or a new input of its shape, stacked along a
    // new axis (all operands constant at times: the folder's part).
    let v = g.latest();
    let shape = g.shape_of(v);
    let rank = shape.len() as i32;
    let axis = g.int(-(rank + 1), rank);
    let a = if axis < 0 { axis + rank + 1 } else { axis } as usize;
    let other = g.same_quant(v, &shape);
    let other = if g.chance(50) {
        let data = g.bytes(elements(&shape) * if g.int8 { 1 } else { 4 });
        g.constant(other.constant(data))
    } else {
        g.graph_input(other)
    };
    let mut out = shape.clone();
    out.insert(a.min(out.len()), 2);
    let out_t = g.same_quant(v, &out);
    g.push_op(
        op,
        Options::Pack {
            values_count: 2,
            axis,
        },
        &[v.index, other],
        out_t,
    );
}

/// A random permutation of the latest value's axes.
fn transpose(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    let mut perm: Vec<i32> = (0..shape.len() as i32).collect();
    // A random permutation (Fisher–Yates).
    for i in (1..perm.len()).rev() {
        let j = g.index(i + 1);
        perm.swap(i, j);
    }
    let out: Vec<i32> = perm.iter().map(|&p| shape[p as usize]).collect();
    let p = g.constant(TensorSpec::int32(&[perm.len() as i32]).constant_i32(&perm));
    let out_t = g.same_quant(v, &out);
    g.push_op(op, Options::Transpose, &[v.index, p], out_t);
}

/// A run of contiguous axes of the latest value reversed.
fn reverse_v2(g: &mut Gen<'_, '_>, op: B) {
    // A run of contiguous axes (TFLM refuses others), negative now and then; a
    // rank-0 value gets an axis out of range, which TFLM refuses.
    let v = g.latest();
    let shape = g.shape_of(v);
    let rank = shape.len() as i32;
    let first = g.int(0, (rank - 1).max(0));
    let last = g.int(first, (rank - 1).max(first));
    let axes: Vec<i32> = (first..=last)
        .map(|a| if g.chance(30) { a - rank } else { a })
        .collect();
    let a = g.constant(TensorSpec::int32(&[axes.len() as i32]).constant_i32(&axes));
    let out_t = g.same_quant(v, &shape);
    g.push_op(op, Options::None, &[v.index, a], out_t);
}

/// A strided slice of every dimension of the latest value.
fn strided_slice(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    let (mut begin, mut end, mut strides, mut out) = (vec![], vec![], vec![], vec![]);
    for &d in &shape {
        let b = g.int(0, d - 1);
        let e = g.int(b + 1, d);
        let s = g.int(1, 2);
        begin.push(b);
        end.push(e);
        strides.push(s);
        out.push((e - b + s - 1) / s);
    }
    let r = shape.len() as i32;
    let b = g.constant(TensorSpec::int32(&[r]).constant_i32(&begin));
    let e = g.constant(TensorSpec::int32(&[r]).constant_i32(&end));
    let s = g.constant(TensorSpec::int32(&[r]).constant_i32(&strides));
    let out_t = g.same_quant(v, &out);
    g.push_op(op, Options::default_for(op), &[v.index, b, e, s], out_t);
}

/// A slice of every dimension of the latest value.
fn slice(g: &mut Gen<'_, '_>, op: B) {
    // A size of -1 (to the end) now and then; begin and size INT32 or INT64.
    let v = g.latest();
    let shape = g.shape_of(v);
    let (mut begin, mut size, mut out) = (vec![], vec![], vec![]);
    for &d in &shape {
        let b = g.int(0, (d - 1).max(0));
        let n = g.int(1, (d - b).max(1));
        begin.push(b);
        size.push(if n == d - b && g.chance(40) { -1 } else { n });
        out.push(n);
    }
    let r = shape.len() as i32;
    let int64 = g.chance(25);
    let (mut b, mut n) = if int64 {
        let wide = |v: &[i32]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
        let spec = || TensorSpec::new(TensorType::INT64, &[r]);
        (
            g.constant(spec().constant_i64(&wide(&begin))),
            g.constant(spec().constant_i64(&wide(&size))),
        )
    } else {
        (
            g.constant(TensorSpec::int32(&[r]).constant_i32(&begin)),
            g.constant(TensorSpec::int32(&[r]).constant_i32(&size)),
        )
    };
    // Now and then begin, size or both are graph inputs of any values (TFLM's SliceEval reads
    // them per call), so that parity's random models run slice_dyn in Rust and C, its zeros
    // where TFLM is undefined included.
    if g.chance(20) {
        let dtype = if int64 {
            TensorType::INT64
        } else {
            TensorType::INT32
        };
        let which = g.int(0, 2);
        for (k, t) in [&mut b, &mut n].into_iter().enumerate() {
            if which == 2 || which == k as i32 {
                *t = g.graph_input(TensorSpec::new(dtype, &[r]));
            }
        }
    }
    let out_t = g.same_quant(v, &out);
    g.push_op(op, Options::Slice, &[v.index, b, n], out_t);
}

/// Constant positions along a random axis of the latest value.
fn gather(g: &mut Gen<'_, '_>, op: B) {
    // Constant positions along a random axis, now and then one outside it (refused).
    let v = g.latest();
    let shape = g.shape_of(v);
    let rank = shape.len() as i32;
    let axis = g.int(-rank.max(1), (rank - 1).max(0));
    let a = if axis < 0 { axis + rank } else { axis };
    let size = usize::try_from(a)
        .ok()
        .and_then(|a| shape.get(a))
        .copied()
        .unwrap_or(1);
    let n = g.int(1, 4);
    let positions: Vec<i32> = (0..n)
        .map(|_| {
            if g.chance(5) {
                size
            } else {
                g.int(0, (size - 1).max(0))
            }
        })
        .collect();
    let mut out = shape.clone();
    if let Some(d) = usize::try_from(a).ok().filter(|&a| a < out.len()) {
        out[d] = n;
    }
    let p = g.constant(TensorSpec::int32(&[n]).constant_i32(&positions));
    let out_t = g.same_quant(v, &out);
    let options = Options::Gather {
        axis,
        batch_dims: 0,
    };
    g.push_op(op, options, &[v.index, p], out_t);
}

/// The shape of the latest value.
fn shape(g: &mut Gen<'_, '_>, op: B) {
    // INT32 whatever the input: later operators of the chain mostly refuse it.
    let v = g.latest();
    let r = g.shape_of(v).len() as i32;
    let options = Options::default_for(op);
    g.push_op(op, options, &[v.index], TensorSpec::int32(&[r]));
}

/// The latest value flattened, as a row or as a column.
fn reshape(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    let n = elements(&shape) as i32;
    let new: Vec<i32> = match g.int(0, 3) {
        0 => vec![n],
        1 => vec![1, n],
        2 => vec![1, -1],
        _ => vec![n, 1, 1],
    };
    let out: Vec<i32> = new.iter().map(|&d| if d == -1 { n } else { d }).collect();
    let s = g.constant(TensorSpec::int32(&[new.len() as i32]).constant_i32(&new));
    let out_t = g.same_quant(v, &out);
    let options = if g.chance(50) {
        Options::Reshape {
            new_shape: Some(new.clone()),
        }
    } else {
        Options::Reshape { new_shape: None }
    };
    let inputs: Vec<i32> = if g.chance(80) {
        vec![v.index, s]
    } else {
        vec![v.index]
    };
    g.push_op(op, options, &inputs, out_t);
}

/// The latest value without its dimensions of 1.
fn squeeze(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    let out: Vec<i32> = shape.iter().copied().filter(|&d| d != 1).collect();
    let out_t = g.same_quant(v, &out);
    g.push_op(op, Options::default_for(op), &[v.index], out_t);
}

/// The latest value with a dimension of 1 inserted.
fn expand_dims(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let mut shape = g.shape_of(v);
    let axis = g.int(0, shape.len() as i32);
    shape.insert(axis as usize, 1);
    let a = g.constant(TensorSpec::int32(&[1]).constant_i32(&[axis]));
    let out_t = g.same_quant(v, &shape);
    g.push_op(op, Options::ExpandDims, &[v.index, a], out_t);
}

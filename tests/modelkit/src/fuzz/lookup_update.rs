//! EMBEDDING_LOOKUP (constant ids into the latest value, now and then one outside its rows),
//! DYNAMIC_UPDATE_SLICE (a constant update into the latest value at constant starts, some
//! outside it: clamped) and BROADCAST_ARGS (of two constant shapes, which may not broadcast; its
//! INT32 output ends the chain's use of it: the next operator reads the latest value).

use super::{FuzzOp, Gen};
use crate::{BuiltinOperator as B, Options, TensorSpec, TensorType};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::BROADCAST_ARGS, |g, op| g.lookup_update(op)),
    FuzzOp::new(B::DYNAMIC_UPDATE_SLICE, |g, op| g.lookup_update(op)),
    FuzzOp::new(B::EMBEDDING_LOOKUP, |g, op| g.lookup_update(op)),
];

impl Gen<'_, '_> {
    /// Appends one of this module's operators to the chain.
    pub(super) fn lookup_update(&mut self, op: B) {
        let v = self.latest();
        let shape = self.shape_of(v);
        if op == B::EMBEDDING_LOOKUP {
            let rows = shape.first().copied().unwrap_or(1);
            let n = self.int(1, 3);
            let ids: Vec<i32> = (0..n)
                .map(|_| {
                    if self.chance(5) {
                        rows
                    } else {
                        self.int(0, (rows - 1).max(0))
                    }
                })
                .collect();
            let ids = self.constant(TensorSpec::int32(&[n]).constant_i32(&ids));
            let mut out_shape = vec![n];
            out_shape.extend(shape.iter().skip(1));
            let out = self.same_quant(v, &out_shape);
            self.push_op(op, Options::None, &[ids, v.index], out);
        } else if op == B::DYNAMIC_UPDATE_SLICE {
            let update_shape: Vec<i32> = shape.iter().map(|&d| self.int(1, d.max(1))).collect();
            let update = self.same_quant(v, &update_shape);
            let n: i32 = update_shape.iter().product();
            let size = match update.dtype {
                TensorType::FLOAT32 | TensorType::INT32 => 4,
                TensorType::INT16 => 2,
                TensorType::INT64 => 8,
                _ => 1,
            };
            let bytes = vec![3u8; n.max(0) as usize * size];
            let update = self.constant(update.constant(bytes));
            let starts: Vec<i32> = shape.iter().map(|&d| self.int(-1, d + 1)).collect();
            let start =
                self.constant(TensorSpec::int32(&[starts.len() as i32]).constant_i32(&starts));
            let out = self.same_quant(v, &shape);
            self.push_op(op, Options::None, &[v.index, update, start], out);
        } else if op == B::BROADCAST_ARGS {
            let a: Vec<i32> = (0..self.int(1, 3)).map(|_| self.int(1, 3)).collect();
            let b: Vec<i32> = (0..self.int(1, 3)).map(|_| self.int(1, 3)).collect();
            let len = a.len().max(b.len()) as i32;
            let a = self.constant(TensorSpec::int32(&[a.len() as i32]).constant_i32(&a));
            let b = self.constant(TensorSpec::int32(&[b.len() as i32]).constant_i32(&b));
            let out = self.m.tensor(TensorSpec::new(TensorType::INT32, &[len]));
            self.m.op(op, Options::None, &[a, b], &[out]);
            self.m.outputs.push(out);
        }
    }
}

//! Tensor-structure operators: CAST (to any type of the five tinyaot casts between, now and then
//! to INT64, which TFLM refuses), ZEROS_LIKE, FILL (of the latest value: refused unless it is a
//! scalar), BROADCAST_TO (a shape that broadcasts, or not), SELECT_V2 (a constant BOOL
//! condition, now and then of another type, broadcast along the last dimension) and GATHER_ND
//! (constant index vectors, now and then one outside the input).

use super::{FuzzOp, Gen};
use crate::{BuiltinOperator as B, Options, TensorSpec, TensorType};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::BROADCAST_TO, |g, op| g.tensor_op(op)),
    FuzzOp::new(B::CAST, |g, op| g.tensor_op(op)),
    FuzzOp::new(B::FILL, |g, op| g.tensor_op(op)),
    FuzzOp::new(B::GATHER_ND, |g, op| g.tensor_op(op)),
    FuzzOp::new(B::SELECT_V2, |g, op| g.tensor_op(op)),
    FuzzOp::new(B::ZEROS_LIKE, |g, op| g.tensor_op(op)),
];

impl Gen<'_, '_> {
    /// Appends one of this module's operators to the chain.
    pub(super) fn tensor_op(&mut self, op: B) {
        if op == B::CAST {
            let v = self.latest();
            let shape = self.shape_of(v);
            let to = self.pick(&[
                TensorType::FLOAT32,
                TensorType::INT8,
                TensorType::INT16,
                TensorType::INT32,
                TensorType::BOOL,
                TensorType::INT64,
            ]);
            let out = match to {
                TensorType::INT8 => TensorSpec::int8(&shape, self.scale(), 0),
                _ => TensorSpec::new(to, &shape),
            };
            self.push_op(op, Options::None, &[v.index], out);
        } else if op == B::ZEROS_LIKE {
            let v = self.latest();
            let shape = self.shape_of(v);
            let out = self.same_quant(v, &shape);
            self.push_op(op, Options::None, &[v.index], out);
        } else if op == B::FILL {
            let v = self.latest();
            let dims: Vec<i32> = (0..self.int(1, 3)).map(|_| self.int(1, 4)).collect();
            let d = self.constant(TensorSpec::int32(&[dims.len() as i32]).constant_i32(&dims));
            let out = self.same_quant(v, &dims);
            self.push_op(op, Options::None, &[d, v.index], out);
        } else if op == B::BROADCAST_TO {
            let v = self.latest();
            let mut shape = self.shape_of(v);
            if self.chance(50) {
                shape.insert(0, self.int(1, 3));
            }
            if let Some(last) = shape.last_mut() {
                if self.chance(30) {
                    *last += 1;
                }
            }
            let s = self.constant(TensorSpec::int32(&[shape.len() as i32]).constant_i32(&shape));
            let out = self.same_quant(v, &shape);
            self.push_op(op, Options::None, &[v.index, s], out);
        } else if op == B::SELECT_V2 {
            let v = self.latest();
            let w = self.pick_value();
            let shape = self.shape_of(v);
            let last = shape.last().copied().unwrap_or(1).max(0);
            let flags: Vec<u8> = (0..last).map(|_| self.byte() & 1).collect();
            let cond_type = if self.chance(90) {
                TensorType::BOOL
            } else {
                TensorType::INT8
            };
            let c = self.constant(TensorSpec::new(cond_type, &[last]).constant(flags));
            let out = self.same_quant(v, &shape);
            self.push_op(op, Options::None, &[c, v.index, w.index], out);
        } else if op == B::GATHER_ND {
            let v = self.latest();
            let shape = self.shape_of(v);
            let depth = self.int(1, shape.len().max(1) as i32);
            let n = self.int(1, 3);
            let values: Vec<i32> = (0..n * depth)
                .map(|k| {
                    let extent = shape.get((k % depth) as usize).copied().unwrap_or(1);
                    if self.chance(5) {
                        extent
                    } else {
                        self.int(0, (extent - 1).max(0))
                    }
                })
                .collect();
            let indices = self.constant(TensorSpec::int32(&[n, depth]).constant_i32(&values));
            let mut out_shape = vec![n];
            out_shape.extend(shape.iter().skip(depth as usize));
            let out = self.same_quant(v, &out_shape);
            self.push_op(op, Options::None, &[v.index, indices], out);
        }
    }
}

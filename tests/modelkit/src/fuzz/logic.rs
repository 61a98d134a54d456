//! The comparison and logical operators of issue 35 (EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL,
//! LESS, LESS_EQUAL; LOGICAL_AND, LOGICAL_OR, LOGICAL_NOT; REDUCE_ALL) on a side branch: a comparison of the
//! latest value with a partner (its quantization or another, a graph input or a constant, maybe
//! broadcast), then now and then a logical operator or REDUCE_ALL on its BOOL result, which becomes a graph
//! output so that the chain goes on in the model's flavour.

use super::{elements, FuzzOp, Gen};
use crate::{BuiltinOperator as B, Options, TensorSpec, TensorType};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::EQUAL, |g, op| g.logic(op)),
    FuzzOp::new(B::GREATER, |g, op| g.logic(op)),
    FuzzOp::new(B::GREATER_EQUAL, |g, op| g.logic(op)),
    FuzzOp::new(B::LESS, |g, op| g.logic(op)),
    FuzzOp::new(B::LESS_EQUAL, |g, op| g.logic(op)),
    FuzzOp::new(B::LOGICAL_AND, |g, op| g.logic(op)),
    FuzzOp::new(B::LOGICAL_NOT, |g, op| g.logic(op)),
    FuzzOp::new(B::LOGICAL_OR, |g, op| g.logic(op)),
    FuzzOp::new(B::NOT_EQUAL, |g, op| g.logic(op)),
    FuzzOp::new(B::REDUCE_ALL, |g, op| g.logic(op)),
];

impl Gen<'_, '_> {
    pub(super) fn logic(&mut self, op: B) {
        let v = self.latest();
        let shape = self.shape_of(v);
        let other_shape: Vec<i32> = match self.int(0, 2) {
            0 => shape.clone(),
            1 => shape
                .iter()
                .map(|&d| if self.chance(50) { 1 } else { d })
                .collect(),
            _ => {
                let keep = self.index(shape.len() + 1);
                shape[shape.len() - keep..].to_vec()
            }
        };
        let other = if self.chance(50) {
            self.same_quant(v, &other_shape)
        } else {
            self.activation(&other_shape)
        };
        let other = if self.chance(50) {
            let size = if self.int8 { 1 } else { 4 };
            let data = self.bytes(elements(&other_shape) * size);
            self.constant(other.constant(data))
        } else {
            self.graph_input(other)
        };
        let compare = match op {
            B::LOGICAL_AND | B::LOGICAL_OR | B::LOGICAL_NOT | B::REDUCE_ALL => self.pick(&[
                B::EQUAL,
                B::NOT_EQUAL,
                B::GREATER,
                B::GREATER_EQUAL,
                B::LESS,
                B::LESS_EQUAL,
            ]),
            _ => op,
        };
        let inputs = if self.chance(20) {
            [other, v.index]
        } else {
            [v.index, other]
        };
        let bool_out = TensorSpec::new(TensorType::BOOL, &shape);
        self.push_op(compare, Options::None, &inputs, bool_out.clone());
        let Some(flag) = self.values.pop() else {
            return;
        };
        let result = match op {
            B::LOGICAL_NOT => {
                let out = self.m.tensor(bool_out);
                self.m.op(op, Options::None, &[flag.index], &[out]);
                out
            }
            B::LOGICAL_AND | B::LOGICAL_OR => {
                let mask_shape = shape[shape.len() - self.index(shape.len() + 1)..].to_vec();
                let data: Vec<u8> = self
                    .bytes(elements(&mask_shape))
                    .into_iter()
                    .map(|b| b & 1)
                    .collect();
                let mask =
                    self.constant(TensorSpec::new(TensorType::BOOL, &mask_shape).constant(data));
                let out = self.m.tensor(bool_out);
                self.m.op(op, Options::None, &[flag.index, mask], &[out]);
                out
            }
            B::REDUCE_ALL => {
                // One axis (of a scalar: axis 0, which TFLM's ResolveAxis ignores), or all.
                let rank = shape.len() as i32;
                let axes: Vec<i32> = if rank > 1 && self.chance(30) {
                    (0..rank).collect()
                } else {
                    vec![self.int(0, (rank - 1).max(0))]
                };
                let keep_dims = self.chance(50);
                let out_shape: Vec<i32> = (0..rank)
                    .filter_map(|d| match (axes.contains(&d), keep_dims) {
                        (true, true) => Some(1),
                        (true, false) => None,
                        (false, _) => Some(shape[d as usize]),
                    })
                    .collect();
                let mut a =
                    self.constant(TensorSpec::int32(&[axes.len() as i32]).constant_i32(&axes));
                // Now and then the axes are a graph input of any values (TFLM's REDUCE_ALL
                // reads them per call): reduce_dyn's all kind in Rust and C.
                if self.chance(20) {
                    a = self.graph_input(TensorSpec::int32(&[axes.len() as i32]));
                }
                let out = self.m.tensor(TensorSpec::new(TensorType::BOOL, &out_shape));
                self.m
                    .op(op, Options::Reducer { keep_dims }, &[flag.index, a], &[out]);
                out
            }
            _ => flag.index,
        };
        self.m.outputs.push(result);
    }
}

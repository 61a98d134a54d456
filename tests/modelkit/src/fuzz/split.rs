//! SPLIT, SPLIT_V and UNPACK: one value into several outputs.

use super::{FuzzOp, Gen, Value};
use crate::{BuiltinOperator as B, Options, TensorSpec};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::SPLIT, |g, op| g.split(op)),
    FuzzOp::new(B::SPLIT_V, |g, op| g.split(op)),
    FuzzOp::new(B::UNPACK, |g, _| g.unpack()),
];

impl Gen<'_, '_> {
    /// SPLIT (axis a constant input before the data) or SPLIT_V (sizes, one of them now and then
    /// -1, and the axis after the data), into 1 to 4 outputs along a random axis.
    pub(super) fn split(&mut self, op: B) {
        let v = self.latest();
        let shape = self.shape_of(v);
        let rank = shape.len() as i32;
        if rank == 0 {
            return;
        }
        let axis = self.int(-rank, rank - 1);
        let a = if axis < 0 { axis + rank } else { axis } as usize;
        let d = shape[a];
        let sizes: Vec<i32> = if op == B::SPLIT {
            // Equal parts: a divisor of the dimension (now and then not one, which is refused;
            // its outputs still get a dimension of at least 1, for the operators drawn after it).
            let n = self.int(1, 4);
            let n = if d % n == 0 || self.chance(10) { n } else { 1 };
            vec![(d / n).max(1); n as usize]
        } else {
            let mut left = d;
            let mut sizes = Vec::new();
            while left > 0 && sizes.len() < 3 {
                let s = self.int(1, left);
                sizes.push(s);
                left -= s;
            }
            if left > 0 {
                sizes.push(left);
            }
            if sizes.len() > 1 && self.chance(30) {
                let i = self.index(sizes.len());
                sizes[i] = -1;
            }
            sizes
        };
        let axis_t = self.constant(TensorSpec::int32(&[]).constant_i32(&[axis]));
        let num_splits = sizes.len() as i32;
        let inputs = if op == B::SPLIT {
            vec![axis_t, v.index]
        } else {
            let s = self.constant(TensorSpec::int32(&[num_splits]).constant_i32(&sizes));
            vec![v.index, s, axis_t]
        };
        let total: i32 = sizes.iter().filter(|&&s| s >= 0).sum();
        let mut outputs = Vec::new();
        for &size in &sizes {
            let mut out = shape.clone();
            out[a] = if size < 0 { d - total } else { size };
            let t = self.same_quant(v, &out);
            outputs.push(self.m.tensor(t));
        }
        let options = if op == B::SPLIT {
            Options::Split { num_splits }
        } else {
            Options::SplitV { num_splits }
        };
        self.m.op(op, options, &inputs, &outputs);
        for &index in &outputs {
            self.values.push(Value { index });
        }
    }

    /// UNPACK along a random axis (written negative at times) into its entries, any number of
    /// them: now and then a new input of the latest value's shape but 11 to 16 long along the
    /// axis (the chain's values are rarely longer than 8), which takes the variadic kernel.
    pub(super) fn unpack(&mut self) {
        let mut v = self.latest();
        let mut shape = self.shape_of(v);
        let rank = shape.len() as i32;
        if rank == 0 {
            return;
        }
        let axis = self.int(-rank, rank - 1);
        let a = if axis < 0 { axis + rank } else { axis } as usize;
        if self.chance(25) {
            shape[a] = self.int(11, 16);
            v = self.input(&shape);
        }
        let num = shape[a].max(1);
        let mut row = shape.clone();
        row.remove(a);
        let mut outputs = Vec::new();
        for _ in 0..num {
            let t = self.same_quant(v, &row);
            outputs.push(self.m.tensor(t));
        }
        self.m.op(
            B::UNPACK,
            Options::Unpack { num, axis },
            &[v.index],
            &outputs,
        );
        for &index in &outputs {
            self.values.push(Value { index });
        }
    }
}

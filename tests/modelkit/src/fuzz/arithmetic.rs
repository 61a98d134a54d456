//! The binary element-wise operators (ADD, SUB, MUL, MAXIMUM, MINIMUM, PRELU, SQUARED_DIFFERENCE,
//! DIV, FLOOR_DIV, FLOOR_MOD), with now and then an int32 side branch (and for PRELU an int16
//! one with an int8 alpha).

use super::{elements, FuzzOp, Gen, Value};
use crate::{BuiltinOperator as B, Options, TensorSpec, TensorType};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::ADD, |g, op| g.binary(op)),
    FuzzOp::new(B::ADD_N, add_n),
    FuzzOp::new(B::DIV, |g, op| g.binary(op)),
    FuzzOp::new(B::FLOOR_DIV, |g, op| g.binary(op)),
    FuzzOp::new(B::FLOOR_MOD, |g, op| g.binary(op)),
    FuzzOp::new(B::MAXIMUM, |g, op| g.binary(op)),
    FuzzOp::new(B::MINIMUM, |g, op| g.binary(op)),
    FuzzOp::new(B::MUL, |g, op| g.binary(op)),
    FuzzOp::new(B::PRELU, |g, op| g.binary(op)),
    FuzzOp::new(B::SQUARED_DIFFERENCE, |g, op| g.binary(op)),
    FuzzOp::new(B::SUB, |g, op| g.binary(op)),
];

impl Gen<'_, '_> {
    pub(super) fn binary(&mut self, op: B) {
        if op == B::PRELU && self.chance(25) {
            self.prelu_int16();
            return;
        }
        let v = self.latest();
        // Now and then TFLM's unquantized int32 arithmetic, on a new int32 input of the latest
        // value's shape: a side branch whose result is a graph output, so that the chain goes on
        // in the model's flavour.
        let side = self.chance(10);
        let v = if side {
            let index = self.graph_input(TensorSpec::int32(&self.shape_of(v)));
            Value { index }
        } else {
            v
        };
        let int32 = self.dtype_of(v) == TensorType::INT32;
        let shape = self.shape_of(v);
        let other_shape = self.partner_shape(&shape);
        let like_v = int32 || !self.int8 || op == B::MAXIMUM || op == B::MINIMUM;
        let other = if like_v {
            self.same_quant(v, &other_shape)
        } else {
            self.activation(&other_shape)
        };
        let other = if self.chance(60) {
            let size = if self.int8 && !int32 { 1 } else { 4 };
            let data = self.bytes(elements(&other_shape) * size);
            self.constant(other.constant(data))
        } else {
            self.graph_input(other)
        };
        let out = if int32 || op == B::MAXIMUM || op == B::MINIMUM {
            self.same_quant(v, &shape)
        } else {
            self.activation(&shape)
        };
        let activation = self.act();
        let options = match op {
            B::ADD => Options::Add { activation },
            B::SUB => Options::Sub { activation },
            B::MUL => Options::Mul { activation },
            B::DIV => Options::Div { activation },
            B::SQUARED_DIFFERENCE => Options::SquaredDifference,
            B::PRELU | B::FLOOR_DIV | B::FLOOR_MOD => Options::None,
            _ => Options::MaximumMinimum,
        };
        let inputs = if self.chance(15) {
            [other, v.index]
        } else {
            [v.index, other]
        };
        self.push_op(op, options, &inputs, out);
        if side {
            if let Some(out) = self.values.pop() {
                self.m.outputs.push(out.index);
            }
        }
    }

    /// The other operand of a binary operator over `shape`: the same shape, or broadcast (some
    /// dimensions 1, or lower rank).
    fn partner_shape(&mut self, shape: &[i32]) -> Vec<i32> {
        match self.int(0, 2) {
            0 => shape.to_vec(),
            1 => {
                let mut s = shape.to_vec();
                for d in s.iter_mut() {
                    if self.chance(50) {
                        *d = 1;
                    }
                }
                s
            }
            _ => {
                let keep = self.index(shape.len() + 1);
                shape[shape.len() - keep..].to_vec()
            }
        }
    }

    /// int16 PRELU with an int8 alpha (TFLM's only int16 PRELU) on a new int16 input of the
    /// latest value's shape: a side branch whose output is a graph output, as the int32 one.
    /// Zero points 0 as the 16x8 scheme has them, now and then not (TFLM reads them).
    fn prelu_int16(&mut self) {
        let v = self.latest();
        let shape = self.shape_of(v);
        let int16 = |g: &mut Self, shape: &[i32]| {
            let zero_point = if g.chance(80) {
                0
            } else {
                i64::from(g.int(-300, 300))
            };
            let scale = g.scale() / 64.0;
            TensorSpec::new(TensorType::INT16, shape).quant(scale, zero_point)
        };
        let x = int16(self, &shape);
        let x = self.graph_input(x);
        let alpha_shape = self.partner_shape(&shape);
        let (scale, zero_point) = (self.scale() / 8.0, self.zero_point());
        let alpha = TensorSpec::int8(&alpha_shape, scale, zero_point);
        let alpha = if self.chance(60) {
            let data = self.bytes(elements(&alpha_shape));
            self.constant(alpha.constant(data))
        } else {
            self.graph_input(alpha)
        };
        let out = int16(self, &shape);
        self.push_op(B::PRELU, Options::None, &[x, alpha], out);
        if let Some(out) = self.values.pop() {
            self.m.outputs.push(out.index);
        }
    }
}

/// ADD_N of the latest value 2 to 4 times, now and then 9 to 12.
fn add_n(g: &mut Gen<'_, '_>, op: B) {
    // The latest value 2 to 4 times, now and then 9 to 12 (the variadic kernels), one tensor
    // of one quantization, as TFLM's int8 ADD_N requires; the output in its quantization.
    let v = g.latest();
    let shape = g.shape_of(v);
    let n = if g.chance(20) {
        g.int(9, 12) as usize
    } else {
        g.int(2, 4) as usize
    };
    let out_t = g.same_quant(v, &shape);
    g.push_op(op, Options::None, &vec![v.index; n], out_t);
}

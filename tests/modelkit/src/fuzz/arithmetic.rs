//! The binary element-wise operators (ADD, SUB, MUL, MAXIMUM, MINIMUM, PRELU, SQUARED_DIFFERENCE,
//! DIV, FLOOR_DIV, FLOOR_MOD), with now and then an int32 side branch.

use super::{elements, Gen, Value};
use crate::{BuiltinOperator as B, Options, TensorSpec, TensorType};

impl Gen<'_, '_> {
    pub(super) fn binary(&mut self, op: B) {
        let v = self.latest();
        // Now and then TFLM's unquantized int32 arithmetic, on a new int32 input of the latest
        // value's shape: a side branch whose result is a graph output, so that the chain goes on
        // in the model's flavour.
        let side = self.chance(10);
        let v = if side {
            let index = self.m.tensor(TensorSpec::int32(&self.shape_of(v)));
            self.m.inputs.push(index);
            Value { index }
        } else {
            v
        };
        let int32 = self.dtype_of(v) == TensorType::INT32;
        let shape = self.shape_of(v);
        // The other operand: same shape, or broadcast (some dimensions 1, or lower rank).
        let other_shape: Vec<i32> = match self.int(0, 2) {
            0 => shape.clone(),
            1 => {
                let mut s = shape.clone();
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
        };
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
            let i = self.m.tensor(other);
            self.m.inputs.push(i);
            i
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
}

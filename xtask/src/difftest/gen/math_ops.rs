//! The math operators of issue 34: SQUARED_DIFFERENCE (float32, int8, int16, int32) and DIV
//! (float32, int8, int32), broadcasting as the other binary operators do.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{act_name, elements, op_name, ACTIVATIONS, G, OpGen};
use crate::difftest::quant::{ratio_variants, score};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("DIV", B::DIV, math_binary).int32_arithmetic().non_finite(),
    OpGen::new("SQUARED_DIFFERENCE", B::SQUARED_DIFFERENCE, math_binary)
        .types(&[TensorType::INT16])
        .int32_arithmetic(),
];

fn math_binary(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r > 4) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 5), 2.0);
    g.math_binary(op, x)
}

impl<'a> G<'a> {
    /// SQUARED_DIFFERENCE or DIV of `x` and a second operand (a graph input or a constant) that
    /// broadcasts against it; int32 DIV's divisor is a constant free of 0 and -1 (TFLM's C++
    /// division traps on x86 there).
    pub(super) fn math_binary(&mut self, op: B, x: i32) -> Option<i32> {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        if op == B::DIV && dtype == TensorType::INT16 {
            return None;
        }
        let (other_shape, out_shape) = self.broadcast_partner(&s);
        let int32_div = op == B::DIV && dtype == TensorType::INT32;
        let constant = int32_div || self.rng.chance(0.3);
        let swap = !int32_div && self.rng.chance(0.3);
        let (y_q, out_q) = match dtype {
            TensorType::INT8 | TensorType::INT16 => {
                let int16 = dtype == TensorType::INT16;
                let (s_x, _) = self.q(x);
                let z_y = if int16 { 0 } else { self.zero_point() };
                let z_o = if int16 { 0 } else { self.zero_point() };
                let s_y = (f64::from(s_x) * self.rng.logu(0.2, 5.0)) as f32;
                let s_o = if op == B::DIV {
                    // The rescaling s_x / (s_y s_o) over shifts -5 ..= 7, drifting where asked.
                    self.hunt(
                        |r| (f64::from(s_x) / (f64::from(s_y) * r.logu(0.05, 200.0))) as f32,
                        |s_o| score(&ratio_variants(s_x, s_y * s_o)),
                    )
                } else {
                    // The square of the largest difference over the output's range, give or take.
                    let levels: f64 = if int16 { 65535.0 } else { 255.0 };
                    let top = levels * f64::from(s_x.max(s_y));
                    let range = if int16 { 32767.0 } else { 255.0 };
                    (top * top / range * self.rng.logu(0.02, 2.0)) as f32
                };
                ((s_y, z_y), (s_o, z_o))
            }
            _ => ((0.0, 0), (0.0, 0)),
        };
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let y = if constant {
            let n = elements(&other_shape) as usize;
            let t = match dtype {
                TensorType::INT8 => {
                    let v: Vec<i8> = (0..n).map(|_| self.rng.int(-128, 127) as i8).collect();
                    TensorSpec::int8(&other_shape, y_q.0, y_q.1).constant_i8(&v)
                }
                TensorType::INT16 => {
                    let v: Vec<u8> = (0..n)
                        .flat_map(|_| (self.rng.next_u64() as i16).to_le_bytes())
                        .collect();
                    TensorSpec::new(dtype, &other_shape)
                        .quant(y_q.0, 0)
                        .constant(v)
                }
                TensorType::INT32 => {
                    let limit = self.rng.pick(&[i32::MAX, 1000, 8]);
                    let v: Vec<i32> = (0..n)
                        .map(|_| loop {
                            let v = self.rng.int(-limit, limit);
                            if !int32_div || (v != 0 && v != -1) {
                                break v;
                            }
                        })
                        .collect();
                    TensorSpec::int32(&other_shape).constant_i32(&v)
                }
                _ => {
                    let v: Vec<f32> = (0..n).map(|_| self.rng.sym(2.0)).collect();
                    TensorSpec::f32(&other_shape).constant_f32(&v)
                }
            };
            self.m.tensor(t)
        } else {
            self.input(dtype, &other_shape, quantized.then_some(y_q), 2.0)
        };
        let out = self.act(dtype, &out_shape, quantized.then_some(out_q));
        let activation = self.rng.pick(ACTIVATIONS);
        let options = if op == B::DIV {
            Options::Div { activation }
        } else {
            Options::SquaredDifference
        };
        let (a, b) = if swap { (y, x) } else { (x, y) };
        let text = format!(
            "{} {} {} {}{} act={} -> {}",
            op_name(op),
            self.qtext(a),
            self.qtext(b),
            if constant { "(other constant)" } else { "" },
            if swap { "(swapped)" } else { "" },
            if op == B::DIV {
                act_name(activation)
            } else {
                "-"
            },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, options, &[a, b], &[out]);
        Some(out)
    }
}

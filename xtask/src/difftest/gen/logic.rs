//! The operators of issue 35: EQUAL, NOT_EQUAL (bool, float32, int32, int64, int8), GREATER,
//! GREATER_EQUAL, LESS, LESS_EQUAL (float32, int32, int64, int8), with a second operand (a graph
//! input or a constant) that broadcasts against the first, their output BOOL; LOGICAL_AND,
//! LOGICAL_OR (broadcast) and LOGICAL_NOT of BOOL values (a comparison makes one from a value of
//! another type); FLOOR_DIV and FLOOR_MOD of float32 (a constant divisor free of 0 for
//! FLOOR_DIV, whose Eval fails on one); CEIL and ROUND of float32 are drawn with FLOOR.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{elements, int32_values, op_name, G, OpGen};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("EQUAL", B::EQUAL, comparison).types(&[
        TensorType::INT32,
        TensorType::INT64,
        TensorType::BOOL,
    ]),
    OpGen::new("FLOOR_DIV", B::FLOOR_DIV, floor_div_mod).non_finite(),
    OpGen::new("FLOOR_MOD", B::FLOOR_MOD, floor_div_mod).non_finite(),
    OpGen::new("GREATER", B::GREATER, comparison).types(&[TensorType::INT32, TensorType::INT64]),
    OpGen::new("GREATER_EQUAL", B::GREATER_EQUAL, comparison)
        .types(&[TensorType::INT32, TensorType::INT64]),
    OpGen::new("LESS", B::LESS, comparison).types(&[TensorType::INT32, TensorType::INT64]),
    OpGen::new("LESS_EQUAL", B::LESS_EQUAL, comparison)
        .types(&[TensorType::INT32, TensorType::INT64]),
    OpGen::new("LOGICAL_AND", B::LOGICAL_AND, logical).types(&[TensorType::BOOL]),
    OpGen::new("LOGICAL_NOT", B::LOGICAL_NOT, logical).types(&[TensorType::BOOL]),
    OpGen::new("LOGICAL_OR", B::LOGICAL_OR, logical).types(&[TensorType::BOOL]),
    OpGen::new("NOT_EQUAL", B::NOT_EQUAL, comparison).types(&[
        TensorType::INT32,
        TensorType::INT64,
        TensorType::BOOL,
    ]),
];

fn logical(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let x = g.take(x, dtype, |g| g.random_shape(0, 4, 5), 2.0);
    g.logical(op, x)
}

fn floor_div_mod(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if dtype != TensorType::FLOAT32 {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(0, 4, 5), 8.0);
    g.floor_div_mod(op, x)
}

fn comparison(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let x = g.take(x, dtype, |g| g.random_shape(0, 4, 5), 2.0);
    g.comparison(op, x)
}

impl<'a> G<'a> {
    /// A comparison of `x` and a partner of its type (int8: its own quantization, so that
    /// TFLM's rescaling of both sides shows), broadcast; the output is BOOL.
    pub(super) fn comparison(&mut self, op: B, x: i32) -> Option<i32> {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let (other_shape, out_shape) = self.broadcast_partner(&s);
        let constant = self.rng.chance(0.3);
        let swap = self.rng.chance(0.3);
        let n = elements(&other_shape) as usize;
        let y = match dtype {
            TensorType::INT8 => {
                // Mostly a scale near x's (values that meet), sometimes anywhere below 1.
                let (s_x, _) = self.q(x);
                let s_y = if self.rng.chance(0.6) {
                    (f64::from(s_x) * self.rng.logu(0.5, 2.0)).min(0.9) as f32
                } else {
                    self.rng.logu(1e-4, 0.9) as f32
                };
                let z_y = self.zero_point();
                if constant {
                    let v: Vec<i8> = (0..n).map(|_| self.rng.int(-128, 127) as i8).collect();
                    self.m
                        .tensor(TensorSpec::int8(&other_shape, s_y, z_y).constant_i8(&v))
                } else {
                    self.input(dtype, &other_shape, Some((s_y, z_y)), 1.0)
                }
            }
            TensorType::FLOAT32 if constant => {
                // Values on a grid of quarters (0 and the halves among them).
                let v: Vec<f32> = (0..n).map(|_| self.rng.int(-8, 8) as f32 * 0.25).collect();
                self.m
                    .tensor(TensorSpec::f32(&other_shape).constant_f32(&v))
            }
            TensorType::INT32 if constant => {
                let bytes = int32_values(self.rng, n);
                self.m
                    .tensor(TensorSpec::int32(&other_shape).constant(bytes))
            }
            TensorType::INT64 if constant => {
                let v: Vec<i64> = (0..n)
                    .map(|_| match self.rng.int(0, 2) {
                        0 => self.rng.next_u64() as i64,
                        1 => self.rng.range(-3, 3) << 33,
                        _ => self.rng.range(-3, 3),
                    })
                    .collect();
                self.m
                    .tensor(TensorSpec::new(TensorType::INT64, &other_shape).constant_i64(&v))
            }
            TensorType::BOOL if constant => {
                let v: Vec<u8> = (0..n).map(|_| (self.rng.next_u64() & 1) as u8).collect();
                self.m
                    .tensor(TensorSpec::new(TensorType::BOOL, &other_shape).constant(v))
            }
            TensorType::FLOAT32 | TensorType::INT32 | TensorType::INT64 | TensorType::BOOL => {
                self.input(dtype, &other_shape, None, 2.0)
            }
            _ => return None,
        };
        let out = self.act(TensorType::BOOL, &out_shape, None);
        let (a, b) = if swap { (y, x) } else { (x, y) };
        let text = format!(
            "{} {} {} {}{} -> {}",
            op_name(op),
            self.qtext(a),
            self.qtext(b),
            if constant { "(other constant)" } else { "" },
            if swap { "(swapped)" } else { "" },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, Options::None, &[a, b], &[out]);
        Some(out)
    }

    /// LOGICAL_AND, LOGICAL_OR (with a BOOL partner, a graph input or a constant, broadcast) or
    /// LOGICAL_NOT of `x`, made BOOL first by a comparison when it is not.
    pub(super) fn logical(&mut self, op: B, x: i32) -> Option<i32> {
        let x = if self.dtype(x) == TensorType::BOOL {
            x
        } else {
            let compare = self.rng.pick(&[B::GREATER, B::LESS_EQUAL, B::NOT_EQUAL]);
            self.comparison(compare, x)?
        };
        let s = self.shape(x);
        if op == B::LOGICAL_NOT {
            let out = self.act(TensorType::BOOL, &s, None);
            let text = format!("{} {} -> {}", op_name(op), self.qtext(x), self.qtext(out));
            self.describe(text);
            self.m.op(op, Options::None, &[x], &[out]);
            return Some(out);
        }
        let (other_shape, out_shape) = self.broadcast_partner(&s);
        let constant = self.rng.chance(0.4);
        let y = if constant {
            let n = elements(&other_shape) as usize;
            let v: Vec<u8> = (0..n).map(|_| (self.rng.next_u64() & 1) as u8).collect();
            self.m
                .tensor(TensorSpec::new(TensorType::BOOL, &other_shape).constant(v))
        } else {
            self.input(TensorType::BOOL, &other_shape, None, 1.0)
        };
        let out = self.act(TensorType::BOOL, &out_shape, None);
        let (a, b) = if self.rng.chance(0.3) { (y, x) } else { (x, y) };
        let text = format!(
            "{} {} {} {}-> {}",
            op_name(op),
            self.qtext(a),
            self.qtext(b),
            if constant { "(other constant) " } else { "" },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, Options::None, &[a, b], &[out]);
        Some(out)
    }

    /// FLOOR_DIV or FLOOR_MOD of float32 `x` and a divisor (a graph input, or a constant of
    /// both signs: free of 0 for FLOOR_DIV, with a 0 now and then for FLOOR_MOD, which gives
    /// NaN there), broadcast, maybe swapped when `x` is a graph input.
    pub(super) fn floor_div_mod(&mut self, op: B, x: i32) -> Option<i32> {
        if self.dtype(x) != TensorType::FLOAT32 {
            return None;
        }
        let s = self.shape(x);
        let (other_shape, out_shape) = self.broadcast_partner(&s);
        let constant = self.rng.chance(0.4);
        let y = if constant {
            let n = elements(&other_shape) as usize;
            let zeros = op == B::FLOOR_MOD && self.rng.chance(0.2);
            let v: Vec<f32> = (0..n)
                .map(|_| loop {
                    let v = self.rng.sym(3.0);
                    let v = if zeros && self.rng.chance(0.2) {
                        0.0
                    } else {
                        v
                    };
                    if v != 0.0 || zeros {
                        break v;
                    }
                })
                .collect();
            self.m
                .tensor(TensorSpec::f32(&other_shape).constant_f32(&v))
        } else {
            self.input(TensorType::FLOAT32, &other_shape, None, 3.0)
        };
        let out = self.act(TensorType::FLOAT32, &out_shape, None);
        // `x` divides only when it is a graph input (random values, never 0): an operator's
        // output may hold zeros (FLOOR_DIV, ROUND, ...), on which TFLM's Invoke fails and the
        // generated code computes on (an infinity or NaN).
        let swap = !constant && self.m.inputs.contains(&x) && self.rng.chance(0.3);
        let (a, b) = if swap { (y, x) } else { (x, y) };
        let text = format!(
            "{} {} {} {}-> {}",
            op_name(op),
            self.qtext(a),
            self.qtext(b),
            if constant { "(divisor constant) " } else { "" },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, Options::None, &[a, b], &[out]);
        Some(out)
    }
}

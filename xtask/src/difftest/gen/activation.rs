//! Element-wise unary operators: curves (LOGISTIC, TANH, …), math (ABS, SQRT, …) and activations.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorType};

use super::{arithmetic::ratio_near, op_name, G, OpGen};
use crate::difftest::quant::{product_variants, ratio_variants, score};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("ABS", B::ABS, unary_math).types(&[TensorType::INT16]),
    OpGen::new("CEIL", B::CEIL, rounding),
    OpGen::new("ELU", B::ELU, activation),
    OpGen::new("EXP", B::EXP, exp_log).non_finite(),
    OpGen::new("FLOOR", B::FLOOR, rounding),
    OpGen::new("HARD_SWISH", B::HARD_SWISH, activation),
    OpGen::new("LEAKY_RELU", B::LEAKY_RELU, activation).types(&[TensorType::INT16]),
    OpGen::new("LOG", B::LOG, exp_log).non_finite(),
    OpGen::new("LOGISTIC", B::LOGISTIC, curve).types(&[TensorType::INT16]),
    OpGen::new("NEG", B::NEG, unary_math),
    OpGen::new("RELU", B::RELU, activation).types(&[TensorType::INT16]),
    OpGen::new("RELU6", B::RELU6, activation).types(&[TensorType::INT16]),
    OpGen::new("ROUND", B::ROUND, rounding),
    OpGen::new("RSQRT", B::RSQRT, rsqrt).non_finite(),
    OpGen::new("SOFTMAX", B::SOFTMAX, curve).types(&[TensorType::INT16]),
    OpGen::new("SQRT", B::SQRT, unary_math).non_finite(),
    OpGen::new("SQUARE", B::SQUARE, unary_math),
    OpGen::new("TANH", B::TANH, curve).types(&[TensorType::INT16]),
];

fn curve(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 4.0);
    Some(g.curve(op, x))
}

fn rounding(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // TFLM's FLOOR, CEIL and ROUND are float32 only.
    if dtype != TensorType::FLOAT32 {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 8.0);
    Some(g.activation(op, x))
}

fn exp_log(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // TFLM's EXP and LOG are float32 only.
    if dtype != TensorType::FLOAT32 {
        return None;
    }
    let x = g.take(x, dtype, G::every_value_shape, 4.0);
    Some(g.math(op, x))
}

fn activation(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let x = g.take(x, dtype, G::every_value_shape, 8.0);
    Some(g.activation(op, x))
}

fn rsqrt(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // TFLM's int8 Invoke fails on an input below its zero point: a fresh int8 input has zero
    // point -128, a produced one must have it too.
    let x = match x {
        Some(t) if dtype == TensorType::INT8 && g.q(t).1 != -128 => return None,
        Some(t) => t,
        None => {
            let shape = g.every_value_shape();
            let quant = (dtype == TensorType::INT8).then(|| (g.scale(), -128));
            g.input(dtype, &shape, quant, 4.0)
        }
    };
    Some(g.math(op, x))
}

fn unary_math(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // TFLM's NEG, SQRT and SQUARE are float32 only; ABS takes int8 too.
    if op != B::ABS && dtype != TensorType::FLOAT32 {
        return None;
    }
    let x = g.take(x, dtype, G::every_value_shape, 4.0);
    Some(g.math(op, x))
}

impl<'a> G<'a> {
    pub(super) fn curve(&mut self, op: B, x: i32) -> i32 {
        let dtype = self.dtype(x);
        let shape = self.shape(x);
        // TFLM's SOFTMAX also takes int8 to int16, with its output fixed at (1/65536, -32768).
        let widened = op == B::SOFTMAX && dtype == TensorType::INT8 && self.rng.chance(0.25);
        let quant = match (op, dtype) {
            _ if widened => (1.0 / 65536.0, -32768),
            // TFLM's int16 LOGISTIC, TANH and SOFTMAX write 1/32768 steps around 0.
            (_, TensorType::INT16) => (1.0 / 32768.0, 0),
            (B::TANH, _) => (1.0 / 128.0, 0),
            _ => (1.0 / 256.0, -128),
        };
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let out_type = if widened { TensorType::INT16 } else { dtype };
        let out = self.act(out_type, &shape, quantized.then_some(quant));
        let options = if op == B::SOFTMAX {
            let beta = if self.rng.chance(0.5) {
                1.0
            } else {
                self.rng.logu(0.1, 3.0) as f32
            };
            Options::Softmax { beta }
        } else {
            Options::None
        };
        let text = format!(
            "{} {} {:?} -> {}",
            op_name(op),
            self.qtext(x),
            options,
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, options, &[x], &[out]);
        out
    }

    /// An element-wise math operator (TFLM's elementwise.cc) of `x`; int8 outputs get a scale
    /// that covers the function's range over the input's (`1 / sqrt` of its smallest nonzero
    /// value for RSQRT), up to 16 times wider, and a random zero point; int16 (ABS) outputs a
    /// rescaling near a simple ratio.
    pub(super) fn math(&mut self, op: B, x: i32) -> i32 {
        let dtype = self.dtype(x);
        let shape = self.shape(x);
        let out_q = match dtype {
            // TFLM's int16 ABS rescales (16x8 models: zero points 0).
            TensorType::INT16 => Some(self.int16_rescaled(x, 0.3)),
            TensorType::INT8 => Some(self.math_int8_quant(op, x)),
            _ => None,
        };
        let out = self.act(dtype, &shape, out_q);
        let text = format!("{} {} -> {}", op_name(op), self.qtext(x), self.qtext(out));
        self.describe(text);
        self.m.op(op, Options::None, &[x], &[out]);
        out
    }

    /// The int8 output quantization of [`Self::math`] for input `x`.
    fn math_int8_quant(&mut self, op: B, x: i32) -> (f32, i64) {
        let (s_in, z_in) = self.q(x);
        if op == B::ABS {
            // The same scale (no rescaling) now and then, else up to 4 times either way.
            let s_out = if self.rng.chance(0.3) {
                s_in
            } else {
                (f64::from(s_in) * self.rng.logu(0.25, 4.0)) as f32
            };
            let zp = if self.rng.chance(0.5) {
                z_in
            } else {
                self.zero_point()
            };
            return (s_out, zp);
        }
        let top = 1.0 / f64::from(s_in).sqrt();
        let s_out = (top * self.rng.logu(1.0, 16.0) / 255.0) as f32;
        let zp = if self.rng.chance(0.5) {
            -128
        } else {
            self.zero_point()
        };
        (s_out, zp)
    }

    pub(super) fn activation(&mut self, op: B, x: i32) -> i32 {
        let dtype = self.dtype(x);
        let shape = self.shape(x);
        let alpha = if self.rng.chance(0.3) {
            self.rng.pick(&[0.1f32, 0.2, 0.25, 0.3, 0.125, 0.5, 0.01])
        } else if self.rng.chance(0.8) {
            self.rng.logu(0.01, 0.9) as f32
        } else {
            self.rng.logu(1.1, 4.0) as f32
        };
        let out_q = if dtype == TensorType::INT8 {
            let (s_in, _) = self.q(x);
            let zp = self.zero_point();
            if op == B::RELU6 && self.rng.chance(0.7) {
                // TFLM's int8 RELU6 clamps raw values without rescaling.
                Some(self.q(x))
            } else {
                let s_out = self.hunt(
                    |r| ratio_near(r, s_in),
                    |o| {
                        let mut d = score(&ratio_variants(s_in, o));
                        if op == B::LEAKY_RELU {
                            d = d.max(score(&product_variants(alpha, s_in, o)));
                        }
                        d
                    },
                );
                Some((s_out, zp))
            }
        } else if dtype == TensorType::INT16 {
            Some(self.int16_rescaled(x, 0.4))
        } else {
            None
        };
        let out = self.act(dtype, &shape, out_q);
        let options = match op {
            B::LEAKY_RELU => Options::LeakyRelu { alpha },
            B::HARD_SWISH => Options::HardSwish,
            _ => Options::None,
        };
        let text = format!(
            "{} {} {} -> {}",
            op_name(op),
            self.qtext(x),
            if op == B::LEAKY_RELU {
                format!("alpha={alpha:e}")
            } else {
                String::new()
            },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, options, &[x], &[out]);
        out
    }
}

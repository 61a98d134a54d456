//! Element-wise binary operators and QUANTIZE, with the scale choices that make their rescaling
//! ratios simple in one precision and not the other.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{act_name, elements, int32_values, op_name, Rng, ACTIVATIONS, G, MUL_HINT, OpGen};
use crate::difftest::quant::{near, product_variants, ratio_variants, score, SIMPLE};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("ADD", B::ADD, binary).types(&[TensorType::INT16]).int32_arithmetic(),
    OpGen::new("DEQUANTIZE", B::DEQUANTIZE, dequantize).types(&[TensorType::INT16]),
    OpGen::new("MAXIMUM", B::MAXIMUM, binary)
        .types(&[TensorType::INT16, TensorType::INT64])
        .int32_arithmetic(),
    OpGen::new("MINIMUM", B::MINIMUM, binary)
        .types(&[TensorType::INT16, TensorType::INT64])
        .int32_arithmetic(),
    OpGen::new("MUL", B::MUL, binary).types(&[TensorType::INT16]).int32_arithmetic(),
    OpGen::new("PRELU", B::PRELU, binary).types(&[TensorType::INT16]),
    OpGen::new("QUANTIZE", B::QUANTIZE, quantize).types(&[TensorType::INT16]),
    OpGen::new("SUB", B::SUB, binary).types(&[TensorType::INT16]).int32_arithmetic(),
];

fn binary(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r > 4) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 5), 2.0);
    Some(g.binary(op, x))
}

fn quantize(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let wanted = if x.is_none() && g.rng.chance(0.6) {
        TensorType::FLOAT32
    } else {
        dtype
    };
    let out_q = (g.scale(), g.zero_point());
    let range = f64::from(out_q.0) * 160.0;
    let x = g.take(x, wanted, |g| g.random_shape(1, 4, 6), range);
    Some(g.quantize(x, out_q))
}

fn dequantize(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if !matches!(dtype, TensorType::INT8 | TensorType::INT16) && x.is_some() {
        return None;
    }
    let wanted = if dtype == TensorType::INT16 {
        dtype
    } else {
        TensorType::INT8
    };
    let x = g.take(x, wanted, |g| g.random_shape(1, 4, 6), 1.0);
    let out = g.act(TensorType::FLOAT32, &g.shape(x), None);
    let text = format!("DEQUANTIZE {} -> f32", g.qtext(x));
    g.describe(text);
    g.m.op(B::DEQUANTIZE, Options::Dequantize, &[x], &[out]);
    Some(out)
}

impl<'a> G<'a> {
    pub(super) fn quantize(&mut self, x: i32, out_q: (f32, i64)) -> i32 {
        let shape = self.shape(x);
        let in_type = self.dtype(x);
        // An int16 output (zero point 0) from int16 inputs half the time, else one time in four.
        let out_type = if self.rng.chance(if in_type == TensorType::INT16 {
            0.5
        } else {
            0.25
        }) {
            TensorType::INT16
        } else {
            TensorType::INT8
        };
        let zp = if out_type == TensorType::INT16 {
            0
        } else {
            out_q.1
        };
        let out_q = if matches!(in_type, TensorType::INT8 | TensorType::INT16) {
            let (s_in, _) = self.q(x);
            let s_out = self.hunt(|r| ratio_near(r, s_in), |o| score(&ratio_variants(s_in, o)));
            (s_out, zp)
        } else {
            (out_q.0, zp)
        };
        let out = self.act(out_type, &shape, Some(out_q));
        let text = format!("QUANTIZE {} -> {}", self.qtext(x), self.qtext(out));
        self.describe(text);
        self.m.op(B::QUANTIZE, Options::Quantize, &[x], &[out]);
        out
    }

    /// The other operand of a binary op over `s`: `(its shape, the output shape)`.
    pub(super) fn broadcast_partner(&mut self, s: &[i32]) -> (Vec<i32>, Vec<i32>) {
        let mut other = Vec::with_capacity(s.len());
        let mut out = Vec::with_capacity(s.len());
        for &d in s {
            if d == 1 && self.rng.chance(0.2) {
                let e = self.rng.int(2, 3);
                other.push(e);
                out.push(e);
            } else if self.rng.chance(0.25) {
                other.push(1);
                out.push(d);
            } else {
                other.push(d);
                out.push(d);
            }
        }
        // Sometimes a lower-rank partner: leading dimensions dropped, if they do not widen the
        // output.
        let mut drop = 0;
        while drop < other.len() && other[drop] == 1 && self.rng.chance(0.4) {
            drop += 1;
        }
        (other[drop..].to_vec(), out)
    }

    pub(super) fn binary(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let (other_shape, out_shape) = self.broadcast_partner(&s);
        let constant = self.rng.chance(0.3);
        let swap = self.rng.chance(0.3);
        let min_max = matches!(op, B::MAXIMUM | B::MINIMUM);
        let (y_q, out_q) = if dtype == TensorType::INT8 {
            let (s_x, z_x) = self.q(x);
            if min_max {
                ((s_x, z_x), (s_x, z_x))
            } else if op == B::PRELU {
                self.prelu_quant(s_x, false)
            } else {
                let z_y = self.zero_point();
                let z_o = self.zero_point();
                let (s_y, s_o) = self.hunt(
                    |r| {
                        let simple = r.chance(0.7);
                        let s_y = if simple {
                            let ratio = r.pick(&[0.5, 0.75, 1.5, 1.25, 2.0, 1.0, 0.625]);
                            near(f64::from(s_x), ratio, r.int(-2, 2))
                        } else {
                            (f64::from(s_x) * r.logu(0.2, 5.0)) as f32
                        };
                        if op == B::MUL && simple {
                            return product_pair(r, s_x, s_y, MUL_HINT);
                        }
                        let s_o = match (op == B::MUL, simple) {
                            (true, _) => {
                                (f64::from(s_x) * f64::from(s_y) * 128.0 * r.logu(0.3, 3.0)) as f32
                            }
                            (false, true) => {
                                let ratio = r.pick(&[2.0, 1.5, 1.0, 0.75, 0.5, 1.25]);
                                near(2.0 * f64::from(s_x.max(s_y)), ratio, r.int(-2, 2))
                            }
                            (false, false) => (f64::from(s_x.max(s_y)) * r.logu(0.7, 4.0)) as f32,
                        };
                        (s_y, s_o)
                    },
                    |(s_y, s_o)| {
                        if op == B::MUL {
                            score(&product_variants(s_x, s_y, s_o))
                        } else {
                            // ADD/SUB: inputs rescaled by s / (2 max), output by 2 max / (2^20 s_o).
                            let twice = 2.0 * s_x.max(s_y);
                            score(&ratio_variants(s_x, twice))
                                .max(score(&ratio_variants(s_y, twice)))
                                .max(score(&ratio_variants(twice, s_o * (1 << 20) as f32)))
                        }
                    },
                );
                ((s_y, z_y), (s_o, z_o))
            }
        } else if dtype == TensorType::INT16 {
            // The 16x8 scheme: zero points 0; MAXIMUM and MINIMUM compare raw values.
            let (s_x, _) = self.q(x);
            if min_max {
                ((s_x, 0), (s_x, 0))
            } else if op == B::PRELU {
                // TFLM's int16 PRELU: an int8 alpha (any zero point), the output's zero point 0.
                self.prelu_quant(s_x, true)
            } else {
                let s_y = (f64::from(s_x) * self.rng.logu(0.2, 5.0)) as f32;
                let s_o = if op == B::MUL {
                    (f64::from(s_x) * f64::from(s_y) * self.rng.logu(3000.0, 60000.0)) as f32
                } else {
                    (f64::from(s_x.max(s_y)) * self.rng.logu(0.7, 4.0)) as f32
                };
                ((s_y, 0), (s_o, 0))
            }
        } else {
            ((0.0, 0), (0.0, 0))
        };
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        // The second input's type: the first's, but int16 PRELU's alpha is int8.
        let y_type = if op == B::PRELU && dtype == TensorType::INT16 {
            TensorType::INT8
        } else {
            dtype
        };
        let y = if constant {
            let n = elements(&other_shape) as usize;
            let t = if y_type == TensorType::INT8 {
                let v: Vec<i8> = (0..n).map(|_| self.rng.int(-128, 127) as i8).collect();
                TensorSpec::int8(&other_shape, y_q.0, y_q.1).constant_i8(&v)
            } else if dtype == TensorType::INT32 {
                TensorSpec::int32(&other_shape).constant(int32_values(self.rng, n))
            } else if dtype == TensorType::INT16 {
                let v: Vec<u8> = (0..n)
                    .flat_map(|_| (self.rng.next_u64() as i16).to_le_bytes())
                    .collect();
                TensorSpec::new(dtype, &other_shape)
                    .quant(y_q.0, 0)
                    .constant(v)
            } else if dtype == TensorType::INT64 {
                let v: Vec<i64> = (0..n).map(|_| self.rng.next_u64() as i64).collect();
                TensorSpec::new(dtype, &other_shape).constant_i64(&v)
            } else {
                let v: Vec<f32> = (0..n).map(|_| self.rng.sym(2.0)).collect();
                TensorSpec::f32(&other_shape).constant_f32(&v)
            };
            self.m.tensor(t)
        } else {
            self.input(y_type, &other_shape, quantized.then_some(y_q), 2.0)
        };
        let out = self.act(dtype, &out_shape, quantized.then_some(out_q));
        let activation = self.rng.pick(ACTIVATIONS);
        let options = match op {
            B::ADD => Options::Add { activation },
            B::SUB => Options::Sub { activation },
            B::MUL => Options::Mul { activation },
            B::PRELU => Options::None,
            _ => Options::MaximumMinimum,
        };
        // PRELU's alpha is its second input.
        let (a, b) = if swap && op != B::PRELU {
            (y, x)
        } else {
            (x, y)
        };
        // Now and then a quantized int32 tensor: TFLM's ADD refuses quantized inputs, SUB a
        // quantized input or output, MUL, MAXIMUM and MINIMUM read no quantization.
        if dtype == TensorType::INT32 && self.rng.chance(0.15) {
            let t = self.rng.pick(&[a, b, out]) as usize;
            self.m.tensors[t] = self.m.tensors[t].clone().quant(0.5, 3);
        }
        let text = format!(
            "{} {} {} {}{} act={} -> {}",
            op_name(op),
            self.qtext(a),
            self.qtext(b),
            if constant { "(other constant)" } else { "" },
            if swap { "(swapped)" } else { "" },
            if min_max { "-" } else { act_name(activation) },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, options, &[a, b], &[out]);
        out
    }
}

impl G<'_> {
    /// PRELU's alpha and output quantization for input scale `s_x`: an int8 alpha (a random zero
    /// point) with `(q - z) * s_alpha` up to about ±1.3, the output near the input's scale (its
    /// zero point random, or 0 for an `int16` output), both rescalings where float and double
    /// differ.
    fn prelu_quant(&mut self, s_x: f32, int16: bool) -> ((f32, i64), (f32, i64)) {
        let z_y = self.zero_point();
        let z_o = if int16 { 0 } else { self.zero_point() };
        let (s_y, s_o) = self.hunt(
            |r| {
                let s_y = r.logu(1e-3, 5e-3) as f32;
                (s_y, (f64::from(s_x) * r.logu(0.5, 2.0)) as f32)
            },
            |(s_y, s_o)| {
                score(&ratio_variants(s_x, s_o)).max(score(&product_variants(s_x, s_y, s_o)))
            },
        );
        ((s_y, z_y), (s_o, z_o))
    }
}

/// An output scale for input scale `s_in` that makes `s_in / s_out` a simple ratio in one precision
/// and not the other (70 %), or a random one.
pub(super) fn ratio_near(r: &mut Rng, s_in: f32) -> f32 {
    if r.chance(0.7) {
        let ratio = r.pick(SIMPLE);
        near(f64::from(s_in), ratio, r.int(-2, 2))
    } else {
        (f64::from(s_in) * r.logu(0.3, 3.0)) as f32
    }
}

/// A second scale and an output scale making `s_in × s_w / s_out` exactly a simple ratio (see
/// [`SIMPLE`]) in one way of computing it and not in the other:
/// - the product rounded to f32 is exactly `s_out × r`, the exact product is not (a backend that
///   rounds the product to f32 sees exact ties, one that does not sees values beside them);
/// - the exact product is `s_out × r` (`s_w = 3 × 2^a`, `s_out = s_in × 2^b`), its f32 rounding
///   is not.
///
/// Falls back to a near-simple output scale for the given `s_w` when neither construction works.
///
/// `hint` is the wanted size of the ratio (outputs of tens of LSB for typical accumulators): the
/// ratio is 3, 5 or 7 × 2^-k nearest to it.
pub(super) fn product_pair(r: &mut Rng, s_in: f32, s_w: f32, hint: f64) -> (f32, f32) {
    let numerator = r.pick(&[3.0, 3.0, 5.0, 7.0]);
    let ratio = numerator * 2f64.powi((hint / numerator).log2().round() as i32);
    if r.chance(0.5) {
        // The f32 product is exact: s_out with 20 significant bits so that s_out × ratio (3, 5 or
        // 7 × 2^-k) is an f32, then s_w such that f32(s_in × s_w) hits it.
        let s_out0 = (f64::from(s_in) * f64::from(s_w) / ratio) as f32;
        let s_out = f32::from_bits(s_out0.to_bits() & !0xF);
        let target = s_out * ratio as f32;
        let guess = (f64::from(target) / f64::from(s_in)) as f32;
        for k in -6i32..=6 {
            let w = f32::from_bits((guess.to_bits() as i32 + k) as u32);
            let exact = f64::from(s_in) * f64::from(w);
            if s_in * w == target && exact != f64::from(target) && w.is_normal() {
                return (w, s_out);
            }
        }
    } else {
        // The exact product is s_out × ratio: ratio = 3 × 2^-k in ACC/MUL lists, so with
        // s_w = 3 × 2^a, s_out = s_in × 2^(a + k) holds exactly in f64; f32(s_in × s_w) rounds.
        let odd = (ratio * 2f64.powi(20)).round() as i64;
        let k = odd.trailing_zeros() as i32;
        let numerator = odd >> k; // 3, 5 or 7
        let a = (f64::from(s_w) / numerator as f64).log2().round() as i32;
        let w = (numerator as f64 * 2f64.powi(a)) as f32;
        let s_out = (f64::from(s_in) * 2f64.powi(a + 20 - k)) as f32;
        let exact = f64::from(s_in) * f64::from(w) / f64::from(s_out);
        if exact == ratio && w.is_normal() && s_out.is_normal() {
            return (w, s_out);
        }
    }
    let product = f64::from(s_in * s_w);
    (s_w, near(product, ratio, r.int(-2, 2)))
}

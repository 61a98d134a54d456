//! Issue 35's math and structure operators drawn by the helper that added them: REVERSE_V2 (every
//! type TFLM moves), ADD_N (float32 and int8).

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{OpGen, G};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("ADD_N", B::ADD_N, add_n),
    OpGen::new("COS", B::COS, sin_cos),
    OpGen::new("REVERSE_V2", B::REVERSE_V2, reverse_v2).types(&[
        TensorType::INT32,
        TensorType::INT16,
        TensorType::INT64,
        TensorType::BOOL,
    ]),
    OpGen::new("SIN", B::SIN, sin_cos),
];

fn sin_cos(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // TFLM's SIN and COS are float32 only; fresh inputs up to 4, 1e3 or 1e6 in magnitude (the
    // argument reduction of large floats).
    if dtype != TensorType::FLOAT32 {
        return None;
    }
    let range = g.rng.pick(&[4.0, 1e3, 1e6]);
    let x = g.take(x, dtype, G::every_value_shape, range);
    Some(g.math(op, x))
}

fn add_n(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // TFLM's ADD_N takes float32 and int8.
    if !matches!(dtype, TensorType::FLOAT32 | TensorType::INT8) {
        return None;
    }
    let x = g.take(x, dtype, G::every_value_shape, 2.0);
    Some(g.add_n(x))
}

fn reverse_v2(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r == 0 || r > 6) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 5, 4), 1.0);
    Some(g.reverse_v2(x))
}

impl<'a> G<'a> {
    /// REVERSE_V2 of `x` along a run of contiguous axes, listed in a random order, each axis
    /// negative now and then; the output keeps the input's quantization (TFLM moves bytes).
    pub(super) fn reverse_v2(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let rank = s.len() as i64;
        let first = self.rng.range(0, rank - 1);
        let last = self.rng.range(first, rank - 1);
        let mut axes: Vec<i32> = (first..=last)
            .map(|a| {
                if self.rng.chance(0.3) {
                    (a - rank) as i32
                } else {
                    a as i32
                }
            })
            .collect();
        let order = self.rng.permutation(axes.len());
        axes = order.iter().map(|&i| axes[i]).collect();
        let (a, axes_text) = if self.rng.chance(0.25) {
            self.reverse_axes_at_run_time(rank as i32, axes.len() as i32)
        } else {
            (
                self.const_i32(&[axes.len() as i32], &axes),
                format!("{axes:?}"),
            )
        };
        let quant = matches!(dtype, TensorType::INT8 | TensorType::INT16).then(|| self.q(x));
        let out = self.act(dtype, &s, quant);
        let text = format!(
            "REVERSE_V2 {} axes={axes_text} -> {}",
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(B::REVERSE_V2, Options::None, &[x, a], &[out]);
        out
    }

    /// REVERSE_V2 axes computed at run time (issue 32: TFLM's Prepare checks only their type
    /// and count, its Eval reads their values, tinyaot's `reverse_dyn` likewise): `v + offsets`,
    /// `v` a random INT32 graph input clamped by MAXIMUM and MINIMUM to `[0, rank - count]` or
    /// `[-rank, -count]` and the offsets `0..count` in a random order, so that the `count` axes
    /// TFLM's Eval reads are always in range and contiguous (where they are not, its Eval fails).
    /// Returns the tensor and its text.
    fn reverse_axes_at_run_time(&mut self, rank: i32, count: i32) -> (i32, String) {
        let (low, high) = if self.rng.chance(0.5) {
            (0, rank - count)
        } else {
            (-rank, -count)
        };
        let raw = self.input(TensorType::INT32, &[1], None, 1.0);
        let (low_t, high_t) = (self.const_i32(&[1], &[low]), self.const_i32(&[1], &[high]));
        let floored = self.act(TensorType::INT32, &[1], None);
        self.m.op(B::MAXIMUM, Options::None, &[raw, low_t], &[floored]);
        let v = self.act(TensorType::INT32, &[1], None);
        self.m.op(B::MINIMUM, Options::None, &[floored, high_t], &[v]);
        let offsets: Vec<i32> = self
            .rng
            .permutation(count as usize)
            .into_iter()
            .map(|i| i as i32)
            .collect();
        let offsets_t = self.const_i32(&[count], &offsets);
        let axes = self.act(TensorType::INT32, &[count], None);
        self.m.op(
            B::ADD,
            Options::default_for(B::ADD),
            &[v, offsets_t],
            &[axes],
        );
        let text = format!("i32 clamped to {low}..={high} + {offsets:?} at run time");
        (axes, text)
    }

    /// ADD_N of `x` and 1 to 5 more tensors of its shape, now and then 8 to 11 more (the
    /// variadic kernels), graph inputs, now and then a constant, int8 all in `x`'s quantization
    /// (TFLM requires one), the output's scale up to a few times the inputs'.
    pub(super) fn add_n(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let n = if self.rng.chance(0.15) {
            self.rng.range(9, 12) as usize
        } else {
            self.rng.range(2, 6) as usize
        };
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let mut inputs = vec![x];
        for _ in 1..n {
            let t = if self.rng.chance(0.2) {
                let count = s.iter().product::<i32>().max(0) as usize;
                let spec = match quant {
                    Some((scale, zero_point)) => {
                        let v: Vec<i8> =
                            (0..count).map(|_| self.rng.int(-128, 127) as i8).collect();
                        TensorSpec::int8(&s, scale, zero_point).constant_i8(&v)
                    }
                    None => {
                        let v: Vec<f32> = (0..count).map(|_| self.rng.sym(2.0)).collect();
                        TensorSpec::f32(&s).constant_f32(&v)
                    }
                };
                self.m.tensor(spec)
            } else {
                self.input(dtype, &s, quant, 2.0)
            };
            inputs.push(t);
        }
        let order = self.rng.permutation(n);
        let inputs: Vec<i32> = order.iter().map(|&i| inputs[i]).collect();
        let out_q = quant.map(|(scale, _)| {
            let grow = self.rng.logu(0.3, n as f64 * 1.5);
            ((f64::from(scale) * grow) as f32, self.zero_point())
        });
        let out = self.act(dtype, &s, out_q);
        let names: Vec<String> = inputs.iter().map(|&t| self.qtext(t)).collect();
        let text = format!("ADD_N {} -> {}", names.join(" "), self.qtext(out));
        self.describe(text);
        self.m.op(B::ADD_N, Options::None, &inputs, &[out]);
        out
    }
}

//! Reductions: MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL, ARG_MAX and ARG_MIN.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{arithmetic::ratio_near, op_name, G, OpGen};
use crate::difftest::quant::{ratio_variants, score};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("ARG_MAX", B::ARG_MAX, arg_min_max),
    OpGen::new("ARG_MIN", B::ARG_MIN, arg_min_max),
    OpGen::new("MEAN", B::MEAN, reduce).types(&[TensorType::INT16]),
    OpGen::new("REDUCE_ALL", B::REDUCE_ALL, reduce_all).types(&[TensorType::BOOL]),
    OpGen::new("REDUCE_MAX", B::REDUCE_MAX, reduce),
    OpGen::new("REDUCE_MIN", B::REDUCE_MIN, reduce),
    OpGen::new("SUM", B::SUM, reduce).types(&[TensorType::INT16]),
];

fn arg_min_max(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x) == Some(0) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 4.0);
    Some(g.arg_min_max(op, x))
}

fn reduce(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x) == Some(0) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 5), 1.0);
    Some(g.reduce(op, x))
}

fn reduce_all(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x) == Some(0) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 5), 2.0);
    g.reduce_all(x)
}

impl<'a> G<'a> {
    /// ARG_MAX or ARG_MIN of `x` along a random axis (sometimes given as negative).
    pub(super) fn arg_min_max(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let rank = s.len();
        let a = self.rng.range(0, rank as i64 - 1) as usize;
        let value = if self.rng.chance(0.3) {
            a as i32 - rank as i32
        } else {
            a as i32
        };
        let (axis, axis_text) = if self.rng.chance(0.25) {
            // One in four computes the axis at run time (issue 32: TFLM's kernel has no Prepare,
            // its Eval reads the axis per call, tinyaot's arg_min_max_dyn likewise): a random
            // INT32 graph input clamped by MAXIMUM and MINIMUM to the run of axes around `a` of
            // `a`'s length (negative when `value` is), for each of which TFLM writes as many
            // indices as the output holds.
            let (mut low, mut high) = (a, a);
            while low > 0 && s[low - 1] == s[a] {
                low -= 1;
            }
            while high + 1 < rank && s[high + 1] == s[a] {
                high += 1;
            }
            let shift = if value < 0 { rank as i32 } else { 0 };
            let (low, high) = (low as i32 - shift, high as i32 - shift);
            let raw = self.input(TensorType::INT32, &[1], None, 1.0);
            let (low_t, high_t) = (self.const_i32(&[1], &[low]), self.const_i32(&[1], &[high]));
            let floored = self.act(TensorType::INT32, &[1], None);
            self.m.op(B::MAXIMUM, Options::None, &[raw, low_t], &[floored]);
            let axis = self.act(TensorType::INT32, &[1], None);
            self.m.op(B::MINIMUM, Options::None, &[floored, high_t], &[axis]);
            (axis, format!("i32 clamped to {low}..={high} at run time"))
        } else {
            (self.const_i32(&[1], &[value]), format!("{value}"))
        };
        let mut out_shape = s.clone();
        out_shape.remove(a);
        let out = self.m.tensor(TensorSpec::int32(&out_shape));
        self.describe(format!("{} axis {axis_text} of {s:?}", op_name(op)));
        self.m.op(op, Options::None, &[x, axis], &[out]);
        out
    }

    /// REDUCE_ALL of `x`, made BOOL first by a comparison when it is not (TFLM's REDUCE_ALL takes
    /// BOOL only), over random axes as [`G::reduce`] draws them.
    pub(super) fn reduce_all(&mut self, x: i32) -> Option<i32> {
        let x = if self.dtype(x) == TensorType::BOOL {
            x
        } else {
            let compare = self.rng.pick(&[B::GREATER, B::LESS_EQUAL, B::NOT_EQUAL]);
            self.comparison(compare, x)?
        };
        if self.shape(x).is_empty() {
            return None;
        }
        Some(self.reduce(B::REDUCE_ALL, x))
    }

    /// MEAN, SUM, REDUCE_MAX, REDUCE_MIN or REDUCE_ALL of `x` over random axes in random order: some
    /// negative, sometimes a duplicate (TFLM reduces it once), with or without keep_dims. (No
    /// empty list: a constant of no bytes is no constant, in TFLite's files as in tinyaot.) int8 MEAN and
    /// SUM rescale (SUM towards the sum's range); REDUCE_MAX and REDUCE_MIN keep the input's
    /// quantization, which TFLM requires.
    pub(super) fn reduce(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let rank = s.len();
        let dtype = self.dtype(x);
        let mut axes: Vec<usize> = self
            .rng
            .permutation(rank)
            .into_iter()
            .take(self.rng.range(1, rank as i64) as usize)
            .collect();
        if rank == 4 && self.rng.chance(0.4) {
            axes = vec![1, 2];
        }
        let keep_dims = self.rng.chance(0.5);
        let out_shape: Vec<i32> = s
            .iter()
            .enumerate()
            .filter_map(|(i, &d)| {
                if axes.contains(&i) {
                    keep_dims.then_some(1)
                } else {
                    Some(d)
                }
            })
            .collect();
        let n: i32 = axes.iter().map(|&a| s[a]).product();
        if !axes.is_empty() && self.rng.chance(0.15) {
            let again = axes[self.rng.range(0, axes.len() as i64 - 1) as usize];
            axes.push(again);
        }
        let mut axis_values: Vec<i32> = axes
            .iter()
            .map(|&a| {
                if self.rng.chance(0.2) {
                    a as i32 - rank as i32
                } else {
                    a as i32
                }
            })
            .collect();
        if axis_values.len() > 1 && self.rng.chance(0.3) {
            axis_values.reverse();
        }
        let n_axes = axis_values.len() as i32;
        let (axis, at_run_time) = if self.rng.chance(0.25) {
            // One in four computes the axes at run time (issue 32: TFLM's Prepare reads only
            // the axis tensor's type and size, its Eval the values per call, tinyaot's reduce_dyn
            // likewise): a random INT32 graph input clamped by MAXIMUM and MINIMUM to the drawn
            // values, which reduce to the output's shape (other values could make TFLM write past
            // the output's end).
            let raw = self.input(TensorType::INT32, &[n_axes], None, 1.0);
            let bound = self.const_i32(&[n_axes], &axis_values);
            let floored = self.act(TensorType::INT32, &[n_axes], None);
            self.m.op(B::MAXIMUM, Options::None, &[raw, bound], &[floored]);
            let axis = self.act(TensorType::INT32, &[n_axes], None);
            self.m.op(B::MINIMUM, Options::None, &[floored, bound], &[axis]);
            (axis, " at run time")
        } else {
            (self.const_i32(&[n_axes], &axis_values), "")
        };
        // A sum grows with its count: its output scale is drawn near `s_in × grow`.
        let grow = if op == B::SUM && self.rng.chance(0.7) {
            (n.max(1) as f32).sqrt()
        } else {
            1.0
        };
        let min_max = matches!(op, B::REDUCE_MAX | B::REDUCE_MIN);
        let quant = if dtype == TensorType::INT8 {
            let (s_in, z_in) = self.q(x);
            let zp = self.zero_point();
            let same = min_max || self.rng.chance(0.3);
            let s_out = if same {
                s_in
            } else {
                self.hunt(
                    |r| ratio_near(r, s_in * grow),
                    |o| score(&ratio_variants(s_in, o)),
                )
            };
            Some((s_out, if same { z_in } else { zp }))
        } else if dtype == TensorType::INT16 {
            let (s_out, z) = self.int16_rescaled(x, 0.3);
            Some((s_out * grow, z))
        } else {
            None
        };
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "{} {} axes={axis_values:?}{at_run_time} keep_dims={keep_dims} -> {}",
            op_name(op),
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m
            .op(op, Options::Reducer { keep_dims }, &[x, axis], &[out]);
        out
    }
}

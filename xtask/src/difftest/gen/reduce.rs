//! Reductions: MEAN, ARG_MAX and ARG_MIN.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{arithmetic::ratio_near, op_name, G};
use crate::difftest::quant::{ratio_variants, score};

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
        let axis = self.const_i32(&[1], &[value]);
        let mut out_shape = s.clone();
        out_shape.remove(a);
        let out = self.m.tensor(TensorSpec::int32(&out_shape));
        self.describe(format!("{} axis {value} of {s:?}", op_name(op)));
        self.m.op(op, Options::None, &[x, axis], &[out]);
        out
    }

    pub(super) fn mean(&mut self, x: i32) -> i32 {
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
        let axis_values: Vec<i32> = axes
            .iter()
            .map(|&a| {
                if self.rng.chance(0.2) {
                    a as i32 - rank as i32
                } else {
                    a as i32
                }
            })
            .collect();
        let axis = self.const_i32(&[axis_values.len() as i32], &axis_values);
        let quant = if dtype == TensorType::INT8 {
            let (s_in, _) = self.q(x);
            let zp = self.zero_point();
            let same = self.rng.chance(0.3);
            let s_out = if same {
                s_in
            } else {
                self.hunt(|r| ratio_near(r, s_in), |o| score(&ratio_variants(s_in, o)))
            };
            Some((s_out, if same { self.q(x).1 } else { zp }))
        } else if dtype == TensorType::INT16 {
            Some(self.int16_rescaled(x, 0.3))
        } else {
            None
        };
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "MEAN {} axes={axis_values:?} keep_dims={keep_dims} -> {}",
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m
            .op(B::MEAN, Options::Reducer { keep_dims }, &[x, axis], &[out]);
        out
    }
}

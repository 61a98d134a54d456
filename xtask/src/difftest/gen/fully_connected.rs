//! FULLY_CONNECTED.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{act_name, arithmetic::product_pair, elements, ACTIVATIONS, G, OpGen};
use crate::difftest::quant::{product_variants, score};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[OpGen::new(
    "FULLY_CONNECTED",
    B::FULLY_CONNECTED,
    fully_connected,
)
.types(&[TensorType::INT16])];

fn fully_connected(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r < 2) {
        return None;
    }
    let x = g.take(
        x,
        dtype,
        |g| {
            if g.rng.chance(0.2) {
                g.random_shape(3, 4, 4)
            } else {
                vec![g.rng.int(1, 4), g.rng.int(1, 24)]
            }
        },
        1.0,
    );
    Some(g.fully_connected(x))
}

impl<'a> G<'a> {
    pub(super) fn fully_connected(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let depth = *s.last().unwrap_or(&1);
        let batches = (elements(&s) / i64::from(depth.max(1))) as i32;
        let units = self.rng.int(1, 6);
        let keep_num_dims = self.rng.chance(0.2);
        let out_shape = if keep_num_dims {
            let mut o = s.clone();
            if let Some(last) = o.last_mut() {
                *last = units;
            }
            o
        } else {
            vec![batches, units]
        };
        let activation = self.rng.pick(ACTIVATIONS);
        let has_bias = self.rng.chance(0.75);
        let count = (units * depth) as usize;
        let (w, b, out) = if dtype == TensorType::INT8 {
            let (s_in, _) = self.q(x);
            let typical = f64::from(depth).sqrt() * 4096.0 / 90.0;
            let (s_w, s_out) = self.hunt(
                |r| {
                    let w = r.logu(2e-3, 5e-2) as f32;
                    if r.chance(0.7) {
                        product_pair(r, s_in, w, 1.0 / f64::from(depth).sqrt())
                    } else {
                        let o =
                            (f64::from(s_in) * f64::from(w) * typical * r.logu(0.3, 3.0)) as f32;
                        (w, o)
                    }
                },
                |(w, o)| score(&product_variants(s_in, w, o)),
            );
            let weights = self.weights(count, true);
            let w = self
                .m
                .tensor(TensorSpec::int8(&[units, depth], s_w, 0).constant_i8(&weights));
            self.maybe_int4(w);
            let b = if has_bias {
                let values: Vec<i32> = (0..units).map(|_| self.rng.int(-3000, 3000)).collect();
                self.m.tensor(
                    TensorSpec::int32(&[units])
                        .quant(s_in * s_w, 0)
                        .constant_i32(&values),
                )
            } else {
                -1
            };
            let zp = self.zero_point();
            let out = self.act(TensorType::INT8, &out_shape, Some((s_out, zp)));
            (w, b, out)
        } else if dtype == TensorType::INT16 {
            // 16x8: per-tensor int8 weights, an int64 bias, an int16 output (zero point 0).
            let (s_in, _) = self.q(x);
            let s_w = self.rng.logu(2e-3, 5e-2) as f32;
            let s_out = (f64::from(s_in)
                * f64::from(s_w)
                * f64::from(depth).sqrt()
                * 42.0
                * self.rng.logu(0.3, 3.0)) as f32;
            let weights = self.weights(count, true);
            let w = self
                .m
                .tensor(TensorSpec::int8(&[units, depth], s_w, 0).constant_i8(&weights));
            let b = if has_bias {
                let values: Vec<i64> = (0..units)
                    .map(|_| i64::from(self.rng.int(-300_000, 300_000)))
                    .collect();
                self.m.tensor(
                    TensorSpec::new(TensorType::INT64, &[units])
                        .quant(s_in * s_w, 0)
                        .constant_i64(&values),
                )
            } else {
                -1
            };
            let out = self.act(TensorType::INT16, &out_shape, Some((s_out, 0)));
            (w, b, out)
        } else {
            let (w, b) = self.f32_filter_and_bias(&[units, depth], units, has_bias);
            let out = self.act(TensorType::FLOAT32, &out_shape, None);
            (w, b, out)
        };
        let text = format!(
            "FULLY_CONNECTED in {} weights {} bias={has_bias} keep_num_dims={keep_num_dims} act={} -> {}",
            self.qtext(x),
            self.qtext(w),
            act_name(activation),
            self.qtext(out)
        );
        self.describe(text);
        let inputs = self.operands(&[x, w, b]);
        self.m.op(
            B::FULLY_CONNECTED,
            Options::FullyConnected {
                activation,
                weights_format: tinyaot_modelkit::WeightsFormat::DEFAULT,
                keep_num_dims,
            },
            &inputs,
            &[out],
        );
        out
    }
}

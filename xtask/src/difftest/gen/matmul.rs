//! BATCH_MATMUL (float32, int8, int16; adjoint flags, broadcast batch dimensions, a constant
//! operand now and then), L2_NORMALIZATION (float32, int8) and int8 LOG_SOFTMAX.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{elements, G, OpGen};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("BATCH_MATMUL", B::BATCH_MATMUL, batch_matmul).types(&[TensorType::INT16]),
    OpGen::new("L2_NORMALIZATION", B::L2_NORMALIZATION, l2_normalization),
    OpGen::new("LOG_SOFTMAX", B::LOG_SOFTMAX, log_softmax),
];

fn log_softmax(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // TFLM's LOG_SOFTMAX takes float32 and int8.
    if g.rank(x) == Some(0) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 8.0);
    Some(if dtype == TensorType::INT8 {
        g.log_softmax_s8(x)
    } else {
        g.math(op, x)
    })
}

fn l2_normalization(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // TFLM's L2_NORMALIZATION: float32 and int8, rank 1 to 4.
    if g.rank(x).is_some_and(|r| r == 0 || r > 4) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 2.0);
    Some(g.l2_norm(x))
}

fn batch_matmul(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| !(2..=4).contains(&r)) {
        return None;
    }
    let x = g.take(
        x,
        dtype,
        |g| {
            // Now and then 8 to 12 rows and a depth up to 9: int8's packed kernel (8 rows or
            // more), its partial blocks of columns and its depth past a multiple of 4.
            let mut shape = g.random_shape(2, 4, 5);
            if g.rng.chance(0.4) {
                let rank = shape.len();
                shape[rank - 2] = g.rng.int(8, 12);
                shape[rank - 1] = g.rng.int(1, 9);
            }
            shape
        },
        1.0,
    );
    Some(g.batch_matmul(x))
}

impl<'a> G<'a> {
    /// BATCH_MATMUL with `x` (rank 2 to 4) as its LHS: the RHS shares or broadcasts its batch
    /// dimensions (sometimes with fewer or more of them), either operand may be given transposed,
    /// and the RHS is a constant a third of the time.
    pub(super) fn batch_matmul(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let rank = s.len();
        let adj_x = self.rng.chance(0.4);
        let adj_y = self.rng.chance(0.4);
        let (rows, depth) = if adj_x {
            (s[rank - 1], s[rank - 2])
        } else {
            (s[rank - 2], s[rank - 1])
        };
        let cols = self.rng.int(1, 6);
        // The RHS's batch dimensions: the LHS's, each 1 now and then, or some dropped, or one
        // more in front (output rank at most 5).
        let mut batch: Vec<i32> = s[..rank - 2]
            .iter()
            .map(|&d| if self.rng.chance(0.3) { 1 } else { d })
            .collect();
        if !batch.is_empty() && self.rng.chance(0.2) {
            batch.remove(0);
        } else if rank < 5 && self.rng.chance(0.15) {
            batch.insert(0, self.rng.int(1, 3));
        }
        // A batch dimension the LHS has as 1 may be anything on the RHS.
        let lhs_batch = &s[..rank - 2];
        let offset = batch.len() as i32 - lhs_batch.len() as i32;
        for (i, d) in batch.iter_mut().enumerate() {
            let j = i as i32 - offset;
            if j >= 0 && lhs_batch[j as usize] == 1 && self.rng.chance(0.5) {
                *d = self.rng.int(1, 3);
            }
        }
        let mut rhs_shape = batch.clone();
        if adj_y {
            rhs_shape.extend([cols, depth]);
        } else {
            rhs_shape.extend([depth, cols]);
        }
        // The output's batch dimensions: the two broadcast, right-aligned.
        let out_batch_rank = batch.len().max(lhs_batch.len());
        let dim = |v: &[i32], i: usize| -> i32 {
            let pad = out_batch_rank - v.len();
            if i < pad {
                1
            } else {
                v[i - pad]
            }
        };
        let mut out_shape: Vec<i32> = (0..out_batch_rank)
            .map(|i| dim(lhs_batch, i).max(dim(&batch, i)))
            .collect();
        out_shape.extend([rows, cols]);
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let int16 = dtype == TensorType::INT16;
        let (rhs_q, out_q) = if quantized {
            let (s_x, _) = self.q(x);
            let s_r = self.scale();
            let z_r = if int16 { 0 } else { self.zero_point() };
            let z_o = if int16 { 0 } else { self.zero_point() };
            // A sum of `depth` products of values around 64 steps each, give or take.
            let typical = (f64::from(depth).sqrt() * 64.0 * f64::from(s_x) * f64::from(s_r)) as f32;
            let s_o = (f64::from(typical) * self.rng.logu(0.1, 4.0)) as f32;
            (Some((s_r, z_r)), Some((s_o, z_o)))
        } else {
            (None, None)
        };
        let constant = self.rng.chance(0.3);
        let y = if constant {
            let n = elements(&rhs_shape) as usize;
            let spec = match dtype {
                TensorType::INT8 => {
                    let (s_r, z_r) = rhs_q.expect("quantized");
                    let v: Vec<i8> = (0..n).map(|_| self.rng.int(-128, 127) as i8).collect();
                    TensorSpec::int8(&rhs_shape, s_r, z_r).constant_i8(&v)
                }
                TensorType::INT16 => {
                    let (s_r, _) = rhs_q.expect("quantized");
                    let v: Vec<u8> = (0..n)
                        .flat_map(|_| (self.rng.int(-32768, 32767) as i16).to_le_bytes())
                        .collect();
                    TensorSpec::new(dtype, &rhs_shape).quant(s_r, 0).constant(v)
                }
                _ => {
                    let v: Vec<f32> = (0..n).map(|_| self.rng.unit() as f32 * 2.0 - 1.0).collect();
                    TensorSpec::new(dtype, &rhs_shape).constant_f32(&v)
                }
            };
            self.m.tensor(spec)
        } else {
            self.input(dtype, &rhs_shape, rhs_q, 1.0)
        };
        let out = self.act(dtype, &out_shape, out_q);
        let text = format!(
            "BATCH_MATMUL {} x {}{} adj_x={adj_x} adj_y={adj_y} -> {}",
            self.qtext(x),
            if constant { "const " } else { "" },
            self.qtext(y),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            B::BATCH_MATMUL,
            Options::BatchMatMul { adj_x, adj_y },
            &[x, y],
            &[out],
        );
        out
    }

    /// L2_NORMALIZATION over the last dimension: int8 output in TFLM's fixed 1/128 scale (zero
    /// point 0), now and then another quantization (which TFLM ignores).
    pub(super) fn l2_norm(&mut self, x: i32) -> i32 {
        let dtype = self.dtype(x);
        let shape = self.shape(x);
        let out_q = (dtype == TensorType::INT8).then(|| {
            if self.rng.chance(0.85) {
                (1.0 / 128.0, 0)
            } else {
                (self.scale(), self.zero_point())
            }
        });
        let out = self.act(dtype, &shape, out_q);
        let text = format!("L2_NORMALIZATION {} -> {}", self.qtext(x), self.qtext(out));
        self.describe(text);
        self.m.op(B::L2_NORMALIZATION, Options::None, &[x], &[out]);
        out
    }

    /// int8 LOG_SOFTMAX: TFLM requires the output scale 16/256 and zero point 127.
    pub(super) fn log_softmax_s8(&mut self, x: i32) -> i32 {
        let shape = self.shape(x);
        let out = self.act(TensorType::INT8, &shape, Some((16.0 / 256.0, 127)));
        let text = format!("LOG_SOFTMAX {} -> {}", self.qtext(x), self.qtext(out));
        self.describe(text);
        self.m.op(B::LOG_SOFTMAX, Options::None, &[x], &[out]);
        out
    }
}

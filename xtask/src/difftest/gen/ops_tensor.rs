//! Tensor structure: CAST, ZEROS_LIKE, FILL, BROADCAST_TO, SELECT_V2 and GATHER_ND.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{OpGen, G};

/// This family's operators (see [`OpGen`]), each drawn by [`G::tensor_op`].
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("BROADCAST_TO", B::BROADCAST_TO, tensor_op).types(&[
        TensorType::INT32,
        TensorType::INT16,
        TensorType::INT64,
        TensorType::BOOL,
    ]),
    OpGen::new("CAST", B::CAST, tensor_op).types(&[
        TensorType::INT32,
        TensorType::INT16,
        TensorType::BOOL,
    ]),
    OpGen::new("FILL", B::FILL, tensor_op).types(&[TensorType::INT32]),
    OpGen::new("GATHER_ND", B::GATHER_ND, tensor_op),
    OpGen::new("SELECT_V2", B::SELECT_V2, tensor_op).types(&[TensorType::INT16]),
    OpGen::new("ZEROS_LIKE", B::ZEROS_LIKE, tensor_op)
        .types(&[TensorType::INT32, TensorType::INT64]),
];

fn tensor_op(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    g.tensor_op(op, x, dtype)
}

/// The types TFLM's CAST converts between that tinyaot compiles (UINT32 aside).
pub(super) const CAST_TYPES: [TensorType; 5] = [
    TensorType::FLOAT32,
    TensorType::INT8,
    TensorType::INT16,
    TensorType::INT32,
    TensorType::BOOL,
];

impl<'a> G<'a> {
    /// Adds `op`, one of this module's operators, reading `x` (or a fresh input) of `dtype`, as
    /// [`G::apply`] does.
    pub(super) fn tensor_op(&mut self, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
        match op {
            B::CAST => {
                // Floats over the int8 range and past it: truncation and saturation both show.
                let x = self.take(x, dtype, |g| g.random_shape(0, 4, 5), 300.0);
                self.cast(x)
            }
            B::ZEROS_LIKE => {
                let x = self.take(x, dtype, |g| g.random_shape(0, 4, 5), 1.0);
                self.zeros_like(x)
            }
            B::FILL => {
                // A scalar graph input fills the output: the first operator only.
                if x.is_some() {
                    return None;
                }
                self.fill(dtype)
            }
            B::BROADCAST_TO => {
                let x = self.take(x, dtype, |g| g.random_shape(0, 4, 3), 1.0);
                self.broadcast_to(x)
            }
            B::SELECT_V2 => {
                let x = self.take(x, dtype, |g| g.random_shape(0, 4, 4), 1.0);
                self.select_v2(x)
            }
            B::GATHER_ND => {
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 4), 1.0);
                self.gather_nd(x)
            }
            _ => None,
        }
    }

    /// CAST of `x` to another of [`CAST_TYPES`]. An int8 or int16 output gets a quantization
    /// (CAST ignores it; the operators after it read it).
    pub(super) fn cast(&mut self, x: i32) -> Option<i32> {
        let from = self.dtype(x);
        if !CAST_TYPES.contains(&from) {
            return None;
        }
        let others: Vec<TensorType> = CAST_TYPES.into_iter().filter(|&t| t != from).collect();
        let to = self.rng.pick(&others);
        let shape = self.shape(x);
        let out = self.act(to, &shape, None);
        let text = format!("CAST {} -> {}", self.qtext(x), self.qtext(out));
        self.describe(text);
        self.m.op(B::CAST, Options::None, &[x], &[out]);
        Some(out)
    }

    /// ZEROS_LIKE of `x` (float32, int8, int32 or int64): folded into zeros by tinyaot. The
    /// output keeps the input's quantization.
    pub(super) fn zeros_like(&mut self, x: i32) -> Option<i32> {
        let dtype = self.dtype(x);
        if !matches!(
            dtype,
            TensorType::FLOAT32 | TensorType::INT8 | TensorType::INT32 | TensorType::INT64
        ) {
            return None;
        }
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &self.shape(x), quant);
        let text = format!("ZEROS_LIKE {}", self.qtext(x));
        self.describe(text);
        self.m.op(B::ZEROS_LIKE, Options::None, &[x], &[out]);
        Some(out)
    }

    /// FILL of a random shape (constant dims: INT32, now and then INT64, INT16 or INT8) with a
    /// scalar graph input of `dtype` (float32, int32 or int8): the first operator of a case only.
    pub(super) fn fill(&mut self, dtype: TensorType) -> Option<i32> {
        if !matches!(
            dtype,
            TensorType::FLOAT32 | TensorType::INT8 | TensorType::INT32
        ) {
            return None;
        }
        let value = self.input(dtype, &[], None, 4.0);
        let shape = self.random_shape(0, 4, 5);
        let rank = shape.len() as i32;
        let dims_type = self.rng.pick(&[
            TensorType::INT32,
            TensorType::INT32,
            TensorType::INT64,
            TensorType::INT16,
            TensorType::INT8,
        ]);
        let bytes: Vec<u8> = shape
            .iter()
            .flat_map(|&d| match dims_type {
                TensorType::INT64 => i64::from(d).to_le_bytes().to_vec(),
                TensorType::INT16 => (d as i16).to_le_bytes().to_vec(),
                TensorType::INT8 => vec![d as u8],
                _ => d.to_le_bytes().to_vec(),
            })
            .collect();
        let dims = self
            .m
            .tensor(TensorSpec::new(dims_type, &[rank]).constant(bytes));
        let quant = (dtype == TensorType::INT8).then(|| self.q(value));
        let out = self.act(dtype, &shape, quant);
        let text = format!(
            "FILL {shape:?} ({}) with {}",
            super::type_name(dims_type),
            self.qtext(value)
        );
        self.describe(text);
        self.m.op(B::FILL, Options::None, &[dims, value], &[out]);
        Some(out)
    }

    /// BROADCAST_TO of `x`: its extents of 1 stretched now and then, up to two new leading
    /// dimensions (rank at most 5), the shape a constant INT32 or (one case in four) INT64.
    pub(super) fn broadcast_to(&mut self, x: i32) -> Option<i32> {
        let s = self.shape(x);
        if s.len() > 5 {
            return None;
        }
        let dtype = self.dtype(x);
        let extra = self.rng.range(0, (5 - s.len()).min(2) as i64) as usize;
        let mut shape: Vec<i32> = (0..extra).map(|_| self.rng.int(1, 3)).collect();
        for &d in &s {
            shape.push(if d == 1 && self.rng.chance(0.6) {
                self.rng.int(1, 4)
            } else {
                d
            });
        }
        let rank = shape.len() as i32;
        let wide = self.rng.chance(0.25);
        let shape_t = if wide {
            let v: Vec<i64> = shape.iter().map(|&d| i64::from(d)).collect();
            self.m
                .tensor(TensorSpec::new(TensorType::INT64, &[rank]).constant_i64(&v))
        } else {
            self.const_i32(&[rank], &shape)
        };
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let quant = quantized.then(|| self.q(x));
        let out = self.act(dtype, &shape, quant);
        let text = format!(
            "BROADCAST_TO {} to {shape:?}{} -> {}",
            self.qtext(x),
            if wide { " (i64)" } else { "" },
            self.qtext(out)
        );
        self.describe(text);
        self.m
            .op(B::BROADCAST_TO, Options::None, &[x, shape_t], &[out]);
        Some(out)
    }

    /// A shape that broadcasts to `s`: each dimension kept or 1, now and then fewer leading ones.
    fn broadcastable(&mut self, s: &[i32]) -> Vec<i32> {
        let skip = if self.rng.chance(0.3) {
            self.rng.range(0, s.len() as i64) as usize
        } else {
            0
        };
        s[skip..]
            .iter()
            .map(|&d| if self.rng.chance(0.4) { 1 } else { d })
            .collect()
    }

    /// SELECT_V2 with `x` (float32, int8 or int16) as x: a BOOL condition (a graph input, or a
    /// constant) and a y (a graph input, or a constant) of shapes that broadcast to x's. y and
    /// the output keep x's quantization (TFLM copies raw values).
    pub(super) fn select_v2(&mut self, x: i32) -> Option<i32> {
        let dtype = self.dtype(x);
        if !matches!(
            dtype,
            TensorType::FLOAT32 | TensorType::INT8 | TensorType::INT16
        ) {
            return None;
        }
        let s = self.shape(x);
        if s.len() > 5 {
            return None;
        }
        let quant = matches!(dtype, TensorType::INT8 | TensorType::INT16).then(|| self.q(x));
        let c_shape = self.broadcastable(&s);
        let c = if self.rng.chance(0.7) {
            self.input(TensorType::BOOL, &c_shape, None, 1.0)
        } else {
            let n = c_shape.iter().product::<i32>().max(0) as usize;
            let flags: Vec<u8> = (0..n).map(|_| (self.rng.next_u64() & 1) as u8).collect();
            self.m
                .tensor(TensorSpec::new(TensorType::BOOL, &c_shape).constant(flags))
        };
        let y_shape = self.broadcastable(&s);
        let y = if self.rng.chance(0.7) {
            self.input(dtype, &y_shape, quant, 1.0)
        } else {
            let n = y_shape.iter().product::<i32>().max(0) as usize;
            let size = match dtype {
                TensorType::FLOAT32 => 4,
                TensorType::INT16 => 2,
                _ => 1,
            };
            let bytes: Vec<u8> = if dtype == TensorType::FLOAT32 {
                (0..n)
                    .flat_map(|_| self.rng.sym(1.0).to_le_bytes())
                    .collect()
            } else {
                (0..n * size).map(|_| self.rng.next_u64() as u8).collect()
            };
            let mut t = TensorSpec::new(dtype, &y_shape).constant(bytes);
            if let Some((scale, zero)) = quant {
                t = t.quant(scale, zero);
            }
            self.m.tensor(t)
        };
        let out = self.act(dtype, &s, quant);
        let text = format!(
            "SELECT_V2 bool{c_shape:?} ? {} : {}{} -> {}",
            self.qtext(x),
            self.qtext(y),
            if self.m.inputs.contains(&y) {
                ""
            } else {
                " (constant)"
            },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(B::SELECT_V2, Options::None, &[c, x, y], &[out]);
        Some(out)
    }

    /// GATHER_ND of `x` (float32 or int8): index vectors of 1 to rank entries, in a shape of one
    /// or two dimensions; constant, or (one case in three) a graph input drawn inside the
    /// smallest indexed dimension. The output keeps the input's quantization.
    pub(super) fn gather_nd(&mut self, x: i32) -> Option<i32> {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        if !matches!(dtype, TensorType::INT8 | TensorType::FLOAT32) || s.is_empty() {
            return None;
        }
        let depth = self.rng.range(1, s.len().min(5) as i64) as usize;
        let lead: Vec<i32> = (0..self.rng.range(1, 2))
            .map(|_| self.rng.int(1, 3))
            .collect();
        if lead.len() + s.len() - depth > 5 || s[..depth].contains(&0) {
            return None;
        }
        let mut idx_shape = lead.clone();
        idx_shape.push(depth as i32);
        let n = lead.iter().product::<i32>() as usize;
        let indices = if self.rng.chance(0.33) {
            let bound = *s[..depth].iter().min().unwrap_or(&1);
            let t = self.m.tensor(TensorSpec::int32(&idx_shape));
            self.m.inputs.push(t);
            self.ranges.push(1.0);
            self.positions.push((self.m.inputs.len() - 1, bound));
            t
        } else {
            let values: Vec<i32> = (0..n * depth)
                .map(|k| self.rng.int(0, s[k % depth] - 1))
                .collect();
            self.const_i32(&idx_shape, &values)
        };
        let out_shape: Vec<i32> = lead.iter().chain(&s[depth..]).copied().collect();
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "GATHER_ND {} indices {idx_shape:?}{} -> {}",
            self.qtext(x),
            if self.m.inputs.contains(&indices) {
                " (run time)"
            } else {
                ""
            },
            self.qtext(out)
        );
        self.describe(text);
        self.m
            .op(B::GATHER_ND, Options::None, &[x, indices], &[out]);
        Some(out)
    }
}

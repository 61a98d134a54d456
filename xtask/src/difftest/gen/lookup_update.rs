//! EMBEDDING_LOOKUP, DYNAMIC_UPDATE_SLICE and BROADCAST_ARGS (issue 35).

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{OpGen, G};

/// This family's operators (see [`OpGen`]), each drawn by [`G::lookup_update`].
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("BROADCAST_ARGS", B::BROADCAST_ARGS, lookup_update).types(&[TensorType::INT32]),
    OpGen::new("DYNAMIC_UPDATE_SLICE", B::DYNAMIC_UPDATE_SLICE, lookup_update)
        .types(&[TensorType::INT16, TensorType::INT32]),
    OpGen::new("EMBEDDING_LOOKUP", B::EMBEDDING_LOOKUP, lookup_update),
];

fn lookup_update(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    g.lookup_update(op, x, dtype)
}

impl<'a> G<'a> {
    /// Adds `op`, one of this module's operators, reading `x` (or a fresh input) of `dtype`, as
    /// [`G::apply`] does (`None` for any other operator).
    pub(super) fn lookup_update(
        &mut self,
        op: B,
        x: Option<i32>,
        dtype: TensorType,
    ) -> Option<i32> {
        match op {
            B::EMBEDDING_LOOKUP => self.embedding_lookup(x, dtype),
            B::DYNAMIC_UPDATE_SLICE => {
                let x = self.take(x, dtype, |g| g.random_shape(0, 4, 5), 1.0);
                self.dynamic_update_slice(x)
            }
            // Shapes computed at run time: the first operator only (the chain's value is no
            // shape).
            B::BROADCAST_ARGS if x.is_none() && dtype == TensorType::INT32 => self.broadcast_args(),
            _ => None,
        }
    }

    /// EMBEDDING_LOOKUP of rows of `x` (float32 or int8, rank 2 or more), or of a constant int8
    /// table of zero point 0, by ids constant or drawn at run time inside the rows; int8 rows of
    /// zero point 0 into a float32 output now and then (TFLM's hybrid path).
    fn embedding_lookup(&mut self, x: Option<i32>, dtype: TensorType) -> Option<i32> {
        if !matches!(dtype, TensorType::FLOAT32 | TensorType::INT8) {
            return None;
        }
        let values = match x {
            Some(t) if self.shape(t).len() >= 2 && self.shape(t).len() <= 4 => t,
            Some(_) => return None,
            None if dtype == TensorType::INT8 && self.rng.chance(0.4) => {
                let shape = self.random_shape(2, 3, 5);
                let n = shape.iter().product::<i32>() as usize;
                let bytes: Vec<u8> = (0..n).map(|_| self.rng.next_u64() as u8).collect();
                let scale = self.scale();
                self.m
                    .tensor(TensorSpec::int8(&shape, scale, 0).constant(bytes))
            }
            None => {
                let shape = self.random_shape(2, 4, 5);
                self.input(dtype, &shape, None, 1.0)
            }
        };
        let shape = self.shape(values);
        let rows = shape[0];
        let n = self.rng.int(1, 5);
        let ids = if self.rng.chance(0.4) {
            let t = self.m.tensor(TensorSpec::int32(&[n]));
            self.m.inputs.push(t);
            self.ranges.push(1.0);
            self.positions.push((self.m.inputs.len() - 1, rows));
            t
        } else {
            let v: Vec<i32> = (0..n).map(|_| self.rng.int(0, rows - 1)).collect();
            self.const_i32(&[n], &v)
        };
        let mut out_shape = vec![n];
        out_shape.extend_from_slice(&shape[1..]);
        let hybrid = dtype == TensorType::INT8 && self.q(values).1 == 0 && self.rng.chance(0.6);
        let out = if hybrid {
            self.act(TensorType::FLOAT32, &out_shape, None)
        } else {
            let quant = (dtype == TensorType::INT8).then(|| self.q(values));
            self.act(dtype, &out_shape, quant)
        };
        let text = format!(
            "EMBEDDING_LOOKUP {} ids [{n}]{} -> {}",
            self.qtext(values),
            if self.m.inputs.contains(&ids) {
                " (run time)"
            } else {
                ""
            },
            self.qtext(out)
        );
        self.describe(text);
        self.m
            .op(B::EMBEDDING_LOOKUP, Options::None, &[ids, values], &[out]);
        Some(out)
    }

    /// DYNAMIC_UPDATE_SLICE of `x` (float32, int8, int16, int32) by a fresh update no larger
    /// along any dimension, at start indices constant (INT32 or INT64, a few of them outside the
    /// operand: clamped) or a graph input of random INT32 values (clamped at both ends).
    fn dynamic_update_slice(&mut self, x: i32) -> Option<i32> {
        let dtype = self.dtype(x);
        if !matches!(
            dtype,
            TensorType::FLOAT32 | TensorType::INT8 | TensorType::INT16 | TensorType::INT32
        ) {
            return None;
        }
        let shape = self.shape(x);
        let rank = shape.len() as i32;
        let update_shape: Vec<i32> = shape
            .iter()
            .map(|&d| {
                if self.rng.chance(0.3) {
                    d
                } else {
                    self.rng.int(1, d)
                }
            })
            .collect();
        let quant = matches!(dtype, TensorType::INT8 | TensorType::INT16).then(|| self.q(x));
        let update = self.input(dtype, &update_shape, quant, 1.0);
        let start_text;
        let start = if self.rng.chance(0.3) {
            start_text = "run time".to_string();
            let t = self.m.tensor(TensorSpec::int32(&[rank]));
            self.m.inputs.push(t);
            self.ranges.push(1.0);
            t
        } else {
            let values: Vec<i64> = shape
                .iter()
                .map(|&d| i64::from(self.rng.int(-2, d + 1)))
                .collect();
            start_text = format!("{values:?}");
            if self.rng.chance(0.5) {
                let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                self.m
                    .tensor(TensorSpec::new(TensorType::INT64, &[rank]).constant(bytes))
            } else {
                let v: Vec<i32> = values.iter().map(|&v| v as i32).collect();
                self.const_i32(&[rank], &v)
            }
        };
        let out = self.act(dtype, &shape, quant);
        let text = format!(
            "DYNAMIC_UPDATE_SLICE {} update {} start {start_text} ({}) -> {}",
            self.qtext(x),
            self.qtext(update),
            type_of(self.dtype(start)),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            B::DYNAMIC_UPDATE_SLICE,
            Options::None,
            &[x, update, start],
            &[out],
        );
        Some(out)
    }

    /// BROADCAST_ARGS of two INT32 graph inputs of dimensions drawn in {0, 1} (which always
    /// broadcast: TFLM aborts on two that do not), into an output as long as the longer, now and
    /// then longer still.
    fn broadcast_args(&mut self) -> Option<i32> {
        let (len1, len2) = (self.rng.int(0, 4), self.rng.int(0, 4));
        let mut shapes = [0; 2];
        for (s, len) in shapes.iter_mut().zip([len1, len2]) {
            let t = self.m.tensor(TensorSpec::int32(&[len]));
            self.m.inputs.push(t);
            self.ranges.push(1.0);
            self.positions.push((self.m.inputs.len() - 1, 2));
            *s = t;
        }
        let out_len = len1.max(len2) + i32::from(self.rng.chance(0.2));
        let out = self.m.tensor(TensorSpec::int32(&[out_len]));
        self.describe(format!(
            "BROADCAST_ARGS i32[{len1}] i32[{len2}] -> i32[{out_len}]"
        ));
        self.m.op(
            B::BROADCAST_ARGS,
            Options::None,
            &[shapes[0], shapes[1]],
            &[out],
        );
        Some(out)
    }
}

/// The short name of an index type.
fn type_of(t: TensorType) -> &'static str {
    if t == TensorType::INT64 {
        "i64"
    } else {
        "i32"
    }
}

//! Indexing: SHAPE, SLICE, UNPACK and GATHER.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{OpGen, G};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("GATHER", B::GATHER, gather),
    OpGen::new("SHAPE", B::SHAPE, shape).types(&[
        TensorType::INT32,
        TensorType::INT16,
        TensorType::INT64,
        TensorType::BOOL,
    ]),
    OpGen::new("SLICE", B::SLICE, slice).types(&[
        TensorType::INT32,
        TensorType::INT16,
        TensorType::BOOL,
    ]),
    OpGen::new("UNPACK", B::UNPACK, unpack).types(&[TensorType::INT32, TensorType::INT16]),
];

fn gather(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x) == Some(0) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 5), 1.0);
    g.gather(x)
}

fn shape(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let x = g.take(x, dtype, |g| g.random_shape(1, 5, 4), 1.0);
    Some(g.shape_of(x))
}

fn slice(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r == 0 || r > 5) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 5, 6), 1.0);
    Some(g.slice(x))
}

fn unpack(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x) == Some(0) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 5), 1.0);
    g.unpack(x)
}

impl<'a> G<'a> {
    /// SHAPE of `x` (of any type): the INT32 vector of its dimensions, folded at generation time.
    pub(super) fn shape_of(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let out = self.m.tensor(TensorSpec::int32(&[s.len() as i32]));
        let text = format!("SHAPE {} -> i32[{}]", self.qtext(x), s.len());
        self.describe(text);
        self.m.op(
            B::SHAPE,
            Options::Shape {
                out_type: TensorType::INT32,
            },
            &[x],
            &[out],
        );
        out
    }

    /// SLICE of `x`: a random begin per dimension and a size that is a count or -1 (to the end),
    /// begin and size INT32 or (one case in four) INT64. The output keeps the input's
    /// quantization (TFLM copies the values).
    pub(super) fn slice(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let (mut begin, mut size, mut out_shape) = (Vec::new(), Vec::new(), Vec::new());
        for &n in &s {
            let b = self.rng.int(0, n - 1);
            let count = self.rng.int(1, n - b);
            let written = if count == n - b && self.rng.chance(0.4) {
                -1
            } else {
                count
            };
            begin.push(b);
            size.push(written);
            out_shape.push(count);
        }
        let rank = s.len() as i32;
        let wide = self.rng.chance(0.25);
        let constant = |g: &mut Self, values: &[i32]| {
            if wide {
                let wide: Vec<i64> = values.iter().map(|&v| i64::from(v)).collect();
                g.m.tensor(TensorSpec::new(TensorType::INT64, &[rank]).constant_i64(&wide))
            } else {
                g.const_i32(&[rank], values)
            }
        };
        // One in four computes begin, size or both at run time (issue 32: TFLM's SlicePrepare
        // reads neither, its Eval both per call, tinyaot's slice_dyn likewise): random graph
        // inputs clamped by MAXIMUM and MINIMUM to where the slice is the output's shape and
        // inside the input whatever they are: a begin anywhere in [0, n - count] where the size
        // is a count, the drawn one where it is -1 (to the end), the drawn size.
        let (tb, ts, at_run_time) = if self.rng.chance(0.25) {
            let which = self.rng.int(0, 2);
            let tb = if which != 1 {
                let low: Vec<i32> = begin
                    .iter()
                    .zip(&size)
                    .map(|(&b, &z)| if z == -1 { b } else { 0 })
                    .collect();
                let high: Vec<i32> = begin
                    .iter()
                    .zip(&size)
                    .zip(&s)
                    .map(|((&b, &z), &n)| if z == -1 { b } else { n - z })
                    .collect();
                self.clamped_control(wide, &[rank], &low, &high)
            } else {
                constant(self, &begin)
            };
            let ts = if which != 0 {
                self.clamped_control(wide, &[rank], &size, &size)
            } else {
                constant(self, &size)
            };
            let what = ["begin", "size", "begin and size"][which as usize];
            (tb, ts, format!(" ({what} at run time)"))
        } else {
            (constant(self, &begin), constant(self, &size), String::new())
        };
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let quant = quantized.then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "SLICE {} begin={begin:?} size={size:?}{}{at_run_time} -> {}",
            self.qtext(x),
            if wide { " (i64)" } else { "" },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(B::SLICE, Options::Slice, &[x, tb, ts], &[out]);
        out
    }

    /// A control tensor (begin, size, block shape, crops, …) of `shape` computed at run time
    /// (issue 32): a graph input of random INT32 (or, `wide`, INT64) values clamped by MAXIMUM and
    /// MINIMUM to the constant bounds `low` and `high`, one per element.
    pub(super) fn clamped_control(
        &mut self,
        wide: bool,
        shape: &[i32],
        low: &[i32],
        high: &[i32],
    ) -> i32 {
        let dtype = if wide {
            TensorType::INT64
        } else {
            TensorType::INT32
        };
        let bound = |g: &mut G<'_>, values: &[i32]| {
            let t = TensorSpec::new(dtype, shape);
            g.m.tensor(if wide {
                t.constant_i64(&values.iter().map(|&v| i64::from(v)).collect::<Vec<_>>())
            } else {
                t.constant_i32(values)
            })
        };
        self.run_time_controls = true;
        let raw = self.input(dtype, shape, None, 1.0);
        let (low_t, high_t) = (bound(self, low), bound(self, high));
        let floored = self.act(dtype, shape, None);
        self.m.op(B::MAXIMUM, Options::None, &[raw, low_t], &[floored]);
        let clamped = self.act(dtype, shape, None);
        self.m.op(B::MINIMUM, Options::None, &[floored, high_t], &[clamped]);
        clamped
    }

    /// UNPACK of `x` along a random axis (written negative at times) of at most 10 entries; the
    /// case goes on with one of the outputs, the others are computed and left unread.
    pub(super) fn unpack(&mut self, x: i32) -> Option<i32> {
        let s = self.shape(x);
        let rank = s.len() as i32;
        let dtype = self.dtype(x);
        let axes: Vec<i32> = (0..rank).filter(|&a| s[a as usize] <= 10).collect();
        if axes.is_empty() {
            return None;
        }
        let a = self.rng.pick(&axes);
        let axis = if self.rng.chance(0.3) { a - rank } else { a };
        let num = s[a as usize];
        let mut row = s.clone();
        row.remove(a as usize);
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let quant = quantized.then(|| self.q(x));
        let outputs: Vec<i32> = (0..num).map(|_| self.act(dtype, &row, quant)).collect();
        let text = format!("UNPACK {} axis={axis} num={num}", self.qtext(x));
        self.describe(text);
        self.m
            .op(B::UNPACK, Options::Unpack { num, axis }, &[x], &outputs);
        let pick = self.rng.int(0, num - 1) as usize;
        Some(outputs[pick])
    }

    /// GATHER of `x` (float32 or int8) along a random axis (written negative at times), with
    /// batch_dims now and then: positions constant, or (one case in three) a graph input drawn
    /// inside the axis. The output keeps the input's quantization (TFLM copies the values).
    pub(super) fn gather(&mut self, x: i32) -> Option<i32> {
        let s = self.shape(x);
        let rank = s.len();
        let dtype = self.dtype(x);
        if !matches!(dtype, TensorType::INT8 | TensorType::FLOAT32) {
            return None;
        }
        let a = self.rng.range(0, rank as i64 - 1) as usize;
        let batch_dims = if a > 0 && self.rng.chance(0.3) {
            self.rng.range(1, a as i64) as usize
        } else {
            0
        };
        let mut coords_shape: Vec<i32> = s[..batch_dims].to_vec();
        let extra = self.rng.range(0, 2) as usize;
        for _ in 0..extra {
            coords_shape.push(self.rng.int(1, 4));
        }
        // The output's rank, rank + positions' rank - 1 - batch_dims, stays within the 5 the
        // other generators keep to (TFLM's shapes hold at most 6).
        if rank + coords_shape.len() - 1 - batch_dims > 5 {
            return None;
        }
        let n = coords_shape.iter().map(|&d| d as usize).product::<usize>();
        let axis_size = s[a];
        let positions = if self.rng.chance(0.33) {
            let t = self.m.tensor(TensorSpec::int32(&coords_shape));
            self.m.inputs.push(t);
            self.ranges.push(1.0);
            self.positions.push((self.m.inputs.len() - 1, axis_size));
            t
        } else {
            let values: Vec<i32> = (0..n).map(|_| self.rng.int(0, axis_size - 1)).collect();
            self.const_i32(&coords_shape, &values)
        };
        let out_shape: Vec<i32> = s[..a]
            .iter()
            .chain(&coords_shape[batch_dims..])
            .chain(&s[a + 1..])
            .copied()
            .collect();
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let axis = if self.rng.chance(0.3) {
            a as i32 - rank as i32
        } else {
            a as i32
        };
        // Negative batch_dims count from the positions' rank: written so only while that form is
        // negative (batch_dims = rank of the positions written negative is 0, which TFLM reads
        // as no batch dimensions and gives a larger output than the one declared here).
        let negative = batch_dims > 0 && self.rng.chance(0.3);
        let written_batch = if negative && batch_dims < coords_shape.len() {
            batch_dims as i32 - coords_shape.len() as i32
        } else {
            batch_dims as i32
        };
        let text =
            format!(
            "GATHER {} positions {coords_shape:?}{} axis={axis} batch_dims={written_batch} -> {}",
            self.qtext(x),
            if self.m.inputs.contains(&positions) { " (run time)" } else { "" },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            B::GATHER,
            Options::Gather {
                axis,
                batch_dims: written_batch,
            },
            &[x, positions],
            &[out],
        );
        Some(out)
    }
}

//! Indexing: SHAPE, SLICE and UNPACK.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::G;

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
        let (tb, ts) = (constant(self, &begin), constant(self, &size));
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let quant = quantized.then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "SLICE {} begin={begin:?} size={size:?}{} -> {}",
            self.qtext(x),
            if wide { " (i64)" } else { "" },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(B::SLICE, Options::Slice, &[x, tb, ts], &[out]);
        out
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
}

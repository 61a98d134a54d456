//! CUMSUM (float32 and int8, TFLM's cumsum.cc), drawn by the helper that added it.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorType};

use super::{OpGen, G};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[OpGen::new("CUMSUM", B::CUMSUM, cumsum)];

fn cumsum(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // TFLM's CUMSUM takes float32 and int8 of rank 1 or more.
    if g.rank(x) == Some(0) || !matches!(dtype, TensorType::FLOAT32 | TensorType::INT8) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 2.0);
    g.cumsum(x)
}

/// The longest int8 line drawn: TFLM's int32 running sum of elements shifted left by 19 holds at
/// least 15 of them whatever the zero point (the lowering refuses longer lines that can overflow).
const MAX_INT8_LINE: i32 = 15;

impl<'a> G<'a> {
    /// CUMSUM of `x` along a random axis (negative now and then), exclusive and reversed at
    /// random; int8 along an axis of at most [`MAX_INT8_LINE`] elements (`None` when `x` has
    /// none), the output's scale up to the line's length times the input's (TFLM's sum starts
    /// from the input offset, so any zero point shifts it).
    pub(super) fn cumsum(&mut self, x: i32) -> Option<i32> {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let rank = s.len();
        let axes: Vec<usize> = (0..rank)
            .filter(|&a| dtype != TensorType::INT8 || s[a] <= MAX_INT8_LINE)
            .collect();
        if axes.is_empty() {
            return None;
        }
        let a = axes[self.rng.range(0, axes.len() as i64 - 1) as usize];
        let value = if self.rng.chance(0.3) {
            a as i32 - rank as i32
        } else {
            a as i32
        };
        let (axis, axis_text) = if self.rng.chance(0.25) {
            // One in four computes the axis at run time (issue 32: TFLM's Prepare reads only the
            // axis tensor's type and size, its Eval the value per call, tinyaot's cumsum_dyn
            // likewise): a random INT32 graph input clamped by MAXIMUM and MINIMUM to the run of
            // drawable axes around `a` (every axis for float32; for int8 those short enough for
            // TFLM's running sum), negative when `value` is.
            let (mut low, mut high) = (a, a);
            while low > 0 && axes.contains(&(low - 1)) {
                low -= 1;
            }
            while axes.contains(&(high + 1)) {
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
        let (exclusive, reverse) = (self.rng.chance(0.5), self.rng.chance(0.5));
        let quant = (dtype == TensorType::INT8).then(|| {
            let (scale, _) = self.q(x);
            let grow = self.rng.logu(0.5, f64::from(s[a].max(1)) * 1.5);
            ((f64::from(scale) * grow) as f32, self.zero_point())
        });
        let out = self.act(dtype, &s, quant);
        let text = format!(
            "CUMSUM {} axis={axis_text} exclusive={exclusive} reverse={reverse} -> {}",
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            B::CUMSUM,
            Options::Cumsum { exclusive, reverse },
            &[x, axis],
            &[out],
        );
        Some(out)
    }
}

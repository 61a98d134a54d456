//! The per-channel requantization that ends CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: bias,
//! TFLM's `MultiplyByQuantizedMultiplier` (double rounding), output zero point, activation clamp.

/// One kernel call's requantization parameters, sliced to its channels once so that the per-output
/// work has no bounds checks to repeat.
pub(crate) struct Requantizer<'a> {
    bias: Option<&'a [i32]>,
    multipliers: &'a [i32],
    shifts: &'a [i8],
    zero_point: i32,
    min: i32,
    max: i32,
}

impl<'a> Requantizer<'a> {
    /// Parameters for `channels` channels. `multipliers` are non-negative Q31 values (as
    /// `QuantizeMultiplier` gives), `shifts` within `-31..=31`. Panics if a slice is too short.
    #[inline(always)]
    pub(crate) fn new(
        channels: usize,
        bias: Option<&'a [i32]>,
        multipliers: &'a [i32],
        shifts: &'a [i8],
        zero_point: i32,
        (min, max): (i32, i32),
    ) -> Self {
        Requantizer {
            bias: bias.map(|b| &b[..channels]),
            multipliers: &multipliers[..channels],
            shifts: &shifts[..channels],
            zero_point,
            min,
            max,
        }
    }

    /// The int8 output (as a byte) of channel `c` for accumulator `acc`.
    #[inline(always)]
    pub(crate) fn one(&self, c: usize, acc: i32) -> u8 {
        let bias = self.bias.map_or(0, |b| b[c]);
        self.apply(acc.wrapping_add(bias), self.multipliers[c], self.shifts[c])
    }

    /// The outputs of channels `c0..c0 + 4`.
    #[inline(always)]
    pub(crate) fn four(&self, c0: usize, acc: [i32; 4]) -> [u8; 4] {
        let multipliers = &self.multipliers[c0..c0 + 4];
        let shifts = &self.shifts[c0..c0 + 4];
        let bias = self.bias.map(|b| &b[c0..c0 + 4]);
        // Spelled out, with the `#[inline(always)]` `apply`: through `core::array::from_fn` or a
        // closure the compiler may emit a call per output, which costs as much as the arithmetic.
        let bias = |k: usize| bias.map_or(0, |b| b[k]);
        [
            self.apply(acc[0].wrapping_add(bias(0)), multipliers[0], shifts[0]),
            self.apply(acc[1].wrapping_add(bias(1)), multipliers[1], shifts[1]),
            self.apply(acc[2].wrapping_add(bias(2)), multipliers[2], shifts[2]),
            self.apply(acc[3].wrapping_add(bias(3)), multipliers[3], shifts[3]),
        ]
    }

    /// `MultiplyByQuantizedMultiplier(acc, multiplier, shift) + zero_point`, clamped. The same bits
    /// as [`crate::math::multiply_by_quantized_multiplier`] for a non-negative multiplier, which
    /// rules out the one saturating case of the doubling high multiply (`i32::MIN * i32::MIN`), so
    /// it is left out here.
    #[inline(always)]
    fn apply(&self, acc: i32, multiplier: i32, shift: i8) -> u8 {
        let shift = i32::from(shift);
        let (left, right) = if shift > 0 { (shift, 0) } else { (0, -shift) };
        let x = acc.wrapping_shl(left as u32);
        let high = ((i64::from(x) * i64::from(multiplier) + (1 << 30)) >> 31) as i32;
        let scaled = crate::math::rounding_divide_by_pot(high, right);
        scaled
            .wrapping_add(self.zero_point)
            .clamp(self.min, self.max) as i8 as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::multiply_by_quantized_multiplier;

    #[test]
    fn agrees_with_the_reference_multiply() {
        let multipliers = [0, 1 << 30, 1_395_864_371, i32::MAX, 1_073_741_825];
        let shifts = [-31i8, -7, 0, 3, 31];
        let r = Requantizer::new(5, None, &multipliers, &shifts, -5, (-128, 127));
        let accs = [i32::MIN, -1_000_000, -3, -1, 0, 1, 2, 77, 123_456, i32::MAX];
        for c in 0..5 {
            for &acc in &accs {
                let want = multiply_by_quantized_multiplier(acc, multipliers[c], shifts[c].into())
                    .wrapping_add(-5)
                    .clamp(-128, 127) as i8 as u8;
                assert_eq!(r.one(c, acc), want, "channel {c}, acc {acc}");
            }
        }
        let four = r.four(1, [accs[3], accs[5], accs[7], accs[8]]);
        assert_eq!(
            four,
            [
                r.one(1, accs[3]),
                r.one(2, accs[5]),
                r.one(3, accs[7]),
                r.one(4, accs[8])
            ]
        );
    }
}

//! Fixed-point arithmetic with TFLM's exact semantics (gemmlowp rounding), shared by the int8 kernels.
//!
//! These are bit-exact re-statements of the integer math TFLM's reference kernels use; the project's
//! conformance tests compare every int8 output byte against TFLM.

/// `SaturatingRoundingDoublingHighMul`: the high 32 bits of `2 * a * b`, rounded half away from zero,
/// saturating the single overflow case `a == b == i32::MIN`.
#[inline(always)]
pub fn saturating_rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    // TFLM computes `(ab + nudge) / 2^31`, truncating toward zero, with `nudge = 2^30` for
    // `ab >= 0` and `1 - 2^30` otherwise. For `ab < 0` the sum is negative, and truncating it up
    // equals flooring `ab + 1 - 2^30 + (2^31 - 1) = ab + 2^30`; so both cases are one arithmetic
    // shift of `ab + 2^30` (a multiply-accumulate and two shifts on Cortex-M).
    ((a as i64 * b as i64 + (1 << 30)) >> 31) as i32
}

/// `RoundingDivideByPOT`: `x / 2^exponent`, rounded to nearest with ties away from zero.
#[inline(always)]
pub fn rounding_divide_by_pot(x: i32, exponent: i32) -> i32 {
    debug_assert!((0..=31).contains(&exponent));
    // u32 so that exponent 31 needs no 64-bit shift: (1 << 31) - 1 = i32::MAX.
    let mask = ((1u32 << exponent) - 1) as i32;
    let remainder = x & mask;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> exponent) + i32::from(remainder > threshold)
}

/// `SaturatingRoundingMultiplyByPOT<exponent>`: a saturating left shift for positive exponents, a
/// rounding right shift for negative ones.
#[inline(always)]
pub fn saturating_rounding_multiply_by_pot(x: i32, exponent: i32) -> i32 {
    if exponent > 0 {
        let threshold = (1i32 << (31 - exponent)) - 1;
        if x > threshold {
            i32::MAX
        } else if x < -threshold {
            i32::MIN
        } else {
            x << exponent
        }
    } else if exponent < 0 {
        rounding_divide_by_pot(x, -exponent)
    } else {
        x
    }
}

/// `MultiplyByQuantizedMultiplier` (TFLM's default, double rounding): `x * multiplier * 2^shift`
/// where `multiplier` is a Q31 value in [0.5, 1) and `shift` may be negative.
#[inline(always)]
pub fn multiply_by_quantized_multiplier(x: i32, multiplier: i32, shift: i32) -> i32 {
    let left = if shift > 0 { shift } else { 0 };
    let right = if shift > 0 { 0 } else { -shift };
    rounding_divide_by_pot(
        saturating_rounding_doubling_high_mul(x.wrapping_mul(1 << left), multiplier),
        right,
    )
}

/// `MultiplyByQuantizedMultiplierSmallerThanOneExp`: for multipliers below one (`shift <= 0`).
#[inline(always)]
pub fn multiply_by_quantized_multiplier_smaller_than_one_exp(
    x: i32,
    multiplier: i32,
    shift: i32,
) -> i32 {
    rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, multiplier), -shift)
}

/// `MultiplyByQuantizedMultiplierGreaterThanOne`: for multipliers above one (`left_shift >= 0`).
#[inline(always)]
pub fn multiply_by_quantized_multiplier_greater_than_one(
    x: i32,
    multiplier: i32,
    left_shift: i32,
) -> i32 {
    saturating_rounding_doubling_high_mul(x.wrapping_mul(1 << left_shift), multiplier)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn high_mul_saturates_and_rounds() {
        assert_eq!(
            saturating_rounding_doubling_high_mul(i32::MIN, i32::MIN),
            i32::MAX
        );
        // 2 * (1 << 30) * (1 << 30) / 2^32 = 2^29
        assert_eq!(
            saturating_rounding_doubling_high_mul(1 << 30, 1 << 30),
            1 << 29
        );
        assert_eq!(saturating_rounding_doubling_high_mul(-1, 1 << 30), 0);
        assert_eq!(saturating_rounding_doubling_high_mul(-3, 1 << 30), -1);
    }

    /// TFLM's definitions, word for word, on i128.
    fn tflm_high_mul(a: i32, b: i32) -> i32 {
        if a == i32::MIN && b == i32::MIN {
            return i32::MAX;
        }
        let ab = a as i128 * b as i128;
        let nudge: i128 = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
        ((ab + nudge) / (1i128 << 31)) as i32
    }

    fn tflm_divide_by_pot(x: i32, exponent: i32) -> i32 {
        let mask = ((1i128 << exponent) - 1) as i32;
        let remainder = x & mask;
        let threshold = (mask >> 1) + i32::from(x < 0);
        (x >> exponent) + i32::from(remainder > threshold)
    }

    #[test]
    fn shortcuts_agree_with_tflm_definitions() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as i32
        };
        let edges = [
            i32::MIN,
            i32::MIN + 1,
            -(1 << 30),
            -2,
            -1,
            0,
            1,
            2,
            1 << 30,
            i32::MAX,
        ];
        // Edge values, then random words, then random values of every magnitude.
        let mut values = [0i32; 4000];
        for (i, v) in values.iter_mut().enumerate() {
            *v = match i {
                _ if i < edges.len() => edges[i],
                _ if i < 2000 => next(),
                _ => next() >> (next() & 31),
            };
        }
        // Miri interprets every step: a sample there, all of them natively.
        let count = if cfg!(miri) { 40 } else { values.len() };
        for &a in &values[..count] {
            for &b in edges.iter().chain(&values[..64]) {
                assert_eq!(
                    saturating_rounding_doubling_high_mul(a, b),
                    tflm_high_mul(a, b),
                    "{a} * {b}"
                );
            }
            for e in 0..=31 {
                assert_eq!(
                    rounding_divide_by_pot(a, e),
                    tflm_divide_by_pot(a, e),
                    "{a} >> {e}"
                );
            }
        }
    }

    #[test]
    fn rounding_divide_ties_away_from_zero() {
        assert_eq!(rounding_divide_by_pot(5, 1), 3);
        assert_eq!(rounding_divide_by_pot(-5, 1), -3);
        assert_eq!(rounding_divide_by_pot(4, 1), 2);
        assert_eq!(rounding_divide_by_pot(-7, 2), -2);
        assert_eq!(rounding_divide_by_pot(7, 0), 7);
    }

    #[test]
    fn multiplier_half_halves() {
        // multiplier 0.5 in Q31, shift 0
        assert_eq!(multiply_by_quantized_multiplier(100, 1 << 30, 0), 50);
        // 0.5 * 2^-1 = 0.25
        assert_eq!(multiply_by_quantized_multiplier(100, 1 << 30, -1), 25);
        // 0.5 * 2^2 = 2
        assert_eq!(multiply_by_quantized_multiplier(100, 1 << 30, 2), 200);
    }
}

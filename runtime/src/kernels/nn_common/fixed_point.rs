//! gemmlowp's fixed-point transcendental functions on raw `i32` values, bit for bit as TFLM's int8
//! SOFTMAX, LOGISTIC and TANH use them.
//!
//! A gemmlowp `FixedPoint<i32, IB>` holds `raw / 2^(31 - IB)`. Its `+` and `-` wrap, its `*` is
//! `SaturatingRoundingDoublingHighMul` (the integer bits add up), and `Rescale` is a saturating
//! rounding multiplication by a power of two. Functions here take and return raw values and name the
//! formats in their documentation.

use crate::math::{
    rounding_divide_by_pot, saturating_rounding_doubling_high_mul as mul,
    saturating_rounding_multiply_by_pot,
};

/// `Rescale<dst>` of a value with `src` integer bits.
#[inline(always)]
pub(crate) fn rescale(x: i32, src_integer_bits: i32, dst_integer_bits: i32) -> i32 {
    saturating_rounding_multiply_by_pot(x, src_integer_bits - dst_integer_bits)
}

/// gemmlowp `RoundingHalfSum`: `(a + b) / 2` rounded half away from zero.
#[inline(always)]
fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = i64::from(a) + i64::from(b);
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i32
}

/// `exp(a)` for a Q0.31 `a` in [-1/4, 0): Taylor expansion around -1/8. Result in Q0.31.
#[inline(always)]
fn exp_on_interval_between_negative_one_quarter_and_0_excl(a: i32) -> i32 {
    const EXP_MINUS_ONE_EIGHTH: i32 = 1_895_147_668;
    const ONE_THIRD: i32 = 715_827_883;
    let x = a.wrapping_add(1 << 28);
    let x2 = mul(x, x);
    let x3 = mul(x2, x);
    let x4 = mul(x2, x2);
    let x4_over_4 = rounding_divide_by_pot(x4, 2);
    let poly = rounding_divide_by_pot(
        mul(x4_over_4.wrapping_add(x3), ONE_THIRD).wrapping_add(x2),
        1,
    );
    EXP_MINUS_ONE_EIGHTH.wrapping_add(mul(EXP_MINUS_ONE_EIGHTH, x.wrapping_add(poly)))
}

/// gemmlowp `exp_on_negative_values`: `exp(a)` for `a <= 0` with `integer_bits` integer bits
/// (1..=6 here). Result in Q0.31 (`i32::MAX` for `a == 0`).
pub(crate) fn exp_on_negative_values(a: i32, integer_bits: i32) -> i32 {
    let fractional_bits = 31 - integer_bits;
    let one_quarter = 1i32 << (fractional_bits - 2);
    let mask = one_quarter - 1;
    let a_mod_quarter_minus_one_quarter = (a & mask).wrapping_sub(one_quarter);
    let mut result = exp_on_interval_between_negative_one_quarter_and_0_excl(rescale(
        a_mod_quarter_minus_one_quarter,
        integer_bits,
        0,
    ));
    let remainder = a_mod_quarter_minus_one_quarter.wrapping_sub(a);
    // exp(-2^e) in Q0.31 for e = -2..=4: multiply in one factor per set bit of the remainder.
    const BARREL: [(i32, i32); 7] = [
        (-2, 1_672_461_947),
        (-1, 1_302_514_674),
        (0, 790_015_084),
        (1, 290_630_308),
        (2, 39_332_535),
        (3, 720_401),
        (4, 242),
    ];
    for &(exponent, multiplier) in &BARREL {
        if integer_bits > exponent {
            let bit = 1i32 << (fractional_bits + exponent);
            if remainder & bit != 0 {
                result = mul(result, multiplier);
            }
        }
    }
    if integer_bits > 5 {
        let clamp = -(1i32 << (36 - integer_bits));
        if a < clamp {
            result = 0;
        }
    }
    if a == 0 {
        i32::MAX
    } else {
        result
    }
}

/// Newton-Raphson for `1 / (2 * half_denominator)` in Q2.29: three iterations from 48/17 - 32/17 d.
#[inline(always)]
fn newton_reciprocal(half_denominator: i32) -> i32 {
    const FORTY_EIGHT_OVER_17: i32 = 1_515_870_810;
    const MINUS_32_OVER_17: i32 = -1_010_580_540;
    const ONE_Q2: i32 = 1 << 29;
    let mut x = FORTY_EIGHT_OVER_17.wrapping_add(mul(half_denominator, MINUS_32_OVER_17));
    for _ in 0..3 {
        let half_denominator_times_x = mul(half_denominator, x);
        let one_minus = ONE_Q2.wrapping_sub(half_denominator_times_x);
        x = x.wrapping_add(rescale(mul(x, one_minus), 4, 2));
    }
    x
}

/// gemmlowp `one_over_one_plus_x_for_x_in_0_1`: `1 / (1 + a)` for a Q0.31 `a` in [0, 1).
pub(crate) fn one_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    let x = newton_reciprocal(rounding_half_sum(a, i32::MAX));
    // ExactMulByPot<-1> turns Q2.29 into Q1.30 with the same raw value; then Rescale<0>.
    rescale(x, 1, 0)
}

/// gemmlowp `one_minus_x_over_one_plus_x_for_x_in_0_1`: `(1 - a) / (1 + a)` in Q0.31.
fn one_minus_x_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    let x = newton_reciprocal(rounding_half_sum(a, i32::MAX));
    rescale(x.wrapping_sub(1 << 29), 2, 0)
}

/// gemmlowp `logistic` of a Q4.27 value; result in Q0.31.
pub(crate) fn logistic_q4(a: i32) -> i32 {
    if a == 0 {
        return 1 << 30;
    }
    let abs = if a > 0 { a } else { a.wrapping_neg() };
    let positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(abs.wrapping_neg(), 4));
    if a > 0 {
        positive
    } else {
        i32::MAX.wrapping_sub(positive)
    }
}

/// gemmlowp `tanh` of a Q4.27 value; result in Q0.31.
pub(crate) fn tanh_q4(a: i32) -> i32 {
    if a == 0 {
        return 0;
    }
    let negative_abs = if a < 0 { a } else { a.wrapping_neg() };
    // ExactMulByPot<1>: the same raw value read as Q5.26 is twice the number.
    let t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(negative_abs, 5));
    if a < 0 {
        t.wrapping_neg()
    } else {
        t
    }
}

/// TFLM `GetReciprocal`: `1 / x` for a positive `x` with `integer_bits` integer bits, as a Q0.31
/// value and the number of bits it must still be shifted right by (`num_bits_over_unit`).
pub(crate) fn reciprocal(x: i32, integer_bits: i32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros();
    let num_bits_over_unit = integer_bits - headroom_plus_one as i32;
    let shifted_sum_minus_one = ((x as u32)
        .checked_shl(headroom_plus_one)
        .unwrap_or(0)
        .wrapping_sub(1 << 31)) as i32;
    (
        one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one),
        num_bits_over_unit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(raw: i32, integer_bits: i32) -> f64 {
        f64::from(raw) / f64::powi(2.0, 31 - integer_bits)
    }

    #[test]
    fn exp_is_close_to_exp() {
        for &x in &[-0.1f64, -0.5, -1.0, -2.5, -7.9] {
            let raw = (x * f64::powi(2.0, 26)) as i32;
            let e = q(exp_on_negative_values(raw, 5), 0);
            // e^x by series, to compare in no_std tests.
            let want = (1..40).fold((1.0f64, 1.0f64), |(sum, term), n| {
                let t = term * x / f64::from(n);
                (sum + t, t)
            });
            assert!((e - want.0).abs() < 1e-6, "exp({x}) = {e}, want {}", want.0);
        }
        assert_eq!(exp_on_negative_values(0, 5), i32::MAX);
    }

    #[test]
    fn reciprocal_of_two() {
        // 2.0 in Q12.19: 1/2 = 0.5 * 2^0 → shifted scale ~1.0 (Q0.31) with one bit over unit.
        let (scale, bits) = reciprocal(2 << 19, 12);
        assert_eq!(bits, 1);
        assert!((q(scale, 0) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn logistic_and_tanh_have_their_shapes() {
        assert_eq!(logistic_q4(0), 1 << 30);
        let one = 1 << 27;
        assert!((q(logistic_q4(one), 0) - 0.731_058_6).abs() < 1e-6);
        assert!((q(logistic_q4(-one), 0) - 0.268_941_4).abs() < 1e-6);
        assert!((q(tanh_q4(one), 0) - 0.761_594_2).abs() < 1e-6);
        assert_eq!(tanh_q4(-one), -tanh_q4(one));
    }
}

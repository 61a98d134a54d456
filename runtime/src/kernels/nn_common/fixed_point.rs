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
pub(crate) fn rounding_half_sum(a: i32, b: i32) -> i32 {
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

/// TFLM's `SaturatingRoundingMultiplyByPOTParam` for `exponent >= 0` (a saturating left shift).
#[inline(always)]
fn saturating_shl(x: i32, exponent: i32) -> i32 {
    saturating_rounding_multiply_by_pot(x, exponent)
}

/// TFLM's `log_x_for_x_greater_than_or_equal_to_1<5>` of a Q12.19 value at least 1 (int8
/// LOG_SOFTMAX's sum of exps): `ln(x)` in Q5.26, through `z = 2^k * r` with `r` in [sqrt(1/2), 1)
/// and a rational approximation of `ln(r)`, accumulated in Q6.25.
pub(crate) fn log_q12_to_q5(input: i32) -> i32 {
    const INPUT_INTEGER_BITS: i32 = 12;
    const ACCUM_INTEGER_BITS: i32 = 6;
    const LOG_2: i32 = 1_488_522_236;
    const SQRT_SQRT_HALF: i32 = 1_805_811_301;
    const SQRT_HALF: i32 = 1_518_500_250;
    const ALPHA_N: i32 = 117_049_297;
    const ALPHA_D: i32 = 127_690_142;
    const ALPHA_I: i32 = 1_057_819_769;
    const ALPHA_F: i32 = 638_450_708;
    // Rescale<6> of a quarter in Q0.31.
    let shifted_quarter = rescale(536_870_912, 0, ACCUM_INTEGER_BITS);
    let z_a = input;
    let z_a_headroom_plus_1 = (z_a as u32).leading_zeros() as i32;
    let r_a_tmp = saturating_shl(z_a, z_a_headroom_plus_1 - 1);
    let r_a = saturating_shl(mul(r_a_tmp, SQRT_HALF), 1);
    let z_a_pow_2_adj = saturating_add(
        saturating_shl(
            INPUT_INTEGER_BITS - z_a_headroom_plus_1,
            31 - ACCUM_INTEGER_BITS,
        ),
        shifted_quarter,
    );
    let z_b = mul(z_a, SQRT_HALF);
    let z_b_headroom = (z_b as u32).leading_zeros() as i32 - 1;
    let r_b = saturating_shl(z_a, z_b_headroom);
    let z_b_pow_2_adj = saturating_sub(
        saturating_shl(INPUT_INTEGER_BITS - z_b_headroom, 31 - ACCUM_INTEGER_BITS),
        shifted_quarter,
    );
    let r = r_a.min(r_b);
    let z_pow_2_adj = z_a_pow_2_adj.max(z_b_pow_2_adj);
    let p = rounding_half_sum(r, SQRT_SQRT_HALF);
    let q = r.wrapping_sub(SQRT_SQRT_HALF);
    let q = q.wrapping_add(q);
    let common_sq = mul(q, q);
    let num = mul(q, r).wrapping_add(mul(mul(q, common_sq), ALPHA_N));
    let denom_minus_one = mul(
        p,
        ALPHA_I
            .wrapping_add(q)
            .wrapping_add(mul(ALPHA_D, common_sq)),
    )
    .wrapping_add(mul(ALPHA_F, q));
    let recip_denom = one_over_one_plus_x_for_x_in_0_1(denom_minus_one);
    let num_scaled = rescale(num, 0, ACCUM_INTEGER_BITS);
    rescale(
        mul(z_pow_2_adj, LOG_2).wrapping_add(mul(num_scaled, recip_denom)),
        ACCUM_INTEGER_BITS,
        5,
    )
}

/// `SaturatingAddNonGemmlowp` on int32.
#[inline(always)]
fn saturating_add(a: i32, b: i32) -> i32 {
    a.saturating_add(b)
}

/// TFLM's `SaturatingSub` on int32.
#[inline(always)]
fn saturating_sub(a: i32, b: i32) -> i32 {
    a.saturating_sub(b)
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
    fn log_is_close_to_ln() {
        for x in [1.0f64, 1.5, 2.0, 3.7, 10.0, 100.0, 4000.0] {
            let raw = (x * f64::from(1 << 19)) as i32;
            let got = q(log_q12_to_q5(raw), 5);
            assert!((got - x.ln()).abs() < 1e-5, "ln({x}) = {got}");
        }
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

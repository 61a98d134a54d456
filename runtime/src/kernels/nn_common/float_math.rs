//! `exp`, `log`, `tanh` and `sqrt` for `f32` without `std`. `exp`, `log` and `tanh` are computed
//! in `f64` (error far below half an `f32` ulp), then rounded once to `f32`, so results equal a
//! correctly rounded `expf` / `logf` / `tanhf` except in vanishingly rare near-ties; `sqrt` is exact, with integers.
//! That is what TFLM's float kernels get from the C library.

const LN_2: f64 = core::f64::consts::LN_2;
const LOG2_E: f64 = core::f64::consts::LOG2_E;

/// `2^k` for `k` in the normal `f64` exponent range.
#[inline(always)]
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `exp(x)` in `f64` for `x` in [-745, 709]: `2^k * exp(r)` with `|r| <= ln2 / 2` and a degree-13
/// Taylor polynomial (truncation error below 1e-17 relative).
fn exp_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 709.0 {
        return f64::INFINITY;
    }
    if x < -745.0 {
        return 0.0;
    }
    let t = x * LOG2_E;
    let k = (if t >= 0.0 { t + 0.5 } else { t - 0.5 }) as i32;
    let r = x - f64::from(k) * LN_2;
    let mut p = 1.0;
    let mut n = 13;
    while n > 0 {
        p = 1.0 + p * r / f64::from(n);
        n -= 1;
    }
    // Split the scaling so that 2^k never leaves the normal range.
    let half = k / 2;
    p * pow2(half) * pow2(k - half)
}

/// `expf(x)`.
pub(crate) fn exp_f32(x: f32) -> f32 {
    exp_f64(f64::from(x)) as f32
}

/// `expm1f(x)`: in `f64`, by the Taylor series to `x^18 / 18!` for `|x| < 1/2` (where
/// `exp(x) - 1` would cancel), else `exp(x) - 1`; rounded once.
pub(crate) fn expm1_f32(x: f32) -> f32 {
    let x = f64::from(x);
    if x.is_nan() {
        return x as f32;
    }
    if x.abs() < 0.5 {
        let mut p = 1.0;
        let mut n = 18;
        while n > 1 {
            p = 1.0 + p * x / f64::from(n);
            n -= 1;
        }
        return (x * p) as f32;
    }
    (exp_f64(x) - 1.0) as f32
}

/// `logf(x)`, computed in `f64` and rounded once: NaN below 0 (and for NaN), -inf at ±0, +inf at
/// +inf. With `x = m * 2^k`, `m` in [sqrt(1/2), sqrt(2)), `log(m) = 2 atanh(s)` for
/// `s = (m - 1) / (m + 1)`, `|s| < 0.172`: the odd series to `s^23` (truncation below 1e-18).
pub(crate) fn log_f32(x: f32) -> f32 {
    if x.is_nan() || x < 0.0 {
        return f32::NAN;
    }
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if x == f32::INFINITY {
        return x;
    }
    // Every f32 (subnormals too) is a normal f64: its exponent field gives k directly.
    let bits = f64::from(x).to_bits();
    let mut k = ((bits >> 52) & 0x7FF) as i32 - 1023;
    let mut m = f64::from_bits((bits & 0x000F_FFFF_FFFF_FFFF) | 0x3FF0_0000_0000_0000);
    if m > core::f64::consts::SQRT_2 {
        m *= 0.5;
        k += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut series = 0.0;
    let mut n = 23;
    while n > 1 {
        series = (series + 1.0 / f64::from(n)) * s2;
        n -= 2;
    }
    let log_m = 2.0 * s * (1.0 + series);
    (f64::from(k) * LN_2 + log_m) as f32
}

/// `tanhf(x)`.
pub(crate) fn tanh_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    let a = f64::from(x).abs();
    let t = if a > 20.0 {
        1.0
    } else if a < 1e-4 {
        // Series: the closed form below would cancel.
        a - a * a * a / 3.0 + 2.0 * a * a * a * a * a / 15.0
    } else {
        let e = exp_f64(-2.0 * a);
        (1.0 - e) / (1.0 + e)
    };
    (if x < 0.0 { -t } else { t }) as f32
}

/// `floor(sqrt(n))` and the remainder `n - floor(sqrt(n))^2`, digit by digit (two bits a step).
fn isqrt_rem(n: u64) -> (u64, u64) {
    let (mut rem, mut root) = (n, 0u64);
    let mut bit = 1u64 << 62;
    while bit > n {
        bit >>= 2;
    }
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    (root, rem)
}

/// `sqrtf(x)`, correctly rounded (IEEE 754 requires it of the C library's `sqrtf`, which TFLM
/// calls): -0.0, +0.0, +inf and NaN are their own roots, negative numbers give NaN. With
/// `x = m * 2^e`, `m` a 24-bit integer (subnormals normalised) and `e` made even, the root of `m`
/// scaled to [2^46, 2^48) is an exact integer square root in [2^23, 2^24) and a remainder; a root
/// is never halfway between two floats, so it rounds up exactly when the remainder exceeds it.
pub(crate) fn sqrt_f32(x: f32) -> f32 {
    if x.is_nan() || x == 0.0 || x == f32::INFINITY {
        return x;
    }
    if x < 0.0 {
        return f32::NAN;
    }
    let bits = x.to_bits();
    let field = (bits >> 23) as i32;
    let (mut m, mut e) = if field == 0 {
        (u64::from(bits & 0x7F_FFFF), -149)
    } else {
        (u64::from(bits & 0x7F_FFFF) | 0x80_0000, field - 150)
    };
    while m < 0x80_0000 {
        m <<= 1;
        e -= 1;
    }
    if e & 1 != 0 {
        m <<= 1;
        e -= 1;
    }
    // m in [2^23, 2^25): scaled by an even power of two into [2^46, 2^48).
    let s = if m >= 1 << 24 { 22 } else { 24 };
    let (mut root, rem) = isqrt_rem(m << s);
    let mut k = (e - s) / 2;
    if rem > root {
        root += 1;
        if root == 1 << 24 {
            root >>= 1;
            k += 1;
        }
    }
    f32::from_bits((((k + 23 + 127) as u32) << 23) | (root as u32 & 0x7F_FFFF))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_known_values() {
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(1.0), core::f32::consts::E);
        assert_eq!(exp_f32(-1.0), 0.367_879_45);
        assert_eq!(exp_f32(10.0), 22_026.465);
        assert_eq!(exp_f32(-80.0), 1.804_851_4e-35);
        assert_eq!(exp_f32(100.0), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
    }

    #[test]
    fn tanh_matches_known_values() {
        assert_eq!(tanh_f32(0.0), 0.0);
        assert_eq!(tanh_f32(0.5), 0.462_117_16);
        assert_eq!(tanh_f32(-2.0), -0.964_027_6);
        assert_eq!(tanh_f32(1e-6), 1e-6);
        assert_eq!(tanh_f32(30.0), 1.0);
    }

    /// Every float whose bits are a multiple of 4093, the powers of two, the subnormals and the
    /// specials against `std`'s correctly rounded square root.
    #[test]
    fn sqrt_is_correctly_rounded() {
        extern crate std;
        let check = |x: f32| {
            let (ours, want) = (sqrt_f32(x), std::primitive::f32::sqrt(x));
            assert!(
                ours.to_bits() == want.to_bits() || (ours.is_nan() && want.is_nan()),
                "sqrt({x:e}) = {ours:e}, want {want:e}"
            );
        };
        // Under Miri (which runs the kernel tests for undefined behaviour, about a thousand times
        // slower) a sparser sweep: the same code paths, fewer samples.
        let (step, edge) = if cfg!(miri) {
            (4093 * 1021, 0x100u32)
        } else {
            (4093, 0x1_0000u32)
        };
        for bits in (0..=u32::MAX).step_by(step) {
            check(f32::from_bits(bits));
        }
        for bits in 0..edge {
            check(f32::from_bits(bits));
            check(f32::from_bits(0x7F7F_FFFF - bits));
        }
        for e in -149..128 {
            check(2f32.powi(e));
        }
        for x in [
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -1.0,
            2.0,
            0.5,
        ] {
            check(x);
        }
    }
}

//! `exp` and `tanh` for `f32` without `std`: computed in `f64` (error far below half an `f32` ulp),
//! then rounded once to `f32`, so results equal a correctly rounded `expf` / `tanhf` except in
//! vanishingly rare near-ties — what TFLM's float kernels get from the C library.

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
}

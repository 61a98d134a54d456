//! TFLM's `QuantizeMultiplier`, and the search for scale pairs where computing a requantization
//! multiplier in `f32` instead of `f64` changes its result (the 1-LSB bugs of issue 11).

/// TFLM's `QuantizeMultiplier(double)`: `x = q × 2^shift` with `q` a Q31 in [2^30, 2^31).
/// Returns `(q, shift)`; `(0, 0)` for 0 and for what underflows below 2^-31.
pub fn quantize_multiplier(x: f64) -> (i64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (0, 0);
    }
    let (fraction, mut shift) = frexp(x);
    // TfLiteRound is std::round: half away from zero, which is what f64::round does.
    let mut q = (fraction * (1u64 << 31) as f64).round() as i64;
    if q == 1 << 31 {
        q /= 2;
        shift += 1;
    }
    if shift < -31 {
        return (0, 0);
    }
    (q, shift)
}

/// `frexp`: `x = fraction × 2^exponent` with `|fraction|` in [0.5, 1).
fn frexp(x: f64) -> (f64, i32) {
    let mut x = x;
    let mut bias = 0;
    if x.abs() < f64::MIN_POSITIVE {
        // Subnormal: scale into the normal range first.
        x *= 2f64.powi(64);
        bias = -64;
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1022;
    let fraction = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (fraction, exponent + bias)
}

/// Ratios with few significant bits but not powers of two: 3, 5 or 7 × 2^-k. When the multiplier
/// computed one way is exactly such a value (its Q31 fraction a multiple of 2^28 but not of 2^30)
/// and the other way is not, many products land exactly on a rounding tie inside TFLM's
/// `SaturatingRoundingDoublingHighMul` in one computation and just below it in the other: a few-ULP
/// multiplier difference then shows as 1-LSB differences in a large share of the outputs (issue
/// 11's RELU case: 1610612736 = 0.75 × 2^31 against TFLM's 1610612694). A power of two never ties
/// there (the product is exact), so it exposes nothing.
pub const SIMPLE: &[f64] = &[0.75, 0.625, 0.375, 0.1875, 1.5, 1.25, 0.875, 0.3125, 0.4375];

/// `num / r` rounded to f32 and moved by `ulps` units in the last place: a denominator that makes
/// `num / den` land on or right beside `r`.
pub fn near(num: f64, r: f64, ulps: i32) -> f32 {
    let d = (num / r) as f32;
    if !d.is_finite() || d <= 0.0 {
        return d;
    }
    f32::from_bits((d.to_bits() as i64 + i64::from(ulps)).max(1) as u32)
}

/// The multipliers of `a / b`: in `f64` (TFLM's way for most ops) and from the `f32` quotient.
pub fn ratio_variants(a: f32, b: f32) -> Vec<(i64, i32)> {
    vec![
        quantize_multiplier(f64::from(a) / f64::from(b)),
        quantize_multiplier(f64::from(a / b)),
    ]
}

/// The multipliers of `a × b / c`: all `f64`, the product in `f32` then an `f64` division (TFLM's
/// `GetQuantizedConvolutionMultipler`), and all `f32`.
pub fn product_variants(a: f32, b: f32, c: f32) -> Vec<(i64, i32)> {
    vec![
        quantize_multiplier(f64::from(a) * f64::from(b) / f64::from(c)),
        quantize_multiplier(f64::from(a * b) / f64::from(c)),
        quantize_multiplier(f64::from(a * b / c)),
    ]
}

/// How likely a set of ways to compute one multiplier is to expose a wrong choice among them: 0
/// when they all agree; else the most trailing zero bits of any of them (a value with few
/// significant bits makes exact rounding ties), then the spread.
pub fn score(variants: &[(i64, i32)]) -> i64 {
    let Some(first) = variants.first() else {
        return 0;
    };
    if variants.iter().all(|v| v == first) {
        return 0;
    }
    let zeros = variants
        .iter()
        // 2^30 (a power-of-two multiplier) cannot tie; see SIMPLE.
        .map(|v| match v.0.trailing_zeros() {
            z if z >= 30 => 0,
            z => z,
        })
        .max()
        .unwrap_or(0);
    let spread = variants
        .iter()
        .map(|v| {
            if v.1 != first.1 {
                1 << 20
            } else {
                (v.0 - first.0).abs().min(1 << 20)
            }
        })
        .max()
        .unwrap_or(0);
    i64::from(zeros.min(31)) * (1 << 21) + spread
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantize_multiplier_matches_tflm_on_known_values() {
        assert_eq!(quantize_multiplier(0.5), (1 << 30, 0));
        assert_eq!(quantize_multiplier(1.0), (1 << 30, 1));
        assert_eq!(quantize_multiplier(0.75), (1610612736, 0));
        assert_eq!(quantize_multiplier(0.0), (0, 0));
        // 2^-40 underflows TFLM's shift range.
        assert_eq!(quantize_multiplier(2f64.powi(-40)), (0, 0));
        let (q, s) = quantize_multiplier(1e-310);
        assert_eq!((q, s), (0, 0));
        let (q, s) = quantize_multiplier(3.0);
        assert_eq!((q, s), (1610612736, 2));
    }

    #[test]
    fn score_is_zero_when_every_way_agrees_and_high_on_simple_values() {
        assert_eq!(score(&ratio_variants(0.5, 0.25)), 0);
        assert_eq!(score(&product_variants(0.5, 0.25, 0.125)), 0);
        assert!(score(&ratio_variants(0.1, 0.3)) > 0);
        // The RELU pair shape: an f32 quotient of exactly 0.75, an f64 one beside it.
        let mut best = 0;
        for k in -3..=3 {
            best = best.max(score(&ratio_variants(0.0123, near(0.0123, 0.75, k))));
        }
        assert!(best >= 20 << 21, "{best}");
    }
}

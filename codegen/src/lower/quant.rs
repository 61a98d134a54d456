//! The parameter arithmetic TFLM does in Prepare, bit for bit: `QuantizeMultiplier`, activation
//! ranges, padding and output sizes, as TFLM's `quantization_util.cc`, `kernel_util.cc` and
//! `padding.h` compute them.

use crate::ir::{Activation, Padding};

/// `frexp`: `x = mantissa * 2^exponent` with `0.5 <= |mantissa| < 1`; `(0, 0)` for zero, and `x`
/// itself for infinities and NaN, as C's `frexp` does.
pub fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(x * f64::powi(2.0, 64));
        return (m, e - 64);
    }
    let exponent = biased - 1022;
    let mantissa = f64::from_bits((bits & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (mantissa, exponent)
}

/// `QuantizeMultiplier`: a real multiplier as a Q31 fixed-point value and a power-of-two shift
/// (positive = left), such that `m ≈ multiplier * 2^(shift - 31)`.
pub fn quantize_multiplier(real: f64) -> (i32, i32) {
    if real == 0.0 {
        return (0, 0);
    }
    let (q, mut shift) = frexp(real);
    // `f64::round` rounds half away from zero, like TfLiteRound / std::round.
    let mut q_fixed = (q * (1i64 << 31) as f64).round() as i64;
    if q_fixed == 1i64 << 31 {
        q_fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        return (0, 0);
    }
    (q_fixed as i32, shift)
}

/// `CalculateActivationRangeQuantized` for an output with `scale` and `zero_point` of a type with
/// range `[qmin, qmax]` (TANH and SIGN_BIT, which it does not name, clamp nothing). Always
/// `Some`.
pub fn activation_range_quantized(
    activation: Activation,
    scale: f32,
    zero_point: i32,
    qmin: i32,
    qmax: i32,
) -> Option<(i32, i32)> {
    // TFLM quantizes the bounds in float: zero_point + (int)round(f / scale).
    let quantize = |f: f32| zero_point.saturating_add((f / scale).round() as i32);
    match activation {
        Activation::None => Some((qmin, qmax)),
        Activation::Relu => Some((qmin.max(quantize(0.0)), qmax)),
        Activation::Relu6 => Some((qmin.max(quantize(0.0)), qmax.min(quantize(6.0)))),
        Activation::ReluN1To1 => Some((qmin.max(quantize(-1.0)), qmax.min(quantize(1.0)))),
        Activation::Tanh | Activation::SignBit => Some((qmin, qmax)),
    }
}

/// `CalculateActivationRange` for float kernels: TANH and SIGN_BIT, which it does not name, clamp
/// nothing there (TFLM's float CONV_2D, FULLY_CONNECTED, pooling, ADD, SUB and MUL run them so).
/// Always `Some`; an operator whose TFLM kernel applies the activation itself (SVDF's
/// `ApplyActivationToVector`) must refuse TANH and SIGN_BIT before asking.
pub fn activation_range_f32(activation: Activation) -> Option<(f32, f32)> {
    match activation {
        Activation::None | Activation::Tanh | Activation::SignBit => Some((f32::MIN, f32::MAX)),
        Activation::Relu => Some((0.0, f32::MAX)),
        Activation::Relu6 => Some((0.0, 6.0)),
        Activation::ReluN1To1 => Some((-1.0, 1.0)),
    }
}

/// `CalculateActivationRange<int32_t>`: RELU [0, int32 max], RELU6 [0, 6], RELU_N1_TO_1 [-1, 1],
/// int32's whole range for the others (NONE, and TANH and SIGN_BIT, which TFLM's int32 kernels
/// take as no clamp rather than refuse).
pub fn activation_range_s32(activation: Activation) -> (i32, i32) {
    match activation {
        Activation::Relu => (0, i32::MAX),
        Activation::Relu6 => (0, 6),
        Activation::ReluN1To1 => (-1, 1),
        Activation::None | Activation::Tanh | Activation::SignBit => (i32::MIN, i32::MAX),
    }
}

/// `CalculateInputRadius`: the largest input difference whose rescaled value
/// (`input_integer_bits` integer bits out of `total_signed_bits`) stays in range. The shifts must be
/// below 63 (callers check the scale they come from).
pub fn input_radius(input_integer_bits: i32, input_left_shift: i32, total_signed_bits: i32) -> i32 {
    let max = f64::from((1 << input_integer_bits) - 1)
        * (1i64 << (total_signed_bits - input_integer_bits)) as f64
        / (1i64 << input_left_shift) as f64;
    max.floor() as i32
}

/// The leading padding `(top, left)` TFLM's `ComputePaddingHeightWidth` gives a window of
/// `filter` taps (height, width), `dilation` apart, moved by `stride` over an `input` image.
///
/// Per axis, `ComputeOutSizeChecked`'s output extent (in 64 bits, C's truncating division), then
/// `ComputePaddingWithOffsetChecked`'s half of the total padding (the extra one, if the total is
/// odd, goes after the last element). When either axis's arguments or extent are out of TFLM's
/// range (a non-positive stride, dilation or filter; a VALID window so much wider than the input
/// that the extent is negative; a value past `int`), TFLM leaves both paddings 0, and so does this.
///
/// TFLM computes that extent itself and never compares it with the output tensor's: its kernels
/// walk the output tensor's extent, skipping the taps outside the image. So the padding depends
/// only on the window, and an output of another extent is computed from it all the same.
pub fn tflm_padding(
    padding: Padding,
    stride: (usize, usize),
    dilation: (usize, usize),
    input: (usize, usize),
    filter: (usize, usize),
) -> (usize, usize) {
    let int = |v: i128| i32::try_from(v).ok().map(i128::from);
    let axis = |stride: usize, dilation: usize, input: usize, filter: usize| {
        let (stride, dilation) = (int(stride as i128)?, int(dilation as i128)?);
        let (input, filter) = (int(input as i128)?, int(filter as i128)?);
        if stride <= 0 || dilation <= 0 || filter <= 0 {
            return None;
        }
        let effective = (filter - 1) * dilation + 1;
        // Rust's i128 division truncates towards zero, as C's does.
        let output = int(match padding {
            Padding::Same => (input + stride - 1) / stride,
            Padding::Valid => (input + stride - effective) / stride,
        })
        .filter(|&n| n >= 0)?;
        let total = ((output - 1) * stride + effective - input).max(0);
        int(total / 2).map(|pad| pad as usize)
    };
    // Both extents are checked before either padding is computed: a failure leaves both 0.
    match (
        axis(stride.0, dilation.0, input.0, filter.0),
        axis(stride.1, dilation.1, input.1, filter.1),
    ) {
        (Some(top), Some(left)) => (top, left),
        _ => (0, 0),
    }
}

/// `LUTPopulateInt16<float>`: the 513-entry table of `f` over an int16 input quantized with
/// `(scale, zero_point)` `input`, in units of an int16 output quantized with `output`, for
/// `LUTLookup`'s interpolation. Every step in `f32`, in TFLM's order; an entry is the sample at
/// its point less half the error interpolation would make at the midpoint to the next one.
pub fn lut_populate_int16(
    input: (f32, i32),
    output: (f32, i32),
    f: impl Fn(f32) -> f32,
) -> [i16; 513] {
    let bound = |(scale, zero_point): (f32, i32), q: i32| scale * (q - zero_point) as f32;
    let (input_min, input_max) = (bound(input, -32768), bound(input, 32767));
    let (output_min, output_max) = (bound(output, -32768), bound(output, 32767));
    let step = (input_max - input_min) / 512.0;
    let half_step = step / 2.0;
    let inverse = 65536.0 / (output_max - output_min);
    // `f32::round` rounds half away from zero, as `TfLiteRound` (`roundf`) does.
    let narrow = |v: f32| v.clamp(-32768.0, 32767.0) as i16;
    let mut lut = [0i16; 513];
    for (i, entry) in lut[..512].iter_mut().enumerate() {
        let at = input_min + i as f32 * step;
        let value = f(at);
        let midpoint = f(at + half_step);
        let next = f(input_min + (i + 1) as f32 * step);
        let sample = (value * inverse).round();
        let interpolated = ((next * inverse + (value * inverse).round()) / 2.0).round();
        let bias = ((interpolated - (midpoint * inverse).round()) / 2.0).round();
        *entry = narrow(sample - bias);
    }
    lut[512] = narrow((f(input_max) * inverse).round());
    lut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frexp_matches_c() {
        assert_eq!(frexp(1.0), (0.5, 1));
        assert_eq!(frexp(0.75), (0.75, 0));
        assert_eq!(frexp(-3.0), (-0.75, 2));
        assert_eq!(frexp(0.0), (0.0, 0));
        let tiny = f64::from_bits(1); // smallest subnormal: 2^-1074
        assert_eq!(frexp(tiny), (0.5, -1073));
    }

    #[test]
    fn quantize_multiplier_matches_tflm() {
        assert_eq!(quantize_multiplier(0.5), (1 << 30, 0));
        assert_eq!(quantize_multiplier(1.0), (1 << 30, 1));
        assert_eq!(quantize_multiplier(0.25), (1 << 30, -1));
        // A value whose Q31 mantissa rounds up to 2^31 is renormalised.
        let just_below_one = 1.0 - f64::powi(2.0, -40);
        assert_eq!(quantize_multiplier(just_below_one), (1 << 30, 1));
        // Too small to represent: both zero.
        assert_eq!(quantize_multiplier(1e-12), (0, 0));
        assert_eq!(quantize_multiplier(0.0), (0, 0));
    }

    #[test]
    fn activation_ranges() {
        let r = |a| activation_range_quantized(a, 0.05, -10, -128, 127);
        assert_eq!(r(Activation::None), Some((-128, 127)));
        assert_eq!(r(Activation::Relu), Some((-10, 127)));
        assert_eq!(r(Activation::Relu6), Some((-10, 110)));
        assert_eq!(r(Activation::ReluN1To1), Some((-30, 10)));
        assert_eq!(r(Activation::Tanh), Some((-128, 127)));
    }

    #[test]
    fn padding_as_tflm_computes_it() {
        let same = |stride, dilation, input, filter| {
            tflm_padding(
                Padding::Same,
                (stride, 1),
                (dilation, 1),
                (input, 1),
                (filter, 1),
            )
            .0
        };
        let valid = |stride, input, filter| {
            tflm_padding(Padding::Valid, (stride, 1), (1, 1), (input, 1), (filter, 1)).0
        };
        // 15 wide, 3 taps, stride 2: SAME gives 8 outputs and 1 before, VALID 7 and none.
        assert_eq!(same(2, 1, 15, 3), 1);
        assert_eq!(valid(2, 15, 3), 0);
        // Even total padding split evenly; odd total puts the extra one after.
        assert_eq!(same(1, 1, 10, 3), 1);
        assert_eq!(same(2, 1, 16, 3), 0);
        // Dilation widens the window: SAME over 10 with 3 taps 2 apart pads 2.
        assert_eq!(same(1, 2, 10, 3), 2);
        // SAME with a window wider than the input: 3 outputs over 2 with 7 taps, total 4 + 7 - 2.
        assert_eq!(same(1, 1, 2, 7), 3);
        // A VALID window wider than the input whose extent truncates to 0: (5 + 3 - 7) / 3 = 0,
        // total (0 - 1) * 3 + 7 - 5 = -1, none; (2 + 4 - 9) / 4 = 0, total -4 + 9 - 2 = 3: 1.
        assert_eq!(valid(3, 5, 7), 0);
        assert_eq!(valid(4, 2, 9), 1);
        // A negative extent ((1 + 4 - 11) / 4 = -1) is TFLM's error: both paddings 0, even the
        // other axis's.
        assert_eq!(valid(4, 1, 11), 0);
        let one_bad = tflm_padding(Padding::Valid, (4, 4), (1, 1), (2, 1), (9, 11));
        assert_eq!(one_bad, (0, 0));
        let both_good = tflm_padding(Padding::Valid, (4, 4), (1, 1), (2, 2), (9, 9));
        assert_eq!(both_good, (1, 1));
        assert_eq!(same(0, 1, 1, 1), 0);
        assert_eq!(same(1, 1 << 31, 1, 3), 0);
    }
}

//! QUANTIZE (float32 → int8 and int16; requantization between int8, int16 and int32, and between
//! int8 and uint8) and DEQUANTIZE (int8, int16 and uint8 → float32).
//!
//! Access order: element by element in order, each element read before written. So the
//! kernels whose output elements are no wider than their input's may run in place (output offset
//! == input offset); the widening ones (`requantize_s8_s16`, `requantize_s16_s32`, the
//! dequantizations) must not overlap their input.

use super::elem::map;
use crate::math::multiply_by_quantized_multiplier;

/// Constants of float32 → int8 QUANTIZE.
#[derive(Clone, Copy, Debug)]
pub struct QuantizeF32S8 {
    /// Number of elements.
    pub len: usize,
    /// Output scale.
    pub scale: f32,
    /// Output zero point.
    pub zero_point: i32,
}

/// Constants of int8 → int8 and int16 → int8 QUANTIZE (requantization).
#[derive(Clone, Copy, Debug)]
pub struct RequantizeS8 {
    /// Number of elements.
    pub len: usize,
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// `s_in / s_out` as a Q31 multiplier.
    pub multiplier: i32,
    /// Its shift (positive = left).
    pub shift: i32,
}

/// Constants of float32 → int16 QUANTIZE: [`QuantizeF32S8`]'s.
pub type QuantizeF32S16 = QuantizeF32S8;

/// Constants of int8 → float32 DEQUANTIZE.
#[derive(Clone, Copy, Debug)]
pub struct DequantizeS8F32 {
    /// Number of elements.
    pub len: usize,
    /// Input scale.
    pub scale: f32,
    /// Input zero point.
    pub zero_point: i32,
}

/// Constants of int16 → float32 DEQUANTIZE: [`DequantizeS8F32`]'s.
pub type DequantizeS16F32 = DequantizeS8F32;

/// TFLM's `AffineQuantize` of one element: `round(x / scale) + zero_point` (ties away from zero,
/// division in float), clamped to `lo..=hi`. `as i32` saturates where C's conversion would be
/// undefined.
#[inline(always)]
fn affine_quantize(x: f32, p: &QuantizeF32S8, (lo, hi): (i32, i32)) -> i32 {
    let q = round_half_away(x / p.scale) as i32;
    q.saturating_add(p.zero_point).clamp(lo, hi)
}

/// `round(x / scale) + zero_point` (ties away from zero, division in float), clamped to int8.
#[cfg_attr(target_os = "none", inline(never))]
pub fn quantize_f32_s8(arena: &mut [u8], input: usize, output: usize, p: &QuantizeF32S8) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| {
        affine_quantize(x, p, (-128, 127)) as i8
    });
}

/// float32 → int16 QUANTIZE (TFLM's `AffineQuantize<int16_t>`): as [`quantize_f32_s8`], clamped to
/// int16.
#[cfg_attr(target_os = "none", inline(never))]
pub fn quantize_f32_s16(arena: &mut [u8], input: usize, output: usize, p: &QuantizeF32S16) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| {
        affine_quantize(x, p, (-32768, 32767)) as i16
    });
}

/// `MultiplyByQuantizedMultiplier(x - zp_in, m, shift) + zp_out`, clamped to int8.
#[cfg_attr(target_os = "none", inline(never))]
pub fn requantize_s8(arena: &mut [u8], input: usize, output: usize, p: &RequantizeS8) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i8| {
        let v =
            multiply_by_quantized_multiplier(x as i32 - p.input_zero_point, p.multiplier, p.shift);
        (v + p.output_zero_point).clamp(-128, 127) as i8
    });
}

/// int16 → int8 requantization, as [`requantize_s8`] (TFLM's `Requantize<int16_t, int8_t>`).
#[cfg_attr(target_os = "none", inline(never))]
pub fn requantize_s16_s8(arena: &mut [u8], input: usize, output: usize, p: &RequantizeS8) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i16| {
        let v =
            multiply_by_quantized_multiplier(x as i32 - p.input_zero_point, p.multiplier, p.shift);
        (v + p.output_zero_point).clamp(-128, 127) as i8
    });
}

/// TFLM's `Requantize<I, O>` of one element: the output zero point plus
/// `MultiplyByQuantizedMultiplier(x - zp_in, m, shift)`, clamped to the output type's range
/// `lo..=hi` (the subtraction wraps, as it does in practice where C++ leaves an int32 overflow
/// undefined).
#[inline(always)]
fn requantize_one(x: i32, p: &RequantizeS8, (lo, hi): (i32, i32)) -> i32 {
    let v =
        multiply_by_quantized_multiplier(x.wrapping_sub(p.input_zero_point), p.multiplier, p.shift);
    v.wrapping_add(p.output_zero_point).clamp(lo, hi)
}

/// [`requantize_s8`] between other integer types: elements of type `I` in, `O` out.
#[inline(always)]
fn requantize_map<I: super::elem::Elem + Into<i32>, O: super::elem::Elem>(
    arena: &mut [u8],
    (input, output): (usize, usize),
    p: &RequantizeS8,
    range: (i32, i32),
    narrow: impl Fn(i32) -> O,
) {
    map(arena, input, output, p.len, |x: I| {
        narrow(requantize_one(x.into(), p, range))
    });
}

/// int8 → int16 requantization (TFLM's `Requantize<int8_t, int16_t>`), as [`requantize_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn requantize_s8_s16(arena: &mut [u8], input: usize, output: usize, p: &RequantizeS8) {
    let p = super::opaque(p);
    let range = (i32::from(i16::MIN), i32::from(i16::MAX));
    requantize_map::<i8, i16>(arena, (input, output), p, range, |v| v as i16);
}

/// int16 → int16 requantization (TFLM's `Requantize<int16_t, int16_t>`), as [`requantize_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn requantize_s16(arena: &mut [u8], input: usize, output: usize, p: &RequantizeS8) {
    let p = super::opaque(p);
    let range = (i32::from(i16::MIN), i32::from(i16::MAX));
    requantize_map::<i16, i16>(arena, (input, output), p, range, |v| v as i16);
}

/// int8 → uint8 requantization (TFLM's `Requantize<int8_t, uint8_t>`), as [`requantize_s8`],
/// clamped to uint8. TFLM's shortcut for equal scales and zero points 128 apart (`x ^ 0x80`) gives
/// the same bytes: the identity multiplier is exact.
#[cfg_attr(target_os = "none", inline(never))]
pub fn requantize_s8_u8(arena: &mut [u8], input: usize, output: usize, p: &RequantizeS8) {
    let p = super::opaque(p);
    let range = (0, i32::from(u8::MAX));
    requantize_map::<i8, u8>(arena, (input, output), p, range, |v| v as u8);
}

/// uint8 → int8 requantization (TFLM's `Requantize<uint8_t, int8_t>`), as [`requantize_s8_u8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn requantize_u8_s8(arena: &mut [u8], input: usize, output: usize, p: &RequantizeS8) {
    let p = super::opaque(p);
    let range = (i32::from(i8::MIN), i32::from(i8::MAX));
    requantize_map::<u8, i8>(arena, (input, output), p, range, |v| v as i8);
}

/// int16 → int32 requantization (TFLM's `Requantize<int16_t, int32_t>`), as [`requantize_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn requantize_s16_s32(arena: &mut [u8], input: usize, output: usize, p: &RequantizeS8) {
    let p = super::opaque(p);
    let range = (i32::MIN, i32::MAX);
    requantize_map::<i16, i32>(arena, (input, output), p, range, |v| v);
}

/// int8 → int32 requantization (TFLM's `Requantize<int8_t, int32_t>`), as [`requantize_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn requantize_s8_s32(arena: &mut [u8], input: usize, output: usize, p: &RequantizeS8) {
    let p = super::opaque(p);
    let range = (i32::MIN, i32::MAX);
    requantize_map::<i8, i32>(arena, (input, output), p, range, |v| v);
}

/// int32 → int8 requantization (TFLM's `Requantize<int32_t, int8_t>`), as [`requantize_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn requantize_s32_s8(arena: &mut [u8], input: usize, output: usize, p: &RequantizeS8) {
    let p = super::opaque(p);
    let range = (i32::from(i8::MIN), i32::from(i8::MAX));
    requantize_map::<i32, i8>(arena, (input, output), p, range, |v| v as i8);
}

/// int32 → int16 requantization (TFLM's `Requantize<int32_t, int16_t>`), as [`requantize_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn requantize_s32_s16(arena: &mut [u8], input: usize, output: usize, p: &RequantizeS8) {
    let p = super::opaque(p);
    let range = (i32::from(i16::MIN), i32::from(i16::MAX));
    requantize_map::<i32, i16>(arena, (input, output), p, range, |v| v as i16);
}

/// `(double)scale * v` rounded to float32, as TFLM computes DEQUANTIZE. For `|v| <= 2^24` (every
/// int8 and int16 input with a zero point of its type's range) the double product is exact (24
/// bits of scale times at most 25 of `v`), so rounding it to float32 is the float32 product itself,
/// correctly rounded: one FPU multiply, where the double one is a software routine on a
/// single-precision FPU (DEQUANTIZE took 1.15 times TFLM's reference kernel on the Cortex-M4).
#[inline(always)]
fn dequantize_one(scale: f32, v: i32) -> f32 {
    if v.unsigned_abs() <= 1 << 24 {
        scale * v as f32
    } else {
        (f64::from(scale) * f64::from(v)) as f32
    }
}

/// `(double)scale * (x - zero_point)`, rounded to float32 (as TFLM computes it, in double).
#[cfg_attr(target_os = "none", inline(never))]
pub fn dequantize_s8_f32(arena: &mut [u8], input: usize, output: usize, p: &DequantizeS8F32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i8| {
        dequantize_one(p.scale, i32::from(x) - p.zero_point)
    });
}

/// int16 → float32 DEQUANTIZE: as [`dequantize_s8_f32`] (TFLM's `Dequantize<int16_t>`).
#[cfg_attr(target_os = "none", inline(never))]
pub fn dequantize_s16_f32(arena: &mut [u8], input: usize, output: usize, p: &DequantizeS16F32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i16| {
        dequantize_one(p.scale, i32::from(x) - p.zero_point)
    });
}

/// Constants of uint8 → float32 DEQUANTIZE: [`DequantizeS8F32`]'s.
pub type DequantizeU8F32 = DequantizeS8F32;

/// uint8 → float32 DEQUANTIZE: as [`dequantize_s8_f32`] (TFLM's `Dequantize<uint8_t>`).
#[cfg_attr(target_os = "none", inline(never))]
pub fn dequantize_u8_f32(arena: &mut [u8], input: usize, output: usize, p: &DequantizeU8F32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: u8| {
        dequantize_one(p.scale, i32::from(x) - p.zero_point)
    });
}

/// `roundf`: nearest integer, ties away from zero (`f32::round` needs std).
#[inline(always)]
pub(crate) fn round_half_away(x: f32) -> f32 {
    // Values this large are integers already (and NaN passes through).
    if !(x < 8_388_608.0 && x > -8_388_608.0) {
        return x;
    }
    let t = x as i32 as f32; // truncation toward zero
    let frac = x - t;
    if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The float32 product equals the double one rounded, scales from subnormal to near the
    /// largest float, on int16's differences and the ends of the exact range.
    #[test]
    fn dequantize_in_single_precision_is_the_double_product_rounded() {
        let scales = [
            1e-40f32,
            1.17e-38,
            0.003_921_569,
            0.1,
            0.7,
            1.0,
            3.3,
            1e20,
            3.0e38,
        ];
        let mut vs: [i32; 12] = [
            0, 1, -1, 127, -128, 255, 32_767, -32_768, 65_535, -65_535, 0, 0,
        ];
        vs[10] = 1 << 24;
        vs[11] = -(1 << 24);
        for &scale in &scales {
            let mut v = -70_000;
            while v <= 70_000 {
                let want = (f64::from(scale) * f64::from(v)) as f32;
                assert_eq!(
                    dequantize_one(scale, v).to_bits(),
                    want.to_bits(),
                    "{scale} * {v}"
                );
                v += if cfg!(miri) { 997 } else { 7 };
            }
            for &v in &vs {
                let want = (f64::from(scale) * f64::from(v)) as f32;
                assert_eq!(
                    dequantize_one(scale, v).to_bits(),
                    want.to_bits(),
                    "{scale} * {v}"
                );
            }
        }
    }

    /// int16 → int32 and int32 → int16 requantization against TFLM's `Requantize` formula, with
    /// saturation at int16's ends.
    #[test]
    fn requantizations_between_int16_and_int32() {
        let p = RequantizeS8 {
            len: 3,
            input_zero_point: 2,
            output_zero_point: -1,
            multiplier: 1 << 30,
            shift: 9, // × 256
        };
        let expect = |x: i32| multiply_by_quantized_multiplier(x - 2, 1 << 30, 9) - 1;
        let read16 = |b: &[u8]| -> [i32; 3] {
            core::array::from_fn(|i| i32::from(i16::from_le_bytes([b[2 * i], b[2 * i + 1]])))
        };
        let read32 = |b: &[u8]| -> [i32; 3] {
            core::array::from_fn(|i| {
                i32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
            })
        };
        let mut arena = [0u8; 6 + 12];
        for (c, x) in arena[..6].chunks_exact_mut(2).zip([300i16, -300, 2]) {
            c.copy_from_slice(&x.to_le_bytes());
        }
        requantize_s16_s32(&mut arena, 0, 6, &p);
        assert_eq!(read32(&arena[6..]), [300, -300, 2].map(expect));
        let shrink = RequantizeS8 {
            multiplier: 1 << 30,
            shift: -7, // ÷ 256
            ..p
        };
        let down = |x: i32| {
            (multiply_by_quantized_multiplier(x - 2, 1 << 30, -7) - 1).clamp(-32768, 32767)
        };
        let mut arena = [0u8; 12 + 6];
        for (c, x) in arena[..12]
            .chunks_exact_mut(4)
            .zip([10_000_000i32, -5_000, 1_000])
        {
            c.copy_from_slice(&x.to_le_bytes());
        }
        requantize_s32_s16(&mut arena, 0, 12, &shrink);
        assert_eq!(read16(&arena[12..]), [10_000_000, -5_000, 1_000].map(down));
    }

    /// The int16 conversions: float32 → int16 rounds half away from zero and saturates; int8 →
    /// int16 and int16 → int16 requantize (here ×256 and ×1/2); int16 → float32 in double.
    #[test]
    fn int16_conversions() {
        let read16 = |b: &[u8]| -> [i16; 3] {
            core::array::from_fn(|i| i16::from_le_bytes([b[2 * i], b[2 * i + 1]]))
        };
        let mut arena = [0u8; 12 + 6];
        for (c, x) in arena[..12].chunks_exact_mut(4).zip([2.5f32, -0.75, 1e6]) {
            c.copy_from_slice(&x.to_le_bytes());
        }
        let q = QuantizeF32S16 {
            len: 3,
            scale: 0.5,
            zero_point: -3,
        };
        quantize_f32_s16(&mut arena, 0, 12, &q);
        // 5 - 3; -1.5 → -2, - 3; 2e6 saturates.
        assert_eq!(read16(&arena[12..]), [2, -5, 32767]);
        let up = RequantizeS8 {
            len: 3,
            input_zero_point: 1,
            output_zero_point: -7,
            multiplier: 1 << 30,
            shift: 9, // × 256
        };
        let mut arena = [10u8, (-128i8) as u8, 127, 0, 0, 0, 0, 0, 0];
        requantize_s8_s16(&mut arena, 0, 3, &up);
        // 9 · 256 - 7; -129 · 256 - 7 saturates; 126 · 256 - 7.
        assert_eq!(read16(&arena[3..]), [2297, -32768, 32249]);
        let down = RequantizeS8 {
            shift: 0, // × 1/2
            ..up
        };
        requantize_s16(&mut arena, 3, 3, &down);
        // (2297 - 1) / 2 = 1148, - 7; -32769 / 2 → -16384 (the doubling high multiply's
        // rounding), - 7; (32249 - 1) / 2 = 16124, - 7.
        assert_eq!(read16(&arena[3..]), [1141, -16391, 16117]);
        let d = DequantizeS16F32 {
            len: 3,
            scale: 0.25,
            zero_point: 1,
        };
        let mut wide = [0u8; 6 + 12];
        wide[..6].copy_from_slice(&arena[3..]);
        dequantize_s16_f32(&mut wide, 0, 6, &d);
        let out: [f32; 3] = core::array::from_fn(|i| crate::bytes::read_f32(&wide[6..], i));
        assert_eq!(out, [285.0, -4098.0, 4029.0]);
    }

    /// int8 ↔ uint8: the identity rescaling with zero points 128 apart is TFLM's `x ^ 0x80`; a
    /// real rescaling clamps to the output type; uint8 → float32 subtracts the zero point.
    #[test]
    fn uint8_conversions() {
        let flip = RequantizeS8 {
            len: 4,
            input_zero_point: -5,
            output_zero_point: 123,
            multiplier: 1 << 30,
            shift: 1,
        };
        let mut arena = [0x80u8, 0xff, 0, 0x7f];
        requantize_s8_u8(&mut arena, 0, 0, &flip);
        assert_eq!(arena, [0x80u8 ^ 0x80, 0xff ^ 0x80, 0x80, 0x7f ^ 0x80]);
        let back = RequantizeS8 {
            input_zero_point: 123,
            output_zero_point: -5,
            ..flip
        };
        requantize_u8_s8(&mut arena, 0, 0, &back);
        assert_eq!(arena, [0x80u8, 0xff, 0, 0x7f]);
        let double = RequantizeS8 {
            shift: 2, // × 2
            ..back
        };
        let mut arena = [0u8, 100, 200, 255];
        requantize_u8_s8(&mut arena, 0, 0, &double);
        // 2 (x - 123) - 5, clamped: -251 → -128, -51, 149 → 127, 259 → 127.
        assert_eq!(arena.map(|b| b as i8), [-128, -51, 127, 127]);
        let d = DequantizeU8F32 {
            len: 2,
            scale: 0.5,
            zero_point: 128,
        };
        let mut wide = [255u8, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        dequantize_u8_f32(&mut wide, 0, 2, &d);
        assert_eq!(crate::bytes::read_f32(&wide[2..], 0), 63.5);
        assert_eq!(crate::bytes::read_f32(&wide[2..], 1), -64.0);
    }

    #[test]
    fn round_matches_roundf() {
        for &(x, r) in &[
            (0.5f32, 1.0f32),
            (-0.5, -1.0),
            (1.49999, 1.0),
            (2.5, 3.0),
            (-2.5, -3.0),
            (0.49999997, 0.0),
            (-7.0, -7.0),
            (1e10, 1e10),
        ] {
            assert_eq!(round_half_away(x), r, "{x}");
        }
    }

    #[test]
    fn quantize_rounds_and_clamps_in_place() {
        let mut arena = [0u8; 16];
        for (i, v) in [0.25f32, -0.25, 100.0, -0.74].iter().enumerate() {
            arena[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        let p = QuantizeF32S8 {
            len: 4,
            scale: 0.5,
            zero_point: -1,
        };
        quantize_f32_s8(&mut arena, 0, 0, &p);
        // 0.5 -> 1 - 1 = 0; -0.5 -> -1 - 1 = -2; 200 -> 127; -1.48 -> -1 - 1 = -2
        assert_eq!(&arena[..4], &[0u8, (-2i8) as u8, 127, (-2i8) as u8]);
    }

    #[test]
    fn requantize_and_dequantize() {
        let mut arena = [10u8, (-10i8) as u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let p = RequantizeS8 {
            len: 2,
            input_zero_point: 0,
            output_zero_point: 3,
            multiplier: 1 << 30,
            shift: 0,
        };
        requantize_s8(&mut arena, 0, 0, &p);
        assert_eq!(&arena[..2], &[8u8, (-2i8) as u8]); // 5 + 3, -5 + 3
        let d = DequantizeS8F32 {
            len: 2,
            scale: 0.5,
            zero_point: 3,
        };
        dequantize_s8_f32(&mut arena, 0, 4, &d);
        let mut wide = [0u8; 4];
        wide[..2].copy_from_slice(&(-1000i16).to_le_bytes());
        wide[2..].copy_from_slice(&300i16.to_le_bytes());
        let p = RequantizeS8 {
            len: 2,
            input_zero_point: 0,
            output_zero_point: -128,
            multiplier: 1 << 30,
            shift: -1, // 0.25
        };
        requantize_s16_s8(&mut wide, 0, 0, &p);
        assert_eq!(&wide[..2], &[(-128i8) as u8, (-53i8) as u8]); // -250 - 128 clamps; 75 - 128
        assert_eq!(crate::bytes::read_f32(&arena[4..], 0), 2.5);
        assert_eq!(crate::bytes::read_f32(&arena[4..], 1), -2.5);
    }
}

//! ABS, NEG, RSQRT, SQRT, SQUARE, LOG, SIN and COS, TFLM's `elementwise.cc` (and `neg.cc`, and EXP's
//! `exp.cc`) math operators: element-wise unary functions, as TFLM computes them. The float32
//! square root is correctly rounded (what the C library's `sqrtf` returns), computed with integers so that no `libm` is needed; an int8
//! operator is a 256-entry table computed at generation time with TFLM's integer arithmetic.
//!
//! Access order: element by element in order, each element read before it is written; input and
//! output have the same size, so every kernel here may run in place (output offset == input
//! offset). The output must not otherwise overlap the input.

use super::elem::map;
use super::nn_common::float_math::{
    cos_f32 as cosine, exp_f32 as e_f32, log_f32 as ln_f32, sin_f32 as sine, sqrt_f32 as root_f32,
};
use crate::math::multiply_by_quantized_multiplier;

/// Constants of a float32 element-wise kernel that needs only the element count.
#[derive(Clone, Copy, Debug)]
pub struct UnaryF32 {
    /// Number of elements.
    pub len: usize,
}

/// Constants of an int8 element-wise function given as a table of its 256 results.
#[derive(Clone, Copy, Debug)]
pub struct LutS8<'a> {
    /// Number of elements.
    pub len: usize,
    /// The output for each input `x`, at index `x + 128` (256 entries), computed by the lowering
    /// with TFLM's integer arithmetic.
    pub table: &'a [i8],
}

/// float32 RSQRT: `1 / sqrt(x)` in single precision (TFLM's `1.f / std::sqrt(f)`): +inf for
/// +0, -inf for -0, NaN below 0.
#[cfg_attr(target_os = "none", inline(never))]
pub fn rsqrt_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| 1.0 / root_f32(x));
}

/// int8 table lookup: `table[x + 128]`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn lut_s8(arena: &mut [u8], input: usize, output: usize, p: &LutS8) {
    let p = super::opaque(p);
    let table: &[i8; 256] = p.table[..256].try_into().expect("256 entries");
    map(arena, input, output, p.len, |x: i8| {
        table[(i32::from(x) + 128) as usize]
    });
}

/// Constants of int16 ABS (TFLM's `AbsEval` for int16).
#[derive(Clone, Copy, Debug)]
pub struct AbsS16 {
    /// Number of elements.
    pub len: usize,
    /// The tensors are quantized (zero points 0): `|x|` saturates at 32767, rescaled when
    /// `rescale`. Otherwise `|x|` is taken as TFLM's `std::abs` on an unquantized int16
    /// (`-32768` stays `-32768`).
    pub quantized: bool,
    /// The input and output scales differ: `|x|` is multiplied by `multiplier`, `shift`.
    pub rescale: bool,
    /// TFLM's `QuantizeMultiplier(input scale / output scale)` (the ratio taken in float).
    pub multiplier: i32,
    /// Its shift.
    pub shift: i32,
}

/// float32 ABS: `|x|` (the sign bit cleared, as `fabsf`).
#[cfg_attr(target_os = "none", inline(never))]
pub fn abs_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| {
        f32::from_bits(x.to_bits() & 0x7FFF_FFFF)
    });
}

/// int16 ABS, as TFLM's `AbsEvalQuantized` (or `AbsHelper` when unquantized).
#[cfg_attr(target_os = "none", inline(never))]
pub fn abs_s16(arena: &mut [u8], input: usize, output: usize, p: &AbsS16) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: i16| {
        if !p.quantized {
            return x.wrapping_abs();
        }
        let value = i32::from(x).abs();
        let out = if p.rescale {
            multiply_by_quantized_multiplier(value, p.multiplier, p.shift)
        } else {
            value
        };
        out.clamp(-32768, 32767) as i16
    });
}

/// float32 NEG: `-x` (the sign bit flipped).
#[cfg_attr(target_os = "none", inline(never))]
pub fn neg_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| -x);
}

/// float32 SQRT: the correctly rounded `sqrt(x)` (TFLM's `std::sqrt`): NaN below 0, -0 for -0.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sqrt_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, root_f32);
}

/// float32 SQUARE: `x * x` in single precision.
#[cfg_attr(target_os = "none", inline(never))]
pub fn square_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: f32| x * x);
}

/// float32 EXP: `std::exp` of a float (TFLM's `reference_ops::Exp`): glibc's `expf` bit for bit
/// (its algorithm, single precision on FPU cores where unambiguous): 0 below about -103.97, +inf
/// above about 88.72, NaN for NaN.
#[cfg_attr(target_os = "none", inline(never))]
pub fn exp_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, e_f32);
}

/// float32 LOG: `std::log` of a float (TFLM's `LogEval`): glibc's `logf` bit for bit (its
/// algorithm, single precision on FPU cores where unambiguous): -inf at ±0, NaN below 0.
#[cfg_attr(target_os = "none", inline(never))]
pub fn log_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, ln_f32);
}

/// float32 SIN: `std::sin` of a float (TFLM's `SinEval`), computed in double after an exact
/// argument reduction and rounded once: NaN for ±inf and NaN.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sin_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, sine);
}

/// float32 COS: `std::cos` of a float (TFLM's `CosEval`), as [`sin_f32`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn cos_f32(arena: &mut [u8], input: usize, output: usize, p: &UnaryF32) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, cosine);
}

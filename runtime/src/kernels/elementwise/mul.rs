//! int8 and int16 MUL ([`mul_s8`], [`mul_s16`]): TFLM's `MulElementwise`.

use crate::kernels::broadcast::{binary, binary_flat};
use crate::math::multiply_by_quantized_multiplier;
use crate::Src;

/// Constants of int8 MUL: `(x1 - zp1) * (x2 - zp2)` requantized by `s1 * s2 / s_out`.
#[derive(Clone, Copy, Debug)]
pub struct MulS8<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Minus input 1's zero point.
    pub a_offset: i32,
    /// Minus input 2's zero point.
    pub b_offset: i32,
    /// Output multiplier (Q31).
    pub output_multiplier: i32,
    /// Output shift (positive = left).
    pub output_shift: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// Lower clamp (fused activation).
    pub act_min: i32,
    /// Upper clamp (fused activation).
    pub act_max: i32,
}

/// int8 MUL with broadcasting, bit-exact with TFLM. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MulS8) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        s8_fn(p),
    );
}

/// Constants of int16 MUL (16x8 models): [`MulS8`]'s, the offsets 0 (TFLM requires int16 zero
/// points of 0) and the activation range within int16.
pub type MulS16<'a> = MulS8<'a>;

/// One MUL output before the cast: TFLM's `MulElementwise`, `zp_out + MBQM((x + a_offset) *
/// (y + b_offset))` clamped max then min (no panic should `act_min` exceed `act_max`).
#[inline(always)]
fn mul_one(x: i32, y: i32, p: &MulS8) -> i32 {
    let prod = (p.a_offset + x).wrapping_mul(p.b_offset + y);
    let out = multiply_by_quantized_multiplier(prod, p.output_multiplier, p.output_shift)
        + p.output_offset;
    out.max(p.act_min).min(p.act_max)
}

/// The int8 MUL element function of the broadcast and the same-shape entries.
#[inline(always)]
fn s8_fn<'p>(p: &'p MulS8<'p>) -> impl Fn(i8, i8) -> i8 + 'p {
    move |x, y| mul_one(x.into(), y.into(), p) as i8
}

/// The int16 MUL element function of both int16 entries, as [`s8_fn`].
#[inline(always)]
fn s16_fn<'p>(p: &'p MulS16<'p>) -> impl Fn(i16, i16) -> i16 + 'p {
    move |x, y| mul_one(x.into(), y.into(), p) as i16
}

/// int16 MUL with broadcasting, bit-exact with TFLM's `MulElementwise<int16_t>` (the product of
/// two int16 values fits in int32). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_s16(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MulS16) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        s16_fn(p),
    );
}

/// int8 MUL of inputs of the output's shape (no broadcast: the lowering's choice when the shapes
/// are equal): [`mul_s8`] without the broadcast paths. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_s8_flat(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MulS8) {
    let p = crate::kernels::opaque(p);
    binary_flat(arena, (a, b, output), p.shape, s8_fn(p));
}

/// int16 MUL of inputs of the output's shape: [`mul_s16`] without the broadcast paths, as
/// [`mul_s8_flat`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_s16_flat(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MulS16) {
    let p = crate::kernels::opaque(p);
    binary_flat(arena, (a, b, output), p.shape, s16_fn(p));
}

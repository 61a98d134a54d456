//! int8 and int16 ADD and SUB ([`add_s8`], [`sub_s8`], [`add_s16`], [`sub_s16`]): TFLM's
//! `left_shift` scheme, with a short path for int8 ([`narrow_add`]) and, with the DSP extension,
//! its assembly (`add_dsp.rs`).

#[cfg(tinyaot_dsp)]
use super::add_dsp::add_sub_s8_dsp;
use super::clamp_s8;
use crate::kernels::broadcast::{binary, binary_flat};
use crate::kernels::nn_common::requant::rounding_high_mul;
use crate::math::multiply_by_quantized_multiplier_smaller_than_one_exp;
use crate::Src;

/// Constants of int8 ADD and SUB (TFLM's `left_shift = 20` scheme): each input is offset,
/// shifted left by `left_shift` and rescaled to `2 * max(s1, s2)`; the sum (difference) is rescaled
/// to the output scale.
#[derive(Clone, Copy, Debug)]
pub struct AddS8<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Minus input 1's zero point.
    pub a_offset: i32,
    /// Input 1's multiplier (Q31, below one).
    pub a_multiplier: i32,
    /// Input 1's shift (<= 0).
    pub a_shift: i32,
    /// Minus input 2's zero point.
    pub b_offset: i32,
    /// Input 2's multiplier (Q31, below one).
    pub b_multiplier: i32,
    /// Input 2's shift (<= 0).
    pub b_shift: i32,
    /// Left shift applied to both offset inputs (20 for int8).
    pub left_shift: i32,
    /// Output multiplier (Q31, below one).
    pub output_multiplier: i32,
    /// Output shift (<= 0).
    pub output_shift: i32,
    /// Output zero point.
    pub output_offset: i32,
    /// Lower clamp (fused activation).
    pub act_min: i32,
    /// Upper clamp (fused activation).
    pub act_max: i32,
}

/// Constants of int8 SUB: the same as ADD's, input 2 subtracted instead of added.
pub type SubS8<'a> = AddS8<'a>;

/// The int8 ADD/SUB arithmetic on one pair; `sign` is 1 for ADD and -1 for SUB.
#[inline(always)]
fn add_sub_s8(x: i8, y: i8, p: &AddS8, sign: i32) -> i8 {
    clamp_s8(
        add_sub_unclamped(x.into(), y.into(), p, sign),
        p.act_min,
        p.act_max,
    )
}

/// TFLM's `AddElementwise` / `SubElementwise` on one pair before the activation clamp, for int8
/// (left shift 20) and int16 (left shift 15) alike; `sign` is 1 for ADD and -1 for SUB.
#[inline(always)]
fn add_sub_unclamped(x: i32, y: i32, p: &AddS8, sign: i32) -> i32 {
    let a = (p.a_offset + x).wrapping_mul(1 << p.left_shift);
    let b = (p.b_offset + y).wrapping_mul(1 << p.left_shift);
    let a = multiply_by_quantized_multiplier_smaller_than_one_exp(a, p.a_multiplier, p.a_shift);
    let b = multiply_by_quantized_multiplier_smaller_than_one_exp(b, p.b_multiplier, p.b_shift);
    let raw = a.wrapping_add(b.wrapping_mul(sign));
    multiply_by_quantized_multiplier_smaller_than_one_exp(raw, p.output_multiplier, p.output_shift)
        + p.output_offset
}

/// True when [`add_sub_s8_narrow`] gives [`add_sub_s8`]'s bits: int8 offsets (`|x + offset| <=
/// 255`), a left shift of at most 20, non-negative multipliers and right shifts within 0..=31. Then
/// every value multiplied stays below 2^30 in magnitude (255 * 2^20 per input, twice that for the
/// sum, since a doubling high multiply by a Q31 multiplier never grows a value).
pub(super) fn narrow_add(p: &AddS8) -> bool {
    let offset = |o: i32| (-127..=128).contains(&o);
    let multiplier = |m: i32| m >= 0;
    let shift = |s: i32| (-31..=0).contains(&s);
    offset(p.a_offset)
        && offset(p.b_offset)
        && (0..=20).contains(&p.left_shift)
        && multiplier(p.a_multiplier)
        && multiplier(p.b_multiplier)
        && multiplier(p.output_multiplier)
        && shift(p.a_shift)
        && shift(p.b_shift)
        && shift(p.output_shift)
}

/// [`add_sub_s8`] for parameters [`narrow_add`] accepts, in about a third of the instructions:
/// each `MultiplyByQuantizedMultiplierSmallerThanOneExp` is one rounding high multiply of the
/// doubled value (`floor((v m + 2^30) / 2^31) = floor((2 v m + 2^31) / 2^32)`, and `2 v` fits) and
/// a rounding division without a branch, [`halve_doubled_by_pot`] and a final halving: every value
/// divided stays below 2^30 in magnitude (the rescaled inputs below 255 · 2^20, their sum and its
/// rescaling below 2^29), so it applies for a zero shift too.
#[inline(always)]
pub(super) fn add_sub_s8_narrow(x: i8, y: i8, p: &AddS8, sign: i32) -> i8 {
    let a = (p.a_offset + i32::from(x)) << (p.left_shift + 1);
    let b = (p.b_offset + i32::from(y)) << (p.left_shift + 1);
    let a = (halve_doubled_by_pot(rounding_high_mul(a, p.a_multiplier), -p.a_shift) + 1) >> 1;
    let b = (halve_doubled_by_pot(rounding_high_mul(b, p.b_multiplier), -p.b_shift) + 1) >> 1;
    let raw = a + b * sign;
    let scaled = rounding_high_mul(raw << 1, p.output_multiplier);
    // The zero point joins the final halving: `(t + 1 + 2 zp) >> 1 = ((t + 1) >> 1) + zp`.
    let doubled = halve_doubled_by_pot(scaled, -p.output_shift);
    let out = (doubled + 1 + 2 * p.output_offset) >> 1;
    clamp_s8(out, p.act_min, p.act_max)
}

/// `(2 h - [h < 0]) >> right` for `|h| < 2^30` and `right` in `0..=31`: one more halving of it,
/// rounding up (`(t + 1) >> 1`), is TFLM's `RoundingDivideByPOT(h, right)` (to nearest, ties away
/// from zero), for a zero `right` too, where `divide_high_by_pot` needs a branch. For `right >=
/// 1` it equals that function's `(h - [h < 0]) >> (right - 1)`: `2 h - 1` is odd, so flooring it
/// or `2 h - 2` by `2^right` gives the same; for `right = 0` the halving gives `h` back.
#[inline(always)]
pub(super) fn halve_doubled_by_pot(h: i32, right: i32) -> i32 {
    (2 * h - i32::from(h < 0)) >> right
}

/// int8 ADD: `a + b` with broadcasting, bit-exact with TFLM. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &AddS8) {
    add_sub_s8_kernel(arena, (a, b, output), p, false);
}

/// int8 SUB: `a - b` with broadcasting, bit-exact with TFLM. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &SubS8) {
    add_sub_s8_kernel(arena, (a, b, output), p, true);
}

/// int8 ADD of inputs of the output's shape (no broadcast: the lowering's choice when the shapes
/// are equal): [`add_s8`] without the broadcast paths. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_s8_flat(arena: &mut [u8], a: Src, b: Src, output: usize, p: &AddS8) {
    add_sub_s8_flat_kernel(arena, (a, b, output), p, false);
}

/// int8 SUB of inputs of the output's shape: [`sub_s8`] without the broadcast paths, as
/// [`add_s8_flat`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_s8_flat(arena: &mut [u8], a: Src, b: Src, output: usize, p: &SubS8) {
    add_sub_s8_flat_kernel(arena, (a, b, output), p, true);
}

/// [`add_s8`] (`subtract` false) and [`sub_s8`] (`subtract` true): one copy of the loops for
/// both, the sign a run-time value (a multiply-accumulate where ADD alone had an add), where a
/// copy each (and of each element function) cost a model with both 1.3 KB of Cortex-M4 code.
#[inline(never)]
fn add_sub_s8_kernel(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    p: &AddS8,
    subtract: bool,
) {
    let p = crate::kernels::opaque(p);
    #[cfg(tinyaot_dsp)]
    if add_sub_s8_dsp(arena, (a, b, output), p, subtract) {
        return;
    }
    let sign = if subtract { -1 } else { 1 };
    let broadcast = (p.shape, p.a_strides, p.b_strides);
    if narrow_add(p) {
        binary(arena, (a, b, output), broadcast, narrow_fn(p, sign));
    } else {
        binary(arena, (a, b, output), broadcast, outlined_fn(p, sign));
    }
}

/// [`add_sub_s8_kernel`] for [`add_s8_flat`] and [`sub_s8_flat`]: the assembly where it applies,
/// else the element loop alone.
#[inline(never)]
fn add_sub_s8_flat_kernel(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    p: &AddS8,
    subtract: bool,
) {
    let p = crate::kernels::opaque(p);
    #[cfg(tinyaot_dsp)]
    if add_sub_s8_dsp(arena, (a, b, output), p, subtract) {
        return;
    }
    let sign = if subtract { -1 } else { 1 };
    if narrow_add(p) {
        binary_flat(arena, (a, b, output), p.shape, narrow_fn(p, sign));
    } else {
        binary_flat(arena, (a, b, output), p.shape, outlined_fn(p, sign));
    }
}

/// [`add_sub_s8_narrow`] as the element function of the broadcast and the same-shape entries.
#[inline(always)]
fn narrow_fn<'p>(p: &'p AddS8<'p>, sign: i32) -> impl Fn(i8, i8) -> i8 + 'p {
    move |x, y| add_sub_s8_narrow(x, y, p, sign)
}

/// [`add_sub_s8_outlined`] as the element function of both int8 entries, as [`narrow_fn`].
#[inline(always)]
fn outlined_fn<'p>(p: &'p AddS8<'p>, sign: i32) -> impl Fn(i8, i8) -> i8 + 'p {
    move |x, y| add_sub_s8_outlined(x, y, p, sign)
}

/// The int16 ADD (`sign` 1) and SUB (-1) element function of every int16 entry, as
/// [`narrow_fn`].
#[inline(always)]
fn s16_fn<'p>(p: &'p AddS16<'p>, sign: i32) -> impl Fn(i16, i16) -> i16 + 'p {
    move |x, y| {
        add_sub_unclamped(x.into(), y.into(), p, sign)
            .max(p.act_min)
            .min(p.act_max) as i16
    }
}

/// [`add_sub_s8`], not inlined on bare metal: the path of parameters [`narrow_add`] refuses,
/// which TFLite's int8 quantization does not produce (its loops then stay small).
#[cfg_attr(target_os = "none", inline(never))]
fn add_sub_s8_outlined(x: i8, y: i8, p: &AddS8, sign: i32) -> i8 {
    add_sub_s8(x, y, p, sign)
}

/// Constants of int16 ADD and SUB (16x8 models): [`AddS8`]'s, with TFLM's int16 left shift of 15
/// and int16 zero points and activation range.
pub type AddS16<'a> = AddS8<'a>;

/// Constants of int16 SUB: [`AddS16`]'s.
pub type SubS16<'a> = AddS8<'a>;

/// int16 ADD: `a + b` with broadcasting, bit-exact with TFLM's `AddElementwise<int16_t>` (the
/// general path: the int8 short path's bounds do not hold for int16). See the module docs for
/// access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_s16(arena: &mut [u8], a: Src, b: Src, output: usize, p: &AddS16) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        s16_fn(p, 1),
    );
}

/// int16 SUB: `a - b` with broadcasting, as [`add_s16`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_s16(arena: &mut [u8], a: Src, b: Src, output: usize, p: &SubS16) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        s16_fn(p, -1),
    );
}

/// int16 ADD of inputs of the output's shape: [`add_s16`] without the broadcast paths, as
/// [`add_s8_flat`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_s16_flat(arena: &mut [u8], a: Src, b: Src, output: usize, p: &AddS16) {
    let p = crate::kernels::opaque(p);
    binary_flat(arena, (a, b, output), p.shape, s16_fn(p, 1));
}

/// int16 SUB of inputs of the output's shape: [`sub_s16`] without the broadcast paths, as
/// [`add_s8_flat`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_s16_flat(arena: &mut [u8], a: Src, b: Src, output: usize, p: &SubS16) {
    let p = crate::kernels::opaque(p);
    binary_flat(arena, (a, b, output), p.shape, s16_fn(p, -1));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The narrow ADD/SUB against the reference arithmetic on every pair of int8 inputs, for
    /// pseudo-random parameters within what `narrow_add` accepts (and at its edges).
    #[test]
    fn narrow_add_sub_matches_the_reference_on_every_input_pair() {
        let mut state = 0x1234_5678_9abc_def1u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let sets = if cfg!(miri) { 1 } else { 40 };
        for set in 0..sets {
            let mut multiplier = || (next() >> 33) as i32 | 1 << 30;
            let (a_multiplier, b_multiplier, output_multiplier) =
                (multiplier(), multiplier(), multiplier());
            let offset = |r: u64| (r % 256) as i32 - 127;
            let p = AddS8 {
                shape: &[],
                a_strides: &[],
                b_strides: &[],
                a_offset: if set == 0 { 128 } else { offset(next()) },
                a_multiplier: if set == 0 { i32::MAX } else { a_multiplier },
                a_shift: -((next() % 4) as i32),
                b_offset: if set == 0 { -127 } else { offset(next()) },
                b_multiplier,
                b_shift: -((next() % 4) as i32),
                left_shift: 20,
                output_multiplier,
                output_shift: -((next() % 24) as i32),
                output_offset: offset(next()),
                act_min: -128,
                act_max: 127,
            };
            assert!(narrow_add(&p));
            let step = if cfg!(miri) { 37 } else { 1 };
            for x in (-128..=127i8).step_by(step) {
                for y in (-128..=127i8).step_by(step) {
                    for sign in [1, -1] {
                        assert_eq!(
                            add_sub_s8_narrow(x, y, &p, sign),
                            add_sub_s8(x, y, &p, sign),
                            "{p:?} {x} {y} {sign}"
                        );
                    }
                }
            }
        }
    }
}

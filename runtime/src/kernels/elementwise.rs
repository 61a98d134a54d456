//! Binary element-wise ops with broadcasting: ADD, SUB, MUL, MAXIMUM and MINIMUM (int8, int16, int32
//! and float32; MAXIMUM and MINIMUM also int64).
//!
//! Every kernel here takes both inputs as [`Src`] (either may be a constant) and a collapsed
//! broadcast description computed at generation time: `shape` (the output's, with adjacent
//! dimensions that broadcast alike merged) and one element stride per dimension for each input
//! (0 along a dimension the input broadcasts; the innermost stride is 0 or 1).
//!
//! Access order: the output is written in order. When no arena input overlaps the output the
//! kernel reads the inputs directly; otherwise it stages them chunk by chunk, each chunk of both
//! inputs read before the chunk of output is written. So the output may be the same tensor as (same
//! offset as) an input whose strides are all non-zero (an input of the output's shape):
//! ADD/SUB/MUL/MAXIMUM/MINIMUM can run in place. The output must not otherwise overlap an input.

use super::broadcast::binary;
#[cfg(tinyaot_dsp)]
use super::nn_common::requant::clamp_operand;
use super::nn_common::requant::rounding_high_mul;
use crate::math::{
    multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_smaller_than_one_exp,
};
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

/// Constants of float32 ADD, SUB and MUL.
#[derive(Clone, Copy, Debug)]
pub struct BinaryF32<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Lower clamp (fused activation; `f32::MIN` for none).
    pub act_min: f32,
    /// Upper clamp (fused activation; `f32::MAX` for none).
    pub act_max: f32,
}

/// Constants of int32 ADD, SUB and MUL: TFLM's unquantized int32 arithmetic (`a + b`, `a - b`,
/// `a * b` wrapping around at int32's bounds), clamped to the fused activation's range.
#[derive(Clone, Copy, Debug)]
pub struct BinaryS32<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Lower clamp: TFLM's `CalculateActivationRange<int32_t>` of the fused activation (0 for
    /// RELU and RELU6, -1 for RELU_N1_TO_1, `i32::MIN` otherwise and always for ADD, whose int32
    /// path ignores the activation).
    pub act_min: i32,
    /// Upper clamp: 6 for RELU6, 1 for RELU_N1_TO_1, `i32::MAX` otherwise and always for ADD.
    pub act_max: i32,
}

/// Constants of MAXIMUM and MINIMUM (every type: TFLM compares raw values, no requantization).
#[derive(Clone, Copy, Debug)]
pub struct MinMax<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
}

/// Constants of int8 PRELU (TFLM's `PreluParams`): `x - zp_in` rescaled by `s_in / s_out` where
/// it is at least 0, else its product with `alpha - zp_alpha` rescaled by `s_in * s_alpha / s_out`.
#[derive(Clone, Copy, Debug)]
pub struct PreluS8<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of the input per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of alpha per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Minus the input's zero point.
    pub input_offset: i32,
    /// Minus alpha's zero point.
    pub alpha_offset: i32,
    /// The output's zero point.
    pub output_offset: i32,
    /// `s_in / s_out` (Q31), for inputs at or above the zero point.
    pub multiplier_1: i32,
    /// Its shift (positive = left).
    pub shift_1: i32,
    /// `s_in * s_alpha / s_out` (Q31), for inputs below the zero point.
    pub multiplier_2: i32,
    /// Its shift (positive = left).
    pub shift_2: i32,
}

/// Constants of float32 PRELU: the broadcast alone.
pub type PreluF32<'a> = MinMax<'a>;

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
fn narrow_add(p: &AddS8) -> bool {
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
fn add_sub_s8_narrow(x: i8, y: i8, p: &AddS8, sign: i32) -> i8 {
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

/// The elements [`add_s8_pass`] sums before [`add_s8_requantize`] requantizes them: 256 bytes of
/// stack.
#[cfg(tinyaot_dsp)]
const ADD_CHUNK: usize = 64;

/// [`add_s8`] (`subtract` false) and [`sub_s8`] (`subtract` true) on ARMv7E-M in the usual case,
/// in assembly: the short path's parameters ([`narrow_add`]) with TFLM's left shift of 20, inputs
/// of the output's shape (one contiguous run after collapsing; one of them may be the output
/// itself, in place), and an output zero point and activation range within int8. Chunk by chunk,
/// the two inputs' rescaled values are summed (20 instructions per element), then the sums
/// requantized (11, or 14 for an activation range narrower than int8), where the closure loop
/// took about 56.
/// Returns false, having written nothing, when the case is not the usual one.
#[cfg(tinyaot_dsp)]
#[inline(always)]
fn add_sub_s8_dsp(
    arena: &mut [u8],
    (a, b, output): (Src, Src, usize),
    p: &AddS8,
    subtract: bool,
) -> bool {
    let int8 = -128..=127;
    let usual = p.shape.len() == 1
        && p.a_strides == [1]
        && p.b_strides == [1]
        && p.left_shift == 20
        && narrow_add(p)
        && int8.contains(&p.output_offset)
        && int8.contains(&p.act_min)
        && int8.contains(&p.act_max)
        && p.act_min <= p.act_max;
    if !usual {
        return false;
    }
    let n = p.shape[0];
    let mut sums = [0i32; ADD_CHUNK];
    let Some((x, y, out)) = super::broadcast::disjoint(arena, (a, n), (b, n), output, n) else {
        // In place (an input at the output's offset): each chunk of both inputs is read, here
        // onto the stack, before the chunk of output is written.
        let (mut xs, mut ys) = ([0u8; ADD_CHUNK], [0u8; ADD_CHUNK]);
        let mut start = 0;
        while start < n {
            let len = ADD_CHUNK.min(n - start);
            for (src, staged) in [(a, &mut xs), (b, &mut ys)] {
                staged[..len].copy_from_slice(match src {
                    Src::Arena(offset) => &arena[offset + start..][..len],
                    Src::Bytes(bytes) => &bytes[start..][..len],
                });
            }
            let sums = &mut sums[..len];
            add_s8_pass(&xs[..len], &ys[..len], sums, p, subtract);
            add_s8_requantize(sums, &mut arena[output + start..][..len], p);
            start += len;
        }
        return true;
    };
    for ((x, y), o) in x[..n]
        .chunks(ADD_CHUNK)
        .zip(y[..n].chunks(ADD_CHUNK))
        .zip(out.chunks_mut(ADD_CHUNK))
    {
        let sums = &mut sums[..o.len()];
        add_s8_pass(x, y, sums, p, subtract);
        add_s8_requantize(sums, o, p);
    }
    true
}

/// One input's rescaling in [`add_s8_pass`]'s assembly: register `$v` (the input plus its offset,
/// shifted left by 21, i.e. doubled after TFLM's 20) times multiplier `$m`, rounded
/// ([`rounding_high_mul`]), then [`halve_doubled_by_pot`] by `$r` plus one into `{t}`; the final
/// halving is left to the sum's instruction (`asr #1` of its operand).
#[cfg(tinyaot_dsp)]
macro_rules! add_rescale {
    ($v:literal, $m:literal, $r:literal) => {
        concat!(
            "lsl {",
            $v,
            "}, {",
            $v,
            "}, #21\n",
            "smmulr {",
            $v,
            "}, {",
            $v,
            "}, {",
            $m,
            "}\n",
            "lsl {t}, {",
            $v,
            "}, #1\n",
            "sub {t}, {t}, {",
            $v,
            "}, lsr #31\n",
            "asr {t}, {t}, {",
            $r,
            "}\n",
            "add {t}, {t}, #1\n",
        )
    };
}

/// `sums[i]` = input 1's rescaled element plus (or minus, `subtract`) input 2's, as
/// [`add_sub_s8_narrow`] computes them before its output rescaling; `x`, `y` and `sums` equally
/// long (at least one element).
#[cfg(tinyaot_dsp)]
#[inline(always)]
fn add_s8_pass(x: &[u8], y: &[u8], sums: &mut [i32], p: &AddS8, subtract: bool) {
    let n = sums.len();
    assert!(
        n > 0 && x.len() >= n && y.len() >= n,
        "add chunk shorter than its sums"
    );
    let offsets = u32::from(p.a_offset as i16 as u16) | u32::from(p.b_offset as i16 as u16) << 16;
    let (mut xp, mut yp, mut sp) = (x.as_ptr(), y.as_ptr(), sums.as_mut_ptr());
    let end = sp.wrapping_add(n);
    macro_rules! pass {
        ($combine:literal) => {
            // SAFETY: each iteration reads one byte of `x` and of `y` and writes one `i32` of
            // `sums`, n >= 1 times, with `end` n elements past `sums`: in bounds (asserted);
            // `ldrsb` needs no alignment and `sums` is word-aligned for `str`. The offsets are
            // within int16 and the shifts within 0..=31 (`narrow_add`, checked by the caller), as
            // `sxtah` and the register `asr` read them.
            unsafe {
                core::arch::asm!(
                    "2:",
                    "ldrsb {x}, [{xp}], #1",
                    "ldrsb {y}, [{yp}], #1",
                    "sxtah {x}, {x}, {offsets}",
                    "sxtah {y}, {y}, {offsets}, ror #16",
                    add_rescale!("x", "am", "ra"),
                    "asr {x}, {t}, #1",
                    add_rescale!("y", "bm", "rb"),
                    $combine,
                    "str {x}, [{sp}], #4",
                    "cmp {sp}, {end}",
                    "bne 2b",
                    xp = inout(reg) xp,
                    yp = inout(reg) yp,
                    sp = inout(reg) sp,
                    end = in(reg) end,
                    offsets = in(reg) offsets,
                    am = in(reg) p.a_multiplier,
                    bm = in(reg) p.b_multiplier,
                    ra = in(reg) -p.a_shift,
                    rb = in(reg) -p.b_shift,
                    x = out(reg) _,
                    y = out(reg) _,
                    t = out(reg) _,
                    options(nostack),
                );
            }
        };
    }
    if subtract {
        pass!("sub {x}, {x}, {t}, asr #1");
    } else {
        pass!("add {x}, {x}, {t}, asr #1");
    }
    // The pointers are spent.
    let _ = (xp, yp, sp);
}

/// The int8 outputs of [`add_s8_pass`]'s sums, as [`add_sub_s8_narrow`] rescales and clamps them;
/// `out` as long as `sums` (at least one element).
#[cfg(tinyaot_dsp)]
#[inline(always)]
fn add_s8_requantize(sums: &[i32], out: &mut [u8], p: &AddS8) {
    let n = out.len();
    assert!(
        n > 0 && sums.len() >= n,
        "add sums shorter than their outputs"
    );
    let (mut sp, mut op) = (sums.as_ptr(), out.as_mut_ptr());
    let end = op.wrapping_add(n);
    let (om, ro) = (p.output_multiplier, -p.output_shift);
    if (p.act_min, p.act_max) == (-128, 127) {
        // SAFETY: each iteration reads one `i32` of `sums` (word-aligned for `ldr`) and writes one
        // byte of `out`, n >= 1 times, with `end` n bytes past `out`: in bounds (asserted). The
        // shift is within 0..=31 (`narrow_add`, checked by the caller).
        unsafe {
            core::arch::asm!(
                "2:",
                "ldr {v}, [{sp}], #4",
                "lsl {v}, {v}, #1",
                "smmulr {v}, {v}, {om}",
                "lsl {t}, {v}, #1",
                "sub {t}, {t}, {v}, lsr #31",
                "asr {t}, {t}, {ro}",
                "add {t}, {t}, {zp}",
                "ssat {t}, #8, {t}, asr #1",
                "strb {t}, [{op}], #1",
                "cmp {op}, {end}",
                "bne 2b",
                sp = inout(reg) sp,
                op = inout(reg) op,
                end = in(reg) end,
                om = in(reg) om,
                ro = in(reg) ro,
                zp = in(reg) 1 + 2 * p.output_offset,
                v = out(reg) _,
                t = out(reg) _,
                options(nostack),
            );
        }
    } else {
        // The clamp by saturation of the requantization's `requantize_clamped!`: `h - min`
        // clamped below at 0, `R - y` clamped below at 0, `max` less that.
        let pk = clamp_operand(p.output_offset, (p.act_min, p.act_max));
        // SAFETY: as above; the zero point and the range are within int8 (checked by the
        // caller), so both halves of `pk` fit 16 bits.
        unsafe {
            core::arch::asm!(
                "2:",
                "ldr {v}, [{sp}], #4",
                "lsl {v}, {v}, #1",
                "smmulr {v}, {v}, {om}",
                "lsl {t}, {v}, #1",
                "sub {t}, {t}, {v}, lsr #31",
                "asr {t}, {t}, {ro}",
                "sxtah {t}, {t}, {pk}",
                "usat {t}, #31, {t}, asr #1",
                "rsb {t}, {t}, {pk}, asr #16",
                "usat {t}, #31, {t}",
                "rsb {t}, {t}, {top}",
                "strb {t}, [{op}], #1",
                "cmp {op}, {end}",
                "bne 2b",
                sp = inout(reg) sp,
                op = inout(reg) op,
                end = in(reg) end,
                om = in(reg) om,
                ro = in(reg) ro,
                pk = in(reg) pk,
                top = in(reg) p.act_max,
                v = out(reg) _,
                t = out(reg) _,
                options(nostack),
            );
        }
    }
    // The pointers are spent.
    let _ = (sp, op);
}

/// `(2 h - [h < 0]) >> right` for `|h| < 2^30` and `right` in `0..=31`: one more halving of it,
/// rounding up (`(t + 1) >> 1`), is TFLM's `RoundingDivideByPOT(h, right)` (to nearest, ties away
/// from zero), for a zero `right` too, where `divide_high_by_pot` needs a branch. For `right >=
/// 1` it equals that function's `(h - [h < 0]) >> (right - 1)`: `2 h - 1` is odd, so flooring it
/// or `2 h - 2` by `2^right` gives the same; for `right = 0` the halving gives `h` back.
#[inline(always)]
fn halve_doubled_by_pot(h: i32, right: i32) -> i32 {
    (2 * h - i32::from(h < 0)) >> right
}

/// int8 ADD: `a + b` with broadcasting, bit-exact with TFLM. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &AddS8) {
    let p = super::opaque(p);
    #[cfg(tinyaot_dsp)]
    if add_sub_s8_dsp(arena, (a, b, output), p, false) {
        return;
    }
    let broadcast = (p.shape, p.a_strides, p.b_strides);
    if narrow_add(p) {
        binary(arena, (a, b, output), broadcast, |x: i8, y| {
            add_sub_s8_narrow(x, y, p, 1)
        });
    } else {
        binary(arena, (a, b, output), broadcast, |x: i8, y| {
            add_sub_s8(x, y, p, 1)
        });
    }
}

/// int8 SUB: `a - b` with broadcasting, bit-exact with TFLM. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &SubS8) {
    let p = super::opaque(p);
    #[cfg(tinyaot_dsp)]
    if add_sub_s8_dsp(arena, (a, b, output), p, true) {
        return;
    }
    let broadcast = (p.shape, p.a_strides, p.b_strides);
    if narrow_add(p) {
        binary(arena, (a, b, output), broadcast, |x: i8, y| {
            add_sub_s8_narrow(x, y, p, -1)
        });
    } else {
        binary(arena, (a, b, output), broadcast, |x: i8, y| {
            add_sub_s8(x, y, p, -1)
        });
    }
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
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i16, y: i16| {
            add_sub_unclamped(x.into(), y.into(), p, 1)
                .max(p.act_min)
                .min(p.act_max) as i16
        },
    );
}

/// int16 SUB: `a - b` with broadcasting, as [`add_s16`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_s16(arena: &mut [u8], a: Src, b: Src, output: usize, p: &SubS16) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i16, y: i16| {
            add_sub_unclamped(x.into(), y.into(), p, -1)
                .max(p.act_min)
                .min(p.act_max) as i16
        },
    );
}

/// int8 MUL with broadcasting, bit-exact with TFLM. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MulS8) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i8, y: i8| mul_one(x.into(), y.into(), p) as i8,
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

/// int16 MUL with broadcasting, bit-exact with TFLM's `MulElementwise<int16_t>` (the product of
/// two int16 values fits in int32). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_s16(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MulS16) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i16, y: i16| mul_one(x.into(), y.into(), p) as i16,
    );
}

/// `std::min(hi, std::max(lo, x))` as int8, as TFLM clamps (no panic should `lo > hi`).
#[inline(always)]
#[allow(clippy::manual_clamp)]
fn clamp_s8(x: i32, lo: i32, hi: i32) -> i8 {
    x.max(lo).min(hi) as i8
}

/// `min(max(x, lo), hi)` with C++ `std::min`/`std::max` semantics (a NaN `x` stays NaN).
#[inline(always)]
fn clamp_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let y = if x < lo { lo } else { x };
    if hi < y {
        hi
    } else {
        y
    }
}

/// float32 ADD with broadcasting. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y| clamp_f32(x + y, p.act_min, p.act_max),
    );
}

/// float32 SUB with broadcasting. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y| clamp_f32(x - y, p.act_min, p.act_max),
    );
}

/// float32 MUL with broadcasting. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y| clamp_f32(x * y, p.act_min, p.act_max),
    );
}

/// int8 PRELU with a broadcast alpha (input 2), bit-exact with TFLM's `BroadcastPrelu4DSlow`:
/// `zp_out + MBQM(v, m1)` for `v = x - zp_in >= 0`, else `zp_out + MBQM(v * (alpha - zp_alpha),
/// m2)`, clamped to int8. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn prelu_s8(arena: &mut [u8], input: Src, alpha: Src, output: usize, p: &PreluS8) {
    let p = super::opaque(p);
    binary(
        arena,
        (input, alpha, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i8, a: i8| {
            let v = p.input_offset + i32::from(x);
            let out = if v >= 0 {
                multiply_by_quantized_multiplier(v, p.multiplier_1, p.shift_1)
            } else {
                let product = v.wrapping_mul(p.alpha_offset + i32::from(a));
                multiply_by_quantized_multiplier(product, p.multiplier_2, p.shift_2)
            };
            clamp_s8(out + p.output_offset, -128, 127)
        },
    );
}

/// float32 PRELU with a broadcast alpha (input 2): `x >= 0 ? x : x * alpha`, as TFLM's
/// `BroadcastPrelu4DSlowFloat`. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn prelu_f32(arena: &mut [u8], input: Src, alpha: Src, output: usize, p: &PreluF32) {
    let p = super::opaque(p);
    binary(
        arena,
        (input, alpha, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, a| if x >= 0.0 { x } else { x * a },
    );
}

/// int8 MAXIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn maximum_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i8, y| x.max(y),
    );
}

/// int8 MINIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn minimum_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i8, y| x.min(y),
    );
}

/// int16 MAXIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn maximum_s16(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i16, y| x.max(y),
    );
}

/// int16 MINIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn minimum_s16(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i16, y| x.min(y),
    );
}

/// `std::min(std::max(x, lo), hi)`, TFLM's `ActivationFunctionWithMinMax` for int32 (no panic
/// should `lo > hi`).
#[inline(always)]
#[allow(clippy::manual_clamp)]
fn clamp_s32(x: i32, p: &BinaryS32) -> i32 {
    x.max(p.act_min).min(p.act_max)
}

/// int32 ADD with broadcasting: `a + b`, wrapping on overflow, clamped to `[act_min, act_max]`
/// (TFLM's int32 ADD clamps to int32's own range, whatever the fused activation). TFLM computes
/// the sum in C++ `int32_t`, so where it overflows TFLM's result is undefined; its compiled kernels
/// wrap, as this one does. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryS32) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y: i32| clamp_s32(x.wrapping_add(y), p),
    );
}

/// int32 SUB with broadcasting: `a - b`, wrapping on overflow (undefined in TFLM's C++, as for
/// [`add_s32`]), clamped to the fused activation's range. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryS32) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y: i32| clamp_s32(x.wrapping_sub(y), p),
    );
}

/// int32 MUL with broadcasting: `a * b` wrapping on overflow (TFLM's `WrappingMul`), clamped to
/// the fused activation's range. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryS32) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y: i32| clamp_s32(x.wrapping_mul(y), p),
    );
}

/// int32 MAXIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn maximum_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y| x.max(y),
    );
}

/// int32 MINIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn minimum_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y| x.min(y),
    );
}

/// int64 MAXIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn maximum_s64(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i64, y| x.max(y),
    );
}

/// int64 MINIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn minimum_s64(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i64, y| x.min(y),
    );
}

/// float32 MAXIMUM: `x > y ? x : y`, as TFLM. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn maximum_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y| {
            if x > y {
                x
            } else {
                y
            }
        },
    );
}

/// float32 MINIMUM: `x < y ? x : y`, as TFLM. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn minimum_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y| {
            if x < y {
                x
            } else {
                y
            }
        },
    );
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

    /// ADD of two tensors with scale 0.5 / zp 0 into scale 1 / zp 0; multipliers from
    /// twice_max = 1.0: inputs 0.5 (2^30, 0), output 2^-20 (2^30, -19).
    fn add_params<'a>(shape: &'a [usize], a: &'a [usize], b: &'a [usize]) -> AddS8<'a> {
        AddS8 {
            shape,
            a_strides: a,
            b_strides: b,
            a_offset: 0,
            a_multiplier: 1 << 30,
            a_shift: 0,
            b_offset: 0,
            b_multiplier: 1 << 30,
            b_shift: 0,
            left_shift: 20,
            output_multiplier: 1 << 30,
            output_shift: -19,
            output_offset: 0,
            act_min: -128,
            act_max: 127,
        }
    }

    #[test]
    fn add_s8_rounds_half_away_from_zero() {
        // (x + y) * 0.5, rounded: 3 * 0.5 = 1.5 -> 2, -3 * 0.5 -> -2.
        let mut arena = [
            1u8,
            (-1i8) as u8,
            100,
            0,
            2,
            (-2i8) as u8,
            100,
            0,
            0,
            0,
            0,
            0,
        ];
        let p = add_params(&[4], &[1], &[1]);
        add_s8(&mut arena, Src::Arena(0), Src::Arena(4), 8, &p);
        assert_eq!(&arena[8..], &[2u8, (-2i8) as u8, 100, 0]);
    }

    /// int16 ADD and SUB: TFLM's left shift of 15, int16 elements and range, half away from zero.
    #[test]
    fn add_s16_and_sub_s16_round_and_saturate() {
        let p = AddS16 {
            left_shift: 15,
            // (x ± y) * 0.5 again: each input halved, the sum doubled back down by 2^14.
            output_shift: -14,
            act_min: -32768,
            act_max: 32767,
            ..add_params(&[3], &[1], &[1])
        };
        let words = |v: [i16; 3]| {
            let mut b = [0u8; 6];
            for (c, x) in b.chunks_exact_mut(2).zip(v) {
                c.copy_from_slice(&x.to_le_bytes());
            }
            b
        };
        let read = |b: &[u8]| -> [i16; 3] {
            core::array::from_fn(|i| i16::from_le_bytes([b[2 * i], b[2 * i + 1]]))
        };
        let mut arena = [0u8; 18];
        arena[..6].copy_from_slice(&words([1, -3, 32767]));
        arena[6..12].copy_from_slice(&words([2, 0, 32767]));
        add_s16(&mut arena, Src::Arena(0), Src::Arena(6), 12, &p);
        // 1.5 -> 2, -1.5 -> -2, 32767 stays.
        assert_eq!(read(&arena[12..]), [2, -2, 32767]);
        sub_s16(&mut arena, Src::Arena(0), Src::Arena(6), 12, &p);
        // -0.5 -> -1, -1.5 -> -2, 0.
        assert_eq!(read(&arena[12..]), [-1, -2, 0]);
    }

    #[test]
    fn sub_s8_in_place_with_broadcast_scalar() {
        let mut arena = [10u8, 20, 30, (-30i8) as u8];
        let p = add_params(&[4], &[1], &[0]);
        sub_s8(&mut arena, Src::Arena(0), Src::Bytes(&[4u8]), 0, &p);
        // (x - 4) / 2: 3, 8, 13, -17
        assert_eq!(arena, [3u8, 8, 13, (-17i8) as u8]);
    }

    #[test]
    fn sub_s8_in_place_into_the_second_operand_keeps_the_order() {
        // 2 rows of 2: a (flash, broadcast along rows) minus b, written over b.
        let mut arena = [4u8, 8, 12, 16];
        let p = add_params(&[2, 2], &[0, 1], &[2, 1]);
        sub_s8(&mut arena, Src::Bytes(&[20u8, 40]), Src::Arena(0), 0, &p);
        // (a - b) / 2: (20 - 4) / 2, (40 - 8) / 2, (20 - 12) / 2, (40 - 16) / 2.
        assert_eq!(arena, [8u8, 16, 4, 12]);
    }

    #[test]
    fn mul_s8_broadcasts_rows() {
        // a: 2x3, b: 3 (broadcast over rows); multiplier 0.5.
        let mut arena = [1u8, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0];
        let p = MulS8 {
            shape: &[2, 3],
            a_strides: &[3, 1],
            b_strides: &[0, 1],
            a_offset: 0,
            b_offset: 1,
            output_multiplier: 1 << 30,
            output_shift: 0,
            output_offset: -1,
            act_min: -128,
            act_max: 127,
        };
        let b = [1u8, 2, (-1i8) as u8];
        mul_s8(&mut arena, Src::Arena(0), Src::Bytes(&b), 6, &p);
        // (a * (b + 1)) / 2 - 1: row0: 1*2/2-1=0, 2*3/2-1=2, 3*0-1=-1; row1: 3, 6.5->7 -1=6, -1
        assert_eq!(&arena[6..], &[0u8, 2, (-1i8) as u8, 3, 7, (-1i8) as u8]);
    }

    /// int16 MUL: the product requantized (here by 2^-14), rounding half away from zero, clamped to
    /// the activation range; int16 MAXIMUM / MINIMUM compare signed 16-bit values.
    #[test]
    fn mul_s16_and_min_max_s16() {
        let words = |v: [i16; 3]| {
            let mut b = [0u8; 6];
            for (c, x) in b.chunks_exact_mut(2).zip(v) {
                c.copy_from_slice(&x.to_le_bytes());
            }
            b
        };
        let read = |b: &[u8]| -> [i16; 3] {
            core::array::from_fn(|i| i16::from_le_bytes([b[2 * i], b[2 * i + 1]]))
        };
        let p = MulS16 {
            shape: &[3],
            a_strides: &[1],
            b_strides: &[0],
            a_offset: 0,
            b_offset: 0,
            output_multiplier: 1 << 30,
            output_shift: -13, // 2^-14
            output_offset: 0,
            act_min: -32768,
            act_max: 30000,
        };
        let mut arena = [0u8; 12];
        arena[..6].copy_from_slice(&words([8192, -24576, 32767]));
        let b = (-32768i16).to_le_bytes();
        mul_s16(&mut arena, Src::Arena(0), Src::Bytes(&b), 6, &p);
        // 8192 · -32768 / 16384 = -16384; -24576 · -32768 / 16384 = 49152 → 30000;
        // 32767 · -32768 / 16384 = -65534 → -32768.
        assert_eq!(read(&arena[6..]), [-16384, 30000, -32768]);
        let m = MinMax {
            shape: &[3],
            a_strides: &[1],
            b_strides: &[1],
        };
        arena[6..].copy_from_slice(&words([-300, 255, 32767]));
        let mut out = arena;
        maximum_s16(&mut out, Src::Arena(0), Src::Arena(6), 0, &m);
        assert_eq!(read(&out[..6]), [8192, 255, 32767]);
        minimum_s16(&mut arena, Src::Arena(0), Src::Arena(6), 0, &m);
        assert_eq!(read(&arena[..6]), [-300, -24576, 32767]);
    }

    /// int32 ADD, SUB and MUL wrap at int32's bounds and clamp to the activation range; ADD in
    /// place over its first input with a broadcast constant; MAXIMUM / MINIMUM compare signed
    /// 32-bit values.
    #[test]
    fn s32_ops_wrap_clamp_and_broadcast() {
        let words = |v: [i32; 4]| {
            let mut b = [0u8; 16];
            for (c, x) in b.chunks_exact_mut(4).zip(v) {
                c.copy_from_slice(&x.to_le_bytes());
            }
            b
        };
        let read = |b: &[u8]| -> [i32; 4] {
            core::array::from_fn(|i| i32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
        };
        let full = BinaryS32 {
            shape: &[4],
            a_strides: &[1],
            b_strides: &[1],
            act_min: i32::MIN,
            act_max: i32::MAX,
        };
        let mut arena = [0u8; 48];
        arena[..16].copy_from_slice(&words([i32::MAX, i32::MIN, -7, 100_000]));
        arena[16..32].copy_from_slice(&words([1, 1, 3, 100_000]));
        add_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &full);
        assert_eq!(read(&arena[32..]), [i32::MIN, i32::MIN + 1, -4, 200_000]);
        sub_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &full);
        assert_eq!(read(&arena[32..]), [i32::MAX - 1, i32::MAX, -10, 0]);
        mul_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &full);
        // 100000^2 = 10^10 wraps to 1410065408.
        assert_eq!(read(&arena[32..]), [i32::MAX, i32::MIN, -21, 1_410_065_408]);
        // RELU: [0, max].
        let relu = BinaryS32 { act_min: 0, ..full };
        sub_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &relu);
        assert_eq!(read(&arena[32..]), [i32::MAX - 1, i32::MAX, 0, 0]);
        // RELU_N1_TO_1: [-1, 1].
        let n1_to_1 = BinaryS32 {
            act_min: -1,
            act_max: 1,
            ..full
        };
        mul_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &n1_to_1);
        assert_eq!(read(&arena[32..]), [1, -1, -1, 1]);
        let m = MinMax {
            shape: &[4],
            a_strides: &[1],
            b_strides: &[1],
        };
        maximum_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &m);
        assert_eq!(read(&arena[32..]), [i32::MAX, 1, 3, 100_000]);
        minimum_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &m);
        assert_eq!(read(&arena[32..]), [1, i32::MIN, -7, 100_000]);
        // In place over input 1, input 2 a broadcast constant.
        let scalar = BinaryS32 {
            b_strides: &[0],
            ..full
        };
        add_s32(
            &mut arena,
            Src::Arena(0),
            Src::Bytes(&2i32.to_le_bytes()),
            0,
            &scalar,
        );
        assert_eq!(
            read(&arena[..16]),
            [i32::MIN + 1, i32::MIN + 2, -5, 100_002]
        );
    }

    #[test]
    fn float_ops_and_minmax() {
        let mut arena = [0u8; 24];
        for (i, v) in [1.0f32, -2.0].iter().enumerate() {
            arena[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        let b = 1.5f32.to_le_bytes();
        let p = BinaryF32 {
            shape: &[2],
            a_strides: &[1],
            b_strides: &[0],
            act_min: 0.0,
            act_max: f32::MAX,
        };
        mul_f32(&mut arena, Src::Arena(0), Src::Bytes(&b), 8, &p);
        assert_eq!(crate::bytes::read_f32(&arena[8..], 0), 1.5);
        assert_eq!(crate::bytes::read_f32(&arena[8..], 1), 0.0);
        let m = MinMax {
            shape: &[2],
            a_strides: &[1],
            b_strides: &[1],
        };
        minimum_f32(&mut arena, Src::Arena(0), Src::Arena(8), 16, &m);
        assert_eq!(crate::bytes::read_f32(&arena[16..], 0), 1.0);
        assert_eq!(crate::bytes::read_f32(&arena[16..], 1), -2.0);
        let mut bytes = [5u8, (-5i8) as u8, 0];
        maximum_s8(
            &mut bytes,
            Src::Arena(0),
            Src::Bytes(&[0u8]),
            0,
            &MinMax {
                shape: &[3],
                a_strides: &[1],
                b_strides: &[0],
            },
        );
        assert_eq!(bytes, [5, 0, 0]);
    }

    #[test]
    fn add_f32_broadcasts_both_inputs() {
        // a: 2x1x3, b: 1x2x1 -> 2x2x3: out[i][j][k] = a[i][k] + b[j].
        let mut arena = [0u8; 4 * (6 + 12)];
        for i in 0..6 {
            arena[4 * i..4 * i + 4].copy_from_slice(&(i as f32).to_le_bytes());
        }
        let mut b = [0u8; 8];
        b[..4].copy_from_slice(&10.0f32.to_le_bytes());
        b[4..].copy_from_slice(&20.0f32.to_le_bytes());
        let p = BinaryF32 {
            shape: &[2, 2, 3],
            a_strides: &[3, 0, 1],
            b_strides: &[0, 1, 0],
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        add_f32(&mut arena, Src::Arena(0), Src::Bytes(&b), 24, &p);
        let out: [f32; 12] = core::array::from_fn(|i| crate::bytes::read_f32(&arena[24..], i));
        assert_eq!(
            out,
            [10.0, 11.0, 12.0, 20.0, 21.0, 22.0, 13.0, 14.0, 15.0, 23.0, 24.0, 25.0]
        );
    }
}

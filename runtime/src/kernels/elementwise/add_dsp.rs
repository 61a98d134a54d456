//! int8 ADD and SUB on ARMv7E-M in the usual case, in assembly ([`add_sub_s8_dsp`]): the short
//! path of [`add_sub_s8_narrow`](super::add::add_sub_s8_narrow), chunk by chunk.

#[cfg(doc)]
use super::add::{add_s8, add_sub_s8_narrow, halve_doubled_by_pot, sub_s8};
use super::add::{narrow_add, AddS8};
use crate::kernels::nn_common::requant::clamp_operand;
#[cfg(doc)]
use crate::kernels::nn_common::requant::rounding_high_mul;
use crate::Src;

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
// One copy for ADD and SUB (`subtract`), called once per kernel call.
#[inline(never)]
pub(super) fn add_sub_s8_dsp(
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
    // Helium: the whole run in one tail-predicated loop, in place too (ADD; SUB keeps the
    // passes below).
    #[cfg(tinyaot_mve)]
    if !subtract {
        let operands = super::add_mve::AddOperands {
            a: (p.a_offset, p.a_multiplier, p.a_shift - 1),
            b: (p.b_offset, p.b_multiplier, p.b_shift - 1),
            output: (p.output_multiplier, p.output_shift - 1),
            clamp: (p.output_offset, p.act_min, p.act_max),
        };
        if super::add_mve::add_s8(arena, (a, b, output), n, &operands) {
            return true;
        }
    }
    // Zeroed once per call, not per chunk (64 words each time).
    let mut sums = [0i32; ADD_CHUNK];
    let Some((x, y, out)) = crate::kernels::broadcast::disjoint(arena, (a, n), (b, n), output, n)
    else {
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
            add_s8_chunk(
                (&xs[..len], &ys[..len]),
                &mut arena[output + start..][..len],
                &mut sums,
                (p, subtract),
            );
            start += len;
        }
        return true;
    };
    for ((x, y), o) in x[..n]
        .chunks(ADD_CHUNK)
        .zip(y[..n].chunks(ADD_CHUNK))
        .zip(out.chunks_mut(ADD_CHUNK))
    {
        add_s8_chunk((x, y), o, &mut sums, (p, subtract));
    }
    true
}

/// One chunk of at most [`ADD_CHUNK`] elements: both inputs rescaled and summed into `sums`, then
/// the sums requantized into `out`. One copy, called by both loops of [`add_sub_s8_dsp`] (the
/// passes' assembly was inlined in each).
#[inline(never)]
fn add_s8_chunk(
    (x, y): (&[u8], &[u8]),
    out: &mut [u8],
    sums: &mut [i32; ADD_CHUNK],
    (p, subtract): (&AddS8, bool),
) {
    let sums = &mut sums[..out.len()];
    add_s8_pass(x, y, sums, p, subtract);
    add_s8_requantize(sums, out, p);
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

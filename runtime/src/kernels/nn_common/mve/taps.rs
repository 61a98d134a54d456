//! The Helium loop of the depthwise windows that no 3×3 run takes (`cfg(tinyaot_mve)`): a
//! window's taps from a table, every channel, requantized in registers. The register
//! conventions and the requantization's text (`mve_requant8!`) are the parent's.

use super::{TapTable, LANE_ORDER};

/// One output pixel of the depthwise convolution whose window's taps `table` gives (its input
/// offset from `x` and its filter offset from `w` each: a border window's in-image taps), without
/// a depth multiplier, every one of its `c` channels, with the narrow requantization fused in:
/// per pass of eight channels the sums from the biases, each tap gathered in the lane order (as
/// [`window3x3_requant_s8`](super::window3x3_requant_s8)'s) in a low-overhead loop, then
/// requantized in registers as `requantize_narrow` does and the eight bytes stored to `out`,
/// where the tap-table run of sums (`dot::window_run_s8`) and the requantization call took
/// about twice the instructions. Returns false, having done nothing, when the operands do not fit (channels not
/// a positive multiple of eight, no tap, short operands, the clamp's bounds beyond 16 bits).
#[inline(always)]
pub(crate) fn window_taps_requant_s8(
    x: &[u8],
    w: &[i8],
    table: &TapTable,
    (c, offset): (usize, i32),
    (bias, multipliers, shifts): (&[i32], &[i32], &[i8]),
    (zero_point, min, max): (i32, i32, i32),
    out: &mut [u8],
) -> bool {
    let count = table.taps.len();
    let fits = c > 0
        && c.is_multiple_of(8)
        && count > 0
        && table.max_input + c <= x.len()
        && table.max_filter + c <= w.len()
        && bias.len() >= c
        && multipliers.len() >= c
        && shifts.len() >= c
        && out.len() >= c
        && i32::from(i16::MIN) <= min
        && max <= i32::from(i16::MAX);
    if !fits {
        return false;
    }
    // What the loops reload: the lane order's address, the taps, the input offset, the zero
    // point, the clamp's bounds packed in 16-bit halves, the table's address.
    let params: [usize; 6] = [
        LANE_ORDER.as_ptr() as usize,
        count,
        offset as usize,
        zero_point as usize,
        ((max as u32) << 16 | (min as u32 & 0xffff)) as usize,
        table.taps.as_ptr() as usize,
    ];
    // SAFETY: `fits` (checked above) bounds every access. The pass loop runs c / 8 >= 1 times
    // (`{g}` counted down); the tap loop count >= 1 times (`dls`/`le`). Pass g's tap k reads the
    // table's entry k (two word-aligned `usize`s, `ldrd`) and gathers the eight bytes at
    // x + input_k + 8 g + j and w + filter_k + 8 g + j (j < 8, the lane order's offsets): below
    // max_input + c <= x.len() and max_filter + c <= w.len(); byte loads need no alignment. It
    // reads bias[8 g..8 g + 8] and multipliers[8 g..8 g + 8] (word-aligned `i32`s for `vldrw`)
    // and shifts[8 g..8 g + 8], all below c, writes out[8 g..8 g + 8] (below c <= out.len()),
    // and reads `params` (word-aligned, its own). It writes its registers (q0..q7, `lr` and the
    // registers declared) and `out`.
    unsafe {
        core::arch::asm!(
            "ldrd {t0}, {t1}, [{ps}]",
            "vldrh.u16 q0, [{t0}]",
            "ldr {t0}, [{ps}, #8]",
            "vdup.16 q1, {t0}",
            "4:",
            "vldrw.u32 q6, [{ip}], #16",
            "vldrw.u32 q7, [{ip}], #16",
            "ldr {t0}, [{ps}, #4]",
            "ldr {t1}, [{ps}, #20]",
            "dls lr, {t0}",
            "2:",
            "ldrd {t0}, {t2}, [{t1}], #8",
            "add {t0}, {t0}, {xp}",
            "add {t2}, {t2}, {wp}",
            "vldrb.s16 q3, [{t0}, q0]",
            "vldrb.s16 q4, [{t2}, q0]",
            "vadd.i16 q3, q3, q1",
            "vmullb.s16 q5, q3, q4",
            "vadd.i32 q6, q6, q5",
            "vmullt.s16 q5, q3, q4",
            "vadd.i32 q7, q7, q5",
            "le lr, 2b",
            "add {xp}, {xp}, #8",
            "add {wp}, {wp}, #8",
            "ldrd {t0}, {t1}, [{ps}, #12]",
            mve_requant8!(),
            "subs {g}, {g}, #1",
            "bne 4b",
            ps = in(reg) params.as_ptr(),
            t0 = out(reg) _,
            t1 = out(reg) _,
            t2 = out(reg) _,
            g = inout(reg) c / 8 => _,
            xp = inout(reg) x.as_ptr() => _,
            wp = inout(reg) w.as_ptr() => _,
            ip = inout(reg) bias.as_ptr() => _,
            mp = inout(reg) multipliers.as_ptr() => _,
            // Widening loads and narrowing stores take low registers only.
            inout("r2") shifts.as_ptr() => _,
            inout("r3") out.as_mut_ptr() => _,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _, out("q3") _,
            out("q4") _, out("q5") _, out("q6") _, out("q7") _,
            options(nostack),
        );
    }
    true
}

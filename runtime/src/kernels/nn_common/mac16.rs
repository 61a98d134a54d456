//! The int16 ("16x8") multiply-accumulate loops: the depthwise one, four channels' int16
//! activations times their int8 weights, tap after tap, into four 32-bit sums; and the 1×1
//! convolution's, two pixels times two output channels ([`mac2x2_quads_s16`]).
//!
//! On ARMv7E-M a tap is three word loads (the four inputs, the four weights), two unpackings of
//! the weights into 16-bit lanes (`sxtb16`: weights 0 and 2, then 1 and 3) and four
//! single-lane multiply-accumulates (`smlabb`, `smlatb`, `smlabt`, `smlatt`), each product exact;
//! elsewhere a plain scalar loop. Both wrap at 32 bits, which the callers keep from happening
//! (at most 511 products per sum, or a generation-time bound on the weights).

#[cfg(tinyaot_dsp)]
use super::dsp::{smlabb, smlabt, smlatb, smlatt, sxtb16, sxtb16_ror8};

/// Adds to `acc` the products of four channels over a window of `rows` rows of `cols` taps: tap
/// `k` of row `r` has its four little-endian int16 inputs at byte `r * x_row + k * x_step` of `x`,
/// its four int8 weights at `r * w_row + k * w_step` of `w`.
#[inline(always)]
pub(crate) fn mac4_window_s16(
    acc: &mut [i32; 4],
    (x, x_step, x_row): (&[u8], usize, usize),
    (w, w_step, w_row): (&[i8], usize, usize),
    (rows, cols): (usize, usize),
) {
    if rows == 0 || cols == 0 {
        return;
    }
    // One bounds check for the window: its last tap's inputs and weights (every offset grows
    // with the row and the tap).
    let _ = (
        &x[(rows - 1) * x_row + (cols - 1) * x_step..][..8],
        &w[(rows - 1) * w_row + (cols - 1) * w_step..][..4],
    );
    #[cfg(tinyaot_dsp)]
    {
        let [mut a0, mut a1, mut a2, mut a3] = *acc;
        let (mut xr, mut wr) = (x.as_ptr(), w.as_ptr());
        for _ in 0..rows {
            let (mut xp, mut wp) = (xr, wr);
            for _ in 0..cols {
                // SAFETY: tap k < cols of row r < rows reads x[r x_row + k x_step..][..8] and
                // w[r w_row + k w_step..][..4], within the slices by the check above on the last
                // tap of the last row. Unaligned word reads, which ARMv7E-M's `ldr` allows.
                let (x01, x23, q) = unsafe {
                    (
                        xp.cast::<u32>().read_unaligned(),
                        xp.add(4).cast::<u32>().read_unaligned(),
                        wp.cast::<u32>().read_unaligned(),
                    )
                };
                let (w02, w13) = (sxtb16(q), sxtb16_ror8(q));
                a0 = smlabb(x01, w02, a0);
                a1 = smlatb(x01, w13, a1);
                a2 = smlabt(x23, w02, a2);
                a3 = smlatt(x23, w13, a3);
                (xp, wp) = (xp.wrapping_add(x_step), wp.wrapping_add(w_step));
            }
            (xr, wr) = (xr.wrapping_add(x_row), wr.wrapping_add(w_row));
        }
        *acc = [a0, a1, a2, a3];
    }
    #[cfg(not(tinyaot_dsp))]
    for r in 0..rows {
        for k in 0..cols {
            let x = &x[r * x_row + k * x_step..][..8];
            let w = &w[r * w_row + k * w_step..][..4];
            for (j, a) in acc.iter_mut().enumerate() {
                let xj = i32::from(i16::from_le_bytes([x[2 * j], x[2 * j + 1]]));
                *a = a.wrapping_add(i32::from(w[j]) * xj);
            }
        }
    }
}

/// Adds to `acc[j]` the products of channel `j` over `n` taps of one row, as
/// [`mac4_window_s16`] for fewer than four channels (`acc.len()`).
#[inline(always)]
pub(crate) fn mac_taps_s16(
    acc: &mut [i32],
    (x, x_step): (&[u8], usize),
    (w, w_step): (&[i8], usize),
    n: usize,
) {
    let c = acc.len();
    for k in 0..n {
        let (x, w) = (&x[k * x_step..][..2 * c], &w[k * w_step..][..c]);
        for (j, a) in acc.iter_mut().enumerate() {
            let xj = i32::from(i16::from_le_bytes([x[2 * j], x[2 * j + 1]]));
            *a = a.wrapping_add(i32::from(w[j]) * xj);
        }
    }
}

/// The loop of [`mac2x2_quads_s16`] and [`mac2x2_rows_s16`] as assembly text: from label `2`,
/// one group of two pixels' four int16 inputs (`{p0}`, `{p1}`) times two channels' four int8
/// weights (`{wp}`), 16 products into `{a00}`..`{a11}`, until `{wp}` reaches `{end}`.
#[cfg(tinyaot_dsp)]
macro_rules! mac2x2_groups_asm {
    () => {
        concat!(
            "2:\n",
            "ldr {q0}, [{wp}], #4\n",
            "ldr {q1}, [{wp}], #4\n",
            "ldr {x}, [{p0}], #4\n",
            "sxtb16 {t}, {q0}\n",
            "smlad {a00}, {t}, {x}, {a00}\n",
            "sxtb16 {t}, {q1}\n",
            "smlad {a01}, {t}, {x}, {a01}\n",
            "ldr {x}, [{p1}], #4\n",
            "smlad {a11}, {t}, {x}, {a11}\n",
            "sxtb16 {t}, {q0}\n",
            "smlad {a10}, {t}, {x}, {a10}\n",
            "sxtb16 {q0}, {q0}, ror #8\n",
            "sxtb16 {q1}, {q1}, ror #8\n",
            "ldr {x}, [{p1}], #4\n",
            "smlad {a10}, {q0}, {x}, {a10}\n",
            "smlad {a11}, {q1}, {x}, {a11}\n",
            "ldr {x}, [{p0}], #4\n",
            "smlad {a00}, {q0}, {x}, {a00}\n",
            "smlad {a01}, {q1}, {x}, {a01}\n",
            "cmp {wp}, {end}\n",
            "bne 2b\n",
        )
    };
}

/// Adds to `acc` (pixel 0's channels 0 and 1, then pixel 1's) the products of two pixels'
/// `4 * quads` little-endian int16 inputs (`x0`, `x1`, 8 bytes a group of four) with two output
/// channels' weights interleaved by groups of four in `w`: channel 0's four weights stored as
/// weights 0, 2, 1, 3, then channel 1's likewise (8 bytes a group).
///
/// On ARMv7E-M a group is six word loads, five unpackings of the weights into 16-bit lanes
/// (`sxtb16` gives weights 0 and 1 as stored, rotated 2 and 3, the lanes of the input words as
/// loaded) and eight `smlad`s: sixteen products in 21 instructions with the loop's compare and
/// branch (an `asm!` loop: LLVM's own spilled a sum and took 28).
/// Elsewhere a plain loop. Both wrap at 32 bits, which the caller keeps from happening (at most 511
/// products of at most 2^22 in magnitude per sum).
#[inline(always)]
pub(crate) fn mac2x2_quads_s16(
    acc: &mut [i32; 4],
    (x0, x1): (&[u8], &[u8]),
    w: &[i8],
    quads: usize,
) {
    // One bounds check for the run: its whole extent in each operand.
    let (x0, x1, w) = (&x0[..8 * quads], &x1[..8 * quads], &w[..8 * quads]);
    #[cfg(tinyaot_dsp)]
    if quads > 0 {
        let [mut a00, mut a01, mut a10, mut a11] = *acc;
        let end = w.as_ptr_range().end;
        // SAFETY: group g < quads (the loop runs until `wp`, 8 bytes a group, reaches `end`, 8 *
        // quads bytes on, and quads > 0) reads bytes 8g..8g + 8 of x0, x1 and w, within the
        // slices cut to 8 * quads bytes above; unaligned word reads, which ARMv7E-M's `ldr`
        // allows. Registers only besides those reads (the flags by `cmp`); 12 registers: the
        // four sums, three pointers, the end, both weight words, an input word and a lane pair.
        // The weight words' low lanes are unpacked twice (channel 0's for each pixel) so that
        // no more registers are live.
        unsafe {
            core::arch::asm!(
                mac2x2_groups_asm!(),
                wp = inout(reg) w.as_ptr() => _,
                p0 = inout(reg) x0.as_ptr() => _,
                p1 = inout(reg) x1.as_ptr() => _,
                end = in(reg) end,
                a00 = inout(reg) a00,
                a01 = inout(reg) a01,
                a10 = inout(reg) a10,
                a11 = inout(reg) a11,
                q0 = out(reg) _,
                q1 = out(reg) _,
                x = out(reg) _,
                t = out(reg) _,
                options(nostack, readonly),
            );
        }
        *acc = [a00, a01, a10, a11];
    }
    #[cfg(not(tinyaot_dsp))]
    for ((x0, x1), w) in x0
        .chunks_exact(8)
        .zip(x1.chunks_exact(8))
        .zip(w.chunks_exact(8))
    {
        let lanes = |x: &[u8]| -> [i32; 4] {
            core::array::from_fn(|i| i32::from(i16::from_le_bytes([x[2 * i], x[2 * i + 1]])))
        };
        let (x0, x1) = (lanes(x0), lanes(x1));
        for (j, q) in w.chunks_exact(4).enumerate() {
            let [w0, w2, w1, w3] = [q[0], q[1], q[2], q[3]].map(i32::from);
            for (k, x) in [x0, x1].iter().enumerate() {
                let s = w0 * x[0] + w1 * x[1] + w2 * x[2] + w3 * x[3];
                acc[2 * k + j] = acc[2 * k + j].wrapping_add(s);
            }
        }
    }
}

/// [`mac2x2_quads_s16`] over `rows` rows of `quads` groups each: row `r`'s inputs at byte
/// `r * row_step + xa` (pixel 0) and `r * row_step + xb` (pixel 1) of `x`, its weights the next
/// `8 * quads` bytes of `w` (the rows' weights one after the other).
///
/// On ARMv7E-M one `asm!` block for the whole window, 9 instructions a row besides the groups'
/// 21 (the rows left, the input step and the run length wait in 16 bytes of stack).
#[inline(always)]
pub(crate) fn mac2x2_rows_s16(
    acc: &mut [i32; 4],
    (x, xa, xb, row_step): (&[u8], usize, usize, usize),
    w: &[i8],
    (rows, quads): (usize, usize),
) {
    if rows == 0 || quads == 0 {
        return;
    }
    let run = 8 * quads;
    // One bounds check for the window: the last row's runs (every offset grows with the row) and
    // the rows' weights.
    let _ = &x[(rows - 1) * row_step + xa.max(xb)..][..run];
    let w = &w[..rows * run];
    #[cfg(tinyaot_dsp)]
    {
        let [mut a00, mut a01, mut a10, mut a11] = *acc;
        // SAFETY: row r < rows reads x[r row_step + xa..][..run], x[r row_step + xb..][..run] and
        // w[r run..][..run] (the loop of mac2x2_quads_s16 on each, `end` one run past the row's
        // first weight), all within the slices by the check above on the last row and `w` cut to
        // rows * run bytes; after a row both input pointers, a run past its start, step by
        // row_step - run to the next row's start. Unaligned word reads, which ARMv7E-M's `ldr`
        // allows. It stores and reloads the rows left, the step and the run in 16 bytes of stack,
        // released before the block ends; rows >= 1 and run > 0 (returned above otherwise).
        unsafe {
            core::arch::asm!(
                "sub sp, sp, #16",
                "str {q0}, [sp]",
                "str {q1}, [sp, #4]",
                "str {x}, [sp, #8]",
                "3:",
                "ldr {t}, [sp, #8]",
                "add {end}, {wp}, {t}",
                mac2x2_groups_asm!(),
                "ldr {t}, [sp, #4]",
                "add {p0}, {p0}, {t}",
                "add {p1}, {p1}, {t}",
                "ldr {t}, [sp]",
                "subs {t}, {t}, #1",
                "str {t}, [sp]",
                "bne 3b",
                "add sp, sp, #16",
                wp = inout(reg) w.as_ptr() => _,
                p0 = inout(reg) x.as_ptr().wrapping_add(xa) => _,
                p1 = inout(reg) x.as_ptr().wrapping_add(xb) => _,
                end = out(reg) _,
                a00 = inout(reg) a00,
                a01 = inout(reg) a01,
                a10 = inout(reg) a10,
                a11 = inout(reg) a11,
                q0 = inout(reg) rows => _,
                q1 = inout(reg) row_step.wrapping_sub(run) => _,
                x = inout(reg) run => _,
                t = out(reg) _,
                options(readonly),
            );
        }
        *acc = [a00, a01, a10, a11];
    }
    #[cfg(not(tinyaot_dsp))]
    for (r, w) in w.chunks_exact(run).enumerate() {
        let x = &x[r * row_step..];
        mac2x2_quads_s16(acc, (&x[xa..], &x[xb..]), w, quads);
    }
}

//! The int8 matrix product of the 1×1 convolution (and of FULLY_CONNECTED, which lowers to it)
//! and of the paired gathering convolution (`conv::conv2d_im2col_pairs_s8`, whose windows are the
//! rows) two pixels at a time, on inputs widened once to 16-bit lanes.
//!
//! One pixel at a time, every 16 multiply-accumulates of a block of four filter rows cost four
//! weight words unpacked into eight 16-bit lane pairs (`sxtb16`): the weights' unpacking is the
//! loop's largest cost. Two pixels share each unpacked weight, and the pixels' inputs are widened
//! once per pair into a small buffer (`sxtb16` of each input word, in the lane order the unpacked
//! weights have), instead of once per block of four channels. Each pass then takes two channels of
//! a block against both pixels: per four input channels, three loads (two `ldrd` of inputs, one of
//! the two channels' weight words), four unpackings and eight `smlad` for 16 products, where the
//! one-pixel loop needed 24 instructions. Four sums, four inputs, two weights and three pointers:
//! 13 registers, which is what the loop has.
//!
//! The filter layout is the one-pixel kernel's ([`super::dot4_interleaved_s8`]): blocks of four
//! rows interleaved by words, so a pass over channels 0 and 1 of a block reads bytes 0..8 of each
//! 16, a pass over channels 2 and 3 bytes 8..16.
//!
//! On ARMv7E-M the lane instructions are the DSP extension's; elsewhere (the runtime's own tests and
//! Miri) they are emulated here bit for bit, so that the tests check the layout, the passes and
//! the chunking on the host. Release builds for other targets keep the one-pixel kernels, which
//! vectorise there.

use super::dot::word;
#[cfg(not(tinyaot_dsp))]
use super::dot::word_i8;
#[cfg(tinyaot_dsp)]
use super::dsp::{sxtb16, sxtb16_ror8};

/// Whether the kernels take the paired path: on ARMv7E-M, and in the runtime's own tests, which
/// check it with the lane instructions emulated.
pub(crate) const PAIRED: bool = cfg!(any(tinyaot_dsp, test));

/// Input channels widened per chunk: the buffer holds two pixels of this many channels as 16-bit
/// lanes (512 bytes of stack). Longer rows are taken in chunks, widened again for each run of
/// output channels.
pub(crate) use crate::kernels::WIDE_CHANNELS;

/// Two pixels' input chunk of up to `N` channels as 16-bit lanes (`4 N` bytes): for each four
/// channels `k..k + 4`, the words `[pixel 0 (k, k+2), pixel 0 (k+1, k+3), pixel 1 (k, k+2),
/// pixel 1 (k+1, k+3)]`. Kernels whose windows are short take a smaller buffer (the stack is a
/// budget).
pub(crate) struct Widened<const N: usize = WIDE_CHANNELS> {
    words: [u32; N],
    len: usize,
}

impl<const N: usize> Widened<N> {
    /// An empty buffer.
    pub(crate) fn new() -> Self {
        Widened {
            words: [0; N],
            len: 0,
        }
    }

    /// The widened chunk: four words per four channels.
    #[inline(always)]
    pub(crate) fn words(&self) -> &[u32] {
        &self.words[..self.len]
    }

    /// Widens `x0` and `x1` (two pixels' channels, equally long, a multiple of four and at most
    /// `N`).
    #[inline(always)]
    pub(crate) fn fill(&mut self, x0: &[u8], x1: &[u8]) {
        assert!(x1.len() == x0.len(), "widened pixels not equally long");
        widen_into(self.words_mut(x0.len()), Some(x0), Some(x1), 0);
    }

    /// The buffer's first `n` words (`n` a multiple of four, at most `N`), to be filled by
    /// [`widen_into`] as the widened chunk of `n` bytes.
    #[inline(always)]
    pub(crate) fn words_mut(&mut self, n: usize) -> &mut [u32] {
        assert!(
            n % 4 == 0 && n <= N,
            "widened chunk not whole words or too long"
        );
        self.len = n;
        &mut self.words[..n]
    }
}

/// Widens the next `dst.len()` bytes of two pixels into `dst` (four words per four bytes, in
/// [`Widened`]'s order): `x0` and `x1` are the pixels' bytes, or `None` where every byte is the
/// input zero point, given as `zero` (its byte four times).
#[inline(always)]
pub(crate) fn widen_into(dst: &mut [u32], x0: Option<&[u8]>, x1: Option<&[u8]>, zero: u32) {
    let n = dst.len();
    match (x0, x1) {
        (Some(a), Some(b)) => {
            for ((w, a), b) in dst
                .chunks_exact_mut(4)
                .zip(a[..n].chunks_exact(4))
                .zip(b[..n].chunks_exact(4))
            {
                let (a, b) = (word(a), word(b));
                w.copy_from_slice(&[sxtb16(a), sxtb16_ror8(a), sxtb16(b), sxtb16_ror8(b)]);
            }
        }
        (a, b) => {
            for (g, w) in dst.chunks_exact_mut(4).enumerate() {
                let a = a.map_or(zero, |a| word(&a[4 * g..]));
                let b = b.map_or(zero, |b| word(&b[4 * g..]));
                w.copy_from_slice(&[sxtb16(a), sxtb16_ror8(a), sxtb16(b), sxtb16_ror8(b)]);
            }
        }
    }
}

/// Adds to `sums` the dot products of the widened chunk `x` ([`Widened::words`]) with the chunk of each filter row of
/// `blocks`, for both pixels. `sums` are in the paired layout, eight per block of four rows:
/// `[pixel 0 row 0, pixel 0 row 1, pixel 1 row 0, pixel 1 row 1]`, then the same for rows 2 and 3
/// (the order of a pass, and of [`super::Requantizer::run_pairs`]). The blocks are `block` bytes
/// apart (`4 * input_c`), each read from byte `start` (`4 * ` the chunk's first channel) for
/// `4 * ` the chunk's length. Not inlined on bare metal: one call per run of channels, and the
/// loop gets every register of its own frame.
#[cfg_attr(target_os = "none", inline(never))]
pub(crate) fn pair_run(x: &[u32], blocks: &[i8], (block, start): (usize, usize), sums: &mut [i32]) {
    let words = x.len();
    assert!(
        sums.len() % 8 == 0 && block % 4 == 0 && start % 4 == 0,
        "paired run not whole blocks and words"
    );
    // The assembly's `ldrd` needs word-aligned weights (generated code keeps them in 16-byte
    // aligned `Flash`); the emulation elsewhere reads bytes.
    #[cfg(tinyaot_dsp)]
    super::check_word_aligned(blocks);
    for (b, sums) in sums.chunks_exact_mut(8).enumerate() {
        // One bounds check per block: the chunk's words of its four rows.
        let w = &blocks[b * block + start..][..4 * words];
        let (lo, hi) = sums.split_at_mut(4);
        pass(x, w, 0, lo);
        pass(x, w, 8, hi);
    }
}

/// Sets the paired-layout `sums` of a run (see [`pair_run`]) to the biases of its channels.
#[inline(always)]
pub(crate) fn start_pairs(sums: &mut [i32], bias: &[i32]) {
    for (s, b) in sums.chunks_exact_mut(4).zip(bias.chunks_exact(2)) {
        (s[0], s[1], s[2], s[3]) = (b[0], b[1], b[0], b[1]);
    }
}

/// One group of four input channels of a pass ([`pass`]'s assembly): three loads, four
/// unpackings and eight `smlad` for 16 products.
#[cfg(tinyaot_dsp)]
macro_rules! pair_group {
    () => {
        concat!(
            "ldrd {wa}, {wb}, [{wp}], #16\n",
            "ldrd {at}, {x1}, [{xp}], #8\n",
            "sxtb16 {a02}, {wa}\n",
            "sxtb16 {wa}, {wa}, ror #8\n",
            "sxtb16 {b02}, {wb}\n",
            "sxtb16 {wb}, {wb}, ror #8\n",
            "smlad {s0}, {a02}, {at}, {s0}\n",
            "smlad {s0}, {wa}, {x1}, {s0}\n",
            "smlad {s1}, {b02}, {at}, {s1}\n",
            "smlad {s1}, {wb}, {x1}, {s1}\n",
            "ldrd {at}, {x1}, [{xp}], #8\n",
            "smlad {s2}, {a02}, {at}, {s2}\n",
            "smlad {s2}, {wa}, {x1}, {s2}\n",
            "smlad {s3}, {b02}, {at}, {s3}\n",
            "smlad {s3}, {wb}, {x1}, {s3}",
        )
    };
}

/// One pass of [`pair_run`]: channels `offset / 4` and `offset / 4 + 1` of a block (`offset` 0 or
/// 8) against both pixels, added to `sums` (`[pixel 0 channel a, pixel 0 channel b, pixel 1
/// channel a, pixel 1 channel b]`).
#[inline(always)]
fn pass(x: &[u32], w: &[i8], offset: usize, sums: &mut [i32]) {
    let groups = x.len() / 4;
    assert!(
        w.len() >= 16 * groups && offset <= 8 && sums.len() == 4,
        "paired pass past its block"
    );
    if groups == 0 {
        return;
    }
    #[cfg(tinyaot_dsp)]
    {
        let (mut xp, mut wp, mut count) = (x.as_ptr(), w.as_ptr().wrapping_add(offset), groups);
        let mut at = sums.as_mut_ptr();
        // SAFETY: `sums` is four `i32`s (asserted), read and written through `at` at the start and
        // the end. Group g reads x[4 g..4 g + 4] (x has 4 groups words) and bytes
        // 16 g + offset..16 g + offset + 8 of w (w has at least 16 groups bytes, offset <= 8): all
        // in bounds, for the `groups >= 1` iterations. `ldrd`/`strd` need word alignment: `x` and
        // `sums` are `u32`/`i32` slices, and `w` is word-aligned (asserted by `pair_run`: the
        // filter is 16-byte aligned `Flash` in generated code) with block, start, 16 g and offset
        // multiples of 4. The loop needs all 13 registers, so the sums' address waits on the stack
        // (pushed and popped within the block). In assembly so that the loop is three loads
        // (`ldrd`), four unpackings and eight `smlad` per 16 products, which the compiler's own
        // schedule did not reach, and the sums move in four instructions.
        unsafe {
            core::arch::asm!(
                "ldrd {s0}, {s1}, [{at}]",
                "ldrd {s2}, {s3}, [{at}, #8]",
                "push {{{at}}}",
                // Two groups per iteration: half the loop's count and branch. An odd count
                // enters at the second (`count` rounded up by the carry of the halving).
                "lsrs {count}, {count}, #1",
                "adc {count}, {count}, #0",
                "bcs 3f",
                "2:",
                pair_group!(),
                "3:",
                pair_group!(),
                "subs {count}, {count}, #1",
                "bne 2b",
                "pop {{{at}}}",
                "strd {s0}, {s1}, [{at}]",
                "strd {s2}, {s3}, [{at}, #8]",
                at = inout(reg) at,
                xp = inout(reg) xp,
                wp = inout(reg) wp,
                count = inout(reg) count,
                s0 = out(reg) _,
                s1 = out(reg) _,
                s2 = out(reg) _,
                s3 = out(reg) _,
                wa = out(reg) _,
                wb = out(reg) _,
                a02 = out(reg) _,
                b02 = out(reg) _,
                x1 = out(reg) _,
            );
        }
        // The pointers and the count are spent.
        let _ = (at, xp, wp, count);
    }
    #[cfg(not(tinyaot_dsp))]
    for (xs, w) in x.chunks_exact(4).zip(w[offset..].chunks(16)) {
        let (wa, wb) = (word_i8(&w[..4]), word_i8(&w[4..8]));
        let (a02, a13) = (sxtb16(wa), sxtb16_ror8(wa));
        let (b02, b13) = (sxtb16(wb), sxtb16_ror8(wb));
        sums[0] = smlad(a13, xs[1], smlad(a02, xs[0], sums[0]));
        sums[1] = smlad(b13, xs[1], smlad(b02, xs[0], sums[1]));
        sums[2] = smlad(a13, xs[3], smlad(a02, xs[2], sums[2]));
        sums[3] = smlad(b13, xs[3], smlad(b02, xs[2], sums[3]));
    }
}

/// Emulated `sxtb16`: bytes 0 and 2, sign-extended into the low and high 16-bit lanes.
#[cfg(not(tinyaot_dsp))]
#[inline(always)]
fn sxtb16(x: u32) -> u32 {
    let lane = |b: u32| u32::from((b as u8 as i8) as i16 as u16);
    lane(x) | lane(x >> 16) << 16
}

/// Emulated `sxtb16 ror #8`: bytes 1 and 3.
#[cfg(not(tinyaot_dsp))]
#[inline(always)]
fn sxtb16_ror8(x: u32) -> u32 {
    sxtb16(x.rotate_right(8))
}

/// Emulated `smlad`: both lane products added to `acc` (wrapping).
#[cfg(not(tinyaot_dsp))]
#[inline(always)]
fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    let lo = i32::from(a as i16) * i32::from(b as i16);
    let hi = i32::from((a >> 16) as i16) * i32::from((b >> 16) as i16);
    acc.wrapping_add(lo).wrapping_add(hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The emulated lane instructions against their definitions, on edge bytes.
    #[test]
    fn emulated_lanes() {
        assert_eq!(sxtb16(0x80_7f_01_ff), 0x007f_ffff);
        assert_eq!(sxtb16_ror8(0x80_7f_01_ff), 0xff80_0001);
        assert_eq!(smlad(0x0002_fffd, 0xfffc_0005, 10), 10 - 15 - 8);
        assert_eq!(smlad(0x8000_8000, 0x8000_8000, 0), i32::MIN);
    }
}

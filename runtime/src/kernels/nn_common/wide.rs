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
use crate::kernels::Within;

/// Whether the kernels take the paired path: on ARMv7E-M, and in the runtime's own tests, which
/// check it with the lane instructions emulated. Not with Helium (`tinyaot_mve`), whose one-pixel
/// dot products take 16 products per instruction.
pub(crate) const PAIRED: bool = cfg!(any(all(tinyaot_dsp, not(tinyaot_mve)), test));

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
        self.words.at(..self.len)
    }

    /// Widens `x0` and `x1` (two pixels' channels, equally long, a multiple of four and at most
    /// `N`).
    #[inline(always)]
    pub(crate) fn fill(&mut self, x0: &[u8], x1: &[u8]) {
        assert!(x1.len() == x0.len(), "widened pixels not equally long");
        widen_into(self.words_mut(x0.len()), Some(x0), Some(x1), 0);
    }

    /// Widens one pixel's channels `x` (a multiple of four, at most `2 N`): for each four channels
    /// `k..k + 4` the words `[(k, k+2), (k+1, k+3)]`, for [`single_run`].
    #[inline(always)]
    pub(crate) fn fill_single(&mut self, x: &[u8]) {
        let n = x.len();
        assert!(
            n.is_multiple_of(4) && n <= 2 * N,
            "widened pixel not whole words or too long"
        );
        self.len = n / 2;
        for (w, c) in self.words[..n / 2]
            .chunks_exact_mut(2)
            .zip(x.chunks_exact(4))
        {
            let v = word(c);
            w.copy_from_slice(&[sxtb16(v), sxtb16_ror8(v)]);
        }
    }

    /// The buffer's first `n` words (`n` a multiple of four, at most `N`), to be filled by
    /// [`widen_into`] as the widened chunk of `n` bytes.
    #[inline(always)]
    pub(crate) fn words_mut(&mut self, n: usize) -> &mut [u32] {
        assert!(
            n.is_multiple_of(4) && n <= N,
            "widened chunk not whole words or too long"
        );
        self.len = n;
        self.words.at_mut(..n)
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
                let a = a.map_or(zero, |a| word(a.at(4 * g..)));
                let b = b.map_or(zero, |b| word(b.at(4 * g..)));
                w.copy_from_slice(&[sxtb16(a), sxtb16_ror8(a), sxtb16(b), sxtb16_ror8(b)]);
            }
        }
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

/// One pass of [`pair_run`]'s assembly: the sums at `[sp]` (four, advanced past), the chunk at
/// `[sp, #8]` and its group count at `[sp, #12]`, against the filter words from `{wp}` (advanced
/// 16 bytes a group); `$a` and `$b` are the loop's local labels. Two groups per iteration: half
/// the loop's count and branch; an odd count enters at the second (`count` rounded up by the
/// carry of the halving).
#[cfg(tinyaot_dsp)]
macro_rules! pair_pass {
    ($a:literal, $b:literal) => {
        concat!(
            "ldr {xp}, [sp, #8]\n",
            "ldr {at}, [sp]\n",
            "ldrd {s0}, {s1}, [{at}]\n",
            "ldrd {s2}, {s3}, [{at}, #8]\n",
            "ldr {count}, [sp, #12]\n",
            "lsrs {count}, {count}, #1\n",
            "adc {count}, {count}, #0\n",
            "bcs ",
            $b,
            "f\n",
            $a,
            ":\n",
            pair_group!(),
            "\n",
            $b,
            ":\n",
            pair_group!(),
            "\n",
            "subs {count}, {count}, #1\n",
            "bne ",
            $a,
            "b\n",
            "ldr {at}, [sp]\n",
            "strd {s0}, {s1}, [{at}], #8\n",
            "strd {s2}, {s3}, [{at}], #8\n",
            "str {at}, [sp]\n",
        )
    };
}

/// One group of four input channels of [`single_run`]'s assembly: the pixel's two lane words
/// (`ldrd`), the four rows' weight words (two `ldrd`), eight unpackings and eight `smlad` for 16
/// products; `{at}` serves as the unpacking temporary.
#[cfg(tinyaot_dsp)]
macro_rules! single_group {
    () => {
        concat!(
            "ldrd {x02}, {x13}, [{xp}], #8\n",
            "ldrd {wa}, {wb}, [{wp}], #8\n",
            "sxtb16 {at}, {wa}\n",
            "smlad {a0}, {at}, {x02}, {a0}\n",
            "sxtb16 {wa}, {wa}, ror #8\n",
            "smlad {a0}, {wa}, {x13}, {a0}\n",
            "sxtb16 {at}, {wb}\n",
            "smlad {a1}, {at}, {x02}, {a1}\n",
            "sxtb16 {wb}, {wb}, ror #8\n",
            "smlad {a1}, {wb}, {x13}, {a1}\n",
            "ldrd {wa}, {wb}, [{wp}], #8\n",
            "sxtb16 {at}, {wa}\n",
            "smlad {a2}, {at}, {x02}, {a2}\n",
            "sxtb16 {wa}, {wa}, ror #8\n",
            "smlad {a2}, {wa}, {x13}, {a2}\n",
            "sxtb16 {at}, {wb}\n",
            "smlad {a3}, {at}, {x02}, {a3}\n",
            "sxtb16 {wb}, {wb}, ror #8\n",
            "smlad {a3}, {wb}, {x13}, {a3}",
        )
    };
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
        sums.len().is_multiple_of(8) && block % 4 == 0 && start % 4 == 0 && words.is_multiple_of(4),
        "paired run not whole blocks and words"
    );
    let count = sums.len() / 8;
    if count == 0 || words == 0 {
        return;
    }
    // One bounds check for the run: the chunk's words of the last block's four rows.
    let _ = blocks.at((count - 1) * block + start..).at(..4 * words);
    #[cfg(tinyaot_dsp)]
    {
        // The assembly's `ldrd` needs word-aligned weights (generated code keeps them in 16-byte
        // aligned `Flash`).
        super::check_word_aligned(blocks);
        let groups = words / 4;
        let (mut at, mut xp, mut wp) = (
            sums.as_mut_ptr(),
            x.as_ptr(),
            blocks.as_ptr().wrapping_add(start),
        );
        // SAFETY: for each of the `count` blocks (count >= 1), two passes each read the chunk's
        // `words` words of `x` (4 groups words, groups >= 1) and, from the block's start plus 0
        // or 8, 8 bytes of every 16 for 16 groups bytes of the filter: within
        // blocks[b block + start..][..4 words], in bounds for the last block (checked above)
        // and so for every block. Each pass reads and writes its four sums, sums[8 b..8 b + 8]
        // in order (sums.len() = 8 count). `ldrd`/`strd` need word alignment: `x` and `sums`
        // are `u32`/`i32` slices, and the filter is word-aligned (checked above) with block,
        // start, 16 g and 8 multiples of 4. The passes need all 13 registers, so the run's
        // state (the sums' address, the blocks left, the chunk's address, its groups, and the
        // filter pointer's steps back to a block's second pass and on to the next block) waits
        // in 24 bytes of stack, released before the block ends. In assembly so that a pass is
        // three loads (`ldrd`), four unpackings and eight `smlad` per 16 products, which the
        // compiler's own schedule did not reach, and a block costs about 30 instructions
        // besides (the loop of one asm block per pass took about 55).
        unsafe {
            core::arch::asm!(
                "sub sp, sp, #24",
                "str {at}, [sp]",
                "str {s0}, [sp, #4]",
                "str {xp}, [sp, #8]",
                "str {s1}, [sp, #12]",
                "str {s2}, [sp, #16]",
                "str {s3}, [sp, #20]",
                "4:",
                pair_pass!("2", "3"),
                "ldr {at}, [sp, #16]",
                "sub {wp}, {wp}, {at}",
                pair_pass!("5", "6"),
                "ldr {at}, [sp, #20]",
                "add {wp}, {wp}, {at}",
                "ldr {at}, [sp, #4]",
                "subs {at}, {at}, #1",
                "str {at}, [sp, #4]",
                "bne 4b",
                "add sp, sp, #24",
                at = inout(reg) at,
                xp = inout(reg) xp,
                wp = inout(reg) wp,
                s0 = inout(reg) count => _,
                s1 = inout(reg) groups => _,
                s2 = inout(reg) 16 * groups - 8 => _,
                s3 = inout(reg) block.wrapping_sub(16 * groups + 8) => _,
                count = out(reg) _,
                wa = out(reg) _,
                wb = out(reg) _,
                a02 = out(reg) _,
                b02 = out(reg) _,
                x1 = out(reg) _,
            );
        }
        // The pointers are spent.
        let _ = (at, xp, wp);
    }
    #[cfg(not(tinyaot_dsp))]
    for (b, sums) in sums.chunks_exact_mut(8).enumerate() {
        let w = blocks.at(b * block + start..).at(..4 * words);
        let (lo, hi) = sums.cut_mut(4);
        pass(x, w, 0, lo);
        pass(x, w, 8, hi);
    }
}

/// Adds to `sums` (four per block of four filter rows, in row order) the dot products of one
/// pixel's widened chunk `x` ([`Widened::fill_single`]: two words per four channels) with the
/// chunk of each filter row of `blocks`, laid out and addressed as [`pair_run`]'s. Per four
/// channels of a block: one `ldrd` of the input lanes, two of the four rows' weight words, eight
/// unpackings and eight `smlad` for 16 products, two groups per iteration (the one-pixel loop,
/// which unpacks the input again for every block, takes 23). Not inlined on bare metal, as
/// [`pair_run`].
#[cfg_attr(target_os = "none", inline(never))]
pub(crate) fn single_run(
    x: &[u32],
    blocks: &[i8],
    (block, start): (usize, usize),
    sums: &mut [i32],
) {
    let words = x.len();
    assert!(
        sums.len().is_multiple_of(4) && block % 4 == 0 && start % 4 == 0 && words.is_multiple_of(2),
        "single run not whole blocks and words"
    );
    let count = sums.len() / 4;
    if count == 0 || words == 0 {
        return;
    }
    // One bounds check for the run: the chunk's words of the last block's four rows (two words
    // of `x` per four channels, 16 bytes of the block).
    let _ = blocks.at((count - 1) * block + start..).at(..8 * words);
    #[cfg(tinyaot_dsp)]
    {
        super::check_word_aligned(blocks);
        let groups = words / 2;
        let (mut at, mut xp, mut wp) = (
            sums.as_mut_ptr(),
            x.as_ptr(),
            blocks.as_ptr().wrapping_add(start),
        );
        // SAFETY: for each of the `count` blocks (count >= 1), the loop reads the chunk's
        // `words` words of `x` (2 groups words, groups >= 1) and 16 groups bytes of the filter
        // from the block's start: blocks[b block + start..][..8 words], in bounds for the last
        // block (checked above) and so for every block; it reads and writes the block's four
        // sums, sums[4 b..4 b + 4] in order (sums.len() = 4 count). `ldrd`/`strd` need word
        // alignment: `x` and `sums` are `u32`/`i32` slices, and the filter is word-aligned
        // (checked above) with block, start and 8 multiples of 4. The loop needs 13 registers,
        // so the run's state (the sums' address, the blocks left, the chunk's address, its
        // groups, and the filter pointer's step to the next block) waits in 20 bytes of stack,
        // released before the block ends. Two groups per iteration; an odd count enters at the
        // second (the count rounded up by the carry of the halving).
        unsafe {
            core::arch::asm!(
                "sub sp, sp, #20",
                "str {at}, [sp]",
                "str {a0}, [sp, #4]",
                "str {xp}, [sp, #8]",
                "str {a1}, [sp, #12]",
                "str {a2}, [sp, #16]",
                "4:",
                "ldr {xp}, [sp, #8]",
                "ldr {at}, [sp]",
                "ldrd {a0}, {a1}, [{at}]",
                "ldrd {a2}, {a3}, [{at}, #8]",
                "ldr {count}, [sp, #12]",
                "lsrs {count}, {count}, #1",
                "adc {count}, {count}, #0",
                "bcs 3f",
                "2:",
                single_group!(),
                "3:",
                single_group!(),
                "subs {count}, {count}, #1",
                "bne 2b",
                "ldr {at}, [sp]",
                "strd {a0}, {a1}, [{at}], #8",
                "strd {a2}, {a3}, [{at}], #8",
                "str {at}, [sp]",
                "ldr {at}, [sp, #16]",
                "add {wp}, {wp}, {at}",
                "ldr {at}, [sp, #4]",
                "subs {at}, {at}, #1",
                "str {at}, [sp, #4]",
                "bne 4b",
                "add sp, sp, #20",
                at = inout(reg) at,
                xp = inout(reg) xp,
                wp = inout(reg) wp,
                a0 = inout(reg) count => _,
                a1 = inout(reg) groups => _,
                a2 = inout(reg) block.wrapping_sub(16 * groups) => _,
                a3 = out(reg) _,
                count = out(reg) _,
                x02 = out(reg) _,
                x13 = out(reg) _,
                wa = out(reg) _,
                wb = out(reg) _,
            );
        }
        // The pointers are spent.
        let _ = (at, xp, wp);
    }
    #[cfg(not(tinyaot_dsp))]
    for (b, sums) in sums.chunks_exact_mut(4).enumerate() {
        let w = blocks.at(b * block + start..).at(..8 * words);
        for (xs, w) in x.chunks_exact(2).zip(w.chunks_exact(16)) {
            for (r, s) in sums.iter_mut().enumerate() {
                let ww = word_i8(w.at(4 * r..4 * r + 4));
                *s = smlad(sxtb16_ror8(ww), xs[1], smlad(sxtb16(ww), xs[0], *s));
            }
        }
    }
}

/// Sets the paired-layout `sums` of a run (see [`pair_run`]) to the biases of its channels.
#[inline(always)]
pub(crate) fn start_pairs(sums: &mut [i32], bias: &[i32]) {
    for (s, b) in sums.chunks_exact_mut(4).zip(bias.chunks_exact(2)) {
        (s[0], s[1], s[2], s[3]) = (b[0], b[1], b[0], b[1]);
    }
}

/// One pass of [`pair_run`] off ARMv7E-M, with the lane instructions emulated: channels
/// `offset / 4` and `offset / 4 + 1` of a block (`offset` 0 or 8) against both pixels, added to
/// `sums` (`[pixel 0 channel a, pixel 0 channel b, pixel 1 channel a, pixel 1 channel b]`).
#[cfg(not(tinyaot_dsp))]
#[inline(always)]
fn pass(x: &[u32], w: &[i8], offset: usize, sums: &mut [i32]) {
    for (xs, w) in x.chunks_exact(4).zip(w[offset..].chunks(16)) {
        let (wa, wb) = (word_i8(w.at(..4)), word_i8(w.at(4..8)));
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

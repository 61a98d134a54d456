//! The int8 multiply-accumulate loops of CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED.
//!
//! Every product is `w * (x + offset)` with int8 `w` and `x` and `offset = -input_zero_point` in
//! `[-127, 128]`, so `x + offset` fits in 16 bits and each product in 17; sums wrap in `i32`. On
//! ARMv7E-M (`cfg(tinyaot_dsp)`) the loops take four bytes per load and two 16-bit products per
//! `smlad`; elsewhere they are plain scalar loops. Both give the same bits: the products are exact
//! and wrapping sums do not depend on their order.

#[cfg(tinyaot_dsp)]
use super::dsp::{smlabb, smlad, smlatt, sxtab16, sxtab16_ror8, sxtb16, sxtb16_ror8};

/// Four dot products `Σ w[k][i] * (x[i] + offset)` sharing one input row (each input byte is loaded
/// once for the four filters).
#[inline(always)]
pub(crate) fn dot4_s8(w: [&[i8]; 4], x: &[u8], offset: i32) -> [i32; 4] {
    let n = x.len();
    let mut acc = [0i32; 4];
    #[cfg(tinyaot_dsp)]
    {
        let w = w.map(|w| &w[..n]);
        let offsets = packed_offset(offset);
        // Zipped chunk iterators rather than indexing: one shared count, no bounds checks, which
        // leaves registers for the five pointers and four sums.
        let words = x
            .chunks_exact(4)
            .zip(w[0].chunks_exact(4))
            .zip(w[1].chunks_exact(4))
            .zip(w[2].chunks_exact(4))
            .zip(w[3].chunks_exact(4));
        for ((((x, w0), w1), w2), w3) in words {
            let xw = word(x);
            let (even, odd) = (sxtab16(offsets, xw), sxtab16_ror8(offsets, xw));
            for (a, w) in acc.iter_mut().zip([w0, w1, w2, w3]) {
                *a = mac_word(word_i8(w), even, odd, *a);
            }
        }
        // The at most three bytes left: a small loop.
        let offset = offset as i16;
        for i in n - n % 4..n {
            let xi = i16::from(x[i] as i8) + offset;
            for (a, w) in acc.iter_mut().zip(&w) {
                *a = a.wrapping_add(i32::from(i16::from(w[i]) * xi));
            }
        }
    }
    #[cfg(not(tinyaot_dsp))]
    {
        // Four named rows, each sliced to `n`: the bounds checks go, and the loop vectorises.
        let (w0, w1, w2, w3) = (&w[0][..n], &w[1][..n], &w[2][..n], &w[3][..n]);
        let offset = offset as i16;
        for i in 0..n {
            let xi = i16::from(x[i] as i8) + offset;
            acc[0] = acc[0].wrapping_add(i32::from(i16::from(w0[i]) * xi));
            acc[1] = acc[1].wrapping_add(i32::from(i16::from(w1[i]) * xi));
            acc[2] = acc[2].wrapping_add(i32::from(i16::from(w2[i]) * xi));
            acc[3] = acc[3].wrapping_add(i32::from(i16::from(w3[i]) * xi));
        }
    }
    acc
}

/// The four dot products of the input row `x` with a block of four filter rows of `x.len()` bytes
/// each, interleaved by words (`4 * x.len()` bytes: word 0 of rows 0, 1, 2, 3, then word 1 of each,
/// …, then each row's last `x.len() % 4` bytes, one row after another; see the runtime's
/// `Conv1x1S8::filter`), with no offset: the input zero point is folded into the bias at generation
/// time. The sums start from `init` (the channels' biases). One pass per input word: the word is
/// unpacked once for the four rows, whose words are the next 16 bytes of the block, read through
/// one pointer, so the loop keeps its four sums and both pointers in registers. See also
/// [`dot4_interleaved_s8_outlined`].
#[inline(always)]
pub(crate) fn dot4_interleaved_s8(x: &[u8], w: &[i8], init: [i32; 4]) -> [i32; 4] {
    let n = x.len();
    let whole = n - n % 4;
    let (words, tails) = w[..4 * n].split_at(4 * whole);
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    let mut acc = {
        let sums = super::sse2::dot4_interleaved(&x[..whole], words);
        core::array::from_fn(|r| init[r].wrapping_add(sums[r]))
    };
    #[cfg(not(any(tinyaot_mve, all(target_arch = "x86_64", not(miri)))))]
    let mut acc = init;
    #[cfg(tinyaot_mve)]
    let mut acc = if whole > 0 {
        super::mve::dot4_interleaved_words(&x[..whole], words, init)
    } else {
        init
    };
    #[cfg(all(tinyaot_dsp, not(tinyaot_mve)))]
    {
        let (mut xp, mut wp) = (x.as_ptr(), words.as_ptr());
        // SAFETY: `whole <= n = x.len()`, so the end is within (or one past) `x`.
        let end = unsafe { xp.add(whole) };
        while xp != end {
            // SAFETY: xp = x + i and wp = words + 4 i for the same i with i + 4 <= whole, and
            // `words` has 4 * whole bytes, so both reads are in bounds; the input read is
            // unaligned, and the words start word-aligned (asserted once per call by the
            // kernels, `conv2d_1x1_s8` and `conv2d_im2col_s8`, for their whole filter, whose
            // blocks are 4 n bytes long) and i is a multiple of 4, so the aligned read of four
            // weight words is sound.
            let (xw, ww) = unsafe {
                (
                    xp.cast::<u32>().read_unaligned(),
                    wp.cast::<[u32; 4]>().read(),
                )
            };
            let (even, odd) = (sxtb16(xw), sxtb16_ror8(xw));
            for (a, ww) in acc.iter_mut().zip(ww) {
                *a = mac_word(ww, even, odd, *a);
            }
            // SAFETY: both stay within their slices (at most one past the last word read).
            unsafe {
                xp = xp.add(4);
                wp = wp.add(16);
            }
        }
    }
    #[cfg(not(any(tinyaot_dsp, all(target_arch = "x86_64", not(miri)))))]
    for (x, w) in x[..whole].chunks_exact(4).zip(words.chunks_exact(16)) {
        for (a, w) in acc.iter_mut().zip(w.chunks_exact(4)) {
            for (&x, &w) in x.iter().zip(w) {
                *a = a.wrapping_add(i32::from(x as i8) * i32::from(w));
            }
        }
    }
    let tail = n - whole;
    if tail > 0 {
        for (a, w) in acc.iter_mut().zip(tails.chunks_exact(tail)) {
            // At most three products (`tail = n % 4`): `take(3)` tells the compiler so, which
            // otherwise vectorised and unrolled this loop into 1 KB of Cortex-M4 code.
            for (&x, &w) in x[whole..].iter().zip(w).take(3) {
                *a = a.wrapping_add(i32::from(x as i8) * i32::from(w));
            }
        }
    }
    acc
}

/// `sums[4 b + r] = init[4 b + r] + ` the dot product of `x` (whole words) with row `r` of block
/// `b` of `w`, for each block of four filter rows of `x.len()` bytes interleaved by words
/// ([`dot4_interleaved_s8`] without tails), as many blocks as `sums` has fours: the one-pixel
/// loop of the 1×1 kernel (FULLY_CONNECTED). On ARMv7E-M one assembly block walks every block of
/// the run: per input word 23 instructions with the loop test (the compiler's loop took 25); not
/// inlined on bare metal, so that one copy serves every call (inlined, the compiler copied the
/// loop into each of its callers' paths). Elsewhere [`dot4_interleaved_s8`] block by block.
#[cfg_attr(target_os = "none", inline(never))]
pub(crate) fn dot4_run_s8(x: &[u8], w: &[i8], init: &[i32], sums: &mut [i32]) {
    let n = x.len();
    let count = sums.len() / 4;
    assert!(
        n.is_multiple_of(4)
            && n > 0
            && sums.len().is_multiple_of(4)
            && init.len() >= sums.len()
            && w.len() >= 4 * n * count,
        "one-pixel run not whole words and blocks"
    );
    if count == 0 {
        return;
    }
    #[cfg(tinyaot_mve)]
    super::mve::dot4_run(x, w, init, sums);
    #[cfg(all(tinyaot_dsp, not(tinyaot_mve)))]
    {
        let (at, xp, wp) = (sums.as_mut_ptr(), x.as_ptr(), w.as_ptr());
        let from = init.as_ptr();
        let end = xp.wrapping_add(n);
        // SAFETY: block b (b < count) reads the n bytes of `x` (by words, `ldr` needs no alignment)
        // and the 4 n bytes of `w` from 4 n b, in order (`w` has at least 4 n count bytes,
        // asserted): in bounds; `ldrd` needs word alignment, which the weights have (the kernel
        // asserts it once per call for its whole filter, whose blocks are 4 n bytes long). It reads
        // and writes its four starting sums, init[4 b..4 b + 4], and writes its four sums, sums[4
        // b..4 b + 4] (`i32`s, word-aligned for `ldrd`/`strd`; `init` is at least as long,
        // asserted). The loop needs 13 registers, so the two sum pointers, the blocks left and the
        // row length wait in 16 bytes of stack, released before the block ends.
        unsafe {
            core::arch::asm!(
                "sub sp, sp, #16",
                "str {at}, [sp]",
                "str {a0}, [sp, #4]",
                "str {a1}, [sp, #8]",
                "str {a2}, [sp, #12]",
                "4:",
                "ldr {t}, [sp, #8]",
                "sub {xp}, {end}, {t}",
                "ldr {at}, [sp, #12]",
                "ldrd {a0}, {a1}, [{at}], #8",
                "ldrd {a2}, {a3}, [{at}], #8",
                "str {at}, [sp, #12]",
                "2:",
                "ldr {x}, [{xp}], #4",
                "ldrd {wa}, {wb}, [{wp}], #8",
                "sxtb16 {at}, {x}",
                "sxtb16 {x}, {x}, ror #8",
                "sxtb16 {t}, {wa}",
                "smlad {a0}, {t}, {at}, {a0}",
                "sxtb16 {wa}, {wa}, ror #8",
                "smlad {a0}, {wa}, {x}, {a0}",
                "sxtb16 {t}, {wb}",
                "smlad {a1}, {t}, {at}, {a1}",
                "sxtb16 {wb}, {wb}, ror #8",
                "smlad {a1}, {wb}, {x}, {a1}",
                "ldrd {wa}, {wb}, [{wp}], #8",
                "sxtb16 {t}, {wa}",
                "smlad {a2}, {t}, {at}, {a2}",
                "sxtb16 {wa}, {wa}, ror #8",
                "smlad {a2}, {wa}, {x}, {a2}",
                "sxtb16 {t}, {wb}",
                "smlad {a3}, {t}, {at}, {a3}",
                "sxtb16 {wb}, {wb}, ror #8",
                "smlad {a3}, {wb}, {x}, {a3}",
                "cmp {xp}, {end}",
                "bne 2b",
                "ldr {at}, [sp]",
                "strd {a0}, {a1}, [{at}], #8",
                "strd {a2}, {a3}, [{at}], #8",
                "str {at}, [sp]",
                "ldr {t}, [sp, #4]",
                "subs {t}, {t}, #1",
                "str {t}, [sp, #4]",
                "bne 4b",
                "add sp, sp, #16",
                at = inout(reg) at => _,
                xp = inout(reg) xp => _,
                wp = inout(reg) wp => _,
                end = in(reg) end,
                a0 = inout(reg) count => _,
                a1 = inout(reg) n => _,
                a2 = inout(reg) from => _,
                a3 = out(reg) _,
                x = out(reg) _,
                wa = out(reg) _,
                wb = out(reg) _,
                t = out(reg) _,
            );
        }
    }
    #[cfg(not(tinyaot_dsp))]
    for ((s, w), init) in sums
        .chunks_exact_mut(4)
        .zip(w.chunks_exact(4 * n))
        .zip(init.chunks_exact(4))
    {
        s.copy_from_slice(&dot4_interleaved_s8(
            x,
            w,
            [init[0], init[1], init[2], init[3]],
        ));
    }
}

/// [`dot4_interleaved_s8`], not inlined on bare metal: for long rows (a gathered convolution
/// window) the loop then gets every register of its own frame, where inlined into a kernel's
/// pixel loop it spilled sums (measured with `cargo xtask mcu --profile`); for short rows (a 1×1
/// convolution of few channels) the call costs more than it saves, so those kernels inline it.
#[cfg_attr(target_os = "none", inline(never))]
pub(crate) fn dot4_interleaved_s8_outlined(x: &[u8], w: &[i8], init: [i32; 4]) -> [i32; 4] {
    dot4_interleaved_s8(x, w, init)
}

/// The two sums `Σ w0[i] * x[i]` and `Σ w1[i] * x[i]` over the little-endian int16 inputs `x` (two
/// bytes each) and two rows of int8 weights as long, each whole group of four weights stored as
/// weights 0, 2, 1, 3: then on ARMv7E-M `sxtb16` of a weight word gives lanes `(w0, w1)` and
/// `sxtb16 ror #8` lanes `(w2, w3)`, which `smlad` multiplies with the input words `(x0, x1)` and
/// `(x2, x3)` as loaded: fourteen instructions for eight products. The elements after the last
/// whole group are in order. The sums wrap in 32 bits (callers keep them in range). One row is
/// summed by passing it twice.
#[inline(always)]
pub(crate) fn dot2_swizzled_s16(x: &[u8], w0: &[i8], w1: &[i8]) -> [i32; 2] {
    let n = x.len() / 2;
    let whole = n - n % 4;
    let (mut a0, mut a1) = (0i32, 0i32);
    let groups = x[..2 * whole]
        .chunks_exact(8)
        .zip(w0[..whole].chunks_exact(4))
        .zip(w1[..whole].chunks_exact(4));
    for ((x, w0), w1) in groups {
        #[cfg(tinyaot_dsp)]
        {
            // SAFETY: `x` is a chunk of eight bytes, so both four-byte reads are in bounds; they
            // are unaligned reads (ARMv7E-M's `ldr` allows them). Spelled as pointer reads: built
            // from bytes, LLVM splits the second word into three narrow loads.
            let (x01, x23) = unsafe {
                let p = x.as_ptr().cast::<u32>();
                (p.read_unaligned(), p.add(1).read_unaligned())
            };
            let (q0, q1) = (word_i8(w0), word_i8(w1));
            a0 = smlad(sxtb16_ror8(q0), x23, smlad(sxtb16(q0), x01, a0));
            a1 = smlad(sxtb16_ror8(q1), x23, smlad(sxtb16(q1), x01, a1));
        }
        #[cfg(not(tinyaot_dsp))]
        {
            let x: [i32; 4] =
                core::array::from_fn(|i| i32::from(i16::from_le_bytes([x[2 * i], x[2 * i + 1]])));
            let quad = |w: &[i8]| {
                let [w0, w2, w1, w3] = [w[0], w[1], w[2], w[3]].map(i32::from);
                w0 * x[0] + w1 * x[1] + w2 * x[2] + w3 * x[3]
            };
            a0 = a0.wrapping_add(quad(w0));
            a1 = a1.wrapping_add(quad(w1));
        }
    }
    for i in whole..n {
        let xi = i32::from(i16::from_le_bytes([x[2 * i], x[2 * i + 1]]));
        a0 = a0.wrapping_add(i32::from(w0[i]) * xi);
        a1 = a1.wrapping_add(i32::from(w1[i]) * xi);
    }
    [a0, a1]
}

/// `Σ w * x` over int8 weights and the little-endian int16 inputs `x` (two bytes each), exactly:
/// runs of 256 products are summed in 32 bits (each is at most 2^22 in magnitude, so a run stays
/// below 2^30), the runs in 64.
#[inline(always)]
pub(crate) fn dot_s16(w: &[i8], x: &[u8]) -> i64 {
    let mut total = 0i64;
    for (w, x) in w.chunks(256).zip(x.chunks(512)) {
        let mut run = 0i32;
        for (&w, x) in w.iter().zip(x.chunks_exact(2)) {
            run += i32::from(w) * i32::from(i16::from_le_bytes([x[0], x[1]]));
        }
        total += i64::from(run);
    }
    total
}

/// `Σ w * (x + offset)` over two equally long int8 rows (`x` as arena bytes).
#[inline(always)]
pub(crate) fn dot_s8(w: &[i8], x: &[u8], offset: i32) -> i32 {
    let n = x.len();
    let w = &w[..n];
    let mut acc = 0i32;
    #[cfg(tinyaot_dsp)]
    let start = {
        let offsets = packed_offset(offset);
        for (x, w) in x.chunks_exact(4).zip(w.chunks_exact(4)) {
            let xw = word(x);
            let (even, odd) = (sxtab16(offsets, xw), sxtab16_ror8(offsets, xw));
            acc = mac_word(word_i8(w), even, odd, acc);
        }
        n - n % 4
    };
    #[cfg(not(tinyaot_dsp))]
    let start = 0;
    // Portable: `Σ w * x + offset * Σ w`, which keeps each product within 16 bits.
    let mut weights = 0i32;
    for (&w, &x) in w[start..].iter().zip(&x[start..]) {
        acc = acc.wrapping_add(i32::from(i16::from(w) * i16::from(x as i8)));
        weights = weights.wrapping_add(i32::from(w));
    }
    acc.wrapping_add(offset.wrapping_mul(weights))
}

/// Channel-wise `acc[c] += w[c] * (x[c] + offset)` for four channels (a depthwise tap), the
/// accumulators passed by value so that they stay in registers across the taps.
#[inline(always)]
pub(crate) fn mac4_s8(acc: [i32; 4], w: &[i8], x: &[u8], offset: i32) -> [i32; 4] {
    let (w, x) = (&w[..4], &x[..4]);
    #[cfg(tinyaot_dsp)]
    {
        let offsets = packed_offset(offset);
        let (xw, ww) = (word(x), word_i8(w));
        let (x02, x13) = (sxtab16(offsets, xw), sxtab16_ror8(offsets, xw));
        let (w02, w13) = (sxtb16(ww), sxtb16_ror8(ww));
        [
            smlabb(w02, x02, acc[0]),
            smlabb(w13, x13, acc[1]),
            smlatt(w02, x02, acc[2]),
            smlatt(w13, x13, acc[3]),
        ]
    }
    #[cfg(not(tinyaot_dsp))]
    {
        core::array::from_fn(|c| {
            acc[c].wrapping_add(i32::from(w[c]) * (i32::from(x[c] as i8) + offset))
        })
    }
}

/// Bytes of the packed form ([`pack4_columns_s8`]) of four int8 columns, per four rows.
pub(crate) const PACKED4_GROUP: usize = 32;

/// Bytes of the packed form ([`pack4_columns_s8`]) of four columns of `depth` rows: whole groups
/// of four rows, the last one zero-padded.
pub(crate) const fn packed4_bytes(depth: usize) -> usize {
    depth.div_ceil(4) * PACKED4_GROUP
}

/// Packs `columns` (1 to 4) columns of an int8 matrix for [`dot4_packed_s8`]: element `(k, j)`
/// (row `k < depth`, column `j < columns`) is `m[k * row_stride + j * col_stride]`. Each group of
/// four rows `k..k + 4` becomes [`PACKED4_GROUP`] bytes: for each of four columns, two words of two
/// 16-bit lanes, `(k, k + 2)` and `(k + 1, k + 3)` sign-extended, the lanes the input word's even
/// and odd bytes meet in `smlad`; rows past `depth` and columns past `columns` are 0, so that a
/// partial block computes as a whole one. Made once for every row of the other operand, so that
/// the inner loop takes two products per `smlad` with nothing left to unpack. With the DSP
/// extension, four columns in the plain layout (`col_stride == 1`: a word of four columns per row)
/// or the transposed one (`row_stride == 1`: a word of four rows per column) unpack a word at a
/// time. Not inlined on bare metal: it runs once per block of columns.
#[cfg_attr(target_os = "none", inline(never))]
pub(crate) fn pack4_columns_s8(
    m: &[u8],
    (row_stride, col_stride): (usize, usize),
    (depth, columns): (usize, usize),
    packed: &mut [u8],
) {
    let packed = &mut packed[..packed4_bytes(depth)];
    let columns = columns.min(4);
    if depth == 0 || columns == 0 {
        packed.fill(0);
        return;
    }
    // Every element read is in `m`: one check, so that the DSP paths read words unchecked.
    let last = (depth - 1)
        .checked_mul(row_stride)
        .zip((columns - 1).checked_mul(col_stride))
        .and_then(|(a, b)| a.checked_add(b));
    assert!(
        last.is_some_and(|last| last < m.len()),
        "pack4_columns_s8: the columns run past their matrix"
    );
    #[allow(unused_mut)]
    let mut done = 0;
    #[cfg(tinyaot_dsp)]
    if columns == 4 && (col_stride == 1 || row_stride == 1) {
        // The word at `i`: a row's four columns (plain) or a column's four rows (transposed).
        let word_at = |i: usize| -> u32 {
            debug_assert!(i + 4 <= m.len());
            // SAFETY: plain (`col_stride == 1`): `i = k * row_stride` for a row `k < depth`, whose
            // four columns end at most at `last < m.len()` (the assertion above); transposed
            // (`row_stride == 1`): `i = k + j * col_stride` with `k + 4 <= depth` and `j < 4`, so
            // `i + 3 <= last`. An unaligned read is allowed on ARMv7E-M and `read_unaligned` asks
            // for no alignment.
            u32::from_le_bytes(unsafe { m.as_ptr().add(i).cast::<[u8; 4]>().read_unaligned() })
        };
        let (lows, highs) = (
            |a: u32, b: u32| (a & 0xffff) | (b << 16),
            |a: u32, b: u32| (b & 0xffff_0000) | (a >> 16),
        );
        for (g, out) in packed
            .chunks_exact_mut(PACKED4_GROUP)
            .take(depth / 4)
            .enumerate()
        {
            let words = if col_stride == 1 {
                // Columns (0, 2) and (1, 3) of rows k..k+4, then rows k and k + 2 (and k + 1,
                // k + 3) paired by 16-bit halves (pkhbt/pkhtb).
                let row = |i: usize| word_at((4 * g + i) * row_stride);
                let (w0, w1, w2, w3) = (row(0), row(1), row(2), row(3));
                let (e0, e1, e2, e3) = (sxtb16(w0), sxtb16(w1), sxtb16(w2), sxtb16(w3));
                let (o0, o1, o2, o3) = (
                    sxtb16_ror8(w0),
                    sxtb16_ror8(w1),
                    sxtb16_ror8(w2),
                    sxtb16_ror8(w3),
                );
                [
                    lows(e0, e2),
                    lows(e1, e3),
                    lows(o0, o2),
                    lows(o1, o3),
                    highs(e0, e2),
                    highs(e1, e3),
                    highs(o0, o2),
                    highs(o1, o3),
                ]
            } else {
                // A column's word of rows k..k+4: its even and odd bytes are the pairs.
                let column = |j: usize| word_at(4 * g + j * col_stride);
                let (c0, c1, c2, c3) = (column(0), column(1), column(2), column(3));
                [
                    sxtb16(c0),
                    sxtb16_ror8(c0),
                    sxtb16(c1),
                    sxtb16_ror8(c1),
                    sxtb16(c2),
                    sxtb16_ror8(c2),
                    sxtb16(c3),
                    sxtb16_ror8(c3),
                ]
            };
            for (o, w) in out.chunks_exact_mut(4).zip(words) {
                o.copy_from_slice(&w.to_le_bytes());
            }
        }
        done = depth / 4;
    }
    // The rest (everything off ARMv7E-M): element by element, 0 outside the matrix.
    let at = |k: usize, j: usize| {
        if k < depth && j < columns {
            i32::from(m[k * row_stride + j * col_stride] as i8)
        } else {
            0
        }
    };
    let lanes = |lo: i32, hi: i32| (lo as u32 & 0xffff) | ((hi as u32) << 16);
    for (g, out) in packed
        .chunks_exact_mut(PACKED4_GROUP)
        .enumerate()
        .skip(done)
    {
        let k = 4 * g;
        for (j, o) in out.chunks_exact_mut(8).enumerate() {
            o[..4].copy_from_slice(&lanes(at(k, j), at(k + 2, j)).to_le_bytes());
            o[4..].copy_from_slice(&lanes(at(k + 1, j), at(k + 3, j)).to_le_bytes());
        }
    }
}

/// The four dot products `Σ_k c_j[k] * (x[k] + offset)` of the input row `x` with four columns
/// packed by [`pack4_columns_s8`] (its `depth` is `x.len()`): per input word, two `smlad` for each
/// column and nothing else besides the word's unpacking. The bytes past the last whole word are
/// read into one more word, zero-padded: the packed rows there are 0.
#[inline(always)]
pub(crate) fn dot4_packed_s8(x: &[u8], packed: &[u8], offset: i32) -> [i32; 4] {
    let whole = x.len() / 4;
    let packed = &packed[..packed4_bytes(x.len())];
    #[cfg(tinyaot_dsp)]
    let mut acc = packed_words_s8(&x[..4 * whole], packed, offset);
    #[cfg(not(tinyaot_dsp))]
    let mut acc = x
        .chunks_exact(4)
        .zip(packed.chunks_exact(PACKED4_GROUP))
        .fold([0i32; 4], |acc, (xw, g)| {
            mac4_packed_s8(acc, word(xw), g, offset)
        });
    let tail = &x[4 * whole..];
    if !tail.is_empty() {
        let mut padded = [0u8; 4];
        padded[..tail.len()].copy_from_slice(tail);
        let g = &packed[whole * PACKED4_GROUP..][..PACKED4_GROUP];
        acc = mac4_packed_s8(acc, u32::from_le_bytes(padded), g, offset);
    }
    acc
}

/// The whole words of [`dot4_packed_s8`] on ARMv7E-M, in assembly: per input word one load, its
/// two unpackings with the offset, four `ldrd` of packed pairs and eight `smlad` (17 instructions
/// for 16 products with the loop's two), where the compilers spill a sum or the offset.
#[cfg(tinyaot_dsp)]
#[inline(always)]
fn packed_words_s8(x: &[u8], packed: &[u8], offset: i32) -> [i32; 4] {
    let words = x.len() / 4;
    let (mut a0, mut a1, mut a2, mut a3) = (0i32, 0i32, 0i32, 0i32);
    assert!(
        packed.len() >= words * PACKED4_GROUP && (packed.as_ptr() as usize).is_multiple_of(4),
        "dot4_packed_s8: packed columns short or not word-aligned"
    );
    if words > 0 {
        // SAFETY: the loop runs `words >= 1` times, reading `4 * words` bytes of `x` (by `ldr`,
        // which needs no alignment) and `32 * words` bytes of `packed` (by `ldrd`, which needs
        // word alignment): both in bounds and `packed` aligned, asserted above. It writes only its
        // registers, and sets the flags (`subs`), which are not declared preserved.
        unsafe {
            core::arch::asm!(
                "2:",
                "ldr {o}, [{x}], #4",
                "sxtab16 {e}, {offsets}, {o}",
                "sxtab16 {o}, {offsets}, {o}, ror #8",
                "ldrd {p}, {q}, [{pk}], #8",
                "smlad {a0}, {p}, {e}, {a0}",
                "smlad {a0}, {q}, {o}, {a0}",
                "ldrd {p}, {q}, [{pk}], #8",
                "smlad {a1}, {p}, {e}, {a1}",
                "smlad {a1}, {q}, {o}, {a1}",
                "ldrd {p}, {q}, [{pk}], #8",
                "smlad {a2}, {p}, {e}, {a2}",
                "smlad {a2}, {q}, {o}, {a2}",
                "ldrd {p}, {q}, [{pk}], #8",
                "smlad {a3}, {p}, {e}, {a3}",
                "smlad {a3}, {q}, {o}, {a3}",
                "subs {n}, {n}, #1",
                "bne 2b",
                x = inout(reg) x.as_ptr() => _,
                pk = inout(reg) packed.as_ptr() => _,
                n = inout(reg) words => _,
                offsets = in(reg) packed_offset(offset),
                e = out(reg) _,
                o = out(reg) _,
                p = out(reg) _,
                q = out(reg) _,
                a0 = inout(reg) a0,
                a1 = inout(reg) a1,
                a2 = inout(reg) a2,
                a3 = inout(reg) a3,
                options(nostack, readonly),
            );
        }
    }
    [a0, a1, a2, a3]
}

/// `acc` plus the products of the input word `xw` (four int8 values, `offset` added to each) with
/// one packed group of four columns ([`pack4_columns_s8`]).
#[inline(always)]
fn mac4_packed_s8(acc: [i32; 4], xw: u32, g: &[u8], offset: i32) -> [i32; 4] {
    let g: &[u8; PACKED4_GROUP] = g.try_into().expect("a group");
    let pairs = |i: usize| u32::from_le_bytes([g[4 * i], g[4 * i + 1], g[4 * i + 2], g[4 * i + 3]]);
    #[cfg(tinyaot_dsp)]
    {
        let offsets = packed_offset(offset);
        let (even, odd) = (sxtab16(offsets, xw), sxtab16_ror8(offsets, xw));
        [
            smlad(pairs(1), odd, smlad(pairs(0), even, acc[0])),
            smlad(pairs(3), odd, smlad(pairs(2), even, acc[1])),
            smlad(pairs(5), odd, smlad(pairs(4), even, acc[2])),
            smlad(pairs(7), odd, smlad(pairs(6), even, acc[3])),
        ]
    }
    #[cfg(not(tinyaot_dsp))]
    {
        let x: [i32; 4] = core::array::from_fn(|i| i32::from((xw >> (8 * i)) as i8) + offset);
        let lane = |w: u32, hi: bool| i32::from((if hi { w >> 16 } else { w }) as u16 as i16);
        core::array::from_fn(|j| {
            let (even, odd) = (pairs(2 * j), pairs(2 * j + 1));
            acc[j]
                .wrapping_add(lane(even, false) * x[0])
                .wrapping_add(lane(even, true) * x[2])
                .wrapping_add(lane(odd, false) * x[1])
                .wrapping_add(lane(odd, true) * x[3])
        })
    }
}

/// The taps of a depthwise window wholly in the image: for each, its input offset from the
/// window's first tap and its filter offset from the first tap's, with their maxima, found once
/// when the table is built so that [`window_run_s8`] checks its bounds with two comparisons. The
/// pairs sit together so that a tap's two offsets are one load (`ldrd`).
pub(crate) struct TapTable<'a> {
    pub(super) taps: &'a [[usize; 2]],
    pub(super) max_input: usize,
    pub(super) max_filter: usize,
}

impl<'a> TapTable<'a> {
    /// The table of `taps`: `[input offset, filter offset]` each.
    pub(crate) fn new(taps: &'a [[usize; 2]]) -> Self {
        let (mut max_input, mut max_filter) = (0, 0);
        for &[input, filter] in taps {
            max_input = max_input.max(input);
            max_filter = max_filter.max(filter);
        }
        TapTable {
            taps,
            max_input,
            max_filter,
        }
    }
}

/// Sets `sums[c]` to `init[c]` (the channels' biases, or zeros) plus the channel sums
/// `Σ_k w[filter_k + c] * (x[c0 + input_k + c] + offset)` of a depthwise window whose taps the
/// table gives, for the channels `c < sums.len()` (a multiple of four), four at a time; `x` is
/// the window's first tap's pixel and `c0` the run's first channel in it (the filter `w` starts at
/// that channel). The bounds are checked once, up front, so that each tap is three loads (its
/// offsets, the input word, the filter word) and the multiply-accumulates, its four sums in
/// registers. Not inlined on bare metal: in its own frame the loop gets every register, and one
/// call covers a whole run of channels (measured with `cargo xtask mcu --profile`).
#[cfg_attr(target_os = "none", inline(never))]
pub(crate) fn window_run_s8(
    x: &[u8],
    w: &[i8],
    table: &TapTable,
    (c0, offset): (usize, i32),
    init: &[i32],
    sums: &mut [i32],
) {
    let n = sums.len();
    assert!(
        n.is_multiple_of(4),
        "depthwise run not a whole number of four channels"
    );
    let init = &init[..n];
    if table.taps.is_empty() {
        sums.copy_from_slice(init);
        return;
    }
    assert!(
        c0 + table.max_input + n <= x.len() && table.max_filter + n <= w.len(),
        "depthwise window out of bounds"
    );
    let x = &x[c0..];
    // Helium: eight channels at a time, the last four (if any) by the DSP loop.
    #[cfg(tinyaot_mve)]
    let (x, w, init, sums, n) = {
        let done = super::mve::window_s8(x, w, table, offset, init, sums);
        if done == n {
            return;
        }
        (
            &x[done..],
            &w[done..],
            &init[done..],
            &mut sums[done..],
            n - done,
        )
    };
    #[cfg(tinyaot_dsp)]
    {
        let taps = table.taps.as_ptr().cast::<usize>();
        let end = taps.wrapping_add(2 * table.taps.len());
        let (mut from, mut at, mut groups) = (init.as_ptr(), sums.as_mut_ptr(), n / 4);
        let (mut xb, mut wb, mut tp) = (x.as_ptr(), w.as_ptr(), taps);
        if groups == 0 {
            return;
        }
        // SAFETY: group g (g < n / 4) reads each tap's offsets o <= max_input and wo <= max_filter
        // (the table's invariant: the maxima are computed from the same slice when it is built)
        // and the four bytes at x + 4 g + o and w + 4 g + wo, in bounds since c0 + max_input + n
        // <= x.len() and max_filter + n <= w.len() before `x` was advanced by c0 (asserted
        // above); `ldr` needs no alignment. The table has at least one tap (checked above) and
        // is read to its end for each group. Group g's starting sums are init[4 g..4 g + 4] and
        // its sums go to sums[4 g..4 g + 4] (`init` was cut to n): `i32`s, word-aligned for
        // `ldrd`/`strd`, as the table's `usize` pairs. The tap loop needs all 13 registers, so
        // the two sum pointers, the group count and the table's start wait in 16 bytes of stack,
        // released before the block ends. In assembly so that a tap is 14 instructions with its
        // loop test (the compiler's schedule spilled, 17) and the group loop is not unrolled
        // (code size).
        unsafe {
            core::arch::asm!(
                "sub sp, sp, #16",
                "str {from}, [sp]",
                "str {at}, [sp, #4]",
                "str {xo}, [sp, #8]",
                "str {tp}, [sp, #12]",
                "3:",
                "ldr {from}, [sp]",
                "ldrd {a0}, {a1}, [{from}]",
                "ldrd {a2}, {a3}, [{from}, #8]",
                "add {from}, {from}, #16",
                "str {from}, [sp]",
                "2:",
                "ldrd {xo}, {wo}, [{tp}], #8",
                "ldr {xo}, [{xb}, {xo}]",
                "ldr {wo}, [{wb}, {wo}]",
                "sxtab16 {from}, {off}, {xo}",
                "sxtab16 {xo}, {off}, {xo}, ror #8",
                "sxtb16 {at}, {wo}",
                "sxtb16 {wo}, {wo}, ror #8",
                "smlabb {a0}, {at}, {from}, {a0}",
                "smlabb {a1}, {wo}, {xo}, {a1}",
                "smlatt {a2}, {at}, {from}, {a2}",
                "smlatt {a3}, {wo}, {xo}, {a3}",
                "cmp {tp}, {end}",
                "bne 2b",
                "ldr {at}, [sp, #4]",
                "strd {a0}, {a1}, [{at}]",
                "strd {a2}, {a3}, [{at}, #8]",
                "add {at}, {at}, #16",
                "str {at}, [sp, #4]",
                "add {xb}, {xb}, #4",
                "add {wb}, {wb}, #4",
                "ldr {tp}, [sp, #12]",
                "ldr {at}, [sp, #8]",
                "subs {at}, {at}, #1",
                "str {at}, [sp, #8]",
                "bne 3b",
                "add sp, sp, #16",
                from = inout(reg) from,
                at = inout(reg) at,
                tp = inout(reg) tp,
                xb = inout(reg) xb,
                wb = inout(reg) wb,
                end = in(reg) end,
                off = in(reg) packed_offset(offset),
                a0 = out(reg) _,
                a1 = out(reg) _,
                a2 = out(reg) _,
                a3 = out(reg) _,
                xo = inout(reg) groups,
                wo = out(reg) _,
            );
        }
        // The pointers and the count are spent.
        let _ = (from, at, groups, tp, xb, wb);
    }
    #[cfg(not(tinyaot_dsp))]
    for (c, (four, init)) in sums
        .chunks_exact_mut(4)
        .zip(init.chunks_exact(4))
        .enumerate()
    {
        let (x, w) = (&x[4 * c..], &w[4 * c..]);
        let init = [init[0], init[1], init[2], init[3]];
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        let mut acc = init;
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        let mut lanes = super::sse2::Mac4::new(offset);
        for &[o, wo] in table.taps {
            // SAFETY: o <= max_input and wo <= max_filter (the table's invariant: the maxima
            // are computed from the same slice when it is built), 4 c + 4 <= n, and
            // c0 + max_input + n <= x.len(), max_filter + n <= w.len() before `x` and `w` were
            // advanced by c0 + 4 c and 4 c (asserted above): both four-byte reads are in bounds;
            // `read_unaligned` needs no alignment.
            let (xw, ww) = unsafe {
                (
                    x.as_ptr().add(o).cast::<[u8; 4]>().read_unaligned(),
                    w.as_ptr().add(wo).cast::<[i8; 4]>().read_unaligned(),
                )
            };
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            {
                lanes = lanes.mac(ww, xw);
            }
            #[cfg(not(all(target_arch = "x86_64", not(miri))))]
            {
                acc = mac4_s8(acc, &ww, &xw, offset);
            }
        }
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        let acc: [i32; 4] = {
            let sums = lanes.sums();
            core::array::from_fn(|c| init[c].wrapping_add(sums[c]))
        };
        four.copy_from_slice(&acc);
    }
}

/// One tap of [`window3x3_run_s8`]'s assembly: the input and filter words at `{xp}` and `{wp}`
/// plus `$at` (an offset operand: none, `, {c}` or `, {c}, lsl #1`, the row's taps 0, 1 and 2),
/// unpacked (the input with the offset added) and multiplied into the four sums.
#[cfg(tinyaot_dsp)]
macro_rules! window3x3_tap {
    ($at:literal) => {
        concat!(
            "ldr {x}, [{xp}",
            $at,
            "]\n",
            "ldr {w}, [{wp}",
            $at,
            "]\n",
            "sxtab16 {t}, {off}, {x}\n",
            "sxtab16 {x}, {off}, {x}, ror #8\n",
            "sxtb16 {u}, {w}\n",
            "sxtb16 {w}, {w}, ror #8\n",
            "smlabb {a0}, {u}, {t}, {a0}\n",
            "smlabb {a1}, {w}, {x}, {a1}\n",
            "smlatt {a2}, {u}, {t}, {a2}\n",
            "smlatt {a3}, {w}, {x}, {a3}\n",
        )
    };
}

/// One filter row of [`window3x3_run_s8`]'s assembly: its three taps.
#[cfg(tinyaot_dsp)]
macro_rules! window3x3_row {
    () => {
        concat!(
            window3x3_tap!(""),
            window3x3_tap!(", {c}"),
            window3x3_tap!(", {c}, lsl #1"),
        )
    };
}

/// [`window_run_s8`] for a 3×3 window without dilation wholly in the image, of a depthwise
/// convolution without a depth multiplier: the taps at `x + ky * row + kx * c` and the filter's at
/// `w + (3 ky + kx) * c` (`c` the channels, `row` the image row's bytes), with no table: each tap
/// is two loads addressed by registers (`[x, c]`, `[x, c, lsl #1]` along a row) and the
/// multiply-accumulates, 10 instructions where the table's loop takes 14. Not inlined on bare
/// metal, as [`window_run_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub(crate) fn window3x3_run_s8(
    x: &[u8],
    w: &[i8],
    (c, row, c0, offset): (usize, usize, usize, i32),
    init: &[i32],
    sums: &mut [i32],
) {
    let n = sums.len();
    assert!(
        n.is_multiple_of(4) && n > 0 && c0 + n <= c,
        "depthwise run not a whole number of four channels within the pixel"
    );
    let init = &init[..n];
    assert!(
        c0 + 2 * row + 2 * c + n <= x.len() && c0 + 8 * c + n <= w.len(),
        "3x3 depthwise window out of bounds"
    );
    // Helium: eight channels at a time, the last four (if any) by the DSP loop.
    #[cfg(tinyaot_mve)]
    let (c0, init, sums, n) = {
        let done = super::mve::window3x3_s8(x, w, (c, row, c0, offset), init, sums);
        if done == n {
            return;
        }
        (c0 + done, &init[done..], &mut sums[done..], n - done)
    };
    #[cfg(tinyaot_dsp)]
    {
        let (mut xp, mut wp) = (x.as_ptr().wrapping_add(c0), w.as_ptr().wrapping_add(c0));
        // SAFETY: group g (g < n / 4) reads, for ky, kx < 3, the four bytes at
        // x + c0 + ky * row + kx * c + 4 g and w + c0 + (3 ky + kx) * c + 4 g: in bounds, since
        // c0 + 2 row + 2 c + n <= x.len() and c0 + 8 c + n <= w.len() (asserted above); `ldr`
        // needs no alignment. The pointers are stepped by a row (`row`, `3 c`) after each filter
        // row and back by two rows less four bytes after each group, so each group starts four
        // bytes on. Group g's starting sums are init[4 g..4 g + 4] and its sums go to
        // sums[4 g..4 g + 4] (`init` was cut to n, n >= 4 asserted): `i32`s, word-aligned for
        // `ldrd`/`strd`. The taps need all 13 registers, so the two sum pointers and the group
        // count wait in 12 bytes of stack, released before the block ends.
        unsafe {
            core::arch::asm!(
                "sub sp, sp, #12",
                "str {a0}, [sp]",
                "str {a1}, [sp, #4]",
                "str {a2}, [sp, #8]",
                "3:",
                "ldr {t}, [sp]",
                "ldrd {a0}, {a1}, [{t}]",
                "ldrd {a2}, {a3}, [{t}, #8]",
                "add {t}, {t}, #16",
                "str {t}, [sp]",
                window3x3_row!(),
                "add {xp}, {xp}, {row}",
                "add {wp}, {wp}, {c}, lsl #1",
                "add {wp}, {wp}, {c}",
                window3x3_row!(),
                "add {xp}, {xp}, {row}",
                "add {wp}, {wp}, {c}, lsl #1",
                "add {wp}, {wp}, {c}",
                window3x3_row!(),
                "ldr {t}, [sp, #4]",
                "strd {a0}, {a1}, [{t}]",
                "strd {a2}, {a3}, [{t}, #8]",
                "add {t}, {t}, #16",
                "str {t}, [sp, #4]",
                "sub {xp}, {xp}, {row}, lsl #1",
                "add {xp}, {xp}, #4",
                "sub {wp}, {wp}, {c}, lsl #2",
                "sub {wp}, {wp}, {c}, lsl #1",
                "add {wp}, {wp}, #4",
                "ldr {t}, [sp, #8]",
                "subs {t}, {t}, #1",
                "str {t}, [sp, #8]",
                "bne 3b",
                "add sp, sp, #12",
                xp = inout(reg) xp,
                wp = inout(reg) wp,
                c = in(reg) c,
                row = in(reg) row,
                off = in(reg) packed_offset(offset),
                a0 = inout(reg) init.as_ptr() => _,
                a1 = inout(reg) sums.as_mut_ptr() => _,
                a2 = inout(reg) n / 4 => _,
                a3 = out(reg) _,
                x = out(reg) _,
                w = out(reg) _,
                t = out(reg) _,
                u = out(reg) _,
            );
        }
        // The pointers are spent.
        let _ = (xp, wp);
    }
    #[cfg(not(tinyaot_dsp))]
    for (g, (four, init)) in sums
        .chunks_exact_mut(4)
        .zip(init.chunks_exact(4))
        .enumerate()
    {
        let mut acc = [init[0], init[1], init[2], init[3]];
        for ky in 0..3 {
            for kx in 0..3 {
                let at = c0 + 4 * g;
                let xs = &x[at + ky * row + kx * c..][..4];
                let ws = &w[at + (3 * ky + kx) * c..][..4];
                acc = mac4_s8(acc, ws, xs, offset);
            }
        }
        four.copy_from_slice(&acc);
    }
}

/// Channel-wise `acc[c] += w[c] * (x[c] + offset)` over equally long rows: four channels at a
/// time, then one at a time.
#[cfg_attr(tinyaot_mve, allow(dead_code))] // Helium: `mve::mac_lanes_s8` instead.
#[inline(always)]
pub(crate) fn mac_lanes_s8(acc: &mut [i32], w: &[i8], x: &[u8], offset: i32) {
    let n = acc.len();
    let (w, x) = (&w[..n], &x[..n]);
    let (acc4, acc_rest) = acc.split_at_mut(n - n % 4);
    for ((a, w), x) in acc4
        .chunks_exact_mut(4)
        .zip(w.chunks_exact(4))
        .zip(x.chunks_exact(4))
    {
        let sum = mac4_s8([a[0], a[1], a[2], a[3]], w, x, offset);
        a.copy_from_slice(&sum);
    }
    let start = n - n % 4;
    for ((a, &w), &x) in acc_rest.iter_mut().zip(&w[start..]).zip(&x[start..]) {
        *a = a.wrapping_add(i32::from(w) * (i32::from(x as i8) + offset));
    }
}

/// `acc[c] += w[c] * (x + offset)` for one input byte `x` shared by every channel (the output
/// channels of one input channel under a depth multiplier).
#[cfg_attr(tinyaot_mve, allow(dead_code))] // Helium: `mve::mac_broadcast_s8` instead.
#[inline(always)]
pub(crate) fn mac_broadcast_s8(acc: &mut [i32], w: &[i8], x: u8, offset: i32) {
    let n = acc.len();
    let w = &w[..n];
    let (acc4, acc_rest) = acc.split_at_mut(n - n % 4);
    let xs = [x; 4];
    for (a, w) in acc4.chunks_exact_mut(4).zip(w.chunks_exact(4)) {
        let sum = mac4_s8([a[0], a[1], a[2], a[3]], w, &xs, offset);
        a.copy_from_slice(&sum);
    }
    let x = i32::from(x as i8) + offset;
    for (a, &w) in acc_rest.iter_mut().zip(&w[n - n % 4..]) {
        *a = a.wrapping_add(i32::from(w) * x);
    }
}

/// `acc` plus the four products of weight word `ww` with an input word unpacked as `even` (bytes
/// 0 and 2 plus the offset) and `odd` (bytes 1 and 3 plus the offset).
#[cfg(tinyaot_dsp)]
#[inline(always)]
pub(super) fn mac_word(ww: u32, even: u32, odd: u32, acc: i32) -> i32 {
    smlad(sxtb16_ror8(ww), odd, smlad(sxtb16(ww), even, acc))
}

/// `offset` in both 16-bit lanes.
#[cfg(tinyaot_dsp)]
#[inline(always)]
pub(super) fn packed_offset(offset: i32) -> u32 {
    let lane = u32::from(offset as i16 as u16);
    lane << 16 | lane
}

/// Four arena bytes as a little-endian word (one unaligned `ldr` on ARMv7-M).
#[inline(always)]
pub(super) fn word(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Four int8 weights as a little-endian word.
#[inline(always)]
pub(super) fn word_i8(b: &[i8]) -> u32 {
    // SAFETY: i8 and u8 have the same size, alignment and (all-bits-valid) values. Going through
    // bytes lets the four loads merge into one `ldr`, which they do not from `b[k] as u8`.
    let bytes = unsafe { core::slice::from_raw_parts(b.as_ptr().cast::<u8>(), b.len()) };
    word(bytes)
}

#[cfg(test)]
pub(crate) mod tests {
    extern crate std;
    use std::vec::Vec;

    /// The runtime's `Conv1x1S8::filter` layout of `rows` (`row` bytes each), spelled as the
    /// source of each byte of the layout (the generator's lowering builds it the other way, by
    /// appending words and tails; both are checked against the same example below and in its
    /// tests).
    pub(crate) fn interleave_rows4(rows: &[i8], row: usize) -> Vec<i8> {
        let whole = row - row % 4;
        let tail = row - whole;
        let blocked = rows.len() - rows.len() % (4 * row.max(1));
        (0..rows.len())
            .map(|i| {
                if i >= blocked {
                    return rows[i];
                }
                let (block, j) = (i / (4 * row), i % (4 * row));
                let (r, column) = if j < 4 * whole {
                    ((j % 16) / 4, 4 * (j / 16) + j % 4)
                } else {
                    let t = j - 4 * whole;
                    (t / tail, whole + t % tail)
                };
                rows[(4 * block + r) * row + column]
            })
            .collect()
    }

    #[test]
    fn the_interleaved_layout_of_an_example() {
        // Five rows of six: one block (words of rows 0..4, then their two-byte tails), one row
        // left as it is; the same example as the lowering's test of its layout.
        let rows: Vec<i8> = (0..30).collect();
        #[rustfmt::skip]
        let expected: Vec<i8> = std::vec![
            0, 1, 2, 3, 6, 7, 8, 9, 12, 13, 14, 15, 18, 19, 20, 21,
            4, 5, 10, 11, 16, 17, 22, 23,
            24, 25, 26, 27, 28, 29,
        ];
        assert_eq!(interleave_rows4(&rows, 6), expected);
        assert_eq!(interleave_rows4(&[1, 2, 3, 4], 1), std::vec![1, 2, 3, 4]);
    }

    use super::*;

    fn reference(w: &[i8], x: &[u8], offset: i32) -> i32 {
        w.iter()
            .zip(x)
            .map(|(&w, &x)| i32::from(w) * (i32::from(x as i8) + offset))
            .sum()
    }

    #[test]
    fn dot_products_match_the_plain_sum_at_the_extremes() {
        let w: [i8; 7] = [-128, 127, -1, 0, 5, -128, 127];
        let x: [u8; 7] = [0x80, 0x7f, 0xff, 3, 0x80, 0x7f, 0x80];
        for offset in [-127, 0, 128] {
            let want = reference(&w, &x, offset);
            assert_eq!(dot_s8(&w, &x, offset), want);
            assert_eq!(dot4_s8([&w; 4], &x, offset), [want; 4]);
            let mut acc = [1i32; 7];
            mac_lanes_s8(&mut acc, &w, &x, offset);
            let mut broadcast = [1i32; 7];
            mac_broadcast_s8(&mut broadcast, &w, x[2], offset);
            for (c, a) in broadcast.iter().enumerate() {
                assert_eq!(*a, 1 + reference(&w[c..=c], &x[2..=2], offset));
            }
            let four = mac4_s8([1; 4], &w[3..], &x[3..], offset);
            if offset == 0 {
                let rows: [[i8; 7]; 4] = [
                    w,
                    [127, -128, 3, -7, 0, 127, -128],
                    [-1; 7],
                    [1, 2, 3, 4, 5, 6, 7],
                ];
                let flat: [i8; 28] = core::array::from_fn(|i| rows[i / 7][i % 7]);
                assert_eq!(
                    dot4_interleaved_s8(&x, &interleave_rows4(&flat, 7), [0; 4]),
                    rows.map(|row| reference(&row, &x, 0))
                );
            }
            for (c, a) in acc.iter().enumerate() {
                let want = 1 + reference(&w[c..=c], &x[c..=c], offset);
                assert_eq!(*a, want);
                if c >= 3 {
                    assert_eq!(four[c - 3], want);
                }
            }
        }
    }
}

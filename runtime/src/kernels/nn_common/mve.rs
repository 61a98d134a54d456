//! The Helium (MVE, `cfg(tinyaot_mve)`: Cortex-M55 and M85) inner loops of the int8 convolutions:
//! the word-interleaved dot products of the 1×1 and gathering CONV_2D (and FULLY_CONNECTED) and
//! the depthwise windows. Each replaces the DSP loop of the same function in `dot.rs`, which
//! calls it, and computes the same bits: every product is exact and the sums wrap in 32 bits, in
//! any order.
//!
//! - Dot products: 16 input bytes per load and one `vmladava.s8` (16 products summed into a
//!   scalar) per filter row. The filter keeps its generation-time layout (blocks of four rows
//!   interleaved by words, `Conv1x1S8::filter`), the same on every target: a gather load
//!   (`vldrb.u8 q, [w, offsets]`, one instruction) picks a row's 16 bytes from the 64 of four
//!   words of the block. The loop is tail-predicated (`dlstp.8`/`letp`): the last, partial
//!   vector has its lanes past the row switched off, so no scalar remainder and no read past it.
//! - Depthwise windows: eight channels per pass in 16-bit lanes, loaded (sign-extended) in the
//!   lane order 0, 4, 1, 5, 2, 6, 3, 7, so that `vmullb.s16` (even lanes) gives channels 0..4's
//!   32-bit products and `vmullt.s16` channels 4..8's, which add to the sums as they lie in
//!   memory. The input offset is added in 16 bits (`x + offset` fits, see `dot.rs`).
//!
//! Only q0..q7 are used; q4..q7 (d8..d15) are callee-saved, so the blocks declare them clobbered
//! and the compiler saves them once per function.

use super::dot::TapTable;

/// Byte offsets, from a block's word `k` (of row 0), of row 0's 16 bytes `4 k..4 k + 16`: four
/// words, each 16 bytes (a word of each of the four rows) after the last. Row `r`'s are these plus
/// `4 r`.
static ROW_GATHER: [u8; 16] = [0, 1, 2, 3, 16, 17, 18, 19, 32, 33, 34, 35, 48, 49, 50, 51];

/// The lane order of the depthwise loads (16-bit offsets): even lanes channels 0..4, odd 4..8.
static LANE_ORDER: [u16; 8] = [0, 4, 1, 5, 2, 6, 3, 7];

/// `init[r] + Σ_i x[i] * w_r[i]` over the `x.len()` bytes (a multiple of 4, at least 4) of `x`
/// and of the four rows of the word-interleaved block `words` (`4 * x.len()` bytes), no offset.
#[inline(always)]
pub(super) fn dot4_interleaved_words(x: &[u8], words: &[i8], init: [i32; 4]) -> [i32; 4] {
    let n = x.len();
    assert!(
        n > 0 && n.is_multiple_of(4) && words.len() >= 4 * n,
        "dot4_interleaved_words: not whole words"
    );
    let [mut a0, mut a1, mut a2, mut a3] = init;
    // SAFETY: the loop runs ceil(n / 16) times (`dlstp.8` with n > 0 elements; the last pass
    // predicated to the n % 16 lanes left, whose loads read nothing in the lanes switched off).
    // Pass i reads x[16 i..16 i + l] (l its active lanes) and, from words + 64 i, the gathered
    // bytes 16 j + 4 r + b for the active lanes 4 j + b < l, that is below 4 (16 i + l) <= 4 n:
    // within `x` and `words` (asserted above); byte loads need no alignment. It writes only its
    // registers (q0..q7 and `lr` declared clobbered) and the flags.
    unsafe {
        core::arch::asm!(
            "vldrb.u8 q4, [{gather}]",
            "vadd.i8 q5, q4, {four}",
            "vadd.i8 q6, q5, {four}",
            "vadd.i8 q7, q6, {four}",
            "dlstp.8 lr, {n}",
            "2:",
            "vldrb.u8 q0, [{xp}], #16",
            "vldrb.u8 q1, [{wp}, q4]",
            "vmladava.s8 r0, q0, q1",
            "vldrb.u8 q2, [{wp}, q5]",
            "vmladava.s8 r2, q0, q2",
            "vldrb.u8 q3, [{wp}, q6]",
            "vmladava.s8 r4, q0, q3",
            "vldrb.u8 q1, [{wp}, q7]",
            "vmladava.s8 r12, q0, q1",
            "add {wp}, {wp}, #64",
            "letp lr, 2b",
            gather = in(reg) ROW_GATHER.as_ptr(),
            four = in(reg) 4u32,
            n = in(reg) n,
            xp = inout(reg) x.as_ptr() => _,
            wp = inout(reg) words.as_ptr() => _,
            // `vmladava` sums into even-numbered registers.
            inout("r0") a0,
            inout("r2") a1,
            inout("r4") a2,
            inout("r12") a3,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _, out("q3") _,
            out("q4") _, out("q5") _, out("q6") _, out("q7") _,
            options(nostack, readonly),
        );
    }
    [a0, a1, a2, a3]
}

/// `dot4_run_s8`'s blocks (`x.len()` a multiple of 4, blocks of `4 * x.len()` bytes), each by
/// [`dot4_interleaved_words`].
#[inline(always)]
pub(super) fn dot4_run(x: &[u8], w: &[i8], init: &[i32], sums: &mut [i32]) {
    for ((s, w), init) in sums
        .chunks_exact_mut(4)
        .zip(w.chunks_exact(4 * x.len()))
        .zip(init.chunks_exact(4))
    {
        let init = [init[0], init[1], init[2], init[3]];
        s.copy_from_slice(&dot4_interleaved_words(x, w, init));
    }
}

/// One 3×3 row of [`window3x3_s8`]'s assembly: its three taps, gathered from `{xp}` and `{wp}`
/// with the lane order plus 0, `c` and `2 c` (q0, q1, q2), the offset added to the inputs and the
/// products of the even and odd lanes added to channels 0..4 (q6) and 4..8 (q7).
macro_rules! mve_row3 {
    () => {
        concat!(mve_tap!("q0"), mve_tap!("q1"), mve_tap!("q2"),)
    };
}

/// One tap of the depthwise assembly: input and filter gathered from `{xp}` and `{wp}` at the
/// lane offsets `$q`.
macro_rules! mve_tap {
    ($q:literal) => {
        concat!(
            "vldrb.s16 q3, [{xp}, ",
            $q,
            "]\n",
            "vldrb.s16 q4, [{wp}, ",
            $q,
            "]\n",
            "vadd.i16 q3, q3, {off}\n",
            "vmullb.s16 q5, q3, q4\n",
            "vadd.i32 q6, q6, q5\n",
            "vmullt.s16 q5, q3, q4\n",
            "vadd.i32 q7, q7, q5\n",
        )
    };
}

/// [`mve_row3!`] with the input offset in `{t2}` (for [`window3x3_requant_s8`]).
macro_rules! mve_row3_at {
    () => {
        concat!(mve_tap_at!("q0"), mve_tap_at!("q1"), mve_tap_at!("q2"),)
    };
}

/// [`mve_tap!`] with the input offset in `{t2}`.
macro_rules! mve_tap_at {
    ($q:literal) => {
        concat!(
            "vldrb.s16 q3, [{xp}, ",
            $q,
            "]\n",
            "vldrb.s16 q4, [{wp}, ",
            $q,
            "]\n",
            "vadd.i16 q3, q3, {t2}\n",
            "vmullb.s16 q5, q3, q4\n",
            "vadd.i32 q6, q6, q5\n",
            "vmullt.s16 q5, q3, q4\n",
            "vadd.i32 q7, q7, q5\n",
        )
    };
}

/// [`super::dot::window3x3_run_s8`]'s sums for its first `sums.len() - sums.len() % 8` channels
/// (the caller's bounds: `c0 + 2 row + 2 c + n <= x.len()`, `c0 + 8 c + n <= w.len()`,
/// `init.len() >= n`, asserted here again), eight at a time: per tap two gathers and five vector
/// instructions for eight channels, where the DSP loop takes twenty. Returns how many channels it
/// summed.
#[inline(always)]
pub(super) fn window3x3_s8(
    x: &[u8],
    w: &[i8],
    (c, row, c0, offset): (usize, usize, usize, i32),
    init: &[i32],
    sums: &mut [i32],
) -> usize {
    let n = sums.len() - sums.len() % 8;
    assert!(
        c0 + 2 * row + 2 * c + n <= x.len() && c0 + 8 * c + n <= w.len() && init.len() >= n,
        "3x3 depthwise window out of bounds"
    );
    // The gathers' offsets (up to 2 c + 7) are 16-bit lanes: wider images take the DSP loop.
    if n == 0 || 2 * c + 7 > usize::from(u16::MAX) {
        return 0;
    }
    // SAFETY: the loop runs n / 8 >= 1 times (`dls`/`le`); pass g gathers, for ky, kx < 3, the
    // eight bytes at x + c0 + ky row + kx c + 8 g + j and w + c0 + (3 ky + kx) c + 8 g + j
    // (j < 8, the lane order's offsets plus kx c, which fit the 16-bit lanes since 2 c + 7 <=
    // u16::MAX, checked): in bounds, since 8 g + 8 <= n and c0 + 2 row + 2 c + n <= x.len(),
    // c0 + 8 c + n <= w.len() (asserted); byte loads need no alignment. The pointers step a row
    // after each filter row, and back two rows less eight bytes after each pass. Pass g reads
    // init[8 g..8 g + 8] and writes sums[8 g..8 g + 8] (`i32`s: `vldrw`/`vstrw` need word
    // alignment, which they have; init.len() >= n asserted, sums.len() >= n). It writes its
    // registers (q0..q7 and `lr` declared clobbered) and `sums`.
    unsafe {
        core::arch::asm!(
            "vldrh.u16 q0, [{order}]",
            "vadd.i16 q1, q0, {c}",
            "vadd.i16 q2, q1, {c}",
            "dls lr, {groups}",
            "2:",
            "vldrw.u32 q7, [{ip}, #16]",
            "vldrw.u32 q6, [{ip}], #32",
            mve_row3!(),
            "add {xp}, {xp}, {row}",
            "add {wp}, {wp}, {c3}",
            mve_row3!(),
            "add {xp}, {xp}, {row}",
            "add {wp}, {wp}, {c3}",
            mve_row3!(),
            "vstrw.32 q7, [{op}, #16]",
            "vstrw.32 q6, [{op}], #32",
            "sub {xp}, {xp}, {row}, lsl #1",
            "add {xp}, {xp}, #8",
            "sub {wp}, {wp}, {c3}, lsl #1",
            "add {wp}, {wp}, #8",
            "le lr, 2b",
            order = in(reg) LANE_ORDER.as_ptr(),
            c = in(reg) c,
            groups = in(reg) n / 8,
            row = in(reg) row,
            c3 = in(reg) 3 * c,
            off = in(reg) offset,
            xp = inout(reg) x.as_ptr().wrapping_add(c0) => _,
            wp = inout(reg) w.as_ptr().wrapping_add(c0) => _,
            ip = inout(reg) init.as_ptr() => _,
            op = inout(reg) sums.as_mut_ptr() => _,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _, out("q3") _,
            out("q4") _, out("q5") _, out("q6") _, out("q7") _,
            options(nostack),
        );
    }
    n
}

/// The narrow requantization of two vectors of sums, q6 (channels 0..4) and q7 (4..8), as in
/// [`requantize_narrow`], and their bytes stored at `{op}` (stepped past them): multipliers and
/// shifts from `{mp}` and `{hp}` (stepped), the zero point in `{t0}`, the clamp's bounds packed
/// in `{t1}` (`max << 16 | min & 0xffff`, unpacked by `vmovlb`/`vmovlt`). Uses q3..q5.
macro_rules! mve_requant8 {
    () => {
        concat!(
            "vldrw.u32 q3, [{mp}], #16\n",
            "vldrb.s32 q4, [r2], #4\n",
            "vqrdmulh.s32 q6, q6, q3\n",
            "vshr.s32 q5, q6, #31\n",
            "vadd.i32 q6, q6, q5\n",
            "vrshl.s32 q6, q6, q4\n",
            "vldrw.u32 q3, [{mp}], #16\n",
            "vldrb.s32 q4, [r2], #4\n",
            "vqrdmulh.s32 q7, q7, q3\n",
            "vshr.s32 q5, q7, #31\n",
            "vadd.i32 q7, q7, q5\n",
            "vrshl.s32 q7, q7, q4\n",
            "vadd.i32 q6, q6, {t0}\n",
            "vadd.i32 q7, q7, {t0}\n",
            "vdup.32 q5, {t1}\n",
            "vmovlb.s16 q3, q5\n",
            "vmax.s32 q6, q6, q3\n",
            "vmax.s32 q7, q7, q3\n",
            "vmovlt.s16 q3, q5\n",
            "vmin.s32 q6, q6, q3\n",
            "vmin.s32 q7, q7, q3\n",
            "vstrb.32 q6, [r3], #4\n",
            "vstrb.32 q7, [r3], #4\n",
        )
    };
}

/// A run of output pixels along a row, each a 3×3 depthwise window without dilation wholly in
/// the image and without a depth multiplier, every channel, with the narrow requantization fused
/// in: the sums of [`window3x3_s8`] (eight channels per pass, from the biases) kept in registers
/// and requantized there as [`requantize_narrow`] does, the bytes stored to `out` (`pixels`
/// pixels of `c` bytes, one after another). No run of sums through memory and no call per block
/// or per pixel: for the usual layers (channels in eights, a bias, the narrow requantization) it
/// is the whole run. Returns false, having done nothing, when the shape does not fit (channels
/// not a positive multiple of eight, offsets beyond 16-bit lanes, bounds of the clamp beyond 16
/// bits, short operands); the caller then takes the general path.
///
/// `x` is the first pixel's window's first tap (channel 0), each next pixel's `step` bytes on
/// (the stride times the channels); `row` an image row's bytes, `c` the channels; `w` the filter
/// from channel 0; `bias`, `multipliers`, `shifts` from channel 0.
#[inline(always)]
pub(crate) fn window3x3_requant_s8(
    x: &[u8],
    w: &[i8],
    (c, row, step, offset): (usize, usize, usize, i32),
    (bias, multipliers, shifts): (&[i32], &[i32], &[i8]),
    (zero_point, min, max): (i32, i32, i32),
    (pixels, out): (usize, &mut [u8]),
) -> bool {
    let fits = c > 0
        && c.is_multiple_of(8)
        && pixels > 0
        && step >= c
        && 2 * c + 7 <= usize::from(u16::MAX)
        && (pixels - 1)
            .checked_mul(step)
            .is_some_and(|last| last + 2 * row + 3 * c <= x.len())
        && 9 * c <= w.len()
        && bias.len() >= c
        && multipliers.len() >= c
        && shifts.len() >= c
        && out.len() >= pixels * c
        && i32::from(i16::MIN) <= min
        && max <= i32::from(i16::MAX);
    if !fits {
        return false;
    }
    // What the loops reload (too few registers to keep them all): the channels, the lane
    // order's address, the passes, the row's bytes, the filter row's, the input offset, the
    // zero point and the clamp's bounds packed in 16-bit halves, the input's step to the next
    // pixel's window from where a pixel's passes leave it, and the pixels left (counted down
    // here).
    let mut params: [usize; 10] = [
        c,
        LANE_ORDER.as_ptr() as usize,
        c / 8,
        row,
        3 * c,
        offset as usize,
        zero_point as usize,
        ((max as u32) << 16 | (min as u32 & 0xffff)) as usize,
        step - c,
        pixels,
    ];
    // SAFETY: `fits` (checked above) bounds every access. The outer loop runs `pixels` >= 1
    // times (the count in params[9], decremented in memory); for pixel p the inner loop runs
    // c / 8 >= 1 times (`dls`/`le`), and pass g gathers, for ky, kx < 3, the eight bytes at
    // x + p step + ky row + kx c + 8 g + j and w + (3 ky + kx) c + 8 g + j (j < 8, the lane
    // order's offsets plus kx c, which fit the 16-bit lanes since 2 c + 7 <= u16::MAX): below
    // (pixels - 1) step + 2 row + 2 c + c <= x.len() and 8 c + c <= w.len(); byte loads need no
    // alignment. It reads bias[8 g..8 g + 8] and multipliers[8 g..8 g + 8] (word-aligned `i32`s
    // for `vldrw`) and shifts[8 g..8 g + 8], all below c, and writes out[p c + 8 g..][..8],
    // below pixels c <= out.len(); after each pixel the pointers step back by c channels (the
    // filter, biases, multipliers and shifts) and on to the next window (the input). It reads
    // and writes `params` (word-aligned `usize`s, its own). It writes its registers (q0..q7,
    // `lr` and the scratch registers declared) and `out`.
    unsafe {
        core::arch::asm!(
            "ldrd {t0}, {t1}, [{ps}]",
            "vldrh.u16 q0, [{t1}]",
            "vadd.i16 q1, q0, {t0}",
            "vadd.i16 q2, q1, {t0}",
            "4:",
            "ldr {t0}, [{ps}, #8]",
            "dls lr, {t0}",
            "2:",
            "ldrd {t0}, {t1}, [{ps}, #12]",
            "ldr {t2}, [{ps}, #20]",
            "vldrw.u32 q6, [{ip}], #16",
            "vldrw.u32 q7, [{ip}], #16",
            mve_row3_at!(),
            "add {xp}, {xp}, {t0}",
            "add {wp}, {wp}, {t1}",
            mve_row3_at!(),
            "add {xp}, {xp}, {t0}",
            "add {wp}, {wp}, {t1}",
            mve_row3_at!(),
            "sub {xp}, {xp}, {t0}, lsl #1",
            "add {xp}, {xp}, #8",
            "sub {wp}, {wp}, {t1}, lsl #1",
            "add {wp}, {wp}, #8",
            "ldrd {t0}, {t1}, [{ps}, #24]",
            mve_requant8!(),
            "le lr, 2b",
            // The next pixel: the per-channel pointers back by c, the input on to its window.
            "ldr {t0}, [{ps}]",
            "sub {wp}, {wp}, {t0}",
            "sub {ip}, {ip}, {t0}, lsl #2",
            "sub {mp}, {mp}, {t0}, lsl #2",
            "sub r2, r2, {t0}",
            "ldrd {t1}, {t2}, [{ps}, #32]",
            "add {xp}, {xp}, {t1}",
            "subs {t2}, {t2}, #1",
            "str {t2}, [{ps}, #36]",
            "bne 4b",
            ps = in(reg) params.as_mut_ptr(),
            t0 = out(reg) _,
            t1 = out(reg) _,
            t2 = out(reg) _,
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

/// One chunk of 16 window bytes (`$win`) of [`gather_pixel_s8`]'s block: the four filter rows'
/// bytes gathered at the lane offsets `$off` from `{wp}` (stepped a row's word at a time), each
/// row's products summed into its accumulator (r0, r4, r10, r12); `{wp}` ends 64 bytes on.
macro_rules! mve_gather_chunk {
    ($win:literal, $off:literal) => {
        concat!(
            "vldrb.u8 q3, [{wp}, ",
            $off,
            "]\n",
            "vmladava.s8 r0, ",
            $win,
            ", q3\n",
            "add {wp}, {wp}, #4\n",
            "vldrb.u8 q3, [{wp}, ",
            $off,
            "]\n",
            "vmladava.s8 r4, ",
            $win,
            ", q3\n",
            "add {wp}, {wp}, #4\n",
            "vldrb.u8 q3, [{wp}, ",
            $off,
            "]\n",
            "vmladava.s8 r10, ",
            $win,
            ", q3\n",
            "add {wp}, {wp}, #4\n",
            "vldrb.u8 q3, [{wp}, ",
            $off,
            "]\n",
            "vmladava.s8 r12, ",
            $win,
            ", q3\n",
            "add {wp}, {wp}, #52\n",
        )
    };
}

/// [`gather_pixel_s8`]'s assembly for a window of `$chunks` vectors: the window gathered (the
/// last vector predicated to the bytes left, its other lanes zero) into q0.., then per block of
/// four channels its chunks (the last with the masked row offsets q5), the four sums moved into
/// a vector and requantized as [`requantize_narrow`] does, four bytes stored.
macro_rules! mve_gather_pixel {
    ($params:expr, $x:expr, $w:expr, $bias:expr, $mult:expr, $shifts:expr, $out:expr,
     [$($load:literal),*], [$($chunk:expr),*]) => {
        core::arch::asm!(
            "ldr {t}, [{ps}]",
            "vldrb.u8 q4, [{t}]",
            "ldr {t}, [{ps}, #4]",
            "vldrb.u8 q5, [{t}]",
            "ldr {t}, [{ps}, #8]",
            $($load,)*
            "ldr {t}, [{ps}, #12]",
            "dls lr, {t}",
            "2:",
            "ldrd r0, r4, [{ib}], #8",
            "ldrd r10, r12, [{ib}], #8",
            $($chunk,)*
            "ldr {t}, [{ps}, #24]",
            "sub {wp}, {wp}, {t}",
            // `vmov Qd[i], Qd[i - 2], Rt, Rt2`: lane i - 2 from Rt, lane i from Rt2.
            "vmov q3[2], q3[0], r0, r10",
            "vmov q3[3], q3[1], r4, r12",
            "vldrw.u32 q6, [{mp}], #16",
            "vldrb.s32 q7, [r1], #4",
            "vqrdmulh.s32 q3, q3, q6",
            "vshr.s32 q6, q3, #31",
            "vadd.i32 q3, q3, q6",
            "vrshl.s32 q3, q3, q7",
            "ldrd r0, r4, [{ps}, #16]",
            "vadd.i32 q3, q3, r0",
            "vdup.32 q6, r4",
            "vmovlb.s16 q7, q6",
            "vmax.s32 q3, q3, q7",
            "vmovlt.s16 q7, q6",
            "vmin.s32 q3, q3, q7",
            "vstrb.32 q3, [r3], #4",
            "le lr, 2b",
            ps = in(reg) $params,
            t = out(reg) _,
            wp = inout(reg) $w => _,
            ib = inout(reg) $bias => _,
            mp = inout(reg) $mult => _,
            // The window's base, spent once the window is loaded; then an accumulator.
            inout("r0") $x => _,
            // Widening loads and narrowing stores take low registers only.
            inout("r1") $shifts => _,
            inout("r3") $out => _,
            out("r4") _, out("r10") _, out("r12") _,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _, out("q3") _,
            out("q4") _, out("q5") _, out("q6") _, out("q7") _,
            options(nostack),
        )
    };
}

/// The window offsets and the lane masks of [`gather_pixel_s8`] for one kernel: built once per
/// call of the kernel, used for every pixel whose window lies wholly in the image.
pub(crate) struct GatherWindow {
    /// Byte offsets from the window's first byte of its `k` bytes in filter-row order (taps in
    /// `(filter y, filter x)` order, each its channels), then zeros (in-bounds reads for the
    /// padding lanes, whose weights are zero, and the lanes past `k`, switched off).
    offsets: [u8; 48],
    /// [`ROW_GATHER`] with the lanes from the last vector's bytes on set to 0.
    masked: [u8; 16],
    /// The window's bytes (a multiple of 4, at most 48).
    k: usize,
    /// The farthest byte a window reads, from its first.
    reach: usize,
}

impl GatherWindow {
    /// The table for windows of `filter_h × filter_w` taps of `c` channels, dilations
    /// `(dh, dw)`, in an image `row` bytes wide, filter rows of `k` bytes (the window rounded up
    /// to whole words); `None` when the window is longer than three vectors, `k` not whole
    /// words, or an offset beyond a byte (the caller then takes the general path).
    pub(crate) fn new(
        (filter_h, filter_w, c): (usize, usize, usize),
        (dh, dw): (usize, usize),
        row: usize,
        k: usize,
    ) -> Option<Self> {
        let taps = filter_h * filter_w * c;
        if k == 0 || !k.is_multiple_of(4) || k > 48 || taps > k || taps == 0 {
            return None;
        }
        let reach = (filter_h - 1) * dh * row + ((filter_w - 1) * dw + 1) * c - 1;
        if reach > usize::from(u8::MAX) {
            return None;
        }
        let mut offsets = [0u8; 48];
        for (i, o) in offsets[..taps].iter_mut().enumerate() {
            let (tap, ch) = (i / c, i % c);
            let (ky, kx) = (tap / filter_w, tap % filter_w);
            // At most `reach` (checked above): a byte.
            *o = (ky * dh * row + kx * dw * c + ch) as u8;
        }
        let rem = k - 16 * ((k - 1) / 16);
        let mut masked = ROW_GATHER;
        for m in &mut masked[rem..] {
            *m = 0;
        }
        Some(GatherWindow {
            offsets,
            masked,
            k,
            reach,
        })
    }
}

/// One output pixel of an im2col CONV_2D whose window lies wholly in the image, every channel,
/// as `conv2d_im2col_s8` computes it on its narrow path: the window gathered straight from the
/// image by `table`'s offsets (one `vldrb` per 16 bytes, no buffer), each block of four filter
/// rows (`blocks`, word-interleaved, `4 k` bytes each) summed from the folded biases by
/// `vmladava`, the four sums requantized in a vector and stored to `out`. `x` is the image from
/// the window's first byte. Returns false, having done nothing, when the operands do not fit
/// (the caller then takes the general path).
#[inline(always)]
pub(crate) fn gather_pixel_s8(
    x: &[u8],
    table: &GatherWindow,
    blocks: &[i8],
    (bias, multipliers, shifts): (&[i32], &[i32], &[i8]),
    (zero_point, min, max): (i32, i32, i32),
    out: &mut [u8],
) -> bool {
    let (k, m) = (table.k, out.len());
    let chunks = k.div_ceil(16);
    let fits = m > 0
        && m.is_multiple_of(4)
        && (1..=3).contains(&chunks)
        && table.reach < x.len()
        && blocks.len() >= m * k
        && bias.len() >= m
        && multipliers.len() >= m
        && shifts.len() >= m
        && i32::from(i16::MIN) <= min
        && max <= i32::from(i16::MAX);
    if !fits {
        return false;
    }
    let params: [usize; 8] = [
        ROW_GATHER.as_ptr() as usize,
        table.masked.as_ptr() as usize,
        table.offsets.as_ptr() as usize,
        m / 4,
        zero_point as usize,
        ((max as u32) << 16 | (min as u32 & 0xffff)) as usize,
        64 * chunks - 4 * k,
        k - 16 * (chunks - 1),
    ];
    let ps = params.as_ptr();
    let (xp, wp, ip, mp, hp, op) = (
        x.as_ptr(),
        blocks.as_ptr(),
        bias.as_ptr(),
        multipliers.as_ptr(),
        shifts.as_ptr(),
        out.as_mut_ptr(),
    );
    // SAFETY: `fits` and the table's invariant (checked above and in `GatherWindow::new`)
    // bound every access. The window loads gather x + offsets[i] for the active lanes, every
    // offset at most `reach < x.len()`; the last vector's lanes from k - 16 (chunks - 1) on are
    // switched off (`vctp.8`, `vpst`: they read nothing and hold zero). The loop runs
    // m / 4 >= 1 times (`dls`/`le`); pass b reads, from blocks + 4 k b, for chunk j and row r
    // the bytes 64 j + 4 r + o (o an offset of ROW_GATHER or of the masked copy): below
    // 64 j + 4 r + 16 (l / 4) + l % 4 + 1 <= 4 k for the active lanes l < k - 16 j, and at
    // 64 j + 4 r <= 4 k - 4 for the masked ones (k - 16 j >= 4), so within the m k bytes of
    // `blocks` (checked); then it steps back to 4 k (b + 1). It reads bias[4 b..4 b + 4] and
    // multipliers[4 b..] (word-aligned `i32`s, `ldrd`/`vldrw`) and shifts[4 b..], writes
    // out[4 b..4 b + 4] (b < m / 4), and reads `params` (word-aligned). It writes its registers
    // (q0..q7, `lr` and the registers declared) and `out`.
    unsafe {
        match chunks {
            1 => mve_gather_pixel!(
                ps,
                xp,
                wp,
                ip,
                mp,
                hp,
                op,
                [
                    "vldrb.u8 q3, [{t}]",
                    "ldr {t}, [{ps}, #28]",
                    "vctp.8 {t}",
                    "vpst",
                    "vldrbt.u8 q0, [r0, q3]"
                ],
                [mve_gather_chunk!("q0", "q5")]
            ),
            2 => mve_gather_pixel!(
                ps,
                xp,
                wp,
                ip,
                mp,
                hp,
                op,
                [
                    "vldrb.u8 q3, [{t}]",
                    "vldrb.u8 q0, [r0, q3]",
                    "vldrb.u8 q3, [{t}, #16]",
                    "ldr {t}, [{ps}, #28]",
                    "vctp.8 {t}",
                    "vpst",
                    "vldrbt.u8 q1, [r0, q3]"
                ],
                [mve_gather_chunk!("q0", "q4"), mve_gather_chunk!("q1", "q5")]
            ),
            _ => mve_gather_pixel!(
                ps,
                xp,
                wp,
                ip,
                mp,
                hp,
                op,
                [
                    "vldrb.u8 q3, [{t}]",
                    "vldrb.u8 q0, [r0, q3]",
                    "vldrb.u8 q3, [{t}, #16]",
                    "vldrb.u8 q1, [r0, q3]",
                    "vldrb.u8 q3, [{t}, #32]",
                    "ldr {t}, [{ps}, #28]",
                    "vctp.8 {t}",
                    "vpst",
                    "vldrbt.u8 q2, [r0, q3]"
                ],
                [
                    mve_gather_chunk!("q0", "q4"),
                    mve_gather_chunk!("q1", "q4"),
                    mve_gather_chunk!("q2", "q5")
                ]
            ),
        }
    }
    true
}

/// The block loop of [`pointwise_pixel_s8`] and [`pointwise_pixels_s8`], from the set-up to
/// the pixel's last block: per block of four filter rows the sums from the folded biases by the
/// tail-predicated loop of [`dot4_interleaved_words`], moved into a vector and requantized there
/// as [`requantize_narrow`] does, four bytes stored at r3; the loop ends when `{ib}` reaches the
/// biases' end (`params[7]`). `params`: the row gather's address, n, 0, the filter's and the
/// input's step back after a block's passes, the zero point, the packed clamp, the biases' end.
macro_rules! mve_pointwise_blocks {
    () => {
        concat!(
            "ldr r0, [{ps}]\n",
            "vldrb.u8 q4, [r0]\n",
            "vadd.i8 q5, q4, r12\n",
            "vadd.i8 q6, q5, r12\n",
            "vadd.i8 q7, q6, r12\n",
            // The clamp's bounds, min in q2 and max in q3, for every block.
            "ldr r0, [{ps}, #24]\n",
            "vdup.32 q1, r0\n",
            "vmovlb.s16 q2, q1\n",
            "vmovlt.s16 q3, q1\n",
            "3:\n",
            "ldr r0, [{ps}, #4]\n",
            "dlstp.8 lr, r0\n",
            "ldrd r0, r4, [{ib}], #8\n",
            "ldrd r10, r12, [{ib}], #8\n",
            "2:\n",
            "vldrb.u8 q0, [{xp}], #16\n",
            "vldrb.u8 q1, [{wp}, q4]\n",
            "vmladava.s8 r0, q0, q1\n",
            "vldrb.u8 q1, [{wp}, q5]\n",
            "vmladava.s8 r4, q0, q1\n",
            "vldrb.u8 q1, [{wp}, q6]\n",
            "vmladava.s8 r10, q0, q1\n",
            "vldrb.u8 q1, [{wp}, q7]\n",
            "vmladava.s8 r12, q0, q1\n",
            "add {wp}, {wp}, #64\n",
            "letp lr, 2b\n",
            // `vmov Qd[i], Qd[i - 2], Rt, Rt2`: lane i - 2 from Rt, lane i from Rt2.
            "vmov q0[2], q0[0], r0, r10\n",
            "vmov q0[3], q0[1], r4, r12\n",
            "ldrd r0, r4, [{ps}, #12]\n",
            "sub {wp}, {wp}, r0\n",
            "sub {xp}, {xp}, r4\n",
            "vldrw.u32 q1, [{mp}], #16\n",
            "vqrdmulh.s32 q0, q0, q1\n",
            "vshr.s32 q1, q0, #31\n",
            "vadd.i32 q0, q0, q1\n",
            "vldrb.s32 q1, [r1], #4\n",
            "vrshl.s32 q0, q0, q1\n",
            "ldr r0, [{ps}, #20]\n",
            "vadd.i32 q0, q0, r0\n",
            "vmax.s32 q0, q0, q2\n",
            "vmin.s32 q0, q0, q3\n",
            "vstrb.32 q0, [r3], #4\n",
            "ldr r0, [{ps}, #28]\n",
            "cmp {ib}, r0\n",
            "bne 3b\n",
        )
    };
}

/// Whether [`pointwise_pixels_s8`] takes `pixels` pixels of `n` input and `m` output bytes:
/// input channels in whole words, output channels in fours, the operands long enough, the
/// clamp's bounds within 16 bits.
#[inline(always)]
fn pointwise_fits(
    (n, m, pixels): (usize, usize, usize),
    (x, blocks, out): (&[u8], &[i8], &[u8]),
    (bias, multipliers, shifts): (&[i32], &[i32], &[i8]),
    (min, max): (i32, i32),
) -> bool {
    n > 0
        && n.is_multiple_of(4)
        && m > 0
        && m.is_multiple_of(4)
        && pixels > 0
        && x.len() == pixels * n
        && out.len() == pixels * m
        && blocks.len() >= m * n
        && bias.len() >= m
        && multipliers.len() >= m
        && shifts.len() >= m
        && i32::from(i16::MIN) <= min
        && max <= i32::from(i16::MAX)
}

/// One pixel of the 1×1 CONV_2D (FULLY_CONNECTED too) on its narrow path, every channel: per
/// block of four filter rows (word-interleaved, `4 n` bytes each), the sums from the folded
/// biases by the tail-predicated loop of [`dot4_interleaved_words`], moved into a vector and
/// requantized there as [`requantize_narrow`] does, four bytes stored to `out`: no run of sums
/// through memory, no call per block. Returns false, having done nothing, when the operands do
/// not fit (input channels not whole words, output channels not in fours, short operands, the
/// clamp's bounds beyond 16 bits); the caller then takes the general path.
#[inline(always)]
pub(crate) fn pointwise_pixel_s8(
    x: &[u8],
    blocks: &[i8],
    (bias, multipliers, shifts): (&[i32], &[i32], &[i8]),
    (zero_point, min, max): (i32, i32, i32),
    out: &mut [u8],
) -> bool {
    let (n, m) = (x.len(), out.len());
    let operands = (bias, multipliers, shifts);
    if !pointwise_fits((n, m, 1), (x, blocks, out), operands, (min, max)) {
        return false;
    }
    let chunks = n.div_ceil(16);
    // What the loop reloads (too few registers): see `mve_pointwise_blocks!`.
    let params: [usize; 8] = [
        ROW_GATHER.as_ptr() as usize,
        n,
        0,
        64 * chunks - 4 * n,
        16 * chunks,
        zero_point as usize,
        ((max as u32) << 16 | (min as u32 & 0xffff)) as usize,
        bias.as_ptr().wrapping_add(m) as usize,
    ];
    // SAFETY: `pointwise_fits` (checked above) bounds every access. The outer loop runs
    // m / 4 >= 1 times (until the bias pointer, 16 bytes on per block, reaches bias + m,
    // params[7]). Block b's inner loop runs ceil(n / 16) times (`dlstp.8` with n > 0 elements;
    // the last pass predicated to the lanes left, which load nothing): pass i reads
    // x[16 i..16 i + l] (l its active lanes, 16 i + l <= n) and, from blocks + 4 n b + 64 i, the
    // gathered bytes 16 j + 4 r + c for the active lanes 4 j + c < l: below 4 n (b + 1) <= m n <=
    // blocks.len(). After the passes the pointers step back to x and to blocks + 4 n (b + 1). It
    // reads bias[4 b..4 b + 4] and multipliers[4 b..] (word-aligned `i32`s, `ldrd`/`vldrw`) and
    // shifts[4 b..], writes out[4 b..4 b + 4] (b < m / 4), and reads `params` (word-aligned, its
    // own). It writes its registers (q0..q7, `lr` and the registers declared) and `out`.
    unsafe {
        core::arch::asm!(
            mve_pointwise_blocks!(),
            ps = in(reg) params.as_ptr(),
            xp = inout(reg) x.as_ptr() => _,
            wp = inout(reg) blocks.as_ptr() => _,
            ib = inout(reg) bias.as_ptr() => _,
            mp = inout(reg) multipliers.as_ptr() => _,
            out("r0") _,
            // Widening loads and narrowing stores take low registers only.
            inout("r1") shifts.as_ptr() => _,
            inout("r3") out.as_mut_ptr() => _,
            out("r4") _, out("r10") _,
            // The rows' step (4) for the gather offsets; then an accumulator.
            inout("r12") 4u32 => _,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _, out("q3") _,
            out("q4") _, out("q5") _, out("q6") _, out("q7") _,
            options(nostack),
        );
    }
    true
}

/// [`pointwise_pixel_s8`] on every pixel of `x` (`n` bytes each) into those of `out` (`m`), one
/// after another in one loop: after a pixel's blocks the filter, biases, multipliers and shifts
/// step back to channel 0 and the input on to the next pixel (ten instructions, where a pixel's
/// set-up and checks cost several times that). Returns false, having done nothing, where
/// [`pointwise_pixel_s8`] would (or `x` and `out` hold different numbers of pixels).
#[inline(always)]
pub(crate) fn pointwise_pixels_s8(
    x: &[u8],
    (n, m): (usize, usize),
    blocks: &[i8],
    (bias, multipliers, shifts): (&[i32], &[i32], &[i8]),
    (zero_point, min, max): (i32, i32, i32),
    out: &mut [u8],
) -> bool {
    let pixels = x.len().checked_div(n).unwrap_or(0);
    let operands = (bias, multipliers, shifts);
    if !pointwise_fits((n, m, pixels), (x, blocks, out), operands, (min, max)) {
        return false;
    }
    let chunks = n.div_ceil(16);
    // What the loop reloads (too few registers): see `mve_pointwise_blocks!`; then the
    // filter's bytes and the output channels, for the step back after a pixel.
    let params: [usize; 10] = [
        ROW_GATHER.as_ptr() as usize,
        n,
        0,
        64 * chunks - 4 * n,
        16 * chunks,
        zero_point as usize,
        ((max as u32) << 16 | (min as u32 & 0xffff)) as usize,
        bias.as_ptr().wrapping_add(m) as usize,
        m * n,
        m,
    ];
    // SAFETY: `pointwise_fits` (checked above) bounds every access: x holds `pixels` >= 1
    // pixels of n bytes and out as many of m. Pixel p's blocks are `pointwise_pixel_s8`'s on
    // x[p n..][..n] and out[p m..][..m] (the same bounds: see its SAFETY comment); after them
    // the filter pointer steps back by m n to `blocks`, the bias and multiplier pointers by 4 m
    // bytes and the shifts' by m to channel 0, the input pointer (back at the pixel's start) on
    // by n, and the output pointer is already at pixel p + 1's; the count `{px}` ends the loop
    // after `pixels` pixels. It reads `params` (word-aligned, its own) and writes its registers
    // (q0..q7, `lr` and the registers declared) and `out`.
    unsafe {
        core::arch::asm!(
            mve_pointwise_blocks!(),
            "subs {px}, {px}, #1",
            "beq 5f",
            "ldrd r0, r4, [{ps}, #32]",
            "sub {wp}, {wp}, r0",
            "sub {ib}, {ib}, r4, lsl #2",
            "sub {mp}, {mp}, r4, lsl #2",
            "sub r1, r1, r4",
            "ldr r0, [{ps}, #4]",
            "add {xp}, {xp}, r0",
            "b 3b",
            "5:",
            ps = in(reg) params.as_ptr(),
            px = inout(reg) pixels => _,
            xp = inout(reg) x.as_ptr() => _,
            wp = inout(reg) blocks.as_ptr() => _,
            ib = inout(reg) bias.as_ptr() => _,
            mp = inout(reg) multipliers.as_ptr() => _,
            out("r0") _,
            // Widening loads and narrowing stores take low registers only.
            inout("r1") shifts.as_ptr() => _,
            inout("r3") out.as_mut_ptr() => _,
            out("r4") _, out("r10") _,
            // The rows' step (4) for the gather offsets; then an accumulator.
            inout("r12") 4u32 => _,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _, out("q3") _,
            out("q4") _, out("q5") _, out("q6") _, out("q7") _,
            options(nostack),
        );
    }
    true
}

/// `dst.copy_from_slice(src)` (equally long) by 16-byte vectors, tail-predicated: for the rows of
/// an im2col window, where a call of `memcpy` costs several times the copy.
#[inline(always)]
pub(crate) fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    let n = dst.len();
    assert!(src.len() == n, "copy_bytes: lengths differ");
    if n == 0 {
        return;
    }
    // SAFETY: the loop runs ceil(n / 16) times (`dlstp.8`, n > 0), the last pass predicated to
    // the n % 16 bytes left (its lanes switched off load and store nothing): pass i reads
    // src[16 i..] and writes dst[16 i..] for its active lanes only, within the n bytes of each
    // (asserted); byte accesses need no alignment. `dst` is a `&mut` distinct from `src`.
    unsafe {
        core::arch::asm!(
            "dlstp.8 lr, {n}",
            "2:",
            "vldrb.u8 q0, [{sp}], #16",
            "vstrb.8 q0, [{dp}], #16",
            "letp lr, 2b",
            n = in(reg) n,
            sp = inout(reg) src.as_ptr() => _,
            dp = inout(reg) dst.as_mut_ptr() => _,
            out("lr") _,
            out("q0") _,
            options(nostack),
        );
    }
}

/// [`super::dot::window_run_s8`]'s sums (its taps in `table`, the window's input `x` from the
/// run's first channel, the filter `w` from it) for the first `sums.len() - sums.len() % 8`
/// channels, eight at a time; the caller has checked `max_input + n <= x.len()`,
/// `max_filter + n <= w.len()` and that the table has a tap (asserted here again). Returns how
/// many channels it summed.
#[inline(always)]
pub(super) fn window_s8(
    x: &[u8],
    w: &[i8],
    table: &TapTable,
    offset: i32,
    init: &[i32],
    sums: &mut [i32],
) -> usize {
    let n = sums.len() - sums.len() % 8;
    let (taps, max_input, max_filter) = (table.taps, table.max_input, table.max_filter);
    assert!(
        !taps.is_empty()
            && max_input + n <= x.len()
            && max_filter + n <= w.len()
            && init.len() >= n,
        "depthwise window out of bounds"
    );
    if n == 0 {
        return 0;
    }
    let end = taps.as_ptr_range().end;
    // SAFETY: the loop runs n / 8 >= 1 times (`dls`/`le`), each pass over the table's taps (at
    // least one, asserted) to its end. Pass g gathers, for each tap's offsets o <= max_input and
    // wo <= max_filter (the table's invariant), the eight bytes at x + o + 8 g + j and
    // w + wo + 8 g + j (j < 8): in bounds, since 8 g + 8 <= n and max_input + n <= x.len(),
    // max_filter + n <= w.len() (asserted); byte loads need no alignment, and the table's `usize`
    // pairs are word-aligned for `ldrd`. Pass g reads init[8 g..8 g + 8] and writes
    // sums[8 g..8 g + 8] (word-aligned `i32`s). It writes its registers (q0..q7, `lr` and the
    // scratch registers declared) and `sums`.
    unsafe {
        core::arch::asm!(
            "vldrh.u16 q0, [{tp}]",
            "dls lr, {xo}",
            "3:",
            "vldrw.u32 q7, [{ip}, #16]",
            "vldrw.u32 q6, [{ip}], #32",
            "mov {tp}, {table}",
            "2:",
            "ldrd {xo}, {wo}, [{tp}], #8",
            "add {xo}, {xo}, {xb}",
            "add {wo}, {wo}, {wb}",
            "vldrb.s16 q3, [{xo}, q0]",
            "vldrb.s16 q4, [{wo}, q0]",
            "vadd.i16 q3, q3, {off}",
            "vmullb.s16 q5, q3, q4",
            "vadd.i32 q6, q6, q5",
            "vmullt.s16 q5, q3, q4",
            "vadd.i32 q7, q7, q5",
            "cmp {tp}, {end}",
            "bne 2b",
            "vstrw.32 q7, [{op}, #16]",
            "vstrw.32 q6, [{op}], #32",
            "add {xb}, {xb}, #8",
            "add {wb}, {wb}, #8",
            "le lr, 3b",
            // The lane order's address and the pass count, spent before the loop: then the
            // table pointer and a tap's input offset (11 registers with `lr`).
            tp = inout(reg) LANE_ORDER.as_ptr() => _,
            xo = inout(reg) n / 8 => _,
            table = in(reg) taps.as_ptr(),
            end = in(reg) end,
            off = in(reg) offset,
            wo = out(reg) _,
            xb = inout(reg) x.as_ptr() => _,
            wb = inout(reg) w.as_ptr() => _,
            ip = inout(reg) init.as_ptr() => _,
            op = inout(reg) sums.as_mut_ptr() => _,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _, out("q3") _,
            out("q4") _, out("q5") _, out("q6") _, out("q7") _,
            options(nostack),
        );
    }
    n
}

/// `Requantizer::run`'s narrow path (every shift at most -1, sums below 2^30: checked at
/// generation time) on four channels per vector, with TFLM's arithmetic per lane:
/// `SaturatingRoundingDoublingHighMul` is `vqrdmulh` (round half up, saturating as it does), and
/// `RoundingDivideByPOT` by `e = -shift >= 1` (ties away from zero) is `vrshl` by `shift` (a
/// rounding right shift, ties up) of the product less one where it is negative (so that a
/// negative tie rounds down); then the zero point, the clamp to `min..=max` and a byte store of
/// each lane. The same bits as `Requantizer::narrow_unclamped`'s steps, in 11 instructions per
/// vector where those take 14. Tail-predicated (`dlstp.32`): the last vector stores only the
/// channels left.
#[inline(always)]
pub(super) fn requantize_narrow(
    sums: &[i32],
    multipliers: &[i32],
    shifts: &[i8],
    out: &mut [u8],
    (zero_point, min, max): (i32, i32, i32),
) {
    let n = sums.len();
    assert!(
        multipliers.len() >= n && shifts.len() >= n && out.len() >= n,
        "requantize_narrow: short operands"
    );
    if n == 0 {
        return;
    }
    // SAFETY: the loop runs ceil(n / 4) times (`dlstp.32` with n > 0 elements, the last pass
    // predicated to the n % 4 lanes left, whose loads and stores touch nothing in the lanes
    // switched off): pass i reads sums[4 i..], multipliers[4 i..] (`i32`s, word-aligned for
    // `vldrw`) and shifts[4 i..] and writes out[4 i..], each for its active lanes only, all within
    // the n elements of each (asserted above). It writes its registers (q0..q7 and `lr` declared
    // clobbered) and `out`.
    unsafe {
        core::arch::asm!(
            "vdup.32 q6, {min}",
            "vdup.32 q7, {max}",
            "dlstp.32 lr, {n}",
            "2:",
            "vldrw.u32 q0, [{sp}], #16",
            "vldrw.u32 q1, [{mp}], #16",
            "vldrb.s32 q2, [{hp}], #4",
            "vqrdmulh.s32 q0, q0, q1",
            "vshr.s32 q1, q0, #31",
            "vadd.i32 q0, q0, q1",
            "vrshl.s32 q0, q0, q2",
            "vadd.i32 q0, q0, {zp}",
            "vmax.s32 q0, q0, q6",
            "vmin.s32 q0, q0, q7",
            "vstrb.32 q0, [{op}], #4",
            "letp lr, 2b",
            min = in(reg) min,
            max = in(reg) max,
            n = in(reg) n,
            zp = in(reg) zero_point,
            sp = inout(reg) sums.as_ptr() => _,
            mp = inout(reg) multipliers.as_ptr() => _,
            hp = inout(reg) shifts.as_ptr() => _,
            op = inout(reg) out.as_mut_ptr() => _,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _, out("q3") _,
            out("q4") _, out("q5") _, out("q6") _, out("q7") _,
            options(nostack),
        );
    }
}

/// `dot::mac_lanes_s8` with Helium: `acc[c] += w[c] * (x[c] + offset)` for `c < acc.len()`, four
/// channels per vector, the last predicated to the channels left.
#[inline(always)]
pub(crate) fn mac_lanes_s8(acc: &mut [i32], w: &[i8], x: &[u8], offset: i32) {
    let n = acc.len();
    assert!(w.len() >= n && x.len() >= n, "mac_lanes: short rows");
    if n == 0 {
        return;
    }
    // SAFETY: the loop runs ceil(n / 4) times (`dlstp.32`, n > 0), the last pass predicated to
    // the n % 4 lanes left: pass i reads and writes acc[4 i..] (word-aligned `i32`s) and reads
    // w[4 i..], x[4 i..], each for its active lanes only, within their n elements (asserted).
    unsafe {
        core::arch::asm!(
            "dlstp.32 lr, {n}",
            "2:",
            "vldrw.u32 q0, [{ap}]",
            "vldrb.s32 q1, [{wp}], #4",
            "vldrb.s32 q2, [{xp}], #4",
            "vadd.i32 q2, q2, {off}",
            "vmul.i32 q1, q1, q2",
            "vadd.i32 q0, q0, q1",
            "vstrw.32 q0, [{ap}], #16",
            "letp lr, 2b",
            n = in(reg) n,
            off = in(reg) offset,
            ap = inout(reg) acc.as_mut_ptr() => _,
            wp = inout(reg) w.as_ptr() => _,
            xp = inout(reg) x.as_ptr() => _,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _,
            options(nostack),
        );
    }
}

/// `dot::mac_broadcast_s8` with Helium: `acc[c] += w[c] * (x + offset)` for `c < acc.len()` and
/// one input byte `x` shared by every channel, four channels per `vmla`, the last vector
/// predicated to the channels left.
#[inline(always)]
pub(crate) fn mac_broadcast_s8(acc: &mut [i32], w: &[i8], x: u8, offset: i32) {
    let x = i32::from(x as i8) + offset;
    let n = acc.len();
    assert!(w.len() >= n, "mac_broadcast: short row");
    if n == 0 {
        return;
    }
    // SAFETY: as in `mac_lanes_s8`: pass i reads and writes acc[4 i..] and reads w[4 i..] for its
    // active lanes only, within their n elements (asserted).
    unsafe {
        core::arch::asm!(
            "dlstp.32 lr, {n}",
            "2:",
            "vldrw.u32 q0, [{ap}]",
            "vldrb.s32 q1, [{wp}], #4",
            "vmla.s32 q0, q1, {x}",
            "vstrw.32 q0, [{ap}], #16",
            "letp lr, 2b",
            n = in(reg) n,
            x = in(reg) x,
            ap = inout(reg) acc.as_mut_ptr() => _,
            wp = inout(reg) w.as_ptr() => _,
            out("lr") _,
            out("q0") _, out("q1") _,
            options(nostack),
        );
    }
}

mod pool;
mod taps;
pub(crate) use pool::pool_sum16_s8;
pub(crate) use taps::window_taps_requant_s8;

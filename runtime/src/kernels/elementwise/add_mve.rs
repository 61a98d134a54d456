//! The Helium (MVE, `cfg(tinyaot_mve)`: Cortex-M55 and M85) loop of int8 ADD in the usual case
//! ([`add_s8`]), which [`add_sub_s8_dsp`](super::add_dsp::add_sub_s8_dsp) tries first: the whole
//! run, in place too, four elements per vector, tail-predicated. The convolutions' Helium loops
//! are in `nn_common/mve.rs`; the register conventions are theirs (only q0..q7, q4..q7 declared
//! clobbered).

/// The operands of [`add_s8`]: per input its offset, multiplier and exponent less one
/// (`shift - 1`, a rounding shift's), the same for the output, then the output zero point and
/// the clamp.
pub(crate) struct AddOperands {
    /// `(a_offset, a_multiplier, a_shift - 1)`.
    pub(crate) a: (i32, i32, i32),
    /// `(b_offset, b_multiplier, b_shift - 1)`.
    pub(crate) b: (i32, i32, i32),
    /// `(output_multiplier, output_shift - 1)`.
    pub(crate) output: (i32, i32),
    /// `(output zero point, act_min, act_max)`.
    pub(crate) clamp: (i32, i32, i32),
}

/// One rescaling of [`add_s8`]: `$q` (a rescaled value's `h`, the rounded high product) to
/// TFLM's `RoundingDivideByPOT(h, e)` by `e = -shift`, doubled: `vrshl` of `2 h - [h < 0]` by
/// `shift - 1` (`$r`), which is `((2 h - [h < 0]) >> e + 1) >> 1`, the rounding division for a
/// zero `e` too (`add::halve_doubled_by_pot`). Uses q2.
macro_rules! mve_add_divide {
    ($q:literal, $r:literal) => {
        concat!(
            "vshr.s32 q2, ",
            $q,
            ", #31\n",
            "vadd.i32 ",
            $q,
            ", ",
            $q,
            ", ",
            $q,
            "\n",
            "vadd.i32 ",
            $q,
            ", ",
            $q,
            ", q2\n",
            "vrshl.s32 ",
            $q,
            ", ",
            $r,
            "\n",
        )
    };
}

/// int8 ADD of equally long `x` and `y` into `out` on `add::narrow_add`'s parameters with TFLM's
/// left shift of 20, four elements per vector, tail-predicated: per input `(x + offset) << 20`,
/// the rounded doubling high product (`vqrdmulh`, exact since `|v| < 2^28` and the multiplier is
/// not negative), the rounding division; their sum rescaled alike, the zero point, the clamp, a
/// byte store. The same bits as `add::add_sub_s8_narrow` (every value divided below 2^30 in
/// magnitude), in 27 instructions per four elements where the DSP passes take about 130.
///
/// The inputs are `a` and `b` (an arena offset or bytes of their own), the output `n` bytes at
/// `output` in `arena`. An input in the arena either lies at the output's offset (in place:
/// each vector of it is read before the same vector of output is stored) or misses the output;
/// otherwise, or when an operand runs past its memory, nothing is done and false returned.
pub(crate) fn add_s8(
    arena: &mut [u8],
    (a, b, output): (crate::Src, crate::Src, usize),
    n: usize,
    p: &AddOperands,
) -> bool {
    let fits = |src: &crate::Src| match *src {
        crate::Src::Arena(at) => {
            at.checked_add(n).is_some_and(|end| end <= arena.len())
                && (at == output || at + n <= output || output + n <= at)
        }
        crate::Src::Bytes(bytes) => bytes.len() >= n,
    };
    let (_, min, max) = p.clamp;
    let bounds = i32::from(i16::MIN) <= min && max <= i32::from(i16::MAX);
    if !(bounds
        && output.checked_add(n).is_some_and(|end| end <= arena.len())
        && fits(&a)
        && fits(&b))
    {
        return false;
    }
    let base = arena.as_mut_ptr();
    let at = |src: crate::Src| match src {
        crate::Src::Arena(at) => base.wrapping_add(at).cast_const(),
        crate::Src::Bytes(bytes) => bytes.as_ptr(),
    };
    // SAFETY: checked above: each input's n bytes lie within the arena or its own bytes, and
    // an arena input is the output itself or misses it; the output's n bytes lie within the
    // arena, reached through the `&mut` held here, which nothing else uses meanwhile.
    unsafe { add_s8_raw(at(a), at(b), base.wrapping_add(output), n, p) };
    true
}

/// [`add_s8`]'s loop on raw operands.
///
/// # Safety
///
/// `x` and `y` must be readable for `n` bytes and `out` writable for `n` bytes; an input may be
/// `out` itself (each vector is read before it is stored) but must not otherwise overlap it.
/// The clamp's bounds must fit 16 bits.
#[inline(always)]
unsafe fn add_s8_raw(x: *const u8, y: *const u8, out: *mut u8, n: usize, p: &AddOperands) {
    let (zero_point, min, max) = p.clamp;
    if n == 0 {
        return;
    }
    // Bounds within 16 bits (the caller's check): packed in halves, unpacked by
    // `vmovlb`/`vmovlt`.
    let pk = (max as u32) << 16 | (min as u32 & 0xffff);
    // The vector constants (each four times: the multipliers, then the two inputs' shifts),
    // then the element count: too few registers to hold them as scalars.
    let (ma, mb, mo, sa, sb) = (p.a.1, p.b.1, p.output.0, p.a.2, p.b.2);
    let consts: [i32; 21] = [
        ma, ma, ma, ma, mb, mb, mb, mb, mo, mo, mo, mo, sa, sa, sa, sa, sb, sb, sb, sb, n as i32,
    ];
    // SAFETY: the loop runs ceil(n / 4) times (`dlstp.32` with n > 0 elements, the last pass
    // predicated to the n % 4 lanes left, whose loads and stores touch nothing): pass i reads
    // x[4 i..] and y[4 i..], then writes out[4 i..], for its active lanes only, within the n
    // bytes the caller guarantees (this function's contract, `add_s8`'s checks); byte accesses
    // need no alignment. It reads `consts` (word-aligned `i32`s for `vldrw`/`ldr`) and writes
    // its registers (q0..q7, `lr` and the registers declared) and `out`.
    unsafe {
        core::arch::asm!(
            "vldrw.u32 q4, [{ps}]",
            "vldrw.u32 q5, [{ps}, #16]",
            "vldrw.u32 q6, [{ps}, #32]",
            "vldrw.u32 q7, [{ps}, #48]",
            "vldrw.u32 q3, [{ps}, #64]",
            "ldr {ps}, [{ps}, #80]",
            "dlstp.32 lr, {ps}",
            "2:",
            "vldrb.s32 q0, [r0], #4",
            "vadd.i32 q0, q0, {oa}",
            "vshl.i32 q0, q0, #20",
            "vqrdmulh.s32 q0, q0, q4",
            mve_add_divide!("q0", "q0, q7"),
            "vldrb.s32 q1, [r1], #4",
            "vadd.i32 q1, q1, {ob}",
            "vshl.i32 q1, q1, #20",
            "vqrdmulh.s32 q1, q1, q5",
            mve_add_divide!("q1", "q1, q3"),
            "vadd.i32 q0, q0, q1",
            "vqrdmulh.s32 q0, q0, q6",
            mve_add_divide!("q0", "{so}"),
            "vadd.i32 q0, q0, {zp}",
            "vdup.32 q1, {pk}",
            "vmovlb.s16 q2, q1",
            "vmax.s32 q0, q0, q2",
            "vmovlt.s16 q2, q1",
            "vmin.s32 q0, q0, q2",
            "vstrb.32 q0, [r2], #4",
            "letp lr, 2b",
            ps = inout(reg) consts.as_ptr() => _,
            oa = in(reg) p.a.0,
            ob = in(reg) p.b.0,
            so = in(reg) p.output.1,
            zp = in(reg) zero_point,
            pk = in(reg) pk,
            // Widening loads and narrowing stores take low registers only.
            inout("r0") x => _,
            inout("r1") y => _,
            inout("r2") out => _,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _, out("q3") _,
            out("q4") _, out("q5") _, out("q6") _, out("q7") _,
            options(nostack),
        );
    }
}

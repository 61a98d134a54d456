//! The Helium loop of int8 AVERAGE_POOL_2D (`cfg(tinyaot_mve)`): a window's sums for 16
//! channels at a time, in four vectors of 32-bit lanes. The register conventions are the
//! parent's (only q0..q7, q4..q7 declared clobbered).

/// Sets `acc[j]` to the sum of the int8 values `x[r row + k px + j]` over the window's `rows`
/// rows and `cols` pixels per row (`row` and `px` their steps in bytes), for the 16 lanes `j`:
/// four widening loads and four adds per tap, the sums in registers, where the scalar loop took
/// about four instructions per value. Returns false, having done nothing, when the window is
/// empty or runs past `x`.
#[inline(always)]
pub(crate) fn pool_sum16_s8(
    x: &[u8],
    (rows, cols, row, px): (usize, usize, usize, usize),
    acc: &mut [i32; 16],
) -> bool {
    let fits = rows > 0
        && cols > 0
        && (rows - 1)
            .checked_mul(row)
            .zip((cols - 1).checked_mul(px))
            .and_then(|(r, c)| r.checked_add(c))
            .and_then(|last| last.checked_add(16))
            .is_some_and(|end| end <= x.len());
    if !fits {
        return false;
    }
    // SAFETY: `fits` (checked above) bounds every access: the row loop runs rows >= 1 times
    // (`{r}` counted down), the tap loop cols >= 1 times (`dls`/`le`); tap (r, k) reads the 16
    // bytes at x + r row + k px, below (rows - 1) row + (cols - 1) px + 16 <= x.len(); byte loads
    // need no alignment. It writes `acc` (16 word-aligned `i32`s, `vstrw`) and its registers
    // (q0..q7, `lr` and the registers declared).
    unsafe {
        core::arch::asm!(
            "vmov.i32 q4, #0",
            "vmov.i32 q5, #0",
            "vmov.i32 q6, #0",
            "vmov.i32 q7, #0",
            "3:",
            "mov r0, {xp}",
            "dls lr, {cols}",
            "2:",
            "vldrb.s32 q0, [r0]",
            "vadd.i32 q4, q4, q0",
            "vldrb.s32 q1, [r0, #4]",
            "vadd.i32 q5, q5, q1",
            "vldrb.s32 q2, [r0, #8]",
            "vadd.i32 q6, q6, q2",
            "vldrb.s32 q3, [r0, #12]",
            "vadd.i32 q7, q7, q3",
            "add r0, r0, {px}",
            "le lr, 2b",
            "add {xp}, {xp}, {row}",
            "subs {r}, {r}, #1",
            "bne 3b",
            "vstrw.32 q4, [{acc}]",
            "vstrw.32 q5, [{acc}, #16]",
            "vstrw.32 q6, [{acc}, #32]",
            "vstrw.32 q7, [{acc}, #48]",
            xp = inout(reg) x.as_ptr() => _,
            r = inout(reg) rows => _,
            cols = in(reg) cols,
            row = in(reg) row,
            px = in(reg) px,
            acc = in(reg) acc.as_mut_ptr(),
            // Widening loads take low registers only.
            out("r0") _,
            out("lr") _,
            out("q0") _, out("q1") _, out("q2") _, out("q3") _,
            out("q4") _, out("q5") _, out("q6") _, out("q7") _,
            options(nostack),
        );
    }
    true
}

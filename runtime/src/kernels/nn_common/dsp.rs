//! The ARMv7E-M DSP-extension instructions the int8 kernels use, one `asm!` each: stable Rust has
//! no intrinsics for them. Two lanes of 16 bits per register: `sxtb16` sign-extends bytes 0 and 2
//! (or, rotated, 1 and 3) into the lanes, `sxtab16` adds them to packed lanes, `smlad` multiplies
//! lane by lane and adds both products to an accumulator, `smlabb`/`smlabt`/`smlatb`/`smlatt`
//! multiply one lane pair.
//! Every product is exact (16 × 16 bits) and the sums wrap, as the portable kernels' do.

use core::arch::asm;

/// Bytes 0 and 2 of `x`, sign-extended into the low and high 16-bit lanes.
#[inline(always)]
pub(crate) fn sxtb16(x: u32) -> u32 {
    let r;
    // SAFETY: register-only arithmetic; no memory, stack or flags touched.
    unsafe {
        asm!("sxtb16 {r}, {x}", r = lateout(reg) r, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// Bytes 1 and 3 of `x`, sign-extended into the low and high 16-bit lanes.
#[inline(always)]
pub(crate) fn sxtb16_ror8(x: u32) -> u32 {
    let r;
    // SAFETY: register-only arithmetic; no memory, stack or flags touched.
    unsafe {
        asm!("sxtb16 {r}, {x}, ror #8", r = lateout(reg) r, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// The lanes of `a` plus bytes 0 and 2 of `x`, sign-extended (16-bit lane sums).
#[inline(always)]
pub(crate) fn sxtab16(a: u32, x: u32) -> u32 {
    let r;
    // SAFETY: register-only arithmetic; no memory, stack or flags touched.
    unsafe {
        asm!("sxtab16 {r}, {a}, {x}", r = lateout(reg) r, a = in(reg) a, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// The lanes of `a` plus bytes 1 and 3 of `x`, sign-extended (16-bit lane sums).
#[inline(always)]
pub(crate) fn sxtab16_ror8(a: u32, x: u32) -> u32 {
    let r;
    // SAFETY: register-only arithmetic; no memory, stack or flags touched.
    unsafe {
        asm!("sxtab16 {r}, {a}, {x}, ror #8", r = lateout(reg) r, a = in(reg) a, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `acc + a.lo * b.lo + a.hi * b.hi` (lanes as i16), wrapping.
#[inline(always)]
pub(crate) fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    let r;
    // SAFETY: register-only arithmetic; no memory or stack touched. It may set the sticky Q flag,
    // which nothing here reads, so flags are not declared preserved.
    unsafe {
        asm!("smlad {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             acc = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `acc + a.lo * b.lo` (lanes as i16), wrapping.
#[inline(always)]
pub(crate) fn smlabb(a: u32, b: u32, acc: i32) -> i32 {
    let r;
    // SAFETY: register-only arithmetic; no memory or stack touched (may set the sticky Q flag).
    unsafe {
        asm!("smlabb {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             acc = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `acc + a.lo * b.hi` (lanes as i16), wrapping.
#[inline(always)]
pub(crate) fn smlabt(a: u32, b: u32, acc: i32) -> i32 {
    let r;
    // SAFETY: register-only arithmetic; no memory or stack touched (may set the sticky Q flag).
    unsafe {
        asm!("smlabt {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             acc = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `acc + a.hi * b.lo` (lanes as i16), wrapping.
#[inline(always)]
pub(crate) fn smlatb(a: u32, b: u32, acc: i32) -> i32 {
    let r;
    // SAFETY: register-only arithmetic; no memory or stack touched (may set the sticky Q flag).
    unsafe {
        asm!("smlatb {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             acc = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `acc + a.hi * b.hi` (lanes as i16), wrapping.
#[inline(always)]
pub(crate) fn smlatt(a: u32, b: u32, acc: i32) -> i32 {
    let r;
    // SAFETY: register-only arithmetic; no memory or stack touched (may set the sticky Q flag).
    unsafe {
        asm!("smlatt {r}, {a}, {b}, {acc}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             acc = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `(a * b + 2^31) >> 32`: the high word of the 64-bit product, rounded.
#[inline(always)]
pub(crate) fn smmulr(a: i32, b: i32) -> i32 {
    let r;
    // SAFETY: register-only arithmetic; no memory, stack or flags touched.
    unsafe {
        asm!("smmulr {r}, {a}, {b}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

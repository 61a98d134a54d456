//! `exp`, `log`, `tanh`, `sin`, `cos` and `sqrt` for `f32` without `std`: what TFLM's float kernels
//! get from the C library. `exp` and `log` follow the `f64` algorithms of glibc's and newlib's
//! `expf` / `logf` and equal them bit for bit (`logf` is not correctly rounded); on cores with a
//! single-precision FPU only, a float-float fast path decides the result whenever, given its
//! error bound, glibc's `f64` result is on one side of a rounding boundary: all but about 0.3 %
//! of inputs (checked on every float). `sin` and `cos` are computed in `f64` (error far below half
//! an `f32` ulp), then rounded once to `f32`, so results equal a correctly rounded `sinf` / `cosf`
//! except in rare near-ties. `expm1` and `tanh` follow the single-precision algorithm of glibc's
//! and newlib's `expm1f` / `tanhf`, which are not correctly rounded (glibc's `tanhf` differs from
//! the correctly rounded value on about 3 % of all floats), step by step, so they equal them bit
//! for bit. `sqrt` is exact (the FPU's `vsqrt.f32` on hard-float Arm, integers elsewhere).

const LN_2: f64 = core::f64::consts::LN_2;
const LOG2_E: f64 = core::f64::consts::LOG2_E;

/// `2^k` for `k` in the normal `f64` exponent range.
#[inline(always)]
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `2^(i / 32)` rounded to the nearest `f64`, minus `i << 47` from its bits: adding `k << 47` to
/// entry `k % 32` gives the bits of `2^(k / 32)` for any integer `k` of [`exp_f32`]'s range (the
/// integer part of `k / 32` lands in the exponent field).
const EXP2_FRACTION_BITS: [u64; 32] = [
    0x3FF0_0000_0000_0000,
    0x3FEF_D9B0_D315_8574,
    0x3FEF_B558_6CF9_890F,
    0x3FEF_9301_D012_5B51,
    0x3FEF_72B8_3C7D_517B,
    0x3FEF_5487_3168_B9AA,
    0x3FEF_387A_6E75_6238,
    0x3FEF_1E9D_F51F_DEE1,
    0x3FEF_06FE_0A31_B715,
    0x3FEE_F1A7_373A_A9CB,
    0x3FEE_DEA6_4C12_3422,
    0x3FEE_CE08_6061_892D,
    0x3FEE_BFDA_D536_2A27,
    0x3FEE_B42B_569D_4F82,
    0x3FEE_AB07_DD48_5429,
    0x3FEE_A47E_B03A_5585,
    0x3FEE_A09E_667F_3BCD,
    0x3FEE_9F75_E8EC_5F74,
    0x3FEE_A114_73EB_0187,
    0x3FEE_A589_994C_CE13,
    0x3FEE_ACE5_422A_A0DB,
    0x3FEE_B737_B0CD_C5E5,
    0x3FEE_C491_82A3_F090,
    0x3FEE_D503_B23E_255D,
    0x3FEE_E89F_995A_D3AD,
    0x3FEE_FF76_F2FB_5E47,
    0x3FEF_199B_DD85_529C,
    0x3FEF_3720_DCEF_9069,
    0x3FEF_5818_DCFB_A487,
    0x3FEF_7C97_337B_9B5F,
    0x3FEF_A4AF_A2A4_90DA,
    0x3FEF_D076_5B6E_4540,
];

/// `exp(x)` in `f64` (TFLM's detection post-processing calls the double `exp`) for `x` in
/// [-745, 709]: `2^k * exp(r)` with `|r| <= ln2 / 2` and a degree-13 Taylor polynomial (truncation
/// error below 1e-17 relative).
pub(crate) fn exp_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 709.0 {
        return f64::INFINITY;
    }
    if x < -745.0 {
        return 0.0;
    }
    let t = x * LOG2_E;
    let k = (if t >= 0.0 { t + 0.5 } else { t - 0.5 }) as i32;
    let r = x - f64::from(k) * LN_2;
    let mut p = 1.0;
    let mut n = 13;
    while n > 0 {
        p = 1.0 + p * r / f64::from(n);
        n -= 1;
    }
    // Split the scaling so that 2^k never leaves the normal range.
    let half = k / 2;
    p * pow2(half) * pow2(k - half)
}

/// `expf(x)` as glibc and newlib compute it (their shared algorithm, bit for bit: checked against
/// glibc 2.36 on every `f32`), in `f64`: `x 32 / ln2 = k + r` with the integer `k` rounded to
/// nearest-even and `|r| <= 1/2`; `exp(x) = 2^(k / 32) 2^(r / 32)`, the first from a table, the
/// second by a cubic polynomial; rounded once to `f32`. The C library's `x 32 / ln2 - k` is one
/// fused multiply-add on cores that have it: `r` here is that value rounded once too, from the
/// product's exact error (the constant split in halves whose products by a float are exact).
fn exp_f32_exact(x: f32) -> f32 {
    // 32 / ln2, and its high and low halves.
    const INV_LN2_32: f64 = f64::from_bits(0x4047_1547_652B_82FE);
    const INV_LN2_32_HI: f64 = f64::from_bits(0x4047_1547_6000_0000);
    const INV_LN2_32_LO: f64 = f64::from_bits(0x3EA4_AE0B_F800_0000);
    // 1.5 * 2^52: adding it rounds to an integer, kept in the low bits.
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    // The polynomial of 2^(r / 32) - 1, degree 3 to 1.
    const C: [f64; 3] = [
        f64::from_bits(0x3EBC_6AF8_4B91_2394),
        f64::from_bits(0x3F2E_BFCE_50FA_C4F3),
        f64::from_bits(0x3F96_2E42_FF0C_52D6),
    ];
    let bits = x.to_bits();
    let top = (bits >> 20) & 0x7FF;
    // |x| >= 88, or NaN: infinity, zero or NaN (what the C library returns, without its errno).
    if top >= 0x42B {
        if bits == 0xFF80_0000 {
            return 0.0;
        }
        if top >= 0x7F8 {
            return x + x;
        }
        if x > f32::from_bits(0x42B1_7217) {
            return f32::INFINITY;
        }
        if x < f32::from_bits(0xC2CF_F1B4) {
            return 0.0;
        }
    }
    let xd = f64::from(x);
    let product = INV_LN2_32 * xd;
    let shifted = product + SHIFT;
    let ki = shifted.to_bits();
    let kd = shifted - SHIFT;
    // Both halves' products are exact (26 and 27 significant bits times 24), so this is the
    // rounding error of `product`; `product - kd` is exact (Sterbenz), and the sum rounds once.
    let error = (INV_LN2_32_HI * xd - product) + INV_LN2_32_LO * xd;
    let r = (product - kd) + error;
    let scale =
        f64::from_bits(EXP2_FRACTION_BITS[(ki % 32) as usize].wrapping_add(ki.wrapping_shl(47)));
    let z = C[0] * r + C[1];
    let r2 = r * r;
    let y = C[2] * r + 1.0;
    ((z * r2 + y) * scale) as f32
}

/// `expf(x)`, bit for bit glibc's and newlib's (see [`exp_f32_exact`]). On Arm hard-float targets
/// (`cfg(tinyaot_vfp)`: a single-precision FPU, no double one, where every `f64` operation is a
/// software call) [`exp_f32_fast`] decides the result in `f32` for all but about 0.13 % of the
/// inputs of magnitude below 87, which take the `f64` path; elsewhere the `f64` path alone.
#[inline(always)]
pub(crate) fn exp_f32(x: f32) -> f32 {
    #[cfg(tinyaot_vfp)]
    if let Some(y) = exp_f32_fast(x) {
        return y;
    }
    exp_f32_exact(x)
}

/// Leaves the first `bits` significant bits of a normal `f64`, truncating the others.
const fn keep_bits(x: f64, bits: u32) -> f64 {
    f64::from_bits(x.to_bits() & !((1u64 << (53 - bits)) - 1))
}

/// `ln2 / 32` in three parts: 11 significant bits (so that its products by the `k` of
/// [`exp_f32_fast`], at most 13 bits, are exact), 11 more, and the rest rounded to `f32`.
const EXP_L: f64 = LN_2 / 32.0;
const EXP_L1: f32 = keep_bits(EXP_L, 11) as f32;
const EXP_L2: f32 = keep_bits(EXP_L - EXP_L1 as f64, 11) as f32;
const EXP_L3: f32 = (EXP_L - EXP_L1 as f64 - EXP_L2 as f64) as f32;

/// `2^(i / 32)`, the `f64` of [`EXP2_FRACTION_BITS`] (glibc's table), split into its first 16
/// significant bits (exact products by 8-bit numbers) and the rest rounded to `f32`.
const fn exp2_32(i: usize) -> f64 {
    f64::from_bits(EXP2_FRACTION_BITS[i].wrapping_add((i as u64) << 47))
}
const EXP2_HI: [f32; 32] = {
    let mut t = [0.0; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = keep_bits(exp2_32(i), 16) as f32;
        i += 1;
    }
    t
};
const EXP2_LO: [f32; 32] = {
    let mut t = [0.0; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = (exp2_32(i) - keep_bits(exp2_32(i), 16)) as f32;
        i += 1;
    }
    t
};

/// [`exp_f32_exact`]'s result in `f32` arithmetic when it is unambiguous (Ziv's strategy), `None`
/// when the caller must compute it in `f64` (`|x| >= 87`, NaN, or a result within the error
/// bound of a rounding boundary). `x = k ln2 / 32 + r` by a three-part Cody-Waite reduction
/// (`x - k L1 - k L2` exact, `r = hi + lo` from an exact two-sum with `k L3`, `|r| <= ln2 / 64`);
/// `exp(x) = 2^(k / 32) exp(r)`, `exp(r) - 1 = r + q` with `q` the Taylor terms to `r^4 / 24`;
/// `2^(i / 32) (1 + r + q)` as a float-float `h + l`: the leading product of 16 by 8 significant
/// bits exact, the rest in `l`. `h + l` is within 2^-36 of `exp(x) / 2^(k div 32)` and glibc's
/// `f64` result within 2^-33 (its polynomial's relative error, 1.69 2^-34, and roundings), so when
/// `h + l` plus and minus 2^-32 round to the same float, glibc's result rounds to it too (2^-31
/// made twice the fallbacks, each a few hundred instructions of software `f64` on the Cortex-M4);
/// the power of two goes into the exponent field (results here are normal). Every `f32` checked
/// against glibc (`exhaustive::exp_equals_libm_on_every_f32`): no difference, 0.13 % fall back.
#[cfg_attr(not(tinyaot_vfp), allow(dead_code))]
#[inline(always)]
fn exp_f32_fast(x: f32) -> Option<f32> {
    const INV_LN2_32: f32 = (32.0 / LN_2) as f32;
    // 1.5 * 2^23: adding it rounds to an integer, kept in the low bits.
    const SHIFT: f32 = 12_582_912.0;
    const DELTA: f32 = 1.0 / (1u64 << 32) as f32;
    if x.to_bits() & 0x7FFF_FFFF >= 0x42AE_0000 {
        return None;
    }
    let t = x * INV_LN2_32 + SHIFT;
    let ki = t.to_bits().wrapping_sub(SHIFT.to_bits()) as i32;
    let kf = t - SHIFT;
    // x - k L1 and then - k L2 are exact (products of 13 by 11 bits, on a common grid); k L3
    // rounds (by at most 2^-39), and r_hi + r_lo is t2 - k L3 exactly (two-sum).
    let t2 = (x - kf * EXP_L1) - kf * EXP_L2;
    let p3 = kf * EXP_L3;
    let r_hi = t2 - p3;
    let bb = r_hi - t2;
    let r_lo = (t2 - (r_hi - bb)) - (p3 + bb);
    let q = r_lo + r_hi * (r_lo + r_hi * (0.5 + r_hi * (1.0 / 6.0 + r_hi * (1.0 / 24.0))));
    // r_hi's first 8 significant bits: their product by the 16-bit s_hi is exact.
    let r_h = f32::from_bits(r_hi.to_bits() & 0xFFFF_0000);
    let r_m = r_hi - r_h;
    let i = (ki & 31) as usize;
    let (s_hi, s_lo) = (EXP2_HI[i], EXP2_LO[i]);
    let p = s_hi * r_h;
    let h = s_hi + p;
    let e = (s_hi - h) + p;
    let l = e + (s_hi * (r_m + q) + s_lo * (1.0 + (r_hi + q)));
    let above = h + (l + DELTA);
    let below = h + (l - DELTA);
    if above != below {
        return None;
    }
    Some(f32::from_bits(
        above.to_bits().wrapping_add(((ki >> 5) as u32) << 23),
    ))
}

/// `expm1f(x)` as the C libraries TFLM links compute it in single precision (glibc's and newlib's
/// `expm1f`, the fdlibm algorithm), so that ELU and [`tanh_f32`] give TFLM's float results bit for
/// bit (checked against glibc 2.36 on every `f32`): `x = k ln2 + r` with `ln2` split in a high part
/// whose products by `k` are exact and a low part, `|r| <= ln2 / 2`, and `expm1(r)` by a rational
/// form in `r^2 / 2` with a degree-5 polynomial; then `2^k (expm1(r) + 1) - 1` arranged so that
/// nothing cancels. Every step rounds in `f32` as the C code does, in the same order.
pub(crate) fn expm1_f32(x: f32) -> f32 {
    const LN2_HI: f32 = f32::from_bits(0x3F31_7180);
    const LN2_LO: f32 = f32::from_bits(0x3717_F7D1);
    const INV_LN2: f32 = f32::from_bits(0x3FB8_AA3B);
    // The largest x whose expm1 is finite (log(2^128) rounded down to the first 16 bits).
    const OVERFLOW: f32 = f32::from_bits(0x42B1_7180);
    const Q: [f32; 5] = [
        f32::from_bits(0xBD08_8889),
        f32::from_bits(0x3AD0_0D01),
        f32::from_bits(0xB8A6_70CD),
        f32::from_bits(0x3686_7E54),
        f32::from_bits(0xB457_EDBB),
    ];
    let bits = x.to_bits();
    let negative = bits >> 31 != 0;
    let magnitude = bits & 0x7FFF_FFFF;
    // |x| >= 27 ln2: exp(x) - 1 is -1 (below) or exp(x) (above, up to overflow).
    if magnitude >= 0x4195_B844 {
        if magnitude >= 0x42B1_7218 {
            if magnitude > 0x7F80_0000 {
                return x + x;
            }
            if magnitude == 0x7F80_0000 {
                return if negative { -1.0 } else { x };
            }
            if x > OVERFLOW {
                return f32::INFINITY;
            }
        }
        if negative {
            return -1.0;
        }
    }
    // Reduce: x = hi - lo = k ln2 + r, with c the rounding error of r.
    let (k, r, c) = if magnitude > 0x3EB1_7218 {
        let (k, hi, lo) = if magnitude < 0x3F85_1592 {
            // |x| below 1.5 ln2: k is ±1.
            if negative {
                (-1, x + LN2_HI, -LN2_LO)
            } else {
                (1, x - LN2_HI, LN2_LO)
            }
        } else {
            let k = (INV_LN2 * x + if negative { -0.5 } else { 0.5 }) as i32;
            let t = k as f32;
            (k, x - t * LN2_HI, t * LN2_LO)
        };
        let r = hi - lo;
        (k, r, (hi - r) - lo)
    } else if magnitude < 0x3300_0000 {
        // |x| < 2^-25: expm1(x) rounds to x.
        return x;
    } else {
        (0, x, 0.0)
    };
    let half_r = 0.5 * r;
    let half_r2 = r * half_r;
    let r1 = 1.0
        + half_r2
            * (Q[0] + half_r2 * (Q[1] + half_r2 * (Q[2] + half_r2 * (Q[3] + half_r2 * Q[4]))));
    let t = 3.0 - r1 * half_r;
    let e = half_r2 * ((r1 - t) / (6.0 - r * t));
    if k == 0 {
        return r - (r * e - half_r2);
    }
    let e = (r * (e - c) - c) - half_r2;
    // y * 2^k for the y of the branches below, by adding k to y's exponent field (in range here).
    let scale = |y: f32| f32::from_bits(y.to_bits().wrapping_add((k as u32) << 23));
    match k {
        -1 => 0.5 * (r - e) - 0.5,
        1 if r < -0.25 => -2.0 * (e - (r + 0.5)),
        1 => 1.0 + 2.0 * (r - e),
        k if k <= -2 || k > 56 => scale(1.0 - (e - r)) - 1.0,
        k if k < 23 => scale(f32::from_bits(0x3F80_0000 - (0x0100_0000 >> k)) - (e - r)),
        k => scale((r - (e + f32::from_bits(((0x7F - k) as u32) << 23))) + 1.0),
    }
}

/// Where [`log_f32`]'s 16 subintervals start: `x = 2^k z` with `z` in [0.69921875, 1.3984375),
/// the bits of `z` being those of `x` minus `k << 23` for the `k` that lands them in
/// [`LOGF_OFFSET`, `LOGF_OFFSET + 2^23`); bits 19 to 22 of the difference pick the subinterval.
const LOGF_OFFSET: u32 = 0x3F33_0000;

/// `1 / c` for [`log_f32`]'s subinterval `i`, `c` near its centre: the midpoint of its first and
/// last float (exact in `f64`), the quotient rounded to nearest by the division. Two exceptions,
/// as in the C library: the subinterval holding 1 takes `c = 1` (so that `log(c) = 0` and results
/// near 0 keep their relative precision), and the one above it a `c` the library's authors tuned
/// (1.05342333…, not the midpoint 1.0546875), given by its bits like the polynomial's coefficients.
const fn logf_invc(i: u32) -> f64 {
    match i {
        9 => 1.0,
        10 => f64::from_bits(0x3FEE_608C_FD9A_47AC),
        _ => {
            let first = f32::from_bits(LOGF_OFFSET + (i << 19)) as f64;
            let last = f32::from_bits(LOGF_OFFSET + ((i + 1) << 19) - 1) as f64;
            1.0 / ((first + last) * 0.5)
        }
    }
}

/// [`logf_invc`] for the 16 subintervals.
const LOGF_INVC: [f64; 16] = {
    let mut t = [0.0; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = logf_invc(i as u32);
        i += 1;
    }
    t
};

/// `log(c) = -log(invc)` rounded to the nearest `f64` for each [`LOGF_INVC`] entry (computed with
/// 60-digit decimal arithmetic; the test `logf_table_is_derived` checks them against `std`).
const LOGF_LOGC: [u64; 16] = [
    0xBFD5_7BF7_808C_AADE,
    0xBFD2_BEF0_A7C0_6DDB,
    0xBFD0_1EAE_7F51_3A67,
    0xBFCB_31D8_A682_24E9,
    0xBFC6_574F_0AC0_7758,
    0xBFC1_AA2B_C79C_8100,
    0xBFBA_4E76_CE8C_0E5E,
    0xBFB1_973C_5A61_1CCC,
    0xBFA2_52F4_38E1_0C1E,
    0x0000_0000_0000_0000,
    0x3FAA_A5AA_5DF2_5984,
    0x3FBC_5E53_AA36_2EB4,
    0x3FC5_26E5_7720_DB08,
    0x3FCB_C286_0D22_4770,
    0x3FD1_058B_C8A0_7EE1,
    0x3FD4_0430_57B6_EE09,
];

/// [`log_f32_exact`]'s coefficients of r^4, r^3 and r^2 (the C library's).
const LOGF_A: [u64; 3] = [
    0xBFD0_0EA3_48B8_8334,
    0x3FD5_575B_0BE0_0B6A,
    0xBFDF_FFFE_F20A_4123,
];

/// `logf(x)`, bit for bit glibc's and newlib's (see [`log_f32_exact`]). On Arm hard-float targets
/// (`cfg(tinyaot_vfp)`) [`log_f32_fast`] decides the result in `f32` for all but about 0.07 % of
/// the positive normal inputs, which take the `f64` path; elsewhere the `f64` path alone.
#[inline(always)]
pub(crate) fn log_f32(x: f32) -> f32 {
    #[cfg(tinyaot_vfp)]
    if let Some(y) = log_f32_fast(x) {
        return y;
    }
    log_f32_exact(x)
}

/// [`LOGF_INVC`] and [`LOGF_LOGC`] for [`log_f32_fast`]: `1 / c` times 2^63 as an integer (exact:
/// `1 / c` is an `f64` in [0.5, 2)), `log(c)` in two floats (its nearest and the rest).
const LOGF_FIXED: [(u64, f32, f32); 16] = {
    let mut t = [(0, 0.0, 0.0); 16];
    let mut i = 0;
    while i < 16 {
        let bits = LOGF_INVC[i].to_bits();
        let significand = (bits & ((1 << 52) - 1)) | (1 << 52);
        // invc = significand 2^(e - 52) with e = -1 or 0: times 2^63, significand << (e + 11).
        let e = ((bits >> 52) & 0x7FF) as i32 - 1023;
        let logc = f64::from_bits(LOGF_LOGC[i]);
        let c_hi = logc as f32;
        t[i] = (significand << (e + 11), c_hi, (logc - c_hi as f64) as f32);
        i += 1;
    }
    t
};

/// `ln2` in two parts: 16 significant bits (exact products by the exponent, at most 8 bits) and
/// the rest rounded to `f32`.
const LN2_1: f32 = keep_bits(LN_2, 16) as f32;
const LN2_2: f32 = (LN_2 - LN2_1 as f64) as f32;

/// [`log_f32_exact`]'s result in `f32` arithmetic when it is unambiguous (Ziv's strategy), `None`
/// for inputs that are not positive normal floats or whose result is within the error bound of a
/// rounding boundary. It follows glibc's own computation (whose error, up to 0.32 ulp, decides
/// its roundings) rather than the true logarithm: the same `k`, `z` and subinterval; `r = z invc -
/// 1` in 64-bit fixed point (`z`'s 24-bit significand times `invc` 2^63 by two 32-bit products,
/// `umull` and `umlal` on the Cortex-M4; within 2^-54 of the exact `r`), then a float-float, its
/// leading part the nearest multiple of 2^-29; `y = k ln2 + log(c) + r + a2 r^2 + a1 r^3 + a0 r^4`
/// with its three leading sums exact (fast two-sums, each term no larger than the sum before)
/// and `r^2`'s leading part exact (`r` rounded to a multiple of 2^-17); the rest in `l`. When
/// `y3 + l` plus and minus 2^-34 of it round to the same float, glibc's result rounds to it too
/// (the margin covers the float roundings of the small terms, `a1 r^3` the largest; 2^-35 let one
/// float through wrong). Every `f32` checked against glibc
/// (`exhaustive::log_equals_libm_on_every_f32`): no difference; 2,942,239 of the positive normal
/// inputs (0.14 %) fall back, each to a few hundred instructions of software `f64` on the
/// Cortex-M4. `r` in fixed point replaced a float-float product of `z` and `invc` split in
/// 12-bit parts with two exact two-sums (91 → 81 instructions an element in the M4 loop of
/// `math::log_f32`). The C kernels' twin fuses its multiply-adds on cores that have them
/// (`vfma.f32`); stable Rust has no fused multiply-add in `core`, and an `asm!` `vfma.f32` takes
/// its operands through core registers (`sreg` operands need an unstable target feature).
#[cfg_attr(not(tinyaot_vfp), allow(dead_code))]
#[inline(always)]
fn log_f32_fast(x: f32) -> Option<f32> {
    const A0: f32 = f64::from_bits(LOGF_A[0]) as f32;
    const A1: f32 = f64::from_bits(LOGF_A[1]) as f32;
    // a2 + 1/2 (a2 r^2 is -r^2 / 2 plus this times r^2).
    const D2: f32 = (f64::from_bits(LOGF_A[2]) + 0.5) as f32;
    const DELTA: f32 = 1.0 / (1u64 << 34) as f32;
    const TWO_M29: f32 = 1.0 / (1u64 << 29) as f32;
    const TWO_M55: f32 = 1.0 / (1u64 << 55) as f32;
    // 1.5 * 2^6: adding it rounds a number below 2^5 in magnitude to a multiple of 2^-17.
    const ROUND_2M17: f32 = 96.0;
    let ix = x.to_bits();
    if ix.wrapping_sub(0x0080_0000) >= 0x7F80_0000 - 0x0080_0000 {
        return None;
    }
    // glibc's `tmp = ix - 0x3F330000`, plus 2^30 (one add of an encodable immediate on Arm; the
    // subinterval's bits 19 to 22 and bit 23 are the same; `k` below takes the 2^30 off).
    let tmp = ix.wrapping_add(0x00CD_0000);
    let i = ((tmp >> 19) % 16) as usize;
    let kf = ((tmp >> 23) as i32 - 128) as f32;
    // z 2^24 as an integer: z's significand, doubled when z >= 1 (exponent field 127, not 126:
    // its last bit, bit 23 of `ix - (tmp & 0xFF80_0000)`, is bit 23 of `ix ^ tmp`).
    let z = ((ix | 0x0080_0000) & 0x00FF_FFFF) << (((ix ^ tmp) >> 23) & 1);
    let (invc, c_hi, c_lo) = LOGF_FIXED[i];
    // z invc 2^55, short of the exact product by less than 2^-54 of 2^55 (the low 32 bits of
    // z (invc 2^63) dropped), then r 2^55 (|r| < 2^-5: below 2^50 in magnitude).
    let zc = ((u64::from(z) * (invc & 0xFFFF_FFFF)) >> 32) + u64::from(z) * (invc >> 32);
    let r = zc.wrapping_sub(1 << 55) as i64;
    // r = r_hi + r_lo: r_hi the nearest multiple of 2^-29 (at most 24 significant bits, exact
    // in f32), r_lo the rest (|r_lo| <= 2^-30, at most 26 bits: rounded by less than 2^-54).
    let hi = (r.wrapping_add(1 << 25) >> 26) as i32;
    let lo = (r as u32).wrapping_sub((hi as u32) << 26) as i32;
    let r_hi = hi as f32 * TWO_M29;
    let r_lo = lo as f32 * TWO_M55;
    // k ln2 + log(c) + r - r^2 / 2, each sum exact with its error: |k ln2| > |log(c)| unless
    // k = 0, |log(c)| > |r| unless c = 1, and the sum so far exceeds r^2 / 2.
    let kl = kf * LN2_1;
    let y1 = kl + c_hi;
    let e3 = (kl - y1) + c_hi;
    let y2 = y1 + r_hi;
    let e4 = (y1 - y2) + r_hi;
    // r_hi = rh + rm exactly, rh the nearest multiple of 2^-17 (at most 12 significant bits: its
    // square exact), rm (|rm| <= 2^-18, a multiple of 2^-29) at most 11.
    let rh = (r_hi + ROUND_2M17) - ROUND_2M17;
    let rm = r_hi - rh;
    let sq = -0.5 * (rh * rh);
    let y3 = y2 + sq;
    let e5 = (y2 - y3) + sq;
    let p_small = r_hi * r_hi * (D2 + r_hi * (A1 + r_hi * A0));
    let l = ((e3 + e4 + e5) + (c_lo + kf * LN2_2))
        + ((r_lo - r_hi * r_lo) + ((p_small - rh * rm) - 0.5 * (rm * rm)));
    // The bound relative to the result; its sign does not matter.
    let d = y3 * DELTA;
    let above = y3 + (l + d);
    let below = y3 + (l - d);
    if above != below {
        return None;
    }
    Some(above)
}

/// `logf(x)` as glibc and newlib compute it (their shared algorithm, bit for bit: checked against
/// glibc 2.36 on every `f32`; it is not correctly rounded, off by up to 0.82 ulp): NaN below 0
/// (and for NaN), -inf at ±0, +inf at +inf. Subnormals are scaled by 2^23 first. With
/// `x = 2^k z`, `z` in the subinterval `i` of [0.699, 1.398), `log(x) = k ln2 + log(c) +
/// log1p(r)` for `r = z / c - 1 = z invc - 1` (`|r| < 0.031`), `log1p(r)` by the degree-4
/// polynomial `r + a2 r^2 + a1 r^3 + a0 r^4`, all in `f64`, rounded once to `f32`. Whether the C
/// library fuses its multiply-adds changes no result (checked on every float).
fn log_f32_exact(x: f32) -> f32 {
    const A: [f64; 3] = [
        f64::from_bits(LOGF_A[0]),
        f64::from_bits(LOGF_A[1]),
        f64::from_bits(LOGF_A[2]),
    ];
    let mut ix = x.to_bits();
    // Below 2^-126 (zeros, subnormals, negatives), infinities and NaN.
    if ix.wrapping_sub(0x0080_0000) >= 0x7F80_0000 - 0x0080_0000 {
        if ix << 1 == 0 {
            return f32::NEG_INFINITY;
        }
        if ix == 0x7F80_0000 {
            return x;
        }
        if ix >> 31 != 0 || ix << 1 >= 0xFF00_0000 {
            return f32::NAN;
        }
        // A subnormal: scaled into the normal range exactly.
        // (Modulo 2^32: the smallest ones get an exponent field below 0, which `tmp` undoes.)
        ix = (x * 8_388_608.0).to_bits().wrapping_sub(23 << 23);
    }
    let tmp = ix.wrapping_sub(LOGF_OFFSET);
    let i = ((tmp >> 19) % 16) as usize;
    let k = (tmp as i32) >> 23;
    let z = f64::from(f32::from_bits(ix.wrapping_sub(tmp & 0xFF80_0000)));
    let r = z * LOGF_INVC[i] - 1.0;
    let y0 = f64::from_bits(LOGF_LOGC[i]) + f64::from(k) * LN_2;
    let r2 = r * r;
    let y = A[1] * r + A[2];
    let y = A[0] * r2 + y;
    (y * r2 + (y0 + r)) as f32
}

/// `tanhf(x)` as glibc's and newlib's `tanhf` compute it (the fdlibm algorithm, bit for bit:
/// checked against glibc 2.36 on every `f32`), from [`expm1_f32`]: `1 - 2 / (expm1(2|x|) + 2)` for
/// `|x| >= 1`, `-expm1(-2|x|) / (expm1(-2|x|) + 2)` below, 1 from 22 on, `x` itself when tiny.
pub(crate) fn tanh_f32(x: f32) -> f32 {
    let bits = x.to_bits();
    let magnitude = bits & 0x7FFF_FFFF;
    if magnitude >= 0x7F80_0000 {
        // ±1 at ±infinity, NaN stays NaN.
        return if bits >> 31 != 0 {
            1.0 / x - 1.0
        } else {
            1.0 / x + 1.0
        };
    }
    let a = f32::from_bits(magnitude);
    let t = if magnitude >= 0x41B0_0000 {
        1.0
    } else if magnitude == 0 {
        return x;
    } else if magnitude < 0x2400_0000 {
        // |x| < 2^-55: x (1 + x) rounds to x, as the C code returns it.
        return x * (1.0 + x);
    } else if magnitude >= 0x3F80_0000 {
        1.0 - 2.0 / (expm1_f32(2.0 * a) + 2.0)
    } else {
        let e = expm1_f32(-2.0 * a);
        -e / (e + 2.0)
    };
    if bits >> 31 != 0 {
        -t
    } else {
        t
    }
}

/// The first 256 bits of `2 / pi` after the binary point, most significant word first (enough
/// for every finite `f32`: `x = m 2^e` with `e` at most 104 needs bits up to the 230th).
const TWO_OVER_PI: [u32; 8] = [
    0xA2F9_836E,
    0x4E44_1529,
    0xFC27_57D1,
    0xF534_DDC0,
    0xDB62_9599,
    0x3C43_9041,
    0xFE51_63AB,
    0xDEBB_C561,
];

/// `sin(y)` in `f64` for `|y| <= pi / 4`: the Taylor series to `y^17 / 17!` by Horner's rule
/// (truncation below 1e-19 relative).
fn sin_poly(y: f64) -> f64 {
    let y2 = y * y;
    let mut p = 1.0;
    let mut k = 8;
    while k > 0 {
        p = 1.0 - y2 / f64::from((2 * k) * (2 * k + 1)) * p;
        k -= 1;
    }
    y * p
}

/// `cos(y)` in `f64` for `|y| <= pi / 4`: the Taylor series to `y^18 / 18!`.
fn cos_poly(y: f64) -> f64 {
    let y2 = y * y;
    let mut p = 1.0;
    let mut k = 9;
    while k > 0 {
        p = 1.0 - y2 / f64::from((2 * k - 1) * (2 * k)) * p;
        k -= 1;
    }
    p
}

/// A finite `a >= pi / 4` as `q pi / 2 + y`: the quadrant `q` modulo 4 and `|y| <= pi / 4` in
/// `f64`. Exact reduction for every float (Payne-Hanek): with `a = m 2^e`, `m` a 24-bit integer,
/// `a 2 / pi` modulo 4 is `m (2^e 2 / pi mod 4)`, so 128 bits of `2 / pi` around `2^-e` times `m`,
/// modulo 2^128, give the quadrant (2 bits) and the fraction (126 bits, error below 2^-102). A
/// float comes no closer to a multiple of `pi / 2` than about 2^-30 relative, so `y` keeps far
/// more than the 53 bits `f64` holds. Integer arithmetic on 32-bit words, as the C twin.
fn reduce_pio2(a: f32) -> (u32, f64) {
    let bits = a.to_bits();
    let field = (bits >> 23) as usize;
    let m = u64::from((bits & 0x7F_FFFF) | 0x80_0000);
    // The window is floor(2/pi 2^(e + 126)) mod 2^128, e = field - 150: the 256-bit integer
    // 2/pi 2^256 shifted right by 280 - field (26 to 154 for the fields 126 to 254).
    let shift = 280 - field;
    let limb = |j: usize| if j < 8 { TWO_OVER_PI[7 - j] } else { 0 };
    let mut product = [0u32; 4];
    let mut carry = 0u64;
    for (k, word) in product.iter_mut().enumerate() {
        let pos = shift + 32 * k;
        let (q, r) = (pos / 32, pos % 32);
        let w = if r == 0 {
            limb(q)
        } else {
            (limb(q) >> r) | (limb(q + 1) << (32 - r))
        };
        let t = u64::from(w) * m + carry;
        *word = t as u32;
        carry = t >> 32;
    }
    let mut quadrant = product[3] >> 30;
    let mut hi = (u64::from(product[3] & 0x3FFF_FFFF) << 32) | u64::from(product[2]);
    let mut lo = (u64::from(product[1]) << 32) | u64::from(product[0]);
    // A fraction of half a quadrant or more is the next quadrant minus (2^126 - fraction).
    let negative = hi & (1 << 61) != 0;
    if negative {
        quadrant = (quadrant + 1) & 3;
        lo = (!lo).wrapping_add(1);
        hi = (!hi).wrapping_add(u64::from(lo == 0)) & ((1 << 62) - 1);
    }
    let r = hi as f64 * pow2(-62) + lo as f64 * pow2(-126);
    let y = r * core::f64::consts::FRAC_PI_2;
    (quadrant, if negative { -y } else { y })
}

/// `x` as a quadrant and a reduced `f64` argument of `|y| <= pi / 4` (`x` itself below that).
fn quadrant_of(x: f32) -> (u32, f64) {
    let a = f32::from_bits(x.to_bits() & 0x7FFF_FFFF);
    let (q, y) = if f64::from(a) < core::f64::consts::FRAC_PI_4 {
        (0, f64::from(a))
    } else {
        reduce_pio2(a)
    };
    (q, y)
}

/// `sinf(x)`, computed in `f64` after an exact argument reduction and rounded once: NaN for NaN
/// and ±inf, `-0` for `-0`.
pub(crate) fn sin_f32(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    let (q, y) = quadrant_of(x);
    let s = match q {
        0 => sin_poly(y),
        1 => cos_poly(y),
        2 => -sin_poly(y),
        _ => -cos_poly(y),
    };
    (if x.is_sign_negative() { -s } else { s }) as f32
}

/// `cosf(x)`, as [`sin_f32`]: NaN for NaN and ±inf.
pub(crate) fn cos_f32(x: f32) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    let (q, y) = quadrant_of(x);
    (match q {
        0 => cos_poly(y),
        1 => -sin_poly(y),
        2 => -cos_poly(y),
        _ => sin_poly(y),
    }) as f32
}

/// `floor(sqrt(n))` and the remainder `n - floor(sqrt(n))^2`, digit by digit (two bits a step).
#[cfg(not(tinyaot_vfp))]
fn isqrt_rem(n: u64) -> (u64, u64) {
    let (mut rem, mut root) = (n, 0u64);
    let mut bit = 1u64 << 62;
    while bit > n {
        bit >>= 2;
    }
    while bit != 0 {
        if rem >= root + bit {
            rem -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    (root, rem)
}

/// `sqrtf(x)`, correctly rounded, with the FPU's `vsqrt.f32` (`cfg(tinyaot_vfp)`: Arm hard-float
/// targets, whose FPUs all have it). IEEE 754 requires the instruction to round correctly, so it
/// gives the software version's bits (below) at about 15 cycles instead of about 470
/// instructions; it is also what TFLM's `std::sqrt` compiles to on those cores.
#[cfg(tinyaot_vfp)]
#[inline(always)]
pub(crate) fn sqrt_f32(x: f32) -> f32 {
    let r: u32;
    // Through core registers and a fixed `s15`: rustc lets `sreg` operands name only a `vfp2`
    // target feature, which the hard-float targets' `vfp4d16sp`/`fp-armv8d16sp` do not spell;
    // the two `vmov`s cost a cycle each.
    // SAFETY: register-only FPU instructions on s15, declared clobbered; no memory, stack or
    // APSR flags touched (a negative input sets FPSCR's sticky Invalid bit, as TFLM's sqrtf does).
    unsafe {
        core::arch::asm!("vmov s15, {x}", "vsqrt.f32 s15, s15", "vmov {r}, s15",
                         r = lateout(reg) r, x = in(reg) x.to_bits(), out("s15") _,
                         options(pure, nomem, nostack, preserves_flags));
    }
    f32::from_bits(r)
}

/// `sqrtf(x)` in software, for cores without an FPU, correctly rounded (IEEE 754 requires it of
/// the C library's `sqrtf`, which TFLM calls): -0.0, +0.0, +inf and NaN are their own roots, negative numbers give NaN. With
/// `x = m * 2^e`, `m` a 24-bit integer (subnormals normalised) and `e` made even, the root of `m`
/// scaled to [2^46, 2^48) is an exact integer square root in [2^23, 2^24) and a remainder; a root
/// is never halfway between two floats, so it rounds up exactly when the remainder exceeds it.
#[cfg(not(tinyaot_vfp))]
pub(crate) fn sqrt_f32(x: f32) -> f32 {
    if x.is_nan() || x == 0.0 || x == f32::INFINITY {
        return x;
    }
    if x < 0.0 {
        return f32::NAN;
    }
    let bits = x.to_bits();
    let field = (bits >> 23) as i32;
    let (mut m, mut e) = if field == 0 {
        (u64::from(bits & 0x7F_FFFF), -149)
    } else {
        (u64::from(bits & 0x7F_FFFF) | 0x80_0000, field - 150)
    };
    while m < 0x80_0000 {
        m <<= 1;
        e -= 1;
    }
    if e & 1 != 0 {
        m <<= 1;
        e -= 1;
    }
    // m in [2^23, 2^25): scaled by an even power of two into [2^46, 2^48).
    let s = if m >= 1 << 24 { 22 } else { 24 };
    let (mut root, rem) = isqrt_rem(m << s);
    let mut k = (e - s) / 2;
    if rem > root {
        root += 1;
        if root == 1 << 24 {
            root >>= 1;
            k += 1;
        }
    }
    f32::from_bits((((k + 23 + 127) as u32) << 23) | (root as u32 & 0x7F_FFFF))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path agrees with the `f64` one on a sweep of inputs (the exhaustive test checks
    /// every float), and falls back near rounding boundaries.
    #[test]
    fn exp_fast_path_matches() {
        let step = if cfg!(miri) { 7_919 * 1_021 } else { 7_919 };
        for bits in (0..=u32::MAX).step_by(step) {
            let x = f32::from_bits(bits);
            if let Some(y) = exp_f32_fast(x) {
                assert_eq!(y.to_bits(), exp_f32_exact(x).to_bits(), "{x:e}");
            }
        }
        // -0.17179... (log_softmax_float's golden case 2) is within 2^-32 of a rounding boundary.
        assert_eq!(exp_f32_fast(f32::from_bits(0xBE2F_EAF0)), None);
        assert_eq!(exp_f32_fast(1.0), Some(core::f32::consts::E));
    }

    /// As [`exp_fast_path_matches`], for the logarithm.
    #[test]
    fn log_fast_path_matches() {
        let step = if cfg!(miri) { 7_919 * 1_021 } else { 7_919 };
        for bits in (0..=u32::MAX).step_by(step) {
            let x = f32::from_bits(bits);
            if let Some(y) = log_f32_fast(x) {
                assert_eq!(y.to_bits(), log_f32_exact(x).to_bits(), "{x:e}");
            }
        }
        assert_eq!(log_f32_fast(2.0), Some(core::f32::consts::LN_2));
        assert_eq!(log_f32_fast(-1.0), None);
    }

    #[test]
    fn exp_matches_known_values() {
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(1.0), core::f32::consts::E);
        assert_eq!(exp_f32(-1.0), 0.367_879_45);
        assert_eq!(exp_f32(10.0), 22_026.465);
        assert_eq!(exp_f32(-80.0), 1.804_851_4e-35);
        assert_eq!(exp_f32(100.0), f32::INFINITY);
        assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
    }

    /// The first column of [`LOGF_INVC`] as documented, and [`LOGF_LOGC`] its logarithms:
    /// `std`'s `ln` (glibc's `log`, within 0.52 ulp) gives the same doubles.
    #[test]
    fn logf_table_is_derived() {
        extern crate std;
        // Miri gives its float functions a random error of a few ulps: no reference there.
        if cfg!(miri) {
            return;
        }
        assert_eq!(LOGF_INVC[0].to_bits(), 0x3FF6_61EC_79F8_F3BE);
        assert_eq!(LOGF_INVC[15].to_bits(), 0x3FE7_67DC_F553_4862);
        for (invc, logc) in LOGF_INVC.iter().zip(LOGF_LOGC) {
            let want = 0.0 - std::primitive::f64::ln(*invc);
            assert_eq!(want.to_bits(), logc, "log(1 / {invc:e})");
        }
    }

    #[test]
    fn log_matches_known_values() {
        assert_eq!(log_f32(1.0).to_bits(), 0);
        // glibc's logf(e) is 1 - 2^-24, not the correctly rounded 1.
        assert_eq!(log_f32(core::f32::consts::E), 0.999_999_94);
        assert_eq!(log_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(log_f32(f32::INFINITY), f32::INFINITY);
        assert!(log_f32(-1.0).is_nan() && log_f32(f32::NAN).is_nan());
        assert_eq!(log_f32(f32::from_bits(1)), -103.278_93);
    }

    #[test]
    fn tanh_matches_known_values() {
        assert_eq!(tanh_f32(0.0), 0.0);
        assert_eq!(tanh_f32(0.5), 0.462_117_16);
        assert_eq!(tanh_f32(-2.0), -0.964_027_6);
        assert_eq!(tanh_f32(1e-6), 1e-6);
        assert_eq!(tanh_f32(30.0), 1.0);
    }

    /// Inputs where glibc's `tanhf` / `expf` / `expm1f` (what TFLM's float kernels call; newlib's
    /// are the same algorithms) are not the correctly rounded value or depend on its fused
    /// multiply-add, and their results there (read from glibc 2.36): a correctly rounded
    /// implementation fails this; every `f32` was checked against glibc when these were written.
    #[test]
    fn match_the_c_library_bit_for_bit() {
        // (function, input bits, glibc's result bits)
        type Case = (fn(f32) -> f32, u32, u32);
        let cases: [Case; 9] = [
            (tanh_f32, 0x3300_0001, 0x3300_0002),
            (tanh_f32, 0x3F00_0123, 0x3EEC_9C67),
            (tanh_f32, 0xBF9D_70A4, 0xBF57_B348),
            (exp_f32, 0x37FF_7F01, 0x3F80_0100),
            (exp_f32, 0x4202_422F, 0x56FC_9F1C),
            (exp_f32, 0xC27C_65D9, 0x11FA_2993),
            (expm1_f32, 0x3E80_0001, 0x3E91_6BC9),
            (expm1_f32, 0xC0A0_0000, 0xBF7E_466C),
            (expm1_f32, 0x4202_422F, 0x56FC_9F1C),
        ];
        for (f, x, expected) in cases {
            assert_eq!(f(f32::from_bits(x)).to_bits(), expected, "input {x:#010x}");
        }
    }

    /// Sines and cosines over a sweep of every float's magnitude against `std`'s `f64` ones
    /// rounded to `f32` (correctly rounded but for near-ties), and within an ulp of `std`'s `f32`
    /// ones (glibc's `sinf`/`cosf`, what TFLM's build calls, is off by an ulp for about 0.7% of
    /// floats: inside the float rule of 1e-5).
    #[test]
    fn sin_cos_match_std() {
        extern crate std;
        let step = if cfg!(miri) { 7_919 * 4_099 } else { 7_919 };
        let mut differ = 0u32;
        let mut total = 0u32;
        for bits in (0..0x7F80_0000u32).step_by(step) {
            for x in [f32::from_bits(bits), -f32::from_bits(bits)] {
                let d = f64::from(x);
                for (ours, want, libm) in [
                    (
                        sin_f32(x),
                        std::primitive::f64::sin(d) as f32,
                        std::primitive::f32::sin(x),
                    ),
                    (
                        cos_f32(x),
                        std::primitive::f64::cos(d) as f32,
                        std::primitive::f32::cos(x),
                    ),
                ] {
                    total += 1;
                    differ += u32::from(ours.to_bits() != want.to_bits());
                    // Miri gives its float functions a random error of a few ulps (so that no
                    // program relies on a libm's precision): there `f32::sin` is no reference,
                    // and `f64::sin` rounded to f32 is, within an ulp.
                    let reference = if cfg!(miri) { want } else { libm };
                    let ulps = (i64::from(ours.to_bits()) - i64::from(reference.to_bits())).abs();
                    assert!(ulps <= 1, "{x:e}: {ours:e} vs {reference:e}");
                }
            }
        }
        assert!(differ * 100_000 <= total, "{differ} of {total} differ");
        assert_eq!(sin_f32(0.0).to_bits(), 0);
        assert_eq!(sin_f32(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(cos_f32(0.0), 1.0);
        assert!(sin_f32(f32::INFINITY).is_nan() && cos_f32(f32::NAN).is_nan());
        assert_eq!(sin_f32(1e-30), 1e-30);
    }

    /// Every float whose bits are a multiple of 4093, the powers of two, the subnormals and the
    /// specials against `std`'s correctly rounded square root.
    #[test]
    fn sqrt_is_correctly_rounded() {
        extern crate std;
        let check = |x: f32| {
            let (ours, want) = (sqrt_f32(x), std::primitive::f32::sqrt(x));
            assert!(
                ours.to_bits() == want.to_bits() || (ours.is_nan() && want.is_nan()),
                "sqrt({x:e}) = {ours:e}, want {want:e}"
            );
        };
        // Under Miri (which runs the kernel tests for undefined behaviour, about a thousand times
        // slower) a sparser sweep: the same code paths, fewer samples.
        let (step, edge) = if cfg!(miri) {
            (4093 * 1021, 0x100u32)
        } else {
            (4093, 0x1_0000u32)
        };
        for bits in (0..=u32::MAX).step_by(step) {
            check(f32::from_bits(bits));
        }
        for bits in 0..edge {
            check(f32::from_bits(bits));
            check(f32::from_bits(0x7F7F_FFFF - bits));
        }
        for e in -149..128 {
            check(2f32.powi(e));
        }
        for x in [
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -1.0,
            2.0,
            0.5,
        ] {
            check(x);
        }
    }
}

/// The exhaustive comparison of [`exp_f32`] and [`log_f32`] (with and without their fast paths) with the host C library's `expf` and
/// `logf` on every `f32` (glibc on the x86-64 Linux hosts TFLM's goldens come from), too slow for
/// the default run (about a minute each in release). Run it with
/// `cargo test -p tinyaot-runtime --release --lib float_math::exhaustive -- --ignored`.
#[cfg(all(test, target_os = "linux", not(miri)))]
mod exhaustive {
    extern crate std;
    use std::println;

    extern "C" {
        fn expf(x: f32) -> f32;
        fn logf(x: f32) -> f32;
    }

    /// How many of the 2^32 inputs give other bits than the C library (NaNs of either sign
    /// count as equal), printing the first few.
    fn differences(ours: fn(f32) -> f32, libm: fn(f32) -> f32, name: &str) -> u64 {
        let mut differ = 0u64;
        for bits in 0..=u32::MAX {
            let x = f32::from_bits(bits);
            let (a, b) = (ours(x), libm(x));
            if a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()) {
                if differ < 10 {
                    println!(
                        "{name}({bits:#010x} = {x:e}): {:#010x}, libm {:#010x}",
                        a.to_bits(),
                        b.to_bits()
                    );
                }
                differ += 1;
            }
        }
        println!("{name}: {differ} of 2^32 inputs differ from the C library");
        differ
    }

    #[test]
    #[ignore = "exhaustive: about a minute in release"]
    fn exp_equals_libm_on_every_f32() {
        // SAFETY: expf is a pure C function of one float, defined for every input.
        let libm = |x| unsafe { expf(x) };
        assert_eq!(differences(super::exp_f32_exact, libm, "expf"), 0);
        let fast = |x| super::exp_f32_fast(x).unwrap_or_else(|| super::exp_f32_exact(x));
        assert_eq!(differences(fast, libm, "expf (fast path)"), 0);
        let fallbacks = (0..=u32::MAX)
            .filter(|&b| {
                b & 0x7FFF_FFFF < 0x42AE_0000 && super::exp_f32_fast(f32::from_bits(b)).is_none()
            })
            .count();
        println!("expf: {fallbacks} inputs below 87 in magnitude fall back to f64");
    }

    #[test]
    #[ignore = "exhaustive: about a minute in release"]
    fn log_equals_libm_on_every_f32() {
        // SAFETY: logf is a pure C function of one float, defined for every input.
        let libm = |x| unsafe { logf(x) };
        assert_eq!(differences(super::log_f32_exact, libm, "logf"), 0);
        let fast = |x| super::log_f32_fast(x).unwrap_or_else(|| super::log_f32_exact(x));
        assert_eq!(differences(fast, libm, "logf (fast path)"), 0);
        let fallbacks = (0x0080_0000..0x7F80_0000u32)
            .filter(|&b| super::log_f32_fast(f32::from_bits(b)).is_none())
            .count();
        println!("logf: {fallbacks} positive normal inputs fall back to f64");
    }
}

//! FLOOR_DIV and FLOOR_MOD of float32 ([`floor_div_f32`], [`floor_mod_f32`]), the only type
//! TFLM's `floor_div.cc` and `floor_mod.cc` take: `floor(x / y)` with the quotient and its floor
//! in double, and `fmod` moved to the divisor's sign, as TFLM's `reference_ops`.
//!
//! `core` has no `floor` or `fmod` without `std`: [`floor_f64`] converts through `i64` below
//! 2^52 (above, every double is an integer), and [`fmod_f32`] is the exact remainder by long
//! division of the significands (the remainder of two floats is always a float, so every correct
//! `fmodf` gives the same bits).

use crate::kernels::broadcast::binary;
use crate::Src;

/// Constants of FLOOR_DIV and FLOOR_MOD: the collapsed broadcast.
#[derive(Clone, Copy, Debug)]
pub struct FloorDivModF32<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
}

/// `std::floor` of a double: -0.0, infinities and NaN unchanged, and from 2^52 in magnitude (no
/// fraction left) the value itself; below, the conversion to `i64` truncates toward zero exactly
/// and one step down fixes negative fractions.
#[inline(always)]
pub(crate) fn floor_f64(x: f64) -> f64 {
    if !(x > -4_503_599_627_370_496.0 && x < 4_503_599_627_370_496.0) || x == 0.0 {
        return x;
    }
    let truncated = x as i64 as f64;
    if truncated > x {
        truncated - 1.0
    } else {
        truncated
    }
}

/// `fmodf(x, y)`: `x - trunc(x / y) * y` exactly, with `x`'s sign; NaN (`f32::NAN`) for a zero
/// or NaN `y` and for an infinite or NaN `x`; `x` itself when `|x| < |y|` (an infinite `y` included).
#[inline(always)]
pub(crate) fn fmod_f32(x: f32, y: f32) -> f32 {
    let (ux, uy) = (x.to_bits(), y.to_bits());
    let sign = ux & 0x8000_0000;
    let (ax, ay) = (ux & 0x7fff_ffff, uy & 0x7fff_ffff);
    if ay == 0 || ax >= 0x7f80_0000 || ay > 0x7f80_0000 {
        // The quiet NaN 0x7fc00000 on every target, in C too (libm's may differ in sign or
        // payload: outputs compare NaN as NaN).
        return f32::NAN;
    }
    if ax < ay {
        return x;
    }
    if ax == ay {
        return f32::from_bits(sign);
    }
    // Significands in [2^23, 2^24) (a subnormal's shifted up, its exponent going below 1), so
    // that the remainder stays below 2 * my < 2^25 at every step of the long division.
    let split = |a: u32| {
        let (mut e, mut m) = ((a >> 23) as i32, a & 0x007f_ffff);
        if e == 0 {
            e = 1;
            while m < 0x0080_0000 {
                m <<= 1;
                e -= 1;
            }
        } else {
            m |= 0x0080_0000;
        }
        (e, m)
    };
    let (mut ex, mut mx) = split(ax);
    let (ey, my) = split(ay);
    // One bit of quotient per step.
    while ex > ey {
        if mx >= my {
            mx -= my;
        }
        mx <<= 1;
        ex -= 1;
    }
    if mx >= my {
        mx -= my;
    }
    if mx == 0 {
        return f32::from_bits(sign);
    }
    // Normalise at y's exponent or below; below 1 the result is subnormal (exactly: a remainder
    // is a multiple of the smallest subnormal).
    let mut e = ey;
    while mx < 0x0080_0000 {
        mx <<= 1;
        e -= 1;
    }
    let bits = if e >= 1 {
        ((e as u32) << 23) | (mx & 0x007f_ffff)
    } else {
        mx >> (1 - e)
    };
    f32::from_bits(sign | bits)
}

/// float32 FLOOR_DIV with broadcasting: `(float) floor((double) x / (double) y)`. A zero divisor
/// gives an infinity or NaN (TFLM's Invoke fails on one instead: the lowering refuses a constant
/// one). See the module docs of the family for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn floor_div_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &FloorDivModF32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y: f32| floor_f64(f64::from(x) / f64::from(y)) as f32,
    );
}

/// float32 FLOOR_MOD with broadcasting: `fmodf(x, y)`, plus `y` when non-zero and of the other
/// sign than `y` (a zero divisor gives NaN, as TFLM's). See the module docs of the family for
/// access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn floor_mod_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &FloorDivModF32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y: f32| {
            let r = fmod_f32(x, y);
            if r != 0.0 && ((y < 0.0) != (r < 0.0)) {
                r + y
            } else {
                r
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::{floor_f64, fmod_f32};

    #[test]
    fn floor_f64_matches_std() {
        for x in [
            0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -2.5, 1e300, -1e300, 4.5e15, -4.5e15, 0.999,
        ] {
            assert_eq!(floor_f64(x).to_bits(), x.floor().to_bits(), "{x}");
        }
        assert!(floor_f64(f64::NAN).is_nan());
        assert_eq!(floor_f64(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn fmod_f32_matches_std() {
        let values = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.3,
            -7.5,
            2.0,
            1e-40,
            -3e-39,
            1.5e-45,
            3.4e38,
            -1e30,
            1e-30,
            123.456,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE,
        ];
        for &x in &values {
            for &y in &values {
                let (got, want) = (fmod_f32(x, y), x % y);
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "fmod({x:e}, {y:e}) = {got:e}, want {want:e}"
                );
            }
        }
        let mut s = 0x1234_5678u32;
        // Under Miri, which interprets each instruction (the long division of bits runs up to
        // 277 steps a pair), 1% of the pairs: the corners above cover the paths.
        let pairs = if cfg!(miri) { 2_000 } else { 200_000 };
        for _ in 0..pairs {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let x = f32::from_bits(s);
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let y = f32::from_bits(s);
            let (got, want) = (fmod_f32(x, y), x % y);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "fmod({x:e}, {y:e}) = {got:e}, want {want:e}"
            );
        }
    }
}

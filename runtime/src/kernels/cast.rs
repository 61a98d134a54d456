//! CAST between FLOAT32, INT8, INT16, INT32 and BOOL, element by element, as the TFLM build the
//! goldens come from converts: an integer narrows by wrapping (two's complement, the low bits);
//! an integer becomes the nearest float (ties to even); a float becomes an integer by truncation
//! toward zero, saturating at the type's bounds, NaN giving 0 (TFLM's source writes a
//! `static_cast`, undefined out of range in C++; its build saturates, which is Rust's `as`);
//! anything becomes BOOL as "not zero" (NaN is true, -0.0 false), and BOOL reads as 0 or 1.

use super::nn_common::views;

/// Element type codes of [`Cast::from`] and [`Cast::to`].
const FLOAT32: usize = 0;
const INT8: usize = 1;
const INT16: usize = 2;
const INT32: usize = 3;
const BOOL: usize = 4;

/// Constants of a cast, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct Cast {
    /// The input's element type: 0 FLOAT32, 1 INT8, 2 INT16, 3 INT32, 4 BOOL.
    pub from: usize,
    /// The output's element type, coded as `from`.
    pub to: usize,
    /// Elements of the input (and of the output).
    pub count: usize,
}

/// One element on its way: an integer (every integer input fits an `i32`) or a float.
#[derive(Clone, Copy)]
enum Value {
    Int(i32),
    Float(f32),
}

/// Bytes per element of type code `t`.
const fn size(t: usize) -> usize {
    match t {
        FLOAT32 | INT32 => 4,
        INT16 => 2,
        _ => 1,
    }
}

#[inline(always)]
fn read(t: usize, b: &[u8]) -> Value {
    match t {
        FLOAT32 => Value::Float(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        INT8 => Value::Int(i32::from(b[0] as i8)),
        INT16 => Value::Int(i32::from(i16::from_le_bytes([b[0], b[1]]))),
        INT32 => Value::Int(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        _ => Value::Int(i32::from(b[0] != 0)),
    }
}

/// Constant-length copies (`b[..4]`): `b`'s length is only known at run time, and copying into
/// all of it was a `memcpy` call per element.
#[inline(always)]
fn write(t: usize, v: Value, b: &mut [u8]) {
    match (t, v) {
        (FLOAT32, Value::Int(i)) => b[..4].copy_from_slice(&(i as f32).to_le_bytes()),
        (FLOAT32, Value::Float(f)) => b[..4].copy_from_slice(&f.to_le_bytes()),
        (INT8, Value::Int(i)) => b[0] = i as i8 as u8,
        // Through `i32` (one `vcvt` on a single-precision FPU, which saturates and maps NaN to
        // 0 itself), then clamped (an `ssat`): the bits of `f as i8`, where that cast's own
        // saturation was a compare and select per bound.
        (INT8, Value::Float(f)) => b[0] = (f as i32).clamp(-128, 127) as i8 as u8,
        (INT16, Value::Int(i)) => b[..2].copy_from_slice(&(i as i16).to_le_bytes()),
        (INT16, Value::Float(f)) => {
            let v = (f as i32).clamp(-32768, 32767) as i16;
            b[..2].copy_from_slice(&v.to_le_bytes());
        }
        (INT32, Value::Int(i)) => b[..4].copy_from_slice(&i.to_le_bytes()),
        (INT32, Value::Float(f)) => b[..4].copy_from_slice(&(f as i32).to_le_bytes()),
        (_, Value::Int(i)) => b[0] = u8::from(i != 0),
        (_, Value::Float(f)) => b[0] = u8::from(f != 0.0),
    }
}

/// Casts the `count` elements at `input` into `output`. The output must not overlap the input.
///
/// The pair of types is matched once per call, each pair its own loop with the reads and writes
/// fixed: matched per element, the two switches cost more than the conversion (CAST of 24 elements
/// took 1.5 to 3 times TFLM's reference kernel on the Cortex-M4). A cast to the same type is a copy (but
/// BOOL's, which normalizes).
#[cfg_attr(target_os = "none", inline(never))]
pub fn cast(arena: &mut [u8], input: usize, output: usize, p: &Cast) {
    let p = super::opaque(p);
    let (from, to) = (size(p.from), size(p.to));
    let (src, dst) = views::split(arena, input, p.count * from, output, p.count * to);
    macro_rules! pairs {
        ($($f:literal => $($t:literal)+;)+) => {
            match (p.from, p.to) {
                // BOOL to BOOL reads "not zero" (a byte other than 0 or 1 becomes 1).
                (BOOL, BOOL) => each::<BOOL, BOOL>(src, dst),
                (f, t) if f == t => dst.copy_from_slice(src),
                $($(($f, $t) => each::<$f, $t>(src, dst),)+)+
                _ => {}
            }
        };
    }
    pairs! {
        0 => 1 2 3 4;
        1 => 0 2 3 4;
        2 => 0 1 3 4;
        3 => 0 1 2 4;
        4 => 0 1 2 3;
    }
}

/// [`cast`]'s loop for one pair of type codes, `F` to `T`: after inlining, [`read`] and [`write`]
/// are the one conversion, and the chunks have a constant length (no bounds checks).
#[inline(always)]
fn each<const F: usize, const T: usize>(src: &[u8], dst: &mut [u8]) {
    for (i, o) in src.chunks_exact(size(F)).zip(dst.chunks_exact_mut(size(T))) {
        write(T, read(F, i), o);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(from: usize, to: usize, input: &[u8]) -> [u8; 64] {
        let mut arena = [0u8; 64];
        arena[..input.len()].copy_from_slice(input);
        let count = input.len() / size(from);
        cast(&mut arena, 0, 32, &Cast { from, to, count });
        arena
    }

    #[test]
    fn floats_truncate_and_saturate() {
        let xs = [200.7f32, -200.7, f32::NAN, -0.9];
        let mut bytes = [0u8; 16];
        for (b, x) in bytes.chunks_exact_mut(4).zip(xs) {
            b.copy_from_slice(&x.to_le_bytes());
        }
        assert_eq!(&run(FLOAT32, INT8, &bytes)[32..36], &[127, 128, 0, 0]);
        let out = run(FLOAT32, INT16, &bytes);
        assert_eq!(i16::from_le_bytes([out[32], out[33]]), 200);
        assert_eq!(i16::from_le_bytes([out[34], out[35]]), -200);
        assert_eq!(&run(FLOAT32, BOOL, &bytes)[32..36], &[1, 1, 1, 1]);
        let zero = (-0.0f32).to_le_bytes();
        assert_eq!(run(FLOAT32, BOOL, &zero)[32], 0);
    }

    #[test]
    fn integers_wrap_and_round_to_float() {
        let xs = [300i32, -300, 16_777_217];
        let mut bytes = [0u8; 12];
        for (b, x) in bytes.chunks_exact_mut(4).zip(xs) {
            b.copy_from_slice(&x.to_le_bytes());
        }
        assert_eq!(&run(INT32, INT8, &bytes)[32..35], &[44, 212, 1]);
        let out = run(INT32, FLOAT32, &bytes);
        let f = |k: usize| f32::from_le_bytes(out[32 + 4 * k..36 + 4 * k].try_into().unwrap());
        assert_eq!([f(0), f(1), f(2)], [300.0, -300.0, 16_777_216.0]);
        assert_eq!(&run(BOOL, INT16, &[1, 0])[32..36], &[1, 0, 0, 0]);
        assert_eq!(&run(INT8, INT32, &[0xff])[32..36], &[0xff; 4]);
    }
}

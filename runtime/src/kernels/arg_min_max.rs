//! ARG_MAX and ARG_MIN (int8 and float32 input, int32 output), as TFLM's
//! `reference_ops::ArgMinMax`: the index of the first largest (smallest) element along one axis.
//!
//! Generation time reduces the input's shape to `[outer, axis_len, inner]` around the axis; the
//! output is `[outer, inner]` int32 indices. A later element replaces the current one only when it
//! is strictly greater (smaller), so ties keep the first index. For float32 that plain comparison
//! is TFLM's too (its micro kernel passes `GreaterFn` / `LessFn`, not the NaN-aware comparator of
//! the reference header): a NaN never replaces anything, and a NaN first element is never
//! replaced, so its row gives 0. The output must not overlap the input.

use super::nn_common::views;

/// Constants of an ARG_MAX or ARG_MIN, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct ArgMinMax {
    /// Product of the input dimensions before the axis.
    pub outer: usize,
    /// The input's extent along the axis (at least 1).
    pub axis_len: usize,
    /// Product of the input dimensions after the axis.
    pub inner: usize,
}

/// ARG_MAX of int8 elements.
#[cfg_attr(target_os = "none", inline(never))]
pub fn arg_max_s8(arena: &mut [u8], input: usize, output: usize, p: &ArgMinMax) {
    let p = super::opaque(p);
    arg_min_max(
        arena,
        input,
        output,
        p,
        1,
        |i| i8::from_le_bytes([i[0]]),
        |a, b| a > b,
    );
}

/// ARG_MIN of int8 elements.
#[cfg_attr(target_os = "none", inline(never))]
pub fn arg_min_s8(arena: &mut [u8], input: usize, output: usize, p: &ArgMinMax) {
    let p = super::opaque(p);
    arg_min_max(
        arena,
        input,
        output,
        p,
        1,
        |i| i8::from_le_bytes([i[0]]),
        |a, b| a < b,
    );
}

/// ARG_MAX of float32 elements.
#[cfg_attr(target_os = "none", inline(never))]
pub fn arg_max_f32(arena: &mut [u8], input: usize, output: usize, p: &ArgMinMax) {
    let p = super::opaque(p);
    arg_min_max(arena, input, output, p, 4, read_f32, |a: f32, b: f32| a > b);
}

/// ARG_MIN of float32 elements.
#[cfg_attr(target_os = "none", inline(never))]
pub fn arg_min_f32(arena: &mut [u8], input: usize, output: usize, p: &ArgMinMax) {
    let p = super::opaque(p);
    arg_min_max(arena, input, output, p, 4, read_f32, |a: f32, b: f32| a < b);
}

fn read_f32(b: &[u8]) -> f32 {
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The loop every variant shares: `replaces(candidate, current)` decides whether a later element
/// takes over; elements are `size` bytes, read by `read`.
#[inline(always)]
fn arg_min_max<T: Copy>(
    arena: &mut [u8],
    input: usize,
    output: usize,
    p: &ArgMinMax,
    size: usize,
    read: impl Fn(&[u8]) -> T,
    replaces: impl Fn(T, T) -> bool,
) {
    let rows = p.outer * p.inner;
    let (src, dst) = views::split(arena, input, rows * p.axis_len * size, output, rows * 4);
    for outer in 0..p.outer {
        for inner in 0..p.inner {
            let at = |i: usize| {
                let e = (outer * p.axis_len + i) * p.inner + inner;
                read(&src[e * size..e * size + size])
            };
            let mut best = at(0);
            let mut index = 0i32;
            for i in 1..p.axis_len {
                let v = at(i);
                if replaces(v, best) {
                    best = v;
                    index = i as i32;
                }
            }
            let o = 4 * (outer * p.inner + inner);
            dst[o..o + 4].copy_from_slice(&index.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first `n` (at most 4) int32 values at `at`, the rest 0.
    fn indices(arena: &[u8], at: usize, n: usize) -> [i32; 4] {
        let mut out = [0i32; 4];
        for (k, v) in out.iter_mut().enumerate().take(n) {
            let b = &arena[at + 4 * k..at + 4 * k + 4];
            *v = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        out
    }

    #[test]
    fn int8_along_the_middle_axis_keeps_the_first_of_ties() {
        // Input [2, 3, 2]: rows (outer, inner) over the axis of 3.
        // outer 0: inner 0 -> [1, 5, 5] (max at 1, min at 0), inner 1 -> [-3, -3, -4] (max 0, min 2)
        // outer 1: inner 0 -> [7, 7, 7] (both 0), inner 1 -> [-128, 127, 0] (max 1, min 0)
        let input: [i8; 12] = [1, -3, 5, -3, 5, -4, 7, -128, 7, 127, 7, 0];
        let mut arena = [0u8; 32];
        for (b, v) in arena.iter_mut().zip(input) {
            *b = v as u8;
        }
        let p = ArgMinMax {
            outer: 2,
            axis_len: 3,
            inner: 2,
        };
        arg_max_s8(&mut arena, 0, 16, &p);
        assert_eq!(indices(&arena, 16, 4), [1, 0, 0, 1]);
        arg_min_s8(&mut arena, 0, 16, &p);
        assert_eq!(indices(&arena, 16, 4), [0, 2, 0, 0]);
    }

    #[test]
    fn float_nan_never_replaces_and_is_never_replaced() {
        // As TFLM computes it (checked against tflite-micro's interpreter): a NaN first element
        // keeps index 0; a NaN later on is skipped.
        let p = ArgMinMax {
            outer: 1,
            axis_len: 4,
            inner: 1,
        };
        let run = |input: [f32; 4], f: fn(&mut [u8], usize, usize, &ArgMinMax)| {
            let mut arena = [0u8; 32];
            for (k, v) in input.iter().enumerate() {
                arena[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
            }
            f(&mut arena, 0, 16, &p);
            indices(&arena, 16, 1)[0]
        };
        assert_eq!(run([f32::NAN, 2.0, -1.0, 3.0], arg_max_f32), 0);
        assert_eq!(run([f32::NAN, 2.0, -1.0, 3.0], arg_min_f32), 0);
        assert_eq!(run([1.0, f32::NAN, 3.0, -2.0], arg_max_f32), 2);
        assert_eq!(run([1.0, f32::NAN, 3.0, -2.0], arg_min_f32), 3);
    }
}

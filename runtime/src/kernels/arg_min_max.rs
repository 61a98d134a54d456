//! ARG_MAX and ARG_MIN (int8 and float32 input, int32 output), as TFLM's
//! `reference_ops::ArgMinMax`: the index of the first largest (smallest) element along one axis.
//!
//! Generation time reduces the input's shape to `[outer, axis_len, inner]` around the axis; the
//! output is `[outer, inner]` int32 indices. A later element replaces the current one only when it
//! is strictly greater (smaller), so ties keep the first index. For float32 that plain comparison
//! is TFLM's too (its micro kernel passes `GreaterFn` / `LessFn`, not the NaN-aware comparator of
//! the reference header): a NaN never replaces anything, and a NaN first element is never
//! replaced, so its row gives 0. The output must not overlap the input.

use super::elem::load;
use super::nn_common::views;
use crate::kernels::Within;
use crate::Src;

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
    arg_rows(src, dst, p, size, read, replaces);
}

/// The rows of [`arg_min_max`] from `src` into `dst` (at least `outer * inner` indices).
#[inline(always)]
fn arg_rows<T: Copy>(
    src: &[u8],
    dst: &mut [u8],
    p: &ArgMinMax,
    size: usize,
    read: impl Fn(&[u8]) -> T,
    replaces: impl Fn(T, T) -> bool,
) {
    for outer in 0..p.outer {
        for inner in 0..p.inner {
            let at = |i: usize| {
                let e = (outer * p.axis_len + i) * p.inner + inner;
                read(src.at(e * size..e * size + size))
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

/// Constants of an ARG_MAX or ARG_MIN whose axis is computed at run time: TFLM's kernel has no
/// `Prepare`, and its Eval reads element 0 of the axis tensor per call.
#[derive(Clone, Copy, Debug)]
pub struct ArgMinMaxDyn<'a> {
    /// Input shape (not empty, no zero dimension).
    pub shape: &'a [usize],
    /// Elements of the (static) output.
    pub output_len: usize,
    /// FLOAT32 input; otherwise INT8.
    pub float_input: bool,
    /// ARG_MAX; otherwise ARG_MIN.
    pub max: bool,
}

/// ARG_MAX or ARG_MIN along the axis element 0 of the INT32 tensor `axis` names (plus the rank if
/// negative), as reference `ArgMinMax` computes it whatever the output's shape: `outer * inner`
/// indices from the input's shape around that axis. Where TFLM is undefined the output is zeros:
/// an axis out of range (`Dims(axis)` out of bounds, checked only by `TFLITE_DCHECK`), or one
/// whose `outer * inner` exceeds the output (written past its end). Where it is fewer than the
/// output holds (the axis longer than the one the output was shaped for), TFLM leaves the rest
/// unwritten, nothing a model can rely on: zeros here. The input may be a constant (read where
/// it is); the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn arg_min_max_dyn(arena: &mut [u8], input: Src, axis: Src, output: usize, p: &ArgMinMaxDyn) {
    let p = super::opaque(p);
    let rank = p.shape.len();
    let mut a = [0i32];
    load(arena, axis, 0, &mut a);
    let a = super::run_time_axis(a[0], rank);
    let size = if p.float_input { 4 } else { 1 };
    let total: usize = crate::kernels::elements(p.shape);
    let (src, dst) = views::split_src(arena, input, total * size, output, p.output_len * 4);
    let dims = a.map(|a| ArgMinMax {
        outer: crate::kernels::elements(p.shape.at(..a)),
        axis_len: p.shape[a],
        inner: crate::kernels::elements(p.shape.at(a + 1..)),
    });
    let Some(q) = dims.filter(|q| q.axis_len > 0 && q.outer * q.inner <= p.output_len) else {
        dst.fill(0);
        return;
    };
    let (head, rest) = dst.cut_mut(q.outer * q.inner * 4);
    rest.fill(0);
    match (p.float_input, p.max) {
        (false, true) => arg_rows(src, head, &q, 1, |i| i[0] as i8, |a, b| a > b),
        (false, false) => arg_rows(src, head, &q, 1, |i| i[0] as i8, |a, b| a < b),
        (true, true) => arg_rows(src, head, &q, 4, read_f32, |a: f32, b: f32| a > b),
        (true, false) => arg_rows(src, head, &q, 4, read_f32, |a: f32, b: f32| a < b),
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

    /// The run-time axis: as the constant kernels where it is the output's; zeros past what
    /// TFLM writes for a longer axis; all zeros where TFLM is undefined (out of range, more
    /// indices than the output holds); the input constant or in the arena.
    #[test]
    fn arg_min_max_dyn_like_tflm() {
        extern crate std;
        // Input [2, 3, 2] int8 (as the test above), output of 4 indices (shaped for axis 1).
        let input: [i8; 12] = [1, -3, 5, -3, 5, -4, 7, -128, 7, 127, 7, 0];
        let bytes: [u8; 12] = input.map(|v| v as u8);
        let run = |axis: i32, max: bool| -> [i32; 4] {
            let p = ArgMinMaxDyn {
                shape: &[2, 3, 2],
                output_len: 4,
                float_input: false,
                max,
            };
            let mut arena = [0x5au8; 12 + 4 + 16];
            arena[..12].copy_from_slice(&bytes);
            arena[12..16].copy_from_slice(&axis.to_le_bytes());
            arg_min_max_dyn(&mut arena, Src::Arena(0), Src::Arena(12), 16, &p);
            let from_arena = indices(&arena, 16, 4);
            let mut flash = [0x5au8; 16];
            let a = axis.to_le_bytes();
            arg_min_max_dyn(&mut flash, Src::Bytes(&bytes), Src::Bytes(&a), 0, &p);
            assert_eq!(indices(&flash, 0, 4), from_arena);
            from_arena
        };
        // Axis 1 (and -2): rows as the constant kernels' test.
        assert_eq!(run(1, true), [1, 0, 0, 1]);
        assert_eq!(run(-2, false), [0, 2, 0, 0]);
        // Axis 0: 6 indices for an output of 4: written past its end in TFLM, zeros here.
        assert_eq!(run(0, true), [0; 4]);
        assert_eq!(run(-3, true), [0; 4]);
        // Out of range.
        for axis in [3, -4, i32::MIN, i32::MAX] {
            assert_eq!(run(axis, true), [0; 4]);
            assert_eq!(run(axis, false), [0; 4]);
        }
        // Float input [1, 2], output of 3 indices: axis 1 writes one (the rest zeros, TFLM's
        // leftovers), axis 0 two.
        let p = ArgMinMaxDyn {
            shape: &[1, 2],
            output_len: 3,
            float_input: true,
            max: true,
        };
        let x: std::vec::Vec<u8> = [-1.0f32, 2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        for (axis, want) in [(1i32, [1, 0, 0, 0]), (-2, [0, 0, 0, 0])] {
            let mut arena = [0x5au8; 12];
            arg_min_max_dyn(
                &mut arena,
                Src::Bytes(&x),
                Src::Bytes(&axis.to_le_bytes()),
                0,
                &p,
            );
            assert_eq!(indices(&arena, 0, 3), want, "axis {axis}");
        }
        let p = ArgMinMaxDyn { max: false, ..p };
        let mut arena = [0x5au8; 12];
        arg_min_max_dyn(&mut arena, Src::Bytes(&x), Src::Bytes(&[255; 4]), 0, &p);
        assert_eq!(indices(&arena, 0, 3), [0, 0, 0, 0]);
    }
}

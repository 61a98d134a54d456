//! CUMSUM (float32 and int8), as TFLM's `reference_ops::CumSum`: the running sum along one axis,
//! inclusive or exclusive (each output the sum of the elements before it), forwards or reversed
//! (from the axis's last element).
//!
//! Generation time reduces the input's shape to `[outer, axis_len, inner]` around the axis; each
//! of the `outer × inner` lines along the axis is summed on its own, so only the walk along the
//! axis follows `reverse` (TFLM also walks the lines in reverse, which changes no result). float32
//! sums from `0.0` in walk order. int8 is TFLM's quantized `CumSum`: each element offset, shifted
//! left by 20 and halved (the input multiplier), summed in int32 from the input offset rescaled
//! the same way (TFLM's accumulator starts there, not at 0, so an exclusive sum's first output is
//! that start rescaled), then each running sum rescaled to the output and clamped to int8. The
//! output must not overlap the input.

use super::elem::load;
use super::nn_common::views;
use crate::kernels::Within;
use crate::math::multiply_by_quantized_multiplier_smaller_than_one_exp as mbqm_small;
use crate::Src;

/// Constants of a float32 CUMSUM, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct CumsumF32 {
    /// Product of the input dimensions before the axis.
    pub outer: usize,
    /// The input's extent along the axis.
    pub axis_len: usize,
    /// Product of the input dimensions after the axis.
    pub inner: usize,
    /// Each output is the sum of the elements before it in the walk (CumsumOptions.exclusive).
    pub exclusive: bool,
    /// The walk starts at the axis's last element (CumsumOptions.reverse).
    pub reverse: bool,
}

/// Constants of an int8 CUMSUM (TFLM's `OpData` of cumsum.cc), computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct CumsumS8 {
    /// Product of the input dimensions before the axis.
    pub outer: usize,
    /// The input's extent along the axis.
    pub axis_len: usize,
    /// Product of the input dimensions after the axis.
    pub inner: usize,
    /// Each output is the sum of the elements before it in the walk (CumsumOptions.exclusive).
    pub exclusive: bool,
    /// The walk starts at the axis's last element (CumsumOptions.reverse).
    pub reverse: bool,
    /// Minus the input's zero point.
    pub input_offset: i32,
    /// `QuantizeMultiplierSmallerThanOneExp(1 / 2)`.
    pub input_multiplier: i32,
    /// Its shift (at most 0).
    pub input_shift: i32,
    /// `QuantizeMultiplierSmallerThanOneExp(2 input scale / (2^20 output scale))`.
    pub output_multiplier: i32,
    /// Its shift (at most 0).
    pub output_shift: i32,
    /// The output's zero point.
    pub output_offset: i32,
}

/// float32 CUMSUM; see the module docs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn cumsum_f32(arena: &mut [u8], input: usize, output: usize, p: &CumsumF32) {
    let p = super::opaque(p);
    let len = 4 * p.outer * p.axis_len * p.inner;
    let (src, dst) = views::split(arena, input, len, output, len);
    cumsum_f32_into(src, dst, p);
}

/// [`cumsum_f32`] from `src` into `dst`.
#[inline(always)]
fn cumsum_f32_into(src: &[u8], dst: &mut [u8], p: &CumsumF32) {
    for (first, step) in lines(p.outer, p.axis_len, p.inner, p.reverse) {
        let mut acc = 0.0f32;
        let mut e = first;
        for _ in 0..p.axis_len {
            let b = src.at(4 * e..4 * e + 4);
            let x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            let out = if p.exclusive {
                let before = acc;
                acc += x;
                before
            } else {
                acc += x;
                acc
            };
            dst[4 * e..4 * e + 4].copy_from_slice(&out.to_le_bytes());
            e = e.wrapping_add(step);
        }
    }
}

/// int8 CUMSUM, as TFLM's quantized `CumSum`; see the module docs. The lowering refuses
/// parameters under which the int32 running sum can overflow, so the wrapping adds never wrap.
#[cfg_attr(target_os = "none", inline(never))]
pub fn cumsum_s8(arena: &mut [u8], input: usize, output: usize, p: &CumsumS8) {
    let p = super::opaque(p);
    let len = p.outer * p.axis_len * p.inner;
    let (src, dst) = views::split(arena, input, len, output, len);
    cumsum_s8_into(src, dst, p);
}

/// [`cumsum_s8`] from `src` into `dst`.
#[inline(always)]
fn cumsum_s8_into(src: &[u8], dst: &mut [u8], p: &CumsumS8) {
    let scaled = |y: i32| mbqm_small(y.wrapping_mul(1 << 20), p.input_multiplier, p.input_shift);
    let start = scaled(p.input_offset);
    let emit = |sum: i32| {
        let out = mbqm_small(sum, p.output_multiplier, p.output_shift) + p.output_offset;
        out.clamp(-128, 127) as i8 as u8
    };
    for (first, step) in lines(p.outer, p.axis_len, p.inner, p.reverse) {
        let mut acc = start;
        let mut e = first;
        for _ in 0..p.axis_len {
            let y = scaled(p.input_offset + i32::from(src[e] as i8));
            let sum = if p.exclusive {
                let before = acc;
                acc = acc.wrapping_add(y);
                before
            } else {
                acc = acc.wrapping_add(y);
                acc
            };
            dst[e] = emit(sum);
            e = e.wrapping_add(step);
        }
    }
}

/// Constants of a CUMSUM whose axis is computed at run time: TFLM's Prepare reads only the axis
/// tensor's type and element count, its Eval reads the axis per call.
#[derive(Clone, Copy, Debug)]
pub struct CumsumDyn<'a> {
    /// Input (and output) shape, rank 1 or more.
    pub shape: &'a [usize],
    /// FLOAT32; otherwise INT8.
    pub float_input: bool,
    /// Each output is the sum of the elements before it in the walk (CumsumOptions.exclusive).
    pub exclusive: bool,
    /// The walk starts at the axis's last element (CumsumOptions.reverse).
    pub reverse: bool,
    /// int8: minus the input's zero point.
    pub input_offset: i32,
    /// int8: `QuantizeMultiplierSmallerThanOneExp(1 / 2)`.
    pub input_multiplier: i32,
    /// int8: its shift (at most 0).
    pub input_shift: i32,
    /// int8: `QuantizeMultiplierSmallerThanOneExp(2 input scale / (2^20 output scale))`.
    pub output_multiplier: i32,
    /// int8: its shift (at most 0).
    pub output_shift: i32,
    /// int8: the output's zero point.
    pub output_offset: i32,
    /// int8: the longest axis along which TFLM's int32 running sum cannot overflow, at most the
    /// longest dimension (computed by the lowering from the parameters; unused for float32).
    pub max_axis_len: usize,
}

/// CUMSUM along the axis the one-element INT32 tensor `axis` holds (plus the rank if negative),
/// read per call as TFLM's Eval reads it; then as [`cumsum_f32`] or [`cumsum_s8`]. Where TFLM
/// fails (an axis out of range: "CUMSUM Invalid axis", the output unwritten) or is undefined (an
/// int8 axis long enough for the running sum to overflow int32) the output is zeros. The input
/// may be a constant (read where it is); the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn cumsum_dyn(arena: &mut [u8], input: Src, axis: Src, output: usize, p: &CumsumDyn) {
    let p = super::opaque(p);
    let rank = p.shape.len();
    let mut a = [0i32];
    load(arena, axis, 0, &mut a);
    let a = super::run_time_axis(a[0], rank);
    let size = if p.float_input { 4 } else { 1 };
    let len = p.shape.iter().product::<usize>() * size;
    let (src, dst) = views::split_src(arena, input, len, output, len);
    let Some(a) = a else {
        dst.fill(0);
        return;
    };
    let (outer, axis_len, inner) = (
        crate::kernels::elements(p.shape.at(..a)),
        p.shape[a],
        crate::kernels::elements(p.shape.at(a + 1..)),
    );
    if p.float_input {
        let q = CumsumF32 {
            outer,
            axis_len,
            inner,
            exclusive: p.exclusive,
            reverse: p.reverse,
        };
        cumsum_f32_into(src, dst, &q);
    } else if axis_len > p.max_axis_len {
        dst.fill(0);
    } else {
        let q = CumsumS8 {
            outer,
            axis_len,
            inner,
            exclusive: p.exclusive,
            reverse: p.reverse,
            input_offset: p.input_offset,
            input_multiplier: p.input_multiplier,
            input_shift: p.input_shift,
            output_multiplier: p.output_multiplier,
            output_shift: p.output_shift,
            output_offset: p.output_offset,
        };
        cumsum_s8_into(src, dst, &q);
    }
}

/// The lines along the axis of an `[outer, axis_len, inner]` tensor, each as the element index
/// its walk starts at and the (wrapping) step to the next: from the axis's last element, stepping
/// back, if `reverse`. After a line's last element the index is stepped once more and not used.
#[inline(always)]
fn lines(
    outer: usize,
    axis_len: usize,
    inner: usize,
    reverse: bool,
) -> impl Iterator<Item = (usize, usize)> {
    let last = axis_len.saturating_sub(1) * inner;
    (0..outer).flat_map(move |o| {
        (0..inner).map(move |i| {
            let base = o * axis_len * inner + i;
            if reverse {
                (base + last, inner.wrapping_neg())
            } else {
                (base, inner)
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(arena: &[u8], at: usize, n: usize) -> [f32; 6] {
        let mut out = [0.0f32; 6];
        for (k, v) in out.iter_mut().enumerate().take(n) {
            let b = &arena[at + 4 * k..at + 4 * k + 4];
            *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        out
    }

    #[test]
    fn float_exclusive_reverse_along_the_first_axis() {
        // Input [3, 2]: lines (column 0) [1, 2, 3] and (column 1) [10, 20, 30].
        let input = [1.0f32, 10.0, 2.0, 20.0, 3.0, 30.0];
        let mut arena = [0u8; 48];
        for (k, v) in input.iter().enumerate() {
            arena[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
        }
        let mut p = CumsumF32 {
            outer: 1,
            axis_len: 3,
            inner: 2,
            exclusive: false,
            reverse: false,
        };
        cumsum_f32(&mut arena, 0, 24, &p);
        assert_eq!(floats(&arena, 24, 6), [1.0, 10.0, 3.0, 30.0, 6.0, 60.0]);
        p.exclusive = true;
        p.reverse = true;
        cumsum_f32(&mut arena, 0, 24, &p);
        assert_eq!(floats(&arena, 24, 6), [5.0, 50.0, 3.0, 30.0, 0.0, 0.0]);
    }

    #[test]
    fn int8_exclusive_starts_from_the_rescaled_input_offset() {
        // Scales 1 in and out, zero points 3 in and 0 out: the running sum counts the offset once
        // more than the elements (TFLM's accumulator starts at the offset), so an exclusive first
        // output is -3 and an inclusive one x - 6.
        let p = CumsumS8 {
            outer: 1,
            axis_len: 3,
            inner: 1,
            exclusive: true,
            reverse: false,
            input_offset: -3,
            input_multiplier: 1 << 30,
            input_shift: 0,
            output_multiplier: 1 << 30,
            output_shift: -18,
            output_offset: 0,
        };
        let mut arena = [5u8, 7, 4, 0, 0, 0];
        cumsum_s8(&mut arena, 0, 3, &p);
        assert_eq!(&arena[3..], &[(-3i8) as u8, (-1i8) as u8, 3]);
        let p = CumsumS8 {
            exclusive: false,
            ..p
        };
        cumsum_s8(&mut arena, 0, 3, &p);
        assert_eq!(&arena[3..], &[(-1i8) as u8, 3, 4]);
    }

    /// The run-time axis: as the constant-axis kernels; zeros where TFLM fails (out of range)
    /// or is undefined (an int8 axis longer than `max_axis_len`).
    #[test]
    fn cumsum_dyn_like_tflm() {
        extern crate std;
        // Input [3, 2] as the float test above.
        let x: std::vec::Vec<u8> = [1.0f32, 10.0, 2.0, 20.0, 3.0, 30.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let p = CumsumDyn {
            shape: &[3, 2],
            float_input: true,
            exclusive: false,
            reverse: false,
            input_offset: 0,
            input_multiplier: 0,
            input_shift: 0,
            output_multiplier: 0,
            output_shift: 0,
            output_offset: 0,
            max_axis_len: 0,
        };
        let run = |axis: i32, p: &CumsumDyn| -> [f32; 6] {
            let mut arena = [0x5au8; 24 + 4 + 24];
            arena[..24].copy_from_slice(&x);
            arena[24..28].copy_from_slice(&axis.to_le_bytes());
            cumsum_dyn(&mut arena, Src::Arena(0), Src::Arena(24), 28, p);
            let mut flash = [0xa5u8; 24];
            cumsum_dyn(
                &mut flash,
                Src::Bytes(&x),
                Src::Bytes(&axis.to_le_bytes()),
                0,
                p,
            );
            assert_eq!(&arena[28..], &flash[..]);
            floats(&flash, 0, 6)
        };
        assert_eq!(run(0, &p), [1.0, 10.0, 3.0, 30.0, 6.0, 60.0]);
        assert_eq!(run(-2, &p), [1.0, 10.0, 3.0, 30.0, 6.0, 60.0]);
        assert_eq!(run(1, &p), [1.0, 11.0, 2.0, 22.0, 3.0, 33.0]);
        let er = CumsumDyn {
            exclusive: true,
            reverse: true,
            ..p
        };
        assert_eq!(run(-1, &er), [10.0, 0.0, 20.0, 0.0, 30.0, 0.0]);
        for axis in [2, -3, i32::MIN, i32::MAX] {
            assert_eq!(run(axis, &p), [0.0; 6], "axis {axis}");
        }
        // int8 (the parameters of the int8 test above): axis 1 of [1, 3] as there; a
        // max_axis_len of 2 makes it zeros, as does an axis out of range.
        let q = CumsumDyn {
            shape: &[1, 3],
            float_input: false,
            exclusive: true,
            input_offset: -3,
            input_multiplier: 1 << 30,
            output_multiplier: 1 << 30,
            output_shift: -18,
            max_axis_len: 3,
            ..p
        };
        let input = [5u8, 7, 4];
        let mut out = [0u8; 3];
        cumsum_dyn(
            &mut out,
            Src::Bytes(&input),
            Src::Bytes(&1i32.to_le_bytes()),
            0,
            &q,
        );
        assert_eq!(out, [(-3i8) as u8, (-1i8) as u8, 3]);
        let short = CumsumDyn {
            max_axis_len: 2,
            ..q
        };
        cumsum_dyn(
            &mut out,
            Src::Bytes(&input),
            Src::Bytes(&1i32.to_le_bytes()),
            0,
            &short,
        );
        assert_eq!(out, [0; 3]);
        cumsum_dyn(
            &mut out,
            Src::Bytes(&input),
            Src::Bytes(&(-1i32).to_le_bytes()),
            0,
            &q,
        );
        assert_eq!(out, [(-3i8) as u8, (-1i8) as u8, 3]);
        cumsum_dyn(
            &mut out,
            Src::Bytes(&input),
            Src::Bytes(&2i32.to_le_bytes()),
            0,
            &q,
        );
        assert_eq!(out, [0; 3]);
        // Axis 0 (length 1): each element its own line.
        cumsum_dyn(
            &mut out,
            Src::Bytes(&input),
            Src::Bytes(&0i32.to_le_bytes()),
            0,
            &q,
        );
        assert_eq!(out, [(-3i8) as u8; 3]);
    }
}

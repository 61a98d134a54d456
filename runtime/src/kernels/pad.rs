//! PAD and PADV2 (int8, int16, int32 and float32; TFLM supports up to 5 dimensions; PADV2's
//! constant value constant or computed at run time), and MIRROR_PAD (any element type: elements
//! copied), its paddings constant or computed at run time.

use super::elem::{copy_run, fill, load, next_index};
use super::nn_common::views;
use super::MAX_RANK;
use crate::kernels::Within;
use crate::Src;

/// Constants of int8 PAD / PADV2.
#[derive(Clone, Copy, Debug)]
pub struct PadS8<'a> {
    /// Input shape.
    pub input_shape: &'a [usize],
    /// Elements added before each dimension.
    pub before: &'a [usize],
    /// Elements added after each dimension.
    pub after: &'a [usize],
    /// The value of the added elements (PAD: the output zero point; PADV2: the constant value).
    pub pad_value: i32,
}

/// Constants of int16 PAD / PADV2 (16x8 models).
#[derive(Clone, Copy, Debug)]
pub struct PadS16<'a> {
    /// Input shape.
    pub input_shape: &'a [usize],
    /// Elements added before each dimension.
    pub before: &'a [usize],
    /// Elements added after each dimension.
    pub after: &'a [usize],
    /// The value of the added elements (PAD: 0, as TFLM pads int16; PADV2: the constant value).
    pub pad_value: i32,
}

/// Constants of int32 PAD / PADV2.
#[derive(Clone, Copy, Debug)]
pub struct PadS32<'a> {
    /// Input shape.
    pub input_shape: &'a [usize],
    /// Elements added before each dimension.
    pub before: &'a [usize],
    /// Elements added after each dimension.
    pub after: &'a [usize],
    /// The value of the added elements (PAD: 0, as TFLM pads int32; PADV2: the constant value).
    pub pad_value: i32,
}

/// Constants of float32 PAD / PADV2.
#[derive(Clone, Copy, Debug)]
pub struct PadF32<'a> {
    /// Input shape.
    pub input_shape: &'a [usize],
    /// Elements added before each dimension.
    pub before: &'a [usize],
    /// Elements added after each dimension.
    pub after: &'a [usize],
    /// The value of the added elements (0 for PAD).
    pub pad_value: f32,
}

/// int8 PAD: fills the output with the pad value, then copies the input rows into it. The output
/// must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn pad_s8(arena: &mut [u8], input: usize, output: usize, p: &PadS8) {
    let p = super::opaque(p);
    pad_bytes(
        arena,
        input,
        output,
        p.input_shape,
        p.before,
        p.after,
        &[p.pad_value as i8 as u8],
    );
}

/// int16 PAD: as [`pad_s8`], for two-byte elements. The output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn pad_s16(arena: &mut [u8], input: usize, output: usize, p: &PadS16) {
    let p = super::opaque(p);
    pad_bytes(
        arena,
        input,
        output,
        p.input_shape,
        p.before,
        p.after,
        &(p.pad_value as i16).to_le_bytes(),
    );
}

/// int32 PAD: as [`pad_s8`], for four-byte elements. The output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn pad_s32(arena: &mut [u8], input: usize, output: usize, p: &PadS32) {
    let p = super::opaque(p);
    pad_bytes(
        arena,
        input,
        output,
        p.input_shape,
        p.before,
        p.after,
        &p.pad_value.to_le_bytes(),
    );
}

/// float32 PAD: fills the output with the pad value, then copies the input rows into it. The output
/// must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn pad_f32(arena: &mut [u8], input: usize, output: usize, p: &PadF32) {
    let p = super::opaque(p);
    pad_bytes(
        arena,
        input,
        output,
        p.input_shape,
        p.before,
        p.after,
        &p.pad_value.to_le_bytes(),
    );
}

/// Constants of PADV2 whose constant value (input 2) is computed at run time: TFLM's
/// `PadPrepare` checks only its type and element count (and, for int8, its quantization), and
/// `PadEval` reads its one element per call, so the value is read from the tensor per call.
#[derive(Clone, Copy, Debug)]
pub struct PadDyn<'a> {
    /// Bytes per element (1, 2 or 4).
    pub elem_bytes: usize,
    /// Input shape.
    pub input_shape: &'a [usize],
    /// Elements added before each dimension.
    pub before: &'a [usize],
    /// Elements added after each dimension.
    pub after: &'a [usize],
}

/// PADV2 with a constant value computed at run time: as [`pad_s8`] and its siblings, the pad
/// value being the first element of `value` (its bytes copied, as TFLM's `PadEval` assigns
/// `*GetTensorData<T>(constant_values)`, so a float NaN keeps its payload). The input may be a
/// constant (read where it is). The output must not overlap the input; the value is read before
/// anything is written.
#[cfg_attr(target_os = "none", inline(never))]
pub fn pad_dyn(arena: &mut [u8], input: Src, value: Src, output: usize, p: &PadDyn) {
    let p = super::opaque(p);
    let elem = p.elem_bytes;
    assert!((1..=4).contains(&elem));
    let mut v = [0u8; 4];
    load(arena, value, 0, v.at_mut(..elem));
    match input {
        Src::Arena(offset) => pad_bytes(
            arena,
            offset,
            output,
            p.input_shape,
            p.before,
            p.after,
            v.at(..elem),
        ),
        Src::Bytes(bytes) => {
            let in_len = p.input_shape.iter().product::<usize>() * elem;
            let out_len = padded_elems(p.input_shape, p.before, p.after) * elem;
            pad_rows(
                bytes.at(..in_len),
                arena.at_mut(output..output + out_len),
                p.input_shape,
                p.before,
                p.after,
                v.at(..elem),
            );
        }
    }
}

/// The element count of `shape` padded by `before` and `after`.
fn padded_elems(shape: &[usize], before: &[usize], after: &[usize]) -> usize {
    shape
        .iter()
        .zip(before.iter().zip(after))
        .map(|(s, (b, a))| b + s + a)
        .product()
}

/// Constants of MIRROR_PAD: each output dimension's index reads, along that dimension, the input
/// index TFLM's `GetInputDimension` gives (computed at generation time), so an output element
/// reads the input element at the sum of its dimensions' offsets.
#[derive(Clone, Copy, Debug)]
pub struct MirrorPad<'a> {
    /// Bytes per element.
    pub elem_bytes: usize,
    /// Input size in bytes.
    pub input_bytes: usize,
    /// Output shape.
    pub shape: &'a [usize],
    /// Per output dimension in turn (`shape[0]` entries, then `shape[1]`, …), for each of its
    /// indices the input element offset it reads along that dimension (input index × input
    /// element stride).
    pub offsets: &'a [usize],
}

/// MIRROR_PAD: the output in C order, each element copied from the input element its indices
/// name through the offset tables. The output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mirror_pad(arena: &mut [u8], input: usize, output: usize, p: &MirrorPad) {
    let p = super::opaque(p);
    let rank = p.shape.len();
    assert!(rank <= MAX_RANK && p.elem_bytes > 0);
    let elem = p.elem_bytes;
    let total: usize = crate::kernels::elements(p.shape);
    let (src, dst) = views::split(arena, input, p.input_bytes, output, total * elem);
    if total == 0 {
        return;
    }
    if rank == 0 {
        dst.copy_from_slice(src.at(..elem));
        return;
    }
    let mut starts = [0usize; MAX_RANK];
    let mut sum = 0;
    for (start, &extent) in starts.iter_mut().zip(p.shape) {
        *start = sum;
        sum += extent;
    }
    ensure!(p.offsets.len() == sum, "one offset per output index");
    let last = rank - 1;
    let inner = p.offsets.at(starts[last]..);
    let mut index = [0usize; MAX_RANK];
    for row in dst.chunks_exact_mut(p.shape[last] * elem) {
        let base: usize = (0..last).map(|d| p.offsets[starts[d] + index[d]]).sum();
        for (out, &offset) in row.chunks_exact_mut(elem).zip(inner) {
            let at = (base + offset) * elem;
            out.copy_from_slice(src.at(at..at + elem));
        }
        next_index(index.at_mut(..last), p.shape.at(..last));
    }
}

/// Constants of MIRROR_PAD whose paddings are computed at run time: TFLM's `MirrorPadPrepare`
/// reads only their shape, and `MirrorPadEval` maps every output index through their values as it
/// finds them, so the mapping of [`MirrorPad`] is computed per call from the paddings tensor.
#[derive(Clone, Copy, Debug)]
pub struct MirrorPadDyn<'a> {
    /// Bytes per element.
    pub elem_bytes: usize,
    /// Input shape (as many dimensions as the output's).
    pub input_shape: &'a [usize],
    /// Output shape: the model's, whatever the paddings' values (TFLM sizes nothing from them).
    pub output_shape: &'a [usize],
    /// REFLECT (the edge is not repeated: TFLM's `offset` 1); otherwise SYMMETRIC, which TFLM
    /// also takes for a model without a mode.
    pub reflect: bool,
    /// The paddings are INT64; otherwise INT32.
    pub paddings_i64: bool,
}

/// MIRROR_PAD with paddings computed at run time (INT32 or INT64, `[rank, n]`, `n` at least 2):
/// the output in C order, each element copied from the input element TFLM's `GetFlatIndex` names,
/// dimension by dimension `mirror_index` of the output index and the dimension's left padding
/// (element `2d` of the paddings whatever `n`, as TFLM's `GetPadding` reads it; the right one is
/// never used, and the output's shape is the model's whatever the values).
///
/// Where TFLM's index falls outside the input (a left padding wider than the input, than its size
/// less one for REFLECT) its `input_data[...]` read is out of bounds, undefined: any output is
/// TFLM's there, and this kernel writes zero bytes for such an element (as GATHER writes a row
/// of zeros for a stray position), never reading outside the input. The output must not overlap
/// the input or the paddings.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mirror_pad_dyn(
    arena: &mut [u8],
    input: Src,
    paddings: Src,
    output: usize,
    p: &MirrorPadDyn,
) {
    let p = super::opaque(p);
    let rank = p.output_shape.len();
    assert!(rank <= MAX_RANK && p.input_shape.len() == rank && p.elem_bytes > 0);
    let elem = p.elem_bytes;
    // TFLM's GetPadding reads row d as elements 2d and 2d + 1 and widens them to int64; its
    // GetInputDimension takes the left one as an int, the low 32 bits of an INT64 value (the
    // conversion GCC and Clang define), and its right one not at all.
    let mut left = [0i64; MAX_RANK];
    for (d, l) in left[..rank].iter_mut().enumerate() {
        *l = if p.paddings_i64 {
            let mut v = [0i64];
            load(arena, paddings, 2 * d, &mut v);
            i64::from(v[0] as i32)
        } else {
            let mut v = [0i32];
            load(arena, paddings, 2 * d, &mut v);
            i64::from(v[0])
        };
    }
    let mut strides = [0usize; MAX_RANK];
    let mut in_elems = 1;
    for d in (0..rank).rev() {
        strides[d] = in_elems;
        in_elems *= p.input_shape[d];
    }
    let total: usize = crate::kernels::elements(p.output_shape);
    let (src, dst) = views::split_src(arena, input, in_elems * elem, output, total * elem);
    if total == 0 {
        return;
    }
    if rank == 0 {
        dst.copy_from_slice(src);
        return;
    }
    let offset = i64::from(p.reflect);
    let last = rank - 1;
    let mut index = [0usize; MAX_RANK];
    for row in dst.chunks_exact_mut(p.output_shape[last] * elem) {
        // The input element the row's outer indices name, `None` once one of them falls outside.
        let mut base = Some(0usize);
        for d in 0..last {
            base = base
                .zip(mirror_index(index[d], left[d], p.input_shape[d], offset))
                .map(|(b, i)| b + i * strides[d]);
        }
        for (k, out) in row.chunks_exact_mut(elem).enumerate() {
            match base.zip(mirror_index(k, left[last], p.input_shape[last], offset)) {
                Some((b, i)) => {
                    let at = (b + i) * elem;
                    out.copy_from_slice(src.at(at..at + elem));
                }
                None => out.fill(0),
            }
        }
        next_index(index.at_mut(..last), p.output_shape.at(..last));
    }
}

/// TFLM's `GetInputDimension` (mirror_pad.cc): the input index output index `padded` reads along
/// a dimension of `size` elements whose left padding is `left`, `offset` 1 for REFLECT and 0
/// otherwise; `None` where that index is outside `0..size` (TFLM reads out of bounds there). In
/// i64, where TFLM's int arithmetic cannot overflow for the int32 paddings it takes (`padded -
/// left` does overflow an int for a left padding near -2^31: undefined in TFLM, an index on the
/// right side's reflection here).
#[inline(always)]
fn mirror_index(padded: usize, left: i64, size: usize, offset: i64) -> Option<usize> {
    let (padded, size) = (padded as i64, size as i64);
    let index = if padded < left {
        let original = left + offset - 1;
        original - padded.min(original - offset)
    } else {
        let padded = padded - left;
        if padded >= size {
            let original = size - (1 + offset);
            original - (padded - size).min(original)
        } else {
            padded
        }
    };
    if (0..size).contains(&index) {
        Some(index as usize)
    } else {
        None
    }
}

/// Pads with the element `value` (its length is the element size).
fn pad_bytes(
    arena: &mut [u8],
    input: usize,
    output: usize,
    shape: &[usize],
    before: &[usize],
    after: &[usize],
    value: &[u8],
) {
    let rank = shape.len();
    assert!(rank <= MAX_RANK && before.len() == rank && after.len() == rank);
    let elem = value.len();
    let in_len = shape.iter().product::<usize>() * elem;
    let out_len = padded_elems(shape, before, after) * elem;
    let (src, dst) = views::split(arena, input, in_len, output, out_len);
    pad_rows(src, dst, shape, before, after, value);
}

/// Pads `src` (of `shape`) into `dst` with the element `value` (its length is the element size).
fn pad_rows(
    src: &[u8],
    dst: &mut [u8],
    shape: &[usize],
    before: &[usize],
    after: &[usize],
    value: &[u8],
) {
    let rank = shape.len();
    assert!(rank <= MAX_RANK && before.len() == rank && after.len() == rank);
    let elem = value.len();
    let mut out_shape = [1usize; MAX_RANK];
    for d in 0..rank {
        out_shape[d] = before[d] + shape[d] + after[d];
    }
    let out_len = dst.len();
    if rank == 0 {
        dst.copy_from_slice(src);
        return;
    }
    if out_len == 0 {
        return;
    }
    // In output order, each byte written once: the padding up to an input row (innermost
    // dimension), then the row, and after the last row the padding to the end. Cheaper than
    // deciding per element, and than filling the whole output first.
    let last = rank - 1;
    let mut out_strides = [0usize; MAX_RANK];
    let mut stride = elem;
    for d in (0..rank).rev() {
        out_strides[d] = stride;
        stride *= out_shape[d];
    }
    let row = shape[last] * elem;
    if row == 0 || src.is_empty() {
        fill(dst, value);
        return;
    }
    let lead: usize = (0..rank).map(|d| before[d] * out_strides[d]).sum();
    let mut index = [0usize; MAX_RANK];
    let mut filled = 0;
    for src_row in src.chunks_exact(row) {
        let at = lead
            + index[..last]
                .iter()
                .zip(out_strides.at(..last))
                .map(|(i, s)| i * s)
                .sum::<usize>();
        fill(dst.at_mut(filled..at), value);
        copy_run(dst.at_mut(at..at + row), src_row);
        filled = at + row;
        next_index(index.at_mut(..last), shape.at(..last));
    }
    fill(dst.at_mut(filled..), value);
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec;
    use std::vec::Vec;

    #[test]
    fn pads_int16_with_two_byte_elements() {
        // [[1, -2]] padded by one column before and two after, with 300: little-endian int16s.
        let mut arena = [0u8; 4 + 10];
        arena[..4].copy_from_slice(&[1, 0, 0xfe, 0xff]);
        let p = PadS16 {
            input_shape: &[1, 2],
            before: &[0, 1],
            after: &[0, 2],
            pad_value: 300,
        };
        pad_s16(&mut arena, 0, 4, &p);
        let v = 300i16.to_le_bytes();
        assert_eq!(
            &arena[4..],
            &[v[0], v[1], 1, 0, 0xfe, 0xff, v[0], v[1], v[0], v[1]]
        );
    }

    #[test]
    fn mirror_pads_reflect_rows() {
        // [[1, 2, 3]] REFLECT by 2 before, 1 after along the columns: 3 2 1 2 3 2.
        let mut arena = [0u8; 3 + 6];
        arena[..3].copy_from_slice(&[1, 2, 3]);
        let p = MirrorPad {
            elem_bytes: 1,
            input_bytes: 3,
            shape: &[1, 6],
            offsets: &[0, 2, 1, 0, 1, 2, 1],
        };
        mirror_pad(&mut arena, 0, 3, &p);
        assert_eq!(&arena[3..], &[3, 2, 1, 2, 3, 2]);
    }

    /// The paddings `[rank, 2]` as the arena holds them: INT32, or INT64 if `wide`.
    fn paddings_bytes(pads: &[i64], wide: bool) -> Vec<u8> {
        pads.iter()
            .flat_map(|&v| {
                if wide {
                    v.to_le_bytes().to_vec()
                } else {
                    (v as i32).to_le_bytes().to_vec()
                }
            })
            .collect()
    }

    /// Runs `mirror_pad_dyn` of the int8 `input` of `in_shape` into `out_shape` with the
    /// paddings `pads` in the arena (input, then paddings, then output), and returns the output.
    fn run_dyn(
        input: &[u8],
        in_shape: &[usize],
        out_shape: &[usize],
        pads: &[i64],
        (reflect, wide): (bool, bool),
    ) -> Vec<u8> {
        let paddings = paddings_bytes(pads, wide);
        let total: usize = out_shape.iter().product();
        let mut arena = vec![0xa5u8; input.len() + paddings.len() + total];
        arena[..input.len()].copy_from_slice(input);
        let at = input.len();
        arena[at..at + paddings.len()].copy_from_slice(&paddings);
        let out = at + paddings.len();
        let p = MirrorPadDyn {
            elem_bytes: 1,
            input_shape: in_shape,
            output_shape: out_shape,
            reflect,
            paddings_i64: wide,
        };
        mirror_pad_dyn(&mut arena, Src::Arena(0), Src::Arena(at), out, &p);
        arena[out..].to_vec()
    }

    #[test]
    fn mirror_pads_with_paddings_at_run_time() {
        // [[1, 2, 3]] REFLECT by 2 before, 1 after along the columns: 3 2 1 2 3 2; the right
        // padding is not read (TFLM's GetInputDimension ignores it), INT32 or INT64 alike.
        for wide in [false, true] {
            for right in [1, -7, 1 << 40] {
                let out = run_dyn(
                    &[1, 2, 3],
                    &[1, 3],
                    &[1, 6],
                    &[0, 0, 2, right],
                    (true, wide),
                );
                assert_eq!(out, [3, 2, 1, 2, 3, 2]);
            }
        }
        // SYMMETRIC by 3 before: the edge repeated, then the right side reflected from its end.
        let out = run_dyn(&[1, 2, 3], &[1, 3], &[1, 7], &[0, 0, 3, 0], (false, false));
        assert_eq!(out, [3, 2, 1, 1, 2, 3, 3]);
        // A negative left padding drops the first columns and reflects the rest at the end.
        let out = run_dyn(&[1, 2, 3], &[1, 3], &[1, 4], &[0, 0, -1, 0], (true, false));
        assert_eq!(out, [2, 3, 2, 1]);
        // Rows and columns: the outer dimension SYMMETRIC by 1, the inner REFLECT-like walk.
        let out = run_dyn(
            &[1, 2, 3, 4],
            &[2, 2],
            &[3, 3],
            &[1, 0, 0, 1],
            (false, false),
        );
        assert_eq!(out, [1, 2, 2, 1, 2, 2, 3, 4, 4]);
    }

    /// Every left padding TFLM reads in bounds, on a 3-D input in both modes and both paddings
    /// types: the output is what the constant kernel makes of the same mapping, tabulated here as
    /// the lowering tabulates it.
    #[test]
    fn mirror_pad_dyn_matches_the_tabulated_kernel() {
        let shape = [2usize, 1, 3];
        let out_shape = [3usize, 2, 5];
        let input: Vec<u8> = (1..=6).collect();
        let lefts: &[i64] = if cfg!(miri) {
            &[-1, 0, 1]
        } else {
            &[-4, -1, 0, 1, 2, 3]
        };
        for (reflect, wide) in [(true, false), (false, false), (true, true), (false, true)] {
            let offset = i64::from(reflect);
            for &a in lefts {
                for &b in lefts {
                    for &c in lefts {
                        let pads = [a, 9, b, -9, c, 0];
                        let mut offsets = Vec::new();
                        let mut inside = true;
                        let mut stride = 1;
                        let mut tables = vec![Vec::new(); 3];
                        for d in (0..3).rev() {
                            for k in 0..out_shape[d] {
                                match mirror_index(k, pads[2 * d], shape[d], offset) {
                                    Some(i) => tables[d].push(i * stride),
                                    None => inside = false,
                                }
                            }
                            stride *= shape[d];
                        }
                        if !inside {
                            continue;
                        }
                        for t in &tables {
                            offsets.extend(t);
                        }
                        let mut arena = vec![0u8; 6 + 30];
                        arena[..6].copy_from_slice(&input);
                        let p = MirrorPad {
                            elem_bytes: 1,
                            input_bytes: 6,
                            shape: &out_shape,
                            offsets: &offsets,
                        };
                        mirror_pad(&mut arena, 0, 6, &p);
                        let got = run_dyn(&input, &shape, &out_shape, &pads, (reflect, wide));
                        assert_eq!(got, arena[6..], "pads {pads:?} reflect {reflect}");
                    }
                }
            }
        }
    }

    /// Paddings TFLM reads out of bounds with (undefined there) write zero bytes, never reading
    /// outside the input or panicking: too wide, the extremes of both types, an INT64 whose low
    /// 32 bits are what TFLM's int takes, and an empty input under a non-empty output.
    #[test]
    fn mirror_pad_dyn_out_of_bounds_writes_zeros() {
        // REFLECT by 3 before a row of 3: output index 0 would read input index 3.
        let out = run_dyn(&[1, 2, 3], &[1, 3], &[1, 5], &[0, 0, 3, 0], (true, false));
        assert_eq!(out, [0, 3, 2, 1, 2]);
        // A row's outer index outside: the whole row zeros.
        let out = run_dyn(
            &[1, 2, 3, 4],
            &[2, 2],
            &[3, 2],
            &[3, 0, 0, 0],
            (false, false),
        );
        assert_eq!(out, [0, 0, 3, 4, 1, 2]);
        let extremes = [
            i64::from(i32::MIN),
            i64::from(i32::MAX),
            i64::MIN,
            i64::MAX,
            (1 << 32) + 1,
            -(1 << 32),
        ];
        for wide in [false, true] {
            for reflect in [false, true] {
                for &v in &extremes {
                    let out = run_dyn(&[1, 2, 3], &[1, 3], &[2, 4], &[v, v, v, 0], (reflect, wide));
                    assert_eq!(out.len(), 8);
                }
            }
        }
        // 2^32 + 1 as INT64 is left padding 1 (its low 32 bits); as INT32 it is 1 as well.
        let out = run_dyn(
            &[1, 2, 3],
            &[1, 3],
            &[1, 4],
            &[0, 0, (1 << 32) + 1, 0],
            (false, true),
        );
        assert_eq!(out, [1, 1, 2, 3]);
        // An empty input under a non-empty output: nothing to read, zeros.
        let out = run_dyn(&[], &[2, 0], &[2, 2], &[0, 0, 1, 1], (false, false));
        assert_eq!(out, [0, 0, 0, 0]);
        // Rank 0: the one element copied.
        let out = run_dyn(&[7], &[], &[], &[], (true, false));
        assert_eq!(out, [7]);
    }

    /// A constant input (bytes outside the arena) with the paddings in the arena, float32.
    #[test]
    fn mirror_pad_dyn_reads_a_constant_input() {
        let input: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let paddings = paddings_bytes(&[1, 2], false);
        let mut arena = vec![0u8; 8 + 16];
        arena[..8].copy_from_slice(&paddings);
        let p = MirrorPadDyn {
            elem_bytes: 4,
            input_shape: &[2],
            output_shape: &[4],
            reflect: false,
            paddings_i64: false,
        };
        mirror_pad_dyn(&mut arena, Src::Bytes(&input), Src::Arena(0), 8, &p);
        let out: [f32; 4] = core::array::from_fn(|i| crate::bytes::read_f32(&arena[8..], i));
        assert_eq!(out, [1.5, 1.5, -2.0, -2.0]);
    }

    #[test]
    fn pads_2d_int8() {
        // [[1,2],[3,4]] padded by 1 row before, 1 column before and after, with -7.
        let mut arena = [0u8; 4 + 12];
        arena[..4].copy_from_slice(&[1, 2, 3, 4]);
        let p = PadS8 {
            input_shape: &[2, 2],
            before: &[1, 1],
            after: &[0, 1],
            pad_value: -7,
        };
        pad_s8(&mut arena, 0, 4, &p);
        let m = (-7i8) as u8;
        assert_eq!(&arena[4..], &[m, m, m, m, m, 1, 2, m, m, 3, 4, m]);
    }

    #[test]
    fn pads_f32_inner_only() {
        let mut arena = [0u8; 8 + 16];
        arena[..4].copy_from_slice(&1.5f32.to_le_bytes());
        arena[4..8].copy_from_slice(&2.5f32.to_le_bytes());
        let p = PadF32 {
            input_shape: &[1, 2],
            before: &[0, 1],
            after: &[0, 1],
            pad_value: 0.0,
        };
        pad_f32(&mut arena, 0, 8, &p);
        let out: [f32; 4] = core::array::from_fn(|i| crate::bytes::read_f32(&arena[8..], i));
        assert_eq!(out, [0.0, 1.5, 2.5, 0.0]);
    }

    /// The run-time value gives the same bytes as the constant kernels for every element size
    /// and hostile values (int extremes, a NaN with a payload, -0.0), the value and the input in
    /// the arena or constant.
    #[test]
    fn pad_dyn_matches_the_constant_kernels() {
        let shape: &[usize] = &[2, 1, 2];
        let (before, after): (&[usize], &[usize]) = (&[1, 0, 2], &[0, 2, 1]);
        let cases: [(usize, u32); 8] = [
            (1, 0x80),
            (1, 0x7f),
            (2, 0x8000),
            (2, 0x7fff),
            (4, 0x8000_0000),
            (4, 0x7fff_ffff),
            (4, 0x7fc0_1234),
            (4, 0x8000_0000 | 0x0040_0001),
        ];
        for (elem, bits) in cases {
            let n_in = 4 * elem;
            let n_out = padded_elems(shape, before, after) * elem;
            let input: Vec<u8> = (0..n_in as u8).map(|b| b.wrapping_mul(37) ^ 0xa5).collect();
            let value = &bits.to_le_bytes()[..elem];
            // Constant kernel: value bytes by pad_bytes.
            let mut want = vec![0u8; n_in + n_out];
            want[..n_in].copy_from_slice(&input);
            pad_bytes(&mut want, 0, n_in, shape, before, after, value);
            let want = &want[n_in..];
            let p = PadDyn {
                elem_bytes: elem,
                input_shape: shape,
                before,
                after,
            };
            // Input and value in the arena; the output after both, prefilled with junk.
            let mut arena = vec![0xeeu8; n_in + 4 + n_out];
            arena[..n_in].copy_from_slice(&input);
            arena[n_in..n_in + elem].copy_from_slice(value);
            pad_dyn(&mut arena, Src::Arena(0), Src::Arena(n_in), n_in + 4, &p);
            assert_eq!(&arena[n_in + 4..], want, "elem {elem}, value {bits:#x}");
            // Both constant.
            let mut arena = vec![0xeeu8; n_out];
            pad_dyn(&mut arena, Src::Bytes(&input), Src::Bytes(value), 0, &p);
            assert_eq!(&arena[..], want, "elem {elem}, value {bits:#x}, constant");
        }
        // An empty input: every element is the value (-128), read from the arena.
        let mut a = [0u8; 1 + 3];
        a[0] = 0x80;
        let p = PadDyn {
            elem_bytes: 1,
            input_shape: &[0],
            before: &[1],
            after: &[2],
        };
        pad_dyn(&mut a, Src::Bytes(&[]), Src::Arena(0), 1, &p);
        assert_eq!(a, [0x80, 0x80, 0x80, 0x80]);
    }
}

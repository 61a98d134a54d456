//! PAD and PADV2 (int8, int16, int32 and float32; TFLM supports up to 5 dimensions), and
//! MIRROR_PAD (any element type: elements copied).

use super::elem::{copy_run, fill, next_index};
use super::nn_common::views;
use super::MAX_RANK;

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

/// Pads with the element `value` (its length is the element size).
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
    let total: usize = p.shape.iter().product();
    let (src, dst) = views::split(arena, input, p.input_bytes, output, total * elem);
    if total == 0 {
        return;
    }
    if rank == 0 {
        dst.copy_from_slice(&src[..elem]);
        return;
    }
    let mut starts = [0usize; MAX_RANK];
    let mut sum = 0;
    for (start, &extent) in starts.iter_mut().zip(p.shape) {
        *start = sum;
        sum += extent;
    }
    assert!(p.offsets.len() == sum, "one offset per output index");
    let last = rank - 1;
    let inner = &p.offsets[starts[last]..];
    let mut index = [0usize; MAX_RANK];
    for row in dst.chunks_exact_mut(p.shape[last] * elem) {
        let base: usize = (0..last).map(|d| p.offsets[starts[d] + index[d]]).sum();
        for (out, &offset) in row.chunks_exact_mut(elem).zip(inner) {
            let at = (base + offset) * elem;
            out.copy_from_slice(&src[at..at + elem]);
        }
        next_index(&mut index[..last], &p.shape[..last]);
    }
}

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
    let mut out_shape = [1usize; MAX_RANK];
    for d in 0..rank {
        out_shape[d] = before[d] + shape[d] + after[d];
    }
    let out_shape = &out_shape[..rank];
    let in_len = shape.iter().product::<usize>() * elem;
    let out_len = out_shape.iter().product::<usize>() * elem;
    let (src, dst) = views::split(arena, input, in_len, output, out_len);
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
                .zip(&out_strides[..last])
                .map(|(i, s)| i * s)
                .sum::<usize>();
        fill(&mut dst[filled..at], value);
        copy_run(&mut dst[at..at + row], src_row);
        filled = at + row;
        next_index(&mut index[..last], &shape[..last]);
    }
    fill(&mut dst[filled..], value);
}

#[cfg(test)]
mod tests {
    use super::*;

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
}

//! CONV_2D with INT4 weights and int8 activations: TFLM's `reference_integer_ops::ConvPerChannel`
//! on the filter its Eval unpacks with `UnpackDenseInt4IntoInt8`, read here nibble by nibble from
//! the packed constant, so that the filter stays packed in flash and no scratch memory is needed.
//!
//! Layouts: input `[batches, input_h, input_w, input_c]`, filter `[output_c, filter_h, filter_w,
//! filter_c]` with `input_c = groups * filter_c`, packed two elements to a byte over the whole
//! tensor in that order (low nibble first; rows need not start on a byte), output `[batches,
//! output_h, output_w, output_c]`.
//!
//! Access order: for each output pixel in order, every output channel in order is written after
//! reading the pixel's input window; the output must not overlap the input (checked).

use super::nn_common::window::{coord, taps};
use super::nn_common::{int4, views, Requantizer};
use crate::kernels::Within;

/// Constant parameters of [`conv2d_s4`]: [`super::conv::Conv2dS8`]'s, with the filter packed.
#[derive(Clone, Copy, Debug)]
pub struct Conv2dS4<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels (`groups * filter_c`).
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (a multiple of the number of groups).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Input channels per filter (the filter's last dimension).
    pub filter_c: usize,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Vertical dilation (1 = none).
    pub dilation_h: usize,
    /// Horizontal dilation (1 = none).
    pub dilation_w: usize,
    /// Rows of padding above the image.
    pub pad_top: usize,
    /// Columns of padding left of the image.
    pub pad_left: usize,
    /// Input zero point (taps outside the image are skipped, as TFLM skips them).
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Filter weights `[output_c, filter_h, filter_w, filter_c]` (zero point 0), INT4 packed two
    /// to a byte, low nibble first: `ceil(n / 2)` bytes for `n` weights.
    pub filter: &'a [u8],
    /// Per-output-channel bias, in units of `input_scale * filter_scale[c]`.
    pub bias: Option<&'a [i32]>,
    /// Per-output-channel Q31 requantization multipliers.
    pub multipliers: &'a [i32],
    /// Per-output-channel requantization shifts (positive = left, within -31..=31).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

/// int8 CONV_2D with INT4 weights and per-channel requantization, bit-exact with TFLM's
/// `ConvPerChannel` on the unpacked filter. Reads `batches * input_h * input_w * input_c` bytes at
/// `input`, writes `batches * output_h * output_w * output_c` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_s4(arena: &mut [u8], input: usize, output: usize, p: &Conv2dS4) {
    let p = super::opaque(p);
    ensure!(
        p.filter_c > 0 && p.input_c.is_multiple_of(p.filter_c),
        "input_c must be groups * filter_c"
    );
    let groups = p.input_c / p.filter_c;
    ensure!(
        p.output_c.is_multiple_of(groups),
        "output_c must be a multiple of groups"
    );
    let filters_per_group = p.output_c / groups;
    let filter_oc = p.filter_h * p.filter_w * p.filter_c;
    let input_row = p.input_w * p.input_c;
    let input_image = p.input_h * input_row;
    let in_len = p.batches * input_image;
    let out_len = p.batches * p.output_h * p.output_w * p.output_c;
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    let filter = p.filter.at(..(p.output_c * filter_oc).div_ceil(2));
    let requantizer = Requantizer::new(
        p.output_c,
        p.bias,
        p.multipliers,
        p.shifts,
        p.output_zero_point,
        (p.act_min, p.act_max),
    );
    let offset = -p.input_zero_point;
    let mut out_px = out.chunks_exact_mut(p.output_c.max(1));
    for b in 0..p.batches {
        let image = inp.at(b * input_image..).at(..input_image);
        for oy in 0..p.output_h {
            let (ky0, ky1, y0) = taps(
                oy,
                p.stride_h,
                p.pad_top,
                p.dilation_h,
                p.filter_h,
                p.input_h,
            );
            for ox in 0..p.output_w {
                let (kx0, kx1, x0) = taps(
                    ox,
                    p.stride_w,
                    p.pad_left,
                    p.dilation_w,
                    p.filter_w,
                    p.input_w,
                );
                let Some(px) = out_px.next() else { return };
                for (oc, o) in px.iter_mut().enumerate() {
                    let group_c = (oc / filters_per_group) * p.filter_c;
                    let mut acc = 0i32;
                    for ky in ky0..ky1 {
                        let row = image
                            .at(coord(y0, ky, p.dilation_h) * input_row..)
                            .at(..input_row);
                        for kx in kx0..kx1 {
                            let x = row
                                .at(coord(x0, kx, p.dilation_w) * p.input_c + group_c..)
                                .at(..p.filter_c);
                            let w0 = oc * filter_oc + (ky * p.filter_w + kx) * p.filter_c;
                            for (i, &x) in x.iter().enumerate() {
                                let w = int4(filter, w0 + i);
                                acc = acc.wrapping_add(w * (i32::from(x as i8) + offset));
                            }
                        }
                    }
                    *o = requantizer.one(oc, acc);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::nn_common::pack_int4;
    use super::*;
    use crate::math::multiply_by_quantized_multiplier;

    #[test]
    fn nibbles_unpack_as_tflm_does() {
        // TFLM's own example: {0x12, 0x34} unpacks to {2, 1, 4, 3}; 0xF8 to {-8, -1}.
        let packed = [0x12u8, 0x34, 0xF8, 0x7F];
        let got: [i32; 8] = core::array::from_fn(|k| int4(&packed, k));
        assert_eq!(got, [2, 1, 4, 3, -8, -1, -1, 7]);
        let all: [i8; 16] = core::array::from_fn(|k| k as i8 - 8);
        let packed: [u8; 8] = pack_int4(&all);
        for (k, &v) in all.iter().enumerate() {
            assert_eq!(int4(&packed, k), i32::from(v));
        }
    }

    /// The same sums as a plain int8 convolution of the unpacked weights: one output pixel of a
    /// 3×3 window, two channels of an odd weight count (channel 1 starts on a high nibble),
    /// grouped (two groups of one channel) and with a window clipped by SAME padding.
    #[test]
    fn matches_unpacked_reference() {
        let weights: [i8; 18] = [1, -2, 3, -4, 5, -6, 7, -8, 0, 7, -8, 6, -5, 4, -3, 2, -1, 0];
        let packed: [u8; 9] = pack_int4(&weights);
        let image: [i8; 18] = core::array::from_fn(|k| (k as i8).wrapping_mul(37).wrapping_sub(90));
        let mut arena = [0u8; 48];
        for (a, &x) in arena.iter_mut().zip(&image) {
            *a = x as u8;
        }
        let p = Conv2dS4 {
            batches: 1,
            input_h: 3,
            input_w: 3,
            input_c: 2,
            output_h: 3,
            output_w: 3,
            output_c: 2,
            filter_h: 3,
            filter_w: 3,
            filter_c: 1,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 1,
            pad_left: 1,
            input_zero_point: 3,
            output_zero_point: -1,
            filter: &packed,
            bias: Some(&[5, -5]),
            multipliers: &[1 << 30, 1 << 30],
            shifts: &[0, -1],
            act_min: -128,
            act_max: 127,
        };
        conv2d_s4(&mut arena, 0, 24, &p);
        for oy in 0..3i32 {
            for ox in 0..3i32 {
                for oc in 0..2usize {
                    let mut sum = [5, -5][oc];
                    for ky in 0..3i32 {
                        for kx in 0..3i32 {
                            let (y, x) = (oy + ky - 1, ox + kx - 1);
                            if (0..3).contains(&y) && (0..3).contains(&x) {
                                let v = image[((y * 3 + x) * 2) as usize + oc];
                                let w = weights[oc * 9 + (ky * 3 + kx) as usize];
                                sum += i32::from(w) * (i32::from(v) - 3);
                            }
                        }
                    }
                    let expected = (multiply_by_quantized_multiplier(sum, 1 << 30, [0, -1][oc])
                        - 1)
                    .clamp(-128, 127);
                    let at = 24 + ((oy * 3 + ox) * 2) as usize + oc;
                    assert_eq!(i32::from(arena[at] as i8), expected, "{oy} {ox} {oc}");
                }
            }
        }
    }
}

//! DEPTHWISE_CONV_2D with INT4 weights and int8 activations: TFLM's
//! `reference_integer_ops::DepthwiseConvPerChannel` on the filter its Eval unpacks with
//! `UnpackDenseInt4IntoInt8`, read here nibble by nibble from the packed constant, so that the
//! filter stays packed in flash and no scratch memory is needed.
//!
//! Layouts: input `[batches, input_h, input_w, input_c]`, filter `[1, filter_h, filter_w,
//! output_c]` packed two elements to a byte over the whole tensor (low nibble first), output
//! `[batches, output_h, output_w, output_c]` with `output_c = input_c * depth_multiplier` (output
//! channel `c * depth_multiplier + m` reads input channel `c`).
//!
//! Access order: for each output pixel in order, its channels in order, each after reading its
//! input channel's window; the output must not overlap the input (checked).

use super::nn_common::window::{coord, taps};
use super::nn_common::{int4, views, Requantizer};
use crate::kernels::Within;

/// Constant parameters of [`depthwise_conv2d_s4`]: [`super::depthwise::DepthwiseConv2dS8`]'s,
/// with the filter packed.
#[derive(Clone, Copy, Debug)]
pub struct DepthwiseConv2dS4<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels.
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (`input_c * depth_multiplier`).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Output channels per input channel.
    pub depth_multiplier: usize,
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
    /// Filter weights `[1, filter_h, filter_w, output_c]` (zero point 0), INT4 packed two to a
    /// byte, low nibble first: `ceil(n / 2)` bytes for `n` weights.
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

/// int8 DEPTHWISE_CONV_2D with INT4 weights and per-channel requantization, bit-exact with TFLM's
/// `DepthwiseConvPerChannel` on the unpacked filter. Reads `batches * input_h * input_w *
/// input_c` bytes at `input`, writes `batches * output_h * output_w * output_c` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn depthwise_conv2d_s4(arena: &mut [u8], input: usize, output: usize, p: &DepthwiseConv2dS4) {
    let p = super::opaque(p);
    ensure!(
        p.output_c == p.input_c * p.depth_multiplier,
        "output_c must be input_c * depth_multiplier"
    );
    let input_row = p.input_w * p.input_c;
    let input_image = p.input_h * input_row;
    let in_len = p.batches * input_image;
    let out_len = p.batches * p.output_h * p.output_w * p.output_c;
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    let filter = p
        .filter
        .at(..(p.filter_h * p.filter_w * p.output_c).div_ceil(2));
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
                    let ic = oc / p.depth_multiplier;
                    let mut acc = 0i32;
                    for ky in ky0..ky1 {
                        let row = image
                            .at(coord(y0, ky, p.dilation_h) * input_row..)
                            .at(..input_row);
                        for kx in kx0..kx1 {
                            let x = row[coord(x0, kx, p.dilation_w) * p.input_c + ic] as i8;
                            let w = int4(filter, (ky * p.filter_w + kx) * p.output_c + oc);
                            acc = acc.wrapping_add(w * (i32::from(x) + offset));
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

    /// Against the unpacked sums: 2 input channels, depth multiplier 3 (6 output channels), a
    /// 2×2 filter of 24 weights over a 3×3 image, stride 1, VALID, and a dilated 2×2 window.
    #[test]
    fn matches_unpacked_reference() {
        let weights: [i8; 24] = core::array::from_fn(|k| ((k * 5) % 16) as i8 - 8);
        let packed: [u8; 12] = pack_int4(&weights);
        let image: [i8; 18] = core::array::from_fn(|k| (k as i8).wrapping_mul(41).wrapping_add(7));
        for dilation in [1, 2] {
            let out_hw = 3 - dilation;
            let mut arena = [0u8; 64];
            for (a, &x) in arena.iter_mut().zip(&image) {
                *a = x as u8;
            }
            let p = DepthwiseConv2dS4 {
                batches: 1,
                input_h: 3,
                input_w: 3,
                input_c: 2,
                output_h: out_hw,
                output_w: out_hw,
                output_c: 6,
                filter_h: 2,
                filter_w: 2,
                depth_multiplier: 3,
                stride_h: 1,
                stride_w: 1,
                dilation_h: dilation,
                dilation_w: dilation,
                pad_top: 0,
                pad_left: 0,
                input_zero_point: -2,
                output_zero_point: 4,
                filter: &packed,
                bias: None,
                multipliers: &[1 << 30; 6],
                shifts: &[-2; 6],
                act_min: -128,
                act_max: 127,
            };
            depthwise_conv2d_s4(&mut arena, 0, 32, &p);
            for oy in 0..out_hw {
                for ox in 0..out_hw {
                    for oc in 0..6 {
                        let mut sum = 0;
                        for ky in 0..2 {
                            for kx in 0..2 {
                                let (y, x) = (oy + ky * dilation, ox + kx * dilation);
                                let v = image[(y * 3 + x) * 2 + oc / 3];
                                let w = weights[(ky * 2 + kx) * 6 + oc];
                                sum += i32::from(w) * (i32::from(v) + 2);
                            }
                        }
                        let expected = (multiply_by_quantized_multiplier(sum, 1 << 30, -2) + 4)
                            .clamp(-128, 127);
                        let at = 32 + (oy * out_hw + ox) * 6 + oc;
                        assert_eq!(i32::from(arena[at] as i8), expected, "{oy} {ox} {oc}");
                    }
                }
            }
        }
    }
}

//! The float32 CONV_2D ([`conv2d_f32`]), accumulating in TFLM's order.

use super::Geometry;
use crate::kernels::nn_common::window::{coord, run_start, taps};
use crate::kernels::nn_common::{clamp_f32, views};
use crate::kernels::Within;

/// Constant parameters of [`conv2d_f32`].
#[derive(Clone, Copy, Debug)]
pub struct Conv2dF32<'a> {
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
    /// Filter weights, `[output_c, filter_h, filter_w, filter_c]`.
    pub filter: &'a [f32],
    /// Per-output-channel bias.
    pub bias: Option<&'a [f32]>,
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
}

/// `Σ w * x` over two equally long float rows, accumulated in order from `acc`.
#[inline(always)]
fn dot_f32(mut acc: f32, w: &[f32], x: &[u8]) -> f32 {
    for (&w, x) in w.iter().zip(views::f32s(x)) {
        acc += x * w;
    }
    acc
}

/// float32 CONV_2D, accumulating in TFLM's order (filter y, filter x, input channel), then adding the
/// bias and clamping. Reads `4 * batches * input_h * input_w * input_c` bytes at `input`, writes
/// `4 * batches * output_h * output_w * output_c` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_f32(arena: &mut [u8], input: usize, output: usize, p: &Conv2dF32) {
    let p = crate::kernels::opaque(p);
    let g = geometry!(p);
    let in_len = 4 * p.batches * g.input_image;
    let out_len = 4 * p.batches * p.output_h * p.output_w * p.output_c;
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    let filter = p.filter.at(..p.output_c * g.filter_oc);
    let bias = p.bias.map(|b| b.at(..p.output_c));
    let contiguous = p.filter_c == p.input_c && p.dilation_w == 1;
    let mut out_px = out.chunks_exact_mut(4 * p.output_c);
    for b in 0..p.batches {
        let image = inp.at(4 * b * g.input_image..).at(..4 * g.input_image);
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
                let px = out_px.next().expect("output size");
                for (oc, o) in px.chunks_exact_mut(4).enumerate() {
                    let w_oc = filter.at(oc * g.filter_oc..).at(..g.filter_oc);
                    let group_c = (oc / g.filters_per_group) * p.filter_c;
                    let mut acc = 0.0f32;
                    for ky in ky0..ky1 {
                        let row = image
                            .at(4 * coord(y0, ky, p.dilation_h) * g.input_row..)
                            .at(..4 * g.input_row);
                        let w_row = w_oc.at(ky * g.filter_row..).at(..g.filter_row);
                        if contiguous {
                            let x = run_start(x0, kx0, kx1, 1) * p.input_c;
                            let n = (kx1 - kx0) * p.input_c;
                            let w = w_row.at(kx0 * g.filter_tap..).at(..n);
                            acc = dot_f32(acc, w, row.at(4 * x..).at(..4 * n));
                        } else {
                            for kx in kx0..kx1 {
                                let x = coord(x0, kx, p.dilation_w) * p.input_c + group_c;
                                let w = w_row.at(kx * g.filter_tap..).at(..p.filter_c);
                                acc = dot_f32(acc, w, row.at(4 * x..).at(..4 * p.filter_c));
                            }
                        }
                    }
                    let bias = bias.map_or(0.0, |b| b[oc]);
                    let v = clamp_f32(acc + bias, p.act_min, p.act_max);
                    o.copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
}

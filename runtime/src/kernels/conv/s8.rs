//! The general int8 CONV_2D ([`conv2d_s8`]): any groups, stride, dilation and padding, TFLM's
//! `ConvPerChannel` loop nest blocked by output channels.

use super::Geometry;
use crate::kernels::nn_common::window::{coord, run_start, taps};
use crate::kernels::nn_common::{dot4_s8, dot_s8, views, Requantizer};

/// Constant parameters of [`conv2d_s8`].
#[derive(Clone, Copy, Debug)]
pub struct Conv2dS8<'a> {
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
    /// Input zero point (taps outside the image count as this value, i.e. contribute nothing).
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Filter weights, `[output_c, filter_h, filter_w, filter_c]` (zero point 0).
    pub filter: &'a [i8],
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

/// int8 CONV_2D with per-channel requantization, bit-exact with TFLM's `ConvPerChannel`.
/// Reads `batches * input_h * input_w * input_c` bytes at `input`, writes
/// `batches * output_h * output_w * output_c` bytes at `output` (see the module docs for the order).
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_s8(arena: &mut [u8], input: usize, output: usize, p: &Conv2dS8) {
    let p = crate::kernels::opaque(p);
    let g = geometry!(p);
    let in_len = p.batches * g.input_image;
    let out_len = p.batches * p.output_h * p.output_w * p.output_c;
    let (inp, out) = views::split(arena, input, in_len, output, out_len);
    let filter = &p.filter[..p.output_c * g.filter_oc];
    let requantizer = Requantizer::new(
        p.output_c,
        p.bias,
        p.multipliers,
        p.shifts,
        p.output_zero_point,
        (p.act_min, p.act_max),
    );
    // int8 zero points keep `x - zero_point` within i16 (see `dot4_s8`).
    assert!(
        (-128..=127).contains(&p.input_zero_point),
        "input zero point out of int8 range"
    );
    let offset = -p.input_zero_point;
    // Whole filter rows are contiguous in memory when there is one group and no horizontal dilation.
    let contiguous = p.filter_c == p.input_c && p.dilation_w == 1;
    let mut out_px = out.chunks_exact_mut(p.output_c);
    for b in 0..p.batches {
        let image = &inp[b * g.input_image..][..g.input_image];
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
                let mut oc = 0;
                if contiguous {
                    // Four output channels at a time: each input byte is loaded once for four filters.
                    let x = run_start(x0, kx0, kx1, 1) * p.input_c;
                    let n = (kx1 - kx0) * p.input_c;
                    while oc + 4 <= p.output_c {
                        let mut acc = [0i32; 4];
                        for ky in ky0..ky1 {
                            let row = &image[coord(y0, ky, p.dilation_h) * g.input_row..][x..][..n];
                            let tap = ky * g.filter_row + kx0 * g.filter_tap;
                            let w: [&[i8]; 4] = core::array::from_fn(|k| {
                                &filter[(oc + k) * g.filter_oc + tap..][..n]
                            });
                            let d = dot4_s8(w, row, offset);
                            for (a, d) in acc.iter_mut().zip(d) {
                                *a = a.wrapping_add(d);
                            }
                        }
                        px[oc..oc + 4].copy_from_slice(&requantizer.four(oc, acc));
                        oc += 4;
                    }
                }
                for (oc, o) in px.iter_mut().enumerate().skip(oc) {
                    let w_oc = &filter[oc * g.filter_oc..][..g.filter_oc];
                    let group_c = (oc / g.filters_per_group) * p.filter_c;
                    let mut acc = 0i32;
                    // The channels left over from the blocks of four (or all of them when grouped
                    // or dilated): one tap at a time, which fits every layout.
                    for ky in ky0..ky1 {
                        let row =
                            &image[coord(y0, ky, p.dilation_h) * g.input_row..][..g.input_row];
                        let w_row = &w_oc[ky * g.filter_row..][..g.filter_row];
                        for kx in kx0..kx1 {
                            let x = coord(x0, kx, p.dilation_w) * p.input_c + group_c;
                            let w = &w_row[kx * g.filter_tap..][..p.filter_c];
                            acc = acc.wrapping_add(dot_s8(w, &row[x..][..p.filter_c], offset));
                        }
                    }
                    *o = requantizer.one(oc, acc);
                }
            }
        }
    }
}

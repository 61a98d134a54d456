//! The CONV_2D and DEPTHWISE_CONV_2D kernels of weights or a bias computed at run time
//! (`conv2d_dyn_*`, `depthwise_conv2d_dyn_*`, here as the two share their walk): TFLM's Eval reads
//! the filter and bias tensors wherever they are, so these read input, filter and the optional
//! bias as [`Src`] (`inputs`, the bias last if there is one) and compute TFLM's reference sums
//! term by term (`ConvPerChannel`, `DepthwiseConvPerChannel`, their 16x8 variants,
//! `reference_ops::Conv` and `DepthwiseConv`), nothing precomputed from the weights. None of the
//! inputs may overlap the output (checked).

use crate::kernels::nn_common::requant::scale_16x8;
use crate::kernels::nn_common::{clamp_f32, views};
use crate::math::multiply_by_quantized_multiplier;
use crate::Src;

/// Constant parameters of [`conv2d_dyn_s8`], [`conv2d_dyn_acc32_s16`] and [`conv2d_dyn_s16`].
#[derive(Clone, Copy, Debug)]
pub struct Conv2dDyn<'a> {
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
    /// Per-output-channel multipliers: Q31 for the 32-bit sums, reduced to 16 bits as TFLM's
    /// 64-bit `MultiplyByQuantizedMultiplier` reduces them for [`conv2d_dyn_s16`].
    pub multipliers: &'a [i32],
    /// Per-output-channel shifts: TFLM's (positive = left) for the 32-bit sums, the right shift
    /// `15 - shift` for [`conv2d_dyn_s16`].
    pub shifts: &'a [i8],
    /// Input zero point, subtracted from every input (0 for int16, whose kernels apply none).
    pub input_zero_point: i32,
    /// Output zero point, added after the requantization (0 for int16).
    pub output_zero_point: i32,
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

/// Constant parameters of [`conv2d_dyn_f32`]: the geometry of [`Conv2dDyn`] and the clamp.
#[derive(Clone, Copy, Debug)]
pub struct Conv2dDynF32 {
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
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
}

/// The geometry of a `conv2d_dyn_*` call: `[input_h, input_w, input_c, output_h, output_w,
/// output_c, filter_h, filter_w, filter_c, stride_h, stride_w, dilation_h, dilation_w, pad_top,
/// pad_left]` and the batches; `depthwise`: the filter is `[1, filter_h, filter_w, output_c]`
/// (DEPTHWISE_CONV_2D's, `filter_c` 1 and the groups the input channels) rather than
/// `[output_c, filter_h, filter_w, filter_c]`.
struct Shape {
    batches: usize,
    dims: [usize; 15],
    depthwise: bool,
}

macro_rules! shape {
    ($p:expr) => {{
        let p = $p;
        shape!(p, p.filter_c, false)
    }};
    ($p:expr, $filter_c:expr, $depthwise:expr) => {{
        let p = $p;
        Shape {
            batches: p.batches,
            depthwise: $depthwise,
            dims: [
                p.input_h,
                p.input_w,
                p.input_c,
                p.output_h,
                p.output_w,
                p.output_c,
                p.filter_h,
                p.filter_w,
                $filter_c,
                p.stride_h,
                p.stride_w,
                p.dilation_h,
                p.dilation_w,
                p.pad_top,
                p.pad_left,
            ],
        }
    }};
}

/// Walks a convolution as TFLM's reference kernels do: for each output pixel and channel `oc`,
/// `acc = term(acc, x, w)` from `zero` over the window's taps inside the image (filter row, then
/// column, then channel; `IN` bytes per input element, `W` per weight), then writes
/// `finish(oc, acc, bias element oc)` (`B` bytes per bias element, `OUT` per output element).
/// `inputs` are input, filter and the optional bias (two or three: asserted); each is borrowed
/// again for each output, as the output is written between them.
#[inline(always)]
fn dyn_conv<const IN: usize, const W: usize, const B: usize, const OUT: usize, A: Copy>(
    arena: &mut [u8],
    (inputs, output): (&[Src], usize),
    s: &Shape,
    zero: A,
    term: impl Fn(A, &[u8], &[u8]) -> A,
    finish: impl Fn(usize, A, Option<&[u8]>) -> [u8; OUT],
) {
    let [ih, iw, ic, oh, ow, oc_n, fh, fw, fc, sh, sw, dh, dw, pt, pl] = s.dims;
    assert!(
        matches!(inputs.len(), 2 | 3),
        "input, filter and an optional bias"
    );
    assert!(fc > 0 && ic % fc == 0, "input_c must be groups * filter_c");
    let groups = ic / fc;
    assert!(oc_n % groups == 0, "output_c must be a multiple of groups");
    let per_group = oc_n / groups;
    let in_len = IN * s.batches * ih * iw * ic;
    let w_len = W * oc_n * fh * fw * fc;
    let out_len = OUT * s.batches * oh * ow * oc_n;
    for (src, &len) in inputs.iter().zip(&[in_len, w_len, B * oc_n]) {
        if let Src::Arena(offset) = *src {
            assert!(
                !views::overlapping(offset, len, output, out_len),
                "kernel input and output overlap"
            );
        }
    }
    let bias = inputs.get(2).copied();
    let mut o = output;
    for b in 0..s.batches {
        for oy in 0..oh {
            for ox in 0..ow {
                for oc in 0..oc_n {
                    let v = {
                        let x = inputs[0].bytes(arena, in_len);
                        let w = inputs[1].bytes(arena, w_len);
                        let first_c = oc / per_group * fc;
                        let mut acc = zero;
                        for fy in 0..fh {
                            // Taps above or below the image are skipped, as TFLM's are.
                            let Some(y) = (oy * sh + dh * fy).checked_sub(pt) else {
                                continue;
                            };
                            if y >= ih {
                                continue;
                            }
                            for fx in 0..fw {
                                let Some(xx) = (ox * sw + dw * fx).checked_sub(pl) else {
                                    continue;
                                };
                                if xx >= iw {
                                    continue;
                                }
                                let pixel = ((b * ih + y) * iw + xx) * ic + first_c;
                                let tap = if s.depthwise {
                                    (fy * fw + fx) * oc_n + oc
                                } else {
                                    ((oc * fh + fy) * fw + fx) * fc
                                };
                                for c in 0..fc {
                                    let xe = &x[IN * (pixel + c)..][..IN];
                                    let we = &w[W * (tap + c)..][..W];
                                    acc = term(acc, xe, we);
                                }
                            }
                        }
                        let bias = bias.map(|s| &s.bytes(arena, B * oc_n)[B * oc..][..B]);
                        finish(oc, acc, bias)
                    };
                    arena[o..o + OUT].copy_from_slice(&v);
                    o += OUT;
                }
            }
        }
    }
}

/// The 32-bit bias element (little-endian), or 0 where there is no bias.
#[inline(always)]
fn bias_i32(b: Option<&[u8]>) -> i32 {
    b.map_or(0, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The int16 input element `x` less `zero_point`.
#[inline(always)]
fn s16(x: &[u8], zero_point: i32) -> i32 {
    i32::from(i16::from_le_bytes([x[0], x[1]])).wrapping_sub(zero_point)
}

/// int8 CONV_2D with the filter (and bias) read at run time, bit-exact with TFLM's
/// `reference_integer_ops::ConvPerChannel`: each output is
/// `MultiplyByQuantizedMultiplier(Σ w * (x - input_zero_point) + bias)` (wrapping at 32 bits)
/// plus the output zero point, clamped. `inputs`: the int8 input, the int8 filter
/// `[output_c, filter_h, filter_w, filter_c]`, the optional INT32 bias.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_dyn_s8(arena: &mut [u8], inputs: &[Src], output: usize, p: &Conv2dDyn) {
    let p = crate::kernels::opaque(p);
    let (multipliers, shifts) = (&p.multipliers[..p.output_c], &p.shifts[..p.output_c]);
    dyn_conv::<1, 1, 4, 1, i32>(
        arena,
        (inputs, output),
        &shape!(p),
        0,
        |acc, x, w| {
            let x = i32::from(x[0] as i8).wrapping_sub(p.input_zero_point);
            acc.wrapping_add(i32::from(w[0] as i8).wrapping_mul(x))
        },
        |c, acc, bias| {
            let acc = acc.wrapping_add(bias_i32(bias));
            let v = multiply_by_quantized_multiplier(acc, multipliers[c], i32::from(shifts[c]))
                .wrapping_add(p.output_zero_point);
            [v.max(p.act_min).min(p.act_max) as i8 as u8]
        },
    );
}

/// int16 CONV_2D with int8 weights read at run time and 32-bit sums (TFLM's 16x8
/// `ConvPerChannel<int32_t>`, an INT32 bias): as [`conv2d_dyn_s8`] over int16 input and output.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_dyn_acc32_s16(arena: &mut [u8], inputs: &[Src], output: usize, p: &Conv2dDyn) {
    let p = crate::kernels::opaque(p);
    let (multipliers, shifts) = (&p.multipliers[..p.output_c], &p.shifts[..p.output_c]);
    dyn_conv::<2, 1, 4, 2, i32>(
        arena,
        (inputs, output),
        &shape!(p),
        0,
        |acc, x, w| {
            acc.wrapping_add(i32::from(w[0] as i8).wrapping_mul(s16(x, p.input_zero_point)))
        },
        |c, acc, bias| {
            let acc = acc.wrapping_add(bias_i32(bias));
            let v = multiply_by_quantized_multiplier(acc, multipliers[c], i32::from(shifts[c]))
                .wrapping_add(p.output_zero_point);
            (v.max(p.act_min).min(p.act_max) as i16).to_le_bytes()
        },
    );
}

/// int16 CONV_2D with int8 weights read at run time and 64-bit sums (TFLM's 16x8
/// `ConvPerChannel<int64_t>`, an INT64 bias or none): each output is the 64-bit
/// `MultiplyByQuantizedMultiplier` (`scale_16x8`) of `Σ w * x + bias`, clamped.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_dyn_s16(arena: &mut [u8], inputs: &[Src], output: usize, p: &Conv2dDyn) {
    let p = crate::kernels::opaque(p);
    let (multipliers, shifts) = (&p.multipliers[..p.output_c], &p.shifts[..p.output_c]);
    dyn_conv::<2, 1, 8, 2, i64>(
        arena,
        (inputs, output),
        &shape!(p),
        0,
        // Each product is within 2^23 in magnitude: exact in 32 bits, summed in 64 as TFLM does.
        |acc, x, w| {
            acc.wrapping_add(i64::from(
                i32::from(w[0] as i8).wrapping_mul(s16(x, p.input_zero_point)),
            ))
        },
        |c, acc, bias| {
            let bias = bias.map_or(0, |b| {
                i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            });
            let v = scale_16x8(acc.wrapping_add(bias), multipliers[c], shifts[c])
                .wrapping_add(p.output_zero_point);
            (v.max(p.act_min).min(p.act_max) as i16).to_le_bytes()
        },
    );
}

/// float32 CONV_2D with the filter (and bias) read at run time, as TFLM's `reference_ops::Conv`:
/// `Σ x * w` in its order, plus the bias, clamped.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_dyn_f32(arena: &mut [u8], inputs: &[Src], output: usize, p: &Conv2dDynF32) {
    let p = crate::kernels::opaque(p);
    let f32_of = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    dyn_conv::<4, 4, 4, 4, f32>(
        arena,
        (inputs, output),
        &shape!(p),
        0.0,
        |acc, x, w| acc + f32_of(x) * f32_of(w),
        |_, total, bias| {
            clamp_f32(total + bias.map_or(0.0, f32_of), p.act_min, p.act_max).to_le_bytes()
        },
    );
}

/// Constant parameters of [`depthwise_conv2d_dyn_s8`] and [`depthwise_conv2d_dyn_s16`]: as
/// [`Conv2dDyn`], with the depth multiplier where CONV_2D has its filter's channels.
#[derive(Clone, Copy, Debug)]
pub struct DepthwiseConv2dDyn<'a> {
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
    /// Per-output-channel multipliers: Q31 for int8, reduced to 16 bits for int16 (as
    /// [`Conv2dDyn::multipliers`]).
    pub multipliers: &'a [i32],
    /// Per-output-channel shifts (as [`Conv2dDyn::shifts`]).
    pub shifts: &'a [i8],
    /// Input zero point, subtracted from every input (0 for int16).
    pub input_zero_point: i32,
    /// Output zero point, added after the requantization (0 for int16).
    pub output_zero_point: i32,
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

/// Constant parameters of [`depthwise_conv2d_dyn_f32`]: the geometry of [`DepthwiseConv2dDyn`]
/// and the clamp.
#[derive(Clone, Copy, Debug)]
pub struct DepthwiseConv2dDynF32 {
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
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
}

/// The [`Shape`] of a depthwise convolution: one filter channel per group, the input channels'
/// groups of `depth_multiplier` output channels.
macro_rules! depthwise_shape {
    ($p:expr) => {{
        let p = $p;
        assert!(
            p.output_c == p.input_c * p.depth_multiplier,
            "output_c must be input_c * depth_multiplier"
        );
        shape!(p, 1, true)
    }};
}

/// int8 DEPTHWISE_CONV_2D with the filter `[1, filter_h, filter_w, output_c]` (and bias) read
/// at run time, bit-exact with TFLM's `reference_integer_ops::DepthwiseConvPerChannel`: output
/// channel `oc` sums input channel `oc / depth_multiplier` against filter column `oc`, then as
/// [`conv2d_dyn_s8`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn depthwise_conv2d_dyn_s8(
    arena: &mut [u8],
    inputs: &[Src],
    output: usize,
    p: &DepthwiseConv2dDyn,
) {
    let p = crate::kernels::opaque(p);
    let (multipliers, shifts) = (&p.multipliers[..p.output_c], &p.shifts[..p.output_c]);
    dyn_conv::<1, 1, 4, 1, i32>(
        arena,
        (inputs, output),
        &depthwise_shape!(p),
        0,
        |acc, x, w| {
            let x = i32::from(x[0] as i8).wrapping_sub(p.input_zero_point);
            acc.wrapping_add(i32::from(w[0] as i8).wrapping_mul(x))
        },
        |c, acc, bias| {
            let acc = acc.wrapping_add(bias_i32(bias));
            let v = multiply_by_quantized_multiplier(acc, multipliers[c], i32::from(shifts[c]))
                .wrapping_add(p.output_zero_point);
            [v.max(p.act_min).min(p.act_max) as i8 as u8]
        },
    );
}

/// int16 DEPTHWISE_CONV_2D with int8 weights read at run time (TFLM's 16x8
/// `DepthwiseConvPerChannel`: 64-bit sums, an INT64 bias or none), as [`conv2d_dyn_s16`].
#[cfg_attr(target_os = "none", inline(never))]
pub fn depthwise_conv2d_dyn_s16(
    arena: &mut [u8],
    inputs: &[Src],
    output: usize,
    p: &DepthwiseConv2dDyn,
) {
    let p = crate::kernels::opaque(p);
    let (multipliers, shifts) = (&p.multipliers[..p.output_c], &p.shifts[..p.output_c]);
    dyn_conv::<2, 1, 8, 2, i64>(
        arena,
        (inputs, output),
        &depthwise_shape!(p),
        0,
        |acc, x, w| {
            acc.wrapping_add(i64::from(
                i32::from(w[0] as i8).wrapping_mul(s16(x, p.input_zero_point)),
            ))
        },
        |c, acc, bias| {
            let bias = bias.map_or(0, |b| {
                i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            });
            let v = scale_16x8(acc.wrapping_add(bias), multipliers[c], shifts[c])
                .wrapping_add(p.output_zero_point);
            (v.max(p.act_min).min(p.act_max) as i16).to_le_bytes()
        },
    );
}

/// float32 DEPTHWISE_CONV_2D with the filter (and bias) read at run time, as TFLM's
/// `reference_ops::DepthwiseConv`: `Σ x * w` in its order, plus the bias, clamped.
#[cfg_attr(target_os = "none", inline(never))]
pub fn depthwise_conv2d_dyn_f32(
    arena: &mut [u8],
    inputs: &[Src],
    output: usize,
    p: &DepthwiseConv2dDynF32,
) {
    let p = crate::kernels::opaque(p);
    let f32_of = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    dyn_conv::<4, 4, 4, 4, f32>(
        arena,
        (inputs, output),
        &depthwise_shape!(p),
        0.0,
        |acc, x, w| acc + f32_of(x) * f32_of(w),
        |_, total, bias| {
            clamp_f32(total + bias.map_or(0.0, f32_of), p.act_min, p.act_max).to_le_bytes()
        },
    );
}

/// The inputs of a convolution's int8 kernel once the packed INT4 filter `inputs[1]` is
/// unpacked into the `n` bytes at `scratch` (see [`conv2d_dyn_w4_s8`]).
fn unpacked_int4<'a>(
    arena: &mut [u8],
    inputs: &[Src<'a>],
    n: usize,
    scratch: usize,
) -> ([Src<'a>; 3], usize) {
    assert!(
        matches!(inputs.len(), 2 | 3),
        "input, filter and an optional bias"
    );
    views::unpack_int4(arena, inputs[1], n, scratch);
    let bias = inputs.get(2).copied().unwrap_or(Src::Bytes(&[]));
    ([inputs[0], Src::Arena(scratch), bias], inputs.len())
}

/// [`conv2d_dyn_s8`] of INT4 weights computed at run time (an INT4 graph input: no TFLM
/// operator writes INT4), packed two to a byte, low nibble first: TFLM's Eval unpacks the filter
/// (`UnpackDenseInt4IntoInt8`) into a scratch buffer at every call and runs its int8 kernel on it,
/// and so does this, into the `output_c * filter_h * filter_w * filter_c` bytes at `scratch`.
/// `inputs` are input, packed filter and the optional INT32 bias.
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_dyn_w4_s8(
    arena: &mut [u8],
    inputs: &[Src],
    output: usize,
    scratch: usize,
    p: &Conv2dDyn,
) {
    let n = p.output_c * p.filter_h * p.filter_w * p.filter_c;
    let (inputs, len) = unpacked_int4(arena, inputs, n, scratch);
    conv2d_dyn_s8(arena, &inputs[..len], output, p);
}

/// [`depthwise_conv2d_dyn_s8`] of INT4 weights computed at run time, unpacked into the
/// `filter_h * filter_w * output_c` bytes at `scratch` as [`conv2d_dyn_w4_s8`] does (the
/// filter's first slice, the one TFLM reads).
#[cfg_attr(target_os = "none", inline(never))]
pub fn depthwise_conv2d_dyn_w4_s8(
    arena: &mut [u8],
    inputs: &[Src],
    output: usize,
    scratch: usize,
    p: &DepthwiseConv2dDyn,
) {
    let n = p.filter_h * p.filter_w * p.output_c;
    let (inputs, len) = unpacked_int4(arena, inputs, n, scratch);
    depthwise_conv2d_dyn_s8(arena, &inputs[..len], output, p);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1-channel 3×3 image, a 2×2 filter with stride 1 and no padding (output 2×2), int8.
    fn params() -> Conv2dDyn<'static> {
        Conv2dDyn {
            batches: 1,
            input_h: 3,
            input_w: 3,
            input_c: 1,
            output_h: 2,
            output_w: 2,
            output_c: 1,
            filter_h: 2,
            filter_w: 2,
            filter_c: 1,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            multipliers: &[1 << 30],
            shifts: &[1],
            input_zero_point: 1,
            output_zero_point: -3,
            act_min: -128,
            act_max: 127,
        }
    }

    /// The taps term by term less the input zero point, the bias read from the arena.
    #[test]
    fn dyn_s8_sums_the_window_and_adds_the_bias() {
        // Input 1..=9 at 0, filter [1, -1, 2, 0] at 12, bias 5 at 16, output at 24.
        let mut arena = [0u8; 28];
        for (a, v) in arena.iter_mut().zip(1u8..=9) {
            *a = v;
        }
        for (a, v) in arena[12..].iter_mut().zip([1i8, -1, 2, 0]) {
            *a = v as u8;
        }
        arena[16..20].copy_from_slice(&5i32.to_le_bytes());
        let inputs = [Src::Arena(0), Src::Arena(12), Src::Arena(16)];
        conv2d_dyn_s8(&mut arena, &inputs, 24, &params());
        // Inputs less the zero point are 0..=8; each window is w00 - w01 + 2 w10, plus 5, times 1:
        // (0,0): 0 - 1 + 6 = 5, + 5 = 10 -> 10 - 3 = 7; (0,1): 1 - 2 + 8 + 5 = 12 -> 9;
        // (1,0): 3 - 4 + 12 + 5 = 16 -> 13; (1,1): 4 - 5 + 14 + 5 = 18 -> 15.
        let out: [i8; 4] = core::array::from_fn(|i| arena[24 + i] as i8);
        assert_eq!(out, [7, 9, 13, 15]);
    }

    /// INT4 weights computed at run time: the packed filter (in the arena here) is unpacked into
    /// the scratch bytes, low nibble first, and summed as the int8 kernel sums it.
    #[test]
    fn dyn_w4_s8_unpacks_the_filter_into_scratch() {
        // Input 1..=9 at 0, packed filter [1, -1 | 2, 0] at 12, bias 5 at 16, output at 24,
        // scratch at 28.
        let mut arena = [0u8; 32];
        for (a, v) in arena.iter_mut().zip(1u8..=9) {
            *a = v;
        }
        arena[12] = 0xF1;
        arena[13] = 0x02;
        arena[16..20].copy_from_slice(&5i32.to_le_bytes());
        let inputs = [Src::Arena(0), Src::Arena(12), Src::Arena(16)];
        conv2d_dyn_w4_s8(&mut arena, &inputs, 24, 28, &params());
        assert_eq!(arena[28..32], [1, -1i8 as u8, 2, 0]);
        let out: [i8; 4] = core::array::from_fn(|i| arena[24 + i] as i8);
        assert_eq!(out, [7, 9, 13, 15]);
    }

    /// Padding: the taps outside the image are skipped (not the zero point); 64-bit sums.
    #[test]
    fn dyn_s16_skips_taps_outside_the_image() {
        let mut arena = [0u8; 32];
        for (a, v) in arena.chunks_exact_mut(2).zip([100i16, 200, 300, 400]) {
            a.copy_from_slice(&v.to_le_bytes());
        }
        let filter = [1i8, 1, 1, 1].map(|w| w as u8);
        let p = Conv2dDyn {
            input_h: 2,
            input_w: 2,
            pad_top: 1,
            pad_left: 1,
            multipliers: &[0x4000],
            shifts: &[15],
            input_zero_point: 0,
            output_zero_point: 0,
            act_min: -32768,
            act_max: 32767,
            ..params()
        };
        conv2d_dyn_s16(&mut arena, &[Src::Arena(0), Src::Bytes(&filter)], 8, &p);
        // Multiplier 0x4000 with right shift 15: half. Outputs: 100/2, 300/2, 400/2, 1000/2.
        let out: [i16; 4] =
            core::array::from_fn(|i| i16::from_le_bytes([arena[8 + 2 * i], arena[9 + 2 * i]]));
        assert_eq!(out, [50, 150, 200, 500]);
    }

    #[test]
    fn dyn_f32_adds_the_bias_and_clamps() {
        let mut arena = [0u8; 64];
        for (i, v) in [1.0f32, 2.0, 3.0, 4.0].iter().enumerate() {
            arena[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let mut filter = [0u8; 8];
        filter[..4].copy_from_slice(&0.5f32.to_le_bytes());
        filter[4..].copy_from_slice(&(-1.0f32).to_le_bytes());
        let bias = 0.25f32.to_le_bytes();
        let p = Conv2dDynF32 {
            batches: 1,
            input_h: 2,
            input_w: 2,
            input_c: 1,
            output_h: 2,
            output_w: 1,
            output_c: 1,
            filter_h: 1,
            filter_w: 2,
            filter_c: 1,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            act_min: -2.0,
            act_max: 6.0,
        };
        let inputs = [Src::Arena(0), Src::Bytes(&filter), Src::Bytes(&bias)];
        conv2d_dyn_f32(&mut arena, &inputs, 32, &p);
        // Row 0: 0.5 - 2 + 0.25 = -1.25; row 1: 1.5 - 4 + 0.25 = -2.25, clamped to -2.
        let out: [f32; 2] = core::array::from_fn(|i| {
            f32::from_le_bytes(arena[32 + 4 * i..36 + 4 * i].try_into().unwrap())
        });
        assert_eq!(out, [-1.25, -2.0]);
    }

    /// Depthwise: output channel `oc` reads input channel `oc / depth_multiplier` and filter
    /// column `oc`; one 2×1 window over a 2×1 image of 2 channels, multiplier 2.
    #[test]
    fn dyn_depthwise_s8_reads_its_input_channel_and_filter_column() {
        let mut arena = [0u8; 32];
        // Input [1, 2, 1, 2]: (1, 2), (3, 4); filter [1, 2, 1, 4]: rows (1, 2, 3, 4), (5, 6, 7, 8).
        for (a, v) in arena.iter_mut().zip([1u8, 2, 3, 4]) {
            *a = v;
        }
        for (a, v) in arena[8..].iter_mut().zip(1u8..=8) {
            *a = v;
        }
        let p = DepthwiseConv2dDyn {
            batches: 1,
            input_h: 2,
            input_w: 1,
            input_c: 2,
            output_h: 1,
            output_w: 1,
            output_c: 4,
            filter_h: 2,
            filter_w: 1,
            depth_multiplier: 2,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            multipliers: &[1 << 30; 4],
            shifts: &[1; 4],
            input_zero_point: 0,
            output_zero_point: 0,
            act_min: -128,
            act_max: 127,
        };
        depthwise_conv2d_dyn_s8(&mut arena, &[Src::Arena(0), Src::Arena(8)], 24, &p);
        // Channel 0: 1*1 + 3*5 = 16; 1: 1*2 + 3*6 = 20; 2: 2*3 + 4*7 = 34; 3: 2*4 + 4*8 = 40.
        assert_eq!(arena[24..28], [16, 20, 34, 40]);
    }
}

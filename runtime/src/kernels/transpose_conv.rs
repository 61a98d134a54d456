//! TRANSPOSE_CONV: int8 with per-channel requantization (TFLM's
//! `reference_integer_ops::TransposeConv`), int16 with int8 weights (its 16x8 variant, 64-bit sums)
//! and float32 (`reference_ops::TransposeConv`).
//!
//! Layouts: input `[batches, input_h, input_w, input_c]`, filter `[output_c, filter_h, filter_w,
//! input_c]`, output `[batches, output_h, output_w, output_c]`. Input pixel `(y, x)` meets filter
//! tap `(ky, kx)` at output pixel `(y * stride_h - pad_top + ky, x * stride_w - pad_left + kx)`.
//!
//! TFLM scatters: it clears a sum per output element (an int32 or int64 scratch buffer as large as
//! the output, or the float output itself), then adds every input pixel's products into the sums it
//! reaches. These kernels gather instead: each output element sums the products that reach it, in
//! the order TFLM adds them (input row, then input column, then input channel), so the integer
//! sums are TFLM's exactly and the float ones round the same way, with no scratch memory at all.
//!
//! Access order: output pixels in order, each written after reading every input pixel that reaches
//! it; later pixels read the input again, so the output must not overlap the input (checked).

use super::nn_common::requant::{requantize_16x8, scale_16x8};
use super::nn_common::{clamp_f32, dot2_swizzled_s16, dot_s16, dot_s8, views, Requantizer};

/// Constant parameters of [`transpose_conv_s8`].
#[derive(Clone, Copy, Debug)]
pub struct TransposeConvS8<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels (the filter's last dimension).
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (the filter's first dimension).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Vertical stride (output rows between consecutive input rows).
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Output rows cut from the top of the full (unpadded) result.
    pub pad_top: usize,
    /// Output columns cut from the left.
    pub pad_left: usize,
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Filter weights, `[output_c, filter_h, filter_w, input_c]` (zero point 0).
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

/// Constant parameters of [`transpose_conv_s16`]: zero points 0 (generation-time check).
#[derive(Clone, Copy, Debug)]
pub struct TransposeConvS16<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels (the filter's last dimension).
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (the filter's first dimension).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Vertical stride (output rows between consecutive input rows).
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Output rows cut from the top of the full (unpadded) result.
    pub pad_top: usize,
    /// Output columns cut from the left.
    pub pad_left: usize,
    /// Filter weights, `[output_c, filter_h, filter_w, input_c]` (zero point 0).
    pub filter: &'a [i8],
    /// Per-output-channel 64-bit bias (an int16 bias widened at generation time, as TFLM widens
    /// it at every call).
    pub bias: Option<&'a [i64]>,
    /// Per-output-channel multipliers reduced to 16 bits (`0..=0x7FFF`).
    pub multipliers: &'a [i32],
    /// Per-output-channel right shifts of the product, `15 - shift` (within `1..=46`).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// Whether each filter row's whole groups of four are stored as weights 0, 2, 1, 3 (the
    /// runtime's `dot2_swizzled_s16`), for `input_c` a multiple of 4 and at most 508
    /// (generation-time check): then each tap's weights are whole groups whose 32-bit sum cannot
    /// overflow, taken for two output channels at a time.
    pub swizzled: bool,
}

/// Constant parameters of [`transpose_conv_f32`].
#[derive(Clone, Copy, Debug)]
pub struct TransposeConvF32<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels (the filter's last dimension).
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (the filter's first dimension).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Vertical stride (output rows between consecutive input rows).
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Output rows cut from the top of the full (unpadded) result.
    pub pad_top: usize,
    /// Output columns cut from the left.
    pub pad_left: usize,
    /// Filter weights, `[output_c, filter_h, filter_w, input_c]`.
    pub filter: &'a [f32],
    /// Per-output-channel bias.
    pub bias: Option<&'a [f32]>,
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
}

/// The input pixels that reach output coordinate `out` along one axis: `(first, last + 1)` of the
/// input coordinates `i` with `0 <= out + pad - i * stride < filter` and `0 <= i < input`.
#[inline(always)]
fn sources(out: usize, pad: usize, stride: usize, filter: usize, input: usize) -> (usize, usize) {
    // `out + pad - i * stride` is the filter tap: at most `filter - 1`, at least 0.
    let at = out + pad;
    let first = (at + 1).saturating_sub(filter).div_ceil(stride);
    let end = (at / stride + 1).min(input);
    (first, end.max(first))
}

/// The loop all three kernels share: for each output pixel, `$k` output channels at a time (the
/// last channel repeated to fill the last pass), `$k` sums starting at `$zero` take
/// `$acc = $mac` for each contributing input pixel in TFLM's order, with `$w` the `$k` channels'
/// `input_c` weights for it and `$x` the bytes of its `input_c` input elements; then `$finish`
/// stores sum `$sum` of each channel `$oc` into the element's bytes `$o`. `$elem` is the element
/// size in bytes.
macro_rules! gather {
    ($p:expr, ($arena:expr, $input:expr, $output:expr), ($elem:expr, $k:expr), $zero:expr,
     |$acc:ident, $w:ident, $x:ident| $mac:expr,
     |$oc:ident, $sum:ident, $o:ident| $finish:expr) => {{
        let p = $p;
        ensure!(
            p.stride_h > 0 && p.stride_w > 0,
            "strides must be at least 1"
        );
        let in_image = p.input_h * p.input_w * p.input_c;
        let in_len = $elem * p.batches * in_image;
        let out_len = $elem * p.batches * p.output_h * p.output_w * p.output_c;
        let (inp, out) = views::split($arena, $input, in_len, $output, out_len);
        let filter_oc = p.filter_h * p.filter_w * p.input_c;
        let filter = &p.filter[..p.output_c * filter_oc];
        let in_row = p.input_w * p.input_c;
        let mut out_px = out.chunks_exact_mut($elem * p.output_c);
        for b in 0..p.batches {
            let image = &inp[$elem * b * in_image..][..$elem * in_image];
            for oy in 0..p.output_h {
                let (y0, y1) = sources(oy, p.pad_top, p.stride_h, p.filter_h, p.input_h);
                for ox in 0..p.output_w {
                    let (x0, x1) = sources(ox, p.pad_left, p.stride_w, p.filter_w, p.input_w);
                    let px = out_px.next().expect("output size");
                    for (pass, outs) in px.chunks_mut($k * $elem).enumerate() {
                        let channels: [usize; $k] =
                            core::array::from_fn(|i| ($k * pass + i).min(p.output_c - 1));
                        let w_oc = channels.map(|oc| &filter[oc * filter_oc..][..filter_oc]);
                        let mut $acc = [$zero; $k];
                        for y in y0..y1 {
                            let ky = oy + p.pad_top - y * p.stride_h;
                            let row = &image[$elem * y * in_row..][..$elem * in_row];
                            for x in x0..x1 {
                                let kx = ox + p.pad_left - x * p.stride_w;
                                let tap = (ky * p.filter_w + kx) * p.input_c;
                                let $w = w_oc.map(|w| &w[tap..][..p.input_c]);
                                let $x = &row[$elem * x * p.input_c..][..$elem * p.input_c];
                                $acc = $mac;
                            }
                        }
                        for (($oc, $sum), $o) in channels
                            .into_iter()
                            .zip($acc)
                            .zip(outs.chunks_exact_mut($elem))
                        {
                            $finish;
                        }
                    }
                }
            }
        }
    }};
}

/// int8 TRANSPOSE_CONV, bit-exact with TFLM's `reference_integer_ops::TransposeConv` (int32 sums of
/// `w * (x - input_zero_point)`, then the bias and per-channel requantization). Reads
/// `batches * input_h * input_w * input_c` bytes at `input`, writes
/// `batches * output_h * output_w * output_c` bytes at `output` (module docs: the order).
#[cfg_attr(target_os = "none", inline(never))]
pub fn transpose_conv_s8(arena: &mut [u8], input: usize, output: usize, p: &TransposeConvS8) {
    let p = super::opaque(p);
    // int8 zero points keep `x - zero_point` within i16 (see `dot_s8`).
    ensure!(
        (-128..=127).contains(&p.input_zero_point),
        "input zero point out of int8 range"
    );
    let requantizer = Requantizer::new(
        p.output_c,
        p.bias,
        p.multipliers,
        p.shifts,
        p.output_zero_point,
        (p.act_min, p.act_max),
    );
    let offset = -p.input_zero_point;
    gather!(
        p,
        (arena, input, output),
        (1, 1),
        0i32,
        |acc, w, x| [acc[0].wrapping_add(dot_s8(w[0], x, offset))],
        |oc, sum, o| o[0] = requantizer.one(oc, sum)
    );
}

/// int16 TRANSPOSE_CONV with int8 weights, bit-exact with TFLM's 16x8
/// `reference_integer_ops::TransposeConv` (64-bit sums and bias, no zero points,
/// `requantize_16x8`). Reads `2 * batches * input_h * input_w * input_c` bytes at `input`, writes
/// `2 * batches * output_h * output_w * output_c` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn transpose_conv_s16(arena: &mut [u8], input: usize, output: usize, p: &TransposeConvS16) {
    let p = super::opaque(p);
    let bias = p.bias.map(|b| &b[..p.output_c]);
    let (multipliers, shifts) = (&p.multipliers[..p.output_c], &p.shifts[..p.output_c]);
    let act = (p.act_min, p.act_max);
    // Swizzled weights: two channels at a time, each tap one run of whole groups of four whose
    // sum fits 32 bits. Otherwise one channel at a time.
    if p.swizzled {
        gather!(
            p,
            (arena, input, output),
            (2, 2),
            0i64,
            |acc, w, x| {
                let [s0, s1] = dot2_swizzled_s16(x, w[0], w[1]);
                [acc[0] + i64::from(s0), acc[1] + i64::from(s1)]
            },
            |oc, sum, o| {
                let sum = sum.wrapping_add(bias.map_or(0, |b| b[oc]));
                let v = requantize_16x8(sum, multipliers[oc], shifts[oc], act);
                o.copy_from_slice(&v.to_le_bytes());
            }
        );
        return;
    }
    gather!(
        p,
        (arena, input, output),
        (2, 1),
        0i64,
        |acc, w, x| [acc[0] + dot_s16(w[0], x)],
        |oc, sum, o| {
            let sum = sum.wrapping_add(bias.map_or(0, |b| b[oc]));
            let v = requantize_16x8(sum, multipliers[oc], shifts[oc], act);
            o.copy_from_slice(&v.to_le_bytes());
        }
    );
}

/// float32 TRANSPOSE_CONV, as TFLM's `reference_ops::TransposeConv`: each output element sums its
/// products from 0 in TFLM's order (input row, input column, input channel), then adds the bias and
/// clamps. Reads `4 * batches * input_h * input_w * input_c` bytes at `input`, writes
/// `4 * batches * output_h * output_w * output_c` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn transpose_conv_f32(arena: &mut [u8], input: usize, output: usize, p: &TransposeConvF32) {
    let p = super::opaque(p);
    let bias = p.bias.map(|b| &b[..p.output_c]);
    gather!(
        p,
        (arena, input, output),
        (4, 1),
        0.0f32,
        |acc, w, x| [w[0]
            .iter()
            .zip(views::f32s(x))
            .fold(acc[0], |acc, (&w, x)| acc + x * w)],
        |oc, sum, o| {
            let v = clamp_f32(sum + bias.map_or(0.0, |b| b[oc]), p.act_min, p.act_max);
            o.copy_from_slice(&v.to_le_bytes());
        }
    );
}

/// Constant parameters of [`transpose_conv_dyn_s8`], [`transpose_conv_dyn_s16`] and
/// [`transpose_conv_dyn_s16_bias16`], whose filter and bias are read at run time.
#[derive(Clone, Copy, Debug)]
pub struct TransposeConvDyn<'a> {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels (the filter's last dimension).
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (the filter's first dimension).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Vertical stride (output rows between consecutive input rows).
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Output rows cut from the top of the full (unpadded) result.
    pub pad_top: usize,
    /// Output columns cut from the left.
    pub pad_left: usize,
    /// Per-output-channel multipliers: Q31 for int8, reduced to 16 bits for int16 (as
    /// [`TransposeConvS16::multipliers`]).
    pub multipliers: &'a [i32],
    /// Per-output-channel shifts: TFLM's (positive = left) for int8, the right shift
    /// `15 - shift` for int16.
    pub shifts: &'a [i8],
    /// Input zero point, subtracted from every input (0 for int16, whose kernel applies none).
    pub input_zero_point: i32,
    /// Output zero point, added after the requantization (0 for int16).
    pub output_zero_point: i32,
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

/// Constant parameters of [`transpose_conv_dyn_f32`]: the geometry of [`TransposeConvDyn`] and
/// the clamp.
#[derive(Clone, Copy, Debug)]
pub struct TransposeConvDynF32 {
    /// Batch size (input and output).
    pub batches: usize,
    /// Input height.
    pub input_h: usize,
    /// Input width.
    pub input_w: usize,
    /// Input channels (the filter's last dimension).
    pub input_c: usize,
    /// Output height.
    pub output_h: usize,
    /// Output width.
    pub output_w: usize,
    /// Output channels (the filter's first dimension).
    pub output_c: usize,
    /// Filter height.
    pub filter_h: usize,
    /// Filter width.
    pub filter_w: usize,
    /// Vertical stride (output rows between consecutive input rows).
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Output rows cut from the top of the full (unpadded) result.
    pub pad_top: usize,
    /// Output columns cut from the left.
    pub pad_left: usize,
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
}

/// The geometry of a `transpose_conv_dyn_*` call: `[batches, input_h, input_w, input_c,
/// output_h, output_w, output_c, filter_h, filter_w, stride_h, stride_w, pad_top, pad_left]`.
macro_rules! dyn_geometry {
    ($p:expr) => {{
        let p = $p;
        [
            p.batches, p.input_h, p.input_w, p.input_c, p.output_h, p.output_w, p.output_c,
            p.filter_h, p.filter_w, p.stride_h, p.stride_w, p.pad_top, p.pad_left,
        ]
    }};
}

/// The walk of the `transpose_conv_dyn_*` kernels, whose filter and bias TFLM's Eval reads
/// wherever they are: for each output element (batch, row, column, channel `oc`),
/// `acc = term(acc, x, w)` from `zero` over the products that reach it in TFLM's order (input row,
/// input column, input channel; see [`sources`]), then writes `finish(oc, acc, bias element oc)`.
/// `IN`, `W`, `B`, `OUT`: bytes per input, weight, bias and output element. `inputs` are input,
/// filter `[output_c, filter_h, filter_w, input_c]` and the optional bias (two or three:
/// asserted), borrowed again for each output element as the output is written between them.
#[inline(always)]
fn dyn_gather<const IN: usize, const W: usize, const B: usize, const OUT: usize, A: Copy>(
    arena: &mut [u8],
    (inputs, output): (&[crate::Src], usize),
    dims: [usize; 13],
    zero: A,
    term: impl Fn(A, &[u8], &[u8]) -> A,
    finish: impl Fn(usize, A, Option<&[u8]>) -> [u8; OUT],
) {
    let [batches, ih, iw, ic, oh, ow, oc_n, fh, fw, sh, sw, pt, pl] = dims;
    ensure!(
        matches!(inputs.len(), 2 | 3),
        "input, filter and an optional bias"
    );
    ensure!(sh > 0 && sw > 0, "strides must be at least 1");
    let in_len = IN * batches * ih * iw * ic;
    let w_len = W * oc_n * fh * fw * ic;
    let out_len = OUT * batches * oh * ow * oc_n;
    for (src, &len) in inputs.iter().zip(&[in_len, w_len, B * oc_n]) {
        if let crate::Src::Arena(offset) = *src {
            ensure!(
                !views::overlapping(offset, len, output, out_len),
                "kernel input and output overlap"
            );
        }
    }
    let bias = inputs.get(2).copied();
    let mut o = output;
    for b in 0..batches {
        for oy in 0..oh {
            let (y0, y1) = sources(oy, pt, sh, fh, ih);
            for ox in 0..ow {
                let (x0, x1) = sources(ox, pl, sw, fw, iw);
                for oc in 0..oc_n {
                    let v = {
                        let x = inputs[0].bytes(arena, in_len);
                        let w = inputs[1].bytes(arena, w_len);
                        let mut acc = zero;
                        for y in y0..y1 {
                            let ky = oy + pt - y * sh;
                            for xx in x0..x1 {
                                let kx = ox + pl - xx * sw;
                                let pixel = ((b * ih + y) * iw + xx) * ic;
                                let tap = ((oc * fh + ky) * fw + kx) * ic;
                                for c in 0..ic {
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

/// int8 TRANSPOSE_CONV with the filter (and bias) read at run time, bit-exact with TFLM's
/// `reference_integer_ops::TransposeConv`: each output is
/// `MultiplyByQuantizedMultiplier(Σ w * (x - input_zero_point) + bias)` (wrapping at 32 bits)
/// plus the output zero point, clamped. `inputs`: the int8 input, the int8 filter, the optional
/// INT32 bias.
#[cfg_attr(target_os = "none", inline(never))]
pub fn transpose_conv_dyn_s8(
    arena: &mut [u8],
    inputs: &[crate::Src],
    output: usize,
    p: &TransposeConvDyn,
) {
    let p = super::opaque(p);
    let (multipliers, shifts) = (&p.multipliers[..p.output_c], &p.shifts[..p.output_c]);
    dyn_gather::<1, 1, 4, 1, i32>(
        arena,
        (inputs, output),
        dyn_geometry!(p),
        0,
        |acc, x, w| {
            let x = i32::from(x[0] as i8).wrapping_sub(p.input_zero_point);
            acc.wrapping_add(i32::from(w[0] as i8).wrapping_mul(x))
        },
        |c, acc, bias| {
            let bias = bias.map_or(0, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            let v = crate::math::multiply_by_quantized_multiplier(
                acc.wrapping_add(bias),
                multipliers[c],
                i32::from(shifts[c]),
            )
            .wrapping_add(p.output_zero_point);
            [v.max(p.act_min).min(p.act_max) as i8 as u8]
        },
    );
}

/// The 16x8 walk of [`transpose_conv_dyn_s16`] and [`transpose_conv_dyn_s16_bias16`]: 64-bit sums
/// of `w * x`, the bias element read by `bias` (`B` bytes), requantized by `requantize_16x8`.
#[inline(always)]
fn dyn_s16<const B: usize>(
    arena: &mut [u8],
    (inputs, output): (&[crate::Src], usize),
    p: &TransposeConvDyn,
    bias: impl Fn(&[u8]) -> i64,
) {
    let (multipliers, shifts) = (&p.multipliers[..p.output_c], &p.shifts[..p.output_c]);
    dyn_gather::<2, 1, B, 2, i64>(
        arena,
        (inputs, output),
        dyn_geometry!(p),
        0,
        // Each product is within 2^22 in magnitude: exact in 32 bits, summed in 64 as TFLM does.
        |acc, x, w| {
            let x = i32::from(i16::from_le_bytes([x[0], x[1]])).wrapping_sub(p.input_zero_point);
            acc.wrapping_add(i64::from(i32::from(w[0] as i8).wrapping_mul(x)))
        },
        |c, acc, b| {
            let acc = acc.wrapping_add(b.map_or(0, &bias));
            let v = scale_16x8(acc, multipliers[c], shifts[c]).wrapping_add(p.output_zero_point);
            (v.max(p.act_min).min(p.act_max) as i16).to_le_bytes()
        },
    );
}

/// int16 TRANSPOSE_CONV with int8 weights read at run time and an INT64 bias or none, bit-exact
/// with TFLM's 16x8 `reference_integer_ops::TransposeConv` (64-bit sums of `w * x`, the bias, the
/// 64-bit `MultiplyByQuantizedMultiplier`, clamped).
#[cfg_attr(target_os = "none", inline(never))]
pub fn transpose_conv_dyn_s16(
    arena: &mut [u8],
    inputs: &[crate::Src],
    output: usize,
    p: &TransposeConvDyn,
) {
    let p = super::opaque(p);
    dyn_s16::<8>(arena, (inputs, output), p, |b| {
        i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    });
}

/// [`transpose_conv_dyn_s16`] with an INT16 bias, which TFLM's Eval widens to 64 bits at every
/// call before the same kernel.
#[cfg_attr(target_os = "none", inline(never))]
pub fn transpose_conv_dyn_s16_bias16(
    arena: &mut [u8],
    inputs: &[crate::Src],
    output: usize,
    p: &TransposeConvDyn,
) {
    let p = super::opaque(p);
    dyn_s16::<2>(arena, (inputs, output), p, |b| {
        i64::from(i16::from_le_bytes([b[0], b[1]]))
    });
}

/// float32 TRANSPOSE_CONV with the filter (and bias) read at run time, as TFLM's
/// `reference_ops::TransposeConv`: each output element sums its products from 0 in TFLM's order,
/// then adds the bias and clamps.
#[cfg_attr(target_os = "none", inline(never))]
pub fn transpose_conv_dyn_f32(
    arena: &mut [u8],
    inputs: &[crate::Src],
    output: usize,
    p: &TransposeConvDynF32,
) {
    let p = super::opaque(p);
    let f32_of = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    dyn_gather::<4, 4, 4, 4, f32>(
        arena,
        (inputs, output),
        dyn_geometry!(p),
        0.0,
        |acc, x, w| acc + f32_of(x) * f32_of(w),
        |_, sum, bias| {
            clamp_f32(sum + bias.map_or(0.0, f32_of), p.act_min, p.act_max).to_le_bytes()
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_the_input_pixels_whose_taps_land_on_the_output() {
        // Stride 2, filter 3, no padding: output 0 comes from input 0 (tap 0), output 2 from
        // inputs 0 (tap 2) and 1 (tap 0), output 3 from input 1 (tap 1).
        assert_eq!(sources(0, 0, 2, 3, 4), (0, 1));
        assert_eq!(sources(2, 0, 2, 3, 4), (0, 2));
        assert_eq!(sources(3, 0, 2, 3, 4), (1, 2));
        // The last input pixel bounds the range; padding moves the taps.
        assert_eq!(sources(8, 0, 2, 3, 4), (3, 4));
        assert_eq!(sources(0, 1, 2, 3, 4), (0, 1));
        // A stride larger than the filter leaves gaps with no source.
        assert_eq!(sources(1, 0, 3, 1, 4), (1, 1));
    }

    /// A 1x2x2x1 input, 2x2 filter of 1, 2, 3, 4, stride 2, no padding: each input pixel stamps
    /// the filter scaled by itself into its own 2x2 block of the 4x4 output.
    #[test]
    fn f32_stride_equal_to_filter_stamps_blocks() {
        let input = [1.0f32, 2.0, 3.0, 4.0];
        let mut arena = [0u8; 16 + 64];
        for (a, x) in arena.chunks_exact_mut(4).zip(input) {
            a.copy_from_slice(&x.to_le_bytes());
        }
        let p = TransposeConvF32 {
            batches: 1,
            input_h: 2,
            input_w: 2,
            input_c: 1,
            output_h: 4,
            output_w: 4,
            output_c: 1,
            filter_h: 2,
            filter_w: 2,
            stride_h: 2,
            stride_w: 2,
            pad_top: 0,
            pad_left: 0,
            filter: &[1.0, 2.0, 3.0, 4.0],
            bias: Some(&[0.5]),
            act_min: f32::MIN,
            act_max: f32::MAX,
        };
        transpose_conv_f32(&mut arena, 0, 16, &p);
        let out: [f32; 16] = core::array::from_fn(|i| {
            f32::from_le_bytes(arena[16 + 4 * i..][..4].try_into().unwrap())
        });
        #[rustfmt::skip]
        let want = [
            1.5, 2.5, 2.5, 4.5,
            3.5, 4.5, 6.5, 8.5,
            3.5, 6.5, 4.5, 8.5,
            9.5, 12.5, 12.5, 16.5,
        ];
        assert_eq!(out, want);
    }

    /// Stride 1 with a 2-tap filter overlaps: output 1 sums input 0's tap 1 and input 1's tap 0,
    /// in 64 bits, before the 16x8 requantization (multiplier 2^14, shift 15: a halving).
    #[test]
    fn s16_overlapping_taps_sum_before_requantizing() {
        let mut arena = [0u8; 4 + 6];
        arena[..2].copy_from_slice(&1000i16.to_le_bytes());
        arena[2..4].copy_from_slice(&(-3000i16).to_le_bytes());
        let p = TransposeConvS16 {
            batches: 1,
            input_h: 1,
            input_w: 2,
            input_c: 1,
            output_h: 1,
            output_w: 3,
            output_c: 1,
            filter_h: 1,
            filter_w: 2,
            stride_h: 1,
            stride_w: 1,
            pad_top: 0,
            pad_left: 0,
            filter: &[3, 5],
            bias: Some(&[10]),
            multipliers: &[1 << 14],
            shifts: &[15],
            act_min: -32768,
            act_max: 32767,
            swizzled: false,
        };
        transpose_conv_s16(&mut arena, 0, 4, &p);
        let out: [i16; 3] =
            core::array::from_fn(|i| i16::from_le_bytes([arena[4 + 2 * i], arena[5 + 2 * i]]));
        // 3000 + 10, 5000 - 9000 + 10, -15000 + 10, each halved (rounding half up).
        assert_eq!(out, [1505, -1995, -7495]);
    }

    /// Swizzled weights (two channels at a time, 32-bit tap sums) give the plain path's bytes:
    /// stride 2 with overlapping 3x3 taps, padding, an odd channel count, extreme values.
    #[test]
    fn s16_swizzled_taps_match_the_plain_path() {
        extern crate std;
        use std::vec::Vec;
        let (ih, iw, c, m, oh, ow) = (3, 4, 8, 3, 6, 8);
        let n_in = 2 * ih * iw * c;
        let n_out = 2 * oh * ow * m;
        let mut arena = [0u8; 2 * 3 * 4 * 8 + 2 * 2 * 6 * 8 * 3];
        let mut seed = 0x9e37_79b9u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for (i, x) in arena[..n_in].chunks_exact_mut(2).enumerate() {
            let v = if i % 5 == 0 { i16::MIN } else { next() as i16 };
            x.copy_from_slice(&v.to_le_bytes());
        }
        let filter: Vec<i8> = (0..m * 9 * c)
            .map(|i| if i % 7 == 0 { -128 } else { next() as i8 })
            .collect();
        let mut swizzled = filter.clone();
        for q in swizzled.chunks_exact_mut(4) {
            q.swap(1, 2);
        }
        let plain = TransposeConvS16 {
            batches: 1,
            input_h: ih,
            input_w: iw,
            input_c: c,
            output_h: oh,
            output_w: ow,
            output_c: m,
            filter_h: 3,
            filter_w: 3,
            stride_h: 2,
            stride_w: 2,
            pad_top: 0,
            pad_left: 1,
            filter: &filter,
            bias: Some(&[5, -70_000, 1 << 40]),
            multipliers: &[0x4000, 0x7fff, 0x1234],
            shifts: &[22, 23, 45],
            act_min: -32768,
            act_max: 32767,
            swizzled: false,
        };
        transpose_conv_s16(&mut arena, 0, n_in, &plain);
        let fast = TransposeConvS16 {
            filter: &swizzled,
            swizzled: true,
            ..plain
        };
        transpose_conv_s16(&mut arena, 0, n_in + n_out, &fast);
        let (want, got) = arena[n_in..].split_at(n_out);
        assert_eq!(want, got);
        assert!(want.iter().any(|&b| b != 0));
    }
}

//! FULLY_CONNECTED: float32 (`reference_ops::FullyConnected`) and int16 with int8 weights (TFLM's
//! "16x8" `reference_integer_ops::FullyConnected` / `FullyConnectedPerChannel`, with 64-bit or
//! 32-bit sums). The int8 operator runs on [`super::conv::conv2d_1x1_s8`]: its product is a 1×1
//! convolution's, and TFLM's int8 kernels requantize it the same way once a per-tensor multiplier
//! is repeated for every channel.
//!
//! Layouts: input `[batches, input_depth]` (any shape with that many elements), filter
//! `[output_depth, input_depth]`, output `[batches, output_depth]`.
//!
//! Access order: for each batch row, reads the whole input row, writing that row's outputs in order;
//! the output must not overlap the input (checked).
//!
//! Weights computed at run time (an operator's output, a graph input: TFLM's kernels read the
//! filter tensor at Eval, whatever produced it) go to the `fully_connected_dyn_*` kernels, which
//! read input, weights and bias as [`Src`] (`inputs`: the operator's inputs as TFLM reads them,
//! the bias last if there is one) and compute TFLM's sums term by term as its reference kernels
//! write them, with nothing precomputed from the weights; a bias computed at run time goes there
//! too, read as TFLM's Eval reads it. None of them may overlap the output (checked).

use super::nn_common::requant::scale_16x8;
use super::nn_common::{clamp_f32, dot2_swizzled_s16, views};
use crate::math::multiply_by_quantized_multiplier;
use crate::Src;

/// Constant parameters of [`fully_connected_s16`]: an int16 FULLY_CONNECTED with int8 weights and
/// TFLM's 64-bit sums (an INT64 bias, or none unless the options ask for 32-bit biases).
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedS16<'a> {
    /// Rows of the input (input elements / `input_depth`).
    pub batches: usize,
    /// Elements per input row (the filter's last dimension).
    pub input_depth: usize,
    /// Outputs per row (the filter's first dimension).
    pub output_depth: usize,
    /// Weights, `[output_depth, input_depth]` (zero point 0), each row's whole groups of four
    /// stored as weights 0, 2, 1, 3 (the runtime's `dot2_swizzled_s16`).
    pub filter: &'a [i8],
    /// Per-output 64-bit bias with the input zero point folded in,
    /// `bias[c] - input_zero_point * Σ_d filter[c, d]`: TFLM subtracts the zero point from every
    /// input, and its 64-bit sums are exact, so the fold gives the same sums.
    pub bias: Option<&'a [i64]>,
    /// Per-output multipliers reduced to 16 bits as TFLM's 64-bit `MultiplyByQuantizedMultiplier`
    /// reduces them (`0..=0x7FFF`; one repeated for every output under per-tensor quantization).
    pub multipliers: &'a [i32],
    /// Per-output right shifts of the product, `15 - shift` (within `1..=46`).
    pub shifts: &'a [i8],
    /// Output zero point, added after the requantization (TFLM's int16 FULLY_CONNECTED applies it,
    /// unlike its int16 convolutions).
    pub output_zero_point: i32,
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

/// Constant parameters of [`fully_connected_acc32_s16`]: an int16 FULLY_CONNECTED with int8
/// weights and TFLM's 32-bit sums (an INT32 bias, or none where the options ask for 32-bit biases).
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedAcc32S16<'a> {
    /// Rows of the input (input elements / `input_depth`).
    pub batches: usize,
    /// Elements per input row (the filter's last dimension).
    pub input_depth: usize,
    /// Outputs per row (the filter's first dimension).
    pub output_depth: usize,
    /// Weights, `[output_depth, input_depth]` (zero point 0), each row's whole groups of four
    /// stored as weights 0, 2, 1, 3 (the runtime's `dot2_swizzled_s16`).
    pub filter: &'a [i8],
    /// Per-output 32-bit bias with the input zero point folded in,
    /// `bias[c] - input_zero_point * Σ_d filter[c, d]` wrapped to 32 bits: TFLM's 32-bit sums
    /// wrap, and wrapping sums are the same in any order.
    pub bias: Option<&'a [i32]>,
    /// Per-output Q31 requantization multipliers (TFLM's 32-bit `MultiplyByQuantizedMultiplier`;
    /// one repeated for every output under per-tensor quantization).
    pub multipliers: &'a [i32],
    /// Per-output requantization shifts (positive = left, within -31..=31).
    pub shifts: &'a [i8],
    /// Output zero point, added after the requantization.
    pub output_zero_point: i32,
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

/// Constant parameters of [`fully_connected_f32`].
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedF32<'a> {
    /// Rows of the input (input elements / `input_depth`).
    pub batches: usize,
    /// Elements per input row (the filter's last dimension).
    pub input_depth: usize,
    /// Outputs per row (the filter's first dimension).
    pub output_depth: usize,
    /// Weights, `[output_depth, input_depth]`.
    pub filter: &'a [f32],
    /// Per-output bias.
    pub bias: Option<&'a [f32]>,
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
}

/// float32 FULLY_CONNECTED: each output is `Σ x[d] * w[d]` in order of `d`, plus the bias, clamped.
/// Reads `4 * batches * input_depth` bytes at `input`, writes `4 * batches * output_depth` bytes at
/// `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_f32(arena: &mut [u8], input: usize, output: usize, p: &FullyConnectedF32) {
    let p = super::opaque(p);
    let (depth, outs) = (p.input_depth, p.output_depth);
    let (inp, out) = views::split(
        arena,
        input,
        4 * p.batches * depth,
        output,
        4 * p.batches * outs,
    );
    let filter = &p.filter[..outs * depth];
    let bias = p.bias.map(|b| &b[..outs]);
    for (row, out_row) in inp
        .chunks_exact(4 * depth.max(1))
        .zip(out.chunks_exact_mut(4 * outs.max(1)))
    {
        let row = &row[..4 * depth];
        for (c, o) in out_row.chunks_exact_mut(4).enumerate() {
            let w = &filter[c * depth..][..depth];
            let mut total = 0.0f32;
            for (&w, x) in w.iter().zip(views::f32s(row)) {
                total += x * w;
            }
            let v = clamp_f32(total + bias.map_or(0.0, |b| b[c]), p.act_min, p.act_max);
            o.copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Walks the rows of an int16 FULLY_CONNECTED: for each row and output `c`, writes
/// `requantize(c, Σ_d filter[c, d] * x[d])` (the exact sum) as the output element. Two outputs at
/// a time (the last one twice when their count is odd), over runs of at most 508 inputs whose
/// 32-bit sums cannot overflow (each product is at most 2^22 in magnitude), summed in 64 bits.
#[inline(always)]
fn int16_rows(
    arena: &mut [u8],
    (input, output): (usize, usize),
    (batches, depth, outs): (usize, usize, usize),
    filter: &[i8],
    requantize: impl Fn(usize, i64) -> i16,
) {
    /// Inputs per 32-bit run: whole groups of four, below 2^31 / 2^22.
    const RUN: usize = 508;
    let (inp, out) = views::split(
        arena,
        input,
        2 * batches * depth,
        output,
        2 * batches * outs,
    );
    let filter = &filter[..outs * depth];
    for (row, out_row) in inp
        .chunks_exact(2 * depth.max(1))
        .zip(out.chunks_exact_mut(2 * outs.max(1)))
    {
        let row = &row[..2 * depth];
        for (pair, o) in out_row.chunks_mut(4).enumerate() {
            let c = 2 * pair;
            let c1 = (c + 1).min(outs - 1);
            let (w0, w1) = (
                &filter[c * depth..][..depth],
                &filter[c1 * depth..][..depth],
            );
            let (mut s0, mut s1) = (0i64, 0i64);
            for ((x, w0), w1) in row.chunks(2 * RUN).zip(w0.chunks(RUN)).zip(w1.chunks(RUN)) {
                let [a, b] = dot2_swizzled_s16(x, w0, w1);
                s0 += i64::from(a);
                s1 += i64::from(b);
            }
            o[..2].copy_from_slice(&requantize(c, s0).to_le_bytes());
            if o.len() == 4 {
                o[2..].copy_from_slice(&requantize(c1, s1).to_le_bytes());
            }
        }
    }
}

/// int16 FULLY_CONNECTED with int8 weights and 64-bit sums, bit-exact with TFLM's 16x8
/// `FullyConnected` / `FullyConnectedPerChannel` for an `int64_t` bias: each output is
/// `MultiplyByQuantizedMultiplier(Σ_d w[d] * (x[d] - input_zero_point) + bias)` (its 64-bit
/// overload, `scale_16x8`) plus the output zero point, clamped. Reads
/// `2 * batches * input_depth` bytes at `input`, writes `2 * batches * output_depth` bytes at
/// `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_s16(arena: &mut [u8], input: usize, output: usize, p: &FullyConnectedS16) {
    let p = super::opaque(p);
    let outs = p.output_depth;
    let bias = p.bias.map(|b| &b[..outs]);
    let (multipliers, shifts) = (&p.multipliers[..outs], &p.shifts[..outs]);
    int16_rows(
        arena,
        (input, output),
        (p.batches, p.input_depth, outs),
        p.filter,
        |c, sum| {
            let acc = sum.wrapping_add(bias.map_or(0, |b| b[c]));
            let v = scale_16x8(acc, multipliers[c], shifts[c]).wrapping_add(p.output_zero_point);
            v.max(p.act_min).min(p.act_max) as i16
        },
    );
}

/// int16 FULLY_CONNECTED with int8 weights and 32-bit sums, bit-exact with TFLM's 16x8
/// `FullyConnected` / `FullyConnectedPerChannel` for an `int32_t` bias: each output is
/// `MultiplyByQuantizedMultiplier(Σ_d w[d] * (x[d] - input_zero_point) + bias)` (its 32-bit,
/// double-rounding overload) plus the output zero point, clamped; the sums wrap at 32 bits as
/// TFLM's do. Reads `2 * batches * input_depth` bytes at `input`, writes
/// `2 * batches * output_depth` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_acc32_s16(
    arena: &mut [u8],
    input: usize,
    output: usize,
    p: &FullyConnectedAcc32S16,
) {
    let p = super::opaque(p);
    let outs = p.output_depth;
    let bias = p.bias.map(|b| &b[..outs]);
    let (multipliers, shifts) = (&p.multipliers[..outs], &p.shifts[..outs]);
    int16_rows(
        arena,
        (input, output),
        (p.batches, p.input_depth, outs),
        p.filter,
        |c, sum| {
            // The exact sum truncated to 32 bits is the wrapping 32-bit sum.
            let acc = (sum as i32).wrapping_add(bias.map_or(0, |b| b[c]));
            let v = multiply_by_quantized_multiplier(acc, multipliers[c], i32::from(shifts[c]))
                .wrapping_add(p.output_zero_point);
            v.max(p.act_min).min(p.act_max) as i16
        },
    );
}

/// Constant parameters of [`fully_connected_dyn_s8`] and [`fully_connected_dyn_acc32_s16`]: an
/// int8 (or int16 with 32-bit sums) FULLY_CONNECTED whose weights are read at run time.
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedDyn<'a> {
    /// Rows of the input (the output's elements / `output_depth`).
    pub batches: usize,
    /// Elements per input row (the weights' last dimension).
    pub input_depth: usize,
    /// Outputs per row (the output's last dimension: the weights' first rows).
    pub output_depth: usize,
    /// Per-output Q31 requantization multipliers (one repeated for every output under
    /// per-tensor quantization).
    pub multipliers: &'a [i32],
    /// Per-output requantization shifts (positive = left, within -31..=31).
    pub shifts: &'a [i8],
    /// Input zero point, subtracted from every input as TFLM's `input_offset` does.
    pub input_zero_point: i32,
    /// Output zero point, added after the requantization.
    pub output_zero_point: i32,
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

/// Constant parameters of [`fully_connected_dyn_s16`]: an int16 FULLY_CONNECTED with int8 weights
/// read at run time and TFLM's 64-bit sums.
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedDynS16<'a> {
    /// Rows of the input (the output's elements / `output_depth`).
    pub batches: usize,
    /// Elements per input row (the weights' last dimension).
    pub input_depth: usize,
    /// Outputs per row (the output's last dimension: the weights' first rows).
    pub output_depth: usize,
    /// Per-output multipliers reduced to 16 bits as TFLM's 64-bit `MultiplyByQuantizedMultiplier`
    /// reduces them (`0..=0x7FFF`; one repeated for every output under per-tensor quantization).
    pub multipliers: &'a [i32],
    /// Per-output right shifts of the product, `15 - shift` (within `1..=46`).
    pub shifts: &'a [i8],
    /// Input zero point, subtracted from every input.
    pub input_zero_point: i32,
    /// Output zero point, added after the requantization.
    pub output_zero_point: i32,
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

/// Constant parameters of [`fully_connected_dyn_f32`]: a float32 FULLY_CONNECTED whose weights
/// are read at run time.
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedDynF32 {
    /// Rows of the input (input elements / `input_depth`).
    pub batches: usize,
    /// Elements per input row (the weights' last dimension).
    pub input_depth: usize,
    /// Outputs per row (the weights' first dimension).
    pub output_depth: usize,
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
}

/// Walks a FULLY_CONNECTED whose weights are read at run time: for each row `b` and output `c`,
/// writes `value(c, input row b, weights row c, bias c)` (`IN` bytes per input element, `W` per
/// weight, `B` per bias element, `OUT` per output element) at output element `b * outs + c`.
/// `inputs` are input, weights and, if there is one, the bias (anything else is refused by
/// assertion: the lowering passes two or three). They are borrowed again for each element, as
/// the output is written between them; none may overlap the output (checked).
#[inline(always)]
fn dyn_rows<const IN: usize, const W: usize, const B: usize, const OUT: usize>(
    arena: &mut [u8],
    (inputs, output): (&[Src], usize),
    (batches, depth, outs): (usize, usize, usize),
    value: impl Fn(usize, &[u8], &[u8], Option<&[u8]>) -> [u8; OUT],
) {
    assert!(
        matches!(inputs.len(), 2 | 3),
        "input, weights and an optional bias"
    );
    let (in_len, w_len, out_len) = (IN * batches * depth, W * outs * depth, OUT * batches * outs);
    let bias = inputs.get(2).copied();
    let lens = [in_len, w_len, B * outs];
    for (src, &len) in inputs.iter().zip(&lens) {
        if let Src::Arena(offset) = *src {
            assert!(
                !views::overlapping(offset, len, output, out_len),
                "kernel input and output overlap"
            );
        }
    }
    for b in 0..batches {
        for c in 0..outs {
            let v = {
                let x = &inputs[0].bytes(arena, in_len)[IN * b * depth..][..IN * depth];
                let w = &inputs[1].bytes(arena, w_len)[W * c * depth..][..W * depth];
                let bias = bias.map(|s| &s.bytes(arena, B * outs)[B * c..][..B]);
                value(c, x, w, bias)
            };
            let o = output + OUT * (b * outs + c);
            arena[o..o + OUT].copy_from_slice(&v);
        }
    }
}

/// The 32-bit bias element `b` (little-endian), or 0 where there is no bias.
#[inline(always)]
fn bias_i32(b: Option<&[u8]>) -> i32 {
    b.map_or(0, |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// int8 FULLY_CONNECTED with weights (and bias) read at run time, bit-exact with TFLM's
/// `reference_integer_ops::FullyConnected` / `FullyConnectedPerChannel`: each output is
/// `MultiplyByQuantizedMultiplier(Σ_d w[d] * (x[d] - input_zero_point) + bias)` (the sum wrapping
/// at 32 bits) plus the output zero point, clamped. `inputs` are input, weights and the optional
/// INT32 bias; reads `batches * input_depth` bytes of the input, `output_depth * input_depth` of
/// the weights and `4 * output_depth` of the bias, writes `batches * output_depth` bytes at
/// `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_dyn_s8(
    arena: &mut [u8],
    inputs: &[Src],
    output: usize,
    p: &FullyConnectedDyn,
) {
    let p = super::opaque(p);
    let outs = p.output_depth;
    let (multipliers, shifts) = (&p.multipliers[..outs], &p.shifts[..outs]);
    dyn_rows::<1, 1, 4, 1>(
        arena,
        (inputs, output),
        (p.batches, p.input_depth, outs),
        |c, x, w, bias| {
            let mut acc = 0i32;
            for (&x, &w) in x.iter().zip(w) {
                let x = i32::from(x as i8).wrapping_sub(p.input_zero_point);
                acc = acc.wrapping_add(i32::from(w as i8).wrapping_mul(x));
            }
            let acc = acc.wrapping_add(bias_i32(bias));
            let v = multiply_by_quantized_multiplier(acc, multipliers[c], i32::from(shifts[c]))
                .wrapping_add(p.output_zero_point);
            [v.max(p.act_min).min(p.act_max) as i8 as u8]
        },
    );
}

/// [`fully_connected_dyn_s8`] of INT4 weights computed at run time (an INT4 graph input: no
/// TFLM operator writes INT4), packed two to a byte, low nibble first: TFLM's Eval unpacks them
/// (`UnpackDenseInt4IntoInt8`) into a scratch buffer at every call and runs its int8 kernel on
/// it, and so does this, the `output_depth * input_depth` weights the outputs read into the bytes
/// at `scratch`. `inputs` are input, packed weights (`ceil(output_depth * input_depth / 2)`
/// bytes) and the optional INT32 bias.
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_dyn_w4_s8(
    arena: &mut [u8],
    inputs: &[Src],
    output: usize,
    scratch: usize,
    p: &FullyConnectedDyn,
) {
    assert!(
        matches!(inputs.len(), 2 | 3),
        "input, weights and an optional bias"
    );
    views::unpack_int4(arena, inputs[1], p.output_depth * p.input_depth, scratch);
    let unpacked = [
        inputs[0],
        Src::Arena(scratch),
        inputs.get(2).copied().unwrap_or(Src::Bytes(&[])),
    ];
    fully_connected_dyn_s8(arena, &unpacked[..inputs.len()], output, p);
}

/// int16 FULLY_CONNECTED with int8 weights read at run time and 32-bit sums: as
/// [`fully_connected_dyn_s8`], over int16 input and output (TFLM's 16x8 kernels for an `int32_t`
/// bias). Reads `2 * batches * input_depth` bytes of the input, `output_depth * input_depth` of
/// the weights and `4 * output_depth` of the bias, writes `2 * batches * output_depth` bytes at
/// `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_dyn_acc32_s16(
    arena: &mut [u8],
    inputs: &[Src],
    output: usize,
    p: &FullyConnectedDyn,
) {
    let p = super::opaque(p);
    let outs = p.output_depth;
    let (multipliers, shifts) = (&p.multipliers[..outs], &p.shifts[..outs]);
    dyn_rows::<2, 1, 4, 2>(
        arena,
        (inputs, output),
        (p.batches, p.input_depth, outs),
        |c, x, w, bias| {
            let mut acc = 0i32;
            for (x, &w) in x.chunks_exact(2).zip(w) {
                let x =
                    i32::from(i16::from_le_bytes([x[0], x[1]])).wrapping_sub(p.input_zero_point);
                acc = acc.wrapping_add(i32::from(w as i8).wrapping_mul(x));
            }
            let acc = acc.wrapping_add(bias_i32(bias));
            let v = multiply_by_quantized_multiplier(acc, multipliers[c], i32::from(shifts[c]))
                .wrapping_add(p.output_zero_point);
            (v.max(p.act_min).min(p.act_max) as i16).to_le_bytes()
        },
    );
}

/// int16 FULLY_CONNECTED with int8 weights read at run time and 64-bit sums, bit-exact with
/// TFLM's 16x8 kernels for an `int64_t` bias: each output is
/// `MultiplyByQuantizedMultiplier(Σ_d w[d] * (x[d] - input_zero_point) + bias)` (its 64-bit
/// overload, `scale_16x8`) plus the output zero point, clamped. Reads
/// `2 * batches * input_depth` bytes of the input, `output_depth * input_depth` of the weights
/// and `8 * output_depth` of the INT64 bias, writes `2 * batches * output_depth` bytes at
/// `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_dyn_s16(
    arena: &mut [u8],
    inputs: &[Src],
    output: usize,
    p: &FullyConnectedDynS16,
) {
    let p = super::opaque(p);
    let outs = p.output_depth;
    let (multipliers, shifts) = (&p.multipliers[..outs], &p.shifts[..outs]);
    dyn_rows::<2, 1, 8, 2>(
        arena,
        (inputs, output),
        (p.batches, p.input_depth, outs),
        |c, x, w, bias| {
            // Each term is within 2^23 in magnitude: exact in 32 bits, summed in 64 as TFLM does.
            let mut acc = 0i64;
            for (x, &w) in x.chunks_exact(2).zip(w) {
                let x =
                    i32::from(i16::from_le_bytes([x[0], x[1]])).wrapping_sub(p.input_zero_point);
                acc = acc.wrapping_add(i64::from(i32::from(w as i8).wrapping_mul(x)));
            }
            let bias = bias.map_or(0, |b| {
                i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            });
            let acc = acc.wrapping_add(bias);
            let v = scale_16x8(acc, multipliers[c], shifts[c]).wrapping_add(p.output_zero_point);
            (v.max(p.act_min).min(p.act_max) as i16).to_le_bytes()
        },
    );
}

/// float32 FULLY_CONNECTED with weights (and bias) read at run time: each output is
/// `Σ x[d] * w[d]` in order of `d`, plus the bias, clamped (as [`fully_connected_f32`]). Reads
/// `4 * batches * input_depth` bytes of the input, `4 * output_depth * input_depth` of the
/// weights and `4 * output_depth` of the bias, writes `4 * batches * output_depth` bytes at
/// `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_dyn_f32(
    arena: &mut [u8],
    inputs: &[Src],
    output: usize,
    p: &FullyConnectedDynF32,
) {
    let p = super::opaque(p);
    dyn_rows::<4, 4, 4, 4>(
        arena,
        (inputs, output),
        (p.batches, p.input_depth, p.output_depth),
        |_, x, w, bias| {
            let mut total = 0.0f32;
            for (x, w) in views::f32s(x).zip(views::f32s(w)) {
                total += x * w;
            }
            let bias = bias.map_or(0.0, |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            clamp_f32(total + bias, p.act_min, p.act_max).to_le_bytes()
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// INT4 weights computed at run time: an odd count (3 × 3) packed over the whole tensor, the
    /// last byte's high nibble unread; the outputs are the int8 kernel's on the unpacked values.
    #[test]
    fn dyn_w4_s8_matches_the_int8_kernel_on_the_unpacked_weights() {
        let weights = [7i8, -8, 1, 0, -1, 3, -5, 2, 6];
        let packed: [u8; 5] = crate::kernels::nn_common::pack_int4(&weights);
        let p = FullyConnectedDyn {
            batches: 2,
            input_depth: 3,
            output_depth: 3,
            multipliers: &[1 << 30; 3],
            shifts: &[0; 3],
            input_zero_point: -2,
            output_zero_point: 1,
            act_min: -128,
            act_max: 127,
        };
        // Input 6 bytes at 0, packed weights at 8 (the fifth byte's high nibble set, unread),
        // output 6 bytes at 16, scratch 9 bytes at 24.
        let mut a = [0u8; 40];
        for (k, v) in [3i8, -7, 100, -128, 0, 55].iter().enumerate() {
            a[k] = *v as u8;
        }
        a[8..13].copy_from_slice(&packed);
        a[12] |= 0xF0;
        let mut b = a;
        fully_connected_dyn_w4_s8(&mut a, &[Src::Arena(0), Src::Arena(8)], 16, 24, &p);
        assert_eq!(a[24..33], weights.map(|w| w as u8));
        let unpacked = weights.map(|w| w as u8);
        fully_connected_dyn_s8(&mut b, &[Src::Arena(0), Src::Bytes(&unpacked)], 16, &p);
        assert_eq!(a[16..22], b[16..22]);
    }

    fn s16_arena(rows: &[[i16; 3]; 2]) -> [u8; 20] {
        let mut arena = [0u8; 20];
        for (a, v) in arena.chunks_exact_mut(2).zip(rows.iter().flatten()) {
            a.copy_from_slice(&v.to_le_bytes());
        }
        arena
    }

    fn s16_out(arena: &[u8]) -> [i16; 4] {
        core::array::from_fn(|i| i16::from_le_bytes([arena[12 + 2 * i], arena[13 + 2 * i]]))
    }

    /// 64-bit sums: `(acc * 0x4000 + 2^19) >> 20` is `acc / 64` rounded half up, then the output
    /// zero point 7 and the clamp.
    #[test]
    fn s16_sums_in_64_bits_and_adds_the_output_zero_point() {
        let mut arena = s16_arena(&[[1000, -2000, 3000], [32767, -32768, 5]]);
        let p = FullyConnectedS16 {
            batches: 2,
            input_depth: 3,
            output_depth: 2,
            filter: &[1, 2, 3, -128, 127, 0],
            bias: Some(&[10, -5]),
            multipliers: &[0x4000, 0x4000],
            shifts: &[20, 20],
            output_zero_point: 7,
            act_min: -32768,
            act_max: 32767,
        };
        fully_connected_s16(&mut arena, 0, 12, &p);
        // Row 0: 6010 / 64 = 93.9 -> 94 + 7; -382005 / 64 = -5968.8 -> -5969 + 7.
        // Row 1: -32744 / 64 = -511.6 -> -512 + 7; -8355717 / 64 + 7 clamps.
        assert_eq!(s16_out(&arena), [101, -5962, -505, -32768]);
    }

    /// 32-bit sums wrap as TFLM's do: 600 products of 127 * 32767 add up past 2^31 to a negative
    /// sum, which requantizes to the bottom of the range; TFLM's 32-bit requantization rounds
    /// half away from zero.
    #[test]
    fn s16_with_32_bit_sums_wraps_and_rounds_as_int8() {
        extern crate std;
        let mut arena = std::vec![0u8; 2 * 600 + 4];
        for a in arena[..1200].chunks_exact_mut(2) {
            a.copy_from_slice(&32767i16.to_le_bytes());
        }
        let mut filter = [127i8; 1200];
        // Output 1: one weight of 1 on input 0, bias 2: 32767 + 2 = 32769, times 0.5 is 16384.5,
        // which rounds to 16385 (away from zero); zero point -1.
        filter[600..].fill(0);
        filter[600] = 1;
        let p = FullyConnectedAcc32S16 {
            batches: 1,
            input_depth: 600,
            output_depth: 2,
            filter: &filter,
            bias: Some(&[0, 2]),
            multipliers: &[1 << 30, 1 << 30],
            shifts: &[0, 0],
            output_zero_point: -1,
            act_min: -32768,
            act_max: 32767,
        };
        fully_connected_acc32_s16(&mut arena, 0, 1200, &p);
        let out: [i16; 2] = core::array::from_fn(|i| {
            i16::from_le_bytes([arena[1200 + 2 * i], arena[1201 + 2 * i]])
        });
        assert_eq!(out, [-32768, 16384]);
    }

    #[test]
    fn f32_without_bias_clamps() {
        let mut arena = [0u8; 16];
        for (i, v) in [1.0f32, -2.0].iter().enumerate() {
            arena[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let p = FullyConnectedF32 {
            batches: 1,
            input_depth: 2,
            output_depth: 2,
            filter: &[1.0, 1.0, 4.0, 0.5],
            bias: None,
            act_min: -0.5,
            act_max: 6.0,
        };
        fully_connected_f32(&mut arena, 0, 8, &p);
        let out: [f32; 2] = core::array::from_fn(|i| {
            f32::from_le_bytes(arena[8 + 4 * i..12 + 4 * i].try_into().unwrap())
        });
        assert_eq!(out, [-0.5, 3.0]);
    }

    /// Weights read from the arena: the int8 sums subtract the input zero point term by term and
    /// add the bias as stored; a per-channel multiplier per output; the first `output_depth` rows.
    #[test]
    fn dyn_s8_reads_weights_from_the_arena() {
        // Input [2, 3] at 0, weights [3, 3] at 8 (only the first two rows run), output at 24.
        let mut arena = [0u8; 32];
        for (a, v) in arena.iter_mut().zip([1i8, -2, 3, 127, -128, 0]) {
            *a = v as u8;
        }
        for (a, v) in arena[8..].iter_mut().zip([1i8, 1, 1, -1, 2, 0, 9, 9, 9]) {
            *a = v as u8;
        }
        extern crate std;
        let bias = [10i32, -4].map(i32::to_le_bytes).concat();
        let p = FullyConnectedDyn {
            batches: 2,
            input_depth: 3,
            output_depth: 2,
            multipliers: &[1 << 30, 1 << 30],
            shifts: &[1, 0],
            input_zero_point: 1,
            output_zero_point: -3,
            act_min: -128,
            act_max: 127,
        };
        fully_connected_dyn_s8(
            &mut arena,
            &[Src::Arena(0), Src::Arena(8), Src::Bytes(&bias)],
            24,
            &p,
        );
        // Row 0 (x - 1 = 0, -3, 2): 0 - 3 + 2 + 10 = 9, times 1, -3: 6; 0 - 6 + 0 - 4 = -10,
        // times 0.5 is -5 (round half away), -3: -8.
        // Row 1 (126, -129, -1): -4 + 10 = 6 -> 3; -126 - 258 - 4 = -388 -> -194 - 3 clamps.
        let out: [i8; 4] = core::array::from_fn(|i| arena[24 + i] as i8);
        assert_eq!(out, [6, -8, 3, -128]);
    }

    /// 64-bit sums of int16 inputs less their zero point, then the 64-bit requantization.
    #[test]
    fn dyn_s16_sums_in_64_bits() {
        let mut arena = [0u8; 32];
        for (a, v) in arena.chunks_exact_mut(2).zip([1000i16, -2000, 3000]) {
            a.copy_from_slice(&v.to_le_bytes());
        }
        let weights = [1i8, 2, 3].map(|w| w as u8);
        let p = FullyConnectedDynS16 {
            batches: 1,
            input_depth: 3,
            output_depth: 1,
            multipliers: &[0x4000],
            shifts: &[20],
            input_zero_point: -1,
            output_zero_point: 7,
            act_min: -32768,
            act_max: 32767,
        };
        // The INT64 bias 10 computed at run time, in the arena after the output.
        arena[24..32].copy_from_slice(&10i64.to_le_bytes());
        let inputs = [Src::Arena(0), Src::Bytes(&weights), Src::Arena(24)];
        fully_connected_dyn_s16(&mut arena, &inputs, 16, &p);
        // (1001 - 3998 + 9003) + 10 = 6016, / 64 = 94, + 7.
        assert_eq!(i16::from_le_bytes([arena[16], arena[17]]), 101);
    }

    #[test]
    fn dyn_f32_adds_the_bias_after_the_sum() {
        let mut arena = [0u8; 32];
        for (i, v) in [1.0f32, -2.0, 1.0, 1.0, 4.0, 0.5].iter().enumerate() {
            arena[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
        let p = FullyConnectedDynF32 {
            batches: 1,
            input_depth: 2,
            output_depth: 2,
            act_min: -0.5,
            act_max: 6.0,
        };
        extern crate std;
        let bias = [0.25f32, -1.0].map(f32::to_le_bytes).concat();
        let inputs = [Src::Arena(0), Src::Arena(8), Src::Bytes(&bias)];
        fully_connected_dyn_f32(&mut arena, &inputs, 24, &p);
        let out: [f32; 2] = core::array::from_fn(|i| {
            f32::from_le_bytes(arena[24 + 4 * i..28 + 4 * i].try_into().unwrap())
        });
        assert_eq!(out, [-0.5, 2.0]);
    }
}

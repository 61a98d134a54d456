//! FULLY_CONNECTED with INT4 weights and int8 activations: TFLM's per-tensor
//! `reference_integer_ops::FullyConnected` on the weights its Eval unpacks with
//! `UnpackDenseInt4IntoInt8`, read here from the packed constant a byte (two weights) at a time,
//! so that the weights stay packed in flash and no scratch memory is needed. (TFLM refuses
//! per-channel INT4 weights for this operator.)
//!
//! Layouts: input `[batches, input_depth]`, weights `[output_depth, input_depth]` packed two
//! elements to a byte over the whole tensor (low nibble first; with an odd depth every other row
//! starts on a high nibble), output `[batches, output_depth]`.
//!
//! Access order: for each batch row, reads the whole input row, writing that row's outputs in
//! order; the output must not overlap the input (checked).

use super::nn_common::{int4, views, Requantizer};
use crate::kernels::Within;

/// Constant parameters of [`fully_connected_s4`].
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedS4<'a> {
    /// Rows of the input (and of the output).
    pub batches: usize,
    /// Inputs per row (the weights' second dimension).
    pub input_depth: usize,
    /// Outputs per row (the weights' first dimension).
    pub output_depth: usize,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Weights `[output_depth, input_depth]` (zero point 0), INT4 packed two to a byte, low
    /// nibble first: `ceil(n / 2)` bytes for `n` weights.
    pub filter: &'a [u8],
    /// Per-output bias with the input zero point folded in at generation time,
    /// `bias[c] - input_zero_point * Σ filter[c]` (wrapping): the kernel multiplies the raw int8
    /// inputs, and every input is a tap, so the 32-bit sums are TFLM's.
    pub folded_bias: &'a [i32],
    /// The Q31 requantization multiplier (one for the tensor).
    pub multiplier: i32,
    /// The requantization shift (positive = left, within -31..=31).
    pub shift: i32,
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
}

/// int8 FULLY_CONNECTED with INT4 weights, per-tensor requantization, bit-exact with TFLM's
/// `FullyConnected` on the unpacked weights. Reads `batches * input_depth` bytes at `input`,
/// writes `batches * output_depth` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_s4(arena: &mut [u8], input: usize, output: usize, p: &FullyConnectedS4) {
    let p = super::opaque(p);
    let (inp, out) = views::split(
        arena,
        input,
        p.batches * p.input_depth,
        output,
        p.batches * p.output_depth,
    );
    s4_rows(inp, out, None, p);
}

/// [`fully_connected_s4`] with a bias computed at run time (a graph input or an operator's
/// output), which TFLM's Eval reads wherever it is: `bias`, `output_depth` INT32 values, added to
/// `p.folded_bias`, which then holds only `-input_zero_point * Σ filter[c]` (wrapping sums are
/// TFLM's in any order).
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_dyn_s4(
    arena: &mut [u8],
    input: usize,
    bias: crate::Src,
    output: usize,
    p: &FullyConnectedS4,
) {
    let p = super::opaque(p);
    let (in_len, out_len) = (p.batches * p.input_depth, p.batches * p.output_depth);
    let bias_len = 4 * p.output_depth;
    match bias {
        crate::Src::Arena(at) => {
            let [inp, out, b] =
                views::disjoint(arena, [(input, in_len), (output, out_len), (at, bias_len)]);
            s4_rows(inp, out, Some(b), p);
        }
        crate::Src::Bytes(b) => {
            let (inp, out) = views::split(arena, input, in_len, output, out_len);
            s4_rows(inp, out, Some(b.at(..bias_len)), p);
        }
    }
}

/// The rows of [`fully_connected_s4`] from input `inp` into `out`, each output the folded bias
/// plus, if any, the element of `bias` (little-endian INT32) plus the packed dot product.
#[inline(always)]
fn s4_rows(inp: &[u8], out: &mut [u8], bias: Option<&[u8]>, p: &FullyConnectedS4) {
    let depth = p.input_depth;
    let filter = p.filter.at(..(p.output_depth * depth).div_ceil(2));
    let multipliers = [p.multiplier];
    let shifts = [i8::try_from(p.shift).expect("shift within -31..=31")];
    let requantizer = Requantizer::new(
        1,
        None,
        &multipliers,
        &shifts,
        p.output_zero_point,
        (p.act_min, p.act_max),
    );
    let folded = p.folded_bias.at(..p.output_depth);
    let at_run_time = |c: usize| {
        bias.map_or(0, |b| {
            i32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]])
        })
    };
    for (row, out_row) in inp
        .chunks_exact(depth.max(1))
        .zip(out.chunks_exact_mut(p.output_depth.max(1)))
    {
        for (c, (o, &b)) in out_row.iter_mut().zip(folded).enumerate() {
            let acc = b
                .wrapping_add(at_run_time(c))
                .wrapping_add(dot_s4(filter, c * depth, row));
            *o = requantizer.one(0, acc);
        }
    }
}

/// `Σ w[start + i] * x[i]` over the packed weights from element `start` on, one per input: whole
/// bytes (two weights) at a time, and a lone nibble at either end where `start` or the end is odd.
#[inline(always)]
fn dot_s4(filter: &[u8], start: usize, x: &[u8]) -> i32 {
    let x_i = |i: usize| i32::from(x[i] as i8);
    let mut acc = 0i32;
    let mut i = 0;
    if start % 2 == 1 && !x.is_empty() {
        acc = int4(filter, start) * x_i(0);
        i = 1;
    }
    let pairs = (x.len() - i) / 2;
    let bytes = filter.at((start + i) / 2..).at(..pairs);
    for (&byte, xs) in bytes.iter().zip(x[i..].chunks_exact(2)) {
        let low = i32::from(((byte << 4) as i8) >> 4);
        let high = i32::from((byte as i8) >> 4);
        acc = acc
            .wrapping_add(low * i32::from(xs[0] as i8))
            .wrapping_add(high * i32::from(xs[1] as i8));
    }
    i += 2 * pairs;
    if i < x.len() {
        acc = acc.wrapping_add(int4(filter, start + i) * x_i(i));
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::super::nn_common::pack_int4;
    use super::*;
    use crate::math::multiply_by_quantized_multiplier;

    /// Against the unpacked sums: 2 rows of 7 inputs into 3 outputs (21 weights, an odd count:
    /// rows 1 starts on a high nibble and the last byte's high nibble is unused, here set).
    #[test]
    fn matches_unpacked_reference() {
        let weights: [i8; 21] = core::array::from_fn(|k| ((k * 7) % 16) as i8 - 8);
        let mut packed: [u8; 11] = pack_int4(&weights);
        packed[10] |= 0x50;
        let x: [i8; 14] = core::array::from_fn(|k| (k as i8).wrapping_mul(29).wrapping_sub(100));
        let mut arena = [0u8; 32];
        for (a, &v) in arena.iter_mut().zip(&x) {
            *a = v as u8;
        }
        let p = FullyConnectedS4 {
            batches: 2,
            input_depth: 7,
            output_depth: 3,
            output_zero_point: -3,
            filter: &packed,
            folded_bias: &[100, -7, 0],
            multiplier: 1_500_000_000,
            shift: -3,
            act_min: -120,
            act_max: 127,
        };
        fully_connected_s4(&mut arena, 0, 16, &p);
        for b in 0..2 {
            for c in 0..3 {
                let sum: i32 = (0..7)
                    .map(|i| i32::from(weights[c * 7 + i]) * i32::from(x[b * 7 + i]))
                    .sum::<i32>()
                    + [100, -7, 0][c];
                let expected =
                    (multiply_by_quantized_multiplier(sum, 1_500_000_000, -3) - 3).clamp(-120, 127);
                assert_eq!(i32::from(arena[16 + b * 3 + c] as i8), expected, "{b} {c}");
            }
        }
    }

    #[test]
    fn dot_reads_either_start() {
        let weights: [i8; 5] = [-8, 7, -1, 3, -5];
        let packed: [u8; 3] = pack_int4(&weights);
        let x: [u8; 4] = [1, 2, 255, 4];
        for start in 0..2 {
            let n = 5 - start - (1 - start);
            let expected: i32 = (0..n)
                .map(|i| i32::from(weights[start + i]) * i32::from(x[i] as i8))
                .sum();
            assert_eq!(dot_s4(&packed, start, &x[..n]), expected, "start {start}");
        }
    }
}

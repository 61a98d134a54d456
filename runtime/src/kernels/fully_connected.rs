//! FULLY_CONNECTED, float32 (`reference_ops::FullyConnected`). The int8 operator runs on
//! [`super::conv::conv2d_1x1_s8`]: its product is a 1×1 convolution's, and TFLM's
//! `reference_integer_ops::FullyConnected` / `FullyConnectedPerChannel` requantize it the same way
//! once a per-tensor multiplier is repeated for every channel.
//!
//! Layouts: input `[batches, input_depth]` (any shape with that many elements), filter
//! `[output_depth, input_depth]`, output `[batches, output_depth]`.
//!
//! Access order: for each batch row, reads the whole input row, writing that row's outputs in order;
//! the output must not overlap the input (checked).

use super::nn_common::{clamp_f32, views};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}

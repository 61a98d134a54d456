//! FULLY_CONNECTED: int8 with per-tensor or per-channel requantization (TFLM's
//! `reference_integer_ops::FullyConnected` / `FullyConnectedPerChannel`, which agree once a per-tensor
//! multiplier is repeated for every channel) and float32 (`reference_ops::FullyConnected`).
//!
//! Layouts: input `[batches, input_depth]` (any shape with that many elements), filter
//! `[output_depth, input_depth]`, output `[batches, output_depth]`.
//!
//! Access order: for each batch row, reads the whole input row, writing that row's outputs in order;
//! the output must not overlap the input (checked).

use super::nn_common::{clamp_f32, dot4_s8, dot_s8, views, Requantizer};

/// Constant parameters of [`fully_connected_s8`].
#[derive(Clone, Copy, Debug)]
pub struct FullyConnectedS8<'a> {
    /// Rows of the input (input elements / `input_depth`).
    pub batches: usize,
    /// Elements per input row (the filter's last dimension).
    pub input_depth: usize,
    /// Outputs per row (the filter's first dimension).
    pub output_depth: usize,
    /// Input zero point.
    pub input_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Weights, `[output_depth, input_depth]` (zero point 0).
    pub filter: &'a [i8],
    /// Per-output bias.
    pub bias: Option<&'a [i32]>,
    /// Q31 requantization multiplier per output (a per-tensor multiplier is repeated).
    pub multipliers: &'a [i32],
    /// Requantization shift per output (positive = left).
    pub shifts: &'a [i8],
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

/// int8 FULLY_CONNECTED, bit-exact with TFLM. Reads `batches * input_depth` bytes at `input`, writes
/// `batches * output_depth` bytes at `output` (see the module docs for the order).
#[cfg_attr(target_os = "none", inline(never))]
pub fn fully_connected_s8(arena: &mut [u8], input: usize, output: usize, p: &FullyConnectedS8) {
    let p = super::opaque(p);
    let (depth, outs) = (p.input_depth, p.output_depth);
    let (inp, out) = views::split(arena, input, p.batches * depth, output, p.batches * outs);
    let filter = &p.filter[..outs * depth];
    let requantizer = Requantizer::new(
        outs,
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
    for (row, out_row) in inp
        .chunks_exact(depth.max(1))
        .zip(out.chunks_exact_mut(outs.max(1)))
    {
        let row = &row[..depth];
        // Four outputs at a time share each input load; the rest one by one.
        let mut c = 0;
        while c + 4 <= outs {
            let w: [&[i8]; 4] = core::array::from_fn(|k| &filter[(c + k) * depth..][..depth]);
            out_row[c..c + 4].copy_from_slice(&requantizer.four(c, dot4_s8(w, row, offset)));
            c += 4;
        }
        for (c, o) in out_row.iter_mut().enumerate().skip(c) {
            *o = requantizer.one(c, dot_s8(&filter[c * depth..][..depth], row, offset));
        }
    }
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
    fn s8_two_batches_per_channel() {
        // Input [2, 3], filter [2, 3], zero point 1.
        let mut arena = [0u8; 10];
        for (a, x) in arena.iter_mut().zip([1i8, 2, 3, -1, 0, 1]) {
            *a = x as u8;
        }
        let p = FullyConnectedS8 {
            batches: 2,
            input_depth: 3,
            output_depth: 2,
            input_zero_point: 1,
            output_zero_point: 2,
            filter: &[1, 1, 1, 3, 0, -2],
            bias: Some(&[1, -1]),
            multipliers: &[1 << 30, 1 << 30],
            shifts: &[0, 1],
            act_min: -128,
            act_max: 127,
        };
        fully_connected_s8(&mut arena, 0, 6, &p);
        // x - zp: row 0 [0, 1, 2], row 1 [-2, -1, 0].
        // row 0: c0 (3 + 1) * 0.5 + 2 = 4; c1 (0 - 4 - 1) * 1 + 2 = -3.
        // row 1: c0 (-3 + 1) * 0.5 + 2 = 1; c1 (-6 - 1) * 1 + 2 = -5.
        let out: [i8; 4] = core::array::from_fn(|i| arena[6 + i] as i8);
        assert_eq!(out, [4, -3, 1, -5]);
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

    #[test]
    fn s8_blocks_of_four_and_the_rest_agree_with_plain_sums() {
        // One row of 7 inputs, 5 outputs: a block of four and one left over.
        let x: [i8; 7] = [-128, 127, 0, 5, -9, 64, -1];
        let w: [i8; 35] = core::array::from_fn(|i| ((i * 41 + 11) % 256) as u8 as i8);
        let mut arena = [0u8; 12];
        for (a, &v) in arena.iter_mut().zip(&x) {
            *a = v as u8;
        }
        let p = FullyConnectedS8 {
            batches: 1,
            input_depth: 7,
            output_depth: 5,
            input_zero_point: 3,
            output_zero_point: 0,
            filter: &w,
            bias: None,
            multipliers: &[1 << 30; 5],
            shifts: &[-7; 5],
            act_min: -128,
            act_max: 127,
        };
        fully_connected_s8(&mut arena, 0, 7, &p);
        for c in 0..5 {
            let acc: i32 = (0..7)
                .map(|d| i32::from(w[c * 7 + d]) * (i32::from(x[d]) - 3))
                .sum();
            let want =
                crate::math::multiply_by_quantized_multiplier(acc, 1 << 30, -7).clamp(-128, 127);
            assert_eq!(i32::from(arena[7 + c] as i8), want, "output {c}");
        }
    }
}

//! DEPTHWISE_CONV_2D → `depthwise::depthwise_conv2d_{s8,s16,f32}`: the depth multiplier from the
//! shapes; window geometry and requantization as CONV_2D's ([`super::conv`]). Weights or a bias
//! computed at run time go to `conv::depthwise_conv2d_dyn_*` ([`super::conv`]'s `dynamic.rs`).

use super::conv::{
    bias_values, depthwise_dyn, filter_rows, geometry, im2col, narrow_requant, quant_16x8,
    sums_fit_32, weights_and_range, window_stream, Bias16x8, ConvQuant, Window, CONV_INPUTS,
};
use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Options};
use crate::lower::params::{depthwise as P, IM2COL_MAX};
use crate::lower::types::Types;
use crate::lower::{Access, Data, Num, OpContext, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::DEPTHWISE_CONV_2D,
    types: Types::WEIGHTED,
    inputs: 2..=3,
    outputs: 1,
    lower: Lowering::Kernel(depthwise),
}];

/// DEPTHWISE_CONV_2D → `depthwise::depthwise_conv2d_s8` / `depthwise::depthwise_conv2d_s16` /
/// `depthwise::depthwise_conv2d_f32`.
fn depthwise(ctx: &OpContext) -> Result<Kernel> {
    let Options::DepthwiseConv2D(o) = &ctx.op().options else {
        // The loader refuses a depthwise convolution without options (strides 0) as corrupt.
        return Err(ctx.internal("no DepthwiseConv2D options decoded"));
    };
    // TFLM's depthwise Prepare takes a third input as a bias without checking that it is present,
    // and crashes on an absent one (-1); CONV_2D and FULLY_CONNECTED handle that case.
    if ctx.op().inputs.len() == 3 && ctx.op().input(2).is_none() {
        return Err(ctx.invalid(
            "the bias input is written as absent (-1); TFLM's depthwise convolution crashes on \
             that: leave the bias input out instead",
            Grounds::undefined(
                "depthwise_conv_common.cc takes has_bias from the input count, then \
                 reads the absent input 2 as a null tensor",
            ),
        ));
    }
    let w = Window {
        padding: o.padding,
        stride: (o.stride_h, o.stride_w),
        dilation: (o.dilation_h, o.dilation_w),
        activation: o.activation,
    };
    let (input, filter, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let num = ctx.input_num_or_i16(input)?;
    ctx.expect_rank("input", input, 4)?;
    ctx.expect_rank("filter", filter, 4)?;
    ctx.expect_rank("output", output, 4)?;
    let (i, f, out) = (&input.shape, &filter.shape, &output.shape);
    if i[0] != out[0] || f[3] != out[3] {
        return Err(ctx.invalid(
            format!(
                "input {i:?}, filter {f:?} and output {out:?} disagree on batches or output \
                 channels"
            ),
            Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
        ));
    }
    if i[3] == 0 || out[3] % i[3] != 0 || f[0] == 0 {
        // TFLM's kernels loop over input channels × the multiplier, checked against the output
        // channels only with TFLITE_DCHECK_EQ: no multiplier fits, so output channels are left
        // unwritten or written past; an empty filter is read past its end.
        return Err(ctx.invalid(
            format!(
                "input {i:?}, filter {f:?} and output {out:?} do not fit a depthwise convolution \
                 (filter [1, h, w, input channels * multiplier])"
            ),
            Grounds::undefined(
                "reference depthwise_conv: TFLITE_DCHECK_EQ(output_depth, input_depth * \
                 depth_multiplier) only; the loops write channel m + ic * depth_multiplier \
                 of the output and read the filter's first slice",
            ),
        ));
    }
    // A filter of more than one slice ([n, h, w, c], n > 1): TFLM's kernels index the first
    // only (its shape is not checked), so the kernels here read the same bytes and the
    // generation-time sums below take that slice alone.
    let slice = f[1] * f[2] * f[3];
    let depth_multiplier = out[3] / i[3];
    if o.depth_multiplier != depth_multiplier {
        // TFLM's kernels loop over the option's multiplier (0 included: nothing is written)
        // and check it against the shapes only with TFLITE_DCHECK_EQ.
        return Err(ctx.invalid(
            format!(
                "depth_multiplier option {} disagrees with the shapes ({depth_multiplier} output \
                 channels per input channel)",
                o.depth_multiplier
            ),
            Grounds::undefined(
                "TFLM's DepthwiseConv loops over the option's multiplier, checked against the \
                 shapes only by TFLITE_DCHECK_EQ: it writes past the output's channels or leaves \
                 some unwritten",
            ),
        ));
    }
    let g = geometry(ctx, &w, i, (f[1], f[2]))?;
    // Weights or a bias written at run time (an operator's output, a graph input): TFLM's Prepare
    // reads only their types and scales, its Eval the tensors wherever they are (INT4 weights
    // computed at run time, an INT4 graph input, unpacked at every call as TFLM's Eval does).
    // INT4 constant weights with a bias computed at run time stay with `int4`.
    let bias_at_run_time = ctx.optional_input(2).is_some_and(|b| !b.is_constant());
    if !filter.is_constant() || (filter.dtype != DType::I4 && bias_at_run_time) {
        return depthwise_dyn(ctx, num, (i, f, out), depth_multiplier, &g, w.activation);
    }
    if num == Num::I16 {
        // TFLM's 16x8 depthwise kernel always sums in 64 bits and reads any bias as int64.
        let q = quant_16x8(ctx, CONV_INPUTS, (out[3], w.activation), Bias16x8::Int64)?;
        let (filter, sums32) = planes_16x8(ctx, filter, depth_multiplier, out[3], &q.bias)?;
        return Ok(kernel(
            "depthwise_conv2d_s16",
            in_out(ctx)?,
            P::DepthwiseConv2dS16 {
                batches: i[0],
                input_h: i[1],
                input_w: i[2],
                input_c: i[3],
                output_h: out[1],
                output_w: out[2],
                output_c: out[3],
                filter_h: f[1],
                filter_w: f[2],
                depth_multiplier,
                stride_h: g.stride_h,
                stride_w: g.stride_w,
                dilation_h: g.dilation_h,
                dilation_w: g.dilation_w,
                pad_top: g.pad_top,
                pad_left: g.pad_left,
                filter,
                bias: q.bias,
                multipliers: q.multipliers,
                shifts: q.shifts,
                act_min: q.act.0,
                act_max: q.act.1,
                sums32,
            },
        ));
    }
    if filter.dtype == DType::I4 {
        return super::int4::depthwise(ctx, (i, f, out), depth_multiplier, &g, w.activation);
    }
    let quant = weights_and_range(ctx, (num, CONV_INPUTS), out[3], w.activation)?;
    // One input channel: output channel m is the convolution of that channel with filter column
    // m, i.e. a CONV_2D whose filter is this one transposed to [m, h, w, 1]. The same integers are
    // summed (in another order, which wrapping sums ignore) and requantized per output channel
    // alike, so it runs on the gathering convolution kernel.
    let window = f[1] * f[2];
    let one_channel = i[3] == 1 && window > 0 && window <= IM2COL_MAX;
    if matches!(quant, ConvQuant::I8 { .. }) && one_channel {
        let (mut columns, _) = filter_rows(ctx, ctx.input(1)?, 1)?;
        columns.truncate(slice);
        let transposed: Vec<i8> = (0..out[3])
            .flat_map(|m| columns.iter().skip(m).step_by(out[3]).copied())
            .collect();
        return Ok(Kernel {
            module: Some("conv"),
            ..im2col(
                ctx,
                (i, (f[1], f[2]), out),
                &g,
                &quant,
                (transposed, window),
            )?
        });
    }
    Ok(match quant {
        ConvQuant::I8 {
            input_zero_point,
            output_zero_point,
            filter,
            bias,
            multipliers,
            shifts,
            act_min,
            act_max,
        } => {
            // Inputs minus the zero point: at most this in magnitude.
            let max_input =
                i64::from(128 + input_zero_point).max(i64::from(127 - input_zero_point));
            let (mut columns, _) = filter_rows(ctx, ctx.input(1)?, 1)?;
            columns.truncate(slice);
            let biases = bias_values(ctx, bias.as_ref(), out[3])?;
            let rows = (0..out[3]).zip(biases).map(|(m, b)| {
                let sum = columns
                    .iter()
                    .skip(m)
                    .step_by(out[3])
                    .map(|&w| i64::from(w).abs());
                (sum.sum::<i64>(), i64::from(b))
            });
            let narrow = narrow_requant(
                &shifts,
                rows,
                max_input,
                (output_zero_point, act_min, act_max),
            );
            kernel(
                "depthwise_conv2d_s8",
                in_out(ctx)?,
                P::DepthwiseConv2dS8 {
                    batches: i[0],
                    input_h: i[1],
                    input_w: i[2],
                    input_c: i[3],
                    output_h: out[1],
                    output_w: out[2],
                    output_c: out[3],
                    filter_h: f[1],
                    filter_w: f[2],
                    depth_multiplier,
                    stride_h: g.stride_h,
                    stride_w: g.stride_w,
                    dilation_h: g.dilation_h,
                    dilation_w: g.dilation_w,
                    pad_top: g.pad_top,
                    pad_left: g.pad_left,
                    input_zero_point,
                    output_zero_point,
                    filter,
                    bias,
                    multipliers,
                    shifts,
                    act_min,
                    act_max,
                    narrow_requant: narrow,
                },
            )
            // One pixel at a time, its channels in blocks: a pixel's window is read block by
            // block as its outputs are written, the pixels in either order.
            .with_access(Access::Stream {
                input: ctx.input_index(0)?,
                output: ctx.output_index(0)?,
                stream: window_stream((i, out), &g, 1).reversible(),
            })
        }
        ConvQuant::F32 {
            filter,
            bias,
            act_min,
            act_max,
        } => kernel(
            "depthwise_conv2d_f32",
            in_out(ctx)?,
            P::DepthwiseConv2dF32 {
                batches: i[0],
                input_h: i[1],
                input_w: i[2],
                input_c: i[3],
                output_h: out[1],
                output_w: out[2],
                output_c: out[3],
                filter_h: f[1],
                filter_w: f[2],
                depth_multiplier,
                stride_h: g.stride_h,
                stride_w: g.stride_w,
                dilation_h: g.dilation_h,
                dilation_w: g.dilation_w,
                pad_top: g.pad_top,
                pad_left: g.pad_left,
                filter,
                bias,
                act_min,
                act_max,
            },
        ),
    })
}

/// The int16 kernel's filter, `[depth_multiplier, filter_h, filter_w, input_c]` (the model's
/// `[1, filter_h, filter_w, output_c]` with its columns regrouped by multiplier index; the tensor
/// itself when the multiplier is 1), and whether every channel's window and bias sum in 32 bits
/// whatever the input: `32768 * Σ |w| + |bias|` at most `i32::MAX` ([`sums_fit_32`]).
fn planes_16x8(
    ctx: &OpContext,
    filter: &crate::ir::Tensor,
    dm: usize,
    channels: usize,
    bias: &Option<Data<i64>>,
) -> Result<(Data<i8>, bool)> {
    let (weights, _) = filter_rows(ctx, filter, 1)?;
    let taps = weights.len() / channels.max(1);
    let mut abs = vec![0i64; channels];
    for (k, &w) in weights[..taps * channels].iter().enumerate() {
        abs[k % channels] += i64::from(w).abs();
    }
    let sums32 = sums_fit_32(ctx, &abs, bias.as_ref())?;
    if dm == 1 {
        return Ok((Data::Tensor(ctx.constant_input(1, "filter")?), sums32));
    }
    let ic = channels / dm;
    let mut planes = Vec::with_capacity(taps * channels);
    for m in 0..dm {
        for t in 0..taps {
            planes.extend((0..ic).map(|c| weights[t * channels + c * dm + m]));
        }
    }
    Ok((Data::Packed(planes), sums32))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{field, graph, kernel, quant, reason, tensor};
    use crate::ir::*;
    use crate::lower::{Operand, Packed, Value};

    fn options() -> Options {
        Options::DepthwiseConv2D(DepthwiseConv2DOptions {
            padding: Padding::Valid,
            stride_w: 1,
            stride_h: 1,
            depth_multiplier: 2,
            dilation_w: 1,
            dilation_h: 1,
            activation: Activation::Relu6,
        })
    }

    #[test]
    fn depthwise_takes_the_multiplier_and_uses_axis_3() {
        static W: [u8; 16] = [1; 16];
        let g = graph(
            OpCode::DEPTHWISE_CONV_2D,
            options(),
            vec![
                tensor(&[1, 2, 2, 2], DType::I8, quant(&[0.5], &[0], 0), None),
                tensor(
                    &[1, 2, 2, 4],
                    DType::I8,
                    quant(&[0.5, 0.25, 0.5, 0.25], &[0, 0, 0, 0], 3),
                    Some(&W),
                ),
                tensor(&[1, 1, 1, 4], DType::I8, quant(&[0.125], &[-128], 0), None),
            ],
            &[Some(0), Some(1)],
        );
        let k = kernel(&g);
        assert_eq!(k.function, "depthwise_conv2d_s8");
        assert_eq!(field(&k, "depth_multiplier"), &Value::Usize(2));
        assert_eq!(field(&k, "bias"), &Value::None);
        // 0.5 * 0.5 / 0.125 = 2 = 0.5 * 2^2; 0.5 * 0.25 / 0.125 = 1 = 0.5 * 2^1.
        assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![1 << 30; 4]));
        assert_eq!(field(&k, "shifts"), &Value::I8s(vec![2, 1, 2, 1]));
        // RELU6: [-128, -128 + 48].
        assert_eq!(
            (field(&k, "act_min"), field(&k, "act_max")),
            (&Value::I32(-128), &Value::I32(-80))
        );
    }

    /// An int16 depthwise graph: per-channel weights along dimension 3, a bias of type `bias`,
    /// and an input zero point `zp_in`.
    fn s16_graph(bias: DType, zp_in: i64) -> Graph<'static> {
        static W: [u8; 16] = [1; 16];
        static B: [u8; 32] = [0; 32];
        let bias_bytes = &B[..4 * bias.size()];
        graph(
            OpCode::DEPTHWISE_CONV_2D,
            options(),
            vec![
                tensor(&[1, 2, 2, 2], DType::I16, quant(&[0.5], &[zp_in], 0), None),
                tensor(
                    &[1, 2, 2, 4],
                    DType::I8,
                    quant(&[0.5, 0.25, 0.5, 0.25], &[0, 0, 0, 0], 3),
                    Some(&W),
                ),
                tensor(&[4], bias, None, Some(bias_bytes)),
                tensor(&[1, 1, 1, 4], DType::I16, quant(&[0.125], &[0], 0), None),
            ],
            &[Some(0), Some(1), Some(2)],
        )
    }

    /// The int16 kernel's filter regrouped into one plane per multiplier index, and the bound
    /// that lets it sum in 32 bits: met by small weights and bias, not once a bias passes it.
    #[test]
    fn int16_depthwise_filter_in_planes_and_the_32_bit_bound() {
        static W: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
        static SMALL: [u8; 32] = [0; 32];
        static LARGE: [u8; 32] = {
            // Channel 3's bias 2^31 - 1: with any weight the bound fails.
            let mut b = [0; 32];
            (b[24], b[25], b[26], b[27]) = (0xFF, 0xFF, 0xFF, 0x7F);
            b
        };
        for (bias, sums32) in [(&SMALL, true), (&LARGE, false)] {
            let g = graph(
                OpCode::DEPTHWISE_CONV_2D,
                options(),
                vec![
                    tensor(&[1, 2, 2, 2], DType::I16, quant(&[0.5], &[0], 0), None),
                    tensor(
                        &[1, 2, 2, 4],
                        DType::I8,
                        quant(&[0.5, 0.25, 0.5, 0.25], &[0, 0, 0, 0], 3),
                        Some(&W),
                    ),
                    tensor(&[4], DType::I64, None, Some(bias)),
                    tensor(&[1, 1, 1, 4], DType::I16, quant(&[0.125], &[0], 0), None),
                ],
                &[Some(0), Some(1), Some(2)],
            );
            let k = kernel(&g);
            let Value::Packed(filter) = field(&k, "filter") else {
                panic!("a packed filter");
            };
            // Output channel 2 ic + m at [m, tap, ic]: plane 0 the even columns, plane 1 the odd.
            let planes = [0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15];
            assert_eq!(&filter.bytes[..], &planes[..]);
            assert_eq!(field(&k, "sums32"), &Value::Bool(sums32));
        }
    }

    #[test]
    fn int16_depthwise_reduces_the_multipliers_of_dimension_3() {
        let k = kernel(&s16_graph(DType::I64, 0));
        assert_eq!(k.function, "depthwise_conv2d_s16");
        assert_eq!(field(&k, "depth_multiplier"), &Value::Usize(2));
        // 2 = 2^30 * 2^-30 * 2^2 and 1 = 2^30 * 2^-30 * 2^1: multiplier 2^30 reduced to 2^14,
        // right shifts 15 - 2 and 15 - 1.
        assert_eq!(field(&k, "multipliers"), &Value::I32s(vec![1 << 14; 4]));
        assert_eq!(field(&k, "shifts"), &Value::I8s(vec![13, 14, 13, 14]));
        assert_eq!(field(&k, "bias"), &Value::Some(Box::new(Value::Tensor(2))));
        // RELU6 over an output scale of 1/8: [0, 48].
        assert_eq!(
            (field(&k, "act_min"), field(&k, "act_max")),
            (&Value::I32(0), &Value::I32(48))
        );
    }

    /// TFLM reads any int16 depthwise bias as int64 and applies no zero points.
    #[test]
    fn int16_depthwise_refuses_what_tflm_would_misread_or_ignore() {
        for dtype in [DType::I32, DType::I16] {
            let message = reason(&s16_graph(dtype, 0));
            assert!(message.contains("reads its bias as INT64"), "{message}");
        }
        let message = reason(&s16_graph(DType::I64, 3));
        assert!(message.contains("zero point 3"), "{message}");
    }

    /// A filter or bias computed at run time (here with no data: a graph input) goes to the
    /// `conv` module's depthwise dyn kernel, the bias read where it is; a bias TFLM would
    /// misread is still refused.
    #[test]
    fn weights_or_bias_computed_at_run_time_are_read_where_they_are() {
        for computed in [1, 2] {
            let mut g = s16_graph(DType::I64, 0);
            g.tensors[computed].data = None;
            let k = kernel(&g);
            assert_eq!((k.module, k.function), ("conv", "depthwise_conv2d_dyn_s16"));
            assert_eq!(
                k.operands,
                vec![Operand::Srcs(vec![0, 1, 2]), Operand::Offset(3)]
            );
            assert_eq!(field(&k, "shifts"), &Value::I8s(vec![13, 14, 13, 14]));
        }
        let mut g = s16_graph(DType::I32, 0);
        g.tensors[1].data = None;
        assert!(reason(&g).contains("INT32"));
    }

    /// One input channel: a CONV_2D of the transposed filter, on the gathering kernel.
    #[test]
    fn one_input_channel_runs_as_a_convolution() {
        static W: [u8; 8] = [1, 2, 3, 4, 5, 6, 7, 8];
        let g = graph(
            OpCode::DEPTHWISE_CONV_2D,
            options(),
            vec![
                tensor(&[1, 2, 2, 1], DType::I8, quant(&[0.5], &[3], 0), None),
                tensor(
                    &[1, 2, 2, 2],
                    DType::I8,
                    quant(&[0.5, 0.25], &[0, 0], 3),
                    Some(&W),
                ),
                tensor(&[1, 1, 1, 2], DType::I8, quant(&[0.125], &[-128], 0), None),
            ],
            &[Some(0), Some(1)],
        );
        let k = kernel(&g);
        assert_eq!((k.module, k.function), ("conv", "conv2d_im2col_s8"));
        // Taps (y, x) of channel 0 are W[0], W[2], W[4], W[6]; of channel 1, W[1], W[3], ...
        // Fewer than four rows: no block to interleave, the rows stay as they are.
        let filter = Packed {
            dtype: DType::I8,
            bytes: [1u8, 3, 5, 7, 2, 4, 6, 8].into(),
        };
        assert_eq!(field(&k, "filter"), &Value::Packed(filter));
        // No bias, input zero point 3: -3 * (1 + 3 + 5 + 7) and -3 * (2 + 4 + 6 + 8).
        assert_eq!(field(&k, "folded_bias"), &Value::I32s(vec![-48, -60]));
        assert_eq!(field(&k, "shifts"), &Value::I8s(vec![2, 1]));
    }
}

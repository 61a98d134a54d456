//! AVERAGE_POOL_2D and MAX_POOL_2D → `pool::{average,max}_pool2d_{s8,s16,f32}`, L2_POOL_2D →
//! `pool::l2_pool2d_f32`: shapes, padding, activation range.

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Options, Padding};
use crate::lower::params::pool as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{quant, Num, OpContext, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::AVERAGE_POOL_2D,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| pool(ctx, Kind::Average)),
    },
    OpEntry {
        code: OpCode::MAX_POOL_2D,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| pool(ctx, Kind::Max)),
    },
    OpEntry {
        code: OpCode::L2_POOL_2D,
        // l2_pool_2d.cc L2Prepare: TF_LITE_ENSURE_TYPES_EQ(input type, kTfLiteFloat32).
        types: Types::unary(&[Sig::Same(Ty::F32)], &[Sig::Same(Ty::F32)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| pool(ctx, Kind::L2)),
    },
];

/// Which pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Average,
    Max,
    /// The root of the mean of the squares (float32 only).
    L2,
}

/// AVERAGE_POOL_2D / MAX_POOL_2D → `pool::{average,max}_pool2d_{s8,s16,f32}`.
fn pool(ctx: &OpContext, pool: Kind) -> Result<Kernel> {
    let Options::Pool2D(o) = &ctx.op().options else {
        // The loader refuses a pool without options (stride and filter 0) as corrupt.
        return Err(ctx.internal("no Pool2D options decoded"));
    };
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    // int16: TFLM's int8 pools on int16 values, with the same checks.
    let num = ctx.input_num_or_i16(input)?;
    ctx.expect_rank("input", input, 4)?;
    ctx.expect_rank("output", output, 4)?;
    let (i, out) = (&input.shape, &output.shape);
    if i[0] != out[0] || i[3] != out[3] {
        return Err(ctx.invalid(
            format!("input {i:?} and output {out:?} differ in batches or channels"),
            Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
        ));
    }
    // As TFLM computes it from the window alone (see quant::tflm_padding), whatever the output's
    // extent: its kernels walk the output tensor's, skipping the taps outside the image.
    let (pad_top, pad_left) = quant::tflm_padding(
        o.padding,
        (o.stride_h, o.stride_w),
        (1, 1),
        (i[1], i[2]),
        (o.filter_h, o.filter_w),
    );
    ctx.fits_i16("padding", pad_top)?;
    ctx.fits_i16("padding", pad_left)?;
    // An output whose window has no tap in the image: TFLM's max pools output the lowest value
    // (clamped by the activation), as the kernels here do, but its AveragePool returns at such a
    // window and its caller ignores that, leaving the rest of the output unwritten.
    let empty_window = [
        (i[1], out[1], o.filter_h, o.stride_h, pad_top),
        (i[2], out[2], o.filter_w, o.stride_w, pad_left),
    ]
    .into_iter()
    .any(|(input, output, filter, stride, pad)| {
        // The windows move right as the output index grows: the first and last are the extremes.
        output > 0 && (filter <= pad || (output - 1).saturating_mul(stride) >= input + pad)
    });
    if pool == Kind::Average && empty_window && i[0] * i[3] > 0 {
        return Err(ctx.invalid(
            format!(
                "output {out:?}: a window of the {}x{} average over input {i:?} has no tap in \
                 the image",
                o.filter_h, o.filter_w
            ),
            Grounds::undefined(
                "TFLM's AveragePool returns at a window with no tap in the image (filter_count \
                 0) and pooling's Eval ignores that: the rest of the output is left unwritten",
            ),
        ));
    }
    if pool == Kind::L2 {
        // L2Prepare writes the output's dims itself, from its own output size: a model whose
        // output tensor has other dims gets more or fewer elements written than it holds.
        // ComputeOutSize, in C's truncating division (a slightly negative VALID extent is 0).
        let extent = |input: usize, filter: usize, stride: usize| -> Option<usize> {
            let (input, filter, stride) = (input as i128, filter as i128, stride as i128);
            let n = match o.padding {
                Padding::Same => (input + stride - 1) / stride,
                Padding::Valid => (input + stride - filter) / stride,
            };
            usize::try_from(n).ok()
        };
        let want = [
            Some(i[0]),
            extent(i[1], o.filter_h, o.stride_h),
            extent(i[2], o.filter_w, o.stride_w),
            Some(i[3]),
        ];
        if want.iter().zip(out.iter()).any(|(w, &o)| *w != Some(o)) {
            let want: Vec<String> = want
                .iter()
                .map(|w| w.map_or("negative".into(), |n| n.to_string()))
                .collect();
            return Err(ctx.invalid(
                format!(
                    "output {out:?}: L2Prepare sets the output's dims to [{}] (from the input \
                     {i:?}, the window and the padding)",
                    want.join(", ")
                ),
                Grounds::undefined(
                    "l2_pool_2d.cc L2Prepare overwrites the output's dims with the computed ones: \
                     TFLM writes that many elements into a tensor sized otherwise",
                ),
            ));
        }
    }
    let function =
        match (num, pool) {
            (Num::I8, Kind::Average) => "average_pool2d_s8",
            (Num::I8, Kind::Max) => "max_pool2d_s8",
            (Num::I16, Kind::Average) => "average_pool2d_s16",
            (Num::I16, Kind::Max) => "max_pool2d_s16",
            (Num::F32, Kind::Average) => "average_pool2d_f32",
            (Num::F32, Kind::Max) => "max_pool2d_f32",
            (Num::F32, Kind::L2) => "l2_pool2d_f32",
            (_, Kind::L2) => return Err(ctx.invalid(
                format!(
                    "input type {}; TFLM's L2_POOL_2D takes FLOAT32 only",
                    input.dtype
                ),
                Grounds::tflm(
                    "l2_pool_2d.cc L2Prepare: TF_LITE_ENSURE_TYPES_EQ(input type, kTfLiteFloat32)",
                ),
            )),
        };
    match num {
        Num::I8 | Num::I16 => {
            let int16 = num == Num::I16;
            let ((s_in, zp_in), (s_out, zp_out)) = if int16 {
                ctx.expect_output_dtype("the output", output, DType::I16)?;
                (
                    ctx.int16_quant("input", input)?,
                    ctx.int16_quant("output", output)?,
                )
            } else {
                ctx.expect_output_dtype("the output", output, DType::I8)?;
                (
                    ctx.int8_quant("input", input)?,
                    ctx.int8_quant("output", output)?,
                )
            };
            // TFLM's pooling Prepare requires the same quantization on both sides.
            if f64::from((s_in - s_out).abs()) > 1e-6 || zp_in != zp_out {
                return Err(ctx.invalid(
                    format!(
                        "input quantization ({s_in}, {zp_in}) differs from output ({s_out}, \
                         {zp_out}); pools must keep it"
                    ),
                    Grounds::tflm(
                        "pooling_common.cc PoolingPrepare: TF_LITE_ENSURE(scale difference <= \
                         1e-6), TF_LITE_ENSURE(input zero point == output zero point)",
                    ),
                ));
            }
            let (act_min, act_max) = if int16 {
                // TFLM sums a window in 32 bits: more than 65,536 int16 taps can overflow it.
                let taps = o.filter_h.min(i[1]).saturating_mul(o.filter_w.min(i[2]));
                if pool == Kind::Average && taps > 1 << 16 {
                    return Err(ctx.invalid(
                        format!(
                            "an int16 average over windows of up to {taps} taps: TFLM's 32-bit \
                             sum stays in range only up to 65536 taps"
                        ),
                        Grounds::undefined(
                            "reference_integer_ops::AveragePool (int16) sums a window in int32: \
                             more than 65536 int16 taps can overflow it (signed overflow)",
                        ),
                    ));
                }
                ctx.activation_range_s16(o.activation, s_out, zp_out)?
            } else {
                ctx.activation_range_s8(o.activation, s_out, zp_out)?
            };
            Ok(kernel(
                function,
                in_out(ctx)?,
                P::Pool2dQuant {
                    batches: i[0],
                    input_h: i[1],
                    input_w: i[2],
                    channels: i[3],
                    output_h: out[1],
                    output_w: out[2],
                    filter_h: o.filter_h,
                    filter_w: o.filter_w,
                    stride_h: o.stride_h,
                    stride_w: o.stride_w,
                    pad_top,
                    pad_left,
                    act_min,
                    act_max,
                },
            ))
        }
        Num::F32 => {
            ctx.expect_output_dtype("the output", output, DType::F32)?;
            let (act_min, act_max) = ctx.activation_range_f32(o.activation)?;
            Ok(kernel(
                function,
                in_out(ctx)?,
                P::Pool2dF32 {
                    batches: i[0],
                    input_h: i[1],
                    input_w: i[2],
                    channels: i[3],
                    output_h: out[1],
                    output_w: out[2],
                    filter_h: o.filter_h,
                    filter_w: o.filter_w,
                    stride_h: o.stride_h,
                    stride_w: o.stride_w,
                    pad_top,
                    pad_left,
                    act_min,
                    act_max,
                },
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{field, graph, kernel, quant, reason, tensor};
    use crate::ir::*;
    use crate::lower::Value;

    #[test]
    fn pools_compute_same_padding_and_keep_quantization() {
        let options = Options::Pool2D(Pool2DOptions {
            padding: Padding::Same,
            stride_w: 2,
            stride_h: 2,
            filter_w: 3,
            filter_h: 3,
            activation: Activation::None,
        });
        let make = |out_zp| {
            graph(
                OpCode::AVERAGE_POOL_2D,
                options.clone(),
                vec![
                    tensor(&[1, 5, 5, 2], DType::I8, quant(&[0.5], &[1], 0), None),
                    tensor(&[1, 3, 3, 2], DType::I8, quant(&[0.5], &[out_zp], 0), None),
                ],
                &[Some(0)],
            )
        };
        let k = kernel(&make(1));
        assert_eq!(k.function, "average_pool2d_s8");
        // (3 - 1) * 2 + 3 - 5 = 2 → 1 before.
        assert_eq!(field(&k, "pad_top"), &Value::Usize(1));
        assert!(reason(&make(2)).contains("differs"));
    }

    #[test]
    fn int16_pools_keep_the_zero_point_in_the_activation_range() {
        let pool = |code, filter: usize, input: usize, output: usize| {
            graph(
                code,
                Options::Pool2D(Pool2DOptions {
                    padding: Padding::Valid,
                    stride_w: 1,
                    stride_h: 1,
                    filter_w: filter,
                    filter_h: filter,
                    activation: Activation::Relu6,
                }),
                vec![
                    tensor(
                        &[1, input, input, 1],
                        DType::I16,
                        quant(&[0.01], &[100], 0),
                        None,
                    ),
                    tensor(
                        &[1, output, output, 1],
                        DType::I16,
                        quant(&[0.01], &[100], 0),
                        None,
                    ),
                ],
                &[Some(0)],
            )
        };
        let k = kernel(&pool(OpCode::MAX_POOL_2D, 2, 3, 2));
        assert_eq!(k.function, "max_pool2d_s16");
        // RELU6 from the zero point 100 to 100 + 6 / 0.01.
        assert_eq!(field(&k, "act_min"), &Value::I32(100));
        assert_eq!(field(&k, "act_max"), &Value::I32(700));
        let k = kernel(&pool(OpCode::AVERAGE_POOL_2D, 2, 3, 2));
        assert_eq!(k.function, "average_pool2d_s16");
        // 256 x 256 taps of int16 fit TFLM's 32-bit sum; 257 x 257 may not. A max pool has no sum.
        kernel(&pool(OpCode::AVERAGE_POOL_2D, 256, 256, 1));
        kernel(&pool(OpCode::MAX_POOL_2D, 257, 257, 1));
        assert!(reason(&pool(OpCode::AVERAGE_POOL_2D, 257, 257, 1)).contains("65536 taps"));
        // int16 in, int8 out: TFLM would write int16 values into the int8 tensor.
        let mut g = pool(OpCode::MAX_POOL_2D, 2, 3, 2);
        g.tensors[1].dtype = DType::I8;
        assert!(reason(&g).contains("INT16"));
    }
}

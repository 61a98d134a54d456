//! TRANSPOSE_CONV → `transpose_conv::transpose_conv_{s8,s16,f32}`: options read from the
//! FlatBuffer, TFLM's padding (computed from the output size), per-channel requantization shared
//! with CONV_2D ([`super::conv`]). The kernels gather each output element's products, so unlike
//! TFLM's (an int32 or int64 sum per output element) they need no scratch memory.

use super::conv::{
    bias32_read_as_int64, hybrid, quant_16x8, reduce_16x8, swizzled_filter, symmetric_16x8,
    weights_and_range, Bias16x8, ConvQuant, Inputs,
};
use super::{in_out_from, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{Activation, DType, OpCode, Padding};
use crate::load::{activation_from, padding_from};
use crate::lower::params::transpose_conv as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{Data, Num, OpContext, Operand, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::TRANSPOSE_CONV,
    types: Types {
        roles: &[Role::In(2), Role::In(1), Role::Out(0)],
        tinyaot: &[
            Sig::Same(Ty::F32),
            Sig::Same(Ty::I8),
            Sig::Each(&[Ty::I16, Ty::I8, Ty::I16]),
        ],
        tflm: &[
            Sig::Same(Ty::F32),
            Sig::Same(Ty::I8),
            Sig::Each(&[Ty::I16, Ty::I8, Ty::I16]),
        ],
    },
    inputs: 3..=4,
    outputs: 1,
    lower: Lowering::Kernel(transpose_conv),
}];

/// TRANSPOSE_CONV's inputs: the output shape (input 0) comes first.
const INPUTS: Inputs = Inputs {
    input: 2,
    filter: 1,
    bias: 3,
};

/// Leading padding along one axis as TFLM's Prepare computes it: `ComputePaddingHeightWidth` with
/// the output size in the place of a convolution's input size (dilation 1), whatever the input
/// size. `None` for sizes beyond `i64`.
fn padding(padding: Padding, output: usize, filter: usize, stride: usize) -> Option<usize> {
    let (output, filter, stride) = (
        i64::try_from(output).ok()?,
        i64::try_from(filter).ok()?,
        i64::try_from(stride).ok()?,
    );
    // ComputeOutSize (C division, truncating toward zero as Rust's does).
    let size = match padding {
        Padding::Same => (output + stride - 1) / stride,
        Padding::Valid => (output + stride - filter) / stride,
    };
    let total = (size - 1) * stride + filter - output;
    usize::try_from(total.max(0) / 2).ok()
}

/// What TFLM does with a TRANSPOSE_CONV stride below 1, which tinyaot does not compile.
const TRANSPOSE_CONV_STRIDE: &str =
    "TFLM runs a stride below 1 (padding.h's ComputePaddingHeightWidth ignores the error of its \
     checked arithmetic and gives paddings of 0; the kernel skips output positions outside the \
     output), which tinyaot does not compile; supported: strides of at least 1";

/// TRANSPOSE_CONV (TFLM: int8, int16 with int8 weights, float32; input 0 the output shape, 1 the
/// filter `[output_c, filter_h, filter_w, input_c]`, 2 the input, 3 an optional bias).
fn transpose_conv(ctx: &OpContext) -> Result<Kernel> {
    let o = ctx
        .tflite_operator()?
        .builtin_options_as_transpose_conv_options()
        .ok_or_else(|| {
            // TFLM parses absent options as its zeroed params: strides of 0, padding unknown
            // (kNone), which it runs (see TRANSPOSE_CONV_STRIDE).
            ctx.unsupported(format!(
                "no TransposeConvOptions (TFLM's defaults: strides of 0); {TRANSPOSE_CONV_STRIDE}"
            ))
        })?;
    // The loader's own reading of these enums; a bad value is TFLM's Prepare refusing the model.
    let pad_kind = padding_from(o.padding()).ok_or_else(|| {
        ctx.invalid(
            format!(
                "padding {} is neither SAME (0) nor VALID (1)",
                o.padding().0
            ),
            Grounds::spec("schema.fbs enum Padding: SAME = 0, VALID = 1"),
        )
    })?;
    let mut strides = [0; 2];
    for (s, (name, v)) in strides
        .iter_mut()
        .zip([("stride_h", o.stride_h()), ("stride_w", o.stride_w())])
    {
        *s = usize::try_from(v)
            .ok()
            .filter(|&v| v >= 1)
            .ok_or_else(|| ctx.unsupported(format!("{name} is {v}; {TRANSPOSE_CONV_STRIDE}")))?;
        // TFLM's ConvParams hold strides as int16_t: larger values wrap.
        ctx.fits_i16("stride", *s)?;
    }
    let [stride_h, stride_w] = strides;
    let act = activation_from(o.fused_activation_function()).ok_or_else(|| {
        ctx.invalid(
            format!(
                "fused activation {} is not an ActivationFunctionType (0..=5)",
                o.fused_activation_function().0
            ),
            Grounds::spec("schema.fbs enum ActivationFunctionType: NONE = 0 … SIGN_BIT = 5"),
        )
    })?;

    let (input, filter, output) = (
        ctx.input(INPUTS.input)?,
        ctx.input(INPUTS.filter)?,
        ctx.output(0)?,
    );
    ctx.expect_rank("input", input, 4)?;
    ctx.expect_rank("filter", filter, 4)?;
    ctx.expect_rank("output", output, 4)?;
    let (i, f, out) = (&input.shape, &filter.shape, &output.shape);
    if i[0] != out[0] || f[0] != out[3] || f[3] != i[3] {
        // reference TransposeConv takes batches and depths from MatchingDim, a TFLITE_DCHECK: the
        // output's other batches or channels are left unwritten, or written out of bounds.
        return Err(ctx.invalid(
            format!(
                "input {i:?}, filter {f:?} and output {out:?} disagree on batches or channels \
                 (filter: [output channels, height, width, input channels])"
            ),
            Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
        ));
    }
    // TFLM's kernel never reads its output_shape input (input 0): it takes the output's size
    // from the output tensor, whatever output_shape says, and so does tinyaot.
    let pad = |output, filter, stride| {
        padding(pad_kind, output, filter, stride)
            .ok_or_else(|| ctx.internal("sizes beyond i64 in the padding arithmetic"))
    };
    let (pad_top, pad_left) = (pad(out[1], f[1], stride_h)?, pad(out[2], f[2], stride_w)?);
    ctx.fits_i16("padding", pad_top)?;
    ctx.fits_i16("padding", pad_left)?;

    // Weights or a bias written at run time (an operator's output, a graph input): TFLM's Prepare
    // reads only their types and quantization, its Eval the tensors wherever they are.
    let bias_at_run_time = ctx
        .optional_input(INPUTS.bias)
        .is_some_and(|b| !b.is_constant());
    if !filter.is_constant() || bias_at_run_time {
        let geometry = Geometry {
            strides: (stride_h, stride_w),
            pads: (pad_top, pad_left),
        };
        return transpose_conv_dyn(ctx, (i, f, out), &geometry, act);
    }
    let operands = in_out_from(ctx, INPUTS.input)?;
    macro_rules! params {
        ($ty:ident { $($field:ident: $value:expr),* $(,)? }) => {
            P::$ty {
                batches: i[0],
                input_h: i[1],
                input_w: i[2],
                input_c: i[3],
                output_h: out[1],
                output_w: out[2],
                output_c: out[3],
                filter_h: f[1],
                filter_w: f[2],
                stride_h,
                stride_w,
                pad_top,
                pad_left,
                $($field: $value),*
            }
        };
    }
    if input.dtype == DType::I16 {
        // TFLM's Eval takes the 64-bit path whatever the options' bias type, widening an INT16
        // bias.
        let q = quant_16x8(ctx, INPUTS, (out[3], act), Bias16x8::WidenInt16)?;
        // Taps of whole groups of four whose 32-bit sums cannot overflow: two channels at a time
        // over weights laid out for the DSP loop.
        let swizzled = i[3] % 4 == 0 && i[3] <= 508;
        let filter = if swizzled {
            swizzled_filter(ctx, filter, out[3])?
        } else {
            q.filter
        };
        return Ok(kernel(
            "transpose_conv_s16",
            operands,
            params!(TransposeConvS16 {
                filter: filter,
                bias: q.bias,
                multipliers: q.multipliers,
                shifts: q.shifts,
                act_min: q.act.0,
                act_max: q.act.1,
                swizzled: swizzled,
            }),
        ));
    }
    let num = ctx.input_num(input)?;
    Ok(match weights_and_range(ctx, (num, INPUTS), out[3], act)? {
        ConvQuant::I8 {
            input_zero_point,
            output_zero_point,
            filter,
            bias,
            multipliers,
            shifts,
            act_min,
            act_max,
        } => kernel(
            "transpose_conv_s8",
            operands,
            params!(TransposeConvS8 {
                input_zero_point: input_zero_point,
                output_zero_point: output_zero_point,
                filter: filter,
                bias: bias,
                multipliers: multipliers,
                shifts: shifts,
                act_min: act_min,
                act_max: act_max,
            }),
        ),
        ConvQuant::F32 {
            filter,
            bias,
            act_min,
            act_max,
        } => kernel(
            "transpose_conv_f32",
            operands,
            params!(TransposeConvF32 {
                filter: filter,
                bias: bias,
                act_min: act_min,
                act_max: act_max,
            }),
        ),
    })
}

/// A TRANSPOSE_CONV's strides and leading paddings, as TFLM's Prepare computes them.
struct Geometry {
    strides: (usize, usize),
    pads: (usize, usize),
}

/// The TRANSPOSE_CONV of input shape `i`, filter shape `f` and output shape `out` whose filter or
/// bias is computed at run time → `transpose_conv_dyn_*`, which read input, filter and the
/// optional bias as inputs and sum TFLM's reference terms; the requantization and clamp are
/// computed here as for constant weights, from the tensors' quantization parameters.
fn transpose_conv_dyn(
    ctx: &OpContext,
    (i, f, out): (&[usize], &[usize], &[usize]),
    g: &Geometry,
    act: Activation,
) -> Result<Kernel> {
    let (input, filter, output) = (
        ctx.input(INPUTS.input)?,
        ctx.input(INPUTS.filter)?,
        ctx.output(0)?,
    );
    let channels = out[3];
    let operands = |bias: Option<DType>| -> Result<Vec<Operand>> {
        let mut inputs = vec![
            ctx.input_index(INPUTS.input)?,
            ctx.input_index(INPUTS.filter)?,
        ];
        if let Some(bias) = bias {
            inputs.extend(ctx.bias_index(INPUTS.bias, bias, channels)?);
        }
        Ok(vec![
            Operand::Srcs(inputs),
            Operand::Offset(ctx.output_index(0)?),
        ])
    };
    macro_rules! params {
        ($ty:ident { $($field:ident: $value:expr),* $(,)? }) => {
            P::$ty {
                batches: i[0],
                input_h: i[1],
                input_w: i[2],
                input_c: i[3],
                output_h: out[1],
                output_w: out[2],
                output_c: out[3],
                filter_h: f[1],
                filter_w: f[2],
                stride_h: g.strides.0,
                stride_w: g.strides.1,
                pad_top: g.pads.0,
                pad_left: g.pads.1,
                $($field: $value),*
            }
        };
    }
    let bias_type = ctx.optional_input(INPUTS.bias).map(|b| b.dtype);
    if input.dtype == DType::I16 {
        ctx.expect_dtype("filter", filter, DType::I8)?;
        ctx.expect_output_dtype("the output", output, DType::I16)?;
        let (s_in, zp_in) = ctx.int16_quant("input", input)?;
        let (s_out, zp_out) = ctx.int16_quant("output", output)?;
        symmetric_16x8(ctx, zp_in, zp_out)?;
        // TFLM's Eval widens an INT16 bias at every call and reads any other as int64_t (a 32-bit
        // one past its end, refused as the constant case refuses it).
        let (function, bias) = match bias_type {
            Some(DType::I16) => ("transpose_conv_dyn_s16_bias16", Some(DType::I16)),
            Some(DType::I32) => return Err(bias32_read_as_int64(ctx)),
            Some(_) => ("transpose_conv_dyn_s16", Some(DType::I64)),
            None => ("transpose_conv_dyn_s16", None),
        };
        let scales = ctx.weight_scales(filter, channels)?;
        let (multipliers, shifts) = ctx.per_channel_multipliers(s_in, &scales, s_out, channels)?;
        let (multipliers, shifts) = reduce_16x8(ctx, &multipliers, &shifts)?;
        let (act_min, act_max) = ctx.activation_range_s16(act, s_out, 0)?;
        return Ok(kernel(
            function,
            operands(bias)?,
            params!(TransposeConvDyn {
                multipliers: Data::Values(multipliers),
                shifts: Data::Values(shifts),
                input_zero_point: 0,
                output_zero_point: 0,
                act_min: act_min,
                act_max: act_max,
            }),
        ));
    }
    let bias = |dtype| bias_type.map(|_| dtype);
    Ok(match ctx.input_num(input)? {
        Num::I8 => {
            ctx.expect_dtype("filter", filter, DType::I8)?;
            ctx.expect_output_dtype("the output", output, DType::I8)?;
            let (s_in, zp_in) = ctx.int8_quant("input", input)?;
            let (s_out, zp_out) = ctx.int8_quant("output", output)?;
            let scales = ctx.weight_scales(filter, channels)?;
            let (multipliers, shifts) =
                ctx.per_channel_multipliers(s_in, &scales, s_out, channels)?;
            let (act_min, act_max) = ctx.activation_range_s8(act, s_out, zp_out)?;
            kernel(
                "transpose_conv_dyn_s8",
                operands(bias(DType::I32))?,
                params!(TransposeConvDyn {
                    multipliers: Data::Values(multipliers),
                    shifts: Data::Values(shifts),
                    input_zero_point: zp_in,
                    output_zero_point: zp_out,
                    act_min: act_min,
                    act_max: act_max,
                }),
            )
        }
        Num::I16 => return Err(ctx.internal("an int16 TRANSPOSE_CONV past its int16 branch")),
        Num::F32 => {
            if filter.dtype != DType::F32 {
                return Err(hybrid(ctx, filter.dtype));
            }
            ctx.expect_output_dtype("the output", output, DType::F32)?;
            let (act_min, act_max) = ctx.activation_range_f32(act)?;
            kernel(
                "transpose_conv_dyn_f32",
                operands(bias(DType::F32))?,
                params!(TransposeConvDynF32 {
                    act_min: act_min,
                    act_max: act_max,
                }),
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_follows_tflm_from_the_output_size() {
        // SAME, output 10, filter 3, stride 2: ComputeOutSize 5, total (5 - 1) * 2 + 3 - 10 = 1.
        assert_eq!(padding(Padding::Same, 10, 3, 2), Some(0));
        // SAME, output 12, filter 4, stride 2: size 6, total 10 + 4 - 12 = 2.
        assert_eq!(padding(Padding::Same, 12, 4, 2), Some(1));
        // VALID, output (5 - 1) * 2 + 4 = 12: size (12 + 2 - 4) / 2 = 5, total 0.
        assert_eq!(padding(Padding::Valid, 12, 4, 2), Some(0));
        // VALID with a filter larger than the output: size truncates toward zero, no padding.
        assert_eq!(padding(Padding::Valid, 1, 5, 1), Some(0));
    }
}

//! QUANTIZE and DEQUANTIZE → `quantize::*`: float32 → int8 and int16, requantization between int8,
//! int16 and int32 (each way) and between int8 and uint8, int8, int16 and uint8 → float32.

use super::{unary, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Tensor};
use crate::lower::params::quantize as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::OpContext;

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::QUANTIZE,
        types: Types::unary(
            &[
                Sig::Each(&[Ty::F32, Ty::I8]),
                Sig::Each(&[Ty::F32, Ty::I16]),
                Sig::Each(&[Ty::I8, Ty::I8]),
                Sig::Each(&[Ty::I8, Ty::U8]),
                Sig::Each(&[Ty::U8, Ty::I8]),
                Sig::Each(&[Ty::I8, Ty::I16]),
                Sig::Each(&[Ty::I8, Ty::I32]),
                Sig::Each(&[Ty::I16, Ty::I8]),
                Sig::Each(&[Ty::I16, Ty::I16]),
                Sig::Each(&[Ty::I16, Ty::I32]),
                Sig::Each(&[Ty::I32, Ty::I8]),
                Sig::Each(&[Ty::I32, Ty::I16]),
            ],
            &[
                Sig::Each(&[Ty::F32, Ty::I8]),
                Sig::Each(&[Ty::F32, Ty::I16]),
                Sig::Each(&[Ty::I8, Ty::I8]),
                Sig::Each(&[Ty::I8, Ty::U8]),
                Sig::Each(&[Ty::U8, Ty::I8]),
                Sig::Each(&[Ty::I8, Ty::I16]),
                Sig::Each(&[Ty::I8, Ty::I32]),
                Sig::Each(&[Ty::I16, Ty::I8]),
                Sig::Each(&[Ty::I16, Ty::I16]),
                Sig::Each(&[Ty::I16, Ty::I32]),
                Sig::Each(&[Ty::I32, Ty::I8]),
                Sig::Each(&[Ty::I32, Ty::I16]),
            ],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(quantize_in_place),
    },
    OpEntry {
        code: OpCode::DEQUANTIZE,
        types: Types::unary(
            &[
                Sig::Each(&[Ty::I8, Ty::F32]),
                Sig::Each(&[Ty::I16, Ty::F32]),
                Sig::Each(&[Ty::U8, Ty::F32]),
            ],
            &[
                Sig::Each(&[Ty::I8, Ty::F32]),
                Sig::Each(&[Ty::I16, Ty::F32]),
                Sig::Each(&[Ty::U8, Ty::F32]),
            ],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(dequantize),
    },
];

/// QUANTIZE, in place where its output elements are no wider than its input's: the kernels go
/// chunk by chunk, each read before it is written (runtime/src/kernels/quantize.rs).
fn quantize_in_place(ctx: &OpContext) -> Result<Kernel> {
    let k = quantize(ctx)?;
    if ctx.output(0)?.bytes <= ctx.input(0)?.bytes {
        k.in_place(ctx)
    } else {
        Ok(k)
    }
}

/// The per-tensor `(scale, zero point)` of a uint8 tensor, its zero point within uint8.
fn uint8_quant(ctx: &OpContext, what: &str, tensor: &Tensor) -> Result<(f32, i32)> {
    let (scale, zero_point) = ctx.per_tensor_quant(what, tensor)?;
    if !(0..=255).contains(&zero_point) {
        return Err(ctx.invalid(
            format!("{what} zero point {zero_point} is outside the uint8 range [0, 255]"),
            Grounds::spec(
                "TFLite quantization specification: a uint8 tensor's zero point is in [0, 255]",
            ),
        ));
    }
    Ok((scale, zero_point))
}

/// QUANTIZE: float32 → int8 or int16, or a requantization between int8, int16 and int32 or
/// between int8 and uint8 (TFLM's `quantize_common.cc`: the pairs its Eval runs).
fn quantize(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let (so, zo) = match output.dtype {
        DType::I8 => ctx.int8_quant("the output", output)?,
        DType::I16 => ctx.int16_quant("the output", output)?,
        DType::I32 => ctx.per_tensor_quant("the output", output)?,
        DType::U8 => uint8_quant(ctx, "the output", output)?,
        _ => return Err(unsupported_pair(ctx)),
    };
    if input.dtype == DType::F32 {
        // TFLM converts round(x / scale) to int32 without a range check (undefined beyond it):
        // refuse scales so small that an input of magnitude 1 already overflows.
        ctx.quantize_bound("the output scale", 1.0, so, zo)?;
        return match output.dtype {
            DType::I8 => unary(ctx, "quantize_f32_s8", |len| P::QuantizeF32S8 {
                len,
                scale: so,
                zero_point: zo,
            }),
            DType::I16 => unary(ctx, "quantize_f32_s16", |len| P::QuantizeF32S16 {
                len,
                scale: so,
                zero_point: zo,
            }),
            _ => Err(unsupported_pair(ctx)),
        };
    }
    let function = match (input.dtype, output.dtype) {
        (DType::I8, DType::I8) => "requantize_s8",
        (DType::I8, DType::U8) => "requantize_s8_u8",
        (DType::U8, DType::I8) => "requantize_u8_s8",
        (DType::I8, DType::I16) => "requantize_s8_s16",
        (DType::I16, DType::I8) => "requantize_s16_s8",
        (DType::I16, DType::I16) => "requantize_s16",
        (DType::I16, DType::I32) => "requantize_s16_s32",
        (DType::I8, DType::I32) => "requantize_s8_s32",
        (DType::I32, DType::I8) => "requantize_s32_s8",
        (DType::I32, DType::I16) => "requantize_s32_s16",
        _ => return Err(unsupported_pair(ctx)),
    };
    // An int16 or int32 input's zero point is not in the int8 range: only the scale is checked.
    let (si, zi) = match input.dtype {
        DType::I8 => ctx.int8_quant("the input", input)?,
        DType::U8 => uint8_quant(ctx, "the input", input)?,
        _ => ctx.per_tensor_quant("the input", input)?,
    };
    // Every integer pair: `QuantizeMultiplier((double)s_in / (double)s_out)`.
    let (m, shift) = ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    unary(ctx, function, |len| P::RequantizeS8 {
        len,
        input_zero_point: zi,
        output_zero_point: zo,
        multiplier: m,
        shift,
    })
}

/// The refusal of a QUANTIZE pair of types tinyaot does not convert.
fn unsupported_pair(ctx: &OpContext) -> crate::error::Error {
    let (i, o) = match (ctx.input(0), ctx.output(0)) {
        (Ok(i), Ok(o)) => (i.dtype, o.dtype),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    // The pairs below are exactly those TFLM's kernel converts (the registry's table shows no
    // difference): any other is refused by its Eval.
    ctx.invalid(
        format!(
            "QUANTIZE from {i} to {o}; TFLM converts FLOAT32, INT8 or INT16 to INT8 or INT16, \
             INT8 or INT16 to INT32, INT32 to INT8 or INT16, INT8 to UINT8 and UINT8 to INT8"
        ),
        Grounds::tflm(
            "quantize_common.cc EvalQuantizeReference: \"Input %s, output %s not supported.\"",
        ),
    )
}

/// DEQUANTIZE: int8, int16 or uint8 → float32 (`(double)scale * (x - zero_point)`, rounded to
/// float).
fn dequantize(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if output.dtype != DType::F32 {
        return Err(ctx.invalid(
            format!("the output has type {}; DEQUANTIZE writes FLOAT32", output.dtype),
            Grounds::tflm("dequantize_common.cc DequantizePrepare: TF_LITE_ENSURE(output->type == kTfLiteFloat32)"),
        ));
    }
    match input.dtype {
        DType::I16 => {
            let (si, zi) = ctx.int16_quant("the input", input)?;
            unary(ctx, "dequantize_s16_f32", |len| P::DequantizeS16F32 {
                len,
                scale: si,
                zero_point: zi,
            })
        }
        DType::U8 => {
            let (si, zi) = uint8_quant(ctx, "the input", input)?;
            unary(ctx, "dequantize_u8_f32", |len| P::DequantizeU8F32 {
                len,
                scale: si,
                zero_point: zi,
            })
        }
        _ => {
            ctx.expect_dtype("the input", input, DType::I8)?;
            let (si, zi) = ctx.int8_quant("the input", input)?;
            unary(ctx, "dequantize_s8_f32", |len| P::DequantizeS8F32 {
                len,
                scale: si,
                zero_point: zi,
            })
        }
    }
}

//! PRELU: float32, and int8 with `CalculatePreluParams`' two multipliers.

use super::super::{kernel, Kernel};
use super::{binary_layout, Broadcast};
use crate::error::{Grounds, Result};
use crate::ir::DType;
use crate::lower::params::elementwise as P;
use crate::lower::OpContext;

/// PRELU: `x >= 0 ? x : x * alpha` with alpha (input 2) broadcast as ADD's second input is
/// (TFLM's `BroadcastPrelu4DSlow`), float32 or int8 with `CalculatePreluParams`' two multipliers.
pub(super) fn prelu(ctx: &OpContext) -> Result<Kernel> {
    match ctx.input(0)?.dtype {
        DType::F32 | DType::I8 => {}
        DType::I16 => {
            return Err(ctx.unsupported(
                "input type INT16 (16x8 PRELU with an int8 alpha) is not supported yet; \
                 supported: INT8 and FLOAT32",
            ))
        }
        other => {
            return Err(ctx.invalid(
                format!("input type {other}; TFLM's PRELU supports FLOAT32, INT8 and INT16"),
                Grounds::tflm("prelu.cc PreluEval: Input type is not supported (kTfLiteError)"),
            ))
        }
    }
    let (bc, operands) = binary_layout(ctx)?;
    let Broadcast {
        shape,
        a_strides,
        b_strides,
    } = bc;
    if ctx.input(0)?.dtype == DType::F32 {
        let params = P::PreluF32 {
            shape,
            a_strides,
            b_strides,
        };
        return Ok(kernel("prelu_f32", operands, params));
    }
    let (si, zi) = ctx.int8_quant("the input", ctx.input(0)?)?;
    let (sa, za) = ctx.int8_quant("alpha", ctx.input(1)?)?;
    let (so, zo) = ctx.int8_quant("the output", ctx.output(0)?)?;
    // CalculatePreluParams: both ratios in double.
    let (multiplier_1, shift_1) =
        ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    let (multiplier_2, shift_2) = ctx.multiplier(
        "input scale × alpha scale / output scale",
        f64::from(si) * f64::from(sa) / f64::from(so),
    )?;
    let params = P::PreluS8 {
        shape,
        a_strides,
        b_strides,
        input_offset: -zi,
        alpha_offset: -za,
        output_offset: zo,
        multiplier_1,
        shift_1,
        multiplier_2,
        shift_2,
    };
    Ok(kernel("prelu_s8", operands, params))
}

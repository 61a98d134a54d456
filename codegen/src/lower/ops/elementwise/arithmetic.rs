//! ADD, SUB and MUL of every type: TFLM's quantized parameters for int8 and int16 (16x8), and
//! the activation ranges of int32 and float32.

use super::super::{kernel, Kernel};
use super::{binary_layout_as, elem, same_shape, Broadcast, Elem, OtherShape};
use crate::error::{Grounds, Result};
use crate::ir::{Activation, Options};
use crate::lower::params::elementwise as P;
use crate::lower::quant::{activation_range_f32, activation_range_s32};
use crate::lower::OpContext;

/// Where TFLM takes int8 ADD's and SUB's rescalings, which must be below 1.
const RESCALING_BELOW_ONE: &str = "quantization_util.cc QuantizeMultiplierSmallerThanOneExp, from \
    add_common.cc / sub_common.cc: TFLITE_CHECK(0 < multiplier < 1) and TFLITE_CHECK_LE(shift, 0) \
    abort";

/// Which arithmetic op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Arithmetic {
    Add,
    Sub,
    Mul,
}

/// The parameter struct `$ty` (ADD's or SUB's, int8 or int16: the same fields) from the broadcast,
/// the zero points `(input 1, input 2, output)`, the activation range and the [`AddSubScales`].
macro_rules! add_sub_params {
    ($ty:ident, $bc:expr, ($z1:expr, $z2:expr, $zo:expr), ($lo:expr, $hi:expr), $scales:expr) => {{
        let Broadcast {
            shape,
            a_strides,
            b_strides,
        } = $bc;
        let AddSubScales {
            left_shift,
            inputs: [(a_multiplier, a_shift), (b_multiplier, b_shift)],
            output: (output_multiplier, output_shift),
        } = $scales;
        P::$ty {
            shape,
            a_strides,
            b_strides,
            a_offset: -$z1,
            a_multiplier,
            a_shift,
            b_offset: -$z2,
            b_multiplier,
            b_shift,
            left_shift,
            output_multiplier,
            output_shift,
            output_offset: $zo,
            act_min: $lo,
            act_max: $hi,
        }
    }};
}

/// How TFLM walks an ADD, SUB or MUL output of the broadcast's size but another shape: flat when
/// the inputs' shapes are equal, else `BroadcastBinaryOpSimple` from the output's shape
/// (`BroadcastAdd4DSlow`, `BroadcastSubSlow`, `BroadcastQuantSubSlow`, `BroadcastMul4DSlow`).
/// The quantized ADD and SUB (`quantized`) and every MUL compare the shapes once extended to one
/// rank (add.cc `EvalAddQuantized`, sub.cc `EvalSubQuantized`, mul_common.cc:
/// `ProcessBroadcastShapes`), the float and int32 ADD and SUB exactly (add_common.cc,
/// sub_common.cc: `HaveSameShapes`).
fn arithmetic_other_shape(op: Arithmetic, quantized: bool) -> OtherShape {
    OtherShape::FlatOrSimple {
        extended: quantized || op == Arithmetic::Mul,
    }
}

/// ADD, SUB, MUL.
pub(super) fn arithmetic(ctx: &OpContext, op: Arithmetic) -> Result<Kernel> {
    let activation = match &ctx.op().options {
        Options::Arithmetic { activation } => *activation,
        _ => Activation::None,
    };
    let elem = elem(ctx)?;
    match elem {
        Elem::S16 if op == Arithmetic::Mul => return mul_s16(ctx, activation),
        Elem::S16 => return add_sub_s16(ctx, op, activation),
        Elem::S32 => return arithmetic_s32(ctx, op, activation),
        Elem::S8 | Elem::F32 => {}
    }
    let (bc, operands) = binary_layout_as(ctx, arithmetic_other_shape(op, elem == Elem::S8))?;
    let flat = |function| same_shape(function, &bc);
    let (add, sub, mul) = if elem == Elem::F32 {
        (flat("add_f32"), flat("sub_f32"), flat("mul_f32"))
    } else {
        (flat("add_s8"), flat("sub_s8"), flat("mul_s8"))
    };
    let Broadcast {
        shape,
        a_strides,
        b_strides,
    } = bc;
    if elem == Elem::F32 {
        let function = match op {
            Arithmetic::Add => add,
            Arithmetic::Sub => sub,
            Arithmetic::Mul => mul,
        };
        // Not `OpContext::activation_range_f32`: this refusal has always been worded without the
        // list of supported activations.
        let (lo, hi) = activation_range_f32(activation).ok_or_else(|| {
            ctx.unsupported(format!("fused activation {activation:?} is not supported"))
        })?;
        return Ok(kernel(
            function,
            operands,
            P::BinaryF32 {
                shape,
                a_strides,
                b_strides,
                act_min: lo,
                act_max: hi,
            },
        ));
    }
    let (s1, z1) = ctx.int8_quant("input 1", ctx.input(0)?)?;
    let (s2, z2) = ctx.int8_quant("input 2", ctx.input(1)?)?;
    let (so, zo) = ctx.int8_quant("the output", ctx.output(0)?)?;
    let (act_min, act_max) = ctx.activation_range_s8(activation, so, zo)?;
    if op == Arithmetic::Mul {
        let (m, shift) = ctx.multiplier(
            "input 1 scale × input 2 scale / output scale",
            f64::from(s1) * f64::from(s2) / f64::from(so),
        )?;
        return Ok(kernel(
            mul,
            operands,
            P::MulS8 {
                shape,
                a_strides,
                b_strides,
                a_offset: -z1,
                b_offset: -z2,
                output_multiplier: m,
                output_shift: shift,
                output_offset: zo,
                act_min,
                act_max,
            },
        ));
    }
    let scales = add_sub_scales(ctx, (s1, s2, so), 20, RESCALING_BELOW_ONE)?;
    let bc = Broadcast {
        shape,
        a_strides,
        b_strides,
    };
    // SUB's parameters are ADD's (an alias in the runtime), under its own name.
    Ok(if op == Arithmetic::Sub {
        kernel(
            sub,
            operands,
            add_sub_params!(SubS8, bc, (z1, z2, zo), (act_min, act_max), scales),
        )
    } else {
        kernel(
            add,
            operands,
            add_sub_params!(AddS8, bc, (z1, z2, zo), (act_min, act_max), scales),
        )
    })
}

/// The rescaling of TFLM's `CalculateOpDataAdd` / `CalculateOpDataSub` for input scales `s1`, `s2`
/// and output scale `so` under `left_shift` (20 for int8, 15 for int16): both inputs to twice the
/// larger input scale, the sum to the output's, each a `QuantizeMultiplierSmallerThanOneExp` in
/// double (taking SUB's in float, as older TFLM sources read, is 1 LSB off for some scale pairs).
/// ADD_N's and CUMSUM's `CalculateOpData` take the same with both input scales the one input's.
pub(in crate::lower::ops) struct AddSubScales {
    pub(in crate::lower::ops) left_shift: i32,
    pub(in crate::lower::ops) inputs: [(i32, i32); 2],
    pub(in crate::lower::ops) output: (i32, i32),
}

/// [`AddSubScales`]; `ground` names where the operator's TFLM kernel takes them (each must be
/// below 1, [`OpContext::multiplier_below_one`]).
pub(in crate::lower::ops) fn add_sub_scales(
    ctx: &OpContext,
    (s1, s2, so): (f32, f32, f32),
    left_shift: i32,
    ground: &'static str,
) -> Result<AddSubScales> {
    let twice_max = 2.0 * f64::from(s1.max(s2));
    Ok(AddSubScales {
        left_shift,
        inputs: [
            ctx.multiplier_below_one("input 1", f64::from(s1) / twice_max, ground)?,
            ctx.multiplier_below_one("input 2", f64::from(s2) / twice_max, ground)?,
        ],
        output: ctx.multiplier_below_one(
            "output",
            twice_max / (f64::from(1 << left_shift) * f64::from(so)),
            ground,
        )?,
    })
}

/// int16 ADD and SUB (16x8 models): TFLM's `CalculateOpDataAdd` / `CalculateOpDataSub` with the
/// int16 left shift of 15, on the runtime's `add_s16` / `sub_s16`.
fn add_sub_s16(ctx: &OpContext, op: Arithmetic, activation: Activation) -> Result<Kernel> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let (bc, operands) = binary_layout_as(ctx, arithmetic_other_shape(op, true))?;
    let (s1, z1) = ctx.int16_quant("input 1", a)?;
    let (s2, z2) = ctx.int16_quant("input 2", b)?;
    let (so, zo) = ctx.int16_quant("the output", out)?;
    let (act_min, act_max) = ctx.activation_range_s16(activation, so, zo)?;
    let scales = add_sub_scales(ctx, (s1, s2, so), 15, RESCALING_BELOW_ONE)?;
    let (add, sub) = (same_shape("add_s16", &bc), same_shape("sub_s16", &bc));
    Ok(if op == Arithmetic::Sub {
        kernel(
            sub,
            operands,
            add_sub_params!(SubS16, bc, (z1, z2, zo), (act_min, act_max), scales),
        )
    } else {
        kernel(
            add,
            operands,
            add_sub_params!(AddS16, bc, (z1, z2, zo), (act_min, act_max), scales),
        )
    })
}

/// int16 MUL (16x8 models): TFLM's `CalculateOpDataMul`, which for int16 ENSUREs every zero point
/// is 0, on the runtime's `mul_s16` (`MulElementwise<int16_t>`: the int8 arithmetic, int16 range).
fn mul_s16(ctx: &OpContext, activation: Activation) -> Result<Kernel> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let (bc, operands) = binary_layout_as(ctx, arithmetic_other_shape(Arithmetic::Mul, true))?;
    let (s1, z1) = ctx.int16_quant("input 1", a)?;
    let (s2, z2) = ctx.int16_quant("input 2", b)?;
    let (so, zo) = ctx.int16_quant("the output", out)?;
    if (z1, z2, zo) != (0, 0, 0) {
        return Err(ctx.invalid(
            format!(
            "int16 zero points {z1}, {z2} (inputs) and {zo} (output); TFLM requires all to be 0"
        ),
            Grounds::tflm(
                "mul_common.cc CalculateOpDataMul: TF_LITE_ENSURE_EQ(int16 zero points, 0)",
            ),
        ));
    }
    let (act_min, act_max) = ctx.activation_range_s16(activation, so, zo)?;
    let (m, shift) = ctx.multiplier(
        "input 1 scale × input 2 scale / output scale",
        f64::from(s1) * f64::from(s2) / f64::from(so),
    )?;
    Ok(kernel(
        same_shape("mul_s16", &bc),
        operands,
        P::MulS16 {
            shape: bc.shape,
            a_strides: bc.a_strides,
            b_strides: bc.b_strides,
            a_offset: 0,
            b_offset: 0,
            output_multiplier: m,
            output_shift: shift,
            output_offset: 0,
            act_min,
            act_max,
        },
    ))
}

/// int32 ADD, SUB and MUL: TFLM's unquantized int32 paths (`EvalAdd`, `EvalSub` and
/// `EvalMulQuantizedReference` on `reference_ops::Add`, `SubWithActivation` and `Mul` or their
/// broadcast twins), which read no scale or zero point. `AddPrepare` requires both inputs to be
/// unquantized, `SubPrepare` the output too, MUL nothing. ADD's int32 path clamps to int32's range
/// whatever the fused activation; SUB and MUL clamp to `CalculateActivationRange<int32_t>`.
/// Overflow wraps in the runtime's `add_s32`, `sub_s32` and `mul_s32` (TFLM's MUL wraps by
/// definition, its ADD and SUB overflow a C++ `int32_t`, undefined, and wrap as compiled).
fn arithmetic_s32(ctx: &OpContext, op: Arithmetic, activation: Activation) -> Result<Kernel> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let (bc, operands) = binary_layout_as(ctx, arithmetic_other_shape(op, false))?;
    let (function, unquantized): (_, &[_]) = match op {
        Arithmetic::Add => ("add_s32", &[("input 1", a), ("input 2", b)]),
        Arithmetic::Sub => (
            "sub_s32",
            &[("input 1", a), ("input 2", b), ("the output", out)],
        ),
        Arithmetic::Mul => ("mul_s32", &[]),
    };
    if let Some((what, _)) = unquantized.iter().find(|(_, t)| t.quant.is_some()) {
        let name = if op == Arithmetic::Add { "ADD" } else { "SUB" };
        return Err(ctx.invalid(
            format!(
                "{what} is quantized; TFLM's INT32 {name} requires unquantized {}",
                if op == Arithmetic::Add {
                    "inputs"
                } else {
                    "inputs and output"
                }
            ),
            Grounds::tflm(
                "add_common.cc AddPrepare / sub_common.cc SubPrepare: \
                 TF_LITE_ENSURE_EQ(quantization type, kTfLiteNoQuantization) for INT32",
            ),
        ));
    }
    let (act_min, act_max) = if op == Arithmetic::Add {
        (i32::MIN, i32::MAX)
    } else {
        activation_range_s32(activation)
    };
    Ok(kernel(
        function,
        operands,
        P::BinaryS32 {
            shape: bc.shape,
            a_strides: bc.a_strides,
            b_strides: bc.b_strides,
            act_min,
            act_max,
        },
    ))
}

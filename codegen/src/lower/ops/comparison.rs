//! EQUAL, NOT_EQUAL, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL → `comparison::compare_<type>`,
//! one kernel per input type with the predicate as a parameter, over the element-wise family's
//! collapsed broadcast.
//!
//! TFLM's `comparisons.cc`: `ComparisonsPrepare` only computes the int8 rescaling
//! (`QuantizeMultiplierSmallerThanOneExp` of each input's scale, a left shift of 8); each `Eval`
//! dispatches on input 1's type (bool for EQUAL and NOT_EQUAL only; float32, int32, int64, int8
//! for all; int16 for GREATER, whose rescaling Prepare never computes) and fails on any other.
//! Nothing checks input 2's type or the output's (written as `bool`): tinyaot refuses other
//! types on the specification's ground.

use super::elementwise::broadcast::Broadcast;
use super::elementwise::{broadcast_operands, OtherShape};
use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::comparison as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::OpContext;

/// The typed roles of a comparison: both inputs and the output.
const ROLES: &[Role] = &[Role::In(0), Role::In(1), Role::Out(0)];

/// The predicates, as `tinyaot::kernels::comparison::predicate` numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Predicate {
    Equal = 0,
    NotEqual = 1,
    Greater = 2,
    GreaterEqual = 3,
    Less = 4,
    LessEqual = 5,
}

/// One comparison of `t` inputs.
const fn sig(t: Ty) -> Sig {
    Sig::Each(match t {
        Ty::F32 => &[Ty::F32, Ty::F32, Ty::Bool],
        Ty::I8 => &[Ty::I8, Ty::I8, Ty::Bool],
        Ty::I16 => &[Ty::I16, Ty::I16, Ty::Bool],
        Ty::I32 => &[Ty::I32, Ty::I32, Ty::Bool],
        Ty::I64 => &[Ty::I64, Ty::I64, Ty::Bool],
        _ => &[Ty::Bool, Ty::Bool, Ty::Bool],
    })
}

/// EQUAL and NOT_EQUAL: bool, float32, int32, int64 and int8, all `EqualEval` takes.
const EQUALITY_TYPES: Types = {
    const SIGS: &[Sig] = &[
        sig(Ty::Bool),
        sig(Ty::F32),
        sig(Ty::I8),
        sig(Ty::I32),
        sig(Ty::I64),
    ];
    Types {
        roles: ROLES,
        tinyaot: SIGS,
        tflm: SIGS,
    }
};

/// GREATER_EQUAL, LESS, LESS_EQUAL: float32, int32, int64 and int8.
const ORDER_TYPES: Types = {
    const SIGS: &[Sig] = &[sig(Ty::F32), sig(Ty::I8), sig(Ty::I32), sig(Ty::I64)];
    Types {
        roles: ROLES,
        tinyaot: SIGS,
        tflm: SIGS,
    }
};

/// GREATER: those, and int16 in TFLM's `GreaterEval`, which tinyaot refuses (see [`lower`]).
const GREATER_TYPES: Types = Types {
    roles: ROLES,
    tinyaot: ORDER_TYPES.tinyaot,
    tflm: &[
        sig(Ty::F32),
        sig(Ty::I8),
        sig(Ty::I16),
        sig(Ty::I32),
        sig(Ty::I64),
    ],
};

/// The entry of a comparison.
const fn entry(code: OpCode, types: Types, lower: Lowering) -> OpEntry {
    OpEntry {
        code,
        types,
        inputs: 2..=2,
        outputs: 1,
        lower,
    }
}

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    entry(
        OpCode::EQUAL,
        EQUALITY_TYPES,
        Lowering::Kernel(|ctx| lower(ctx, Predicate::Equal)),
    ),
    entry(
        OpCode::NOT_EQUAL,
        EQUALITY_TYPES,
        Lowering::Kernel(|ctx| lower(ctx, Predicate::NotEqual)),
    ),
    entry(
        OpCode::GREATER,
        GREATER_TYPES,
        Lowering::Kernel(|ctx| lower(ctx, Predicate::Greater)),
    ),
    entry(
        OpCode::GREATER_EQUAL,
        ORDER_TYPES,
        Lowering::Kernel(|ctx| lower(ctx, Predicate::GreaterEqual)),
    ),
    entry(
        OpCode::LESS,
        ORDER_TYPES,
        Lowering::Kernel(|ctx| lower(ctx, Predicate::Less)),
    ),
    entry(
        OpCode::LESS_EQUAL,
        ORDER_TYPES,
        Lowering::Kernel(|ctx| lower(ctx, Predicate::LessEqual)),
    ),
];

/// The comparison `predicate` of the operator's two inputs.
fn lower(ctx: &OpContext, predicate: Predicate) -> Result<Kernel> {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let equality = matches!(predicate, Predicate::Equal | Predicate::NotEqual);
    match a.dtype {
        DType::F32 | DType::I8 | DType::I32 | DType::I64 => {}
        DType::Bool if equality => {}
        DType::I16 if predicate == Predicate::Greater => {
            return Err(ctx.invalid(
                "input type INT16: TFLM's GREATER compares int16 inputs with rescaling \
                 parameters its Prepare never sets",
                Grounds::undefined(
                    "comparisons.cc ComparisonsPrepare fills ComparisonParams only for INT8; \
                     GreaterEval's INT16 case runs GreaterWithScaling on the unset multipliers \
                     and shifts (the pip TFLM answers false for every pair)",
                ),
            ));
        }
        other => {
            let types = if equality {
                "BOOL, FLOAT32, INT32, INT64 and INT8"
            } else {
                "FLOAT32, INT32, INT64 and INT8"
            };
            return Err(ctx.invalid(
                format!("input type {other}; TFLM's kernel compares {types}"),
                Grounds::tflm(
                    "comparisons.cc *Eval: \"Type %s (%d) not supported.\" (kTfLiteError)",
                ),
            ));
        }
    }
    let (
        Broadcast {
            shape,
            a_strides,
            b_strides,
        },
        operands,
    ) = broadcast_operands(
        ctx,
        |out, _| ctx.expect_output_dtype("the output", out, DType::Bool),
        // An output of another shape: TFLM runs flat when the inputs' shapes are equal
        // (comparisons.cc, HaveSameShapes), else Broadcast4DSlow*, which is
        // BroadcastBinaryOpSimple over the output's shape (comparisons.h).
        OtherShape::FlatOrSimple { extended: false },
    )?;
    let predicate = predicate as i32;
    if a.dtype == DType::I8 {
        let (s1, z1) = ctx.int8_quant("input 1", a)?;
        let (s2, z2) = ctx.int8_quant("input 2", b)?;
        let (a_multiplier, a_shift) = smaller_than_one(ctx, "input 1", s1)?;
        let (b_multiplier, b_shift) = smaller_than_one(ctx, "input 2", s2)?;
        let p = P::ComparisonS8 {
            shape,
            a_strides,
            b_strides,
            predicate,
            a_offset: -z1,
            a_multiplier,
            a_shift,
            b_offset: -z2,
            b_multiplier,
            b_shift,
        };
        return Ok(kernel("compare_s8", operands, p));
    }
    let function = match a.dtype {
        DType::F32 => "compare_f32",
        DType::I32 => "compare_s32",
        DType::I64 => "compare_s64",
        _ => "compare_bool",
    };
    let p = P::Comparison {
        shape,
        a_strides,
        b_strides,
        predicate,
    };
    Ok(kernel(function, operands, p))
}

/// TFLM's `QuantizeMultiplierSmallerThanOneExp(scale)` of an int8 input's scale, refused where
/// its `TFLITE_CHECK`s abort: a scale of 1 or more (or one that rounds up to 1).
fn smaller_than_one(ctx: &OpContext, what: &str, scale: f32) -> Result<(i32, i32)> {
    ctx.check_scale(what, scale)?;
    let (multiplier, shift) = crate::lower::quant::quantize_multiplier(f64::from(scale));
    if scale >= 1.0 || shift > 0 {
        return Err(ctx.invalid(
            format!("{what} scale {scale:e} is not below 1"),
            Grounds::tflm(
                "comparisons.cc ComparisonsPrepare: QuantizeMultiplierSmallerThanOneExp(scale) \
                 TFLITE_CHECKs a multiplier below 1 and a shift of at most 0 (abort)",
            ),
        ));
    }
    Ok((multiplier, shift))
}

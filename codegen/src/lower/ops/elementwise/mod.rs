//! ADD, SUB, MUL, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE → `elementwise::*` (int8, int16, int32 and
//! float32; MAXIMUM and MINIMUM also int64), DIV (float32, int8 and int32), and PRELU (int8,
//! float32, and int16 with an int8 alpha; alpha broadcast like a second input): broadcasting and
//! TFLM's quantized parameters.
//!
//! The family's files: `broadcast.rs` the collapsed broadcast every kernel walks (and TFLM's
//! broadcasting checks), `arithmetic.rs` ADD, SUB and MUL of every type with their
//! requantization, `prelu.rs` PRELU, `squared_difference.rs` SQUARED_DIFFERENCE, `div.rs` DIV,
//! `floor_div_mod.rs` FLOOR_DIV and FLOOR_MOD, `add_n.rs` ADD_N (float32 and int8, 2 or more inputs).
//! This module holds the family's `OPS`, what every lowering shares (the element type, the
//! operands and their broadcast, the in-place contract) and MAXIMUM and MINIMUM, which compare
//! raw values.

mod add_n;
pub(in crate::lower::ops) mod arithmetic;
pub(super) mod broadcast;
pub(super) use broadcast::OtherShape;
mod div;
mod floor_div_mod;
mod prelu;
mod squared_difference;
#[cfg(test)]
mod tests;

use add_n::add_n;
use arithmetic::{arithmetic, Arithmetic};
use broadcast::{broadcast, broadcast_as, Broadcast};
use div::div;
use floor_div_mod::floor_div_mod;
use prelu::prelu;
use squared_difference::squared_difference;

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::Result;
use crate::ir::{DType, OpCode, Tensor};
use crate::lower::params::elementwise as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{Access, Call, CallKind, OpContext, Operand};

/// The typed roles of a binary operator: both inputs and the output.
const BINARY_ROLES: &[Role] = &[Role::In(0), Role::In(1), Role::Out(0)];

/// ADD, SUB and MUL: float32, int8, int16 and int32, all TFLM's kernels register.
const ARITHMETIC_TYPES: Types = {
    const SIGS: &[Sig] = &[
        Sig::Same(Ty::F32),
        Sig::Same(Ty::I8),
        Sig::Same(Ty::I16),
        Sig::Same(Ty::I32),
    ];
    Types {
        roles: BINARY_ROLES,
        tinyaot: SIGS,
        tflm: SIGS,
    }
};

/// MAXIMUM and MINIMUM: those and int64, all TFLM's kernel registers.
const MIN_MAX_TYPES: Types = {
    const SIGS: &[Sig] = &[
        Sig::Same(Ty::F32),
        Sig::Same(Ty::I8),
        Sig::Same(Ty::I16),
        Sig::Same(Ty::I32),
        Sig::Same(Ty::I64),
    ];
    Types {
        roles: BINARY_ROLES,
        tinyaot: SIGS,
        tflm: SIGS,
    }
};

/// SQUARED_DIFFERENCE: float32, int32, int8 and int16, all TFLM's kernel registers.
const SQUARED_DIFFERENCE_TYPES: Types = {
    const SIGS: &[Sig] = &[
        Sig::Same(Ty::F32),
        Sig::Same(Ty::I8),
        Sig::Same(Ty::I16),
        Sig::Same(Ty::I32),
    ];
    Types {
        roles: BINARY_ROLES,
        tinyaot: SIGS,
        tflm: SIGS,
    }
};

/// DIV: float32, int8 and int32, all TFLM's kernel registers.
const DIV_TYPES: Types = {
    const SIGS: &[Sig] = &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I32)];
    Types {
        roles: BINARY_ROLES,
        tinyaot: SIGS,
        tflm: SIGS,
    }
};

/// FLOOR_DIV and FLOOR_MOD: float32, all TFLM's kernels take.
const FLOOR_TYPES: Types = {
    const SIGS: &[Sig] = &[Sig::Same(Ty::F32)];
    Types {
        roles: BINARY_ROLES,
        tinyaot: SIGS,
        tflm: SIGS,
    }
};

/// PRELU: float32, int8, and int16 with an int8 alpha, all TFLM's kernel takes.
const PRELU_SIGS: &[Sig] = &[
    Sig::Same(Ty::F32),
    Sig::Same(Ty::I8),
    Sig::Each(&[Ty::I16, Ty::I8, Ty::I16]),
];

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::ADD_N,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
        ),
        // TFLM's CalculateOpData: TF_LITE_ENSURE(num_inputs >= 2), one output.
        inputs: 2..=usize::MAX,
        outputs: 1,
        lower: Lowering::Kernel(add_n),
    },
    OpEntry {
        code: OpCode::PRELU,
        types: Types {
            roles: BINARY_ROLES,
            tinyaot: PRELU_SIGS,
            tflm: PRELU_SIGS,
        },
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| in_place(ctx, prelu(ctx)?)),
    },
    OpEntry {
        code: OpCode::ADD,
        types: ARITHMETIC_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| in_place(ctx, arithmetic(ctx, Arithmetic::Add)?)),
    },
    OpEntry {
        code: OpCode::SUB,
        types: ARITHMETIC_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| in_place(ctx, arithmetic(ctx, Arithmetic::Sub)?)),
    },
    OpEntry {
        code: OpCode::MUL,
        types: ARITHMETIC_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| in_place(ctx, arithmetic(ctx, Arithmetic::Mul)?)),
    },
    OpEntry {
        code: OpCode::MAXIMUM,
        types: MIN_MAX_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| min_max(ctx, true)),
    },
    OpEntry {
        code: OpCode::MINIMUM,
        types: MIN_MAX_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| min_max(ctx, false)),
    },
    OpEntry {
        code: OpCode::SQUARED_DIFFERENCE,
        types: SQUARED_DIFFERENCE_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| in_place(ctx, squared_difference(ctx)?)),
    },
    OpEntry {
        code: OpCode::DIV,
        types: DIV_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| in_place(ctx, div(ctx)?)),
    },
    OpEntry {
        code: OpCode::FLOOR_DIV,
        types: FLOOR_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| floor_div_mod(ctx, true)),
    },
    OpEntry {
        code: OpCode::FLOOR_MOD,
        types: FLOOR_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(|ctx| floor_div_mod(ctx, false)),
    },
];

/// The element types this family's kernels take (TFLM's ADD, SUB and MUL take these; MAXIMUM and
/// MINIMUM also INT64, which [`min_max`] handles itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elem {
    S8,
    S16,
    S32,
    F32,
}

/// The element type of the op, from its first input (the others must match: [`binary_layout_as`]).
fn elem(ctx: &OpContext) -> Result<Elem> {
    match ctx.input(0)?.dtype {
        DType::I8 => Ok(Elem::S8),
        DType::I16 => Ok(Elem::S16),
        DType::I32 => Ok(Elem::S32),
        DType::F32 => Ok(Elem::F32),
        other => Err(ctx.unsupported(format!(
            "input 1 has type {other}; supported: INT8, INT16, INT32 and FLOAT32"
        ))),
    }
}

/// Checks the operands of a binary op of any element type: the inputs and the output of one type,
/// not both inputs constant; returns their broadcast, an output that is not the broadcast walked
/// as TFLM's kernel walks it (`other`), and the kernel's operands.
pub(in crate::lower::ops) fn binary_layout_as(
    ctx: &OpContext,
    other: OtherShape,
) -> Result<(Broadcast, Vec<Operand>)> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    ctx.same_dtype("input 2", b, a)?;
    ctx.same_dtype("the output", out, a)?;
    operands_as(ctx, other)
}

/// [`binary_layout_as`] with the output's type checked by `check_output` (given the output and
/// input 1) instead of being input 1's: the comparisons write BOOL whatever they compare.
pub(in crate::lower::ops) fn broadcast_operands(
    ctx: &OpContext,
    check_output: impl FnOnce(&Tensor, &Tensor) -> Result<()>,
    other: OtherShape,
) -> Result<(Broadcast, Vec<Operand>)> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    ctx.same_dtype("input 2", b, a)?;
    check_output(out, a)?;
    operands_as(ctx, other)
}

/// [`broadcast_operands`] with the types left to the caller: int16 PRELU's alpha is int8.
pub(in crate::lower::ops) fn mixed_broadcast_operands(
    ctx: &OpContext,
    other: OtherShape,
) -> Result<(Broadcast, Vec<Operand>)> {
    operands_as(ctx, other)
}

/// The broadcast (an output of another shape walked as `other` says) and the kernel's operands,
/// the types left to the caller.
fn operands_as(ctx: &OpContext, other: OtherShape) -> Result<(Broadcast, Vec<Operand>)> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    // The shapes first: an output the broadcast does not give is refused on its grounds even
    // where both inputs are constant (the folder leaves such an operator to lowering).
    let bc = broadcast_as(&a.shape, &b.shape, &out.shape, other).map_err(|e| e.into_error(ctx))?;
    if a.is_constant() && b.is_constant() && !ctx.constant_in_arena_ok() {
        return Err(ctx.unsupported("both inputs are constant; fold the op offline"));
    }
    let operands = vec![
        Operand::Src(ctx.input_index(0)?),
        Operand::Src(ctx.input_index(1)?),
        Operand::Offset(ctx.output_index(0)?),
    ];
    Ok((bc, operands))
}

/// `k` with an [`Access::InPlace`] contract for each arena input of the output's size (no
/// broadcast): every kernel of this family reads each element's operands before it writes the
/// element (the broadcast walk), or stages an input that overlaps its output chunk by chunk, each
/// chunk read before it is written (the same-shape entries; runtime/src/kernels/broadcast.rs), so
/// the output may take such an input's bytes.
fn in_place(ctx: &OpContext, mut k: Kernel) -> Result<Kernel> {
    let output = ctx.output_index(0)?;
    let out = ctx.output(0)?;
    // An output of another shape than the broadcast is walked in order only where the inputs'
    // shapes are equal and the operator's kernel then runs flat (not PRELU's, which always
    // loops over the output's shape); otherwise an input of its size may be read out of order
    // ([`OtherShape`]), and must stay apart from it.
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let flat = a.shape == b.shape && ctx.op().kind.code() != Some(OpCode::PRELU);
    let in_order = flat || broadcast(&a.shape, &b.shape, &out.shape).is_ok();
    for i in 0..2 {
        let input = ctx.input_index(i)?;
        let tensor = ctx.input(i)?;
        let same =
            in_order && tensor.num_elements() == out.num_elements() && tensor.bytes == out.bytes;
        if !tensor.is_constant() && same && input != output {
            k = k.with_access(Access::InPlace { input, output });
        }
    }
    Ok(k)
}

/// `function`'s same-shape entry (`<function>_flat`, runtime/src/kernels/elementwise/) when
/// `bc` reads both inputs in the output's order, element for element (equal shapes, or shapes of
/// one element): the kernel then walks the elements alone and the model links no broadcast
/// paths, unless another op broadcasts. `function` itself otherwise, and for the kernels without
/// such an entry.
pub(in crate::lower::ops) fn same_shape(function: &'static str, bc: &Broadcast) -> &'static str {
    // Row-major strides of the output, where a dimension of one element may have any.
    let laid_out = |strides: &[usize]| {
        let mut expected = 1;
        for (&n, &stride) in bc.shape.iter().zip(strides).rev() {
            if n != 1 && stride != expected {
                return false;
            }
            expected *= n;
        }
        true
    };
    if !(laid_out(&bc.a_strides) && laid_out(&bc.b_strides)) {
        return function;
    }
    SAME_SHAPE
        .iter()
        .find(|(general, _)| *general == function)
        .map_or(function, |&(_, flat)| flat)
}

/// The kernels with a same-shape entry, and that entry: ([`same_shape`]).
const SAME_SHAPE: [(&str, &str); 9] = [
    ("add_s8", "add_s8_flat"),
    ("sub_s8", "sub_s8_flat"),
    ("mul_s8", "mul_s8_flat"),
    ("add_s16", "add_s16_flat"),
    ("sub_s16", "sub_s16_flat"),
    ("mul_s16", "mul_s16_flat"),
    ("add_f32", "add_f32_flat"),
    ("sub_f32", "sub_f32_flat"),
    ("mul_f32", "mul_f32_flat"),
];

/// Back to the broadcast entry, for every call of a same-shape entry whose kernel some other call
/// of the graph broadcasts with: that one links the kernel's broadcast walk (every path, the
/// same-shape one included) anyway, and the same-shape entry would only add its own loop (about
/// 1.5 KB of transformer_kws's Cortex-M4 code for int8 ADD and MUL). The parameters are the same.
pub(super) fn one_entry_per_kernel(calls: &mut [Call]) {
    fn kernels(call: &mut Call) -> Option<&mut &'static str> {
        match &mut call.kind {
            CallKind::Kernel(k) if k.module == "elementwise" => Some(&mut k.function),
            _ => None,
        }
    }
    let broadcast: Vec<&str> = calls
        .iter_mut()
        .filter_map(kernels)
        .map(|function| *function)
        .filter(|function| SAME_SHAPE.iter().any(|(general, _)| general == function))
        .collect();
    for function in calls.iter_mut().filter_map(kernels) {
        if let Some(&(general, _)) = SAME_SHAPE
            .iter()
            .find(|(general, flat)| *flat == *function && broadcast.contains(general))
        {
            *function = general;
        }
    }
}

/// MAXIMUM (`maximum` true), MINIMUM: TFLM compares the raw values (quantization is not looked at:
/// `maximum_minimum.cc` has no Prepare).
fn min_max(ctx: &OpContext, maximum: bool) -> Result<Kernel> {
    // INT64 (TFLM's MAXIMUM and MINIMUM take it, its ADD, SUB and MUL do not): `None`.
    let elem = match ctx.input(0)?.dtype {
        DType::I64 => None,
        _ => Some(elem(ctx)?),
    };
    // An output of another shape: TFLM's MaximumMinimumBroadcastSlow runs flat when the inputs'
    // shapes are equal (RuntimeShape ==), else BroadcastBinaryOpSimple over the output's shape.
    let (bc, operands) = binary_layout_as(ctx, OtherShape::FlatOrSimple { extended: false })?;
    let function = match (maximum, elem) {
        (true, Some(Elem::S8)) => "maximum_s8",
        (true, Some(Elem::S16)) => "maximum_s16",
        (true, Some(Elem::S32)) => "maximum_s32",
        (true, Some(Elem::F32)) => "maximum_f32",
        (true, None) => "maximum_s64",
        (false, Some(Elem::S8)) => "minimum_s8",
        (false, Some(Elem::S16)) => "minimum_s16",
        (false, Some(Elem::S32)) => "minimum_s32",
        (false, Some(Elem::F32)) => "minimum_f32",
        (false, None) => "minimum_s64",
    };
    let k = kernel(
        function,
        operands,
        P::MinMax {
            shape: bc.shape,
            a_strides: bc.a_strides,
            b_strides: bc.b_strides,
        },
    );
    // The int64 kernels declare no in-place contract (CONTRACTS lists none for them): their
    // output keeps apart from the inputs.
    match elem {
        Some(_) => in_place(ctx, k),
        None => Ok(k),
    }
}

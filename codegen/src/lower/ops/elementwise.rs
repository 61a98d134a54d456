//! ADD, SUB, MUL, MAXIMUM, MINIMUM → `elementwise::*` (int8, int16, int32 and float32; MAXIMUM and
//! MINIMUM also int64), and PRELU (int8 and float32, alpha broadcast like a second input):
//! broadcasting and TFLM's quantized parameters.

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{Activation, DType, OpCode, Options};
use crate::lower::params::{elementwise as P, MAX_RANK};
use crate::lower::quant::{activation_range_f32, activation_range_s32};
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{Access, OpContext, Operand};

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

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::PRELU,
        types: Types {
            roles: BINARY_ROLES,
            tinyaot: &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
            tflm: &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Each(&[Ty::I16, Ty::I8, Ty::I16]),
            ],
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
];

/// A broadcast reduced to a collapsed output shape and per-input element strides.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Broadcast {
    /// Collapsed output shape.
    shape: Vec<usize>,
    /// Element strides of input 1 (0 where it broadcasts).
    a_strides: Vec<usize>,
    /// Element strides of input 2 (0 where it broadcasts).
    b_strides: Vec<usize>,
}

/// Why two input shapes and an output shape are not a broadcast, by the ground of the refusal.
#[derive(Debug)]
enum BroadcastError {
    /// Inputs that do not broadcast, or an output larger than their broadcast: TFLM's kernels
    /// check neither but with `TFLITE_DCHECK`, and read the inputs out of bounds or leave output
    /// elements unwritten.
    Undefined(String),
    /// An output smaller than the inputs' broadcast: TFLM computes part of it; the TFLite
    /// operator's definition gives the output the broadcast shape.
    Specification(String),
    /// What tinyaot does not compile (a rank above its kernels').
    Unsupported(String),
}

impl BroadcastError {
    /// The error of operator `ctx` for this reason.
    fn into_error(self, ctx: &OpContext) -> crate::error::Error {
        match self {
            BroadcastError::Undefined(why) => ctx.invalid(
                why,
                Grounds::undefined(crate::lower::SHAPES_CHECKED_ONLY_BY_DCHECK),
            ),
            BroadcastError::Specification(why) => ctx.invalid(
                why,
                Grounds::spec(
                    "a broadcasting operator's output has its inputs' broadcast shape (TFLite's \
                     kernels compute it in Prepare; a model that states another is one no \
                     converter writes)",
                ),
            ),
            BroadcastError::Unsupported(why) => ctx.unsupported(why),
        }
    }
}

/// NumPy-style broadcast of `a` and `b` (aligned at their last dimensions), checked against
/// `out`, with adjacent dimensions that broadcast alike merged. `Err` carries the reason.
fn broadcast(
    a: &[usize],
    b: &[usize],
    out: &[usize],
) -> std::result::Result<Broadcast, BroadcastError> {
    let rank = a.len().max(b.len());
    if rank > MAX_RANK {
        return Err(BroadcastError::Unsupported(format!(
            "inputs of rank {rank}; at most {MAX_RANK} dimensions are supported"
        )));
    }
    let ext = |s: &[usize]| {
        let mut e = vec![1; rank - s.len()];
        e.extend_from_slice(s);
        e
    };
    let (a, b) = (ext(a), ext(b));
    let mut full = Vec::with_capacity(rank);
    for d in 0..rank {
        let o = match (a[d], b[d]) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            (x, y) => {
                return Err(BroadcastError::Undefined(format!(
                    "input shapes {a:?} and {b:?} do not broadcast (dimension {d}: {x} vs {y})"
                )))
            }
        };
        full.push(o);
    }
    if full.as_slice() != out {
        let why = format!("output shape {out:?} is not the broadcast shape {full:?} of the inputs");
        let (out_len, full_len) = (out.iter().product::<usize>(), full.iter().product());
        return Err(match out_len.cmp(&full_len) {
            std::cmp::Ordering::Greater => BroadcastError::Undefined(why),
            std::cmp::Ordering::Less => BroadcastError::Specification(why),
            std::cmp::Ordering::Equal => BroadcastError::Unsupported(why),
        });
    }
    // Merge runs of dimensions in which each input is either present or broadcast throughout.
    let mut dims: Vec<(usize, bool, bool)> = Vec::new();
    for d in 0..rank {
        if full[d] == 1 {
            continue;
        }
        let (has_a, has_b) = (a[d] != 1, b[d] != 1);
        match dims.last_mut() {
            Some(last) if last.1 == has_a && last.2 == has_b => last.0 *= full[d],
            _ => dims.push((full[d], has_a, has_b)),
        }
    }
    if dims.is_empty() {
        dims.push((1, false, false));
    }
    let n = dims.len();
    let (mut a_strides, mut b_strides) = (vec![0; n], vec![0; n]);
    let (mut sa, mut sb) = (1, 1);
    for i in (0..n).rev() {
        let (size, has_a, has_b) = dims[i];
        if has_a {
            a_strides[i] = sa;
            sa *= size;
        }
        if has_b {
            b_strides[i] = sb;
            sb *= size;
        }
    }
    Ok(Broadcast {
        shape: dims.iter().map(|d| d.0).collect(),
        a_strides,
        b_strides,
    })
}

/// The element types this family's kernels take (TFLM's ADD, SUB and MUL take these; MAXIMUM and
/// MINIMUM also INT64, which [`min_max`] handles itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Elem {
    S8,
    S16,
    S32,
    F32,
}

/// The element type of the op, from its first input (the others must match: [`binary_layout`]).
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
/// not both inputs constant; returns their broadcast and the kernel's operands.
fn binary_layout(ctx: &OpContext) -> Result<(Broadcast, Vec<Operand>)> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    ctx.same_dtype("input 2", b, a)?;
    ctx.same_dtype("the output", out, a)?;
    if a.is_constant() && b.is_constant() && !ctx.constant_in_arena_ok() {
        return Err(ctx.unsupported("both inputs are constant; fold the op offline"));
    }
    let bc = broadcast(&a.shape, &b.shape, &out.shape).map_err(|e| e.into_error(ctx))?;
    let operands = vec![
        Operand::Src(ctx.input_index(0)?),
        Operand::Src(ctx.input_index(1)?),
        Operand::Offset(ctx.output_index(0)?),
    ];
    Ok((bc, operands))
}

/// `QuantizeMultiplierSmallerThanOneExp`: TFLM aborts unless `0 < m < 1`.
fn multiplier_below_one(ctx: &OpContext, what: &str, m: f64) -> Result<(i32, i32)> {
    if !(m > 0.0 && m < 1.0) {
        return Err(ctx.invalid(
            format!("{what} multiplier {m} is not in (0, 1) (TFLM requires that of int8 ADD/SUB)"),
            Grounds::tflm(
                "quantization_util.cc QuantizeMultiplierSmallerThanOneExp, from \
                 add_common.cc / sub_common.cc: TFLITE_CHECK(0 < multiplier < 1) aborts",
            ),
        ));
    }
    ctx.multiplier(&format!("the {what} rescaling"), m)
}

/// Which arithmetic op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arithmetic {
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

/// `k` with an [`Access::InPlace`] contract for each arena input of the output's size (no
/// broadcast): every kernel of this family stages an input that overlaps its output chunk by chunk,
/// each chunk read before it is written (runtime/src/kernels/elementwise.rs), so the output may
/// take such an input's bytes.
fn in_place(ctx: &OpContext, mut k: Kernel) -> Result<Kernel> {
    let output = ctx.output_index(0)?;
    let out = ctx.output(0)?;
    for i in 0..2 {
        let input = ctx.input_index(i)?;
        let tensor = ctx.input(i)?;
        let same = tensor.num_elements() == out.num_elements() && tensor.bytes == out.bytes;
        if !tensor.is_constant() && same && input != output {
            k = k.with_access(Access::InPlace { input, output });
        }
    }
    Ok(k)
}

/// ADD, SUB, MUL.
fn arithmetic(ctx: &OpContext, op: Arithmetic) -> Result<Kernel> {
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
    let (bc, operands) = binary_layout(ctx)?;
    let Broadcast {
        shape,
        a_strides,
        b_strides,
    } = bc;
    if elem == Elem::F32 {
        let function = match op {
            Arithmetic::Add => "add_f32",
            Arithmetic::Sub => "sub_f32",
            Arithmetic::Mul => "mul_f32",
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
            "mul_s8",
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
    let scales = add_sub_scales(ctx, (s1, s2, so), 20)?;
    let bc = Broadcast {
        shape,
        a_strides,
        b_strides,
    };
    // SUB's parameters are ADD's (an alias in the runtime), under its own name.
    Ok(if op == Arithmetic::Sub {
        kernel(
            "sub_s8",
            operands,
            add_sub_params!(SubS8, bc, (z1, z2, zo), (act_min, act_max), scales),
        )
    } else {
        kernel(
            "add_s8",
            operands,
            add_sub_params!(AddS8, bc, (z1, z2, zo), (act_min, act_max), scales),
        )
    })
}

/// The rescaling of TFLM's `CalculateOpDataAdd` / `CalculateOpDataSub` for input scales `s1`, `s2`
/// and output scale `so` under `left_shift` (20 for int8, 15 for int16): both inputs to twice the
/// larger input scale, the sum to the output's, each a `QuantizeMultiplierSmallerThanOneExp` in
/// double (taking SUB's in float, as older TFLM sources read, is 1 LSB off for some scale pairs).
struct AddSubScales {
    left_shift: i32,
    inputs: [(i32, i32); 2],
    output: (i32, i32),
}

fn add_sub_scales(
    ctx: &OpContext,
    (s1, s2, so): (f32, f32, f32),
    left_shift: i32,
) -> Result<AddSubScales> {
    let twice_max = 2.0 * f64::from(s1.max(s2));
    Ok(AddSubScales {
        left_shift,
        inputs: [
            multiplier_below_one(ctx, "input 1", f64::from(s1) / twice_max)?,
            multiplier_below_one(ctx, "input 2", f64::from(s2) / twice_max)?,
        ],
        output: multiplier_below_one(
            ctx,
            "output",
            twice_max / (f64::from(1 << left_shift) * f64::from(so)),
        )?,
    })
}

/// int16 ADD and SUB (16x8 models): TFLM's `CalculateOpDataAdd` / `CalculateOpDataSub` with the
/// int16 left shift of 15, on the runtime's `add_s16` / `sub_s16`.
fn add_sub_s16(ctx: &OpContext, op: Arithmetic, activation: Activation) -> Result<Kernel> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let (bc, operands) = binary_layout(ctx)?;
    let (s1, z1) = ctx.int16_quant("input 1", a)?;
    let (s2, z2) = ctx.int16_quant("input 2", b)?;
    let (so, zo) = ctx.int16_quant("the output", out)?;
    let (act_min, act_max) = ctx.activation_range_s16(activation, so, zo)?;
    let scales = add_sub_scales(ctx, (s1, s2, so), 15)?;
    Ok(if op == Arithmetic::Sub {
        kernel(
            "sub_s16",
            operands,
            add_sub_params!(SubS16, bc, (z1, z2, zo), (act_min, act_max), scales),
        )
    } else {
        kernel(
            "add_s16",
            operands,
            add_sub_params!(AddS16, bc, (z1, z2, zo), (act_min, act_max), scales),
        )
    })
}

/// int16 MUL (16x8 models): TFLM's `CalculateOpDataMul`, which for int16 ENSUREs every zero point
/// is 0, on the runtime's `mul_s16` (`MulElementwise<int16_t>`: the int8 arithmetic, int16 range).
fn mul_s16(ctx: &OpContext, activation: Activation) -> Result<Kernel> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let (bc, operands) = binary_layout(ctx)?;
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
        "mul_s16",
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
    let (bc, operands) = binary_layout(ctx)?;
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

/// PRELU: `x >= 0 ? x : x * alpha` with alpha (input 2) broadcast as ADD's second input is
/// (TFLM's `BroadcastPrelu4DSlow`), float32 or int8 with `CalculatePreluParams`' two multipliers.
fn prelu(ctx: &OpContext) -> Result<Kernel> {
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

/// MAXIMUM (`maximum` true), MINIMUM: TFLM compares the raw values (quantization is not looked at:
/// `maximum_minimum.cc` has no Prepare).
fn min_max(ctx: &OpContext, maximum: bool) -> Result<Kernel> {
    // INT64 (TFLM's MAXIMUM and MINIMUM take it, its ADD, SUB and MUL do not): `None`.
    let elem = match ctx.input(0)?.dtype {
        DType::I64 => None,
        _ => Some(elem(ctx)?),
    };
    let (bc, operands) = binary_layout(ctx)?;
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

#[cfg(test)]
mod tests {
    use super::super::testing::{fields, graph, kernel, per_tensor, reason, tensor};
    use super::broadcast;
    use crate::ir::{Activation, DType, OpCode, Options};
    use crate::lower::Value;

    /// An int32 `op` of `[2, 4]` and `[4]` with `activation`; `quantized` tensors (0, 1: inputs,
    /// 2: output) carry a scale and zero point.
    fn int32_graph(
        op: OpCode,
        activation: Activation,
        quantized: &[usize],
    ) -> crate::ir::Graph<'static> {
        let q = |i: usize| quantized.contains(&i).then(|| per_tensor(0.5, 3)).flatten();
        graph(
            op,
            Options::Arithmetic { activation },
            vec![
                tensor(&[2, 4], DType::I32, q(0), None),
                tensor(&[4], DType::I32, q(1), None),
                tensor(&[2, 4], DType::I32, q(2), None),
            ],
            &[Some(0), Some(1)],
        )
    }

    /// int32 ADD ignores the fused activation, SUB and MUL clamp to TFLM's int32 ranges (TANH:
    /// none); ADD refuses quantized inputs, SUB a quantized output, MUL and MINIMUM neither.
    #[test]
    fn int32_follows_tflm_prepare() {
        let range = |g: &crate::ir::Graph| {
            let f = fields(g);
            (f[3].1.clone(), f[4].1.clone())
        };
        let full = (Value::I32(i32::MIN), Value::I32(i32::MAX));
        let g = int32_graph(OpCode::ADD, Activation::Relu, &[2]);
        assert_eq!(kernel(&g).function, "add_s32");
        assert_eq!(range(&g), full);
        let g = int32_graph(OpCode::SUB, Activation::Relu6, &[]);
        assert_eq!(kernel(&g).function, "sub_s32");
        assert_eq!(range(&g), (Value::I32(0), Value::I32(6)));
        let g = int32_graph(OpCode::MUL, Activation::ReluN1To1, &[0, 1, 2]);
        assert_eq!(kernel(&g).function, "mul_s32");
        assert_eq!(range(&g), (Value::I32(-1), Value::I32(1)));
        assert_eq!(
            range(&int32_graph(OpCode::MUL, Activation::Tanh, &[])),
            full
        );
        assert_eq!(
            kernel(&int32_graph(OpCode::MINIMUM, Activation::None, &[0, 2])).function,
            "minimum_s32"
        );
        assert!(reason(&int32_graph(OpCode::ADD, Activation::None, &[1]))
            .contains("input 2 is quantized"));
        assert!(reason(&int32_graph(OpCode::SUB, Activation::None, &[2]))
            .contains("the output is quantized"));
    }

    #[test]
    fn broadcast_collapses_and_strides() {
        let b = broadcast(&[1, 4, 4, 8], &[8], &[1, 4, 4, 8]).unwrap();
        assert_eq!(b.shape, vec![16, 8]);
        assert_eq!(b.a_strides, vec![8, 1]);
        assert_eq!(b.b_strides, vec![0, 1]);
        let b = broadcast(&[2, 3], &[2, 3], &[2, 3]).unwrap();
        assert_eq!(
            (b.shape, b.a_strides, b.b_strides),
            (vec![6], vec![1], vec![1])
        );
        let b = broadcast(&[2, 1, 3], &[1, 5, 1], &[2, 5, 3]).unwrap();
        assert_eq!(b.shape, vec![2, 5, 3]);
        assert_eq!(b.a_strides, vec![3, 0, 1]);
        assert_eq!(b.b_strides, vec![0, 1, 0]);
        let b = broadcast(&[], &[], &[]).unwrap();
        assert_eq!(
            (b.shape, b.a_strides, b.b_strides),
            (vec![1], vec![0], vec![0])
        );
        assert!(broadcast(&[2, 3], &[3, 2], &[2, 3]).is_err());
        assert!(broadcast(&[2, 3], &[3], &[3, 3]).is_err());
    }

    #[test]
    fn add_s8_parameters_follow_tflm_prepare() {
        let g = graph(
            OpCode::ADD,
            Options::Arithmetic {
                activation: crate::ir::Activation::Relu,
            },
            vec![
                tensor(&[1, 4], DType::I8, per_tensor(0.5, 0), None),
                tensor(&[4], DType::I8, per_tensor(0.25, 2), None),
                tensor(&[1, 4], DType::I8, per_tensor(1.0, -1), None),
            ],
            &[Some(0), Some(1)],
        );
        // twice_max = 1.0: input multipliers 0.5 and 0.25, output 2^-20.
        assert_eq!(
            fields(&g),
            vec![
                ("shape", Value::Usizes(vec![4])),
                ("a_strides", Value::Usizes(vec![1])),
                ("b_strides", Value::Usizes(vec![1])),
                ("a_offset", Value::I32(0)),
                ("a_multiplier", Value::I32(1 << 30)),
                ("a_shift", Value::I32(0)),
                ("b_offset", Value::I32(-2)),
                ("b_multiplier", Value::I32(1 << 30)),
                ("b_shift", Value::I32(-1)),
                ("left_shift", Value::I32(20)),
                ("output_multiplier", Value::I32(1 << 30)),
                ("output_shift", Value::I32(-19)),
                ("output_offset", Value::I32(-1)),
                ("act_min", Value::I32(-1)),
                ("act_max", Value::I32(127)),
            ]
        );
    }
}

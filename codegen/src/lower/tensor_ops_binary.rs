//! ADD, SUB, MUL, MAXIMUM, MINIMUM: broadcasting and TFLM's quantized parameters.

use super::{kernel, num_type, same_dtype, Num};
use crate::error::Result;
use crate::ir::{Activation, OpCode, Options};
use crate::lower::quant::activation_range_f32;
use crate::lower::{CallKind, OpContext, Operand, Value};

/// Most dimensions a broadcast may have (TFLM's broadcasting loop handles six).
const MAX_RANK: usize = 6;

/// A broadcast reduced to a collapsed output shape and per-input element strides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Broadcast {
    /// Collapsed output shape.
    pub shape: Vec<usize>,
    /// Element strides of input 1 (0 where it broadcasts).
    pub a_strides: Vec<usize>,
    /// Element strides of input 2 (0 where it broadcasts).
    pub b_strides: Vec<usize>,
}

/// NumPy-style broadcast of `a` and `b` (aligned at their last dimensions), checked against
/// `out`, with adjacent dimensions that broadcast alike merged. `Err` carries the reason.
pub(super) fn broadcast(
    a: &[usize],
    b: &[usize],
    out: &[usize],
) -> std::result::Result<Broadcast, String> {
    let rank = a.len().max(b.len());
    if rank > MAX_RANK {
        return Err(format!(
            "inputs of rank {rank}; at most {MAX_RANK} dimensions are supported"
        ));
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
                return Err(format!(
                    "input shapes {a:?} and {b:?} do not broadcast (dimension {d}: {x} vs {y})"
                ))
            }
        };
        full.push(o);
    }
    if full.as_slice() != out {
        return Err(format!(
            "output shape {out:?} is not the broadcast shape {full:?} of the inputs"
        ));
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

/// Checks the operands of a binary op and returns its broadcast.
fn binary_operands(ctx: &OpContext) -> Result<(Num, Broadcast, Vec<Operand>)> {
    let (a, b, out) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let num = num_type(ctx, "input 1", a)?;
    same_dtype(ctx, "input 2", b, a)?;
    same_dtype(ctx, "the output", out, a)?;
    if a.is_constant() && b.is_constant() {
        return Err(ctx.unsupported("both inputs are constant; fold the op offline"));
    }
    let bc = broadcast(&a.shape, &b.shape, &out.shape).map_err(|e| ctx.unsupported(e))?;
    let operands = vec![
        Operand::Src(ctx.input_index(0)?),
        Operand::Src(ctx.input_index(1)?),
        Operand::Offset(ctx.output_index(0)?),
    ];
    Ok((num, bc, operands))
}

/// The broadcast fields every binary kernel's parameters start with.
fn broadcast_fields(bc: Broadcast) -> Vec<(&'static str, Value)> {
    vec![
        ("shape", Value::Usizes(bc.shape)),
        ("a_strides", Value::Usizes(bc.a_strides)),
        ("b_strides", Value::Usizes(bc.b_strides)),
    ]
}

/// `QuantizeMultiplierSmallerThanOneExp`: TFLM aborts unless `0 < m < 1`.
fn multiplier_below_one(ctx: &OpContext, what: &str, m: f64) -> Result<(i32, i32)> {
    if !(m > 0.0 && m < 1.0) {
        return Err(ctx.invalid(format!(
            "{what} multiplier {m} is not in (0, 1) (TFLM requires that of int8 ADD/SUB)"
        )));
    }
    ctx.multiplier(&format!("the {what} rescaling"), m)
}

/// ADD, SUB, MUL.
pub(super) fn arithmetic(ctx: &OpContext, code: OpCode) -> Result<CallKind> {
    let activation = match &ctx.op().options {
        Options::Arithmetic { activation } => *activation,
        _ => Activation::None,
    };
    let (num, bc, operands) = binary_operands(ctx)?;
    let mut fields = broadcast_fields(bc);
    let (function, type_name) = match (code, num) {
        (OpCode::ADD, Num::I8) => ("add_s8", "AddS8"),
        (OpCode::SUB, Num::I8) => ("sub_s8", "SubS8"),
        (OpCode::MUL, Num::I8) => ("mul_s8", "MulS8"),
        (OpCode::ADD, Num::F32) => ("add_f32", "BinaryF32"),
        (OpCode::SUB, Num::F32) => ("sub_f32", "BinaryF32"),
        _ => ("mul_f32", "BinaryF32"),
    };
    if num == Num::F32 {
        let (lo, hi) = activation_range_f32(activation).ok_or_else(|| {
            ctx.unsupported(format!("fused activation {activation:?} is not supported"))
        })?;
        fields.push(("act_min", Value::F32(lo)));
        fields.push(("act_max", Value::F32(hi)));
        return Ok(kernel("elementwise", function, operands, type_name, fields));
    }
    let (s1, z1) = ctx.int8_quant("input 1", ctx.input(0)?)?;
    let (s2, z2) = ctx.int8_quant("input 2", ctx.input(1)?)?;
    let (so, zo) = ctx.int8_quant("the output", ctx.output(0)?)?;
    let (act_min, act_max) =
        crate::lower::nn::activation_range(ctx, activation, so, zo, -128, 127)?;
    if code == OpCode::MUL {
        let (m, shift) = ctx.multiplier(
            "input 1 scale × input 2 scale / output scale",
            f64::from(s1) * f64::from(s2) / f64::from(so),
        )?;
        fields.extend([
            ("a_offset", Value::I32(-z1)),
            ("b_offset", Value::I32(-z2)),
            ("output_multiplier", Value::I32(m)),
            ("output_shift", Value::I32(shift)),
            ("output_offset", Value::I32(zo)),
            ("act_min", Value::I32(act_min)),
            ("act_max", Value::I32(act_max)),
        ]);
        return Ok(kernel("elementwise", function, operands, type_name, fields));
    }
    const LEFT_SHIFT: i32 = 20;
    // ADD and SUB compute the rescaling factors in double (taking SUB's in float, as older TFLM
    // sources read, is 1 LSB off against TFLM for some scale pairs).
    let twice_max = 2.0 * f64::from(s1.max(s2));
    let (r1, r2, ro) = (
        f64::from(s1) / twice_max,
        f64::from(s2) / twice_max,
        twice_max / (f64::from(1 << LEFT_SHIFT) * f64::from(so)),
    );
    let (m1, sh1) = multiplier_below_one(ctx, "input 1", r1)?;
    let (m2, sh2) = multiplier_below_one(ctx, "input 2", r2)?;
    let (mo, sho) = multiplier_below_one(ctx, "output", ro)?;
    fields.extend([
        ("a_offset", Value::I32(-z1)),
        ("a_multiplier", Value::I32(m1)),
        ("a_shift", Value::I32(sh1)),
        ("b_offset", Value::I32(-z2)),
        ("b_multiplier", Value::I32(m2)),
        ("b_shift", Value::I32(sh2)),
        ("left_shift", Value::I32(LEFT_SHIFT)),
        ("output_multiplier", Value::I32(mo)),
        ("output_shift", Value::I32(sho)),
        ("output_offset", Value::I32(zo)),
        ("act_min", Value::I32(act_min)),
        ("act_max", Value::I32(act_max)),
    ]);
    Ok(kernel("elementwise", function, operands, type_name, fields))
}

/// MAXIMUM, MINIMUM: TFLM compares the raw values (int8 quantization is not looked at).
pub(super) fn min_max(ctx: &OpContext, code: OpCode) -> Result<CallKind> {
    let (num, bc, operands) = binary_operands(ctx)?;
    let function = match (code, num) {
        (OpCode::MAXIMUM, Num::I8) => "maximum_s8",
        (OpCode::MAXIMUM, Num::F32) => "maximum_f32",
        (_, Num::I8) => "minimum_s8",
        (_, Num::F32) => "minimum_f32",
    };
    Ok(kernel(
        "elementwise",
        function,
        operands,
        "MinMax",
        broadcast_fields(bc),
    ))
}

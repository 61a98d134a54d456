//! PAD, PADV2, MEAN, CONCATENATION, TRANSPOSE, STRIDED_SLICE: constant shape parameters read at
//! generation time and turned into the runtime's collapsed loops.

use super::{const_ints, kernel, num_type, same_dtype, strides_of, unary_operands, Num};
use crate::error::Result;
use crate::ir::{Activation, DType, Options, Tensor};
use crate::lower::quant::quantize_multiplier;
use crate::lower::{CallKind, OpContext, Operand, Value};

/// The data-movement ops copy elements of these types (TFLM's lists, less the 16-bit type the
/// rest of tinyaot does not handle).
fn movable(ctx: &OpContext, what: &str, tensor: &Tensor) -> Result<()> {
    match tensor.dtype {
        DType::I8 | DType::F32 | DType::I32 => Ok(()),
        other => Err(ctx.unsupported(format!(
            "{what} has type {other}; INT8, FLOAT32 and INT32 are supported"
        ))),
    }
}

/// A constant integer vector converted to `i32` (TFLM reads these tensors as int32).
fn const_i32s(ctx: &OpContext, what: &str, tensor: &Tensor) -> Result<Vec<i32>> {
    const_ints(ctx, what, tensor)?
        .into_iter()
        .map(|v| {
            i32::try_from(v).map_err(|_| ctx.unsupported(format!("{what} value {v} out of range")))
        })
        .collect()
}

/// PAD, PADV2.
pub(super) fn pad(ctx: &OpContext) -> Result<CallKind> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let num = num_type(ctx, "the input", input)?;
    same_dtype(ctx, "the output", output, input)?;
    let rank = input.shape.len();
    if rank > 5 || output.shape.len() != rank {
        return Err(ctx.unsupported(format!(
            "input rank {rank}, output rank {}: TFLM pads tensors of up to 5 dimensions",
            output.shape.len()
        )));
    }
    let paddings = const_i32s(ctx, "paddings", ctx.input(1)?)?;
    if paddings.len() != 2 * rank {
        return Err(ctx.unsupported(format!(
            "paddings has {} values; expected {} (two per dimension)",
            paddings.len(),
            2 * rank
        )));
    }
    let mut before = Vec::with_capacity(rank);
    let mut after = Vec::with_capacity(rank);
    for d in 0..rank {
        let (b, a) = (paddings[2 * d], paddings[2 * d + 1]);
        if b < 0 || a < 0 {
            return Err(ctx.unsupported(format!("negative padding {b}, {a} in dimension {d}")));
        }
        if input.shape[d] + b as usize + a as usize != output.shape[d] {
            return Err(ctx.unsupported(format!(
                "output dimension {d} is {}, expected {} + {b} + {a}",
                output.shape[d], input.shape[d]
            )));
        }
        before.push(b as usize);
        after.push(a as usize);
    }
    let pad_value = padv2_value(ctx, num)?;
    // Merge trailing unpadded dimensions into the one before: fewer, longer rows.
    let mut shape = input.shape.clone();
    while shape.len() >= 2 && before[shape.len() - 1] == 0 && after[shape.len() - 1] == 0 {
        let inner = shape.pop().unwrap_or(1);
        before.pop();
        after.pop();
        let last = shape.len() - 1;
        shape[last] *= inner;
        before[last] *= inner;
        after[last] *= inner;
    }
    let (function, type_name) = match num {
        Num::I8 => ("pad_s8", "PadS8"),
        Num::F32 => ("pad_f32", "PadF32"),
    };
    let fields = vec![
        ("input_shape", Value::Usizes(shape)),
        ("before", Value::Usizes(before)),
        ("after", Value::Usizes(after)),
        ("pad_value", pad_value),
    ];
    Ok(kernel(
        "pad",
        function,
        unary_operands(ctx)?,
        type_name,
        fields,
    ))
}

/// The padding value: PADV2's constant input if given, else the output zero point (int8) or 0.
fn padv2_value(ctx: &OpContext, num: Num) -> Result<Value> {
    let output = ctx.output(0)?;
    let zo = match num {
        Num::I8 => {
            let (_, zo) = ctx.int8_quant("the output", output)?;
            if !(-128..=127).contains(&zo) {
                return Err(ctx.unsupported(format!("output zero point {zo} is outside int8")));
            }
            zo
        }
        Num::F32 => 0,
    };
    let Some(value) = ctx.optional_input(2) else {
        return Ok(match num {
            Num::I8 => Value::I32(zo),
            Num::F32 => Value::F32(0.0),
        });
    };
    same_dtype(ctx, "the constant value", value, output)?;
    let Some(data) = value.data else {
        return Err(ctx.unsupported("the constant value is not a constant tensor"));
    };
    if value.num_elements() != 1 {
        return Err(ctx.unsupported("the constant value must have exactly one element"));
    }
    match num {
        Num::I8 => {
            let (sv, zv) = ctx.per_tensor_quant("the constant value", value)?;
            let (so, _) = ctx.per_tensor_quant("the output", output)?;
            if zv != zo || sv != so {
                return Err(ctx.unsupported(
                    "the constant value's quantization differs from the output's (TFLM requires equal)",
                ));
            }
            let byte = *data
                .first()
                .ok_or_else(|| ctx.unsupported("empty constant value"))?;
            Ok(Value::I32(byte as i8 as i32))
        }
        Num::F32 => {
            let b = data
                .get(..4)
                .ok_or_else(|| ctx.unsupported("constant value shorter than 4 bytes"))?;
            Ok(Value::F32(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        }
    }
}

/// Splits `shape` into (kept, reduced) runs of (extent, element stride), size-1 dimensions dropped,
/// adjacent dimensions of the same kind merged.
type Runs = Vec<(usize, usize)>;
fn split_axes(shape: &[usize], reduced: &[bool]) -> (Runs, Runs) {
    let strides = strides_of(shape);
    let (mut kept, mut red): (Runs, Runs) = (Vec::new(), Vec::new());
    let mut last_kind = None;
    for d in 0..shape.len() {
        if shape[d] == 1 {
            continue;
        }
        let list = if reduced[d] { &mut red } else { &mut kept };
        match (last_kind, list.last_mut()) {
            (Some(k), Some(run)) if k == reduced[d] && run.1 == strides[d] * shape[d] => {
                *run = (run.0 * shape[d], strides[d]);
            }
            _ => list.push((shape[d], strides[d])),
        }
        last_kind = Some(reduced[d]);
    }
    (kept, red)
}

/// MEAN.
pub(super) fn mean(ctx: &OpContext) -> Result<CallKind> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let num = num_type(ctx, "the input", input)?;
    same_dtype(ctx, "the output", output, input)?;
    let keep_dims = match &ctx.op().options {
        Options::Reducer { keep_dims } => *keep_dims,
        _ => false,
    };
    let rank = input.shape.len();
    let axes = const_ints(ctx, "axis", ctx.input(1)?)?;
    let mut reduced = vec![false; rank];
    for &a in &axes {
        let r = if a < 0 { a + rank as i64 } else { a };
        if r < 0 || r >= rank as i64 {
            return Err(ctx.unsupported(format!("axis {a} is out of range for rank {rank}")));
        }
        reduced[r as usize] = true;
    }
    let expected: Vec<usize> = (0..rank)
        .filter_map(|d| match (reduced[d], keep_dims) {
            (true, true) => Some(1),
            (true, false) => None,
            (false, _) => Some(input.shape[d]),
        })
        .collect();
    if expected != output.shape && !(expected.is_empty() && output.num_elements() == 1) {
        return Err(ctx.unsupported(format!(
            "output shape {:?} is not the reduced shape {expected:?}",
            output.shape
        )));
    }
    if input.num_elements() == 0 {
        return Err(ctx.unsupported("empty input"));
    }
    let (kept, red) = split_axes(&input.shape, &reduced);
    if kept.len() > 6 || red.len() > 6 {
        return Err(ctx.unsupported("too many dimensions"));
    }
    let mut fields = vec![
        ("input_bytes", Value::Usize(input.bytes)),
        (
            "kept_shape",
            Value::Usizes(kept.iter().map(|r| r.0).collect()),
        ),
        (
            "kept_strides",
            Value::Usizes(kept.iter().map(|r| r.1).collect()),
        ),
        (
            "reduced_shape",
            Value::Usizes(red.iter().map(|r| r.0).collect()),
        ),
        (
            "reduced_strides",
            Value::Usizes(red.iter().map(|r| r.1).collect()),
        ),
    ];
    if num == Num::F32 {
        return Ok(kernel(
            "mean",
            "mean_f32",
            unary_operands(ctx)?,
            "MeanF32",
            fields,
        ));
    }
    let (si, zi) = ctx.int8_quant("the input", input)?;
    let (so, zo) = ctx.int8_quant("the output", output)?;
    let n = red.iter().map(|r| r.0 as i64).product::<i64>();
    ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    let (multiplier, shift) = mean_multiplier(si, so, n)
        .ok_or_else(|| ctx.unsupported("the mean's rescaling is out of TFLM's range"))?;
    fields.extend([
        ("input_zero_point", Value::I32(zi)),
        ("output_zero_point", Value::I32(zo)),
        ("multiplier", Value::I32(multiplier)),
        ("shift", Value::I32(shift)),
    ]);
    Ok(kernel(
        "mean",
        "mean_s8",
        unary_operands(ctx)?,
        "MeanS8",
        fields,
    ))
}

/// TFLM's int8 MEAN rescaling: `QuantizeMultiplier(s_in / s_out)` in Prepare, then at Eval the
/// division by the element count `n` folded into the multiplier (QuantizedMeanOrSum).
pub(super) fn mean_multiplier(si: f32, so: f32, n: i64) -> Option<(i32, i32)> {
    let (m, s) = quantize_multiplier(si as f64 / so as f64);
    if n <= 0 {
        return None;
    }
    let shift = (63 - (n as u64).leading_zeros() as i32).min(32).min(31 + s);
    if shift < 0 {
        return None;
    }
    let m = ((m as i64) << shift) / n;
    Some((i32::try_from(m).ok()?, s - shift))
}

/// Function names of the fixed-arity concatenation kernels.
const CONCAT_FUNCTIONS: [&str; 10] = [
    "concat1", "concat2", "concat3", "concat4", "concat5", "concat6", "concat7", "concat8",
    "concat9", "concat10",
];

/// CONCATENATION (TFLM: no activation, int8 inputs quantized exactly as the output, ≤ 10 inputs).
pub(super) fn concatenation(ctx: &OpContext) -> Result<CallKind> {
    let (axis, activation) = match &ctx.op().options {
        Options::Concatenation { axis, activation } => (*axis, *activation),
        _ => (0, Activation::None),
    };
    if activation != Activation::None {
        return Err(ctx.unsupported(format!(
            "fused activation {activation:?}: TFLM's CONCATENATION supports none"
        )));
    }
    let output = ctx.output(0)?;
    movable(ctx, "the output", output)?;
    let n = ctx.op().inputs.len();
    if n == 0 || n > CONCAT_FUNCTIONS.len() {
        return Err(ctx.unsupported(format!("{n} inputs; 1 to 10 are supported (as TFLM)")));
    }
    let rank = output.shape.len();
    if rank > 6 {
        return Err(ctx.unsupported(format!("rank {rank}; at most 6 is supported")));
    }
    let axis_pos = if axis < 0 { axis + rank as i32 } else { axis };
    if axis_pos < 0 || axis_pos as usize >= rank.max(1) {
        return Err(ctx.unsupported(format!("axis {axis} is out of range for rank {rank}")));
    }
    let axis = axis_pos as usize;
    let out_q = if output.dtype == DType::I8 {
        Some(ctx.int8_quant("the output", output)?)
    } else {
        None
    };
    let elem = output.dtype.size();
    let mut chunk_bytes = Vec::with_capacity(n);
    let mut operands = Vec::with_capacity(n + 1);
    let mut axis_total = 0;
    for i in 0..n {
        let input = ctx.input(i)?;
        let what = format!("input {i}");
        same_dtype(ctx, &what, input, output)?;
        if let Some(q) = out_q {
            if ctx.int8_quant(&what, input)? != q {
                return Err(ctx.unsupported(format!(
                    "{what} is quantized differently from the output; TFLM's CONCATENATION requires \
                     identical scale and zero point (no requantization)"
                )));
            }
        }
        let shape_ok = input.shape.len() == rank
            && (0..rank).all(|d| d == axis || input.shape[d] == output.shape[d]);
        if !shape_ok {
            return Err(ctx.unsupported(format!(
                "{what} shape {:?} does not match output shape {:?} outside axis {axis}",
                input.shape, output.shape
            )));
        }
        axis_total += if rank == 0 { 1 } else { input.shape[axis] };
        chunk_bytes.push(input.shape[axis.min(rank)..].iter().product::<usize>() * elem);
        operands.push(Operand::Src(ctx.input_index(i)?));
    }
    if rank > 0 && axis_total != output.shape[axis] {
        return Err(ctx.unsupported(format!(
            "inputs sum to {axis_total} along axis {axis}, output has {}",
            output.shape[axis]
        )));
    }
    operands.push(Operand::Offset(ctx.output_index(0)?));
    let outer = output.shape[..axis.min(rank)].iter().product::<usize>();
    Ok(kernel(
        "concat",
        CONCAT_FUNCTIONS[n - 1],
        operands,
        "Concat",
        vec![
            ("outer", Value::Usize(outer)),
            ("chunk_bytes", Value::Usizes(chunk_bytes)),
        ],
    ))
}

/// Drops extent-1 dimensions and merges adjacent ones the input walks contiguously.
fn collapse_gather(dims: &[(usize, i64)]) -> Vec<(usize, i64)> {
    let mut out: Vec<(usize, i64)> = Vec::new();
    for &(count, step) in dims {
        if count == 1 {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == step * count as i64 => *last = (last.0 * count, step),
            _ => out.push((count, step)),
        }
    }
    out
}

/// TRANSPOSE (TFLM: up to 5 dimensions, constant permutation).
pub(super) fn transpose(ctx: &OpContext) -> Result<CallKind> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    movable(ctx, "the input", input)?;
    same_dtype(ctx, "the output", output, input)?;
    if !matches!(input.dtype, DType::I8 | DType::F32) {
        return Err(ctx.unsupported(format!(
            "input type {}; TRANSPOSE supports INT8 and FLOAT32 (TFLM's kernel has no INT32 case)",
            input.dtype
        )));
    }
    let rank = input.shape.len();
    if rank > 5 {
        return Err(ctx.invalid(format!("rank {rank}; TFLM transposes up to 5 dimensions")));
    }
    let perm_tensor = ctx.input(1)?;
    if perm_tensor.dtype != DType::I32 {
        return Err(ctx.invalid(format!(
            "perm has type {}; TFLM reads it as INT32",
            perm_tensor.dtype
        )));
    }
    let perm = const_ints(ctx, "perm", perm_tensor)?;
    let mut seen = vec![false; rank];
    let valid = perm.len() == rank
        && perm.iter().all(|&p| {
            (0..rank as i64).contains(&p) && !std::mem::replace(&mut seen[p as usize], true)
        });
    if !valid {
        return Err(ctx.unsupported(format!("perm {perm:?} is not a permutation of 0..{rank}")));
    }
    let expected: Vec<usize> = perm.iter().map(|&p| input.shape[p as usize]).collect();
    if expected != output.shape {
        return Err(ctx.unsupported(format!(
            "output shape {:?} is not the permuted input shape {expected:?}",
            output.shape
        )));
    }
    let strides = strides_of(&input.shape);
    let dims: Vec<(usize, i64)> = perm
        .iter()
        .map(|&p| (input.shape[p as usize], strides[p as usize] as i64))
        .collect();
    let dims = collapse_gather(&dims);
    let fields = vec![
        ("elem_bytes", Value::Usize(input.dtype.size())),
        ("input_bytes", Value::Usize(input.bytes)),
        ("shape", Value::Usizes(dims.iter().map(|d| d.0).collect())),
        (
            "input_strides",
            Value::Usizes(dims.iter().map(|d| d.1 as usize).collect()),
        ),
    ];
    Ok(kernel(
        "transpose",
        "transpose",
        unary_operands(ctx)?,
        "Transpose",
        fields,
    ))
}

/// One axis of a strided slice, resolved as TFLM's Eval resolves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SliceAxis {
    /// First index.
    pub start: i64,
    /// Number of indices taken.
    pub count: usize,
}

/// The per-axis flags of a strided slice.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AxisFlags {
    /// `begin_mask` bit: start at the first element (in stride direction).
    pub begin_masked: bool,
    /// `end_mask` bit: run to the last element.
    pub end_masked: bool,
    /// `shrink_axis_mask` bit: take one element and drop the dimension.
    pub shrink: bool,
    /// The `offset` option: `end` is relative to `begin`.
    pub offset: bool,
}

/// `StridedSliceStartForAxis` / `StridedSliceEndForAxis` and the loop count, for one axis.
pub(super) fn slice_axis(
    size: i64,
    begin: i64,
    end: i64,
    stride: i64,
    flags: AxisFlags,
) -> SliceAxis {
    let AxisFlags {
        begin_masked,
        end_masked,
        shrink,
        offset,
    } = flags;
    let clamp = |v: i64| {
        if stride > 0 {
            v.clamp(0, size)
        } else {
            v.clamp(-1, size - 1)
        }
    };
    let mut start = begin;
    if start < 0 {
        start += size;
    }
    start = clamp(start);
    if begin_masked {
        start = if stride > 0 { 0 } else { size - 1 };
    }
    let stop = if shrink {
        if start >= size {
            start
        } else {
            start + 1
        }
    } else {
        let mut stop = end;
        if offset {
            stop += start;
        }
        if stop < 0 {
            stop += size;
        }
        stop = clamp(stop);
        if end_masked {
            stop = if stride > 0 { size } else { -1 };
        }
        stop
    };
    let span = if stride > 0 {
        stop - start
    } else {
        start - stop
    };
    let step = stride.abs();
    let count = if span > 0 {
        (span + step - 1) / step
    } else {
        0
    };
    SliceAxis {
        start,
        count: count as usize,
    }
}

/// STRIDED_SLICE (TFLM: up to 4 dimensions here 5; constant begin/end/strides; ellipsis and
/// new-axis masks unsupported, as TFLM ignores them).
pub(super) fn strided_slice(ctx: &OpContext) -> Result<CallKind> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    movable(ctx, "the input", input)?;
    same_dtype(ctx, "the output", output, input)?;
    let Options::StridedSlice(o) = &ctx.op().options else {
        return Err(ctx.unsupported("the op has no StridedSliceOptions"));
    };
    if o.ellipsis_mask != 0 || o.new_axis_mask != 0 {
        return Err(ctx.unsupported(
            "ellipsis_mask / new_axis_mask are set; TFLM ignores them (computing something else), \
             so they are not supported",
        ));
    }
    let rank = input.shape.len();
    // strided_slice_common.cc's kMaxDim.
    if rank > 4 {
        return Err(ctx.invalid(format!("rank {rank}; TFLM slices at most 4 dimensions")));
    }
    let begin = const_ints(ctx, "begin", ctx.input(1)?)?;
    let end = const_ints(ctx, "end", ctx.input(2)?)?;
    let strides = const_ints(ctx, "strides", ctx.input(3)?)?;
    if begin.len() != rank || end.len() != rank || strides.len() != rank {
        return Err(ctx.unsupported(format!(
            "begin/end/strides have {}/{}/{} values for an input of rank {rank}",
            begin.len(),
            end.len(),
            strides.len()
        )));
    }
    let in_strides = strides_of(&input.shape);
    let mut dims = Vec::new();
    let mut out_shape = Vec::new();
    let mut base = 0i64;
    let mut empty = false;
    for d in 0..rank {
        if strides[d] == 0 {
            return Err(ctx.unsupported(format!("stride 0 in dimension {d}")));
        }
        let bit = |mask: i32| mask & (1 << d) != 0;
        let shrink = bit(o.shrink_axis_mask);
        let resolve = |offset| {
            let flags = AxisFlags {
                begin_masked: bit(o.begin_mask),
                end_masked: bit(o.end_mask),
                shrink,
                offset,
            };
            slice_axis(input.shape[d] as i64, begin[d], end[d], strides[d], flags)
        };
        let axis = resolve(o.offset);
        if o.offset && axis != resolve(false) {
            return Err(ctx.unsupported(format!(
                "offset=true changes dimension {d}'s slice; TFLM ignores the offset flag, so its \
                 result would differ from TFLite's"
            )));
        }
        if shrink && axis.count != 1 {
            return Err(ctx.unsupported(format!("shrink axis {d} selects no element")));
        }
        if !shrink {
            out_shape.push(axis.count);
        }
        empty |= axis.count == 0;
        base += axis.start.max(0) * in_strides[d] as i64;
        dims.push((axis.count, strides[d] * in_strides[d] as i64));
    }
    if out_shape != output.shape {
        return Err(ctx.unsupported(format!(
            "output shape {:?} is not the slice's shape {out_shape:?}",
            output.shape
        )));
    }
    let dims = if empty {
        vec![(0, 1)]
    } else {
        collapse_gather(&dims)
    };
    let mut steps = Vec::with_capacity(dims.len());
    for &(_, s) in &dims {
        steps.push(i32::try_from(s).map_err(|_| ctx.unsupported("input too large"))?);
    }
    let fields = vec![
        ("elem_bytes", Value::Usize(input.dtype.size())),
        ("input_bytes", Value::Usize(input.bytes)),
        ("start", Value::Usize(if empty { 0 } else { base as usize })),
        ("counts", Value::Usizes(dims.iter().map(|d| d.0).collect())),
        ("steps", Value::I32s(steps)),
    ];
    Ok(kernel(
        "strided_slice",
        "strided_slice",
        unary_operands(ctx)?,
        "StridedSlice",
        fields,
    ))
}

//! The reductions (TFLM's reduce.cc): MEAN and SUM → `reduce::mean_or_sum_{s8,s16}` (TFLM's integer
//! `QuantizedMeanOrSum`, one path for int8 and int16), `reduce::{mean,sum}_f32`; REDUCE_MAX and
//! REDUCE_MIN → `reduce::{max,min}_{f32,s8}` and REDUCE_ALL → `reduce::all_b` (TFLM's
//! `ReduceGeneric`). Constant axes are read at
//! generation time and turned into kept and reduced runs of the input; axes computed at run time
//! → `reduce::reduce_dyn`, which reads them per call
//! as TFLM's Eval does.

use super::{in_out, kernel, strides_of, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Options};
use crate::lower::params::{reduce as P, MAX_RANK};
use crate::lower::quant::quantize_multiplier;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{OpContext, Operand};
use tinyaot_runtime::kernels::reduce::{DYN_ALL, DYN_MAX, DYN_MEAN, DYN_MIN, DYN_SUM};

/// float32, int8 and int16, as TFLM's MEAN and SUM take them.
const MEAN_OR_SUM_TYPES: Types = Types::unary(
    &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
    &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
);

/// float32 and int8, as TFLM's REDUCE_MAX and REDUCE_MIN take them (`EvalMinMaxHelper`).
const MIN_MAX_TYPES: Types = Types::unary(
    &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
    &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
);

/// bool only, as TFLM's REDUCE_ALL takes it (`PrepareAllHelper`).
const ALL_TYPES: Types = Types::unary(&[Sig::Same(Ty::Bool)], &[Sig::Same(Ty::Bool)]);

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::MEAN,
        types: MEAN_OR_SUM_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(mean),
    },
    OpEntry {
        code: OpCode::SUM,
        types: MEAN_OR_SUM_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(sum),
    },
    OpEntry {
        code: OpCode::REDUCE_MAX,
        types: MIN_MAX_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(reduce_max),
    },
    OpEntry {
        code: OpCode::REDUCE_MIN,
        types: MIN_MAX_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(reduce_min),
    },
    OpEntry {
        code: OpCode::REDUCE_ALL,
        types: ALL_TYPES,
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(reduce_all),
    },
];

/// Runs of (extent, element stride).
type Runs = Vec<(usize, usize)>;

/// Splits `shape` into (kept, reduced) runs of (extent, element stride), size-1 dimensions dropped,
/// adjacent dimensions of the same kind merged.
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

/// The kept and reduced runs of a reduction, validated as TFLM's Prepare and Eval validate them.
struct Split {
    kept_shape: Vec<usize>,
    kept_strides: Vec<usize>,
    reduced_shape: Vec<usize>,
    reduced_strides: Vec<usize>,
    /// The number of input elements per output (0 for an empty input).
    count: i64,
}

/// Checks the operator's input and output types and its axes as TFLM does, and splits the input
/// into kept and reduced runs.
fn split(ctx: &OpContext) -> Result<Split> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    ctx.same_dtype("the output", output, input)?;
    let keep_dims = match &ctx.op().options {
        Options::Reducer { keep_dims } => *keep_dims,
        _ => false,
    };
    let rank = input.shape.len();
    let axis = ctx.input(1)?;
    axes_at_run_time(ctx)?;
    let axes = ctx.const_ints("axis", axis)?;
    let mut reduced = vec![false; rank];
    // reduce.h ResolveAxis resolves no axis of a scalar, whatever the list says.
    for &a in axes.iter().filter(|_| rank > 0) {
        let r = if a < 0 { a + rank as i64 } else { a };
        if r < 0 || r >= rank as i64 {
            return Err(ctx.invalid(
                format!("axis {a} is out of range for rank {rank}"),
                Grounds::tflm(
                    "reduce.h ResolveAxis returns false on an axis out of range, and \
                     reduce_common.cc's Eval fails on it (TF_LITE_ENSURE(result))",
                ),
            ));
        }
        // A duplicate axis is reduced once (ResolveAxis drops it).
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
        return Err(ctx.invalid(
            format!(
                "output shape {:?} is not the reduced shape {expected:?}",
                output.shape
            ),
            Grounds::spec(
                "a reduction's output shape is its input's reduced over the axes (TFLite's \
                 reduce.cc ResizeOutputTensor computes it; a model that states another is one \
                 no converter writes)",
            ),
        ));
    }
    let (kept, red) = split_axes(&input.shape, &reduced);
    if kept.len() > MAX_RANK || red.len() > MAX_RANK {
        return Err(ctx.invalid(
            "too many dimensions",
            Grounds::undefined(crate::lower::MORE_THAN_SIX_DIMENSIONS),
        ));
    }
    Ok(Split {
        kept_shape: kept.iter().map(|r| r.0).collect(),
        kept_strides: kept.iter().map(|r| r.1).collect(),
        reduced_shape: red.iter().map(|r| r.0).collect(),
        reduced_strides: red.iter().map(|r| r.1).collect(),
        count: red.iter().map(|r| r.0 as i64).product(),
    })
}

/// Whether the operator's axes are computed at run time, once the output's type and theirs are
/// checked as TFLM checks them.
fn axes_at_run_time(ctx: &OpContext) -> Result<bool> {
    ctx.same_dtype("the output", ctx.output(0)?, ctx.input(0)?)?;
    let axis = ctx.input(1)?;
    if axis.dtype != DType::I32 {
        return Err(ctx.invalid(
            format!("the axis tensor has type {}; TFLM takes INT32", axis.dtype),
            Grounds::tflm(
                "reduce_common.cc PrepareSimple: TF_LITE_ENSURE_TYPES_EQ(axis->type, \
                 kTfLiteInt32)",
            ),
        ));
    }
    Ok(!axis.is_constant())
}

/// A MEAN, SUM, REDUCE_MAX, REDUCE_MIN or REDUCE_ALL (`kind`, one of the runtime's `DYN_*`) whose axes are
/// computed at run time: TFLM's Prepare reads only the axis tensor's type and element count
/// (sizing scratch buffers from it, the input's rank and the output's size: `reduce_dyn` needs
/// none), and its Eval reads the axes per call, so `reduce_dyn` does; what the values do (out of
/// range, an output of another shape than they reduce to) is the kernel's to meet. `quant` is the
/// integer MEAN's and SUM's (input zero point, output zero point, Prepare's multiplier and shift).
fn reduce_dyn(ctx: &OpContext, kind: usize, quant: (i32, i32, i32, i32)) -> Result<Kernel> {
    let (input, axis, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let keep_dims = matches!(ctx.op().options, Options::Reducer { keep_dims: true });
    let float_mean = kind == DYN_MEAN && input.dtype == DType::F32;
    if float_mean && axis.num_elements() > 4 {
        return Err(ctx.invalid(
            format!(
                "an axis tensor of {} elements for a float32 MEAN; TFLM's Eval handles at most 4",
                axis.num_elements()
            ),
            Grounds::undefined(
                "reduce_common.cc EvalMeanHelper: ResolveAxis copies every axis into \
                 MeanParams::axis, an array of 4: written past its end",
            ),
        ));
    }
    // reduce_common.cc EvalMeanHelper takes reference_ops::Mean's 4-D path for these, by the
    // axes' values: the kernel needs the output's shape extended to rank 4 (which that path
    // CHECKs to be at most 4).
    let mean_4d = float_mean && keep_dims && input.shape.len() == 4 && axis.num_elements() == 2;
    let mean_4d_output = if mean_4d && output.shape.len() <= 4 {
        let mut o = vec![1; 4 - output.shape.len()];
        o.extend_from_slice(&output.shape);
        o
    } else {
        Vec::new()
    };
    let (input_zero_point, output_zero_point, multiplier, shift) = quant;
    Ok(kernel(
        "reduce_dyn",
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::ReduceDyn {
            shape: input.shape.clone(),
            output_len: output.num_elements(),
            num_axes: axis.num_elements(),
            kind,
            elem_bytes: input.dtype.size(),
            input_zero_point,
            output_zero_point,
            multiplier,
            shift,
            mean_4d,
            mean_4d_output,
        },
    ))
}

/// The parameters of a reduction with no rescaling.
fn reduction(ctx: &OpContext, s: Split) -> Result<P::Reduction> {
    Ok(P::Reduction {
        input_bytes: ctx.input(0)?.bytes,
        kept_shape: s.kept_shape,
        kept_strides: s.kept_strides,
        reduced_shape: s.reduced_shape,
        reduced_strides: s.reduced_strides,
    })
}

/// MEAN or SUM: float32 sums in the input's order; int8 and int16 (16x8 models) take TFLM's one
/// integer path (`QuantizedMeanOrSum`), MEAN with the element count folded into the multiplier.
fn mean_or_sum(ctx: &OpContext, mean: bool) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let int16 = input.dtype == DType::I16;
    if !int16 {
        ctx.num("the input", input)?;
    }
    let kind = if mean { DYN_MEAN } else { DYN_SUM };
    let dynamic = axes_at_run_time(ctx)?;
    if input.dtype == DType::F32 {
        if dynamic {
            return reduce_dyn(ctx, kind, (0, 0, 0, 0));
        }
        let s = split(ctx)?;
        let name = if mean { "mean_f32" } else { "sum_f32" };
        return Ok(kernel(name, in_out(ctx)?, reduction(ctx, s)?));
    }
    // The constant axes checked first (as before run-time axes were compiled).
    let s = if dynamic { None } else { Some(split(ctx)?) };
    let ((si, zi), (so, zo)) = if int16 {
        (
            ctx.int16_quant("the input", input)?,
            ctx.int16_quant("the output", output)?,
        )
    } else {
        (
            ctx.int8_quant("the input", input)?,
            ctx.int8_quant("the output", output)?,
        )
    };
    let (multiplier, shift) =
        ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    let Some(s) = s else {
        // The kernel divides the multiplier by the element count per call, as TFLM's Eval does.
        return reduce_dyn(ctx, kind, (zi, zo, multiplier, shift));
    };
    // An empty input leaves 0 before any rescaling (the kernel's case): the multiplier is unused.
    let (multiplier, shift) = if mean && s.count > 0 {
        mean_multiplier(si, so, s.count).ok_or_else(|| {
            ctx.invalid(
                "the mean's rescaling is out of TFLM's range",
                Grounds::undefined(
                    "reduce_common.cc EvalIntegerMean shifts the multiplier left by \
                         min(log2(count), 32, 31 + shift): negative here, an undefined shift",
                ),
            )
        })?
    } else {
        (multiplier, shift)
    };
    Ok(kernel(
        if int16 {
            "mean_or_sum_s16"
        } else {
            "mean_or_sum_s8"
        },
        in_out(ctx)?,
        P::QuantizedMeanOrSum {
            input_bytes: input.bytes,
            kept_shape: s.kept_shape,
            kept_strides: s.kept_strides,
            reduced_shape: s.reduced_shape,
            reduced_strides: s.reduced_strides,
            input_zero_point: zi,
            output_zero_point: zo,
            multiplier,
            shift,
        },
    ))
}

/// MEAN.
fn mean(ctx: &OpContext) -> Result<Kernel> {
    mean_or_sum(ctx, true)
}

/// SUM.
fn sum(ctx: &OpContext) -> Result<Kernel> {
    mean_or_sum(ctx, false)
}

/// REDUCE_MAX or REDUCE_MIN (`max` says which): float32, or int8 with the same scale and zero
/// point in and out, which TFLM's Eval requires (it compares the stored values).
fn min_max(ctx: &OpContext, max: bool) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if !matches!(input.dtype, DType::F32 | DType::I8) {
        return Err(ctx.invalid(
            format!(
                "input type {}; TFLM's REDUCE_MAX and REDUCE_MIN take FLOAT32 and INT8",
                input.dtype
            ),
            Grounds::tflm(
                "reduce_common.cc EvalMinMaxHelper: \"Only float32 and int8 types are \
                 supported.\" (kTfLiteError)",
            ),
        ));
    }
    let s = if axes_at_run_time(ctx)? {
        None
    } else {
        Some(split(ctx)?)
    };
    if input.dtype == DType::I8 {
        let (si, zi) = ctx.int8_quant("the input", input)?;
        let (so, zo) = ctx.int8_quant("the output", output)?;
        if si != so || zi != zo {
            return Err(ctx.invalid(
                format!(
                    "input quantization (scale {si:e}, zero point {zi}) differs from the \
                     output's (scale {so:e}, zero point {zo})"
                ),
                Grounds::tflm(
                    "reduce_common.cc EvalMinMaxHelper: TF_LITE_ENSURE_EQ of the input and \
                     output scales and of their zero points for int8",
                ),
            ));
        }
    }
    let Some(s) = s else {
        return reduce_dyn(ctx, if max { DYN_MAX } else { DYN_MIN }, (0, 0, 0, 0));
    };
    let name = match (max, input.dtype == DType::I8) {
        (true, false) => "max_f32",
        (false, false) => "min_f32",
        (true, true) => "max_s8",
        (false, true) => "min_s8",
    };
    Ok(kernel(name, in_out(ctx)?, reduction(ctx, s)?))
}

/// REDUCE_MAX.
fn reduce_max(ctx: &OpContext) -> Result<Kernel> {
    min_max(ctx, true)
}

/// REDUCE_MIN.
fn reduce_min(ctx: &OpContext) -> Result<Kernel> {
    min_max(ctx, false)
}

/// REDUCE_ALL: bool in and out (TFLM's Prepare ensures a bool input, its Eval the same type out).
fn reduce_all(ctx: &OpContext) -> Result<Kernel> {
    let input = ctx.input(0)?;
    if input.dtype != DType::Bool {
        return Err(ctx.invalid(
            format!("input type {}; TFLM's REDUCE_ALL takes BOOL", input.dtype),
            Grounds::tflm(
                "reduce_common.cc PrepareAllHelper: TF_LITE_ENSURE_TYPES_EQ(input->type, \
                 kTfLiteBool)",
            ),
        ));
    }
    if axes_at_run_time(ctx)? {
        return reduce_dyn(ctx, DYN_ALL, (0, 0, 0, 0));
    }
    let s = split(ctx)?;
    Ok(kernel("all_b", in_out(ctx)?, reduction(ctx, s)?))
}

/// TFLM's int8 MEAN rescaling: `QuantizeMultiplier(s_in / s_out)` in Prepare, then at Eval the
/// division by the element count `n` folded into the multiplier (QuantizedMeanOrSum).
fn mean_multiplier(si: f32, so: f32, n: i64) -> Option<(i32, i32)> {
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

#[cfg(test)]
mod tests {
    use super::mean_multiplier;

    #[test]
    fn mean_multiplier_follows_tflm_eval() {
        // Same scales: (2^30, 1); n = 49: shift = 5, multiplier (2^30 << 5) / 49, shift 1 - 5.
        assert_eq!(
            mean_multiplier(0.5, 0.5, 49),
            Some((((1i64 << 35) / 49) as i32, -4))
        );
        assert_eq!(mean_multiplier(0.5, 0.5, 4), Some((1 << 30, -1)));
    }
}

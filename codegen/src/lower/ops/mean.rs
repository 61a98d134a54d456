//! MEAN → `mean::mean_{s8,s16,f32}`: constant axes read at generation time and turned into kept and
//! reduced runs of the input, with TFLM's integer rescaling (one path for int8 and int16).

use super::{in_out, kernel, strides_of, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Options};
use crate::lower::params::{mean as P, MAX_RANK};
use crate::lower::quant::quantize_multiplier;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{Num, OpContext};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::MEAN,
    types: Types::unary(
        &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
    ),
    inputs: 2..=2,
    outputs: 1,
    lower: Lowering::Kernel(mean),
}];

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

/// MEAN.
fn mean(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    // int16 (16x8 models) takes int8's integer path in TFLM (`QuantizedMeanOrSum<int16_t>`).
    let int16 = input.dtype == DType::I16;
    let float = !int16 && ctx.num("the input", input)? == Num::F32;
    ctx.same_dtype("the output", output, input)?;
    let keep_dims = match &ctx.op().options {
        Options::Reducer { keep_dims } => *keep_dims,
        _ => false,
    };
    let rank = input.shape.len();
    let axes = ctx.const_ints("axis", ctx.input(1)?)?;
    let mut reduced = vec![false; rank];
    for &a in &axes {
        let r = if a < 0 { a + rank as i64 } else { a };
        if r < 0 || r >= rank as i64 {
            return Err(ctx.invalid(
                format!("axis {a} is out of range for rank {rank}"),
                Grounds::tflm(
                    "reduce_common.cc EvalMean: the reference reduction's ResolveAxis fails on an \
                     axis out of range (TF_LITE_ENSURE(result))",
                ),
            ));
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
    if input.num_elements() == 0 {
        return Err(ctx.unsupported("empty input"));
    }
    let (kept, red) = split_axes(&input.shape, &reduced);
    if kept.len() > MAX_RANK || red.len() > MAX_RANK {
        return Err(ctx.invalid(
            "too many dimensions",
            Grounds::undefined(crate::lower::MORE_THAN_SIX_DIMENSIONS),
        ));
    }
    let kept_shape: Vec<usize> = kept.iter().map(|r| r.0).collect();
    let kept_strides: Vec<usize> = kept.iter().map(|r| r.1).collect();
    let reduced_shape: Vec<usize> = red.iter().map(|r| r.0).collect();
    let reduced_strides: Vec<usize> = red.iter().map(|r| r.1).collect();
    if float {
        return Ok(kernel(
            "mean_f32",
            in_out(ctx)?,
            P::MeanF32 {
                input_bytes: input.bytes,
                kept_shape,
                kept_strides,
                reduced_shape,
                reduced_strides,
            },
        ));
    }
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
    let n = red.iter().map(|r| r.0 as i64).product::<i64>();
    ctx.multiplier("input scale / output scale", f64::from(si) / f64::from(so))?;
    let (multiplier, shift) = mean_multiplier(si, so, n).ok_or_else(|| {
        ctx.invalid(
            "the mean's rescaling is out of TFLM's range",
            Grounds::undefined(
                "reduce_common.cc EvalIntegerMean shifts the multiplier left by \
                     min(log2(count), 32, 31 + shift): negative here, an undefined shift",
            ),
        )
    })?;
    Ok(kernel(
        if int16 { "mean_s16" } else { "mean_s8" },
        in_out(ctx)?,
        P::MeanS8 {
            input_bytes: input.bytes,
            kept_shape,
            kept_strides,
            reduced_shape,
            reduced_strides,
            input_zero_point: zi,
            output_zero_point: zo,
            multiplier,
            shift,
        },
    ))
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

//! STRIDED_SLICE, SLICE and REVERSE_V2 → `strided_slice::strided_slice`: constant begin, end
//! and strides (SLICE: begin and size) read at generation time, resolved per axis as TFLM's Eval
//! resolves them, and turned into the runtime's collapsed strided walk (a SLICE is a strided slice
//! of stride 1). REVERSE_V2 is the walk with a step of minus one row along the reversed axes
//! (TFLM requires them contiguous, so they merge into one); with axes computed at run time it is
//! `strided_slice::reverse_dyn`, which reads them per call, and a SLICE whose begin or size is
//! computed at run time `strided_slice::slice_dyn`.

use super::{collapse_walk, in_out, kernel, strides_of, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Options};
use crate::lower::params::strided_slice as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{Data, OpContext, Operand};

/// The element types both TFLM's STRIDED_SLICE and SLICE move (their Eval switches), and tinyaot.
const SLICED: &[Sig] = &[
    Sig::Same(Ty::F32),
    Sig::Same(Ty::I8),
    Sig::Same(Ty::I16),
    Sig::Same(Ty::I32),
    Sig::Same(Ty::Bool),
];

/// The element types TFLM's REVERSE_V2 moves (reverse.cc ReverseV2Prepare; INT8 and UINT8 both as
/// bytes).
const REVERSED: &[Sig] = &[
    Sig::Same(Ty::F32),
    Sig::Same(Ty::I8),
    Sig::Same(Ty::U8),
    Sig::Same(Ty::I16),
    Sig::Same(Ty::I32),
    Sig::Same(Ty::I64),
    Sig::Same(Ty::Bool),
];

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::STRIDED_SLICE,
        types: Types::unary(SLICED, SLICED),
        inputs: 4..=4,
        outputs: 1,
        lower: Lowering::Kernel(strided_slice),
    },
    OpEntry {
        code: OpCode::SLICE,
        types: Types::unary(SLICED, SLICED),
        inputs: 3..=3,
        outputs: 1,
        lower: Lowering::Kernel(slice),
    },
    OpEntry {
        code: OpCode::REVERSE_V2,
        types: Types::unary(REVERSED, REVERSED),
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(reverse_v2),
    },
];

/// One axis of a strided slice, resolved as TFLM's Eval resolves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SliceAxis {
    /// First index.
    start: i64,
    /// Number of indices taken.
    count: usize,
}

/// The per-axis flags of a strided slice.
#[derive(Clone, Copy, Debug, Default)]
struct AxisFlags {
    /// `begin_mask` bit: start at the first element (in stride direction).
    begin_masked: bool,
    /// `end_mask` bit: run to the last element.
    end_masked: bool,
    /// `shrink_axis_mask` bit: take one element and drop the dimension.
    shrink: bool,
}

/// `StridedSliceStartForAxis` / `StridedSliceEndForAxis` and the loop count, for one axis.
fn slice_axis(size: i64, begin: i64, end: i64, stride: i64, flags: AxisFlags) -> SliceAxis {
    let AxisFlags {
        begin_masked,
        end_masked,
        shrink,
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
fn strided_slice(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    // TFLM slices every type it takes as it slices int8: bytes moved, no arithmetic (its Eval:
    // FLOAT32, INT8, INT16, INT32, BOOL).
    match input.dtype {
        DType::F32 | DType::I8 | DType::I16 | DType::I32 | DType::Bool => {}
        other => {
            return Err(ctx.invalid(
                format!(
                "the input has type {other}; TFLM's STRIDED_SLICE refuses it (it takes FLOAT32, \
                 INT8, INT16, INT32 and BOOL)"
            ),
                Grounds::tflm(
                    "strided_slice.cc StridedSliceEval: type not supported (kTfLiteError) \
                     but FLOAT32, INT8, INT16, INT32 and BOOL",
                ),
            ))
        }
    }
    ctx.same_dtype("the output", output, input)?;
    // TFLM's BuildStridedSliceParams sets ellipsis_mask and new_axis_mask to 0 whatever the
    // model says, and so does tinyaot: a model written for the masks then fails the output shape
    // check below, as it fails TFLM's CheckOutputSize.
    let Options::StridedSlice(o) = &ctx.op().options else {
        // The loader gives an op without options TFLM's defaults (its zeroed params).
        return Err(ctx.internal("no StridedSlice options decoded"));
    };
    let rank = input.shape.len();
    // strided_slice_common.cc's kMaxDim.
    if rank > 4 {
        return Err(ctx.invalid(
            format!("rank {rank}; TFLM slices at most 4 dimensions"),
            Grounds::tflm(
                "strided_slice_common.cc StridedSlicePrepare: TF_LITE_ENSURE_MSG(dims \
                 <= kMaxDim = 4)",
            ),
        ));
    }
    for (i, what) in [(1, "begin"), (2, "end"), (3, "strides")] {
        if !ctx.input(i)?.is_constant() {
            return Err(ctx.invalid(
                format!("{what} is computed at run time; TFLM takes only a constant {what}"),
                Grounds::tflm(
                    "strided_slice_common.cc StridedSlicePrepare: \
                     TF_LITE_ENSURE_MSG(IsConstantTensor(begin / end / strides))",
                ),
            ));
        }
    }
    let begin = ctx.const_ints("begin", ctx.input(1)?)?;
    let end = ctx.const_ints("end", ctx.input(2)?)?;
    let strides = ctx.const_ints("strides", ctx.input(3)?)?;
    if begin.len() < rank || end.len() < rank || strides.len() < rank {
        return Err(ctx.invalid(
            format!(
                "begin/end/strides have {}/{}/{} values for an input of rank {rank}",
                begin.len(),
                end.len(),
                strides.len()
            ),
            Grounds::undefined(
                "strided_slice_common.cc BuildStridedSliceParams reads begin, end and strides \
                 [i] for every input dimension i: a shorter tensor is read past its end",
            ),
        ));
    }
    // TFLM reads the first `rank` values of each and ignores the rest.
    let (begin, end, strides) = (&begin[..rank], &end[..rank], &strides[..rank]);
    let in_strides = strides_of(&input.shape);
    let mut dims = Vec::new();
    let mut out_shape = Vec::new();
    let mut base = 0i64;
    let mut empty = false;
    for d in 0..rank {
        if strides[d] == 0 {
            return Err(ctx.invalid(
                format!("stride 0 in dimension {d}"),
                Grounds::tflm(
                    "strided_slice_common.cc CheckOutputSize: TF_LITE_ENSURE_MSG(stride != 0)",
                ),
            ));
        }
        let bit = |mask: i32| mask & (1 << d) != 0;
        let shrink = bit(o.shrink_axis_mask);
        // TFLite's `offset` option (end relative to begin) is not applied: TFLM's
        // BuildStridedSliceParams leaves StridedSliceParams::offset false, so every model runs
        // as if the option were off, and so it runs here.
        let flags = AxisFlags {
            begin_masked: bit(o.begin_mask),
            end_masked: bit(o.end_mask),
            shrink,
        };
        let axis = slice_axis(input.shape[d] as i64, begin[d], end[d], strides[d], flags);
        // A shrink axis takes one element, or none: past the axis, or with a negative stride
        // (TFLM's StridedSliceEndForAxis ends it at start + 1, and its loop runs while
        // index > end). Taking none, TFLM writes nothing, which only an empty output survives.
        if shrink && axis.count == 0 && output.num_elements() > 0 {
            return Err(ctx.invalid(
                format!(
                    "shrink axis {d} selects no element (begin {}, stride {}), so TFLM writes \
                     none of the output's {} elements",
                    begin[d],
                    strides[d],
                    output.num_elements()
                ),
                Grounds::undefined(
                    "reference strided_slice.h StridedSlice: a shrink axis ends at \
                     StridedSliceEndForAxis's start + 1 (start past the axis: start), so past the \
                     axis or with a negative stride its loop takes no index, and the output is \
                     left unwritten (uninitialized arena memory)",
                ),
            ));
        }
        if !shrink {
            out_shape.push(axis.count);
        }
        empty |= axis.count == 0;
        base += axis.start.max(0) * in_strides[d] as i64;
        dims.push((axis.count, strides[d] * in_strides[d] as i64));
    }
    if out_shape != output.shape {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} is not the slice's shape {out_shape:?}",
                output.shape
            ),
            Grounds::tflm(
                "strided_slice_common.cc CheckOutputSize: TF_LITE_ENSURE_EQ(output dims, the \
                 slice's)",
            ),
        ));
    }
    walk_call(ctx, base, &dims, empty)
}

/// The kernel call for a slice of input 0 (of a type checked by the caller) starting at element
/// `base` and walking `dims` (count, element step) in order; `empty` when it takes nothing.
fn walk_call(ctx: &OpContext, base: i64, dims: &[(usize, i64)], empty: bool) -> Result<Kernel> {
    let input = ctx.input(0)?;
    let dims = if empty {
        vec![(0, 1)]
    } else {
        collapse_walk(dims)
    };
    let mut steps = Vec::with_capacity(dims.len());
    for &(_, s) in &dims {
        steps.push(i32::try_from(s).map_err(|_| {
            ctx.invalid(
                "input too large",
                Grounds::undefined(
                    "reference strided_slice.h computes element offsets in int: a step beyond \
                     int32 overflows",
                ),
            )
        })?);
    }
    Ok(kernel(
        "strided_slice",
        in_out(ctx)?,
        P::StridedSlice {
            elem_bytes: input.dtype.size(),
            input_bytes: input.bytes,
            start: if empty { 0 } else { base as usize },
            counts: dims.iter().map(|d| d.0).collect(),
            steps: Data::Values(steps),
        },
    ))
}

/// The grounds of a SLICE reading outside its input or writing outside its output: TFLM checks
/// neither (reference `Slice` loops from `begin` to `begin + size` per dimension, unclamped, and
/// writes each element it reads in turn).
const SLICE_OUT_OF_BOUNDS: &str = "slice.cc SlicePrepare checks begin and size only by \
     TFLITE_DCHECK, and reference Slice loops from begin to begin + size of every dimension \
     unclamped, writing the output in turn: a range outside the input is read out of bounds, an \
     output of another size written past its end or left partly unwritten";

/// SLICE (TFLM: up to 5 dimensions; begin and size INT32 or INT64, of one type, a size of -1 is
/// "to the end"): constant ones resolved here into the strided walk, ones computed at run time
/// read per call by [`slice_dyn`].
fn slice(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    match input.dtype {
        DType::F32 | DType::I8 | DType::I16 | DType::I32 | DType::Bool => {}
        other => {
            return Err(ctx.invalid(
                format!(
                    "the input has type {other}; TFLM's SLICE refuses it (it takes FLOAT32, \
                     INT8, INT16, INT32 and BOOL)"
                ),
                Grounds::tflm(
                    "slice.cc SliceEval: input type not supported (kTfLiteError) but FLOAT32, \
                     INT8, INT16, INT32 and BOOL",
                ),
            ))
        }
    }
    ctx.same_dtype("the output", output, input)?;
    let (begin, size) = (ctx.input(1)?, ctx.input(2)?);
    for (what, t) in [("begin", begin), ("size", size)] {
        if !matches!(t.dtype, DType::I32 | DType::I64) {
            return Err(ctx.invalid(
                format!("{what} has type {}; TFLM takes INT32 or INT64", t.dtype),
                Grounds::tflm(
                    "slice.cc SliceEval: begin type not supported (kTfLiteError) but INT32 and \
                     INT64",
                ),
            ));
        }
    }
    if begin.dtype != size.dtype {
        return Err(ctx.invalid(
            format!(
                "begin has type {}, size {}; TFLM reads both as begin's type",
                begin.dtype, size.dtype
            ),
            Grounds::undefined(
                "slice.cc SlicePrepare checks begin->type == size->type only by TFLITE_DCHECK; \
                 SliceEval reads size as begin's type",
            ),
        ));
    }
    let rank = input.shape.len();
    if rank > 5 {
        return Err(ctx.invalid(
            format!("rank {rank}; TFLM slices at most 5 dimensions"),
            Grounds::undefined(
                "slice.cc SlicePrepare checks NumDimensions(input) <= kMaxDim = 5 only by \
                 TFLITE_DCHECK; SliceEval fills 5-entry arrays from kMaxDim - rank on",
            ),
        ));
    }
    if !(begin.is_constant() && size.is_constant()) {
        return slice_dyn(ctx);
    }
    let begin = ctx.const_ints("begin", begin)?;
    let size = ctx.const_ints("size", size)?;
    if begin.len() < rank || size.len() < rank {
        return Err(ctx.invalid(
            format!(
                "begin/size have {}/{} values for an input of rank {rank}",
                begin.len(),
                size.len()
            ),
            Grounds::undefined(
                "slice.cc GetBeginAndSizeVectors reads begin and size [i] for every input \
                 dimension i: a shorter tensor is read past its end",
            ),
        ));
    }
    // TFLM reads the first `rank` values of each and ignores the rest.
    let (begin, size) = (&begin[..rank], &size[..rank]);
    let in_strides = strides_of(&input.shape);
    let (mut dims, mut out_shape, mut base) = (Vec::new(), Vec::new(), 0i64);
    for d in 0..rank {
        let dim = input.shape[d] as i64;
        // TFLM narrows both to int32_t (SliceParams), keeping the low 32 bits of an INT64 one;
        // the narrowed values are the slice it takes (or reads out of bounds with, refused below).
        let (b, s) = (begin[d] as i32 as i64, size[d] as i32 as i64);
        let count = if s == -1 { dim - b } else { s };
        if b < 0 || count < 0 || b + count > dim {
            return Err(ctx.invalid(
                format!(
                    "begin {b} and size {s} of dimension {d} are not a range of its {dim} \
                     elements"
                ),
                Grounds::undefined(SLICE_OUT_OF_BOUNDS),
            ));
        }
        out_shape.push(count as usize);
        base += b * in_strides[d] as i64;
        dims.push((count as usize, in_strides[d] as i64));
    }
    if out_shape != output.shape {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} is not the slice's shape {out_shape:?}",
                output.shape
            ),
            Grounds::undefined(SLICE_OUT_OF_BOUNDS),
        ));
    }
    let empty = out_shape.contains(&0);
    walk_call(ctx, base, &dims, empty)
}

/// SLICE whose begin or size is computed at run time (checked by the caller as for constant ones:
/// the types, the rank): TFLM's `SlicePrepare` reads neither (its checks are `TFLITE_DCHECK`s) and
/// `SliceEval` reads both per call over the output's static shape, so `slice_dyn` does. Refused
/// here as for constant ones: begin or size holding fewer values than the input has dimensions
/// (read past their end). What the values do at run time (a range outside the input, a slice of
/// another size than the output) is the kernel's to handle.
fn slice_dyn(ctx: &OpContext) -> Result<Kernel> {
    let (input, begin, size, output) =
        (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.output(0)?);
    let rank = input.shape.len();
    if begin.num_elements() < rank || size.num_elements() < rank {
        return Err(ctx.invalid(
            format!(
                "begin/size have {}/{} values for an input of rank {rank}",
                begin.num_elements(),
                size.num_elements()
            ),
            Grounds::undefined(
                "slice.cc GetBeginAndSizeVectors reads begin and size [i] for every input \
                 dimension i: a shorter tensor is read past its end",
            ),
        ));
    }
    Ok(kernel(
        "slice_dyn",
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Src(ctx.input_index(2)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::SliceDyn {
            elem_bytes: input.dtype.size(),
            shape: input.shape.clone(),
            output_len: output.num_elements(),
            int64: begin.dtype == DType::I64,
        },
    ))
}

/// REVERSE_V2 (TFLM's reverse.cc): the input (FLOAT32, INT8, UINT8, INT16, INT32, INT64, BOOL; at
/// most 6 dimensions) reversed along the axes of a rank-1 INT32 tensor (constant, or computed at
/// run time: `reverse_dyn`), negative axes counted from the end; TFLM's Eval refuses axes out of range and axes that are not contiguous
/// once sorted (a duplicate included). The reversed axes merge into one of `middle` rows of
/// `inner` elements, walked from the last row back.
fn reverse_v2(ctx: &OpContext) -> Result<Kernel> {
    let (input, axis, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let rank = input.shape.len();
    match input.dtype {
        DType::F32 | DType::I8 | DType::U8 | DType::I16 | DType::I32 | DType::I64 | DType::Bool => {
        }
        other => {
            return Err(ctx.invalid(
                format!(
                    "the input has type {other}; TFLM's REVERSE_V2 takes FLOAT32, INT8, UINT8, \
                     INT16, INT32, INT64 and BOOL"
                ),
                Grounds::tflm(
                    "reverse.cc ReverseV2Prepare: \"Type '%s' is not supported by reverse.\"",
                ),
            ))
        }
    }
    if axis.dtype != DType::I32 {
        return Err(ctx.invalid(
            format!("the axis tensor has type {}; TFLM takes INT32", axis.dtype),
            Grounds::tflm(
                "reverse.cc ReverseV2Prepare: \"Axis Type '%s' is not supported by reverse.\"",
            ),
        ));
    }
    ctx.same_dtype("the output", output, input)?;
    if axis.shape.len() != 1 {
        return Err(ctx.invalid(
            format!(
                "the axis tensor has rank {}; TFLM requires 1",
                axis.shape.len()
            ),
            Grounds::tflm("reverse.cc ReverseV2Prepare: TF_LITE_ENSURE_EQ(NumDimensions(axis), 1)"),
        ));
    }
    if rank > 6 {
        return Err(ctx.invalid(
            format!("rank {rank}; TFLM reverses at most 6 dimensions"),
            Grounds::tflm(
                "reverse.cc ReverseV2Prepare: TF_LITE_ENSURE(NumDimensions(input) <= \
                 kMaxDimensions = 6)",
            ),
        ));
    }
    let n = axis.num_elements();
    if n > rank {
        return Err(ctx.invalid(
            format!("{n} axes for an input of rank {rank}"),
            Grounds::tflm(
                "reverse.cc ReverseV2Prepare: TF_LITE_ENSURE(NumDimensions(input) >= \
                 NumElements(axis))",
            ),
        ));
    }
    if n == 0 {
        return Err(ctx.invalid(
            "no axis to reverse",
            Grounds::undefined(
                "reference reverse.h Reverse reads axes[num_axes - 1], axes[-1] of a std::array \
                 when the axis tensor is empty",
            ),
        ));
    }
    let same_shape = || {
        if input.shape != output.shape {
            return Err(ctx.invalid(
                format!(
                    "output shape {:?} differs from the input's {:?}",
                    output.shape, input.shape
                ),
                Grounds::undefined(
                    "reverse.cc checks no output shape; reference Reverse writes the input's \
                     FlatSize elements into it",
                ),
            ));
        }
        Ok(())
    };
    if !axis.is_constant() {
        // ReverseV2Eval reads the axes per call (its Prepare only their type and count), so
        // reverse_dyn does: out of range or non-contiguous axes fail TFLM's Eval (the output
        // unwritten) and are written as zeros.
        same_shape()?;
        return Ok(kernel(
            "reverse_dyn",
            vec![
                Operand::Src(ctx.input_index(0)?),
                Operand::Src(ctx.input_index(1)?),
                Operand::Offset(ctx.output_index(0)?),
            ],
            P::ReverseDyn {
                elem_bytes: input.dtype.size(),
                shape: input.shape.clone(),
                num_axes: n,
            },
        ));
    }
    let mut axes = Vec::with_capacity(n);
    for a in ctx.const_i32s("axis", axis)? {
        let a = if a < 0 {
            i64::from(a) + rank as i64
        } else {
            i64::from(a)
        };
        if !(0..rank as i64).contains(&a) {
            return Err(ctx.invalid(
                format!("axis {a} out of range for an input of rank {rank}"),
                Grounds::tflm(
                    "reverse.cc ReverseV2Eval: TF_LITE_ENSURE(axes_data[i] >= 0 && axes_data[i] < \
                     rank)",
                ),
            ));
        }
        axes.push(a as usize);
    }
    axes.sort_unstable();
    if axes.windows(2).any(|w| w[0] + 1 != w[1]) {
        return Err(ctx.invalid(
            format!("axes {axes:?} are not contiguous once sorted"),
            Grounds::tflm("reverse.cc ReverseV2Eval: \"Non-contiguous `axes` not supported\""),
        ));
    }
    same_shape()?;
    let (first, last) = (axes[0], axes[n - 1]);
    let outer: usize = input.shape[..first].iter().product();
    let middle: usize = input.shape[first..=last].iter().product();
    let inner: usize = input.shape[last + 1..].iter().product();
    let empty = input.shape.contains(&0);
    let base = middle.saturating_sub(1) * inner;
    let dims = [
        (outer, (middle * inner) as i64),
        (middle, -(inner as i64)),
        (inner, 1),
    ];
    walk_call(ctx, base as i64, &dims, empty)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fields, graph, per_tensor, tensor};
    use super::{slice_axis, AxisFlags, SliceAxis};
    use crate::ir::{DType, OpCode, Options};
    use crate::lower::{lower, Value};

    #[test]
    fn slice_axes_resolve_like_tflm() {
        let ax = |size, b, e, s, begin_masked, end_masked, shrink| {
            let flags = AxisFlags {
                begin_masked,
                end_masked,
                shrink,
            };
            slice_axis(size, b, e, s, flags)
        };
        assert_eq!(
            ax(5, 1, 4, 1, false, false, false),
            SliceAxis { start: 1, count: 3 }
        );
        assert_eq!(
            ax(5, -1, 0, -2, false, false, false),
            SliceAxis { start: 4, count: 2 }
        );
        assert_eq!(
            ax(5, 3, 0, 1, true, true, false),
            SliceAxis { start: 0, count: 5 }
        );
        assert_eq!(
            ax(5, 0, 0, -1, true, true, false),
            SliceAxis { start: 4, count: 5 }
        );
        assert_eq!(
            ax(5, -2, 0, 1, false, false, true),
            SliceAxis { start: 3, count: 1 }
        );
        assert_eq!(
            ax(5, 10, 20, 1, false, false, false),
            SliceAxis { start: 5, count: 0 }
        );
    }

    static BEGIN: [u8; 8] = [1, 0, 0, 0, 3, 0, 0, 0];
    static END: [u8; 8] = [0; 8];
    static STRIDES: [u8; 8] = [1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff];

    #[test]
    fn strided_slice_shrinks_and_walks_backwards() {
        use crate::ir::StridedSliceOptions;
        let options = Options::StridedSlice(StridedSliceOptions {
            begin_mask: 0,
            end_mask: 0,
            ellipsis_mask: 0,
            new_axis_mask: 0,
            shrink_axis_mask: 1,
            offset: false,
        });
        // x[1, 3:0:-2] of a 2x4 tensor: elements 7 and 5.
        let mut g = graph(
            OpCode::STRIDED_SLICE,
            options.clone(),
            vec![
                tensor(&[2, 4], DType::I8, per_tensor(1.0, 0), None),
                tensor(&[2], DType::I32, None, Some(&BEGIN)),
                tensor(&[2], DType::I32, None, Some(&END)),
                tensor(&[2], DType::I32, None, Some(&STRIDES)),
                tensor(&[2], DType::I8, per_tensor(1.0, 0), None),
            ],
            &[Some(0), Some(1), Some(2), Some(3)],
        );
        assert_eq!(
            fields(&g),
            vec![
                ("elem_bytes", Value::Usize(1)),
                ("input_bytes", Value::Usize(8)),
                ("start", Value::Usize(7)),
                ("counts", Value::Usizes(vec![2])),
                ("steps", Value::I32s(vec![-2])),
            ]
        );
        // A non-constant begin is refused.
        g.tensors[1].data = None;
        assert!(lower(&g).unwrap_err().to_string().contains("begin"));
    }

    /// REVERSE_V2 whose axes are computed at run time goes to `reverse_dyn` (TFLM's Eval reads
    /// them), the output's shape still checked against the input's.
    #[test]
    fn reverse_v2_axes_at_run_time() {
        let mut g = graph(
            OpCode::REVERSE_V2,
            Options::None,
            vec![
                tensor(&[2, 3, 4], DType::I16, None, None),
                tensor(&[2], DType::I32, None, None),
                tensor(&[2, 3, 4], DType::I16, None, None),
            ],
            &[Some(0), Some(1)],
        );
        assert_eq!(
            fields(&g),
            vec![
                ("elem_bytes", Value::Usize(2)),
                ("shape", Value::Usizes(vec![2, 3, 4])),
                ("num_axes", Value::Usize(2)),
            ]
        );
        g.tensors[2] = tensor(&[2, 4, 3], DType::I16, None, None);
        assert!(lower(&g).is_err());
    }

    /// SLICE whose size is computed at run time goes to `slice_dyn` (begin constant, read where it
    /// is); begin or size shorter than the rank stays refused.
    #[test]
    fn slice_begin_or_size_at_run_time() {
        static BEGIN64: [u8; 16] = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let mut g = graph(
            OpCode::SLICE,
            Options::None,
            vec![
                tensor(&[2, 3], DType::F32, None, None),
                tensor(&[2], DType::I64, None, Some(&BEGIN64)),
                tensor(&[2], DType::I64, None, None),
                tensor(&[1, 2], DType::F32, None, None),
            ],
            &[Some(0), Some(1), Some(2)],
        );
        assert_eq!(
            fields(&g),
            vec![
                ("elem_bytes", Value::Usize(4)),
                ("shape", Value::Usizes(vec![2, 3])),
                ("output_len", Value::Usize(2)),
                ("int64", Value::Bool(true)),
            ]
        );
        g.tensors[2] = tensor(&[1], DType::I64, None, None);
        assert!(lower(&g).unwrap_err().to_string().contains("2/1 values"));
    }
}

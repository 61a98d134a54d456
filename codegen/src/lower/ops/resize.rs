//! RESIZE_NEAREST_NEIGHBOR → `resize::resize_nearest` (float32, int8, int16: whole pixels
//! copied) and RESIZE_BILINEAR → `resize::resize_bilinear_{f32,s8}`, as TFLM's
//! resize_nearest_neighbor.cc and resize_bilinear.cc compute them. The size is a constant (TFLM
//! requires it), so which input rows and columns each output row and column reads, and the
//! bilinear weights, are computed here once, in TFLM's arithmetic (`GetNearestNeighbor`,
//! `ComputeInterpolationValues`, `ComputeInterpolationValuesInteger`).

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Tensor};
use crate::lower::params::resize as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{Data, OpContext, SHAPES_CHECKED_ONLY_BY_DCHECK};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::RESIZE_NEAREST_NEIGHBOR,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(resize_nearest),
    },
    OpEntry {
        code: OpCode::RESIZE_BILINEAR,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
        ),
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(resize_bilinear),
    },
];

/// TFLM's Prepare of the nearest neighbour (`nearest`) or of bilinear, citing `check`.
macro_rules! prepare {
    ($nearest:expr, $check:literal) => {
        if $nearest {
            concat!("resize_nearest_neighbor.cc Prepare: ", $check)
        } else {
            concat!("resize_bilinear.cc Prepare: ", $check)
        }
    };
}

/// A resize's sizes, validated as TFLM's Prepare validates them.
struct Geometry {
    batches: usize,
    in_h: usize,
    in_w: usize,
    depth: usize,
    out_h: usize,
    out_w: usize,
}

/// Checks the input, the size and the output as TFLM's `Prepare` does, and that the output is
/// the `[batches, size[0], size[1], depth]` the reference kernel writes. `nearest`: TFLM's nearest
/// neighbour also checks that the size has exactly two elements (bilinear reads the first two).
fn geometry(ctx: &OpContext, nearest: bool) -> Result<Geometry> {
    let (input, size, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    if input.shape.len() != 4 {
        return Err(ctx.invalid(
            format!(
                "the input has shape {:?}; TFLM resizes 4-D inputs",
                input.shape
            ),
            Grounds::tflm(prepare!(
                nearest,
                "TF_LITE_ENSURE_EQ(NumDimensions(input), 4)"
            )),
        ));
    }
    check_size_tensor(ctx, size, nearest)?;
    ctx.same_dtype("the output", output, input)?;
    let values = ctx.const_ints("size", size)?;
    if values.len() < 2 {
        return Err(ctx.invalid(
            format!("size has {} element(s); the kernel reads two", values.len()),
            Grounds::undefined(
                "reference_ops::ResizeBilinear reads output_size_data[0] and [1], checking the \
                 size's length only with TFLITE_DCHECK: past the end of a shorter tensor",
            ),
        ));
    }
    let (n, c) = (input.shape[0], input.shape[3]);
    let expected = [
        Some(n),
        usize::try_from(values[0]).ok(),
        usize::try_from(values[1]).ok(),
        Some(c),
    ];
    if output.shape.len() != 4
        || expected
            .iter()
            .zip(&output.shape)
            .any(|(&e, &o)| e != Some(o))
    {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} is not the input's batches and depth ({n}, {c}) at size \
                 [{}, {}]",
                output.shape, values[0], values[1]
            ),
            Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
        ));
    }
    Ok(Geometry {
        batches: n,
        in_h: input.shape[1],
        in_w: input.shape[2],
        depth: c,
        out_h: output.shape[1],
        out_w: output.shape[2],
    })
}

/// The size tensor's checks of TFLM's Prepare: 1-D, INT32, constant (and two elements for the
/// nearest neighbour).
fn check_size_tensor(ctx: &OpContext, size: &Tensor, nearest: bool) -> Result<()> {
    if size.shape.len() != 1 {
        return Err(ctx.invalid(
            format!("size has shape {:?}; TFLM takes a 1-D size", size.shape),
            Grounds::tflm(prepare!(
                nearest,
                "TF_LITE_ENSURE_EQ(NumDimensions(size), 1)"
            )),
        ));
    }
    if size.dtype != DType::I32 {
        return Err(ctx.invalid(
            format!("size has type {}; TFLM takes INT32", size.dtype),
            Grounds::tflm(prepare!(
                nearest,
                "TF_LITE_ENSURE_EQ(size->type, kTfLiteInt32)"
            )),
        ));
    }
    if nearest && size.shape[0] != 2 {
        return Err(ctx.invalid(
            format!(
                "size has {} elements; TFLM takes two (height, width)",
                size.shape[0]
            ),
            Grounds::tflm(prepare!(
                nearest,
                "TF_LITE_ENSURE_EQ(size->dims->data[0], 2)"
            )),
        ));
    }
    if !size.is_constant() {
        return Err(ctx.invalid(
            "size is computed at run time; TFLM requires a constant size",
            Grounds::tflm(prepare!(
                nearest,
                "TF_LITE_ENSURE_MSG(IsConstantTensor(size), \"Non-constant >size< tensor is \
                 not supported\")"
            )),
        ));
    }
    Ok(())
}

/// `(align_corners, half_pixel_centers)` of the operator's options (TFLM's defaults, false, when
/// it has none).
fn flags(ctx: &OpContext, nearest: bool) -> Result<(bool, bool)> {
    let op = ctx.tflite_operator()?;
    Ok(if nearest {
        op.builtin_options_as_resize_nearest_neighbor_options()
            .map_or((false, false), |o| {
                (o.align_corners(), o.half_pixel_centers())
            })
    } else {
        op.builtin_options_as_resize_bilinear_options()
            .map_or((false, false), |o| {
                (o.align_corners(), o.half_pixel_centers())
            })
    })
}

/// Refuses an index table entry outside `0..extent`: the reference kernel reads it unchecked.
fn check_reads(ctx: &OpContext, axis: &str, indices: &[i64], extent: usize) -> Result<()> {
    match indices.iter().find(|&&i| i < 0 || i >= extent as i64) {
        None => Ok(()),
        Some(i) => Err(ctx.invalid(
            format!("the {axis} index {i} it computes is outside the input's {extent}"),
            Grounds::undefined(
                "the reference kernel reads the input at the row and column it computes without \
                 checking them: out of bounds",
            ),
        )),
    }
}

/// TFLM's `GetNearestNeighbor` (reference resize_nearest_neighbor.h), in its float arithmetic.
fn nearest_index(
    value: usize,
    input_size: usize,
    output_size: usize,
    align: bool,
    half: bool,
) -> i64 {
    let (input_size, output_size) = (input_size as i64, output_size as i64);
    let scale = if align && output_size > 1 {
        (input_size - 1) as f32 / (output_size - 1) as f32
    } else {
        input_size as f32 / output_size as f32
    };
    let offset = if half { 0.5f32 } else { 0.0 };
    let scaled = (value as f32 + offset) * scale;
    // static_cast<int32_t> of TfLiteRound (round half away from zero) or std::floor.
    let nearest = if align {
        scaled.round()
    } else {
        scaled.floor()
    } as i64;
    let index = nearest.min(input_size - 1);
    if half {
        index.max(0)
    } else {
        index
    }
}

/// RESIZE_NEAREST_NEIGHBOR (TFLM: float32, int8, int16; bytes copied, no arithmetic).
fn resize_nearest(ctx: &OpContext) -> Result<Kernel> {
    let input = ctx.input(0)?;
    if !matches!(input.dtype, DType::F32 | DType::I8 | DType::I16) {
        return Err(ctx.invalid(
            format!(
                "the input has type {}; TFLM's RESIZE_NEAREST_NEIGHBOR takes FLOAT32, INT8 and \
                 INT16",
                input.dtype
            ),
            Grounds::tflm(
                "resize_nearest_neighbor.cc Eval: \"Output tensor type %s (%d) not supported.\"",
            ),
        ));
    }
    let g = geometry(ctx, true)?;
    let (align, half) = flags(ctx, true)?;
    let rows: Vec<i64> = (0..g.out_h)
        .map(|y| nearest_index(y, g.in_h, g.out_h, align, half))
        .collect();
    let cols: Vec<i64> = (0..g.out_w)
        .map(|x| nearest_index(x, g.in_w, g.out_w, align, half))
        .collect();
    if ctx.output(0)?.num_elements() > 0 {
        check_reads(ctx, "row", &rows, g.in_h)?;
        check_reads(ctx, "column", &cols, g.in_w)?;
    }
    let pixel_bytes = g.depth * input.dtype.size();
    let row_bytes = g.in_w * pixel_bytes;
    Ok(kernel(
        "resize_nearest",
        in_out(ctx)?,
        P::ResizeNearest {
            batches: g.batches,
            batch_bytes: g.in_h * row_bytes,
            pixel_bytes,
            rows: rows
                .iter()
                .map(|&y| y.max(0) as usize * row_bytes)
                .collect(),
            cols: cols
                .iter()
                .map(|&x| x.max(0) as usize * pixel_bytes)
                .collect(),
        },
    ))
}

/// One axis of a float bilinear resize: per output index, the lower and upper input indices and
/// their weights `1 - (v - lo)` and `v - lo` (TFLM's `ComputeInterpolationValues`).
struct AxisF32 {
    lo: Vec<i64>,
    hi: Vec<i64>,
    w0: Vec<f32>,
    w1: Vec<f32>,
}

fn axis_f32(input_size: usize, output_size: usize, align: bool, half: bool) -> AxisF32 {
    let (input_size, output_size) = (input_size as i64, output_size as i64);
    let mut scale = input_size as f32 / output_size as f32;
    if align && output_size > 1 {
        scale = (input_size - 1) as f32 / (output_size - 1) as f32;
    }
    let mut a = AxisF32 {
        lo: Vec::new(),
        hi: Vec::new(),
        w0: Vec::new(),
        w1: Vec::new(),
    };
    for i in 0..output_size {
        let value = i as f32;
        let scaled = if half {
            (value + 0.5) * scale - 0.5
        } else {
            value * scale
        };
        let lo = (scaled.floor() as i64).max(0);
        let hi = (scaled.ceil() as i64).min(input_size - 1);
        let frac = scaled - lo as f32;
        a.lo.push(lo);
        a.hi.push(hi);
        a.w0.push(1.0 - frac);
        a.w1.push(frac);
    }
    a
}

/// One axis of an int8 bilinear resize, in units of 2^-10 (TFLM's
/// `ComputeInterpolationValuesInteger`); `None` where TFLM's int32 arithmetic divides by zero
/// or overflows.
struct AxisS8 {
    lo: Vec<i64>,
    hi: Vec<i64>,
    w0: Vec<i32>,
    w1: Vec<i32>,
}

fn axis_s8(input_size: usize, output_size: usize, align: bool, half: bool) -> Option<AxisS8> {
    let fits = |v: i64| i32::try_from(v).ok().map(i64::from);
    let (input_size, output_size) = (input_size as i64, output_size as i64);
    // Integer division truncating toward zero, as C++'s; None for a zero divisor.
    let div = |a: i64, b: i64| if b == 0 { None } else { fits(a / b) };
    let mut scale = div(fits(1024 * input_size)? + output_size / 2, output_size)?;
    if align && output_size > 1 {
        scale = div(
            fits(1024 * (input_size - 1))? + (output_size - 1) / 2,
            output_size - 1,
        )?;
    }
    let mut a = AxisS8 {
        lo: Vec::new(),
        hi: Vec::new(),
        w0: Vec::new(),
        w1: Vec::new(),
    };
    for i in 0..output_size {
        let scaled = if half {
            fits(fits(i * scale)? + scale / 2 - 512)?
        } else {
            fits(i * scale)?
        };
        let lo = (scaled / 1024).max(0);
        let hi = (fits(scaled + 1023)? / 1024).min(input_size - 1);
        let w1 = fits(scaled - 1024 * lo)?;
        a.lo.push(lo);
        a.hi.push(hi);
        a.w0.push(fits(1024 - w1)? as i32);
        a.w1.push(w1 as i32);
    }
    Some(a)
}

/// RESIZE_BILINEAR (TFLM: float32, int8).
fn resize_bilinear(ctx: &OpContext) -> Result<Kernel> {
    let input = ctx.input(0)?;
    if !matches!(input.dtype, DType::F32 | DType::I8) {
        return Err(ctx.invalid(
            format!(
                "the input has type {}; TFLM's RESIZE_BILINEAR takes FLOAT32 and INT8",
                input.dtype
            ),
            Grounds::tflm(
                "resize_bilinear.cc Eval: \"Output type is %d, requires float or int8.\"",
            ),
        ));
    }
    let g = geometry(ctx, false)?;
    let (align, half) = flags(ctx, false)?;
    if align && half {
        return Err(ctx.invalid(
            "align_corners and half_pixel_centers are both set",
            Grounds::tflm(
                "resize_bilinear.cc Prepare: \"If half_pixel_centers is True, align_corners must \
                 be False.\"",
            ),
        ));
    }
    let reads = ctx.output(0)?.num_elements() > 0;
    let row_len = g.in_w * g.depth;
    let offsets = |indices: &[i64], step: usize| -> Vec<usize> {
        indices.iter().map(|&i| i.max(0) as usize * step).collect()
    };
    if input.dtype == DType::F32 {
        let (rows, cols) = (
            axis_f32(g.in_h, g.out_h, align, half),
            axis_f32(g.in_w, g.out_w, align, half),
        );
        if reads {
            for (what, indices, extent) in [
                ("row", [&rows.lo, &rows.hi], g.in_h),
                ("column", [&cols.lo, &cols.hi], g.in_w),
            ] {
                for table in indices {
                    check_reads(ctx, what, table, extent)?;
                }
            }
        }
        return Ok(kernel(
            "resize_bilinear_f32",
            in_out(ctx)?,
            P::ResizeBilinearF32 {
                batches: g.batches,
                batch_len: g.in_h * row_len,
                depth: g.depth,
                rows0: offsets(&rows.lo, row_len),
                rows1: offsets(&rows.hi, row_len),
                row_w0: Data::Values(rows.w0),
                row_w1: Data::Values(rows.w1),
                cols0: offsets(&cols.lo, g.depth),
                cols1: offsets(&cols.hi, g.depth),
                col_w0: Data::Values(cols.w0),
                col_w1: Data::Values(cols.w1),
            },
        ));
    }
    let axes = (
        axis_s8(g.in_h, g.out_h, align, half),
        axis_s8(g.in_w, g.out_w, align, half),
    );
    let (Some(rows), Some(cols)) = axes else {
        return Err(ctx.invalid(
            format!(
                "resizing {}x{} to {}x{} divides by zero or overflows int32 in TFLM's integer \
                 scales",
                g.in_h, g.in_w, g.out_h, g.out_w
            ),
            Grounds::undefined(
                "reference_ops::ResizeBilinearInteger divides by the output height and width \
                 (zero: a division by zero) and computes its scales and positions in int32",
            ),
        ));
    };
    if reads {
        for (what, indices, extent) in [
            ("row", [&rows.lo, &rows.hi], g.in_h),
            ("column", [&cols.lo, &cols.hi], g.in_w),
        ] {
            for table in indices {
                check_reads(ctx, what, table, extent)?;
            }
        }
        // The kernel sums in int32 what TFLM sums in int64: within range when 128 times the
        // largest sum of the weights' magnitudes, plus the rounding, is.
        let widest = |w0: &[i32], w1: &[i32]| -> i64 {
            w0.iter()
                .zip(w1)
                .map(|(&a, &b)| i64::from(a).abs() + i64::from(b).abs())
                .max()
                .unwrap_or(0)
        };
        let bound = 128 * widest(&rows.w0, &rows.w1) * widest(&cols.w0, &cols.w1) + (1 << 19);
        if bound > i64::from(i32::MAX) {
            return Err(ctx.unsupported(format!(
                "resizing {}x{} to {}x{} gives interpolation weights too wide for the int8 \
                 kernel's int32 sums",
                g.in_h, g.in_w, g.out_h, g.out_w
            )));
        }
    }
    Ok(kernel(
        "resize_bilinear_s8",
        in_out(ctx)?,
        P::ResizeBilinearS8 {
            batches: g.batches,
            batch_len: g.in_h * row_len,
            depth: g.depth,
            rows0: offsets(&rows.lo, row_len),
            rows1: offsets(&rows.hi, row_len),
            row_w0: Data::Values(rows.w0),
            row_w1: Data::Values(rows.w1),
            cols0: offsets(&cols.lo, g.depth),
            cols1: offsets(&cols.hi, g.depth),
            col_w0: Data::Values(cols.w0),
            col_w1: Data::Values(cols.w1),
        },
    ))
}

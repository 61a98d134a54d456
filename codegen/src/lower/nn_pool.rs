//! AVERAGE_POOL_2D and MAX_POOL_2D: shapes, padding, activation range.

use super::{
    activation_range_f32, activation_range_s8, call, expect_rank, flavour, int8_quant, Flavour,
};
use crate::error::Result;
use crate::ir::{DType, Options};
use crate::lower::{quant, CallKind, OpContext, Value};

/// Which pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Average,
    Max,
}

/// AVERAGE_POOL_2D / MAX_POOL_2D → `pool::{average,max}_pool2d_{s8,f32}`.
pub(super) fn pool(ctx: &OpContext, pool: Kind) -> Result<CallKind> {
    let Options::Pool2D(o) = &ctx.op().options else {
        return Err(ctx.unsupported("missing Pool2DOptions"));
    };
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let kind = flavour(ctx, input)?;
    expect_rank(ctx, "input", input, 4)?;
    expect_rank(ctx, "output", output, 4)?;
    let (i, out) = (&input.shape, &output.shape);
    if i[0] != out[0] || i[3] != out[3] {
        return Err(ctx.unsupported(format!(
            "input {i:?} and output {out:?} differ in batches or channels"
        )));
    }
    let mut pads = [0usize; 2];
    for (axis, (name, filter, stride)) in [
        ("height", o.filter_h, o.stride_h),
        ("width", o.filter_w, o.stride_w),
    ]
    .into_iter()
    .enumerate()
    {
        let (input, output) = (i[1 + axis], out[1 + axis]);
        let expected = quant::output_size(o.padding, input, filter, stride, 1);
        if expected != Some(output) {
            return Err(ctx.unsupported(format!(
                "output {name} is {output} but {:?} padding with input {input}, window {filter}, stride {stride} gives {expected:?}",
                o.padding
            )));
        }
        pads[axis] = quant::padding_before(stride, 1, input, filter, output);
        super::conv::fits_i16(ctx, "padding", pads[axis])?;
    }
    let mut fields = vec![
        ("batches", Value::Usize(i[0])),
        ("input_h", Value::Usize(i[1])),
        ("input_w", Value::Usize(i[2])),
        ("channels", Value::Usize(i[3])),
        ("output_h", Value::Usize(out[1])),
        ("output_w", Value::Usize(out[2])),
        ("filter_h", Value::Usize(o.filter_h)),
        ("filter_w", Value::Usize(o.filter_w)),
        ("stride_h", Value::Usize(o.stride_h)),
        ("stride_w", Value::Usize(o.stride_w)),
        ("pad_top", Value::Usize(pads[0])),
        ("pad_left", Value::Usize(pads[1])),
    ];
    let function = match (kind, pool) {
        (Flavour::Int8, Kind::Average) => "average_pool2d_s8",
        (Flavour::Int8, Kind::Max) => "max_pool2d_s8",
        (Flavour::Float32, Kind::Average) => "average_pool2d_f32",
        (Flavour::Float32, Kind::Max) => "max_pool2d_f32",
    };
    match kind {
        Flavour::Int8 => {
            ctx.expect_dtype("output", output, DType::I8)?;
            let (s_in, zp_in) = int8_quant(ctx, "input", input)?;
            let (s_out, zp_out) = int8_quant(ctx, "output", output)?;
            // TFLM's pooling Prepare requires the same quantization on both sides.
            if f64::from((s_in - s_out).abs()) > 1e-6 || zp_in != zp_out {
                return Err(ctx.unsupported(format!(
                    "input quantization ({s_in}, {zp_in}) differs from output ({s_out}, {zp_out}); pools must keep it"
                )));
            }
            let (act_min, act_max) = activation_range_s8(ctx, o.activation, s_out, zp_out)?;
            fields.extend([
                ("act_min", Value::I32(act_min)),
                ("act_max", Value::I32(act_max)),
            ]);
            call(ctx, "pool", function, "Pool2dS8", fields)
        }
        Flavour::Float32 => {
            ctx.expect_dtype("output", output, DType::F32)?;
            let (act_min, act_max) = activation_range_f32(ctx, o.activation)?;
            fields.extend([
                ("act_min", Value::F32(act_min)),
                ("act_max", Value::F32(act_max)),
            ]);
            call(ctx, "pool", function, "Pool2dF32", fields)
        }
    }
}

//! The window of a convolution (CONV_2D, DEPTHWISE_CONV_2D): its options, the padding TFLM
//! computes from the window alone (whatever the output's size), the geometry fields of the
//! parameter structs, and the stream contract of the kernels that compute output pixels in order
//! from their windows.

use crate::error::Result;
use crate::ir::{Activation, Padding};
use crate::lower::{quant, OpContext, Stream};

/// What both convolutions share, from their options.
pub(in crate::lower::ops) struct Window {
    pub padding: Padding,
    pub stride: (usize, usize),
    pub dilation: (usize, usize),
    pub activation: Activation,
}

/// What both convolutions' parameter structs hold after their channel fields: strides,
/// dilations and padding.
pub(in crate::lower::ops) struct Geometry {
    pub filter_h: usize,
    pub filter_w: usize,
    pub stride_h: usize,
    pub stride_w: usize,
    pub dilation_h: usize,
    pub dilation_w: usize,
    pub pad_top: usize,
    pub pad_left: usize,
}

/// The [`Geometry`] of a convolution, checked as TFLM's Prepare checks it.
pub(in crate::lower::ops) fn geometry(
    ctx: &OpContext,
    w: &Window,
    input: &[usize],
    filter_hw: (usize, usize),
) -> Result<Geometry> {
    if w.stride.0 == 0 || w.stride.1 == 0 || w.dilation.0 == 0 || w.dilation.1 == 0 {
        // The loader refuses these as corrupt; a graph built in memory gets here. TFLM runs them
        // (padding.h's ComputePaddingHeightWidth ignores its checked arithmetic's error and gives
        // paddings of 0).
        return Err(ctx.unsupported(
            "a stride or dilation of 0, which TFLM runs with paddings of 0 (every output along \
             the axis reading the window at the origin, or every tap the same pixel); supported: \
             strides and dilations of at least 1",
        ));
    }
    // TFLM's ConvParams hold strides and dilations as int16_t: larger values wrap.
    for (name, value) in [
        ("stride", w.stride.0),
        ("stride", w.stride.1),
        ("dilation", w.dilation.0),
        ("dilation", w.dilation.1),
    ] {
        ctx.fits_i16(name, value)?;
    }
    // As TFLM computes it from the window alone (see quant::tflm_padding): an output extent
    // other than the window's is computed as TFLM computes it, the taps outside the image skipped.
    let (pad_top, pad_left) = quant::tflm_padding(
        w.padding,
        w.stride,
        w.dilation,
        (input[1], input[2]),
        filter_hw,
    );
    ctx.fits_i16("padding", pad_top)?;
    ctx.fits_i16("padding", pad_left)?;
    Ok(Geometry {
        filter_h: filter_hw.0,
        filter_w: filter_hw.1,
        stride_h: w.stride.0,
        stride_w: w.stride.1,
        dilation_h: w.dilation.0,
        dilation_w: w.dilation.1,
        pad_top,
        pad_left,
    })
}

/// The [`Stream`] of a convolution-like kernel from an NHWC input of shape `i` to an output of
/// shape `out` (int8: a pixel's bytes are its channels) computing `group` pixels together.
pub(in crate::lower::ops) fn window_stream(
    (i, out): (&[usize], &[usize]),
    g: &Geometry,
    group: usize,
) -> Stream {
    Stream {
        batches: i[0],
        input_h: i[1],
        input_w: i[2],
        input_pixel: i[3],
        output_h: out[1],
        output_w: out[2],
        output_pixel: out[3],
        stride_h: g.stride_h,
        stride_w: g.stride_w,
        pad_top: g.pad_top,
        pad_left: g.pad_left,
        window_h: (g.filter_h.max(1) - 1) * g.dilation_h + 1,
        window_w: (g.filter_w.max(1) - 1) * g.dilation_w + 1,
        group,
        reads_first: false,
        reversible: false,
    }
}

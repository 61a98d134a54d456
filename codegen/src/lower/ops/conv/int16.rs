//! The convolutions with int16 activations and int8 weights (TFLM's "16x8"): their 64-bit bias,
//! their multipliers reduced to 16 bits, and the weights laid out for the gathering int16 kernel.

use super::{filter_rows, Inputs};
use crate::error::{Grounds, Result};
use crate::ir::{Activation, DType};
use crate::lower::{Data, OpContext, CONSTANT_SHORTER_THAN_SHAPE};

/// The weights, bias and requantization of a convolution with int16 activations and int8 weights
/// (TFLM's "16x8"): see [`quant_16x8`].
pub(in crate::lower::ops) struct Quant16x8 {
    pub filter: Data<i8>,
    pub bias: Option<Data<i64>>,
    /// Multipliers reduced to 16 bits, as TFLM's 64-bit `MultiplyByQuantizedMultiplier` reduces
    /// them at every call; with `acc32`, the Q31 multipliers.
    pub multipliers: Data<i32>,
    /// Right shifts of the product, `15 - shift`; with `acc32`, TFLM's shifts.
    pub shifts: Data<i8>,
    pub act: (i32, i32),
    /// TFLM's 32-bit sums (CONV_2D with an INT32 bias, widened here, or none where the options
    /// ask for INT32 biases) and its 32-bit `MultiplyByQuantizedMultiplier`.
    pub acc32: bool,
}

/// How a 16x8 convolution's Eval in TFLM reads its bias, which differs per operator.
#[derive(Clone, Copy)]
pub(in crate::lower::ops) enum Bias16x8 {
    /// CONV_2D's: an INT64 bias gives 64-bit sums, an INT32 one 32-bit sums; without a bias the
    /// options' `quantized_bias_type` (if the model has options) decides, INT32 meaning 32-bit
    /// sums.
    ByType(Option<tinyaot_schema::tflite::TensorType>),
    /// TRANSPOSE_CONV's: an INT16 bias is widened; any other is read as INT64.
    WidenInt16,
    /// DEPTHWISE_CONV_2D's: any bias is read as INT64, whatever its declared type.
    Int64,
}

/// Type checks, requantization and activation range of a 16x8 convolution with inputs `at`,
/// `channels` output channels, its bias read as `bias` says.
///
/// TFLM's 16x8 convolutions apply no zero points, so nonzero ones are refused (TFLM would ignore
/// them). A 64-bit bias (or none) gives TFLM's 64-bit sums; for CONV_2D a 32-bit bias, or none
/// where the options ask for 32-bit biases, gives its 32-bit sums and int8-style requantization
/// (`acc32`); a bias TFLM would misread is refused.
pub(in crate::lower::ops) fn quant_16x8(
    ctx: &OpContext,
    at: Inputs,
    (channels, activation): (usize, Activation),
    bias: Bias16x8,
) -> Result<Quant16x8> {
    let (input, filter, output) = (ctx.input(at.input)?, ctx.input(at.filter)?, ctx.output(0)?);
    let filter_index = ctx.constant_input(at.filter, "filter")?;
    ctx.expect_dtype("filter", filter, DType::I8)?;
    ctx.expect_output_dtype("the output", output, DType::I16)?;
    let (s_in, zp_in) = ctx.int16_quant("input", input)?;
    let (s_out, zp_out) = ctx.int16_quant("output", output)?;
    symmetric_16x8(ctx, zp_in, zp_out)?;
    let bias_type = ctx
        .op()
        .input(at.bias)
        .map(|t| ctx.graph().tensors[t].dtype);
    let narrow_sums = match (bias, bias_type) {
        (Bias16x8::Int64, _) => false,
        (_, Some(t)) => t == DType::I32,
        (Bias16x8::ByType(options), None) => {
            options == Some(tinyaot_schema::tflite::TensorType::INT32)
        }
        (Bias16x8::WidenInt16, None) => false,
    };
    if narrow_sums && !matches!(bias, Bias16x8::ByType(_)) {
        // Only TRANSPOSE_CONV gets here (WidenInt16): its Eval reads any bias but an INT16 one
        // as int64_t.
        return Err(bias32_read_as_int64(ctx));
    }
    if let (Bias16x8::Int64, Some(t)) = (bias, bias_type) {
        if t != DType::I64 {
            return Err(ctx.invalid(
                format!(
                    "bias has type {t}: TFLM's int16 kernel reads its bias as INT64 whatever the \
                     declared type, so it would misread this one; supported: an INT64 bias or none"
                ),
                Grounds::undefined(
                    "TFLM's int16 convolution reads its bias as int64_t whatever its \
                     declared type: a narrower bias is read past its end",
                ),
            ));
        }
    }
    let scales = ctx.weight_scales(filter, channels)?;
    let (multipliers, shifts) = ctx.per_channel_multipliers(s_in, &scales, s_out, channels)?;
    let (multipliers, shifts) = if narrow_sums {
        (multipliers, shifts)
    } else {
        reduce_16x8(ctx, &multipliers, &shifts)?
    };
    Ok(Quant16x8 {
        filter: Data::Tensor(filter_index),
        bias: if narrow_sums && bias_type.is_some() {
            // Widened for the kernel, which adds it to the 32-bit sum truncating it back.
            let values = ctx.const_ints("bias", ctx.input(at.bias)?)?;
            ctx.bias::<i32>(at.bias, DType::I32, channels)?;
            Some(Data::Values(values))
        } else if matches!(bias, Bias16x8::WidenInt16) && bias_type == Some(DType::I16) {
            ctx.bias::<i64>(at.bias, DType::I16, channels)?;
            let bytes = ctx.input(at.bias)?.data.as_deref().unwrap_or_default();
            let widened: Vec<i64> = bytes
                .chunks_exact(2)
                .map(|b| i64::from(i16::from_le_bytes([b[0], b[1]])))
                .collect();
            if widened.len() != channels {
                return Err(ctx.invalid(
                    "bias has fewer bytes than its shape needs",
                    Grounds::undefined(CONSTANT_SHORTER_THAN_SHAPE),
                ));
            }
            Some(Data::Values(widened))
        } else {
            ctx.bias(at.bias, DType::I64, channels)?
        },
        multipliers: Data::Values(multipliers),
        shifts: Data::Values(shifts),
        act: ctx.activation_range_s16(activation, s_out, 0)?,
        acc32: narrow_sums,
    })
}

/// Whether the 32-bit sums of a 16x8 kernel are exact: for every output channel `c`, the bound
/// `32768 * abs_weights[c] + |bias[c]|` (`abs_weights[c]` the sum of `|w|` over its window; an
/// int16 input is at most 32768 in magnitude) is at most `i32::MAX`, so that every partial sum of
/// its products, and the whole with the bias, fits 32 bits and equals TFLM's 64-bit sum.
pub(in crate::lower::ops) fn sums_fit_32(
    ctx: &OpContext,
    abs_weights: &[i64],
    bias: Option<&Data<i64>>,
) -> Result<bool> {
    let bias: Vec<i64> = match bias {
        None => Vec::new(),
        Some(Data::Values(v) | Data::Packed(v)) => v.clone(),
        Some(Data::Tensor(t)) => ctx.const_ints("bias", &ctx.graph().tensors[*t])?,
    };
    Ok(abs_weights.iter().enumerate().all(|(c, &a)| {
        let b = bias.get(c).map_or(0, |b| i128::from(*b).abs());
        32768 * i128::from(a) + b <= i128::from(i32::MAX)
    }))
}

/// The refusal of an int16 TRANSPOSE_CONV with an INT32 bias, which TFLM's Eval reads as INT64.
pub(in crate::lower::ops) fn bias32_read_as_int64(ctx: &OpContext) -> crate::error::Error {
    ctx.invalid(
        "int16 input with a 32-bit bias: TFLM reads it as INT64; supported: an INT64 bias, an \
         INT16 bias or none",
        Grounds::undefined(
            "transpose_conv.cc TransposeConvEval reads an int16 TRANSPOSE_CONV's bias that is \
             not INT16 with GetOptionalTensorData<int64_t>: a 32-bit bias is read past its end",
        ),
    )
}

/// The constant int8 filter `filter` with `channels` output channels leading its layout, each
/// channel's row laid out by [`swizzle_quads`] for the 16x8 kernels' DSP loop.
pub(in crate::lower::ops) fn swizzled_filter(
    ctx: &OpContext,
    filter: &crate::ir::Tensor,
    channels: usize,
) -> Result<Data<i8>> {
    let (weights, row) = filter_rows(ctx, filter, channels)?;
    Ok(Data::Packed(swizzle_quads(&weights, row)))
}

/// Rows of `row` weights with each whole group of four stored as its weights 0, 2, 1, 3 (the rest
/// in order): the layout of `conv2d_im2col_s16`'s filter, whose DSP loop sign-extends bytes 0 and 2
/// of a weight word into one pair of lanes and bytes 1 and 3 into the other.
pub(in crate::lower::ops) fn swizzle_quads(weights: &[i8], row: usize) -> Vec<i8> {
    let mut out = weights.to_vec();
    for r in out.chunks_exact_mut(row.max(1)) {
        for q in r.chunks_exact_mut(4) {
            q.swap(1, 2);
        }
    }
    out
}

/// The sum of `|w|` over each row of `row` weights (the bound [`sums_fit_32`] takes).
pub(super) fn abs_rows(weights: &[i8], row: usize) -> Vec<i64> {
    weights
        .chunks(row.max(1))
        .map(|r| r.iter().map(|&w| i64::from(w).abs()).sum())
        .collect()
}

/// Rows of `row` weights by pairs (the last row paired with itself when their count is odd), the
/// layout of `conv2d_1x1_s16`'s filter: per pair, each whole group of four as the first row's four
/// weights stored 0, 2, 1, 3 then the second's likewise (one word of each for its DSP loop), then
/// the first row's remaining `row % 4` weights and the second's.
pub(super) fn pair_quads(weights: &[i8], row: usize) -> Vec<i8> {
    let rows: Vec<&[i8]> = weights.chunks_exact(row.max(1)).collect();
    let mut out = Vec::with_capacity(2 * row * rows.len().div_ceil(2));
    for pair in rows.chunks(2) {
        let pair = [pair[0], pair[pair.len() - 1]];
        for q in 0..row / 4 {
            for r in pair {
                let g = &r[4 * q..][..4];
                out.extend([g[0], g[2], g[1], g[3]]);
            }
        }
        for r in pair {
            out.extend(&r[row - row % 4..]);
        }
    }
    out
}

/// TFLM's `QuantizeMultiplier` results `(multiplier, shift)` as its 64-bit
/// `MultiplyByQuantizedMultiplier` uses them, reduced once at generation time: the multiplier
/// rounded to 16 bits and the shift made the right shift `15 - shift`, which must be at least 1.
pub(in crate::lower::ops) fn reduce_16x8(
    ctx: &OpContext,
    multipliers: &[i32],
    shifts: &[i8],
) -> Result<(Vec<i32>, Vec<i8>)> {
    multipliers
        .iter()
        .zip(shifts)
        .map(|(&m, &shift)| {
            if shift > 14 {
                return Err(ctx.invalid(
                    format!(
                        "input scale * weight scale / output scale is 2^{shift} or more: TFLM's \
                         64-bit requantization shifts by 15 - {shift}, less than 1"
                    ),
                    Grounds::undefined(
                        "common.cc MultiplyByQuantizedMultiplier(int64_t x, ..): total_shift = \
                         15 - shift, then 1 << (total_shift - 1), a negative shift for a shift \
                         above 14 (the shift < 8 it assumes is only a TFLITE_DCHECK)",
                    ),
                ));
            }
            let reduced = if m < 0x7FFF_0000 {
                (m + (1 << 15)) >> 16
            } else {
                0x7FFF
            };
            Ok((reduced, 15 - shift))
        })
        .collect()
}

/// TFLM's 16x8 convolutions apply no zero points: nonzero ones (TFLM would ignore them) are
/// refused.
pub(in crate::lower::ops) fn symmetric_16x8(
    ctx: &OpContext,
    zp_in: i32,
    zp_out: i32,
) -> Result<()> {
    if zp_in != 0 || zp_out != 0 {
        return Err(ctx.invalid(
            format!(
                "int16 input zero point {zp_in} and output zero point {zp_out}: int16 activations \
                 are symmetric (zero point 0)"
            ),
            Grounds::spec(
                "TFLite 16x8 quantization specification: int16 activations are symmetric, zero \
                 point 0 (TFLM's int16 kernels ignore any other)",
            ),
        ));
    }
    Ok(())
}

//! One FlatBuffer tensor → [`ir::Tensor`]: type, static shape, byte size, quantization, data.

use tinyaot_schema::tflite;

use super::buffer::Buffers;
use super::{dtype, text};
use crate::error::{Error, Result};
use crate::ir::{self, DType, Quantization};
use crate::limits::Limits;

/// Converts tensor `index` of the subgraph.
pub(super) fn tensor<'m>(
    index: usize,
    t: tflite::Tensor<'m>,
    buffers: &Buffers<'m>,
    limits: &Limits,
) -> Result<ir::Tensor<'m>> {
    let name = text(t.name_bytes());
    let Some(dtype) = dtype::from_tflite(t.type_()) else {
        return Err(Error::UnsupportedDtype {
            tensor: index,
            name,
            dtype: dtype::name(t.type_()),
        });
    };
    if t.sparsity().is_some() {
        // Sparse constants are stored compressed; the kernels read dense row-major data only.
        return Err(Error::UnsupportedDtype {
            tensor: index,
            name,
            dtype: format!("sparse {dtype}"),
        });
    }
    dynamic(index, &name, t.shape(), t.shape_signature())?;
    let shape = shape(index, &name, t.shape())?;
    // Before the quantization parameters and the data are looked at: nothing this tensor implies
    // is allocated or emitted unless its size fits the limits and the target. The size is
    // computed wide (saturating) so that a size past the host's `usize` is a limit, too.
    let wide = if shape.contains(&0) {
        0
    } else {
        shape
            .iter()
            .try_fold(dtype.size() as u128, |acc, &d| acc.checked_mul(d as u128))
            .unwrap_or(u128::MAX)
    };
    limits.check_tensor_bytes(
        || format!("the size of tensor #{index} {name:?} ({dtype} {shape:?}) in bytes"),
        wide,
    )?;
    let bytes = byte_size(dtype, &shape).ok_or_else(|| Error::Overflow {
        context: format!("byte size of tensor #{index} {name:?} ({dtype} {shape:?})"),
    })?;
    let quant = quantization(index, &name, dtype, t.quantization(), &shape)?;
    let data = data(index, &name, (dtype, t.buffer()), bytes, buffers)?;
    Ok(ir::Tensor {
        name,
        shape,
        dtype,
        quant,
        data: data.map(std::borrow::Cow::Borrowed),
        is_variable: t.is_variable(),
        initial: None,
        bytes,
    })
}

/// A RESOURCE tensor (a resource variable's handle): a placeholder the resource pass
/// (`resource.rs`) takes out of every operator, so that nothing plans, lowers or emits it.
pub(super) fn resource_handle<'m>(t: tflite::Tensor<'m>) -> ir::Tensor<'m> {
    ir::Tensor {
        name: text(t.name_bytes()),
        shape: Vec::new(),
        dtype: DType::I32,
        quant: None,
        data: None,
        is_variable: false,
        initial: None,
        bytes: DType::I32.size(),
    }
}

/// Refuses shapes that are not known before run time.
///
/// The converter writes `shape_signature` -1 for a dimension left open (usually the batch) while
/// `shape` holds the size the model is used at (1). TFLM ignores the signature and runs at
/// `shape`, and so does tinyaot: such tensors load with `shape`. A shape is dynamic when `shape`
/// itself holds -1, or when the signature has -1 and does not even agree with `shape` on the rank.
fn dynamic(
    index: usize,
    name: &str,
    shape: Option<flatbuffers::Vector<'_, i32>>,
    signature: Option<flatbuffers::Vector<'_, i32>>,
) -> Result<()> {
    let rank = shape.map_or(0, |s| s.len());
    let open_in_shape = shape.is_some_and(|s| s.iter().any(|d| d == -1));
    let open_in_signature = signature.is_some_and(|s| s.iter().any(|d| d == -1) && s.len() != rank);
    if open_in_shape || open_in_signature {
        let reported = if open_in_signature { signature } else { shape };
        return Err(Error::DynamicShape {
            tensor: index,
            name: name.to_string(),
            signature: reported.into_iter().flatten().collect(),
        });
    }
    Ok(())
}

/// The static shape; an absent shape is a scalar.
fn shape(
    index: usize,
    name: &str,
    dims: Option<flatbuffers::Vector<'_, i32>>,
) -> Result<Vec<usize>> {
    dims.into_iter()
        .flatten()
        .enumerate()
        .map(|(axis, d)| {
            usize::try_from(d).map_err(|_| Error::Corrupt {
                detail: format!(
                    "tensor #{index} {name:?} has dimension {d} at axis {axis}; dimensions are \
                     never negative"
                ),
            })
        })
        .collect()
}

/// `product(shape) * size(dtype)`, `None` on overflow. Multiplying in shape order from the element
/// size makes every partial product at least the one `Tensor::num_elements` computes, so that
/// later call cannot overflow either.
/// For INT4 (element size 1) the product is the element count, whose packed data takes half as
/// many bytes, rounded up (TFLM's `UnpackDenseInt4IntoInt8` reads an odd count's last element
/// from the low nibble of one more byte).
pub(super) fn byte_size(dtype: DType, shape: &[usize]) -> Option<usize> {
    let bytes = shape
        .iter()
        .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d))?;
    Some(if dtype == DType::I4 {
        bytes.div_ceil(2)
    } else {
        bytes
    })
}

/// Affine quantization parameters, present when the tensor has at least one scale.
fn quantization(
    index: usize,
    name: &str,
    dtype: DType,
    q: Option<tflite::QuantizationParameters<'_>>,
    shape: &[usize],
) -> Result<Option<Quantization>> {
    let Some(q) = q else { return Ok(None) };
    if q.details_type() != tflite::QuantizationDetails::NONE {
        // These schemes replace scale/zero_point; treating the tensor as affine would be wrong.
        let scheme = q.details_type().variant_name().unwrap_or("unknown");
        return Err(Error::UnsupportedDtype {
            tensor: index,
            name: name.to_string(),
            dtype: format!("{dtype} with {scheme} quantization"),
        });
    }
    let scales: Vec<f32> = match q.scale() {
        Some(s) if !s.is_empty() => s.iter().collect(),
        _ => return Ok(None),
    };
    let corrupt = |what: String| Error::Corrupt {
        detail: format!("tensor #{index} {name:?}: {what}"),
    };
    let n = scales.len();
    let zero_points: Vec<i64> = match q.zero_point() {
        Some(z) if z.len() == n => z.iter().collect(),
        // TFLM accepts one zero point for all channels (weights are symmetric, so the converter
        // may store a single 0); it applies it to every channel, and so does the IR.
        Some(z) if z.len() == 1 => {
            let zp = z.iter().next().unwrap_or_default();
            vec![zp; n]
        }
        Some(z) => {
            return Err(corrupt(format!(
                "{n} quantization scales but {} zero points",
                z.len()
            )))
        }
        // TFLite's interpreter refuses scales without zero points.
        None => {
            return Err(corrupt(format!(
                "{n} quantization scales but no zero points"
            )))
        }
    };
    let qd = q.quantized_dimension();
    if n > 1 && dtype == DType::U8 && per_channel_axis(shape, qd, n).is_none() {
        // TFLM's compression tool rewrites a compressed tensor as UINT8 bytes (the packed
        // indices) and leaves the original's per-channel quantization on it; TFLM reads the
        // DECODE output's, never this one, so the scales that no longer fit the shape are dropped.
        return Ok(None);
    }
    let axis = if n > 1 {
        per_channel_axis(shape, qd, n).ok_or_else(|| {
            corrupt(format!(
                "{n} per-channel scales do not match shape {shape:?} along quantized_dimension {qd}"
            ))
        })?
    } else {
        // One scale applies to the whole tensor; the axis is meaningless, keep a valid one.
        usize::try_from(qd)
            .ok()
            .filter(|&a| a < shape.len())
            .unwrap_or(0)
    };
    Ok(Some(Quantization {
        scales,
        zero_points,
        axis,
    }))
}

/// The axis that `n` per-channel scales run along: `quantized_dimension` when it is within the rank
/// and that dimension has `n` entries. Converters copy the filter's `quantized_dimension` (3 for a
/// depthwise filter) onto the rank-1 bias tensor, and TFLM never reads it for biases; so a rank-1
/// tensor with `n` elements takes axis 0 whatever the field says. Lowering can then rely on one
/// scale per index along `axis`.
fn per_channel_axis(shape: &[usize], qd: i32, n: usize) -> Option<usize> {
    let stated = usize::try_from(qd)
        .ok()
        .filter(|&a| shape.get(a) == Some(&n));
    match (stated, shape) {
        (Some(axis), _) => Some(axis),
        (None, [len]) if *len == n => Some(0),
        _ => None,
    }
}

/// The constant contents: `None` for buffer 0 (the sentinel) and for buffers without data.
fn data<'m>(
    index: usize,
    name: &str,
    (dtype, buffer): (DType, u32),
    bytes: usize,
    buffers: &Buffers<'m>,
) -> Result<Option<&'m [u8]>> {
    if buffer == 0 {
        return Ok(None);
    }
    let contents = buffers.contents(buffer, || format!("tensor {index} buffer"))?;
    if contents.is_empty() {
        return Ok(None);
    }
    if contents.len() != bytes {
        // TFLM reads INT4 constants packed; one unpacked byte per element is a converter's or a
        // tool's mistake that TFLM would misread, not a layout it knows.
        let packed = if dtype == DType::I4 {
            " (INT4 data is packed two elements to a byte)"
        } else {
            ""
        };
        return Err(Error::Corrupt {
            detail: format!(
                "tensor #{index} {name:?} needs {bytes} bytes of constant data{packed}, buffer \
                 {buffer} holds {}",
                contents.len()
            ),
        });
    }
    Ok(Some(contents))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_sizes() {
        assert_eq!(byte_size(DType::I8, &[]), Some(1));
        assert_eq!(byte_size(DType::F32, &[1, 96, 96, 1]), Some(36_864));
        assert_eq!(byte_size(DType::I64, &[0, 7]), Some(0));
        assert_eq!(byte_size(DType::F32, &[usize::MAX / 2, 3]), None);
        assert_eq!(byte_size(DType::I8, &[1 << 40, 1 << 40, 0]), None);
    }

    #[test]
    fn per_channel_axes() {
        assert_eq!(per_channel_axis(&[8, 3, 3, 4], 0, 8), Some(0));
        assert_eq!(per_channel_axis(&[1, 3, 3, 8], 3, 8), Some(3));
        // A bias carrying its filter's dimension.
        assert_eq!(per_channel_axis(&[8], 3, 8), Some(0));
        assert_eq!(per_channel_axis(&[8], 0, 4), None);
        assert_eq!(per_channel_axis(&[1, 3, 3, 8], 2, 8), None);
        assert_eq!(per_channel_axis(&[1, 3, 3, 8], -1, 8), None);
        assert_eq!(per_channel_axis(&[], 0, 2), None);
    }
}

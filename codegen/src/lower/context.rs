//! The view one operator's lowering has of the graph, with accessors that turn every unmet
//! expectation into an [`Error::UnsupportedOpUse`] naming the op.

use super::CallKind;
use crate::error::{Error, Result};
use crate::ir::{DType, Graph, Operator, Tensor};

/// One operator and the graph around it.
pub struct OpContext<'g, 'm> {
    graph: &'g Graph<'m>,
    index: usize,
}

impl<'g, 'm> OpContext<'g, 'm> {
    /// The context of operator `index` (which must be in range).
    pub fn new(graph: &'g Graph<'m>, index: usize) -> Self {
        OpContext { graph, index }
    }

    /// The whole graph.
    pub fn graph(&self) -> &'g Graph<'m> {
        self.graph
    }

    /// The operator's index in execution order.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The operator.
    pub fn op(&self) -> &'g Operator {
        &self.graph.operators[self.index]
    }

    /// An [`Error::UnsupportedOpUse`] for this operator.
    pub fn unsupported(&self, reason: impl Into<String>) -> Error {
        Error::UnsupportedOpUse {
            op: self.op().kind.name(),
            index: self.index,
            reason: reason.into(),
        }
    }

    /// The tensor index of input `i`, or an error if it is absent.
    pub fn input_index(&self, i: usize) -> Result<usize> {
        self.op()
            .input(i)
            .ok_or_else(|| self.unsupported(format!("input {i} is missing")))
    }

    /// Input `i`, or an error if it is absent.
    pub fn input(&self, i: usize) -> Result<&'g Tensor<'m>> {
        Ok(&self.graph.tensors[self.input_index(i)?])
    }

    /// Input `i` if present (optional inputs such as a bias).
    pub fn optional_input(&self, i: usize) -> Option<&'g Tensor<'m>> {
        self.op().input(i).map(|t| &self.graph.tensors[t])
    }

    /// The tensor index of output `i`, or an error if it is absent.
    pub fn output_index(&self, i: usize) -> Result<usize> {
        self.op()
            .outputs
            .get(i)
            .copied()
            .ok_or_else(|| self.unsupported(format!("output {i} is missing")))
    }

    /// Output `i`, or an error if it is absent.
    pub fn output(&self, i: usize) -> Result<&'g Tensor<'m>> {
        Ok(&self.graph.tensors[self.output_index(i)?])
    }

    /// Fails unless `tensor` has element type `dtype`.
    pub fn expect_dtype(&self, what: &str, tensor: &Tensor, dtype: DType) -> Result<()> {
        if tensor.dtype == dtype {
            Ok(())
        } else {
            Err(self.unsupported(format!(
                "{what} has type {}, expected {dtype}",
                tensor.dtype
            )))
        }
    }

    /// An [`Error::InvalidModel`] for this operator: the model is one TFLM's `Prepare` refuses,
    /// or one whose result in TFLM is undefined.
    pub fn invalid(&self, reason: impl Into<String>) -> Error {
        Error::InvalidModel {
            detail: format!(
                "operator #{} {}: {}",
                self.index,
                self.op().kind.name(),
                reason.into()
            ),
        }
    }

    /// Fails unless the operator has between `min` and `max` inputs (absent optional inputs
    /// count, as TFLM's `NumInputs` counts them) and exactly `outputs` outputs.
    pub fn expect_arity(&self, min: usize, max: usize, outputs: usize) -> Result<()> {
        let (n_in, n_out) = (self.op().inputs.len(), self.op().outputs.len());
        if n_in < min || n_in > max {
            let expected = if min == max {
                format!("{min}")
            } else if max == usize::MAX {
                format!("at least {min}")
            } else {
                format!("{min} to {max}")
            };
            return Err(self.invalid(format!("{n_in} inputs; the operator takes {expected}")));
        }
        if n_out != outputs {
            return Err(self.invalid(format!("{n_out} outputs; the operator has {outputs}")));
        }
        Ok(())
    }

    /// The per-tensor `(scale, zero_point)` of a quantized activation of type INT8: a scale
    /// that is a positive, finite, normal `f32` and a zero point in the int8 range. Anything else
    /// makes TFLM's Prepare divide by zero, overflow a conversion, or requantize to garbage.
    pub fn int8_quant(&self, what: &str, tensor: &Tensor) -> Result<(f32, i32)> {
        let (scale, zero_point) = self.per_tensor_quant(what, tensor)?;
        if !(-128..=127).contains(&zero_point) {
            return Err(self.invalid(format!(
                "{what} zero point {zero_point} is outside the int8 range [-128, 127]"
            )));
        }
        Ok((scale, zero_point))
    }

    /// Fails unless `scale` is a positive, finite, normal `f32` (zero, negative, NaN, infinite
    /// and denormal scales make TFLM's multipliers meaningless).
    pub fn check_scale(&self, what: &str, scale: f32) -> Result<()> {
        if scale.is_finite() && scale >= f32::MIN_POSITIVE {
            Ok(())
        } else {
            Err(self.invalid(format!(
                "{what} scale {scale:e} is not a positive, finite, normal number"
            )))
        }
    }

    /// TFLM's `QuantizeMultiplier(real)`, refusing what it cannot represent: a ratio of 2^31 or
    /// more needs a left shift of 32 bits or more (TFLM's integer kernels overflow), and a ratio
    /// below 2^-32 quantizes to a multiplier of 0 (every output would be the zero point).
    /// `what` describes the ratio, e.g. "input scale / output scale".
    pub fn multiplier(&self, what: &str, real: f64) -> Result<(i32, i32)> {
        if !real.is_finite() || real <= 0.0 {
            return Err(self.invalid(format!(
                "the rescaling factor {what} = {real:e} is not a positive finite number"
            )));
        }
        let (multiplier, shift) = super::quant::quantize_multiplier(real);
        if shift > 31 {
            return Err(self.invalid(format!(
                "the rescaling factor {what} = {real:e} is 2^31 or more; TFLM's integer kernels \
                 need it below 2^31"
            )));
        }
        if multiplier == 0 {
            return Err(self.invalid(format!(
                "the rescaling factor {what} = {real:e} is below 2^-32: TFLM quantizes it to 0, \
                 so every output would be the zero point"
            )));
        }
        Ok((multiplier, shift))
    }

    /// `zero_point + round(value / scale)` as TFLM's activation-range and RELU6 code computes it,
    /// refusing values whose quotient does not fit in `int32` (the conversion is undefined in C++).
    pub fn quantize_bound(
        &self,
        what: &str,
        value: f32,
        scale: f32,
        zero_point: i32,
    ) -> Result<i32> {
        // In float, as TFLM's `TfLiteRound(f / scale)`.
        let q = f64::from((value / scale).round());
        if !(q >= f64::from(i32::MIN) && q <= f64::from(i32::MAX)) {
            return Err(self.invalid(format!(
                "{what}: {value} / scale {scale:e} = {q:e} does not fit in int32 (TFLM's conversion \
                 is undefined); the scale is too small"
            )));
        }
        Ok(zero_point.saturating_add(q as i32))
    }

    /// The per-tensor `(scale, zero_point)` of `tensor`, or an error if it has none or several.
    /// The scale is checked with [`check_scale`](Self::check_scale); the zero point must fit in
    /// `i32` (callers narrow it to the tensor's type).
    pub fn per_tensor_quant(&self, what: &str, tensor: &Tensor) -> Result<(f32, i32)> {
        match &tensor.quant {
            Some(q) if q.scales.len() == 1 && q.zero_points.len() == 1 => {
                let zp = i32::try_from(q.zero_points[0])
                    .map_err(|_| self.invalid(format!("{what} zero point out of range")))?;
                self.check_scale(what, q.scales[0])?;
                Ok((q.scales[0], zp))
            }
            Some(_) => Err(self.unsupported(format!(
                "{what} is quantized per channel; only per-tensor is supported here"
            ))),
            None => Err(self.unsupported(format!("{what} has no quantization parameters"))),
        }
    }

    /// The step for a reshape-like op: output bytes are the input bytes.
    pub fn alias(&self) -> Result<CallKind> {
        let input = self.input_index(0)?;
        let output = self.output_index(0)?;
        let (i, o) = (&self.graph.tensors[input], &self.graph.tensors[output]);
        if i.bytes != o.bytes || i.dtype != o.dtype {
            return Err(self.unsupported(format!(
                "input and output differ in size or type ({} {} bytes vs {} {} bytes)",
                i.dtype, i.bytes, o.dtype, o.bytes
            )));
        }
        Ok(CallKind::Alias { input, output })
    }
}

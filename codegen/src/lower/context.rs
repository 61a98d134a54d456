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

    /// The per-tensor `(scale, zero_point)` of `tensor`, or an error if it has none or several.
    pub fn per_tensor_quant(&self, what: &str, tensor: &Tensor) -> Result<(f32, i32)> {
        match &tensor.quant {
            Some(q) if q.scales.len() == 1 && q.zero_points.len() == 1 => {
                let zp = i32::try_from(q.zero_points[0])
                    .map_err(|_| self.unsupported(format!("{what} zero point out of range")))?;
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

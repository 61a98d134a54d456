//! The view one operator's lowering has of the graph, with accessors that turn every unmet
//! expectation into an error naming the op: [`Error::UnsupportedOpUse`] for a valid use tinyaot does
//! not support, [`Error::InvalidModel`] for a model TFLM refuses, whose result in TFLM is undefined,
//! or that the TFLite specification forbids (each with its [`Grounds`]).
//!
//! These are the only validation helpers the operator families use (`lower/ops/`), so that a check
//! written once (scale ranges, shift ranges, int8 zero points, fused activation bounds) applies
//! to every op that needs it.

use super::{quant, CallKind, Data, KernelCall, Operand};
use crate::error::{Error, Grounds, Result};
use crate::ir::{Activation, DType, Graph, OpCode, Operator, Tensor};
use crate::load::flexbuffer::{FlexMap, FlexVector};

/// Why an output shape that does not match what the operator computes is undefined in TFLM: its
/// reference kernels compare the shapes only with `TFLITE_DCHECK` (compiled out), size their loops
/// from one of them and so write past the other's end or leave part of the output unwritten.
pub(crate) const SHAPES_CHECKED_ONLY_BY_DCHECK: &str =
    "the reference kernel checks these shapes only with TFLITE_DCHECK (MatchingFlatSize, \
     MatchingDim, NdArrayDescsForElementwiseBroadcast): it writes past the smaller tensor's end or \
     leaves output elements that nothing writes";

/// Why a constant whose buffer is shorter than its shape is invalid. The loader refuses such a
/// buffer as corrupt, so this only guards graphs built in memory.
pub(crate) const CONSTANT_SHORTER_THAN_SHAPE: &str =
    "TFLM reads a constant's elements by its shape: a buffer shorter than the shape needs is read \
     past its end";

/// Why a tensor of more than [`crate::lower::params::MAX_RANK`] dimensions is invalid (the loader
/// refuses them first; this guards graphs built in memory).
pub(crate) const MORE_THAN_SIX_DIMENSIONS: &str =
    "RuntimeShape holds at most 6 dimensions (kMaxSmallSize), guarded only by TFLITE_DCHECK";

/// The specification's clause for tensors of different element types where an operator's
/// signature has one ([`OpContext::same_dtype`]).
pub(crate) const ONE_ELEMENT_TYPE: &str =
    "the operator's TFLite signature gives these tensors one element type (TFLite's kernels check \
     it in Prepare with TF_LITE_ENSURE_TYPES_EQ; where TFLM's do not, they read or write one \
     tensor's bytes as the other's element type, out of bounds or leaving bytes unwritten)";

/// Why custom options TFLM's kernel cannot read whole are invalid.
pub(crate) const FLEXBUFFER_UNCHECKED: &str =
    "TFLM's FlexbufferWrapper (flatbuffer_utils.cc) reads the custom options' root, and the \
     parameter at a fixed index of its vector, with no bounds check: out of bounds";

/// Why custom options TFLM's map reader cannot read whole are invalid.
pub(crate) const FLEXBUFFER_MAP_UNCHECKED: &str =
    "TFLM's kernel reads the custom options with flexbuffers::GetRoot(..).AsMap() and looks its \
     parameters up by key with no bounds check: out of bounds";

/// One operator and the graph around it.
pub(crate) struct OpContext<'g, 'm> {
    graph: &'g Graph<'m>,
    index: usize,
    folding: bool,
}

impl<'g, 'm> OpContext<'g, 'm> {
    /// The context of operator `index` (which must be in range).
    pub fn new(graph: &'g Graph<'m>, index: usize) -> Self {
        OpContext {
            graph,
            index,
            folding: false,
        }
    }

    /// The context of operator `index` lowered to be run at generation time by
    /// [`crate::fold`]: every operand, constants included, is then in the folder's arena, so the
    /// refusals of constant inputs that only the device's layout needs do not apply.
    pub fn for_folding(graph: &'g Graph<'m>, index: usize) -> Self {
        OpContext {
            graph,
            index,
            folding: true,
        }
    }

    /// Whether a constant operand may stand where the kernel reads the arena: only when the call
    /// is run at generation time ([`for_folding`](Self::for_folding)). On the device such an
    /// operator never remains: the folder has computed its outputs.
    pub fn constant_in_arena_ok(&self) -> bool {
        self.folding
    }

    /// The whole graph.
    pub fn graph(&self) -> &'g Graph<'m> {
        self.graph
    }

    /// The operator's index in the model's subgraph, as messages name it
    /// ([`Operator::source_index`]; its position in execution order may differ).
    pub fn index(&self) -> usize {
        self.op().source_index
    }

    /// The operator.
    pub fn op(&self) -> &'g Operator {
        &self.graph.operators[self.index]
    }

    /// An [`Error::UnsupportedOpUse`] for this operator.
    pub fn unsupported(&self, reason: impl Into<String>) -> Error {
        Error::UnsupportedOpUse {
            op: self.op().display_name(),
            index: self.index(),
            reason: reason.into(),
        }
    }

    /// An [`Error::Internal`] naming this operator: a broken invariant of tinyaot's own (what the
    /// loader or an earlier check guarantees), not a fault of the model.
    pub fn internal(&self, detail: impl Into<String>) -> Error {
        Error::Internal {
            detail: format!(
                "operator #{} {}: {}",
                self.index(),
                self.op().display_name(),
                detail.into()
            ),
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

    /// An [`Error::InvalidModel`] for this operator, on `grounds`: TFLM refuses the model (its
    /// `Prepare` or `Eval`), TFLM's result is undefined behaviour, or the TFLite specification
    /// forbids it.
    pub fn invalid(&self, reason: impl Into<String>, grounds: Grounds) -> Error {
        Error::InvalidModel {
            detail: format!(
                "operator #{} {}: {}",
                self.index(),
                self.op().display_name(),
                reason.into()
            ),
            grounds,
        }
    }

    /// Fails unless the operator has between `min` and `max` inputs (absent optional inputs
    /// count, as TFLM's `NumInputs` counts them) and exactly `outputs` outputs (any number for
    /// `usize::MAX`: the lowering checks).
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
            return Err(self.invalid(
                format!("{n_in} inputs; the operator takes {expected}"),
                Grounds::tflm(
                    "the kernel's Prepare: TF_LITE_ENSURE_EQ(NumInputs(node), n) \
                     (kernel_util.h), or its fixed input indices",
                ),
            ));
        }
        if n_out != outputs && outputs != usize::MAX {
            return Err(self.invalid(
                format!("{n_out} outputs; the operator has {outputs}"),
                Grounds::tflm(
                    "the kernel's Prepare: TF_LITE_ENSURE_EQ(NumOutputs(node), n) \
                     (kernel_util.h), or its fixed output indices",
                ),
            ));
        }
        Ok(())
    }

    /// The per-tensor `(scale, zero_point)` of a quantized activation of type INT8: a scale
    /// that is a positive, finite, normal `f32` and a zero point in the int8 range. Anything else
    /// makes TFLM's Prepare divide by zero, overflow a conversion, or requantize to garbage.
    pub fn int8_quant(&self, what: &str, tensor: &Tensor) -> Result<(f32, i32)> {
        let (scale, zero_point) = self.per_tensor_quant(what, tensor)?;
        if !(-128..=127).contains(&zero_point) {
            return Err(self.invalid(
                format!("{what} zero point {zero_point} is outside the int8 range [-128, 127]"),
                Grounds::spec(
                    "TFLite quantization specification: an int8 tensor's zero point is in \
                     [-128, 127]",
                ),
            ));
        }
        Ok((scale, zero_point))
    }

    /// [`int8_quant`](Self::int8_quant) for an int16 tensor: its per-tensor scale and a zero point
    /// within int16.
    pub fn int16_quant(&self, what: &str, tensor: &Tensor) -> Result<(f32, i32)> {
        let (scale, zero_point) = self.per_tensor_quant(what, tensor)?;
        if !(-32768..=32767).contains(&zero_point) {
            return Err(self.invalid(
                format!(
                    "{what} zero point {zero_point} is outside the int16 range [-32768, 32767]"
                ),
                Grounds::spec(
                    "TFLite quantization specification: an int16 tensor's zero point is in \
                     [-32768, 32767]",
                ),
            ));
        }
        Ok((scale, zero_point))
    }

    /// Fails unless `scale` is a positive, finite, normal `f32` (zero, negative, NaN, infinite
    /// and denormal scales make TFLM's multipliers meaningless).
    pub fn check_scale(&self, what: &str, scale: f32) -> Result<()> {
        if scale.is_finite() && scale >= f32::MIN_POSITIVE {
            Ok(())
        } else {
            Err(self.invalid(
                format!("{what} scale {scale:e} is not a positive, finite, normal number"),
                Grounds::spec(
                    "TFLite quantization specification: scales are positive and finite (a \
                     denormal scale's reciprocal, which TFLM's Prepare takes, overflows)",
                ),
            ))
        }
    }

    /// TFLM's `QuantizeMultiplier(real)`. A ratio below 2^-31 quantizes to `(0, 0)` as TFLM's
    /// does (a dead channel of a pruned or batch-norm-folded model: every output of it is the
    /// output zero point, clamped by the activation), a defined result that is compiled. Refused:
    /// a ratio of 2^31 or more, whose left shift of 32 bits or more overflows `int32` in TFLM's
    /// integer kernels (undefined behaviour), and a negative, infinite or NaN ratio, which no
    /// scale the TFLite quantization specification allows (positive, finite) can produce.
    /// `what` describes the ratio, e.g. "input scale / output scale".
    pub fn multiplier(&self, what: &str, real: f64) -> Result<(i32, i32)> {
        if !real.is_finite() || real < 0.0 {
            return Err(self.invalid(
                format!(
                    "the rescaling factor {what} = {real:e} is not a finite number at or above 0 \
                     (the TFLite quantization specification: scales are positive and finite)"
                ),
                Grounds::spec(
                    "TFLite quantization specification: real = scale × (q − zero point), \
                     with a positive, finite scale",
                ),
            ));
        }
        let (multiplier, shift) = super::quant::quantize_multiplier(real);
        if shift > 31 {
            return Err(self.invalid(
                format!(
                "the rescaling factor {what} = {real:e} is 2^31 or more: TFLM's integer kernels \
                 shift left by 32 bits or more, which overflows int32 (undefined behaviour)"
            ),
                Grounds::undefined(
                    "quantization_util.cc QuantizeMultiplier gives a shift of 32 or more, \
                     and MultiplyByQuantizedMultiplier shifts an int32 left by it: signed \
                     overflow",
                ),
            ));
        }
        Ok((multiplier, shift))
    }

    /// TFLM's `QuantizeMultiplierSmallerThanOneExp(real)`, which its kernels call where the
    /// factor must be below 1 (ADD/SUB's, ADD_N's and CUMSUM's int8 rescalings): it aborts
    /// (`TFLITE_CHECK`) unless `0 < real < 1` and the shift it gives is at most 0 (a factor
    /// that rounds up to 1 gives a shift of 1). `ground` names where the kernel calls it.
    pub fn multiplier_below_one(
        &self,
        what: &str,
        real: f64,
        ground: &'static str,
    ) -> Result<(i32, i32)> {
        let refuse = || {
            self.invalid(
                format!("the {what} multiplier {real:e} is not below 1, as TFLM requires"),
                Grounds::tflm(ground),
            )
        };
        if !(real > 0.0 && real < 1.0) {
            return Err(refuse());
        }
        let (multiplier, shift) = self.multiplier(&format!("the {what} rescaling"), real)?;
        if shift > 0 {
            return Err(refuse());
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
            return Err(self.invalid(
                format!(
                    "{what}: {value} / scale {scale:e} = {q:e} does not fit in int32 (TFLM's \
                     conversion is undefined); the scale is too small"
                ),
                Grounds::undefined(
                    "kernel_util.cc CalculateActivationRangeQuantizedImpl converts \
                     TfLiteRound(value / scale) to int32 where it does not fit: a \
                     float-to-int overflow",
                ),
            ));
        }
        Ok(zero_point.saturating_add(q as i32))
    }

    /// The per-tensor `(scale, zero_point)` of `tensor`, or an error if it has none or several.
    /// The scale is checked with [`check_scale`](Self::check_scale); the zero point must fit in
    /// `i32` (callers narrow it to the tensor's type).
    pub fn per_tensor_quant(&self, what: &str, tensor: &Tensor) -> Result<(f32, i32)> {
        match &tensor.quant {
            Some(q) if q.scales.len() == 1 && q.zero_points.len() == 1 => {
                let zp = i32::try_from(q.zero_points[0]).map_err(|_| {
                    self.invalid(
                        format!("{what} zero point out of range"),
                        Grounds::spec(
                            "TFLite quantization specification: a zero point lies in its \
                             tensor type's range (TFLM's TfLiteQuantizationParams holds it as \
                             int32)",
                        ),
                    )
                })?;
                self.check_scale(what, q.scales[0])?;
                Ok((q.scales[0], zp))
            }
            Some(_) => Err(self.unsupported(format!(
                "{what} is quantized per channel; only per-tensor is supported here"
            ))),
            None => Err(self.invalid(
                format!("{what} has no quantization parameters"),
                Grounds::spec(
                    "TFLite quantization specification: a quantized (int8, int16) activation \
                     carries its scale and zero point (TFLM would divide by its scale of 0)",
                ),
            )),
        }
    }

    /// The step for a reshape-like op: output bytes are the input bytes.
    pub fn alias(&self) -> Result<CallKind> {
        let input = self.input_index(0)?;
        let output = self.output_index(0)?;
        let (i, o) = (&self.graph.tensors[input], &self.graph.tensors[output]);
        if i.dtype != o.dtype {
            self.same_dtype("the output", o, i)?;
        }
        if i.bytes != o.bytes {
            let grounds = match self.op().kind.code() {
                Some(OpCode::RESHAPE | OpCode::SQUEEZE | OpCode::EXPAND_DIMS) => Grounds::tflm(
                    "the output holds the input's elements: reshape_common.cc ReshapeOutput \
                     (TF_LITE_ENSURE_EQ(num_input_elements, num_output_elements)), squeeze.cc \
                     SqueezeEval (input and output byte sizes), expand_dims.cc VerifyTensorDim",
                ),
                _ => Grounds::undefined(
                    "the variable's bytes are copied with the input's size into a tensor of \
                     another (out of bounds, or bytes nothing writes)",
                ),
            };
            return Err(self.invalid(
                format!(
                    "input and output differ in size ({} {} bytes vs {} {} bytes)",
                    i.dtype, i.bytes, o.dtype, o.bytes
                ),
                grounds,
            ));
        }
        if i.is_constant() {
            // Folding made the input a constant, and the output is one it could not make (a
            // resource variable, a WHILE's carried tensor): an alias copy reads the arena, so the
            // bytes are copied from flash by the one-input concatenation.
            return Ok(CallKind::Kernel(KernelCall {
                module: "concat",
                function: "concat1",
                operands: vec![Operand::Src(input), Operand::Offset(output)],
                params: Some(
                    crate::lower::params::concat::Concat {
                        outer: 1,
                        chunk_bytes: vec![o.bytes],
                    }
                    .into(),
                ),
                access: Vec::new(),
                stop: None,
            }));
        }
        Ok(CallKind::Alias { input, output })
    }

    /// The kernel flavour of `tensor`: int8 or float32 (never [`Num::I16`]); anything else is
    /// refused.
    pub fn num(&self, what: &str, tensor: &Tensor) -> Result<Num> {
        match tensor.dtype {
            DType::I8 => Ok(Num::I8),
            DType::F32 => Ok(Num::F32),
            other => Err(self.unsupported(format!(
                "{what} has type {other}; only INT8 and FLOAT32 are supported"
            ))),
        }
    }

    /// The kernel flavour of an op from its first input, as [`num`](Self::num) with the wording
    /// the convolution, matrix and curve ops have always used (messages are kept stable).
    pub fn input_num(&self, input: &Tensor) -> Result<Num> {
        match input.dtype {
            DType::I8 => Ok(Num::I8),
            DType::F32 => Ok(Num::F32),
            other => Err(self.unsupported(format!(
                "input type {other} is not supported; supported: INT8 (quantized) and FLOAT32"
            ))),
        }
    }

    /// The kernel flavour of an op whose kernels come in int16 too: [`Num::I16`] for an int16
    /// input, else [`input_num`](Self::input_num)'s.
    pub fn input_num_or_i16(&self, input: &Tensor) -> Result<Num> {
        match input.dtype {
            DType::I16 => Ok(Num::I16),
            _ => self.input_num(input),
        }
    }

    /// The operator as the `.tflite` stores it, for builtin options the loader does not decode into
    /// [`Options`](crate::ir::Options): a lowering reads them directly, e.g.
    /// `ctx.tflite_operator()?.builtin_options_as_svdfoptions()`, with no change to the loader.
    /// The FlatBuffer was verified when the graph was loaded, so its accessors do not panic.
    pub fn tflite_operator(&self) -> Result<tinyaot_schema::tflite::Operator<'m>> {
        let source = match (self.op().branch, self.op().looped) {
            (Some(branch), _) => self.graph.subgraphs.get(branch.subgraph).copied(),
            (None, Some(l)) if l.subgraph != 0 => self.graph.subgraphs.get(l.subgraph).copied(),
            _ => self.graph.source,
        };
        source
            .and_then(|subgraph| subgraph.operators())
            .filter(|operators| self.index() < operators.len())
            .map(|operators| operators.get(self.index()))
            .ok_or_else(|| Error::Internal {
                detail: format!(
                    "operator #{}: the graph was not loaded from a .tflite, so its options \
                     cannot be read",
                    self.index()
                ),
            })
    }

    /// The root vector of this custom operator's FlexBuffer options (`custom_options`), which TFLM
    /// hands its kernel's `Init` as they are; the parameters are read from it with
    /// [`custom_int`](Self::custom_int). Options that are absent, or whose root or elements lie
    /// outside the bytes, are invalid: TFLM's `FlexbufferWrapper` reads them unchecked.
    pub fn custom_options(&self) -> Result<FlexVector<'m>> {
        let bytes = self
            .tflite_operator()?
            .custom_options()
            .map(|v| v.bytes())
            .unwrap_or(&[]);
        FlexVector::root(bytes).map_err(|why| {
            self.invalid(
                format!("{why} (its parameters are a FlexBuffer map)"),
                Grounds::undefined(FLEXBUFFER_UNCHECKED),
            )
        })
    }

    /// The custom options as a FlexBuffer map read by key, as kernels that call
    /// `flexbuffers::GetRoot(..).AsMap()` read them (TFLM's detection_postprocess.cc): refuses
    /// options TFLM would read out of bounds (absent or truncated ones among them).
    pub fn custom_map(&self) -> Result<FlexMap<'m>> {
        let bytes = self
            .tflite_operator()?
            .custom_options()
            .map(|v| v.bytes())
            .unwrap_or(&[]);
        FlexMap::root(bytes).map_err(|why| {
            self.invalid(
                format!("{why} (its parameters are a FlexBuffer map)"),
                Grounds::undefined(FLEXBUFFER_MAP_UNCHECKED),
            )
        })
    }

    /// Parameter `i` (the `i`-th in the alphabetical order of the map's keys; `key` names it in
    /// messages) of the custom options `options`, as an integer of the options' element width, as
    /// TFLM's `FlexbufferWrapper::ElementAsInt64` reads it.
    pub fn custom_int(&self, options: &FlexVector, i: usize, key: &str) -> Result<i64> {
        options.int(i).map_err(|why| {
            self.invalid(
                format!("parameter '{key}': {why}"),
                Grounds::undefined(FLEXBUFFER_UNCHECKED),
            )
        })
    }

    /// Fails unless `tensor` has the same element type as `like`: tensors of one type `T` in the
    /// operator's TFLite signature (an output and its input, two inputs, a padding value and its
    /// data). A mismatch is invalid on the specification's ground ([`ONE_ELEMENT_TYPE`]).
    pub fn same_dtype(&self, what: &str, tensor: &Tensor, like: &Tensor) -> Result<()> {
        self.expect_output_dtype(what, tensor, like.dtype)
    }

    /// Fails unless `output` (or another tensor that the operator's TFLite signature ties to its
    /// input's type, named `what`) has type `dtype`, the one its input's type implies. A mismatch
    /// is invalid on the specification's ground ([`ONE_ELEMENT_TYPE`]): TFLite's signatures
    /// give these tensors one type, and where TFLM does not check it, its kernel reads or writes
    /// one tensor's bytes as the other's element type.
    pub fn expect_output_dtype(&self, what: &str, tensor: &Tensor, dtype: DType) -> Result<()> {
        if tensor.dtype == dtype {
            return Ok(());
        }
        Err(self.invalid(
            format!("{what} has type {}, expected {dtype}", tensor.dtype),
            Grounds::spec(ONE_ELEMENT_TYPE),
        ))
    }

    /// Fails unless `tensor` has a type the data-movement kernels copy (TFLM's lists, less the
    /// types the rest of tinyaot does not handle).
    pub fn movable(&self, what: &str, tensor: &Tensor) -> Result<()> {
        match tensor.dtype {
            DType::I8 | DType::I16 | DType::F32 | DType::I32 => Ok(()),
            other => Err(self.unsupported(format!(
                "{what} has type {other}; INT8, INT16, FLOAT32 and INT32 are supported"
            ))),
        }
    }

    /// Fails unless `tensor` has exactly `rank` dimensions.
    pub fn expect_rank(&self, what: &str, tensor: &Tensor, rank: usize) -> Result<()> {
        if tensor.shape.len() == rank {
            Ok(())
        } else {
            Err(self.unsupported(format!(
                "{what} has shape {:?}; only rank {rank} is supported",
                tensor.shape
            )))
        }
    }

    /// Fails unless `value` fits TFLM's `int16_t` parameter fields (padding, strides, dilations),
    /// where a larger value would wrap and compute something else.
    pub fn fits_i16(&self, what: &str, value: usize) -> Result<()> {
        if value <= i16::MAX as usize {
            Ok(())
        } else {
            Err(self.invalid(
                format!("{what} {value} is above 32767; TFLM stores it as int16 and would wrap"),
                Grounds::undefined(
                    "TFLM narrows it into an int16_t field of ConvParams / PaddingValues: \
                     the value wraps, and the kernel's window no longer matches the output \
                     shape it was sized for",
                ),
            ))
        }
    }

    /// The tensor index of a weights-like input `i` that must be constant (in flash).
    pub fn constant_input(&self, i: usize, what: &str) -> Result<usize> {
        let index = self.input_index(i)?;
        if self.graph.tensors[index].is_constant() {
            Ok(index)
        } else {
            Err(self.unsupported(format!(
                "{what} is computed at run time; only constant {what} is supported"
            )))
        }
    }

    /// The integer contents of a constant INT32 or INT64 tensor (read at generation time).
    pub fn const_ints(&self, what: &str, tensor: &Tensor) -> Result<Vec<i64>> {
        let Some(data) = tensor.data.as_deref() else {
            return Err(self.unsupported(format!(
                "{what} is not a constant tensor; only constant {what} tensors are supported"
            )));
        };
        let n = tensor.num_elements();
        let values: Option<Vec<i64>> = match tensor.dtype {
            DType::I32 => (0..n)
                .map(|i| {
                    let b = data.get(4 * i..4 * i + 4)?;
                    Some(i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                })
                .collect(),
            DType::I64 => (0..n)
                .map(|i| {
                    let b = data.get(8 * i..8 * i + 8)?;
                    Some(i64::from_le_bytes(b.try_into().ok()?))
                })
                .collect(),
            other => {
                return Err(
                    self.unsupported(format!("{what} has type {other}; expected INT32 or INT64"))
                )
            }
        };
        values
            .ok_or_else(|| self.unsupported(format!("{what} has fewer bytes than its shape needs")))
    }

    /// [`const_ints`](Self::const_ints) of a tensor TFLM reads as `int32_t` whatever its declared
    /// type (a permutation, an axis): any other type is refused, since TFLM would read its bytes
    /// as int32 and compute something else.
    pub fn const_int32_tensor(&self, what: &str, tensor: &Tensor) -> Result<Vec<i64>> {
        if tensor.dtype != DType::I32 {
            return Err(self.invalid(
                format!("{what} has type {}; TFLM reads it as INT32", tensor.dtype),
                Grounds::undefined(
                    "TFLM reads the tensor with GetTensorData<int32_t> whatever its type: a \
                     narrower one is read past its end, a wider one as other values",
                ),
            ));
        }
        self.const_ints(what, tensor)
    }

    /// [`const_ints`](Self::const_ints) converted to `i32` (TFLM reads these tensors as int32).
    pub fn const_i32s(&self, what: &str, tensor: &Tensor) -> Result<Vec<i32>> {
        self.const_ints(what, tensor)?
            .into_iter()
            .map(|v| {
                i32::try_from(v)
                    .map_err(|_| self.unsupported(format!("{what} value {v} out of range")))
            })
            .collect()
    }

    /// The optional bias at input `i`: `None`, or a constant of `dtype` with `len` elements.
    pub fn bias<T>(&self, i: usize, dtype: DType, len: usize) -> Result<Option<Data<T>>> {
        let Some(index) = self.op().input(i) else {
            return Ok(None);
        };
        let tensor = &self.graph.tensors[index];
        self.expect_dtype("bias", tensor, dtype)?;
        if !tensor.is_constant() {
            return Err(
                self.unsupported("bias is computed at run time; only a constant bias is supported")
            );
        }
        Ok(self.bias_index(i, dtype, len)?.map(Data::Tensor))
    }

    /// The optional bias at input `i` wherever it is, for the kernels that read it as a `Src`
    /// (TFLM's Eval reads the bias tensor whatever wrote it): `None`, or the index of a tensor of
    /// `dtype` with `len` elements, a constant or computed at run time.
    pub fn bias_index(&self, i: usize, dtype: DType, len: usize) -> Result<Option<usize>> {
        let Some(index) = self.op().input(i) else {
            return Ok(None);
        };
        let tensor = &self.graph.tensors[index];
        self.expect_dtype("bias", tensor, dtype)?;
        if tensor.num_elements() != len {
            return Err(self.unsupported(format!(
                "bias has {} elements, expected one per output channel ({len})",
                tensor.num_elements()
            )));
        }
        Ok(Some(index))
    }

    /// `CalculateActivationRangeQuantized` for an output of range `[qmin, qmax]`, refusing bounds
    /// whose quantized value overflows `int32` (TFLM's Prepare refuses those); TANH and SIGN_BIT,
    /// which it does not name, clamp nothing.
    pub fn activation_range(
        &self,
        activation: Activation,
        scale: f32,
        zp: i32,
        qmin: i32,
        qmax: i32,
    ) -> Result<(i32, i32)> {
        let bound = |value: f32| self.quantize_bound("fused activation bound", value, scale, zp);
        let (lo, hi) = match activation {
            Activation::None => (qmin, qmax),
            Activation::Relu => (qmin.max(bound(0.0)?), qmax),
            Activation::Relu6 => (qmin.max(bound(0.0)?), qmax.min(bound(6.0)?)),
            Activation::ReluN1To1 => (qmin.max(bound(-1.0)?), qmax.min(bound(1.0)?)),
            // CalculateActivationRangeQuantizedImpl names neither: its `else` leaves the
            // type's whole range, so the kernels clamp nothing.
            Activation::Tanh | Activation::SignBit => (qmin, qmax),
        };
        Ok((lo, hi))
    }

    /// [`activation_range`](Self::activation_range) for an int8 output.
    pub fn activation_range_s8(
        &self,
        activation: Activation,
        scale: f32,
        zp: i32,
    ) -> Result<(i32, i32)> {
        self.activation_range(activation, scale, zp, -128, 127)
    }

    /// [`activation_range_s8`](Self::activation_range_s8) for an int16 output.
    pub fn activation_range_s16(
        &self,
        activation: Activation,
        scale: f32,
        zp: i32,
    ) -> Result<(i32, i32)> {
        self.activation_range(activation, scale, zp, -32768, 32767)
    }

    /// The fused activation's float range, or an error for TANH / SIGN_BIT.
    pub fn activation_range_f32(&self, activation: Activation) -> Result<(f32, f32)> {
        quant::activation_range_f32(activation)
            .ok_or_else(|| self.unsupported_activation(activation))
    }

    fn unsupported_activation(&self, activation: Activation) -> Error {
        self.unsupported(format!(
            "fused activation {activation:?} is not supported; supported: NONE, RELU, RELU6, \
             RELU_N1_TO_1"
        ))
    }

    /// Scales of a symmetric int8 weight tensor of a convolution (CONV_2D, DEPTHWISE_CONV_2D,
    /// TRANSPOSE_CONV): one, or one per output channel of `channels`. Fails for other counts or a
    /// non-zero zero point.
    ///
    /// The axis the scales run along is not asked: TFLM's `PopulateConvolutionQuantizationParams`
    /// checks their count against the output channels and against the weights' dimension
    /// `quantized_dimension` (which the loader checked), never that this dimension is the output
    /// channels', and takes scale `c` for output channel `c` whatever the axis.
    pub fn weight_scales(&self, weights: &Tensor, channels: usize) -> Result<Vec<f32>> {
        let scales = self.symmetric_weight_scales(weights)?;
        match scales.len() {
            1 => Ok(scales),
            n if n == channels => Ok(scales),
            n => Err(self.invalid(
                format!(
                    "weights have {n} scales (along dimension {}); TFLM's Prepare takes one, or \
                     one per output channel ({channels})",
                    weights.quant.as_ref().map_or(0, |q| q.axis)
                ),
                Grounds::tflm(
                    "kernel_util.cc PopulateConvolutionQuantizationParams: \
                     TF_LITE_ENSURE_EQ(scale->size, num_channels), the output channels (called \
                     by ConvPrepare, DepthwiseConvPrepare, TransposeConvPrepare)",
                ),
            )),
        }
    }

    /// Scales of a symmetric int8 weight tensor of a FULLY_CONNECTED (or an LSTM's gate, which
    /// TFLM prepares as one) whose kernel reads the first `units` of them: one, or at least
    /// `units` along any dimension. TFLM's `CalculateOpDataFullyConnected` checks only that
    /// their count is the weights' dimension `quantized_dimension` (the loader checked it), and
    /// its per-channel kernel reads multiplier `c` for each output unit `c`: fewer scales than
    /// units are read past the arrays it allocated.
    pub fn fc_weight_scales(&self, weights: &Tensor, units: usize) -> Result<Vec<f32>> {
        let scales = self.symmetric_weight_scales(weights)?;
        match scales.len() {
            n if n == 1 || n >= units => Ok(scales),
            n => Err(self.invalid(
                format!(
                    "weights have {n} scales (along dimension {}), fewer than the {units} units \
                     the output has",
                    weights.quant.as_ref().map_or(0, |q| q.axis)
                ),
                Grounds::undefined(
                    "fully_connected_common.cc CalculateOpDataFullyConnected allocates one \
                     multiplier per scale, and FullyConnectedPerChannel reads one per output \
                     unit: past the array",
                ),
            )),
        }
    }

    /// The scales of a weight tensor, refusing no quantization, a non-zero zero point or a
    /// scale that is not finite and non-negative.
    fn symmetric_weight_scales(&self, weights: &Tensor) -> Result<Vec<f32>> {
        let Some(q) = &weights.quant else {
            return Err(self.unsupported("weights have no quantization parameters"));
        };
        if q.zero_points.iter().any(|&z| z != 0) {
            return Err(self.invalid(
                "weights have a non-zero zero point; int8 weights are symmetric (zero point 0)",
                Grounds::spec(
                    "TFLite quantization specification: int8 weights are symmetric, zero point 0 \
                     (TFLM's integer convolutions ignore any other)",
                ),
            ));
        }
        // A weight scale of 0 (or a denormal one) is what a converter may write for an all-zero
        // channel; TFLM's requantization of it is a multiplier of 0, a defined result.
        for &scale in &q.scales {
            if !(scale.is_finite() && scale >= 0.0) {
                return Err(self.invalid(
                    format!(
                        "weight scale {scale:e} is not a finite number at or above 0 (the TFLite \
                         quantization specification)"
                    ),
                    Grounds::spec(
                        "TFLite quantization specification: real = scale × (q − zero point), \
                         with a positive, finite scale",
                    ),
                ));
            }
        }
        Ok(q.scales.clone())
    }

    /// Per-channel `QuantizeMultiplier((double)s_in * (double)s_w[c] / (double)s_out)`, one per
    /// channel (a single weight scale is repeated), as TFLM's conv and per-channel
    /// fully-connected Prepare do.
    pub fn per_channel_multipliers(
        &self,
        s_in: f32,
        s_w: &[f32],
        s_out: f32,
        channels: usize,
    ) -> Result<(Vec<i32>, Vec<i8>)> {
        (0..channels)
            .map(|c| {
                let s = if s_w.len() == 1 { s_w[0] } else { s_w[c] };
                self.requantization(f64::from(s_in) * f64::from(s) / f64::from(s_out))
            })
            .collect()
    }

    /// [`multiplier`](Self::multiplier) of `input scale * weight scale / output scale`, with the
    /// shift as the `i8` the weighted kernels store.
    pub fn requantization(&self, real: f64) -> Result<(i32, i8)> {
        let (multiplier, shift) =
            self.multiplier("input scale * weight scale / output scale", real)?;
        // `multiplier` keeps the shift within -31..=31.
        let shift = i8::try_from(shift).map_err(|_| {
            self.invalid(
                "requantization shift out of range",
                Grounds::undefined(
                    "quantization_util.cc QuantizeMultiplier gives a shift of 32 or more, \
                     and MultiplyByQuantizedMultiplier shifts an int32 left by it: signed \
                     overflow",
                ),
            )
        })?;
        Ok((multiplier, shift))
    }
}

/// The element types of the kernels that come in one variant for each: int8 and float32 always,
/// int16 for the operators of 16x8 models ([`OpContext::input_num_or_i16`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Num {
    /// Quantized int8 (with int32 biases where there are any).
    I8,
    /// Quantized int16 (the activations of 16x8 models, whose weights are int8).
    I16,
    /// float32.
    F32,
}

//! Structure-aware model generation for fuzzing the whole pipeline (feature `arbitrary`).
//!
//! [`arbitrary_model`] turns fuzzer bytes into a [`ModelSpec`]. Byte-level fuzzing of a `.tflite`
//! rarely gets past the FlatBuffer verifier, and almost never past the loader's consistency
//! checks; generating the *structure* instead means most inputs load, and reach lowering, planning
//! and emission. The generator therefore builds mostly well-typed chains of 1–6 operators over
//! the operators tinyaot lowers (int8 with quantization, or float32, with now and then an int32
//! ADD, SUB, MUL, MAXIMUM or MINIMUM on a side branch; small dimensions), and then
//! applies a few corruptions drawn from the ways real-world hostile or broken models go wrong:
//! wrong arity, mismatched shapes, degenerate scales and zero points, bad options, dangling or
//! self-referencing indices, variable tensors, constants as outputs, a non-empty buffer 0.
//!
//! The mapping is deterministic, so a crash input replays as the same model:
//! `arbitrary_model(&mut Unstructured::new(bytes))`. Running out of bytes is not an error: every
//! choice then takes its first (simplest) option.

use arbitrary::Unstructured;

use crate::{
    Activation, BufferSpec, BuiltinOperator as B, BuiltinOptions, ModelSpec, OpCodeSpec, Options,
    Padding, QuantSpec, TensorData, TensorSpec, TensorType, WeightsFormat,
};

/// The model `bytes` describe (see [`arbitrary_model`]).
pub fn model_from_bytes(bytes: &[u8]) -> ModelSpec {
    arbitrary_model(&mut Unstructured::new(bytes))
}

/// A model drawn from `u`: a chain of 1–6 operators, usually well-typed, sometimes corrupted.
pub fn arbitrary_model(u: &mut Unstructured<'_>) -> ModelSpec {
    let mut g = Gen {
        u,
        m: ModelSpec::new(),
        int8: true,
        values: Vec::new(),
        wide: false,
    };
    g.int8 = g.chance(70);
    let ops = g.int(1, 6);
    let first = g.new_input();
    g.values.push(first);
    for _ in 0..ops {
        g.one_op();
    }
    // The graph outputs: the last value, sometimes another one too.
    if let Some(&last) = g.values.last() {
        g.m.outputs.push(last.index);
    }
    if g.values.len() > 2 && g.chance(20) {
        // Another operator output (never the first value: that is a graph input).
        let i = 1 + g.index(g.values.len() - 1);
        let v = g.values[i];
        if !g.m.outputs.contains(&v.index) {
            g.m.outputs.push(v.index);
        }
    }
    let corruptions = match g.int(0, 9) {
        0..=3 => 0,
        4..=7 => 1,
        8 => 2,
        _ => 4,
    };
    for _ in 0..corruptions {
        g.corrupt();
    }
    g.m
}

/// The overlap model `bytes` describe (see [`overlap_model`]).
pub fn overlap_model_from_bytes(bytes: &[u8]) -> ModelSpec {
    overlap_model(&mut Unstructured::new(bytes))
}

/// A model drawn from `u` for the overlap tests of `tests/parity`: a chain of 1–4 operators,
/// never corrupted, whose kernels declare access contracts (codegen/src/lower/access.rs):
/// convolutions (windows up to 3×3, strides 1–2, SAME or VALID, now and then dilated), 1×1
/// convolutions, FULLY_CONNECTED, depthwise convolutions (depth multiplier 1 or 2), the binary
/// element-wise family, the activations, QUANTIZE and CONCATENATION. Its images are larger than
/// [`arbitrary_model`]'s (up to 11×11 pixels of up to 40 channels, up to 3 batches, odd sizes
/// among them) and its channel counts chosen to reach every variant of those kernels: input
/// channels in whole words or not, output channels in blocks of four (up to 16) or not, and
/// single rows of 32 channels and more into FULLY_CONNECTED. Mostly int8, now and then float32;
/// now and then the element-wise op is an int32 side branch.
pub fn overlap_model(u: &mut Unstructured<'_>) -> ModelSpec {
    let mut g = Gen {
        u,
        m: ModelSpec::new(),
        int8: true,
        values: Vec::new(),
        wide: true,
    };
    g.int8 = g.chance(85);
    let sides = [1, 1, 2, 3, 4, 5, 7, 8, 11];
    let channels = [1, 2, 3, 4, 5, 7, 8, 12, 16, 33, 36, 40];
    let batches = if g.chance(75) { 1 } else { g.int(2, 3) };
    let shape = [batches, g.pick(&sides), g.pick(&sides), g.pick(&channels)];
    let first = g.input(&shape);
    g.values.push(first);
    for _ in 0..g.int(1, 4) {
        match g.int(0, 10) {
            0..=2 => g.image_op(B::CONV_2D, false),
            3 => g.image_op(B::CONV_2D, true),
            4 => {
                // Half the time a single row of whole words: the widened product.
                let v = if g.chance(50) {
                    let depth = g.pick(&[32, 36, 40, 48]);
                    g.input(&[1, depth])
                } else {
                    g.latest()
                };
                g.fully_connected(v);
            }
            5 | 6 => g.image_op(B::DEPTHWISE_CONV_2D, false),
            7 => {
                let op = g.pick(&[B::ADD, B::SUB, B::MUL, B::MAXIMUM, B::MINIMUM, B::PRELU]);
                g.binary(op);
            }
            // Whole rows of its output when the axis is the first (or only ones precede it).
            10 => g.emit(B::CONCATENATION),
            _ => {
                // FLOOR takes float32 only.
                let op = g.pick(&[
                    B::RELU,
                    B::RELU6,
                    B::LEAKY_RELU,
                    B::HARD_SWISH,
                    B::QUANTIZE,
                    B::RSQRT,
                    if g.int8 { B::RELU } else { B::FLOOR },
                ]);
                g.emit(op);
            }
        }
    }
    if let Some(&last) = g.values.last() {
        g.m.outputs.push(last.index);
    }
    g.m
}

/// A tensor the chain can feed into the next operator.
#[derive(Clone, Copy, Debug)]
struct Value {
    index: i32,
}

struct Gen<'u, 'b> {
    u: &'u mut Unstructured<'b>,
    m: ModelSpec,
    /// The model's flavour: int8 with quantization, or float32.
    int8: bool,
    /// Non-constant tensors produced so far (graph inputs and operator outputs).
    values: Vec<Value>,
    /// [`overlap_model`]'s wider channel counts for convolutions and FULLY_CONNECTED.
    wide: bool,
}

/// The operators of tinyaot's registry the generator draws (xtask's `ops` test checks them
/// against the registry).
pub const OPS: &[B] = &[
    B::CONV_2D,
    B::DEPTHWISE_CONV_2D,
    B::FULLY_CONNECTED,
    B::AVERAGE_POOL_2D,
    B::MAX_POOL_2D,
    B::SOFTMAX,
    B::LOGISTIC,
    B::TANH,
    B::ADD,
    B::SUB,
    B::MUL,
    B::MAXIMUM,
    B::MINIMUM,
    B::QUANTIZE,
    B::DEQUANTIZE,
    B::PAD,
    B::PADV2,
    B::MEAN,
    B::CONCATENATION,
    B::PACK,
    B::TRANSPOSE,
    B::STRIDED_SLICE,
    B::RELU,
    B::RELU6,
    B::LEAKY_RELU,
    B::HARD_SWISH,
    B::FLOOR,
    B::RSQRT,
    B::ABS,
    B::NEG,
    B::SQRT,
    B::SQUARE,
    B::PRELU,
    B::ARG_MAX,
    B::ARG_MIN,
    B::RESHAPE,
    B::SQUEEZE,
    B::EXPAND_DIMS,
    B::SPLIT,
    B::SPLIT_V,
    B::SVDF,
];

/// Operators tinyaot does not lower (refused with UnsupportedOp), drawn now and then.
pub const UNSUPPORTED: &[B] = &[B::GATHER, B::CUSTOM];

impl Gen<'_, '_> {
    // --- choices that never fail: out of bytes, the first option is taken ---

    fn int(&mut self, lo: i32, hi: i32) -> i32 {
        self.u.int_in_range(lo..=hi).unwrap_or(lo)
    }

    fn index(&mut self, len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        self.u.choose_index(len).unwrap_or(0)
    }

    /// True with probability about `percent`%; false when out of bytes.
    fn chance(&mut self, percent: u8) -> bool {
        self.u.ratio(percent, 100).unwrap_or(false)
    }

    fn byte(&mut self) -> u8 {
        self.u.arbitrary().unwrap_or(0)
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }

    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.index(xs.len())]
    }

    // --- tensors ---

    fn shape_of(&self, v: Value) -> Vec<i32> {
        self.tensor(v.index)
            .and_then(|t| t.shape.clone())
            .unwrap_or_default()
    }

    fn tensor(&self, i: i32) -> Option<&TensorSpec> {
        usize::try_from(i).ok().and_then(|i| self.m.tensors.get(i))
    }

    fn scale_of(&self, v: Value) -> f32 {
        self.tensor(v.index)
            .and_then(|t| t.quantization.as_ref())
            .and_then(|q| q.scales.first().copied())
            .unwrap_or(1.0)
    }

    fn dtype_of(&self, v: Value) -> TensorType {
        self.tensor(v.index)
            .map_or(TensorType::FLOAT32, |t| t.dtype)
    }

    /// A plausible activation scale.
    fn scale(&mut self) -> f32 {
        self.pick(&[
            0.5,
            0.1,
            0.02,
            1.0 / 256.0,
            1.0 / 128.0,
            0.0625,
            1.0,
            3.0,
            1e-3,
        ])
    }

    fn zero_point(&mut self) -> i64 {
        if self.chance(50) {
            0
        } else {
            i64::from(self.int(-128, 127))
        }
    }

    /// An activation tensor of the model's flavour.
    fn activation(&mut self, shape: &[i32]) -> TensorSpec {
        if self.int8 {
            let (s, z) = (self.scale(), self.zero_point());
            TensorSpec::int8(shape, s, z)
        } else {
            TensorSpec::f32(shape)
        }
    }

    fn dims(&mut self, rank: usize) -> Vec<i32> {
        (0..rank).map(|_| self.int(1, 8)).collect()
    }

    /// A new graph input, mostly rank 4 (what the convolutions and pools need).
    fn new_input(&mut self) -> Value {
        // Mostly rank 4; now and then any rank up to 7 (one past what TFLM handles).
        let rank = if self.chance(60) {
            4
        } else if self.chance(95) {
            self.int(0, 6) as usize
        } else {
            7
        };
        let mut shape = self.dims(rank);
        if rank == 4 && self.chance(70) {
            shape[0] = 1;
        }
        let t = self.activation(&shape);
        let index = self.m.tensor(t);
        self.m.inputs.push(index);
        Value { index }
    }

    /// A new graph input of `shape`, of the model's flavour.
    fn input(&mut self, shape: &[i32]) -> Value {
        let t = self.activation(shape);
        let index = self.m.tensor(t);
        self.m.inputs.push(index);
        Value { index }
    }

    /// A value of rank 4 to feed an image op: the last one when it fits, else a new graph input.
    fn rank4(&mut self) -> Value {
        let v = self.latest();
        if self.shape_of(v).len() == 4 {
            return v;
        }
        loop {
            let v = self.new_input();
            if self.shape_of(v).len() == 4 {
                return v;
            }
        }
    }

    fn latest(&mut self) -> Value {
        // Mostly chain on the last value; sometimes reach back (fan-out, longer lifetimes).
        if self.chance(80) {
            self.values.last().copied().unwrap_or(Value { index: 0 })
        } else {
            self.pick_value()
        }
    }

    fn pick_value(&mut self) -> Value {
        let i = self.index(self.values.len());
        self.values.get(i).copied().unwrap_or(Value { index: 0 })
    }

    fn constant(&mut self, t: TensorSpec) -> i32 {
        self.m.tensor(t)
    }

    /// Constant int8 (now and then INT4) or float32 weights of `shape` with random contents.
    fn weights(&mut self, shape: &[i32], per_channel_axis: Option<i32>) -> TensorSpec {
        let n = elements(shape);
        if self.int8 {
            let data = self.bytes(n);
            // Now and then INT4 (not in the overlap models, whose kernels it does not reach): the
            // same values wrapped into -8..=7 and packed, which TFLM runs as the weights of the
            // convolutions and FULLY_CONNECTED (and tinyaot refuses anywhere else, SVDF's).
            let t = if !self.wide && self.chance(15) {
                let values: Vec<i8> = data.iter().map(|&b| crate::int4::wrap(b as i8)).collect();
                TensorSpec::new(TensorType::INT4, shape).constant(crate::int4::pack(&values))
            } else {
                TensorSpec::new(TensorType::INT8, shape).constant(data)
            };
            match per_channel_axis {
                Some(axis) => {
                    let c = shape.get(axis as usize).copied().unwrap_or(1).max(1) as usize;
                    let scales: Vec<f32> = (0..c).map(|_| self.scale() / 8.0).collect();
                    t.per_channel(&scales, axis)
                }
                None => {
                    let s = self.scale() / 8.0;
                    t.quant(s, 0)
                }
            }
        } else {
            let data: Vec<f32> = (0..n)
                .map(|_| f32::from(self.byte() as i8) / 64.0)
                .collect();
            TensorSpec::f32(shape).constant_f32(&data)
        }
    }

    /// A bias for `weights` on `input`: int32 with scale input × weight scale, or float32.
    fn bias(&mut self, channels: i32, input: Value, weights: &TensorSpec) -> TensorSpec {
        let n = channels.max(0) as usize;
        if self.int8 {
            let in_scale = self.scale_of(input);
            let scales: Vec<f32> = weights
                .quantization
                .as_ref()
                .map(|q| q.scales.iter().map(|s| s * in_scale).collect())
                .unwrap_or_default();
            let data: Vec<i32> = (0..n).map(|_| i32::from(self.byte() as i8) * 16).collect();
            let t = TensorSpec::int32(&[channels]).constant_i32(&data);
            if scales.len() == 1 {
                t.quant(scales[0], 0)
            } else {
                t.per_channel(&scales, 0)
            }
        } else {
            let data: Vec<f32> = (0..n)
                .map(|_| f32::from(self.byte() as i8) / 32.0)
                .collect();
            TensorSpec::f32(&[channels]).constant_f32(&data)
        }
    }

    fn act(&mut self) -> Activation {
        if self.chance(60) {
            Activation::NONE
        } else {
            self.pick(&[
                Activation::RELU,
                Activation::RELU6,
                Activation::RELU_N1_TO_1,
            ])
        }
    }

    fn push_op(&mut self, op: B, options: Options, inputs: &[i32], output: TensorSpec) {
        let out = self.m.tensor(output);
        self.m.op(op, options, inputs, &[out]);
        self.values.push(Value { index: out });
    }

    // --- operators ---

    fn one_op(&mut self) {
        let op = if self.chance(2) {
            self.pick(UNSUPPORTED)
        } else {
            self.pick(OPS)
        };
        self.emit(op);
    }

    /// Appends one `op` to the chain, its shapes and options drawn.
    fn emit(&mut self, op: B) {
        match op {
            B::CONV_2D | B::DEPTHWISE_CONV_2D | B::AVERAGE_POOL_2D | B::MAX_POOL_2D => {
                self.image_op(op, false)
            }
            B::FULLY_CONNECTED => {
                let v = self.latest();
                self.fully_connected(v)
            }
            B::SPLIT | B::SPLIT_V => self.split(op),
            B::SVDF => self.svdf(),
            B::SOFTMAX | B::LOGISTIC | B::TANH => {
                let v = self.latest();
                let shape = self.shape_of(v);
                let out = if self.int8 {
                    let (s, z) = match op {
                        B::TANH => (1.0 / 128.0, 0),
                        _ => (1.0 / 256.0, -128),
                    };
                    TensorSpec::int8(&shape, s, z)
                } else {
                    TensorSpec::f32(&shape)
                };
                let options = match op {
                    B::SOFTMAX => Options::Softmax {
                        beta: self.pick(&[1.0, 0.5, 2.0, 1e-3]),
                    },
                    _ => Options::None,
                };
                self.push_op(op, options, &[v.index], out);
            }
            B::ADD | B::SUB | B::MUL | B::MAXIMUM | B::MINIMUM | B::PRELU => self.binary(op),
            B::QUANTIZE | B::DEQUANTIZE => {
                let v = self.latest();
                // DEQUANTIZE takes int8 only; on a float value, QUANTIZE instead.
                let op = if self.dtype_of(v) == TensorType::INT8 {
                    op
                } else {
                    B::QUANTIZE
                };
                let shape = self.shape_of(v);
                let input_int8 = self.dtype_of(v) == TensorType::INT8;
                let out = if op == B::DEQUANTIZE || (op == B::QUANTIZE && !input_int8) {
                    // DEQUANTIZE int8→float; QUANTIZE float→int8.
                    if op == B::DEQUANTIZE {
                        TensorSpec::f32(&shape)
                    } else {
                        let (s, z) = (self.scale(), self.zero_point());
                        TensorSpec::int8(&shape, s, z)
                    }
                } else {
                    // QUANTIZE int8→int8: a requantization.
                    let (s, z) = (self.scale(), self.zero_point());
                    TensorSpec::int8(&shape, s, z)
                };
                let options = Options::default_for(op);
                let out_int8 = out.dtype == TensorType::INT8;
                self.push_op(op, options, &[v.index], out);
                // The chain continues in the output's flavour.
                self.int8 = out_int8;
            }
            B::PAD | B::PADV2 => {
                let v = self.latest();
                let shape = self.shape_of(v);
                let mut pads = Vec::new();
                let mut out = Vec::new();
                for d in &shape {
                    let (a, b) = (self.int(0, 2), self.int(0, 2));
                    pads.extend([a, b]);
                    out.push(d + a + b);
                }
                let rank = shape.len() as i32;
                let p = self.constant(TensorSpec::int32(&[rank, 2]).constant_i32(&pads));
                let out_t = self.same_quant(v, &out);
                let mut inputs = vec![v.index, p];
                if op == B::PADV2 {
                    let value = self.same_quant(v, &[]);
                    let bytes = if self.int8 { 1 } else { 4 };
                    let data = self.bytes(bytes);
                    inputs.push(self.constant(value.constant(data)));
                }
                self.push_op(op, Options::default_for(op), &inputs, out_t);
            }
            B::MEAN => {
                let v = self.latest();
                let shape = self.shape_of(v);
                let keep_dims = self.chance(70);
                let axes: Vec<i32> = if shape.len() == 4 && self.chance(70) {
                    vec![1, 2]
                } else if shape.is_empty() {
                    vec![0]
                } else {
                    vec![self.int(0, shape.len() as i32 - 1)]
                };
                let out: Vec<i32> = shape
                    .iter()
                    .enumerate()
                    .filter_map(|(i, &d)| match axes.contains(&(i as i32)) {
                        true if keep_dims => Some(1),
                        true => None,
                        false => Some(d),
                    })
                    .collect();
                let a = self.constant(TensorSpec::int32(&[axes.len() as i32]).constant_i32(&axes));
                let out_t = self.activation(&out);
                self.push_op(op, Options::Reducer { keep_dims }, &[v.index, a], out_t);
            }
            B::CONCATENATION => {
                let v = self.latest();
                let shape = self.shape_of(v);
                let rank = shape.len() as i32;
                let axis = if rank == 0 {
                    0
                } else {
                    self.int(-rank, rank - 1)
                };
                let a = if axis < 0 { axis + rank } else { axis } as usize;
                let mut other_shape = shape.clone();
                if let Some(d) = other_shape.get_mut(a) {
                    *d = self.int(1, 4);
                }
                // TFLM's int8 CONCATENATION needs every input at the output's scale and zero point.
                let other = self.same_quant(v, &other_shape);
                let other = if self.chance(50) {
                    let data = self.bytes(elements(&other_shape) * if self.int8 { 1 } else { 4 });
                    self.constant(other.constant(data))
                } else {
                    let i = self.m.tensor(other);
                    self.m.inputs.push(i);
                    i
                };
                let mut out = shape.clone();
                if let (Some(d), Some(e)) = (out.get_mut(a), other_shape.get(a)) {
                    *d += e;
                }
                let out_t = self.same_quant(v, &out);
                let act = Activation::NONE;
                self.push_op(
                    op,
                    Options::Concatenation {
                        axis,
                        activation: act,
                    },
                    &[v.index, other],
                    out_t,
                );
            }
            B::PACK => {
                // The latest tensor and a constant or a new input of its shape, stacked along a
                // new axis (all operands constant at times: the folder's part).
                let v = self.latest();
                let shape = self.shape_of(v);
                let rank = shape.len() as i32;
                let axis = self.int(-(rank + 1), rank);
                let a = if axis < 0 { axis + rank + 1 } else { axis } as usize;
                let other = self.same_quant(v, &shape);
                let other = if self.chance(50) {
                    let data = self.bytes(elements(&shape) * if self.int8 { 1 } else { 4 });
                    self.constant(other.constant(data))
                } else {
                    let i = self.m.tensor(other);
                    self.m.inputs.push(i);
                    i
                };
                let mut out = shape.clone();
                out.insert(a.min(out.len()), 2);
                let out_t = self.same_quant(v, &out);
                self.push_op(
                    op,
                    Options::Pack {
                        values_count: 2,
                        axis,
                    },
                    &[v.index, other],
                    out_t,
                );
            }
            B::TRANSPOSE => {
                let v = self.latest();
                let shape = self.shape_of(v);
                let mut perm: Vec<i32> = (0..shape.len() as i32).collect();
                // A random permutation (Fisher–Yates).
                for i in (1..perm.len()).rev() {
                    let j = self.index(i + 1);
                    perm.swap(i, j);
                }
                let out: Vec<i32> = perm.iter().map(|&p| shape[p as usize]).collect();
                let p = self.constant(TensorSpec::int32(&[perm.len() as i32]).constant_i32(&perm));
                let out_t = self.same_quant(v, &out);
                self.push_op(op, Options::Transpose, &[v.index, p], out_t);
            }
            B::STRIDED_SLICE => {
                let v = self.latest();
                let shape = self.shape_of(v);
                let (mut begin, mut end, mut strides, mut out) = (vec![], vec![], vec![], vec![]);
                for &d in &shape {
                    let b = self.int(0, d - 1);
                    let e = self.int(b + 1, d);
                    let s = self.int(1, 2);
                    begin.push(b);
                    end.push(e);
                    strides.push(s);
                    out.push((e - b + s - 1) / s);
                }
                let r = shape.len() as i32;
                let b = self.constant(TensorSpec::int32(&[r]).constant_i32(&begin));
                let e = self.constant(TensorSpec::int32(&[r]).constant_i32(&end));
                let s = self.constant(TensorSpec::int32(&[r]).constant_i32(&strides));
                let out_t = self.same_quant(v, &out);
                self.push_op(op, Options::default_for(op), &[v.index, b, e, s], out_t);
            }
            B::RELU
            | B::RELU6
            | B::LEAKY_RELU
            | B::HARD_SWISH
            | B::FLOOR
            | B::RSQRT
            | B::ABS
            | B::NEG
            | B::SQRT
            | B::SQUARE => {
                let v = self.latest();
                let shape = self.shape_of(v);
                let out = self.activation(&shape);
                let options = match op {
                    B::LEAKY_RELU => Options::LeakyRelu {
                        alpha: self.pick(&[0.2, 0.01, 1.0, -0.5, 3.0]),
                    },
                    _ => Options::default_for(op),
                };
                self.push_op(op, options, &[v.index], out);
            }
            B::ARG_MAX | B::ARG_MIN => {
                let v = self.latest();
                let shape = self.shape_of(v);
                let rank = shape.len() as i32;
                let axis = self.int(-rank.max(1), (rank - 1).max(0));
                let a = if axis < 0 { axis + rank } else { axis };
                let mut out = shape.clone();
                if (0..rank).contains(&a) {
                    out.remove(a as usize);
                }
                let axis = self.constant(TensorSpec::int32(&[1]).constant_i32(&[axis]));
                // Indices are INT32 whatever the input: later operators of the chain mostly
                // refuse them, which the refusal paths need too.
                self.push_op(op, Options::None, &[v.index, axis], TensorSpec::int32(&out));
            }
            B::RESHAPE => {
                let v = self.latest();
                let shape = self.shape_of(v);
                let n = elements(&shape) as i32;
                let new: Vec<i32> = match self.int(0, 3) {
                    0 => vec![n],
                    1 => vec![1, n],
                    2 => vec![1, -1],
                    _ => vec![n, 1, 1],
                };
                let out: Vec<i32> = new.iter().map(|&d| if d == -1 { n } else { d }).collect();
                let s = self.constant(TensorSpec::int32(&[new.len() as i32]).constant_i32(&new));
                let out_t = self.same_quant(v, &out);
                let options = if self.chance(50) {
                    Options::Reshape {
                        new_shape: Some(new.clone()),
                    }
                } else {
                    Options::Reshape { new_shape: None }
                };
                let inputs: Vec<i32> = if self.chance(80) {
                    vec![v.index, s]
                } else {
                    vec![v.index]
                };
                self.push_op(op, options, &inputs, out_t);
            }
            B::SQUEEZE => {
                let v = self.latest();
                let shape = self.shape_of(v);
                let out: Vec<i32> = shape.iter().copied().filter(|&d| d != 1).collect();
                let out_t = self.same_quant(v, &out);
                self.push_op(op, Options::default_for(op), &[v.index], out_t);
            }
            B::EXPAND_DIMS => {
                let v = self.latest();
                let mut shape = self.shape_of(v);
                let axis = self.int(0, shape.len() as i32);
                shape.insert(axis as usize, 1);
                let a = self.constant(TensorSpec::int32(&[1]).constant_i32(&[axis]));
                let out_t = self.same_quant(v, &shape);
                self.push_op(op, Options::ExpandDims, &[v.index, a], out_t);
            }
            _ => {
                // An unsupported operator: GATHER or a CUSTOM one.
                let v = self.latest();
                let shape = self.shape_of(v);
                let out_t = self.same_quant(v, &shape);
                if op == B::CUSTOM {
                    let code = self.m.push_opcode(OpCodeSpec::custom("Fuzz"));
                    let out = self.m.tensor(out_t);
                    self.m.operators.push(crate::OpSpec {
                        opcode_index: code,
                        inputs: vec![v.index],
                        outputs: vec![out],
                        intermediates: Vec::new(),
                        options: Options::None,
                        custom_options: Some(vec![1, 2, 3]),
                    });
                    self.values.push(Value { index: out });
                } else {
                    self.push_op(op, Options::None, &[v.index], out_t);
                }
            }
        }
    }

    /// A tensor like `v` (same dtype and quantization) with another shape.
    fn same_quant(&self, v: Value, shape: &[i32]) -> TensorSpec {
        let mut t = self
            .tensor(v.index)
            .cloned()
            .unwrap_or_else(|| TensorSpec::f32(shape));
        t.shape = Some(shape.to_vec());
        t.shape_signature = None;
        t.data = TensorData::Buffer(0);
        t.name = None;
        t.is_variable = false;
        t
    }

    /// A convolution, depthwise convolution or pool on a rank-4 value; `pointwise`: a 1×1
    /// window with stride 1 (a matrix product).
    fn image_op(&mut self, op: B, pointwise: bool) {
        let v = self.rank4();
        let shape = self.shape_of(v);
        let (n, h, w, c) = (shape[0], shape[1], shape[2], shape[3]);
        let padding = if self.chance(50) {
            Padding::SAME
        } else {
            Padding::VALID
        };
        let (sw, sh) = if pointwise {
            (1, 1)
        } else {
            (self.int(1, 2), self.int(1, 2))
        };
        // VALID padding needs the window to fit the input.
        let (kh, kw) = if pointwise {
            (1, 1)
        } else {
            (self.int(1, h.clamp(1, 3)), self.int(1, w.clamp(1, 3)))
        };
        let (dw, dh) = if pointwise {
            (1, 1)
        } else if op == B::CONV_2D || op == B::DEPTHWISE_CONV_2D {
            if self.chance(80) {
                (1, 1)
            } else {
                (self.int(1, 2), self.int(1, 2))
            }
        } else {
            (1, 1)
        };
        // A dilated window that no longer fits the input is left to the corruptions.
        let dw = if (kw - 1) * dw + 1 > w { 1 } else { dw };
        let dh = if (kh - 1) * dh + 1 > h { 1 } else { dh };
        let out_dim = |d: i32, k: i32, s: i32, dil: i32| match padding {
            Padding::SAME => (d + s - 1) / s,
            _ => ((d - (k - 1) * dil - 1) / s + 1).max(1),
        };
        let (oh, ow) = (out_dim(h, kh, sh, dh), out_dim(w, kw, sw, dw));
        let act = self.act();
        match op {
            B::CONV_2D => {
                let o = self.outputs();
                let f = self.weights(&[o, kh, kw, c], Some(0));
                let b = self.bias(o, v, &f);
                let fi = self.constant(f);
                let has_bias = self.chance(85);
                let mut inputs = vec![v.index, fi];
                if has_bias {
                    let bi = self.constant(b);
                    inputs.push(bi);
                } else if self.chance(50) {
                    inputs.push(-1);
                }
                let out = self.activation(&[n, oh, ow, o]);
                let options = Options::Conv2D {
                    padding,
                    stride_w: sw,
                    stride_h: sh,
                    dilation_w: dw,
                    dilation_h: dh,
                    activation: act,
                };
                self.push_op(op, options, &inputs, out);
            }
            B::DEPTHWISE_CONV_2D => {
                let mult = self.int(1, 2);
                let o = c * mult;
                let f = self.weights(&[1, kh, kw, o], Some(3));
                let b = self.bias(o, v, &f);
                let fi = self.constant(f);
                let bi = self.constant(b);
                let out = self.activation(&[n, oh, ow, o]);
                let options = Options::DepthwiseConv2D {
                    padding,
                    stride_w: sw,
                    stride_h: sh,
                    depth_multiplier: mult,
                    dilation_w: dw,
                    dilation_h: dh,
                    activation: act,
                };
                self.push_op(op, options, &[v.index, fi, bi], out);
            }
            _ => {
                let out = self.same_quant(v, &[n, oh, ow, c]);
                let options = Options::pool(padding, (sw, sh), (kw, kh), act);
                self.push_op(op, options, &[v.index], out);
            }
        }
    }

    /// Output channels of a convolution or FULLY_CONNECTED: 1 to 8, or with `wide` also 12 and
    /// 16 (blocks of four beyond two).
    fn outputs(&mut self) -> i32 {
        if self.wide {
            self.pick(&[1, 3, 4, 8, 12, 16])
        } else {
            self.int(1, 8)
        }
    }

    fn fully_connected(&mut self, v: Value) {
        let shape = self.shape_of(v);
        let d = shape.last().copied().unwrap_or(1);
        let batch = elements(&shape) as i32 / d.max(1);
        let units = self.outputs();
        let f = self.weights(&[units, d], None);
        let b = self.bias(units, v, &f);
        let keep_num_dims = self.chance(20);
        let fi = self.constant(f);
        let mut inputs = vec![v.index, fi];
        if self.chance(80) {
            let bi = self.constant(b);
            inputs.push(bi);
        }
        let out_shape = if keep_num_dims && !shape.is_empty() {
            let mut s = shape.clone();
            if let Some(l) = s.last_mut() {
                *l = units;
            }
            s
        } else {
            vec![batch, units]
        };
        let out = self.activation(&out_shape);
        let act = self.act();
        let options = Options::FullyConnected {
            activation: act,
            weights_format: WeightsFormat::DEFAULT,
            keep_num_dims,
        };
        self.push_op(B::FULLY_CONNECTED, options, &inputs, out);
    }

    /// SPLIT (axis a constant input before the data) or SPLIT_V (sizes, one of them now and then
    /// -1, and the axis after the data), into 1 to 4 outputs along a random axis.
    fn split(&mut self, op: B) {
        let v = self.latest();
        let shape = self.shape_of(v);
        let rank = shape.len() as i32;
        if rank == 0 {
            return;
        }
        let axis = self.int(-rank, rank - 1);
        let a = if axis < 0 { axis + rank } else { axis } as usize;
        let d = shape[a];
        let sizes: Vec<i32> = if op == B::SPLIT {
            // Equal parts: a divisor of the dimension (now and then not one, which is refused;
            // its outputs still get a dimension of at least 1, for the operators drawn after it).
            let n = self.int(1, 4);
            let n = if d % n == 0 || self.chance(10) { n } else { 1 };
            vec![(d / n).max(1); n as usize]
        } else {
            let mut left = d;
            let mut sizes = Vec::new();
            while left > 0 && sizes.len() < 3 {
                let s = self.int(1, left);
                sizes.push(s);
                left -= s;
            }
            if left > 0 {
                sizes.push(left);
            }
            if sizes.len() > 1 && self.chance(30) {
                let i = self.index(sizes.len());
                sizes[i] = -1;
            }
            sizes
        };
        let axis_t = self.constant(TensorSpec::int32(&[]).constant_i32(&[axis]));
        let num_splits = sizes.len() as i32;
        let inputs = if op == B::SPLIT {
            vec![axis_t, v.index]
        } else {
            let s = self.constant(TensorSpec::int32(&[num_splits]).constant_i32(&sizes));
            vec![v.index, s, axis_t]
        };
        let total: i32 = sizes.iter().filter(|&&s| s >= 0).sum();
        let mut outputs = Vec::new();
        for &size in &sizes {
            let mut out = shape.clone();
            out[a] = if size < 0 { d - total } else { size };
            let t = self.same_quant(v, &out);
            outputs.push(self.m.tensor(t));
        }
        let options = if op == B::SPLIT {
            Options::Split { num_splits }
        } else {
            Options::SplitV { num_splits }
        };
        self.m.op(op, options, &inputs, &outputs);
        for &index in &outputs {
            self.values.push(Value { index });
        }
    }

    /// SVDF on a [batches, input size] value: int8 with an int16 state and time weights (bias
    /// scale = state scale × time weight scale, as TFLM requires), or float32, with its state a
    /// variable tensor.
    fn svdf(&mut self) {
        let v = self.latest();
        let shape = self.shape_of(v);
        let batches = shape.first().copied().unwrap_or(1).max(1);
        let input_size = elements(&shape) as i32 / batches;
        let flat = vec![batches, input_size.max(1)];
        let input = if shape.len() == 2 {
            v
        } else {
            let out = self.same_quant(v, &flat);
            let s = self.constant(TensorSpec::int32(&[2]).constant_i32(&flat));
            self.push_op(
                B::RESHAPE,
                Options::Reshape { new_shape: None },
                &[v.index, s],
                out,
            );
            self.values.last().copied().unwrap_or(v)
        };
        let (units, rank, memory) = (self.int(1, 4), self.int(1, 2), self.int(1, 4));
        let filters = units * rank;
        let feature = self.weights(&[filters, flat[1]], None);
        let feature = self.constant(feature);
        let (time, state, bias) = if self.int8 {
            let (state_scale, time_scale) = (self.scale() / 16.0, self.scale() / 64.0);
            let data = self.bytes(2 * (filters * memory) as usize);
            let time = TensorSpec::new(TensorType::INT16, &[filters, memory])
                .constant(data)
                .quant(time_scale, 0);
            let state = TensorSpec::new(TensorType::INT16, &[batches, filters * memory])
                .quant(state_scale, 0)
                .variable();
            let data: Vec<i32> = (0..units)
                .map(|_| i32::from(self.byte() as i8) * 64)
                .collect();
            let bias = TensorSpec::int32(&[units])
                .constant_i32(&data)
                .quant(state_scale * time_scale, 0);
            (time, state, bias)
        } else {
            let time = self.weights(&[filters, memory], None);
            let state = TensorSpec::f32(&[batches, filters * memory]).variable();
            let data: Vec<f32> = (0..units)
                .map(|_| f32::from(self.byte() as i8) / 32.0)
                .collect();
            (time, state, TensorSpec::f32(&[units]).constant_f32(&data))
        };
        let (time, state, bias) = (
            self.constant(time),
            self.m.tensor(state),
            self.constant(bias),
        );
        let out = self.activation(&[batches, units]);
        let activation = if self.chance(50) {
            Activation::RELU
        } else {
            Activation::NONE
        };
        self.push_op(
            B::SVDF,
            Options::Svdf { rank, activation },
            &[input.index, feature, time, bias, state],
            out,
        );
    }

    fn binary(&mut self, op: B) {
        let v = self.latest();
        // Now and then TFLM's unquantized int32 arithmetic, on a new int32 input of the latest
        // value's shape: a side branch whose result is a graph output, so that the chain goes on
        // in the model's flavour.
        let side = self.chance(10);
        let v = if side {
            let index = self.m.tensor(TensorSpec::int32(&self.shape_of(v)));
            self.m.inputs.push(index);
            Value { index }
        } else {
            v
        };
        let int32 = self.dtype_of(v) == TensorType::INT32;
        let shape = self.shape_of(v);
        // The other operand: same shape, or broadcast (some dimensions 1, or lower rank).
        let other_shape: Vec<i32> = match self.int(0, 2) {
            0 => shape.clone(),
            1 => {
                let mut s = shape.clone();
                for d in s.iter_mut() {
                    if self.chance(50) {
                        *d = 1;
                    }
                }
                s
            }
            _ => {
                let keep = self.index(shape.len() + 1);
                shape[shape.len() - keep..].to_vec()
            }
        };
        let like_v = int32 || !self.int8 || op == B::MAXIMUM || op == B::MINIMUM;
        let other = if like_v {
            self.same_quant(v, &other_shape)
        } else {
            self.activation(&other_shape)
        };
        let other = if self.chance(60) {
            let size = if self.int8 && !int32 { 1 } else { 4 };
            let data = self.bytes(elements(&other_shape) * size);
            self.constant(other.constant(data))
        } else {
            let i = self.m.tensor(other);
            self.m.inputs.push(i);
            i
        };
        let out = if int32 || op == B::MAXIMUM || op == B::MINIMUM {
            self.same_quant(v, &shape)
        } else {
            self.activation(&shape)
        };
        let activation = self.act();
        let options = match op {
            B::ADD => Options::Add { activation },
            B::SUB => Options::Sub { activation },
            B::MUL => Options::Mul { activation },
            B::PRELU => Options::None,
            _ => Options::MaximumMinimum,
        };
        let inputs = if self.chance(15) {
            [other, v.index]
        } else {
            [v.index, other]
        };
        self.push_op(op, options, &inputs, out);
        if side {
            if let Some(out) = self.values.pop() {
                self.m.outputs.push(out.index);
            }
        }
    }

    // --- corruptions ---

    fn any_tensor(&mut self) -> usize {
        self.index(self.m.tensors.len())
    }

    fn any_op(&mut self) -> usize {
        self.index(self.m.operators.len())
    }

    /// A hostile index: dangling, negative, or another tensor.
    fn bad_index(&mut self) -> i32 {
        let n = self.m.tensors.len() as i32;
        match self.int(0, 4) {
            0 => n,
            1 => n + self.int(1, 1000),
            2 => -1,
            3 => self.pick(&[i32::MIN, i32::MAX, -2]),
            _ => self.int(0, n.max(1) - 1),
        }
    }

    /// A hostile scale.
    fn bad_scale(&mut self) -> f32 {
        self.pick(&[
            0.0,
            -0.0,
            -0.5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1e-45,
            f32::MIN_POSITIVE,
            1e-30,
            1e30,
            f32::MAX,
            65536.0,
            1e-12,
        ])
    }

    fn corrupt(&mut self) {
        if self.m.tensors.is_empty() || self.m.operators.is_empty() {
            return;
        }
        match self.int(0, 27) {
            // Operator arity and wiring.
            0 => {
                let o = self.any_op();
                self.m.operators[o].inputs.pop();
            }
            1 => {
                let o = self.any_op();
                let i = self.bad_index();
                self.m.operators[o].inputs.push(i);
            }
            2 => {
                let o = self.any_op();
                let i = self.bad_index();
                let ins = &mut self.m.operators[o].inputs;
                if !ins.is_empty() {
                    let k = self.u.choose_index(ins.len()).unwrap_or(0);
                    ins[k] = i;
                }
            }
            3 => {
                // An operator reading its own output.
                let o = self.any_op();
                let op = &mut self.m.operators[o];
                if let (Some(&out), Some(first)) = (op.outputs.first(), op.inputs.first_mut()) {
                    *first = out;
                }
            }
            4 => {
                let o = self.any_op();
                match self.int(0, 2) {
                    0 => self.m.operators[o].outputs.clear(),
                    1 => {
                        let i = self.bad_index();
                        self.m.operators[o].outputs.push(i);
                    }
                    _ => {
                        let i = self.bad_index();
                        if let Some(out) = self.m.operators[o].outputs.first_mut() {
                            *out = i;
                        }
                    }
                }
            }
            // Shapes.
            5 | 6 => {
                let t = self.any_tensor();
                let bad = self.pick(&[0, -1, -7, 9, 64, 1000, 1 << 20, i32::MAX]);
                if let Some(s) = self.m.tensors[t].shape.as_mut() {
                    if !s.is_empty() {
                        let k = self.u.choose_index(s.len()).unwrap_or(0);
                        s[k] = bad;
                    }
                }
            }
            7 => {
                let t = self.any_tensor();
                let rank = self.int(0, 9) as usize;
                let shape = self.dims(rank);
                self.m.tensors[t].shape = if self.chance(10) { None } else { Some(shape) };
            }
            8 => {
                let t = self.any_tensor();
                let mut sig = self.m.tensors[t].shape.clone().unwrap_or_default();
                if let Some(d) = sig.first_mut() {
                    *d = -1;
                }
                self.m.tensors[t].shape_signature = Some(sig);
            }
            // Quantization.
            9..=11 => {
                let t = self.any_tensor();
                let s = self.bad_scale();
                if let Some(q) = self.m.tensors[t].quantization.as_mut() {
                    if let Some(x) = q.scales.first_mut() {
                        *x = s;
                    }
                } else {
                    self.m.tensors[t].quantization = Some(QuantSpec {
                        scales: vec![s],
                        zero_points: Some(vec![0]),
                        quantized_dimension: 0,
                    });
                }
            }
            12 => {
                let t = self.any_tensor();
                let z = self.pick(&[128, -129, 255, 1000, i64::MAX, i64::MIN, 1]);
                if let Some(q) = self.m.tensors[t].quantization.as_mut() {
                    q.zero_points = Some(vec![z; q.scales.len().max(1)]);
                }
            }
            13 => {
                // Per-channel lengths or axis off.
                let t = self.any_tensor();
                let extra = self.chance(50);
                let axis = self.int(-2, 8);
                let drop_zp = self.chance(30);
                if let Some(q) = self.m.tensors[t].quantization.as_mut() {
                    match (extra, q.scales.len()) {
                        (true, _) => q.scales.push(0.25),
                        (false, n) if n > 1 => {
                            q.scales.pop();
                        }
                        _ => q.quantized_dimension = axis,
                    }
                    if drop_zp {
                        q.zero_points = None;
                    }
                }
            }
            14 => {
                let t = self.any_tensor();
                self.m.tensors[t].quantization = None;
            }
            // Options.
            15..=17 => {
                let o = self.any_op();
                let bad = self.pick(&[0, -1, -8, 100, 1 << 20, i32::MAX, i32::MIN]);
                let field = self.int(0, 5);
                let act = Activation(self.pick(&[6, 9, -1, 127]));
                let pad = Padding(self.pick(&[2, -1, 100]));
                corrupt_options(&mut self.m.operators[o].options, bad, field, act, pad);
            }
            18 => {
                // Options of the wrong type, or none.
                let o = self.any_op();
                self.m.operators[o].options = match self.int(0, 3) {
                    0 => Options::None,
                    1 => Options::Softmax { beta: 1.0 },
                    2 => Options::conv2d(Padding::SAME, (1, 1), Activation::NONE),
                    _ => Options::Mislabeled {
                        tag: BuiltinOptions::Conv2DOptions,
                        table: Box::new(Options::Add {
                            activation: Activation::NONE,
                        }),
                    },
                };
            }
            // Parameter tensors with hostile contents (pads, perms, axes, shapes, slices, data).
            19 | 20 => {
                let constants: Vec<usize> = (0..self.m.tensors.len())
                    .filter(|&i| matches!(self.m.tensors[i].data, TensorData::Constant(_)))
                    .collect();
                if constants.is_empty() {
                    return;
                }
                let t = constants[self.index(constants.len())];
                let bad = self.pick(&[-1, -2, 7, 100, 1 << 16, i32::MAX, i32::MIN, 0]);
                let mode = self.int(0, 2);
                if let TensorData::Constant(bytes) = &mut self.m.tensors[t].data {
                    match mode {
                        0 if bytes.len() >= 4 => {
                            let k = (bad.unsigned_abs() as usize % (bytes.len() / 4)) * 4;
                            bytes[k..k + 4].copy_from_slice(&bad.to_le_bytes());
                        }
                        1 => {
                            bytes.pop();
                        }
                        _ => bytes.extend_from_slice(&[0; 4]),
                    }
                }
            }
            // Types.
            21 => {
                let t = self.any_tensor();
                self.m.tensors[t].dtype = self.pick(&[
                    TensorType::UINT8,
                    TensorType::INT16,
                    TensorType::FLOAT16,
                    TensorType::INT32,
                    TensorType::INT64,
                    TensorType::BOOL,
                    TensorType::INT4,
                    TensorType::FLOAT32,
                    TensorType::INT8,
                    TensorType(100),
                ]);
            }
            // Graph structure.
            22 => {
                let t = self.any_tensor();
                self.m.tensors[t].is_variable = true;
            }
            23 => {
                // A constant (or any tensor) as graph output, or a dangling graph output.
                let i = self.bad_index();
                if self.chance(50) {
                    self.m.outputs.push(i);
                } else if let Some(o) = self.m.outputs.first_mut() {
                    *o = i;
                }
            }
            24 => {
                let i = self.bad_index();
                match self.int(0, 2) {
                    0 => self.m.inputs.push(i),
                    1 => self.m.inputs.clear(),
                    _ => self.m.outputs.clear(),
                }
            }
            25 => {
                let data = self.bytes(4);
                self.m.buffers[0] = BufferSpec::Data(data);
            }
            26 => {
                // An operator writing a tensor another operator (or the graph input) already holds.
                let o = self.any_op();
                let t = self.pick_value().index;
                if let Some(out) = self.m.operators[o].outputs.first_mut() {
                    *out = t;
                }
            }
            _ => {
                // Opcode table damage.
                let o = self.any_op();
                match self.int(0, 2) {
                    0 => self.m.operators[o].opcode_index = self.m.opcodes.len() as u32,
                    1 => {
                        let i = self.m.operators[o].opcode_index as usize;
                        if let Some(c) = self.m.opcodes.get_mut(i) {
                            c.deprecated_builtin_code = 3;
                        }
                    }
                    _ => {
                        let i = self.m.operators[o].opcode_index as usize;
                        let v = self.pick(&[0, 7, -1]);
                        if let Some(c) = self.m.opcodes.get_mut(i) {
                            c.version = v;
                        }
                    }
                }
            }
        }
    }
}

/// Damages field `field` of `options` with `bad` (or a bad activation or padding).
fn corrupt_options(options: &mut Options, bad: i32, field: i32, act: Activation, pad: Padding) {
    match options {
        Options::Conv2D {
            padding,
            stride_w,
            stride_h,
            dilation_w,
            dilation_h,
            activation,
        } => match field {
            0 => *stride_w = bad,
            1 => *stride_h = bad,
            2 => *dilation_w = bad,
            3 => *dilation_h = bad,
            4 => *activation = act,
            _ => *padding = pad,
        },
        Options::DepthwiseConv2D {
            padding,
            stride_w,
            depth_multiplier,
            dilation_h,
            activation,
            ..
        } => match field {
            0 => *stride_w = bad,
            1 => *depth_multiplier = bad,
            2 => *dilation_h = bad,
            3 => *activation = act,
            _ => *padding = pad,
        },
        Options::Pool2D {
            padding,
            stride_h,
            filter_w,
            filter_h,
            activation,
            ..
        } => match field {
            0 => *stride_h = bad,
            1 => *filter_w = bad,
            2 => *filter_h = bad,
            3 => *activation = act,
            _ => *padding = pad,
        },
        Options::FullyConnected {
            activation,
            weights_format,
            keep_num_dims,
        } => match field {
            0 => *weights_format = WeightsFormat(1),
            1 => *weights_format = WeightsFormat(9),
            2 => *keep_num_dims = !*keep_num_dims,
            _ => *activation = act,
        },
        Options::Softmax { beta } => {
            *beta = match field {
                0 => f32::NAN,
                1 => f32::INFINITY,
                2 => -1.0,
                3 => 0.0,
                _ => bad as f32,
            }
        }
        Options::Add { activation } | Options::Sub { activation } | Options::Mul { activation } => {
            *activation = act
        }
        Options::Concatenation { axis, activation } => match field {
            0..=3 => *axis = bad,
            _ => *activation = act,
        },
        Options::Reshape { new_shape } => *new_shape = Some(vec![bad, 2]),
        Options::Squeeze { squeeze_dims } => squeeze_dims.push(bad),
        Options::StridedSlice {
            begin_mask,
            end_mask,
            ellipsis_mask,
            new_axis_mask,
            shrink_axis_mask,
            offset,
        } => match field {
            0 => *begin_mask = bad,
            1 => *end_mask = bad,
            2 => *ellipsis_mask = 1,
            3 => *new_axis_mask = 1,
            4 => *shrink_axis_mask = bad,
            _ => *offset = true,
        },
        Options::Reducer { keep_dims } => *keep_dims = !*keep_dims,
        Options::LeakyRelu { alpha } => {
            *alpha = match field {
                0 => f32::NAN,
                1 => f32::INFINITY,
                2 => 1e30,
                _ => -(bad as f32),
            }
        }
        _ => {}
    }
}

/// Elements of `shape` (negative dimensions count as 0), saturating at a bound the generator never
/// reaches with valid shapes.
fn elements(shape: &[i32]) -> usize {
    shape
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .fold(1usize, |a, d| a.saturating_mul(d))
        .min(1 << 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stream of pseudo-random bytes (xorshift), for sampling the generator.
    fn noise(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    #[test]
    fn generation_is_deterministic_and_total() {
        for seed in 0..200 {
            let bytes = noise(seed, 512);
            let a = model_from_bytes(&bytes);
            // Compared as files: NaN scales make the specs themselves unequal to themselves.
            assert_eq!(a.to_bytes(), model_from_bytes(&bytes).to_bytes());
            assert!(!a.operators.is_empty());
            assert!(!a.to_bytes().is_empty());
        }
        // No bytes at all still gives a model.
        assert!(!model_from_bytes(&[]).operators.is_empty());
    }

    #[test]
    fn most_generated_models_load() {
        let loaded = (0..500)
            .filter(|&seed| {
                tinyaot_codegen::load::load(&model_from_bytes(&noise(seed, 1024)).to_bytes())
                    .is_ok()
            })
            .count();
        // The bias towards well-formed models is the point of the generator.
        assert!(loaded >= 250, "only {loaded} of 500 load");
    }

    /// The overlap tests' models are not corrupted: nearly all of them compile (the rest are
    /// scale pairs TFLM refuses too, such as an int8 HARD_SWISH whose output scale is far below
    /// its input's), and the mapping is deterministic.
    #[test]
    fn overlap_models_compile() {
        let compiled = (0..200)
            .filter(|&seed| {
                let bytes = noise(seed, 256);
                let model = overlap_model(&mut Unstructured::new(&bytes)).to_bytes();
                assert_eq!(
                    model,
                    overlap_model(&mut Unstructured::new(&bytes)).to_bytes()
                );
                tinyaot_codegen::Config::new()
                    .generate(&model, "model")
                    .is_ok()
            })
            .count();
        assert!(compiled >= 180, "only {compiled} of 200 compile");
    }
}

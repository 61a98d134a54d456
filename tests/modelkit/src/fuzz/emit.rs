//! Drawing and emitting the next operator of the chain: the dispatch over [`OPS`](super::OPS), with
//! the single-input operators (activations, quantization, reductions, data movement, the
//! unsupported ones) built inline.

use super::{elements, Gen, Value, OPS, UNSUPPORTED};
use crate::{Activation, BuiltinOperator as B, OpCodeSpec, Options, TensorSpec, TensorType};

impl Gen<'_, '_> {
    // --- operators ---

    pub(super) fn one_op(&mut self) {
        let op = if self.chance(2) {
            self.pick(UNSUPPORTED)
        } else {
            self.pick(OPS)
        };
        self.emit(op);
    }

    /// Appends one `op` to the chain, its shapes and options drawn.
    pub(super) fn emit(&mut self, op: B) {
        match op {
            B::CONV_2D
            | B::DEPTHWISE_CONV_2D
            | B::AVERAGE_POOL_2D
            | B::MAX_POOL_2D
            | B::L2_POOL_2D => self.image_op(op, false),
            B::FULLY_CONNECTED => {
                let v = self.latest();
                self.fully_connected(v)
            }
            B::SPLIT | B::SPLIT_V => self.split(op),
            B::UNPACK => self.unpack(),
            B::SVDF => self.svdf(),
            B::RESIZE_NEAREST_NEIGHBOR
            | B::RESIZE_BILINEAR
            | B::DEPTH_TO_SPACE
            | B::SPACE_TO_DEPTH
            | B::SPACE_TO_BATCH_ND
            | B::BATCH_TO_SPACE_ND
            | B::MIRROR_PAD => self.resample(op),
            B::CAST | B::ZEROS_LIKE | B::FILL | B::BROADCAST_TO | B::SELECT_V2 | B::GATHER_ND => {
                self.tensor_op(op)
            }
            B::EMBEDDING_LOOKUP | B::DYNAMIC_UPDATE_SLICE | B::BROADCAST_ARGS => {
                self.lookup_update(op)
            }
            B::BATCH_MATMUL => {
                // The latest value times itself transposed (adj_y): [.., M, K] x [.., M, K]^T.
                let v = self.latest();
                let shape = self.shape_of(v);
                if !(2..=5).contains(&shape.len()) {
                    return self.emit(B::RELU);
                }
                let mut out_shape = shape.clone();
                let m = shape[shape.len() - 2];
                *out_shape.last_mut().expect("rank 2 or more") = m;
                let out = self.activation(&out_shape);
                let options = Options::BatchMatMul {
                    adj_x: false,
                    adj_y: true,
                };
                self.push_op(op, options, &[v.index, v.index], out);
            }
            B::SOFTMAX | B::LOGISTIC | B::TANH | B::LOG_SOFTMAX | B::L2_NORMALIZATION => {
                let v = self.latest();
                let shape = self.shape_of(v);
                // TFLM's L2_NORMALIZATION takes rank 4 at most.
                if op == B::L2_NORMALIZATION && shape.len() > 4 {
                    return self.emit(B::RELU);
                }
                let out = if self.int8 {
                    // The output quantization TFLM requires (LOG_SOFTMAX) or computes in
                    // (L2_NORMALIZATION, TANH, SOFTMAX).
                    let (s, z) = match op {
                        B::TANH | B::L2_NORMALIZATION => (1.0 / 128.0, 0),
                        B::LOG_SOFTMAX => (16.0 / 256.0, 127),
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
            B::ADD
            | B::SUB
            | B::MUL
            | B::MAXIMUM
            | B::MINIMUM
            | B::PRELU
            | B::SQUARED_DIFFERENCE
            | B::DIV
            | B::FLOOR_DIV
            | B::FLOOR_MOD => self.binary(op),
            B::EQUAL
            | B::NOT_EQUAL
            | B::GREATER
            | B::GREATER_EQUAL
            | B::LESS
            | B::LESS_EQUAL
            | B::LOGICAL_AND
            | B::LOGICAL_OR
            | B::LOGICAL_NOT
            | B::REDUCE_ALL => self.logic(op),
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
            B::MEAN | B::SUM | B::REDUCE_MAX | B::REDUCE_MIN => {
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
                // TFLM's int8 REDUCE_MAX and REDUCE_MIN take the input's quantization only.
                let out_t = if matches!(op, B::REDUCE_MAX | B::REDUCE_MIN) {
                    self.same_quant(v, &out)
                } else {
                    self.activation(&out)
                };
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
            B::ADD_N => {
                // The latest value 2 to 4 times, now and then 9 to 12 (the variadic kernels),
                // one tensor of one quantization, as TFLM's int8 ADD_N requires; the output in
                // its quantization.
                let v = self.latest();
                let shape = self.shape_of(v);
                let n = if self.chance(20) {
                    self.int(9, 12) as usize
                } else {
                    self.int(2, 4) as usize
                };
                let out_t = self.same_quant(v, &shape);
                self.push_op(op, Options::None, &vec![v.index; n], out_t);
            }
            B::REVERSE_V2 => {
                // A run of contiguous axes (TFLM refuses others), negative now and then; a
                // rank-0 value gets an axis out of range, which TFLM refuses.
                let v = self.latest();
                let shape = self.shape_of(v);
                let rank = shape.len() as i32;
                let first = self.int(0, (rank - 1).max(0));
                let last = self.int(first, (rank - 1).max(first));
                let axes: Vec<i32> = (first..=last)
                    .map(|a| if self.chance(30) { a - rank } else { a })
                    .collect();
                let a = self.constant(TensorSpec::int32(&[axes.len() as i32]).constant_i32(&axes));
                let out_t = self.same_quant(v, &shape);
                self.push_op(op, Options::None, &[v.index, a], out_t);
            }
            B::CUMSUM => {
                // One axis, negative now and then (a rank-0 value's is out of range, which
                // TFLM refuses), exclusive and reversed at random; the output in the input's
                // quantization (a long int8 line is refused: TFLM's int32 sum could overflow).
                let v = self.latest();
                let shape = self.shape_of(v);
                let rank = shape.len() as i32;
                let a = self.int(0, (rank - 1).max(0));
                let axis = if self.chance(30) { a - rank } else { a };
                let a = self.constant(TensorSpec::int32(&[1]).constant_i32(&[axis]));
                let options = Options::Cumsum {
                    exclusive: self.chance(50),
                    reverse: self.chance(50),
                };
                let out_t = self.same_quant(v, &shape);
                self.push_op(op, options, &[v.index, a], out_t);
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
            | B::CEIL
            | B::ROUND
            | B::RSQRT
            | B::ABS
            | B::NEG
            | B::SQRT
            | B::SQUARE
            | B::EXP
            | B::LOG
            | B::SIN
            | B::COS
            | B::ELU => {
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
            B::SLICE => {
                // A size of -1 (to the end) now and then; begin and size INT32 or INT64.
                let v = self.latest();
                let shape = self.shape_of(v);
                let (mut begin, mut size, mut out) = (vec![], vec![], vec![]);
                for &d in &shape {
                    let b = self.int(0, (d - 1).max(0));
                    let n = self.int(1, (d - b).max(1));
                    begin.push(b);
                    size.push(if n == d - b && self.chance(40) { -1 } else { n });
                    out.push(n);
                }
                let r = shape.len() as i32;
                let (b, n) = if self.chance(25) {
                    let wide = |v: &[i32]| v.iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
                    let spec = || TensorSpec::new(TensorType::INT64, &[r]);
                    (
                        self.constant(spec().constant_i64(&wide(&begin))),
                        self.constant(spec().constant_i64(&wide(&size))),
                    )
                } else {
                    (
                        self.constant(TensorSpec::int32(&[r]).constant_i32(&begin)),
                        self.constant(TensorSpec::int32(&[r]).constant_i32(&size)),
                    )
                };
                let out_t = self.same_quant(v, &out);
                self.push_op(op, Options::Slice, &[v.index, b, n], out_t);
            }
            B::GATHER => {
                // Constant positions along a random axis, now and then one outside it (refused).
                let v = self.latest();
                let shape = self.shape_of(v);
                let rank = shape.len() as i32;
                let axis = self.int(-rank.max(1), (rank - 1).max(0));
                let a = if axis < 0 { axis + rank } else { axis };
                let size = usize::try_from(a)
                    .ok()
                    .and_then(|a| shape.get(a))
                    .copied()
                    .unwrap_or(1);
                let n = self.int(1, 4);
                let positions: Vec<i32> = (0..n)
                    .map(|_| {
                        if self.chance(5) {
                            size
                        } else {
                            self.int(0, (size - 1).max(0))
                        }
                    })
                    .collect();
                let mut out = shape.clone();
                if let Some(d) = usize::try_from(a).ok().filter(|&a| a < out.len()) {
                    out[d] = n;
                }
                let p = self.constant(TensorSpec::int32(&[n]).constant_i32(&positions));
                let out_t = self.same_quant(v, &out);
                let options = Options::Gather {
                    axis,
                    batch_dims: 0,
                };
                self.push_op(op, options, &[v.index, p], out_t);
            }
            B::SHAPE => {
                // INT32 whatever the input: later operators of the chain mostly refuse it.
                let v = self.latest();
                let r = self.shape_of(v).len() as i32;
                let options = Options::default_for(op);
                self.push_op(op, options, &[v.index], TensorSpec::int32(&[r]));
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
                // An unsupported operator: TOPK_V2 or a CUSTOM one.
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
}

//! The generator's primitives: choices that never fail (out of bytes, the first option is
//! taken), and the values, tensors, weights, biases and activations the operators are built from.

use super::{elements, Gen, Value};
use crate::{Activation, BuiltinOperator as B, Options, TensorData, TensorSpec, TensorType};

impl Gen<'_, '_> {
    // --- choices that never fail: out of bytes, the first option is taken ---

    pub(super) fn int(&mut self, lo: i32, hi: i32) -> i32 {
        self.u.int_in_range(lo..=hi).unwrap_or(lo)
    }

    pub(super) fn index(&mut self, len: usize) -> usize {
        if len == 0 {
            return 0;
        }
        self.u.choose_index(len).unwrap_or(0)
    }

    /// True with probability about `percent`%; false when out of bytes.
    pub(super) fn chance(&mut self, percent: u8) -> bool {
        self.u.ratio(percent, 100).unwrap_or(false)
    }

    pub(super) fn byte(&mut self) -> u8 {
        self.u.arbitrary().unwrap_or(0)
    }

    pub(super) fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }

    pub(super) fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.index(xs.len())]
    }

    // --- tensors ---

    pub(super) fn shape_of(&self, v: Value) -> Vec<i32> {
        self.tensor(v.index)
            .and_then(|t| t.shape.clone())
            .unwrap_or_default()
    }

    pub(super) fn tensor(&self, i: i32) -> Option<&TensorSpec> {
        usize::try_from(i).ok().and_then(|i| self.m.tensors.get(i))
    }

    pub(super) fn scale_of(&self, v: Value) -> f32 {
        self.tensor(v.index)
            .and_then(|t| t.quantization.as_ref())
            .and_then(|q| q.scales.first().copied())
            .unwrap_or(1.0)
    }

    pub(super) fn dtype_of(&self, v: Value) -> TensorType {
        self.tensor(v.index)
            .map_or(TensorType::FLOAT32, |t| t.dtype)
    }

    /// A plausible activation scale.
    pub(super) fn scale(&mut self) -> f32 {
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

    pub(super) fn zero_point(&mut self) -> i64 {
        if self.chance(50) {
            0
        } else {
            i64::from(self.int(-128, 127))
        }
    }

    /// An activation tensor of the model's flavour.
    pub(super) fn activation(&mut self, shape: &[i32]) -> TensorSpec {
        if self.int8 {
            let (s, z) = (self.scale(), self.zero_point());
            TensorSpec::int8(shape, s, z)
        } else {
            TensorSpec::f32(shape)
        }
    }

    pub(super) fn dims(&mut self, rank: usize) -> Vec<i32> {
        (0..rank).map(|_| self.int(1, 8)).collect()
    }

    /// A new graph input, mostly rank 4 (what the convolutions and pools need).
    pub(super) fn new_input(&mut self) -> Value {
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
        let index = self.graph_input(t);
        Value { index }
    }

    /// A new graph input of `shape`, of the model's flavour.
    pub(super) fn input(&mut self, shape: &[i32]) -> Value {
        let t = self.activation(shape);
        let index = self.graph_input(t);
        Value { index }
    }

    /// A value of rank 4 to feed an image op: the last one when it fits, else a new graph input.
    pub(super) fn rank4(&mut self) -> Value {
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

    pub(super) fn latest(&mut self) -> Value {
        // Mostly chain on the last value; sometimes reach back (fan-out, longer lifetimes).
        if self.chance(80) {
            self.values.last().copied().unwrap_or(Value { index: 0 })
        } else {
            self.pick_value()
        }
    }

    pub(super) fn pick_value(&mut self) -> Value {
        let i = self.index(self.values.len());
        self.values.get(i).copied().unwrap_or(Value { index: 0 })
    }

    pub(super) fn constant(&mut self, t: TensorSpec) -> i32 {
        self.m.tensor(t)
    }

    /// A new tensor `t` that is a graph input (of random contents when the model runs).
    pub(super) fn graph_input(&mut self, t: TensorSpec) -> i32 {
        let index = self.m.tensor(t);
        self.m.inputs.push(index);
        index
    }

    /// Constant int8 (now and then INT4) or float32 weights of `shape` with random contents.
    pub(super) fn weights(&mut self, shape: &[i32], per_channel_axis: Option<i32>) -> TensorSpec {
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
    pub(super) fn bias(&mut self, channels: i32, input: Value, weights: &TensorSpec) -> TensorSpec {
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

    pub(super) fn act(&mut self) -> Activation {
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

    pub(super) fn push_op(&mut self, op: B, options: Options, inputs: &[i32], output: TensorSpec) {
        let out = self.m.tensor(output);
        self.m.op(op, options, inputs, &[out]);
        self.values.push(Value { index: out });
    }

    /// A tensor like `v` (same dtype and quantization) with another shape.
    pub(super) fn same_quant(&self, v: Value, shape: &[i32]) -> TensorSpec {
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
}

//! SVDF, the stateful operator: its state a variable tensor.

use super::{elements, FuzzOp, Gen};
use crate::{Activation, BuiltinOperator as B, Options, TensorSpec, TensorType};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::SVDF, |g, _| g.svdf()),
];

impl Gen<'_, '_> {
    /// SVDF on a [batches, input size] value: int8 with an int16 state and time weights (bias
    /// scale = state scale × time weight scale, as TFLM requires), or float32, with its state a
    /// variable tensor.
    pub(super) fn svdf(&mut self) {
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
        // Now and then (one SVDF in eight) some of the weights and the bias graph inputs instead
        // of constants: TFLM's Prepare reads only their types, shapes and scales and its Eval
        // the tensors wherever they are (issue 32), which tinyaot's svdf_dyn_* kernels follow.
        let at_run_time = self.chance(12);
        let place = |g: &mut Self, spec: TensorSpec| {
            if at_run_time && g.chance(60) {
                g.graph_input(TensorSpec {
                    data: crate::TensorData::Buffer(0),
                    ..spec
                })
            } else {
                g.constant(spec)
            }
        };
        let (feature, time, bias) = (
            place(self, feature),
            place(self, time),
            place(self, bias),
        );
        let state = self.m.tensor(state);
        let out = self.activation(&[batches, units]);
        // A float SVDF applies TANH and SIGN_BIT as functions (TFLM's ActivationValFloat).
        let activation = if !self.int8 && self.chance(20) {
            if self.chance(50) {
                Activation::TANH
            } else {
                Activation::SIGN_BIT
            }
        } else if self.chance(50) {
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
}

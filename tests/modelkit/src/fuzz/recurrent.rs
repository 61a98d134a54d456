//! The stateful recurrent operators, their state variable tensors: SVDF and
//! UNIDIRECTIONAL_SEQUENCE_LSTM.

use super::{elements, FuzzOp, Gen, Value};
use crate::{Activation, BuiltinOperator as B, Options, TensorSpec, TensorType};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::SVDF, |g, _| g.svdf()),
    FuzzOp::new(B::UNIDIRECTIONAL_SEQUENCE_LSTM, |g, _| g.lstm()),
];

/// UNIDIRECTIONAL_SEQUENCE_LSTM's optional inputs (peephole, projection and layer-normalization
/// weights), absent (-1) in the standard LSTM that TFLM's kernel implements.
const LSTM_OPTIONAL: [usize; 9] = [9, 10, 11, 16, 17, 20, 21, 22, 23];

impl Gen<'_, '_> {
    /// `v` through a RESHAPE to `shape` (its shape a constant input), quantized as `v`.
    fn reshaped(&mut self, v: Value, shape: &[i32]) -> Value {
        let out = self.same_quant(v, shape);
        let s = self.constant(TensorSpec::int32(&[shape.len() as i32]).constant_i32(shape));
        self.push_op(
            B::RESHAPE,
            Options::Reshape { new_shape: None },
            &[v.index, s],
            out,
        );
        self.values.last().copied().unwrap_or(v)
    }

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
            self.reshaped(v, &flat)
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
    /// UNIDIRECTIONAL_SEQUENCE_LSTM on the latest value made `[batches, time, features]` (or
    /// time-major), 1–4 units, with its 24 inputs: the eight gate weight matrices and four biases
    /// constant, the hidden and cell states variable tensors, the optional ones absent. int8 (or,
    /// one time in four, int16) activations with int8 weights, int32 (int64 for int16) biases and
    /// an int16 cell state at a power-of-two scale, or float32 throughout. Now and then an
    /// optional input present, a clip, another cell activation or a mismatched layout: what TFLM
    /// refuses or leaves undefined, which tinyaot must refuse with a reason.
    pub(super) fn lstm(&mut self) {
        let v = self.latest();
        let shape = self.shape_of(v);
        let input = if shape.len() == 3 {
            v
        } else {
            let first = shape.first().copied().unwrap_or(1).max(1);
            let features = (elements(&shape) as i32 / first).max(1);
            self.reshaped(v, &[1, first, features])
        };
        let shape = self.shape_of(input);
        let time_major = self.chance(25);
        let (batches, features) = (
            if time_major { shape[1] } else { shape[0] },
            shape.get(2).copied().unwrap_or(1),
        );
        let units = self.int(1, 4);
        let int = self.dtype_of(input) != TensorType::FLOAT32;
        // The 16x8 variant: an int16 copy of the input (QUANTIZE), int16 states and output.
        let wide = int && self.chance(25);
        let input = if wide {
            let s = self.scale() / 64.0;
            let out = TensorSpec::new(TensorType::INT16, &shape).quant(s, 0);
            self.push_op(B::QUANTIZE, Options::Quantize, &[input.index], out);
            self.values.last().copied().unwrap_or(input)
        } else {
            input
        };
        let mut inputs = vec![-1i32; 24];
        inputs[0] = input.index;
        let in_scale = self.scale_of(input);
        for (rows, cols, first) in [(units, features, 1), (units, units, 5)] {
            for gate in 0..4 {
                inputs[first + gate] = if int {
                    let data = self.bytes((rows * cols).max(0) as usize);
                    let s = self.scale() / 8.0;
                    self.constant(
                        TensorSpec::new(TensorType::INT8, &[rows, cols])
                            .constant(data)
                            .quant(s, 0),
                    )
                } else {
                    let data: Vec<f32> = (0..(rows * cols).max(0))
                        .map(|_| f32::from(self.byte() as i8) / 64.0)
                        .collect();
                    self.constant(TensorSpec::f32(&[rows, cols]).constant_f32(&data))
                };
            }
        }
        let (hidden_scale, hidden_zero) = (self.scale(), if wide { 0 } else { self.zero_point() });
        for gate in 0..4 {
            let data: Vec<i32> = (0..units)
                .map(|_| i32::from(self.byte() as i8) * 16)
                .collect();
            inputs[12 + gate] = if wide {
                let bytes: Vec<u8> = data.iter().flat_map(|&x| i64::from(x).to_le_bytes()).collect();
                self.constant(
                    TensorSpec::new(TensorType::INT64, &[units])
                        .constant(bytes)
                        .quant(in_scale / 8.0, 0),
                )
            } else if int {
                self.constant(
                    TensorSpec::int32(&[units])
                        .constant_i32(&data)
                        .quant(in_scale / 8.0, 0),
                )
            } else {
                let data: Vec<f32> = data.iter().map(|&x| x as f32 / 512.0).collect();
                self.constant(TensorSpec::f32(&[units]).constant_f32(&data))
            };
        }
        let state = [batches, units];
        let (hidden, cell, out) = if int {
            let narrow = if wide { TensorType::INT16 } else { TensorType::INT8 };
            let hidden = TensorSpec::new(narrow, &state).quant(hidden_scale, hidden_zero);
            // TFLM's int16 tanh of the cell state takes scales 2^-43 ..= 2^2: mostly 2^-11.
            let power = self.pick(&[-11, -11, -15, -8, 0, 3]);
            let cell = TensorSpec::new(TensorType::INT16, &state).quant((2f32).powi(power), 0);
            let out_shape = [shape[0], shape[1], units];
            let out = TensorSpec::new(narrow, &out_shape).quant(hidden_scale, hidden_zero);
            (hidden, cell, out)
        } else {
            let out_shape = [shape[0], shape[1], units];
            (
                TensorSpec::f32(&state),
                TensorSpec::f32(&state),
                TensorSpec::f32(&out_shape),
            )
        };
        inputs[18] = self.m.tensor(hidden.variable());
        inputs[19] = self.m.tensor(cell.variable());
        // One LSTM in ten with one of the variants TFLM's kernel does not implement.
        if self.chance(10) {
            let i = self.pick(&LSTM_OPTIONAL);
            let length = if (20..=23).contains(&i) || i == 17 { units } else { units * units };
            let spec = self.weights(&[length], None);
            inputs[i] = self.constant(spec);
        }
        let activation = if self.chance(90) {
            Activation::TANH
        } else {
            self.pick(&[Activation::NONE, Activation::RELU, Activation::SIGN_BIT])
        };
        let cell_clip = if self.chance(80) { 0.0 } else { self.pick(&[3.0, 0.5, -1.0]) };
        // Now and then options that disagree with the layout.
        let time_major = if self.chance(95) { time_major } else { !time_major };
        self.push_op(
            B::UNIDIRECTIONAL_SEQUENCE_LSTM,
            Options::UnidirectionalSequenceLstm {
                activation,
                cell_clip,
                time_major,
            },
            &inputs,
            out,
        );
    }
}

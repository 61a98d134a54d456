//! Corruptions applied after generation, drawn from the ways real-world hostile or broken models go
//! wrong: wrong arity, mismatched shapes, degenerate quantization, bad options, dangling indices.

use super::Gen;
use crate::{
    Activation, BufferSpec, BuiltinOptions, Options, Padding, QuantSpec, TensorData, TensorType,
    WeightsFormat,
};

impl Gen<'_, '_> {
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

    pub(super) fn corrupt(&mut self) {
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

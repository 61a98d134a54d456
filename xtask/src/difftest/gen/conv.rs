//! Convolutions and pooling: CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV (with their filter and
//! bias helpers), AVERAGE_POOL_2D, MAX_POOL_2D and L2_POOL_2D.

use tinyaot_modelkit::{BuiltinOperator as B, Options, Padding, TensorSpec, TensorType};

use super::{act_name, arithmetic::product_pair, elements, op_name, pad_name, ACTIVATIONS, G, OpGen};
use crate::difftest::quant::{product_variants, score};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("AVERAGE_POOL_2D", B::AVERAGE_POOL_2D, image).types(&[TensorType::INT16]),
    OpGen::new("CONV_2D", B::CONV_2D, image).types(&[TensorType::INT16]),
    OpGen::new("DEPTHWISE_CONV_2D", B::DEPTHWISE_CONV_2D, image).types(&[TensorType::INT16]),
    OpGen::new("L2_POOL_2D", B::L2_POOL_2D, image),
    OpGen::new("MAX_POOL_2D", B::MAX_POOL_2D, image).types(&[TensorType::INT16]),
    OpGen::new("TRANSPOSE_CONV", B::TRANSPOSE_CONV, image).types(&[TensorType::INT16]),
];

fn image(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    // TFLM's L2_POOL_2D is float32 only.
    if g.rank(x).is_some_and(|r| r != 4) || (op == B::L2_POOL_2D && dtype != TensorType::FLOAT32)
    {
        return None;
    }
    let x = g.take(x, dtype, G::image_shape, 1.0);
    Some(match op {
        B::CONV_2D | B::DEPTHWISE_CONV_2D => g.conv(op, x),
        B::TRANSPOSE_CONV => g.transpose_conv(x),
        _ => g.pool(op, x),
    })
}

impl<'a> G<'a> {
    pub(super) fn conv(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let (n, h, w, cin) = (s[0], s[1], s[2], s[3]);
        let depthwise = op == B::DEPTHWISE_CONV_2D;
        let kh = self.rng.int(1, 3);
        let kw = self.rng.int(1, 3);
        let sh = self.rng.pick(&[1, 1, 2, 3]);
        let sw = self.rng.pick(&[1, 1, 2, 3]);
        let (dh, dw) = if self.rng.chance(0.25) {
            (self.rng.int(1, 2), self.rng.int(1, 2))
        } else {
            (1, 1)
        };
        let mut padding = self.rng.pick(&[Padding::SAME, Padding::VALID]);
        let out_dim = |p: Padding, size: i32, k: i32, stride: i32, d: i32| {
            let eff = (k - 1) * d + 1;
            if p == Padding::SAME {
                (size + stride - 1) / stride
            } else {
                (size - eff + stride) / stride
            }
        };
        if out_dim(padding, h, kh, sh, dh) < 1 || out_dim(padding, w, kw, sw, dw) < 1 {
            padding = Padding::SAME;
        }
        let oh = out_dim(padding, h, kh, sh, dh);
        let ow = out_dim(padding, w, kw, sw, dw);
        let multiplier = if depthwise { self.rng.int(1, 2) } else { 1 };
        let cout = if depthwise {
            cin * multiplier
        } else {
            self.rng.int(1, 4)
        };
        let filter_shape = if depthwise {
            vec![1, kh, kw, cout]
        } else {
            vec![cout, kh, kw, cin]
        };
        let depth = if depthwise { kh * kw } else { kh * kw * cin };
        let activation = self.rng.pick(ACTIVATIONS);
        let has_bias = self.rng.chance(0.8);
        let out_shape = vec![n, oh, ow, cout];
        let (filter, bias, out) = if dtype == TensorType::INT8 {
            let (s_in, _) = self.q(x);
            let per_channel = self.rng.chance(0.7);
            let channel_axis = if depthwise { 3 } else { 0 };
            let typical = f64::from(depth).sqrt() * 4096.0 / 90.0;
            let (w_scales, s_out) = if per_channel {
                let scales: Vec<f32> = (0..cout)
                    .map(|_| self.rng.logu(2e-3, 5e-2) as f32)
                    .collect();
                let s_out =
                    (f64::from(s_in) * f64::from(scales[0]) * typical * self.rng.logu(0.3, 3.0))
                        as f32;
                (scales, s_out)
            } else {
                let (w, o) = self.hunt(
                    |r| {
                        let w = r.logu(2e-3, 5e-2) as f32;
                        if r.chance(0.7) {
                            product_pair(r, s_in, w, 1.0 / f64::from(depth).sqrt())
                        } else {
                            let o = (f64::from(s_in) * f64::from(w) * typical * r.logu(0.3, 3.0))
                                as f32;
                            (w, o)
                        }
                    },
                    |(w, o)| score(&product_variants(s_in, w, o)),
                );
                (vec![w], o)
            };
            let (filter, bias) = self.int8_filter_and_bias(
                (&filter_shape, channel_axis),
                (s_in, &w_scales, per_channel),
                has_bias,
            );
            self.maybe_int4(filter);
            let zp = self.zero_point();
            let out = self.act(TensorType::INT8, &out_shape, Some((s_out, zp)));
            (filter, bias, out)
        } else if dtype == TensorType::INT16 {
            let channel_axis = if depthwise { 3 } else { 0 };
            self.weights_16x8(
                x,
                (&filter_shape, channel_axis),
                f64::from(depth),
                has_bias,
                &out_shape,
            )
        } else {
            let (filter, bias) = self.f32_filter_and_bias(&filter_shape, cout, has_bias);
            let out = self.act(TensorType::FLOAT32, &out_shape, None);
            (filter, bias, out)
        };
        let options = if depthwise {
            Options::DepthwiseConv2D {
                padding,
                stride_w: sw,
                stride_h: sh,
                depth_multiplier: multiplier,
                dilation_w: dw,
                dilation_h: dh,
                activation,
            }
        } else {
            Options::Conv2D {
                padding,
                stride_w: sw,
                stride_h: sh,
                dilation_w: dw,
                dilation_h: dh,
                activation,
            }
        };
        let text = format!(
            "{} in {} filter {} bias={} stride=({sh},{sw}) dilation=({dh},{dw}) pad={} mult={multiplier} act={} -> {}",
            op_name(op),
            self.qtext(x),
            self.qtext(filter),
            has_bias,
            pad_name(padding),
            act_name(activation),
            self.qtext(out)
        );
        self.describe(text);
        self.maybe_weights_at_run_time(filter);
        let inputs = self.operands(&[x, filter, bias]);
        self.m.op(op, options, &inputs, &[out]);
        out
    }

    /// Now and then (one convolution in eight) the constant `filter` made a graph input instead, of
    /// random values (int8's whole range, float32's within ±1): TFLM's Prepare reads only its type
    /// and quantization and its Eval the tensor wherever it is (issue 32), which tinyaot's
    /// `*_dyn_*` kernels follow. INT4 weights stay constant: the oracle's Python interpreter cannot
    /// set an INT4 input, so such a case would have no golden (the hostile corners
    /// `*int4_weights_input` cover them, their goldens from a twin whose weights are a constant).
    fn maybe_weights_at_run_time(&mut self, filter: i32) {
        if !self.rng.chance(0.125) || self.m.tensors[filter as usize].dtype == TensorType::INT4 {
            return;
        }
        let t = &mut self.m.tensors[filter as usize];
        t.data = tinyaot_modelkit::TensorData::Buffer(0);
        self.m.inputs.push(filter);
        self.ranges.push(1.0);
        self.describe("(weights at run time)".to_string());
    }

    /// A constant float32 filter of `shape` and, if `has_bias`, a bias of `channels` values, all
    /// uniform in [-1, 1): the float weights of the convolutions and FULLY_CONNECTED.
    pub(super) fn f32_filter_and_bias(
        &mut self,
        shape: &[i32],
        channels: i32,
        has_bias: bool,
    ) -> (i32, i32) {
        let weights: Vec<f32> = (0..elements(shape)).map(|_| self.rng.sym(1.0)).collect();
        let filter = self.m.tensor(TensorSpec::f32(shape).constant_f32(&weights));
        if !has_bias {
            return (filter, -1);
        }
        let values: Vec<f32> = (0..channels).map(|_| self.rng.sym(1.0)).collect();
        (
            filter,
            self.m
                .tensor(TensorSpec::f32(&[channels]).constant_f32(&values)),
        )
    }

    /// A constant int8 filter of `shape` with output channels along `axis`, weight scales `scales`
    /// (one per channel, or one), and if `has_bias` an int32 bias of scales `s_in * scales`: the
    /// weights and biases of CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV.
    fn int8_filter_and_bias(
        &mut self,
        (shape, axis): (&[i32], usize),
        (s_in, scales, per_channel): (f32, &[f32], bool),
        has_bias: bool,
    ) -> (i32, i32) {
        let cout = shape[axis];
        let weights = self.weights(elements(shape) as usize, !per_channel);
        let f = TensorSpec::new(TensorType::INT8, shape).constant_i8(&weights);
        let f = if per_channel {
            f.per_channel(scales, axis as i32)
        } else {
            f.quant(scales[0], 0)
        };
        let filter = self.m.tensor(f);
        if !has_bias {
            return (filter, -1);
        }
        let values: Vec<i32> = (0..cout).map(|_| self.rng.int(-3000, 3000)).collect();
        let b_scales: Vec<f32> = (0..cout as usize)
            .map(|c| s_in * scales[if per_channel { c } else { 0 }])
            .collect();
        let b = TensorSpec::int32(&[cout]).constant_i32(&values);
        let b = if per_channel {
            b.per_channel(&b_scales, 0)
        } else {
            b.quant(b_scales[0], 0)
        };
        (filter, self.m.tensor(b))
    }

    /// The 16x8 operands of a convolution of the int16 tensor `x` summing about `depth` products
    /// per output: per-channel int8 weights of `shape` (output channels along `axis`), an int64
    /// bias if `has_bias` (else -1), and an int16 output of `out_shape` (zero point 0) whose scale
    /// suits that depth. Returns (filter, bias, output).
    fn weights_16x8(
        &mut self,
        x: i32,
        (shape, axis): (&[i32], usize),
        depth: f64,
        has_bias: bool,
        out_shape: &[i32],
    ) -> (i32, i32, i32) {
        let (s_in, _) = self.q(x);
        let scales: Vec<f32> = (0..shape[axis])
            .map(|_| self.rng.logu(2e-3, 5e-2) as f32)
            .collect();
        let s_out = (f64::from(s_in)
            * f64::from(scales[0])
            * depth.sqrt()
            * 42.0
            * self.rng.logu(0.3, 3.0)) as f32;
        let (filter, bias) =
            self.int8_filter_and_bias((shape, axis), (s_in, &scales, true), has_bias);
        let bias = self.int64_bias(bias);
        let out = self.act(TensorType::INT16, out_shape, Some((s_out, 0)));
        (filter, bias, out)
    }

    /// The int32 constant bias `bias` (or -1, none) as the int64 bias of the 16x8 kernels: the
    /// same quantization, values widened and sometimes beyond int32's range.
    fn int64_bias(&mut self, bias: i32) -> i32 {
        if bias < 0 {
            return bias;
        }
        let old = self.m.tensors[bias as usize].clone();
        let n = elements(&old.shape.clone().unwrap_or_default()) as usize;
        let values: Vec<i64> = (0..n)
            .map(|_| i64::from(self.rng.int(-300_000, 300_000)))
            .collect();
        let mut t = TensorSpec::new(TensorType::INT64, &old.shape.unwrap_or_default())
            .constant_i64(&values);
        t.quantization = old.quantization;
        self.m.tensor(t)
    }

    /// TRANSPOSE_CONV of `x` with TensorFlow's output size for the padding (`h * stride` for SAME,
    /// `(h - 1) * stride + filter` for VALID), per-channel or per-tensor int8 weights (int16
    /// activations: per-channel, with an int64 bias) or float ones, and a bias or none.
    pub(super) fn transpose_conv(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let (n, h, w, cin) = (s[0], s[1], s[2], s[3]);
        let (kh, kw) = (self.rng.int(1, 4), self.rng.int(1, 4));
        let (sh, sw) = (self.rng.pick(&[1, 2, 2, 3]), self.rng.pick(&[1, 2, 2, 3]));
        let padding = self.rng.pick(&[Padding::SAME, Padding::VALID]);
        let out_dim = |size: i32, k: i32, stride: i32| {
            if padding == Padding::SAME {
                size * stride
            } else {
                (size - 1) * stride + k
            }
        };
        let cout = self.rng.int(1, 4);
        let out_shape = vec![n, out_dim(h, kh, sh), out_dim(w, kw, sw), cout];
        let filter_shape = vec![cout, kh, kw, cin];
        // Each output element sums about kh * kw * cin / (sh * sw) products.
        let depth = f64::from((kh * kw * cin).max(sh * sw)) / f64::from(sh * sw);
        let activation = self.rng.pick(ACTIVATIONS);
        let has_bias = self.rng.chance(0.8);
        let (filter, bias, out) = if dtype == TensorType::INT8 {
            let (s_in, _) = self.q(x);
            let per_channel = self.rng.chance(0.7);
            let scales: Vec<f32> = (0..if per_channel { cout } else { 1 })
                .map(|_| self.rng.logu(2e-3, 5e-2) as f32)
                .collect();
            let typical = depth.sqrt() * 4096.0 / 90.0;
            let s_out =
                (f64::from(s_in) * f64::from(scales[0]) * typical * self.rng.logu(0.3, 3.0)) as f32;
            let (filter, bias) = self.int8_filter_and_bias(
                (&filter_shape, 0),
                (s_in, &scales, per_channel),
                has_bias,
            );
            let zp = self.zero_point();
            let out = self.act(TensorType::INT8, &out_shape, Some((s_out, zp)));
            (filter, bias, out)
        } else if dtype == TensorType::INT16 {
            self.weights_16x8(x, (&filter_shape, 0), depth, has_bias, &out_shape)
        } else {
            let (filter, bias) = self.f32_filter_and_bias(&filter_shape, cout, has_bias);
            let out = self.act(TensorType::FLOAT32, &out_shape, None);
            (filter, bias, out)
        };
        let shape = self.const_i32(&[4], &out_shape);
        let text = format!(
            "TRANSPOSE_CONV in {} filter {} bias={} stride=({sh},{sw}) pad={} act={} -> {}",
            self.qtext(x),
            self.qtext(filter),
            has_bias,
            pad_name(padding),
            act_name(activation),
            self.qtext(out)
        );
        self.describe(text);
        self.maybe_weights_at_run_time(filter);
        let inputs = self.operands(&[shape, filter, x, bias]);
        let options = Options::TransposeConv {
            padding,
            stride_w: sw,
            stride_h: sh,
            activation,
        };
        self.m.op(B::TRANSPOSE_CONV, options, &inputs, &[out]);
        out
    }

    /// An op's inputs with an absent optional last input (-1) either written as -1 or left out:
    /// TFLite files use both.
    pub(super) fn operands(&mut self, inputs: &[i32]) -> Vec<i32> {
        let mut v = inputs.to_vec();
        if v.last() == Some(&-1) && self.rng.chance(0.5) {
            v.pop();
            self.describe("(bias input omitted)".to_string());
        }
        v
    }

    pub(super) fn pool(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let fh = self.rng.int(1, 3);
        let fw = self.rng.int(1, 3);
        let sh = self.rng.int(1, 2);
        let sw = self.rng.int(1, 2);
        let mut padding = self.rng.pick(&[Padding::SAME, Padding::VALID]);
        if s[1] < fh || s[2] < fw {
            padding = Padding::SAME;
        }
        let out_dim = |size: i32, f: i32, stride: i32| {
            if padding == Padding::SAME {
                (size + stride - 1) / stride
            } else {
                (size - f + stride) / stride
            }
        };
        let out_shape = vec![s[0], out_dim(s[1], fh, sh), out_dim(s[2], fw, sw), s[3]];
        let activation = self.rng.pick(ACTIVATIONS);
        let dtype = self.dtype(x);
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let quant = quantized.then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "{} in {} filter=({fh},{fw}) stride=({sh},{sw}) pad={} act={} -> {}",
            op_name(op),
            self.qtext(x),
            pad_name(padding),
            act_name(activation),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            op,
            Options::pool(padding, (sw, sh), (fw, fh), activation),
            &[x],
            &[out],
        );
        out
    }
}

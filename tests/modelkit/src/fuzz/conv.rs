//! Convolutions, depthwise and transposed convolutions and pools on rank-4 values, and
//! FULLY_CONNECTED.

use super::{elements, FuzzOp, Gen, Value};
use crate::{BuiltinOperator as B, Options, Padding, TensorSpec, WeightsFormat};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::AVERAGE_POOL_2D, |g, op| g.image_op(op, false)),
    FuzzOp::new(B::BATCH_MATMUL, batch_matmul),
    FuzzOp::new(B::CONV_2D, |g, op| g.image_op(op, false)),
    FuzzOp::new(B::DEPTHWISE_CONV_2D, |g, op| g.image_op(op, false)),
    FuzzOp::new(B::FULLY_CONNECTED, |g, _| {
        let v = g.latest();
        g.fully_connected(v)
    }),
    FuzzOp::new(B::L2_POOL_2D, |g, op| g.image_op(op, false)),
    FuzzOp::new(B::MAX_POOL_2D, |g, op| g.image_op(op, false)),
    FuzzOp::new(B::TRANSPOSE_CONV, transpose_conv),
];

impl Gen<'_, '_> {
    /// A convolution, depthwise convolution or pool on a rank-4 value; `pointwise`: a 1×1
    /// window with stride 1 (a matrix product).
    pub(super) fn image_op(&mut self, op: B, pointwise: bool) {
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

    pub(super) fn fully_connected(&mut self, v: Value) {
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
}

/// TRANSPOSE_CONV of a rank-4 value: windows up to 3×3, strides 1–2, SAME or VALID, weights
/// `[outputs, kh, kw, channels]` (int8 per channel, or float32), the output shape a constant,
/// the bias now and then absent.
fn transpose_conv(g: &mut Gen<'_, '_>, op: B) {
    let v = g.rank4();
    let shape = g.shape_of(v);
    let (n, h, w, c) = (shape[0], shape[1], shape[2], shape[3]);
    let padding = if g.chance(50) {
        Padding::SAME
    } else {
        Padding::VALID
    };
    let (sh, sw) = (g.int(1, 2), g.int(1, 2));
    let (kh, kw) = (g.int(1, 3), g.int(1, 3));
    let out_dim = |d: i32, k: i32, s: i32| match padding {
        Padding::SAME => d * s,
        _ => (d - 1) * s + k,
    };
    let o = g.outputs();
    let f = g.weights(&[o, kh, kw, c], Some(0));
    let b = g.bias(o, v, &f);
    let out_shape = [n, out_dim(h, kh, sh), out_dim(w, kw, sw), o];
    let fi = g.constant(f);
    let si = g.constant(TensorSpec::int32(&[4]).constant_i32(&out_shape));
    let mut inputs = vec![si, fi, v.index];
    if g.chance(80) {
        let bi = g.constant(b);
        inputs.push(bi);
    }
    let out = g.activation(&out_shape);
    let activation = g.act();
    let options = Options::TransposeConv {
        padding,
        stride_w: sw,
        stride_h: sh,
        activation,
    };
    g.push_op(op, options, &inputs, out);
}

/// The latest value times itself transposed (adj_y).
fn batch_matmul(g: &mut Gen<'_, '_>, op: B) {
    // The latest value times itself transposed (adj_y): [.., M, K] x [.., M, K]^T.
    let v = g.latest();
    let shape = g.shape_of(v);
    if !(2..=5).contains(&shape.len()) {
        return g.emit(B::RELU);
    }
    let mut out_shape = shape.clone();
    let m = shape[shape.len() - 2];
    *out_shape.last_mut().expect("rank 2 or more") = m;
    let out = g.activation(&out_shape);
    let options = Options::BatchMatMul {
        adj_x: false,
        adj_y: true,
    };
    g.push_op(op, options, &[v.index, v.index], out);
}

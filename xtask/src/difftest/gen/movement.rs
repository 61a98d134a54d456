//! Operators that move values without arithmetic: PAD, CONCATENATION, PACK, SPLIT, TRANSPOSE,
//! STRIDED_SLICE and the reshaping ones.

use tinyaot_modelkit::{Activation, BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{act_name, elements, op_name, ACTIVATIONS, G, OpGen};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("CONCATENATION", B::CONCATENATION, concatenation).types(&[
        TensorType::INT32,
        TensorType::INT16,
        TensorType::INT64,
        TensorType::BOOL,
    ]),
    OpGen::new("EXPAND_DIMS", B::EXPAND_DIMS, reshape_like).types(&[TensorType::INT16]),
    OpGen::new("PACK", B::PACK, pack).types(&[
        TensorType::INT32,
        TensorType::INT16,
        TensorType::INT64,
    ]),
    OpGen::new("PAD", B::PAD, pad).types(&[TensorType::INT32, TensorType::INT16]),
    OpGen::new("PADV2", B::PADV2, pad).types(&[TensorType::INT32, TensorType::INT16]),
    OpGen::new("RESHAPE", B::RESHAPE, reshape_like).types(&[
        TensorType::INT32,
        TensorType::INT16,
        TensorType::INT64,
        TensorType::BOOL,
    ]),
    OpGen::new("SPLIT", B::SPLIT, split).types(&[TensorType::INT32, TensorType::INT16]),
    OpGen::new("SPLIT_V", B::SPLIT_V, split).types(&[TensorType::INT32, TensorType::INT16]),
    OpGen::new("SQUEEZE", B::SQUEEZE, reshape_like)
        .types(&[TensorType::INT32, TensorType::INT16]),
    OpGen::new("STRIDED_SLICE", B::STRIDED_SLICE, strided_slice).types(&[
        TensorType::INT32,
        TensorType::INT16,
        TensorType::BOOL,
    ]),
    OpGen::new("TRANSPOSE", B::TRANSPOSE, transpose).types(&[TensorType::INT16]),
];

fn pad(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 4), 1.0);
    Some(g.pad(op, x))
}

fn concatenation(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x) == Some(0) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 4), 1.0);
    Some(g.concat(x))
}

fn pack(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r > 4) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(0, 4, 4), 1.0);
    Some(g.pack(x))
}

fn split(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x) == Some(0) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 1.0);
    Some(g.split(op, x))
}

fn transpose(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r == 0 || r > 5) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 5, 4), 1.0);
    Some(g.transpose(x))
}

fn strided_slice(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let rank = g.rank(x);
    if rank.is_some_and(|r| r == 0 || r > 5) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 1.0);
    g.strided_slice(x, rank.is_none())
}

fn reshape_like(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if op == B::SQUEEZE {
        if let Some(t) = x {
            if !g.shape(t).contains(&1) {
                return None;
            }
        }
    }
    let x = g.take(
        x,
        dtype,
        |g| {
            let mut s = g.random_shape(1, 4, 4);
            if op == B::SQUEEZE && !s.contains(&1) {
                s.insert(0, 1);
            }
            s
        },
        1.0,
    );
    Some(g.reshape_like(op, x))
}

impl<'a> G<'a> {
    pub(super) fn pad(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let mut pads = Vec::new();
        let mut out_shape = Vec::new();
        for &d in &s {
            let before = self.rng.int(0, 2);
            let after = self.rng.int(0, 2);
            pads.push(before);
            pads.push(after);
            out_shape.push(d + before + after);
        }
        let paddings = self.const_i32(&[s.len() as i32, 2], &pads);
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let mut inputs = vec![x, paddings];
        let mut value_text = String::new();
        if op == B::PADV2 && self.rng.chance(0.25) {
            // One in four computes the constant value at run time (issue 32: TFLM's PadPrepare
            // checks only its type, element count and int8 quantization, PadEval reads it per
            // call, tinyaot's pad_dyn likewise): a graph input, any value defined; int8 of the
            // output's quantization, as PadPrepare requires.
            let shape: &[i32] = if self.rng.chance(0.5) { &[1] } else { &[] };
            let q = match (quant, dtype) {
                (Some(q), _) => Some(q),
                (None, TensorType::INT16) => Some((self.q(x).0, 0)),
                _ => None,
            };
            value_text = format!("value={shape:?} at run time");
            inputs.push(self.input(dtype, shape, q, 2.0));
        } else if op == B::PADV2 {
            let shape: &[i32] = if self.rng.chance(0.5) { &[1] } else { &[] };
            let t = if let Some((sc, zp)) = quant {
                let v = self.rng.int(-128, 127) as i8;
                value_text = format!("value={v}");
                TensorSpec::int8(shape, sc, zp).constant_i8(&[v])
            } else if dtype == TensorType::INT16 {
                let v = self.rng.int(-32768, 32767) as i16;
                value_text = format!("value={v}");
                let (sc, _) = self.q(x);
                TensorSpec::new(dtype, shape)
                    .quant(sc, 0)
                    .constant(v.to_le_bytes().to_vec())
            } else if dtype == TensorType::INT32 {
                let v = self.rng.int(-100_000, 100_000);
                value_text = format!("value={v}");
                TensorSpec::new(dtype, shape).constant_i32(&[v])
            } else {
                let v = self.rng.sym(2.0);
                value_text = format!("value={v}");
                TensorSpec::f32(shape).constant_f32(&[v])
            };
            inputs.push(self.m.tensor(t));
        }
        let text = format!(
            "{} {} paddings={pads:?} {value_text} -> {}",
            op_name(op),
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        let options = if op == B::PAD {
            Options::Pad
        } else {
            Options::PadV2
        };
        self.m.op(op, options, &inputs, &[out]);
        out
    }

    pub(super) fn concat(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let rank = s.len() as i32;
        let dtype = self.dtype(x);
        let axis = self.rng.int(0, rank - 1);
        let others = self.rng.int(1, 2);
        let same_quant = self.rng.chance(0.8);
        let mut inputs = vec![x];
        let mut total = s[axis as usize];
        for _ in 0..others {
            let mut shape = s.clone();
            shape[axis as usize] = self.rng.int(1, 3);
            total += shape[axis as usize];
            let quant = (dtype == TensorType::INT8 && same_quant).then(|| self.q(x));
            let t = self.input(dtype, &shape, quant, 1.0);
            inputs.push(t);
        }
        let position = self.rng.int(0, others);
        inputs.swap(0, position as usize);
        let mut out_shape = s.clone();
        out_shape[axis as usize] = total;
        let quant = (dtype == TensorType::INT8 && same_quant).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let written_axis = if self.rng.chance(0.3) {
            axis - rank
        } else {
            axis
        };
        let activation = if self.rng.chance(0.1) {
            self.rng.pick(ACTIVATIONS)
        } else {
            Activation::NONE
        };
        let text = format!(
            "CONCATENATION axis={written_axis} act={} [{}] -> {}",
            act_name(activation),
            inputs
                .iter()
                .map(|&t| self.qtext(t))
                .collect::<Vec<_>>()
                .join(", "),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            B::CONCATENATION,
            Options::Concatenation {
                axis: written_axis,
                activation,
            },
            &inputs,
            &[out],
        );
        out
    }

    /// PACK of `x` and one to three more inputs of its shape (quantized alike or not: TFLM's
    /// PACK copies bytes), along a new axis anywhere, written negative at times.
    pub(super) fn pack(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let rank = s.len() as i32;
        let dtype = self.dtype(x);
        let axis = self.rng.int(0, rank);
        let others = self.rng.int(1, 3);
        let mut inputs = vec![x];
        for _ in 0..others {
            let quant = (dtype == TensorType::INT8 && self.rng.chance(0.7)).then(|| self.q(x));
            inputs.push(self.input(dtype, &s, quant, 1.0));
        }
        let position = self.rng.int(0, others);
        inputs.swap(0, position as usize);
        let mut out_shape = s.clone();
        out_shape.insert(axis as usize, others + 1);
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let written_axis = if self.rng.chance(0.3) {
            axis - (rank + 1)
        } else {
            axis
        };
        let text = format!(
            "PACK axis={written_axis} [{}] -> {}",
            inputs
                .iter()
                .map(|&t| self.qtext(t))
                .collect::<Vec<_>>()
                .join(", "),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            B::PACK,
            Options::Pack {
                values_count: others + 1,
                axis: written_axis,
            },
            &inputs,
            &[out],
        );
        out
    }

    /// SPLIT (the axis a constant input before the data, equal parts) or SPLIT_V (sizes, one of
    /// them -1 now and then, the axis after the data) of `x` into 1 to 4 outputs along a random
    /// axis, written negative at times; the case goes on with one of the outputs, the others are
    /// computed and left unread.
    pub(super) fn split(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let rank = s.len() as i32;
        let dtype = self.dtype(x);
        let axis = self.rng.int(-rank, rank - 1);
        let a = if axis < 0 { axis + rank } else { axis } as usize;
        let d = s[a];
        let sizes: Vec<i32> = if op == B::SPLIT {
            let divisors: Vec<i32> = (1..=4).filter(|n| d % n == 0).collect();
            let n = self.rng.pick(&divisors);
            vec![d / n; n as usize]
        } else {
            let mut left = d;
            let mut sizes = Vec::new();
            while left > 0 && sizes.len() < 3 {
                let part = self.rng.int(1, left);
                sizes.push(part);
                left -= part;
            }
            if left > 0 {
                sizes.push(left);
            }
            if sizes.len() > 1 && self.rng.chance(0.3) {
                let i = self.rng.int(0, sizes.len() as i32 - 1) as usize;
                sizes[i] = -1;
            }
            sizes
        };
        let axis_t = self.const_i32(&[], &[axis]);
        let num_splits = sizes.len() as i32;
        let inputs = if op == B::SPLIT {
            vec![axis_t, x]
        } else {
            let sizes_t = self.const_i32(&[num_splits], &sizes);
            vec![x, sizes_t, axis_t]
        };
        let total: i32 = sizes.iter().filter(|&&size| size >= 0).sum();
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let quant = quantized.then(|| self.q(x));
        let outputs: Vec<i32> = sizes
            .iter()
            .map(|&size| {
                let mut shape = s.clone();
                shape[a] = if size < 0 { d - total } else { size };
                self.act(dtype, &shape, quant)
            })
            .collect();
        let text = format!(
            "{} {} axis={axis} sizes={sizes:?} -> [{}]",
            op_name(op),
            self.qtext(x),
            outputs
                .iter()
                .map(|&t| self.qtext(t))
                .collect::<Vec<_>>()
                .join(", ")
        );
        self.describe(text);
        let options = if op == B::SPLIT {
            Options::Split { num_splits }
        } else {
            Options::SplitV { num_splits }
        };
        self.m.op(op, options, &inputs, &outputs);
        let pick = self.rng.int(0, num_splits - 1) as usize;
        outputs[pick]
    }

    pub(super) fn transpose(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let perm = self.rng.permutation(s.len());
        let out_shape: Vec<i32> = perm.iter().map(|&p| s[p]).collect();
        let perm_values: Vec<i32> = perm.iter().map(|&p| p as i32).collect();
        let p = self.const_i32(&[perm.len() as i32], &perm_values);
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "TRANSPOSE {} perm={perm_values:?} -> {}",
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(B::TRANSPOSE, Options::Transpose, &[x, p], &[out]);
        out
    }

    pub(super) fn strided_slice(&mut self, x: i32, _fresh: bool) -> Option<i32> {
        let s = self.shape(x);
        let rank = s.len();
        let dtype = self.dtype(x);
        for _ in 0..20 {
            let mut begin = Vec::new();
            let mut end = Vec::new();
            let mut strides = Vec::new();
            let (mut begin_mask, mut end_mask, mut shrink) = (0i32, 0i32, 0i32);
            let mut out_shape = Vec::new();
            let mut ok = true;
            for (d, &n) in s.iter().enumerate() {
                let stride = match self.rng.unit() {
                    u if u < 0.7 => 1,
                    u if u < 0.85 => 2,
                    _ => -1,
                };
                let b = self.rng.int(-n, n - 1);
                let e = self.rng.int(-n, n);
                if self.rng.chance(0.2) {
                    begin_mask |= 1 << d;
                }
                if self.rng.chance(0.2) {
                    end_mask |= 1 << d;
                }
                let shrink_axis = stride > 0 && self.rng.chance(0.1);
                if shrink_axis {
                    shrink |= 1 << d;
                }
                begin.push(b);
                end.push(e);
                strides.push(stride);
                // TFLM's strided_slice_logic.h, StartForAxis / StopForAxis (offset false).
                let mut start = if begin_mask & (1 << d) != 0 {
                    if stride > 0 {
                        i32::MIN
                    } else {
                        i32::MAX
                    }
                } else {
                    b
                };
                if start < 0 {
                    start = start.saturating_add(n);
                }
                start = if stride > 0 {
                    start.clamp(0, n)
                } else {
                    start.clamp(-1, n - 1)
                };
                let stop = if shrink_axis {
                    start + 1
                } else {
                    let mut stop = if end_mask & (1 << d) != 0 {
                        if stride > 0 {
                            i32::MAX
                        } else {
                            i32::MIN
                        }
                    } else {
                        e
                    };
                    if stop < 0 {
                        stop = stop.saturating_add(n);
                    }
                    if stride > 0 {
                        stop.clamp(0, n)
                    } else {
                        stop.clamp(-1, n - 1)
                    }
                };
                let len = if stride > 0 {
                    if stop > start {
                        (stop - start + stride - 1) / stride
                    } else {
                        0
                    }
                } else if start > stop {
                    (start - stop - stride - 1) / -stride
                } else {
                    0
                };
                if len < 1 || (shrink_axis && len != 1) {
                    ok = false;
                }
                if !shrink_axis {
                    out_shape.push(len);
                }
            }
            if !ok {
                continue;
            }
            let r = rank as i32;
            let tb = self.const_i32(&[r], &begin);
            let te = self.const_i32(&[r], &end);
            let ts = self.const_i32(&[r], &strides);
            let quant = (dtype == TensorType::INT8).then(|| self.q(x));
            let out = self.act(dtype, &out_shape, quant);
            let text = format!(
                "STRIDED_SLICE {} begin={begin:?} end={end:?} strides={strides:?} begin_mask={begin_mask} end_mask={end_mask} shrink={shrink} -> {}",
                self.qtext(x),
                self.qtext(out)
            );
            self.describe(text);
            self.m.op(
                B::STRIDED_SLICE,
                Options::StridedSlice {
                    begin_mask,
                    end_mask,
                    ellipsis_mask: 0,
                    new_axis_mask: 0,
                    shrink_axis_mask: shrink,
                    offset: false,
                },
                &[x, tb, te, ts],
                &[out],
            );
            return Some(out);
        }
        None
    }

    pub(super) fn reshape_like(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let (out_shape, inputs, options, text) = match op {
            B::RESHAPE => {
                // Factor the element count into up to 4 dimensions (an empty tensor, which a
                // branch can make, into ones and a last 0).
                let count = elements(&s) as i32;
                let mut left = count;
                let rank = self.rng.int(1, 4);
                let mut shape = Vec::new();
                for _ in 1..rank {
                    let divisors: Vec<i32> = (1..=left.max(1)).filter(|d| left % d == 0).collect();
                    let d = self.rng.pick(&divisors);
                    shape.push(d);
                    left /= d;
                }
                shape.push(left);
                let mut written = shape.clone();
                // No -1 for an empty tensor: its size would be 0 / 0.
                if count > 0 && self.rng.chance(0.3) {
                    let i = self.rng.int(0, rank - 1) as usize;
                    written[i] = -1;
                }
                let (inputs, options) = match self.rng.int(0, 2) {
                    0 => (
                        vec![x],
                        Options::Reshape {
                            new_shape: Some(written.clone()),
                        },
                    ),
                    1 => {
                        let t = self.const_i32(&[rank], &written);
                        (vec![x, t], Options::Reshape { new_shape: None })
                    }
                    _ => {
                        let t = self.const_i32(&[rank], &written);
                        (
                            vec![x, t],
                            Options::Reshape {
                                new_shape: Some(written.clone()),
                            },
                        )
                    }
                };
                (shape, inputs, options, format!("new_shape={written:?}"))
            }
            B::SQUEEZE => {
                let ones: Vec<usize> = (0..s.len()).filter(|&i| s[i] == 1).collect();
                let dims: Vec<usize> = if self.rng.chance(0.4) {
                    Vec::new()
                } else {
                    let k = self.rng.range(1, ones.len() as i64) as usize;
                    let order = self.rng.permutation(ones.len());
                    order.into_iter().take(k).map(|i| ones[i]).collect()
                };
                let squeezed: Vec<usize> = if dims.is_empty() { ones } else { dims.clone() };
                let shape: Vec<i32> = (0..s.len())
                    .filter(|i| !squeezed.contains(i))
                    .map(|i| s[i])
                    .collect();
                let written: Vec<i32> = dims
                    .iter()
                    .map(|&d| {
                        if self.rng.chance(0.3) {
                            d as i32 - s.len() as i32
                        } else {
                            d as i32
                        }
                    })
                    .collect();
                (
                    shape,
                    vec![x],
                    Options::Squeeze {
                        squeeze_dims: written.clone(),
                    },
                    format!("squeeze_dims={written:?}"),
                )
            }
            _ => {
                let r = s.len() as i32;
                let axis = self.rng.int(-(r + 1), r);
                let at = if axis < 0 { axis + r + 1 } else { axis } as usize;
                let mut shape = s.clone();
                shape.insert(at, 1);
                let axis_shape: &[i32] = if self.rng.chance(0.5) { &[1] } else { &[] };
                let t = self.const_i32(axis_shape, &[axis]);
                (
                    shape,
                    vec![x, t],
                    Options::ExpandDims,
                    format!("axis={axis}"),
                )
            }
        };
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "{} {} {text} -> {}",
            op_name(op),
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, options, &inputs, &[out]);
        out
    }
}

//! Resampling and layout operators: RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR, DEPTH_TO_SPACE,
//! SPACE_TO_DEPTH, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND and MIRROR_PAD, their outputs of the input's quantization (what TFLM copies or
//! interpolates).

use super::{FuzzOp, Gen};
use crate::{BuiltinOperator as B, Options, TensorSpec};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::BATCH_TO_SPACE_ND, |g, op| g.resample(op)),
    FuzzOp::new(B::DEPTH_TO_SPACE, |g, op| g.resample(op)),
    FuzzOp::new(B::MIRROR_PAD, |g, op| g.resample(op)),
    FuzzOp::new(B::RESIZE_BILINEAR, |g, op| g.resample(op)),
    FuzzOp::new(B::RESIZE_NEAREST_NEIGHBOR, |g, op| g.resample(op)),
    FuzzOp::new(B::SPACE_TO_BATCH_ND, |g, op| g.resample(op)),
    FuzzOp::new(B::SPACE_TO_DEPTH, |g, op| g.resample(op)),
];

impl Gen<'_, '_> {
    /// Appends one of this module's operators to the chain.
    pub(super) fn resample(&mut self, op: B) {
        match op {
            B::RESIZE_NEAREST_NEIGHBOR | B::RESIZE_BILINEAR => {
                let v = self.rank4();
                let s = self.shape_of(v);
                let (h, w) = (self.int(1, 9), self.int(1, 9));
                let size = self.constant(TensorSpec::int32(&[2]).constant_i32(&[h, w]));
                let align_corners = self.chance(30);
                // TFLM's bilinear refuses both flags; its nearest neighbour takes them.
                let half_pixel_centers =
                    !(align_corners && op == B::RESIZE_BILINEAR) && self.chance(50);
                let out_t = self.same_quant(v, &[s[0], h, w, s[3]]);
                let options = Options::Resize {
                    bilinear: op == B::RESIZE_BILINEAR,
                    align_corners,
                    half_pixel_centers,
                };
                self.push_op(op, options, &[v.index, size], out_t);
            }
            B::DEPTH_TO_SPACE | B::SPACE_TO_DEPTH => {
                let v = self.rank4();
                let s = self.shape_of(v);
                let to_depth = op == B::SPACE_TO_DEPTH;
                let fits: Vec<i32> = (1..=3)
                    .filter(|&b| {
                        if to_depth {
                            s[1] % b == 0 && s[2] % b == 0
                        } else {
                            s[3] % (b * b) == 0
                        }
                    })
                    .collect();
                let b = self.pick(&fits);
                let out = if to_depth {
                    [s[0], s[1] / b, s[2] / b, s[3] * b * b]
                } else {
                    [s[0], s[1] * b, s[2] * b, s[3] / (b * b)]
                };
                let out_t = self.same_quant(v, &out);
                let options = Options::BlockSize {
                    to_depth,
                    block_size: b,
                };
                self.push_op(op, options, &[v.index], out_t);
            }
            B::SPACE_TO_BATCH_ND | B::BATCH_TO_SPACE_ND => {
                // Without padding (TFLM pads with a value it never sets); crops of nothing, or
                // now and then of the top row (part of a block when it is taller than 1).
                let v = self.rank4();
                let s = self.shape_of(v);
                let to_batch = op == B::SPACE_TO_BATCH_ND;
                let fits: Vec<(i32, i32)> = [(1, 1), (1, 2), (2, 1), (2, 2)]
                    .into_iter()
                    .filter(|&(bh, bw)| {
                        if to_batch {
                            s[1] % bh == 0 && s[2] % bw == 0
                        } else {
                            s[0] % (bh * bw) == 0
                        }
                    })
                    .collect();
                let (bh, bw) = self.pick(&fits);
                let mut block = self.constant(TensorSpec::int32(&[2]).constant_i32(&[bh, bw]));
                let top = i32::from(!to_batch && s[1] * bh > 1 && self.chance(30));
                let mut margins =
                    self.constant(TensorSpec::int32(&[2, 2]).constant_i32(&[top, 0, 0, 0]));
                // Now and then the block, the margins or both are INT32 graph inputs of any
                // values (TFLM's Eval reads them per call), so that parity's random models run
                // space_to_batch_dyn and batch_to_space_dyn in Rust and C, their zeros where
                // TFLM is undefined included.
                if self.chance(20) {
                    let which = self.int(0, 2);
                    for (k, (t, shape)) in [(&mut block, &[2][..]), (&mut margins, &[2, 2][..])]
                        .into_iter()
                        .enumerate()
                    {
                        if which == 2 || which == k as i32 {
                            *t = self.graph_input(TensorSpec::int32(shape));
                        }
                    }
                }
                let out = if to_batch {
                    [s[0] * bh * bw, s[1] / bh, s[2] / bw, s[3]]
                } else {
                    [s[0] / (bh * bw), s[1] * bh - top, s[2] * bw, s[3]]
                };
                let out_t = self.same_quant(v, &out);
                self.push_op(op, Options::None, &[v.index, block, margins], out_t);
            }
            _ => {
                // MIRROR_PAD, within the paddings TFLM reads in bounds (constant ones).
                let v = self.latest();
                let shape = self.shape_of(v);
                let symmetric = self.chance(50);
                let (mut pads, mut out) = (Vec::new(), Vec::new());
                for &d in &shape {
                    let most = (if symmetric { d } else { d - 1 }).clamp(0, 2);
                    let (a, b) = (self.int(0, most), self.int(0, most));
                    pads.extend([a, b]);
                    out.push(d + a + b);
                }
                let rank = shape.len() as i32;
                // Now and then the paddings are a graph input (INT32 or INT64), computed at run
                // time, of any values: TFLM reads them at Eval, and tinyaot's mirror_pad_dyn
                // must stay in bounds (zeros) where TFLM would read out of them.
                let p = if self.chance(20) {
                    let dtype = if self.chance(30) {
                        crate::TensorType::INT64
                    } else {
                        crate::TensorType::INT32
                    };
                    self.graph_input(TensorSpec::new(dtype, &[rank, 2]))
                } else {
                    self.constant(TensorSpec::int32(&[rank, 2]).constant_i32(&pads))
                };
                let out_t = self.same_quant(v, &out);
                self.push_op(op, Options::MirrorPad { symmetric }, &[v.index, p], out_t);
            }
        }
    }
}

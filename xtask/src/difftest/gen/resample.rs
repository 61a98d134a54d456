//! Resampling and layout: RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR, DEPTH_TO_SPACE, SPACE_TO_DEPTH,
//! SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND and MIRROR_PAD.

use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorType};

use super::{op_name, G, OpGen};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("BATCH_TO_SPACE_ND", B::BATCH_TO_SPACE_ND, batch_space),
    OpGen::new("DEPTH_TO_SPACE", B::DEPTH_TO_SPACE, depth_space),
    OpGen::new("MIRROR_PAD", B::MIRROR_PAD, mirror_pad),
    OpGen::new("RESIZE_BILINEAR", B::RESIZE_BILINEAR, resize),
    OpGen::new("RESIZE_NEAREST_NEIGHBOR", B::RESIZE_NEAREST_NEIGHBOR, resize)
        .types(&[TensorType::INT16]),
    OpGen::new("SPACE_TO_BATCH_ND", B::SPACE_TO_BATCH_ND, batch_space),
    OpGen::new("SPACE_TO_DEPTH", B::SPACE_TO_DEPTH, depth_space),
];

fn resize(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r != 4) {
        return None;
    }
    let x = g.take(x, dtype, G::image_shape, 1.0);
    Some(g.resize(op, x))
}

fn depth_space(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r != 4) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.block_input_shape(op), 1.0);
    Some(g.depth_space(op, x))
}

fn batch_space(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r != 4) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.batch_space_input_shape(op), 1.0);
    Some(g.batch_space(op, x))
}

fn mirror_pad(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r == 0 || r > 4) {
        return None;
    }
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 4), 1.0);
    Some(g.mirror_pad(x))
}

impl<'a> G<'a> {
    /// RESIZE_NEAREST_NEIGHBOR or RESIZE_BILINEAR of the 4-D `x` to a random constant size (up
    /// or down, each axis on its own) with random align_corners and half_pixel_centers (for
    /// bilinear both now and then: TFLM's Prepare refuses that). The output keeps the input's
    /// quantization, as the converter writes it (TFLM copies or interpolates the integers).
    pub(super) fn resize(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let (h, w) = (self.rng.int(1, 12), self.rng.int(1, 12));
        let size = self.const_i32(&[2], &[h, w]);
        let bilinear = op == B::RESIZE_BILINEAR;
        let align_corners = self.rng.chance(0.35);
        let half_pixel_centers = if align_corners {
            // Both: TFLM's nearest neighbour takes it, its bilinear refuses it.
            self.rng.chance(if bilinear { 0.05 } else { 0.3 })
        } else {
            self.rng.chance(0.5)
        };
        let quant = matches!(dtype, TensorType::INT8 | TensorType::INT16).then(|| self.q(x));
        let out = self.act(dtype, &[s[0], h, w, s[3]], quant);
        let text = format!(
            "{} {} size=[{h}, {w}] align_corners={align_corners} \
             half_pixel_centers={half_pixel_centers} -> {}",
            op_name(op),
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        let options = Options::Resize {
            bilinear,
            align_corners,
            half_pixel_centers,
        };
        self.m.op(op, options, &[x, size], &[out]);
        out
    }
}

impl<'a> G<'a> {
    /// A fresh input for DEPTH_TO_SPACE (its depth a multiple of a block size squared) or
    /// SPACE_TO_DEPTH (its height and width multiples of one).
    pub(super) fn block_input_shape(&mut self, op: B) -> Vec<i32> {
        let b = self.rng.int(1, 3);
        let n = if self.rng.chance(0.1) { 2 } else { 1 };
        if op == B::DEPTH_TO_SPACE {
            vec![
                n,
                self.rng.int(1, 4),
                self.rng.int(1, 4),
                b * b * self.rng.int(1, 3),
            ]
        } else {
            vec![
                n,
                b * self.rng.int(1, 3),
                b * self.rng.int(1, 3),
                self.rng.int(1, 4),
            ]
        }
    }

    /// DEPTH_TO_SPACE or SPACE_TO_DEPTH of the 4-D `x` by a random block size that fits it (1
    /// always does). The output keeps the input's quantization.
    pub(super) fn depth_space(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
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
        let b = self.rng.pick(&fits);
        let out_shape = if to_depth {
            vec![s[0], s[1] / b, s[2] / b, s[3] * b * b]
        } else {
            vec![s[0], s[1] * b, s[2] * b, s[3] / (b * b)]
        };
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "{} {} block_size={b} -> {}",
            op_name(op),
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        let options = Options::BlockSize {
            to_depth,
            block_size: b,
        };
        self.m.op(op, options, &[x], &[out]);
        out
    }
}

impl<'a> G<'a> {
    /// MIRROR_PAD of `x`, REFLECT or SYMMETRIC, by random paddings within what TFLM reads in
    /// bounds (up to the size less one for REFLECT, the size for SYMMETRIC, at most 3), given as
    /// INT32 or now and then INT64. The output keeps the input's quantization. One in four
    /// computes its paddings at run time ([`G::paddings_at_run_time`]).
    pub(super) fn mirror_pad(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let symmetric = self.rng.chance(0.5);
        let mut pads = Vec::new();
        let mut most = Vec::new();
        let mut out_shape = Vec::new();
        for &d in &s {
            let m = (if symmetric { d } else { d - 1 }).clamp(0, 3);
            let (before, after) = (self.rng.int(0, m), self.rng.int(0, m));
            pads.extend([before, after]);
            most.push(m);
            out_shape.push(d + before + after);
        }
        let shape = [s.len() as i32, 2];
        let wide = self.rng.chance(0.2);
        let (paddings, pads_text) = if self.rng.chance(0.25) {
            self.paddings_at_run_time(&shape, &most, wide)
        } else if wide {
            let wide: Vec<i64> = pads.iter().map(|&p| i64::from(p)).collect();
            let t = self.m.tensor(
                tinyaot_modelkit::TensorSpec::new(TensorType::INT64, &shape).constant_i64(&wide),
            );
            (t, format!("{pads:?}"))
        } else {
            (self.const_i32(&shape, &pads), format!("{pads:?}"))
        };
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let mode = if symmetric { "SYMMETRIC" } else { "REFLECT" };
        let text = format!(
            "MIRROR_PAD {} {mode} paddings={pads_text} -> {}",
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            B::MIRROR_PAD,
            Options::MirrorPad { symmetric },
            &[x, paddings],
            &[out],
        );
        out
    }

    /// MIRROR_PAD paddings `[rank, 2]` computed at run time (issue 32: TFLM's Prepare reads only
    /// their shape, its Eval their values, tinyaot's `mirror_pad_dyn` likewise): a graph input of
    /// random INT32 (or, `wide`, INT64) values clamped by MAXIMUM and MINIMUM to constant bounds
    /// within what TFLM reads in bounds whatever the input: a left padding of dimension `d` in
    /// `[-3, most[d]]` (a negative one reads in bounds too), a right one (never read) in
    /// `[-3, 3]`. The output's shape stays the one drawn for the constant paddings, which TFLM
    /// keeps whatever the values. Returns the tensor and its text.
    fn paddings_at_run_time(&mut self, shape: &[i32; 2], most: &[i32], wide: bool) -> (i32, String) {
        let mut low = Vec::new();
        let mut high = Vec::new();
        for &m in most {
            let left_low = -self.rng.int(0, 3);
            low.extend([left_low, -self.rng.int(0, 3)]);
            high.extend([self.rng.int(left_low.max(0), m), self.rng.int(0, 3)]);
        }
        let dtype = if wide {
            TensorType::INT64
        } else {
            TensorType::INT32
        };
        let bound = |g: &mut G<'_>, values: &[i32]| {
            let t = tinyaot_modelkit::TensorSpec::new(dtype, shape);
            g.m.tensor(if wide {
                t.constant_i64(&values.iter().map(|&v| i64::from(v)).collect::<Vec<_>>())
            } else {
                t.constant_i32(values)
            })
        };
        let raw = self.input(dtype, shape, None, 1.0);
        let (low_t, high_t) = (bound(self, &low), bound(self, &high));
        let floored = self.act(dtype, shape, None);
        self.m.op(B::MAXIMUM, Options::None, &[raw, low_t], &[floored]);
        let pads = self.act(dtype, shape, None);
        self.m.op(B::MINIMUM, Options::None, &[floored, high_t], &[pads]);
        let text = format!(
            "{}{:?} clamped to {low:?}..={high:?} at run time",
            if wide { "i64" } else { "i32" },
            shape
        );
        (pads, text)
    }
}

impl<'a> G<'a> {
    /// A fresh input for SPACE_TO_BATCH_ND (height and width multiples of a block) or
    /// BATCH_TO_SPACE_ND (its batch a multiple of a block's size).
    pub(super) fn batch_space_input_shape(&mut self, op: B) -> Vec<i32> {
        let (bh, bw) = (self.rng.int(1, 3), self.rng.int(1, 3));
        let c = self.rng.int(1, 3);
        if op == B::SPACE_TO_BATCH_ND {
            vec![
                self.rng.int(1, 2),
                bh * self.rng.int(1, 3),
                bw * self.rng.int(1, 3),
                c,
            ]
        } else {
            vec![
                bh * bw * self.rng.int(1, 2),
                self.rng.int(1, 3),
                self.rng.int(1, 3),
                c,
            ]
        }
    }

    /// SPACE_TO_BATCH_ND without padding (TFLM pads with a value it never sets) or
    /// BATCH_TO_SPACE_ND with crops of whole blocks or, half the time, of any rows and columns, of
    /// the 4-D `x`, by random blocks that fit it (1x1 always does), one in four computed at run
    /// time. The output keeps the input's quantization.
    pub(super) fn batch_space(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let to_batch = op == B::SPACE_TO_BATCH_ND;
        let fits: Vec<(i32, i32)> = (1..=3)
            .flat_map(|bh| (1..=3).map(move |bw| (bh, bw)))
            .filter(|&(bh, bw)| {
                if to_batch {
                    s[1] % bh == 0 && s[2] % bw == 0
                } else {
                    s[0] % (bh * bw) == 0
                }
            })
            .collect();
        let (bh, bw) = self.rng.pick(&fits);
        let (margins, out_shape) = if to_batch {
            ([0; 4], vec![s[0] * bh * bw, s[1] / bh, s[2] / bw, s[3]])
        } else {
            // Whole blocks, or any rows and columns (part of a block too), leaving at least one
            // row and column.
            let (tall, wide) = (s[1] * bh, s[2] * bw);
            let m = if self.rng.chance(0.5) {
                let (top, bottom) = (self.rng.int(0, s[1] - 1), 0);
                let left = self.rng.int(0, s[2] - 1);
                let right = self.rng.int(0, s[2] - 1 - left);
                [top * bh, bottom * bh, left * bw, right * bw]
            } else {
                let top = self.rng.int(0, tall - 1);
                let bottom = self.rng.int(0, tall - 1 - top);
                let left = self.rng.int(0, wide - 1);
                let right = self.rng.int(0, wide - 1 - left);
                [top, bottom, left, right]
            };
            let out = vec![
                s[0] / (bh * bw),
                tall - m[0] - m[1],
                wide - m[2] - m[3],
                s[3],
            ];
            (m, out)
        };
        // One in four computes the block and margins at run time (issue 32: TFLM's Prepare
        // reads neither, its Eval both per call over the output's static shape, tinyaot's
        // space_to_batch_dyn and batch_to_space_dyn likewise): random INT32 graph inputs clamped
        // by MAXIMUM and MINIMUM to the drawn block and to margins where TFLM pads nothing
        // (SPACE_TO_BATCH_ND: top and left 0) and writes every output pixel (BATCH_TO_SPACE_ND:
        // a top crop in [0, top + bottom], a left one in [0, left + right]) whatever they are;
        // the bottom and right ones, never read, in [-3, 3].
        let (block, margins_t, at_run_time) = if self.rng.chance(0.25) {
            let block = self.clamped_control(false, &[2], &[bh, bw], &[bh, bw]);
            let (low, high) = if to_batch {
                ([0, -3, 0, -3], [0, 3, 0, 3])
            } else {
                let [top, bottom, left, right] = margins;
                ([0, -3, 0, -3], [top + bottom, 3, left + right, 3])
            };
            let margins_t = self.clamped_control(false, &[2, 2], &low, &high);
            let text = format!(" (at run time, margins clamped to {low:?}..={high:?})");
            (block, margins_t, text)
        } else {
            let block = self.const_i32(&[2], &[bh, bw]);
            (block, self.const_i32(&[2, 2], &margins), String::new())
        };
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "{} {} block=[{bh}, {bw}] margins={margins:?}{at_run_time} -> {}",
            op_name(op),
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, Options::None, &[x, block, margins_t], &[out]);
        out
    }
}

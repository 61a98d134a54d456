//! TFLM's `TFLite_Detection_PostProcess` custom operator, the last step of SSD detectors: decodes
//! float32 box encodings against anchors (centre-size to corners, in double precision), keeps
//! the scores at or above a threshold, and selects boxes by non-maximum suppression, either fast
//! (each anchor by its best classes) or regular (each class on its own, then the best across
//! classes), writing float32 boxes, classes, scores and the detection count as TFLM's Micro
//! kernel writes them.
//!
//! Orders are TFLM's: its full arg sort (a stable merge sort by decreasing score) orders equal
//! scores by position, and its partial arg sort (`std::partial_sort` by decreasing score, then
//! increasing position) is reproduced step for step as libstdc++ implements it (a heap select,
//! then a heap sort), so that even a NaN score, which breaks the comparison's strict weak order,
//! orders the classes as TFLM's build does. The scores the full sort sees are never NaN (only
//! scores at or above the threshold are kept), and on those both sorts agree with the same
//! partial sort run to the end, which is what this module uses for both.

use crate::kernels::Within;
use crate::Src;

/// Constant parameters of [`detection_postprocess`]. Box `i` is anchor `i`; the class scores of
/// box `i` are `classes_with_background` floats from `i * classes_with_background`, of which the
/// first `classes_with_background - num_classes` (0 or 1) is the background class, skipped.
#[derive(Clone, Copy, Debug)]
pub struct DetectionPostProcess {
    /// Boxes (anchors): the box encodings' second dimension.
    pub num_boxes: usize,
    /// Floats per box encoding (the box encodings' last dimension, at least 4: the first four
    /// are y, x, h and w).
    pub box_stride: usize,
    /// Classes scored, the options' `num_classes`.
    pub num_classes: usize,
    /// Floats per box of the class predictions (its last dimension): `num_classes`, or one more
    /// for a leading background class.
    pub classes_with_background: usize,
    /// The options' `max_detections`.
    pub max_detections: usize,
    /// Fast mode: classes reported per selected box, `min(max_classes_per_detection,
    /// num_classes)`.
    pub classes_per_detection: usize,
    /// Regular mode: boxes a class keeps at most, the options' `detections_per_class`.
    pub detections_per_class: usize,
    /// Regular non-maximum suppression (the options' `use_regular_nms`); else the fast one.
    pub regular: bool,
    /// Scores kept: those at or above this (`nms_score_threshold`).
    pub score_threshold: f32,
    /// A box is suppressed by a better one when their intersection over union is above this
    /// (`nms_iou_threshold`, in (0, 1]).
    pub iou_threshold: f32,
    /// Divisor of the encodings' y (`y_scale`).
    pub y_scale: f32,
    /// Divisor of the encodings' x (`x_scale`).
    pub x_scale: f32,
    /// Divisor of the encodings' h (`h_scale`).
    pub h_scale: f32,
    /// Divisor of the encodings' w (`w_scale`).
    pub w_scale: f32,
    /// Detections the outputs hold for the writes: TFLM writes at most this many (regular:
    /// `max_detections`; fast, at its offsets: `classes_per_detection² · min(num_boxes,
    /// max_detections)`). Where TFLM's Invoke fails (a decoded box with `ymin >= ymax` or
    /// `xmin >= xmax`), the kernel writes zeros to this many detections and a count of 0.
    pub slots: usize,
}

/// The scratch memory [`detection_postprocess`] needs, in bytes: the decoded boxes (16 bytes
/// each), three index lists of one entry per box (kept scores, their order, the selection), then
/// for the fast mode each box's best score and a class order, for the regular mode five lists of
/// [`candidates`] entries.
pub const fn scratch_bytes(
    num_boxes: usize,
    num_classes: usize,
    max_detections: usize,
    detections_per_class: usize,
    regular: bool,
) -> usize {
    let common = 28 * num_boxes;
    if regular {
        common + 20 * candidates(num_boxes, max_detections, detections_per_class)
    } else {
        common + 4 * num_boxes + 4 * num_classes
    }
}

/// Regular mode: the most candidates held at once, `max_detections` kept from the classes before
/// and at most `min(num_boxes, detections_per_class)` of the current class.
pub const fn candidates(
    num_boxes: usize,
    max_detections: usize,
    detections_per_class: usize,
) -> usize {
    let per_class = if num_boxes < detections_per_class {
        num_boxes
    } else {
        detections_per_class
    };
    max_detections + per_class
}

/// A list of little-endian 32-bit words in the arena, at byte `at`.
#[derive(Clone, Copy)]
struct Words(usize);

impl Words {
    #[inline]
    fn get(self, arena: &[u8], i: usize) -> u32 {
        let at = self.0 + 4 * i;
        u32::from_le_bytes([arena[at], arena[at + 1], arena[at + 2], arena[at + 3]])
    }
    #[inline]
    fn set(self, arena: &mut [u8], i: usize, v: u32) {
        let at = self.0 + 4 * i;
        arena[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    #[inline]
    fn get_f32(self, arena: &[u8], i: usize) -> f32 {
        f32::from_bits(self.get(arena, i))
    }
    #[inline]
    fn set_f32(self, arena: &mut [u8], i: usize, v: f32) {
        self.set(arena, i, v.to_bits());
    }
}

/// Float `i` of an input.
#[inline]
fn input_f32(arena: &[u8], src: Src, i: usize) -> f32 {
    let b = match src {
        Src::Arena(at) => arena.at(at + 4 * i..at + 4 * i + 4),
        Src::Bytes(bytes) => bytes.at(4 * i..4 * i + 4),
    };
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Where a sort's values are: floats of an input, or of a scratch list.
#[derive(Clone, Copy)]
enum Base<'a> {
    /// An input tensor.
    Input(Src<'a>),
    /// A list of floats in the arena.
    Scratch(Words),
}

/// What a sort compares (one type, as the C twin's, so that the sort is compiled once):
/// `value(i)` is float `offset + (keep[i] or i) · step` of `base`.
#[derive(Clone, Copy)]
struct Values<'a> {
    base: Base<'a>,
    offset: usize,
    step: usize,
    keep: Option<Words>,
}

impl Values<'_> {
    /// Value `i`.
    #[inline]
    fn get(&self, arena: &[u8], i: u32) -> f32 {
        let at = self.keep.map_or(i, |k| k.get(arena, i as usize)) as usize;
        let index = self.offset + at * self.step;
        match self.base {
            Base::Input(src) => input_f32(arena, src, index),
            Base::Scratch(list) => list.get_f32(arena, index),
        }
    }

    /// TFLM's order of positions `i` and `j` ([`decreasing`]).
    #[inline]
    fn less(&self, arena: &[u8], i: u32, j: u32) -> bool {
        decreasing(self.get(arena, i), self.get(arena, j), i, j)
    }
}

/// `std::partial_sort(first, first + middle, first + len, less)` on the indices in `list`, as
/// libstdc++ runs it: a heap of the first `middle`, each later element that `less` puts before the
/// heap's top swapped in, then the heap sorted. `less(a, b)`: `a` goes before `b`.
fn partial_sort(arena: &mut [u8], list: Words, len: usize, middle: usize, v: &Values) {
    make_heap(arena, list, middle, v);
    for i in middle..len {
        if v.less(arena, list.get(arena, i), list.get(arena, 0)) {
            // pop_heap(first, middle, i): the top goes to `i`, `i`'s value is sifted in.
            let value = list.get(arena, i);
            let top = list.get(arena, 0);
            list.set(arena, i, top);
            adjust_heap(arena, list, 0, middle, value, v);
        }
    }
    // sort_heap(first, middle).
    let mut last = middle;
    while last > 1 {
        last -= 1;
        let value = list.get(arena, last);
        let top = list.get(arena, 0);
        list.set(arena, last, top);
        adjust_heap(arena, list, 0, last, value, v);
    }
}

/// libstdc++'s `__make_heap` on the first `len` entries.
fn make_heap(arena: &mut [u8], list: Words, len: usize, v: &Values) {
    if len < 2 {
        return;
    }
    let mut parent = (len - 2) / 2;
    loop {
        let value = list.get(arena, parent);
        adjust_heap(arena, list, parent, len, value, v);
        if parent == 0 {
            return;
        }
        parent -= 1;
    }
}

/// libstdc++'s `__adjust_heap`: the hole at `hole` moves down to a leaf by the larger child each
/// step (the right one unless the left is larger), then `value` rises from there
/// (`__push_heap`) no higher than `hole`'s start.
fn adjust_heap(arena: &mut [u8], list: Words, mut hole: usize, len: usize, value: u32, v: &Values) {
    let top = hole;
    let mut child = hole;
    while child < len.saturating_sub(1) / 2 {
        child = 2 * (child + 1);
        if v.less(arena, list.get(arena, child), list.get(arena, child - 1)) {
            child -= 1;
        }
        let moved = list.get(arena, child);
        list.set(arena, hole, moved);
        hole = child;
    }
    if len & 1 == 0 && len >= 2 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        let moved = list.get(arena, child - 1);
        list.set(arena, hole, moved);
        hole = child - 1;
    }
    // __push_heap(first, hole, top, value).
    while hole > top {
        let parent = (hole - 1) / 2;
        let p = list.get(arena, parent);
        if !v.less(arena, p, value) {
            break;
        }
        list.set(arena, hole, p);
        hole = parent;
    }
    list.set(arena, hole, value);
}

/// TFLM's order by decreasing value, then increasing position: `tie(v[i], j) > tie(v[j], i)`,
/// that is `v[j] < v[i] || (!(v[i] < v[j]) && i < j)`.
#[inline]
// The negated comparison is TFLM's: with a NaN, `!(vi < vj)` holds where `vi >= vj` does not.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn decreasing(vi: f32, vj: f32, i: u32, j: u32) -> bool {
    vj < vi || (!(vi < vj) && i < j)
}

/// Box `i` of the decoded boxes: ymin, xmin, ymax, xmax.
#[inline]
fn decoded(arena: &[u8], boxes: Words, i: usize) -> [f32; 4] {
    let b = Words(boxes.0 + 16 * i);
    [
        b.get_f32(arena, 0),
        b.get_f32(arena, 1),
        b.get_f32(arena, 2),
        b.get_f32(arena, 3),
    ]
}

/// `std::max<float>(a, b)`: `a < b ? b : a` (so a NaN `a` is kept, a NaN `b` is not).
#[inline]
fn max_f32(a: f32, b: f32) -> f32 {
    if a < b {
        b
    } else {
        a
    }
}

/// `std::min<float>(a, b)`: `b < a ? b : a`.
#[inline]
fn min_f32(a: f32, b: f32) -> f32 {
    if b < a {
        b
    } else {
        a
    }
}

/// TFLM's intersection over union of decoded boxes `i` and `j`, in its float operations and
/// order; 0 when either area is at most 0.
fn iou(arena: &[u8], boxes: Words, i: usize, j: usize) -> f32 {
    let [ymin_i, xmin_i, ymax_i, xmax_i] = decoded(arena, boxes, i);
    let [ymin_j, xmin_j, ymax_j, xmax_j] = decoded(arena, boxes, j);
    let area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
    let area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
    if area_i <= 0.0 || area_j <= 0.0 {
        return 0.0;
    }
    let ymin = max_f32(ymin_i, ymin_j);
    let xmin = max_f32(xmin_i, xmin_j);
    let ymax = min_f32(ymax_i, ymax_j);
    let xmax = min_f32(xmax_i, xmax_j);
    let intersection = max_f32(ymax - ymin, 0.0) * max_f32(xmax - xmin, 0.0);
    intersection / (area_i + area_j - intersection)
}

/// The scratch lists.
#[derive(Clone, Copy)]
struct Scratch {
    /// Decoded boxes, 4 floats each.
    boxes: Words,
    /// The kept boxes' indices, in box order.
    keep: Words,
    /// Positions in `keep`, best score first; `u32::MAX` once suppressed or selected.
    order: Words,
    /// The selected boxes' indices.
    selected: Words,
    /// Where the mode's own lists start.
    rest: usize,
}

/// TFLM's single-class non-maximum suppression over the boxes' scores (`scores.get(box)`):
/// the boxes scoring at least the threshold, best first (ties by box index), each taken unless a
/// box taken before overlaps it by more than the threshold, until `max_selected` are taken.
/// Writes their indices to `s.selected` and returns how many.
fn suppress(
    arena: &mut [u8],
    s: Scratch,
    p: &DetectionPostProcess,
    scores: Values,
    max_selected: usize,
) -> usize {
    let mut kept = 0;
    for i in 0..p.num_boxes {
        if scores.get(arena, i as u32) >= p.score_threshold {
            s.keep.set(arena, kept, i as u32);
            kept += 1;
        }
    }
    for k in 0..kept {
        s.order.set(arena, k, k as u32);
    }
    let by_score = Values {
        keep: Some(s.keep),
        ..scores
    };
    partial_sort(arena, s.order, kept, kept, &by_score);
    let wanted = kept.min(max_selected);
    let (mut selected, mut active) = (0, kept);
    for i in 0..kept {
        if active == 0 || selected >= wanted {
            break;
        }
        let at = s.order.get(arena, i);
        if at == u32::MAX {
            continue;
        }
        let bi = s.keep.get(arena, at as usize) as usize;
        s.selected.set(arena, selected, bi as u32);
        selected += 1;
        s.order.set(arena, i, u32::MAX);
        active -= 1;
        for j in i + 1..kept {
            let at_j = s.order.get(arena, j);
            if at_j == u32::MAX {
                continue;
            }
            let bj = s.keep.get(arena, at_j as usize) as usize;
            if iou(arena, s.boxes, bi, bj) > p.iou_threshold {
                s.order.set(arena, j, u32::MAX);
                active -= 1;
            }
        }
    }
    selected
}

/// Writes detection `slot`: the decoded box `b`, its class and its score.
fn write_detection(
    arena: &mut [u8],
    outputs: (usize, usize, usize),
    slot: usize,
    bx: [f32; 4],
    class: f32,
    score: f32,
) {
    let out_box = Words(outputs.0 + 16 * slot);
    for (k, v) in bx.into_iter().enumerate() {
        out_box.set_f32(arena, k, v);
    }
    Words(outputs.1).set_f32(arena, slot, class);
    Words(outputs.2).set_f32(arena, slot, score);
}

/// TFLite_Detection_PostProcess, float32 (TFLM's detection_postprocess.cc): reads the box
/// encodings (`num_boxes` of `box_stride` floats), the class predictions and the anchors (`y, x,
/// h, w` per box), uses [`scratch_bytes`] of scratch memory at `scratch`, and writes
/// `output_boxes` (ymin, xmin, ymax, xmax per detection), `output_classes` and `output_scores` (one float
/// per detection) and `output_count` (one float). The regular mode writes `max_detections`
/// detections, the unused ones zero, as TFLM does; the fast mode writes each selected box's best
/// `classes_per_detection` classes at TFLM's offsets (`k · n + c` for the `n`-th detection written
/// and class `c`, gaps between them when `k > 1`). TFLM leaves the fast mode's other slots as
/// they were (whatever the arena held: undefined); this kernel zeroes them first, as the
/// regular mode's.
#[allow(clippy::too_many_arguments)]
#[cfg_attr(target_os = "none", inline(never))]
pub fn detection_postprocess(
    arena: &mut [u8],
    box_encodings: Src,
    class_predictions: Src,
    anchors: Src,
    output_boxes: usize,
    output_classes: usize,
    output_scores: usize,
    output_count: usize,
    scratch: usize,
    p: &DetectionPostProcess,
) {
    let p = super::opaque(p);
    let n = p.num_boxes;
    let s = Scratch {
        boxes: Words(scratch),
        keep: Words(scratch + 16 * n),
        order: Words(scratch + 20 * n),
        selected: Words(scratch + 24 * n),
        rest: scratch + 28 * n,
    };
    let outputs = (output_boxes, output_classes, output_scores);
    // Centre-size to corners, in double as TFLM computes them, each rounded once to float.
    let [sy, sx, sh, sw] = [p.y_scale, p.x_scale, p.h_scale, p.w_scale].map(f64::from);
    let mut valid = true;
    for i in 0..n {
        let e = |k: usize| f64::from(input_f32(arena, box_encodings, i * p.box_stride + k));
        let a = |k: usize| f64::from(input_f32(arena, anchors, 4 * i + k));
        let ycenter = (e(0) / sy * a(2) + a(0)) as f32;
        let xcenter = (e(1) / sx * a(3) + a(1)) as f32;
        let half_h = (0.5 * super::nn_common::float_math::exp_f64(e(2) / sh) * a(2)) as f32;
        let half_w = (0.5 * super::nn_common::float_math::exp_f64(e(3) / sw) * a(3)) as f32;
        let bx = [
            ycenter - half_h,
            xcenter - half_w,
            ycenter + half_h,
            xcenter + half_w,
        ];
        // TFLM's ValidateBoxes: a NaN passes.
        if bx[0] >= bx[2] || bx[1] >= bx[3] {
            valid = false;
        }
        let b = Words(s.boxes.0 + 16 * i);
        for (k, v) in bx.into_iter().enumerate() {
            b.set_f32(arena, k, v);
        }
    }
    // TFLM validates the boxes in each single-class suppression: the fast mode runs one, the
    // regular mode one per class.
    if !valid && (!p.regular || p.num_classes > 0) {
        for slot in 0..p.slots {
            write_detection(arena, outputs, slot, [0.0; 4], 0.0, 0.0);
        }
        Words(output_count).set_f32(arena, 0, 0.0);
        return;
    }
    let stride = p.classes_with_background;
    let offset = stride - p.num_classes;
    // Class `c`'s score of box `b`: value `b` of `class(c)`, value `c` of `row(b)`.
    let class = |c: usize| Values {
        base: Base::Input(class_predictions),
        offset: offset + c,
        step: stride,
        keep: None,
    };
    let row = |b: usize| Values {
        base: Base::Input(class_predictions),
        offset: b * stride + offset,
        step: 1,
        keep: None,
    };
    if p.regular {
        let t = candidates(n, p.max_detections, p.detections_per_class);
        let cand_box = Words(s.rest);
        let cand_score = Words(s.rest + 4 * t);
        let perm = Words(s.rest + 8 * t);
        let tmp_box = Words(s.rest + 12 * t);
        let tmp_score = Words(s.rest + 16 * t);
        let mut sorted = 0;
        for c in 0..p.num_classes {
            let selected = suppress(arena, s, p, class(c), p.detections_per_class);
            let mut count = sorted;
            for k in 0..selected {
                let b = s.selected.get(arena, k) as usize;
                cand_box.set(arena, count, (b * p.num_classes + c) as u32);
                let v = class(c).get(arena, b as u32);
                cand_score.set_f32(arena, count, v);
                count += 1;
            }
            let top = count.min(p.max_detections);
            for k in 0..count {
                perm.set(arena, k, k as u32);
            }
            let by_score = Values {
                base: Base::Scratch(cand_score),
                offset: 0,
                step: 1,
                keep: None,
            };
            partial_sort(arena, perm, count, top, &by_score);
            for k in 0..top {
                let from = perm.get(arena, k) as usize;
                let (b, v) = (cand_box.get(arena, from), cand_score.get(arena, from));
                tmp_box.set(arena, k, b);
                tmp_score.set(arena, k, v);
            }
            for k in 0..top {
                let (b, v) = (tmp_box.get(arena, k), tmp_score.get(arena, k));
                cand_box.set(arena, k, b);
                cand_score.set(arena, k, v);
            }
            sorted = top;
        }
        for slot in 0..p.max_detections {
            if slot < sorted {
                let code = cand_box.get(arena, slot) as usize;
                let (b, c) = (code / p.num_classes, code % p.num_classes);
                let bx = decoded(arena, s.boxes, b);
                let v = cand_score.get_f32(arena, slot);
                write_detection(arena, outputs, slot, bx, c as f32, v);
            } else {
                write_detection(arena, outputs, slot, [0.0; 4], 0.0, 0.0);
            }
        }
        Words(output_count).set_f32(arena, 0, sorted as f32);
    } else {
        for slot in 0..p.slots {
            write_detection(arena, outputs, slot, [0.0; 4], 0.0, 0.0);
        }
        let best = Words(s.rest);
        let order = Words(s.rest + 4 * n);
        let k = p.classes_per_detection;
        // Each box's classes, best first (TFLM's DecreasingPartialArgSort of its class scores).
        let class_order = |arena: &mut [u8], b: usize| {
            for c in 0..p.num_classes {
                order.set(arena, c, c as u32);
            }
            partial_sort(arena, order, p.num_classes, k, &row(b));
        };
        for b in 0..n {
            class_order(arena, b);
            let v = row(b).get(arena, order.get(arena, 0));
            best.set_f32(arena, b, v);
        }
        let by_best = Values {
            base: Base::Scratch(best),
            offset: 0,
            step: 1,
            keep: None,
        };
        let selected = suppress(arena, s, p, by_best, p.max_detections);
        let mut written = 0;
        for i in 0..selected {
            let b = s.selected.get(arena, i) as usize;
            class_order(arena, b);
            let bx = decoded(arena, s.boxes, b);
            for col in 0..k {
                // TFLM's offset: its running count times the classes per box, plus the class.
                let slot = k * written + col;
                let c = order.get(arena, col);
                let v = row(b).get(arena, c);
                write_detection(arena, outputs, slot, bx, c as f32, v);
                written += 1;
            }
        }
        Words(output_count).set_f32(arena, 0, written as f32);
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// Parameters for `n` boxes of `c` classes (no background), SSD's scales.
    fn params(n: usize, c: usize, max_detections: usize, regular: bool) -> DetectionPostProcess {
        DetectionPostProcess {
            num_boxes: n,
            box_stride: 4,
            num_classes: c,
            classes_with_background: c,
            max_detections,
            classes_per_detection: 1,
            detections_per_class: 10,
            regular,
            score_threshold: 0.0,
            iou_threshold: 0.5,
            y_scale: 10.0,
            x_scale: 10.0,
            h_scale: 5.0,
            w_scale: 5.0,
            slots: max_detections,
        }
    }

    /// Runs the kernel on zero encodings (each box its anchor), `anchors` and `scores`; returns
    /// the boxes, classes, scores and count.
    fn run(
        p: &DetectionPostProcess,
        anchors: &[[f32; 4]],
        scores: &[f32],
        fill: f32,
    ) -> (Vec<f32>, Vec<f32>, Vec<f32>, f32) {
        let n = p.num_boxes;
        let enc: Vec<u8> = vec![0; 16 * n];
        let anc: Vec<u8> = anchors
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let sc: Vec<u8> = scores.iter().flat_map(|v| v.to_le_bytes()).collect();
        let slots = p.slots;
        let (ob, oc, os, on) = (0, 16 * slots, 20 * slots, 24 * slots);
        let scratch = 24 * slots + 16;
        let bytes = scratch_bytes(
            n,
            p.num_classes,
            p.max_detections,
            p.detections_per_class,
            p.regular,
        );
        let mut arena = vec![0u8; scratch + bytes];
        for v in arena[..scratch].chunks_exact_mut(4) {
            v.copy_from_slice(&fill.to_le_bytes());
        }
        detection_postprocess(
            &mut arena,
            Src::Bytes(&enc),
            Src::Bytes(&sc),
            Src::Bytes(&anc),
            ob,
            oc,
            os,
            on,
            scratch,
            p,
        );
        let floats = |at: usize, len: usize| -> Vec<f32> {
            (0..len).map(|i| Words(at).get_f32(&arena, i)).collect()
        };
        (
            floats(ob, 4 * slots),
            floats(oc, slots),
            floats(os, slots),
            floats(on, 1)[0],
        )
    }

    /// Three boxes: 0 and 1 the same place (one suppresses the other), 2 apart.
    const ANCHORS: [[f32; 4]; 3] = [
        [0.5, 0.5, 0.2, 0.2],
        [0.5, 0.5, 0.2, 0.2],
        [0.1, 0.1, 0.1, 0.1],
    ];

    #[test]
    fn the_better_of_two_overlapping_boxes_suppresses_the_other() {
        for regular in [false, true] {
            let p = params(3, 1, 3, regular);
            let (boxes, classes, scores, count) = run(&p, &ANCHORS, &[0.6, 0.7, 0.2], 9.0);
            assert_eq!(count, 2.0, "regular {regular}");
            assert_eq!(scores, [0.7, 0.2, 0.0]);
            assert_eq!(classes, [0.0, 0.0, 0.0]);
            assert_eq!(&boxes[..4], &[0.4, 0.4, 0.6, 0.6]);
            assert_eq!(&boxes[4..8], &[0.05, 0.05, 0.15, 0.15]);
            assert_eq!(&boxes[8..], &[0.0; 4]);
        }
    }

    #[test]
    fn equal_scores_go_by_box_index() {
        let far = [
            [0.1, 0.1, 0.1, 0.1],
            [0.5, 0.5, 0.1, 0.1],
            [0.9, 0.9, 0.1, 0.1],
        ];
        for regular in [false, true] {
            let p = params(3, 1, 2, regular);
            let (boxes, _, scores, count) = run(&p, &far, &[0.5, 0.5, 0.5], 0.0);
            assert_eq!((count, scores), (2.0, vec![0.5, 0.5]));
            assert_eq!(boxes[0], 0.05);
            assert_eq!(boxes[4], 0.45);
        }
    }

    #[test]
    fn regular_mode_keeps_the_best_across_classes() {
        // Two classes: class 1 of box 2 is the best, then class 0 of box 0.
        let p = params(3, 2, 2, true);
        let scores = [0.8, 0.1, 0.7, 0.3, 0.05, 0.9];
        let (_, classes, out, count) = run(&p, &ANCHORS, &scores, 0.0);
        assert_eq!(count, 2.0);
        assert_eq!(classes, [1.0, 0.0]);
        assert_eq!(out, [0.9, 0.8]);
    }

    #[test]
    fn scores_under_the_threshold_and_nan_scores_are_never_selected() {
        for regular in [false, true] {
            let p = params(3, 1, 3, regular);
            let (_, _, scores, count) = run(&p, &ANCHORS, &[-0.5, f32::NAN, -0.1], 0.0);
            assert_eq!((count, scores), (0.0, vec![0.0; 3]), "regular {regular}");
        }
    }

    #[test]
    fn invalid_boxes_write_zeros_where_tflm_fails() {
        let flat = [
            [0.5, 0.5, 0.0, 0.2],
            [0.5, 0.5, 0.2, 0.2],
            [0.1, 0.1, 0.1, 0.1],
        ];
        for regular in [false, true] {
            let p = params(3, 1, 3, regular);
            let (boxes, classes, scores, count) = run(&p, &flat, &[0.6, 0.7, 0.2], 9.0);
            assert_eq!(count, 0.0);
            assert!(boxes
                .iter()
                .chain(&classes)
                .chain(&scores)
                .all(|&v| v == 0.0));
        }
        // The regular mode with no classes validates nothing, as TFLM.
        let p = params(3, 0, 2, true);
        let (_, _, _, count) = run(&p, &flat, &[], 9.0);
        assert_eq!(count, 0.0);
    }

    #[test]
    fn the_fast_mode_writes_several_classes_at_tflm_offsets() {
        // Two classes per box, two boxes apart: detections at 0, 3 (first box) and 4, 7.
        let mut p = params(3, 2, 2, false);
        p.classes_per_detection = 2;
        p.slots = 8;
        let far = [
            [0.1, 0.1, 0.1, 0.1],
            [0.5, 0.5, 0.1, 0.1],
            [0.9, 0.9, 0.1, 0.1],
        ];
        let scores = [0.2, 0.9, 0.6, 0.1, -1.0, -1.0];
        let (_, classes, out, count) = run(&p, &far, &scores, 9.0);
        assert_eq!(count, 4.0);
        assert_eq!(out, [0.9, 0.0, 0.0, 0.2, 0.6, 0.0, 0.0, 0.1]);
        assert_eq!(classes, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    }

    /// On values without NaN, the partial sort is TFLM's order: decreasing, ties by position.
    #[test]
    fn the_partial_sort_orders_by_value_then_position() {
        let values = [3.0f32, -1.0, 3.0, 7.0, 0.0, 3.0, -0.0, 7.0, 2.5];
        let words: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let n = values.len();
        for middle in 0..=n {
            let mut arena = words.clone();
            arena.extend((0..n as u32).flat_map(|i| i.to_le_bytes()));
            let list = Words(4 * n);
            let by = Values {
                base: Base::Scratch(Words(0)),
                offset: 0,
                step: 1,
                keep: None,
            };
            partial_sort(&mut arena, list, n, middle, &by);
            let got: Vec<u32> = (0..middle).map(|k| list.get(&arena, k)).collect();
            let mut want: Vec<u32> = (0..n as u32).collect();
            want.sort_by(|&a, &b| {
                let (va, vb) = (values[a as usize], values[b as usize]);
                vb.partial_cmp(&va).unwrap().then(a.cmp(&b))
            });
            assert_eq!(got, want[..middle], "middle {middle}");
        }
    }
}

//! TFLM's other custom operators: CIRCULAR_BUFFER (int8; its ring kept over four invocations,
//! TFLM's invoke stopping after it until `cycles_max` frames have arrived) and
//! TFLite_Detection_PostProcess (float32; fast and regular suppression, options a FlexBuffer map
//! read by key, written by [`tinyaot_modelkit::flexbuffer::map`]). Drawn as
//! [`super::signal`]'s operators are: each starts and ends its chain, one time in eight with a
//! parameter or shape TFLM refuses or leaves undefined (MUTATED).

use tinyaot_modelkit::flexbuffer::{int_map, map, Value};
use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::signal::BROKEN;
use super::{G, OpGen};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("CIRCULAR_BUFFER", B::CUSTOM, circular_buffer),
    OpGen::new(
        "TFLite_Detection_PostProcess",
        B::CUSTOM,
        detection_postprocess,
    ),
];

/// CIRCULAR_BUFFER: int8 frames `[1, 1, h, d]` into a ring `[1, slots, h, d]` (a variable
/// tensor, as TFLM's kernel expects: its reset leaves the ring to ResetVariableTensors, which
/// fills it with the zero point; a plain tensor would start with whatever TFLM's arena held),
/// copied by a RESHAPE to the graph's output, over four invocations. `cycles_max` is 1, or absent
/// or 0 with 5 or 13 slots (TFLM's Prepare then picks 1): with more, an invocation that waits
/// stops before the RESHAPE and leaves the output as it was, undefined at first in TFLM.
fn circular_buffer(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let (h, d) = (g.rng.int(1, 3), g.rng.int(1, 8));
    let cycles = g.rng.pick(&[Some(1), Some(1), None, Some(0)]);
    let slots = if cycles == Some(1) {
        g.rng.int(1, 6)
    } else {
        g.rng.pick(&[5, 13])
    };
    let mut broken = false;
    let mut frame = vec![1, 1, h, d];
    let mut ring = vec![1, slots, h, d];
    if g.rng.chance(BROKEN) {
        broken = true;
        match g.rng.int(0, 3) {
            0 => frame[1] = 2,
            1 => ring[3] += 1,
            2 => {
                frame[0] = 2;
                ring[0] = 2;
            }
            _ => ring[1] = 0,
        }
    }
    let (s, z) = (g.scale(), g.zero_point());
    let input = g.m.tensor(TensorSpec::int8(&frame, s, z));
    g.m.inputs.push(input);
    g.ranges.push(1.0);
    let state = g.m.tensor(TensorSpec::int8(&ring, s, z).variable());
    let output = g.m.tensor(TensorSpec::int8(&ring, s, z));
    let new_shape = g.const_i32(&[4], &ring);
    g.steps = 4;
    let text = format!("CIRCULAR_BUFFER i8{frame:?} -> i8{ring:?} cycles_max {cycles:?}");
    g.describe(if broken {
        format!("{text} MUTATED shape")
    } else {
        text
    });
    g.signal_op(
        "CIRCULAR_BUFFER",
        cycles.map(|c| int_map(&[("cycles_max", c)])),
        &[input],
        &[state],
    );
    g.m.op(
        B::RESHAPE,
        Options::Reshape { new_shape: None },
        &[state, new_shape],
        &[output],
    );
    Some(output)
}

/// TFLite_Detection_PostProcess: box encodings `[1, n, 4 or more]`, class scores `[1, n,
/// classes (+ 1 background)]` (graph inputs) and constant anchors → boxes, classes, scores and
/// the count, in the fast or the regular mode.
fn detection_postprocess(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let regular = g.rng.chance(0.5);
    // The regular mode holds up to `detections_per_class + max_detections` candidates in scratch
    // buffers of `max_detections × boxes`: both at least 2 keep them within (TFLM overflows
    // them otherwise, which tinyaot refuses).
    let least = if regular { 2 } else { 1 };
    let n = g.rng.int(least, 20);
    let stride = g.rng.pick(&[4, 4, 4, 6]);
    let classes = g.rng.int(1, 4);
    let background = g.rng.chance(0.7);
    let max_detections = g.rng.int(least, 8);
    let per_class = g.rng.int(1, 5);
    // The fast mode writes only the detections it keeps (at TFLM's offsets, `k` apart for `k`
    // classes per detection), leaving the rest of its outputs as TFLM's arena held them: it is
    // drawn where it keeps every box, so that every output element is written (one class per
    // detection, every score above the threshold, no box suppressed by an IoU above 1). The
    // regular mode writes every slot, padding with zeros.
    let per_detection = 1;
    let mut broken = false;
    let mut iou = f64::from(if regular {
        g.rng.pick(&[0.5f32, 0.3, 0.6, 1.0])
    } else {
        1.0
    });
    let mut score = f64::from(if regular {
        g.rng.pick(&[0.0f32, -1.0, 0.25, 0.5])
    } else {
        -2.0
    });
    let mut num_classes = i64::from(classes);
    let mut max_detections_option = i64::from(max_detections);
    if g.rng.chance(BROKEN) {
        broken = true;
        match g.rng.int(0, 3) {
            0 => iou = f64::from(g.rng.pick(&[0.0f32, 1.5, -0.5])),
            1 => num_classes += g.rng.pick(&[-2, 2]),
            2 => max_detections_option = 0,
            // A NaN threshold keeps no box: the fast mode then writes no output element.
            _ if regular => score = f64::NAN,
            _ => iou = 0.0,
        }
    }
    // The anchors: centres in [0, 1), sizes in [0.1, 0.6).
    let anchors: Vec<f32> = (0..n)
        .flat_map(|_| {
            let mut a = [0f32; 4];
            for (k, v) in a.iter_mut().enumerate() {
                *v = if k < 2 {
                    g.rng.unit() as f32
                } else {
                    0.1 + 0.5 * g.rng.unit() as f32
                };
            }
            a
        })
        .collect();
    let boxes = g
        .m
        .tensor(TensorSpec::new(TensorType::FLOAT32, &[1, n, stride]));
    g.m.inputs.push(boxes);
    g.ranges.push(2.0);
    let with_background = classes + i32::from(background);
    let scores = g
        .m
        .tensor(TensorSpec::new(TensorType::FLOAT32, &[1, n, with_background]));
    g.m.inputs.push(scores);
    g.ranges.push(1.0);
    let anchors = g
        .m
        .tensor(TensorSpec::new(TensorType::FLOAT32, &[n, 4]).constant_f32(&anchors));
    let slots = if regular {
        max_detections
    } else {
        per_detection * per_detection * n.min(max_detections)
    };
    let f32s = |shape: &[i32]| TensorSpec::new(TensorType::FLOAT32, shape);
    let outputs = [
        g.m.tensor(f32s(&[1, slots, 4])),
        g.m.tensor(f32s(&[1, slots])),
        g.m.tensor(f32s(&[1, slots])),
        g.m.tensor(f32s(&[1])),
    ];
    let mut entries = vec![
        ("max_detections", Value::Int(max_detections_option)),
        (
            "max_classes_per_detection",
            Value::Int(i64::from(per_detection)),
        ),
        ("use_regular_nms", Value::Bool(regular)),
        ("nms_score_threshold", Value::Float(score)),
        ("nms_iou_threshold", Value::Float(iou)),
        ("num_classes", Value::Int(num_classes)),
        ("y_scale", Value::Float(10.0)),
        ("x_scale", Value::Float(10.0)),
        ("h_scale", Value::Float(5.0)),
        ("w_scale", Value::Float(5.0)),
    ];
    if regular || g.rng.chance(0.5) {
        entries.push(("detections_per_class", Value::Int(i64::from(per_class))));
    }
    let text = format!(
        "TFLite_Detection_PostProcess {} n {n} stride {stride} classes {classes} background \
         {background} max_detections {max_detections_option} per detection {per_detection} per \
         class {per_class} score {score} iou {iou} num_classes {num_classes}",
        if regular { "regular" } else { "fast" },
    );
    g.describe(if broken {
        format!("{text} MUTATED parameter")
    } else {
        text
    });
    g.signal_op(
        "TFLite_Detection_PostProcess",
        Some(map(&entries)),
        &[boxes, scores, anchors],
        &outputs,
    );
    g.more_outputs.extend(&outputs[1..]);
    Some(outputs[0])
}

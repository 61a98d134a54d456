//! The corners of TFLM's `TFLite_Detection_PostProcess` (the custom operator SSD detectors end
//! in; parameters a FlexBuffer map read by key): both suppression modes, more candidates than
//! `max_detections`, scores under the threshold, equal scores, NaN scores, the fast mode's
//! several classes per box at TFLM's offsets, and the options, shapes and types its kernel refuses
//! or would write out of bounds with.

use super::{Category, Refusal, Suite};
use crate::flexbuffer::{map, Value};
use crate::{ModelSpec, TensorSpec, TensorType};

/// The operator's options.
#[derive(Clone, Copy)]
struct Opts {
    max_detections: i64,
    max_classes_per_detection: i64,
    detections_per_class: Option<i64>,
    regular: bool,
    score_threshold: f64,
    iou_threshold: f64,
    num_classes: i64,
}

/// Fast suppression of up to 5 detections of 3 classes, one class each: scores from 0, boxes
/// overlapping by more than 0.5 suppressed; SSD's scales (10, 10, 5, 5).
const FAST: Opts = Opts {
    max_detections: 5,
    max_classes_per_detection: 1,
    detections_per_class: None,
    regular: false,
    score_threshold: 0.0,
    iou_threshold: 0.5,
    num_classes: 3,
};

/// [`FAST`] in the regular mode, 3 detections per class.
const REGULAR: Opts = Opts {
    detections_per_class: Some(3),
    regular: true,
    ..FAST
};

/// The FlexBuffer of `o`.
fn options(o: Opts) -> Vec<u8> {
    let mut entries = vec![
        ("max_detections", Value::Int(o.max_detections)),
        (
            "max_classes_per_detection",
            Value::Int(o.max_classes_per_detection),
        ),
        ("use_regular_nms", Value::Bool(o.regular)),
        ("nms_score_threshold", Value::Float(o.score_threshold)),
        ("nms_iou_threshold", Value::Float(o.iou_threshold)),
        ("num_classes", Value::Int(o.num_classes)),
        ("y_scale", Value::Float(10.0)),
        ("x_scale", Value::Float(10.0)),
        ("h_scale", Value::Float(5.0)),
        ("w_scale", Value::Float(5.0)),
    ];
    if let Some(d) = o.detections_per_class {
        entries.push(("detections_per_class", Value::Int(d)));
    }
    map(&entries)
}

/// `n` anchors (y, x, h, w): centres on a grid of `n / 2` cells of 0.25, each cell twice, sizes
/// 0.4 and 0.5, so that a cell's two boxes overlap by about 0.6 and neighbours by about 0.3.
fn anchors(n: usize) -> TensorSpec {
    let values: Vec<f32> = (0..n)
        .flat_map(|i| {
            let cell = i / 2;
            let (y, x) = (0.125 + 0.25 * (cell / 4) as f32, 0.125 + 0.25 * (cell % 4) as f32);
            let size = if i % 2 == 0 { 0.4 } else { 0.5 };
            [y, x, size, size]
        })
        .collect();
    TensorSpec::f32(&[n as i32, 4]).constant_f32(&values)
}

/// The four outputs for `slots` detections.
fn outputs(slots: i32) -> Vec<TensorSpec> {
    vec![
        TensorSpec::f32(&[1, slots, 4]),
        TensorSpec::f32(&[1, slots]),
        TensorSpec::f32(&[1, slots]),
        TensorSpec::f32(&[1]),
    ]
}

/// A TFLite_Detection_PostProcess of `boxes` (graph input encodings `[1, n, stride]`), `scores`
/// and `anchors` into `outs`, with `custom_options`.
fn model(
    custom_options: Option<Vec<u8>>,
    boxes: TensorSpec,
    scores: TensorSpec,
    anchors: TensorSpec,
    outs: Vec<TensorSpec>,
) -> ModelSpec {
    ModelSpec::single_custom_op(
        "TFLite_Detection_PostProcess",
        custom_options,
        vec![boxes, scores, anchors],
        outs,
    )
}

/// `o` on 16 boxes of random encodings and random scores (a background class and
/// `o.num_classes`), outputs for `max_detections`.
fn random(o: Opts) -> ModelSpec {
    model(
        Some(options(o)),
        TensorSpec::f32(&[1, 16, 4]),
        TensorSpec::f32(&[1, 16, o.num_classes as i32 + 1]),
        anchors(16),
        outputs(o.max_detections as i32),
    )
}

/// Constant scores of 16 boxes, 3 classes and a background: many equal, within a box and
/// across boxes, some under the threshold of 0 (`nan`: a few of them NaN).
fn tied_scores(nan: bool) -> TensorSpec {
    let levels = [0.5f32, 0.25, 0.5, -0.5, 0.75, 0.25, 0.0, 0.5];
    let values: Vec<f32> = (0..16 * 4)
        .map(|i| {
            if nan && i % 4 != 0 && (i * 7) % 5 == 0 {
                f32::NAN
            } else {
                levels[(i * 3 + i / 4) % levels.len()]
            }
        })
        .collect();
    TensorSpec::f32(&[1, 16, 4]).constant_f32(&values)
}

/// The cases, appended to `cases`.
pub(super) fn detection(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // More candidates than max_detections, both modes; some boxes suppressed.
    s.accepted("detection_postprocess_fast", random(FAST));
    s.accepted("detection_postprocess_regular", random(REGULAR));
    // A tighter overlap threshold, neighbours suppressed too.
    s.accepted(
        "detection_postprocess_regular_iou_0_3",
        random(Opts {
            iou_threshold: 0.3,
            max_detections: 8,
            ..REGULAR
        }),
    );
    // Most scores under the threshold: fewer detections than slots, the rest zero. (The fast
    // mode leaves the slots it does not fill as the arena held them in TFLM, undefined: its
    // accepted corners fill every slot; the runtime's unit tests cover the rest.)
    s.accepted(
        "detection_postprocess_regular_high_threshold",
        random(Opts {
            score_threshold: 0.85,
            ..REGULAR
        }),
    );
    // Equal scores within and across boxes: TFLM's orders (stable sort, then position).
    for (name, o) in [
        ("detection_postprocess_fast_ties", FAST),
        ("detection_postprocess_regular_ties", REGULAR),
    ] {
        s.accepted(
            name,
            model(
                Some(options(o)),
                TensorSpec::f32(&[1, 16, 4]),
                tied_scores(false),
                anchors(16),
                outputs(5),
            ),
        );
    }
    // NaN scores: the regular mode never sorts one; the fast mode's class order is libstdc++'s
    // partial sort on a comparison NaN breaks.
    for (name, o) in [
        ("detection_postprocess_fast_nan_scores", FAST),
        ("detection_postprocess_regular_nan_scores", REGULAR),
    ] {
        s.accepted(
            name,
            model(
                Some(options(o)),
                TensorSpec::f32(&[1, 16, 4]),
                tied_scores(true),
                anchors(16),
                outputs(5),
            ),
        );
    }
    let two = Opts {
        max_classes_per_detection: 2,
        ..FAST
    };
    // No background class, 6 values per box encoding (the last two unread), and the default
    // detections_per_class (100).
    s.accepted(
        "detection_postprocess_regular_no_background_wide_encodings",
        model(
            Some(options(Opts {
                detections_per_class: None,
                ..REGULAR
            })),
            TensorSpec::f32(&[1, 16, 6]),
            TensorSpec::f32(&[1, 16, 3]),
            anchors(16),
            outputs(5),
        ),
    );

    let mut s = Suite {
        cases: s.cases,
        category: Category::TypesAndParameters,
    };
    let with = random;
    s.refused(
        "detection_postprocess_no_options",
        model(
            None,
            TensorSpec::f32(&[1, 16, 4]),
            TensorSpec::f32(&[1, 16, 4]),
            anchors(16),
            outputs(5),
        ),
        Refusal::Invalid,
        "too short for a FlexBuffer root",
    );
    s.refused(
        "detection_postprocess_iou_threshold_0",
        with(Opts {
            iou_threshold: 0.0,
            ..FAST
        }),
        Refusal::Invalid,
        "nms_iou_threshold 0",
    );
    s.refused(
        "detection_postprocess_no_classes_per_detection",
        with(Opts {
            max_classes_per_detection: 0,
            ..FAST
        }),
        Refusal::Invalid,
        "max_classes_per_detection 0",
    );
    s.refused(
        "detection_postprocess_no_detections_per_class",
        with(Opts {
            detections_per_class: Some(0),
            ..REGULAR
        }),
        Refusal::Invalid,
        "detections_per_class 0",
    );
    s.refused(
        "detection_postprocess_no_max_detections",
        model(
            Some(options(Opts {
                max_detections: 0,
                ..FAST
            })),
            TensorSpec::f32(&[1, 16, 4]),
            TensorSpec::f32(&[1, 16, 4]),
            anchors(16),
            outputs(1),
        ),
        Refusal::Invalid,
        "scratch buffers",
    );
    s.refused(
        "detection_postprocess_two_background_classes",
        model(
            Some(options(FAST)),
            TensorSpec::f32(&[1, 16, 4]),
            TensorSpec::f32(&[1, 16, 5]),
            anchors(16),
            outputs(5),
        ),
        Refusal::Invalid,
        "num_classes 3 for class predictions of 5 classes",
    );
    s.refused(
        "detection_postprocess_int8_scores",
        model(
            Some(options(FAST)),
            TensorSpec::f32(&[1, 16, 4]),
            TensorSpec::int8(&[1, 16, 4], 0.01, 0),
            anchors(16),
            outputs(5),
        ),
        Refusal::Invalid,
        "FLOAT32 only",
    );
    s.refused(
        "detection_postprocess_int32_anchors",
        model(
            Some(options(FAST)),
            TensorSpec::f32(&[1, 16, 4]),
            TensorSpec::f32(&[1, 16, 4]),
            TensorSpec::new(TensorType::INT32, &[16, 4]).constant_i32(&[1; 64]),
            outputs(5),
        ),
        Refusal::Unsupported,
        "FLOAT32 anchors",
    );
    s.refused(
        "detection_postprocess_too_few_anchors",
        model(
            Some(options(FAST)),
            TensorSpec::f32(&[1, 16, 4]),
            TensorSpec::f32(&[1, 16, 4]),
            anchors(12),
            outputs(5),
        ),
        Refusal::Invalid,
        "TFLM reads 4 floats per box",
    );
    s.refused(
        "detection_postprocess_batch_2",
        model(
            Some(options(FAST)),
            TensorSpec::f32(&[2, 16, 4]),
            TensorSpec::f32(&[2, 16, 4]),
            anchors(16),
            outputs(5),
        ),
        Refusal::Invalid,
        "the batch must be 1",
    );
    s.refused(
        "detection_postprocess_three_box_values",
        model(
            Some(options(FAST)),
            TensorSpec::f32(&[1, 16, 3]),
            TensorSpec::f32(&[1, 16, 4]),
            anchors(16),
            outputs(5),
        ),
        Refusal::Invalid,
        "at least 4 values",
    );
    s.refused(
        "detection_postprocess_output_too_small",
        model(
            Some(options(REGULAR)),
            TensorSpec::f32(&[1, 16, 4]),
            TensorSpec::f32(&[1, 16, 4]),
            anchors(16),
            outputs(4),
        ),
        Refusal::Invalid,
        "TFLM may write 20",
    );
    // Two classes per box into outputs of 2 × 5 slots: TFLM's offsets reach 4 × 5.
    s.refused(
        "detection_postprocess_two_classes_per_box_past_outputs",
        model(
            Some(options(two)),
            TensorSpec::f32(&[1, 16, 4]),
            TensorSpec::f32(&[1, 16, 4]),
            anchors(16),
            outputs(10),
        ),
        Refusal::Invalid,
        "TFLM may write 80",
    );
    // TFLM writes a FLOAT32 value per element into every output whatever its type: into an INT8
    // count past the output's end (undefined); into an INT32 one the float's bits (defined, not
    // compiled).
    for (name, dtype, refusal, message) in [
        (
            "detection_postprocess_int8_count",
            TensorType::INT8,
            Refusal::Invalid,
            "past the output's end",
        ),
        (
            "detection_postprocess_int32_count",
            TensorType::INT32,
            Refusal::Unsupported,
            "tinyaot takes FLOAT32 outputs",
        ),
    ] {
        let mut outs = outputs(5);
        outs[3] = TensorSpec::new(dtype, &[1]);
        s.refused(
            name,
            model(
                Some(options(FAST)),
                TensorSpec::f32(&[1, 16, 4]),
                TensorSpec::f32(&[1, 16, 4]),
                anchors(16),
                outs,
            ),
            refusal,
            message,
        );
    }
    s.refused(
        "detection_postprocess_rank_2_scores",
        model(
            Some(options(FAST)),
            TensorSpec::f32(&[1, 16, 4]),
            TensorSpec::f32(&[16, 4]),
            anchors(16),
            outputs(5),
        ),
        Refusal::Invalid,
        "not rank 3",
    );
}

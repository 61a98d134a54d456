//! TFLM's `TFLite_Detection_PostProcess` custom operator (kernels/detection_postprocess.cc), the
//! last step of SSD detectors → `detection_postprocess::detection_postprocess`.
//!
//! Its parameters are a FlexBuffer map read by key (`GetRoot(..).AsMap()`, then `map["key"]`
//! with `AsInt32`, `AsFloat`, `AsBool`: a missing key reads as 0, `detections_per_class` as 100
//! and `use_regular_nms` as false). TFLM's Micro kernel computes in float32 only: box encodings
//! or class predictions of another type fail its Invoke (it has a dequantizer it never calls),
//! and its anchors are read as floats whatever their type. Its Eval makes most of the checks;
//! those that depend on no input value are made here, and so are the conditions under which its
//! scratch buffers or outputs would be written out of bounds (their sizes are fixed in Prepare
//! and never checked against what Eval writes).

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Tensor};
use crate::load::flexbuffer::FlexMap;
use crate::lower::params::detection_postprocess as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{OpContext, Operand};
use tinyaot_runtime::kernels::detection_postprocess::scratch_bytes;

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::CUSTOM,
    types: Types {
        roles: &[
            Role::In(0),
            Role::In(1),
            Role::In(2),
            Role::Out(0),
            Role::Out(1),
            Role::Out(2),
            Role::Out(3),
        ],
        tinyaot: &[Sig::Same(Ty::F32)],
        tflm: &[Sig::Same(Ty::F32)],
    },
    inputs: 3..=3,
    outputs: 4,
    lower: Lowering::Custom("TFLite_Detection_PostProcess", detection_postprocess),
}];

/// Why a scratch buffer or output TFLM would write past is refused.
const OUT_OF_BOUNDS: &str = "TFLM's detection_postprocess.cc sizes its scratch buffers in Prepare \
                             and its outputs not at all, then writes them in Eval with no bounds \
                             check: out of bounds";

/// The options, as TFLM's Init reads them.
struct Options {
    max_detections: i32,
    max_classes_per_detection: i32,
    detections_per_class: i32,
    regular: bool,
    score_threshold: f32,
    iou_threshold: f32,
    num_classes: i32,
    scales: [f32; 4],
}

/// Reads the options by key, each as TFLM's Init converts it.
fn options(ctx: &OpContext) -> Result<Options> {
    let map: FlexMap = ctx.custom_map()?;
    let bad = |key: &str, why: String| {
        ctx.invalid(
            format!("option '{key}': {why}"),
            Grounds::undefined(
                "TFLM's Init converts each option with flexbuffers' AsInt32, AsFloat or AsBool, \
                 reading it where the map says it is",
            ),
        )
    };
    let get = |key: &str| map.get(key).map_err(|why| bad(key, why));
    let int = |key: &str| {
        get(key)?
            .as_i64()
            .map(|v| v as i32)
            .map_err(|why| bad(key, why))
    };
    let float = |key: &str| {
        get(key)?
            .as_f64()
            .map(|v| v as f32)
            .map_err(|why| bad(key, why))
    };
    let per_class = get("detections_per_class")?;
    let regular = get("use_regular_nms")?;
    Ok(Options {
        max_detections: int("max_detections")?,
        max_classes_per_detection: int("max_classes_per_detection")?,
        detections_per_class: if per_class.is_null() {
            100
        } else {
            int("detections_per_class")?
        },
        regular: !regular.is_null()
            && regular
                .as_bool()
                .map_err(|why| bad("use_regular_nms", why))?,
        score_threshold: float("nms_score_threshold")?,
        iou_threshold: float("nms_iou_threshold")?,
        num_classes: int("num_classes")?,
        scales: [
            float("y_scale")?,
            float("x_scale")?,
            float("h_scale")?,
            float("w_scale")?,
        ],
    })
}

/// Fails unless `tensor` (the `what` of the operator) has rank `rank`, as Prepare checks.
fn expect_rank(ctx: &OpContext, what: &str, tensor: &Tensor, rank: usize) -> Result<()> {
    if tensor.shape.len() == rank {
        return Ok(());
    }
    Err(ctx.invalid(
        format!("the {what} has shape {:?}, not rank {rank}", tensor.shape),
        Grounds::tflm(
            "detection_postprocess.cc DetectionPostProcessPrepare: TF_LITE_ENSURE_EQ(NumDimensions(..), 3, 3 and 2)",
        ),
    ))
}

/// TFLite_Detection_PostProcess: box encodings [1, boxes, ≥ 4], class predictions [1, boxes,
/// classes (+ 1 background)], anchors (4 floats per box) → boxes, classes, scores, count.
fn detection_postprocess(ctx: &OpContext) -> Result<Kernel> {
    let o = options(ctx)?;
    let (encodings, predictions, anchors) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    expect_rank(ctx, "box encodings", encodings, 3)?;
    expect_rank(ctx, "class predictions", predictions, 3)?;
    expect_rank(ctx, "anchors", anchors, 2)?;
    for (what, tensor) in [
        ("box encodings", encodings),
        ("class predictions", predictions),
    ] {
        if tensor.dtype != DType::F32 {
            return Err(ctx.invalid(
                format!(
                    "the {what} have type {}; TFLM's Micro kernel computes in FLOAT32 only",
                    tensor.dtype
                ),
                Grounds::tflm(
                    "detection_postprocess.cc DecodeCenterSizeBoxes / NonMaxSuppressionMultiClass: \
                     `default: return kTfLiteError` for a type other than kTfLiteFloat32",
                ),
            ));
        }
    }
    if anchors.dtype != DType::F32 {
        return Err(ctx.unsupported(format!(
            "anchors of type {}: TFLM reads the anchors as FLOAT32 whatever their type; tinyaot \
             takes FLOAT32 anchors",
            anchors.dtype
        )));
    }
    for j in 0..4 {
        let output = ctx.output(j)?;
        // TFLM writes FLOAT32 values into every output whatever its type: into a narrower
        // element that is past the output's end, into a wider one it leaves the rest unwritten.
        if output.dtype.size() != DType::F32.size() {
            return Err(ctx.invalid(
                format!(
                    "output {j} has type {}: TFLM writes a FLOAT32 value per element into it, {}",
                    output.dtype,
                    if output.dtype.size() < DType::F32.size() {
                        "past the output's end"
                    } else {
                        "filling only the first half of its bytes"
                    }
                ),
                Grounds::undefined(
                    "detection_postprocess.cc's Eval writes its outputs as float* whatever their \
                     type",
                ),
            ));
        }
        if output.dtype != DType::F32 {
            return Err(ctx.unsupported(format!(
                "output {j} of type {}: TFLM writes FLOAT32 values into every output whatever \
                 its type; tinyaot takes FLOAT32 outputs",
                output.dtype
            )));
        }
    }
    let eval = |what: String, check: &'static str| ctx.invalid(what, Grounds::tflm(check));
    let (n, stride) = (encodings.shape[1], encodings.shape[2]);
    if encodings.shape[0] != 1 {
        return Err(eval(
            format!("box encodings of shape {:?}: the batch must be 1", encodings.shape),
            "detection_postprocess.cc DecodeCenterSizeBoxes: TF_LITE_ENSURE_EQ(dims[0], kBatchSize)",
        ));
    }
    if stride < 4 {
        return Err(eval(
            format!(
                "box encodings of shape {:?}: each box needs at least 4 values (y, x, h, w)",
                encodings.shape
            ),
            "detection_postprocess.cc DecodeCenterSizeBoxes: TF_LITE_ENSURE(dims[2] >= kNumCoordBox)",
        ));
    }
    if predictions.shape[0] != 1 || predictions.shape[1] != n {
        return Err(eval(
            format!(
                "class predictions of shape {:?} for box encodings of shape {:?}: the batch \
                 must be 1 and the boxes the same",
                predictions.shape, encodings.shape
            ),
            "detection_postprocess.cc NonMaxSuppressionMultiClass: TF_LITE_ENSURE_EQ(dims[0], \
             kBatchSize) and TF_LITE_ENSURE_EQ(dims[1], num_boxes)",
        ));
    }
    let with_background = predictions.shape[2];
    let c = i64::from(o.num_classes);
    let cb = with_background as i64;
    if cb - c > 1 || cb < c {
        return Err(eval(
            format!(
                "num_classes {c} for class predictions of {cb} classes: they must be the same, \
                 or one more with a background class"
            ),
            "detection_postprocess.cc NonMaxSuppressionMultiClass: TF_LITE_ENSURE(classes with \
             background - num_classes <= 1) and TF_LITE_ENSURE(classes with background >= \
             num_classes)",
        ));
    }
    let undefined = |what: String| ctx.invalid(what, Grounds::undefined(OUT_OF_BOUNDS));
    if o.num_classes < 0 || o.max_detections < 0 {
        return Err(undefined(format!(
            "num_classes {} and max_detections {}: TFLM sizes its scratch buffers from them, \
             negative sizes",
            o.num_classes, o.max_detections
        )));
    }
    let (c, m) = (o.num_classes as usize, o.max_detections as usize);
    // TFLM's single-class suppression (run once in the fast mode, once per class in the regular
    // one) checks the thresholds and the box count it may keep.
    let suppresses = !o.regular || c > 0;
    if o.regular && o.detections_per_class <= 0 {
        return Err(eval(
            format!(
                "detections_per_class {}: it must be positive",
                o.detections_per_class
            ),
            "detection_postprocess.cc NonMaxSuppressionMultiClassRegularHelper: \
             TF_LITE_ENSURE(num_detections_per_class > 0)",
        ));
    }
    if !o.regular && o.max_classes_per_detection <= 0 {
        return Err(eval(
            format!(
                "max_classes_per_detection {}: it must be positive",
                o.max_classes_per_detection
            ),
            "detection_postprocess.cc NonMaxSuppressionMultiClassFastHelper: \
             TF_LITE_ENSURE(max_categories_per_anchor > 0)",
        ));
    }
    if suppresses && !(o.iou_threshold > 0.0 && o.iou_threshold <= 1.0) {
        return Err(eval(
            format!(
                "nms_iou_threshold {}: it must be in (0, 1]",
                o.iou_threshold
            ),
            "detection_postprocess.cc NonMaxSuppressionSingleClassHelper: \
             TF_LITE_ENSURE(intersection_over_union_threshold > 0 and <= 1)",
        ));
    }
    let d = o.detections_per_class.max(0) as usize;
    let k = (o.max_classes_per_detection.max(0) as usize).min(c);
    let anchor_floats = anchors.num_elements();
    if anchor_floats < 4 * n {
        return Err(undefined(format!(
            "anchors of shape {:?} for {n} boxes: TFLM reads 4 floats per box, {} floats",
            anchors.shape,
            4 * n
        )));
    }
    // TFLM's scratch sizes (in int, as Prepare computes them) against what Eval writes.
    let fits_int = |v: Option<usize>| v.is_some_and(|v| v <= i32::MAX as usize);
    let sizes_fit = [
        n.checked_mul(16),
        m.checked_mul(n).and_then(|v| v.checked_mul(4)),
        c.max(m).checked_mul(n).and_then(|v| v.checked_mul(4)),
        n.checked_mul(with_background)
            .and_then(|v| v.checked_mul(4)),
    ]
    .into_iter()
    .all(fits_int);
    if !sizes_fit {
        return Err(undefined(format!(
            "{n} boxes, {c} classes and max_detections {m}: TFLM's scratch sizes overflow an int"
        )));
    }
    if n > 0 && suppresses {
        let per_class = n.min(d);
        let most = if o.regular {
            per_class + ((c - 1) * per_class).min(m)
        } else {
            n
        };
        let small = if !o.regular && c == 0 {
            Some("with no classes the fast mode reads an unwritten class index".to_string())
        } else if m == 0
            || (o.regular && (most > m * n || most > c.max(m) * n || per_class > n.min(m) * n))
        {
            Some(format!(
                "max_detections {m} for {n} boxes leaves TFLM's scratch buffers (max_detections \
                 × boxes entries) too small for the {most} candidates it may hold"
            ))
        } else {
            None
        };
        if let Some(why) = small {
            return Err(undefined(why));
        }
    }
    let slots = if o.regular { m } else { k * k * n.min(m) };
    let sizes = [4 * slots, slots, slots, 1];
    for (j, &need) in sizes.iter().enumerate() {
        let output = ctx.output(j)?;
        if output.num_elements() < need {
            return Err(undefined(format!(
                "output {j} of shape {:?} holds {} floats; TFLM may write {need}",
                output.shape,
                output.num_elements()
            )));
        }
    }
    if n.checked_mul(c.max(1))
        .is_none_or(|v| v > u32::MAX as usize)
    {
        return Err(ctx.unsupported(format!("{n} boxes of {c} classes: at most 2^32 - 1")));
    }
    let operands = vec![
        Operand::Src(ctx.input_index(0)?),
        Operand::Src(ctx.input_index(1)?),
        Operand::Src(ctx.input_index(2)?),
        Operand::Offset(ctx.output_index(0)?),
        Operand::Offset(ctx.output_index(1)?),
        Operand::Offset(ctx.output_index(2)?),
        Operand::Offset(ctx.output_index(3)?),
        Operand::Scratch(scratch_bytes(n, c, m, d, o.regular)),
    ];
    let [y_scale, x_scale, h_scale, w_scale] = o.scales;
    Ok(kernel(
        "detection_postprocess",
        operands,
        P::DetectionPostProcess {
            num_boxes: n,
            box_stride: stride,
            num_classes: c,
            classes_with_background: with_background,
            max_detections: m,
            classes_per_detection: k,
            detections_per_class: d,
            regular: o.regular,
            score_threshold: o.score_threshold,
            iou_threshold: o.iou_threshold,
            y_scale,
            x_scale,
            h_scale,
            w_scale,
            slots,
        },
    ))
}

//! The resampling and layout operators' corners (RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR,
//! DEPTH_TO_SPACE, SPACE_TO_DEPTH, SPACE_TO_BATCH_ND, BATCH_TO_SPACE_ND, MIRROR_PAD): what TFLM refuses or leaves undefined, in
//! [`Category::TypesAndParameters`], and what it computes unusually, accepted in
//! [`Category::LegitimateCorners`].

use super::builders::{control, int16, Control};
use super::{Case, Category, Refusal, Suite};
use crate::{BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

/// RESIZE_NEAREST_NEIGHBOR or (`bilinear`) RESIZE_BILINEAR of `input` to `output` by a constant
/// size of `size`.
fn resize(
    bilinear: bool,
    flags: (bool, bool),
    input: TensorSpec,
    size: &[i32],
    output: TensorSpec,
) -> ModelSpec {
    let op = if bilinear {
        B::RESIZE_BILINEAR
    } else {
        B::RESIZE_NEAREST_NEIGHBOR
    };
    let options = Options::Resize {
        bilinear,
        align_corners: flags.0,
        half_pixel_centers: flags.1,
    };
    let size = TensorSpec::int32(&[size.len() as i32]).constant_i32(size);
    ModelSpec::single_op(op, options, vec![input, size], vec![output])
}

/// MIRROR_PAD of `input` by `pads` (two per dimension) with `options`.
fn mirror_pad(options: Options, input: TensorSpec, pads: &[i32], output: TensorSpec) -> ModelSpec {
    let paddings = TensorSpec::int32(&[pads.len() as i32 / 2, 2]).constant_i32(pads);
    ModelSpec::single_op(B::MIRROR_PAD, options, vec![input, paddings], vec![output])
}

/// How a MIRROR_PAD's paddings `[rank, 2]` are computed at run time, each value within a range
/// TFLM reads in bounds (a left padding at most the size less one for REFLECT, the size for
/// SYMMETRIC; any negative one; a right padding is never read) whatever the graph inputs are.
enum RunTimePaddings<'a> {
    /// INT32: the CAST (truncating) of a FLOAT32 graph input (uniform in [-1, 1) in the goldens)
    /// times these constants.
    CastOf(&'a [f32]),
    /// INT64: an INT64 graph input (its whole range in the goldens) clamped to these `(low,
    /// high)` bounds by MAXIMUM, then MINIMUM.
    Clamped(&'a [(i64, i64)]),
}

/// MIRROR_PAD of `input` (a graph input, or a constant if it has data) with `options` into
/// `output`, its paddings computed at run time as `paddings` says, from the model's last graph
/// input.
fn mirror_pad_at_run_time(
    options: Options,
    input: TensorSpec,
    paddings: RunTimePaddings,
    output: TensorSpec,
) -> ModelSpec {
    let mut m = ModelSpec::new();
    let constant = !input.is_activation();
    let rank = input.shape.as_ref().map_or(0, |s| s.len()) as i32;
    let x = m.tensor(input);
    if !constant {
        m.inputs.push(x);
    }
    let shape = [rank, 2];
    let pads = match paddings {
        RunTimePaddings::CastOf(scales) => {
            let raw = m.tensor(TensorSpec::f32(&shape));
            m.inputs.push(raw);
            let scales = m.tensor(TensorSpec::f32(&shape).constant_f32(scales));
            let scaled = m.tensor(TensorSpec::f32(&shape));
            m.op(B::MUL, Options::default_for(B::MUL), &[raw, scales], &[scaled]);
            let pads = m.tensor(TensorSpec::int32(&shape));
            m.op(B::CAST, Options::None, &[scaled], &[pads]);
            pads
        }
        RunTimePaddings::Clamped(bounds) => {
            let i64s = |m: &mut ModelSpec, values: Option<Vec<i64>>| {
                let t = TensorSpec::new(TensorType::INT64, &shape);
                m.tensor(match values {
                    Some(v) => t.constant_i64(&v),
                    None => t,
                })
            };
            let raw = i64s(&mut m, None);
            m.inputs.push(raw);
            let low = i64s(&mut m, Some(bounds.iter().map(|b| b.0).collect()));
            let high = i64s(&mut m, Some(bounds.iter().map(|b| b.1).collect()));
            let floored = i64s(&mut m, None);
            m.op(B::MAXIMUM, Options::None, &[raw, low], &[floored]);
            let pads = i64s(&mut m, None);
            m.op(B::MINIMUM, Options::None, &[floored, high], &[pads]);
            pads
        }
    };
    let out = m.tensor(output);
    m.outputs = vec![out];
    m.op(B::MIRROR_PAD, options, &[x, pads], &[out]);
    m
}

/// MIRROR_PAD whose paddings are computed at run time (issue 32): TFLM's `MirrorPadPrepare` reads
/// only their shape and `MirrorPadEval` their values, the output keeping its static shape
/// whatever they are (the right paddings unread, the left ones here often not those the output's
/// shape was made for, or negative), so tinyaot's `mirror_pad_dyn` computes the mapping per call.
fn mirror_pad_paddings_at_run_time(s: &mut Suite<'_>) {
    let (reflect, symmetric) = (
        Options::MirrorPad { symmetric: false },
        Options::MirrorPad { symmetric: true },
    );
    // float32 REFLECT, INT32 paddings: left ones in [-1, 1], [-2, 2] and [-3, 3] for sizes 2, 3
    // and 4; right ones anywhere in ±50.
    s.accepted(
        "mirror_pad_reflect_paddings_computed",
        mirror_pad_at_run_time(
            reflect.clone(),
            TensorSpec::f32(&[2, 3, 4]),
            RunTimePaddings::CastOf(&[1.99, 50.0, 2.99, -7.0, 3.99, 50.0]),
            TensorSpec::f32(&[3, 5, 7]),
        ),
    );
    // int8 SYMMETRIC, INT32 paddings: left ones in [-3, 3] and [-2, 2] for sizes 3 and 2.
    s.accepted(
        "mirror_pad_symmetric_paddings_computed_int8",
        mirror_pad_at_run_time(
            symmetric.clone(),
            TensorSpec::int8(&[3, 2], 0.05, -7),
            RunTimePaddings::CastOf(&[3.99, 9.0, 2.99, 9.0]),
            TensorSpec::int8(&[6, 5], 0.05, -7),
        ),
    );
    // int8 REFLECT of rank 4, INT64 paddings clamped to a negative low bound and the widest high
    // one (the right ones to bounds past int32, never read).
    s.accepted(
        "mirror_pad_reflect_paddings_int64_computed_int8",
        mirror_pad_at_run_time(
            reflect,
            TensorSpec::int8(&[2, 1, 3, 4], 0.1, 3),
            RunTimePaddings::Clamped(&[
                (-1, 1),
                (0, 9),
                (0, 0),
                (-(1 << 40), 1 << 40),
                (-2, 2),
                (0, 0),
                (-5, 3),
                (1, 2),
            ]),
            TensorSpec::int8(&[3, 2, 5, 6], 0.1, 3),
        ),
    );
    // float32 SYMMETRIC of a constant input (read where it is), INT64 paddings.
    s.accepted(
        "mirror_pad_symmetric_paddings_int64_computed_constant_input",
        mirror_pad_at_run_time(
            symmetric,
            TensorSpec::f32(&[2, 3]).constant_f32(&[0.5, -1.25, 2.0, 3.5, -0.75, 1.0]),
            RunTimePaddings::Clamped(&[(-1, 2), (0, 0), (-4, 3), (0, 0)]),
            TensorSpec::f32(&[4, 7]),
        ),
    );
}

/// SPACE_TO_BATCH_ND or (`!to_batch`) BATCH_TO_SPACE_ND of `input` by a constant block and
/// paddings or crops.
fn batch_space(
    to_batch: bool,
    input: TensorSpec,
    block: &[i32],
    margins: &[i32],
    output: TensorSpec,
) -> ModelSpec {
    let op = if to_batch {
        B::SPACE_TO_BATCH_ND
    } else {
        B::BATCH_TO_SPACE_ND
    };
    let block = TensorSpec::int32(&[block.len() as i32]).constant_i32(block);
    let margins = TensorSpec::int32(&[margins.len() as i32 / 2, 2]).constant_i32(margins);
    ModelSpec::single_op(op, Options::None, vec![input, block, margins], vec![output])
}

/// SPACE_TO_BATCH_ND or (`!to_batch`) BATCH_TO_SPACE_ND of `input` (a graph input) into `output`
/// with a block and paddings or crops built by [`control`].
fn batch_space_at_run_time(
    to_batch: bool,
    input: TensorSpec,
    block: Control<'_>,
    margins: Control<'_>,
    output: TensorSpec,
) -> ModelSpec {
    let op = if to_batch {
        B::SPACE_TO_BATCH_ND
    } else {
        B::BATCH_TO_SPACE_ND
    };
    let spatial = input.shape.as_ref().map_or(0, |s| s.len()) as i32 - 2;
    let mut m = ModelSpec::new();
    let x = m.tensor(input);
    m.inputs.push(x);
    let block = control(&mut m, block, &[spatial]);
    let margins = control(&mut m, margins, &[spatial, 2]);
    let out = m.tensor(output);
    m.outputs = vec![out];
    m.op(op, Options::None, &[x, block, margins], &[out]);
    m
}

/// SPACE_TO_BATCH_ND and BATCH_TO_SPACE_ND whose block shape, paddings or crops are computed at
/// run time (issue 32): TFLM's Prepare checks only the tensors' ranks and types, its Eval reads
/// the values per call over the output's static shape, so tinyaot's `space_to_batch_dyn` and
/// `batch_to_space_dyn` do. The values vary per case, often not those the output was shaped
/// for, but stay where TFLM pads nothing (SPACE_TO_BATCH_ND: its padding value is never set) and
/// writes every output pixel (BATCH_TO_SPACE_ND: it leaves the others unwritten) whatever the
/// graph inputs are; the bottom and right margins, never read, anywhere.
fn batch_space_at_run_time_cases(s: &mut Suite<'_>) {
    let f32s = TensorSpec::f32;
    // float32 [1, 5, 4, 1] into [4, 2, 2, 1]: block height in [1, 2], width 2, top padding in
    // [-1, 0] (a shift the output's rows absorb).
    s.accepted(
        "space_to_batch_block_paddings_computed",
        batch_space_at_run_time(
            true,
            f32s(&[1, 5, 4, 1]),
            Control::Clamped {
                wide: false,
                bounds: &[(1, 2), (2, 2)],
            },
            Control::Clamped {
                wide: false,
                bounds: &[(-1, 0), (-9, 9), (0, 0), (-9, 9)],
            },
            f32s(&[4, 2, 2, 1]),
        ),
    );
    // int8 3-D [2, 6, 3] into [6, 2, 3]: block CAST(x * 1.99) + 2 in [1, 3], constant paddings.
    s.accepted(
        "space_to_batch_3d_block_computed_int8",
        batch_space_at_run_time(
            true,
            TensorSpec::int8(&[2, 6, 3], 0.2, 11),
            Control::CastOf {
                scale: 1.99,
                offsets: &[2],
            },
            Control::Constant(&[0, 0]),
            TensorSpec::int8(&[6, 2, 3], 0.2, 11),
        ),
    );
    // float32 [4, 2, 2, 1] into [1, 3, 3, 1] by blocks of 2: top and left crops in [0, 1].
    s.accepted(
        "batch_to_space_crops_computed",
        batch_space_at_run_time(
            false,
            f32s(&[4, 2, 2, 1]),
            Control::Constant(&[2, 2]),
            Control::Clamped {
                wide: false,
                bounds: &[(0, 1), (-9, 9), (0, 1), (-9, 9)],
            },
            f32s(&[1, 3, 3, 1]),
        ),
    );
    // int8 3-D [6, 2, 3] into [2, 4, 3]: block CAST(x * 1.99) + 2 in [1, 3] (pixels landing on
    // one another for 1: the later one stays), constant crops.
    s.accepted(
        "batch_to_space_3d_block_computed_int8",
        batch_space_at_run_time(
            false,
            TensorSpec::int8(&[6, 2, 3], 0.2, 11),
            Control::CastOf {
                scale: 1.99,
                offsets: &[2],
            },
            Control::Constant(&[0, 2]),
            TensorSpec::int8(&[2, 4, 3], 0.2, 11),
        ),
    );
}

pub(super) fn resample(cases: &mut Vec<Case>) {
    use Refusal::Invalid;
    let mut s = Suite {
        cases,
        category: Category::TypesAndParameters,
    };
    let f32s = TensorSpec::f32;
    // TFLM's bilinear Prepare: "If half_pixel_centers is True, align_corners must be False."
    s.refused(
        "resize_bilinear_align_and_half_pixel",
        resize(
            true,
            (true, true),
            f32s(&[1, 2, 3, 1]),
            &[4, 6],
            f32s(&[1, 4, 6, 1]),
        ),
        Invalid,
        "half_pixel_centers",
    );
    // TFLM's bilinear Eval takes float32 and int8 only.
    s.refused(
        "resize_bilinear_int16",
        resize(
            true,
            (false, false),
            int16(&[1, 2, 3, 1], (0.01, 0)),
            &[4, 6],
            int16(&[1, 4, 6, 1], (0.01, 0)),
        ),
        Invalid,
        "FLOAT32 and INT8",
    );
    // The size must be a constant (TFLM's Prepare) of two elements (the nearest neighbour's).
    s.refused(
        "resize_nearest_size_not_constant",
        ModelSpec::single_op(
            B::RESIZE_NEAREST_NEIGHBOR,
            Options::None,
            vec![f32s(&[1, 2, 3, 1]), TensorSpec::int32(&[2])],
            vec![f32s(&[1, 4, 6, 1])],
        ),
        Invalid,
        "constant size",
    );
    s.refused(
        "resize_nearest_size_three_values",
        resize(
            false,
            (false, false),
            f32s(&[1, 2, 3, 1]),
            &[4, 6, 1],
            f32s(&[1, 4, 6, 1]),
        ),
        Invalid,
        "two (height, width)",
    );
    // The output is not what the size says: the reference kernels write size's extent.
    s.refused(
        "resize_nearest_output_not_size",
        resize(
            false,
            (false, false),
            f32s(&[1, 2, 3, 1]),
            &[4, 6],
            f32s(&[1, 4, 5, 1]),
        ),
        Invalid,
        "at size",
    );
    // int8 bilinear to an empty size would divide by the output height in TFLM's integer scales;
    // TFLM's interpreter refuses the empty output first (CheckDynamicTensors), as tinyaot does.
    s.refused(
        "resize_bilinear_int8_zero_size",
        resize(
            true,
            (false, false),
            TensorSpec::int8(&[1, 2, 3, 1], 0.1, 0),
            &[0, 6],
            TensorSpec::int8(&[1, 0, 6, 1], 0.1, 0),
        ),
        Invalid,
        "zero-size dimension",
    );
    // DEPTH_TO_SPACE: a positive block size (TFLM's Prepare), float32 and int8 only;
    // SPACE_TO_DEPTH: the height and width multiples of the block.
    s.refused(
        "depth_to_space_block_zero",
        ModelSpec::single_op(
            B::DEPTH_TO_SPACE,
            Options::BlockSize {
                to_depth: false,
                block_size: 0,
            },
            vec![f32s(&[1, 2, 2, 4])],
            vec![f32s(&[1, 2, 2, 4])],
        ),
        Invalid,
        "positive",
    );
    s.refused(
        "depth_to_space_int16",
        ModelSpec::single_op(
            B::DEPTH_TO_SPACE,
            Options::BlockSize {
                to_depth: false,
                block_size: 2,
            },
            vec![int16(&[1, 2, 2, 4], (0.01, 0))],
            vec![int16(&[1, 4, 4, 1], (0.01, 0))],
        ),
        Invalid,
        "FLOAT32 or INT8",
    );
    s.refused(
        "space_to_depth_indivisible",
        ModelSpec::single_op(
            B::SPACE_TO_DEPTH,
            Options::BlockSize {
                to_depth: true,
                block_size: 2,
            },
            vec![f32s(&[1, 3, 4, 1])],
            vec![f32s(&[1, 1, 2, 4])],
        ),
        Invalid,
        "multiples",
    );
    // MIRROR_PAD: REFLECT by the whole size reads past the input in TFLM (unchecked); int16 is
    // refused by its Eval.
    s.refused(
        "mirror_pad_reflect_too_wide",
        mirror_pad(
            Options::MirrorPad { symmetric: false },
            f32s(&[2, 3]),
            &[0, 0, 3, 0],
            f32s(&[2, 6]),
        ),
        Invalid,
        "reads input index",
    );
    s.refused(
        "mirror_pad_int16",
        mirror_pad(
            Options::MirrorPad { symmetric: true },
            int16(&[2, 3], (0.01, 0)),
            &[1, 0, 0, 1],
            int16(&[3, 4], (0.01, 0)),
        ),
        Invalid,
        "FLOAT32 and INT8",
    );
    // MIRROR_PAD paddings of one value per dimension: GetPadding reads two, past their end.
    s.refused(
        "mirror_pad_paddings_one_per_row",
        ModelSpec::single_op(
            B::MIRROR_PAD,
            Options::MirrorPad { symmetric: true },
            vec![
                f32s(&[2, 3]),
                TensorSpec::int32(&[2, 1]).constant_i32(&[1, 1]),
            ],
            vec![f32s(&[4, 5])],
        ),
        Invalid,
        "fewer than two values per dimension",
    );
    // MIRROR_PAD of an empty input into a non-empty output, its paddings computed at run time:
    // every element TFLM writes reads outside the input, whatever their values (the refusal of
    // every operator's empty input under a non-empty output).
    s.refused(
        "mirror_pad_paddings_computed_empty_input",
        mirror_pad_at_run_time(
            Options::MirrorPad { symmetric: true },
            f32s(&[0, 3]),
            RunTimePaddings::CastOf(&[1.0, 1.0, 1.0, 1.0]),
            f32s(&[2, 3]),
        ),
        Invalid,
        "is empty (a zero-size dimension) but the output is not",
    );
    // SPACE_TO_BATCH_ND pads with SpaceToBatchParams::output_offset, which TFLM never sets; a
    // block of 0 divides by zero.
    s.refused(
        "space_to_batch_padded",
        batch_space(
            true,
            f32s(&[1, 2, 4, 1]),
            &[2, 2],
            &[1, 1, 0, 0],
            f32s(&[4, 2, 2, 1]),
        ),
        Invalid,
        "never sets",
    );
    // Computed at run time, the block shape is still read as INT32 whatever its type, and the
    // input's depth still copied into each output pixel whatever the output's.
    s.refused(
        "space_to_batch_block_computed_int64",
        batch_space_at_run_time(
            true,
            f32s(&[1, 2, 4, 1]),
            Control::Clamped {
                wide: true,
                bounds: &[(2, 2), (2, 2)],
            },
            Control::Constant(&[0, 0, 0, 0]),
            f32s(&[4, 1, 2, 1]),
        ),
        Invalid,
        "TFLM reads it as INT32",
    );
    s.refused(
        "batch_to_space_crops_computed_output_depth_differs",
        batch_space_at_run_time(
            false,
            f32s(&[4, 1, 2, 2]),
            Control::Constant(&[2, 2]),
            Control::Clamped {
                wide: false,
                bounds: &[(0, 0), (0, 0), (0, 0), (0, 0)],
            },
            f32s(&[1, 2, 4, 1]),
        ),
        Invalid,
        "its depth is not the input's",
    );
    s.refused(
        "space_to_batch_block_zero",
        batch_space(
            true,
            f32s(&[1, 2, 4, 1]),
            &[0, 2],
            &[0, 0, 0, 0],
            f32s(&[2, 2, 2, 1]),
        ),
        Invalid,
        "positive",
    );

    let mut s = Suite {
        cases: s.cases,
        category: Category::LegitimateCorners,
    };
    // SPACE_TO_BATCH_ND of a 3-D input (TFLM extends [n, h, c] to [n, h, 1, c]), and
    // BATCH_TO_SPACE_ND cropping whole blocks on every side.
    s.accepted(
        "space_to_batch_3d",
        batch_space(true, f32s(&[2, 6, 3]), &[3], &[0, 0], f32s(&[6, 2, 3])),
    );
    s.accepted(
        "batch_to_space_int8_crops_every_side",
        batch_space(
            false,
            TensorSpec::int8(&[8, 3, 4, 2], 0.05, -9),
            &[2, 2],
            &[2, 2, 2, 4],
            TensorSpec::int8(&[2, 2, 2, 2], 0.05, -9),
        ),
    );
    // BATCH_TO_SPACE_ND cropping part of a block (TFLM's loop skips the pixels cropped, whatever
    // the block): the top row of the blocks; parts on every side of a float image of two output
    // batches; a 3-D input (the width's block 1).
    s.accepted(
        "batch_to_space_partial_block_crops",
        batch_space(
            false,
            TensorSpec::int8(&[4, 2, 2, 1], 0.1, 0),
            &[2, 2],
            &[1, 0, 0, 0],
            TensorSpec::int8(&[1, 3, 4, 1], 0.1, 0),
        ),
    );
    s.accepted(
        "batch_to_space_float_partial_crops_every_side",
        batch_space(
            false,
            f32s(&[8, 2, 3, 2]),
            &[2, 2],
            &[1, 0, 1, 2],
            f32s(&[2, 3, 3, 2]),
        ),
    );
    s.accepted(
        "batch_to_space_3d_partial_crops",
        batch_space(false, f32s(&[6, 4, 3]), &[3], &[2, 1], f32s(&[2, 9, 3])),
    );
    batch_space_at_run_time_cases(&mut s);
    // The nearest neighbour takes both flags (only bilinear refuses them): rounding from
    // half-pixel centres.
    s.accepted(
        "resize_nearest_align_and_half_pixel",
        resize(
            false,
            (true, true),
            TensorSpec::int8(&[2, 3, 4, 2], 0.05, -3),
            &[7, 5],
            TensorSpec::int8(&[2, 7, 5, 2], 0.05, -3),
        ),
    );
    // int8 bilinear to a single pixel with align_corners (TFLM keeps the plain scale for a size of
    // 1), and downsampling with half-pixel centres, of a non-square image.
    s.accepted(
        "resize_bilinear_int8_to_one_pixel_aligned",
        resize(
            true,
            (true, false),
            TensorSpec::int8(&[1, 3, 5, 3], 0.02, 7),
            &[1, 1],
            TensorSpec::int8(&[1, 1, 1, 3], 0.02, 7),
        ),
    );
    s.accepted(
        "resize_bilinear_float_half_pixel_down",
        resize(
            true,
            (false, true),
            f32s(&[2, 7, 5, 2]),
            &[3, 2],
            f32s(&[2, 3, 2, 2]),
        ),
    );
    // MIRROR_PAD without options: TFLM's parser leaves the mode unknown, which its Prepare takes
    // as SYMMETRIC; SYMMETRIC by the whole extent.
    s.accepted(
        "mirror_pad_int8_no_options",
        mirror_pad(
            Options::None,
            TensorSpec::int8(&[2, 3], 0.1, 4),
            &[2, 1, 3, 3],
            TensorSpec::int8(&[5, 9], 0.1, 4),
        ),
    );
    mirror_pad_paddings_at_run_time(&mut s);
    // MIRROR_PAD paddings of three values per dimension: TFLM's GetPadding reads dimension d's
    // as elements 2d and 2d + 1 whatever the row length (left paddings 2 and 0 here, from rows
    // [2, 1, 0] and [9, 9, 9]).
    s.accepted(
        "mirror_pad_paddings_three_per_row",
        ModelSpec::single_op(
            B::MIRROR_PAD,
            Options::MirrorPad { symmetric: false },
            vec![
                TensorSpec::int8(&[3, 4], 0.02, -5),
                TensorSpec::int32(&[2, 3]).constant_i32(&[2, 1, 0, 9, 9, 9]),
            ],
            vec![TensorSpec::int8(&[5, 6], 0.02, -5)],
        ),
    );
    // MIRROR_PAD paddings of FLOAT32: GetFlatIndex's switch reads INT32 and INT64 only, so every
    // padding stays 0 whatever their values (the output past the input reflected from its end).
    s.accepted(
        "mirror_pad_float_paddings",
        ModelSpec::single_op(
            B::MIRROR_PAD,
            Options::MirrorPad { symmetric: true },
            vec![
                f32s(&[2, 3]),
                f32s(&[2, 2]).constant_f32(&[1.0, 1.0, 2.0, 2.0]),
            ],
            vec![f32s(&[4, 6])],
        ),
    );
    // DEPTH_TO_SPACE by a block of 1: the identity.
    s.accepted(
        "depth_to_space_block_one",
        ModelSpec::single_op(
            B::DEPTH_TO_SPACE,
            Options::BlockSize {
                to_depth: false,
                block_size: 1,
            },
            vec![f32s(&[1, 2, 3, 4])],
            vec![f32s(&[1, 2, 3, 4])],
        ),
    );
}

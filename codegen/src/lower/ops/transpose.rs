//! TRANSPOSE → `transpose::transpose`: a constant permutation read at generation time and turned
//! into the runtime's collapsed strided walk (TFLM: up to 5 dimensions). DEPTH_TO_SPACE and
//! SPACE_TO_DEPTH are permutations too (of the input seen as six dimensions, the block split off
//! the space or the depth), and lower to the same kernel; so are SPACE_TO_BATCH_ND without padding
//! and BATCH_TO_SPACE_ND (its crops, whole blocks, a start and shorter extents of STRIDED_SLICE's
//! gather; crops of part of a block, RESIZE_NEAREST_NEIGHBOR's table of rows and columns); with a
//! block shape, paddings or crops computed at run time they are `transpose::space_to_batch_dyn`
//! and `transpose::batch_to_space_dyn`, which read them per call. BROADCAST_TO is the same walk with a step of 0 along every broadcast dimension, and
//! FILL the walk of a scalar, every step 0: no kernel of their own. A FILL of a constant value
//! (the converter's usual output, its dims always constant) folds at generation time.

use super::{collapse_walk, in_out, in_out_from, kernel, strides_of, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::transpose as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{Data, OpContext, Operand};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::TRANSPOSE,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8), Sig::Same(Ty::I16)],
        ),
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(transpose),
    },
    OpEntry {
        code: OpCode::DEPTH_TO_SPACE,
        types: BLOCK_TYPES,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(depth_to_space),
    },
    OpEntry {
        code: OpCode::SPACE_TO_DEPTH,
        types: BLOCK_TYPES,
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Kernel(space_to_depth),
    },
    OpEntry {
        code: OpCode::SPACE_TO_BATCH_ND,
        types: BLOCK_TYPES,
        inputs: 3..=3,
        outputs: 1,
        lower: Lowering::Kernel(space_to_batch_nd),
    },
    OpEntry {
        code: OpCode::BATCH_TO_SPACE_ND,
        types: BLOCK_TYPES,
        inputs: 3..=3,
        outputs: 1,
        lower: Lowering::Kernel(batch_to_space_nd),
    },
    OpEntry {
        code: OpCode::BROADCAST_TO,
        // TFLM copies the bytes of any type but strings (TfLiteTypeGetSize).
        types: Types::unary(&[Sig::Any], &[Sig::Any]),
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(broadcast_to),
    },
    OpEntry {
        code: OpCode::FILL,
        types: Types {
            roles: &[Role::In(1), Role::Out(0)],
            tinyaot: FILL_TYPES,
            tflm: FILL_TYPES,
        },
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(fill),
    },
];

/// FILL's value (and output) types: TFLM's FillEval switch.
const FILL_TYPES: &[Sig] = &[Sig::Same(Ty::F32), Sig::Same(Ty::I32), Sig::Same(Ty::I8)];

/// float32 and int8, as TFLM's DEPTH_TO_SPACE, SPACE_TO_DEPTH, SPACE_TO_BATCH_ND and
/// BATCH_TO_SPACE_ND take them.
const BLOCK_TYPES: Types = Types::unary(
    &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
    &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
);

/// TRANSPOSE (TFLM: up to 5 dimensions, constant permutation).
fn transpose(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    // int16 (16x8 models) is permuted as the other types: bytes moved, no arithmetic. TFLM's
    // Eval refuses every other type ("Only float32, int8 and int16 are supported").
    if !matches!(input.dtype, DType::I8 | DType::I16 | DType::F32) {
        return Err(ctx.invalid(
            format!(
            "the input has type {}; TFLM's TRANSPOSE refuses it (it takes FLOAT32, INT8 and INT16)",
            input.dtype
        ),
            Grounds::tflm(
                "transpose.cc TransposeEval: type not supported (kTfLiteError) but \
                 FLOAT32, INT8 and INT16",
            ),
        ));
    }
    ctx.same_dtype("the output", output, input)?;
    let rank = input.shape.len();
    if rank > 5 {
        return Err(ctx.invalid(
            format!("rank {rank}; TFLM transposes up to 5 dimensions"),
            Grounds::tflm(
                "transpose.cc TransposePrepare: TF_LITE_ENSURE_MSG(NumDimensions(input) <= 5)",
            ),
        ));
    }
    let perm = ctx.const_int32_tensor("perm", ctx.input(1)?)?;
    if perm.len() != rank || perm.iter().any(|&p| !(0..rank as i64).contains(&p)) {
        return Err(ctx.invalid(
            format!("perm {perm:?} does not name one of the {rank} input dimensions per dimension"),
            Grounds::tflm(
                "transpose.cc TransposePrepare: TF_LITE_ENSURE_EQ(perm size, dims) and \
                 \"Transpose op permutations array is out of bounds.\"",
            ),
        ));
    }
    if output.shape.len() != rank {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} has not the input's rank {rank}",
                output.shape
            ),
            Grounds::undefined(
                "reference_ops::Transpose reads the input's rank of dimensions from the output's \
                 shape, past its end",
            ),
        ));
    }
    // reference_ops::Transpose walks the output's shape, each dimension d stepping through the
    // input by the input's stride of dimension perm[d]; it never compares the shapes. Whatever
    // the perm (a repeated dimension too) and the output's extents, that is a defined gather as
    // long as it stays inside the input.
    let strides = strides_of(&input.shape);
    let dims: Vec<(usize, i64)> = output
        .shape
        .iter()
        .zip(&perm)
        .map(|(&extent, &p)| (extent, strides[p as usize] as i64))
        .collect();
    let last_read = dims.iter().fold(0usize, |sum, &(extent, step)| {
        sum.saturating_add(extent.saturating_sub(1).saturating_mul(step as usize))
    });
    if output.num_elements() > 0 && last_read >= input.num_elements() {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} with perm {perm:?} reads input element {last_read} of {}",
                output.shape,
                input.num_elements()
            ),
            Grounds::undefined(
                "reference_ops::Transpose walks the output's shape with the input's permuted \
                 strides, checking neither: it reads past the input",
            ),
        ));
    }
    strided_walk(ctx, &dims)
}

/// The transpose kernel walking the output in C order over `dims` (extent, input element step).
fn strided_walk(ctx: &OpContext, dims: &[(usize, i64)]) -> Result<Kernel> {
    walk_from(ctx, 0, dims)
}

/// [`strided_walk`] reading input `i`.
fn walk_from(ctx: &OpContext, i: usize, dims: &[(usize, i64)]) -> Result<Kernel> {
    let input = ctx.input(i)?;
    let dims = collapse_walk(dims);
    Ok(kernel(
        "transpose",
        in_out_from(ctx, i)?,
        P::Transpose {
            elem_bytes: input.dtype.size(),
            input_bytes: input.bytes,
            shape: dims.iter().map(|d| d.0).collect(),
            input_strides: dims.iter().map(|d| d.1 as usize).collect(),
        },
    ))
}

/// TFLM's DEPTH_TO_SPACE and SPACE_TO_DEPTH Prepare checks common to both (`to_depth`: which):
/// a 4-D input, float32 or int8, the output of the input's type. Returns the block size of the
/// options (0, TFLM's zero-initialized parameter, when the operator has none).
fn block_op(ctx: &OpContext, to_depth: bool) -> Result<i64> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let cite = |depth: &'static str, space: &'static str| if to_depth { depth } else { space };
    if input.shape.len() != 4 {
        return Err(ctx.invalid(
            format!(
                "the input has shape {:?}; TFLM takes a 4-D input",
                input.shape
            ),
            Grounds::tflm(cite(
                "space_to_depth.cc Prepare: TF_LITE_ENSURE_EQ(NumDimensions(input), 4)",
                "depth_to_space.cc CalculateOpData: TF_LITE_ENSURE_EQ(NumDimensions(input), 4)",
            )),
        ));
    }
    if !matches!(output.dtype, DType::F32 | DType::I8) || output.dtype != input.dtype {
        return Err(ctx.invalid(
            format!(
                "the input has type {} and the output {}; TFLM takes FLOAT32 or INT8, both of \
                 one type",
                input.dtype, output.dtype
            ),
            Grounds::tflm(cite(
                "space_to_depth.cc Prepare: TF_LITE_ENSURE(data_type == kTfLiteFloat32 || \
                 data_type == kTfLiteInt8) and TF_LITE_ENSURE_TYPES_EQ(input, output)",
                "depth_to_space.cc CalculateOpData: TF_LITE_ENSURE(data_type == \
                 kTfLiteFloat32 || data_type == kTfLiteInt8) and \
                 TF_LITE_ENSURE_TYPES_EQ(input, output)",
            )),
        ));
    }
    let op = ctx.tflite_operator()?;
    Ok(if to_depth {
        op.builtin_options_as_space_to_depth_options()
            .map_or(0, |o| o.block_size())
    } else {
        op.builtin_options_as_depth_to_space_options()
            .map_or(0, |o| o.block_size())
    }
    .into())
}

/// Fails unless the output has `shape`, the shape TFLM's Prepare writes into it.
fn expect_shape(ctx: &OpContext, shape: &[usize]) -> Result<()> {
    let output = ctx.output(0)?;
    if output.shape == shape {
        return Ok(());
    }
    Err(ctx.invalid(
        format!(
            "output shape {:?} is not the {shape:?} the operator computes",
            output.shape
        ),
        Grounds::spec(
            "the output's shape is the one the operator computes (TFLM's Prepare overwrites the \
             output's dimensions with it and writes that many elements into the storage planned \
             for the stated shape)",
        ),
    ))
}

/// DEPTH_TO_SPACE (TFLM: float32, int8): output `[n, h * b, w * b, c / b²]`, output pixel
/// `(h * b + i, w * b + j)` channel `d` being input pixel `(h, w)` channel `(i * b + j) * c / b²
/// + d` (reference_ops::DepthToSpace): a permutation of the output seen as
/// `[n, h, b, w, b, c / b²]`.
fn depth_to_space(ctx: &OpContext) -> Result<Kernel> {
    let block = block_op(ctx, false)?;
    let s = &ctx.input(0)?.shape;
    if block <= 0 {
        return Err(ctx.invalid(
            format!("block size {block}; TFLM takes a positive one"),
            Grounds::tflm("depth_to_space.cc CalculateOpData: TF_LITE_ENSURE(block_size > 0)"),
        ));
    }
    let b = block as usize;
    let (n, h, w, c) = (s[0], s[1], s[2], s[3]);
    if c % (b * b) != 0 {
        return Err(ctx.invalid(
            format!("{c} input channels are not a multiple of block size {b} squared"),
            Grounds::tflm(
                "depth_to_space.cc CalculateOpData: TF_LITE_ENSURE_EQ(input_channels, \
                 output_channels * block_size * block_size)",
            ),
        ));
    }
    let od = c / (b * b);
    expect_shape(ctx, &[n, h * b, w * b, od])?;
    let (nn, hh, ww, ii, jj) = (h * w * c, w * c, c, b * od, od);
    let step = |v: usize| v as i64;
    strided_walk(
        ctx,
        &[
            (n, step(nn)),
            (h, step(hh)),
            (b, step(ii)),
            (w, step(ww)),
            (b, step(jj)),
            (od, 1),
        ],
    )
}

/// SPACE_TO_DEPTH (TFLM: float32, int8): output `[n, h / b, w / b, c * b²]`, output pixel
/// `(y, x)` channel `(i * b + j) * c + d` being input pixel `(y * b + i, x * b + j)` channel `d`
/// (reference_ops::SpaceToDepth): a permutation of the input seen as `[n, h / b, b, w / b, b, c]`.
fn space_to_depth(ctx: &OpContext) -> Result<Kernel> {
    let block = block_op(ctx, true)?;
    let s = &ctx.input(0)?.shape;
    if block <= 0 {
        return Err(ctx.invalid(
            format!("block size {block}; only a positive one gives a shape"),
            Grounds::undefined(
                "space_to_depth.cc Prepare divides the height and width by block_size unchecked: \
                 by zero, or to negative dimensions",
            ),
        ));
    }
    let b = block as usize;
    let (n, h, w, c) = (s[0], s[1], s[2], s[3]);
    if h % b != 0 || w % b != 0 {
        return Err(ctx.invalid(
            format!("input height {h} and width {w} are not multiples of block size {b}"),
            Grounds::tflm(
                "space_to_depth.cc Prepare: TF_LITE_ENSURE_EQ(input_height, output_height * \
                 block_size) and TF_LITE_ENSURE_EQ(input_width, output_width * block_size)",
            ),
        ));
    }
    let (oh, ow) = (h / b, w / b);
    expect_shape(ctx, &[n, oh, ow, c * b * b])?;
    let step = |v: usize| v as i64;
    strided_walk(
        ctx,
        &[
            (n, step(h * w * c)),
            (oh, step(b * w * c)),
            (ow, step(b * c)),
            (b, step(w * c)),
            (b, step(c)),
            (c, 1),
        ],
    )
}

/// The geometry of SPACE_TO_BATCH_ND or BATCH_TO_SPACE_ND, its input seen as 4-D (a 3-D `[n, h,
/// c]` as `[n, h, 1, c]`, TFLM's `ExtendShapeSpaceToBatch`, its width's block 1 and margins 0).
struct BatchSpace {
    /// `[n, h, w, c]` of the input.
    input: [usize; 4],
    /// The blocks of the height and the width.
    block: [usize; 2],
    /// Before and after the height, before and after the width: the paddings of
    /// SPACE_TO_BATCH_ND, the crops of BATCH_TO_SPACE_ND.
    margins: [i64; 4],
}

/// Checks SPACE_TO_BATCH_ND or (`!to_batch`) BATCH_TO_SPACE_ND as TFLM's Prepare does (3-D or 4-D
/// input and output of one type, float32 or int8, and of one rank, which its Eval assumes).
fn check_batch_space(ctx: &OpContext, to_batch: bool) -> Result<()> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let cite = |s2b: &'static str, b2s: &'static str| if to_batch { s2b } else { b2s };
    let rank = input.shape.len();
    if !(3..=4).contains(&rank) || !(3..=4).contains(&output.shape.len()) {
        return Err(ctx.invalid(
            format!(
                "input shape {:?}, output shape {:?}; TFLM takes 3-D and 4-D tensors",
                input.shape, output.shape
            ),
            Grounds::tflm(cite(
                "space_to_batch_nd.cc SpaceToBatchNDPrepare: TF_LITE_ENSURE(NumDimensions(input) \
                 >= 3 and <= 4), and the output's",
                "batch_to_space_nd.cc BatchToSpaceNDPrepare: TF_LITE_ENSURE(NumDimensions(input) \
                 >= 3 and <= 4), and the output's",
            )),
        ));
    }
    if !matches!(input.dtype, DType::F32 | DType::I8) || output.dtype != input.dtype {
        return Err(ctx.invalid(
            format!(
                "the input has type {} and the output {}; TFLM takes FLOAT32 or INT8, both of \
                 one type",
                input.dtype, output.dtype
            ),
            Grounds::tflm(cite(
                "space_to_batch_nd.cc: TF_LITE_ENSURE_TYPES_EQ(input, output) in Prepare, \
                 \"Type %s (%d) not supported.\" in Eval but FLOAT32 and INT8",
                "batch_to_space_nd.cc: TF_LITE_ENSURE_TYPES_EQ(input, output) in Prepare, \
                 \"Type %s (%d) not supported.\" in Eval but FLOAT32 and INT8",
            )),
        ));
    }
    if output.shape.len() != rank {
        return Err(ctx.invalid(
            format!("input rank {rank}, output rank {}", output.shape.len()),
            Grounds::undefined(
                "the reference kernel extends both shapes to 4-D by the input's rank only \
                 (TFLITE_DCHECK_EQ of the ranks): the output is walked with another layout",
            ),
        ));
    }
    Ok(())
}

/// Fails unless a SPACE_TO_BATCH_ND or BATCH_TO_SPACE_ND of `spatial` spatial dimensions has
/// `block` block values and `margins` paddings or crops: one and two per spatial dimension.
fn check_counts(ctx: &OpContext, spatial: usize, block: usize, margins: usize) -> Result<()> {
    if block < spatial || margins < 2 * spatial {
        return Err(ctx.invalid(
            format!("{block} block values and {margins} paddings or crops for {spatial} spatial dimension(s)"),
            Grounds::undefined(
                "the reference kernel reads a block and two margins per spatial dimension \
                 without checking the tensors' sizes: past their end",
            ),
        ));
    }
    if block > spatial || margins > 2 * spatial {
        return Err(ctx.unsupported(format!(
            "{block} block values and {margins} paddings or crops for {spatial} spatial \
             dimension(s); one block and two margins per spatial dimension are supported"
        )));
    }
    Ok(())
}

/// Checks SPACE_TO_BATCH_ND or (`!to_batch`) BATCH_TO_SPACE_ND as [`check_batch_space`] does and
/// reads its constant block shape and paddings or crops.
fn batch_space(ctx: &OpContext, to_batch: bool) -> Result<BatchSpace> {
    check_batch_space(ctx, to_batch)?;
    let (input, cite) = (ctx.input(0)?, |s2b, b2s| if to_batch { s2b } else { b2s });
    let rank = input.shape.len();
    let spatial = rank - 2;
    let block = ctx.const_int32_tensor("the block shape", ctx.input(1)?)?;
    let margins = ctx.const_int32_tensor(cite("the paddings", "the crops"), ctx.input(2)?)?;
    check_counts(ctx, spatial, block.len(), margins.len())?;
    if let Some(b) = block.iter().find(|&&b| b < 1) {
        return Err(ctx.invalid(
            format!("block size {b}; only positive ones give a shape"),
            Grounds::undefined(
                "the reference kernel divides and takes remainders by the block sizes, \
                 unchecked: by zero, or to negative indices",
            ),
        ));
    }
    let s = &input.shape;
    Ok(if rank == 4 {
        BatchSpace {
            input: [s[0], s[1], s[2], s[3]],
            block: [block[0] as usize, block[1] as usize],
            margins: [margins[0], margins[1], margins[2], margins[3]],
        }
    } else {
        BatchSpace {
            input: [s[0], s[1], 1, s[2]],
            block: [block[0] as usize, 1],
            margins: [margins[0], margins[1], 0, 0],
        }
    })
}

/// Fails unless the output is `shape4` (4-D, as [`BatchSpace`] sees the input; a 3-D output
/// without its width of 1).
fn expect_shape4(ctx: &OpContext, shape4: [usize; 4]) -> Result<()> {
    if ctx.output(0)?.shape.len() == 3 {
        expect_shape(ctx, &[shape4[0], shape4[1], shape4[3]])
    } else {
        expect_shape(ctx, &shape4)
    }
}

/// SPACE_TO_BATCH_ND (TFLM: float32, int8) without padding: output batch `(i * bw + j) * n + b`
/// pixel `(y, x)` being input batch `b` pixel `(y * bh + i, x * bw + j)`
/// (reference_ops::SpaceToBatchND), a permutation of the output seen as `[bh, bw, n, h / bh,
/// w / bw, c]`.
fn space_to_batch_nd(ctx: &OpContext) -> Result<Kernel> {
    if !(ctx.input(1)?.is_constant() && ctx.input(2)?.is_constant()) {
        return batch_space_dyn(ctx, true);
    }
    let g = batch_space(ctx, true)?;
    if g.margins.iter().any(|&m| m != 0) {
        return Err(ctx.invalid(
            format!(
                "paddings {:?}: TFLM pads with a value it never sets",
                g.margins
            ),
            Grounds::undefined(
                "space_to_batch_nd.cc allocates its SpaceToBatchParams in Init and never sets \
                 output_offset, which reference_ops::SpaceToBatchND memsets the padding with: \
                 uninitialized memory",
            ),
        ));
    }
    let ([n, h, w, c], [bh, bw]) = (g.input, g.block);
    if h % bh != 0 || w % bw != 0 {
        return Err(ctx.invalid(
            format!("input height {h} and width {w} are not multiples of the block {bh}x{bw}"),
            Grounds::spec(
                "SPACE_TO_BATCH_ND's padded spatial sizes are multiples of the block (TFLite's \
                 space_to_batch_nd.cc ResizeOutputTensor refuses others)",
            ),
        ));
    }
    expect_shape4(ctx, [n * bh * bw, h / bh, w / bw, c])?;
    let step = |v: usize| v as i64;
    strided_walk(
        ctx,
        &[
            (bh, step(w * c)),
            (bw, step(c)),
            (n, step(h * w * c)),
            (h / bh, step(bh * w * c)),
            (w / bw, step(bw * c)),
            (c, 1),
        ],
    )
}

/// BATCH_TO_SPACE_ND (TFLM: float32, int8): output batch `b` pixel `(y * bh + i, x * bw + j)`
/// (before the crops) being input batch `(i * bw + j) * n + b` pixel `(y, x)`
/// (reference_ops::BatchToSpaceND): a permutation of the output seen as `[n, h, bh, w, bw, c]`,
/// cropped by whole blocks (STRIDED_SLICE's gather, which starts anywhere); crops of part of a
/// block, [`partial_block_crops`].
fn batch_to_space_nd(ctx: &OpContext) -> Result<Kernel> {
    if !(ctx.input(1)?.is_constant() && ctx.input(2)?.is_constant()) {
        return batch_space_dyn(ctx, false);
    }
    let g = batch_space(ctx, false)?;
    let ([n, h, w, c], [bh, bw]) = (g.input, g.block);
    if n % (bh * bw) != 0 {
        return Err(ctx.invalid(
            format!("input batch {n} is not a multiple of the block {bh}x{bw}"),
            Grounds::spec(
                "BATCH_TO_SPACE_ND's input batch is a multiple of the block's size (TFLite's \
                 batch_to_space_nd.cc ResizeOutputTensor refuses others)",
            ),
        ));
    }
    let [top, bottom, left, right] = g.margins;
    let (tall, wide) = ((h * bh) as i64, (w * bw) as i64);
    if g.margins.iter().any(|&m| m < 0) || top + bottom > tall || left + right > wide {
        return Err(ctx.invalid(
            format!("crops {:?} of a {tall}x{wide} image", g.margins),
            Grounds::spec(
                "BATCH_TO_SPACE_ND's crops are non-negative and within the image (TFLite's \
                 batch_to_space_nd.cc ResizeOutputTensor refuses others)",
            ),
        ));
    }
    let out_n = n / (bh * bw);
    expect_shape4(
        ctx,
        [
            out_n,
            (tall - top - bottom) as usize,
            (wide - left - right) as usize,
            c,
        ],
    )?;
    let whole = |m: i64, b: usize| m % b as i64 == 0;
    if !(whole(top, bh) && whole(bottom, bh) && whole(left, bw) && whole(right, bw)) {
        return partial_block_crops(ctx, g, out_n);
    }
    let (rows, cols) = (
        h - ((top + bottom) as usize) / bh,
        w - ((left + right) as usize) / bw,
    );
    let start = (top as usize / bh) * w * c + (left as usize / bw) * c;
    let batch = h * w * c;
    let dims = collapse_walk(&[
        (out_n, batch as i64),
        (rows, (w * c) as i64),
        (bh, (bw * out_n * batch) as i64),
        (cols, c as i64),
        (bw, (out_n * batch) as i64),
        (c, 1),
    ]);
    let input = ctx.input(0)?;
    let steps: Option<Vec<i32>> = dims.iter().map(|d| i32::try_from(d.1).ok()).collect();
    let Some(steps) = steps else {
        return Err(ctx.unsupported("the input is too large for the gather's int32 steps"));
    };
    let k = kernel(
        "strided_slice",
        in_out(ctx)?,
        crate::lower::params::strided_slice::StridedSlice {
            elem_bytes: input.dtype.size(),
            input_bytes: input.bytes,
            start,
            counts: dims.iter().map(|d| d.0).collect(),
            steps: Data::Values(steps),
        },
    );
    Ok(Kernel {
        module: Some("strided_slice"),
        ..k
    })
}

/// SPACE_TO_BATCH_ND or (`!to_batch`) BATCH_TO_SPACE_ND whose block shape, paddings or crops are
/// computed at run time: TFLM's Prepare checks only the tensors' ranks and types (checked here as
/// for constant ones) and its Eval reads the values per call over the output's static shape, so
/// `space_to_batch_dyn` and `batch_to_space_dyn` do. Refused here as for constant ones: a block or
/// margins tensor not INT32 (TFLM reads it as int32 whatever its type) or of another count than
/// one block and two margins per spatial dimension; and an output depth other than the input's
/// (TFLM copies the input's depth into each output pixel: past the output's end, or leaving part
/// of each pixel unwritten). What the values do at run time (blocks below 1, margins the output
/// was not shaped for) is the kernel's to handle.
fn batch_space_dyn(ctx: &OpContext, to_batch: bool) -> Result<Kernel> {
    check_batch_space(ctx, to_batch)?;
    let (input, block, margins, output) =
        (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.output(0)?);
    let what = if to_batch {
        "the paddings"
    } else {
        "the crops"
    };
    for (what, t) in [("the block shape", block), (what, margins)] {
        if t.dtype != DType::I32 {
            return Err(ctx.invalid(
                format!("{what} has type {}; TFLM reads it as INT32", t.dtype),
                Grounds::undefined(
                    "TFLM reads the tensor with GetTensorData<int32_t> whatever its type: a \
                     narrower one is read past its end, a wider one as other values",
                ),
            ));
        }
    }
    let rank = input.shape.len();
    check_counts(ctx, rank - 2, block.num_elements(), margins.num_elements())?;
    let four = |s: &[usize]| -> Vec<usize> {
        if s.len() == 4 {
            s.to_vec()
        } else {
            vec![s[0], s[1], 1, s[2]]
        }
    };
    let (input_shape, output_shape) = (four(&input.shape), four(&output.shape));
    if input_shape[3] != output_shape[3] {
        return Err(ctx.invalid(
            format!(
                "output shape {:?}: its depth is not the input's {}",
                output.shape, input_shape[3]
            ),
            Grounds::undefined(
                "the reference kernel copies the input's depth into each output pixel, \
                 addressed with the output's: a deeper input writes past the output's end, a \
                 shallower one leaves part of each pixel unwritten",
            ),
        ));
    }
    Ok(kernel(
        if to_batch {
            "space_to_batch_dyn"
        } else {
            "batch_to_space_dyn"
        },
        vec![
            Operand::Src(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Src(ctx.input_index(2)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::BatchSpaceDyn {
            elem_bytes: input.dtype.size(),
            input_shape,
            output_shape,
            two_spatial: rank == 4,
        },
    ))
}

/// BATCH_TO_SPACE_ND whose crops cut blocks (checked and shaped by the caller, `out_n` output
/// batches): no single strided walk reads it, but each output pixel `(b, y, x)` reads the input
/// pixel of batch `((y + top) % bh * bw + (x + left) % bw) * out_n + b`, row `(y + top) / bh`,
/// column `(x + left) / bw` (reference_ops::BatchToSpaceND's loop, inverted), whose byte offset is
/// the sum of one term of `(b, y)` and one of `x`. So it is RESIZE_NEAREST_NEIGHBOR's table
/// walk over the whole input as one batch: a row per output batch and row, a column per output
/// column, a pixel of the channels each.
fn partial_block_crops(ctx: &OpContext, g: BatchSpace, out_n: usize) -> Result<Kernel> {
    let input = ctx.input(0)?;
    let ([_, h, w, c], [bh, bw]) = (g.input, g.block);
    let [top, bottom, left, right] = g.margins.map(|m| m as usize);
    let (out_h, out_w) = (h * bh - top - bottom, w * bw - left - right);
    let pixel = c * input.dtype.size();
    let batch = h * w * pixel;
    let rows = (0..out_n)
        .flat_map(|b| {
            (top..top + out_h)
                .map(move |y| b * batch + (y % bh) * bw * out_n * batch + (y / bh) * w * pixel)
        })
        .collect();
    let cols = (left..left + out_w)
        .map(|x| (x % bw) * out_n * batch + (x / bw) * pixel)
        .collect();
    let k = kernel(
        "resize_nearest",
        in_out(ctx)?,
        crate::lower::params::resize::ResizeNearest {
            batches: 1,
            batch_bytes: input.bytes,
            pixel_bytes: pixel,
            rows,
            cols,
        },
    );
    Ok(Kernel {
        module: Some("resize"),
        ..k
    })
}

/// The values of a constant integer tensor of any width TFLM reads (FILL's dims: INT8, INT16,
/// INT32, INT64); `None` for another type.
fn int_values(ctx: &OpContext, what: &str, i: usize) -> Result<Option<Vec<i64>>> {
    let tensor = ctx.input(i)?;
    let Some(data) = tensor.data.as_deref() else {
        return Err(ctx.invalid(
            format!("{what} is computed at run time"),
            Grounds::tflm("TF_LITE_ENSURE_MSG(IsConstantTensor(...), \"Non-constant ... tensor is not supported\")"),
        ));
    };
    let size = tensor.dtype.size();
    let read = |b: &[u8]| -> i64 {
        match b.len() {
            1 => i64::from(b[0] as i8),
            2 => i64::from(i16::from_le_bytes([b[0], b[1]])),
            4 => i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            _ => i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
        }
    };
    if !matches!(
        tensor.dtype,
        DType::I8 | DType::I16 | DType::I32 | DType::I64
    ) {
        return Ok(None);
    }
    let n = tensor.num_elements();
    if data.len() < n * size {
        return Err(ctx.unsupported(format!("{what} has fewer bytes than its shape needs")));
    }
    Ok(Some(
        data[..n * size].chunks_exact(size).map(read).collect(),
    ))
}

/// BROADCAST_TO (TFLM: up to 5 dimensions, a constant INT32 or INT64 shape the output has): the
/// output walked in C order, each dimension stepping through the input by its stride, or by 0
/// where the input's (right-aligned) extent is 1 or missing.
fn broadcast_to(ctx: &OpContext) -> Result<Kernel> {
    let (input, shape_t, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let rank = input.shape.len();
    if rank > 5 || output.shape.len() > 5 {
        return Err(ctx.invalid(
            format!(
                "input rank {rank}, output rank {}: TFLM broadcasts up to 5 dimensions",
                output.shape.len()
            ),
            Grounds::tflm("broadcast_to.cc: \"BroadcastTo only supports 1-5D tensor.\""),
        ));
    }
    if !matches!(shape_t.dtype, DType::I32 | DType::I64) {
        return Err(ctx.invalid(
            format!(
                "the shape has type {}; TFLM takes INT32 or INT64",
                shape_t.dtype
            ),
            Grounds::tflm(
                "broadcast_to.cc BroadcastToPrepare: TF_LITE_ENSURE(shape type INT32 or INT64)",
            ),
        ));
    }
    if output.dtype != input.dtype {
        return Err(ctx.invalid(
            format!(
                "the output has type {}, the input {}",
                output.dtype, input.dtype
            ),
            Grounds::tflm(
                "broadcast_to.cc BroadcastToPrepare: TF_LITE_ENSURE_EQ(input type, output type)",
            ),
        ));
    }
    if input.dtype == DType::I4 {
        return Err(
            ctx.unsupported("an INT4 input (packed two to a byte); supported: whole-byte types")
        );
    }
    if !shape_t.is_constant() {
        return Err(ctx.invalid(
            "the shape is computed at run time",
            Grounds::tflm("broadcast_to.cc: \"Non-constant >shape< tensor is not supported\""),
        ));
    }
    let shape = ctx.const_ints("the shape", shape_t)?;
    let out_rank = output.shape.len();
    let fits = shape_t.shape.len() == 1
        && shape.len() == out_rank
        && rank <= out_rank
        && input
            .shape
            .iter()
            .enumerate()
            .all(|(d, &n)| n == 1 || n as i64 == i64::from(shape[out_rank - rank + d] as i32))
        && output
            .shape
            .iter()
            .zip(&shape)
            .all(|(&n, &s)| n as i64 == i64::from(s as i32));
    if !fits {
        return Err(ctx.invalid(
            format!(
                "input shape {:?}, shape {shape:?} and output shape {:?} do not broadcast",
                input.shape, output.shape
            ),
            Grounds::tflm(
                "broadcast_to.cc ValidateOutputTensor: \"Output shape must be broadcastable from \
                 input shape.\" and output dims == shape",
            ),
        ));
    }
    let strides = strides_of(&input.shape);
    let dims: Vec<(usize, i64)> = output
        .shape
        .iter()
        .enumerate()
        .map(|(d, &extent)| match (d + rank).checked_sub(out_rank) {
            Some(k) if input.shape[k] != 1 => (extent, strides[k] as i64),
            _ => (extent, 0),
        })
        .collect();
    walk_from(ctx, 0, &dims)
}

/// FILL: the scalar value (input 1) copied to every element of the output, whose shape the
/// constant dims (input 0) must state; checked as TFLM's FillPrepare checks, with FillEval's types.
fn fill(ctx: &OpContext) -> Result<Kernel> {
    let (dims_t, value, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    if !value.shape.is_empty() {
        return Err(ctx.invalid(
            format!("the value has shape {:?}, not a scalar", value.shape),
            Grounds::tflm("fill.cc FillPrepare: TF_LITE_ENSURE_EQ(NumDimensions(value), 0)"),
        ));
    }
    if value.dtype != output.dtype {
        return Err(ctx.invalid(
            format!(
                "the value has type {}, the output {}",
                value.dtype, output.dtype
            ),
            Grounds::tflm("fill.cc FillPrepare: TF_LITE_ENSURE_EQ(value type, output type)"),
        ));
    }
    let Some(dims) = int_values(ctx, "the dims", 0)? else {
        return Err(ctx.invalid(
            format!(
                "the dims have type {}; TFLM compares INT8, INT16, INT32 or INT64 dims",
                dims_t.dtype
            ),
            Grounds::tflm("fill.cc EnsureEq: \"cannot compare int array to tensor of type\""),
        ));
    };
    let same = dims_t.shape.len() == 1
        && dims.len() == output.shape.len()
        && dims.iter().zip(&output.shape).all(|(&d, &n)| d == n as i64);
    if !same {
        return Err(ctx.invalid(
            format!("dims {dims:?} (shape {:?}) are not the output's shape {:?}", dims_t.shape, output.shape),
            Grounds::tflm("fill.cc EnsureEq: TF_LITE_ENSURE_EQ(dims rank 1, length, each value) against the output's dims"),
        ));
    }
    if !matches!(value.dtype, DType::F32 | DType::I32 | DType::I8) {
        return Err(ctx.invalid(
            format!(
                "the value has type {}; TFLM's FILL takes FLOAT32, INT32 and INT8",
                value.dtype
            ),
            Grounds::tflm("fill.cc FillEval: type not supported (kTfLiteError)"),
        ));
    }
    walk_from(ctx, 1, &[(output.num_elements(), 0)])
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fields, graph, tensor};
    use crate::ir::{DType, OpCode, Options};
    use crate::lower::{lower, Value};

    /// BATCH_TO_SPACE_ND whose crops are computed at run time goes to `batch_to_space_dyn` (the
    /// block constant, read where it is; a 3-D tensor seen as 4-D); an INT64 block and an output
    /// of another depth stay refused.
    #[test]
    fn batch_to_space_crops_at_run_time() {
        static BLOCK: [u8; 4] = [2, 0, 0, 0];
        static BLOCK64: [u8; 8] = [2, 0, 0, 0, 0, 0, 0, 0];
        let mut g = graph(
            OpCode::BATCH_TO_SPACE_ND,
            Options::None,
            vec![
                tensor(&[4, 3, 2], DType::I8, None, None),
                tensor(&[1], DType::I32, None, Some(&BLOCK)),
                tensor(&[1, 2], DType::I32, None, None),
                tensor(&[2, 5, 2], DType::I8, None, None),
            ],
            &[Some(0), Some(1), Some(2)],
        );
        assert_eq!(
            fields(&g),
            vec![
                ("elem_bytes", Value::Usize(1)),
                ("input_shape", Value::Usizes(vec![4, 3, 1, 2])),
                ("output_shape", Value::Usizes(vec![2, 5, 1, 2])),
                ("two_spatial", Value::Bool(false)),
            ]
        );
        g.tensors[3] = tensor(&[2, 5, 1], DType::I8, None, None);
        assert!(lower(&g).unwrap_err().to_string().contains("depth is not"));
        g.tensors[3] = tensor(&[2, 5, 2], DType::I8, None, None);
        g.tensors[1] = tensor(&[1], DType::I64, None, Some(&BLOCK64));
        assert!(lower(&g).unwrap_err().to_string().contains("as INT32"));
    }
}

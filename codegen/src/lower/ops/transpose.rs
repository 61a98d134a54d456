//! TRANSPOSE → `transpose::transpose`: a constant permutation read at generation time and turned
//! into the runtime's collapsed strided walk (TFLM: up to 5 dimensions). DEPTH_TO_SPACE and
//! SPACE_TO_DEPTH are permutations too (of the input seen as six dimensions, the block split off
//! the space or the depth), and lower to the same kernel.

use super::{collapse_walk, in_out, kernel, strides_of, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::transpose as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::OpContext;

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
];

/// float32 and int8, as TFLM's DEPTH_TO_SPACE and SPACE_TO_DEPTH take them.
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
    let input = ctx.input(0)?;
    let dims = collapse_walk(dims);
    Ok(kernel(
        "transpose",
        in_out(ctx)?,
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

//! The lowerings of the operators that carry samples across invocations, each in a variable
//! tensor the loader adds: SignalDelay, SignalFramer, SignalStacker and SignalOverlapAdd.

use super::*;

/// The product of `factors`: the bytes of a stateful operator's state; one past `usize` is
/// unsupported (no target holds it).
fn state_bytes(ctx: &OpContext, factors: &[usize]) -> Result<usize> {
    factors
        .iter()
        .try_fold(1usize, |acc, &f| acc.checked_mul(f))
        .ok_or_else(|| ctx.unsupported("the operator's state is larger than the address space"))
}

/// The variable tensor the loader gave a stateful operator for its state (its last
/// intermediate), checked to have the `bytes` its lowering computes.
fn state_tensor(ctx: &OpContext, bytes: usize) -> Result<usize> {
    match ctx.op().intermediates.last() {
        Some(&t) if ctx.graph().tensors[t].is_variable && ctx.graph().tensors[t].bytes == bytes => {
            Ok(t)
        }
        _ => Err(ctx.internal(format!(
            "the loader gave the operator no state tensor of {bytes} bytes"
        ))),
    }
}

/// SignalDelay (delay.cc): each row of int16 samples (the input's last dimension) delayed by
/// `delay_length` samples (parameter 0 of the options), the samples kept from one invocation to
/// the next in a variable tensor the loader adds.
pub(super) fn delay(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let options = ctx.custom_options()?;
    let delay_length = ctx.custom_int(&options, 0, "delay_length")? as i32;
    const TYPES: &str = "delay.cc DelayPrepare: TF_LITE_ENSURE_TYPES_EQ(.., kTfLiteInt16)";
    expect_type(ctx, "input", input, DType::I16, TYPES)?;
    expect_type(ctx, "output", output, DType::I16, TYPES)?;
    let Some(&frame) = input.shape.last() else {
        return Err(ctx.invalid(
            "the input is a scalar (rank 0)",
            Grounds::undefined("delay.cc DelayPrepare reads the last dimension of a rank-0 shape"),
        ));
    };
    if frame == 0 {
        return Err(ctx.invalid(
            format!("the input has shape {:?}, rows of 0 samples", input.shape),
            Grounds::undefined(
                "delay.cc DelayPrepare divides the input's size by its last dimension: a \
                 division by zero",
            ),
        ));
    }
    let Ok(delay) = usize::try_from(delay_length) else {
        return Err(ctx.invalid(
            format!("delay_length {delay_length}; SignalDelay takes a delay of 0 or more samples"),
            Grounds::undefined(
                "delay.cc DelayPrepare sizes its circular buffers frame_size + delay_length and \
                 writes delay_length zeros into them: a negative count",
            ),
        ));
    };
    let size = input.num_elements();
    if output.num_elements() != size {
        return Err(ctx.invalid(
            format!(
                "output of {} elements, the input of {size}",
                output.num_elements()
            ),
            Grounds::undefined(
                "delay.cc DelayEval writes as many output elements as the input has: past the \
                 output's end, or leaving the rest of it unwritten",
            ),
        ));
    }
    let rows = size / frame;
    let state = state_tensor(ctx, state_bytes(ctx, &[2, rows, delay])?)?;
    let mut operands = in_out(ctx)?;
    operands.push(Operand::Offset(state));
    Ok(kernel(
        "delay_s16",
        operands,
        P::Delay { rows, frame, delay },
    ))
}

/// SignalFramer (framer.cc): each row of int16 samples (the input's last dimension) cut into
/// frames of `frame_size` samples every `frame_step` (parameters 0 and 1 of the options), the
/// samples of the next frames kept from one invocation to the next in a variable tensor the
/// loader adds, with `frame_size - frame_step` zeros before the first sample if `prefill`
/// (parameter 2); the second output, a bool scalar, says whether every frame was complete.
pub(super) fn framer(ctx: &OpContext) -> Result<Kernel> {
    let (input, output, valid) = (ctx.input(0)?, ctx.output(0)?, ctx.output(1)?);
    let options = ctx.custom_options()?;
    let frame_size = ctx.custom_int(&options, 0, "frame_size")? as i32;
    let frame_step = ctx.custom_int(&options, 1, "frame_step")? as i32;
    let prefill = ctx.custom_int(&options, 2, "prefill")? != 0;
    if input.shape.len() + 1 != output.shape.len() {
        return Err(ctx.invalid(
            format!(
                "output of rank {}, the input of rank {}",
                output.shape.len(),
                input.shape.len()
            ),
            Grounds::tflm(
                "framer.cc FramerPrepare: TF_LITE_ENSURE_EQ(NumDimensions(input) + 1, \
                 NumDimensions(output))",
            ),
        ));
    }
    expect_rank(
        ctx,
        "output_valid output",
        valid,
        0,
        "framer.cc FramerPrepare: TF_LITE_ENSURE_EQ(NumDimensions(output_valid), 0)",
    )?;
    const TYPES: &str = "framer.cc FramerPrepare: TF_LITE_ENSURE_TYPES_EQ (INT16 input and \
         output, BOOL output_valid)";
    expect_type(ctx, "input", input, DType::I16, TYPES)?;
    expect_type(ctx, "output", output, DType::I16, TYPES)?;
    expect_type(ctx, "output_valid output", valid, DType::Bool, TYPES)?;
    let Some(&row) = input.shape.last() else {
        return Err(ctx.invalid(
            "the input is a scalar (rank 0)",
            Grounds::undefined(
                "framer.cc FramerPrepare reads the last dimension of a rank-0 shape",
            ),
        ));
    };
    if frame_step <= 0 {
        return Err(ctx.invalid(
            format!("frame_step {frame_step}; SignalFramer takes a step of 1 or more samples"),
            Grounds::undefined(
                "framer.cc FramerPrepare takes the input's last dimension modulo frame_step (a \
                 division by zero) and sizes its buffers from it",
            ),
        ));
    }
    let step = frame_step as usize;
    if row < step {
        return Err(ctx.invalid(
            format!("rows of {row} samples, fewer than frame_step {step}"),
            Grounds::tflm("framer.cc FramerPrepare: TF_LITE_ENSURE(innermost_dim >= frame_step)"),
        ));
    }
    if row % step != 0 {
        return Err(ctx.invalid(
            format!("rows of {row} samples, not a multiple of frame_step {step}"),
            Grounds::tflm(
                "framer.cc FramerPrepare: TF_LITE_ENSURE_EQ(innermost_dim % frame_step, 0)",
            ),
        ));
    }
    if frame_size <= 0 || (prefill && frame_size < frame_step) {
        return Err(ctx.invalid(
            format!(
                "frame_size {frame_size} with frame_step {frame_step}{}; SignalFramer takes \
                 frames of 1 or more samples{}",
                if prefill { " and prefill" } else { "" },
                if prefill {
                    ", at least frame_step with prefill"
                } else {
                    ""
                }
            ),
            Grounds::undefined(
                "framer.cc: a circular buffer of no capacity written frame_step samples, or \
                 prefilled with frame_size - frame_step (negative) zeros",
            ),
        ));
    }
    let capacity = crate::load::framer_capacity(frame_size, frame_step)
        .ok_or_else(|| ctx.unsupported("the operator's state is larger than the address space"))?;
    let size = frame_size as usize;
    let (rows, frames) = (input.num_elements() / row, row / step);
    let written = state_bytes(ctx, &[rows, frames, size])?;
    if output.num_elements() != written {
        return Err(ctx.invalid(
            format!(
                "output of {} elements for {rows} rows of {frames} frames of {size} samples",
                output.num_elements()
            ),
            Grounds::undefined(
                "framer.cc FramerEval writes frame_size samples per frame of each row: past the \
                 output's end, or leaving the rest of it unwritten",
            ),
        ));
    }
    let samples = state_bytes(ctx, &[rows, capacity])?;
    let state = state_tensor(ctx, state_bytes(ctx, &[2, samples.saturating_add(2)])?)?;
    let mut operands = in_out(ctx)?;
    operands.push(Operand::Offset(ctx.output_index(1)?));
    operands.push(Operand::Offset(state));
    Ok(kernel(
        "framer_s16",
        operands,
        P::Framer {
            rows,
            frames,
            frame_size: size,
            frame_step: step,
            capacity,
            prefilled: if prefill { size - step } else { 0 },
        },
    ))
}

/// SignalStacker (stacker.cc): each invocation's frame of `num_channels` int16 samples stacked
/// with the frames before and after it (`stacker_left_context`, `stacker_right_context`),
/// stepping `stacker_step` frames (parameters 0 to 3 of the options); the frames kept from one
/// invocation to the next in a variable tensor the loader adds; the second output, a bool
/// scalar, says whether the output is a stack.
pub(super) fn stacker(ctx: &OpContext) -> Result<Kernel> {
    let (input, output, valid) = (ctx.input(0)?, ctx.output(0)?, ctx.output(1)?);
    let options = ctx.custom_options()?;
    let int = |i: usize, key: &str| ctx.custom_int(&options, i, key).map(|v| v as i32);
    let channels = int(0, "num_channels")?;
    let left = int(1, "stacker_left_context")?;
    let right = int(2, "stacker_right_context")?;
    let step = int(3, "stacker_step")?;
    const RANK: &str = "stacker.cc StackerPrepare: TF_LITE_ENSURE_EQ(NumDimensions(..))";
    expect_rank(ctx, "input", input, 1, RANK)?;
    expect_rank(ctx, "output", output, 1, RANK)?;
    expect_rank(ctx, "output_valid output", valid, 0, RANK)?;
    const TYPES: &str = "stacker.cc StackerPrepare: TF_LITE_ENSURE_TYPES_EQ (INT16 input and \
         output, BOOL output_valid)";
    expect_type(ctx, "input", input, DType::I16, TYPES)?;
    expect_type(ctx, "output", output, DType::I16, TYPES)?;
    expect_type(ctx, "output_valid output", valid, DType::Bool, TYPES)?;
    let Some(size) = crate::load::stacker_buffer_size(channels, left, right) else {
        return Err(ctx.invalid(
            format!(
                "num_channels {channels}, stacker_left_context {left}, stacker_right_context \
                 {right}; SignalStacker takes 1 or more channels, contexts of 0 or more \
                 frames, and a stack of at most 2^31 - 1 samples"
            ),
            Grounds::undefined(
                "stacker.cc StackerInit sizes its circular buffer num_channels · (left + right \
                 + 1) in int32: no room for a frame, a negative size, or an overflow",
            ),
        ));
    };
    let frames = (left + right + 1) as i64;
    if step <= 0 || i64::from(step) > frames {
        return Err(ctx.invalid(
            format!(
                "stacker_step {step}; SignalStacker steps 1 to {frames} frames (its stack's \
                 frames)"
            ),
            Grounds::undefined(
                "signal/src/circular_buffer.cc CircularBufferDiscard asserts it drops 1 or \
                 more samples, no more than the buffer holds",
            ),
        ));
    }
    let channels = channels as usize;
    if input.num_elements() < channels {
        return Err(ctx.invalid(
            format!(
                "input of {} elements for num_channels {channels}",
                input.num_elements()
            ),
            Grounds::undefined(
                "stacker.cc StackerEval reads num_channels input samples: past the input's end",
            ),
        ));
    }
    if output.num_elements() != size {
        return Err(ctx.invalid(
            format!(
                "output of {} elements for a stack of {size} samples",
                output.num_elements()
            ),
            Grounds::undefined(
                "stacker.cc StackerEval writes num_channels · (left + right + 1) samples: past \
                 the output's end, or leaving the rest of it unwritten",
            ),
        ));
    }
    let state = state_tensor(ctx, state_bytes(ctx, &[2, size.saturating_add(4)])?)?;
    let mut operands = in_out(ctx)?;
    operands.push(Operand::Offset(ctx.output_index(1)?));
    operands.push(Operand::Offset(state));
    Ok(kernel(
        "stacker_s16",
        operands,
        P::Stacker {
            channels,
            left_context: left as usize,
            buffer_size: size,
            step_size: channels * step as usize,
        },
    ))
}

/// SignalOverlapAdd (overlap_add.cc): frames of int16 or float32 samples (the input's last
/// dimension; the one before it the frames per row) added into each row's running sums, kept
/// from one invocation to the next in a variable tensor the loader adds, `frame_step` samples
/// out per frame; parameter 0 of the options is `T` (the tensors' type, which TFLM reads by its
/// key), 1 `frame_step`.
pub(super) fn overlap_add(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let options = ctx.custom_options()?;
    let t = ctx.custom_int(&options, 0, "T")? as i32;
    let frame_step = ctx.custom_int(&options, 1, "frame_step")? as i32;
    // TensorType codes: FLOAT32 0, INT16 7.
    let dtype = match t {
        0 => DType::F32,
        7 => DType::I16,
        _ => {
            return Err(ctx.invalid(
                format!("parameter 'T' is TensorType {t}; SignalOverlapAdd takes INT16 or FLOAT32"),
                Grounds::undefined(
                    "overlap_add.cc OverlapAddInitAll returns no parameters for another type, \
                     which OverlapAddPrepareAll then reads",
                ),
            ))
        }
    };
    if input.shape.len() < 2 || input.shape.len() != output.shape.len() + 1 {
        return Err(ctx.invalid(
            format!(
                "input of rank {}, output of rank {}",
                input.shape.len(),
                output.shape.len()
            ),
            Grounds::tflm(
                "overlap_add.cc OverlapAddPrepare: TF_LITE_ENSURE(DimensionsCount() >= 2) and \
                 TF_LITE_ENSURE_EQ(NumDimensions(input), NumDimensions(output) + 1)",
            ),
        ));
    }
    const TYPES: &str =
        "overlap_add.cc OverlapAddPrepare: TF_LITE_ENSURE_TYPES_EQ (input and output of type T)";
    expect_type(ctx, "input", input, dtype, TYPES)?;
    expect_type(ctx, "output", output, dtype, TYPES)?;
    let rank = input.shape.len();
    let (frames, size) = (input.shape[rank - 2], input.shape[rank - 1]);
    if frames == 0 || size == 0 {
        return Err(ctx.invalid(
            format!(
                "the input has shape {:?}, no frames or samples",
                input.shape
            ),
            Grounds::undefined(
                "overlap_add.cc OverlapAddPrepare divides the input's size by frame_size · \
                 n_frames: a division by zero",
            ),
        ));
    }
    let step = match usize::try_from(frame_step) {
        Ok(step) if step <= size => step,
        _ => {
            return Err(ctx.invalid(
                format!(
                    "frame_step {frame_step} for frames of {size} samples; SignalOverlapAdd \
                     steps 0 to frame_size samples"
                ),
                Grounds::undefined(
                    "signal/src/overlap_add.cc OverlapAdd copies frame_step samples out and \
                     moves frame_size - frame_step: a negative count",
                ),
            ))
        }
    };
    let rows = input.num_elements() / (frames * size);
    let written = state_bytes(ctx, &[rows, frames, step])?;
    if output.num_elements() != written {
        return Err(ctx.invalid(
            format!(
                "output of {} elements for {rows} rows of {frames} frames of {step} samples out",
                output.num_elements()
            ),
            Grounds::undefined(
                "overlap_add.cc OverlapAddEval writes frame_step samples per frame of each row: \
                 past the output's end, or leaving the rest of it unwritten",
            ),
        ));
    }
    let state = state_tensor(ctx, state_bytes(ctx, &[dtype.size(), rows, size])?)?;
    let mut operands = in_out(ctx)?;
    operands.push(Operand::Offset(state));
    let p = P::OverlapAdd {
        rows,
        frames,
        frame_size: size,
        frame_step: step,
    };
    Ok(match dtype {
        DType::I16 => kernel("overlap_add_s16", operands, p),
        _ => kernel("overlap_add_f32", operands, p),
    })
}

//! The lowerings of the element-wise operators: SignalWindow, SignalFilterBankLog, SignalEnergy
//! and SignalFftAutoScale.

use super::*;

/// SignalWindow (window.cc): input × weights → output, int16 throughout; parameter 0 of the
/// options is `shift`.
pub(super) fn window(ctx: &OpContext) -> Result<Kernel> {
    let (input, weights, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let options = ctx.custom_options()?;
    let shift = ctx.custom_int(&options, 0, "shift")?;
    if input.shape.is_empty() {
        return Err(ctx.invalid(
            "the input is a scalar (rank 0)",
            Grounds::tflm("window.cc WindowPrepare: TF_LITE_ENSURE(NumDimensions(input) >= 1)"),
        ));
    }
    expect_rank(
        ctx,
        "weights",
        weights,
        1,
        "window.cc WindowPrepare: TF_LITE_ENSURE_EQ(NumDimensions(weights), 1)",
    )?;
    if output.shape.len() != input.shape.len() {
        return Err(ctx.invalid(
            format!(
                "output of rank {}, the input of rank {}",
                output.shape.len(),
                input.shape.len()
            ),
            Grounds::tflm(
                "window.cc WindowPrepare: TF_LITE_ENSURE_EQ(NumDimensions(input), \
                 NumDimensions(output))",
            ),
        ));
    }
    for (what, tensor) in [("input", input), ("weights", weights), ("output", output)] {
        expect_type(
            ctx,
            what,
            tensor,
            DType::I16,
            "window.cc WindowPrepare: TF_LITE_ENSURE_TYPES_EQ(.., kTfLiteInt16)",
        )?;
    }
    // ElementAsInt32: the value truncated to 32 bits, then `int32 >> shift`.
    let shift = shift as i32;
    if !(0..32).contains(&shift) {
        return Err(ctx.invalid(
            format!("shift {shift}; a shift of an int32 must be in 0..=31"),
            Grounds::undefined("signal/src/window.cc ApplyWindow: int32 >> shift"),
        ));
    }
    let (size, window) = (input.num_elements(), weights.num_elements());
    if output.num_elements() != size {
        return Err(ctx.invalid(
            format!(
                "output of {} elements, the input of {size}",
                output.num_elements()
            ),
            Grounds::undefined(
                "window.cc WindowEval writes as many output elements as the input has: past the \
                 output's end, or leaving the rest of it unwritten",
            ),
        ));
    }
    if window == 0 || size % window != 0 {
        return Err(ctx.invalid(
            format!("input of {size} elements, not frames of the weights' {window}"),
            Grounds::undefined(
                "window.cc WindowEval steps through the input by the weights' length and windows \
                 a whole frame each step: past the input's end, or for ever with no weights",
            ),
        ));
    }
    if ctx.graph().tensors[ctx.input_index(0)?].is_constant() {
        return Err(ctx.unsupported(
            "the input is a constant tensor; constant inputs to this op are not supported",
        ));
    }
    Ok(kernel(
        "window_s16",
        vec![
            Operand::Offset(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::Window {
            size,
            window,
            shift,
        },
    ))
}

/// SignalFilterBankLog (filter_bank_log.cc): uint32 channels → int16 logarithms; parameter 0 of
/// the options is `input_correction_bits`, 1 `output_scale`.
pub(super) fn filter_bank_log(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let options = ctx.custom_options()?;
    let correction_bits = ctx.custom_int(&options, 0, "input_correction_bits")? as i32;
    let output_scale = ctx.custom_int(&options, 1, "output_scale")? as i32;
    const PREPARE: &str =
        "filter_bank_log.cc FilterBankLogPrepare: TF_LITE_ENSURE_EQ(NumDimensions(..), 1)";
    expect_rank(ctx, "input", input, 1, PREPARE)?;
    expect_rank(ctx, "output", output, 1, PREPARE)?;
    const TYPES: &str =
        "filter_bank_log.cc FilterBankLogPrepare: TF_LITE_ENSURE_TYPES_EQ (UINT32 in, INT16 out)";
    expect_type(ctx, "input", input, DType::U32, TYPES)?;
    expect_type(ctx, "output", output, DType::I16, TYPES)?;
    // The int parameter becomes the uint32 shift of a uint32.
    if !(0..32).contains(&correction_bits) {
        return Err(ctx.invalid(
            format!(
                "input_correction_bits {correction_bits}; a shift of a uint32 must be in 0..=31"
            ),
            Grounds::undefined(
                "signal/src/filter_bank_log.cc FilterbankLog: input << correction_bits",
            ),
        ));
    }
    let channels = input.num_elements();
    if output.num_elements() != channels {
        return Err(ctx.invalid(
            format!(
                "output of {} elements, the input of {channels}",
                output.num_elements()
            ),
            Grounds::undefined(
                "filter_bank_log.cc FilterBankLogEval writes one output per input channel: past \
                 the output's end, or leaving the rest of it unwritten",
            ),
        ));
    }
    Ok(kernel(
        "filter_bank_log",
        in_out(ctx)?,
        P::FilterBankLog {
            channels,
            correction_bits,
            output_scale,
        },
    ))
}

/// SignalEnergy (energy.cc): int16 complex bins → uint32 energies of bins `start_index` to
/// `end_index` (parameters 1 and 0 of the options); the other output elements, which TFLM leaves
/// unwritten, are 0.
pub(super) fn energy(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let options = ctx.custom_options()?;
    let end = ctx.custom_int(&options, 0, "end_index")? as i32;
    let start = ctx.custom_int(&options, 1, "start_index")? as i32;
    const PREPARE: &str = "energy.cc EnergyPrepare: TF_LITE_ENSURE_EQ(NumDimensions(..), 1)";
    expect_rank(ctx, "input", input, 1, PREPARE)?;
    expect_rank(ctx, "output", output, 1, PREPARE)?;
    const TYPES: &str =
        "energy.cc EnergyPrepare: TF_LITE_ENSURE_TYPES_EQ (INT16 input, UINT32 output)";
    expect_type(ctx, "input", input, DType::I16, TYPES)?;
    expect_type(ctx, "output", output, DType::U32, TYPES)?;
    let bins = output.num_elements();
    let (start, end) = if start < end {
        // The loop runs: every bin it reads and writes must exist.
        let complex = input.num_elements() / 2;
        let within = |i: i32| usize::try_from(i).ok();
        match (within(start), within(end)) {
            (Some(s), Some(e)) if e <= bins && e <= complex => (s, e),
            _ => {
                return Err(ctx.invalid(
                    format!(
                        "bins {start} to {end} of an input of {complex} complex bins and an \
                         output of {bins}"
                    ),
                    Grounds::undefined(
                        "signal/src/energy.cc SpectrumToEnergy reads input[i] and writes \
                         output[i] for i from start_index to end_index: out of bounds",
                    ),
                ))
            }
        }
    } else {
        (0, 0)
    };
    Ok(kernel(
        "energy",
        in_out(ctx)?,
        P::Energy { bins, start, end },
    ))
}

/// SignalFftAutoScale (fft_auto_scale_kernel.cc): int16 → int16 scaled up, and the int32 shift
/// as a scalar second output. It has no options.
pub(super) fn fft_auto_scale(ctx: &OpContext) -> Result<Kernel> {
    let (input, output, bits) = (ctx.input(0)?, ctx.output(0)?, ctx.output(1)?);
    const PREPARE: &str =
        "fft_auto_scale_common.cc FftAutoScalePrepare: TF_LITE_ENSURE_EQ(NumDimensions(..))";
    expect_rank(ctx, "input", input, 1, PREPARE)?;
    expect_rank(ctx, "output", output, 1, PREPARE)?;
    expect_rank(ctx, "scale bits output", bits, 0, PREPARE)?;
    const TYPES: &str = "fft_auto_scale_common.cc FftAutoScalePrepare: TF_LITE_ENSURE_TYPES_EQ \
         (INT16 input and output, INT32 scale bits)";
    expect_type(ctx, "input", input, DType::I16, TYPES)?;
    expect_type(ctx, "output", output, DType::I16, TYPES)?;
    expect_type(ctx, "scale bits output", bits, DType::I32, TYPES)?;
    // TFLM scales as many elements as the output has, reading as many of the input.
    let size = output.num_elements();
    if size > input.num_elements() {
        return Err(ctx.invalid(
            format!(
                "output of {size} elements, the input of {}",
                input.num_elements()
            ),
            Grounds::undefined(
                "fft_auto_scale_kernel.cc FftAutoScaleEval reads as many input elements as the \
                 output has: past the input's end",
            ),
        ));
    }
    let mut operands = in_out(ctx)?;
    operands.push(Operand::Offset(ctx.output_index(1)?));
    Ok(kernel("fft_auto_scale", operands, P::FftAutoScale { size }))
}

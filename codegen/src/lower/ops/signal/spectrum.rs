//! The lowerings of the filter-bank operators: SignalFilterBank, SignalFilterBankSquareRoot,
//! SignalFilterBankSpectralSubtraction and SignalPCAN.

use super::*;

/// SignalFilterBank (filter_bank.cc): uint32 energies and five constant int16 tables → uint64
/// channels; parameter 0 of the options is `num_channels`.
pub(super) fn filter_bank(ctx: &OpContext) -> Result<Kernel> {
    let options = ctx.custom_options()?;
    let num_channels = ctx.custom_int(&options, 0, "num_channels")? as i32;
    const RANK: &str = "filter_bank.cc FilterBankPrepare: TF_LITE_ENSURE_EQ(NumDimensions(..), 1)";
    const TYPES: &str = "filter_bank.cc FilterBankPrepare: TF_LITE_ENSURE_TYPES_EQ (UINT32 \
         input, INT16 tables, UINT64 output)";
    let names = [
        "input",
        "weights",
        "unweights",
        "channel frequency starts",
        "channel weight starts",
        "channel widths",
    ];
    for (i, what) in names.iter().enumerate() {
        let tensor = ctx.input(i)?;
        expect_rank(ctx, what, tensor, 1, RANK)?;
        let dtype = if i == 0 { DType::U32 } else { DType::I16 };
        expect_type(ctx, what, tensor, dtype, TYPES)?;
    }
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    expect_rank(ctx, "output", output, 1, RANK)?;
    expect_type(ctx, "output", output, DType::U64, TYPES)?;
    if num_channels < 0 {
        return Err(ctx.invalid(
            format!("num_channels {num_channels}"),
            Grounds::undefined(
                "filter_bank.cc FilterBankInit allocates num_channels + 1 sums, which \
                 FilterBankEval copies the output from",
            ),
        ));
    }
    let channels = num_channels as usize;
    let weights = const_i16s(ctx, "the weights", 1)?;
    let unweights = const_i16s(ctx, "the unweights", 2)?;
    let starts = const_i16s(ctx, "the channel frequency starts", 3)?;
    let weight_starts = const_i16s(ctx, "the channel weight starts", 4)?;
    let widths = const_i16s(ctx, "the channel widths", 5)?;
    let unchecked = Grounds::undefined(
        "signal/src/filter_bank.cc FilterbankAccumulateChannels reads the tables of channels 0 \
         to num_channels and the bins and weights they name, unchecked: out of bounds",
    );
    let shortest = starts.len().min(weight_starts.len()).min(widths.len());
    if shortest <= channels {
        return Err(ctx.invalid(
            format!(
                "channel tables of {shortest} elements for num_channels {channels} (it reads \
                 {} per table)",
                channels + 1
            ),
            unchecked,
        ));
    }
    for i in 0..=channels {
        let width = i64::from(widths[i]);
        if width <= 0 {
            continue;
        }
        let (start, weight) = (i64::from(starts[i]), i64::from(weight_starts[i]));
        let bins = input.num_elements() as i64;
        let table = weights.len().min(unweights.len()) as i64;
        if start < 0 || weight < 0 || start + width > bins || weight + width > table {
            return Err(ctx.invalid(
                format!(
                    "channel {i} reads bins {start}..{} of {bins} and weights {weight}..{} of \
                     {table}",
                    start + width,
                    weight + width
                ),
                unchecked,
            ));
        }
    }
    let outputs = output.num_elements();
    if outputs > channels {
        return Err(ctx.invalid(
            format!("output of {outputs} elements for num_channels {channels}"),
            Grounds::undefined(
                "filter_bank.cc FilterBankEval copies the output's size from num_channels sums: \
                 past their end",
            ),
        ));
    }
    Ok(kernel(
        "filter_bank",
        in_out(ctx)?,
        P::FilterBank {
            num_channels: channels,
            outputs,
            weights: Data::Tensor(ctx.input_index(1)?),
            unweights: Data::Tensor(ctx.input_index(2)?),
            frequency_starts: Data::Tensor(ctx.input_index(3)?),
            weight_starts: Data::Tensor(ctx.input_index(4)?),
            widths: Data::Tensor(ctx.input_index(5)?),
        },
    ))
}

/// SignalFilterBankSquareRoot (filter_bank_square_root.cc): uint64 channels → their uint32
/// square roots, shifted right by the int32 scalar input `scale_bits` (computed at run time in
/// the audio front end, by SignalFftAutoScale). It has no options.
pub(super) fn filter_bank_square_root(ctx: &OpContext) -> Result<Kernel> {
    let (input, scale_bits, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    const PREPARE: &str = "filter_bank_square_root_common.cc FilterBankSquareRootPrepare: \
         TF_LITE_ENSURE_EQ(NumDimensions(..))";
    expect_rank(ctx, "input", input, 1, PREPARE)?;
    expect_rank(ctx, "scale_bits input", scale_bits, 0, PREPARE)?;
    expect_rank(ctx, "output", output, 1, PREPARE)?;
    const TYPES: &str = "filter_bank_square_root_common.cc FilterBankSquareRootPrepare: \
         TF_LITE_ENSURE_TYPES_EQ (UINT64 input, INT32 scale_bits, UINT32 output)";
    expect_type(ctx, "input", input, DType::U64, TYPES)?;
    expect_type(ctx, "scale_bits input", scale_bits, DType::I32, TYPES)?;
    expect_type(ctx, "output", output, DType::U32, TYPES)?;
    if let Some(bits) = scale_bits.data.as_deref().and_then(|b| b.get(..4)) {
        let bits = i32::from_le_bytes([bits[0], bits[1], bits[2], bits[3]]);
        if !(0..32).contains(&bits) {
            return Err(ctx.invalid(
                format!("scale_bits {bits}; a shift of a uint32 must be in 0..=31"),
                Grounds::undefined(
                    "signal/src/filter_bank_square_root.cc FilterbankSqrt: Sqrt64(..) >> \
                     scale_down_bits",
                ),
            ));
        }
    }
    let (channels, outputs) = (input.num_elements(), output.num_elements());
    if outputs < channels {
        return Err(ctx.invalid(
            format!("output of {outputs} elements, the input of {channels}"),
            Grounds::undefined(
                "filter_bank_square_root.cc FilterBankSquareRootEval writes one output per input \
                 channel: past the output's end",
            ),
        ));
    }
    if ctx.graph().tensors[ctx.input_index(0)?].is_constant() {
        return Err(ctx.unsupported(
            "the input is a constant tensor; constant inputs to this op are not supported",
        ));
    }
    Ok(kernel(
        "filter_bank_square_root",
        vec![
            Operand::Offset(ctx.input_index(0)?),
            Operand::Src(ctx.input_index(1)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::FilterBankSquareRoot { channels, outputs },
    ))
}

/// SignalFilterBankSpectralSubtraction (filter_bank_spectral_subtraction.cc): uint32 channels
/// less a noise estimate kept between invocations (the variable tensor the loader adds as the
/// operator's last intermediate), and that estimate as a second output. The options' parameters,
/// by index: alternate_one_minus_smoothing, alternate_smoothing, clamping, min_signal_remaining,
/// num_channels, one_minus_smoothing, smoothing, smoothing_bits, spectral_subtraction_bits.
pub(super) fn spectral_subtraction(ctx: &OpContext) -> Result<Kernel> {
    let (input, output, noise) = (ctx.input(0)?, ctx.output(0)?, ctx.output(1)?);
    let options = ctx.custom_options()?;
    let int = |i: usize, key: &str| ctx.custom_int(&options, i, key).map(|v| v as i32);
    let alternate_one_minus_smoothing = int(0, "alternate_one_minus_smoothing")?;
    let alternate_smoothing = int(1, "alternate_smoothing")?;
    let clamping = ctx.custom_int(&options, 2, "clamping")? != 0;
    let min_signal_remaining = int(3, "min_signal_remaining")?;
    let num_channels = int(4, "num_channels")?;
    let one_minus_smoothing = int(5, "one_minus_smoothing")?;
    let smoothing = int(6, "smoothing")?;
    let smoothing_bits = int(7, "smoothing_bits")?;
    let spectral_subtraction_bits = int(8, "spectral_subtraction_bits")?;
    const PREPARE: &str =
        "filter_bank_spectral_subtraction.cc FilterBankSpectralSubtractionPrepare: \
         TF_LITE_ENSURE_EQ(NumDimensions(..), 1)";
    expect_rank(ctx, "input", input, 1, PREPARE)?;
    expect_rank(ctx, "output", output, 1, PREPARE)?;
    expect_rank(ctx, "noise estimate output", noise, 1, PREPARE)?;
    const TYPES: &str = "filter_bank_spectral_subtraction.cc \
         FilterBankSpectralSubtractionPrepare: TF_LITE_ENSURE_TYPES_EQ (.., kTfLiteUInt32)";
    expect_type(ctx, "input", input, DType::U32, TYPES)?;
    expect_type(ctx, "output", output, DType::U32, TYPES)?;
    expect_type(ctx, "noise estimate output", noise, DType::U32, TYPES)?;
    let shifts = [
        (
            "smoothing_bits",
            smoothing_bits,
            32,
            "input[i] << smoothing_bits (uint32)",
        ),
        (
            "spectral_subtraction_bits",
            spectral_subtraction_bits,
            64,
            "uint64 >> spectral_subtraction_bits",
        ),
    ];
    for (name, value, width, what) in shifts {
        if !(0..width).contains(&value) {
            return Err(ctx.invalid(
                format!(
                    "{name} {value} ({what}); a shift of a {width}-bit value must be in \
                     0..{width}"
                ),
                Grounds::undefined(match width {
                    32 => {
                        "signal/src/filter_bank_spectral_subtraction.cc: a uint32 shifted by \
                           32 or more bits"
                    }
                    _ => {
                        "signal/src/filter_bank_spectral_subtraction.cc: a uint64 shifted by \
                          64 or more bits"
                    }
                }),
            ));
        }
    }
    let (elements, outputs, noise_outputs) = (
        input.num_elements(),
        output.num_elements(),
        noise.num_elements(),
    );
    let channels = usize::try_from(num_channels).unwrap_or(usize::MAX);
    if channels > elements || channels > outputs || noise_outputs > channels {
        return Err(ctx.invalid(
            format!(
                "num_channels {num_channels} for an input of {elements} elements, an output of \
                 {outputs} and a noise estimate of {noise_outputs}"
            ),
            Grounds::undefined(
                "filter_bank_spectral_subtraction.cc reads and writes num_channels elements of \
                 the input, the output and its state, and copies the noise estimate's size from \
                 that state: out of bounds",
            ),
        ));
    }
    let state = match ctx.op().intermediates.last() {
        Some(&t) if ctx.graph().tensors[t].is_variable => t,
        _ => return Err(ctx.internal("the loader gave the operator no state tensor")),
    };
    let mut operands = in_out(ctx)?;
    operands.push(Operand::Offset(ctx.output_index(1)?));
    operands.push(Operand::Offset(state));
    Ok(kernel(
        "filter_bank_spectral_subtraction",
        operands,
        P::SpectralSubtraction {
            channels,
            outputs,
            noise_outputs,
            smoothing,
            one_minus_smoothing,
            alternate_smoothing,
            alternate_one_minus_smoothing,
            min_signal_remaining,
            smoothing_bits,
            spectral_subtraction_bits,
            clamping,
        },
    ))
}

/// SignalPCAN (pcan.cc): uint32 channels, their uint32 noise estimates and an int16 gain table →
/// uint32 channels with per-channel automatic gain; parameter 0 of the options is `snr_shift`.
pub(super) fn pcan(ctx: &OpContext) -> Result<Kernel> {
    let (input, noise, lut, output) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?, ctx.output(0)?);
    let options = ctx.custom_options()?;
    let snr_shift = ctx.custom_int(&options, 0, "snr_shift")? as i32;
    const PREPARE: &str = "pcan.cc PcanPrepare: TF_LITE_ENSURE_EQ(NumDimensions(..), 1)";
    expect_rank(ctx, "input", input, 1, PREPARE)?;
    expect_rank(ctx, "noise estimate", noise, 1, PREPARE)?;
    expect_rank(ctx, "gain table", lut, 1, PREPARE)?;
    expect_rank(ctx, "output", output, 1, PREPARE)?;
    const TYPES: &str = "pcan.cc PcanPrepare: TF_LITE_ENSURE_TYPES_EQ (UINT32 input, noise \
         estimate and output, INT16 gain table)";
    expect_type(ctx, "input", input, DType::U32, TYPES)?;
    expect_type(ctx, "noise estimate", noise, DType::U32, TYPES)?;
    expect_type(ctx, "gain table", lut, DType::I16, TYPES)?;
    expect_type(ctx, "output", output, DType::U32, TYPES)?;
    if !(0..64).contains(&snr_shift) {
        return Err(ctx.invalid(
            format!("snr_shift {snr_shift}; a shift of a uint64 must be in 0..=63"),
            Grounds::undefined("signal/src/pcan_argc_fixed.cc: (uint64_t)x * gain >> snr_shift"),
        ));
    }
    let channels = input.num_elements();
    if output.num_elements() != channels || noise.num_elements() < channels {
        return Err(ctx.invalid(
            format!(
                "an input of {channels} elements, an output of {} and a noise estimate of {}",
                output.num_elements(),
                noise.num_elements()
            ),
            Grounds::undefined(
                "pcan.cc PcanEval copies the output's size from the input, then reads the noise \
                 estimate and writes the output for each input channel: out of bounds",
            ),
        ));
    }
    if lut.num_elements() < 125 {
        return Err(ctx.invalid(
            format!("a gain table of {} elements", lut.num_elements()),
            Grounds::undefined(
                "signal/src/pcan_argc_fixed.cc WideDynamicFunction reads up to entry 124 (4 per \
                 bit of the noise estimate), unchecked",
            ),
        ));
    }
    for (i, what) in [(0, "input"), (1, "noise estimate")] {
        if ctx.graph().tensors[ctx.input_index(i)?].is_constant() {
            return Err(ctx.unsupported(format!(
                "the {what} is a constant tensor; constant inputs to this op are not supported"
            )));
        }
    }
    Ok(kernel(
        "pcan",
        vec![
            Operand::Offset(ctx.input_index(0)?),
            Operand::Offset(ctx.input_index(1)?),
            Operand::Src(ctx.input_index(2)?),
            Operand::Offset(ctx.output_index(0)?),
        ],
        P::Pcan {
            channels,
            snr_shift,
        },
    ))
}

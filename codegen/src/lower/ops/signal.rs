//! TFLM's signal library: the custom operators of its audio front end (`signal/micro/kernels`),
//! registered by `custom_code`, their parameters read from the operator's FlexBuffer options the
//! way TFLM's `FlexbufferWrapper` reads them (by index: the map's keys in alphabetical order).
//!
//! SignalWindow → `signal::window_s16`; SignalFilterBankLog → `signal::filter_bank_log`;
//! SignalEnergy → `signal::energy`; SignalFftAutoScale → `signal::fft_auto_scale`;
//! SignalRfft → `signal::rfft_s16`, `rfft_s32`, `rfft_f32`; SignalFilterBank → `signal::filter_bank`;
//! SignalFilterBankSquareRoot → `signal::filter_bank_square_root`;
//! SignalFilterBankSpectralSubtraction → `signal::filter_bank_spectral_subtraction` (its state a
//! variable tensor the loader adds); SignalPCAN → `signal::pcan`; SignalDelay →
//! `signal::delay_s16`, SignalFramer → `signal::framer_s16`, SignalStacker →
//! `signal::stacker_s16`, SignalOverlapAdd → `signal::overlap_add_s16`, `overlap_add_f32` (their
//! kept samples or sums variable tensors the loader adds).

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Tensor};
use crate::lower::params::signal as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{Data, OpContext, Operand};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::Out(0)],
            tinyaot: &[Sig::Same(Ty::I16)],
            tflm: &[Sig::Same(Ty::I16)],
        },
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Custom("SignalWindow", window),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(
            &[Sig::Each(&[Ty::U32, Ty::I16])],
            &[Sig::Each(&[Ty::U32, Ty::I16])],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom("SignalFilterBankLog", filter_bank_log),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(
            &[Sig::Each(&[Ty::I16, Ty::U32])],
            &[Sig::Each(&[Ty::I16, Ty::U32])],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom("SignalEnergy", energy),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::Out(0), Role::Out(1)],
            tinyaot: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::I32])],
            tflm: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::I32])],
        },
        inputs: 1..=1,
        outputs: 2,
        lower: Lowering::Custom("SignalFftAutoScale", fft_auto_scale),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(
            &[Sig::Same(Ty::I16), Sig::Same(Ty::I32), Sig::Same(Ty::F32)],
            &[Sig::Same(Ty::I16), Sig::Same(Ty::I32), Sig::Same(Ty::F32)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom("SignalRfft", rfft),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::Out(0)],
            tinyaot: &[Sig::Each(&[Ty::U32, Ty::I16, Ty::U64])],
            tflm: &[Sig::Each(&[Ty::U32, Ty::I16, Ty::U64])],
        },
        inputs: 6..=6,
        outputs: 1,
        lower: Lowering::Custom("SignalFilterBank", filter_bank),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::Out(0)],
            tinyaot: &[Sig::Each(&[Ty::U64, Ty::I32, Ty::U32])],
            tflm: &[Sig::Each(&[Ty::U64, Ty::I32, Ty::U32])],
        },
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Custom("SignalFilterBankSquareRoot", filter_bank_square_root),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::Out(0), Role::Out(1)],
            tinyaot: &[Sig::Same(Ty::U32)],
            tflm: &[Sig::Same(Ty::U32)],
        },
        inputs: 1..=1,
        outputs: 2,
        lower: Lowering::Custom(crate::load::SPECTRAL_SUBTRACTION, spectral_subtraction),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::In(2), Role::Out(0)],
            tinyaot: &[Sig::Each(&[Ty::U32, Ty::U32, Ty::I16, Ty::U32])],
            tflm: &[Sig::Each(&[Ty::U32, Ty::U32, Ty::I16, Ty::U32])],
        },
        inputs: 3..=3,
        outputs: 1,
        lower: Lowering::Custom("SignalPCAN", pcan),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(&[Sig::Same(Ty::I16)], &[Sig::Same(Ty::I16)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom(crate::load::DELAY, delay),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::Out(0), Role::Out(1)],
            tinyaot: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::Bool])],
            tflm: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::Bool])],
        },
        inputs: 1..=1,
        outputs: 2,
        lower: Lowering::Custom(crate::load::FRAMER, framer),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::Out(0), Role::Out(1)],
            tinyaot: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::Bool])],
            tflm: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::Bool])],
        },
        inputs: 1..=1,
        outputs: 2,
        lower: Lowering::Custom(crate::load::STACKER, stacker),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(
            &[Sig::Same(Ty::I16), Sig::Same(Ty::F32)],
            &[Sig::Same(Ty::I16), Sig::Same(Ty::F32)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom(crate::load::OVERLAP_ADD, overlap_add),
    },
];

/// Fails unless `tensor` (the `what` of the operator) has type `dtype`, as the kernel's Prepare
/// checks with `TF_LITE_ENSURE_TYPES_EQ` (`file` names it).
fn expect_type(
    ctx: &OpContext,
    what: &str,
    tensor: &Tensor,
    dtype: DType,
    check: &'static str,
) -> Result<()> {
    if tensor.dtype == dtype {
        return Ok(());
    }
    Err(ctx.invalid(
        format!("the {what} has type {}, not {dtype}", tensor.dtype),
        Grounds::tflm(check),
    ))
}

/// Fails unless `tensor` (the `what` of the operator) has rank `rank`, as the kernel's Prepare
/// checks with `TF_LITE_ENSURE_EQ(NumDimensions(..))` (`check` names it).
fn expect_rank(
    ctx: &OpContext,
    what: &str,
    tensor: &Tensor,
    rank: usize,
    check: &'static str,
) -> Result<()> {
    if tensor.shape.len() == rank {
        return Ok(());
    }
    Err(ctx.invalid(
        format!("the {what} has shape {:?}, not rank {rank}", tensor.shape),
        Grounds::tflm(check),
    ))
}

/// SignalWindow (window.cc): input × weights → output, int16 throughout; parameter 0 of the
/// options is `shift`.
fn window(ctx: &OpContext) -> Result<Kernel> {
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
fn filter_bank_log(ctx: &OpContext) -> Result<Kernel> {
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
fn energy(ctx: &OpContext) -> Result<Kernel> {
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
fn fft_auto_scale(ctx: &OpContext) -> Result<Kernel> {
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

/// The values of a constant INT16 tensor (`what` of the operator); a tensor computed at run time
/// is unsupported: its indices are checked here, where TFLM reads them unchecked.
fn const_i16s(ctx: &OpContext, what: &str, i: usize) -> Result<Vec<i16>> {
    let index = ctx.constant_input(i, what)?;
    let tensor = &ctx.graph().tensors[index];
    let data = tensor.data.as_deref().unwrap_or(&[]);
    let n = tensor.num_elements();
    if data.len() < 2 * n {
        return Err(ctx.invalid(
            format!(
                "{what} has {} bytes, fewer than its {n} int16 need",
                data.len()
            ),
            Grounds::spec("schema.fbs, Buffer: a constant tensor's data holds its elements"),
        ));
    }
    Ok(data[..2 * n]
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect())
}

/// kissfft's `kf_factor` of a complex transform of length `n`: (radix, remaining length) pairs,
/// radices 4 first, then 2, then odd numbers up to `floor(sqrt(n))`, then what is left.
fn kiss_factors(n: usize) -> Vec<usize> {
    let floor_sqrt = (n as f64).sqrt().floor() as usize;
    let (mut n, mut p, mut factors) = (n, 4usize, Vec::new());
    loop {
        while n % p != 0 {
            p = match p {
                4 => 2,
                2 => 3,
                _ => p + 2,
            };
            if p > floor_sqrt {
                p = n;
            }
        }
        n /= p;
        factors.extend([p, n]);
        if n <= 1 {
            return factors;
        }
    }
}

/// kissfft's `kf_cexp` of phases for its three types: in Q15 and Q31 `floor(0.5 + SAMP_MAX ·
/// cos)`, `… · sin`; in float the float of the double `cos` and `sin`.
#[derive(Default)]
struct Twiddles {
    q15: Vec<i16>,
    q31: Vec<i32>,
    float: Vec<f32>,
}

impl Twiddles {
    fn push(&mut self, phase: f64) {
        for x in [phase.cos(), phase.sin()] {
            self.q15.push((0.5 + 32767.0 * x).floor() as i16);
            self.q31.push((0.5 + 2_147_483_647.0 * x).floor() as i32);
            self.float.push(x as f32);
        }
    }
}

/// SignalRfft (rfft.cc): frames of samples → their complex spectra, by kissfft in the tensors'
/// type (int16 and int32 fixed point, float32); parameter 0 of the options is `T` (the tensors'
/// type), 1 `fft_length`.
fn rfft(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let options = ctx.custom_options()?;
    let t = ctx.custom_int(&options, 0, "T")? as i32;
    let fft_length = ctx.custom_int(&options, 1, "fft_length")? as i32;
    // TensorType codes: FLOAT32 0, INT32 2, INT16 7.
    let dtype = match t {
        0 => DType::F32,
        2 => DType::I32,
        7 => DType::I16,
        _ => {
            return Err(ctx.invalid(
                format!(
                    "parameter 'T' is TensorType {t}; SignalRfft takes INT16, INT32 or FLOAT32"
                ),
                Grounds::undefined(
                    "rfft.cc RfftInitAll returns no parameters for another type, which \
                     RfftPrepareAll then reads",
                ),
            ))
        }
    };
    if input.shape.len() != output.shape.len() {
        return Err(ctx.invalid(
            format!(
                "output of rank {}, the input of rank {}",
                output.shape.len(),
                input.shape.len()
            ),
            Grounds::tflm(
                "rfft.cc RfftPrepare: TF_LITE_ENSURE_EQ(NumDimensions(input), NumDimensions(output))",
            ),
        ));
    }
    const TYPES: &str = "rfft.cc RfftPrepare: TF_LITE_ENSURE_TYPES_EQ (input and output of type T)";
    expect_type(ctx, "input", input, dtype, TYPES)?;
    expect_type(ctx, "output", output, dtype, TYPES)?;
    let (Some(&input_length), Some(&output_last)) = (input.shape.last(), output.shape.last())
    else {
        return Err(ctx.invalid(
            "the input and output are scalars (rank 0)",
            Grounds::undefined("rfft.cc RfftPrepare reads the last dimension of a rank-0 shape"),
        ));
    };
    if fft_length <= 0 || fft_length % 2 != 0 {
        return Err(ctx.invalid(
            format!("fft_length {fft_length}; kissfft's real transform takes an even length"),
            Grounds::undefined(
                "kiss_fftr_alloc returns no state for an odd or non-positive length, which \
                 RfftEval then uses",
            ),
        ));
    }
    let fft_length = fft_length as usize;
    let size = input.num_elements();
    if input_length > fft_length || (input_length == 0 && size > 0) {
        return Err(ctx.invalid(
            format!("frames of {input_length} samples for fft_length {fft_length}"),
            Grounds::undefined(
                "rfft.cc RfftEval zero-pads each frame of input_length samples to fft_length: \
                 a negative padding, or no progress through the input",
            ),
        ));
    }
    let frames = if size == 0 { 0 } else { size / input_length };
    let nfft = fft_length / 2;
    let output_length = output_last / 2;
    let written = frames
        .checked_sub(1)
        .map(|last| last * output_length + nfft + 1);
    let room = output.num_elements() / output_last.max(1) * output_last / 2;
    if written.is_some_and(|w| w > room) {
        return Err(ctx.invalid(
            format!(
                "{frames} frames of {} complex bins each {output_length} apart, an output of \
                 {room} complex elements",
                nfft + 1
            ),
            Grounds::undefined(
                "kiss_fftr writes fft_length / 2 + 1 complex bins per frame: past the output's end",
            ),
        ));
    }
    let factors = kiss_factors(nfft);
    if let Some(radix) = factors
        .chunks_exact(2)
        .map(|f| f[0])
        .find(|p| !(2..=5).contains(p))
    {
        return Err(ctx.invalid(
            format!(
                "fft_length {fft_length}: kissfft factors its half, {nfft}, with radix {radix}, \
                 which only its generic butterfly computes; supported: halves whose prime \
                 factors are 2, 3 and 5"
            ),
            Grounds::undefined(
                "kissfft's kf_bfly_generic takes its scratch from KISS_FFT_TMP_ALLOC, which \
                 TFLM's kissfft patch makes a null pointer: TFLM writes through it (a crash)",
            ),
        ));
    }
    let pi = std::f64::consts::PI;
    let mut twiddles = Twiddles::default();
    for i in 0..nfft {
        twiddles.push(-2.0 * pi * i as f64 / nfft as f64);
    }
    let mut halves = Twiddles::default();
    for i in 0..nfft / 2 {
        halves.push(-pi * ((i + 1) as f64 / nfft as f64 + 0.5));
    }
    let operands = in_out(ctx)?;
    Ok(match dtype {
        DType::I16 => kernel(
            "rfft_s16",
            operands,
            P::RfftS16 {
                frames,
                input_length,
                output_length,
                nfft,
                factors,
                twiddles: Data::Packed(twiddles.q15),
                super_twiddles: Data::Packed(halves.q15),
            },
        ),
        DType::I32 => kernel(
            "rfft_s32",
            operands,
            P::RfftS32 {
                frames,
                input_length,
                output_length,
                nfft,
                factors,
                twiddles: Data::Packed(twiddles.q31),
                super_twiddles: Data::Packed(halves.q31),
            },
        ),
        _ => kernel(
            "rfft_f32",
            operands,
            P::RfftF32 {
                frames,
                input_length,
                output_length,
                nfft,
                factors,
                twiddles: Data::Packed(twiddles.float),
                super_twiddles: Data::Packed(halves.float),
            },
        ),
    })
}

/// SignalFilterBank (filter_bank.cc): uint32 energies and five constant int16 tables → uint64
/// channels; parameter 0 of the options is `num_channels`.
fn filter_bank(ctx: &OpContext) -> Result<Kernel> {
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
fn filter_bank_square_root(ctx: &OpContext) -> Result<Kernel> {
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
fn spectral_subtraction(ctx: &OpContext) -> Result<Kernel> {
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
fn pcan(ctx: &OpContext) -> Result<Kernel> {
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
fn delay(ctx: &OpContext) -> Result<Kernel> {
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
fn framer(ctx: &OpContext) -> Result<Kernel> {
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
fn stacker(ctx: &OpContext) -> Result<Kernel> {
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
fn overlap_add(ctx: &OpContext) -> Result<Kernel> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_are_kissfft_s() {
        // Powers of 4 first, then 2, then odd factors up to the square root, then the rest.
        assert_eq!(kiss_factors(256), [4, 64, 4, 16, 4, 4, 4, 1]);
        assert_eq!(kiss_factors(8), [4, 2, 2, 1]);
        assert_eq!(kiss_factors(15), [3, 5, 5, 1]);
        assert_eq!(kiss_factors(14), [2, 7, 7, 1]);
        assert_eq!(kiss_factors(1), [1, 1]);
    }

    #[test]
    fn twiddles_are_rounded_as_kissfft_rounds_them() {
        let mut t = Twiddles::default();
        t.push(0.0);
        t.push(-std::f64::consts::PI / 2.0);
        assert_eq!(t.q15, [32767, 0, 0, -32767]);
        assert_eq!(t.q31, [2_147_483_647, 0, 0, -2_147_483_647]);
        assert_eq!(t.float[..2], [1.0, 0.0]);
    }
}

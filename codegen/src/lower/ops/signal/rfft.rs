//! The lowerings of SignalRfft and SignalIrfft: kissfft's factors and twiddles, computed at
//! generation time (the inverse's with the phases negated, as `kiss_fft_alloc` and
//! `kiss_fftr_alloc` negate them for `inverse_fft`).

use super::*;

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

/// The options' `T` of `op` (parameter 0: a TensorType code) as the tensors' type: INT16,
/// INT32 or FLOAT32, the three its `*InitAll` switches over; `init` names the file.
fn fft_type(ctx: &OpContext, t: i64, op: &str, init: &'static str) -> Result<DType> {
    // TensorType codes: FLOAT32 0, INT32 2, INT16 7.
    match t as i32 {
        0 => Ok(DType::F32),
        2 => Ok(DType::I32),
        7 => Ok(DType::I16),
        t => Err(ctx.invalid(
            format!("parameter 'T' is TensorType {t}; {op} takes INT16, INT32 or FLOAT32"),
            Grounds::undefined(init),
        )),
    }
}

/// What SignalRfft's and SignalIrfft's Prepare check alike (`file` names the kernel): equal
/// ranks, both tensors of type `dtype`, a last dimension; returns the input's and the output's.
fn check_tensors(ctx: &OpContext, dtype: DType, file: Checks) -> Result<(usize, usize)> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    if input.shape.len() != output.shape.len() {
        return Err(ctx.invalid(
            format!(
                "output of rank {}, the input of rank {}",
                output.shape.len(),
                input.shape.len()
            ),
            Grounds::tflm(file.ranks),
        ));
    }
    expect_type(ctx, "input", input, dtype, file.types)?;
    expect_type(ctx, "output", output, dtype, file.types)?;
    let (Some(&input_last), Some(&output_last)) = (input.shape.last(), output.shape.last()) else {
        return Err(ctx.invalid(
            "the input and output are scalars (rank 0)",
            Grounds::undefined(file.rank_0),
        ));
    };
    Ok((input_last, output_last))
}

/// The TFLM checks [`check_tensors`] cites, per kernel.
struct Checks {
    ranks: &'static str,
    types: &'static str,
    rank_0: &'static str,
}

/// Refuses an `fft_length` kissfft's real transform has no state for (odd or not positive).
/// `fft_length` is read as TFLM's `ElementAsInt32` reads it (its low 32 bits).
fn check_fft_length(ctx: &OpContext, fft_length: i64, eval: &'static str) -> Result<usize> {
    let fft_length = fft_length as i32;
    if fft_length <= 0 || fft_length % 2 != 0 {
        return Err(ctx.invalid(
            format!("fft_length {fft_length}; kissfft's real transform takes an even length"),
            Grounds::undefined(eval),
        ));
    }
    Ok(fft_length as usize)
}

/// kissfft's factors of `nfft`, refusing a radix only its generic butterfly computes.
fn factors_2_to_5(ctx: &OpContext, nfft: usize) -> Result<Vec<usize>> {
    let factors = kiss_factors(nfft);
    if let Some(radix) = factors
        .chunks_exact(2)
        .map(|f| f[0])
        .find(|p| !(2..=5).contains(p))
    {
        return Err(ctx.invalid(
            format!(
                "fft_length {}: kissfft factors its half, {nfft}, with radix {radix}, \
                 which only its generic butterfly computes; supported: halves whose prime \
                 factors are 2, 3 and 5",
                2 * nfft
            ),
            Grounds::undefined(
                "kissfft's kf_bfly_generic takes its scratch from KISS_FFT_TMP_ALLOC, which \
                 TFLM's kissfft patch makes a null pointer: TFLM writes through it (a crash)",
            ),
        ));
    }
    Ok(factors)
}

/// kissfft's twiddles of a real transform of complex length `nfft`: the complex transform's
/// (`kiss_fft_alloc`: `-2πi/nfft`) and the real split's (`kiss_fftr_alloc`:
/// `-π((i + 1)/nfft + 1/2)`), each phase negated for the inverse as kissfft negates it.
fn kiss_twiddles(nfft: usize, inverse: bool) -> (Twiddles, Twiddles) {
    let pi = std::f64::consts::PI;
    let sign = if inverse { -1.0 } else { 1.0 };
    let mut twiddles = Twiddles::default();
    for i in 0..nfft {
        twiddles.push(-2.0 * pi * i as f64 / nfft as f64 * sign);
    }
    let mut halves = Twiddles::default();
    for i in 0..nfft / 2 {
        halves.push(-pi * ((i + 1) as f64 / nfft as f64 + 0.5) * sign);
    }
    (twiddles, halves)
}

/// SignalRfft (rfft.cc): frames of samples → their complex spectra, by kissfft in the tensors'
/// type (int16 and int32 fixed point, float32); parameter 0 of the options is `T` (the tensors'
/// type), 1 `fft_length`.
pub(super) fn rfft(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let options = ctx.custom_options()?;
    let t = ctx.custom_int(&options, 0, "T")?;
    let fft_length = ctx.custom_int(&options, 1, "fft_length")?;
    let dtype = fft_type(
        ctx,
        t,
        "SignalRfft",
        "rfft.cc RfftInitAll returns no parameters for another type, which RfftPrepareAll \
         then reads",
    )?;
    let (input_length, output_last) = check_tensors(
        ctx,
        dtype,
        Checks {
            ranks: "rfft.cc RfftPrepare: TF_LITE_ENSURE_EQ(NumDimensions(input), \
                    NumDimensions(output))",
            types: "rfft.cc RfftPrepare: TF_LITE_ENSURE_TYPES_EQ (input and output of type T)",
            rank_0: "rfft.cc RfftPrepare reads the last dimension of a rank-0 shape",
        },
    )?;
    let fft_length = check_fft_length(
        ctx,
        fft_length,
        "kiss_fftr_alloc returns no state for an odd or non-positive length, which RfftEval \
         then uses",
    )?;
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
    let factors = factors_2_to_5(ctx, nfft)?;
    let (twiddles, halves) = kiss_twiddles(nfft, false);
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

/// SignalIrfft (irfft.cc): complex spectra → frames of real samples, by kissfft's inverse real
/// transform in the tensors' type (int16 and int32 fixed point; float32, then divided by
/// `fft_length`); parameter 0 of the options is `T`, 1 `fft_length`. TFLM's Eval steps through
/// the input `input_length` bins (half its last dimension) and the output `output_length`
/// samples (its last dimension) at a time, each frame reading `fft_length / 2 + 1` bins and
/// writing `fft_length` samples, unchecked: frames may overlap in either; one reaching past
/// either end is refused.
pub(super) fn irfft(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let options = ctx.custom_options()?;
    let t = ctx.custom_int(&options, 0, "T")?;
    let fft_length = ctx.custom_int(&options, 1, "fft_length")?;
    let dtype = fft_type(
        ctx,
        t,
        "SignalIrfft",
        "irfft.cc IrfftInitAll returns no parameters for another type, which IrfftPrepareAll \
         then reads",
    )?;
    let (input_last, output_length) = check_tensors(
        ctx,
        dtype,
        Checks {
            ranks: "irfft.cc IrfftPrepare: TF_LITE_ENSURE_EQ(NumDimensions(input), \
                    NumDimensions(output))",
            types: "irfft.cc IrfftPrepare: TF_LITE_ENSURE_TYPES_EQ (input and output of type T)",
            rank_0: "irfft.cc IrfftPrepare reads the last dimension of a rank-0 shape",
        },
    )?;
    let fft_length = check_fft_length(
        ctx,
        fft_length,
        "kiss_fftr_alloc returns no state for an odd or non-positive length, which IrfftEval \
         then uses",
    )?;
    let nfft = fft_length / 2;
    let (input_length, input_size) = (input_last / 2, input.num_elements() / 2);
    if input_length == 0 && input_size > 0 {
        return Err(ctx.invalid(
            format!("an input's last dimension of {input_last}: frames of 0 complex bins"),
            Grounds::undefined(
                "irfft.cc IrfftEval steps through the input input_length bins at a time: no \
                 progress (an endless loop)",
            ),
        ));
    }
    let frames = if input_size == 0 {
        0
    } else {
        input_size.div_ceil(input_length)
    };
    if let Some(last) = frames.checked_sub(1) {
        // The last value read is the real part of the last frame's bin nfft; the last written,
        // its frame's sample 2·nfft - 1.
        let read = 2 * (last * input_length + nfft) + 1;
        if read > input.num_elements() {
            return Err(ctx.invalid(
                format!(
                    "{frames} frames of {} complex bins each {input_length} apart, an input of \
                     {} values",
                    nfft + 1,
                    input.num_elements()
                ),
                Grounds::undefined(
                    "kiss_fftri reads fft_length / 2 + 1 complex bins per frame: past the \
                     input's end",
                ),
            ));
        }
        let written = last * output_length + fft_length;
        if written > output.num_elements() {
            return Err(ctx.invalid(
                format!(
                    "{frames} frames of {fft_length} samples each {output_length} apart, an \
                     output of {} samples",
                    output.num_elements()
                ),
                Grounds::undefined(
                    "kiss_fftri writes fft_length samples per frame: past the output's end",
                ),
            ));
        }
    }
    let factors = factors_2_to_5(ctx, nfft)?;
    let (twiddles, halves) = kiss_twiddles(nfft, true);
    let mut operands = in_out(ctx)?;
    // kiss_fftri's packed spectrum (its state's tmpbuf): nfft complex values.
    let bytes = if dtype == DType::I16 { 2 } else { 4 };
    operands.push(Operand::Scratch(2 * bytes * nfft));
    Ok(match dtype {
        DType::I16 => kernel(
            "irfft_s16",
            operands,
            P::IrfftS16 {
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
            "irfft_s32",
            operands,
            P::IrfftS32 {
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
            "irfft_f32",
            operands,
            P::IrfftF32 {
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

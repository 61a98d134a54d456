//! The lowering of SignalRfft: kissfft's factors and twiddles, computed at generation time.

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

/// SignalRfft (rfft.cc): frames of samples → their complex spectra, by kissfft in the tensors'
/// type (int16 and int32 fixed point, float32); parameter 0 of the options is `T` (the tensors'
/// type), 1 `fft_length`.
pub(super) fn rfft(ctx: &OpContext) -> Result<Kernel> {
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

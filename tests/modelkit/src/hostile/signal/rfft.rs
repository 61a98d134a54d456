//! The corners of SignalRfft and SignalIrfft.

use super::*;

/// A SignalRfft of int16 `input` into `output` with `fft_length`.
fn rfft(input: TensorSpec, output: TensorSpec, fft_length: i64) -> ModelSpec {
    rfft_typed(input, output, 7, fft_length)
}

/// A SignalRfft with the options' `T` (a TensorType code) given.
fn rfft_typed(input: TensorSpec, output: TensorSpec, t: i64, fft_length: i64) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalRfft",
        Some(int_map(&[("T", t), ("fft_length", fft_length)])),
        vec![input],
        vec![output],
    )
}

/// SignalRfft: the audio front end's 512-point transform of 480 samples, and transforms whose
/// kissfft factorisations reach every butterfly TFLM runs (radix 4, 2, 3 and 5), with frames
/// zero-padded, several frames, and frames whose bins overlap in the output (each later frame
/// writing over the earlier one's last bins, as TFLM's do). Lengths whose half kissfft factors
/// with another radix (its generic butterfly, which crashes TFLM) are refused.
pub(super) fn rfft_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    for (name, input, output, fft_length) in [
        ("signal_rfft_512_of_480", vec![480], vec![514], 512),
        ("signal_rfft_radix_4_2_padded", vec![10], vec![18], 16),
        ("signal_rfft_radix_3_5_two_frames", vec![2, 30], vec![2, 32], 30),
        ("signal_rfft_radix_5_three_frames", vec![3, 7], vec![3, 12], 10),
        ("signal_rfft_frames_overlap_in_output", vec![2, 8], vec![6, 2], 8),
    ] {
        s.accepted(name, rfft(int16(&input), int16(&output), fft_length));
    }
    // The same transforms on int32 (random full-range samples: kissfft's 32-bit fixed point,
    // its sums wrapping) and float32 (random samples in [-1, 1]).
    for (name, input, output, fft_length) in [
        ("signal_rfft_int32_512_of_480", vec![480], vec![514], 512),
        ("signal_rfft_int32_radix_3_5_two_frames", vec![2, 30], vec![2, 32], 30),
        ("signal_rfft_int32_radix_5_three_frames", vec![3, 7], vec![3, 12], 10),
    ] {
        s.accepted(
            name,
            rfft_typed(
                TensorSpec::int32(&input),
                TensorSpec::int32(&output),
                2,
                fft_length,
            ),
        );
    }
    for (name, input, output, fft_length) in [
        ("signal_rfft_float_512_of_480", vec![480], vec![514], 512),
        ("signal_rfft_float_radix_3_5_two_frames", vec![2, 30], vec![2, 32], 30),
        ("signal_rfft_float_radix_5_three_frames", vec![3, 7], vec![3, 12], 10),
    ] {
        s.accepted(
            name,
            rfft_typed(
                TensorSpec::f32(&input),
                TensorSpec::f32(&output),
                0,
                fft_length,
            ),
        );
    }
    s.category = Category::TypesAndParameters;
    s.refused(
        "signal_rfft_generic_radix_7",
        rfft(int16(&[20]), int16(&[30]), 28),
        Refusal::Invalid,
        "with radix 7",
    );
    s.refused(
        "signal_rfft_length_2",
        rfft(int16(&[2]), int16(&[4]), 2),
        Refusal::Invalid,
        "with radix 1",
    );
    s.refused(
        "signal_rfft_odd_length",
        rfft(int16(&[14]), int16(&[16]), 15),
        Refusal::Invalid,
        "fft_length 15",
    );
    s.refused(
        "signal_rfft_frame_longer_than_fft",
        rfft(int16(&[20]), int16(&[18]), 16),
        Refusal::Invalid,
        "frames of 20 samples",
    );
    s.refused(
        "signal_rfft_output_too_short",
        rfft(int16(&[16]), int16(&[16]), 16),
        Refusal::Invalid,
        "an output of 8 complex elements",
    );
    s.refused(
        "signal_rfft_type_int8",
        rfft_typed(int16(&[16]), int16(&[18]), 9, 16),
        Refusal::Invalid,
        "parameter 'T' is TensorType 9",
    );
    s.refused(
        "signal_rfft_type_not_the_tensors",
        rfft_typed(int16(&[16]), int16(&[18]), 2, 16),
        Refusal::Invalid,
        "the input has type",
    );
    s.refused(
        "signal_rfft_rank_differs",
        rfft(int16(&[1, 16]), int16(&[18]), 16),
        Refusal::Invalid,
        "output of rank 1",
    );
}

/// A SignalIrfft with the options' `T` (a TensorType code) given.
fn irfft_typed(input: TensorSpec, output: TensorSpec, t: i64, fft_length: i64) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalIrfft",
        Some(int_map(&[("T", t), ("fft_length", fft_length)])),
        vec![input],
        vec![output],
    )
}

/// A tensor of TensorType code `t` (INT16 7, INT32 2, FLOAT32 0) and `shape`.
fn typed(t: i64, shape: &[i32]) -> TensorSpec {
    match t {
        2 => TensorSpec::int32(shape),
        0 => TensorSpec::f32(shape),
        _ => int16(shape),
    }
}

/// SignalRfft then SignalIrfft of `fft_length` on one frame of type `t`: the spectrum TFLM's
/// forward transform makes, back to samples (kissfft's scaling and rounding on the way).
fn round_trip(t: i64, fft_length: i32) -> ModelSpec {
    let options = || Some(int_map(&[("T", t), ("fft_length", i64::from(fft_length))]));
    custom_chain(
        vec![
            typed(t, &[fft_length]),
            typed(t, &[fft_length + 2]),
            typed(t, &[fft_length]),
        ],
        vec![
            ("SignalRfft", options(), vec![0], vec![1]),
            ("SignalIrfft", options(), vec![1], vec![2]),
        ],
        vec![0],
        vec![2],
    )
}

/// SignalIrfft: on each type, a 512-point inverse and inverses whose kissfft factorisations
/// reach every butterfly TFLM runs (radix 4, 2, 3 and 5, the radix-4 one rotating the other way),
/// over several frames; on int16 also frames whose bins past `fft_length / 2` are skipped, and
/// frames that overlap in the output (each later frame writing over the earlier one's last
/// samples, as TFLM's do); and the round trip from SignalRfft on int16 and float32. Random
/// spectra: full-range integers (kissfft's fixed point, its sums wrapping), floats in [-1, 1].
/// Refused: what TFLM reads or writes past a tensor's end, lengths whose half kissfft factors
/// with another radix (its generic butterfly, which crashes TFLM), and what Prepare refuses.
pub(super) fn irfft_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    for (t, kind) in [(7, ""), (2, "int32_"), (0, "float_")] {
        for (name, input, output, fft_length) in [
            ("512", vec![514], vec![512], 512),
            ("radix_4_2", vec![18], vec![16], 16),
            ("radix_3_5_two_frames", vec![2, 32], vec![2, 30], 30),
            ("radix_5_three_frames", vec![3, 12], vec![3, 10], 10),
        ] {
            s.accepted(
                &format!("signal_irfft_{kind}{name}"),
                irfft_typed(typed(t, &input), typed(t, &output), t, fft_length),
            );
        }
    }
    // Frames 6 bins apart reading 5; frames of 8 samples written 2 apart (the output exactly
    // covered: TFLM leaves what no frame writes as its arena held it).
    s.accepted(
        "signal_irfft_bins_past_half_skipped",
        irfft_typed(int16(&[2, 12]), int16(&[2, 8]), 7, 8),
    );
    s.accepted(
        "signal_irfft_frames_overlap_in_output",
        irfft_typed(int16(&[2, 10]), int16(&[5, 2]), 7, 8),
    );
    s.accepted("signal_rfft_irfft_round_trip", round_trip(7, 32));
    s.accepted("signal_rfft_irfft_float_round_trip", round_trip(0, 48));
    s.category = Category::TypesAndParameters;
    for (name, input, output, fft_length, message) in [
        ("generic_radix_7", vec![30], vec![28], 28, "with radix 7"),
        ("length_2", vec![4], vec![2], 2, "with radix 1"),
        ("odd_length", vec![16], vec![15], 15, "fft_length 15"),
        ("input_too_short", vec![16], vec![16], 16, "an input of 16 values"),
        (
            "last_frame_past_input",
            vec![3, 10],
            vec![3, 10],
            10,
            "an input of 30 values",
        ),
        ("output_too_short", vec![18], vec![14], 16, "an output of 14 samples"),
        ("frames_of_no_bins", vec![4, 1], vec![4, 16], 16, "frames of 0 complex bins"),
    ] {
        s.refused(
            &format!("signal_irfft_{name}"),
            irfft_typed(int16(&input), int16(&output), 7, fft_length),
            Refusal::Invalid,
            message,
        );
    }
    s.refused(
        "signal_irfft_type_int8",
        irfft_typed(int16(&[18]), int16(&[16]), 9, 16),
        Refusal::Invalid,
        "parameter 'T' is TensorType 9",
    );
    s.refused(
        "signal_irfft_type_not_the_tensors",
        irfft_typed(int16(&[18]), int16(&[16]), 0, 16),
        Refusal::Invalid,
        "the input has type",
    );
    s.refused(
        "signal_irfft_rank_differs",
        irfft_typed(int16(&[1, 18]), int16(&[16]), 7, 16),
        Refusal::Invalid,
        "output of rank 1",
    );
}

//! The corners of SignalRfft.

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

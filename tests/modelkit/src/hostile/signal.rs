//! The corners of TFLM's signal library operators (SignalWindow, SignalFilterBankLog,
//! SignalEnergy, SignalFftAutoScale, SignalRfft, SignalFilterBank, SignalFilterBankSquareRoot,
//! SignalFilterBankSpectralSubtraction, SignalPCAN: custom operators whose parameters are a
//! FlexBuffer in `custom_options`) and of the CASTs around them: frames, shifts and state TFLM
//! computes, the options and shapes its kernels read out of bounds (refused as invalid), and the
//! signal operators tinyaot does not compile yet (refused naming them).

use super::{Category, Refusal, Suite};
use crate::flexbuffer::int_map;
use crate::{ModelSpec, OpCodeSpec, OpSpec, Options, TensorSpec, TensorType};

/// An int16 tensor of `shape`.
fn int16(shape: &[i32]) -> TensorSpec {
    TensorSpec::new(TensorType::INT16, shape)
}

/// Constant int16 weights: a ramp from -700 to 32767, `n` of them, the first negative.
fn weights(n: usize) -> TensorSpec {
    let values: Vec<i16> = (0..n)
        .map(|i| (-700 + (33467 * i / n.max(2).saturating_sub(1)) as i64).min(32767) as i16)
        .collect();
    int16(&[n as i32]).constant_i16(&values)
}

/// A SignalWindow of `input` by `weights` into `output`, with `options` as its custom options.
fn window(
    input: TensorSpec,
    weights: TensorSpec,
    output: TensorSpec,
    options: Option<Vec<u8>>,
) -> ModelSpec {
    ModelSpec::single_custom_op("SignalWindow", options, vec![input, weights], vec![output])
}

/// A SignalFilterBankLog of `input` into `output`, with `options` as its custom options.
fn filter_bank_log(input: TensorSpec, output: TensorSpec, options: Option<Vec<u8>>) -> ModelSpec {
    ModelSpec::single_custom_op("SignalFilterBankLog", options, vec![input], vec![output])
}

/// A uint32 tensor of `n` elements.
fn u32s(n: i32) -> TensorSpec {
    TensorSpec::new(TensorType::UINT32, &[n])
}

/// A SignalEnergy of bins `start` to `end` of `input` into `output`.
fn energy(input: TensorSpec, output: TensorSpec, start: i64, end: i64) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalEnergy",
        Some(int_map(&[("end_index", end), ("start_index", start)])),
        vec![input],
        vec![output],
    )
}

/// A SignalWindow of an int16 graph input of `n` samples by constant weights, all `weight`,
/// with `shift`, then a SignalFftAutoScale of the result; both of its outputs are the graph's.
fn window_then_auto_scale(n: i32, weight: i16, shift: i64) -> ModelSpec {
    let mut m = ModelSpec::new();
    let x = m.tensor(int16(&[n]));
    let w = m.tensor(int16(&[n]).constant_i16(&vec![weight; n as usize]));
    let y = m.tensor(int16(&[n]));
    let z = m.tensor(int16(&[n]));
    let bits = m.tensor(TensorSpec::int32(&[]));
    for (name, options, inputs, outputs) in [
        ("SignalWindow", int_map(&[("shift", shift)]), vec![x, w], vec![y]),
        ("SignalFftAutoScale", Vec::new(), vec![y], vec![z, bits]),
    ] {
        let opcode_index = m.push_opcode(OpCodeSpec::custom(name));
        m.operators.push(OpSpec {
            opcode_index,
            inputs,
            outputs,
            intermediates: Vec::new(),
            options: Options::None,
            custom_options: (!options.is_empty()).then_some(options),
        });
    }
    m.inputs = vec![x];
    m.outputs = vec![z, bits];
    m
}

/// The options `{"shift": shift}`.
fn shift(shift: i64) -> Option<Vec<u8>> {
    Some(int_map(&[("shift", shift)]))
}

/// The cases, appended to `cases`.
pub(super) fn signal(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // Three frames of 8 samples windowed alike, the audio front end's shift of 12.
    s.accepted(
        "signal_window_three_frames",
        window(int16(&[3, 8]), weights(8), int16(&[3, 8]), shift(12)),
    );
    // Shift 0: every product of the random input by the large weights saturates one way or the
    // other; a rank-1 input of one frame.
    s.accepted(
        "signal_window_shift_0_saturates",
        window(int16(&[16]), weights(16), int16(&[16]), shift(0)),
    );
    // The weights a graph input (random, any sign), the widest shift, two-byte options.
    s.accepted(
        "signal_window_weights_at_run_time_shift_31",
        window(int16(&[2, 2, 5]), int16(&[5]), int16(&[2, 2, 5]), shift(31)),
    );
    // A parameter of a wider map than TFLM's writer makes: the shift read by index still.
    s.accepted(
        "signal_window_shift_in_wide_options",
        window(
            int16(&[2, 4]),
            weights(4),
            int16(&[2, 4]),
            Some(int_map(&[("shift", 7), ("zz_unread", 1 << 40)])),
        ),
    );

    s.category = Category::TypesAndParameters;
    let base = || (int16(&[2, 8]), weights(8), int16(&[2, 8]));
    let refused_options = |s: &mut Suite, name: &str, options: Option<Vec<u8>>, mentions| {
        let (i, w, o) = base();
        s.refused(name, window(i, w, o, options), Refusal::Invalid, mentions);
    };
    refused_options(&mut s, "signal_window_no_options", None, "too short");
    let good = int_map(&[("shift", 12)]);
    refused_options(
        &mut s,
        "signal_window_options_truncated",
        Some(good[..good.len() - 3].to_vec()),
        "SignalWindow",
    );
    refused_options(
        &mut s,
        "signal_window_options_root_not_a_map",
        // A root integer 12: type FBT_INT, width 1.
        Some(vec![12, 4, 1]),
        "FlexBuffer type 1",
    );
    refused_options(
        &mut s,
        "signal_window_options_empty_map",
        Some(int_map(&[])),
        "too few to read parameter 0",
    );
    let mut past_end = good.clone();
    // The root offset pointing before the buffer's start.
    let root = past_end.len() - 3;
    past_end[root] = 200;
    refused_options(
        &mut s,
        "signal_window_options_offset_past_start",
        Some(past_end),
        "points before the buffer",
    );
    refused_options(&mut s, "signal_window_shift_32", shift(32), "shift 32");
    refused_options(&mut s, "signal_window_shift_negative", shift(-1), "shift -1");
    s.refused(
        "signal_window_input_not_whole_frames",
        window(int16(&[10]), weights(4), int16(&[10]), shift(12)),
        Refusal::Invalid,
        "not frames",
    );
    s.refused(
        "signal_window_output_shorter",
        window(int16(&[2, 8]), weights(8), int16(&[2, 7]), shift(12)),
        Refusal::Invalid,
        "output of 14 elements",
    );
    s.refused(
        "signal_window_weights_rank_2",
        window(
            int16(&[2, 8]),
            int16(&[2, 4]).constant_i16(&[1; 8]),
            int16(&[2, 8]),
            shift(12),
        ),
        Refusal::Invalid,
        "weights",
    );
    s.refused(
        "signal_window_int8_output",
        window(
            int16(&[2, 8]),
            weights(8),
            TensorSpec::int8(&[2, 8], 1.0, 0),
            shift(12),
        ),
        Refusal::Invalid,
        "output",
    );
    s.category = Category::LegitimateCorners;
    // SignalFilterBankLog: random uint32 channels (0 and 1 among them only by chance), unshifted
    // under a scale that keeps every logarithm below 32767, then a shift that pushes most
    // channels past 2^32 (they wrap, as uint32 shifts do), a scale large enough to saturate and
    // to wrap the uint32 product, and a negative one (its uint32 bits).
    for (name, bits, scale) in [
        ("signal_filter_bank_log_unsaturated", 0, 1000),
        ("signal_filter_bank_log_wrapping_shift", 31, 1 << 16),
        ("signal_filter_bank_log_scale_wraps", 0, i64::from(i32::MAX)),
        ("signal_filter_bank_log_negative_scale", 5, -3),
    ] {
        s.accepted(
            name,
            filter_bank_log(
                TensorSpec::new(TensorType::UINT32, &[40]),
                int16(&[40]),
                Some(int_map(&[
                    ("input_correction_bits", bits),
                    ("output_scale", scale),
                ])),
            ),
        );
    }
    s.category = Category::TypesAndParameters;
    let log_options = || {
        Some(int_map(&[
            ("input_correction_bits", 3),
            ("output_scale", 1600),
        ]))
    };
    s.refused(
        "signal_filter_bank_log_one_parameter",
        filter_bank_log(
            u32s(8),
            int16(&[8]),
            Some(int_map(&[("input_correction_bits", 3)])),
        ),
        Refusal::Invalid,
        "parameter 'output_scale'",
    );
    s.refused(
        "signal_filter_bank_log_correction_32",
        filter_bank_log(
            u32s(8),
            int16(&[8]),
            Some(int_map(&[("input_correction_bits", 32), ("output_scale", 1)])),
        ),
        Refusal::Invalid,
        "input_correction_bits 32",
    );
    s.refused(
        "signal_filter_bank_log_int32_input",
        filter_bank_log(TensorSpec::int32(&[8]), int16(&[8]), log_options()),
        Refusal::Invalid,
        "the input has type",
    );
    s.refused(
        "signal_filter_bank_log_rank_2",
        filter_bank_log(
            TensorSpec::new(TensorType::UINT32, &[2, 4]),
            int16(&[2, 4]),
            log_options(),
        ),
        Refusal::Invalid,
        "not rank 1",
    );
    s.refused(
        "signal_filter_bank_log_output_longer",
        filter_bank_log(u32s(8), int16(&[9]), log_options()),
        Refusal::Invalid,
        "output of 9 elements",
    );
    s.category = Category::LegitimateCorners;
    // SignalEnergy: every bin of a spectrum of 16 complex bins (random int16 parts, -32768
    // among them only by chance), and the first 8 of a longer one.
    s.accepted(
        "signal_energy_every_bin",
        energy(int16(&[32]), u32s(16), 0, 16),
    );
    s.accepted(
        "signal_energy_first_bins_of_a_longer_spectrum",
        energy(int16(&[40]), u32s(8), 0, 8),
    );
    s.category = Category::TypesAndParameters;
    s.refused(
        "signal_energy_end_past_output",
        energy(int16(&[40]), u32s(16), 4, 17),
        Refusal::Invalid,
        "bins 4 to 17",
    );
    s.refused(
        "signal_energy_end_past_input",
        energy(int16(&[20]), u32s(16), 0, 11),
        Refusal::Invalid,
        "input of 10 complex bins",
    );
    s.refused(
        "signal_energy_negative_start",
        energy(int16(&[32]), u32s(16), -1, 16),
        Refusal::Invalid,
        "bins -1 to 16",
    );
    s.refused(
        "signal_energy_int32_output",
        ModelSpec::single_custom_op(
            "SignalEnergy",
            Some(int_map(&[("end_index", 16), ("start_index", 0)])),
            vec![int16(&[32])],
            vec![TensorSpec::int32(&[16])],
        ),
        Refusal::Invalid,
        "the output has type",
    );
    s.refused(
        "signal_energy_options_missing_start",
        ModelSpec::single_custom_op(
            "SignalEnergy",
            Some(int_map(&[("end_index", 16)])),
            vec![int16(&[32])],
            vec![u32s(16)],
        ),
        Refusal::Invalid,
        "parameter 'start_index'",
    );
    s.category = Category::LegitimateCorners;
    // SignalFftAutoScale after a SignalWindow that shapes its frame: small weights (small
    // samples, a shift of several bits), doubling weights without a shift (samples saturated at
    // -32768, after which TFLM's largest magnitude is whatever element comes next) and zero
    // weights (no bit set: no shift).
    for (name, weight, shift) in [
        ("signal_fft_auto_scale_small_frame", 3, 12),
        ("signal_fft_auto_scale_saturated_frame", 2, 0),
        ("signal_fft_auto_scale_zero_frame", 0, 0),
    ] {
        s.accepted(name, window_then_auto_scale(24, weight, shift));
    }
    s.category = Category::TypesAndParameters;
    s.refused(
        "signal_fft_auto_scale_output_longer",
        ModelSpec::single_custom_op(
            "SignalFftAutoScale",
            None,
            vec![int16(&[8])],
            vec![int16(&[9]), TensorSpec::int32(&[])],
        ),
        Refusal::Invalid,
        "output of 9 elements",
    );
    s.refused(
        "signal_fft_auto_scale_bits_rank_1",
        ModelSpec::single_custom_op(
            "SignalFftAutoScale",
            None,
            vec![int16(&[8])],
            vec![int16(&[8]), TensorSpec::int32(&[1])],
        ),
        Refusal::Invalid,
        "not rank 0",
    );
    // The signal operators not compiled yet are named in the refusal.
    s.refused(
        "signal_irfft_not_compiled",
        ModelSpec::single_custom_op(
            "SignalIrfft",
            Some(int_map(&[("T", 7), ("fft_length", 16)])),
            vec![int16(&[18])],
            vec![int16(&[16])],
        ),
        Refusal::UnsupportedOp,
        "CUSTOM(SignalIrfft)",
    );
    rfft_cases(&mut s);
    filter_bank_cases(&mut s);
    spectral_subtraction_cases(&mut s);
    pcan_cases(&mut s);
    cast_cases(&mut s);
    delay_cases(&mut s);
    framer_cases(&mut s);
    stacker_cases(&mut s);
    overlap_add_cases(&mut s);
}

/// A uint64 tensor of `n` elements.
fn u64s(n: i32) -> TensorSpec {
    TensorSpec::new(TensorType::UINT64, &[n])
}

/// One custom operator of [`custom_chain`]: its name, options, input and output indices.
type CustomOp<'a> = (&'a str, Option<Vec<u8>>, Vec<i32>, Vec<i32>);

/// A model of custom operators run in order over `tensors` (indices from 0); `inputs` and
/// `outputs` are the graph's.
fn custom_chain(
    tensors: Vec<TensorSpec>,
    ops: Vec<CustomOp>,
    inputs: Vec<i32>,
    outputs: Vec<i32>,
) -> ModelSpec {
    let mut m = ModelSpec::new();
    for t in tensors {
        m.tensor(t);
    }
    for (name, custom_options, inputs, outputs) in ops {
        let opcode_index = m.push_opcode(OpCodeSpec::custom(name));
        m.operators.push(OpSpec {
            opcode_index,
            inputs,
            outputs,
            intermediates: Vec::new(),
            options: Options::None,
            custom_options,
        });
    }
    m.inputs = inputs;
    m.outputs = outputs;
    m
}

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
fn rfft_cases(s: &mut Suite) {
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

/// The tables of a small filter bank of 4 channels over 16 bins (5 entries each, channel 0
/// TFLM's scratch): frequency starts, weight starts, widths, then weights and unweights (some
/// negative, wrapping as uint64) over 14 entries.
fn bank_tables() -> [TensorSpec; 5] {
    let table = |values: &[i16]| int16(&[values.len() as i32]).constant_i16(values);
    [
        table(&[
            1200, -700, 4095, 32767, 0, 1, 2000, 3000, 4096, -1, 5, 100, 2500, 7,
        ]),
        table(&[
            2896, 4796, 1, 0, 4096, 1096, 96, 0, 4097, 4091, -32768, 3996, 1596, 4089,
        ]),
        table(&[0, 2, 5, 8, 13]),
        table(&[0, 2, 5, 8, 11]),
        table(&[2, 3, 3, 3, 3]),
    ]
}

/// A SignalFilterBank of `bins` uint32 energies into `outputs` uint64 channels, `channels` in
/// the options, with [`bank_tables`].
fn filter_bank_model(bins: i32, outputs: i32, channels: i64) -> ModelSpec {
    let [weights, unweights, starts, weight_starts, widths] = bank_tables();
    ModelSpec::single_custom_op(
        "SignalFilterBank",
        Some(int_map(&[("num_channels", channels)])),
        vec![u32s(bins), weights, unweights, starts, weight_starts, widths],
        vec![u64s(outputs)],
    )
}

/// A SignalFilterBank of 16 random uint32 energies into 4 uint64 channels, then a
/// SignalFilterBankSquareRoot of them by the constant `scale_bits`: the uint64 input TFLM's
/// reference tool cannot draw, made by the model.
fn bank_then_square_root(scale_bits: i32) -> ModelSpec {
    let [weights, unweights, starts, weight_starts, widths] = bank_tables();
    custom_chain(
        vec![
            u32s(16),
            weights,
            unweights,
            starts,
            weight_starts,
            widths,
            u64s(4),
            TensorSpec::int32(&[]).constant_i32(&[scale_bits]),
            u32s(4),
        ],
        vec![
            (
                "SignalFilterBank",
                Some(int_map(&[("num_channels", 4)])),
                vec![0, 1, 2, 3, 4, 5],
                vec![6],
            ),
            ("SignalFilterBankSquareRoot", None, vec![6, 7], vec![8]),
        ],
        vec![0],
        vec![6, 8],
    )
}

/// SignalFilterBank (channels of one bin weighted 1 stay below 2^32, others pass it, negative
/// weights wrap near 2^64) and SignalFilterBankSquareRoot after it (its 32-bit and 64-bit roots,
/// shifted).
fn filter_bank_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    s.accepted("signal_filter_bank_four_channels", filter_bank_model(16, 4, 4));
    s.accepted(
        "signal_filter_bank_output_shorter_than_channels",
        filter_bank_model(16, 3, 4),
    );
    for (name, bits) in [
        ("signal_filter_bank_square_root_unshifted", 0),
        ("signal_filter_bank_square_root_shift_7", 7),
        ("signal_filter_bank_square_root_shift_31", 31),
    ] {
        s.accepted(name, bank_then_square_root(bits));
    }
    s.category = Category::TypesAndParameters;
    s.refused(
        "signal_filter_bank_output_longer_than_channels",
        filter_bank_model(16, 5, 4),
        Refusal::Invalid,
        "output of 5 elements for num_channels 4",
    );
    s.refused(
        "signal_filter_bank_channels_past_tables",
        filter_bank_model(16, 4, 5),
        Refusal::Invalid,
        "channel tables of 5 elements",
    );
    s.refused(
        "signal_filter_bank_band_past_input",
        filter_bank_model(15, 4, 4),
        Refusal::Invalid,
        "channel 4 reads bins 13..16 of 15",
    );
    s.refused(
        "signal_filter_bank_negative_channels",
        filter_bank_model(16, 0, -1),
        Refusal::Invalid,
        "num_channels -1",
    );
    let [weights, unweights, starts, weight_starts, widths] = bank_tables();
    s.refused(
        "signal_filter_bank_int32_output",
        ModelSpec::single_custom_op(
            "SignalFilterBank",
            Some(int_map(&[("num_channels", 4)])),
            vec![u32s(16), weights, unweights, starts, weight_starts, widths],
            vec![TensorSpec::int32(&[4])],
        ),
        Refusal::Invalid,
        "the output has type",
    );
    let [_, unweights, starts, weight_starts, widths] = bank_tables();
    s.refused(
        "signal_filter_bank_tables_at_run_time",
        ModelSpec::single_custom_op(
            "SignalFilterBank",
            Some(int_map(&[("num_channels", 4)])),
            vec![
                u32s(16),
                int16(&[14]),
                unweights,
                starts,
                weight_starts,
                widths,
            ],
            vec![u64s(4)],
        ),
        Refusal::Unsupported,
        "the weights is computed at run time",
    );
    s.refused(
        "signal_filter_bank_square_root_shift_32",
        bank_then_square_root(32),
        Refusal::Invalid,
        "scale_bits 32",
    );
    s.refused(
        "signal_filter_bank_square_root_output_shorter",
        ModelSpec::single_custom_op(
            "SignalFilterBankSquareRoot",
            None,
            vec![u64s(4), TensorSpec::int32(&[]).constant_i32(&[3])],
            vec![u32s(3)],
        ),
        Refusal::Invalid,
        "output of 3 elements, the input of 4",
    );
    s.refused(
        "signal_filter_bank_square_root_uint32_input",
        ModelSpec::single_custom_op(
            "SignalFilterBankSquareRoot",
            None,
            vec![u32s(4), TensorSpec::int32(&[]).constant_i32(&[3])],
            vec![u32s(4)],
        ),
        Refusal::Invalid,
        "the input has type",
    );
}

/// The audio front end's spectral subtraction options, with `changes` over them.
fn subtraction_options(changes: &[(&'static str, i64)]) -> Option<Vec<u8>> {
    let mut entries = vec![
        ("alternate_one_minus_smoothing", 15401),
        ("alternate_smoothing", 983),
        ("clamping", 0),
        ("min_signal_remaining", 819),
        ("num_channels", 8),
        ("one_minus_smoothing", 15975),
        ("smoothing", 409),
        ("smoothing_bits", 10),
        ("spectral_subtraction_bits", 14),
    ];
    for &(key, value) in changes {
        if let Some(entry) = entries.iter_mut().find(|(k, _)| *k == key) {
            entry.1 = value;
        }
    }
    Some(int_map(&entries))
}

/// A SignalFilterBankSpectralSubtraction of `n` uint32 channels, the noise estimate `noise`
/// elements, with `options`.
fn subtraction(n: i32, noise: i32, options: Option<Vec<u8>>) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalFilterBankSpectralSubtraction",
        options,
        vec![u32s(n)],
        vec![u32s(n), u32s(noise)],
    )
}

/// SignalFilterBankSpectralSubtraction: its noise estimate carries from case to case (TFLM's
/// goldens run the cases in order on one interpreter), with the front end's options, clamping
/// on (random inputs wrapping as they are scaled up), a noise estimate shorter than the
/// channels, and channels fewer than the input's elements.
fn spectral_subtraction_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    s.accepted(
        "signal_spectral_subtraction_front_end_options",
        subtraction(8, 8, subtraction_options(&[])),
    );
    s.accepted(
        "signal_spectral_subtraction_clamping_no_smoothing_bits",
        subtraction(
            8,
            8,
            subtraction_options(&[("clamping", 1), ("smoothing_bits", 0), ("smoothing", 16000)]),
        ),
    );
    s.accepted(
        "signal_spectral_subtraction_noise_shorter",
        subtraction(8, 5, subtraction_options(&[])),
    );
    s.accepted(
        "signal_spectral_subtraction_fewer_channels",
        ModelSpec::single_custom_op(
            "SignalFilterBankSpectralSubtraction",
            subtraction_options(&[("num_channels", 6)]),
            vec![u32s(8)],
            vec![u32s(6), u32s(6)],
        ),
    );
    s.category = Category::TypesAndParameters;
    for (name, changes, mentions) in [
        (
            "signal_spectral_subtraction_smoothing_bits_32",
            vec![("smoothing_bits", 32)],
            "smoothing_bits 32",
        ),
        (
            "signal_spectral_subtraction_bits_64",
            vec![("spectral_subtraction_bits", 64)],
            "spectral_subtraction_bits 64",
        ),
        (
            "signal_spectral_subtraction_channels_past_input",
            vec![("num_channels", 9)],
            "num_channels 9",
        ),
    ] {
        s.refused(
            name,
            subtraction(8, 8, subtraction_options(&changes)),
            Refusal::Invalid,
            mentions,
        );
    }
    s.refused(
        "signal_spectral_subtraction_int32_output",
        ModelSpec::single_custom_op(
            "SignalFilterBankSpectralSubtraction",
            subtraction_options(&[]),
            vec![u32s(8)],
            vec![TensorSpec::int32(&[8]), u32s(8)],
        ),
        Refusal::Invalid,
        "the output has type",
    );
    s.refused(
        "signal_spectral_subtraction_options_missing",
        subtraction(8, 8, Some(int_map(&[("num_channels", 8)]))),
        Refusal::Invalid,
        "parameter",
    );
}

/// A falling gain table of 125 int16 (the shape of TFLM's: three coefficients and a pad per
/// bit of the noise estimate), some entries negative.
fn gain_table() -> TensorSpec {
    let values: Vec<i16> = (0..125)
        .map(|i: i32| match i % 4 {
            0 => (32000 - 250 * i) as i16,
            1 => (-40 * i) as i16,
            2 => (30 * i - 900) as i16,
            _ => 0,
        })
        .collect();
    int16(&[125]).constant_i16(&values)
}

/// A SignalPCAN of `n` channels with the noise estimate `noise` elements, `lut` and `snr_shift`.
fn pcan_model(n: i32, noise: i32, lut: TensorSpec, snr_shift: i64) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalPCAN",
        Some(int_map(&[("snr_shift", snr_shift)])),
        vec![u32s(n), u32s(noise), lut],
        vec![u32s(n)],
    )
}

/// SignalPCAN: random channels and noise levels (the table's every segment), a random table
/// given at run time, the front end's chain of spectral subtraction then PCAN (small noise
/// estimates at first: the table's first entries), and its refusals.
fn pcan_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    s.accepted(
        "signal_pcan_falling_table",
        pcan_model(16, 16, gain_table(), 6),
    );
    s.accepted(
        "signal_pcan_table_at_run_time_shift_0",
        pcan_model(8, 10, int16(&[125]), 0),
    );
    s.accepted(
        "signal_pcan_after_spectral_subtraction",
        custom_chain(
            vec![u32s(8), u32s(8), u32s(8), gain_table(), u32s(8)],
            vec![
                (
                    "SignalFilterBankSpectralSubtraction",
                    subtraction_options(&[("smoothing_bits", 0)]),
                    vec![0],
                    vec![1, 2],
                ),
                (
                    "SignalPCAN",
                    Some(int_map(&[("snr_shift", 20)])),
                    vec![1, 2, 3],
                    vec![4],
                ),
            ],
            vec![0],
            vec![4, 2],
        ),
    );
    s.category = Category::TypesAndParameters;
    s.refused(
        "signal_pcan_snr_shift_64",
        pcan_model(8, 8, gain_table(), 64),
        Refusal::Invalid,
        "snr_shift 64",
    );
    s.refused(
        "signal_pcan_short_table",
        pcan_model(8, 8, int16(&[124]).constant_i16(&[1; 124]), 6),
        Refusal::Invalid,
        "a gain table of 124 elements",
    );
    s.refused(
        "signal_pcan_noise_shorter",
        pcan_model(8, 7, gain_table(), 6),
        Refusal::Invalid,
        "a noise estimate of 7",
    );
    s.refused(
        "signal_pcan_int32_table",
        ModelSpec::single_custom_op(
            "SignalPCAN",
            Some(int_map(&[("snr_shift", 6)])),
            vec![u32s(8), u32s(8), TensorSpec::int32(&[125])],
            vec![u32s(8)],
        ),
        Refusal::Invalid,
        "the gain table has type",
    );
}

/// CAST between UINT32 and INT32 (the audio front end's around its filter bank): the same
/// bytes, random values of either sign.
fn cast_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    for (name, from, to) in [
        ("cast_uint32_to_int32", u32s(12), TensorSpec::int32(&[12])),
        ("cast_int32_to_uint32", TensorSpec::int32(&[12]), u32s(12)),
    ] {
        s.accepted(
            name,
            ModelSpec::single_op(
                crate::BuiltinOperator::CAST,
                Options::None,
                vec![from],
                vec![to],
            ),
        );
    }
    s.category = Category::TypesAndParameters;
    s.refused(
        "cast_uint32_to_int16_not_compiled",
        ModelSpec::single_op(
            crate::BuiltinOperator::CAST,
            Options::None,
            vec![u32s(4)],
            vec![int16(&[4])],
        ),
        Refusal::Unsupported,
        "UINT32 to and from INT32",
    );
}

/// A SignalDelay of int16 `input` into `output` by `delay_length` samples.
fn delay(input: TensorSpec, output: TensorSpec, delay_length: i64) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalDelay",
        Some(int_map(&[("delay_length", delay_length)])),
        vec![input],
        vec![output],
    )
}

/// SignalDelay: its kept samples carry from case to case (TFLM's goldens run the cases in order
/// on one interpreter), with a delay shorter than a row, one longer than the three cases' rows
/// together (the output all zeros until the third), no delay (no state), and rows in a rank-3
/// shape; negative delays, rows of no samples and outputs of another size are refused.
fn delay_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    for (name, shape, delay_length) in [
        ("signal_delay_two_rows_by_3", vec![2, 8], 3),
        ("signal_delay_longer_than_three_rows", vec![4], 10),
        ("signal_delay_0", vec![3, 5], 0),
        ("signal_delay_rank_3_by_row", vec![2, 2, 4], 4),
    ] {
        s.accepted(name, delay(int16(&shape), int16(&shape), delay_length));
    }
    s.category = Category::TypesAndParameters;
    for (name, input, output, delay_length, mentions) in [
        (
            "signal_delay_negative",
            int16(&[8]),
            int16(&[8]),
            -1,
            "delay_length -1",
        ),
        (
            "signal_delay_rows_of_no_samples",
            int16(&[0]),
            int16(&[0]),
            2,
            "rows of 0 samples",
        ),
        (
            "signal_delay_output_shorter",
            int16(&[8]),
            int16(&[6]),
            2,
            "output of 6 elements",
        ),
        (
            "signal_delay_int32",
            TensorSpec::int32(&[8]),
            TensorSpec::int32(&[8]),
            2,
            "the input has type",
        ),
    ] {
        s.refused(name, delay(input, output, delay_length), Refusal::Invalid, mentions);
    }
    s.refused(
        "signal_delay_options_missing",
        ModelSpec::single_custom_op("SignalDelay", None, vec![int16(&[8])], vec![int16(&[8])]),
        Refusal::Invalid,
        "too short",
    );
}

/// A SignalFramer of int16 `input` into `output` and a bool scalar, with its three options.
fn framer(input: TensorSpec, output: TensorSpec, size: i64, step: i64, prefill: bool) -> ModelSpec {
    framer_valid(input, output, TensorSpec::new(TensorType::BOOL, &[]), size, step, prefill)
}

/// [`framer`] with the `output_valid` tensor given.
fn framer_valid(
    input: TensorSpec,
    output: TensorSpec,
    valid: TensorSpec,
    size: i64,
    step: i64,
    prefill: bool,
) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalFramer",
        Some(int_map(&[
            ("frame_size", size),
            ("frame_step", step),
            ("prefill", i64::from(prefill)),
        ])),
        vec![input],
        vec![output, valid],
    )
}

/// A SignalFramer without `prefill`, its frames passed on only when `output_valid` says every
/// frame is complete (a SELECT_V2 of them and zeros): TFLM leaves an incomplete frame as its
/// arena held it (other tensors' leftovers, not reproducible), tinyaot writes 0. The graph's
/// outputs are the selected frames and `output_valid`.
fn framer_guarded(input: &[i32], output: &[i32], size: i64, step: i64) -> ModelSpec {
    let mut m = ModelSpec::new();
    let x = m.tensor(int16(input));
    let frames = m.tensor(int16(output));
    let valid = m.tensor(TensorSpec::new(TensorType::BOOL, &[]));
    let zeros = m.tensor(int16(&[1]).constant_i16(&[0]));
    let y = m.tensor(int16(output));
    let framer = m.push_opcode(OpCodeSpec::custom("SignalFramer"));
    m.operators.push(OpSpec {
        opcode_index: framer,
        inputs: vec![x],
        outputs: vec![frames, valid],
        intermediates: Vec::new(),
        options: Options::None,
        custom_options: Some(int_map(&[
            ("frame_size", size),
            ("frame_step", step),
            ("prefill", 0),
        ])),
    });
    let select = m.push_opcode(OpCodeSpec::builtin(crate::BuiltinOperator::SELECT_V2));
    m.operators.push(OpSpec {
        opcode_index: select,
        inputs: vec![valid, frames, zeros],
        outputs: vec![y],
        intermediates: Vec::new(),
        options: Options::None,
        custom_options: None,
    });
    m.inputs = vec![x];
    m.outputs = vec![y, valid];
    m
}

/// SignalFramer: its kept samples carry from case to case, with prefill (every frame complete
/// from the first), without it (the first frames incomplete, `output_valid` false, in the first
/// case or the first two: those models pass the frames on only when valid, see
/// [`framer_guarded`]), frames shorter than the step (samples skipped) or equal to it, several
/// rows in a rank-3 shape; steps, sizes and shapes TFLM refuses or reads out of bounds are
/// refused.
fn framer_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    for (name, input, output, size, step, prefill) in [
        ("signal_framer_prefill", vec![8], vec![4, 6], 6, 2, true),
        ("signal_framer_frame_shorter_than_step", vec![8], vec![2, 3], 3, 4, false),
        ("signal_framer_prefill_frame_equals_step", vec![2, 4], vec![2, 1, 4], 4, 4, true),
        ("signal_framer_prefill_rank_3", vec![2, 1, 4], vec![2, 1, 2, 4], 4, 2, true),
    ] {
        s.accepted(
            name,
            framer(int16(&input), int16(&output), size, step, prefill),
        );
    }
    for (name, input, output, size, step) in [
        ("signal_framer_two_rows", vec![2, 6], vec![2, 2, 5], 5, 3),
        ("signal_framer_warm_up_two_cases", vec![1, 2], vec![1, 1, 6], 6, 2),
        ("signal_framer_rank_3", vec![2, 1, 4], vec![2, 1, 2, 4], 4, 2),
    ] {
        s.accepted(name, framer_guarded(&input, &output, size, step));
    }
    s.category = Category::TypesAndParameters;
    for (name, input, output, size, step, prefill, mentions) in [
        ("signal_framer_step_0", vec![8], vec![1, 4], 4, 0, false, "frame_step 0"),
        ("signal_framer_step_not_dividing_row", vec![8], vec![2, 4], 4, 3, false, "not a multiple"),
        ("signal_framer_row_shorter_than_step", vec![2], vec![1, 4], 4, 4, false, "fewer than frame_step"),
        ("signal_framer_size_0", vec![8], vec![4, 1], 0, 2, false, "frame_size 0"),
        ("signal_framer_prefill_size_below_step", vec![8], vec![2, 2], 2, 4, true, "at least frame_step"),
        ("signal_framer_output_too_small", vec![8], vec![4, 5], 6, 2, true, "output of 20 elements"),
        ("signal_framer_output_same_rank", vec![8], vec![24], 6, 2, true, "output of rank 1"),
    ] {
        s.refused(
            name,
            framer(int16(&input), int16(&output), size, step, prefill),
            Refusal::Invalid,
            mentions,
        );
    }
    s.refused(
        "signal_framer_valid_rank_1",
        framer_valid(
            int16(&[8]),
            int16(&[4, 6]),
            TensorSpec::new(TensorType::BOOL, &[1]),
            6,
            2,
            true,
        ),
        Refusal::Invalid,
        "not rank 0",
    );
    s.refused(
        "signal_framer_valid_int16",
        framer_valid(int16(&[8]), int16(&[4, 6]), int16(&[]), 6, 2, true),
        Refusal::Invalid,
        "output_valid output has type",
    );
}

/// The options of a SignalStacker.
fn stacker_options(channels: i64, left: i64, right: i64, step: i64) -> Option<Vec<u8>> {
    Some(int_map(&[
        ("num_channels", channels),
        ("stacker_left_context", left),
        ("stacker_right_context", right),
        ("stacker_step", step),
    ]))
}

/// A SignalStacker of int16 `input` into `output` and `valid`, with `options`.
fn stacker(
    input: TensorSpec,
    output: TensorSpec,
    valid: TensorSpec,
    options: Option<Vec<u8>>,
) -> ModelSpec {
    ModelSpec::single_custom_op("SignalStacker", options, vec![input], vec![output, valid])
}

/// A SignalStacker whose output is passed on only when `output_valid` says it is a stack (a
/// SELECT_V2 of it and zeros; TFLM leaves an invalid output as its arena held it); the graph's
/// outputs are that and `output_valid`.
fn stacker_guarded(input: i32, output: i32, options: Option<Vec<u8>>) -> ModelSpec {
    let mut m = ModelSpec::new();
    let x = m.tensor(int16(&[input]));
    let stack = m.tensor(int16(&[output]));
    let valid = m.tensor(TensorSpec::new(TensorType::BOOL, &[]));
    let zeros = m.tensor(int16(&[1]).constant_i16(&[0]));
    let y = m.tensor(int16(&[output]));
    let op = m.push_opcode(OpCodeSpec::custom("SignalStacker"));
    m.operators.push(OpSpec {
        opcode_index: op,
        inputs: vec![x],
        outputs: vec![stack, valid],
        intermediates: Vec::new(),
        options: Options::None,
        custom_options: options,
    });
    let select = m.push_opcode(OpCodeSpec::builtin(crate::BuiltinOperator::SELECT_V2));
    m.operators.push(OpSpec {
        opcode_index: select,
        inputs: vec![valid, stack, zeros],
        outputs: vec![y],
        intermediates: Vec::new(),
        options: Options::None,
        custom_options: None,
    });
    m.inputs = vec![x];
    m.outputs = vec![y, valid];
    m
}

/// SignalStacker: its frames carry from case to case; stacks with right context (the first
/// case or every other one not a stack: those models pass the output on only when valid, see
/// [`stacker_guarded`]), with left context only and none (a stack from the first case), an input
/// longer than its channels; sizes, contexts and steps TFLM reads out of bounds or asserts
/// against, and shapes and types it refuses, are refused.
fn stacker_cases(s: &mut Suite) {
    let bool_scalar = || TensorSpec::new(TensorType::BOOL, &[]);
    s.category = Category::LegitimateCorners;
    s.accepted(
        "signal_stacker_right_context",
        stacker_guarded(4, 16, stacker_options(4, 2, 1, 1)),
    );
    s.accepted(
        "signal_stacker_step_2",
        stacker_guarded(3, 9, stacker_options(3, 1, 1, 2)),
    );
    for (name, input, output, options) in [
        ("signal_stacker_no_context", 5, 5, stacker_options(5, 0, 0, 1)),
        ("signal_stacker_left_context_only", 2, 8, stacker_options(2, 3, 0, 1)),
        ("signal_stacker_input_longer", 6, 8, stacker_options(4, 1, 0, 1)),
    ] {
        s.accepted(
            name,
            stacker(int16(&[input]), int16(&[output]), bool_scalar(), options),
        );
    }
    s.category = Category::TypesAndParameters;
    for (name, input, output, options, mentions) in [
        ("signal_stacker_no_channels", 4, 4, stacker_options(0, 1, 0, 1), "num_channels 0"),
        ("signal_stacker_negative_context", 4, 4, stacker_options(4, -1, 1, 1), "stacker_left_context -1"),
        ("signal_stacker_step_0", 4, 8, stacker_options(4, 1, 0, 0), "stacker_step 0"),
        ("signal_stacker_step_past_stack", 4, 8, stacker_options(4, 1, 0, 3), "stacker_step 3"),
        ("signal_stacker_input_shorter", 3, 8, stacker_options(4, 1, 0, 1), "input of 3 elements"),
        ("signal_stacker_output_longer", 4, 12, stacker_options(4, 1, 0, 1), "output of 12 elements"),
    ] {
        s.refused(
            name,
            stacker(int16(&[input]), int16(&[output]), bool_scalar(), options),
            Refusal::Invalid,
            mentions,
        );
    }
    s.refused(
        "signal_stacker_input_rank_2",
        stacker(int16(&[1, 4]), int16(&[8]), bool_scalar(), stacker_options(4, 1, 0, 1)),
        Refusal::Invalid,
        "not rank 1",
    );
    s.refused(
        "signal_stacker_valid_int16",
        stacker(int16(&[4]), int16(&[8]), int16(&[]), stacker_options(4, 1, 0, 1)),
        Refusal::Invalid,
        "output_valid output has type",
    );
    s.refused(
        "signal_stacker_options_missing",
        stacker(int16(&[4]), int16(&[8]), bool_scalar(), Some(int_map(&[("num_channels", 4)]))),
        Refusal::Invalid,
        "parameter",
    );
}

/// A SignalOverlapAdd of `input` into `output` with the options' `T` and `frame_step`.
fn overlap_add(input: TensorSpec, output: TensorSpec, t: i64, step: i64) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalOverlapAdd",
        Some(int_map(&[("T", t), ("frame_step", step)])),
        vec![input],
        vec![output],
    )
}

/// SignalOverlapAdd: its sums carry from case to case, in int16 (random frames: sums saturate)
/// and float32, half and quarter steps, several frames and rows, a step of a whole frame (no
/// overlap); types, ranks and steps TFLM refuses or reads out of bounds are refused.
fn overlap_add_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    for (name, input, output, t, step) in [
        ("signal_overlap_add_int16_half_step", int16(&[2, 8]), int16(&[8]), 7, 4),
        ("signal_overlap_add_int16_rows", int16(&[2, 3, 4]), int16(&[2, 3]), 7, 1),
        ("signal_overlap_add_int16_no_overlap", int16(&[1, 6]), int16(&[6]), 7, 6),
        (
            "signal_overlap_add_float_quarter_step",
            TensorSpec::f32(&[3, 8]),
            TensorSpec::f32(&[6]),
            0,
            2,
        ),
        (
            "signal_overlap_add_float_rows",
            TensorSpec::f32(&[2, 2, 6]),
            TensorSpec::f32(&[2, 6]),
            0,
            3,
        ),
    ] {
        s.accepted(name, overlap_add(input, output, t, step));
    }
    s.category = Category::TypesAndParameters;
    for (name, input, output, t, step, mentions) in [
        ("signal_overlap_add_int32", TensorSpec::int32(&[2, 8]), TensorSpec::int32(&[8]), 2, 4, "TensorType 2"),
        ("signal_overlap_add_type_not_t", int16(&[2, 8]), int16(&[8]), 0, 4, "the input has type"),
        ("signal_overlap_add_step_past_frame", int16(&[2, 4]), int16(&[10]), 7, 5, "frame_step 5"),
        ("signal_overlap_add_negative_step", int16(&[2, 4]), int16(&[2]), 7, -1, "frame_step -1"),
        ("signal_overlap_add_rank_1", int16(&[8]), int16(&[]), 7, 4, "input of rank 1"),
        ("signal_overlap_add_output_longer", int16(&[2, 8]), int16(&[9]), 7, 4, "output of 9 elements"),
    ] {
        s.refused(name, overlap_add(input, output, t, step), Refusal::Invalid, mentions);
    }
}

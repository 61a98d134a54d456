//! The corners of the element-wise operators: SignalWindow, SignalFilterBankLog, SignalEnergy
//! and SignalFftAutoScale, and the signal operators tinyaot does not compile yet.

use super::*;

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

/// The cases of the element-wise operators, and the refusal of one not compiled yet.
pub(super) fn cases(s: &mut Suite) {
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
    refused_options(s, "signal_window_no_options", None, "too short");
    let good = int_map(&[("shift", 12)]);
    refused_options(
        s,
        "signal_window_options_truncated",
        Some(good[..good.len() - 3].to_vec()),
        "SignalWindow",
    );
    refused_options(
        s,
        "signal_window_options_root_not_a_map",
        // A root integer 12: type FBT_INT, width 1.
        Some(vec![12, 4, 1]),
        "FlexBuffer type 1",
    );
    refused_options(
        s,
        "signal_window_options_empty_map",
        Some(int_map(&[])),
        "too few to read parameter 0",
    );
    let mut past_end = good.clone();
    // The root offset pointing before the buffer's start.
    let root = past_end.len() - 3;
    past_end[root] = 200;
    refused_options(
        s,
        "signal_window_options_offset_past_start",
        Some(past_end),
        "points before the buffer",
    );
    refused_options(s, "signal_window_shift_32", shift(32), "shift 32");
    refused_options(s, "signal_window_shift_negative", shift(-1), "shift -1");
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
}

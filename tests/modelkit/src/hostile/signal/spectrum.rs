//! The corners of the filter-bank operators (SignalFilterBank, SignalFilterBankSquareRoot,
//! SignalFilterBankSpectralSubtraction, SignalPCAN) and of the CASTs around them.

use super::*;

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
pub(super) fn filter_bank_cases(s: &mut Suite) {
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
pub(super) fn spectral_subtraction_cases(s: &mut Suite) {
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
pub(super) fn pcan_cases(s: &mut Suite) {
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
pub(super) fn cast_cases(s: &mut Suite) {
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

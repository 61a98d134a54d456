//! TFLM's signal library, its spectral operators: SignalRfft and SignalIrfft (int16, int32 and
//! float32, as the options' `T` says), SignalFilterBank (with channel tables TFLM reads within
//! their bounds), SignalFilterBankSpectralSubtraction (stateful: three invocations) and
//! SignalPCAN. Drawn as [`super::signal`]'s operators are: each starts and ends its chain, one
//! time in eight with a parameter TFLM refuses or leaves undefined (MUTATED).

use tinyaot_modelkit::flexbuffer::int_map;
use tinyaot_modelkit::{BuiltinOperator as B, TensorSpec, TensorType};

use super::signal::{BROKEN, STEPS};
use super::{G, OpGen};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("SignalFilterBank", B::CUSTOM, filter_bank).types(SIGNAL),
    OpGen::new(
        "SignalFilterBankSpectralSubtraction",
        B::CUSTOM,
        spectral_subtraction,
    )
    .types(SIGNAL),
    OpGen::new("SignalIrfft", B::CUSTOM, irfft).types(SIGNAL),
    OpGen::new("SignalPCAN", B::CUSTOM, pcan).types(SIGNAL),
    OpGen::new("SignalRfft", B::CUSTOM, rfft).types(SIGNAL),
];

/// The chain types these operators are drawn on: any (each makes its own input).
const SIGNAL: &[TensorType] = &[TensorType::INT16];

/// FFT lengths kissfft's real transform takes whose halves factor into 2, 3 and 5 (the radices
/// TFLM's kissfft computes without its generic butterfly).
const FFT_LENGTHS: [i64; 16] = [2, 4, 6, 8, 10, 12, 16, 20, 24, 30, 32, 48, 60, 64, 128, 512];

/// The transform's type: the tensors' and the options' `T` (a TensorType code).
fn fft_type(g: &mut G<'_>) -> (TensorType, i64) {
    g.rng.pick(&[
        (TensorType::INT16, 7),
        (TensorType::INT32, 2),
        (TensorType::FLOAT32, 0),
    ])
}

impl G<'_> {
    /// A fresh graph input of a transform's `dtype`: full-range or small integers, floats in
    /// [-range, range).
    fn fft_input(&mut self, dtype: TensorType, shape: &[i32]) -> i32 {
        match dtype {
            TensorType::FLOAT32 => {
                let t = self.m.tensor(TensorSpec::new(dtype, shape));
                self.m.inputs.push(t);
                let range = self.rng.pick(&[1.0, 100.0, 30000.0]);
                self.ranges.push(range);
                t
            }
            TensorType::INT32 => {
                let limit = self.rng.pick(&[i64::from(i32::MAX), 1 << 20, 1000]);
                self.signal_input(dtype, shape, -limit - 1, limit)
            }
            _ => self.int16_input(shape),
        }
    }

    /// An FFT length (one time in sixteen one kissfft has no state for: TFLM crashes there).
    fn fft_length(&mut self, broken: &mut bool) -> i64 {
        if self.rng.chance(BROKEN / 2.0) {
            *broken = true;
            self.rng.pick(&[7, 0, -4])
        } else {
            self.rng.pick(&FFT_LENGTHS)
        }
    }
}

/// SignalRfft: frames of up to `fft_length` samples → `fft_length / 2 + 1` complex bins each.
fn rfft(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let (dtype, t) = fft_type(g);
    let mut broken = false;
    let fft_length = g.fft_length(&mut broken);
    let samples = fft_length.max(2) as i32;
    let length = g.rng.int(samples / 2, samples);
    let lead = g.rows();
    let mut shape = lead.clone();
    shape.push(length);
    let input = g.fft_input(dtype, &shape);
    let mut out_shape = lead;
    out_shape.push(2 * (samples / 2 + 1));
    let output = g.m.tensor(TensorSpec::new(dtype, &out_shape));
    g.signal_describe(
        format!("SignalRfft T {t} {shape:?} -> {out_shape:?} fft_length {fft_length}"),
        broken,
    );
    g.signal_op(
        "SignalRfft",
        Some(int_map(&[("T", t), ("fft_length", fft_length)])),
        &[input],
        &[output],
    );
    Some(output)
}

/// SignalIrfft: frames of `fft_length / 2 + 1` complex bins → `fft_length` samples each.
fn irfft(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let (dtype, t) = fft_type(g);
    let mut broken = false;
    let fft_length = g.fft_length(&mut broken);
    let samples = fft_length.max(2) as i32;
    let lead = g.rows();
    let mut shape = lead.clone();
    shape.push(2 * (samples / 2 + 1));
    let input = g.fft_input(dtype, &shape);
    let mut out_shape = lead;
    out_shape.push(samples);
    let output = g.m.tensor(TensorSpec::new(dtype, &out_shape));
    g.signal_describe(
        format!("SignalIrfft T {t} {shape:?} -> {out_shape:?} fft_length {fft_length}"),
        broken,
    );
    g.signal_op(
        "SignalIrfft",
        Some(int_map(&[("T", t), ("fft_length", fft_length)])),
        &[input],
        &[output],
    );
    Some(output)
}

/// SignalFilterBank: uint32 energies of `bins` bins → uint64 sums of `channels` triangular
/// channels (the tables constant, each channel reading bins and weights within bounds; TFLM
/// reads `channels + 1` entries of each table).
fn filter_bank(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let bins = g.rng.int(2, 24);
    let channels = g.rng.int(1, 6);
    let (mut starts, mut weight_starts, mut widths) = (Vec::new(), Vec::new(), Vec::new());
    let mut table = 0;
    for _ in 0..=channels {
        let start = g.rng.int(0, bins - 1);
        let width = g.rng.int(0, (bins - start).min(5));
        starts.push(start as i16);
        weight_starts.push(table as i16);
        widths.push(width as i16);
        table += width;
    }
    let table = table.max(1);
    let full = g.rng.chance(0.3);
    let weight = |g: &mut G<'_>| {
        if full {
            g.rng.next_u64() as i16
        } else {
            g.rng.int(0, 4096) as i16
        }
    };
    let weights: Vec<i16> = (0..table).map(|_| weight(g)).collect();
    let unweights: Vec<i16> = (0..table).map(|_| weight(g)).collect();
    let hi = g.rng.pick(&[i64::from(u32::MAX), 1 << 16]);
    let input = g.signal_input(TensorType::UINT32, &[bins], 0, hi);
    let constant = |g: &mut G<'_>, values: &[i16]| {
        g.m.tensor(TensorSpec::new(TensorType::INT16, &[values.len() as i32]).constant_i16(values))
    };
    let tables = [
        constant(g, &weights),
        constant(g, &unweights),
        constant(g, &starts),
        constant(g, &weight_starts),
        constant(g, &widths),
    ];
    let mut broken = false;
    let num_channels = g.param(
        i64::from(channels),
        i64::from(channels),
        &[i64::from(channels) + 1, -1],
        &mut broken,
    );
    let outputs = g.rng.int(1, channels);
    let output = g.m.tensor(TensorSpec::new(TensorType::UINT64, &[outputs]));
    g.signal_describe(
        format!(
            "SignalFilterBank u32[{bins}] -> u64[{outputs}] channels {num_channels} starts \
             {starts:?} widths {widths:?}"
        ),
        broken,
    );
    let mut inputs = vec![input];
    inputs.extend(tables);
    g.signal_op(
        "SignalFilterBank",
        Some(int_map(&[("num_channels", num_channels)])),
        &inputs,
        &[output],
    );
    Some(output)
}

/// SignalFilterBankSpectralSubtraction: uint32 channels less a noise estimate kept between
/// invocations, and that estimate.
fn spectral_subtraction(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let n = g.rng.int(1, 16);
    let hi = g.rng.pick(&[i64::from(u32::MAX), 1 << 20, 5000]);
    let input = g.signal_input(TensorType::UINT32, &[n], 0, hi);
    let mut broken = false;
    let smoothing_bits = g.param(0, 12, &[32, -1], &mut broken);
    let subtraction_bits = g.param(0, 20, &[64], &mut broken);
    let q14 = |g: &mut G<'_>| g.rng.range(0, 16384);
    let smoothing = q14(g);
    let alternate = q14(g);
    let options = [
        ("alternate_one_minus_smoothing", 16384 - alternate),
        ("alternate_smoothing", alternate),
        ("clamping", i64::from(g.rng.chance(0.5))),
        ("min_signal_remaining", q14(g)),
        ("num_channels", i64::from(n)),
        ("one_minus_smoothing", 16384 - smoothing),
        ("smoothing", smoothing),
        ("smoothing_bits", smoothing_bits),
        ("spectral_subtraction_bits", subtraction_bits),
    ];
    let output = g.m.tensor(TensorSpec::new(TensorType::UINT32, &[n]));
    let noise = g.m.tensor(TensorSpec::new(TensorType::UINT32, &[n]));
    g.steps = STEPS;
    g.signal_describe(
        format!("SignalFilterBankSpectralSubtraction u32[{n}] options {options:?}"),
        broken,
    );
    g.signal_op(
        "SignalFilterBankSpectralSubtraction",
        Some(int_map(&options)),
        &[input],
        &[output, noise],
    );
    g.more_outputs.push(noise);
    Some(output)
}

/// SignalPCAN: uint32 channels with automatic gain from their uint32 noise estimates (graph
/// inputs both) and a constant int16 gain table of 125 entries or more.
fn pcan(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let n = g.rng.int(1, 16);
    let hi = g.rng.pick(&[i64::from(u32::MAX), 1 << 20, 5000]);
    let input = g.signal_input(TensorType::UINT32, &[n], 0, hi);
    let hi = g.rng.pick(&[i64::from(u32::MAX), 1 << 20, 5000]);
    let noise = g.signal_input(TensorType::UINT32, &[n], 0, hi);
    let entries = g.rng.pick(&[125, 125, 130]);
    let full = g.rng.chance(0.3);
    let lut: Vec<i16> = (0..entries)
        .map(|_| {
            if full {
                g.rng.next_u64() as i16
            } else {
                g.rng.int(0, 32767) as i16
            }
        })
        .collect();
    let lut = g
        .m
        .tensor(TensorSpec::new(TensorType::INT16, &[entries]).constant_i16(&lut));
    let mut broken = false;
    let snr_shift = g.param(0, 63, &[64, -1], &mut broken);
    let output = g.m.tensor(TensorSpec::new(TensorType::UINT32, &[n]));
    g.signal_describe(
        format!("SignalPCAN u32[{n}] gain table of {entries} snr_shift {snr_shift}"),
        broken,
    );
    g.signal_op(
        "SignalPCAN",
        Some(int_map(&[("snr_shift", snr_shift)])),
        &[input, noise, lut],
        &[output],
    );
    Some(output)
}

//! The kernels of the filter-bank channels: SignalFilterBank, SignalFilterBankSquareRoot, the
//! stateful SignalFilterBankSpectralSubtraction and SignalPCAN.

use super::{read_u32, read_u64};
use crate::Src;

/// Constant parameters of SignalFilterBank.
#[derive(Clone, Copy, Debug)]
pub struct FilterBank<'a> {
    /// The channels accumulated (the options' `num_channels`); TFLM computes one more, channel
    /// 0, whose weighted sum it discards.
    pub num_channels: usize,
    /// The output's elements, at most `num_channels`: channels 1 to `outputs` are written.
    pub outputs: usize,
    /// The triangular filters' weights.
    pub weights: &'a [i16],
    /// One minus each weight, which accumulates into the next channel.
    pub unweights: &'a [i16],
    /// Per channel (`num_channels + 1`): the first input bin of its band.
    pub frequency_starts: &'a [i16],
    /// Per channel: the index of its first weight.
    pub weight_starts: &'a [i16],
    /// Per channel: the bins of its band.
    pub widths: &'a [i16],
}

/// SignalFilterBank, uint32 energies to uint64 channels: channel `i`'s sum is its bins weighted
/// by `weights` plus the previous channel's bins weighted by `unweights` (each int16 weight
/// taken as a uint64, as C's conversion of a negative one wraps; sums wrap at 2^64). Reads the
/// bins at `input`, writes `8 * outputs` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn filter_bank(arena: &mut [u8], input: usize, output: usize, p: &FilterBank) {
    let p = crate::kernels::opaque(p);
    let (mut weighted, mut unweighted) = (0u64, 0u64);
    for i in 0..=p.num_channels {
        let frequency = p.frequency_starts[i] as usize;
        let weight = p.weight_starts[i] as usize;
        for j in 0..p.widths[i].max(0) as usize {
            let x = u64::from(read_u32(arena, input + 4 * (frequency + j)));
            weighted = weighted.wrapping_add((p.weights[weight + j] as u64).wrapping_mul(x));
            unweighted = unweighted.wrapping_add((p.unweights[weight + j] as u64).wrapping_mul(x));
        }
        if (1..=p.outputs).contains(&i) {
            let at = output + 8 * (i - 1);
            arena[at..at + 8].copy_from_slice(&weighted.to_le_bytes());
        }
        weighted = unweighted;
        unweighted = 0;
    }
}

/// Constant parameters of SignalFilterBankSquareRoot.
#[derive(Clone, Copy, Debug)]
pub struct FilterBankSquareRoot {
    /// The channels (the input's elements).
    pub channels: usize,
    /// The output's elements, at least `channels`; those past them are 0.
    pub outputs: usize,
}

/// The square root of `num` bit by bit from the highest even bit at or below its leading one,
/// rounded up when the remainder exceeds the root (unless the root is `max`, where it would
/// overflow its width): TFLM's `Sqrt32` (`bits` 32, `max` 0xFFFF) and `Sqrt64` (64,
/// 0xFFFF_FFFF) in one.
fn sqrt_rounded(mut num: u64, bits: u32, max: u64) -> u64 {
    if num == 0 {
        return 0;
    }
    // The count of leading zeros in `bits` bits, made odd.
    let top = (bits - (64 - num.leading_zeros())) | 1;
    let mut bit = 1u64 << (bits - 1 - top);
    let mut res = 0u64;
    for _ in 0..(bits - 1 - top) / 2 + 1 {
        if num >= res + bit {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if num > res && res != max {
        res += 1;
    }
    res
}

/// TFLM's `Sqrt64`: in 32 bits when the high word is clear (off by one near 2^32, as TFLM's
/// shortcut is).
pub(super) fn sqrt64(num: u64) -> u32 {
    if num >> 32 == 0 {
        sqrt_rounded(num, 32, 0xFFFF) as u32
    } else {
        sqrt_rounded(num, 64, 0xFFFF_FFFF) as u32
    }
}

/// SignalFilterBankSquareRoot, uint64 to uint32: each channel's rounded square root shifted
/// right by the int32 scalar at `scale_bits` (read at run time: SignalFftAutoScale computes it;
/// a shift outside 0..=31, undefined in TFLM, gives 0). Reads `8 * channels` bytes at `input`,
/// writes `4 * outputs` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn filter_bank_square_root(
    arena: &mut [u8],
    input: usize,
    scale_bits: Src,
    output: usize,
    p: &FilterBankSquareRoot,
) {
    let p = crate::kernels::opaque(p);
    let b = scale_bits.bytes(arena, 4);
    let shift = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    for i in 0..p.outputs {
        let y = if i < p.channels {
            let root = sqrt64(read_u64(arena, input + 8 * i));
            u32::try_from(shift)
                .ok()
                .and_then(|s| root.checked_shr(s))
                .unwrap_or(0)
        } else {
            0
        };
        arena[output + 4 * i..output + 4 * i + 4].copy_from_slice(&y.to_le_bytes());
    }
}

/// Constant parameters of SignalFilterBankSpectralSubtraction.
#[derive(Clone, Copy, Debug)]
pub struct SpectralSubtraction {
    /// The channels (the options' `num_channels`).
    pub channels: usize,
    /// The output's elements, at least `channels`; those past them are 0.
    pub outputs: usize,
    /// The noise-estimate output's elements, at most `channels`: the first of the state's.
    pub noise_outputs: usize,
    /// The even channels' smoothing coefficient (uint32 bits), in `2^spectral_subtraction_bits`.
    pub smoothing: i32,
    /// One minus it, alike.
    pub one_minus_smoothing: i32,
    /// The odd channels' smoothing coefficient.
    pub alternate_smoothing: i32,
    /// One minus it.
    pub alternate_one_minus_smoothing: i32,
    /// The least fraction of the signal kept, in `2^spectral_subtraction_bits`.
    pub min_signal_remaining: i32,
    /// The left shift of each input before smoothing, in 0..=31.
    pub smoothing_bits: i32,
    /// The right shift of the 64-bit products, in 0..=63.
    pub spectral_subtraction_bits: i32,
    /// Whether the estimate is pulled down to a signal below it.
    pub clamping: bool,
}

/// SignalFilterBankSpectralSubtraction on uint32: each channel's noise estimate (kept at
/// `noise_state`, `4 * channels` bytes zeroed by `reset`) smoothed towards the signal, and the
/// signal less the estimate (at least `min_signal_remaining` of it) written at `output`; the
/// first `noise_outputs` estimates are copied to `output_noise_estimate`. Reads `4 * channels`
/// bytes at `input`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn filter_bank_spectral_subtraction(
    arena: &mut [u8],
    input: usize,
    output: usize,
    output_noise_estimate: usize,
    noise_state: usize,
    p: &SpectralSubtraction,
) {
    let p = crate::kernels::opaque(p);
    let bits = p.smoothing_bits as u32 & 31;
    let shift = p.spectral_subtraction_bits as u32 & 63;
    for i in 0..p.outputs {
        let y = if i < p.channels {
            let (smoothing, one_minus) = if i & 1 == 0 {
                (p.smoothing as u32, p.one_minus_smoothing as u32)
            } else {
                (
                    p.alternate_smoothing as u32,
                    p.alternate_one_minus_smoothing as u32,
                )
            };
            let x = read_u32(arena, input + 4 * i);
            let scaled = x << bits;
            let old = read_u32(arena, noise_state + 4 * i);
            let mut estimate = ((u64::from(scaled) * u64::from(smoothing))
                .wrapping_add(u64::from(old) * u64::from(one_minus))
                >> shift) as u32;
            let mut subtrahend = estimate;
            if subtrahend > scaled {
                subtrahend = scaled;
                if p.clamping {
                    estimate = scaled;
                }
            }
            arena[noise_state + 4 * i..noise_state + 4 * i + 4]
                .copy_from_slice(&estimate.to_le_bytes());
            let floor = ((u64::from(x) * u64::from(p.min_signal_remaining as u32)) >> shift) as u32;
            ((scaled - subtrahend) >> bits).max(floor)
        } else {
            0
        };
        arena[output + 4 * i..output + 4 * i + 4].copy_from_slice(&y.to_le_bytes());
    }
    arena.copy_within(
        noise_state..noise_state + 4 * p.noise_outputs,
        output_noise_estimate,
    );
}

/// Constant parameters of SignalPCAN.
#[derive(Clone, Copy, Debug)]
pub struct Pcan {
    /// The channels (the input's and the output's elements).
    pub channels: usize,
    /// The right shift of each 64-bit product of a channel and its gain, in 0..=63.
    pub snr_shift: i32,
}

/// TFLM's `WideDynamicFunction`: the gain for noise level `x` from the table `lut` (at least
/// 125 int16): its first three entries for `x <= 2`, else a quadratic in the 10 bits below
/// `x`'s leading one, with the coefficients of that bit's segment.
fn wide_dynamic(x: u32, lut: &[u8]) -> i16 {
    let entry = |k: usize| i32::from(i16::from_le_bytes([lut[2 * k], lut[2 * k + 1]]));
    if x <= 2 {
        return entry(x as usize) as i16;
    }
    let interval = 32 - x.leading_zeros();
    let base = 4 * interval as usize - 6;
    let frac = (if interval < 11 {
        x << (11 - interval)
    } else {
        x >> (interval - 11)
    } & 0x3FF) as i32;
    let mut result = (entry(base + 2) * frac) >> 5;
    result = result.wrapping_add(((entry(base + 1) as u32) << 5) as i32);
    result = result.wrapping_mul(frac);
    result = result.wrapping_add(1 << 14) >> 15;
    result = result.wrapping_add(entry(base));
    result as i16
}

/// TFLM's `PcanShrink` (12 fractional bits in, 6 out): `x²/4` below 2, `x - 1` from 2 on.
pub(super) fn pcan_shrink(x: u32) -> u32 {
    if x < 2 << 12 {
        (x * x) >> 20
    } else {
        (x >> 6) - (1 << 6)
    }
}

/// SignalPCAN on uint32: each channel times the gain its noise estimate (at `noise_estimate`)
/// selects from the int16 table `lut`, shifted right by `snr_shift`, then shrunk. Reads
/// `4 * channels` bytes at `input` and `noise_estimate`, 250 at `lut`; writes `4 * channels` at
/// `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn pcan(
    arena: &mut [u8],
    input: usize,
    noise_estimate: usize,
    lut: Src,
    output: usize,
    p: &Pcan,
) {
    let p = crate::kernels::opaque(p);
    let shift = p.snr_shift as u32 & 63;
    for i in 0..p.channels {
        let noise = read_u32(arena, noise_estimate + 4 * i);
        let gain = wide_dynamic(noise, lut.bytes(arena, 250)) as i32 as u32;
        let x = read_u32(arena, input + 4 * i);
        let snr = ((u64::from(x) * u64::from(gain)) >> shift) as u32;
        arena[output + 4 * i..output + 4 * i + 4].copy_from_slice(&pcan_shrink(snr).to_le_bytes());
    }
}

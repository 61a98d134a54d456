//! TFLM's signal library (the custom operators of its audio front end, `signal/micro/kernels`),
//! with the integer arithmetic of `signal/src`: SignalWindow multiplies each frame of int16
//! samples by int16 window weights, shifts the int32 product right arithmetically and saturates
//! it to int16; SignalFilterBankLog takes the natural logarithm of each uint32 channel in fixed
//! point (a base-2 logarithm from the leading bit and a 128-segment correction table, times
//! ln 2), scaled and clamped to int16; SignalEnergy squares the int16 complex bins of a spectrum
//! into uint32 energies; SignalFftAutoScale shifts a frame left by as many bits as its largest
//! magnitude leaves free (found TFLM's way, quirks included); SignalRfft transforms int16 frames
//! with kissfft's 16-bit fixed point (mixed-radix butterflies, each stage dividing by its radix,
//! then the real-input split) and SignalIrfft inverts spectra back into frames (the real-output
//! packing, then the same transform inverse, in int16, int32 or float32); SignalFilterBank sums weighted uint32 energies into uint64
//! channels; SignalFilterBankSquareRoot takes their rounded square roots; the stateful
//! SignalFilterBankSpectralSubtraction subtracts a running noise estimate; SignalPCAN applies
//! per-channel automatic gain from a piecewise-polynomial table; the stateful SignalDelay delays
//! rows of samples across invocations, SignalFramer cuts them into overlapping frames and SignalStacker stacks
//! consecutive frames; SignalOverlapAdd adds overlapping frames back into a signal.
//!
//! The family's files, by variant: `pointwise.rs` the element-wise kernels, `rfft.rs` the
//! transforms, `spectrum.rs` those of the filter-bank channels and `stream.rs` those that keep
//! samples across invocations, each with its parameter struct. This module holds what several
//! of them share: the little-endian reads.

mod pointwise;
mod rfft;
mod spectrum;
mod stream;
#[cfg(test)]
mod tests;

pub use pointwise::{
    energy, fft_auto_scale, filter_bank_log, window_s16, Energy, FftAutoScale, FilterBankLog,
    Window,
};
pub use rfft::{
    irfft_f32, irfft_s16, irfft_s32, rfft_f32, rfft_s16, rfft_s32, IrfftF32, IrfftS16, IrfftS32,
    RfftF32, RfftS16, RfftS32,
};
pub use spectrum::{
    filter_bank, filter_bank_spectral_subtraction, filter_bank_square_root, pcan, FilterBank,
    FilterBankSquareRoot, Pcan, SpectralSubtraction,
};
pub use stream::{
    delay_s16, framer_s16, overlap_add_f32, overlap_add_s16, stacker_s16, Delay, Framer,
    OverlapAdd, Stacker,
};

/// The little-endian `u32` at byte `at`.
fn read_u32(arena: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([arena[at], arena[at + 1], arena[at + 2], arena[at + 3]])
}

/// The little-endian `u64` at byte `at`.
fn read_u64(arena: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&arena[at..at + 8]);
    u64::from_le_bytes(b)
}

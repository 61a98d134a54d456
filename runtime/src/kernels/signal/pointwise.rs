//! The element-wise kernels of the front end: SignalWindow, SignalFilterBankLog, SignalEnergy
//! and SignalFftAutoScale.

use crate::Src;

/// Constant parameters of SignalWindow.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// The input's element count, a multiple of `window` (the frames, each windowed alike).
    pub size: usize,
    /// The weights' element count (the frame length), at least 1.
    pub window: usize,
    /// The right shift of each int32 product, in 0..=31.
    pub shift: i32,
}

/// SignalWindow on int16: each output element `(input · weight) >> shift` saturated to int16, the
/// weights repeating every `window` elements. Reads `2 * size` bytes at `input` and `2 * window`
/// at `weights`, writes `2 * size` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn window_s16(arena: &mut [u8], input: usize, weights: Src, output: usize, p: &Window) {
    let p = crate::kernels::opaque(p);
    if p.window == 0 {
        return;
    }
    for i in 0..p.size {
        let at = 2 * (i % p.window);
        let w = weights.bytes(arena, 2 * p.window);
        let w = i16::from_le_bytes([w[at], w[at + 1]]);
        let x = i16::from_le_bytes([arena[input + 2 * i], arena[input + 2 * i + 1]]);
        let raw = (i32::from(x) * i32::from(w)) >> p.shift;
        let y = raw.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        arena[output + 2 * i..output + 2 * i + 2].copy_from_slice(&y.to_le_bytes());
    }
}

/// Constant parameters of SignalFilterBankLog.
#[derive(Clone, Copy, Debug)]
pub struct FilterBankLog {
    /// The channel count (the input's and the output's elements).
    pub channels: usize,
    /// The left shift of each uint32 input before its logarithm, in 0..=31.
    pub correction_bits: i32,
    /// The output scale in Q16 (the options' `output_scale`, used as a uint32: its bits).
    pub output_scale: i32,
}

/// `round(65536 · (log2(1 + i/128) − i/128))` for `i` in 0..=128, then 0: the correction of the
/// linear interpolation of `log2` between powers of two, in 128 segments (the values TFLM's
/// `Log32` uses; a test recomputes them from the formula).
pub(super) const LOG2_CORRECTION: [u16; 130] = [
    0, 224, 442, 654, 861, 1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944,
    3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714,
    4791, 4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533,
    5557, 5578, 5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568,
    5547, 5524, 5498, 5470, 5439, 5406, 5370, 5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944,
    4885, 4825, 4762, 4697, 4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848, 3759,
    3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875, 2768, 2659, 2549, 2437, 2323, 2207, 2090,
    1971, 1851, 1729, 1605, 1480, 1353, 1224, 1094, 963, 830, 695, 559, 421, 282, 142, 0, 0,
];

/// `log2(x)` in Q16 for `x >= 2`: the leading bit's position, plus the bits below it as a Q16
/// fraction corrected by [`LOG2_CORRECTION`] interpolated linearly between its segments.
fn log2_q16(x: u32) -> u32 {
    let integer = 31 - x.leading_zeros();
    // In [0, 2^integer), fits int32 for integer <= 31; then in Q16.
    let mut frac = (x - (1u32 << integer)) as i32;
    if integer < 16 {
        frac <<= 16 - integer;
    } else {
        frac >>= integer - 16;
    }
    let segment = (frac >> 9) as usize;
    let c0 = i32::from(LOG2_CORRECTION[segment]);
    let c1 = i32::from(LOG2_CORRECTION[segment + 1]);
    // An arithmetic shift: the product is negative where the table falls.
    let between = ((c1 - c0) * (frac - 512 * segment as i32)) >> 16;
    (integer << 16).wrapping_add((frac + c0 + between) as u32)
}

/// `ln(x) · scale` in Q16 for `x >= 2`, in uint32 arithmetic (the last product wraps as TFLM's
/// does for a large scale).
pub(super) fn log_scaled(x: u32, scale: u32) -> u32 {
    // ln 2 in Q16 (45426 / 65536), rounded.
    let ln = ((45426u64 * u64::from(log2_q16(x)) + 32768) >> 16) as u32;
    scale.wrapping_mul(ln).wrapping_add(32768) >> 16
}

/// SignalFilterBankLog, uint32 to int16: each channel shifted left by `correction_bits`, then 0
/// if at most 1, else its scaled natural logarithm clamped to 32767. Reads `4 * channels` bytes
/// at `input`, writes `2 * channels` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn filter_bank_log(arena: &mut [u8], input: usize, output: usize, p: &FilterBankLog) {
    let p = crate::kernels::opaque(p);
    let (shift, scale) = (p.correction_bits as u32 & 31, p.output_scale as u32);
    for i in 0..p.channels {
        let at = input + 4 * i;
        let x = u32::from_le_bytes([arena[at], arena[at + 1], arena[at + 2], arena[at + 3]]);
        let scaled = x << shift;
        let y = if scaled > 1 {
            log_scaled(scaled, scale).min(32767) as i16
        } else {
            0
        };
        arena[output + 2 * i..output + 2 * i + 2].copy_from_slice(&y.to_le_bytes());
    }
}

/// Constant parameters of SignalEnergy.
#[derive(Clone, Copy, Debug)]
pub struct Energy {
    /// The output's element count.
    pub bins: usize,
    /// The first bin computed (the options' `start_index`).
    pub start: usize,
    /// One past the last bin computed (`end_index`), at most `bins` and half the input's
    /// elements; `start..end` may be empty.
    pub end: usize,
}

/// SignalEnergy, int16 complex bins (real, imaginary pairs) to uint32: bin `i` in `start..end`
/// is `real² + imaginary²` (2^31 for two -32768, in the uint32 TFLM's int32 sum wraps to), the
/// other output elements 0 (TFLM leaves them unwritten: whatever the arena held; the audio front
/// end slices them away). Reads `4 * end` bytes at `input`, writes `4 * bins` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn energy(arena: &mut [u8], input: usize, output: usize, p: &Energy) {
    let p = crate::kernels::opaque(p);
    for i in 0..p.bins {
        let y = if (p.start..p.end).contains(&i) {
            let at = input + 4 * i;
            let re = i32::from(i16::from_le_bytes([arena[at], arena[at + 1]]));
            let im = i32::from(i16::from_le_bytes([arena[at + 2], arena[at + 3]]));
            ((re * re) as u32).wrapping_add((im * im) as u32)
        } else {
            0
        };
        arena[output + 4 * i..output + 4 * i + 4].copy_from_slice(&y.to_le_bytes());
    }
}

/// Constant parameters of SignalFftAutoScale.
#[derive(Clone, Copy, Debug)]
pub struct FftAutoScale {
    /// The elements scaled (the output's; the input has at least as many).
    pub size: usize,
}

/// TFLM's `MaxAbs16` as its portable loop computes it: the largest magnitude so far, where the
/// magnitude of -32768 is stored as an int16, -32768 again, after which the next element
/// greater than that (nearly any) replaces it.
pub(super) fn max_abs_s16(values: impl Iterator<Item = i16>) -> i16 {
    let mut max = 0i16;
    for value in values {
        if value > max {
            max = value;
        } else if -i32::from(value) > i32::from(max) {
            max = value.wrapping_neg();
        }
    }
    max
}

/// The left shift SignalFftAutoScale applies for the magnitude `max`: `15 - bit length`, at
/// least 0; the length of 0 is 32 (GCC's `MostSignificantBit32`), and a negative `max` is a
/// uint32 of 32 bits, so both give 0.
pub(super) fn auto_scale_bits(max: i16) -> i32 {
    let x = max as i32 as u32;
    let length = if x == 0 {
        32
    } else {
        32 - x.leading_zeros() as i32
    };
    (16 - length - 1).max(0)
}

/// SignalFftAutoScale on int16: each of the first `size` elements times `2^scale_bits` (kept to
/// int16 by its low bits), where `scale_bits` (`auto_scale_bits` of their largest magnitude) is
/// written as an int32 at `output_scale_bits`. Reads `2 * size` bytes at `input`, writes as many
/// at `output` and 4 at `output_scale_bits`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn fft_auto_scale(
    arena: &mut [u8],
    input: usize,
    output: usize,
    output_scale_bits: usize,
    p: &FftAutoScale,
) {
    let p = crate::kernels::opaque(p);
    let read = |arena: &[u8], i: usize| {
        i16::from_le_bytes([arena[input + 2 * i], arena[input + 2 * i + 1]])
    };
    let bits = auto_scale_bits(max_abs_s16((0..p.size).map(|i| read(arena, i))));
    for i in 0..p.size {
        let y = (i32::from(read(arena, i)) << bits) as i16;
        arena[output + 2 * i..output + 2 * i + 2].copy_from_slice(&y.to_le_bytes());
    }
    arena[output_scale_bits..output_scale_bits + 4].copy_from_slice(&bits.to_le_bytes());
}

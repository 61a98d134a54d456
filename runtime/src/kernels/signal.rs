//! TFLM's signal library (the custom operators of its audio front end, `signal/micro/kernels`),
//! with the integer arithmetic of `signal/src`: SignalWindow multiplies each frame of int16
//! samples by int16 window weights, shifts the int32 product right arithmetically and saturates
//! it to int16; SignalFilterBankLog takes the natural logarithm of each uint32 channel in fixed
//! point (a base-2 logarithm from the leading bit and a 128-segment correction table, times
//! ln 2), scaled and clamped to int16; SignalEnergy squares the int16 complex bins of a spectrum
//! into uint32 energies; SignalFftAutoScale shifts a frame left by as many bits as its largest
//! magnitude leaves free (found TFLM's way, quirks included); SignalRfft transforms int16 frames
//! with kissfft's 16-bit fixed point (mixed-radix butterflies, each stage dividing by its radix,
//! then the real-input split); SignalFilterBank sums weighted uint32 energies into uint64
//! channels; SignalFilterBankSquareRoot takes their rounded square roots; the stateful
//! SignalFilterBankSpectralSubtraction subtracts a running noise estimate; SignalPCAN applies
//! per-channel automatic gain from a piecewise-polynomial table; the stateful SignalDelay delays
//! rows of samples across invocations, SignalFramer cuts them into overlapping frames and SignalStacker stacks
//! consecutive frames; SignalOverlapAdd adds overlapping frames back into a signal.

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
    let p = super::opaque(p);
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
const LOG2_CORRECTION: [u16; 130] = [
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
fn log_scaled(x: u32, scale: u32) -> u32 {
    // ln 2 in Q16 (45426 / 65536), rounded.
    let ln = ((45426u64 * u64::from(log2_q16(x)) + 32768) >> 16) as u32;
    scale.wrapping_mul(ln).wrapping_add(32768) >> 16
}

/// SignalFilterBankLog, uint32 to int16: each channel shifted left by `correction_bits`, then 0
/// if at most 1, else its scaled natural logarithm clamped to 32767. Reads `4 * channels` bytes
/// at `input`, writes `2 * channels` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn filter_bank_log(arena: &mut [u8], input: usize, output: usize, p: &FilterBankLog) {
    let p = super::opaque(p);
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
    let p = super::opaque(p);
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
fn max_abs_s16(values: impl Iterator<Item = i16>) -> i16 {
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
fn auto_scale_bits(max: i16) -> i32 {
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
    let p = super::opaque(p);
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

/// Constant parameters of SignalRfft on int16.
#[derive(Clone, Copy, Debug)]
pub struct RfftS16<'a> {
    /// The frames transformed: the input's elements over `input_length`.
    pub frames: usize,
    /// Samples per input frame (the input's last dimension), at most twice `nfft`; the rest of
    /// each transform's input is zeros.
    pub input_length: usize,
    /// Complex bins from one output frame to the next (half the output's last dimension).
    pub output_length: usize,
    /// The complex transform's length: half the real `fft_length`, at least 1.
    pub nfft: usize,
    /// kissfft's factorisation of `nfft`: pairs (radix `p`, remaining length `m`), outermost
    /// stage first; every radix is 2, 3, 4 or 5.
    pub factors: &'a [usize],
    /// The complex transform's twiddles, `nfft` of them as (real, imaginary) pairs:
    /// `floor(0.5 + 32767 · cos/sin(-2πi/nfft))`.
    pub twiddles: &'a [i16],
    /// The real split's twiddles, `nfft / 2` pairs: `-π((i + 1)/nfft + 1/2)` rounded alike.
    pub super_twiddles: &'a [i16],
}

/// Constant parameters of SignalRfft on int32: [`RfftS16`]'s, the twiddles in Q31
/// (`floor(0.5 + 2147483647 · cos/sin)`).
#[derive(Clone, Copy, Debug)]
pub struct RfftS32<'a> {
    /// As [`RfftS16::frames`].
    pub frames: usize,
    /// As [`RfftS16::input_length`].
    pub input_length: usize,
    /// As [`RfftS16::output_length`].
    pub output_length: usize,
    /// As [`RfftS16::nfft`].
    pub nfft: usize,
    /// As [`RfftS16::factors`].
    pub factors: &'a [usize],
    /// The complex transform's twiddles in Q31, (real, imaginary) pairs.
    pub twiddles: &'a [i32],
    /// The real split's twiddles in Q31.
    pub super_twiddles: &'a [i32],
}

/// Constant parameters of SignalRfft on float32: [`RfftS16`]'s, the twiddles the float of the
/// double `cos`/`sin`.
#[derive(Clone, Copy, Debug)]
pub struct RfftF32<'a> {
    /// As [`RfftS16::frames`].
    pub frames: usize,
    /// As [`RfftS16::input_length`].
    pub input_length: usize,
    /// As [`RfftS16::output_length`].
    pub output_length: usize,
    /// As [`RfftS16::nfft`].
    pub nfft: usize,
    /// As [`RfftS16::factors`].
    pub factors: &'a [usize],
    /// The complex transform's twiddles, (real, imaginary) pairs.
    pub twiddles: &'a [f32],
    /// The real split's twiddles.
    pub super_twiddles: &'a [f32],
}

/// kissfft's scalar arithmetic for one of its types: 16-bit and 32-bit fixed point (products
/// in Q15 and Q31, each stage dividing by its radix, sums kept to the type's bits as C's stores
/// keep them) and float.
trait Scalar: Copy {
    /// Bytes of one value.
    const BYTES: usize;
    /// The value at byte `at`.
    fn load(arena: &[u8], at: usize) -> Self;
    /// Writes the value at byte `at`.
    fn store(self, arena: &mut [u8], at: usize);
    /// Zero (the padding past a frame's samples).
    fn zero() -> Self;
    /// The sum, kept to the type.
    fn add(self, b: Self) -> Self;
    /// The difference, kept to the type.
    fn sub(self, b: Self) -> Self;
    /// The negation, kept to the type.
    fn neg(self) -> Self;
    /// kissfft's `S_MUL`: the product, rounded back to the type in fixed point.
    fn smul(self, b: Self) -> Self;
    /// kissfft's `C_MUL` of `(ar, ai)` by `(br, bi)`: each sum of two products, rounded once in
    /// fixed point.
    fn cmul(ar: Self, ai: Self, br: Self, bi: Self) -> (Self, Self);
    /// kissfft's `DIVSCALAR` by `div` (fixed point: times `SAMP_MAX / div`; float: nothing).
    fn fixdiv(self, div: usize) -> Self;
    /// kissfft's `HALF_OF` of a stored value.
    fn half(self) -> Self;
    /// `HALF_OF(a + b)` as kiss_fftr writes it (for int16 the sum is an int, not kept to 16
    /// bits before the shift).
    fn half_sum(a: Self, b: Self) -> Self;
    /// `HALF_OF(a - b)`, alike.
    fn half_diff(a: Self, b: Self) -> Self;
}

impl Scalar for i16 {
    const BYTES: usize = 2;
    fn load(arena: &[u8], at: usize) -> Self {
        i16::from_le_bytes([arena[at], arena[at + 1]])
    }
    fn store(self, arena: &mut [u8], at: usize) {
        arena[at..at + 2].copy_from_slice(&self.to_le_bytes());
    }
    fn zero() -> Self {
        0
    }
    fn add(self, b: Self) -> Self {
        self.wrapping_add(b)
    }
    fn sub(self, b: Self) -> Self {
        self.wrapping_sub(b)
    }
    fn neg(self) -> Self {
        self.wrapping_neg()
    }
    fn smul(self, b: Self) -> Self {
        sround16(i32::from(self) * i32::from(b))
    }
    fn cmul(ar: Self, ai: Self, br: Self, bi: Self) -> (Self, Self) {
        let (ar, ai, br, bi) = (i32::from(ar), i32::from(ai), i32::from(br), i32::from(bi));
        (
            sround16((ar * br).wrapping_sub(ai * bi)),
            sround16((ar * bi).wrapping_add(ai * br)),
        )
    }
    fn fixdiv(self, div: usize) -> Self {
        sround16(i32::from(self) * (32767 / div) as i32)
    }
    fn half(self) -> Self {
        self >> 1
    }
    fn half_sum(a: Self, b: Self) -> Self {
        ((i32::from(a) + i32::from(b)) >> 1) as i16
    }
    fn half_diff(a: Self, b: Self) -> Self {
        ((i32::from(a) - i32::from(b)) >> 1) as i16
    }
}

/// kissfft's 16-bit `sround`: a Q15 product rounded back to int16 (its low bits kept).
fn sround16(x: i32) -> i16 {
    (x.wrapping_add(1 << 14) >> 15) as i16
}

/// kissfft's 32-bit `sround`: a Q31 product rounded back to int32 (its low bits kept).
fn sround32(x: i64) -> i32 {
    (x.wrapping_add(1 << 30) >> 31) as i32
}

impl Scalar for i32 {
    const BYTES: usize = 4;
    fn load(arena: &[u8], at: usize) -> Self {
        i32::from_le_bytes([arena[at], arena[at + 1], arena[at + 2], arena[at + 3]])
    }
    fn store(self, arena: &mut [u8], at: usize) {
        arena[at..at + 4].copy_from_slice(&self.to_le_bytes());
    }
    fn zero() -> Self {
        0
    }
    fn add(self, b: Self) -> Self {
        self.wrapping_add(b)
    }
    fn sub(self, b: Self) -> Self {
        self.wrapping_sub(b)
    }
    fn neg(self) -> Self {
        self.wrapping_neg()
    }
    fn smul(self, b: Self) -> Self {
        sround32(i64::from(self) * i64::from(b))
    }
    fn cmul(ar: Self, ai: Self, br: Self, bi: Self) -> (Self, Self) {
        let (ar, ai, br, bi) = (i64::from(ar), i64::from(ai), i64::from(br), i64::from(bi));
        (
            sround32((ar * br).wrapping_sub(ai * bi)),
            sround32((ar * bi).wrapping_add(ai * br)),
        )
    }
    fn fixdiv(self, div: usize) -> Self {
        sround32(i64::from(self) * (2_147_483_647 / div) as i64)
    }
    fn half(self) -> Self {
        self >> 1
    }
    // The int32 sum wraps before the shift: C's int is 32 bits.
    fn half_sum(a: Self, b: Self) -> Self {
        a.wrapping_add(b) >> 1
    }
    fn half_diff(a: Self, b: Self) -> Self {
        a.wrapping_sub(b) >> 1
    }
}

impl Scalar for f32 {
    const BYTES: usize = 4;
    fn load(arena: &[u8], at: usize) -> Self {
        f32::from_le_bytes([arena[at], arena[at + 1], arena[at + 2], arena[at + 3]])
    }
    fn store(self, arena: &mut [u8], at: usize) {
        arena[at..at + 4].copy_from_slice(&self.to_le_bytes());
    }
    fn zero() -> Self {
        0.0
    }
    fn add(self, b: Self) -> Self {
        self + b
    }
    fn sub(self, b: Self) -> Self {
        self - b
    }
    fn neg(self) -> Self {
        -self
    }
    fn smul(self, b: Self) -> Self {
        self * b
    }
    fn cmul(ar: Self, ai: Self, br: Self, bi: Self) -> (Self, Self) {
        (ar * br - ai * bi, ar * bi + ai * br)
    }
    fn fixdiv(self, _div: usize) -> Self {
        self
    }
    fn half(self) -> Self {
        self * 0.5
    }
    fn half_sum(a: Self, b: Self) -> Self {
        (a + b) * 0.5
    }
    fn half_diff(a: Self, b: Self) -> Self {
        (a - b) * 0.5
    }
}

/// A complex value of kissfft's type `T`.
#[derive(Clone, Copy)]
struct Cpx<T> {
    r: T,
    i: T,
}

impl<T: Scalar> Cpx<T> {
    /// The element at byte `at`.
    fn load(arena: &[u8], at: usize) -> Self {
        Cpx {
            r: T::load(arena, at),
            i: T::load(arena, at + T::BYTES),
        }
    }

    /// Writes the element at byte `at`.
    fn store(self, arena: &mut [u8], at: usize) {
        self.r.store(arena, at);
        self.i.store(arena, at + T::BYTES);
    }

    /// Element `k` of interleaved (real, imaginary) pairs.
    fn at(pairs: &[T], k: usize) -> Self {
        Cpx {
            r: pairs[2 * k],
            i: pairs[2 * k + 1],
        }
    }

    fn add(self, b: Self) -> Self {
        Cpx {
            r: self.r.add(b.r),
            i: self.i.add(b.i),
        }
    }

    fn sub(self, b: Self) -> Self {
        Cpx {
            r: self.r.sub(b.r),
            i: self.i.sub(b.i),
        }
    }

    /// kissfft's `C_MUL`.
    fn mul(self, b: Self) -> Self {
        let (r, i) = T::cmul(self.r, self.i, b.r, b.i);
        Cpx { r, i }
    }

    /// kissfft's `C_FIXDIV`: the division that keeps a stage's sum of `div` terms in range.
    fn fixdiv(self, div: usize) -> Self {
        Cpx {
            r: self.r.fixdiv(div),
            i: self.i.fixdiv(div),
        }
    }

    /// kissfft's `C_MULBYSCALAR` by `s`.
    fn scale(self, s: T) -> Self {
        Cpx {
            r: self.r.smul(s),
            i: self.i.smul(s),
        }
    }
}

/// What one SignalRfft kernel's parameters give the transform, whatever the type.
struct Plan<'a, T> {
    input_length: usize,
    nfft: usize,
    factors: &'a [usize],
    twiddles: &'a [T],
    super_twiddles: &'a [T],
}

/// One complex transform of SignalRfft: where its input frame is and where its stages write.
struct Transform<'p, 'a, T> {
    p: &'p Plan<'a, T>,
    /// Byte offset of the input frame's first sample.
    input: usize,
    /// Byte offset of the complex output (`nfft` elements, then the real split's one more).
    output: usize,
}

impl<T: Scalar> Transform<'_, '_, T> {
    /// Complex sample `k` of the input frame (samples `2k`, `2k + 1`), zero past its length.
    fn sample(&self, arena: &[u8], k: usize) -> Cpx<T> {
        let real = |n: usize| {
            if n < self.p.input_length {
                T::load(arena, self.input + T::BYTES * n)
            } else {
                T::zero()
            }
        };
        Cpx {
            r: real(2 * k),
            i: real(2 * k + 1),
        }
    }

    fn tw(&self, k: usize) -> Cpx<T> {
        Cpx::at(self.p.twiddles, k)
    }

    fn get(&self, arena: &[u8], k: usize) -> Cpx<T> {
        Cpx::load(arena, self.output + 2 * T::BYTES * k)
    }

    fn put(&self, arena: &mut [u8], k: usize, x: Cpx<T>) {
        x.store(arena, self.output + 2 * T::BYTES * k);
    }

    /// kissfft's `kf_work`: the transform of the samples `f, f + fstride, …` into the `p · m`
    /// elements at element `out` of the output, by stage `stage` of the factors on.
    fn work(&self, arena: &mut [u8], out: usize, f: usize, fstride: usize, stage: usize) {
        let (p, m) = (self.p.factors[2 * stage], self.p.factors[2 * stage + 1]);
        if m == 1 {
            for j in 0..p {
                let x = self.sample(arena, f + j * fstride);
                self.put(arena, out + j, x);
            }
        } else {
            for j in 0..p {
                self.work(arena, out + j * m, f + j * fstride, fstride * p, stage + 1);
            }
        }
        match p {
            2 => self.butterfly2(arena, out, fstride, m),
            3 => self.butterfly3(arena, out, fstride, m),
            4 => self.butterfly4(arena, out, fstride, m),
            5 => self.butterfly5(arena, out, fstride, m),
            // kissfft's generic butterfly of any other radix (a prime above 5, or 1) writes
            // through the scratch TFLM's patched allocator leaves null: the lowering refuses it.
            _ => {}
        }
    }

    fn butterfly2(&self, arena: &mut [u8], out: usize, fstride: usize, m: usize) {
        for k in 0..m {
            let a = self.get(arena, out + k).fixdiv(2);
            let b = self.get(arena, out + k + m).fixdiv(2);
            let t = b.mul(self.tw(k * fstride));
            self.put(arena, out + k + m, a.sub(t));
            self.put(arena, out + k, a.add(t));
        }
    }

    fn butterfly3(&self, arena: &mut [u8], out: usize, fstride: usize, m: usize) {
        let epi3 = self.tw(fstride * m);
        for k in 0..m {
            let f0 = self.get(arena, out + k).fixdiv(3);
            let f1 = self.get(arena, out + k + m).fixdiv(3);
            let f2 = self.get(arena, out + k + 2 * m).fixdiv(3);
            let s1 = f1.mul(self.tw(k * fstride));
            let s2 = f2.mul(self.tw(2 * k * fstride));
            let s3 = s1.add(s2);
            let s0 = s1.sub(s2).scale(epi3.i);
            let g1 = Cpx {
                r: f0.r.sub(s3.r.half()),
                i: f0.i.sub(s3.i.half()),
            };
            let g0 = f0.add(s3);
            let g2 = Cpx {
                r: g1.r.add(s0.i),
                i: g1.i.sub(s0.r),
            };
            let g1 = Cpx {
                r: g1.r.sub(s0.i),
                i: g1.i.add(s0.r),
            };
            self.put(arena, out + k, g0);
            self.put(arena, out + k + m, g1);
            self.put(arena, out + k + 2 * m, g2);
        }
    }

    fn butterfly4(&self, arena: &mut [u8], out: usize, fstride: usize, m: usize) {
        for k in 0..m {
            let f0 = self.get(arena, out + k).fixdiv(4);
            let f1 = self.get(arena, out + k + m).fixdiv(4);
            let f2 = self.get(arena, out + k + 2 * m).fixdiv(4);
            let f3 = self.get(arena, out + k + 3 * m).fixdiv(4);
            let s0 = f1.mul(self.tw(k * fstride));
            let s1 = f2.mul(self.tw(2 * k * fstride));
            let s2 = f3.mul(self.tw(3 * k * fstride));
            let s5 = f0.sub(s1);
            let f0 = f0.add(s1);
            let s3 = s0.add(s2);
            let s4 = s0.sub(s2);
            self.put(arena, out + k + 2 * m, f0.sub(s3));
            self.put(arena, out + k, f0.add(s3));
            // The forward transform's rotation by -i.
            let g1 = Cpx {
                r: s5.r.add(s4.i),
                i: s5.i.sub(s4.r),
            };
            let g3 = Cpx {
                r: s5.r.sub(s4.i),
                i: s5.i.add(s4.r),
            };
            self.put(arena, out + k + m, g1);
            self.put(arena, out + k + 3 * m, g3);
        }
    }

    fn butterfly5(&self, arena: &mut [u8], out: usize, fstride: usize, m: usize) {
        let ya = self.tw(fstride * m);
        let yb = self.tw(fstride * 2 * m);
        for u in 0..m {
            let f = |arena: &[u8], q: usize| self.get(arena, out + u + q * m).fixdiv(5);
            let s0 = f(arena, 0);
            let s1 = f(arena, 1).mul(self.tw(u * fstride));
            let s2 = f(arena, 2).mul(self.tw(2 * u * fstride));
            let s3 = f(arena, 3).mul(self.tw(3 * u * fstride));
            let s4 = f(arena, 4).mul(self.tw(4 * u * fstride));
            let s7 = s1.add(s4);
            let s10 = s1.sub(s4);
            let s8 = s2.add(s3);
            let s9 = s2.sub(s3);
            // Each expression in kissfft's order (it matters for floats).
            let g0 = s0.add(s7.add(s8));
            let s5 = Cpx {
                r: s0.r.add(s7.r.smul(ya.r)).add(s8.r.smul(yb.r)),
                i: s0.i.add(s7.i.smul(ya.r)).add(s8.i.smul(yb.r)),
            };
            let s6 = Cpx {
                r: s10.i.smul(ya.i).add(s9.i.smul(yb.i)),
                i: s10.r.smul(ya.i).neg().sub(s9.r.smul(yb.i)),
            };
            let s11 = Cpx {
                r: s0.r.add(s7.r.smul(yb.r)).add(s8.r.smul(ya.r)),
                i: s0.i.add(s7.i.smul(yb.r)).add(s8.i.smul(ya.r)),
            };
            let s12 = Cpx {
                r: s10.i.smul(yb.i).neg().add(s9.i.smul(ya.i)),
                i: s10.r.smul(yb.i).sub(s9.r.smul(ya.i)),
            };
            self.put(arena, out + u, g0);
            self.put(arena, out + u + m, s5.sub(s6));
            self.put(arena, out + u + 4 * m, s5.add(s6));
            self.put(arena, out + u + 2 * m, s11.add(s12));
            self.put(arena, out + u + 3 * m, s11.sub(s12));
        }
    }

    /// kissfft's `kiss_fftr` after its complex transform, in place: the `nfft + 1` bins of the
    /// real input from the `nfft` complex ones (each pair `k`, `nfft - k` read before either is
    /// written).
    fn split(&self, arena: &mut [u8]) {
        let n = self.p.nfft;
        let dc = self.get(arena, 0).fixdiv(2);
        let (first, last) = (
            Cpx {
                r: dc.r.add(dc.i),
                i: T::zero(),
            },
            Cpx {
                r: dc.r.sub(dc.i),
                i: T::zero(),
            },
        );
        self.put(arena, 0, first);
        self.put(arena, n, last);
        for k in 1..=n / 2 {
            let fpk = self.get(arena, k).fixdiv(2);
            let mirror = self.get(arena, n - k);
            let fpnk = Cpx {
                r: mirror.r,
                i: mirror.i.neg(),
            }
            .fixdiv(2);
            let f1k = fpk.add(fpnk);
            let f2k = fpk.sub(fpnk);
            let tw = f2k.mul(Cpx::at(self.p.super_twiddles, k - 1));
            let low = Cpx {
                r: T::half_sum(f1k.r, tw.r),
                i: T::half_sum(f1k.i, tw.i),
            };
            let high = Cpx {
                r: T::half_diff(f1k.r, tw.r),
                i: T::half_diff(tw.i, f1k.i),
            };
            self.put(arena, k, low);
            self.put(arena, n - k, high);
        }
    }
}

/// SignalRfft of any of kissfft's types: each of `frames` frames transformed in place at its
/// output (`output_length` complex elements apart).
fn rfft<T: Scalar>(
    arena: &mut [u8],
    (input, output): (usize, usize),
    (frames, output_length): (usize, usize),
    plan: &Plan<T>,
) {
    if plan.factors.len() < 2 {
        return;
    }
    for frame in 0..frames {
        let t = Transform {
            p: plan,
            input: input + T::BYTES * frame * plan.input_length,
            output: output + 2 * T::BYTES * frame * output_length,
        };
        t.work(arena, 0, 0, 1, 0);
        t.split(arena);
    }
}

/// SignalRfft on int16: each frame of `input_length` samples, zero-padded to `2 · nfft`, to its
/// `nfft + 1` complex bins (int16 real, imaginary pairs) at complex element
/// `frame · output_length` of the output, by kissfft's 16-bit fixed-point real transform. Reads
/// `2 · frames · input_length` bytes at `input`; writes the bins at `output`, using the output
/// as kissfft's work buffer.
#[cfg_attr(target_os = "none", inline(never))]
pub fn rfft_s16(arena: &mut [u8], input: usize, output: usize, p: &RfftS16) {
    let p = super::opaque(p);
    let plan = Plan {
        input_length: p.input_length,
        nfft: p.nfft,
        factors: p.factors,
        twiddles: p.twiddles,
        super_twiddles: p.super_twiddles,
    };
    rfft(arena, (input, output), (p.frames, p.output_length), &plan);
}

/// SignalRfft on int32, as [`rfft_s16`] in kissfft's 32-bit fixed point (Q31 products in 64
/// bits; int32 sums wrap, as TFLM's build computes them).
#[cfg_attr(target_os = "none", inline(never))]
pub fn rfft_s32(arena: &mut [u8], input: usize, output: usize, p: &RfftS32) {
    let p = super::opaque(p);
    let plan = Plan {
        input_length: p.input_length,
        nfft: p.nfft,
        factors: p.factors,
        twiddles: p.twiddles,
        super_twiddles: p.super_twiddles,
    };
    rfft(arena, (input, output), (p.frames, p.output_length), &plan);
}

/// SignalRfft on float32, as [`rfft_s16`] in kissfft's float arithmetic, each operation in its
/// order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn rfft_f32(arena: &mut [u8], input: usize, output: usize, p: &RfftF32) {
    let p = super::opaque(p);
    let plan = Plan {
        input_length: p.input_length,
        nfft: p.nfft,
        factors: p.factors,
        twiddles: p.twiddles,
        super_twiddles: p.super_twiddles,
    };
    rfft(arena, (input, output), (p.frames, p.output_length), &plan);
}

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
    let p = super::opaque(p);
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
fn sqrt64(num: u64) -> u32 {
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
    let p = super::opaque(p);
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
    let p = super::opaque(p);
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
fn pcan_shrink(x: u32) -> u32 {
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
    let p = super::opaque(p);
    let shift = p.snr_shift as u32 & 63;
    for i in 0..p.channels {
        let noise = read_u32(arena, noise_estimate + 4 * i);
        let gain = wide_dynamic(noise, lut.bytes(arena, 250)) as i32 as u32;
        let x = read_u32(arena, input + 4 * i);
        let snr = ((u64::from(x) * u64::from(gain)) >> shift) as u32;
        arena[output + 4 * i..output + 4 * i + 4].copy_from_slice(&pcan_shrink(snr).to_le_bytes());
    }
}

/// Constant parameters of SignalDelay.
#[derive(Clone, Copy, Debug)]
pub struct Delay {
    /// The rows delayed, each on its own: the input's elements over `frame`.
    pub rows: usize,
    /// Samples per row (the input's last dimension), at least 1.
    pub frame: usize,
    /// The delay in samples (the options' `delay_length`): the samples of each row kept from one
    /// invocation to the next.
    pub delay: usize,
}

/// SignalDelay on int16: each row of `frame` samples delayed by `delay` samples across
/// invocations. TFLM keeps per row a circular buffer that starts with `delay` zeros, writes the
/// row into it, reads `frame` samples out and discards them; so each output row is the first
/// `frame` samples of (the `delay` samples kept, then the input row), and the last `delay` of
/// those are kept, at `delay_state` (`2 * rows * delay` bytes, zeroed by `reset`). Reads
/// `2 * rows * frame` bytes at `input`, writes as many at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn delay_s16(arena: &mut [u8], input: usize, output: usize, delay_state: usize, p: &Delay) {
    let p = super::opaque(p);
    let (frame, delay) = (2 * p.frame, 2 * p.delay);
    for row in 0..p.rows {
        let (x, y, kept) = (
            input + frame * row,
            output + frame * row,
            delay_state + delay * row,
        );
        // The output: the kept samples first, then the row's.
        let old = delay.min(frame);
        arena.copy_within(kept..kept + old, y);
        arena.copy_within(x..x + frame - old, y + old);
        // The samples kept: the last `delay` of the kept ones and the row's.
        if delay > frame {
            arena.copy_within(kept + frame..kept + delay, kept);
            arena.copy_within(x..x + frame, kept + delay - frame);
        } else {
            arena.copy_within(x + frame - delay..x + frame, kept);
        }
    }
}

/// Constant parameters of SignalFramer.
#[derive(Clone, Copy, Debug)]
pub struct Framer {
    /// The rows framed, each on its own: the input's elements over its last dimension.
    pub rows: usize,
    /// Frames per row and invocation: the input's last dimension over `frame_step`.
    pub frames: usize,
    /// Samples per frame (the options' `frame_size`), at least 1.
    pub frame_size: usize,
    /// Samples from one frame to the next (`frame_step`), at least 1.
    pub frame_step: usize,
    /// Samples kept per row in the state: `frame_size` rounded up to a multiple of `frame_step`
    /// (TFLM's circular buffer's capacity).
    pub capacity: usize,
    /// The samples a row holds after `reset`: `frame_size - frame_step` zeros with `prefill`,
    /// else none.
    pub prefilled: usize,
}

/// SignalFramer on int16: each row's samples, `frame_step` at a time, appended to the samples
/// kept for that row; whenever `frame_size` are there, they are the next output frame and the
/// first `frame_step` are dropped. A frame with too few samples (before the first `frame_size`
/// after `reset`, without `prefill`) is 0 (TFLM leaves it as its arena held it) and makes the
/// bool at `output_valid` false. The state at `framer_state`, zeroed by `reset`: a uint32, the samples
/// held per row past `prefilled`, then each row's `capacity` int16 samples (the first held).
/// Reads `2 * rows * frames * frame_step` bytes at `input`; writes up to
/// `2 * rows * frames * frame_size` at `output`, 1 at `output_valid`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn framer_s16(
    arena: &mut [u8],
    input: usize,
    output: usize,
    output_valid: usize,
    framer_state: usize,
    p: &Framer,
) {
    let p = super::opaque(p);
    let (size, step) = (2 * p.frame_size, 2 * p.frame_step);
    // A count no invocation leaves (a multiple of `frame_step`, fewer than `frame_size` held
    // with the prefill) is taken as `reset`'s 0: the state is not zeroed yet, and every write
    // then stays inside the row's `capacity` samples.
    let stored = read_u32(arena, framer_state) as usize;
    let stored = if stored.checked_rem(p.frame_step) == Some(0)
        && stored < p.frame_size.saturating_sub(p.prefilled)
    {
        stored
    } else {
        0
    };
    let start = p.prefilled + stored;
    let (mut held, mut valid) = (2 * start, true);
    for row in 0..p.rows {
        let kept = framer_state + 4 + 2 * p.capacity * row;
        held = 2 * start;
        for frame in 0..p.frames {
            let n = row * p.frames + frame;
            arena.copy_within(input + step * n..input + step * (n + 1), kept + held);
            held += step;
            if held >= size {
                arena.copy_within(kept..kept + size, output + size * n);
                arena.copy_within(kept + step..kept + held, kept);
                held -= step;
            } else {
                arena[output + size * n..output + size * (n + 1)].fill(0);
                valid = false;
            }
        }
    }
    let stored = (held / 2 - p.prefilled) as u32;
    arena[framer_state..framer_state + 4].copy_from_slice(&stored.to_le_bytes());
    arena[output_valid] = u8::from(valid);
}

/// Constant parameters of SignalStacker.
#[derive(Clone, Copy, Debug)]
pub struct Stacker {
    /// Samples per input frame (the options' `num_channels`), at least 1.
    pub channels: usize,
    /// Copies of the first frame added before it (`stacker_left_context`).
    pub left_context: usize,
    /// Samples per output: `channels · (left_context + right_context + 1)`.
    pub buffer_size: usize,
    /// Samples dropped after each output: `channels · stacker_step`, at most `buffer_size`.
    pub step_size: usize,
}

/// SignalStacker on int16: each invocation's frame of `channels` samples appended to the
/// samples kept (the first frame after `reset` `left_context` more times, as context before
/// it); once `buffer_size` are there they are the output, the first `step_size` are dropped,
/// and the bool at `output_valid` is true; before that it is false and the output 0 (TFLM leaves
/// it as its arena held it). The state at `stacker_state`, zeroed by `reset`: a uint32, the
/// samples kept, a uint32, whether the first frame came, then `buffer_size` int16 samples.
/// Reads `2 * channels` bytes at `input`; writes `2 * buffer_size` at `output`, 1 at
/// `output_valid`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn stacker_s16(
    arena: &mut [u8],
    input: usize,
    output: usize,
    output_valid: usize,
    stacker_state: usize,
    p: &Stacker,
) {
    let p = super::opaque(p);
    let kept = stacker_state + 8;
    let (frame, size, step) = (2 * p.channels, 2 * p.buffer_size, 2 * p.step_size);
    let first = read_u32(arena, stacker_state + 4) == 0;
    // A count no invocation leaves (samples kept before the first frame, or too many for this
    // frame to fit) is taken as `reset`'s 0: the state is not zeroed yet, and every write then
    // stays inside the `buffer_size` samples.
    let stored = read_u32(arena, stacker_state) as usize;
    let stored = if !first && stored <= p.buffer_size.saturating_sub(p.channels) {
        stored
    } else {
        0
    };
    let mut held = 2 * stored;
    arena.copy_within(input..input + frame, kept + held);
    held += frame;
    if first {
        for _ in 0..p.left_context {
            arena.copy_within(kept + held - frame..kept + held, kept + held);
            held += frame;
        }
        arena[stacker_state + 4..stacker_state + 8].copy_from_slice(&1u32.to_le_bytes());
    }
    let valid = held >= size;
    if valid {
        arena.copy_within(kept..kept + size, output);
        arena.copy_within(kept + step..kept + held, kept);
        held -= step;
    } else {
        arena[output..output + size].fill(0);
    }
    arena[stacker_state..stacker_state + 4].copy_from_slice(&((held / 2) as u32).to_le_bytes());
    arena[output_valid] = u8::from(valid);
}

/// Constant parameters of SignalOverlapAdd.
#[derive(Clone, Copy, Debug)]
pub struct OverlapAdd {
    /// The rows, each overlap-added on its own: the input's elements over its last two
    /// dimensions.
    pub rows: usize,
    /// Frames per row and invocation (the input's second-to-last dimension).
    pub frames: usize,
    /// Samples per frame (the input's last dimension), at least 1.
    pub frame_size: usize,
    /// Output samples per frame (the options' `frame_step`), at most `frame_size`.
    pub frame_step: usize,
}

/// One sample type of SignalOverlapAdd: int16 (sums saturated) or float32.
trait OverlapSample: Copy {
    /// Bytes of one sample.
    const BYTES: usize;
    /// The sample at byte `at`.
    fn get(arena: &[u8], at: usize) -> Self;
    /// Writes the sample at byte `at`.
    fn set(self, arena: &mut [u8], at: usize);
    /// `self + other` as TFLM's OverlapAdd of this type adds.
    fn plus(self, other: Self) -> Self;
}

impl OverlapSample for i16 {
    const BYTES: usize = 2;
    fn get(arena: &[u8], at: usize) -> Self {
        i16::from_le_bytes([arena[at], arena[at + 1]])
    }
    fn set(self, arena: &mut [u8], at: usize) {
        arena[at..at + 2].copy_from_slice(&self.to_le_bytes());
    }
    fn plus(self, other: Self) -> Self {
        self.saturating_add(other)
    }
}

impl OverlapSample for f32 {
    const BYTES: usize = 4;
    fn get(arena: &[u8], at: usize) -> Self {
        f32::from_bits(read_u32(arena, at))
    }
    fn set(self, arena: &mut [u8], at: usize) {
        arena[at..at + 4].copy_from_slice(&self.to_bits().to_le_bytes());
    }
    fn plus(self, other: Self) -> Self {
        self + other
    }
}

/// SignalOverlapAdd of one sample type: see [`overlap_add_s16`].
fn overlap_add<T: OverlapSample>(
    arena: &mut [u8],
    (input, output, state): (usize, usize, usize),
    p: &OverlapAdd,
) {
    let (size, step) = (T::BYTES * p.frame_size, T::BYTES * p.frame_step);
    for row in 0..p.rows {
        let sums = state + size * row;
        for frame in 0..p.frames {
            let n = row * p.frames + frame;
            for i in (0..size).step_by(T::BYTES) {
                let sum = T::get(arena, sums + i).plus(T::get(arena, input + size * n + i));
                sum.set(arena, sums + i);
            }
            arena.copy_within(sums..sums + step, output + step * n);
            arena.copy_within(sums + step..sums + size, sums);
            arena[sums + size - step..sums + size].fill(0);
        }
    }
}

/// SignalOverlapAdd on int16: each frame of `frame_size` samples added (saturating) into its
/// row's running sums (at `overlap_state`, `2 * rows * frame_size` bytes zeroed by `reset`), the
/// first `frame_step` sums written out and shifted off, zeros shifted in. Reads
/// `2 * rows * frames * frame_size` bytes at `input`, writes `2 * rows * frames * frame_step` at
/// `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn overlap_add_s16(
    arena: &mut [u8],
    input: usize,
    output: usize,
    overlap_state: usize,
    p: &OverlapAdd,
) {
    let p = super::opaque(p);
    overlap_add::<i16>(arena, (input, output, overlap_state), p);
}

/// SignalOverlapAdd on float32, as [`overlap_add_s16`] with float sums (`4 *` the bytes).
#[cfg_attr(target_os = "none", inline(never))]
pub fn overlap_add_f32(
    arena: &mut [u8],
    input: usize,
    output: usize,
    overlap_state: usize,
    p: &OverlapAdd,
) {
    let p = super::opaque(p);
    overlap_add::<f32>(arena, (input, output, overlap_state), p);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_correction_table_is_its_formula() {
        for (i, &c) in LOG2_CORRECTION.iter().enumerate().take(129) {
            let x = i as f64 / 128.0;
            assert_eq!(
                f64::from(c),
                (65536.0 * ((1.0 + x).log2() - x)).round(),
                "{i}"
            );
        }
        assert_eq!(LOG2_CORRECTION[129], 0);
    }

    #[test]
    fn max_abs_keeps_tflm_quirk_after_minus_32768() {
        assert_eq!(max_abs_s16([3i16, -7, 5].into_iter()), 7);
        // After -32768 the "maximum" is -32768, then -5 (greater), then 9 (|-9| > -5).
        assert_eq!(max_abs_s16([100i16, -32768, -5].into_iter()), -5);
        assert_eq!(max_abs_s16([100i16, -32768, -5, -9].into_iter()), 9);
        assert_eq!(auto_scale_bits(7), 12);
        assert_eq!(auto_scale_bits(0), 0);
        assert_eq!(auto_scale_bits(-5), 0);
        assert_eq!(auto_scale_bits(16384), 0);
        assert_eq!(auto_scale_bits(16383), 1);
    }

    #[test]
    fn square_roots_round_to_nearest_but_at_the_top() {
        for x in [
            0u64,
            1,
            2,
            3,
            15,
            16,
            17,
            1 << 31,
            u64::from(u32::MAX),
            1 << 40,
            12345678901234,
        ] {
            let exact = (x as f64).sqrt();
            let got = f64::from(sqrt64(x));
            assert!(
                (got - exact).abs() <= 0.5 + 1e-9 || x >> 32 == 0 && got == 65535.0,
                "{x}: {got}"
            );
        }
        // The 32-bit shortcut keeps a root of 0xFFFF where rounding would need 0x10000.
        assert_eq!(sqrt64(u64::from(u32::MAX)), 0xFFFF);
        assert_eq!(sqrt64(u64::MAX), 0xFFFF_FFFF);
    }

    #[test]
    fn pcan_shrink_is_continuous_at_two() {
        // x²/4 just below 2 (in Q12), x - 1 from 2 on, both in Q6.
        assert_eq!(pcan_shrink(0), 0);
        assert_eq!(pcan_shrink((2 << 12) - 1), 63);
        assert_eq!(pcan_shrink(2 << 12), 64);
        assert_eq!(pcan_shrink(3 << 12), 128);
    }

    #[test]
    fn an_impulse_has_a_flat_spectrum() {
        // fft_length 8: nfft 4 = one radix-4 stage; twiddles of -2πi/4 and the split's.
        let twiddles = [32767i16, 0, 0, -32767, -32767, 0, 0, 32767];
        let super_twiddles = [-23170i16, -23170, -32767, 0];
        let p = RfftS16 {
            frames: 1,
            input_length: 8,
            output_length: 5,
            nfft: 4,
            factors: &[4, 1],
            twiddles: &twiddles,
            super_twiddles: &super_twiddles,
        };
        let mut arena = [0u8; 64];
        arena[..2].copy_from_slice(&8000i16.to_le_bytes());
        rfft_s16(&mut arena, 0, 32, &p);
        // Each bin 8000 scaled by kissfft's 1/8, imaginary parts 0.
        for k in 0..5 {
            let at = 32 + 4 * k;
            let re = i16::from_le_bytes([arena[at], arena[at + 1]]);
            let im = i16::from_le_bytes([arena[at + 2], arena[at + 3]]);
            assert!(
                (i32::from(re) - 1000).abs() <= 1 && im.abs() <= 1,
                "bin {k}: {re} {im}"
            );
        }
    }

    #[test]
    fn logarithms_are_close_to_the_real_ones() {
        // A scale of 256 (the product stays below 2^32): the logarithm in units of 1/256.
        for x in [2u32, 3, 1000, 65535, 65536, 1 << 20, u32::MAX] {
            let got = f64::from(log_scaled(x, 256)) / 256.0;
            assert!((got - f64::from(x).ln()).abs() < 0.01, "{x}: {got}");
        }
    }
    extern crate std;
    use std::vec::Vec;

    /// The int16 values at `at`, `n` of them.
    fn s16s(arena: &[u8], at: usize, n: usize) -> Vec<i16> {
        (0..n)
            .map(|i| i16::from_le_bytes([arena[at + 2 * i], arena[at + 2 * i + 1]]))
            .collect()
    }

    /// Writes `values` as int16 at `at`.
    fn put_s16s(arena: &mut [u8], at: usize, values: &[i16]) {
        for (i, v) in values.iter().enumerate() {
            arena[at + 2 * i..at + 2 * i + 2].copy_from_slice(&v.to_le_bytes());
        }
    }

    #[test]
    fn delay_carries_samples_across_invocations() {
        // Two rows of 3 samples, delays shorter and longer than a row.
        for delay in [0usize, 2, 5] {
            let p = Delay {
                rows: 2,
                frame: 3,
                delay,
            };
            let mut arena = [0u8; 64];
            let mut stream: [Vec<i16>; 2] = [std::vec![0; delay], std::vec![0; delay]];
            for call in 0..4i16 {
                let rows = [[call, call + 1, call + 2], [-call, -2 * call, 7]];
                put_s16s(&mut arena, 0, &[rows[0], rows[1]].concat());
                delay_s16(&mut arena, 0, 12, 24, &p);
                let got = s16s(&arena, 12, 6);
                for r in 0..2 {
                    stream[r].extend_from_slice(&rows[r]);
                    let start = 3 * call as usize;
                    assert_eq!(
                        got[3 * r..3 * r + 3],
                        stream[r][start..start + 3],
                        "{delay}"
                    );
                }
            }
        }
    }

    #[test]
    fn framer_frames_a_stream() {
        // Frames of 5 every 2 samples, one row of 4 samples (2 frames) per call, with and without
        // prefill: the k-th frame written is samples 2k .. 2k + 5 of the stream (after the 3
        // zeros of prefill), written once they have all arrived.
        for prefill in [false, true] {
            let p = Framer {
                rows: 1,
                frames: 2,
                frame_size: 5,
                frame_step: 2,
                capacity: 6,
                prefilled: if prefill { 3 } else { 0 },
            };
            let mut arena = [0u8; 64];
            let mut stream: Vec<i16> = std::vec![0; if prefill { 3 } else { 0 }];
            let mut written = 0;
            for call in 0..4i16 {
                let row = [10 * call, 10 * call + 1, 10 * call + 2, 10 * call + 3];
                put_s16s(&mut arena, 0, &row);
                arena[8..28].fill(0x55);
                let zeros = [0i16; 5];
                framer_s16(&mut arena, 0, 8, 28, 32, &p);
                stream.extend_from_slice(&row);
                let mut valid = true;
                for f in 0..2 {
                    let end = stream.len() - 4 + 2 * (f + 1);
                    if end < 5 {
                        assert_eq!(s16s(&arena, 8 + 10 * f, 5), zeros, "{prefill}");
                        valid = false;
                        continue;
                    }
                    let first = 2 * written;
                    written += 1;
                    assert_eq!(
                        s16s(&arena, 8 + 10 * f, 5),
                        stream[first..first + 5],
                        "{prefill}"
                    );
                }
                assert_eq!(arena[28], u8::from(valid), "{prefill} {call}");
            }
        }
    }
    #[test]
    fn framer_and_stacker_take_a_count_no_invocation_leaves_as_reset() {
        // State bytes not zeroed by `reset` (any values): the counts are taken as 0, and the
        // kernels write inside their state.
        let framer = Framer {
            rows: 2,
            frames: 1,
            frame_size: 4,
            frame_step: 2,
            capacity: 4,
            prefilled: 0,
        };
        for count in [1u32, 2, 3, 4, 5, 1000, u32::MAX] {
            let mut arena = [0u8; 64];
            put_s16s(&mut arena, 0, &[1, 2, 3, 4]);
            arena[40..44].copy_from_slice(&count.to_le_bytes());
            framer_s16(&mut arena, 0, 8, 24, 40, &framer);
            // Two held after the write either way: four give a frame, two are kept.
            assert_eq!(read_u32(&arena, 40), 2, "{count}");
            assert_eq!(arena[24], u8::from(count == 2), "{count}");
        }
        let stacker = Stacker {
            channels: 2,
            left_context: 1,
            buffer_size: 6,
            step_size: 4,
        };
        for (count, first) in [(5u32, 1u32), (6, 1), (u32::MAX, 1), (4, 0), (u32::MAX, 0)] {
            let mut arena = [0u8; 64];
            put_s16s(&mut arena, 0, &[7, 8]);
            arena[20..24].copy_from_slice(&count.to_le_bytes());
            arena[24..28].copy_from_slice(&first.to_le_bytes());
            stacker_s16(&mut arena, 0, 4, 16, 20, &stacker);
            let held = if first == 0 { 4 } else { 2 };
            assert_eq!(read_u32(&arena, 20), held, "{count} {first}");
            assert_eq!(arena[16], 0, "{count} {first}");
        }
    }
    #[test]
    fn stacker_stacks_frames_with_context() {
        // Frames of 2, one copy of the first before it, one frame after: outputs of 3 frames,
        // every other invocation (step 2).
        let p = Stacker {
            channels: 2,
            left_context: 1,
            buffer_size: 6,
            step_size: 4,
        };
        let mut arena = [0u8; 64];
        let mut outputs = Vec::new();
        for call in 0..5i16 {
            put_s16s(&mut arena, 0, &[call, 10 + call]);
            stacker_s16(&mut arena, 0, 4, 16, 20, &p);
            outputs.push((arena[16], s16s(&arena, 4, 6)));
        }
        let f = |k: i16| [k, 10 + k];
        let want = [
            (0, std::vec![0; 6]),
            (1, [f(0), f(0), f(1)].concat()),
            (0, std::vec![0; 6]),
            (1, [f(1), f(2), f(3)].concat()),
            (0, std::vec![0; 6]),
        ];
        assert_eq!(outputs, want);
    }
    #[test]
    fn overlap_add_sums_overlapping_frames() {
        // Frames of 4 every 2 samples: each output sample the sum of the two frames over it,
        // saturated in int16.
        let p = OverlapAdd {
            rows: 1,
            frames: 2,
            frame_size: 4,
            frame_step: 2,
        };
        let mut arena = [0u8; 64];
        put_s16s(&mut arena, 0, &[1, 2, 3, 4, 10, 20, 30000, 40]);
        overlap_add_s16(&mut arena, 0, 16, 32, &p);
        assert_eq!(s16s(&arena, 16, 4), [1, 2, 13, 24]);
        put_s16s(&mut arena, 0, &[5000, 5, 0, 0, 0, 0, 0, 0]);
        overlap_add_s16(&mut arena, 0, 16, 32, &p);
        assert_eq!(s16s(&arena, 16, 4), [32767, 45, 0, 0]);
        let mut arena = [0u8; 96];
        for (i, x) in [0.5f32, 0.25, 1.0, 2.0].iter().enumerate() {
            arena[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
        }
        let p = OverlapAdd {
            rows: 1,
            frames: 1,
            frame_size: 4,
            frame_step: 1,
        };
        overlap_add_f32(&mut arena, 0, 16, 32, &p);
        overlap_add_f32(&mut arena, 0, 20, 32, &p);
        let y = |at: usize| {
            f32::from_le_bytes([arena[at], arena[at + 1], arena[at + 2], arena[at + 3]])
        };
        assert_eq!([y(16), y(20)], [0.5, 0.75]);
    }
}

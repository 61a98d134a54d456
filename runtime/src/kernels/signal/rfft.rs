//! SignalRfft and SignalIrfft: kissfft's mixed-radix transform in 16-bit and 32-bit fixed point
//! and float32, after it the real-input split (`kiss_fftr`), or before its inverse the
//! real-output packing (`kiss_fftri`).

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
    /// TFLM's IrfftFloatApply divides each output by `fft_length` (kissfft's inverse is
    /// unscaled); the fixed-point ones keep kissfft's per-stage division alone.
    fn unscale(self, fft_length: usize) -> Self;
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
    fn unscale(self, _fft_length: usize) -> Self {
        self
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
    fn unscale(self, _fft_length: usize) -> Self {
        self
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
    // C's `output[i] /= fft_length`: the int converted to float, one division.
    fn unscale(self, fft_length: usize) -> Self {
        self / fft_length as f32
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

    /// The complex conjugate (kissfft negates the imaginary part, kept to the type).
    fn conj(self) -> Self {
        Cpx {
            r: self.r,
            i: self.i.neg(),
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

/// What a transform reads as kissfft's `fin`.
#[derive(Clone, Copy)]
enum Source {
    /// Real samples read in pairs, this many of them and zeros past them (kiss_fftr's frame,
    /// zero-padded as TFLM's RfftEval pads it).
    Padded(usize),
    /// Complex elements (kiss_fftri's packed spectrum, in the scratch).
    Complex,
}

/// What one SignalRfft or SignalIrfft kernel's parameters give the transform, whatever the type.
struct Plan<'a, T> {
    source: Source,
    /// kissfft's `inverse` flag: its radix-4 butterfly rotates by `+i` instead of `-i` (the
    /// twiddles, conjugated, come with the parameters).
    inverse: bool,
    nfft: usize,
    factors: &'a [usize],
    twiddles: &'a [T],
    super_twiddles: &'a [T],
}

/// One complex transform: where its input is and where its stages write.
struct Transform<'p, 'a, T> {
    p: &'p Plan<'a, T>,
    /// Byte offset of the input: the frame's first sample, or the first complex element.
    input: usize,
    /// Byte offset of the complex output (`nfft` elements; SignalRfft's real split adds one).
    output: usize,
}

impl<T: Scalar> Transform<'_, '_, T> {
    /// Complex element `k` of the input: for a padded frame samples `2k`, `2k + 1`, zero past
    /// its length.
    fn sample(&self, arena: &[u8], k: usize) -> Cpx<T> {
        let length = match self.p.source {
            Source::Padded(length) => length,
            Source::Complex => return Cpx::load(arena, self.input + 2 * T::BYTES * k),
        };
        let real = |n: usize| {
            if n < length {
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
            // The forward transform rotates s4 by -i, the inverse by +i.
            let (plus, minus) = (
                Cpx {
                    r: s5.r.add(s4.i),
                    i: s5.i.sub(s4.r),
                },
                Cpx {
                    r: s5.r.sub(s4.i),
                    i: s5.i.add(s4.r),
                },
            );
            let (g1, g3) = if self.p.inverse {
                (minus, plus)
            } else {
                (plus, minus)
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
            let fpnk = self.get(arena, n - k).conj().fixdiv(2);
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
    let Source::Padded(input_length) = plan.source else {
        return;
    };
    if plan.factors.len() < 2 {
        return;
    }
    for frame in 0..frames {
        let t = Transform {
            p: plan,
            input: input + T::BYTES * frame * input_length,
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
    let p = crate::kernels::opaque(p);
    let plan = Plan {
        source: Source::Padded(p.input_length),
        inverse: false,
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
    let p = crate::kernels::opaque(p);
    let plan = Plan {
        source: Source::Padded(p.input_length),
        inverse: false,
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
    let p = crate::kernels::opaque(p);
    let plan = Plan {
        source: Source::Padded(p.input_length),
        inverse: false,
        nfft: p.nfft,
        factors: p.factors,
        twiddles: p.twiddles,
        super_twiddles: p.super_twiddles,
    };
    rfft(arena, (input, output), (p.frames, p.output_length), &plan);
}

/// Constant parameters of SignalIrfft on int16.
#[derive(Clone, Copy, Debug)]
pub struct IrfftS16<'a> {
    /// The frames transformed: TFLM's `input_size / input_length`, rounded up (a last frame
    /// that starts inside the input is transformed whole).
    pub frames: usize,
    /// Complex bins from one input frame to the next (half the input's last dimension); each
    /// frame reads bins `0..=nfft`.
    pub input_length: usize,
    /// Samples from one output frame to the next (the output's last dimension); each frame
    /// writes `2 · nfft` samples, a later frame over an earlier one where they overlap.
    pub output_length: usize,
    /// The complex transform's length: half the real `fft_length`, at least 2.
    pub nfft: usize,
    /// kissfft's factorisation of `nfft`, as [`RfftS16::factors`].
    pub factors: &'a [usize],
    /// The inverse transform's twiddles, `nfft` (real, imaginary) pairs:
    /// `floor(0.5 + 32767 · cos/sin(2πi/nfft))`.
    pub twiddles: &'a [i16],
    /// The real packing's twiddles, `nfft / 2` pairs: `π((i + 1)/nfft + 1/2)` rounded alike.
    pub super_twiddles: &'a [i16],
}

/// Constant parameters of SignalIrfft on int32: [`IrfftS16`]'s, the twiddles in Q31.
#[derive(Clone, Copy, Debug)]
pub struct IrfftS32<'a> {
    /// As [`IrfftS16::frames`].
    pub frames: usize,
    /// As [`IrfftS16::input_length`].
    pub input_length: usize,
    /// As [`IrfftS16::output_length`].
    pub output_length: usize,
    /// As [`IrfftS16::nfft`].
    pub nfft: usize,
    /// As [`IrfftS16::factors`].
    pub factors: &'a [usize],
    /// The inverse transform's twiddles in Q31, (real, imaginary) pairs.
    pub twiddles: &'a [i32],
    /// The real packing's twiddles in Q31.
    pub super_twiddles: &'a [i32],
}

/// Constant parameters of SignalIrfft on float32: [`IrfftS16`]'s, the twiddles the float of the
/// double `cos`/`sin`.
#[derive(Clone, Copy, Debug)]
pub struct IrfftF32<'a> {
    /// As [`IrfftS16::frames`].
    pub frames: usize,
    /// As [`IrfftS16::input_length`].
    pub input_length: usize,
    /// As [`IrfftS16::output_length`].
    pub output_length: usize,
    /// As [`IrfftS16::nfft`].
    pub nfft: usize,
    /// As [`IrfftS16::factors`].
    pub factors: &'a [usize],
    /// The inverse transform's twiddles, (real, imaginary) pairs.
    pub twiddles: &'a [f32],
    /// The real packing's twiddles.
    pub super_twiddles: &'a [f32],
}

/// kissfft's `kiss_fftri` before its complex transform: the `nfft` complex elements whose
/// inverse transform is the real signal, from the spectrum's bins at byte `input` into the
/// scratch at byte `packed`. Reads bins `1..nfft` whole and of bins 0 and `nfft` only the real
/// parts, as kissfft does.
fn pack<T: Scalar>(arena: &mut [u8], input: usize, packed: usize, plan: &Plan<T>) {
    let n = plan.nfft;
    let bin = |arena: &[u8], k: usize| Cpx::load(arena, input + 2 * T::BYTES * k);
    let real = |arena: &[u8], k: usize| T::load(arena, input + 2 * T::BYTES * k);
    let put = |arena: &mut [u8], k: usize, x: Cpx<T>| x.store(arena, packed + 2 * T::BYTES * k);
    let (dc, nyquist) = (real(arena, 0), real(arena, n));
    let first = Cpx {
        r: dc.add(nyquist),
        i: dc.sub(nyquist),
    };
    put(arena, 0, first.fixdiv(2));
    for k in 1..=n / 2 {
        let fk = bin(arena, k).fixdiv(2);
        let fnkc = bin(arena, n - k).conj().fixdiv(2);
        let fek = fk.add(fnkc);
        let fok = fk.sub(fnkc).mul(Cpx::at(plan.super_twiddles, k - 1));
        // At k = n/2 both land on one element: the second write is the one kept, as in C.
        put(arena, k, fek.add(fok));
        put(arena, n - k, fek.sub(fok).conj());
    }
}

/// SignalIrfft of any of kissfft's types: each of `frames` spectra (`input_length` complex
/// bins apart) packed into the scratch, inverse-transformed into its `2 · nfft` samples at the
/// output (`output_length` samples apart), then unscaled as TFLM's Apply of the type does.
fn irfft<T: Scalar>(
    arena: &mut [u8],
    (input, output, scratch): (usize, usize, usize),
    (frames, input_length, output_length): (usize, usize, usize),
    plan: &Plan<T>,
) {
    if plan.factors.len() < 2 {
        return;
    }
    for frame in 0..frames {
        pack(
            arena,
            input + 2 * T::BYTES * frame * input_length,
            scratch,
            plan,
        );
        let t = Transform {
            p: plan,
            input: scratch,
            output: output + T::BYTES * frame * output_length,
        };
        t.work(arena, 0, 0, 1, 0);
        // Each frame's samples unscaled before the next frame writes (frames may overlap).
        for i in 0..2 * plan.nfft {
            let at = t.output + T::BYTES * i;
            T::load(arena, at).unscale(2 * plan.nfft).store(arena, at);
        }
    }
}

/// SignalIrfft on int16: each frame's `nfft + 1` complex bins (int16 real, imaginary pairs,
/// `input_length` bins apart) to its `2 · nfft` samples (`output_length` apart), by kissfft's
/// 16-bit fixed-point inverse real transform (each stage dividing by its radix, as the forward
/// one). Uses `4 · nfft` bytes of scratch at `scratch` for kiss_fftri's packed spectrum.
#[cfg_attr(target_os = "none", inline(never))]
pub fn irfft_s16(arena: &mut [u8], input: usize, output: usize, scratch: usize, p: &IrfftS16) {
    let p = crate::kernels::opaque(p);
    let plan = Plan {
        source: Source::Complex,
        inverse: true,
        nfft: p.nfft,
        factors: p.factors,
        twiddles: p.twiddles,
        super_twiddles: p.super_twiddles,
    };
    let shape = (p.frames, p.input_length, p.output_length);
    irfft(arena, (input, output, scratch), shape, &plan);
}

/// SignalIrfft on int32, as [`irfft_s16`] in kissfft's 32-bit fixed point (`8 · nfft` bytes of
/// scratch).
#[cfg_attr(target_os = "none", inline(never))]
pub fn irfft_s32(arena: &mut [u8], input: usize, output: usize, scratch: usize, p: &IrfftS32) {
    let p = crate::kernels::opaque(p);
    let plan = Plan {
        source: Source::Complex,
        inverse: true,
        nfft: p.nfft,
        factors: p.factors,
        twiddles: p.twiddles,
        super_twiddles: p.super_twiddles,
    };
    let shape = (p.frames, p.input_length, p.output_length);
    irfft(arena, (input, output, scratch), shape, &plan);
}

/// SignalIrfft on float32, as [`irfft_s16`] in kissfft's float arithmetic, each sample then
/// divided by `fft_length` as TFLM's IrfftFloatApply divides it (`8 · nfft` bytes of scratch).
#[cfg_attr(target_os = "none", inline(never))]
pub fn irfft_f32(arena: &mut [u8], input: usize, output: usize, scratch: usize, p: &IrfftF32) {
    let p = crate::kernels::opaque(p);
    let plan = Plan {
        source: Source::Complex,
        inverse: true,
        nfft: p.nfft,
        factors: p.factors,
        twiddles: p.twiddles,
        super_twiddles: p.super_twiddles,
    };
    let shape = (p.frames, p.input_length, p.output_length);
    irfft(arena, (input, output, scratch), shape, &plan);
}

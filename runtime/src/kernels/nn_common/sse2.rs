//! The host's int8 dot products through SSE2, which every x86-64 processor has: eight 16-bit
//! products per `pmaddwd`, summed in pairs into four 32-bit lanes. Every product is exact (8 × 8
//! bits in 16-bit lanes, a pair's sum within 2^15 + 2^14) and the lanes' sums wrap, as the portable
//! loops' do, so the bits are the same. Miri runs the portable loops instead.

use core::arch::x86_64::{
    __m128i, _mm_add_epi16, _mm_add_epi32, _mm_cvtsi128_si32, _mm_cvtsi32_si128, _mm_loadu_si128,
    _mm_madd_epi16, _mm_mullo_epi16, _mm_packs_epi16, _mm_packs_epi32, _mm_set1_epi16,
    _mm_set1_epi32, _mm_setzero_si128, _mm_shuffle_epi32, _mm_srai_epi16, _mm_srai_epi32,
    _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi8,
};

/// The low eight bytes of `v` sign-extended to 16-bit lanes (the high eight with `high`).
#[inline]
#[target_feature(enable = "sse2")]
fn widen(v: __m128i, high: bool) -> __m128i {
    // Each byte twice, then an arithmetic shift: the byte sign-extended into its 16-bit lane.
    let doubled = if high {
        _mm_unpackhi_epi8(v, v)
    } else {
        _mm_unpacklo_epi8(v, v)
    };
    _mm_srai_epi16(doubled, 8)
}

/// The sum of the four 32-bit lanes of `v` taken as pairs: `[v0 + v1, v2 + v3]`, wrapping.
#[inline]
#[target_feature(enable = "sse2")]
fn pair_sums(v: __m128i) -> [i32; 2] {
    let lanes = lanes(v);
    [
        lanes[0].wrapping_add(lanes[1]),
        lanes[2].wrapping_add(lanes[3]),
    ]
}

/// The four dot products of `x` (whole words only: `x.len()` a multiple of 4) with the interleaved
/// words of a block of four filter rows (`4 * x.len()` bytes: word `j` of rows 0, 1, 2, 3 at
/// `16 j`), as [`super::dot::dot4_interleaved_s8`] computes them.
#[inline(always)]
pub(crate) fn dot4_interleaved(x: &[u8], words: &[i8]) -> [i32; 4] {
    // SAFETY: SSE2 is part of the x86-64 baseline: every target this module compiles for has it.
    unsafe { dot4_interleaved_sse2(x, words) }
}

/// [`dot4_interleaved`], compiled with SSE2 enabled (where its intrinsics are safe to call).
#[inline]
#[target_feature(enable = "sse2")]
fn dot4_interleaved_sse2(x: &[u8], words: &[i8]) -> [i32; 4] {
    let words = &words[..4 * x.len()];
    let (mut rows01, mut rows23) = (_mm_setzero_si128(), _mm_setzero_si128());
    for (x, w) in x.chunks_exact(4).zip(words.chunks_exact(16)) {
        let word = i32::from_le_bytes([x[0], x[1], x[2], x[3]]);
        // x0..x3 in lanes 0..4 and again in 4..8, as 16-bit values, against rows 0 and 1 (the
        // low eight weight bytes), then rows 2 and 3.
        let inputs = widen(_mm_set1_epi32(word), false);
        // SAFETY: `w` is a whole 16-byte chunk (`chunks_exact(16)`), so the 16-byte read is in
        // bounds; `_mm_loadu_si128` needs no alignment.
        let weights = unsafe { _mm_loadu_si128(w.as_ptr().cast::<__m128i>()) };
        rows01 = _mm_add_epi32(rows01, _mm_madd_epi16(widen(weights, false), inputs));
        rows23 = _mm_add_epi32(rows23, _mm_madd_epi16(widen(weights, true), inputs));
    }
    let ([a0, a1], [a2, a3]) = (pair_sums(rows01), pair_sums(rows23));
    [a0, a1, a2, a3]
}

/// Four channel sums `Σ w[c] * (x[c] + offset)` kept in one register, for the taps of a depthwise
/// window ([`super::dot::window_run_s8`]). Each product is exact in 16 bits (`|w| <= 128`,
/// `|x + offset| <= 255`), then widened and added in 32-bit lanes.
#[derive(Clone, Copy)]
pub(crate) struct Mac4 {
    sums: __m128i,
    offset: __m128i,
}

impl Mac4 {
    /// Zero sums, for inputs offset by `offset` (in `-127..=128`).
    #[inline(always)]
    pub(crate) fn new(offset: i32) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline: every target this module compiles for has it.
        unsafe { Self::new_sse2(offset) }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn new_sse2(offset: i32) -> Self {
        Mac4 {
            sums: _mm_setzero_si128(),
            offset: _mm_set1_epi16(offset as i16),
        }
    }

    /// The sums plus one tap's four products.
    #[inline(always)]
    pub(crate) fn mac(self, w: [i8; 4], x: [u8; 4]) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline: every target this module compiles for has it.
        unsafe { self.mac_sse2(w, x) }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn mac_sse2(self, w: [i8; 4], x: [u8; 4]) -> Self {
        let x = _mm_add_epi16(
            widen(_mm_cvtsi32_si128(i32::from_le_bytes(x)), false),
            self.offset,
        );
        let w = widen(
            _mm_cvtsi32_si128(i32::from_le_bytes(w.map(|b| b as u8))),
            false,
        );
        let products = _mm_mullo_epi16(x, w);
        // Each 16-bit product sign-extended into a 32-bit lane.
        let wide = _mm_srai_epi32(_mm_unpacklo_epi16(products, products), 16);
        Mac4 {
            sums: _mm_add_epi32(self.sums, wide),
            offset: self.offset,
        }
    }

    /// The four sums.
    #[inline(always)]
    pub(crate) fn sums(self) -> [i32; 4] {
        // SAFETY: baseline SSE2, as in `mac`.
        unsafe { lanes(self.sums) }
    }
}

/// The four 32-bit lanes of `v`.
#[inline]
#[target_feature(enable = "sse2")]
fn lanes(v: __m128i) -> [i32; 4] {
    [
        _mm_cvtsi128_si32(v),
        _mm_cvtsi128_si32(_mm_shuffle_epi32(v, 0b01)),
        _mm_cvtsi128_si32(_mm_shuffle_epi32(v, 0b10)),
        _mm_cvtsi128_si32(_mm_shuffle_epi32(v, 0b11)),
    ]
}

/// `v` saturated to `-128..=127` by two saturating packs: no branch, where a plain clamp compiles
/// to branches that mispredict on requantized outputs (often clamped: activations fold into the
/// output range).
#[inline(always)]
pub(crate) fn saturate_i8(v: i32) -> i8 {
    // SAFETY: SSE2 is part of the x86-64 baseline: every target this module compiles for has it.
    unsafe { saturate_i8_sse2(v) }
}

#[inline]
#[target_feature(enable = "sse2")]
fn saturate_i8_sse2(v: i32) -> i8 {
    let v = _mm_cvtsi32_si128(v);
    let narrow = _mm_packs_epi16(_mm_packs_epi32(v, v), v);
    _mm_cvtsi128_si32(narrow) as i8
}

//! Which taps of a convolution or pooling window fall inside the image: TFLM skips the others, which
//! for convolutions equals padding with the input zero point.

/// The taps `start..end` of a window of `filter` taps, `dilation` apart, whose first tap sits at input
/// coordinate `out * stride - pad`, that land inside `0..input`; and that first tap's coordinate.
#[inline(always)]
pub(crate) fn taps(
    out: usize,
    stride: usize,
    pad: usize,
    dilation: usize,
    filter: usize,
    input: usize,
) -> (usize, usize, isize) {
    let origin = (out * stride) as isize - pad as isize;
    let d = dilation as isize;
    // First tap k with origin + k * d >= 0.
    let start = if origin < 0 {
        ((-origin + d - 1) / d) as usize
    } else {
        0
    };
    // First tap k with origin + k * d >= input.
    let room = input as isize - origin;
    let end = if room <= 0 {
        0
    } else {
        ((room + d - 1) / d) as usize
    };
    let end = end.min(filter);
    (start, end.max(start), origin)
}

/// The input coordinate of the first tap of the run `k0..k1` that [`taps`] returned, for a run
/// read as one slice: 0 when the run is empty (a window wholly outside the image along this axis,
/// an output past the extent the padding gives, which TFLM computes all the same: `k0` then has
/// no coordinate in the image, and nothing is read).
#[inline(always)]
pub(crate) fn run_start(origin: isize, k0: usize, k1: usize, dilation: usize) -> usize {
    if k0 < k1 {
        coord(origin, k0, dilation)
    } else {
        0
    }
}

/// The input coordinate of tap `k` (only call for taps in the range [`taps`] returned).
#[inline(always)]
pub(crate) fn coord(origin: isize, k: usize, dilation: usize) -> usize {
    (origin + (k * dilation) as isize) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clips_at_both_borders() {
        // 3 taps, pad 1, input 4: output 0 starts at -1, so tap 0 is outside.
        assert_eq!(taps(0, 1, 1, 1, 3, 4), (1, 3, -1));
        assert_eq!(taps(3, 1, 1, 1, 3, 4), (0, 2, 2));
        assert_eq!(taps(1, 1, 1, 1, 3, 4), (0, 3, 0));
    }

    #[test]
    fn dilation_skips_taps() {
        // Taps at -2, 0, 2 over input 3: only taps 1 and 2.
        assert_eq!(taps(0, 1, 2, 2, 3, 3), (1, 3, -2));
        // Taps at 1, 3, 5 over input 3: only tap 0.
        assert_eq!(taps(1, 1, 0, 2, 3, 3), (0, 1, 1));
        assert_eq!(coord(-2, 2, 2), 2);
    }
}

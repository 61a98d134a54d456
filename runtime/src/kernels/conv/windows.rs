//! The windows of the gathering int8 kernels ([`super::im2col`]): where a pixel's window lies
//! in the image, its gathering into a contiguous run and its widening to 16 bits, and the stream
//! geometry of the streaming paths.

use super::Conv2dIm2colS8;
use crate::kernels::nn_common::views;
use crate::kernels::nn_common::wide::{widen_into, Widened};
use crate::kernels::nn_common::window::{coord, run_start, taps};

/// The stream geometry ([`views::Stream`]) of a [`Conv2dIm2colS8`] convolution.
pub(super) fn stream_of(p: &Conv2dIm2colS8) -> views::Stream {
    views::Stream {
        batches: p.batches,
        input_h: p.input_h,
        input_w: p.input_w,
        input_c: p.input_c,
        output_h: p.output_h,
        output_w: p.output_w,
        output_c: p.output_c,
        stride_h: p.stride_h,
        stride_w: p.stride_w,
        pad_top: p.pad_top,
        pad_left: p.pad_left,
        window_h: (p.filter_h - 1) * p.dilation_h + 1,
        window_w: (p.filter_w - 1) * p.dilation_w + 1,
        pointwise: false,
    }
}

/// Where output pixel `q` (counted over batches, rows and columns) reads: its batch's image
/// offset (in the input, or in a view of it: wrapping when before the view) and its window's
/// in-image taps, `(image, (ky0, ky1, y0), (kx0, kx1, x0))` as [`taps`] gives them.
pub(super) type Window = (usize, (usize, usize, isize), (usize, usize, isize));

/// The [`Window`] of output pixel `q`; `plane` is `output_h * output_w`.
pub(super) fn window_of(p: &Conv2dIm2colS8, plane: usize, q: usize) -> Window {
    let (b, oy, ox) = (q / plane, q % plane / p.output_w, q % p.output_w);
    let image = b * p.input_h * p.input_w * p.input_c;
    let ys = taps(
        oy,
        p.stride_h,
        p.pad_top,
        p.dilation_h,
        p.filter_h,
        p.input_h,
    );
    let xs = taps(
        ox,
        p.stride_w,
        p.pad_left,
        p.dilation_w,
        p.filter_w,
        p.input_w,
    );
    (image, ys, xs)
}

/// Widens bytes `k0..k1` (multiples of four, at most `N` apart) of two pixels'
/// im2col windows: the taps in `(filter y, filter x)` order, each its `input_c` channels (whole
/// words), the taps outside the image as the input zero point; one run of words per tap.
pub(super) fn widen_windows<const N: usize>(
    inp: &[u8],
    p: &Conv2dIm2colS8,
    windows: &[Window; 2],
    k0: usize,
    k1: usize,
    wide: &mut Widened<N>,
) {
    let c = p.input_c;
    let zero = u32::from_ne_bytes([p.input_zero_point as i8 as u8; 4]);
    // When both windows have every column in the image and none is dilated, a filter row's taps
    // are one run of the image: widened a row at a time rather than a tap at a time.
    let whole_rows = p.dilation_w == 1
        && windows
            .iter()
            .all(|&(_, _, (kx0, kx1, _))| kx0 == 0 && kx1 == p.filter_w);
    let unit = if whole_rows { p.filter_w * c } else { c };
    // A unit's bytes `j..j + n` in a window's image, or None outside the image.
    let source = |&(image, (ky0, ky1, y0), (kx0, kx1, x0)): &Window, u: usize, j: usize, n| {
        let (ky, kx) = if whole_rows {
            (u, 0)
        } else {
            (u / p.filter_w, u % p.filter_w)
        };
        ((ky0..ky1).contains(&ky) && (kx0..kx1).contains(&kx)).then(|| {
            let (y, x) = (coord(y0, ky, p.dilation_h), coord(x0, kx, p.dilation_w));
            &inp[image.wrapping_add((y * p.input_w + x) * c + j)..][..n]
        })
    };
    let mut dst = wide.words_mut(k1 - k0);
    let mut k = k0;
    while k < k1 {
        let (u, j) = (k / unit, k % unit);
        let n = (unit - j).min(k1 - k);
        let (run, rest) = dst.split_at_mut(n);
        let (a, b) = (source(&windows[0], u, j, n), source(&windows[1], u, j, n));
        widen_into(run, a, b, zero);
        dst = rest;
        k += n;
    }
}

/// Gathers the im2col window of one output pixel of a [`Conv2dIm2colS8`] convolution from its
/// batch's image, which starts at `origin` in `image` (wrapping: `image` may be a view of the
/// input that starts after the image's first byte; only the window's in-image taps, which lie in
/// the view, are indexed), into `window` (at least the window's length): the taps in
/// `(filter y, filter x)` order, each its `input_c` channels, and where the in-image taps
/// `(ky0, ky1, y0)`, `(kx0, kx1, x0)` (as [`taps`] gives them) leave some out, the whole buffer
/// first filled with the input zero point.
#[inline(always)]
pub(super) fn gather_window(
    image: &[u8],
    origin: usize,
    p: &Conv2dIm2colS8,
    ((ky0, ky1, y0), (kx0, kx1, x0)): ((usize, usize, isize), (usize, usize, isize)),
    window: &mut [u8],
) {
    let c = p.input_c;
    let row = p.filter_w * c;
    if ky1 - ky0 < p.filter_h || kx1 - kx0 < p.filter_w {
        window.fill(p.input_zero_point as i8 as u8);
    }
    if p.dilation_w == 1 && kx0 < kx1 {
        // Each in-image row's taps are one run of the image: a short copy per row, both
        // positions stepped rather than recomputed.
        let n = (kx1 - kx0) * c;
        let step = p.dilation_h * p.input_w * c;
        let first = (run_start(y0, ky0, ky1, p.dilation_h) * p.input_w + coord(x0, kx0, 1)) * c;
        let mut from = origin.wrapping_add(first);
        let mut to = ky0 * row + kx0 * c;
        for _ in ky0..ky1 {
            copy_short(&mut window[to..to + n], &image[from..from + n]);
            from += step;
            to += row;
        }
    } else {
        for ky in ky0..ky1 {
            let y = coord(y0, ky, p.dilation_h);
            // Tap by tap: a row's first byte may lie before a view's start.
            let image_row = origin.wrapping_add(y * p.input_w * c);
            let window_row = &mut window[ky * row..][..row];
            for kx in kx0..kx1 {
                let x = image_row.wrapping_add(coord(x0, kx, p.dilation_w) * c);
                copy_short(&mut window_row[kx * c..][..c], &image[x..][..c]);
            }
        }
    }
}

/// `dst.copy_from_slice(src)` (equally long), with the short lengths of one-channel windows'
/// rows (1 to 8 bytes) as inline loads and stores rather than a call of `memcpy`, which costs more
/// than such a copy.
#[inline(always)]
pub(super) fn copy_short(dst: &mut [u8], src: &[u8]) {
    match dst.len() {
        1 => dst.copy_from_slice(&src[..1]),
        2 => dst.copy_from_slice(&src[..2]),
        3 => dst.copy_from_slice(&src[..3]),
        4 => dst.copy_from_slice(&src[..4]),
        5 => dst.copy_from_slice(&src[..5]),
        6 => dst.copy_from_slice(&src[..6]),
        7 => dst.copy_from_slice(&src[..7]),
        8 => dst.copy_from_slice(&src[..8]),
        // Helium: longer rows by vectors (a `memcpy` call costs several times the copy).
        #[cfg(tinyaot_mve)]
        _ => crate::kernels::nn_common::copy_bytes(dst, src),
        #[cfg(not(tinyaot_mve))]
        _ => dst.copy_from_slice(src),
    }
}

//! The streaming kernels (the int8 1×1, im2col and depthwise convolutions) under the stream
//! contract (see [`Stream`]): random small shapes, each run with its input and output disjoint and
//! again with the output at the lowest offset below the input that the contract allows (and, for
//! the reversible 1×1 and depthwise kernels, the lowest offset above it), the outputs compared
//! byte for byte; and an overlap one byte tighter, refused.

extern crate std;

use super::super::conv::{
    conv2d_1x1_s8, conv2d_1x1_widened_s8, conv2d_im2col_gather_pairs_s8, conv2d_im2col_pairs_s8,
    conv2d_im2col_s8, Conv1x1S8, Conv2dIm2colS8,
};
use super::super::depthwise::{depthwise_conv2d_s8, DepthwiseConv2dS8};
use super::dot::tests::interleave_rows4;
use super::views::Stream;
use std::{vec, vec::Vec};

/// Random shapes per kernel: few under Miri, which interprets every byte access.
const CASES: usize = if cfg!(miri) { 3 } else { 150 };

/// A seeded SplitMix64 generator: the same cases on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }

    fn size(&mut self, lo: usize, hi: usize) -> usize {
        self.range(lo as i64, hi as i64) as usize
    }

    fn pick(&mut self, options: &[usize]) -> usize {
        options[self.size(0, options.len() - 1)]
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    fn weights(&mut self, n: usize) -> Vec<i8> {
        (0..n).map(|_| self.next() as i8).collect()
    }

    /// Per-channel biases, Q31 multipliers and right shifts that keep most outputs unsaturated.
    fn requantization(&mut self, m: usize) -> (Vec<i32>, Vec<i32>, Vec<i8>) {
        let bias = (0..m).map(|_| self.range(-3000, 3000) as i32).collect();
        let multipliers = (0..m)
            .map(|_| self.range(1 << 30, i32::MAX as i64) as i32)
            .collect();
        let shifts = (0..m).map(|_| self.range(-9, -5) as i8).collect();
        (bias, multipliers, shifts)
    }
}

/// The contract's lowest input byte of output pixel `q`'s window, spelled out from its statement
/// (not through [`Stream::min_read`], which it checks).
fn min_read(s: &Stream, q: usize) -> usize {
    let (b, y, x) = (
        q / (s.output_h * s.output_w),
        q / s.output_w % s.output_h,
        q % s.output_w,
    );
    let row = (y * s.stride_h).max(s.pad_top) - s.pad_top;
    let column = (x * s.stride_w).max(s.pad_left) - s.pad_left;
    ((b * s.input_h + row) * s.input_w + column) * s.input_c
}

/// The smallest `D >= 0` such that the output at `input - D` meets the contract for groups of `g`
/// pixels: each group's output bytes miss the input bytes from the group's lowest read on. That
/// read is its first pixel's `min_read` (the contract) when `first_pixel_only`, else the lowest of
/// its pixels' (what the paired kernels read when a group's second pixel starts a row whose window
/// starts on the same input row as the first's, see the conv module docs).
fn lowest_overlap(s: &Stream, g: usize, first_pixel_only: bool) -> usize {
    let in_len = s.batches * s.input_h * s.input_w * s.input_c;
    let pixels = s.pixels();
    assert_eq!(s.min_read(pixels - 1), min_read(s, pixels - 1));
    let groups: Vec<(usize, usize, usize)> = (0..pixels)
        .step_by(g)
        .map(|p0| {
            let p1 = (p0 + g).min(pixels);
            let from = if first_pixel_only {
                min_read(s, p0)
            } else {
                (p0..p1).map(|q| min_read(s, q)).min().unwrap()
            };
            (p0, p1, from.min(in_len))
        })
        .collect();
    // Output group bytes [p0 * so - D, p1 * so - D) against input bytes [from, in_len).
    let so = s.output_c;
    (0..)
        .find(|&d| {
            groups.iter().all(|&(p0, p1, from)| {
                p1 * so <= from + d || p0 * so >= in_len + d || from == in_len
            })
        })
        .unwrap()
}

/// Where the output goes against its input: `d` bytes below it (a forward stream) or above it
/// (a reversible kernel's reverse stream).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    Below,
    Above,
}

/// Runs `kernel(arena, input, output)` on `input` with the operands disjoint, then with the output
/// `d` bytes to `side` of the input, and returns both outputs of `out_len` bytes. Guard bytes past
/// both ends catch any overrun.
fn run_both(
    input: &[u8],
    out_len: usize,
    (d, side): (usize, Side),
    kernel: &dyn Fn(&mut [u8], usize, usize),
) -> (Vec<u8>, Vec<u8>) {
    let in_len = input.len();
    let mut arena = vec![0xA5u8; in_len + out_len];
    arena[..in_len].copy_from_slice(input);
    kernel(&mut arena, 0, in_len);
    let disjoint = arena[in_len..].to_vec();
    let guard = 3;
    let (at_in, at_out) = match side {
        Side::Below => (guard + d, guard),
        Side::Above => (guard, guard + d),
    };
    let end = (at_in + in_len).max(at_out + out_len);
    let mut arena = vec![0xA5u8; end + guard];
    arena[at_in..at_in + in_len].copy_from_slice(input);
    kernel(&mut arena, at_in, at_out);
    let overlapped = arena[at_out..at_out + out_len].to_vec();
    assert!(arena[..guard].iter().all(|&v| v == 0xA5), "write below");
    assert!(arena[end..].iter().all(|&v| v == 0xA5), "write above");
    (disjoint, overlapped)
}

/// Checks one case: the outputs agree at the lowest overlap the contract allows on `side` (found
/// below with the lowest read of each group's pixels, see [`lowest_overlap`]; above with
/// [`lowest_overlap_above`]); returns whether they overlapped.
fn check(
    s: &Stream,
    g: usize,
    input: &[u8],
    kernel: &dyn Fn(&mut [u8], usize, usize),
    (what, side): (&str, Side),
) -> bool {
    let out_len = s.pixels() * s.output_c;
    let d = match side {
        Side::Below => lowest_overlap(s, g, false),
        Side::Above => lowest_overlap_above(s, g),
    };
    let (disjoint, overlapped) = run_both(input, out_len, (d, side), kernel);
    assert_eq!(disjoint, overlapped, "{what} {side:?}: {s:?}, D = {d}");
    d < match side {
        Side::Below => out_len,
        Side::Above => input.len(),
    }
}

/// The contract's one-past-highest input byte of output pixel `q`'s window, spelled out from its
/// statement (not through [`Stream::max_read`], which it checks).
fn max_read(s: &Stream, q: usize) -> usize {
    let (b, y, x) = (
        q / (s.output_h * s.output_w),
        q / s.output_w % s.output_h,
        q % s.output_w,
    );
    let far = |at: usize, span: usize, pad: usize, len: usize| {
        let end = at + span - 1;
        (end.max(pad) - pad).min(len - 1)
    };
    let row = far(y * s.stride_h, s.window_h, s.pad_top, s.input_h);
    let column = far(x * s.stride_w, s.window_w, s.pad_left, s.input_w);
    ((b * s.input_h + row) * s.input_w + column + 1) * s.input_c
}

/// The smallest `D >= 0` such that the output at `input + D` meets the reverse contract for
/// groups of `g` pixels (taken last to first): each group's output bytes miss the input bytes
/// below the highest read of its pixels and every earlier pixel.
fn lowest_overlap_above(s: &Stream, g: usize) -> usize {
    let pixels = s.pixels();
    assert_eq!(s.max_read(pixels - 1), max_read(s, pixels - 1));
    let mut highest = 0;
    let groups: Vec<(usize, usize)> = (0..pixels)
        .step_by(g)
        .map(|p0| {
            let p1 = (p0 + g).min(pixels);
            highest = (p0..p1).map(|q| max_read(s, q)).fold(highest, usize::max);
            (p0, highest)
        })
        .collect();
    // Output group bytes from D + p0 * so on against input bytes [0, highest).
    groups
        .iter()
        .map(|&(p0, highest)| highest.saturating_sub(p0 * s.output_c))
        .max()
        .unwrap()
}

/// A random 1×1 convolution: `(stream, input, parameters' owned data)`.
struct OneByOne {
    pixels: usize,
    n: usize,
    m: usize,
    filter: Vec<i8>,
    bias: Vec<i32>,
    multipliers: Vec<i32>,
    shifts: Vec<i8>,
    zero_point: i32,
}

impl OneByOne {
    fn new(rng: &mut Rng, whole_words: bool) -> Self {
        let pixels = rng.size(1, 9);
        let (n, m) = if whole_words {
            (rng.pick(&[4, 8, 12, 16]), rng.pick(&[4, 8, 12]))
        } else {
            (rng.size(1, 12), rng.size(1, 12))
        };
        let (bias, multipliers, shifts) = rng.requantization(m);
        OneByOne {
            pixels,
            n,
            m,
            filter: interleave_rows4(&rng.weights(m * n), n),
            bias,
            multipliers,
            shifts,
            zero_point: rng.range(-20, 20) as i32,
        }
    }

    fn params(&self) -> Conv1x1S8<'_> {
        Conv1x1S8 {
            pixels: self.pixels,
            input_c: self.n,
            output_c: self.m,
            output_zero_point: self.zero_point,
            filter: &self.filter,
            folded_bias: &self.bias,
            multipliers: &self.multipliers,
            shifts: &self.shifts,
            act_min: -120,
            act_max: 110,
            narrow_requant: false,
        }
    }

    fn stream(&self) -> Stream {
        Stream::one_row(self.pixels, self.n, self.m)
    }
}

#[test]
fn one_by_one_kernels_give_the_same_bytes_at_the_lowest_overlap() {
    let mut rng = Rng(17);
    let (mut overlapped, mut above) = (0, 0);
    for case in 0..CASES {
        let whole_words = case % 2 == 1;
        let c = OneByOne::new(&mut rng, whole_words);
        let input = rng.bytes(c.pixels * c.n);
        let p = c.params();
        let s = c.stream();
        // A pixel's reads start after the previous pixel's: the contract's bound is the group's.
        assert_eq!(lowest_overlap(&s, 2, true), lowest_overlap(&s, 2, false));
        let one = |a: &mut [u8], i, o| conv2d_1x1_s8(a, i, o, &p);
        overlapped += usize::from(check(&s, 2, &input, &one, ("conv2d_1x1_s8", Side::Below)));
        above += usize::from(check(&s, 2, &input, &one, ("conv2d_1x1_s8", Side::Above)));
        if whole_words {
            let widened = |a: &mut [u8], i, o| conv2d_1x1_widened_s8(a, i, o, &p);
            check(
                &s,
                2,
                &input,
                &widened,
                ("conv2d_1x1_widened_s8", Side::Below),
            );
        }
    }
    // Most cases overlap: an output no larger than the input starts inside it.
    assert!(overlapped * 2 > CASES, "{overlapped} of {CASES}");
    assert!(above * 2 > CASES, "{above} of {CASES} above");
}

/// Which im2col kernel a random case is for.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Im2col {
    OnePixel,
    Pairs,
    GatherPairs,
}

/// A random im2col convolution's owned data and shape.
struct Gathering {
    shape: Conv2dIm2colS8<'static>,
    filter: Vec<i8>,
    bias: Vec<i32>,
    multipliers: Vec<i32>,
    shifts: Vec<i8>,
}

/// The output size of `input` positions under a window of `filter` taps `dilation` apart, `stride`
/// and `pad_before` / `pad_after`, or None when no window fits.
fn output_size(
    input: usize,
    filter: usize,
    dilation: usize,
    stride: usize,
    pads: (usize, usize),
) -> Option<usize> {
    let span = (filter - 1) * dilation + 1;
    let padded = input + pads.0 + pads.1;
    (padded >= span).then(|| (padded - span) / stride + 1)
}

/// A random window geometry: `(input, filter, stride, dilation, pad before, output)` for one axis.
fn axis(rng: &mut Rng, max_filter: usize) -> (usize, usize, usize, usize, usize, usize) {
    loop {
        let input = rng.size(1, 9);
        let filter = rng.size(1, max_filter);
        let stride = rng.size(1, 2);
        let dilation = rng.size(1, 2);
        let span = (filter - 1) * dilation;
        let pads = (rng.size(0, span), rng.size(0, span));
        if let Some(output) = output_size(input, filter, dilation, stride, pads) {
            return (input, filter, stride, dilation, pads.0, output);
        }
    }
}

impl Gathering {
    fn new(rng: &mut Rng, kind: Im2col) -> Self {
        let (c, m) = match kind {
            Im2col::OnePixel => (rng.size(1, 12), rng.size(1, 12)),
            Im2col::Pairs => (rng.pick(&[4, 8, 12]), rng.pick(&[4, 8, 12])),
            Im2col::GatherPairs => (rng.pick(&[1, 2, 3, 5, 6, 7]), rng.pick(&[4, 8])),
        };
        let (ih, fh, sh, dh, pt, oh) = axis(rng, 3);
        let (iw, fw, sw, dw, pl, ow) = axis(rng, 3);
        let k = fh * fw * c;
        // The gathering kernels' rows are whole words (zero weights after the window).
        let row = if kind == Im2col::GatherPairs {
            k.next_multiple_of(4)
        } else {
            k
        };
        let rows: Vec<i8> = rng
            .weights(m * k)
            .chunks_exact(k)
            .flat_map(|r| r.iter().copied().chain(core::iter::repeat_n(0, row - k)))
            .collect();
        let (bias, multipliers, shifts) = rng.requantization(m);
        Gathering {
            shape: Conv2dIm2colS8 {
                batches: rng.size(1, 2),
                input_h: ih,
                input_w: iw,
                input_c: c,
                output_h: oh,
                output_w: ow,
                output_c: m,
                filter_h: fh,
                filter_w: fw,
                stride_h: sh,
                stride_w: sw,
                dilation_h: dh,
                dilation_w: dw,
                pad_top: pt,
                pad_left: pl,
                input_zero_point: rng.range(-128, 127) as i32,
                output_zero_point: rng.range(-20, 20) as i32,
                filter: &[],
                folded_bias: &[],
                multipliers: &[],
                shifts: &[],
                act_min: -128,
                act_max: 127,
                narrow_requant: false,
            },
            filter: interleave_rows4(&rows, row),
            bias,
            multipliers,
            shifts,
        }
    }

    fn params(&self) -> Conv2dIm2colS8<'_> {
        Conv2dIm2colS8 {
            filter: &self.filter,
            folded_bias: &self.bias,
            multipliers: &self.multipliers,
            shifts: &self.shifts,
            ..self.shape
        }
    }
}

/// The stream geometry of an im2col convolution.
fn conv_stream(p: &Conv2dIm2colS8) -> Stream {
    Stream {
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

#[test]
fn im2col_kernels_give_the_same_bytes_at_the_lowest_overlap() {
    let mut rng = Rng(23);
    for kind in [Im2col::OnePixel, Im2col::Pairs, Im2col::GatherPairs] {
        let mut overlapped = 0;
        for _ in 0..CASES {
            let c = Gathering::new(&mut rng, kind);
            let p = c.params();
            let s = conv_stream(&p);
            let input = rng.bytes(p.batches * p.input_h * p.input_w * p.input_c);
            let kernel = |a: &mut [u8], i, o| match kind {
                Im2col::OnePixel => conv2d_im2col_s8(a, i, o, &p),
                Im2col::Pairs => conv2d_im2col_pairs_s8(a, i, o, &p),
                Im2col::GatherPairs => conv2d_im2col_gather_pairs_s8(a, i, o, &p),
            };
            let what = std::format!("{kind:?}");
            overlapped += usize::from(check(&s, 2, &input, &kernel, (&what, Side::Below)));
        }
        assert!(overlapped * 3 > CASES, "{kind:?}: {overlapped} of {CASES}");
    }
}

/// A random depthwise convolution's owned data and shape.
struct Depthwise {
    shape: DepthwiseConv2dS8<'static>,
    filter: Vec<i8>,
    bias: Option<Vec<i32>>,
    multipliers: Vec<i32>,
    shifts: Vec<i8>,
}

impl Depthwise {
    fn new(rng: &mut Rng) -> Self {
        let c = rng.size(1, 12);
        let dm = rng.pick(&[1, 1, 2, 3]);
        let m = c * dm;
        // Up to 5×5: 3×3 without dilation and windows wholly inside take their own runs.
        let (ih, fh, sh, dh, pt, oh) = axis(rng, 5);
        let (iw, fw, sw, dw, pl, ow) = axis(rng, 5);
        let (bias, multipliers, shifts) = rng.requantization(m);
        Depthwise {
            shape: DepthwiseConv2dS8 {
                batches: rng.size(1, 2),
                input_h: ih,
                input_w: iw,
                input_c: c,
                output_h: oh,
                output_w: ow,
                output_c: m,
                filter_h: fh,
                filter_w: fw,
                depth_multiplier: dm,
                stride_h: sh,
                stride_w: sw,
                dilation_h: dh,
                dilation_w: dw,
                pad_top: pt,
                pad_left: pl,
                input_zero_point: rng.range(-128, 127) as i32,
                output_zero_point: rng.range(-20, 20) as i32,
                filter: &[],
                bias: None,
                multipliers: &[],
                shifts: &[],
                act_min: -128,
                act_max: 127,
                narrow_requant: false,
            },
            filter: rng.weights(fh * fw * m),
            bias: (!rng.next().is_multiple_of(4)).then_some(bias),
            multipliers,
            shifts,
        }
    }

    fn params(&self) -> DepthwiseConv2dS8<'_> {
        DepthwiseConv2dS8 {
            filter: &self.filter,
            bias: self.bias.as_deref(),
            multipliers: &self.multipliers,
            shifts: &self.shifts,
            ..self.shape
        }
    }
}

/// The stream geometry of a depthwise convolution.
fn depthwise_stream(p: &DepthwiseConv2dS8) -> Stream {
    Stream {
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

#[test]
fn depthwise_gives_the_same_bytes_at_the_lowest_overlap() {
    let mut rng = Rng(29);
    let (mut overlapped, mut above) = (0, 0);
    for _ in 0..CASES {
        let c = Depthwise::new(&mut rng);
        let p = c.params();
        let s = depthwise_stream(&p);
        // Groups of one pixel: the contract's lowest read is the group's.
        assert_eq!(lowest_overlap(&s, 1, true), lowest_overlap(&s, 1, false));
        let input = rng.bytes(p.batches * p.input_h * p.input_w * p.input_c);
        let kernel = |a: &mut [u8], i, o| depthwise_conv2d_s8(a, i, o, &p);
        overlapped += usize::from(check(
            &s,
            1,
            &input,
            &kernel,
            ("depthwise_conv2d_s8", Side::Below),
        ));
        above += usize::from(check(
            &s,
            1,
            &input,
            &kernel,
            ("depthwise_conv2d_s8", Side::Above),
        ));
    }
    assert!(overlapped * 3 > CASES, "{overlapped} of {CASES}");
    assert!(above * 3 > CASES, "{above} of {CASES} above");
}

/// A fixed 1×1 case (5 pixels, 8 channels in, 4 out) run with the output `d` bytes to `side` of
/// the input, against the disjoint run.
fn tight_one_by_one(d: usize, side: Side) {
    let mut rng = Rng(5);
    let mut c = OneByOne::new(&mut rng, true);
    (c.pixels, c.n, c.m) = (5, 8, 4);
    c.filter = interleave_rows4(&rng.weights(4 * 8), 8);
    c.bias.resize(4, 0);
    c.multipliers.resize(4, 1 << 30);
    c.shifts.resize(4, -6);
    let p = c.params();
    let input = rng.bytes(5 * 8);
    let kernel = |a: &mut [u8], i, o| conv2d_1x1_s8(a, i, o, &p);
    let (disjoint, overlapped) = run_both(&input, 20, (d, side), &kernel);
    assert_eq!(disjoint, overlapped);
}

#[test]
fn one_by_one_runs_at_its_lowest_overlap() {
    // Groups of two pixels: group k's 8 output bytes end at 8 (k + 1) - D, its reads start at
    // 16 k, so D >= 8 (group 0); the last group (one pixel) needs 4 * 5 - 32 = -12.
    assert_eq!(lowest_overlap(&Stream::one_row(5, 8, 4), 2, true), 8);
    tight_one_by_one(8, Side::Below);
}

#[test]
#[should_panic(expected = "kernel input and output overlap")]
fn one_by_one_refuses_an_overlap_one_byte_tighter() {
    tight_one_by_one(7, Side::Below);
}

#[test]
fn one_by_one_runs_at_its_lowest_overlap_above() {
    // Groups 0..2, 2..4, 4..5 from the last: group k's output starts at D + 8 k, and the input
    // bytes up to its end, 16 (k + 1) (40 for the last), are still to be read: D >= 24.
    assert_eq!(lowest_overlap_above(&Stream::one_row(5, 8, 4), 2), 24);
    tight_one_by_one(24, Side::Above);
}

#[test]
#[should_panic(expected = "kernel input and output overlap")]
fn one_by_one_refuses_an_overlap_above_one_byte_tighter() {
    tight_one_by_one(23, Side::Above);
}

/// A fixed depthwise case (3×3 SAME, 4×4×2 in and out) run with the output `d` bytes to `side`
/// of the input, against the disjoint run: its lowest overlap on that side.
fn tight_depthwise(d: usize, side: Side) -> usize {
    let filter: Vec<i8> = (0..18).map(|i| i as i8 - 9).collect();
    let (multipliers, shifts) = ([1 << 30; 2], [-3i8; 2]);
    let p = DepthwiseConv2dS8 {
        batches: 1,
        input_h: 4,
        input_w: 4,
        input_c: 2,
        output_h: 4,
        output_w: 4,
        output_c: 2,
        filter_h: 3,
        filter_w: 3,
        depth_multiplier: 1,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        pad_top: 1,
        pad_left: 1,
        input_zero_point: 3,
        output_zero_point: 0,
        filter: &filter,
        bias: None,
        multipliers: &multipliers,
        shifts: &shifts,
        act_min: -128,
        act_max: 127,
        narrow_requant: false,
    };
    let input: Vec<u8> = (0..32).map(|i| (i * 7) as u8).collect();
    let kernel = |a: &mut [u8], i, o| depthwise_conv2d_s8(a, i, o, &p);
    let (disjoint, overlapped) = run_both(&input, 32, (d, side), &kernel);
    assert_eq!(disjoint, overlapped);
    match side {
        Side::Below => lowest_overlap(&depthwise_stream(&p), 1, true),
        Side::Above => lowest_overlap_above(&depthwise_stream(&p), 1),
    }
}

#[test]
fn depthwise_runs_at_its_lowest_overlap_above() {
    // Pixel (y, x) reads up to row y + 1 and column x + 1 (each at most 3): pixel (0, 0) reads
    // up to byte 2 (4 + 1 + 1), so its output, written last, must start there.
    assert_eq!(tight_depthwise(12, Side::Above), 12);
}

#[test]
#[should_panic(expected = "kernel input and output overlap")]
fn depthwise_refuses_an_overlap_above_one_byte_tighter() {
    tight_depthwise(11, Side::Above);
}

#[test]
fn depthwise_runs_at_its_lowest_overlap() {
    // Pixel (y, x) reads from row y - 1 and column x - 1 (each at least 0): pixel (1, 1) reads
    // from byte 0, so the output must end at the input's start by then: 2 (4 + 1 + 1) bytes.
    assert_eq!(tight_depthwise(12, Side::Below), 12);
}

#[test]
#[should_panic(expected = "kernel input and output overlap")]
fn depthwise_refuses_an_overlap_one_byte_tighter() {
    tight_depthwise(11, Side::Below);
}

/// The case where a paired kernel reads below its group's first pixel's window: pixels (0, 2) and
/// (1, 0) of a 2×3 output share a group, and with a row of top padding both rows' windows start
/// on input row 0, pixel (1, 0)'s at column 0, below pixel (0, 2)'s. The contract as stated
/// (first pixel only) would allow the output 2 bytes lower than this kernel's lowest read needs;
/// the kernel then refuses (its views split at the group's lowest read) rather than read bytes
/// it may have overwritten.
fn straddling_group(first_pixel_only: bool) {
    let mut rng = Rng(3);
    let mut c = Gathering::new(&mut rng, Im2col::OnePixel);
    c.shape = Conv2dIm2colS8 {
        batches: 1,
        input_h: 2,
        input_w: 3,
        input_c: 8,
        output_h: 2,
        output_w: 3,
        output_c: 1,
        filter_h: 2,
        filter_w: 2,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        pad_top: 1,
        pad_left: 0,
        ..c.shape
    };
    c.filter = rng.weights(32);
    (c.bias, c.multipliers, c.shifts) = rng.requantization(1);
    let p = c.params();
    let s = conv_stream(&p);
    let d = lowest_overlap(&s, 2, first_pixel_only);
    assert_eq!(
        (lowest_overlap(&s, 2, true), lowest_overlap(&s, 2, false)),
        (2, 4)
    );
    let input = rng.bytes(48);
    let kernel = |a: &mut [u8], i, o| conv2d_im2col_s8(a, i, o, &p);
    let (disjoint, overlapped) = run_both(&input, 6, (d, Side::Below), &kernel);
    assert_eq!(disjoint, overlapped);
}

#[test]
fn a_straddling_group_runs_at_its_lowest_read() {
    straddling_group(false);
}

#[test]
#[should_panic(expected = "kernel input and output overlap")]
fn a_straddling_group_refuses_the_first_pixels_bound() {
    straddling_group(true);
}

#[test]
fn min_and_max_read_follow_the_contract() {
    let mut rng = Rng(31);
    for _ in 0..CASES {
        let s = conv_stream(&Gathering::new(&mut rng, Im2col::OnePixel).params());
        for q in 0..s.pixels() {
            assert_eq!(s.min_read(q), min_read(&s, q));
            assert_eq!(s.max_read(q), max_read(&s, q));
        }
    }
}

//! The int8 1×1 CONV_2D ([`conv2d_1x1_s8`], [`conv2d_1x1_widened_s8`]), also FULLY_CONNECTED's
//! int8 kernel: a matrix product of pixels by filter rows, with the zero point folded into the
//! bias, disjoint or streaming over its input (module docs of [`super`]).

use super::{ACC_RUN, ONE_PIXEL_RUN};
use crate::kernels::nn_common::wide::{
    pair_run, single_run, start_pairs, Widened, PAIRED, WIDE_CHANNELS,
};
use crate::kernels::nn_common::{dot4_interleaved_s8, dot_s8, views, Requantizer};

/// Constant parameters of [`conv2d_1x1_s8`]: an int8 CONV_2D with a 1×1 filter, stride 1, no
/// padding and one group, which is a matrix product of the `pixels × input_c` input and the
/// transposed `output_c × input_c` filter.
#[derive(Clone, Copy, Debug)]
pub struct Conv1x1S8<'a> {
    /// Pixels (batches × height × width, the same in the input and the output).
    pub pixels: usize,
    /// Input channels (at least 1).
    pub input_c: usize,
    /// Output channels (at least 1).
    pub output_c: usize,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Filter weights, the rows of `[output_c, 1, 1, input_c]` (zero point 0) re-laid out at
    /// generation time so that four rows are read through one pointer: each block of four rows
    /// as their 4-byte words interleaved (word 0 of rows 0, 1, 2, 3, then word 1 of each, …),
    /// then the block's rows' last `input_c % 4` bytes one row after another; the
    /// `output_c % 4` rows after the last block as they are. Word-aligned on ARMv7E-M, where
    /// the kernel reads it by words (generated code keeps it in 16-byte aligned `Flash`; checked).
    pub filter: &'a [i8],
    /// Per-output-channel bias with the input zero point folded in at generation time,
    /// `bias[c] - input_zero_point * Σ filter[c]` (wrapping), so that the kernel multiplies the
    /// raw int8 inputs: with no padding every tap is in the image, and the sums are equal.
    pub folded_bias: &'a [i32],
    /// Per-output-channel Q31 requantization multipliers.
    pub multipliers: &'a [i32],
    /// Per-output-channel requantization shifts (positive = left, within -31..=31).
    pub shifts: &'a [i8],
    /// Lowest output value (fused activation, output zero point included).
    pub act_min: i32,
    /// Highest output value.
    pub act_max: i32,
    /// True when every shift is at most -1, the accumulator plus bias stays below 2^30 in
    /// magnitude for every input, and the output zero point and the activation range lie within
    /// int8 (all checked at generation time): the requantization then takes its short path, with
    /// the same results.
    pub narrow_requant: bool,
}

/// int8 1×1 CONV_2D ([`Conv1x1S8`]), bit-exact with TFLM's `ConvPerChannel`: on ARMv7E-M two
/// pixels by two output channels per pass over inputs widened once per pair of pixels
/// (`runtime/src/kernels/nn_common/wide.rs`), elsewhere one pixel by four output channels per
/// pass. Reads `pixels * input_c` bytes at `input`, writes `pixels * output_c` bytes at
/// `output`: the pixels in order (on the paired path in pairs), each written after reading its
/// input pixel (its pair's). The output may overlap the input as the stream contract allows
/// (module docs; `min_read(p) = p * input_c`), else they must be disjoint (checked).
///
/// Disjoint operands and the groups of a stream share one copy of the loops
/// (`stream_or_whole`).
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_1x1_s8(arena: &mut [u8], input: usize, output: usize, p: &Conv1x1S8) {
    let p = crate::kernels::opaque(p);
    let (n, m) = (p.input_c, p.output_c);
    assert!(n > 0 && m > 0, "1x1 convolution with no channels");
    let blocked = m - m % 4;
    let (blocks, rest) = p.filter[..m * n].split_at(blocked * n);
    // The word loops read the filter by aligned words (generated filters are 16-byte aligned
    // `Flash`; a caller's own must be word-aligned).
    #[cfg(tinyaot_dsp)]
    crate::kernels::nn_common::check_word_aligned(blocks);
    // The sums start from the biases: the requantizer adds none. Its own local: its kernels
    // take it by reference, and only it need then be in memory (not all of `Pointwise`).
    let requantizer = biased_requantizer!(p, m);
    let k = Pointwise {
        n,
        m,
        blocks,
        rest,
        bias: &p.folded_bias[..m],
        requantizer: &requantizer,
        #[cfg(tinyaot_mve)]
        fused: (p.narrow_requant && blocked == m).then_some((
            (&p.folded_bias[..m], p.multipliers, p.shifts),
            (p.output_zero_point, p.act_min, p.act_max),
        )),
    };
    let paired = PAIRED && n >= 4 && blocked > 0 && p.pixels >= 2;
    // The paired path's buffers (its sums and widened inputs) are set up only where it runs:
    // zeroing them costs a few hundred instructions a call, which one-pixel layers
    // (FULLY_CONNECTED) would pay for nothing. The one-pixel sums share their memory.
    let mut scratch = Scratch::One([0; ONE_PIXEL_RUN]);
    stream_or_whole(arena, (input, output), p.pixels, (n, m), |inp, out| {
        if paired && matches!(scratch, Scratch::One(_)) {
            scratch = Scratch::Pairs(PairScratch::new());
        }
        // One call site of each loop (flash is the budget).
        let (done, acc) = match &mut scratch {
            Scratch::One(acc) => (0, acc),
            Scratch::Pairs(pairs) => {
                let done = conv1x1_pairs(inp, out, &k, pairs);
                let (acc, _) = pairs.acc.split_first_chunk_mut::<ONE_PIXEL_RUN>().unwrap();
                (done, acc)
            }
        };
        if done * n < inp.len() {
            conv1x1_pixels(&inp[done * n..], &mut out[done * m..], &k, acc);
        }
        if !k.rest.is_empty() {
            rest_rows(inp, out, &k);
        }
    });
}

/// The sums of [`conv2d_1x1_s8`]'s one-pixel loop, alone or in the paired path's buffers.
// Large by design: the variants share one stack slot (no heap to box into), and the small one
// is what one-pixel calls zero.
#[allow(clippy::large_enum_variant)]
enum Scratch {
    /// One pixel at a time only.
    One([i32; ONE_PIXEL_RUN]),
    /// The paired path (its odd pixels' sums in the first [`ONE_PIXEL_RUN`] of its own).
    Pairs(PairScratch),
}

// The paired path's sums hold the one-pixel loop's.
const _: () = assert!(ONE_PIXEL_RUN <= ACC_RUN);

/// Calls `body(input, output)` on views of the `pixels` pixels of a 1×1 kernel (`n` input and
/// `m` output bytes each): once on the whole operands when they are disjoint (checked), else on
/// each group of two pixels of the stream contract, in order (in reverse order when the output
/// starts above the input), through one call site ([`views::Stream::groups`]).
#[inline(always)]
fn stream_or_whole(
    arena: &mut [u8],
    operands: (usize, usize),
    pixels: usize,
    (n, m): (usize, usize),
    mut body: impl FnMut(&[u8], &mut [u8]),
) {
    let stream = views::Stream::one_row(pixels, n, m);
    stream.groups::<2>(arena, operands, |inp, _, out, group| {
        body(&inp[..group.len() * n], out);
    });
}

/// What [`conv2d_1x1_s8`] sets up once per call for [`conv1x1_pixels`].
struct Pointwise<'a> {
    /// Input channels.
    n: usize,
    /// Output channels.
    m: usize,
    /// The filter's blocks of four rows (see [`Conv1x1S8::filter`]).
    blocks: &'a [i8],
    /// The filter's `m % 4` rows after the last block.
    rest: &'a [i8],
    /// The folded bias of the `m` channels.
    bias: &'a [i32],
    /// The requantization of sums that start from the bias.
    requantizer: &'a Requantizer<'a>,
    /// Helium's fused pixels ([`crate::kernels::nn_common::pointwise_pixels_s8`]): their bias,
    /// multipliers and shifts and its zero point and clamp, where the requantization is narrow
    /// and every row in a block.
    #[cfg(tinyaot_mve)]
    fused: Option<FusedOperands<'a>>,
}

/// The requantization operands of the fused Helium pixel: `(bias, multipliers, shifts)` and
/// `(zero point, min, max)`.
#[cfg(tinyaot_mve)]
type FusedOperands<'a> = ((&'a [i32], &'a [i32], &'a [i8]), (i32, i32, i32));

/// The paired path's buffers: a pair of pixels' sums of a run of channels and their widened
/// inputs.
struct PairScratch {
    acc: [i32; ACC_RUN],
    wide: Widened<WIDE_CHANNELS>,
}

impl PairScratch {
    fn new() -> Self {
        PairScratch {
            acc: [0; ACC_RUN],
            wide: Widened::new(),
        }
    }
}

/// [`conv2d_1x1_s8`] on the pixels of `inp` (`n` bytes each) to those of `out` (`m` bytes
/// each), disjoint views, one at a time, in runs of up to [`ONE_PIXEL_RUN`] channels (their
/// sums in `acc`): the filter's blocks of four rows, then its rest one row at a time.
#[inline(always)]
fn conv1x1_pixels(inp: &[u8], out: &mut [u8], k: &Pointwise, acc: &mut [i32; ONE_PIXEL_RUN]) {
    let (n, m, blocks, bias) = (k.n, k.m, k.blocks, k.bias);
    let requantizer = k.requantizer;
    let blocked = m - m % 4;
    // Helium: every pixel in one loop, its sums requantized in registers, where it fits (the
    // narrow requantization, channels in whole words and fours).
    #[cfg(tinyaot_mve)]
    if let Some(fused) = k.fused {
        let pixels = (inp.len() / n.max(1)).min(out.len() / m.max(1));
        let (inp, out) = (&inp[..pixels * n], &mut out[..pixels * m]);
        if crate::kernels::nn_common::pointwise_pixels_s8(
            inp,
            (n, m),
            blocks,
            fused.0,
            fused.1,
            out,
        ) {
            return;
        }
    }
    for (x, o) in inp.chunks_exact(n).zip(out.chunks_exact_mut(m)) {
        // Runs of up to ONE_PIXEL_RUN channels: their sums first, then their requantization,
        // each loop with its own values in registers.
        for (run, ((w, o), b)) in blocks
            .chunks(ONE_PIXEL_RUN * n)
            .zip(o[..blocked].chunks_mut(ONE_PIXEL_RUN))
            .zip(bias[..blocked].chunks(ONE_PIXEL_RUN))
            .enumerate()
        {
            let acc = &mut acc[..o.len()];
            if n % 4 == 0 {
                // The sums start from the biases.
                crate::kernels::nn_common::dot4_run_s8(x, w, b, acc);
            } else {
                tails_run(x, w, b, acc);
            }
            requantizer.run(run * ONE_PIXEL_RUN, acc, o);
        }
    }
}

/// [`conv1x1_pixels`]'s sums of a run for input channels not in whole words: `acc[4 b + r] =
/// b[4 b + r] +` the dot product of `x` with row `r` of block `b` of `w`. Out of line (one call
/// per run): inlined, the compiler unrolled its blocks and tails into 1.4 KB of Cortex-M4 code
/// for a path only layers of few input channels take.
#[inline(never)]
fn tails_run(x: &[u8], w: &[i8], b: &[i32], acc: &mut [i32]) {
    for ((a, w), b) in acc
        .chunks_exact_mut(4)
        .zip(w.chunks_exact(4 * x.len()))
        .zip(b.chunks_exact(4))
    {
        a.copy_from_slice(&dot4_interleaved_s8(x, w, [b[0], b[1], b[2], b[3]]));
    }
}

/// The filter's last `m % 4` rows (after its blocks of four) on every pixel of `inp` (`n` bytes
/// each), into their bytes of the pixels of `out` (`m` bytes each): a dot product and a
/// requantization per row. Once per call on the whole views, after both paths have written the
/// blocks' channels (the views are disjoint, so the order of their writes does not matter): one
/// copy, where one per path and pixel cost 1.1 KB of Cortex-M4 code, and one call, where a call
/// per pixel cost a layer of one output channel a quarter more instructions.
#[inline(never)]
fn rest_rows(inp: &[u8], out: &mut [u8], k: &Pointwise) {
    let blocked = k.m - k.m % 4;
    for (x, o) in inp.chunks_exact(k.n).zip(out.chunks_exact_mut(k.m)) {
        for (c, (w, o)) in k.rest.chunks_exact(k.n).zip(&mut o[blocked..]).enumerate() {
            let sum = dot_s8(w, x, 0).wrapping_add(k.bias[blocked + c]);
            *o = k.requantizer.one(blocked + c, sum);
        }
    }
}

/// The pairs of pixels of [`conv1x1_pixels`] on the paired path: both pixels' sums of a run of
/// `RUN` channels (in the paired layout of [`pair_run`]), then their requantization. A row that
/// fits one chunk of [`WIDE_CHANNELS`] is widened once per pair, a longer one chunk by chunk for
/// each run. Returns how many pixels it wrote: all but an odd last one, which the one-pixel loop
/// takes.
#[inline(always)]
fn conv1x1_pairs(inp: &[u8], out: &mut [u8], k: &Pointwise, scratch: &mut PairScratch) -> usize {
    const RUN: usize = ACC_RUN / 2;
    let (n, m, blocks, bias) = (k.n, k.m, k.blocks, k.bias);
    let requantizer = k.requantizer;
    let PairScratch { acc, wide } = scratch;
    let blocked = m - m % 4;
    let whole = n - n % 4;
    let tail = n - whole;
    let single = whole <= WIDE_CHANNELS;
    let mut done = 0;
    for (x, o) in inp.chunks_exact(2 * n).zip(out.chunks_exact_mut(2 * m)) {
        let (x0, x1) = x.split_at(n);
        let (o0, o1) = o.split_at_mut(m);
        if single {
            wide.fill(&x0[..whole], &x1[..whole]);
        }
        for (run, (w, b)) in blocks
            .chunks(RUN * n)
            .zip(bias[..blocked].chunks(RUN))
            .enumerate()
        {
            let (c0, len) = (run * RUN, b.len());
            let sums = &mut acc[..2 * len];
            // The sums start from the biases: the requantizer adds none.
            start_pairs(sums, b);
            for k0 in (0..whole).step_by(WIDE_CHANNELS) {
                if !single {
                    let k1 = whole.min(k0 + WIDE_CHANNELS);
                    wide.fill(&x0[k0..k1], &x1[k0..k1]);
                }
                pair_run(wide.words(), w, (4 * n, 4 * k0), sums);
            }
            if tail > 0 {
                // Each row's last `tail` bytes follow its block's words (see `Conv1x1S8::filter`).
                for r in 0..len {
                    let row = &w[(r / 4) * 4 * n + 4 * whole + (r % 4) * tail..][..tail];
                    // Row r's sums in the paired layout: pixel 0, then pixel 1 two words on.
                    let at = (r / 2) * 4 + r % 2;
                    for ((&w, &v0), &v1) in row.iter().zip(&x0[whole..]).zip(&x1[whole..]) {
                        sums[at] = sums[at].wrapping_add(i32::from(w) * i32::from(v0 as i8));
                        sums[at + 2] =
                            sums[at + 2].wrapping_add(i32::from(w) * i32::from(v1 as i8));
                    }
                }
            }
            requantizer.run_pairs(c0, sums, &mut o0[c0..c0 + len], &mut o1[c0..c0 + len]);
        }
        done += 2;
    }
    done
}

/// [`conv2d_1x1_s8`] for one pixel at a time (FULLY_CONNECTED; the lowering chooses it for a
/// single pixel with input channels in whole words and output channels in blocks of four): on
/// ARMv7E-M the pixel is widened to 16-bit lanes once (a chunk of up to `2 WIDE_CHANNELS`
/// channels at a time, again for each run of 64 channels when longer), then each block of four
/// filter rows is summed against it by `runtime/src/kernels/nn_common/wide.rs`'s one-pixel run
/// (where [`conv2d_1x1_s8`] unpacks the input again for every block) and each run requantized.
/// Elsewhere it is [`conv2d_1x1_s8`]. Reads and writes as [`conv2d_1x1_s8`] (one pixel at a
/// time), its output overlapping its input as that allows (disjoint operands and the groups of
/// a stream sharing one copy of the loops, `stream_or_whole`).
#[cfg_attr(target_os = "none", inline(never))]
pub fn conv2d_1x1_widened_s8(arena: &mut [u8], input: usize, output: usize, p: &Conv1x1S8) {
    if !PAIRED {
        return conv2d_1x1_s8(arena, input, output, p);
    }
    let p = crate::kernels::opaque(p);
    let (n, m) = (p.input_c, p.output_c);
    assert!(
        n > 0 && m > 0 && n % 4 == 0 && m % 4 == 0,
        "widened 1x1 convolution needs whole words of input channels and blocks of four outputs"
    );
    // The sums start from the biases: the requantizer adds none. Its own local: its kernels
    // take it by reference, and only it need then be in memory (not all of `Pointwise`).
    let requantizer = biased_requantizer!(p, m);
    let k = Pointwise {
        n,
        m,
        blocks: &p.filter[..m * n],
        rest: &[],
        bias: &p.folded_bias[..m],
        requantizer: &requantizer,
        // Helium builds have no paired path: they returned above.
        #[cfg(tinyaot_mve)]
        fused: None,
    };
    let mut scratch = PairScratch::new();
    stream_or_whole(arena, (input, output), p.pixels, (n, m), |inp, out| {
        widened_pixels(inp, out, &k, &mut scratch);
    });
}

/// [`conv2d_1x1_widened_s8`] on the pixels of `inp` to those of `out` (disjoint views), one at
/// a time: the pixel's `n` input bytes widened (once when they fit the buffer, else a chunk of
/// `2 WIDE_CHANNELS` at a time for each run), its output bytes in runs of up to [`ACC_RUN`]
/// channels (`k.blocks` is the whole filter).
#[inline(always)]
fn widened_pixels(inp: &[u8], out: &mut [u8], k: &Pointwise, scratch: &mut PairScratch) {
    const CHUNK: usize = 2 * WIDE_CHANNELS;
    let (n, m, filter, bias) = (k.n, k.m, k.blocks, k.bias);
    let requantizer = k.requantizer;
    let PairScratch { acc, wide } = scratch;
    let single = n <= CHUNK;
    for (x, o) in inp.chunks_exact(n).zip(out.chunks_exact_mut(m)) {
        if single {
            wide.fill_single(x);
        }
        for (run, ((w, o), b)) in filter
            .chunks(ACC_RUN * n)
            .zip(o.chunks_mut(ACC_RUN))
            .zip(bias.chunks(ACC_RUN))
            .enumerate()
        {
            let sums = &mut acc[..o.len()];
            sums.copy_from_slice(b);
            for k0 in (0..n).step_by(CHUNK) {
                if !single {
                    wide.fill_single(&x[k0..n.min(k0 + CHUNK)]);
                }
                single_run(wide.words(), w, (4 * n, 4 * k0), sums);
            }
            requantizer.run(run * ACC_RUN, sums, o);
        }
    }
}

//! Byte views of a kernel's input and output in the arena, taken once per call so that the inner loops
//! index plain slices.

use crate::kernels::Within;

/// Splits `arena` into the `in_len` bytes at `input` (read) and the `out_len` bytes at `output`
/// (written). Panics if a range is outside the arena or the two ranges overlap: kernels that use this
/// read input after writing output, so their operands must be disjoint (a streaming kernel's
/// per-group views included, see [`Stream`]).
pub(crate) fn split(
    arena: &mut [u8],
    input: usize,
    in_len: usize,
    output: usize,
    out_len: usize,
) -> (&[u8], &mut [u8]) {
    if in_len == 0 {
        // An empty input (a CONCATENATION or PAD operand with a zero-size dimension) may be placed
        // anywhere, even inside the output: it is never read.
        return (&[], &mut arena[output..output + out_len]);
    }
    let in_end = input + in_len;
    let out_end = output + out_len;
    assert!(
        in_len == 0 || out_len == 0 || in_end <= output || out_end <= input,
        "kernel input and output overlap"
    );
    if input < output {
        let (low, high) = arena.split_at_mut(output);
        (&low[input..in_end], &mut high[..out_len])
    } else {
        let (low, high) = arena.split_at_mut(input);
        (&high[..in_len], &mut low[output..out_end])
    }
}

/// [`split`] for an input that may be a constant read where it is: the `in_len` bytes of
/// `input` (at an arena offset, or the constant's own bytes) and the `out_len` bytes of `arena`
/// at `output`. An arena input must not overlap the output.
#[inline(always)]
pub(crate) fn split_src<'a>(
    arena: &'a mut [u8],
    input: crate::Src<'a>,
    in_len: usize,
    output: usize,
    out_len: usize,
) -> (&'a [u8], &'a mut [u8]) {
    match input {
        crate::Src::Arena(offset) => split(arena, offset, in_len, output, out_len),
        crate::Src::Bytes(bytes) => (bytes.at(..in_len), arena.at_mut(output..output + out_len)),
    }
}

/// Byte runs shorter than this are copied a word at a time by [`copy_bytes`]: a `memcpy` call (or
/// `copy_within`'s `memmove`) costs more on them.
const SHORT_RUN: usize = 64;

/// Copies `from` into `out`, of the same length: runs of [`SHORT_RUN`] bytes or more by
/// `copy_from_slice` (a `memcpy` call), shorter ones by fixed four-byte copies (one load and one
/// store each, unaligned ones included, which the Cortex-M3 and up and x86 allow) and then the odd
/// bytes. The many short rows of PACK, UNPACK and CONCATENATION cost a call each otherwise.
#[inline(always)]
pub(crate) fn copy_bytes(out: &mut [u8], from: &[u8]) {
    if out.len() >= SHORT_RUN {
        out.copy_from_slice(from);
    } else if out.len() < 4 {
        for (o, &b) in out.iter_mut().zip(from) {
            *o = b;
        }
    } else {
        let mut to = out.chunks_exact_mut(4);
        let mut words = from.chunks_exact(4);
        for (o, w) in (&mut to).zip(&mut words) {
            o.copy_from_slice(w);
        }
        for (o, &b) in to.into_remainder().iter_mut().zip(words.remainder()) {
            *o = b;
        }
    }
}

/// Copies `count` runs of `n` bytes, run `i` from `from[i * from_stride..]` to
/// `to[i * to_stride..]` (the rows of SPLIT, SPLIT_V and UNPACK, and of CONCATENATION and PACK).
/// Runs of up to 32 bytes, the usual chunk of a few elements, are copied by [`copy_short`] after
/// one range check for all of them: per run, the slices' range checks and [`copy_bytes`]' word
/// loop and odd bytes took about 45 instructions on the Cortex-M4 for 6 bytes, more than TFLM's
/// `memcpy` call. Longer runs are a `memcpy` call each. Panics if a run lies outside its slice. Not
/// inlined on bare metal: one copy for the kernels' call sites (a call per input or output).
#[cfg_attr(target_os = "none", inline(never))]
pub(crate) fn copy_runs(
    to: &mut [u8],
    to_stride: usize,
    from: &[u8],
    from_stride: usize,
    (n, count): (usize, usize),
) {
    if n == 0 || count == 0 {
        return;
    }
    let end = |stride: usize| (count - 1).checked_mul(stride)?.checked_add(n);
    assert!(
        end(to_stride).is_some_and(|e| e <= to.len())
            && end(from_stride).is_some_and(|e| e <= from.len()),
        "copy_runs: a run outside its slice"
    );
    if n > 32 {
        for i in 0..count {
            super::super::keep_rolled();
            to[i * to_stride..][..n].copy_from_slice(from.at(i * from_stride..).at(..n));
        }
        return;
    }
    let (mut dst, mut src) = (to.as_mut_ptr(), from.as_ptr());
    // Runs of one element (UNPACK's columns, PACK's and CONCATENATION's elements) by one load and
    // store each, without `copy_short`'s choice of widths per run.
    // SAFETY (the three calls): as the loop's below, with `n` the width of `W`.
    match n {
        1 => return unsafe { element_runs::<u8>(dst, src, count, (to_stride, from_stride)) },
        2 => return unsafe { element_runs::<u16>(dst, src, count, (to_stride, from_stride)) },
        4 => return unsafe { element_runs::<u32>(dst, src, count, (to_stride, from_stride)) },
        _ => {}
    }
    for _ in 0..count {
        // Rolled: unrolled, the four lengths' loops were 1.4 KB of Cortex-M4 code.
        super::super::keep_rolled();
        // SAFETY: run `i` is `to[i * to_stride..][..n]` and `from[i * from_stride..][..n]`,
        // within the slices by the check above (the pointers advance one stride per run, and the
        // last advance, past the last run, is not dereferenced: `wrapping_add`); `to` and `from`
        // are a `&mut` and a `&` borrow, so they do not overlap.
        unsafe { copy_short(dst, src, n) };
        dst = dst.wrapping_add(to_stride);
        src = src.wrapping_add(from_stride);
    }
}

/// Copies `from` into `out` (as long as `out`, at most): runs of up to 32 bytes by
/// [`copy_short`], without [`copy_bytes`]' word loop and odd bytes (GATHER's rows of an element or
/// a few), up to 64 by blocks of 16 bytes, the last one overlapping (GATHER's rows of 12 floats:
/// a `memcpy` call each took gather_float's first GATHER to 600 instructions on the Cortex-M4,
/// against TFLM's 520), longer ones by `copy_from_slice` (a `memcpy` call).
#[inline(always)]
pub(crate) fn copy_small(out: &mut [u8], from: &[u8]) {
    let n = out.len();
    let from = from.at(..n);
    if n == 0 {
        return;
    }
    let (dst, src) = (out.as_mut_ptr(), from.as_ptr());
    if n <= 32 {
        // SAFETY: `out` and `from` are both `n` bytes long, and a `&mut` and a `&` borrow, so
        // they do not overlap.
        unsafe { copy_short(dst, src, n) };
    } else if n <= 64 {
        let mut i = 0;
        while i + 16 < n {
            // SAFETY: bytes `i..i + 16` of both, `i + 16 < n`; disjoint as above.
            unsafe { copy16(dst.add(i), src.add(i)) };
            i += 16;
        }
        // SAFETY: bytes `n - 16..n` of both (`n > 32`); disjoint as above.
        unsafe { copy16(dst.add(n - 16), src.add(n - 16)) };
    } else {
        out.copy_from_slice(from);
    }
}

/// [`copy_runs`]' loop for runs of one `W` each (unaligned loads and stores).
///
/// # Safety
/// For every `i < count`, `src + i * from_stride` must be valid for reading a `W` and
/// `dst + i * to_stride` for writing one, the two not overlapping.
#[inline(always)]
unsafe fn element_runs<W: Copy>(
    mut dst: *mut u8,
    mut src: *const u8,
    count: usize,
    (to_stride, from_stride): (usize, usize),
) {
    for _ in 0..count {
        super::super::keep_rolled();
        // SAFETY: the caller's promise for run `i` (the last advance is not dereferenced).
        unsafe {
            dst.cast::<W>()
                .write_unaligned(src.cast::<W>().read_unaligned())
        };
        dst = dst.wrapping_add(to_stride);
        src = src.wrapping_add(from_stride);
    }
}

/// Copies `n` bytes (1 to 32) from `src` to `dst` by at most eight unaligned word loads and stores
/// (which the Cortex-M3 and up and x86 allow), or two halfwords, or a byte: the first and the last
/// words (or blocks of 16 bytes) of the run, which overlap where `n` is not a multiple of their
/// size (the source is not written, so the overlap writes the same bytes twice). No loop, and no
/// `memcpy` call.
///
/// # Safety
/// `src` must be valid for reading `n` bytes and `dst` for writing `n` bytes, and the two ranges
/// must not overlap.
#[inline(always)]
unsafe fn copy_short(dst: *mut u8, src: *const u8, n: usize) {
    use core::ptr::{read_unaligned as get, write_unaligned as put};
    // SAFETY (each access below): at offsets `0..n`, as the caller promises; `n` is at least the
    // width of each access's branch.
    unsafe {
        if n > 16 {
            copy16(dst, src);
            copy16(dst.add(n - 16), src.add(n - 16));
        } else if n >= 8 {
            let (a, b) = (get(src.cast::<u32>()), get(src.add(4).cast::<u32>()));
            let (c, d) = (
                get(src.add(n - 8).cast::<u32>()),
                get(src.add(n - 4).cast::<u32>()),
            );
            put(dst.add(n - 8).cast::<u32>(), c);
            put(dst.add(n - 4).cast::<u32>(), d);
            put(dst.cast::<u32>(), a);
            put(dst.add(4).cast::<u32>(), b);
        } else if n >= 4 {
            let (a, b) = (get(src.cast::<u32>()), get(src.add(n - 4).cast::<u32>()));
            put(dst.cast::<u32>(), a);
            put(dst.add(n - 4).cast::<u32>(), b);
        } else if n >= 2 {
            let (a, b) = (get(src.cast::<u16>()), get(src.add(n - 2).cast::<u16>()));
            put(dst.cast::<u16>(), a);
            put(dst.add(n - 2).cast::<u16>(), b);
        } else {
            *dst = *src;
        }
    }
}

/// Copies 16 bytes from `src` to `dst` by four unaligned words.
///
/// # Safety
/// As [`copy_short`] with `n` = 16.
#[inline(always)]
unsafe fn copy16(dst: *mut u8, src: *const u8) {
    use core::ptr::{read_unaligned as get, write_unaligned as put};
    // SAFETY: offsets `0..16`, as the caller promises.
    unsafe {
        let (a, b) = (get(src.cast::<u32>()), get(src.add(4).cast::<u32>()));
        let (c, d) = (
            get(src.add(8).cast::<u32>()),
            get(src.add(12).cast::<u32>()),
        );
        put(dst.cast::<u32>(), a);
        put(dst.add(4).cast::<u32>(), b);
        put(dst.add(8).cast::<u32>(), c);
        put(dst.add(12).cast::<u32>(), d);
    }
}

/// Whether the `in_len` bytes at `input` and the `out_len` bytes at `output` overlap (both
/// non-empty): a streaming kernel (see [`Stream`]) then takes its overlap-tolerant path, forwards
/// when the output starts below the input, in reverse when above (only a reversible kernel's plan
/// does that; [`Stream::groups`] checks every group's views either way).
#[inline(always)]
pub(crate) fn overlapping(input: usize, in_len: usize, output: usize, out_len: usize) -> bool {
    in_len != 0 && out_len != 0 && input < output + out_len && output < input + in_len
}

/// The geometry of a streaming kernel, whose output may overlap its input as the stream contract
/// allows: the output pixels `q = 0..pixels()` in row-major order over `(batch, y, x)`, output
/// pixel `q` the `output_c` bytes at `q * output_c`, an input pixel `input_c` bytes, and
/// [`min_read`](Self::min_read) and [`max_read`](Self::max_read) the lowest input byte of an
/// output pixel's window and one past its highest. The plan guarantees, for each group of `g`
/// consecutive pixels (`g` fixed per kernel), that the group's output bytes miss the input bytes
/// still to be read (codegen/src/lower/access.rs): with the output below the input, those from
/// the smallest `min_read` of the group's pixels and every later pixel on; with the output above
/// (a reversible kernel), those below the largest `max_read` of the group's pixels and every
/// earlier pixel. A kernel that handles the groups in order (in reverse order), each reading only
/// input bytes within its pixels' windows, then never reads a byte it has overwritten.
/// [`groups`](Self::groups) hands it each group's views, so that [`split`]'s assert checks the
/// plan at run time. A 1×1 kernel is a one-row image ([`one_row`](Self::one_row)).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stream {
    /// Batch size.
    pub(crate) batches: usize,
    /// Input height.
    pub(crate) input_h: usize,
    /// Input width.
    pub(crate) input_w: usize,
    /// Bytes per input pixel.
    pub(crate) input_c: usize,
    /// Output height.
    pub(crate) output_h: usize,
    /// Output width.
    pub(crate) output_w: usize,
    /// Bytes per output pixel.
    pub(crate) output_c: usize,
    /// Vertical stride.
    pub(crate) stride_h: usize,
    /// Horizontal stride.
    pub(crate) stride_w: usize,
    /// Rows of padding above the image.
    pub(crate) pad_top: usize,
    /// Columns of padding left of the image.
    pub(crate) pad_left: usize,
    /// Input rows a window spans (`(filter_h - 1) * dilation_h + 1`).
    pub(crate) window_h: usize,
    /// Input columns a window spans (`(filter_w - 1) * dilation_w + 1`).
    pub(crate) window_w: usize,
    /// Output pixel `q` reads input pixel `q` alone ([`one_row`](Self::one_row)): a group's reads
    /// are then found without the divisions of [`pixel`](Self::pixel), which cost a 1×1 kernel
    /// with few channels a noticeable share of its instructions.
    pub(crate) pointwise: bool,
}

impl Stream {
    /// `pixels` pixels of `input_c` bytes in, `output_c` bytes out, one for one (a 1×1 kernel).
    pub(crate) fn one_row(pixels: usize, input_c: usize, output_c: usize) -> Self {
        Stream {
            batches: 1,
            input_h: 1,
            input_w: pixels,
            input_c,
            output_h: 1,
            output_w: pixels,
            output_c,
            stride_h: 1,
            stride_w: 1,
            pad_top: 0,
            pad_left: 0,
            window_h: 1,
            window_w: 1,
            pointwise: true,
        }
    }

    /// The number of output pixels.
    pub(crate) fn pixels(&self) -> usize {
        self.batches * self.output_h * self.output_w
    }

    /// Output pixel `q`'s `(batch, y, x)`.
    pub(crate) fn pixel(&self, q: usize) -> (usize, usize, usize) {
        let plane = self.output_h * self.output_w;
        (q / plane, q % plane / self.output_w, q % self.output_w)
    }

    /// The lowest input byte (from the input's start) of output pixel `q`'s window, clamped to
    /// the image: its first row and column, each at least 0.
    pub(crate) fn min_read(&self, q: usize) -> usize {
        let (b, y, x) = self.pixel(q);
        let row = (y * self.stride_h).saturating_sub(self.pad_top);
        let column = (x * self.stride_w).saturating_sub(self.pad_left);
        ((b * self.input_h + row) * self.input_w + column) * self.input_c
    }

    /// One past the highest input byte (from the input's start) of output pixel `q`'s window:
    /// the end of its last row's last pixel, each clamped to the image.
    pub(crate) fn max_read(&self, q: usize) -> usize {
        let (b, y, x) = self.pixel(q);
        let last = |at: usize, span: usize, pad: usize, len: usize| {
            (at + span.max(1) - 1)
                .saturating_sub(pad)
                .min(len.saturating_sub(1))
        };
        let row = last(y * self.stride_h, self.window_h, self.pad_top, self.input_h);
        let column = last(
            x * self.stride_w,
            self.window_w,
            self.pad_left,
            self.input_w,
        );
        ((b * self.input_h + row) * self.input_w + column + 1) * self.input_c
    }

    /// Calls `group(input, from, output, pixels)` on views of consecutive output pixels that
    /// together cover every pixel in order (in reverse order when the output starts above the
    /// input): `input` the input bytes from `from` on, `output` the pixels' output bytes.
    ///
    /// - Disjoint operands: once, on the whole operands (`from` 0).
    /// - The output below the input: runs of whole groups of `g` pixels (the stream contract's
    ///   groups), each run as long as its output ends below the lowest input byte its pixels
    ///   read, found from a bound (the start of the first pixel's input row; for a 1×1 kernel
    ///   its pixel): far from the input that is many groups at once (a call per run rather
    ///   than per group). Where the bound allows less than two groups, the next group alone,
    ///   `input` from its lowest [`min_read`](Self::min_read) (the first pixel's, except where a
    ///   later one starts an output row whose window starts on the same input row further left,
    ///   see the conv module's docs).
    /// - The output above the input (a reversible kernel): the same in reverse order, `input`
    ///   from 0 and each run's output starting above the highest input byte its pixels read,
    ///   found from a bound (the end of the last pixel's last input row; for a 1×1 kernel its
    ///   pixel); a group alone, where the bound allows less than two, `input` ending at the
    ///   group's highest [`max_read`](Self::max_read).
    ///
    /// One call site of `group` serves every case, so that a kernel has one copy of its loops
    /// for disjoint and streaming operands (flash is the budget on the targets it runs on), its
    /// set-up hoisted out of the calls. Panics if the views overlap (the plan broke the
    /// contract) or lie outside `arena`.
    #[inline(always)]
    pub(crate) fn groups<const G: usize>(
        &self,
        arena: &mut [u8],
        (input, output): (usize, usize),
        mut group: impl FnMut(&[u8], usize, &mut [u8], core::ops::Range<usize>),
    ) {
        let in_len = self.batches * self.input_h * self.input_w * self.input_c;
        let pixels = self.pixels();
        let whole = !overlapping(input, in_len, output, pixels * self.output_c);
        let reverse = output > input && !whole;
        // Forward: the next group's first pixel; in reverse: one past the next group's last.
        let mut next = if reverse { pixels } else { 0 };
        while if reverse { next > 0 } else { next < pixels } {
            let (p0, p1, from, to) = if whole {
                (0, pixels, 0, in_len)
            } else {
                // A 1×1 kernel's bounds and those of groups of one pixel are a few instructions
                // inlined (a call per group cost DS-CNN's depthwise layers 1 % more); those of
                // larger windowed groups, with their loops, are one copy out of line.
                if self.pointwise || G == 1 {
                    self.next_group::<G>(next, reverse, (input, output))
                } else {
                    self.next_group_outlined::<G>(next, reverse, (input, output))
                }
            };
            next = if reverse { p0 } else { p1 };
            let out_at = output + p0 * self.output_c;
            let out_len = (p1 - p0) * self.output_c;
            let (inp, out) = split(arena, input + from, to - from, out_at, out_len);
            group(inp, from, out, p0..p1);
        }
    }

    /// [`next_group`](Self::next_group), out of line: one copy per group size `G` for every
    /// windowed kernel, where inlined into each with its divisions and loops it cost up to 3 KB
    /// of Cortex-M4 code.
    #[cfg_attr(target_os = "none", inline(never))]
    fn next_group_outlined<const G: usize>(
        &self,
        next: usize,
        reverse: bool,
        operands: (usize, usize),
    ) -> (usize, usize, usize, usize) {
        self.next_group::<G>(next, reverse, operands)
    }

    /// The group of [`groups`](Self::groups) on overlapping operands at `next` (its first pixel;
    /// in reverse one past its last), `(p0, p1, from, to)`: its pixels `p0..p1` and the input
    /// bytes `from..to` their view holds.
    #[inline(always)]
    fn next_group<const G: usize>(
        &self,
        next: usize,
        reverse: bool,
        (input, output): (usize, usize),
    ) -> (usize, usize, usize, usize) {
        let in_len = self.batches * self.input_h * self.input_w * self.input_c;
        let pixels = self.pixels();
        let g = G.max(1);
        if reverse {
            let p1 = next;
            // The pixels whose output starts at or above the bound's input byte.
            let bound = if self.pointwise {
                p1 * self.input_c
            } else {
                self.row_end(p1 - 1).min(in_len)
            };
            let m = self.output_c.max(1);
            let floor = (input + bound).saturating_sub(output).div_ceil(m);
            let p0 = floor.next_multiple_of(g);
            if p0 + 2 * g <= p1 {
                // A 1×1 kernel's view starts at its first pixel, as forward.
                let from = if self.pointwise { p0 * self.input_c } else { 0 };
                (p0, p1, from, bound)
            } else {
                let p0 = (p1 - 1) / g * g;
                let from = if self.pointwise {
                    p0 * self.input_c
                } else {
                    self.lowest_read(p0, p1)
                };
                let to = if self.pointwise {
                    bound
                } else {
                    let mut highest = from;
                    for q in p0..p1 {
                        crate::kernels::keep_rolled();
                        highest = highest.max(self.max_read(q));
                    }
                    highest.min(in_len)
                };
                (p0, p1, from, to)
            }
        } else {
            let p0 = next;
            // The pixels whose output ends at or below the bound's input byte.
            let bound = if self.pointwise {
                p0 * self.input_c
            } else {
                self.row_start(p0).min(in_len)
            };
            let room = (input + bound).saturating_sub(output) / self.output_c.max(1);
            let run = room.saturating_sub(p0) / g * g;
            if run >= 2 * g {
                (p0, (p0 + run).min(pixels), bound, in_len)
            } else {
                let p1 = (p0 + g).min(pixels);
                let from = if self.pointwise {
                    bound
                } else {
                    self.lowest_read(p0, p1)
                };
                (p0, p1, from, in_len)
            }
        }
    }

    /// One past the end of pixel `q`'s last input row (its window's last row clamped to the
    /// image): no pixel up to `q` reads above it, since an earlier pixel's last row is never
    /// below.
    fn row_end(&self, q: usize) -> usize {
        let (b, y, _) = self.pixel(q);
        let row = (y * self.stride_h + self.window_h.max(1) - 1)
            .saturating_sub(self.pad_top)
            .min(self.input_h.saturating_sub(1));
        (b * self.input_h + row + 1) * self.input_w * self.input_c
    }

    /// The lowest [`min_read`](Self::min_read) of pixels `p0..p1`, at most the input's length.
    fn lowest_read(&self, p0: usize, p1: usize) -> usize {
        let in_len = self.batches * self.input_h * self.input_w * self.input_c;
        let mut lowest = if p0 < p1 { in_len } else { 0 };
        for q in p0..p1 {
            crate::kernels::keep_rolled();
            lowest = lowest.min(self.min_read(q));
        }
        lowest
    }

    /// The start of pixel `q`'s first input row (its window's first row clamped to the image):
    /// no pixel from `q` on reads below it, since a later pixel's first row is never above.
    fn row_start(&self, q: usize) -> usize {
        let (b, y, _) = self.pixel(q);
        let row = (y * self.stride_h).saturating_sub(self.pad_top);
        (b * self.input_h + row) * self.input_w * self.input_c
    }
}

/// Splits `arena` into `N` mutable views, one per `(offset, len)` range, in the order given.
/// Panics if a range is outside the arena or two non-empty ranges overlap: for kernels that read
/// and write several tensors (an operator's state among them) at once.
pub(crate) fn disjoint<const N: usize>(
    arena: &mut [u8],
    ranges: [(usize, usize); N],
) -> [&mut [u8]; N] {
    let mut order: [usize; N] = core::array::from_fn(|i| i);
    order.sort_unstable_by_key(|&i| ranges[i].0);
    let mut views: [&mut [u8]; N] = core::array::from_fn(|_| <&mut [u8]>::default());
    let (mut rest, mut base) = (arena, 0usize);
    for &i in &order {
        let (offset, len) = ranges[i];
        if len == 0 {
            continue;
        }
        assert!(offset >= base, "kernel operands overlap");
        let (_, tail) = core::mem::take(&mut rest).cut_mut(offset - base);
        let (view, tail) = tail.cut_mut(len);
        views[i] = view;
        rest = tail;
        base = offset + len;
    }
    views
}

/// Moves the `len` bytes at `input` to `output` (any overlap allowed) and returns them, for kernels
/// that then transform their data in place.
pub(crate) fn in_place(arena: &mut [u8], input: usize, output: usize, len: usize) -> &mut [u8] {
    if input != output {
        arena.copy_within(input..input + len, output);
    }
    arena.at_mut(output..output + len)
}

/// The little-endian `f32`s of `bytes` (whose length is a multiple of 4).
#[inline(always)]
pub(crate) fn f32s(bytes: &[u8]) -> impl Iterator<Item = f32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Unpacks the `n` INT4 values packed in `packed` (`ceil(n / 2)` bytes, low nibble first, each
/// sign-extended, as TFLM's `UnpackDenseInt4IntoInt8` reads them) into `n` int8 bytes at
/// `scratch`: the kernels of INT4 weights computed at run time do what TFLM's Eval does, unpack
/// them into a scratch buffer at every call and run the int8 kernel on it. Panics if packed
/// bytes in the arena overlap `scratch`.
pub(crate) fn unpack_int4(arena: &mut [u8], packed: crate::Src, n: usize, scratch: usize) {
    let len = n.div_ceil(2);
    if let crate::Src::Arena(at) = packed {
        assert!(!overlapping(at, len, scratch, n), "kernel operands overlap");
    }
    for k in 0..n {
        arena[scratch + k] = super::int4(packed.bytes(arena, len), k) as i8 as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every run length of the short copies (1 to 32) and past them, gathered from rows and
    /// scattered into rows, equals the byte-by-byte copy, the bytes between runs untouched.
    #[test]
    fn copy_runs_matches_bytewise_copy() {
        let from: [u8; 200] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        for n in 1..=40 {
            for (to_stride, from_stride, count) in [(n, n + 5, 3), (n + 3, n, 4), (n, n, 1)] {
                let mut to = [0xAAu8; 200];
                copy_runs(&mut to, to_stride, &from, from_stride, (n, count));
                let mut want = [0xAAu8; 200];
                for i in 0..count {
                    for k in 0..n {
                        want[i * to_stride + k] = from[i * from_stride + k];
                    }
                }
                assert_eq!(to, want, "n {n}, strides {to_stride} {from_stride}");
            }
        }
    }

    /// Every length of `copy_small`'s three paths (up to 32 bytes, 33 to 64 by blocks of 16, past
    /// 64) copies exactly the output's length from an unaligned source, the bytes after it
    /// untouched.
    #[test]
    fn copy_small_copies_every_length() {
        let from: [u8; 100] = core::array::from_fn(|i| (i * 11 + 5) as u8);
        for n in 0..=80 {
            let mut to = [0xAAu8; 90];
            copy_small(&mut to[..n], &from[3..]);
            assert_eq!(&to[..n], &from[3..3 + n], "n {n}");
            assert!(to[n..].iter().all(|&b| b == 0xAA), "n {n}");
        }
    }

    #[test]
    fn split_gives_both_orders() {
        let mut arena = [0u8, 1, 2, 3, 4, 5];
        let (i, o) = split(&mut arena, 4, 2, 0, 3);
        assert_eq!(i, &[4, 5]);
        o[0] = 9;
        let (i, o) = split(&mut arena, 0, 2, 2, 2);
        assert_eq!(i, &[9, 1]);
        assert_eq!(o, &[2, 3]);
    }

    #[test]
    #[should_panic(expected = "overlap")]
    fn split_rejects_overlap() {
        let mut arena = [0u8; 8];
        let _ = split(&mut arena, 0, 4, 2, 4);
    }

    #[test]
    fn disjoint_views_keep_the_given_order() {
        let mut arena = [0u8, 1, 2, 3, 4, 5, 6];
        let [a, b, c] = disjoint(&mut arena, [(4, 2), (0, 1), (1, 0)]);
        assert_eq!((&*a, &*b, c.len()), (&[4u8, 5][..], &[0u8][..], 0));
        a[0] = 9;
        assert_eq!(arena[4], 9);
    }

    #[test]
    #[should_panic(expected = "overlap")]
    fn disjoint_rejects_overlap() {
        let mut arena = [0u8; 8];
        let _ = disjoint(&mut arena, [(0, 4), (3, 2)]);
    }

    #[test]
    fn in_place_moves_overlapping_data() {
        let mut arena = [1u8, 2, 3, 4, 0];
        assert_eq!(in_place(&mut arena, 0, 1, 4), &[1, 2, 3, 4]);
    }
}

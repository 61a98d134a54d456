//! Access contracts: what a kernel promises about the order in which it reads one arena input and
//! writes its output. They are the only facts that let the planner overlap two tensors that are
//! live at the same step (`plan/overlap.rs`), and the facts the independent plan checker proves
//! every such overlap against (`plan/check.rs`). Each contract is stated here once, in terms of
//! bytes and pixels; the runtime's and the C kernels' doc comments state the same order, and
//! `tests/parity` runs every declared contract at its tightest overlap in both languages.
//!
//! A kernel declares a contract only for the variants whose code follows it: a call without one
//! keeps its input and output apart, as before.

/// A kernel's promise about one arena input and its output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// The output may occupy exactly the input's bytes: the same offset, the output no larger than
    /// the input. The kernel goes through the elements in order and reads each element (or chunk of
    /// elements) of the input before it writes the output at the same place. Element-wise
    /// operators (activations, ADD and friends on an input of the output's shape, requantization).
    InPlace {
        /// The input tensor (graph index).
        input: usize,
        /// The output tensor (graph index).
        output: usize,
    },
    /// The input is copied, unchanged, to the output's bytes from `offset` on (a CONCATENATION
    /// whose inputs are whole rows of its output), and the kernel copies nothing when the input
    /// already lies there: the input may be placed at the output's offset plus `offset`, for its
    /// producer to write straight into its slice of the output. The output's other bytes are
    /// written from the other inputs, never these.
    Slice {
        /// The input tensor (graph index).
        input: usize,
        /// The output tensor (graph index).
        output: usize,
        /// Where in the output the input's bytes go.
        offset: usize,
    },
    /// A stream over output pixels ([`Stream`]): the output may overlap the input's early part, at
    /// an offset far enough below it that no write reaches an input byte still to be read; or,
    /// when the stream is [`reversible`](Stream::reversible), its late part, far enough above it.
    Stream {
        /// The input tensor (graph index).
        input: usize,
        /// The output tensor (graph index).
        output: usize,
        /// The geometry and grouping of the stream.
        stream: Stream,
    },
}

impl Access {
    /// The input and output tensors the contract is about.
    pub fn tensors(&self) -> (usize, usize) {
        match *self {
            Access::InPlace { input, output }
            | Access::Slice { input, output, .. }
            | Access::Stream { input, output, .. } => (input, output),
        }
    }
}

/// A kernel that computes its output pixel by pixel, in row-major order over (batch, y, x), each
/// from a window of the input.
///
/// - Output pixel `p` (of `batches · output_h · output_w`) is the output bytes
///   `[O + p · output_pixel, O + (p + 1) · output_pixel)`.
/// - `minread(p)`, for `p = (b, y, x)`, is the lowest input byte its window reads, relative to the
///   input's offset `I`, the window's corner clamped to the image:
///   `((b · input_h + max(0, y · stride_h − pad_top)) · input_w + max(0, x · stride_w − pad_left))
///   · input_pixel`.
/// - Pixels are computed in groups of `group` consecutive pixels (the last group may be shorter),
///   counted over the flattened index (a group may cross rows).
///
/// The kernel promises that it computes the groups in increasing order and that every input byte
/// it reads while computing a group lies at or above `I + ` the smallest `minread` of the group's
/// pixels. So a write of group `G` is harmless when it avoids `[I + lo(G), I + input length)`,
/// where `lo(G)` is the smallest `minread` of the group's pixels and every later pixel (of the next
/// group's pixels and later when `reads_first`: every read of the group precedes its first write;
/// the input length after the last group). The smallest, not the first's: with `pad_top ≥
/// stride_h`, output row 1 reads input row 0 again, so `minread` is not monotone, and a pair's
/// second pixel may start a row whose window lies left of the first's.
///
/// A [`reversible`](Self::reversible) kernel also runs the same groups in decreasing order when
/// its output starts above its input (it compares the two offsets), and then reads, while
/// computing a group, only input bytes below `I + ` the largest `maxread` of the group's pixels:
/// `maxread(p)` is one past the last byte of the window's last pixel (its far corner, clamped to
/// the image, from [`window_h`](Self::window_h) and [`window_w`](Self::window_w)). A write of group
/// `G` is then harmless when it avoids `[I, I + hi(G))`, `hi(G)` the largest `maxread` of the
/// group's pixels and every earlier pixel (earlier pixels only when `reads_first`). Two layers in a
/// row can so alternate directions, and an activation moves by one gap and back instead of by
/// the sum of the gaps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stream {
    /// Images.
    pub batches: usize,
    /// Input rows per image.
    pub input_h: usize,
    /// Input pixels per row.
    pub input_w: usize,
    /// Bytes per input pixel.
    pub input_pixel: usize,
    /// Output rows per image.
    pub output_h: usize,
    /// Output pixels per row.
    pub output_w: usize,
    /// Bytes per output pixel.
    pub output_pixel: usize,
    /// Input rows between consecutive output rows' windows.
    pub stride_h: usize,
    /// Input pixels between consecutive output pixels' windows.
    pub stride_w: usize,
    /// Rows of padding above the image: output row `y`'s window starts at input row
    /// `y · stride_h − pad_top`.
    pub pad_top: usize,
    /// Pixels of padding left of the image.
    pub pad_left: usize,
    /// Input rows a window spans: `(filter_h − 1) · dilation_h + 1`.
    pub window_h: usize,
    /// Input pixels a window spans in a row: `(filter_w − 1) · dilation_w + 1`.
    pub window_w: usize,
    /// Output pixels computed together.
    pub group: usize,
    /// Every read of a group precedes its first write.
    pub reads_first: bool,
    /// The kernel also streams in reverse (groups in decreasing order) when its output starts
    /// above its input.
    pub reversible: bool,
}

impl Stream {
    /// A flat stream of `pixels` pixels each computed from the input pixel at its own index (a
    /// 1×1 convolution, FULLY_CONNECTED rows): one input row, stride 1, no padding.
    pub fn pointwise(
        pixels: usize,
        (input_pixel, output_pixel): (usize, usize),
        group: usize,
    ) -> Stream {
        Stream {
            batches: 1,
            input_h: 1,
            input_w: pixels,
            input_pixel,
            output_h: 1,
            output_w: pixels,
            output_pixel,
            stride_h: 1,
            stride_w: 1,
            pad_top: 0,
            pad_left: 0,
            window_h: 1,
            window_w: 1,
            group,
            reads_first: false,
            reversible: false,
        }
    }

    /// The same stream, declared [`reversible`](Self::reversible).
    pub fn reversible(self) -> Stream {
        Stream {
            reversible: true,
            ..self
        }
    }

    /// Output pixels in all.
    pub fn pixels(&self) -> usize {
        self.batches * self.output_h * self.output_w
    }

    /// Bytes of input the stream reads (its input tensor's size).
    pub fn input_len(&self) -> usize {
        self.batches * self.input_h * self.input_w * self.input_pixel
    }

    /// Bytes of output the stream writes (its output tensor's size).
    pub fn output_len(&self) -> usize {
        self.pixels() * self.output_pixel
    }

    /// `minread(p)`: the lowest input byte output pixel `p`'s window reads, relative to the input.
    pub fn min_read(&self, p: usize) -> usize {
        let plane = self.output_h * self.output_w;
        let (b, y, x) = (p / plane, p % plane / self.output_w, p % self.output_w);
        let row = (y * self.stride_h).saturating_sub(self.pad_top);
        let col = (x * self.stride_w).saturating_sub(self.pad_left);
        ((b * self.input_h + row) * self.input_w + col) * self.input_pixel
    }

    /// `maxread(p)`: one past the last input byte output pixel `p`'s window reads, relative to the
    /// input (the window's far corner clamped to the image; a window wholly outside the image
    /// counts from its clamped corner, which only overstates it).
    pub fn max_read(&self, p: usize) -> usize {
        let plane = self.output_h * self.output_w;
        let (b, y, x) = (p / plane, p % plane / self.output_w, p % self.output_w);
        let last = |at: usize, span: usize, pad: usize, len: usize| {
            (at + span.max(1) - 1)
                .saturating_sub(pad)
                .min(len.saturating_sub(1))
        };
        let row = last(y * self.stride_h, self.window_h, self.pad_top, self.input_h);
        let col = last(
            x * self.stride_w,
            self.window_w,
            self.pad_left,
            self.input_w,
        );
        ((b * self.input_h + row) * self.input_w + col + 1) * self.input_pixel
    }
}

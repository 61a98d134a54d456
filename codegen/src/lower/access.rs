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

    /// The kind of the contract, as [`CONTRACTS`] lists it.
    pub fn kind(&self) -> Contract {
        match self {
            Access::InPlace { .. } => Contract::InPlace,
            Access::Slice { .. } => Contract::Slice,
            Access::Stream { stream, .. } if stream.reversible => Contract::ReversibleStream,
            Access::Stream { .. } => Contract::Stream,
        }
    }
}

/// The kinds of [`Access`] contract a kernel keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Contract {
    /// [`Access::InPlace`].
    InPlace,
    /// [`Access::Slice`].
    Slice,
    /// [`Access::Stream`], forwards only.
    Stream,
    /// [`Access::Stream`] that is [`reversible`](Stream::reversible): forwards, or backwards when
    /// the output starts above the input.
    ReversibleStream,
}

/// Every kernel that keeps an access contract, `(module, function, contract)`, one entry per
/// kernel and kind: the one statement of which kernel code keeps which order, read on both sides.
/// The lowering may declare a contract on a kernel only as listed here (any other is an internal
/// error, `lower::ops::lower`), and `tests/parity` fails unless it has run each entry at its
/// tightest overlap, in Rust and in C. A kernel whose code starts keeping a contract gets its
/// entry here, with the corner case that overlaps it.
pub const CONTRACTS: &[(&str, &str, Contract)] = &[
    // Element by element, each read before it is written (runtime/src/kernels/activations.rs).
    ("activations", "relu_f32", Contract::InPlace),
    ("activations", "floor_f32", Contract::InPlace),
    ("activations", "ceil_f32", Contract::InPlace),
    ("activations", "round_f32", Contract::InPlace),
    ("activations", "elu_f32", Contract::InPlace),
    ("activations", "relu6_f32", Contract::InPlace),
    ("activations", "relu_s8", Contract::InPlace),
    ("activations", "relu_s16", Contract::InPlace),
    ("activations", "relu6_s8", Contract::InPlace),
    ("activations", "relu6_s16", Contract::InPlace),
    ("activations", "leaky_relu_f32", Contract::InPlace),
    ("activations", "leaky_relu_s8", Contract::InPlace),
    ("activations", "leaky_relu_s16", Contract::InPlace),
    ("activations", "hard_swish_f32", Contract::InPlace),
    ("activations", "hard_swish_s8", Contract::InPlace),
    // Element by element, each read before it is written (runtime/src/kernels/math.rs).
    ("math", "rsqrt_f32", Contract::InPlace),
    ("math", "lut_s8", Contract::InPlace),
    ("math", "abs_f32", Contract::InPlace),
    ("math", "abs_s16", Contract::InPlace),
    ("math", "neg_f32", Contract::InPlace),
    ("math", "sqrt_f32", Contract::InPlace),
    ("math", "square_f32", Contract::InPlace),
    ("math", "exp_f32", Contract::InPlace),
    ("math", "log_f32", Contract::InPlace),
    ("math", "sin_f32", Contract::InPlace),
    ("math", "cos_f32", Contract::InPlace),
    // Each input a whole row of the output, copied only when it is not there already
    // (runtime/src/kernels/concat.rs).
    ("concat", "concat1", Contract::Slice),
    ("concat", "concat2", Contract::Slice),
    ("concat", "concat3", Contract::Slice),
    ("concat", "concat4", Contract::Slice),
    ("concat", "concat5", Contract::Slice),
    ("concat", "concat6", Contract::Slice),
    ("concat", "concat7", Contract::Slice),
    ("concat", "concat8", Contract::Slice),
    ("concat", "concat9", Contract::Slice),
    ("concat", "concat10", Contract::Slice),
    ("concat", "concat", Contract::Slice),
    // Output pixels in order from windows of the input (runtime/src/kernels/conv.rs).
    ("conv", "conv2d_1x1_s8", Contract::ReversibleStream),
    ("conv", "conv2d_1x1_widened_s8", Contract::Stream),
    ("conv", "conv2d_im2col_s8", Contract::Stream),
    ("conv", "conv2d_im2col_pairs_s8", Contract::Stream),
    ("conv", "conv2d_im2col_gather_pairs_s8", Contract::Stream),
    (
        "depthwise",
        "depthwise_conv2d_s8",
        Contract::ReversibleStream,
    ),
    // Chunk by chunk, each chunk of both inputs read before it is written
    // (runtime/src/kernels/elementwise.rs).
    ("elementwise", "add_s8", Contract::InPlace),
    ("elementwise", "prelu_s8", Contract::InPlace),
    ("elementwise", "prelu_s16", Contract::InPlace),
    ("elementwise", "prelu_f32", Contract::InPlace),
    ("elementwise", "sub_s8", Contract::InPlace),
    ("elementwise", "add_s16", Contract::InPlace),
    ("elementwise", "sub_s16", Contract::InPlace),
    ("elementwise", "mul_s8", Contract::InPlace),
    ("elementwise", "mul_s16", Contract::InPlace),
    ("elementwise", "add_f32", Contract::InPlace),
    ("elementwise", "sub_f32", Contract::InPlace),
    ("elementwise", "mul_f32", Contract::InPlace),
    ("elementwise", "maximum_s8", Contract::InPlace),
    ("elementwise", "minimum_s8", Contract::InPlace),
    ("elementwise", "maximum_s16", Contract::InPlace),
    ("elementwise", "minimum_s16", Contract::InPlace),
    ("elementwise", "maximum_f32", Contract::InPlace),
    ("elementwise", "minimum_f32", Contract::InPlace),
    ("elementwise", "add_s32", Contract::InPlace),
    ("elementwise", "sub_s32", Contract::InPlace),
    ("elementwise", "mul_s32", Contract::InPlace),
    ("elementwise", "maximum_s32", Contract::InPlace),
    ("elementwise", "minimum_s32", Contract::InPlace),
    ("elementwise", "squared_difference_s8", Contract::InPlace),
    ("elementwise", "squared_difference_s16", Contract::InPlace),
    ("elementwise", "squared_difference_f32", Contract::InPlace),
    ("elementwise", "squared_difference_s32", Contract::InPlace),
    ("elementwise", "div_s8", Contract::InPlace),
    ("elementwise", "div_f32", Contract::InPlace),
    ("elementwise", "div_s32", Contract::InPlace),
    // The same-shape entries: the same access order, element by element.
    ("elementwise", "add_s8_flat", Contract::InPlace),
    ("elementwise", "sub_s8_flat", Contract::InPlace),
    ("elementwise", "mul_s8_flat", Contract::InPlace),
    ("elementwise", "add_s16_flat", Contract::InPlace),
    ("elementwise", "sub_s16_flat", Contract::InPlace),
    ("elementwise", "mul_s16_flat", Contract::InPlace),
    ("elementwise", "add_f32_flat", Contract::InPlace),
    ("elementwise", "sub_f32_flat", Contract::InPlace),
    ("elementwise", "mul_f32_flat", Contract::InPlace),
    // Output elements no wider than the input's, each element (or chunk) read before it is written
    // (runtime/src/kernels/quantize.rs).
    ("quantize", "quantize_f32_s8", Contract::InPlace),
    ("quantize", "quantize_f32_s16", Contract::InPlace),
    ("quantize", "requantize_s8", Contract::InPlace),
    ("quantize", "requantize_s16_s8", Contract::InPlace),
    ("quantize", "requantize_s16", Contract::InPlace),
    ("quantize", "requantize_s8_u8", Contract::InPlace),
    ("quantize", "requantize_u8_s8", Contract::InPlace),
    ("quantize", "requantize_s32_s8", Contract::InPlace),
    ("quantize", "requantize_s32_s16", Contract::InPlace),
];

/// Whether [`CONTRACTS`] lists `contract` for kernel `module::function`.
pub fn keeps(module: &str, function: &str, contract: Contract) -> bool {
    CONTRACTS.contains(&(module, function, contract))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One kind per kernel: a kernel's code keeps one order.
    #[test]
    fn each_kernel_is_listed_once() {
        for (i, (module, function, _)) in CONTRACTS.iter().enumerate() {
            assert!(
                !CONTRACTS[..i]
                    .iter()
                    .any(|(m, f, _)| m == module && f == function),
                "{module}::{function} is listed twice"
            );
        }
        assert!(keeps("conv", "conv2d_1x1_s8", Contract::ReversibleStream));
        assert!(!keeps("conv", "conv2d_1x1_s8", Contract::Stream));
    }
}

//! The kernels, one module per operator family. See the crate documentation for the calling convention.
//!
//! On bare-metal targets (`target_os = "none"`), where flash is the budget, every kernel is
//! compiled once however many operators call it: each entry point is `#[inline(never)]` and passes
//! its parameter reference through `opaque`, so that link-time optimisation neither inlines a copy
//! into `invoke` per operator nor clones a specialisation per constant parameter struct. Flash then
//! holds one copy of each kernel a model uses, at a cost of a few percent in speed on the
//! Cortex-M4 (`cargo xtask mcu`). Elsewhere the optimiser is left free to specialise.

/// `assert!(cond, "message")` for a kernel's check of its operands and parameters: with debug
/// assertions (the tests) it panics with the message; without them (a release build, the
/// firmware) through [`out_of_contract`], one shared call without arguments, where `assert!`
/// passes the message and a source location at each check (22 bytes of Cortex-M4 code).
macro_rules! ensure {
    ($cond:expr, $msg:literal $(,)?) => {
        if !$cond {
            if cfg!(debug_assertions) {
                panic!($msg)
            } else {
                $crate::kernels::out_of_contract()
            }
        }
    };
}

// Helpers the kernels share.
mod broadcast;
mod elem;
mod nn_common;
mod strided_walk;

// Written by `cargo kernels`: one module per family (a file here with a C twin
// templates/c/kernels/<family>.c.tera). Do not edit down to the end marker.
pub mod activations;
pub mod arg_min_max;
pub mod batch_matmul;
pub mod broadcast_args;
pub mod cast;
pub mod circular_buffer;
pub mod comparison;
pub mod concat;
pub mod conv;
pub mod conv_int4;
pub mod copy;
pub mod cumsum;
pub mod decode;
pub mod depthwise;
pub mod depthwise_int4;
pub mod detection_postprocess;
pub mod dynamic_update_slice;
pub mod elementwise;
pub mod fully_connected;
pub mod fully_connected_int4;
pub mod gather;
pub mod l2_norm;
pub mod logical;
pub mod logistic_tanh;
pub mod lstm;
pub mod math;
pub mod pad;
pub mod pool;
pub mod quantize;
pub mod reduce;
pub mod resize;
pub mod select;
pub mod signal;
pub mod softmax;
pub mod split;
pub mod strided_slice;
pub mod svdf;
pub mod transpose;
pub mod transpose_conv;
// End of the lines written by `cargo kernels`.

/// The most dimensions a kernel's shape parameters may have, after generation time has merged
/// the dimensions it can (TFLM's kernels take at most 6 as well). Loops that walk a shape keep their
/// index in an array of this size. `cargo kernels` copies it to the lowering
/// (`codegen/src/lower/params.rs`), which refuses anything longer, and the C backend declares it
/// as `<PREFIX>_MAX_RANK`.
pub const MAX_RANK: usize = 6;

/// The most bytes of one convolution window (`filter_h * filter_w * input_c`) that
/// [`conv::conv2d_im2col_s8`] gathers into its stack buffer. `cargo kernels` copies it to
/// the lowering, which picks that kernel only for windows this small, and the C backend declares it
/// as `<PREFIX>_IM2COL_MAX`. 576 bytes holds a 3×3 window of 64 channels and keeps the stack under
/// 1.5 KB.
pub const IM2COL_MAX: usize = 576;

/// The input channels (bytes) of two pixels that the paired matrix-product kernels widen to 16-bit
/// lanes at once, in a stack buffer of `4 * WIDE_CHANNELS` bytes; longer rows are taken in chunks.
/// Half of it is the longest window whose channels are not whole words
/// [`conv::conv2d_im2col_gather_pairs_s8`] gathers (two such windows on the stack beside the widened
/// buffer). `cargo kernels` copies it to the lowering, which picks that kernel for such
/// windows only when this small, and the C backend declares it as `<PREFIX>_WIDE_CHANNELS`.
pub const WIDE_CHANNELS: usize = 128;

/// `v` limited to `lo..=hi`, for bounds known only at run time (`lo <= hi`, as every generated
/// parameter struct has them). Not `Ord::clamp`: its check of the bounds panics with a message
/// that formats both, which brings the integers' `Debug` formatting (half a kilobyte) into the
/// flash of every model with such a kernel.
#[inline(always)]
pub(crate) fn clamp<T: Ord>(v: T, lo: T, hi: T) -> T {
    v.max(lo).min(hi)
}

/// Called in the body of a loop that runs once per kernel call or per border pixel (set-up: tap
/// tables, bounds, shape arithmetic), keeps that loop rolled on bare-metal ARM. LLVM's Cortex-M
/// tuning unrolls every small loop without a call four times at run time, with an unrolled
/// remainder (seven copies of the body): worth it in a kernel's inner loop, only flash in its
/// set-up (about 1.7 KB of person_detect's Cortex-M4 code). An empty assembly block counts as a
/// call there; it emits no instruction and touches no memory, register or flag, so the loop is
/// otherwise optimised as before. Elsewhere (hosts, Miri) it is nothing.
#[inline(always)]
pub(crate) fn keep_rolled() {
    #[cfg(all(target_arch = "arm", target_os = "none"))]
    // SAFETY: an empty assembly block: no instruction, and nothing read or written (`nomem`,
    // `nostack`, `preserves_flags`, no operands).
    unsafe {
        core::arch::asm!("", options(nomem, nostack, preserves_flags))
    };
}

/// The product of `dims` (a shape's element count), in a rolled loop ([`keep_rolled`]): a
/// kernel's set-up, which the compiler otherwise unrolled four times with a remainder at each of
/// its 30-odd sites.
#[inline(always)]
pub(crate) fn elements(dims: &[usize]) -> usize {
    let mut n = 1usize;
    for &d in dims {
        keep_rolled();
        n *= d;
    }
    n
}

/// An axis read at run time from a tensor of `rank` dimensions, as TFLM's kernels resolve it (plus
/// the rank if negative), or `None` outside `0..rank`, where TFLM fails or is undefined. In i64:
/// `axis + rank` cannot overflow for any int32 (TFLM's int sum cannot either, the axis negative).
#[inline(always)]
pub(crate) fn run_time_axis(axis: i32, rank: usize) -> Option<usize> {
    let resolved = if axis < 0 {
        i64::from(axis) + rank as i64
    } else {
        i64::from(axis)
    };
    usize::try_from(resolved).ok().filter(|&a| a < rank)
}

/// Where a kernel's check of its operands or parameters fails: a range past an operand's end, a
/// split past a slice's. Generated code never gets here (its parameter structs and offsets are
/// checked at generation time); the checks keep a wrong hand-written call from reading out of
/// bounds. One call without arguments, shared by every check: each costs its compare and branch,
/// where std's slice indexing passes the range, the length and a source location (12 to 22 bytes
/// of Cortex-M4 code per check; 2.3 KB of ds_cnn's Rust code went to them).
#[cold]
#[inline(never)]
pub(crate) fn out_of_contract() -> ! {
    panic!("tinyaot kernel: an operand or parameter outside its contract (a range past its end)")
}

/// Indexing and splitting of the kernels' slices that fails through [`out_of_contract`] (the
/// same checks as `[]` and `split_at`, at the cost of a compare and branch each).
pub(crate) trait Within<T> {
    /// `&self[index]`.
    fn at<I: core::slice::SliceIndex<[T]>>(&self, index: I) -> &I::Output;
    /// `&mut self[index]`.
    fn at_mut<I: core::slice::SliceIndex<[T]>>(&mut self, index: I) -> &mut I::Output;
    /// `self.split_at(mid)`.
    fn cut(&self, mid: usize) -> (&[T], &[T]);
    /// `self.split_at_mut(mid)`.
    fn cut_mut(&mut self, mid: usize) -> (&mut [T], &mut [T]);
}

impl<T> Within<T> for [T] {
    #[inline(always)]
    fn at<I: core::slice::SliceIndex<[T]>>(&self, index: I) -> &I::Output {
        match self.get(index) {
            Some(part) => part,
            None => out_of_contract(),
        }
    }

    #[inline(always)]
    fn at_mut<I: core::slice::SliceIndex<[T]>>(&mut self, index: I) -> &mut I::Output {
        match self.get_mut(index) {
            Some(part) => part,
            None => out_of_contract(),
        }
    }

    #[inline(always)]
    fn cut(&self, mid: usize) -> (&[T], &[T]) {
        match self.split_at_checked(mid) {
            Some(parts) => parts,
            None => out_of_contract(),
        }
    }

    #[inline(always)]
    fn cut_mut(&mut self, mid: usize) -> (&mut [T], &mut [T]) {
        match self.split_at_mut_checked(mid) {
            Some(parts) => parts,
            None => out_of_contract(),
        }
    }
}

/// `p`, hidden from the optimiser on bare-metal targets (see the module documentation).
#[inline(always)]
fn opaque<T>(p: &T) -> &T {
    #[cfg(target_os = "none")]
    let p = core::hint::black_box(p);
    p
}

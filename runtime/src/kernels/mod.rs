//! The kernels, one module per operator family. See the crate documentation for the calling convention.
//!
//! On bare-metal targets (`target_os = "none"`), where flash is the budget, every kernel is
//! compiled once however many operators call it: each entry point is `#[inline(never)]` and passes
//! its parameter reference through `opaque`, so that link-time optimisation neither inlines a copy
//! into `invoke` per operator nor clones a specialisation per constant parameter struct. Flash then
//! holds one copy of each kernel a model uses, at a cost of a few percent in speed on the
//! Cortex-M4 (`cargo xtask mcu`). Elsewhere the optimiser is left free to specialise.

pub mod activations;
mod broadcast;
pub mod concat;
pub mod conv;
pub mod copy;
pub mod depthwise;
mod elem;
pub mod elementwise;
pub mod fully_connected;
mod gather;
pub mod logistic_tanh;
pub mod mean;
mod nn_common;
pub mod pad;
pub mod pool;
pub mod quantize;
pub mod softmax;
pub mod strided_slice;
pub mod transpose;

/// `p`, hidden from the optimiser on bare-metal targets (see the module documentation).
#[inline(always)]
fn opaque<T>(p: &T) -> &T {
    #[cfg(target_os = "none")]
    let p = core::hint::black_box(p);
    p
}

//! The kernels, one module per operator family. See the crate documentation for the calling convention.
//!
//! Every kernel is compiled once, however many operators call it: each entry point is
//! `#[inline(never)]`, and passes its parameter reference through [`core::hint::black_box`] so that
//! link-time optimisation neither inlines a copy into `invoke` per operator nor clones a
//! specialisation per constant parameter struct. Flash then holds one copy of each kernel a model
//! uses (a few KB in all) at a cost of a few percent in speed, measured on the Cortex-M4 with
//! `cargo xtask mcu`.

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

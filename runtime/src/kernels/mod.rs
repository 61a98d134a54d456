//! The kernels, one module per operator family. See the crate documentation for the calling convention.

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

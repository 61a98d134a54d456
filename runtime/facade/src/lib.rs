//! tinyaot: runs TensorFlow Lite models compiled ahead of time by `tinyaot-codegen` (from a
//! build script, the `tinyaot` command line, or [`include_model!`] with the default feature
//! `macros`).
//!
//! Everything here is `tinyaot-runtime` re-exported (the `no_std`, allocation-free kernels,
//! [`Arena`], [`Src`], the [`Model`] trait and the operator hooks), plus the macro. The two are
//! separate crates because the code generator runs the same kernels on the host to fold constant
//! operators, and the macro depends on the generator: generated code names this crate,
//! `::tinyaot`, and depends on nothing else.
#![no_std]
#![deny(missing_docs)]

pub use tinyaot_runtime::*;

#[cfg(feature = "macros")]
pub use tinyaot_macros::include_model;

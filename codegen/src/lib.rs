//! tinyaot-codegen: compiles a TensorFlow Lite model ahead of time into static inference code.
//!
//! Data flows one way: [`load`] (bytes to a verified graph [`ir`]) → [`plan`] (arena offsets) →
//! [`lower`] (what TFLM computes in Prepare) → [`emit`] (Rust or C source). [`Config`] is the build.rs
//! API, `include_model!` (crate `tinyaot-macros`) and the `tinyaot` command line ([`cli`]) sit on top.
#![deny(missing_docs)]

pub mod cli;
pub mod config;
pub mod emit;
pub mod error;
pub mod ir;
pub mod limits;
pub mod load;
pub mod lower;
pub mod plan;

pub use config::{c_sources, rust_source, Config};
pub use emit::c::COptions;
pub use emit::rust::RustOptions;
pub use error::{Error, Result};
pub use limits::Limits;

//! tinyaot-schema: the TensorFlow Lite FlatBuffers schema as Rust, read as TFLM reads it.
//!
//! [`tflite`] is the code `flatc` 25.12.19 generates from this crate's `tflite.fbs`, post-processed
//! by `schema/postprocess.pl` (checked in as `src/tflite_generated.rs`, never edited by hand).
//! Regenerate it with `schema/regen.sh`; CI runs `schema/regen.sh --check` (flatc's output, after
//! the same post-processing, must equal the checked-in file), and this crate's tests fail when
//! `tflite.fbs` changed without a regeneration (they compare the schema's SHA-256 with the one
//! `regen.sh` recorded).
//!
//! The post-processing makes two changes to flatc's code, both so that the models TensorFlow Lite
//! Micro runs load here too:
//! - verification goes through [`verifier`], this crate's own verifier: the bounds guarantees and
//!   limits of the `flatbuffers` crate's, without its alignment requirement (TFLM reads with
//!   unaligned loads, and vendor tools leave vectors off their natural alignment) and without
//!   requiring strings to be UTF-8 (TFLM never reads names);
//! - string accessors read through [`strings::LenientStr`], which checks UTF-8 when it reads (a
//!   string that is not UTF-8 reads as [`strings::REPLACEMENT`]), and every string field gains a
//!   `<field>_bytes()` accessor returning the stored bytes, for keys compared exactly.
//!
//! Reading a model: [`tflite::root_as_model_with_opts`] verifies the buffer with explicit limits
//! and returns the root [`tflite::Model`] table; every accessor after that is bounds-safe (reads
//! are unaligned loads, which the `flatbuffers` crate's accessors are).
#![deny(missing_docs)]

// The generated code is not documented and trips many lints; it is kept byte-for-byte as flatc and
// postprocess.pl wrote it so that `regen.sh --check` stays a plain diff, hence the allows here
// rather than edits.
#[allow(
    unknown_lints,
    missing_docs,
    unused_imports,
    dead_code,
    deprecated,
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    unsafe_op_in_unsafe_fn,
    mismatched_lifetime_syntaxes,
    clippy::all,
    clippy::pedantic
)]
#[rustfmt::skip]
mod tflite_generated;

pub mod strings;
pub mod verifier;

/// The `tflite` namespace of the schema: `Model`, `SubGraph`, `Tensor`, `Operator`, the
/// `BuiltinOperator` and `TensorType` enums, every options table, and the root accessors
/// (`root_as_model_with_opts`, `MODEL_IDENTIFIER`, …).
pub use tflite_generated::tflite;

/// SHA-256 (lowercase hex) of the `tflite.fbs` that `src/tflite_generated.rs` was generated from,
/// as recorded by `schema/regen.sh`.
pub const SCHEMA_SHA256: &str = include_str!("tflite.fbs.sha256");

/// The schema source itself, for tools that want to show or hash it.
pub const SCHEMA_FBS: &str = include_str!("../tflite.fbs");

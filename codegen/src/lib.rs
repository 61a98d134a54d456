//! tinyaot-codegen: compiles a TensorFlow Lite model ahead of time into static inference code, Rust
//! or C, for microcontrollers.
//!
//! The API is [`Config`]: from a build script, [`Config::compile`] writes `$OUT_DIR/<stem>.rs` and
//! [`Config::compile_c`] self-contained C99 sources with a `CMakeLists.txt` (or the files of
//! another build system, [`CLayout`]); [`Config::plan`] gives the memory plan as a
//! [`PlanReport`] (what `tinyaot plan` prints). Several models that run one after another share
//! one arena through [`Config::compile_group`] and [`Config::compile_group_c`] (each a
//! [`GroupModel`]; [`Config::plan_group`] gives their plans as a [`GroupPlan`]). [`Limits`]
//! bound what a model may ask for, and every refusal is an [`Error`] (a generator bug is
//! [`Error::Internal`], see [`Error::is_internal`]). [`rust_source`] and [`c_sources`] are the
//! same pipeline, pure, for callers with the model's bytes in hand. The `tinyaot` command line
//! (crate `tinyaot-cli`) and `include_model!` (crate `tinyaot-macros`) sit on top.
//!
//! ```no_run
//! // build.rs: the model as Rust (include!(concat!(env!("OUT_DIR"), "/net.rs")) in src/)…
//! tinyaot_codegen::Config::new().compile("models/net.tflite")?;
//! // …and as C, for a C program linked into the same crate (with the `cc` crate, say).
//! # #[cfg(feature = "c")] {
//! let files = tinyaot_codegen::Config::new()
//!     .prefix("net")
//!     .compile_c("models/net.tflite")?;
//! let c_files: Vec<_> = files.iter().filter(|f| f.extension() == Some("c".as_ref())).collect();
//! # let _ = c_files;
//! # }
//! # Ok::<(), tinyaot_codegen::Error>(())
//! ```
//!
//! # Features
//!
//! - `c` (default): the C backend — [`Config::compile_c`], [`Config::generate_c`],
//!   [`Config::prefix`], [`Config::layout`], [`c_sources`], [`COptions`], [`CLayout`] — with its
//!   embedded templates and their engine, `tera`. A build script that only writes Rust
//!   ([`Config::compile`]) needs none of it: `tinyaot-codegen = { version = "…",
//!   default-features = false }` builds fewer crates (the README's "From build.rs" gives the
//!   figures).
//!
//! Inside, data flows one way: `load` (bytes to a verified graph, `ir`) → `fold` (operators of
//! constants computed at generation time) → `lower` (what TFLM computes in Prepare) → `plan`
//! (arena offsets) → `emit` (Rust or C source). Those modules are public
//! only for the workspace's other crates and are hidden from these docs: they are not a stable API.
#![deny(missing_docs)]

// The `#[doc(hidden)]` modules are public for the project's own crates only, and no stable API.
// Which crate uses what is `grep -rn 'tinyaot_codegen::<module>' --include=*.rs`, not a list
// kept here.
#[doc(hidden)]
pub mod config;
#[doc(hidden)]
pub mod cost;
#[doc(hidden)]
pub mod emit;
mod error;
#[doc(hidden)]
pub mod fold;
#[doc(hidden)]
pub mod ir;
mod limits;
#[doc(hidden)]
pub mod load;
#[doc(hidden)]
pub mod lower;
#[doc(hidden)]
pub mod plan;

#[cfg(feature = "c")]
pub use config::c_sources;
pub use config::{rust_source, Config, GroupModel, GroupPlan, PlanReport, Planning};
#[cfg(feature = "c")]
pub use emit::c::COptions;
#[cfg(feature = "c")]
pub use emit::c_build::CLayout;
pub use emit::rust::RustOptions;
pub use error::{Error, Grounds, Result};
pub use limits::Limits;
pub use plan::{Alias, AliasKind, MemoryPlan, Storage, TensorPlacement, ALIGN};

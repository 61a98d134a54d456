//! tinyaot-modelkit's own tests, one module per module of the library. They are an integration
//! test rather than unit tests so that `cargo test` builds the library once (the code generator's
//! tests link it too) instead of compiling it a second time as a test harness.

mod flexbuffer;
#[cfg(feature = "arbitrary")]
mod fuzz;
mod hostile;
mod int4;
mod patch;
mod spec;

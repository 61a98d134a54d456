//! TFLM's micro_speech keyword pipeline compiled by tinyaot: the audio preprocessor and the keyword
//! model as one group sharing one arena (build.rs), and the framing of TFLM's example over them
//! ([`features`], [`scores`], [`classify`]). `no_std` and without allocation, as on a
//! microcontroller; `src/main.rs` runs it on audio files.
//!
//! Built without TFLM's models (see build.rs) the crate holds only [`MODELS`], `false`.
#![no_std]

/// Whether build.rs found and compiled the two models (else the crate has nothing else).
pub const MODELS: bool = cfg!(micro_speech_models);

#[cfg(micro_speech_models)]
mod group {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}

#[cfg(micro_speech_models)]
pub use group::{Keyword, Models, Preprocessor};

#[cfg(micro_speech_models)]
mod pipeline;

#[cfg(micro_speech_models)]
pub use pipeline::*;

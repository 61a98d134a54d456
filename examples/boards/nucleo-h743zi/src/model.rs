//! The model this example runs and TFLM's golden case for it: the part of the program that is
//! not the board's. `cargo xtask boards` builds this file, with `../../inference.rs`, into a
//! program for QEMU's Cortex-M7 machine (`mps2-an500`) and checks the same inference there
//! (examples/boards/qemu).

// The model, compiled when this crate builds (the path is relative to Cargo.toml). Its weights
// are `static`s in flash; its arena is a field of `Vww`.
tinyaot::include_model!(
    "../../../tests/fixtures/models/vww_mobilenet_v1_025.tflite",
    name = Vww
);

/// TFLM's golden input, case 0 (an int8 96 x 96 RGB image).
pub static INPUT: &[u8] =
    include_bytes!("../../../../tests/fixtures/golden/vww_mobilenet_v1_025/case0/input0.bin");
/// TFLM's output for it (2 int8 scores: no person, person).
pub static GOLDEN: &[u8] =
    include_bytes!("../../../../tests/fixtures/golden/vww_mobilenet_v1_025/case0/output0.bin");

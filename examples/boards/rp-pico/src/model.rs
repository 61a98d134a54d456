//! The model this example runs and TFLM's golden case for it: the part of the program that is
//! not the board's. `cargo xtask boards` builds this file, with `../../inference.rs`, into a
//! program for QEMU's Cortex-M0+ machine (`mps2-an385`, ARMv6-M code) and checks the same inference there
//! (examples/boards/qemu).

// The model, compiled when this crate builds (the path is relative to Cargo.toml). Its weights
// are `static`s in flash; its arena is a field of `ResNet8`.
tinyaot::include_model!(
    "../../../tests/fixtures/models/resnet8.tflite",
    name = ResNet8
);

/// TFLM's golden input, case 0 (an int8 32 x 32 RGB image).
pub static INPUT: &[u8] =
    include_bytes!("../../../../tests/fixtures/golden/resnet8/case0/input0.bin");
/// TFLM's output for it (10 int8 class scores).
pub static GOLDEN: &[u8] =
    include_bytes!("../../../../tests/fixtures/golden/resnet8/case0/output0.bin");

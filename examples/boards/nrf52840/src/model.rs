//! The model this example runs and TFLM's golden case for it: the part of the program that is
//! not the board's. `cargo xtask boards` builds this file, with `../../inference.rs`, into a
//! program for QEMU's Cortex-M4 machine (`mps2-an386`) and checks the same inference there
//! (examples/boards/qemu).

// The model, compiled when this crate builds (the path is relative to Cargo.toml). Its weights
// are `static`s in flash; its arena is a field of `DsCnn`.
tinyaot::include_model!("../../../tests/fixtures/models/ds_cnn.tflite", name = DsCnn);

/// TFLM's golden input, case 0 (an int8 MFCC spectrogram, 49 x 10).
pub static INPUT: &[u8] =
    include_bytes!("../../../../tests/fixtures/golden/ds_cnn/case0/input0.bin");
/// TFLM's output for it (12 int8 scores).
pub static GOLDEN: &[u8] =
    include_bytes!("../../../../tests/fixtures/golden/ds_cnn/case0/output0.bin");

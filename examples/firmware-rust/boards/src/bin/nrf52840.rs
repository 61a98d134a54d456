//! The nRF52840 example (examples/boards/nrf52840) on QEMU's Cortex-M4 machine (mps2-an386): its model and
//! golden case (its `model.rs`) through the inference every board example runs
//! (examples/boards/inference.rs), checked against TFLM's output.
#![no_std]
#![no_main]

#[path = "../check.rs"]
mod check;
#[path = "../../../../boards/inference.rs"]
mod inference;
#[path = "../../../../boards/nrf52840/src/model.rs"]
mod model;
/// The firmware's start-up, clock and semihosting, of which this program uses the clock, the
/// console and exit.
#[allow(dead_code)]
#[cfg_attr(target_arch = "arm", path = "../../../src/cortex_m.rs")]
#[cfg_attr(target_arch = "riscv32", path = "../../../src/rv32.rs")]
mod platform;

/// Called by the platform's start-up.
fn run() -> ! {
    check::check(&mut model::DsCnn::new(), model::INPUT, model::GOLDEN)
}

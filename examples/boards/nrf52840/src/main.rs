//! DS-CNN keyword spotting on an nRF52840 (Cortex-M4F at 64 MHz), compiled into this program by
//! `tinyaot::include_model!`: one inference on TFLM's golden input (case 0 of the bundled
//! fixture), its output compared byte for byte with TFLM's, and the core cycles of every operator
//! (DWT CYCCNT, read by the operator hook) printed over defmt-rtt. `probe-rs run` exits 0 when the
//! output is bit-exact, and non-zero (a panic) when it is not.
#![no_std]
#![no_main]

use cortex_m::peripheral::DWT;
use cortex_m_rt::entry;
use defmt_rtt as _;
use panic_probe as _;
use tinyaot::Model as _;

use model::{DsCnn, GOLDEN, INPUT};

#[path = "../../inference.rs"]
mod inference;
mod model;

#[entry]
fn main() -> ! {
    // cortex-m-rt turns a `static mut` at the top of `entry` into a `&'static mut`: the model (and
    // its arena) lives in .bss, so the build's RAM figure includes it, and no `unsafe` is needed.
    static mut MODEL: DsCnn = DsCnn::new();
    let model: &'static mut DsCnn = MODEL;

    // Clocks, DC/DC and the chip's errata workarounds; nothing here uses a peripheral of the chip.
    let _peripherals = embassy_nrf::init(Default::default());
    // The flash's instruction cache (off after reset; Zephyr turns it on by default): the code is
    // fetched from flash, which is slower than the core without it.
    embassy_nrf::pac::NVMC
        .icachecnf()
        .write(|w| w.set_cacheen(true));
    let Some(mut core) = cortex_m::Peripherals::take() else {
        defmt::panic!("core peripherals already taken");
    };
    // CYCCNT counts only with the trace block on (DEMCR.TRCENA), which a debugger may not set.
    core.DCB.enable_trace();
    core.DWT.enable_cycle_counter();

    defmt::println!(
        "ds_cnn on nRF52840: arena {=usize} bytes, {=usize}-byte input, {=usize}-byte output",
        DsCnn::ARENA_BYTES,
        INPUT.len(),
        GOLDEN.len()
    );
    let run = inference::infer(model, INPUT, GOLDEN, DWT::cycle_count);
    for (index, entry) in run.per_operator.iter().enumerate() {
        if let Some((name, spent)) = entry {
            defmt::println!("op {=usize} {=str}: {=u32} cycles", index, name, spent);
        }
    }
    defmt::println!("invoke: {=u32} cycles (hook included)", run.total);

    let output = model.output_bytes(0);
    if run.bit_exact {
        defmt::println!(
            "verdict: PASS, output bit-exact with TFLM ({=[u8]})",
            output
        );
        // probe-rs run ends with exit status 0 on a breakpoint.
        loop {
            cortex_m::asm::bkpt();
        }
    }
    defmt::panic!(
        "verdict: FAIL, output {=[u8]} differs from TFLM's {=[u8]}",
        output,
        GOLDEN
    );
}

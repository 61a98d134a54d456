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
use tinyaot::{Model as _, OperatorHook};

// The model, compiled when this crate builds (the path is relative to Cargo.toml). Its weights
// are `static`s in flash; its arena is a field of `DsCnn`.
tinyaot::include_model!("../../../tests/fixtures/models/ds_cnn.tflite", name = DsCnn);

/// TFLM's golden input, case 0 (an int8 MFCC spectrogram, 49 x 10).
static INPUT: &[u8] = include_bytes!("../../../../tests/fixtures/golden/ds_cnn/case0/input0.bin");
/// TFLM's output for it (12 int8 scores).
static GOLDEN: &[u8] = include_bytes!("../../../../tests/fixtures/golden/ds_cnn/case0/output0.bin");

/// Operators the hook has room for, by index (more than DS-CNN has; any beyond go uncounted).
const MAX_OPERATORS: usize = 64;

/// The operator hook: core cycles of each operator, by its index in the `.tflite`.
struct Cycles {
    start: u32,
    per_operator: [Option<(&'static str, u32)>; MAX_OPERATORS],
}

impl OperatorHook for Cycles {
    fn before(&mut self, _index: usize, _name: &'static str) {
        self.start = DWT::cycle_count();
    }

    fn after(&mut self, index: usize, name: &'static str) {
        // Wrapping: CYCCNT is 32 bits (67 s at 64 MHz), and an operator takes far less.
        let cycles = DWT::cycle_count().wrapping_sub(self.start);
        if let Some(slot) = self.per_operator.get_mut(index) {
            *slot = Some((name, cycles));
        }
    }
}

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
    model.input_bytes_mut(0).copy_from_slice(INPUT);
    let mut cycles = Cycles {
        start: 0,
        per_operator: [None; MAX_OPERATORS],
    };
    let start = DWT::cycle_count();
    model.invoke_with(&mut cycles);
    let total = DWT::cycle_count().wrapping_sub(start);

    for (index, entry) in cycles.per_operator.iter().enumerate() {
        if let Some((name, cycles)) = entry {
            defmt::println!("op {=usize} {=str}: {=u32} cycles", index, name, cycles);
        }
    }
    defmt::println!("invoke: {=u32} cycles (hook included)", total);

    let output = model.output_bytes(0);
    if output == GOLDEN {
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

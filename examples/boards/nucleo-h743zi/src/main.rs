//! MobileNet v1 0.25 visual wake words (person / no person, 96 x 96 RGB, int8) on an STM32H743
//! (Cortex-M7 at 400 MHz, the NUCLEO-H743ZI), compiled into this program by
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
use stm32h7xx_hal::{pac, prelude::*};
use tinyaot::{Model as _, OperatorHook};

// The model, compiled when this crate builds (the path is relative to Cargo.toml). Its weights
// are `static`s in flash; its arena is a field of `Vww`.
tinyaot::include_model!(
    "../../../tests/fixtures/models/vww_mobilenet_v1_025.tflite",
    name = Vww
);

/// TFLM's golden input, case 0 (an int8 96 x 96 RGB image).
static INPUT: &[u8] =
    include_bytes!("../../../../tests/fixtures/golden/vww_mobilenet_v1_025/case0/input0.bin");
/// TFLM's output for it (2 int8 scores: no person, person).
static GOLDEN: &[u8] =
    include_bytes!("../../../../tests/fixtures/golden/vww_mobilenet_v1_025/case0/output0.bin");

/// Operators the hook has room for, by index (more than this MobileNet has; any beyond go
/// uncounted).
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
        // Wrapping: CYCCNT is 32 bits (10.7 s at 400 MHz), and an operator takes far less.
        let cycles = DWT::cycle_count().wrapping_sub(self.start);
        if let Some(slot) = self.per_operator.get_mut(index) {
            *slot = Some((name, cycles));
        }
    }
}

#[entry]
fn main() -> ! {
    // cortex-m-rt turns a `static mut` at the top of `entry` into a `&'static mut`: the model (and
    // its arena) lives in .bss, in the DTCM, so the build's RAM figure includes it, and no
    // `unsafe` is needed.
    static mut MODEL: Vww = Vww::new();
    let model: &'static mut Vww = MODEL;

    let (Some(dp), Some(mut core)) = (pac::Peripherals::take(), cortex_m::Peripherals::take())
    else {
        defmt::panic!("peripherals already taken");
    };
    // The core at 400 MHz (voltage scale 1, every revision and board supply) from the internal
    // 64 MHz oscillator through PLL1.
    let pwrcfg = dp.PWR.constrain().freeze();
    let ccdr = dp
        .RCC
        .constrain()
        .sys_ck(400.MHz())
        .freeze(pwrcfg, &dp.SYSCFG);
    // The caches: the weights are read from flash, which is slow (several wait states at 400 MHz)
    // without them. Nothing here does DMA, and all RAM (defmt-rtt's buffer, which the probe
    // reads, included) is in the DTCM, which the data cache does not cover: no maintenance.
    core.SCB.enable_icache();
    core.SCB.enable_dcache(&mut core.CPUID);
    // CYCCNT counts only with the trace block on (DEMCR.TRCENA), which a debugger may not set; the
    // Cortex-M7's DWT also starts software-locked.
    core.DCB.enable_trace();
    DWT::unlock();
    core.DWT.enable_cycle_counter();

    defmt::println!(
        "vww_mobilenet_v1_025 on STM32H743 at {=u32} Hz: arena {=usize} bytes, {=usize}-byte input, {=usize}-byte output",
        ccdr.clocks.c_ck().raw(),
        Vww::ARENA_BYTES,
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

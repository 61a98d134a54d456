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
use tinyaot::Model as _;

use model::{Vww, GOLDEN, INPUT};

#[path = "../../inference.rs"]
mod inference;
mod model;

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

//! DS-CNN keyword spotting on an ESP32-C3 (RV32IMC at 160 MHz), compiled into this program by
//! `tinyaot::include_model!`: one inference on TFLM's golden input (case 0 of the bundled
//! fixture), its output compared byte for byte with TFLM's, and the core cycles of every operator
//! (the C3's machine performance counter, read by the operator hook) printed with esp-println.
#![no_std]
#![no_main]

use esp_println::println;
use static_cell::StaticCell;
use tinyaot::Model as _;

use model::{DsCnn, GOLDEN, INPUT};

#[path = "../../inference.rs"]
mod inference;
mod model;

// The application descriptor the ESP-IDF second-stage bootloader checks before it starts the app.
esp_bootloader_esp_idf::esp_app_desc!();

/// The model instance: in .bss, so the build's RAM figure includes its arena.
static MODEL: StaticCell<DsCnn> = StaticCell::new();

/// Starts the core's cycle counter. The ESP32-C3 implements no `mcycle`; its machine performance
/// counter (custom CSRs: `mpcer` 0x7E0 selects the event, `mpcmr` 0x7E1 enables counting,
/// `mpccr` 0x7E2 is the 32-bit count) counts core clock cycles when event 1 is selected.
fn start_cycle_counter() {
    // SAFETY: writes the C3's performance-counter CSRs, which only this program uses; no memory.
    unsafe {
        core::arch::asm!("csrwi 0x7E0, 1", "csrwi 0x7E1, 1", options(nomem, nostack));
    }
}

/// Core cycles counted so far (`mpccr`).
#[inline(always)]
fn cycle_count() -> u32 {
    let cycles: u32;
    // SAFETY: reads a CSR into a register; no memory.
    unsafe {
        core::arch::asm!("csrr {0}, 0x7E2", out(reg) cycles, options(nomem, nostack));
    }
    cycles
}

#[esp_hal::main]
fn main() -> ! {
    // The core at its maximum, 160 MHz.
    let _peripherals =
        esp_hal::init(esp_hal::Config::default().with_cpu_clock(esp_hal::clock::CpuClock::max()));
    start_cycle_counter();
    let model = MODEL.init_with(DsCnn::new);

    println!(
        "ds_cnn on ESP32-C3: arena {} bytes, {}-byte input, {}-byte output",
        DsCnn::ARENA_BYTES,
        INPUT.len(),
        GOLDEN.len()
    );
    let run = inference::infer(model, INPUT, GOLDEN, cycle_count);
    for (index, entry) in run.per_operator.iter().enumerate() {
        if let Some((name, spent)) = entry {
            println!("op {index} {name}: {spent} cycles");
        }
    }
    println!("invoke: {} cycles (hook included)", run.total);

    let output = model.output_bytes(0);
    if run.bit_exact {
        println!("verdict: PASS, output bit-exact with TFLM ({output:?})");
    } else {
        println!("verdict: FAIL, output {output:?} differs from TFLM's {GOLDEN:?}");
    }
    loop {
        core::hint::spin_loop();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    println!("panic: {info}");
    loop {
        core::hint::spin_loop();
    }
}

//! DS-CNN keyword spotting on an ESP32-C3 (RV32IMC at 160 MHz), compiled into this program by
//! `tinyaot::include_model!`: one inference on TFLM's golden input (case 0 of the bundled
//! fixture), its output compared byte for byte with TFLM's, and the core cycles of every operator
//! (the C3's machine performance counter, read by the operator hook) printed with esp-println.
#![no_std]
#![no_main]

use esp_println::println;
use static_cell::StaticCell;
use tinyaot::{Model as _, OperatorHook};

// The application descriptor the ESP-IDF second-stage bootloader checks before it starts the app.
esp_bootloader_esp_idf::esp_app_desc!();

// The model, compiled when this crate builds (the path is relative to Cargo.toml). Its weights
// are `static`s in flash; its arena is a field of `DsCnn`.
tinyaot::include_model!("../../../tests/fixtures/models/ds_cnn.tflite", name = DsCnn);

/// TFLM's golden input, case 0 (an int8 MFCC spectrogram, 49 x 10).
static INPUT: &[u8] = include_bytes!("../../../../tests/fixtures/golden/ds_cnn/case0/input0.bin");
/// TFLM's output for it (12 int8 scores).
static GOLDEN: &[u8] = include_bytes!("../../../../tests/fixtures/golden/ds_cnn/case0/output0.bin");

/// The model instance: in .bss, so the build's RAM figure includes its arena.
static MODEL: StaticCell<DsCnn> = StaticCell::new();

/// Operators the hook has room for, by index (more than DS-CNN has; any beyond go uncounted).
const MAX_OPERATORS: usize = 64;

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

/// The operator hook: core cycles of each operator, by its index in the `.tflite`.
struct Cycles {
    start: u32,
    per_operator: [Option<(&'static str, u32)>; MAX_OPERATORS],
}

impl OperatorHook for Cycles {
    fn before(&mut self, _index: usize, _name: &'static str) {
        self.start = cycle_count();
    }

    fn after(&mut self, index: usize, name: &'static str) {
        // Wrapping: the count is 32 bits (26.8 s at 160 MHz), and an operator takes far less.
        let cycles = cycle_count().wrapping_sub(self.start);
        if let Some(slot) = self.per_operator.get_mut(index) {
            *slot = Some((name, cycles));
        }
    }
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
    model.input_bytes_mut(0).copy_from_slice(INPUT);
    let mut cycles = Cycles {
        start: 0,
        per_operator: [None; MAX_OPERATORS],
    };
    let start = cycle_count();
    model.invoke_with(&mut cycles);
    let total = cycle_count().wrapping_sub(start);

    for (index, entry) in cycles.per_operator.iter().enumerate() {
        if let Some((name, cycles)) = entry {
            println!("op {index} {name}: {cycles} cycles");
        }
    }
    println!("invoke: {total} cycles (hook included)");

    let output = model.output_bytes(0);
    if output == GOLDEN {
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

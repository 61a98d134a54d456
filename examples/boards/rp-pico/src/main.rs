//! ResNet-8 image classification (CIFAR-10, int8) on a Raspberry Pi Pico (RP2040, Cortex-M0+ at
//! 125 MHz), compiled into this program by `tinyaot::include_model!`: one inference on TFLM's
//! golden input (case 0 of the bundled fixture), its output compared byte for byte with TFLM's, and
//! the core cycles of every operator (SysTick, read by the operator hook) printed over defmt-rtt.
//! `probe-rs run` exits 0 when the output is bit-exact, and non-zero (a panic) when it is not.
#![no_std]
#![no_main]

use core::sync::atomic::{compiler_fence, AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;
use cortex_m_rt::exception;
use defmt_rtt as _;
use panic_probe as _;
use rp2040_hal::{self as hal, Clock as _};
use tinyaot::Model as _;

use model::{ResNet8, GOLDEN, INPUT};

#[path = "../../inference.rs"]
mod inference;
mod model;

/// The second-stage bootloader for the Pico's W25Q080 flash, in the first 256 bytes of flash
/// (`.boot2` in memory.x).
#[link_section = ".boot2"]
#[used]
pub static BOOT2: [u8; 256] = rp2040_boot2::BOOT_LOADER_W25Q080;

/// The Pico's crystal.
const XTAL_FREQ_HZ: u32 = 12_000_000;

/// SysTick's reload value: its full 24 bits (134 ms at 125 MHz), wraps counted by its handler.
const RELOAD: u32 = 0x00FF_FFFF;

/// SysTick wraps so far.
static WRAPS: AtomicU32 = AtomicU32::new(0);

#[exception]
fn SysTick() {
    // A load and a store, not `fetch_add`: ARMv6-M has no atomic read-modify-write, and only this
    // handler writes the count.
    WRAPS.store(
        WRAPS.load(Ordering::Relaxed).wrapping_add(1),
        Ordering::Relaxed,
    );
}

/// Core cycles since SysTick started. The Cortex-M0+ has no DWT cycle counter; SysTick counts
/// the core clock down, and its wraps make up the high bits.
fn cycles() -> u64 {
    loop {
        let wraps = WRAPS.load(Ordering::SeqCst);
        let current = SYST::get_current();
        // A wrap between the two loads would pair an old count with a new value: read again.
        if WRAPS.load(Ordering::SeqCst) == wraps {
            compiler_fence(Ordering::SeqCst);
            return u64::from(wraps) * (u64::from(RELOAD) + 1) + u64::from(RELOAD - current);
        }
    }
}

#[hal::entry]
fn main() -> ! {
    // cortex-m-rt turns a `static mut` at the top of `entry` into a `&'static mut`: the model (and
    // its arena) lives in .bss, so the build's RAM figure includes it, and no `unsafe` is needed.
    static mut MODEL: ResNet8 = ResNet8::new();
    let model: &'static mut ResNet8 = MODEL;

    let (Some(mut pac), Some(mut core)) = (
        hal::pac::Peripherals::take(),
        hal::pac::CorePeripherals::take(),
    ) else {
        defmt::panic!("peripherals already taken");
    };
    // The crystal and the PLLs: the core at 125 MHz (it boots on the ring oscillator, ~6 MHz).
    let mut watchdog = hal::Watchdog::new(pac.WATCHDOG);
    let Ok(clocks) = hal::clocks::init_clocks_and_plls(
        XTAL_FREQ_HZ,
        pac.XOSC,
        pac.CLOCKS,
        pac.PLL_SYS,
        pac.PLL_USB,
        &mut pac.RESETS,
        &mut watchdog,
    ) else {
        defmt::panic!("the clocks did not start");
    };
    core.SYST.set_clock_source(SystClkSource::Core);
    core.SYST.set_reload(RELOAD);
    core.SYST.clear_current();
    core.SYST.enable_interrupt();
    core.SYST.enable_counter();

    defmt::println!(
        "resnet8 on RP2040 at {=u32} Hz: arena {=usize} bytes, {=usize}-byte input, {=usize}-byte output",
        clocks.system_clock.freq().to_Hz(),
        ResNet8::ARENA_BYTES,
        INPUT.len(),
        GOLDEN.len()
    );
    // The cycle count's low 32 bits (34 s at 125 MHz): an operator, and the inference, take less.
    let run = inference::infer(model, INPUT, GOLDEN, || cycles() as u32);
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

//! The Cortex-M side of the firmware (every Cortex-M board: mps2-an385, mps2-an386, mps2-an500,
//! mps2-an505, mps3-an547): cortex-m-rt's start-up, SysTick as the clock, the stack pointer and
//! cortex-m-semihosting's console and exit.
//!
//! SysTick runs on the core clock with the longest period, its wraps counted by the exception
//! handler so that long invocations are measured. Under `-icount shift=0` a tick is a fixed number
//! of instructions per board (40 at 25 MHz, 50 at 20 MHz, 31.25 at 32 MHz), which the host checks
//! with the calibration loop.

use core::ptr::addr_of;
use core::sync::atomic::{compiler_fence, AtomicU32, Ordering};

use cortex_m::peripheral::syst::SystClkSource;
use cortex_m::peripheral::SYST;
use cortex_m_rt::{entry, exception};
use cortex_m_semihosting::{debug, hio};

/// The host's console.
pub type Out = hio::HostStream;

/// SysTick reload value: the full 24 bits, so wraps (and their interrupts) are rare.
const RELOAD: u32 = 0x00FF_FFFF;

/// SysTick wraps so far, counted by the exception handler.
static WRAPS: AtomicU32 = AtomicU32::new(0);

extern "C" {
    // From cortex-m-rt's link.x: the stack grows down from `_stack_start` to `_stack_end` (the end
    // of `.bss`/`.uninit`), so everything between them is stack that nothing else uses.
    static _stack_start: u32;
    static _stack_end: u32;
    // cortex-m-rt's vector table.
    #[cfg(tinyaot_boot_vectors)]
    static __vector_table: u32;
}

#[exception]
fn SysTick() {
    // A load and a store, not `fetch_add`: ARMv6-M has no atomic read-modify-write, and only this
    // handler writes the count.
    WRAPS.store(
        WRAPS.load(Ordering::Relaxed).wrapping_add(1),
        Ordering::Relaxed,
    );
}

#[entry]
fn main() -> ! {
    #[cfg(tinyaot_boot_vectors)]
    // SAFETY: VTOR (0xE000ED08) is the core's vector table offset register; cortex-m-rt's table
    // is complete and aligned (link.x), and no exception is enabled yet. The board boots from a
    // two-word table of its own (memory/<board>.x: the stack pointer and the reset vector), so
    // the exceptions need the full one.
    unsafe {
        (0xE000_ED08 as *mut u32).write_volatile(addr_of!(__vector_table) as u32);
        cortex_m::asm::dsb();
        cortex_m::asm::isb();
    }
    #[cfg(tinyaot_armv6m)]
    // SAFETY: CCR (0xE000ED14) is the core's configuration register; bit 3, UNALIGN_TRP, makes
    // unaligned loads and stores fault. ARMv6-M code runs on a Cortex-M3 board (mps2-an385),
    // which would perform them where a Cortex-M0+ faults: trap them as the M0+ does.
    unsafe {
        let ccr = 0xE000_ED14 as *mut u32;
        ccr.write_volatile(ccr.read_volatile() | 1 << 3);
        cortex_m::asm::dsb();
        cortex_m::asm::isb();
    }
    let Some(mut peripherals) = cortex_m::Peripherals::take() else {
        exit(false)
    };
    start_systick(&mut peripherals.SYST);
    crate::run()
}

/// Starts SysTick on the core clock with the longest period and its wrap interrupt.
fn start_systick(syst: &mut SYST) {
    syst.set_clock_source(SystClkSource::Core);
    syst.set_reload(RELOAD);
    syst.clear_current();
    syst.enable_interrupt();
    syst.enable_counter();
}

/// SysTick ticks since start-up: wraps times the period plus the current count.
#[inline(always)]
pub fn now() -> u64 {
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

/// Executes exactly `2 * n` instructions (a `subs`/`bne` loop), for the tick calibration.
#[inline(always)]
pub fn spin(n: u32) {
    // SAFETY: register-only arithmetic and a local branch; touches no memory and no stack. r0, a
    // low register, because ARMv6-M's `subs` takes no other.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs r0, r0, #1",
            "bne 2b",
            inout("r0") n => _,
            options(nomem, nostack),
        );
    }
}

/// The current stack pointer.
#[inline(always)]
pub fn stack_pointer() -> usize {
    cortex_m::register::msp::read() as usize
}

/// The stack's bounds, lowest address first.
pub fn stack_bounds() -> (usize, usize) {
    // Only the addresses of the linker symbols are taken (safe since Rust 1.82).
    (
        addr_of!(_stack_end) as usize,
        addr_of!(_stack_start) as usize,
    )
}

/// The host's console, if there is a semihosting host.
pub fn console() -> Option<Out> {
    hio::hstdout().ok()
}

/// Leaves QEMU through semihosting: exit status 0 when `success`, 1 otherwise.
pub fn exit(success: bool) -> ! {
    debug::exit(if success {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // Only reached without a semihosting host (real hardware under a debugger that ignores it).
    loop {
        cortex_m::asm::wfi();
    }
}

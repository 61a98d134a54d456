//! The RV32 side of the firmware (QEMU's `virt` machine, `memory/riscv_virt.x`): the start-up
//! (`_start` in assembly: gp, sp, the trap vector, `.bss` zeroed, `.data` copied), the trap
//! handler, minstret as the clock, the stack pointer and RISC-V semihosting.
//!
//! Under `-icount shift=0` QEMU derives minstret from its instruction count, so a tick is one
//! instruction (the host checks the ratio with the calibration loop). Semihosting is Arm's
//! protocol, which RISC-V adopted; only the trap differs (an `ebreak` between two marker
//! instructions).

use core::arch::{asm, global_asm};
use core::fmt;
use core::ptr::addr_of;

extern "C" {
    // From memory/riscv_virt.x: the stack grows down from `_stack_start` (the end of RAM) to
    // `_stack_end` (the end of `.bss`), so everything between them is stack that nothing else uses.
    static _stack_start: u32;
    static _stack_end: u32;
}

// Runs first, at 0x80000000 where `-bios none` starts the core: gp without linker relaxation
// (which would address it relative to itself), the stack, the trap vector, then `.bss` zeroed and
// `.data` copied word by word (the linker script aligns all of them to 4) before any Rust code
// runs, and `start`. The trap entry passes mcause and mepc to `trap`.
global_asm!(
    ".section .text.start, \"ax\", @progbits",
    ".globl _start",
    "_start:",
    ".option push",
    ".option norelax",
    "    la gp, __global_pointer$",
    ".option pop",
    "    la sp, _stack_start",
    "    la t0, 5f",
    "    csrw mtvec, t0",
    "    la t0, __sbss",
    "    la t1, __ebss",
    "1:  bgeu t0, t1, 2f",
    "    sw zero, 0(t0)",
    "    addi t0, t0, 4",
    "    j 1b",
    "2:  la t0, __sdata",
    "    la t1, __edata",
    "    la t2, __sidata",
    "3:  bgeu t0, t1, 4f",
    "    lw t3, 0(t2)",
    "    sw t3, 0(t0)",
    "    addi t0, t0, 4",
    "    addi t2, t2, 4",
    "    j 3b",
    "4:  call {start}",
    "    .balign 4",
    "5:  csrr a0, mcause",
    "    csrr a1, mepc",
    "    j {trap}",
    start = sym start,
    trap = sym trap,
);

/// Rust's entry, from `_start` with memory initialised.
extern "C" fn start() -> ! {
    crate::run()
}

/// Every trap is a failure of the run (the firmware enables no interrupt): say which, and leave
/// QEMU with a failure status.
extern "C" fn trap(cause: usize, pc: usize) -> ! {
    use fmt::Write as _;
    if let Some(mut out) = console() {
        let _ = writeln!(out, "error: trap mcause={cause} mepc={pc:#x}");
    }
    exit(false)
}

/// Instructions retired so far, all 64 bits: the high half read again until it is stable, so that
/// a carry between the two reads cannot pair halves of different counts.
#[inline(always)]
pub fn now() -> u64 {
    loop {
        let (hi, lo, again): (u32, u32, u32);
        // SAFETY: reads of the machine-mode counters, which the firmware (in machine mode) may
        // read; no memory is touched.
        unsafe {
            asm!(
                "csrr {hi}, minstreth",
                "csrr {lo}, minstret",
                "csrr {again}, minstreth",
                hi = out(reg) hi,
                lo = out(reg) lo,
                again = out(reg) again,
                options(nomem, nostack, preserves_flags),
            );
        }
        if hi == again {
            return (u64::from(hi) << 32) | u64::from(lo);
        }
    }
}

/// Executes exactly `2 * n` instructions (an `addi`/`bnez` loop), for the tick calibration.
#[inline(always)]
pub fn spin(n: u32) {
    // SAFETY: register-only arithmetic and a local branch; touches no memory and no stack.
    unsafe {
        asm!(
            "2:",
            "addi {0}, {0}, -1",
            "bnez {0}, 2b",
            inout(reg) n => _,
            options(nomem, nostack),
        );
    }
}

/// The current stack pointer.
#[inline(always)]
pub fn stack_pointer() -> usize {
    let sp: usize;
    // SAFETY: copies sp to a register; touches no memory.
    unsafe { asm!("mv {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags)) };
    sp
}

/// The stack's bounds, lowest address first.
pub fn stack_bounds() -> (usize, usize) {
    // Only the addresses of the linker symbols are taken.
    (
        addr_of!(_stack_end) as usize,
        addr_of!(_stack_start) as usize,
    )
}

const SYS_OPEN: usize = 0x01;
const SYS_WRITE: usize = 0x05;
const SYS_EXIT: usize = 0x18;
const ADP_STOPPED_APPLICATION_EXIT: usize = 0x20026;
const ADP_STOPPED_RUN_TIME_ERROR: usize = 0x20023;

/// One semihosting call: `operation` in a0, its argument in a1, the result in a0.
#[inline(never)]
fn semihost(operation: usize, argument: usize) -> usize {
    let mut a0 = operation;
    // SAFETY: the semihosting trap sequence (uncompressed, as the specification requires); the
    // host reads the argument block `argument` points to, which the callers keep alive.
    unsafe {
        asm!(
            ".option push",
            ".option norvc",
            "slli zero, zero, 0x1f",
            "ebreak",
            "srai zero, zero, 7",
            ".option pop",
            inout("a0") a0,
            in("a1") argument,
            options(nostack),
        );
    }
    a0
}

/// The host's console (semihosting's `:tt`).
pub struct Out {
    handle: usize,
}

impl Out {
    /// Writes all of `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), ()> {
        let args = [self.handle, bytes.as_ptr() as usize, bytes.len()];
        // SYS_WRITE returns the number of bytes not written.
        match semihost(SYS_WRITE, args.as_ptr() as usize) {
            0 => Ok(()),
            _ => Err(()),
        }
    }
}

impl fmt::Write for Out {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.write_all(s.as_bytes()).map_err(|()| fmt::Error)
    }
}

/// The host's console, if there is a semihosting host.
pub fn console() -> Option<Out> {
    let name = b":tt\0";
    // Mode 4 is "w", as C's fopen; the length excludes the NUL.
    let args = [name.as_ptr() as usize, 4, name.len() - 1];
    match semihost(SYS_OPEN, args.as_ptr() as usize) {
        usize::MAX => None,
        handle => Some(Out { handle }),
    }
}

/// Leaves QEMU through semihosting: exit status 0 when `success`, 1 otherwise.
pub fn exit(success: bool) -> ! {
    let reason = if success {
        ADP_STOPPED_APPLICATION_EXIT
    } else {
        ADP_STOPPED_RUN_TIME_ERROR
    };
    // On RV32 the argument is the reason code itself, not a pointer.
    semihost(SYS_EXIT, reason);
    loop {
        // SAFETY: waits for an interrupt; touches no memory.
        unsafe { asm!("wfi", options(nomem, nostack)) };
    }
}

//! Firmware that runs one model compiled by tinyaot on TFLM's golden inputs on a Cortex-M or RV32
//! core under QEMU (the board's `memory/<board>.x`, chosen by build.rs; the core's start-up, clock
//! and semihosting in `cortex_m.rs` or `rv32.rs`), and reports over semihosting:
//!
//! - every output, compared on the target with TFLM's output byte for byte and also printed in hex
//!   (so that the host checks independently);
//! - clock ticks per `invoke` (SysTick on Cortex-M, minstret on RV32; run QEMU with
//!   `-icount shift=0`: virtual time then advances exactly one nanosecond per instruction, so ticks
//!   convert to instructions; a calibration loop of a known instruction count is timed too, so the
//!   host can check the conversion instead of assuming it);
//! - the stack high-water mark (the stack is painted before each `invoke` and scanned after it).
//!
//! The model and the golden data come from `$TINYAOT_MCU_DIR/model.rs` and `golden.rs`, which
//! `cargo xtask mcu` generates (see build.rs). The report is line-oriented; the xtask parses it:
//!
//! ```text
//! tinyaot-mcu lang=rust arena=<bytes> state=<bytes> cases=<n>
//! calib insns=<n> ticks=<n> empty=<n>
//! case <k> ticks=<n> stack=<bytes> ok|MISMATCH
//! out <k> <j> <hex>
//! result pass|fail
//! ```
//!
//! With the `profile` feature (`cargo xtask mcu --profile`), case 0 runs through `invoke_with` and a
//! hook that prints `op <index> <name> ticks=<n>` after each operator (the line is written between
//! operators, outside the timed windows; each window includes one `now()`, the `empty` of the
//! calibration).
//! and the firmware exits QEMU through semihosting with status 0 (all outputs exact) or 1.
#![no_std]
#![no_main]

use core::fmt::Write as _;
use core::ptr::addr_of_mut;

use platform::{now, Out};
use tinyaot::Model as _;

/// The core's start-up, clock, stack pointer and semihosting.
#[cfg_attr(target_arch = "arm", path = "cortex_m.rs")]
#[cfg_attr(target_arch = "riscv32", path = "rv32.rs")]
mod platform;

/// The generated model (`pub struct Net`).
#[allow(missing_docs, clippy::all)]
mod model {
    include!(concat!(env!("TINYAOT_MCU_SOURCES"), "/model.rs"));
}

/// The golden cases: `pub static CASES: &[Case]`, inputs and TFLM's outputs in a `.golden` section.
#[allow(missing_docs, clippy::all)]
mod golden {
    use super::Case;
    include!(concat!(env!("TINYAOT_MCU_SOURCES"), "/golden.rs"));
}

/// One golden case: the bytes of every input, and TFLM's bytes of every output.
pub struct Case {
    /// Input bytes, in the model's input order.
    pub inputs: &'static [&'static [u8]],
    /// TFLM's output bytes, in the model's output order.
    pub outputs: &'static [&'static [u8]],
    /// TFLM's invoke stopped early (a CIRCULAR_BUFFER waiting for frames): the model must stop
    /// too, and its outputs hold nothing to compare.
    pub waiting: bool,
}

/// The model instance. A `static` so that its arena is in `.bss`, not on the stack (`new` is
/// `const`); only `run` touches it, once.
#[cfg(not(tinyaot_regions))]
static mut NET: model::Net = model::Net::new();

/// The model instance, planned with memory regions (`cargo xtask mcu --region`): it borrows each
/// region's static, taken once by `Net::take` in `run` (made on the stack, then moved here).
#[cfg(tinyaot_regions)]
static mut NET: Option<model::Net<'static>> = None;

/// Iterations of the calibration loop (two instructions each).
const CALIBRATION_ITERATIONS: u32 = 500_000;

/// What unused stack is painted with.
const PAINT: u32 = 0xCCCC_CCCC;

/// Paints the unused part of the stack: from its end up to a little below the current stack
/// pointer (the margin keeps this function's own frame intact).
#[inline(never)]
fn paint_stack() {
    let (bottom, _) = platform::stack_bounds();
    let limit = platform::stack_pointer() - 64;
    let mut p = bottom;
    while p < limit {
        // SAFETY: [bottom, limit) is stack below the live frames: no object lives there.
        unsafe { (p as *mut u32).write_volatile(PAINT) };
        p += 4;
    }
}

/// Bytes of stack used since the last [`paint_stack`]: from the top down to the lowest word whose
/// paint was scrubbed off.
#[inline(never)]
fn stack_used() -> usize {
    let (bottom, top) = platform::stack_bounds();
    let mut p = bottom;
    // SAFETY: reads of stack memory between the linker's bounds, word-aligned.
    while p < top && unsafe { (p as *const u32).read_volatile() } == PAINT {
        p += 4;
    }
    top - p
}

/// Writes `bytes` as one `out <case> <index> <hex>` line, in chunks to keep semihosting calls few.
///
/// Not inlined, and its bytes hidden from the optimiser: inlined into `run`, its loops were
/// specialised for each output's known length (up to 3 KB charged to the model's code, not the
/// harness's) and its line buffer sat in `run`'s frame under every `invoke` (256 bytes charged to
/// the model's stack); out of line, the compiler still specialised it for the do-nothing model's
/// one-byte output (the harness then measured 780 bytes short).
#[inline(never)]
fn write_hex(out: &mut Out, case: usize, index: usize, bytes: &[u8]) {
    let bytes = core::hint::black_box(bytes);
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let _ = write!(out, "out {case} {index} ");
    let mut line = [0u8; 256];
    for chunk in bytes.chunks(line.len() / 2) {
        for (i, &b) in chunk.iter().enumerate() {
            line[2 * i] = DIGITS[usize::from(b >> 4)];
            line[2 * i + 1] = DIGITS[usize::from(b & 15)];
        }
        let _ = out.write_all(&line[..2 * chunk.len()]);
    }
    let _ = out.write_all(b"\n");
}

/// The harness, called by the core's start-up once the clock runs.
fn run() -> ! {
    let Some(mut out) = platform::console() else {
        exit(false)
    };

    // SAFETY: the only reference to NET, taken once; no interrupt handler touches it.
    #[cfg(not(tinyaot_regions))]
    let net = unsafe { &mut *addr_of_mut!(NET) };
    // SAFETY: as above.
    #[cfg(tinyaot_regions)]
    let net = match model::Net::take() {
        Some(taken) => unsafe { &mut *addr_of_mut!(NET) }.insert(taken),
        None => exit(false),
    };
    let cases = golden::CASES;
    let _ = writeln!(
        out,
        "tinyaot-mcu lang=rust arena={} state={} cases={}",
        model::Net::ARENA_BYTES,
        model::Net::STATE_BYTES,
        cases.len()
    );

    // Calibration: a loop of known length, and an empty window (the cost of `now` itself).
    let t0 = now();
    platform::spin(CALIBRATION_ITERATIONS);
    let t1 = now();
    let e0 = now();
    let e1 = now();
    let _ = writeln!(
        out,
        "calib insns={} ticks={} empty={}",
        2 * CALIBRATION_ITERATIONS,
        t1 - t0,
        e1 - e0
    );

    let mut all_ok = true;
    for (k, case) in cases.iter().enumerate() {
        if case.inputs.len() != model::Net::INPUTS || case.outputs.len() != model::Net::OUTPUTS {
            fail(
                &mut out,
                "golden case has the wrong number of inputs or outputs",
            );
        }
        for (i, input) in case.inputs.iter().enumerate() {
            let slot = net.input_bytes_mut(i);
            if slot.len() != input.len() {
                fail(&mut out, "golden input size differs from the model's");
            }
            slot.copy_from_slice(input);
        }
        paint_stack();
        let start = now();
        #[cfg(feature = "profile")]
        let ran = if k == 0 {
            net.invoke_with_ran(&mut Profile {
                out: &mut out,
                start: 0,
            })
        } else {
            net.invoke_ran()
        };
        #[cfg(not(feature = "profile"))]
        let ran = net.invoke_ran();
        let end = now();
        let stack = stack_used();
        let ok = ran != case.waiting
            && (case.waiting
                || case
                    .outputs
                    .iter()
                    .enumerate()
                    .all(|(j, want)| net.output_bytes(j) == *want));
        all_ok &= ok;
        let verdict = if ok { "ok" } else { "MISMATCH" };
        let _ = writeln!(
            out,
            "case {k} ticks={} stack={stack} {verdict}",
            end - start
        );
        for j in 0..case.outputs.len() {
            write_hex(&mut out, k, j, net.output_bytes(j));
        }
    }
    let _ = writeln!(out, "result {}", if all_ok { "pass" } else { "fail" });
    exit(all_ok)
}

/// The `profile` feature's hook: ticks per operator, one `op` line each.
#[cfg(feature = "profile")]
struct Profile<'a> {
    out: &'a mut Out,
    start: u64,
}

#[cfg(feature = "profile")]
impl tinyaot::OperatorHook for Profile<'_> {
    fn before(&mut self, _index: usize, _name: &'static str) {
        self.start = now();
    }

    fn after(&mut self, index: usize, name: &'static str) {
        let ticks = now() - self.start;
        let _ = writeln!(self.out, "op {index} {name} ticks={ticks}");
    }
}

/// Leaves QEMU through semihosting: exit status 0 when `success`, 1 otherwise.
fn exit(success: bool) -> ! {
    platform::exit(success)
}

/// Reports `why` and exits QEMU with a failure status.
fn fail(out: &mut Out, why: &str) -> ! {
    let _ = writeln!(out, "error: {why}");
    exit(false)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    if let Some(mut out) = platform::console() {
        let _ = writeln!(out, "error: panic: {info}");
    }
    exit(false)
}

//! What every program here does on its QEMU board: one inference of its board example's model
//! through the board examples' own code (`inference::infer`, the clock being the firmware's:
//! SysTick ticks on Cortex-M, minstret on RV32), reported over semihosting, and QEMU left with
//! status 0 when the output is TFLM's. `cargo xtask boards` reads the report:
//!
//! ```text
//! op <index> <name> ticks=<n>
//! invoke ticks=<n>
//! verdict pass|fail
//! ```

use core::fmt::Write as _;

use tinyaot::Model;

use crate::{inference, platform};

/// Runs `model` once on `input`, compares its output 0 with `golden`, reports, and exits.
pub fn check<M: Model>(model: &mut M, input: &[u8], golden: &[u8]) -> ! {
    let Some(mut out) = platform::console() else {
        platform::exit(false)
    };
    // The tick count's low 32 bits: an inference takes far fewer ticks.
    let run = inference::infer(model, input, golden, || platform::now() as u32);
    for (index, entry) in run.per_operator.iter().enumerate() {
        if let Some((name, ticks)) = entry {
            let _ = writeln!(out, "op {index} {name} ticks={ticks}");
        }
    }
    let _ = writeln!(out, "invoke ticks={}", run.total);
    let verdict = if run.bit_exact { "pass" } else { "fail" };
    let _ = writeln!(out, "verdict {verdict}");
    platform::exit(run.bit_exact)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    if let Some(mut out) = platform::console() {
        let _ = writeln!(out, "panic: {info}");
    }
    platform::exit(false)
}

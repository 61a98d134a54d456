//! One inference of a compiled model on TFLM's golden input, timed per operator and checked
//! against TFLM's output: what every board example does, apart from its board. Each board's
//! `main.rs` gives the clock (its core's cycle counter) and prints the result; its `model.rs`
//! names the model and the golden case. `cargo xtask boards` builds the same two files
//! (`model.rs` and this one) into a program for QEMU's machine of the board's core and runs it
//! there (examples/boards/qemu), so the logic each board runs is checked without the board.
//!
//! Included with `#[path]` by each board crate and by the QEMU program (a module, not a crate:
//! every board example stays one crate of its own).

use tinyaot::{Model, OperatorHook};

/// Operators the hook has room for, by index (more than any board example's model has; any
/// beyond go uncounted).
pub const MAX_OPERATORS: usize = 64;

/// What one inference gave.
pub struct Inference {
    /// Clock counts of each operator that ran, by its index in the `.tflite`, with its name.
    pub per_operator: [Option<(&'static str, u32)>; MAX_OPERATORS],
    /// Clock counts of the whole inference, the hook's own work included.
    pub total: u32,
    /// Whether output 0 is TFLM's golden output, byte for byte.
    pub bit_exact: bool,
}

/// The operator hook: the clock read before and after each operator.
struct Timer<C> {
    clock: C,
    start: u32,
    per_operator: [Option<(&'static str, u32)>; MAX_OPERATORS],
}

impl<C: FnMut() -> u32> OperatorHook for Timer<C> {
    fn before(&mut self, _index: usize, _name: &'static str) {
        self.start = (self.clock)();
    }

    fn after(&mut self, index: usize, name: &'static str) {
        // Wrapping: a 32-bit cycle counter wraps after seconds (DWT CYCCNT: 10.7 s at 400 MHz),
        // and an operator takes far less.
        let spent = (self.clock)().wrapping_sub(self.start);
        if let Some(slot) = self.per_operator.get_mut(index) {
            *slot = Some((name, spent));
        }
    }
}

/// Copies `input` into the model's input 0, runs it once with `clock` (a free-running counter of
/// 32 bits or fewer wrapping at 2^32) read around each operator, and compares output 0 with
/// `golden`.
pub fn infer<M: Model>(
    model: &mut M,
    input: &[u8],
    golden: &[u8],
    clock: impl FnMut() -> u32,
) -> Inference {
    model.input_bytes_mut(0).copy_from_slice(input);
    let mut timer = Timer {
        clock,
        start: 0,
        per_operator: [None; MAX_OPERATORS],
    };
    let start = (timer.clock)();
    model.invoke_with(&mut timer);
    let total = (timer.clock)().wrapping_sub(start);
    Inference {
        per_operator: timer.per_operator,
        total,
        bit_exact: model.output_bytes(0) == golden,
    }
}

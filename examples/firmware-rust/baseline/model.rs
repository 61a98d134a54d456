// A do-nothing model with the generated code's interface: one 1-byte input copied to one 1-byte
// output. `cargo xtask mcu` builds the firmware around it to measure the harness's own flash and
// RAM; `TINYAOT_MCU_DIR=baseline cargo run --release` runs it as a smoke test of the firmware.

/// The do-nothing model: a 16-byte arena, input at offset 0, output at offset 1.
pub struct Net {
    arena: ::tinyaot::Arena<16>,
}

impl Net {
    /// Bytes of the activation arena.
    pub const ARENA_BYTES: usize = 16;
    /// Bytes of the state of variable tensors.
    pub const STATE_BYTES: usize = 0;
    /// Number of inputs.
    pub const INPUTS: usize = 1;
    /// Number of outputs.
    pub const OUTPUTS: usize = 1;

    /// A zeroed model.
    pub const fn new() -> Self {
        Net {
            arena: ::tinyaot::Arena::new(),
        }
    }

    /// Copies the input byte to the output byte.
    pub fn invoke(&mut self) {
        self.arena.0[1] = self.arena.0[0];
    }
}

impl ::tinyaot::Model for Net {
    const ARENA_BYTES: usize = Net::ARENA_BYTES;
    const INPUTS: usize = Net::INPUTS;
    const OUTPUTS: usize = Net::OUTPUTS;

    fn invoke(&mut self) {
        Net::invoke(self)
    }

    fn invoke_with<H: ::tinyaot::OperatorHook>(&mut self, _hook: &mut H) {
        Net::invoke(self)
    }

    fn input_bytes_mut(&mut self, index: usize) -> &mut [u8] {
        match index {
            // A length the optimiser cannot see, as a real model's input is too long to copy
            // inline: the harness's `copy_from_slice` then links `memcpy` here as well, so that the
            // baseline, not the model, is charged for it.
            0 => &mut self.arena.0[0..core::hint::black_box(1)],
            _ => panic!("input index out of range"),
        }
    }

    fn output_bytes(&self, index: usize) -> &[u8] {
        match index {
            // Likewise for the output comparison's `memcmp`.
            0 => &self.arena.0[1..1 + core::hint::black_box(1)],
            _ => panic!("output index out of range"),
        }
    }

    fn reset(&mut self) {}
}

//! TFLM's custom operator CIRCULAR_BUFFER (int8): a ring of the last `slots` frames of `depth`
//! bytes, for strided streaming convolutions. Each invocation shifts the ring one frame towards
//! its start (the oldest frame drops out), appends the input frame at its end and copies the ring
//! to the output; then it counts the invocation, and unless this is the `cycles_max`-th since the
//! operator last ran it tells the model to stop there (TFLM's Eval returns `kTfLiteAbort`, which
//! ends the interpreter's invoke before the next operator).
//!
//! The state, a variable tensor the loader adds (zeroed by `reset`, as a fresh instance): the
//! invocations counted since the operator last ran (a little-endian `u32`, bytes 0..4; TFLM's
//! `cycles_max - cycles_until_run`), the byte the model tests after the call (byte 4: 1 when the
//! invoke stops), three bytes of padding, then the ring (`slots × depth` bytes from byte 8).

use crate::kernels::Within;

/// The state's bytes before the ring: the count, the stop byte and padding.
pub const STATE_HEADER: usize = 8;

/// The byte of the state that is nonzero when the invoke stops after the call.
pub const STOP_BYTE: usize = 4;

/// Constant parameters of CIRCULAR_BUFFER.
#[derive(Clone, Copy, Debug)]
pub struct CircularBuffer {
    /// Frames in the ring: the output's dimension 1.
    pub slots: usize,
    /// Bytes per frame: the output's dimensions 2 and 3 multiplied.
    pub depth: usize,
    /// The operator runs (the model goes on) every `cycles_max`-th invocation: the option, or
    /// TFLM's Prepare's choice when it is absent or not positive. At least 1.
    pub cycles_max: usize,
}

/// CIRCULAR_BUFFER on int8 frames: reads `depth` bytes at `input`, writes `slots × depth` bytes at
/// `output` (the ring after the new frame), updates the state at `ring_state` (`8 + slots × depth`
/// bytes, see the module documentation); the state's stop byte says whether the model stops.
#[cfg_attr(target_os = "none", inline(never))]
pub fn circular_buffer_s8(
    arena: &mut [u8],
    input: usize,
    output: usize,
    ring_state: usize,
    p: &CircularBuffer,
) {
    let p = crate::kernels::opaque(p);
    let (depth, ring_bytes) = (p.depth, p.slots * p.depth);
    let (state, ring) = (ring_state, ring_state + STATE_HEADER);
    // TFLM's EvalInt8: a memmove of the newer frames to the start, then the input at the end.
    arena.copy_within(ring + depth..ring + ring_bytes, ring);
    arena.copy_within(input..input + depth, ring + ring_bytes - depth);
    arena.copy_within(ring..ring + ring_bytes, output);
    let mut count = [0u8; 4];
    count.copy_from_slice(arena.at(state..state + 4));
    let counted = u32::from_le_bytes(count).wrapping_add(1);
    let (count, stop) = if counted as usize >= p.cycles_max {
        (0, 0)
    } else {
        (counted, 1)
    };
    arena[state..state + 4].copy_from_slice(&count.to_le_bytes());
    arena[state + STOP_BYTE] = stop;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// TFLM's circular_buffer_test OutputTensorLength4: depth 3, 4 slots, running every other
    /// invocation, the ring starting from zeros.
    #[test]
    fn runs_every_cycles_max_invocations() {
        let p = CircularBuffer {
            slots: 4,
            depth: 3,
            cycles_max: 2,
        };
        let (input, output, state) = (0, 16, 32);
        let mut arena = [0u8; 32 + STATE_HEADER + 12];
        let goldens: [[u8; 12]; 5] = [
            [0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3],
            [0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6],
            [0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
            [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
            [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        ];
        for (i, golden) in goldens.iter().enumerate() {
            for j in 0..3 {
                arena[input + j] = (i * 3 + j + 1) as u8;
            }
            circular_buffer_s8(&mut arena, input, output, state, &p);
            assert_eq!(&arena[output..output + 12], golden, "invocation {i}");
            let stop = if i % 2 == 1 { 0 } else { 1 };
            assert_eq!(arena[state + STOP_BYTE], stop, "invocation {i}");
        }
    }
}

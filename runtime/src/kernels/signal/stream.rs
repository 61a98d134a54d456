//! The kernels that carry samples across invocations, each in a variable tensor the loader adds:
//! SignalDelay, SignalFramer, SignalStacker and SignalOverlapAdd.

use super::read_u32;

/// Constant parameters of SignalDelay.
#[derive(Clone, Copy, Debug)]
pub struct Delay {
    /// The rows delayed, each on its own: the input's elements over `frame`.
    pub rows: usize,
    /// Samples per row (the input's last dimension), at least 1.
    pub frame: usize,
    /// The delay in samples (the options' `delay_length`): the samples of each row kept from one
    /// invocation to the next.
    pub delay: usize,
}

/// SignalDelay on int16: each row of `frame` samples delayed by `delay` samples across
/// invocations. TFLM keeps per row a circular buffer that starts with `delay` zeros, writes the
/// row into it, reads `frame` samples out and discards them; so each output row is the first
/// `frame` samples of (the `delay` samples kept, then the input row), and the last `delay` of
/// those are kept, at `delay_state` (`2 * rows * delay` bytes, zeroed by `reset`). Reads
/// `2 * rows * frame` bytes at `input`, writes as many at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn delay_s16(arena: &mut [u8], input: usize, output: usize, delay_state: usize, p: &Delay) {
    let p = crate::kernels::opaque(p);
    let (frame, delay) = (2 * p.frame, 2 * p.delay);
    for row in 0..p.rows {
        let (x, y, kept) = (
            input + frame * row,
            output + frame * row,
            delay_state + delay * row,
        );
        // The output: the kept samples first, then the row's.
        let old = delay.min(frame);
        arena.copy_within(kept..kept + old, y);
        arena.copy_within(x..x + frame - old, y + old);
        // The samples kept: the last `delay` of the kept ones and the row's.
        if delay > frame {
            arena.copy_within(kept + frame..kept + delay, kept);
            arena.copy_within(x..x + frame, kept + delay - frame);
        } else {
            arena.copy_within(x + frame - delay..x + frame, kept);
        }
    }
}

/// Constant parameters of SignalFramer.
#[derive(Clone, Copy, Debug)]
pub struct Framer {
    /// The rows framed, each on its own: the input's elements over its last dimension.
    pub rows: usize,
    /// Frames per row and invocation: the input's last dimension over `frame_step`.
    pub frames: usize,
    /// Samples per frame (the options' `frame_size`), at least 1.
    pub frame_size: usize,
    /// Samples from one frame to the next (`frame_step`), at least 1.
    pub frame_step: usize,
    /// Samples kept per row in the state: `frame_size` rounded up to a multiple of `frame_step`
    /// (TFLM's circular buffer's capacity).
    pub capacity: usize,
    /// The samples a row holds after `reset`: `frame_size - frame_step` zeros with `prefill`,
    /// else none.
    pub prefilled: usize,
}

/// SignalFramer on int16: each row's samples, `frame_step` at a time, appended to the samples
/// kept for that row; whenever `frame_size` are there, they are the next output frame and the
/// first `frame_step` are dropped. A frame with too few samples (before the first `frame_size`
/// after `reset`, without `prefill`) is 0 (TFLM leaves it as its arena held it) and makes the
/// bool at `output_valid` false. The state at `framer_state`, zeroed by `reset`: a uint32, the samples
/// held per row past `prefilled`, then each row's `capacity` int16 samples (the first held).
/// Reads `2 * rows * frames * frame_step` bytes at `input`; writes up to
/// `2 * rows * frames * frame_size` at `output`, 1 at `output_valid`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn framer_s16(
    arena: &mut [u8],
    input: usize,
    output: usize,
    output_valid: usize,
    framer_state: usize,
    p: &Framer,
) {
    let p = crate::kernels::opaque(p);
    let (size, step) = (2 * p.frame_size, 2 * p.frame_step);
    // A count no invocation leaves (a multiple of `frame_step`, fewer than `frame_size` held
    // with the prefill) is taken as `reset`'s 0: the state is not zeroed yet, and every write
    // then stays inside the row's `capacity` samples.
    let stored = read_u32(arena, framer_state) as usize;
    let stored = if stored.checked_rem(p.frame_step) == Some(0)
        && stored < p.frame_size.saturating_sub(p.prefilled)
    {
        stored
    } else {
        0
    };
    let start = p.prefilled + stored;
    let (mut held, mut valid) = (2 * start, true);
    for row in 0..p.rows {
        let kept = framer_state + 4 + 2 * p.capacity * row;
        held = 2 * start;
        for frame in 0..p.frames {
            let n = row * p.frames + frame;
            arena.copy_within(input + step * n..input + step * (n + 1), kept + held);
            held += step;
            if held >= size {
                arena.copy_within(kept..kept + size, output + size * n);
                arena.copy_within(kept + step..kept + held, kept);
                held -= step;
            } else {
                arena[output + size * n..output + size * (n + 1)].fill(0);
                valid = false;
            }
        }
    }
    let stored = (held / 2 - p.prefilled) as u32;
    arena[framer_state..framer_state + 4].copy_from_slice(&stored.to_le_bytes());
    arena[output_valid] = u8::from(valid);
}

/// Constant parameters of SignalStacker.
#[derive(Clone, Copy, Debug)]
pub struct Stacker {
    /// Samples per input frame (the options' `num_channels`), at least 1.
    pub channels: usize,
    /// Copies of the first frame added before it (`stacker_left_context`).
    pub left_context: usize,
    /// Samples per output: `channels · (left_context + right_context + 1)`.
    pub buffer_size: usize,
    /// Samples dropped after each output: `channels · stacker_step`, at most `buffer_size`.
    pub step_size: usize,
}

/// SignalStacker on int16: each invocation's frame of `channels` samples appended to the
/// samples kept (the first frame after `reset` `left_context` more times, as context before
/// it); once `buffer_size` are there they are the output, the first `step_size` are dropped,
/// and the bool at `output_valid` is true; before that it is false and the output 0 (TFLM leaves
/// it as its arena held it). The state at `stacker_state`, zeroed by `reset`: a uint32, the
/// samples kept, a uint32, whether the first frame came, then `buffer_size` int16 samples.
/// Reads `2 * channels` bytes at `input`; writes `2 * buffer_size` at `output`, 1 at
/// `output_valid`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn stacker_s16(
    arena: &mut [u8],
    input: usize,
    output: usize,
    output_valid: usize,
    stacker_state: usize,
    p: &Stacker,
) {
    let p = crate::kernels::opaque(p);
    let kept = stacker_state + 8;
    let (frame, size, step) = (2 * p.channels, 2 * p.buffer_size, 2 * p.step_size);
    let first = read_u32(arena, stacker_state + 4) == 0;
    // A count no invocation leaves (samples kept before the first frame, or too many for this
    // frame to fit) is taken as `reset`'s 0: the state is not zeroed yet, and every write then
    // stays inside the `buffer_size` samples.
    let stored = read_u32(arena, stacker_state) as usize;
    let stored = if !first && stored <= p.buffer_size.saturating_sub(p.channels) {
        stored
    } else {
        0
    };
    let mut held = 2 * stored;
    arena.copy_within(input..input + frame, kept + held);
    held += frame;
    if first {
        for _ in 0..p.left_context {
            arena.copy_within(kept + held - frame..kept + held, kept + held);
            held += frame;
        }
        arena[stacker_state + 4..stacker_state + 8].copy_from_slice(&1u32.to_le_bytes());
    }
    let valid = held >= size;
    if valid {
        arena.copy_within(kept..kept + size, output);
        arena.copy_within(kept + step..kept + held, kept);
        held -= step;
    } else {
        arena[output..output + size].fill(0);
    }
    arena[stacker_state..stacker_state + 4].copy_from_slice(&((held / 2) as u32).to_le_bytes());
    arena[output_valid] = u8::from(valid);
}

/// Constant parameters of SignalOverlapAdd.
#[derive(Clone, Copy, Debug)]
pub struct OverlapAdd {
    /// The rows, each overlap-added on its own: the input's elements over its last two
    /// dimensions.
    pub rows: usize,
    /// Frames per row and invocation (the input's second-to-last dimension).
    pub frames: usize,
    /// Samples per frame (the input's last dimension), at least 1.
    pub frame_size: usize,
    /// Output samples per frame (the options' `frame_step`), at most `frame_size`.
    pub frame_step: usize,
}

/// One sample type of SignalOverlapAdd: int16 (sums saturated) or float32.
trait OverlapSample: Copy {
    /// Bytes of one sample.
    const BYTES: usize;
    /// The sample at byte `at`.
    fn get(arena: &[u8], at: usize) -> Self;
    /// Writes the sample at byte `at`.
    fn set(self, arena: &mut [u8], at: usize);
    /// `self + other` as TFLM's OverlapAdd of this type adds.
    fn plus(self, other: Self) -> Self;
}

impl OverlapSample for i16 {
    const BYTES: usize = 2;
    fn get(arena: &[u8], at: usize) -> Self {
        i16::from_le_bytes([arena[at], arena[at + 1]])
    }
    fn set(self, arena: &mut [u8], at: usize) {
        arena[at..at + 2].copy_from_slice(&self.to_le_bytes());
    }
    fn plus(self, other: Self) -> Self {
        self.saturating_add(other)
    }
}

impl OverlapSample for f32 {
    const BYTES: usize = 4;
    fn get(arena: &[u8], at: usize) -> Self {
        f32::from_bits(read_u32(arena, at))
    }
    fn set(self, arena: &mut [u8], at: usize) {
        arena[at..at + 4].copy_from_slice(&self.to_bits().to_le_bytes());
    }
    fn plus(self, other: Self) -> Self {
        self + other
    }
}

/// SignalOverlapAdd of one sample type: see [`overlap_add_s16`].
fn overlap_add<T: OverlapSample>(
    arena: &mut [u8],
    (input, output, state): (usize, usize, usize),
    p: &OverlapAdd,
) {
    let (size, step) = (T::BYTES * p.frame_size, T::BYTES * p.frame_step);
    for row in 0..p.rows {
        let sums = state + size * row;
        for frame in 0..p.frames {
            let n = row * p.frames + frame;
            for i in (0..size).step_by(T::BYTES) {
                let sum = T::get(arena, sums + i).plus(T::get(arena, input + size * n + i));
                sum.set(arena, sums + i);
            }
            arena.copy_within(sums..sums + step, output + step * n);
            arena.copy_within(sums + step..sums + size, sums);
            arena[sums + size - step..sums + size].fill(0);
        }
    }
}

/// SignalOverlapAdd on int16: each frame of `frame_size` samples added (saturating) into its
/// row's running sums (at `overlap_state`, `2 * rows * frame_size` bytes zeroed by `reset`), the
/// first `frame_step` sums written out and shifted off, zeros shifted in. Reads
/// `2 * rows * frames * frame_size` bytes at `input`, writes `2 * rows * frames * frame_step` at
/// `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn overlap_add_s16(
    arena: &mut [u8],
    input: usize,
    output: usize,
    overlap_state: usize,
    p: &OverlapAdd,
) {
    let p = crate::kernels::opaque(p);
    overlap_add::<i16>(arena, (input, output, overlap_state), p);
}

/// SignalOverlapAdd on float32, as [`overlap_add_s16`] with float sums (`4 *` the bytes).
#[cfg_attr(target_os = "none", inline(never))]
pub fn overlap_add_f32(
    arena: &mut [u8],
    input: usize,
    output: usize,
    overlap_state: usize,
    p: &OverlapAdd,
) {
    let p = crate::kernels::opaque(p);
    overlap_add::<f32>(arena, (input, output, overlap_state), p);
}

//! SVDF (a rank-`rank` singular value decomposition filter over time), bit-exact with TFLM's
//! reference kernels: int8 input and output with an int16 (or int8) activation state and time
//! weights (`EvalIntegerSvdfReference`), and float32 (`EvalFloatSvdfReference`). The state, a
//! variable tensor `[batches, num_filters * memory_size]`, is updated in place: every call shifts
//! it left by one element (each filter's oldest value drops out) and writes the newest feature
//! (`weights_feature · input`) in each filter's last column, then each output unit sums, over its
//! `rank` filters, the dot product of the filter's state row with its time weights, plus the bias.
//!
//! TFLM sums the time products into an int32 (float) scratch of `batches * num_filters` and adds
//! it to a second scratch of `batches * num_units` that starts at the bias; these kernels add each
//! filter's sum to its unit's total as soon as it is known, the same additions in the same order,
//! so they need neither scratch.
//!
//! Access order: the input, the state and the output are read and written filter by filter; the
//! three must not overlap (checked).

use super::nn_common::float_math::tanh_f32;
use super::nn_common::requant::Scale;
use super::nn_common::{clamp_f32, dot4_s8, dot_s8, views};
use crate::math::multiply_by_quantized_multiplier;
use crate::Src;

/// Constant parameters of [`svdf_s8`]: int8 input and output, int16 time weights and state.
#[derive(Clone, Copy, Debug)]
pub struct SvdfS8<'a> {
    /// Rows of the input, the state and the output.
    pub batches: usize,
    /// Elements per input row.
    pub input_size: usize,
    /// Filters: `num_units * rank` (the first dimension of both weight tensors).
    pub num_filters: usize,
    /// Filters summed into each output unit.
    pub rank: usize,
    /// State values kept per filter (the time weights' second dimension).
    pub memory_size: usize,
    /// Feature weights, `[num_filters, input_size]` (TFLM ignores their zero point).
    pub weights_feature: &'a [i8],
    /// Time weights, `[num_filters, memory_size]` (TFLM ignores their zero point).
    pub weights_time: &'a [i16],
    /// Per-unit bias (`num_units` values), or none (sums start at 0).
    pub bias: Option<&'a [i32]>,
    /// Input zero point, subtracted from every input.
    pub input_zero_point: i32,
    /// State zero point: added to each new state value, subtracted from state values read.
    pub state_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Q31 multiplier of input scale * feature weight scale / state scale (TFLM's
    /// `effective_scale_1`).
    pub feature_multiplier: i32,
    /// Its shift (positive = left).
    pub feature_shift: i32,
    /// Q31 multiplier of state scale * time weight scale / output scale (`effective_scale_2`).
    pub output_multiplier: i32,
    /// Its shift (positive = left).
    pub output_shift: i32,
}

/// Constant parameters of [`svdf_s8_state8`]: [`SvdfS8`] with int8 time weights and state.
#[derive(Clone, Copy, Debug)]
pub struct SvdfS8State8<'a> {
    /// Rows of the input, the state and the output.
    pub batches: usize,
    /// Elements per input row.
    pub input_size: usize,
    /// Filters: `num_units * rank` (the first dimension of both weight tensors).
    pub num_filters: usize,
    /// Filters summed into each output unit.
    pub rank: usize,
    /// State values kept per filter (the time weights' second dimension).
    pub memory_size: usize,
    /// Feature weights, `[num_filters, input_size]` (TFLM ignores their zero point).
    pub weights_feature: &'a [i8],
    /// Time weights, `[num_filters, memory_size]` (TFLM ignores their zero point).
    pub weights_time: &'a [i8],
    /// Per-unit bias (`num_units` values), or none (sums start at 0).
    pub bias: Option<&'a [i32]>,
    /// Input zero point, subtracted from every input.
    pub input_zero_point: i32,
    /// State zero point: added to each new state value, subtracted from state values read.
    pub state_zero_point: i32,
    /// Output zero point.
    pub output_zero_point: i32,
    /// Q31 multiplier of input scale * feature weight scale / state scale.
    pub feature_multiplier: i32,
    /// Its shift (positive = left).
    pub feature_shift: i32,
    /// Q31 multiplier of state scale * time weight scale / output scale.
    pub output_multiplier: i32,
    /// Its shift (positive = left).
    pub output_shift: i32,
}

/// Constant parameters of [`svdf_f32`].
#[derive(Clone, Copy, Debug)]
pub struct SvdfF32<'a> {
    /// Rows of the input, the state and the output.
    pub batches: usize,
    /// Elements per input row.
    pub input_size: usize,
    /// Filters: `num_units * rank`.
    pub num_filters: usize,
    /// Filters summed into each output unit.
    pub rank: usize,
    /// State values kept per filter.
    pub memory_size: usize,
    /// Feature weights, `[num_filters, input_size]`.
    pub weights_feature: &'a [f32],
    /// Time weights, `[num_filters, memory_size]`.
    pub weights_time: &'a [f32],
    /// Per-unit bias, or none (sums start at 0).
    pub bias: Option<&'a [f32]>,
    /// Lowest output value (fused activation).
    pub act_min: f32,
    /// Highest output value.
    pub act_max: f32,
    /// The fused activation TFLM's `ActivationValFloat` applies where it is a function rather
    /// than a clamp: 0 none (the clamp to `act_min..=act_max` alone), 1 TANH (`tanhf`, no clamp),
    /// 2 SIGN_BIT (1.0 where the sign bit is set, else 0.0, no clamp).
    pub function: i32,
}

/// A state (and time weight) element of the integer kernels: int16 or int8.
trait Word: Copy + Into<i32> {
    /// Bytes per element.
    const BYTES: usize;
    /// The type's range, to which each new feature is clamped before the zero point is added.
    const MIN: i32;
    /// See [`Word::MIN`].
    const MAX: i32;
    /// The little-endian element at the start of `b`.
    fn load(b: &[u8]) -> i32;
    /// Stores `v` truncated to the type (TFLM's conversion of an int32 to `T`).
    fn store(v: i32, b: &mut [u8]);
    /// One filter's state step: shifts its state `row` (`w.len()` elements) left by one element,
    /// stores `new` (truncated) in the last, and returns `Σ w * (s - zero_point)` (wrapping) over
    /// the updated row: the reference's shift, store and time product, whose products wrapping
    /// sums may take in any order.
    fn shift_dot(row: &mut [u8], w: &[Self], new: i32, zero_point: i32) -> i32 {
        shift_dot_scalar(row, w, new, zero_point)
    }
}

/// [`Word::shift_dot`] element by element.
#[inline(always)]
fn shift_dot_scalar<W: Word>(row: &mut [u8], w: &[W], new: i32, zero_point: i32) -> i32 {
    let n = W::BYTES;
    let row = &mut row[..n * w.len()];
    let Some((&w_last, w)) = w.split_last() else {
        return 0;
    };
    let mut dot = 0i32;
    for (k, &w) in w.iter().enumerate() {
        let v = W::load(&row[n * (k + 1)..]);
        W::store(v, &mut row[n * k..]);
        dot = dot.wrapping_add(w.into().wrapping_mul(v.wrapping_sub(zero_point)));
    }
    let at = n * w.len();
    W::store(new, &mut row[at..]);
    let v = W::load(&row[at..]);
    dot.wrapping_add(w_last.into().wrapping_mul(v.wrapping_sub(zero_point)))
}

impl Word for i16 {
    const BYTES: usize = 2;
    const MIN: i32 = i16::MIN as i32;
    const MAX: i32 = i16::MAX as i32;
    fn load(b: &[u8]) -> i32 {
        i32::from(i16::from_le_bytes([b[0], b[1]]))
    }
    fn store(v: i32, b: &mut [u8]) {
        b[..2].copy_from_slice(&(v as i16).to_le_bytes());
    }
    #[inline(always)]
    fn shift_dot(row: &mut [u8], w: &[i16], new: i32, zero_point: i32) -> i32 {
        // Pairs of int16 per `smlad`; a state zero point (rare: int16 state is symmetric) could
        // take `s - zero_point` out of 16 bits, so it takes the scalar path.
        #[cfg(tinyaot_dsp)]
        if zero_point == 0 && w.len() >= 2 && w.len().is_multiple_of(2) {
            return super::nn_common::shift_dot_i16(row, w, new as u16);
        }
        shift_dot_scalar(row, w, new, zero_point)
    }
}

impl Word for i8 {
    const BYTES: usize = 1;
    const MIN: i32 = i8::MIN as i32;
    const MAX: i32 = i8::MAX as i32;
    fn load(b: &[u8]) -> i32 {
        i32::from(b[0] as i8)
    }
    fn store(v: i32, b: &mut [u8]) {
        b[0] = v as u8;
    }
    #[inline(always)]
    fn shift_dot(row: &mut [u8], w: &[i8], new: i32, zero_point: i32) -> i32 {
        // Words of four; the offset `-zero_point` lies in [-127, 128], as the lanes need.
        #[cfg(tinyaot_dsp)]
        if w.len() >= 4 && w.len().is_multiple_of(4) {
            return super::nn_common::shift_dot_s8(row, w, new as u8, zero_point.wrapping_neg());
        }
        shift_dot_scalar(row, w, new, zero_point)
    }
}

/// What the two integer kernels share, their time weights aside.
struct Int<'a, W> {
    dims: [usize; 5],
    weights_feature: &'a [i8],
    weights_time: &'a [W],
    bias: Option<&'a [i32]>,
    zero_points: [i32; 3],
    scales: [(i32, i32); 2],
}

/// The [`Int`] of an integer kernel's parameters ([`SvdfS8`] and [`SvdfS8State8`] have the same
/// fields, their time weights' type aside).
macro_rules! int_args {
    ($p:expr) => {
        Int {
            dims: [
                $p.batches,
                $p.input_size,
                $p.num_filters,
                $p.rank,
                $p.memory_size,
            ],
            weights_feature: $p.weights_feature,
            weights_time: $p.weights_time,
            bias: $p.bias,
            zero_points: [
                $p.input_zero_point,
                $p.state_zero_point,
                $p.output_zero_point,
            ],
            scales: [
                ($p.feature_multiplier, $p.feature_shift),
                ($p.output_multiplier, $p.output_shift),
            ],
        }
    };
}

/// The integer SVDF: `Word` is the state's (and time weights') element type. Per batch, two
/// passes. First the features, four filters at a time sharing the input's words, each clamped to
/// `Word` plus the state zero point and stored in its filter's first state element: the oldest,
/// which the shift drops. Then unit by unit, each filter's state step ([`Word::shift_dot`], which
/// rotates that new value into the last element) and time product, added to the unit's bias and
/// requantized. The reference shifts the whole state (a filter's oldest element takes the
/// previous filter's newest, which its new feature then overwrites): the same state as rotating
/// each filter's row.
#[inline(always)]
fn svdf_int<W: Word>(arena: &mut [u8], (input, state, output): (usize, usize, usize), p: Int<W>) {
    let [batches, input_size, filters, rank, memory] = p.dims;
    let [zp_in, zp_state, zp_out] = p.zero_points;
    let [feature, scale_out] = p
        .scales
        .map(|(multiplier, shift)| Scale::new(multiplier, shift));
    let rank = rank.max(1);
    let units = filters / rank;
    let row = filters * memory;
    let weights_feature = &p.weights_feature[..filters * input_size];
    let weights_time = &p.weights_time[..row];
    let bias = p.bias.map_or(&[][..], |b| &b[..units]);
    let [inp, st, out] = views::disjoint(
        arena,
        [
            (input, batches * input_size),
            (state, W::BYTES * batches * row),
            (output, batches * units),
        ],
    );
    // The input offset `-zp_in` lies in [-127, 128], as the dot products need.
    let offset = zp_in.wrapping_neg();
    // With no state (which the lowering refuses) no features are kept and every time product is
    // 0: the passes below then take no filter.
    let kept = if memory > 0 { filters } else { 0 };
    let pass = Pass {
        feature,
        scale_out,
        zero_points: [offset, zp_state, zp_out],
        rank,
        memory,
        kept,
    };
    for b in 0..batches {
        let x = &inp[b * input_size..][..input_size];
        let st = &mut st[W::BYTES * b * row..][..W::BYTES * row];
        let out = &mut out[b * units..][..units];
        features::<W>(st, weights_feature, x, &pass);
        time_products(st, weights_time, bias, out, &pass);
    }
}

/// What the two passes of [`svdf_int`] share: the scales, the zero points (the input offset
/// `-input_zero_point`, the state's, the output's), the rank, the memory and the filters kept.
struct Pass {
    feature: Scale,
    scale_out: Scale,
    zero_points: [i32; 3],
    rank: usize,
    memory: usize,
    kept: usize,
}

/// [`svdf_int`]'s first pass over one batch: the features of its input row `x`, four filters at a
/// time, each clamped to `W` plus the state zero point and stored in its filter's first state
/// element of `st`. Not inlined on bare metal: a function of its own keeps its loop's values in
/// registers (keyword_scrambled: 102,240 instructions against 108,000 in one function).
#[cfg_attr(target_os = "none", inline(never))]
fn features<W: Word>(st: &mut [u8], weights_feature: &[i8], x: &[u8], p: &Pass) {
    let input_size = x.len();
    let [offset, zp_state, _] = p.zero_points;
    let (stride, kept, feature) = (W::BYTES * p.memory, p.kept, p.feature);
    let mut store = |f: usize, dot: i32| {
        let v = feature.apply(dot).clamp(W::MIN, W::MAX);
        W::store(zp_state.wrapping_add(v), &mut st[f * stride..]);
    };
    let mut f = 0;
    for block in weights_feature
        .chunks_exact(4 * input_size.max(1))
        .take(kept / 4)
    {
        let (w01, w23) = block.split_at(2 * input_size);
        let (w0, w1) = w01.split_at(input_size);
        let (w2, w3) = w23.split_at(input_size);
        for (k, dot) in dot4_s8([w0, w1, w2, w3], x, offset).into_iter().enumerate() {
            store(f + k, dot);
        }
        f += 4;
    }
    while f < kept {
        store(f, dot_s8(&weights_feature[f * input_size..], x, offset));
        f += 1;
    }
}

/// [`svdf_int`]'s second pass over one batch, filter by filter (one copy of the state step): each
/// filter's state row of `st` rotated and its time product ([`Word::shift_dot`]) added to its
/// unit's sum, which starts at the unit's bias and is requantized into `out` after its `rank`-th
/// filter; filters past the last whole unit (`num_filters % rank`) still step their state. Not
/// inlined on bare metal, as [`features`].
#[cfg_attr(target_os = "none", inline(never))]
fn time_products<W: Word>(
    st: &mut [u8],
    weights_time: &[W],
    bias: &[i32],
    out: &mut [u8],
    p: &Pass,
) {
    let [_, zp_state, _] = p.zero_points;
    let (memory, rank) = (p.memory, p.rank);
    let rows = st.chunks_exact_mut(W::BYTES * memory.max(1));
    let rows = rows
        .zip(weights_time.chunks_exact(memory.max(1)))
        .take(p.kept);
    let mut outs = out.iter_mut();
    let (mut u, mut left) = (0, rank);
    let mut acc = bias.first().copied().unwrap_or(0);
    for (s, w) in rows {
        let new = W::load(s);
        acc = acc.wrapping_add(W::shift_dot(s, w, new, zp_state));
        left -= 1;
        if left == 0 {
            if let Some(o) = outs.next() {
                *o = requantize_out(acc, p);
            }
            u += 1;
            left = rank;
            acc = bias.get(u).copied().unwrap_or(0);
        }
    }
    // Units of no filter (no state, which the lowering refuses): the bias alone.
    for (o, u) in outs.zip(u..) {
        *o = requantize_out_outlined(bias.get(u).copied().unwrap_or(0), p);
    }
}

/// A unit's output: its sum requantized, plus the output zero point, clamped to int8.
#[inline(always)]
fn requantize_out(acc: i32, p: &Pass) -> u8 {
    (p.scale_out.apply(acc).wrapping_add(p.zero_points[2])).clamp(-128, 127) as i8 as u8
}

/// [`requantize_out`] not inlined on bare metal, for the cold loop of units of no filter (inline,
/// the compiler unrolled that loop into a kilobyte).
#[cold]
#[cfg_attr(target_os = "none", inline(never))]
fn requantize_out_outlined(acc: i32, p: &Pass) -> u8 {
    requantize_out(acc, p)
}

/// int8 SVDF with int16 time weights and state (TFLM's `EvalInt16SvdfReference`). Each new state
/// value is `clamp_int16(MultiplyByQuantizedMultiplier(Σ w_f * (x - input_zero_point)))` plus the
/// state zero point; each output is `MultiplyByQuantizedMultiplier(bias + Σ_rank Σ_memory w_t *
/// (state - state_zero_point))` plus the output zero point, clamped to int8 (TFLM applies no fused
/// activation here). Sums wrap at 32 bits. Reads `batches * input_size` bytes at `input`, updates
/// `2 * batches * num_filters * memory_size` bytes at `activation_state`, writes
/// `batches * num_units` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn svdf_s8(arena: &mut [u8], input: usize, activation_state: usize, output: usize, p: &SvdfS8) {
    let p = super::opaque(p);
    svdf_int(arena, (input, activation_state, output), int_args!(p));
}

/// [`svdf_s8`] with int8 time weights and state (TFLM's `EvalInt8SvdfReference`): new state
/// values are clamped to int8 before the state zero point is added (and the sum truncated to
/// int8). Updates `batches * num_filters * memory_size` bytes at `activation_state`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn svdf_s8_state8(
    arena: &mut [u8],
    input: usize,
    activation_state: usize,
    output: usize,
    p: &SvdfS8State8,
) {
    let p = super::opaque(p);
    svdf_int(arena, (input, activation_state, output), int_args!(p));
}

/// float32 SVDF (TFLM's `EvalFloatSvdfReference`): the new state value of each filter is
/// `Σ w_f * x` in input order; each output is the bias plus, filter by filter, `Σ w_t * state` in
/// time order, then the fused activation. Reads `4 * batches * input_size` bytes at `input`,
/// updates `4 * batches * num_filters * memory_size` bytes at `activation_state`, writes
/// `4 * batches * num_units` bytes at `output`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn svdf_f32(
    arena: &mut [u8],
    input: usize,
    activation_state: usize,
    output: usize,
    p: &SvdfF32,
) {
    let p = super::opaque(p);
    let state = activation_state;
    let (batches, input_size, filters, rank, memory) = (
        p.batches,
        p.input_size,
        p.num_filters,
        p.rank,
        p.memory_size,
    );
    let units = filters / rank.max(1);
    let row = filters * memory;
    let state_len = 4 * batches * row;
    let weights_feature = &p.weights_feature[..filters * input_size];
    let weights_time = &p.weights_time[..row];
    let bias = p.bias.map(|b| &b[..units]);
    {
        let (inp, st) = views::split(arena, input, 4 * batches * input_size, state, state_len);
        if state_len > 0 {
            st.copy_within(4.., 0);
        }
        for b in 0..batches {
            let x = &inp[4 * b * input_size..][..4 * input_size];
            for f in 0..filters {
                let w = &weights_feature[f * input_size..][..input_size];
                let mut dot = 0.0f32;
                for (&w, x) in w.iter().zip(views::f32s(x)) {
                    dot += w * x;
                }
                let at = 4 * (b * row + f * memory + memory - 1);
                st[at..at + 4].copy_from_slice(&dot.to_le_bytes());
            }
        }
    }
    let (st, out) = views::split(arena, state, state_len, output, 4 * batches * units);
    for b in 0..batches {
        for u in 0..units {
            let mut acc = bias.map_or(0.0, |b| b[u]);
            for f in u * rank..(u + 1) * rank {
                let s = &st[4 * (b * row + f * memory)..][..4 * memory];
                let w = &weights_time[f * memory..][..memory];
                let mut dot = 0.0f32;
                for (&w, s) in w.iter().zip(views::f32s(s)) {
                    dot += w * s;
                }
                acc += dot;
            }
            let v = float_activation(acc, p);
            let at = 4 * (b * units + u);
            out[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// TFLM's `ActivationValFloat` of a float SVDF's sum: TANH and SIGN_BIT are functions, the
/// others clamps (see [`SvdfF32::function`]).
#[inline(always)]
fn float_activation(acc: f32, p: &SvdfF32) -> f32 {
    match p.function {
        1 => tanh_f32(acc),
        2 => f32::from(u8::from(acc.is_sign_negative())),
        _ => clamp_f32(acc, p.act_min, p.act_max),
    }
}

/// [`svdf_s8`] with feature weights, time weights or a bias computed at run time (a graph input
/// or an operator's output), which TFLM's Eval reads wherever they are: `weights_feature`
/// (`num_filters * input_size` INT8), `weights_time` (`num_filters * memory_size` INT16) and
/// `bias` (`num_units` INT32), each a tensor of the arena or a constant; the parameters' weights
/// and bias are not read. Term by term as TFLM's `EvalIntegerSvdfReference` (see
/// `svdf_dyn_int`).
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn svdf_dyn_s8(
    arena: &mut [u8],
    input: usize,
    activation_state: usize,
    output: usize,
    weights_feature: Src,
    weights_time: Src,
    bias: Src,
    p: &SvdfS8,
) {
    let p = super::opaque(p);
    svdf_dyn_int::<i16>(
        arena,
        (input, activation_state, output),
        [weights_feature, weights_time, bias],
        int_args!(p),
    );
}

/// [`svdf_s8_state8`] with weights or a bias computed at run time, as [`svdf_dyn_s8`]
/// (`weights_time` INT8).
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn svdf_dyn_s8_state8(
    arena: &mut [u8],
    input: usize,
    activation_state: usize,
    output: usize,
    weights_feature: Src,
    weights_time: Src,
    bias: Src,
    p: &SvdfS8State8,
) {
    let p = super::opaque(p);
    svdf_dyn_int::<i8>(
        arena,
        (input, activation_state, output),
        [weights_feature, weights_time, bias],
        int_args!(p),
    );
}

/// [`svdf_f32`] with weights or a bias computed at run time, as [`svdf_dyn_s8`] (all three
/// FLOAT32; the parameters' weights and bias are not read), term by term as TFLM's
/// `EvalFloatSvdfReference`.
#[cfg_attr(target_os = "none", inline(never))]
#[allow(clippy::too_many_arguments)]
pub fn svdf_dyn_f32(
    arena: &mut [u8],
    input: usize,
    activation_state: usize,
    output: usize,
    weights_feature: Src,
    weights_time: Src,
    bias: Src,
    p: &SvdfF32,
) {
    let p = super::opaque(p);
    let (batches, input_size, filters, rank, memory) = (
        p.batches,
        p.input_size,
        p.num_filters,
        p.rank.max(1),
        p.memory_size,
    );
    let (units, row) = (filters / rank, filters * memory);
    let lens = [
        4 * batches * input_size,
        4 * filters * input_size,
        4 * row,
        4 * units,
    ];
    let (state, state_len, out_len) = (activation_state, 4 * batches * row, 4 * batches * units);
    let reads = [Src::Arena(input), weights_feature, weights_time, bias];
    check_dyn_operands(&reads, lens, (state, state_len), (output, out_len));
    let get = |b: &[u8], i: usize| {
        f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    };
    if state_len > 0 {
        arena[state..state + state_len].copy_within(4.., 0);
    }
    // The feature product of each batch and filter, in input order, in the filter's last column.
    for b in 0..batches {
        for f in 0..if memory > 0 { filters } else { 0 } {
            let dot = {
                let x = &arena[input..][..lens[0]];
                let w = weights_feature.bytes(arena, lens[1]);
                let mut dot = 0.0f32;
                for i in 0..input_size {
                    dot += get(w, f * input_size + i) * get(x, b * input_size + i);
                }
                dot
            };
            let at = state + 4 * (b * row + f * memory + memory - 1);
            arena[at..at + 4].copy_from_slice(&dot.to_le_bytes());
        }
    }
    // Each unit: the bias, plus its filters' time products (each in time order), activated.
    for b in 0..batches {
        for u in 0..units {
            let v = {
                let st = &arena[state..][..state_len];
                let w = weights_time.bytes(arena, lens[2]);
                let mut acc = get(bias.bytes(arena, lens[3]), u);
                for f in u * rank..(u + 1) * rank {
                    let mut dot = 0.0f32;
                    for m in 0..memory {
                        dot += get(w, f * memory + m) * get(st, b * row + f * memory + m);
                    }
                    acc += dot;
                }
                float_activation(acc, p)
            };
            let at = output + 4 * (b * units + u);
            arena[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Panics unless the operands of an `svdf_dyn_*` kernel are disjoint where it needs them to be:
/// the `reads` (input, feature weights, time weights, bias; `lens` bytes each) miss the state
/// and the output, which it writes while reading them, and the state misses the output. The
/// reads may overlap each other (a tensor read twice).
fn check_dyn_operands(
    reads: &[Src; 4],
    lens: [usize; 4],
    (state, state_len): (usize, usize),
    (output, out_len): (usize, usize),
) {
    assert!(
        !views::overlapping(state, state_len, output, out_len),
        "kernel operands overlap"
    );
    for (src, len) in reads.iter().zip(lens) {
        if let Src::Arena(at) = *src {
            assert!(
                !views::overlapping(at, len, state, state_len)
                    && !views::overlapping(at, len, output, out_len),
                "kernel operands overlap"
            );
        }
    }
}

/// The integer SVDF of the `svdf_dyn_*` kernels, term by term as TFLM's
/// `EvalIntegerSvdfReference` with the `[feature weights, time weights, bias]` read from `srcs`
/// (`p`'s weights and bias unread): the whole state shifted left one element, each filter's
/// feature product (clamped to `W`, plus the state zero point) stored in its last column, then
/// each unit's bias plus its filters' time products requantized to int8. Sums wrap at 32 bits
/// (in any order, so the same as the constant kernels' and TFLM's).
#[inline(always)]
fn svdf_dyn_int<W: Word>(
    arena: &mut [u8],
    (input, state, output): (usize, usize, usize),
    [weights_feature, weights_time, bias]: [Src; 3],
    p: Int<W>,
) {
    let [batches, input_size, filters, rank, memory] = p.dims;
    let [zp_in, zp_state, zp_out] = p.zero_points;
    let [(m1, s1), (m2, s2)] = p.scales;
    let rank = rank.max(1);
    let (units, row, n) = (filters / rank, filters * memory, W::BYTES);
    let lens = [
        batches * input_size,
        filters * input_size,
        n * row,
        4 * units,
    ];
    let (state_len, out_len) = (n * batches * row, batches * units);
    let reads = [Src::Arena(input), weights_feature, weights_time, bias];
    check_dyn_operands(&reads, lens, (state, state_len), (output, out_len));
    if state_len > 0 {
        arena[state..state + state_len].copy_within(n.., 0);
    }
    for b in 0..batches {
        for f in 0..if memory > 0 { filters } else { 0 } {
            let v = {
                let x = &arena[input + b * input_size..][..input_size];
                let w = &weights_feature.bytes(arena, lens[1])[f * input_size..][..input_size];
                let mut dot = 0i32;
                for (&w, &x) in w.iter().zip(x) {
                    let x = i32::from(x as i8).wrapping_sub(zp_in);
                    dot = dot.wrapping_add(i32::from(w as i8).wrapping_mul(x));
                }
                multiply_by_quantized_multiplier(dot, m1, s1).clamp(W::MIN, W::MAX)
            };
            let at = state + n * (b * row + f * memory + memory - 1);
            W::store(zp_state.wrapping_add(v), &mut arena[at..]);
        }
    }
    for b in 0..batches {
        for u in 0..units {
            let v = {
                let st = &arena[state + n * b * row..][..n * row];
                let w = weights_time.bytes(arena, lens[2]);
                let bias = &bias.bytes(arena, lens[3])[4 * u..];
                let mut acc = i32::from_le_bytes([bias[0], bias[1], bias[2], bias[3]]);
                for k in u * rank * memory..(u + 1) * rank * memory {
                    let s = W::load(&st[n * k..]).wrapping_sub(zp_state);
                    acc = acc.wrapping_add(W::load(&w[n * k..]).wrapping_mul(s));
                }
                multiply_by_quantized_multiplier(acc, m2, s2).wrapping_add(zp_out)
            };
            arena[output + b * units + u] = v.clamp(-128, 127) as i8 as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// One batch, two inputs, two filters of rank 2 (one unit), memory 3, int16 state. The state
    /// starts at [1, 2, 3 | 4, 5, 6]; the shift gives [2, 3, 4 | 5, 6, 6] before the new features
    /// land in the last columns.
    #[test]
    fn s8_shifts_the_state_and_sums_over_the_rank() {
        // Arena: input (2 bytes) at 0, state (12 bytes) at 2, output (1 byte) at 14.
        let mut arena = [0u8; 16];
        arena[0] = 13u8; // 13 - zp 3 = 10
        arena[1] = (-7i8) as u8; // -7 - 3 = -10
        for (i, v) in [1i16, 2, 3, 4, 5, 6].iter().enumerate() {
            arena[2 + 2 * i..4 + 2 * i].copy_from_slice(&v.to_le_bytes());
        }
        let p = SvdfS8 {
            batches: 1,
            input_size: 2,
            num_filters: 2,
            rank: 2,
            memory_size: 3,
            // Features: 10 * 3 - 10 * 1 = 20, and 10 * -2 - 10 * 5 = -70.
            weights_feature: &[3, 1, -2, 5],
            weights_time: &[1, 1, 1, 100, -1, 2],
            bias: Some(&[1000]),
            input_zero_point: 3,
            state_zero_point: 1,
            output_zero_point: -5,
            // x * 0.5 rounded: 20 -> 10, -70 -> -35; plus the state zero point 1.
            feature_multiplier: 1 << 30,
            feature_shift: 0,
            // x / 8, rounded half away from zero.
            output_multiplier: 1 << 30,
            output_shift: -2,
        };
        svdf_s8(&mut arena, 0, 2, 14, &p);
        let state: [i16; 6] =
            core::array::from_fn(|i| i16::from_le_bytes([arena[2 + 2 * i], arena[3 + 2 * i]]));
        assert_eq!(state, [2, 3, 11, 5, 6, -34]);
        // Filter 0: (2-1) + (3-1) + (11-1) = 13; filter 1: 100*4 - 5 + 2*-35 = 325.
        // 1000 + 13 + 325 = 1338, / 8 = 167.25 -> 167, - 5 = 162 -> clamped to 127.
        assert_eq!(arena[14] as i8, 127);
        // A second call: the bias now -1000 + ... with the same state carried.
        let p2 = SvdfS8 {
            bias: Some(&[-2000]),
            ..p
        };
        svdf_s8(&mut arena, 0, 2, 14, &p2);
        let state: [i16; 6] =
            core::array::from_fn(|i| i16::from_le_bytes([arena[2 + 2 * i], arena[3 + 2 * i]]));
        assert_eq!(state, [3, 11, 11, 6, -34, -34]);
        // Filter 0: 2 + 10 + 10 = 22; filter 1: 100*5 + 35 - 70 = 465; -2000 + 487 = -1513,
        // / 8 = -189.125 -> -189, - 5 = -194 -> clamped to -128.
        assert_eq!(arena[14] as i8, -128);
    }

    /// int8 state: a new feature clamps to int8 before the zero point is added, and the sum
    /// wraps to int8 as TFLM's conversion does.
    #[test]
    fn s8_state8_clamps_then_adds_the_zero_point() {
        let mut arena = [0u8; 8];
        arena[0] = 100u8;
        // State [zp, zp] = [-50, -50].
        arena[1] = (-50i8) as u8;
        arena[2] = (-50i8) as u8;
        let p = SvdfS8State8 {
            batches: 1,
            input_size: 1,
            num_filters: 1,
            rank: 1,
            memory_size: 2,
            weights_feature: &[127],
            weights_time: &[1, 2],
            bias: Some(&[0]),
            input_zero_point: 0,
            state_zero_point: -50,
            output_zero_point: 0,
            // 12700 clamps to 127; 127 - 50 = 77.
            feature_multiplier: 1 << 30,
            feature_shift: 1,
            output_multiplier: 1 << 30,
            output_shift: 1,
        };
        svdf_s8_state8(&mut arena, 0, 1, 3, &p);
        assert_eq!([arena[1] as i8, arena[2] as i8], [-50, 77]);
        // 1 * 0 + 2 * 127 = 254, times 1 = 254 -> 127.
        assert_eq!(arena[3] as i8, 127);
        // With state zero point 100, 127 + 100 = 227 wraps to -29.
        let p2 = SvdfS8State8 {
            state_zero_point: 100,
            ..p
        };
        svdf_s8_state8(&mut arena, 0, 1, 3, &p2);
        assert_eq!([arena[1] as i8, arena[2] as i8], [77, -29]);
    }

    #[test]
    fn f32_rank1_with_relu() {
        // Input [1, 2] at 0, state 2 filters x 2 memory at 8, output 2 units at 24.
        let mut arena = [0u8; 32];
        let put = |arena: &mut [u8], at: usize, vs: &[f32]| {
            for (i, v) in vs.iter().enumerate() {
                arena[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
            }
        };
        put(&mut arena, 0, &[1.0, 2.0]);
        put(&mut arena, 8, &[0.5, 1.5, -1.0, 4.0]);
        let p = SvdfF32 {
            batches: 1,
            input_size: 2,
            num_filters: 2,
            rank: 1,
            memory_size: 2,
            weights_feature: &[1.0, 1.0, -1.0, 0.0],
            weights_time: &[2.0, 1.0, 1.0, 1.0],
            bias: Some(&[0.25, 0.0]),
            act_min: 0.0,
            act_max: f32::INFINITY,
            function: 0,
        };
        svdf_f32(&mut arena, 0, 8, 24, &p);
        let get =
            |arena: &[u8], at: usize| f32::from_le_bytes(arena[at..at + 4].try_into().unwrap());
        // State: [1.5, 3 | 4, -1]; outputs 0.25 + 3 + 3 and max(0, 4 - 1) = 3.
        let state: [f32; 4] = core::array::from_fn(|i| get(&arena, 8 + 4 * i));
        assert_eq!(state, [1.5, 3.0, 4.0, -1.0]);
        assert_eq!([get(&arena, 24), get(&arena, 28)], [6.25, 3.0]);
    }

    /// TANH and SIGN_BIT are functions of the sum, not clamps (TFLM's `ActivationValFloat`); a
    /// bias computed at run time is read from the arena.
    #[test]
    fn f32_functions_and_a_bias_at_run_time() {
        // Input [1, 1] at 0, state 2 filters x 1 memory at 8, output 2 units at 16, bias at 24.
        let mut arena = [0u8; 32];
        arena[0..4].copy_from_slice(&1.0f32.to_le_bytes());
        arena[24..28].copy_from_slice(&0.5f32.to_le_bytes());
        arena[28..32].copy_from_slice(&(-0.0f32).to_le_bytes());
        let p = |function| SvdfF32 {
            batches: 1,
            input_size: 1,
            num_filters: 2,
            rank: 1,
            memory_size: 1,
            weights_feature: &[],
            weights_time: &[],
            bias: None,
            act_min: f32::NEG_INFINITY,
            act_max: f32::INFINITY,
            function,
        };
        let get =
            |arena: &[u8], at: usize| f32::from_le_bytes(arena[at..at + 4].try_into().unwrap());
        let wf: Vec<u8> = [1.0f32, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let wt: Vec<u8> = [1.0f32, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect();
        let run = |arena: &mut [u8], function| {
            let (f, t) = (Src::Bytes(&wf), Src::Bytes(&wt));
            svdf_dyn_f32(arena, 0, 8, 16, f, t, Src::Arena(24), &p(function));
        };
        // Sums: 0.5 + 1 = 1.5 and -0.0 + 0 * -2 = 0.0 (positive zero).
        run(&mut arena, 1);
        assert_eq!([get(&arena, 16), get(&arena, 20)], [tanh_f32(1.5), 0.0]);
        run(&mut arena, 2);
        assert_eq!([get(&arena, 16), get(&arena, 20)], [0.0, 0.0]);
        arena[24..28].copy_from_slice(&(-3.0f32).to_le_bytes());
        run(&mut arena, 2);
        assert_eq!([get(&arena, 16), get(&arena, 20)], [1.0, 0.0]);
    }

    /// Writes `bytes` at `at`.
    fn put(arena: &mut [u8], at: usize, bytes: &[u8]) {
        arena[at..at + bytes.len()].copy_from_slice(bytes);
    }

    /// The dyn integer kernels, their weights and bias in the arena (or some of them constants),
    /// give the constant kernels' state and outputs, call after call: int16 and int8 state, two
    /// batches, filters not a multiple of four, a nonzero state zero point for int8.
    #[test]
    fn dyn_s8_matches_the_constant_kernels() {
        let (batches, input_size, filters, rank, memory) = (2, 5, 6, 2, 3);
        let wf: Vec<i8> = (0..30).map(|i| (i * 37 % 255 - 127) as i8).collect();
        let wt16: Vec<i16> = (0..18).map(|i| (i * 911 % 4001 - 2000) as i16).collect();
        let wt8: Vec<i8> = (0..18).map(|i| (i * 53 % 255 - 127) as i8).collect();
        let bias = [700i32, -1500, 90];
        let inputs: [[i8; 10]; 2] = [
            core::array::from_fn(|i| (i as i32 * 25 - 120) as i8),
            core::array::from_fn(|i| (100 - i as i32 * 19) as i8),
        ];
        // Arena: input 10 at 0, state (up to 72) at 16, output 6 at 96, feature weights 30 at
        // 112, time weights (up to 36) at 144, bias 12 at 192.
        let layout = |wt: &[u8]| {
            let mut arena = [0u8; 208];
            put(
                &mut arena,
                112,
                &wf.iter().map(|&w| w as u8).collect::<Vec<_>>(),
            );
            put(&mut arena, 144, wt);
            let b: Vec<u8> = bias.iter().flat_map(|b| b.to_le_bytes()).collect();
            put(&mut arena, 192, &b);
            arena
        };
        let p16 = SvdfS8 {
            batches,
            input_size,
            num_filters: filters,
            rank,
            memory_size: memory,
            weights_feature: &wf,
            weights_time: &wt16,
            bias: Some(&bias),
            input_zero_point: -3,
            state_zero_point: 0,
            output_zero_point: 5,
            feature_multiplier: 1_300_000_000,
            feature_shift: 2,
            output_multiplier: 1_100_000_000,
            output_shift: -9,
        };
        let wt16_bytes: Vec<u8> = wt16.iter().flat_map(|w| w.to_le_bytes()).collect();
        let (mut a, mut b) = (layout(&wt16_bytes), layout(&wt16_bytes));
        let empty = SvdfS8 {
            weights_feature: &[],
            weights_time: &[],
            bias: None,
            ..p16
        };
        for x in inputs {
            put(&mut a, 0, &x.map(|v| v as u8));
            put(&mut b, 0, &x.map(|v| v as u8));
            svdf_s8(&mut a, 0, 16, 96, &p16);
            // The time weights a constant, the others in the arena.
            let wt = Src::Bytes(&wt16_bytes);
            svdf_dyn_s8(
                &mut b,
                0,
                16,
                96,
                Src::Arena(112),
                wt,
                Src::Arena(192),
                &empty,
            );
            assert_eq!(a[16..16 + 72], b[16..16 + 72]);
            assert_eq!(a[96..102], b[96..102]);
        }
        let p8 = SvdfS8State8 {
            batches,
            input_size,
            num_filters: filters,
            rank,
            memory_size: memory,
            weights_feature: &wf,
            weights_time: &wt8,
            bias: Some(&bias),
            input_zero_point: 7,
            state_zero_point: -20,
            output_zero_point: -2,
            feature_multiplier: 1_500_000_000,
            feature_shift: -3,
            output_multiplier: 1_200_000_000,
            output_shift: -4,
        };
        let wt8_bytes: Vec<u8> = wt8.iter().map(|&w| w as u8).collect();
        let (mut a, mut b) = (layout(&wt8_bytes), layout(&wt8_bytes));
        // The state starts at its zero point, as TFLM's reset leaves it.
        a[16..16 + 36].fill(-20i8 as u8);
        b[16..16 + 36].fill(-20i8 as u8);
        let empty = SvdfS8State8 {
            weights_feature: &[],
            weights_time: &[],
            bias: None,
            ..p8
        };
        for x in inputs {
            put(&mut a, 0, &x.map(|v| v as u8));
            put(&mut b, 0, &x.map(|v| v as u8));
            svdf_s8_state8(&mut a, 0, 16, 96, &p8);
            let (f, t, bias) = (Src::Arena(112), Src::Arena(144), Src::Arena(192));
            svdf_dyn_s8_state8(&mut b, 0, 16, 96, f, t, bias, &empty);
            assert_eq!(a[16..16 + 36], b[16..16 + 36]);
            assert_eq!(a[96..102], b[96..102]);
        }
    }

    /// The dyn float kernel, its weights in the arena, gives the constant kernel's bits.
    #[test]
    fn dyn_f32_matches_the_constant_kernel() {
        let wf: Vec<f32> = (0..8).map(|i| (i as f32 - 3.3) / 7.0).collect();
        let wt: Vec<f32> = (0..6).map(|i| (2.1 - i as f32) / 3.0).collect();
        let bias = [0.125f32];
        let p = SvdfF32 {
            batches: 1,
            input_size: 4,
            num_filters: 2,
            rank: 2,
            memory_size: 3,
            weights_feature: &wf,
            weights_time: &wt,
            bias: Some(&bias),
            act_min: -1.0,
            act_max: 1.0,
            function: 0,
        };
        let empty = SvdfF32 {
            weights_feature: &[],
            weights_time: &[],
            bias: None,
            ..p
        };
        // Arena: input 16 at 0, state 24 at 16, output 4 at 48, weights 32 and 24 at 64 and 96,
        // bias 4 at 128.
        let mut a = [0u8; 144];
        let bytes = |v: &[f32]| v.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
        put(&mut a, 64, &bytes(&wf));
        put(&mut a, 96, &bytes(&wt));
        put(&mut a, 128, &bytes(&bias));
        let mut b = a;
        for x in [[0.5f32, -1.25, 2.0, 0.75], [-0.3, 0.1, 0.9, -2.5]] {
            put(&mut a, 0, &bytes(&x));
            put(&mut b, 0, &bytes(&x));
            svdf_f32(&mut a, 0, 16, 48, &p);
            let (f, t, bias) = (Src::Arena(64), Src::Arena(96), Src::Arena(128));
            svdf_dyn_f32(&mut b, 0, 16, 48, f, t, bias, &empty);
            assert_eq!(a[..64], b[..64]);
        }
    }

    #[test]
    #[should_panic(expected = "overlap")]
    fn dyn_weights_over_the_state_are_refused() {
        let mut arena = [0u8; 64];
        let p = SvdfF32 {
            batches: 1,
            input_size: 1,
            num_filters: 1,
            rank: 1,
            memory_size: 2,
            weights_feature: &[],
            weights_time: &[],
            bias: None,
            act_min: f32::NEG_INFINITY,
            act_max: f32::INFINITY,
            function: 0,
        };
        let (f, t, b) = (Src::Arena(8), Src::Arena(32), Src::Arena(40));
        svdf_dyn_f32(&mut arena, 0, 4, 16, f, t, b, &p);
    }
}

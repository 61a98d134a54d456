//! UNIDIRECTIONAL_SEQUENCE_LSTM, bit-exact with TFLM's `EvalLstm` (the standard LSTM: no
//! peephole, projection or layer norm): int8 activations with int16 cell state (`lstm_s8`), int16
//! activations with int8 weights (`lstm_s16`) and float32 (`lstm_f32`).
//!
//! Each time step of each batch row computes, for every unit `j`, the four gates from the input row
//! `x` and the hidden state `h` of the previous step: `gate = act(FC_in(x) + FC_rec(h))`, where
//! TFLM's integer kernels requantize each fully connected product to int16 at scale 2^-12 and add
//! the two with int16 saturation; the forget, input and output gates take the sigmoid, the cell
//! gate the tanh (both TFLM's int16 table functions, `logistic_one_s16` / `tanh_one_s16`).
//! Then `c = clip(sat(f·c ⊕ i·g))` (two int16 multiplications requantized to the cell scale, a
//! saturating add, the quantized cell clip) and `h = o · tanh(c)`, requantized to the hidden state.
//! TFLM computes each stage for all units into four scratch buffers; the stages are element-wise
//! per unit, so computing them unit by unit gives the same values with no buffer: the new hidden
//! state is written to the step's output row, then copied into the hidden state (the old one is
//! read until the row is done).
//!
//! Layouts: input `[batches, time, input_size]` (or `[time, batches, input_size]` when time
//! major), output the same with `units` for `input_size`, hidden and cell state `[batches,
//! units]`; the weights of unit `j` are the four gates' rows (forget, input, cell, output) one
//! after another: `[units, 4, input_size]` and `[units, 4, units]`. Access order: batch rows and
//! time steps in order, for each the whole input row and hidden state are read while the output
//! row is written; input, output and the two states must not overlap (checked).

use super::logistic_tanh::{logistic_one_f32, logistic_one_s16, tanh_one_s16, LogisticS16};
use super::nn_common::float_math::tanh_f32;
use super::nn_common::requant::scale_16x8;
use super::nn_common::requant::{rounding_high_mul, Scale};
use super::nn_common::{clamp_f32, dot4_run_s8, dot_s16, views};
use crate::math::multiply_by_quantized_multiplier;

/// Constant parameters of [`lstm_s8`]: int8 activations, int8 weights, int32 biases, int16 cell
/// state (TFLM's "8x8→16" LSTM).
#[derive(Clone, Copy, Debug)]
pub struct LstmS8<'a> {
    /// Batch rows (each with its own hidden and cell state).
    pub batches: usize,
    /// Time steps per batch row.
    pub time_steps: usize,
    /// Elements of one input row.
    pub input_size: usize,
    /// Units: elements of the hidden state, cell state and one output row.
    pub units: usize,
    /// Input and output are `[time, batches, …]` rather than `[batches, time, …]`.
    pub time_major: bool,
    /// The input weights in the layout of `gate_sums`: each unit's four gate rows (forget,
    /// input, cell, output) interleaved by words, then every unit's rows' last bytes
    /// (word-aligned: the DSP loop reads them by aligned words).
    pub input_weights: &'a [i8],
    /// The recurrent weights, laid out as the input weights (rows of `units` bytes).
    pub recurrent_weights: &'a [i8],
    /// The gates' biases, `[units, 4]`, added to the input product, with `input_zero_point ·
    /// Σ weights` subtracted (the products then take the inputs as they are; the sums wrap in
    /// 32 bits as TFLM's, so folding gives the same sums).
    pub biases: &'a [i32],
    /// The recurrent products' biases, `[units, 4]`: `-hidden_zero_point · Σ weights` (TFLM
    /// has no recurrent bias but subtracts the zero point term by term).
    pub recurrent_biases: &'a [i32],
    /// Non-negative Q31 multipliers taking each gate's input product then recurrent product to
    /// the gate scale 2^-12: `[4, 2]`. The lowering takes this kernel only where every sum (bias
    /// included) times `2^max(shift, 0)` stays below 2^30 in magnitude and every shift in
    /// `mul_shifts` is a right shift, which `requantize_gate` and `requantize_narrow` need;
    /// `lstm_dyn_s8` takes the others.
    pub multipliers: &'a [i32],
    /// Their shifts (positive = left).
    pub shifts: &'a [i8],
    /// Non-negative Q31 multipliers of the three products: forget gate × cell state → cell
    /// state, input gate × cell gate → cell state, output gate × tanh(cell) → hidden state.
    pub mul_multipliers: &'a [i32],
    /// Their shifts (positive = left; all at most -1).
    pub mul_shifts: &'a [i8],
    /// Hidden state (and output) zero point.
    pub hidden_zero_point: i32,
    /// Lowest cell state value: `-quantized cell clip`, or -32768 without a clip.
    pub cell_min: i32,
    /// Highest cell state value: the quantized cell clip, or 32767 without one.
    pub cell_max: i32,
    /// The tanh of the cell state: multiplier as [`LogisticS16`]'s (TFLM's power-of-two case
    /// resolved from the cell scale's power of two).
    pub cell_tanh_multiplier: i32,
    /// Its right shift.
    pub cell_tanh_shift: i32,
}

/// Constant parameters of [`lstm_s16`]: int16 activations, int8 weights, 64-bit sums (TFLM's
/// "16x8" LSTM, int64 biases), int16 cell state.
#[derive(Clone, Copy, Debug)]
pub struct LstmS16<'a> {
    /// Batch rows (each with its own hidden and cell state).
    pub batches: usize,
    /// Time steps per batch row.
    pub time_steps: usize,
    /// Elements of one input row.
    pub input_size: usize,
    /// Units: elements of the hidden state, cell state and one output row.
    pub units: usize,
    /// Input and output are `[time, batches, …]` rather than `[batches, time, …]`.
    pub time_major: bool,
    /// The input weights, `[units, 4, input_size]` (gates forget, input, cell, output).
    pub input_weights: &'a [i8],
    /// The recurrent weights, `[units, 4, units]`.
    pub recurrent_weights: &'a [i8],
    /// `[units, 4, 2]`: each gate's bias for its input product (the gate bias less
    /// `input_zero_point · Σ weights`) and for its recurrent product (`-hidden_zero_point ·
    /// Σ weights`; TFLM has no recurrent bias but subtracts the zero point, and 64-bit sums are
    /// exact, so folding gives the same sums).
    pub biases: &'a [i64],
    /// `[4, 2]` multipliers of the products reduced to 16 bits as TFLM's 64-bit
    /// `MultiplyByQuantizedMultiplier` reduces them.
    pub multipliers: &'a [i32],
    /// Their right shifts, `15 - shift` (within `1..=46`).
    pub shifts: &'a [i8],
    /// Q31 multipliers of the three products: forget gate × cell state → cell state, input gate ×
    /// cell gate → cell state, output gate × tanh(cell) → hidden state.
    pub mul_multipliers: &'a [i32],
    /// Their shifts (positive = left).
    pub mul_shifts: &'a [i8],
    /// Hidden state (and output) zero point.
    pub hidden_zero_point: i32,
    /// Lowest cell state value: `-quantized cell clip`, or -32768 without a clip.
    pub cell_min: i32,
    /// Highest cell state value: the quantized cell clip, or 32767 without one.
    pub cell_max: i32,
    /// The tanh of the cell state: multiplier as [`LogisticS16`]'s.
    pub cell_tanh_multiplier: i32,
    /// Its right shift.
    pub cell_tanh_shift: i32,
}

/// Constant parameters of [`lstm_f32`].
#[derive(Clone, Copy, Debug)]
pub struct LstmF32<'a> {
    /// Batch rows (each with its own hidden and cell state).
    pub batches: usize,
    /// Time steps per batch row.
    pub time_steps: usize,
    /// Elements of one input row.
    pub input_size: usize,
    /// Units: elements of the hidden state, cell state and one output row.
    pub units: usize,
    /// Input and output are `[time, batches, …]` rather than `[batches, time, …]`.
    pub time_major: bool,
    /// The input weights, `[units, 4, input_size]` (gates forget, input, cell, output).
    pub input_weights: &'a [f32],
    /// The recurrent weights, `[units, 4, units]`.
    pub recurrent_weights: &'a [f32],
    /// The gates' biases, `[units, 4]`, added to the input product.
    pub biases: &'a [f32],
    /// The cell clip: the cell state is clamped to `±cell_clip` when it is positive.
    pub cell_clip: f32,
}

/// The sigmoid of the gates: TFLM calls its int16 Logistic with multiplier 0 and shift 0, the
/// power-of-two case, i.e. multiplier 3 (the gate scale 2^-12 is 1/4096 and the table wants
/// 1/12288 per LSB).
const GATE_SIGMOID: LogisticS16 = LogisticS16 {
    len: 1,
    input_multiplier: 3,
    input_right_shift: 0,
};

/// The tanh of the cell gate: TFLM's Tanh with a cell scale power of -12, the same multiplier.
const GATE_TANH: LogisticS16 = GATE_SIGMOID;

/// The arena views of one call: input, hidden state, cell state, output.
fn views_of(
    arena: &mut [u8],
    (input, hidden_state, cell_state, output): (usize, usize, usize, usize),
    (input_bytes, state_bytes, cell_bytes, output_bytes): (usize, usize, usize, usize),
) -> [&mut [u8]; 4] {
    views::disjoint(
        arena,
        [
            (input, input_bytes),
            (hidden_state, state_bytes),
            (cell_state, cell_bytes),
            (output, output_bytes),
        ],
    )
}

/// The row of input and output for batch `b` at step `t`.
#[inline(always)]
fn row_of(time_major: bool, batches: usize, time_steps: usize, b: usize, t: usize) -> usize {
    if time_major {
        t * batches + b
    } else {
        b * time_steps + t
    }
}

/// `x` saturated to int16.
#[inline(always)]
fn sat16(x: i32) -> i32 {
    x.clamp(-32768, 32767)
}

/// `MultiplyByQuantizedMultiplier(acc, multiplier, shift)` for `|acc| < 2^30`, a non-negative
/// multiplier and a right shift (`shift <= -1`), given `not_shift = !shift`: the doubling high
/// multiply is one rounding high multiply of `2 acc` (which fits), the rounding division
/// [`divide_high_by_pot`](super::nn_common::requant::divide_high_by_pot)'s with its first shift
/// known to be `right - 1 = !shift` (see the convolutions' `Requantizer::apply_narrow`). The
/// lowering proves the bounds ([`LstmS8`]).
#[inline(always)]
fn requantize_narrow(acc: i32, multiplier: i32, not_shift: u32) -> i32 {
    let high = rounding_high_mul(acc << 1, multiplier);
    let toward_zero = high + (high >> 31);
    (toward_zero.wrapping_shr(not_shift) + 1) >> 1
}

/// `MultiplyByQuantizedMultiplier(acc, multiplier, shift)` for a non-negative multiplier and
/// `|acc · 2^max(shift, 0)| < 2^30`: [`requantize_narrow`] for a right shift; for a left shift
/// the doubling high multiply alone (no rounding division), one rounding high multiply of
/// `acc · 2^(shift + 1)` (which fits). The lowering proves the bound ([`LstmS8`]).
#[inline(always)]
fn requantize_gate(acc: i32, multiplier: i32, shift: i32) -> i32 {
    if shift < 0 {
        requantize_narrow(acc, multiplier, !shift as u32)
    } else {
        rounding_high_mul(acc.wrapping_shl(shift as u32 + 1), multiplier)
    }
}

/// The three products' scales of an integer LSTM: forget gate × cell state → cell state, input
/// gate × cell gate → cell state, output gate × tanh(cell) → hidden state.
#[inline(always)]
fn product_scales(multipliers: &[i32], shifts: &[i8]) -> [Scale; 3] {
    core::array::from_fn(|k| Scale::new(multipliers[k], i32::from(shifts[k]).clamp(-31, 31)))
}

/// The integer cell and hidden update of one unit from its four gate pre-activations (int16 at
/// scale 2^-12, forget, input, cell, output): updates `cell` and returns the new hidden value
/// (before narrowing to the activation type, whose range is `hidden_range`). Each product is
/// TFLM's `MulElementwise` of two int16 values with zero offsets: the requantized product (plus
/// the hidden zero point for the last), clamped; `products(k, x)` requantizes product `k`'s `x`
/// (each below 2^30 in magnitude: the sigmoids lie within `1..=32767`).
#[inline(always)]
fn update_s16(
    gates: [i32; 4],
    cell: &mut [u8],
    products: impl Fn(usize, i32) -> i32,
    (hidden_zero_point, hidden_range): (i32, (i32, i32)),
    (cell_min, cell_max): (i32, i32),
    cell_tanh: &LogisticS16,
) -> i32 {
    let f = i32::from(logistic_one_s16(gates[0] as i16, &GATE_SIGMOID));
    let i = i32::from(logistic_one_s16(gates[1] as i16, &GATE_SIGMOID));
    let g = i32::from(tanh_one_s16(gates[2] as i16, &GATE_TANH));
    let o = i32::from(logistic_one_s16(gates[3] as i16, &GATE_SIGMOID));
    let c = i32::from(i16::from_le_bytes([cell[0], cell[1]]));
    let forget = sat16(products(0, f * c));
    let input = sat16(products(1, i * g));
    let c = crate::kernels::clamp(sat16(forget + input), cell_min, cell_max) as i16;
    cell.copy_from_slice(&c.to_le_bytes());
    let t = i32::from(tanh_one_s16(c, cell_tanh));
    let (lo, hi) = hidden_range;
    crate::kernels::clamp(products(2, t * o).wrapping_add(hidden_zero_point), lo, hi)
}

/// The four rows `[4, n]` of `w` as separate slices.
#[inline(always)]
fn rows4<T>(w: &[T], n: usize) -> [&[T]; 4] {
    let (a, rest) = w.split_at(n);
    let (b, rest) = rest.split_at(n);
    let (c, d) = rest.split_at(n);
    [a, b, c, &d[..n]]
}

/// Units whose gate sums [`lstm_s8`] computes in one pass over the input row and one over the
/// hidden state (their sums on the stack: 2 · 4 · 8 words).
const UNITS_PER_PASS: usize = 8;

/// `sums[4 u + g] = init[4 (first + u) + g] + Σ w · x` for the `sums.len() / 4` units from
/// `first`, gate `g`'s row of unit `first + u` with the int8 row `x`, wrapping in 32 bits. `w`
/// holds, for `units` units, each unit's four rows' whole words interleaved (word 0 of gates 0, 1,
/// 2, 3, then word 1 of each, …: `4 · whole` bytes per unit, `whole = x.len()` rounded down to
/// words), then every unit's four rows' last `x.len() % 4` bytes, one row after another: the
/// words go through the DSP loop of FULLY_CONNECTED ([`dot4_run_s8`]), one load of each input
/// word for the four gates of every unit of the pass.
#[inline(always)]
fn gate_sums(x: &[u8], w: &[i8], units: usize, first: usize, init: &[i32], sums: &mut [i32]) {
    let n = x.len();
    let whole = n - n % 4;
    let tail = n - whole;
    let count = sums.len() / 4;
    let (words, tails) = w[..4 * n * units].split_at(4 * whole * units);
    let init = &init[4 * first..][..4 * count];
    if whole > 0 {
        dot4_run_s8(&x[..whole], &words[4 * whole * first..], init, sums);
    } else {
        sums.copy_from_slice(init);
    }
    if tail > 0 {
        let tails = &tails[4 * tail * first..][..4 * tail * count];
        for (s, w) in sums.iter_mut().zip(tails.chunks_exact(tail)) {
            // At most three products: `take(3)` keeps the compiler from unrolling for more.
            for (&x, &w) in x[whole..].iter().zip(w).take(3) {
                *s = s.wrapping_add(i32::from(x as i8) * i32::from(w));
            }
        }
    }
}

/// int8 UNIDIRECTIONAL_SEQUENCE_LSTM with int16 cell state, bit-exact with TFLM's
/// `EvalLstm<int8_t, int8_t, int16_t, int32_t>`. Reads the input (`batches · time_steps ·
/// input_size` bytes), updates the hidden state (`batches · units` bytes) and the cell state
/// (`2 · batches · units` bytes) in place, writes the output (`batches · time_steps · units`
/// bytes). For each step, `UNITS_PER_PASS` units at a time: their gates' input and recurrent
/// products (`gate_sums`), then unit by unit the gates and the cell and hidden update.
#[cfg_attr(target_os = "none", inline(never))]
pub fn lstm_s8(
    arena: &mut [u8],
    input: usize,
    hidden_state: usize,
    cell_state: usize,
    output: usize,
    p: &LstmS8,
) {
    let p = super::opaque(p);
    let (batches, steps, n_in, n) = (p.batches, p.time_steps, p.input_size, p.units);
    let [inp, hidden, cell, out] = views_of(
        arena,
        (input, hidden_state, cell_state, output),
        (
            batches * steps * n_in,
            batches * n,
            2 * batches * n,
            batches * steps * n,
        ),
    );
    let (wi, wr) = (
        &p.input_weights[..4 * n * n_in],
        &p.recurrent_weights[..4 * n * n],
    );
    #[cfg(tinyaot_dsp)]
    {
        super::nn_common::check_word_aligned(wi);
        super::nn_common::check_word_aligned(wr);
    }
    let (biases, recurrent_biases) = (&p.biases[..4 * n], &p.recurrent_biases[..4 * n]);
    let multipliers: &[i32; 8] = p.multipliers[..8].try_into().expect("8");
    let shifts: [i32; 8] = core::array::from_fn(|k| i32::from(p.shifts[k]));
    let mul_multipliers: &[i32; 3] = p.mul_multipliers[..3].try_into().expect("3");
    let mul_not_shifts: [u32; 3] = core::array::from_fn(|k| !i32::from(p.mul_shifts[k]) as u32);
    let cell_tanh = LogisticS16 {
        len: 1,
        input_multiplier: p.cell_tanh_multiplier,
        input_right_shift: p.cell_tanh_shift,
    };
    // Every pass overwrites the sums of its units: zeroed once per call.
    let mut from_input = [0i32; 4 * UNITS_PER_PASS];
    let mut from_hidden = [0i32; 4 * UNITS_PER_PASS];
    for b in 0..batches {
        let h = &mut hidden[b * n..][..n];
        let c = &mut cell[2 * b * n..][..2 * n];
        for t in 0..steps {
            let row = row_of(p.time_major, batches, steps, b, t);
            let x = &inp[row * n_in..][..n_in];
            let o = &mut out[row * n..][..n];
            let passes = o
                .chunks_mut(UNITS_PER_PASS)
                .zip(c.chunks_mut(2 * UNITS_PER_PASS));
            for (k, (o, c)) in passes.enumerate() {
                let first = k * UNITS_PER_PASS;
                let (from_input, from_hidden) = (
                    &mut from_input[..4 * o.len()],
                    &mut from_hidden[..4 * o.len()],
                );
                gate_sums(x, wi, n, first, biases, from_input);
                gate_sums(h, wr, n, first, recurrent_biases, from_hidden);
                let units = o
                    .iter_mut()
                    .zip(c.chunks_exact_mut(2))
                    .zip(from_input.chunks_exact(4).zip(from_hidden.chunks_exact(4)));
                for ((o, c), (a, r)) in units {
                    let gates: [i32; 4] = core::array::from_fn(|g| {
                        let (i, j) = (2 * g, 2 * g + 1);
                        let a = requantize_gate(a[g], multipliers[i], shifts[i]);
                        let r = requantize_gate(r[g], multipliers[j], shifts[j]);
                        sat16(sat16(a) + sat16(r))
                    });
                    let v = update_s16(
                        gates,
                        c,
                        |k, x| requantize_narrow(x, mul_multipliers[k], mul_not_shifts[k]),
                        (p.hidden_zero_point, (-128, 127)),
                        (p.cell_min, p.cell_max),
                        &cell_tanh,
                    );
                    *o = v as i8 as u8;
                }
            }
            h.copy_from_slice(o);
        }
    }
}

/// int16 UNIDIRECTIONAL_SEQUENCE_LSTM with int8 weights and int16 cell state, bit-exact with
/// TFLM's `EvalLstm<int16_t, int8_t, int16_t, int64_t>`. Reads the input (`2 · batches ·
/// time_steps · input_size` bytes), updates the hidden and cell states (`2 · batches · units`
/// bytes each) in place, writes the output (`2 · batches · time_steps · units` bytes).
#[cfg_attr(target_os = "none", inline(never))]
pub fn lstm_s16(
    arena: &mut [u8],
    input: usize,
    hidden_state: usize,
    cell_state: usize,
    output: usize,
    p: &LstmS16,
) {
    let p = super::opaque(p);
    let (batches, steps, n_in, n) = (p.batches, p.time_steps, p.input_size, p.units);
    let [inp, hidden, cell, out] = views_of(
        arena,
        (input, hidden_state, cell_state, output),
        (
            2 * batches * steps * n_in,
            2 * batches * n,
            2 * batches * n,
            2 * batches * steps * n,
        ),
    );
    let (wi, wr) = (
        &p.input_weights[..4 * n * n_in],
        &p.recurrent_weights[..4 * n * n],
    );
    let biases = &p.biases[..8 * n];
    let (m, s) = (&p.multipliers[..8], &p.shifts[..8]);
    let cell_tanh = LogisticS16 {
        len: 1,
        input_multiplier: p.cell_tanh_multiplier,
        input_right_shift: p.cell_tanh_shift,
    };
    let products = product_scales(p.mul_multipliers, p.mul_shifts);
    for b in 0..batches {
        let h = &mut hidden[2 * b * n..][..2 * n];
        let c = &mut cell[2 * b * n..][..2 * n];
        for t in 0..steps {
            let row = row_of(p.time_major, batches, steps, b, t);
            let x = &inp[2 * row * n_in..][..2 * n_in];
            let o = &mut out[2 * row * n..][..2 * n];
            for (j, (o, c)) in o.chunks_exact_mut(2).zip(c.chunks_exact_mut(2)).enumerate() {
                let wi = rows4(&wi[4 * j * n_in..], n_in);
                let wr = rows4(&wr[4 * j * n..], n);
                let gates: [i32; 4] = core::array::from_fn(|g| {
                    let k = 8 * j + 2 * g;
                    let acc = dot_s16(wi[g], x).wrapping_add(biases[k]);
                    let a = scale_16x8(acc, m[2 * g], s[2 * g]);
                    let acc = dot_s16(wr[g], h).wrapping_add(biases[k + 1]);
                    let r = scale_16x8(acc, m[2 * g + 1], s[2 * g + 1]);
                    sat16(sat16(a) + sat16(r))
                });
                let v = update_s16(
                    gates,
                    c,
                    |k, x| products[k].apply(x),
                    (p.hidden_zero_point, (-32768, 32767)),
                    (p.cell_min, p.cell_max),
                    &cell_tanh,
                );
                o.copy_from_slice(&(v as i16).to_le_bytes());
            }
            h.copy_from_slice(o);
        }
    }
}

/// `Σ w[d] · x[d]` in order of `d`, as TFLM's float FullyConnected sums.
#[inline(always)]
fn dot_f32(w: &[f32], x: &[u8]) -> f32 {
    let mut total = 0.0f32;
    for (&w, x) in w.iter().zip(views::f32s(x)) {
        total += x * w;
    }
    total
}

/// float32 UNIDIRECTIONAL_SEQUENCE_LSTM, as TFLM's `EvalLstm<float, …>`: each gate is
/// `act(clamp(Σ x·w + bias) + clamp(Σ h·w))` (clamps to ±FLT_MAX, TFLM's "no activation"), the
/// cell `clip(clamp(f·c) + clamp(i·g))`, the hidden state `clamp(tanh(c)·o)`. Reads the input,
/// updates the hidden and cell states in place and writes the output (4 bytes per element).
#[cfg_attr(target_os = "none", inline(never))]
pub fn lstm_f32(
    arena: &mut [u8],
    input: usize,
    hidden_state: usize,
    cell_state: usize,
    output: usize,
    p: &LstmF32,
) {
    let p = super::opaque(p);
    let (batches, steps, n_in, n) = (p.batches, p.time_steps, p.input_size, p.units);
    let [inp, hidden, cell, out] = views_of(
        arena,
        (input, hidden_state, cell_state, output),
        (
            4 * batches * steps * n_in,
            4 * batches * n,
            4 * batches * n,
            4 * batches * steps * n,
        ),
    );
    let (wi, wr) = (
        &p.input_weights[..4 * n * n_in],
        &p.recurrent_weights[..4 * n * n],
    );
    let biases = &p.biases[..4 * n];
    let none = |x: f32| clamp_f32(x, f32::MIN, f32::MAX);
    for b in 0..batches {
        let h = &mut hidden[4 * b * n..][..4 * n];
        let c = &mut cell[4 * b * n..][..4 * n];
        for t in 0..steps {
            let row = row_of(p.time_major, batches, steps, b, t);
            let x = &inp[4 * row * n_in..][..4 * n_in];
            let o = &mut out[4 * row * n..][..4 * n];
            for (j, (o, c)) in o.chunks_exact_mut(4).zip(c.chunks_exact_mut(4)).enumerate() {
                let wi = rows4(&wi[4 * j * n_in..], n_in);
                let wr = rows4(&wr[4 * j * n..], n);
                let gate = |g: usize| {
                    none(dot_f32(wi[g], x) + biases[4 * j + g]) + none(dot_f32(wr[g], h) + 0.0)
                };
                let f = logistic_one_f32(gate(0));
                let i = logistic_one_f32(gate(1));
                let g = tanh_f32(gate(2));
                let og = logistic_one_f32(gate(3));
                let old = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                let mut new = none(f * old) + none(i * g);
                if p.cell_clip > 0.0 {
                    new = new.min(p.cell_clip).max(-p.cell_clip);
                }
                c.copy_from_slice(&new.to_le_bytes());
                o.copy_from_slice(&none(tanh_f32(new) * og).to_le_bytes());
            }
            h.copy_from_slice(o);
        }
    }
}

/// Constant parameters of [`lstm_dyn_s8`] and [`lstm_dyn_s16`], whose weights and biases are
/// read at run time: [`LstmS8`]'s and [`LstmS16`]'s scalars without the weights and biases.
#[derive(Clone, Copy, Debug)]
pub struct LstmDyn<'a> {
    /// Batch rows (each with its own hidden and cell state).
    pub batches: usize,
    /// Time steps per batch row.
    pub time_steps: usize,
    /// Elements of one input row.
    pub input_size: usize,
    /// Units: elements of the hidden state, cell state and one output row.
    pub units: usize,
    /// Input and output are `[time, batches, …]` rather than `[batches, time, …]`.
    pub time_major: bool,
    /// `-input_zero_point`.
    pub input_offset: i32,
    /// `-hidden_state_zero_point`.
    pub hidden_offset: i32,
    /// `[4, 2]` multipliers taking each gate's input product then recurrent product to the gate
    /// scale 2^-12: Q31 for int8, reduced to 16 bits for int16 (as [`LstmS16::multipliers`]).
    pub multipliers: &'a [i32],
    /// Their shifts: positive = left for int8, the right shift `15 - shift` for int16.
    pub shifts: &'a [i8],
    /// Q31 multipliers of the three products (as [`LstmS8::mul_multipliers`]).
    pub mul_multipliers: &'a [i32],
    /// Their shifts (positive = left).
    pub mul_shifts: &'a [i8],
    /// Hidden state (and output) zero point.
    pub hidden_zero_point: i32,
    /// Lowest cell state value: `-quantized cell clip`, or -32768 without a clip.
    pub cell_min: i32,
    /// Highest cell state value: the quantized cell clip, or 32767 without one.
    pub cell_max: i32,
    /// The tanh of the cell state: multiplier as [`LogisticS16`]'s.
    pub cell_tanh_multiplier: i32,
    /// Its right shift.
    pub cell_tanh_shift: i32,
}

/// Constant parameters of [`lstm_dyn_f32`]: [`LstmF32`]'s without the weights and biases.
#[derive(Clone, Copy, Debug)]
pub struct LstmDynF32 {
    /// Batch rows (each with its own hidden and cell state).
    pub batches: usize,
    /// Time steps per batch row.
    pub time_steps: usize,
    /// Elements of one input row.
    pub input_size: usize,
    /// Units: elements of the hidden state, cell state and one output row.
    pub units: usize,
    /// Input and output are `[time, batches, …]` rather than `[batches, time, …]`.
    pub time_major: bool,
    /// The cell clip: the cell state is clamped to `±cell_clip` when it is positive.
    pub cell_clip: f32,
}

/// The walk of the `lstm_dyn_*` kernels, whose twelve weight and bias tensors TFLM's Eval reads
/// wherever they are (`weights`: the four gates' input weights `[units, input_size]`, in the order
/// forget, input, cell, output, then their recurrent weights `[units, units]`, then their biases
/// `[units]`). For each batch row and time step, unit `j`'s four gate pre-activations are
/// `gate(g, wi, x, wr, h, bias)` of gate `g`'s rows `j` (`W` bytes per weight, `B` per bias
/// element) and the input row and hidden state (`E` bytes per element), read from the arena
/// before `update(gates, cell element)` updates the cell state (`C` bytes per element) and gives
/// the output element; the output row is then copied into the hidden state. Input, hidden
/// state, cell state and output must be disjoint, and no weight may overlap what is written
/// (asserted).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn lstm_dyn<const E: usize, const W: usize, const B: usize, const C: usize, G>(
    arena: &mut [u8],
    (input, hidden_state, cell_state, output): (usize, usize, usize, usize),
    weights: &[crate::Src],
    (batches, steps, n_in, n, time_major): (usize, usize, usize, usize, bool),
    gate: impl Fn(usize, [&[u8]; 5]) -> G,
    update: impl Fn([G; 4], &mut [u8]) -> [u8; E],
) {
    ensure!(
        weights.len() == 12,
        "four gates' input and recurrent weights and biases"
    );
    let lens = (
        E * batches * steps * n_in,
        E * batches * n,
        C * batches * n,
        E * batches * steps * n,
    );
    // Bounds and disjointness of the four views, checked once.
    views_of(arena, (input, hidden_state, cell_state, output), lens);
    let sizes = [W * n * n_in, W * n * n, B * n];
    for (k, src) in weights.iter().enumerate() {
        if let crate::Src::Arena(offset) = *src {
            let len = sizes[k / 4];
            for (at, written) in [
                (hidden_state, lens.1),
                (cell_state, lens.2),
                (output, lens.3),
            ] {
                ensure!(
                    !views::overlapping(offset, len, at, written),
                    "kernel weights and written tensors overlap"
                );
            }
        }
    }
    for b in 0..batches {
        let h_at = hidden_state + E * b * n;
        for t in 0..steps {
            let row = row_of(time_major, batches, steps, b, t);
            let (x_at, o_at) = (input + E * row * n_in, output + E * row * n);
            for j in 0..n {
                let gates: [G; 4] = {
                    let a = &*arena;
                    let x = &a[x_at..][..E * n_in];
                    let h = &a[h_at..][..E * n];
                    core::array::from_fn(|g| {
                        let wi = &weights[g].bytes(a, sizes[0])[W * j * n_in..][..W * n_in];
                        let wr = &weights[4 + g].bytes(a, sizes[1])[W * j * n..][..W * n];
                        let bias = &weights[8 + g].bytes(a, sizes[2])[B * j..][..B];
                        gate(g, [wi, x, wr, h, bias])
                    })
                };
                let c = &mut arena[cell_state + C * (b * n + j)..][..C];
                let v = update(gates, c);
                arena[o_at + E * j..][..E].copy_from_slice(&v);
            }
            arena.copy_within(o_at..o_at + E * n, h_at);
        }
    }
}

/// `Σ w[d] · (x[d] + offset)` of int8 weights and int8 inputs, wrapping at 32 bits (TFLM's
/// reference FullyConnected sum).
#[inline(always)]
fn dyn_dot_s8(w: &[u8], x: &[u8], offset: i32) -> i32 {
    w.iter().zip(x).fold(0i32, |acc, (&w, &x)| {
        acc.wrapping_add(i32::from(w as i8).wrapping_mul(i32::from(x as i8).wrapping_add(offset)))
    })
}

/// `Σ w[d] · (x[d] + offset)` of int8 weights and int16 inputs in 64 bits (TFLM's 16x8
/// FullyConnected sum).
#[inline(always)]
fn dyn_dot_s16(w: &[u8], x: &[u8], offset: i32) -> i64 {
    w.iter().zip(x.chunks_exact(2)).fold(0i64, |acc, (&w, x)| {
        let x = i32::from(i16::from_le_bytes([x[0], x[1]])).wrapping_add(offset);
        acc.wrapping_add(i64::from(i32::from(w as i8).wrapping_mul(x)))
    })
}

/// int8 UNIDIRECTIONAL_SEQUENCE_LSTM with weights or biases read at run time, bit-exact with
/// TFLM's `EvalLstm<int8_t, int8_t, int16_t, int32_t>`: as [`lstm_s8`], each gate's products summed
/// from the weights as they are (`weights`: see `lstm_dyn`; INT32 biases).
#[cfg_attr(target_os = "none", inline(never))]
pub fn lstm_dyn_s8(
    arena: &mut [u8],
    input: usize,
    hidden_state: usize,
    cell_state: usize,
    output: usize,
    weights: &[crate::Src],
    p: &LstmDyn,
) {
    let p = super::opaque(p);
    let (m, s) = (&p.multipliers[..8], &p.shifts[..8]);
    let cell_tanh = LogisticS16 {
        len: 1,
        input_multiplier: p.cell_tanh_multiplier,
        input_right_shift: p.cell_tanh_shift,
    };
    let products = product_scales(p.mul_multipliers, p.mul_shifts);
    lstm_dyn::<1, 1, 4, 2, i32>(
        arena,
        (input, hidden_state, cell_state, output),
        weights,
        (p.batches, p.time_steps, p.input_size, p.units, p.time_major),
        |g, [wi, x, wr, h, bias]| {
            let bias = i32::from_le_bytes([bias[0], bias[1], bias[2], bias[3]]);
            let acc = dyn_dot_s8(wi, x, p.input_offset).wrapping_add(bias);
            let a = multiply_by_quantized_multiplier(acc, m[2 * g], i32::from(s[2 * g]));
            let r = multiply_by_quantized_multiplier(
                dyn_dot_s8(wr, h, p.hidden_offset),
                m[2 * g + 1],
                i32::from(s[2 * g + 1]),
            );
            sat16(sat16(a) + sat16(r))
        },
        |gates, c| {
            let v = update_s16(
                gates,
                c,
                |k, x| products[k].apply(x),
                (p.hidden_zero_point, (-128, 127)),
                (p.cell_min, p.cell_max),
                &cell_tanh,
            );
            [v as i8 as u8]
        },
    );
}

/// int16 UNIDIRECTIONAL_SEQUENCE_LSTM with int8 weights or INT64 biases read at run time,
/// bit-exact with TFLM's `EvalLstm<int16_t, int8_t, int16_t, int64_t>`: as [`lstm_s16`], each
/// gate's products summed in 64 bits from the weights as they are, the zero points applied term
/// by term (`weights`: see `lstm_dyn`).
#[cfg_attr(target_os = "none", inline(never))]
pub fn lstm_dyn_s16(
    arena: &mut [u8],
    input: usize,
    hidden_state: usize,
    cell_state: usize,
    output: usize,
    weights: &[crate::Src],
    p: &LstmDyn,
) {
    let p = super::opaque(p);
    let (m, s) = (&p.multipliers[..8], &p.shifts[..8]);
    let cell_tanh = LogisticS16 {
        len: 1,
        input_multiplier: p.cell_tanh_multiplier,
        input_right_shift: p.cell_tanh_shift,
    };
    let products = product_scales(p.mul_multipliers, p.mul_shifts);
    lstm_dyn::<2, 1, 8, 2, i32>(
        arena,
        (input, hidden_state, cell_state, output),
        weights,
        (p.batches, p.time_steps, p.input_size, p.units, p.time_major),
        |g, [wi, x, wr, h, b]| {
            let bias = i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
            let acc = dyn_dot_s16(wi, x, p.input_offset).wrapping_add(bias);
            let a = scale_16x8(acc, m[2 * g], s[2 * g]);
            let acc = dyn_dot_s16(wr, h, p.hidden_offset);
            let r = scale_16x8(acc, m[2 * g + 1], s[2 * g + 1]);
            sat16(sat16(a) + sat16(r))
        },
        |gates, c| {
            let v = update_s16(
                gates,
                c,
                |k, x| products[k].apply(x),
                (p.hidden_zero_point, (-32768, 32767)),
                (p.cell_min, p.cell_max),
                &cell_tanh,
            );
            (v as i16).to_le_bytes()
        },
    );
}

/// float32 UNIDIRECTIONAL_SEQUENCE_LSTM with weights or biases read at run time, as TFLM's
/// `EvalLstm<float, …>` and [`lstm_f32`] (`weights`: see `lstm_dyn`).
#[cfg_attr(target_os = "none", inline(never))]
pub fn lstm_dyn_f32(
    arena: &mut [u8],
    input: usize,
    hidden_state: usize,
    cell_state: usize,
    output: usize,
    weights: &[crate::Src],
    p: &LstmDynF32,
) {
    let p = super::opaque(p);
    let none = |x: f32| clamp_f32(x, f32::MIN, f32::MAX);
    let f32_of = |b: &[u8]| f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let dot = |w: &[u8], x: &[u8]| {
        w.chunks_exact(4)
            .zip(x.chunks_exact(4))
            .fold(0.0f32, |acc, (w, x)| acc + f32_of(x) * f32_of(w))
    };
    lstm_dyn::<4, 4, 4, 4, f32>(
        arena,
        (input, hidden_state, cell_state, output),
        weights,
        (p.batches, p.time_steps, p.input_size, p.units, p.time_major),
        |_, [wi, x, wr, h, bias]| none(dot(wi, x) + f32_of(bias)) + none(dot(wr, h) + 0.0),
        |[f, i, g, o], c| {
            let (f, i, g, o) = (
                logistic_one_f32(f),
                logistic_one_f32(i),
                tanh_f32(g),
                logistic_one_f32(o),
            );
            let old = f32_of(c);
            let mut new = none(f * old) + none(i * g);
            if p.cell_clip > 0.0 {
                new = new.min(p.cell_clip).max(-p.cell_clip);
            }
            c.copy_from_slice(&new.to_le_bytes());
            none(tanh_f32(new) * o).to_le_bytes()
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One unit, one input, one step, int8: weights 0 and biases 0 make every gate 0, so σ = 0.5
    /// (16384), tanh = 0; the cell keeps half of itself and the hidden state is 0.5 · tanh(c).
    #[test]
    fn s8_zero_gates_halve_the_cell() {
        let p = LstmS8 {
            batches: 1,
            time_steps: 1,
            input_size: 1,
            units: 1,
            time_major: false,
            input_weights: &[0; 4],
            recurrent_weights: &[0; 4],
            biases: &[0; 4],
            recurrent_biases: &[0; 4],
            multipliers: &[1 << 30; 8],
            shifts: &[-1; 8],
            // 2^-15 · 2^-11 / 2^-11 = 2^-15: multiplier 2^30, shift -14.
            mul_multipliers: &[1 << 30, 1 << 30, 1 << 30],
            mul_shifts: &[-14, -14, -22],
            hidden_zero_point: 0,
            cell_min: -32768,
            cell_max: 32767,
            // Cell scale 2^-11: shift 15 - 11 - 3 = 1 → multiplier 3 << 1.
            cell_tanh_multiplier: 6,
            cell_tanh_shift: 0,
        };
        // input 0 | hidden 1 | cell 2..4 | output 4
        let mut arena = [5u8, 0, 0, 0, 0];
        arena[2..4].copy_from_slice(&2048i16.to_le_bytes()); // 1.0 at scale 2^-11
        lstm_s8(&mut arena, 0, 1, 2, 4, &p);
        // f · c = 16384 · 2048 · 2^-15 = 1024 (0.5); i · g = 0.
        assert_eq!(i16::from_le_bytes([arena[2], arena[3]]), 1024);
        // tanh(0.5) = 0.4621 → about 15143 (2^-15), times σ = 16384: the multiplier 2^30 with
        // shift -22 scales by 2^-23 (an output scale of 2^-7), 15143 · 2^14 · 2^-23 = 29.6 → 30.
        assert_eq!(arena[4] as i8, arena[1] as i8);
        assert_eq!(arena[4] as i8, 30);
    }

    /// The float kernel on one unit with weights 1: the state carries over to the next call.
    #[test]
    fn f32_state_carries_over() {
        let p = LstmF32 {
            batches: 1,
            time_steps: 2,
            input_size: 1,
            units: 1,
            time_major: false,
            input_weights: &[1.0; 4],
            recurrent_weights: &[1.0; 4],
            biases: &[0.0; 4],
            cell_clip: 0.0,
        };
        let mut arena = [0u8; 4 * 6];
        for (k, v) in [1.0f32, 1.0].iter().enumerate() {
            arena[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
        }
        let f = |a: &[u8], k: usize| f32::from_le_bytes(a[4 * k..4 * k + 4].try_into().unwrap());
        lstm_f32(&mut arena, 0, 8, 12, 16, &p);
        let sig = |x: f32| 1.0 / (1.0 + (-x).exp());
        // Step 1: gates 1 → c = σ(1) tanh(1), h = σ(1) tanh(c).
        let c1 = sig(1.0) * 1.0f32.tanh();
        let h1 = sig(1.0) * c1.tanh();
        assert!((f(&arena, 4) - h1).abs() < 1e-6);
        // Step 2: gates 1 + h1.
        let z = 1.0 + h1;
        let c2 = sig(z) * c1 + sig(z) * z.tanh();
        let h2 = sig(z) * c2.tanh();
        assert!((f(&arena, 5) - h2).abs() < 1e-6);
        // The hidden state is the last output row, bit for bit; the cell state is c2 up to the
        // rounding of exp and tanh (which Miri perturbs on purpose).
        assert_eq!(f(&arena, 2), f(&arena, 5));
        assert!((f(&arena, 3) - c2).abs() < 1e-6);
    }

    /// int16: the cell clip bounds the cell state, and a gate product beyond int16 saturates.
    #[test]
    fn s16_clip_and_saturation() {
        let p = LstmS16 {
            batches: 1,
            time_steps: 1,
            input_size: 1,
            units: 1,
            time_major: true,
            input_weights: &[127; 4],
            recurrent_weights: &[0; 4],
            biases: &[0; 8],
            // A product of 127 · 32767 at 2^0 saturates every gate at 32767 (σ → 32767 − …).
            multipliers: &[0x4000; 8],
            shifts: &[15; 8],
            mul_multipliers: &[1 << 30, 1 << 30, 1 << 30],
            mul_shifts: &[-14, -14, -14],
            hidden_zero_point: 0,
            cell_min: -1000,
            cell_max: 1000,
            cell_tanh_multiplier: 6,
            cell_tanh_shift: 0,
        };
        let mut arena = [0u8; 8];
        arena[..2].copy_from_slice(&32767i16.to_le_bytes());
        lstm_s16(&mut arena, 0, 2, 4, 6, &p);
        let v = |k: usize| i16::from_le_bytes([arena[2 * k], arena[2 * k + 1]]);
        assert_eq!(v(2), 1000);
        assert_eq!(v(1), v(3));
        assert!(v(3) > 0);
    }
    /// [`requantize_gate`] and [`requantize_narrow`] against TFLM's requantization, for every
    /// shift, multipliers at both ends of Q31's range and sums at the ends of their bound.
    #[test]
    fn the_short_requantizations_match_tflm() {
        for shift in -31i32..=8 {
            let most = ((1i64 << 30) - 1) >> shift.max(0);
            let sums = [
                -most,
                -most + 1,
                -12_345,
                -3,
                -2,
                -1,
                0,
                1,
                2,
                3,
                4_321,
                most - 1,
                most,
            ];
            for m in [0, 1 << 30, 0x5a5a_5a5a, i32::MAX] {
                for &acc in &sums {
                    let acc = acc as i32;
                    let want = multiply_by_quantized_multiplier(acc, m, shift);
                    assert_eq!(requantize_gate(acc, m, shift), want, "{acc} {m} {shift}");
                    if shift < 0 {
                        let narrow = requantize_narrow(acc, m, !shift as u32);
                        assert_eq!(narrow, want, "{acc} {m} {shift}");
                    }
                }
            }
        }
    }

    /// [`gate_sums`] over ten units (two passes' worth) of rows of seven bytes (a word and three
    /// bytes): every unit's four sums equal the plain sums of its rows, from any first unit.
    #[test]
    fn gate_sums_read_the_word_and_tail_layout() {
        const UNITS: usize = 10;
        const N: usize = 7;
        let mut state = 0x1234_5678u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        };
        let mut plain = [[[0i8; N]; 4]; UNITS];
        for w in plain.iter_mut().flatten().flatten() {
            *w = next() as i8;
        }
        plain[3][2] = [-128; N];
        let mut x = [0u8; N];
        for v in x.iter_mut() {
            *v = next();
        }
        x[0] = 0x80;
        // The layout: each unit's word 0 of its four rows, then all the tails.
        let mut laid = [0i8; 4 * N * UNITS];
        let mut at = 0;
        for unit in &plain {
            for row in unit {
                laid[at..at + 4].copy_from_slice(&row[..4]);
                at += 4;
            }
        }
        for unit in &plain {
            for row in unit {
                laid[at..at + 3].copy_from_slice(&row[4..]);
                at += 3;
            }
        }
        let init: [i32; 4 * UNITS] = core::array::from_fn(|k| k as i32 * 1000 - 7);
        for (first, count) in [(0, 8), (8, 2), (3, 5)] {
            let mut sums = [0i32; 32];
            gate_sums(&x, &laid, UNITS, first, &init, &mut sums[..4 * count]);
            for u in 0..count {
                for g in 0..4 {
                    let want = plain[first + u][g]
                        .iter()
                        .zip(&x)
                        .fold(init[4 * (first + u) + g], |acc, (&w, &x)| {
                            acc.wrapping_add(i32::from(w) * i32::from(x as i8))
                        });
                    assert_eq!(sums[4 * u + g], want, "unit {} gate {g}", first + u);
                }
            }
        }
    }

    /// Two batch rows of two steps, batch-major and time-major: the same values in the two layouts
    /// (each batch row has its own state).
    #[test]
    fn s8_time_major_is_a_layout() {
        let weights: [i8; 8] = [3, -5, 7, 2, 9, -4, 6, 1];
        let p = |time_major| LstmS8 {
            batches: 2,
            time_steps: 2,
            input_size: 2,
            units: 1,
            time_major,
            input_weights: &weights,
            recurrent_weights: &[50, -60, 70, 80],
            // Input offset 3 and hidden offset -2 folded: 3 · Σ row, -2 · w.
            biases: &[94, -173, 315, 421],
            recurrent_biases: &[-100, 120, -140, -160],
            multipliers: &[0x5000_0000; 8],
            shifts: &[-1; 8],
            mul_multipliers: &[1 << 30, 1 << 30, 1 << 30],
            mul_shifts: &[-14, -14, -20],
            hidden_zero_point: 2,
            cell_min: -32768,
            cell_max: 32767,
            cell_tanh_multiplier: 3,
            cell_tanh_shift: 0,
        };
        // [batch][time][input]
        let x: [[[i8; 2]; 2]; 2] = [[[10, -20], [30, 40]], [[-50, 60], [70, -80]]];
        // input 0..8 | hidden 8..10 | cell 10..14 | output 14..18
        let mut batch_major = [0u8; 18];
        let mut time_major = [0u8; 18];
        for b in 0..2 {
            for t in 0..2 {
                for i in 0..2 {
                    batch_major[(b * 2 + t) * 2 + i] = x[b][t][i] as u8;
                    time_major[(t * 2 + b) * 2 + i] = x[b][t][i] as u8;
                }
            }
        }
        lstm_s8(&mut batch_major, 0, 8, 10, 14, &p(false));
        lstm_s8(&mut time_major, 0, 8, 10, 14, &p(true));
        assert_eq!(batch_major[8..14], time_major[8..14]);
        for b in 0..2 {
            for t in 0..2 {
                assert_eq!(batch_major[14 + b * 2 + t], time_major[14 + t * 2 + b]);
            }
        }
        // The last step of each batch row is its hidden state.
        assert_eq!(batch_major[8], batch_major[15]);
        assert_eq!(batch_major[9], batch_major[17]);
    }
}

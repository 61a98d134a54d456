//! TFLM's signal library (custom operators whose parameters are a FlexBuffer map in
//! `custom_options`, written by [`tinyaot_modelkit::flexbuffer::int_map`]): the element-wise
//! SignalWindow, SignalFftAutoScale, SignalEnergy, SignalFilterBankLog and
//! SignalFilterBankSquareRoot, and the stateful SignalDelay, SignalFramer, SignalStacker and
//! SignalOverlapAdd (run over three invocations on one instance). Each is drawn on every type its
//! TFLM kernel takes, with parameters TFLM defines and, one time in eight, one it refuses or
//! leaves undefined (described as MUTATED), so that refusals are compared too. A signal operator
//! starts its chain (its input a fresh graph input of its own type: the chains' other operators
//! take quantized tensors, these unquantized int16, uint32 and uint64 ones) and ends it.

use tinyaot_modelkit::flexbuffer::int_map;
use tinyaot_modelkit::{BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{G, OpGen};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("SignalDelay", B::CUSTOM, delay).types(SIGNAL),
    OpGen::new("SignalEnergy", B::CUSTOM, energy).types(SIGNAL),
    OpGen::new("SignalFftAutoScale", B::CUSTOM, fft_auto_scale).types(SIGNAL),
    OpGen::new("SignalFilterBankLog", B::CUSTOM, filter_bank_log).types(SIGNAL),
    OpGen::new("SignalFilterBankSquareRoot", B::CUSTOM, filter_bank_square_root).types(SIGNAL),
    OpGen::new("SignalFramer", B::CUSTOM, framer).types(SIGNAL),
    OpGen::new("SignalOverlapAdd", B::CUSTOM, overlap_add).types(SIGNAL),
    OpGen::new("SignalStacker", B::CUSTOM, stacker).types(SIGNAL),
    OpGen::new("SignalWindow", B::CUSTOM, window).types(SIGNAL),
];

/// The chain types these operators are drawn on: any (each makes its own input), so int16 too.
const SIGNAL: &[TensorType] = &[TensorType::INT16];

/// How often a parameter is drawn where TFLM refuses it or is undefined.
pub(super) const BROKEN: f64 = 0.125;

/// Invocations of a stateful operator's model on one instance.
pub(super) const STEPS: usize = 3;

fn int16(shape: &[i32]) -> TensorSpec {
    TensorSpec::new(TensorType::INT16, shape)
}

impl G<'_> {
    /// A fresh graph input of `dtype` and `shape` whose values are drawn in `lo..=hi`.
    pub(super) fn signal_input(&mut self, dtype: TensorType, shape: &[i32], lo: i64, hi: i64) -> i32 {
        let t = self.m.tensor(TensorSpec::new(dtype, shape));
        self.spans.push((self.m.inputs.len(), lo, hi));
        self.m.inputs.push(t);
        self.ranges.push(1.0);
        t
    }

    /// A fresh int16 graph input of `shape`: full-range values, or small ones now and then.
    pub(super) fn int16_input(&mut self, shape: &[i32]) -> i32 {
        let limit = self.rng.pick(&[32767i64, 32767, 1000, 8]);
        self.signal_input(TensorType::INT16, shape, -limit - 1, limit)
    }

    /// Adds custom operator `name` and ends the chain with it.
    pub(super) fn signal_op(
        &mut self,
        name: &str,
        options: Option<Vec<u8>>,
        inputs: &[i32],
        outputs: &[i32],
    ) {
        self.m.custom_op(name, options, inputs, outputs);
        self.ends_chain = true;
        // Several of these kernels write as many elements as their parameters say into outputs
        // they do not check the size of (SignalEnergy, SignalFilterBankSquareRoot, the
        // spectral subtraction, TFLite_Detection_PostProcess): a mutated, larger output would
        // hold elements TFLM never writes, so the mutation changes something else.
        self.run_time_controls = true;
    }

    /// `good` drawn in `lo..=hi`, or (one time in eight) one of `bad`, saying so.
    pub(super) fn param(&mut self, lo: i64, hi: i64, bad: &[i64], broken: &mut bool) -> i64 {
        if !bad.is_empty() && self.rng.chance(BROKEN) {
            *broken = true;
            self.rng.pick(bad)
        } else {
            self.rng.range(lo, hi)
        }
    }

    /// A random leading shape (rank 0 to 2) for a stream of rows.
    pub(super) fn rows(&mut self) -> Vec<i32> {
        let rank = self.rng.range(0, 2) as usize;
        (0..rank).map(|_| self.rng.int(1, 3)).collect()
    }

    /// SELECT_V2 of `output` (int16, `shape`) where `valid` (a bool scalar) holds, else zeros:
    /// SignalFramer and SignalStacker leave their output unwritten when it is not valid (what
    /// TFLM's arena held there, no result a model can rely on), so the graph's output is the
    /// one a model would use.
    fn gate(&mut self, output: i32, valid: i32, shape: &[i32]) -> i32 {
        let n = shape.iter().product::<i32>().max(0) as usize;
        let zeros = self.m.tensor(int16(shape).constant_i16(&vec![0; n]));
        let gated = self.m.tensor(int16(shape));
        self.m
            .op(B::SELECT_V2, Options::None, &[valid, output, zeros], &[gated]);
        gated
    }

    /// Describes a signal operator's draw, MUTATED when a parameter is out of TFLM's range.
    pub(super) fn signal_describe(&mut self, text: String, broken: bool) {
        if broken {
            self.describe(format!("{text} MUTATED parameter"));
        } else {
            self.describe(text);
        }
    }
}

/// SignalWindow: int16 frames by int16 weights (constant, or a graph input), shifted.
fn window(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let n = g.rng.int(1, 12);
    let mut shape = g.rows();
    shape.push(n * g.rng.int(1, 2));
    let input = g.int16_input(&shape);
    let weights = if g.rng.chance(0.3) {
        g.int16_input(&[n])
    } else {
        let values: Vec<i16> = (0..n).map(|_| g.rng.next_u64() as i16).collect();
        g.m.tensor(int16(&[n]).constant_i16(&values))
    };
    let mut broken = false;
    let shift = g.param(0, 31, &[-1, 32, 40], &mut broken);
    let output = g.m.tensor(int16(&shape));
    g.signal_describe(
        format!("SignalWindow i16{shape:?} by {n} weights shift {shift}"),
        broken,
    );
    g.signal_op(
        "SignalWindow",
        Some(int_map(&[("shift", shift)])),
        &[input, weights],
        &[output],
    );
    Some(output)
}

/// SignalFftAutoScale: int16 [n] scaled up, and the int32 shift.
fn fft_auto_scale(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let n = g.rng.int(1, 40);
    let input = g.int16_input(&[n]);
    let output = g.m.tensor(int16(&[n]));
    let bits = g.m.tensor(TensorSpec::int32(&[]));
    g.describe(format!("SignalFftAutoScale i16[{n}]"));
    g.signal_op("SignalFftAutoScale", None, &[input], &[output, bits]);
    g.more_outputs.push(bits);
    Some(output)
}

/// SignalEnergy: int16 complex bins [2m] → uint32 energies of bins 0 to `end` (every output
/// element: TFLM leaves the others unwritten).
fn energy(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let complex = g.rng.int(1, 20);
    let bins = g.rng.int(1, complex);
    let input = g.int16_input(&[2 * complex]);
    let output = g.m.tensor(TensorSpec::new(TensorType::UINT32, &[bins]));
    let mut broken = false;
    let end = g.param(
        i64::from(bins),
        i64::from(bins),
        &[i64::from(complex) + 1, i64::from(bins) + 1],
        &mut broken,
    );
    g.signal_describe(
        format!("SignalEnergy i16[{}] -> u32[{bins}] bins 0..{end}", 2 * complex),
        broken,
    );
    g.signal_op(
        "SignalEnergy",
        Some(int_map(&[("end_index", end), ("start_index", 0)])),
        &[input],
        &[output],
    );
    Some(output)
}

/// SignalFilterBankLog: uint32 channels → int16 logarithms.
fn filter_bank_log(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let n = g.rng.int(1, 24);
    let hi = g.rng.pick(&[i64::from(u32::MAX), 1 << 20, 300]);
    let input = g.signal_input(TensorType::UINT32, &[n], 0, hi);
    let output = g.m.tensor(int16(&[n]));
    let mut broken = false;
    let bits = g.param(0, 31, &[-1, 32], &mut broken);
    let scale = g.rng.pick(&[1600i64, 1, 0, 65535, -3]);
    let scale = if scale == -3 {
        g.rng.range(-100_000, 100_000)
    } else {
        scale
    };
    g.signal_describe(
        format!("SignalFilterBankLog u32[{n}] correction bits {bits} output scale {scale}"),
        broken,
    );
    g.signal_op(
        "SignalFilterBankLog",
        Some(int_map(&[
            ("input_correction_bits", bits),
            ("output_scale", scale),
        ])),
        &[input],
        &[output],
    );
    Some(output)
}

/// SignalFilterBankSquareRoot: uint64 channels → uint32 square roots shifted right by an int32
/// scalar (constant, or a graph input drawn in 0..=31).
fn filter_bank_square_root(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let n = g.rng.int(1, 24);
    let hi = g.rng.pick(&[i64::MAX, 1 << 40, 1 << 20]);
    let input = g.signal_input(TensorType::UINT64, &[n], 0, hi);
    let mut broken = false;
    let (bits, text) = if g.rng.chance(0.5) {
        let b = g.signal_input(TensorType::INT32, &[], 0, 31);
        (b, "at run time".to_string())
    } else {
        let v = g.param(0, 31, &[-1, 32], &mut broken);
        let b = g
            .m
            .tensor(TensorSpec::int32(&[]).constant_i32(&[v as i32]));
        (b, v.to_string())
    };
    let output = g.m.tensor(TensorSpec::new(TensorType::UINT32, &[n]));
    g.signal_describe(
        format!("SignalFilterBankSquareRoot u64[{n}] scale bits {text}"),
        broken,
    );
    g.signal_op("SignalFilterBankSquareRoot", None, &[input, bits], &[output]);
    Some(output)
}

/// SignalDelay: int16 rows delayed by `delay_length` samples, over several invocations.
fn delay(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let mut shape = g.rows();
    shape.push(g.rng.int(1, 8));
    let input = g.int16_input(&shape);
    let output = g.m.tensor(int16(&shape));
    let mut broken = false;
    let length = g.param(0, 12, &[-1], &mut broken);
    g.steps = STEPS;
    g.signal_describe(format!("SignalDelay i16{shape:?} by {length}"), broken);
    g.signal_op(
        "SignalDelay",
        Some(int_map(&[("delay_length", length)])),
        &[input],
        &[output],
    );
    Some(output)
}

/// SignalFramer: int16 rows of `row` samples → frames of `size` every `step` samples, and
/// whether they are valid, over several invocations; the frames gated by their validity.
fn framer(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let step = g.rng.int(1, 5);
    let row = step * g.rng.int(1, 3);
    let prefill = g.rng.chance(0.5);
    let mut broken = false;
    let low = if prefill { i64::from(step) } else { 1 };
    let size = g.param(low, 12, &[0, -2], &mut broken);
    let mut step_option = i64::from(step);
    if g.rng.chance(BROKEN / 2.0) {
        broken = true;
        step_option = g.rng.pick(&[0, i64::from(row) + 1]);
    }
    let lead = g.rows();
    let mut shape = lead.clone();
    shape.push(row);
    let input = g.int16_input(&shape);
    let mut out_shape = lead;
    out_shape.push(row / step);
    out_shape.push(size.max(1) as i32);
    let output = g.m.tensor(int16(&out_shape));
    let valid = g.m.tensor(TensorSpec::new(TensorType::BOOL, &[]));
    g.steps = STEPS;
    g.signal_describe(
        format!(
            "SignalFramer i16{shape:?} -> i16{out_shape:?} size {size} step {step_option} \
             prefill {prefill}"
        ),
        broken,
    );
    g.signal_op(
        "SignalFramer",
        Some(int_map(&[
            ("frame_size", size),
            ("frame_step", step_option),
            ("prefill", i64::from(prefill)),
        ])),
        &[input],
        &[output, valid],
    );
    g.more_outputs.push(valid);
    Some(g.gate(output, valid, &out_shape))
}

/// SignalStacker: int16 frames of `channels` stacked with their left and right context, and
/// whether the stack is valid, over several invocations; the stack gated by its validity.
fn stacker(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let channels = g.rng.int(1, 6);
    let (left, right) = (g.rng.int(0, 3), g.rng.int(0, 2));
    let frames = left + right + 1;
    let mut broken = false;
    let step = g.param(1, i64::from(frames), &[0, i64::from(frames) + 1], &mut broken);
    let extra = if g.rng.chance(0.2) { g.rng.int(1, 3) } else { 0 };
    let input = g.int16_input(&[channels + extra]);
    let output = g.m.tensor(int16(&[channels * frames]));
    let valid = g.m.tensor(TensorSpec::new(TensorType::BOOL, &[]));
    g.steps = STEPS + 1;
    g.signal_describe(
        format!(
            "SignalStacker i16[{}] channels {channels} left {left} right {right} step {step}",
            channels + extra
        ),
        broken,
    );
    g.signal_op(
        "SignalStacker",
        Some(int_map(&[
            ("num_channels", i64::from(channels)),
            ("stacker_left_context", i64::from(left)),
            ("stacker_right_context", i64::from(right)),
            ("stacker_step", step),
        ])),
        &[input],
        &[output, valid],
    );
    g.more_outputs.push(valid);
    Some(g.gate(output, valid, &[channels * frames]))
}

/// SignalOverlapAdd: int16 or float32 frames [.., frames, size] added at `step` apart, over
/// several invocations.
fn overlap_add(g: &mut G<'_>, _: B, x: Option<i32>, _: TensorType) -> Option<i32> {
    if x.is_some() {
        return None;
    }
    let float = g.rng.chance(0.5);
    let (dtype, t) = if float {
        (TensorType::FLOAT32, 0)
    } else {
        (TensorType::INT16, 7)
    };
    let mut broken = false;
    let t = if g.rng.chance(BROKEN / 2.0) {
        broken = true;
        g.rng.pick(&[9i64, 2, 1])
    } else {
        t
    };
    let (frames, size) = (g.rng.int(1, 3), g.rng.int(1, 8));
    let step = g.param(1, i64::from(size), &[0, i64::from(size) + 1], &mut broken);
    let lead = g.rows();
    let mut shape = lead.clone();
    shape.extend([frames, size]);
    let input = if float {
        let t = g.m.tensor(TensorSpec::new(dtype, &shape));
        g.m.inputs.push(t);
        g.ranges.push(2.0);
        t
    } else {
        g.int16_input(&shape)
    };
    let mut out_shape = lead;
    out_shape.push(frames * step.max(1) as i32);
    let output = g.m.tensor(TensorSpec::new(dtype, &out_shape));
    g.steps = STEPS;
    g.signal_describe(
        format!("SignalOverlapAdd T {t} {shape:?} -> {out_shape:?} step {step}"),
        broken,
    );
    g.signal_op(
        "SignalOverlapAdd",
        Some(int_map(&[("T", t), ("frame_step", step)])),
        &[input],
        &[output],
    );
    Some(output)
}

//! Random small models: one operator or a chain of two or three, on every type the drawn operators
//! take ([`OpGen::draws`]: int8 and float32 everywhere, int16 in the 16x8 arithmetic, int32, int64 and
//! bool where TFLM's kernels take them), with random shapes, options and quantization, built with
//! `tinyaot-modelkit`. Every case is a pure function of `(seed, index)`, so a case can be
//! regenerated alone.

use std::sync::LazyLock;

use tinyaot_modelkit::{
    Activation, BuiltinOperator as B, ModelSpec, Padding, TensorSpec, TensorType,
};

use crate::difftest::quant::{ratio_variants, score};

// The family files, each with the table of the operators it draws (its `OPS`: name, types and
// generator of each); [`ops`] concatenates them. A new operator of a family is one entry in its
// family's table; a new family is one more name here.
macro_rules! families {
    ($($family:ident),* $(,)?) => {
        $(mod $family;)*

        /// Every family's table.
        const FAMILIES: &[&[OpGen]] = &[$($family::OPS),*];
    };
}

families!(
    activation,
    arithmetic,
    control,
    custom,
    decode,
    conv,
    cumsum,
    fully_connected,
    index,
    logic,
    lookup_update,
    math_ops,
    matmul,
    movement,
    ops_tensor,
    recurrent,
    reduce,
    resample,
    resource,
    signal,
    spectrum,
    trig_reverse_add_n,
);

mod rng;

pub use rng::Rng;

/// The rescaling ratio that keeps MUL outputs in range (products of two int8 values: thousands).
const MUL_HINT: f64 = 0.01;

/// One operator the generator draws: an entry of its family file's `OPS` table.
#[derive(Clone, Copy)]
pub struct OpGen {
    /// Its TFLite name (what `--ops` takes).
    pub name: &'static str,
    /// The operator.
    pub op: B,
    /// The types it is drawn on besides int8 and float32 (every operator's generator takes those,
    /// or declines them): TFLM's lists for it.
    types: &'static [TensorType],
    /// Whether it is TFLM's unquantized int32 arithmetic: int32 is drawn as a chain's type only
    /// when one of these is among the operators of the run (and it is then drawn on int32).
    int32_arithmetic: bool,
    /// Whether its float32 result may be a NaN or an infinity for finite inputs (SQRT of a
    /// negative, DIV by 0, EXP of a large value), which the chain then carries.
    non_finite: bool,
    /// Adds the operator reading `x` (or a fresh input of the type): its output, or `None` when
    /// `x` does not fit it (then nothing was added).
    apply: fn(&mut G<'_>, B, Option<i32>, TensorType) -> Option<i32>,
}

impl OpGen {
    /// `op`, named `name`, drawn by `apply` on int8 and float32.
    const fn new(
        name: &'static str,
        op: B,
        apply: fn(&mut G<'_>, B, Option<i32>, TensorType) -> Option<i32>,
    ) -> Self {
        OpGen {
            name,
            op,
            types: &[],
            int32_arithmetic: false,
            non_finite: false,
            apply,
        }
    }

    /// Drawn on `types` too.
    const fn types(self, types: &'static [TensorType]) -> Self {
        OpGen { types, ..self }
    }

    /// TFLM's unquantized int32 arithmetic: drawn on int32, and int32 drawn as a chain's type in
    /// the runs that draw it.
    const fn int32_arithmetic(self) -> Self {
        OpGen {
            int32_arithmetic: true,
            ..self
        }
    }

    /// May make a NaN or an infinity of finite float32 values.
    const fn non_finite(self) -> Self {
        OpGen {
            non_finite: true,
            ..self
        }
    }

    /// Whether the generator draws it on `dtype`.
    fn draws(&self, dtype: TensorType) -> bool {
        matches!(dtype, TensorType::INT8 | TensorType::FLOAT32)
            || self.types.contains(&dtype)
            || (self.int32_arithmetic && dtype == TensorType::INT32)
    }
}

/// The operators the generator draws: every family's, in byte order of their names (a case draws
/// its operators by position in this list, so the order the families are listed in is no part of
/// it).
pub fn ops() -> &'static [OpGen] {
    static OPS: LazyLock<Vec<OpGen>> = LazyLock::new(|| {
        let mut ops: Vec<OpGen> = FAMILIES.iter().flat_map(|f| f.iter().copied()).collect();
        ops.sort_by_key(|o| o.name);
        ops
    });
    &OPS
}

/// The generator's entry for `op`, if it draws it.
fn entry(op: B) -> Option<&'static OpGen> {
    ops().iter().find(|o| o.op == op)
}

/// One generated case.
pub struct Case {
    /// Its index in the run.
    pub index: u64,
    /// The model.
    pub spec: ModelSpec,
    /// One line: the ops, dtypes, shapes, options and scales.
    pub description: String,
    /// The inputs, raw little-endian, one per graph input: `steps` invocations' values, one
    /// after the other.
    pub inputs: Vec<Vec<u8>>,
    /// Invocations of the model on one instance (more than one when it keeps state).
    pub steps: usize,
    /// The element type of each graph output.
    pub output_types: Vec<TensorType>,
    /// The names of the ops, in order (for the summary).
    pub ops: Vec<&'static str>,
}

/// Generates case `index` of run `seed`, drawing ops from `ops` (operators of [`ops()`]).
pub fn case(seed: u64, index: u64, ops: &[&'static OpGen]) -> Case {
    let mut rng = Rng::for_case(seed, index);
    // Some op sequences do not fit together (a conv after a rank-2 tensor): retry with the same
    // stream, which stays deterministic.
    for _ in 0..50 {
        if let Some(case) = try_case(&mut rng, index, ops) {
            return case;
        }
    }
    // Every op accepts a fresh input, so a single op always succeeds; this is unreachable in
    // practice but keeps the function total.
    let op = ops.first().copied().or_else(|| entry(B::RELU));
    let mut g = G::new(&mut rng);
    let dtype = TensorType::FLOAT32;
    if let Some(op) = op {
        let _ = g.apply(op, None, dtype);
    }
    g.finish(index, vec![])
}

fn try_case(rng: &mut Rng, index: u64, ops: &[&'static OpGen]) -> Option<Case> {
    let length = match rng.unit() {
        x if x < 0.5 => 1,
        x if x < 0.8 => 2,
        _ => 3,
    };
    let mut g = G::new(rng);
    g.tricky = g.rng.chance(0.55);
    // One draw, as before int32 joined: the cases of runs without an int32 operator are unchanged.
    let mut dtype = match g.rng.unit() {
        u if u < 0.6 => TensorType::INT8,
        u if u >= 0.85 && ops.iter().any(|op| op.int32_arithmetic) => TensorType::INT32,
        _ => TensorType::FLOAT32,
    };
    // One case in eight on a type only the byte-moving operators take (TFLM's lists for them).
    if g.rng.chance(0.125) {
        let others: Vec<TensorType> = MOVED_TYPES
            .into_iter()
            .filter(|&t| ops.iter().any(|op| op.draws(t)))
            .collect();
        if !others.is_empty() {
            dtype = g.rng.pick(&others);
        }
    }
    let mut x = None;
    let mut names = Vec::new();
    // Whether the chain's tensor may hold a NaN or an infinity (SQRT or RSQRT of a negative or of
    // 0, DIV by 0, LOG of a negative or of 0, EXP of a large value, carried by every float
    // operator after them). TFLM's QUANTIZE converts such a float to
    // int32 (undefined in C++: x86 gives INT_MIN, Arm saturates), so the generator quantizes
    // none: such a case would compare against one platform's reading of undefined behaviour.
    let mut non_finite = false;
    for _ in 0..length {
        // The first operator is one that takes the drawn type (every one takes int8 and float32).
        let op = if x.is_none() && dtype != TensorType::INT8 && dtype != TensorType::FLOAT32 {
            let takers: Vec<&'static OpGen> =
                ops.iter().copied().filter(|op| op.draws(dtype)).collect();
            g.rng.pick(&takers)
        } else {
            g.rng.pick(ops)
        };
        if non_finite && op.op == B::QUANTIZE {
            return None;
        }
        let out = g.apply(op, x, dtype)?;
        names.push(op.name);
        dtype = g.m.tensors[out as usize].dtype;
        non_finite = dtype == TensorType::FLOAT32 && (non_finite || op.non_finite);
        x = Some(out);
        if g.ends_chain {
            break;
        }
    }
    let out = x?;
    g.m.outputs = vec![out];
    let more = std::mem::take(&mut g.more_outputs);
    g.m.outputs.extend(more);
    if g.rng.chance(0.06) {
        g.mutate();
    }
    Some(g.finish(index, names))
}

/// The types besides int8 and float32 that some operator the generator draws takes (int16 twice:
/// the 16x8 arithmetic is where most of them go).
const MOVED_TYPES: [TensorType; 5] = [
    TensorType::INT16,
    TensorType::INT16,
    TensorType::INT32,
    TensorType::INT64,
    TensorType::BOOL,
];

/// `n` random int32 values, as raw little-endian bytes: full-range (sums and products overflow
/// and wrap), or small (the fused activations' clamps to [0, 6] and [-1, 1] show).
fn int32_values(rng: &mut Rng, n: usize) -> Vec<u8> {
    let limit = rng.pick(&[i32::MAX, 1000, 8]);
    (0..n)
        .flat_map(|_| {
            let v = if limit == i32::MAX {
                rng.next_u64() as i32
            } else {
                rng.int(-limit, limit)
            };
            v.to_le_bytes()
        })
        .collect()
}

/// One invocation's random values of a graph input (input `k`, of `n` elements of `dtype`), as
/// raw little-endian bytes: floats in [-range, range), positions in `0..bound`, integers over their
/// whole range (int32 now and then small).
fn input_values(
    rng: &mut Rng,
    dtype: TensorType,
    n: usize,
    range: f64,
    k: usize,
    positions: &[(usize, i32)],
) -> Vec<u8> {
    match dtype {
        TensorType::INT8 => (0..n).map(|_| rng.next_u64() as u8).collect(),
        TensorType::FLOAT32 => (0..n).flat_map(|_| rng.sym(range).to_le_bytes()).collect(),
        TensorType::INT32 => match positions.iter().find(|&&(i, _)| i == k) {
            Some(&(_, bound)) => (0..n)
                .flat_map(|_| rng.int(0, bound - 1).to_le_bytes())
                .collect(),
            None => int32_values(rng, n),
        },
        TensorType::INT16 => (0..n)
            .flat_map(|_| (rng.next_u64() as u16).to_le_bytes())
            .collect(),
        TensorType::INT64 => (0..n).flat_map(|_| rng.next_u64().to_le_bytes()).collect(),
        TensorType::BOOL => (0..n).map(|_| (rng.next_u64() & 1) as u8).collect(),
        _ => vec![0; n * 4],
    }
}

/// One invocation's values of a graph input of `n` elements of integer type `dtype`, each in
/// `lo..=hi`, as raw little-endian bytes.
fn span_values(rng: &mut Rng, dtype: TensorType, n: usize, lo: i64, hi: i64) -> Vec<u8> {
    let width = match dtype {
        TensorType::INT8 | TensorType::UINT8 | TensorType::BOOL => 1,
        TensorType::INT16 | TensorType::UINT16 => 2,
        TensorType::INT32 | TensorType::UINT32 | TensorType::FLOAT32 => 4,
        _ => 8,
    };
    let span = (hi as i128 - lo as i128 + 1) as u128;
    (0..n)
        .flat_map(|_| {
            let v = (lo as i128 + (u128::from(rng.next_u64()) % span) as i128) as i64;
            v.to_le_bytes()[..width].to_vec()
        })
        .collect()
}

/// The TFLite name of `op`.
pub fn op_name(op: B) -> &'static str {
    entry(op).map_or("?", |e| e.name)
}

/// The model being built.
struct G<'a> {
    rng: &'a mut Rng,
    m: ModelSpec,
    desc: Vec<String>,
    /// Per graph input: the float range of its random values (ignored for int8).
    ranges: Vec<f64>,
    /// Graph inputs of positions (GATHER's, computed at run time): `(input index, bound)`, drawn
    /// in `0..bound` (TFLM's Invoke fails on a position outside the axis).
    positions: Vec<(usize, i32)>,
    /// Draw scales where f32 and f64 multipliers differ most.
    tricky: bool,
    /// A control tensor (begin, size, block, margins, …) is computed at run time, clamped to
    /// values for which TFLM writes every element of the drawn output shape: a mutated output
    /// shape would leave elements TFLM never writes (arena garbage there, zeros in tinyaot), a
    /// result no model can rely on, so the mutation changes something else. (Set too by the
    /// custom operators, whose kernels write as many elements as their parameters say.)
    run_time_controls: bool,
    /// Graph outputs besides the chain's last tensor (a WHILE's counter), in order.
    more_outputs: Vec<i32>,
    /// Graph inputs whose integer values are drawn in a span: `(input index, low, high)`,
    /// inclusive (the signal operators' int16, uint32, uint64 and int32 inputs).
    spans: Vec<(usize, i64, i64)>,
    /// The last operator ends the chain (a signal operator: its unquantized outputs feed none of
    /// the others).
    ends_chain: bool,
    /// Invocations of the model, one after the other on one instance: more than one when it
    /// keeps state (resource variables) from one to the next.
    steps: usize,
    /// The CALL_ONCE init subgraph, once drawn: its index among [`ModelSpec::more_subgraphs`].
    init: Option<usize>,
    /// Resource variables drawn so far (each named after its number).
    variables: usize,
}

const ACTIVATIONS: &[Activation] = &[
    Activation::NONE,
    Activation::NONE,
    Activation::RELU,
    Activation::RELU6,
    Activation::RELU_N1_TO_1,
];

fn act_name(a: Activation) -> &'static str {
    match a {
        Activation::NONE => "none",
        Activation::RELU => "relu",
        Activation::RELU6 => "relu6",
        Activation::RELU_N1_TO_1 => "relu_n1_to_1",
        _ => "other",
    }
}

fn pad_name(p: Padding) -> &'static str {
    if p == Padding::SAME {
        "same"
    } else {
        "valid"
    }
}

fn type_name(t: TensorType) -> &'static str {
    match t {
        TensorType::INT4 => "i4",
        TensorType::INT8 => "i8",
        TensorType::FLOAT32 => "f32",
        TensorType::INT16 => "i16",
        TensorType::INT32 => "i32",
        TensorType::INT64 => "i64",
        TensorType::BOOL => "bool",
        _ => "other",
    }
}

fn elements(shape: &[i32]) -> i64 {
    shape.iter().map(|&d| i64::from(d)).product()
}

impl<'a> G<'a> {
    fn new(rng: &'a mut Rng) -> Self {
        let mut m = ModelSpec::new();
        m.description = Some("tinyaot difftest".to_string());
        G {
            rng,
            m,
            desc: Vec::new(),
            ranges: Vec::new(),
            positions: Vec::new(),
            tricky: false,
            run_time_controls: false,
            more_outputs: Vec::new(),
            spans: Vec::new(),
            ends_chain: false,
            steps: 1,
            init: None,
            variables: 0,
        }
    }

    fn finish(self, index: u64, ops: Vec<&'static str>) -> Case {
        let G {
            rng,
            m,
            desc,
            ranges,
            positions,
            spans,
            steps,
            ..
        } = self;
        let mut inputs = Vec::new();
        for (k, &t) in m.inputs.iter().enumerate() {
            let tensor = &m.tensors[t as usize];
            let shape = tensor.shape.clone().unwrap_or_default();
            let n = elements(&shape).max(0) as usize;
            let range = ranges.get(k).copied().unwrap_or(1.0);
            // One invocation's values after another: a stateful model runs `steps` of them.
            let mut bytes = Vec::new();
            let span = spans.iter().find(|s| s.0 == k).map(|&(_, lo, hi)| (lo, hi));
            for _ in 0..steps {
                match span {
                    Some((lo, hi)) => bytes.extend(span_values(rng, tensor.dtype, n, lo, hi)),
                    None => bytes.extend(input_values(rng, tensor.dtype, n, range, k, &positions)),
                }
            }
            inputs.push(bytes);
        }
        let output_types = m
            .outputs
            .iter()
            .map(|&t| m.tensors[t as usize].dtype)
            .collect();
        Case {
            index,
            spec: m,
            description: desc.join(" ; "),
            inputs,
            steps,
            output_types,
            ops,
        }
    }

    fn shape(&self, t: i32) -> Vec<i32> {
        self.m.tensors[t as usize].shape.clone().unwrap_or_default()
    }

    fn dtype(&self, t: i32) -> TensorType {
        self.m.tensors[t as usize].dtype
    }

    /// Per-tensor (scale, zero point) of `t`, (0, 0) when not quantized.
    fn q(&self, t: i32) -> (f32, i64) {
        match &self.m.tensors[t as usize].quantization {
            Some(q) => (
                q.scales.first().copied().unwrap_or(0.0),
                q.zero_points
                    .as_ref()
                    .and_then(|z| z.first().copied())
                    .unwrap_or(0),
            ),
            None => (0.0, 0),
        }
    }

    fn zero_point(&mut self) -> i64 {
        match self.rng.unit() {
            x if x < 0.1 => self.rng.pick(&[-128, 127, 0]),
            x if x < 0.6 => self.rng.range(-20, 20),
            _ => self.rng.range(-128, 127),
        }
    }

    fn scale(&mut self) -> f32 {
        self.rng.logu(1e-3, 0.2) as f32
    }

    /// A new activation tensor of `dtype`: int8 gets `quant` or a random one.
    fn act(&mut self, dtype: TensorType, shape: &[i32], quant: Option<(f32, i64)>) -> i32 {
        let t = if dtype == TensorType::INT8 {
            let (s, z) = match quant {
                Some(q) => q,
                None => (self.scale(), self.zero_point()),
            };
            TensorSpec::int8(shape, s, z)
        } else if dtype == TensorType::INT16 {
            // int16 activations are symmetric (zero point 0), as the 16x8 scheme has them.
            let s = quant.map_or_else(|| self.scale(), |q| q.0);
            TensorSpec::new(dtype, shape).quant(s, 0)
        } else {
            TensorSpec::new(dtype, shape)
        };
        self.m.tensor(t)
    }

    /// A new graph input with float values in [-range, range).
    fn input(
        &mut self,
        dtype: TensorType,
        shape: &[i32],
        quant: Option<(f32, i64)>,
        range: f64,
    ) -> i32 {
        let t = self.act(dtype, shape, quant);
        self.m.inputs.push(t);
        self.ranges.push(range);
        t
    }

    fn const_i32(&mut self, shape: &[i32], values: &[i32]) -> i32 {
        self.m.tensor(TensorSpec::int32(shape).constant_i32(values))
    }

    fn random_shape(&mut self, min_rank: usize, max_rank: usize, max_dim: i32) -> Vec<i32> {
        let rank = self.rng.range(min_rank as i64, max_rank as i64) as usize;
        (0..rank)
            .map(|_| {
                if self.rng.chance(0.2) {
                    1
                } else {
                    self.rng.int(1, max_dim)
                }
            })
            .collect()
    }

    fn describe(&mut self, text: String) {
        self.desc.push(text);
    }

    fn qtext(&self, t: i32) -> String {
        let tensor = &self.m.tensors[t as usize];
        let shape = tensor.shape.clone().unwrap_or_default();
        match &tensor.quantization {
            Some(q) if q.scales.len() == 1 => format!(
                "{}{:?}(s={:e},zp={})",
                type_name(tensor.dtype),
                shape,
                q.scales[0],
                q.zero_points
                    .as_ref()
                    .and_then(|z| z.first().copied())
                    .unwrap_or(0)
            ),
            Some(q) => format!(
                "{}{:?}(per-channel s={:?})",
                type_name(tensor.dtype),
                shape,
                q.scales
            ),
            None => format!("{}{:?}", type_name(tensor.dtype), shape),
        }
    }

    /// Picks the best of 48 candidates by `score` (highest wins) when the case hunts drift,
    /// else the first.
    fn hunt<T: Copy>(
        &mut self,
        mut draw: impl FnMut(&mut Rng) -> T,
        score: impl Fn(T) -> i64,
    ) -> T {
        let first = draw(self.rng);
        if !self.tricky {
            return first;
        }
        let mut best = (score(first), first);
        for _ in 0..47 {
            let c = draw(self.rng);
            let s = score(c);
            if s > best.0 {
                best = (s, c);
            }
        }
        best.1
    }

    /// `count` int8 weights: full range, or in [-1, 1] when the case hunts multiplier drift with a
    /// per-tensor scale (small accumulators: the simple output ratios then give exact ties).
    fn weights(&mut self, count: usize, per_tensor: bool) -> Vec<i8> {
        let limit = if self.tricky && per_tensor { 1 } else { 127 };
        (0..count)
            .map(|_| self.rng.int(-limit, limit) as i8)
            .collect()
    }

    /// Makes `filter`, a constant INT8 weight tensor of a CONV_2D, DEPTHWISE_CONV_2D or
    /// FULLY_CONNECTED, INT4 one time in four: its weights wrapped into -8..=7 and packed two to a
    /// byte, as TFLM's own INT4 tests make theirs (TFLM runs INT4 weights only there, with int8
    /// activations; per-tensor only for FULLY_CONNECTED, whose weights here are per tensor).
    fn maybe_int4(&mut self, filter: i32) {
        if self.rng.chance(0.25) {
            let m = std::mem::take(&mut self.m);
            self.m = tinyaot_modelkit::int4::with_int4_weights(m, filter as usize);
        }
    }

    /// The shape of a fresh input to an element-wise operator: `[1, 256]`, every int8 value once
    /// or more (a drifted multiplier shows on the ties), when the case hunts drift and now and
    /// then besides; else a random one.
    fn every_value_shape(&mut self) -> Vec<i32> {
        if self.tricky || self.rng.chance(0.3) {
            vec![1, 256]
        } else {
            self.random_shape(1, 4, 6)
        }
    }

    /// An int16 output quantization for input `x` (zero point 0, as the 16x8 scheme has it): the
    /// input's scale with probability `same`, else one near a simple ratio of it where float and
    /// double rescaling differ.
    fn int16_rescaled(&mut self, x: i32, same: f64) -> (f32, i64) {
        let (s_in, _) = self.q(x);
        let s_out = if self.rng.chance(same) {
            s_in
        } else {
            self.hunt(
                |r| arithmetic::ratio_near(r, s_in),
                |o| score(&ratio_variants(s_in, o)),
            )
        };
        (s_out, 0)
    }

    /// The input of an op: `x`, or a fresh graph input made by `fresh`.
    fn take(
        &mut self,
        x: Option<i32>,
        dtype: TensorType,
        fresh: impl FnOnce(&mut Self) -> Vec<i32>,
        range: f64,
    ) -> i32 {
        match x {
            Some(t) => t,
            None => {
                let shape = fresh(self);
                self.input(dtype, &shape, None, range)
            }
        }
    }

    /// Adds `op` reading `x` (or a fresh input) of `dtype`; returns its output, or `None` when `x`
    /// does not fit the op (then nothing was added).
    fn apply(&mut self, entry: &OpGen, x: Option<i32>, dtype: TensorType) -> Option<i32> {
        let dtype = x.map(|t| self.dtype(t)).unwrap_or(dtype);
        // INT32 values (ARG_MAX's and ARG_MIN's indices too) go on only into int32 arithmetic and
        // the byte-moving operators; int16, int64 and bool only into the latter.
        if !entry.draws(dtype) {
            return None;
        }
        (entry.apply)(self, entry.op, x, dtype)
    }

    /// The rank of `x`, `None` for a fresh input.
    fn rank(&self, x: Option<i32>) -> Option<usize> {
        x.map(|t| self.shape(t).len())
    }

    /// The shape of a fresh input to an operator on images (NHWC): now and then two batches.
    fn image_shape(&mut self) -> Vec<i32> {
        let n = if self.rng.chance(0.1) { 2 } else { 1 };
        vec![
            n,
            self.rng.int(1, 7),
            self.rng.int(1, 7),
            self.rng.int(1, 4),
        ]
    }

    /// Breaks the model in one small way (a hostile corner): what TFLM refuses, tinyaot must
    /// refuse too.
    fn mutate(&mut self) {
        let activations: Vec<usize> = (0..self.m.tensors.len())
            .filter(|&i| {
                let t = &self.m.tensors[i];
                t.is_activation() && t.dtype == TensorType::INT8
            })
            .collect();
        let kind = self.rng.int(0, 4);
        let text = match kind {
            0 | 1 if !activations.is_empty() => {
                let t = self.rng.pick(&activations);
                let tensor = &mut self.m.tensors[t];
                if let Some(q) = tensor.quantization.as_mut() {
                    if kind == 0 {
                        let zp = self.rng.pick(&[128i64, -129, 200, 1000]);
                        q.zero_points = Some(vec![zp]);
                        format!("MUTATED t{t} zero point {zp}")
                    } else {
                        let s = self.rng.pick(&[0.0f32, -0.1, f32::NAN, 1e-30, 1e-10, 1e30]);
                        q.scales = vec![s];
                        format!("MUTATED t{t} scale {s:e}")
                    }
                } else {
                    "MUTATED nothing".to_string()
                }
            }
            2 if !self.run_time_controls => {
                let Some(&out) = self.m.outputs.first() else {
                    return;
                };
                let tensor = &mut self.m.tensors[out as usize];
                if let Some(shape) = tensor.shape.as_mut() {
                    if shape.is_empty() {
                        shape.push(2);
                    } else {
                        let i = (self.rng.next_u64() % shape.len() as u64) as usize;
                        shape[i] += 1;
                    }
                }
                format!("MUTATED output shape {:?}", tensor.shape)
            }
            3 => {
                let Some(&input) = self.m.inputs.first() else {
                    return;
                };
                let tensor = &mut self.m.tensors[input as usize];
                if let Some(shape) = tensor.shape.as_mut() {
                    if let Some(d) = shape.first_mut() {
                        *d = 0;
                    }
                }
                format!("MUTATED input shape {:?}", tensor.shape)
            }
            _ => {
                let Some(&out) = self.m.outputs.first() else {
                    return;
                };
                let tensor = &mut self.m.tensors[out as usize];
                tensor.dtype = if tensor.dtype == TensorType::INT8 {
                    TensorType::INT16
                } else {
                    TensorType::INT8
                };
                format!("MUTATED output type {}", type_name(tensor.dtype))
            }
        };
        self.describe(text);
    }
}

#[cfg(test)]
mod tests {
    use super::arithmetic::product_pair;
    use super::*;
    use crate::difftest::quant::{product_variants, quantize_multiplier};

    fn all_ops() -> Vec<&'static OpGen> {
        ops().iter().collect()
    }

    /// Each operator is in one family's table only (two entries would draw it twice as often)
    /// under its own TFLite name.
    #[test]
    fn every_operator_has_one_entry() {
        let names: Vec<&str> = ops().iter().map(|o| o.name).collect();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(unique, names, "an operator in two families' tables");
        // (A custom operator is named by its custom code.)
        for o in ops().iter().filter(|o| o.op != B::CUSTOM) {
            assert_eq!(
                Some(o.name),
                o.op.variant_name(),
                "{} names {:?}",
                o.name,
                o.op
            );
        }
    }

    #[test]
    fn a_case_is_a_function_of_seed_and_index() {
        let ops = all_ops();
        for index in 0..40 {
            let a = case(7, index, &ops);
            let b = case(7, index, &ops);
            assert_eq!(a.spec.to_bytes(), b.spec.to_bytes());
            assert_eq!(a.inputs, b.inputs);
            assert_eq!(a.description, b.description);
        }
        assert_ne!(
            case(7, 1, &ops).spec.to_bytes(),
            case(8, 1, &ops).spec.to_bytes()
        );
    }

    #[test]
    fn product_pairs_are_exactly_simple_one_way_and_not_the_other() {
        let mut rng = Rng::for_case(3, 0);
        let mut constructed = 0;
        for _ in 0..200 {
            let s_in = rng.logu(1e-3, 0.2) as f32;
            let s_w = rng.logu(2e-3, 5e-2) as f32;
            let (w, o) = product_pair(&mut rng, s_in, s_w, 0.2);
            let v = product_variants(s_in, w, o);
            let simple = |q: (i64, i32)| (28..30).contains(&q.0.trailing_zeros());
            if v[0] != v[1] && (simple(v[0]) || simple(v[1])) {
                constructed += 1;
            }
        }
        // Both constructions succeed for most draws.
        assert!(constructed > 150, "{constructed} of 200");
        assert_eq!(quantize_multiplier(0.75).0.trailing_zeros(), 29);
    }
}

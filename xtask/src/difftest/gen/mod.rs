//! Random small models: one operator or a chain of two or three, on every type the drawn operators
//! take ([`draws_type`]: int8 and float32 everywhere, int16 in the 16x8 arithmetic, int32, int64 and
//! bool where TFLM's kernels take them), with random shapes, options and quantization, built with
//! `tinyaot-modelkit`. Every case is a pure function of `(seed, index)`, so a case can be
//! regenerated alone.

use tinyaot_modelkit::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
};

use crate::difftest::quant::{ratio_variants, score};

mod activation;
mod arithmetic;
mod conv;
mod cumsum;
mod fully_connected;
mod index;
mod logic;
mod lookup_update;
mod math_ops;
mod matmul;
mod movement;
mod ops_tensor;
mod reduce;
mod resample;
mod rng;
mod trig_reverse_add_n;

pub use rng::Rng;

/// The rescaling ratio that keeps MUL outputs in range (products of two int8 values: thousands).
const MUL_HINT: f64 = 0.01;

/// The operators the generator draws, by TFLite name (what `--ops` takes), in byte order of
/// their names (a case draws its operators by position in this list).
pub const OPS: &[(&str, B)] = &[
    ("ABS", B::ABS),
    ("ADD", B::ADD),
    ("ADD_N", B::ADD_N),
    ("ARG_MAX", B::ARG_MAX),
    ("ARG_MIN", B::ARG_MIN),
    ("AVERAGE_POOL_2D", B::AVERAGE_POOL_2D),
    ("BATCH_MATMUL", B::BATCH_MATMUL),
    ("BATCH_TO_SPACE_ND", B::BATCH_TO_SPACE_ND),
    ("BROADCAST_ARGS", B::BROADCAST_ARGS),
    ("BROADCAST_TO", B::BROADCAST_TO),
    ("CAST", B::CAST),
    ("CEIL", B::CEIL),
    ("CONCATENATION", B::CONCATENATION),
    ("CONV_2D", B::CONV_2D),
    ("COS", B::COS),
    ("CUMSUM", B::CUMSUM),
    ("DEPTHWISE_CONV_2D", B::DEPTHWISE_CONV_2D),
    ("DEPTH_TO_SPACE", B::DEPTH_TO_SPACE),
    ("DEQUANTIZE", B::DEQUANTIZE),
    ("DIV", B::DIV),
    ("DYNAMIC_UPDATE_SLICE", B::DYNAMIC_UPDATE_SLICE),
    ("ELU", B::ELU),
    ("EMBEDDING_LOOKUP", B::EMBEDDING_LOOKUP),
    ("EQUAL", B::EQUAL),
    ("EXP", B::EXP),
    ("EXPAND_DIMS", B::EXPAND_DIMS),
    ("FILL", B::FILL),
    ("FLOOR", B::FLOOR),
    ("FLOOR_DIV", B::FLOOR_DIV),
    ("FLOOR_MOD", B::FLOOR_MOD),
    ("FULLY_CONNECTED", B::FULLY_CONNECTED),
    ("GATHER", B::GATHER),
    ("GATHER_ND", B::GATHER_ND),
    ("GREATER", B::GREATER),
    ("GREATER_EQUAL", B::GREATER_EQUAL),
    ("HARD_SWISH", B::HARD_SWISH),
    ("L2_NORMALIZATION", B::L2_NORMALIZATION),
    ("L2_POOL_2D", B::L2_POOL_2D),
    ("LEAKY_RELU", B::LEAKY_RELU),
    ("LESS", B::LESS),
    ("LESS_EQUAL", B::LESS_EQUAL),
    ("LOG", B::LOG),
    ("LOGICAL_AND", B::LOGICAL_AND),
    ("LOGICAL_NOT", B::LOGICAL_NOT),
    ("LOGICAL_OR", B::LOGICAL_OR),
    ("LOGISTIC", B::LOGISTIC),
    ("LOG_SOFTMAX", B::LOG_SOFTMAX),
    ("MAXIMUM", B::MAXIMUM),
    ("MAX_POOL_2D", B::MAX_POOL_2D),
    ("MEAN", B::MEAN),
    ("MINIMUM", B::MINIMUM),
    ("MIRROR_PAD", B::MIRROR_PAD),
    ("MUL", B::MUL),
    ("NEG", B::NEG),
    ("NOT_EQUAL", B::NOT_EQUAL),
    ("PACK", B::PACK),
    ("PAD", B::PAD),
    ("PADV2", B::PADV2),
    ("PRELU", B::PRELU),
    ("QUANTIZE", B::QUANTIZE),
    ("REDUCE_ALL", B::REDUCE_ALL),
    ("REDUCE_MAX", B::REDUCE_MAX),
    ("REDUCE_MIN", B::REDUCE_MIN),
    ("RELU", B::RELU),
    ("RELU6", B::RELU6),
    ("RESHAPE", B::RESHAPE),
    ("RESIZE_BILINEAR", B::RESIZE_BILINEAR),
    ("RESIZE_NEAREST_NEIGHBOR", B::RESIZE_NEAREST_NEIGHBOR),
    ("REVERSE_V2", B::REVERSE_V2),
    ("ROUND", B::ROUND),
    ("RSQRT", B::RSQRT),
    ("SELECT_V2", B::SELECT_V2),
    ("SHAPE", B::SHAPE),
    ("SIN", B::SIN),
    ("SLICE", B::SLICE),
    ("SOFTMAX", B::SOFTMAX),
    ("SPACE_TO_BATCH_ND", B::SPACE_TO_BATCH_ND),
    ("SPACE_TO_DEPTH", B::SPACE_TO_DEPTH),
    ("SPLIT", B::SPLIT),
    ("SPLIT_V", B::SPLIT_V),
    ("SQRT", B::SQRT),
    ("SQUARE", B::SQUARE),
    ("SQUARED_DIFFERENCE", B::SQUARED_DIFFERENCE),
    ("SQUEEZE", B::SQUEEZE),
    ("STRIDED_SLICE", B::STRIDED_SLICE),
    ("SUB", B::SUB),
    ("SUM", B::SUM),
    ("TANH", B::TANH),
    ("TRANSPOSE", B::TRANSPOSE),
    ("TRANSPOSE_CONV", B::TRANSPOSE_CONV),
    ("UNPACK", B::UNPACK),
    ("ZEROS_LIKE", B::ZEROS_LIKE),
];

/// One generated case.
pub struct Case {
    /// Its index in the run.
    pub index: u64,
    /// The model.
    pub spec: ModelSpec,
    /// One line: the ops, dtypes, shapes, options and scales.
    pub description: String,
    /// The inputs, raw little-endian, one per graph input.
    pub inputs: Vec<Vec<u8>>,
    /// The element type of each graph output.
    pub output_types: Vec<TensorType>,
    /// The names of the ops, in order (for the summary).
    pub ops: Vec<&'static str>,
}

/// Generates case `index` of run `seed`, drawing ops from `ops` (names of [`OPS`]).
pub fn case(seed: u64, index: u64, ops: &[B]) -> Case {
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
    let op = ops.first().copied().unwrap_or(B::RELU);
    let mut g = G::new(&mut rng);
    let dtype = TensorType::FLOAT32;
    let _ = g.apply(op, None, dtype);
    g.finish(index, vec![])
}

fn try_case(rng: &mut Rng, index: u64, ops: &[B]) -> Option<Case> {
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
        u if u >= 0.85 && ops.iter().any(|&op| takes_int32(op)) => TensorType::INT32,
        _ => TensorType::FLOAT32,
    };
    // One case in eight on a type only the byte-moving operators take (TFLM's lists for them).
    if g.rng.chance(0.125) {
        let others: Vec<TensorType> = MOVED_TYPES
            .into_iter()
            .filter(|&t| ops.iter().any(|&op| draws_type(op, t)))
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
            let takers: Vec<B> = ops
                .iter()
                .copied()
                .filter(|&op| draws_type(op, dtype))
                .collect();
            g.rng.pick(&takers)
        } else {
            g.rng.pick(ops)
        };
        if non_finite && op == B::QUANTIZE {
            return None;
        }
        let out = g.apply(op, x, dtype)?;
        names.push(op_name(op));
        dtype = g.m.tensors[out as usize].dtype;
        non_finite = dtype == TensorType::FLOAT32
            && (non_finite
                || matches!(
                    op,
                    B::SQRT | B::RSQRT | B::DIV | B::EXP | B::LOG | B::FLOOR_DIV | B::FLOOR_MOD
                ));
        x = Some(out);
    }
    let out = x?;
    g.m.outputs = vec![out];
    if g.rng.chance(0.06) {
        g.mutate();
    }
    Some(g.finish(index, names))
}

/// Whether the generator draws `op` on int32 tensors (TFLM's unquantized int32 arithmetic).
fn takes_int32(op: B) -> bool {
    matches!(
        op,
        B::ADD | B::SUB | B::MUL | B::MAXIMUM | B::MINIMUM | B::SQUARED_DIFFERENCE | B::DIV
    )
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

/// Whether the generator draws `op` on `dtype`: int8 and float32 everywhere (an operator's
/// generator declines what it does not take), int32 in the int32 arithmetic, int16 in the 16x8
/// arithmetic (zero points 0; PRELU with an int8 alpha), int64 in MAXIMUM and MINIMUM, and the types TFLM's byte-moving
/// kernels register (concatenation.cc, pack.cc, pad.cc, transpose.cc,
/// strided_slice.cc, slice.cc, unpack.cc, reshape.cc, squeeze.cc, expand_dims.cc), and SHAPE of
/// any input (it reads only the shape).
fn draws_type(op: B, dtype: TensorType) -> bool {
    match dtype {
        _ if logic::draws_logic_type(op, dtype) || lookup_update::draws_type(op, dtype) => true,
        TensorType::BOOL if op == B::REDUCE_ALL => true,
        TensorType::INT8 | TensorType::FLOAT32 => true,
        TensorType::INT32 => {
            takes_int32(op)
                || matches!(
                    op,
                    B::CONCATENATION
                        | B::PACK
                        | B::PAD
                        | B::PADV2
                        | B::SPLIT
                        | B::SPLIT_V
                        | B::STRIDED_SLICE
                        | B::RESHAPE
                        | B::SQUEEZE
                        | B::SHAPE
                        | B::SLICE
                        | B::UNPACK
                        | B::CAST
                        | B::ZEROS_LIKE
                        | B::FILL
                        | B::BROADCAST_TO
                        | B::REVERSE_V2
                )
        }
        TensorType::INT16 => matches!(
            op,
            B::ADD
                | B::BATCH_MATMUL
                | B::SUB
                | B::MUL
                | B::SQUARED_DIFFERENCE
                | B::MAXIMUM
                | B::MINIMUM
                | B::PRELU
                | B::CONV_2D
                | B::DEPTHWISE_CONV_2D
                | B::TRANSPOSE_CONV
                | B::FULLY_CONNECTED
                | B::ABS
                | B::RELU
                | B::RELU6
                | B::LEAKY_RELU
                | B::LOGISTIC
                | B::TANH
                | B::SOFTMAX
                | B::AVERAGE_POOL_2D
                | B::MAX_POOL_2D
                | B::MEAN
                | B::SUM
                | B::QUANTIZE
                | B::DEQUANTIZE
                | B::SPLIT
                | B::SPLIT_V
                | B::CONCATENATION
                | B::PACK
                | B::PAD
                | B::PADV2
                | B::TRANSPOSE
                | B::STRIDED_SLICE
                | B::RESHAPE
                | B::SQUEEZE
                | B::EXPAND_DIMS
                | B::SHAPE
                | B::SLICE
                | B::UNPACK
                | B::RESIZE_NEAREST_NEIGHBOR
                | B::CAST
                | B::BROADCAST_TO
                | B::SELECT_V2
                | B::REVERSE_V2
        ),
        TensorType::INT64 => matches!(
            op,
            B::CONCATENATION
                | B::PACK
                | B::RESHAPE
                | B::MAXIMUM
                | B::MINIMUM
                | B::SHAPE
                | B::ZEROS_LIKE
                | B::BROADCAST_TO
                | B::REVERSE_V2
        ),
        TensorType::BOOL => matches!(
            op,
            B::CONCATENATION
                | B::STRIDED_SLICE
                | B::RESHAPE
                | B::SHAPE
                | B::SLICE
                | B::CAST
                | B::BROADCAST_TO
                | B::REVERSE_V2
        ),
        _ => false,
    }
}

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

/// The TFLite name of `op`.
pub fn op_name(op: B) -> &'static str {
    OPS.iter()
        .find(|(_, code)| *code == op)
        .map(|(name, _)| *name)
        .unwrap_or("?")
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
        }
    }

    fn finish(self, index: u64, ops: Vec<&'static str>) -> Case {
        let G {
            rng,
            m,
            desc,
            ranges,
            positions,
            ..
        } = self;
        let mut inputs = Vec::new();
        for (k, &t) in m.inputs.iter().enumerate() {
            let tensor = &m.tensors[t as usize];
            let shape = tensor.shape.clone().unwrap_or_default();
            let n = elements(&shape).max(0) as usize;
            let range = ranges.get(k).copied().unwrap_or(1.0);
            let bytes = match tensor.dtype {
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
            };
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
    fn apply(&mut self, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
        let dtype = x.map(|t| self.dtype(t)).unwrap_or(dtype);
        let rank = x.map(|t| self.shape(t).len());
        // INT32 values (ARG_MAX's and ARG_MIN's indices too) go on only into int32 arithmetic and
        // the byte-moving operators; int16, int64 and bool only into the latter.
        if !draws_type(op, dtype) {
            return None;
        }
        match op {
            B::ARG_MAX | B::ARG_MIN => {
                if rank == Some(0) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 6), 4.0);
                Some(self.arg_min_max(op, x))
            }
            B::CONV_2D
            | B::DEPTHWISE_CONV_2D
            | B::AVERAGE_POOL_2D
            | B::MAX_POOL_2D
            | B::L2_POOL_2D
            | B::TRANSPOSE_CONV => {
                // TFLM's L2_POOL_2D is float32 only.
                if rank.is_some_and(|r| r != 4)
                    || (op == B::L2_POOL_2D && dtype != TensorType::FLOAT32)
                {
                    return None;
                }
                let x = self.take(
                    x,
                    dtype,
                    |g| {
                        let n = if g.rng.chance(0.1) { 2 } else { 1 };
                        vec![n, g.rng.int(1, 7), g.rng.int(1, 7), g.rng.int(1, 4)]
                    },
                    1.0,
                );
                Some(match op {
                    B::CONV_2D | B::DEPTHWISE_CONV_2D => self.conv(op, x),
                    B::TRANSPOSE_CONV => self.transpose_conv(x),
                    _ => self.pool(op, x),
                })
            }
            B::FULLY_CONNECTED => {
                if rank.is_some_and(|r| r < 2) {
                    return None;
                }
                let x = self.take(
                    x,
                    dtype,
                    |g| {
                        if g.rng.chance(0.2) {
                            g.random_shape(3, 4, 4)
                        } else {
                            vec![g.rng.int(1, 4), g.rng.int(1, 24)]
                        }
                    },
                    1.0,
                );
                Some(self.fully_connected(x))
            }
            B::QUANTIZE => {
                let wanted = if x.is_none() && self.rng.chance(0.6) {
                    TensorType::FLOAT32
                } else {
                    dtype
                };
                let out_q = (self.scale(), self.zero_point());
                let range = f64::from(out_q.0) * 160.0;
                let x = self.take(x, wanted, |g| g.random_shape(1, 4, 6), range);
                Some(self.quantize(x, out_q))
            }
            B::DEQUANTIZE => {
                if !matches!(dtype, TensorType::INT8 | TensorType::INT16) && x.is_some() {
                    return None;
                }
                let wanted = if dtype == TensorType::INT16 {
                    dtype
                } else {
                    TensorType::INT8
                };
                let x = self.take(x, wanted, |g| g.random_shape(1, 4, 6), 1.0);
                let out = self.act(TensorType::FLOAT32, &self.shape(x), None);
                let text = format!("DEQUANTIZE {} -> f32", self.qtext(x));
                self.describe(text);
                self.m.op(B::DEQUANTIZE, Options::Dequantize, &[x], &[out]);
                Some(out)
            }
            B::ADD | B::SUB | B::MUL | B::MAXIMUM | B::MINIMUM | B::PRELU => {
                if rank.is_some_and(|r| r > 4) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 5), 2.0);
                Some(self.binary(op, x))
            }
            op if logic::is_logical(op) => {
                let x = self.take(x, dtype, |g| g.random_shape(0, 4, 5), 2.0);
                self.logical(op, x)
            }
            B::FLOOR_DIV | B::FLOOR_MOD => {
                if dtype != TensorType::FLOAT32 {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(0, 4, 5), 8.0);
                self.floor_div_mod(op, x)
            }
            op if logic::is_comparison(op) => {
                let x = self.take(x, dtype, |g| g.random_shape(0, 4, 5), 2.0);
                self.comparison(op, x)
            }
            B::SQUARED_DIFFERENCE | B::DIV => {
                if rank.is_some_and(|r| r > 4) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 5), 2.0);
                self.math_binary(op, x)
            }
            B::SOFTMAX | B::LOGISTIC | B::TANH => {
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 6), 4.0);
                Some(self.curve(op, x))
            }
            B::FLOOR | B::CEIL | B::ROUND => {
                // TFLM's FLOOR, CEIL and ROUND are float32 only.
                if dtype != TensorType::FLOAT32 {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 6), 8.0);
                Some(self.activation(op, x))
            }
            B::LOG_SOFTMAX => {
                // TFLM's LOG_SOFTMAX takes float32 and int8.
                if rank == Some(0) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 6), 8.0);
                Some(if dtype == TensorType::INT8 {
                    self.log_softmax_s8(x)
                } else {
                    self.math(op, x)
                })
            }
            B::L2_NORMALIZATION => {
                // TFLM's L2_NORMALIZATION: float32 and int8, rank 1 to 4.
                if rank.is_some_and(|r| r == 0 || r > 4) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 6), 2.0);
                Some(self.l2_norm(x))
            }
            B::BATCH_MATMUL => {
                if rank.is_some_and(|r| !(2..=4).contains(&r)) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(2, 4, 5), 1.0);
                Some(self.batch_matmul(x))
            }
            B::EXP | B::LOG => {
                // TFLM's EXP and LOG are float32 only.
                if dtype != TensorType::FLOAT32 {
                    return None;
                }
                let x = self.take(x, dtype, G::every_value_shape, 4.0);
                Some(self.math(op, x))
            }
            B::SIN | B::COS => {
                // TFLM's SIN and COS are float32 only; fresh inputs up to 4, 1e3 or 1e6 in
                // magnitude (the argument reduction of large floats).
                if dtype != TensorType::FLOAT32 {
                    return None;
                }
                let range = self.rng.pick(&[4.0, 1e3, 1e6]);
                let x = self.take(x, dtype, G::every_value_shape, range);
                Some(self.math(op, x))
            }
            B::RELU | B::RELU6 | B::LEAKY_RELU | B::HARD_SWISH | B::ELU => {
                let x = self.take(x, dtype, G::every_value_shape, 8.0);
                Some(self.activation(op, x))
            }
            B::RSQRT => {
                // TFLM's int8 Invoke fails on an input below its zero point: a fresh int8 input
                // has zero point -128, a produced one must have it too.
                let x = match x {
                    Some(t) if dtype == TensorType::INT8 && self.q(t).1 != -128 => return None,
                    Some(t) => t,
                    None => {
                        let shape = self.every_value_shape();
                        let quant = (dtype == TensorType::INT8).then(|| (self.scale(), -128));
                        self.input(dtype, &shape, quant, 4.0)
                    }
                };
                Some(self.math(op, x))
            }
            B::ABS | B::NEG | B::SQRT | B::SQUARE => {
                // TFLM's NEG, SQRT and SQUARE are float32 only; ABS takes int8 too.
                if op != B::ABS && dtype != TensorType::FLOAT32 {
                    return None;
                }
                let x = self.take(x, dtype, G::every_value_shape, 4.0);
                Some(self.math(op, x))
            }
            B::PAD | B::PADV2 => {
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 4), 1.0);
                Some(self.pad(op, x))
            }
            B::MEAN | B::SUM | B::REDUCE_MAX | B::REDUCE_MIN => {
                if rank == Some(0) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 5), 1.0);
                Some(self.reduce(op, x))
            }
            B::REDUCE_ALL => {
                if rank == Some(0) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 5), 2.0);
                self.reduce_all(x)
            }
            B::CONCATENATION => {
                if rank == Some(0) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 4), 1.0);
                Some(self.concat(x))
            }
            B::PACK => {
                if rank.is_some_and(|r| r > 4) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(0, 4, 4), 1.0);
                Some(self.pack(x))
            }
            B::SPLIT | B::SPLIT_V => {
                if rank == Some(0) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 6), 1.0);
                Some(self.split(op, x))
            }
            B::ADD_N => {
                // TFLM's ADD_N takes float32 and int8.
                if !matches!(dtype, TensorType::FLOAT32 | TensorType::INT8) {
                    return None;
                }
                let x = self.take(x, dtype, G::every_value_shape, 2.0);
                Some(self.add_n(x))
            }
            B::CUMSUM => {
                // TFLM's CUMSUM takes float32 and int8 of rank 1 or more.
                if rank == Some(0) || !matches!(dtype, TensorType::FLOAT32 | TensorType::INT8) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 6), 2.0);
                self.cumsum(x)
            }
            B::REVERSE_V2 => {
                if rank.is_some_and(|r| r == 0 || r > 6) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 5, 4), 1.0);
                Some(self.reverse_v2(x))
            }
            B::TRANSPOSE => {
                if rank.is_some_and(|r| r == 0 || r > 5) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 5, 4), 1.0);
                Some(self.transpose(x))
            }
            B::STRIDED_SLICE => {
                if rank.is_some_and(|r| r == 0 || r > 5) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 6), 1.0);
                self.strided_slice(x, x_is_fresh(rank))
            }
            B::GATHER => {
                if rank == Some(0) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 5), 1.0);
                self.gather(x)
            }
            B::CAST | B::ZEROS_LIKE | B::FILL | B::BROADCAST_TO | B::SELECT_V2 | B::GATHER_ND => {
                self.tensor_op(op, x, dtype)
            }
            B::SHAPE => {
                let x = self.take(x, dtype, |g| g.random_shape(1, 5, 4), 1.0);
                Some(self.shape_of(x))
            }
            B::SLICE => {
                if rank.is_some_and(|r| r == 0 || r > 5) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 5, 6), 1.0);
                Some(self.slice(x))
            }
            B::UNPACK => {
                if rank == Some(0) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 5), 1.0);
                self.unpack(x)
            }
            B::RESIZE_NEAREST_NEIGHBOR | B::RESIZE_BILINEAR => {
                if rank.is_some_and(|r| r != 4) {
                    return None;
                }
                let x = self.take(
                    x,
                    dtype,
                    |g| {
                        let n = if g.rng.chance(0.1) { 2 } else { 1 };
                        vec![n, g.rng.int(1, 7), g.rng.int(1, 7), g.rng.int(1, 4)]
                    },
                    1.0,
                );
                Some(self.resize(op, x))
            }
            B::DEPTH_TO_SPACE | B::SPACE_TO_DEPTH => {
                if rank.is_some_and(|r| r != 4) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.block_input_shape(op), 1.0);
                Some(self.depth_space(op, x))
            }
            B::SPACE_TO_BATCH_ND | B::BATCH_TO_SPACE_ND => {
                if rank.is_some_and(|r| r != 4) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.batch_space_input_shape(op), 1.0);
                Some(self.batch_space(op, x))
            }
            B::MIRROR_PAD => {
                if rank.is_some_and(|r| r == 0 || r > 4) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 4), 1.0);
                Some(self.mirror_pad(x))
            }
            B::RESHAPE | B::SQUEEZE | B::EXPAND_DIMS => {
                if op == B::SQUEEZE {
                    if let Some(t) = x {
                        if !self.shape(t).contains(&1) {
                            return None;
                        }
                    }
                }
                let x = self.take(
                    x,
                    dtype,
                    |g| {
                        let mut s = g.random_shape(1, 4, 4);
                        if op == B::SQUEEZE && !s.contains(&1) {
                            s.insert(0, 1);
                        }
                        s
                    },
                    1.0,
                );
                Some(self.reshape_like(op, x))
            }
            _ => self.lookup_update(op, x, dtype),
        }
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
            2 => {
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

fn x_is_fresh(rank: Option<usize>) -> bool {
    rank.is_none()
}

#[cfg(test)]
mod tests {
    use super::arithmetic::product_pair;
    use super::*;
    use crate::difftest::quant::{product_variants, quantize_multiplier};

    fn all_ops() -> Vec<B> {
        OPS.iter().map(|(_, op)| *op).collect()
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

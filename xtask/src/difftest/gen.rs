//! Random small models: one operator or a chain of two or three, int8 or float32 (or int32 for the
//! binary element-wise operators), with random shapes, options and quantization, built with
//! `tinyaot-modelkit`. Every case is a pure function of `(seed, index)`, so a case can be
//! regenerated alone.

use tinyaot_modelkit::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
};

use super::quant::{near, product_variants, ratio_variants, score, SIMPLE};

/// The rescaling ratio that keeps MUL outputs in range (products of two int8 values: thousands).
const MUL_HINT: f64 = 0.01;

/// SplitMix64: small, fast and good enough to draw test cases; no dependency.
pub struct Rng(u64);

impl Rng {
    /// The generator for case `index` of run `seed`.
    pub fn for_case(seed: u64, index: u64) -> Rng {
        let mut r = Rng(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi - lo) as u64 + 1;
        lo + (self.next_u64() % span) as i64
    }

    /// Uniform in `lo..=hi`, as `i32`.
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        self.range(i64::from(lo), i64::from(hi)) as i32
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Log-uniform in [lo, hi).
    pub fn logu(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + self.unit() * (hi.ln() - lo.ln())).exp()
    }

    /// Uniform in [-r, r) as f32.
    pub fn sym(&mut self, r: f64) -> f32 {
        ((self.unit() * 2.0 - 1.0) * r) as f32
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next_u64() % items.len() as u64) as usize]
    }

    /// A random permutation of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
        v
    }
}

/// The operators the generator draws, by TFLite name (what `--ops` takes).
pub const OPS: &[(&str, B)] = &[
    ("ABS", B::ABS),
    ("ADD", B::ADD),
    ("ARG_MAX", B::ARG_MAX),
    ("ARG_MIN", B::ARG_MIN),
    ("AVERAGE_POOL_2D", B::AVERAGE_POOL_2D),
    ("CONCATENATION", B::CONCATENATION),
    ("CONV_2D", B::CONV_2D),
    ("DEPTHWISE_CONV_2D", B::DEPTHWISE_CONV_2D),
    ("DEQUANTIZE", B::DEQUANTIZE),
    ("EXPAND_DIMS", B::EXPAND_DIMS),
    ("FLOOR", B::FLOOR),
    ("FULLY_CONNECTED", B::FULLY_CONNECTED),
    ("HARD_SWISH", B::HARD_SWISH),
    ("LEAKY_RELU", B::LEAKY_RELU),
    ("LOGISTIC", B::LOGISTIC),
    ("MAXIMUM", B::MAXIMUM),
    ("MAX_POOL_2D", B::MAX_POOL_2D),
    ("MEAN", B::MEAN),
    ("MINIMUM", B::MINIMUM),
    ("MUL", B::MUL),
    ("NEG", B::NEG),
    ("PACK", B::PACK),
    ("PAD", B::PAD),
    ("PADV2", B::PADV2),
    ("PRELU", B::PRELU),
    ("QUANTIZE", B::QUANTIZE),
    ("RELU", B::RELU),
    ("RELU6", B::RELU6),
    ("RESHAPE", B::RESHAPE),
    ("RSQRT", B::RSQRT),
    ("SOFTMAX", B::SOFTMAX),
    ("SPLIT", B::SPLIT),
    ("SPLIT_V", B::SPLIT_V),
    ("SQRT", B::SQRT),
    ("SQUARE", B::SQUARE),
    ("SQUEEZE", B::SQUEEZE),
    ("STRIDED_SLICE", B::STRIDED_SLICE),
    ("SUB", B::SUB),
    ("TANH", B::TANH),
    ("TRANSPOSE", B::TRANSPOSE),
    ("TRANSPOSE_CONV", B::TRANSPOSE_CONV),
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
        let out = g.apply(op, x, dtype)?;
        names.push(op_name(op));
        dtype = g.m.tensors[out as usize].dtype;
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
    matches!(op, B::ADD | B::SUB | B::MUL | B::MAXIMUM | B::MINIMUM)
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
/// arithmetic (zero points 0), int64 in MAXIMUM and MINIMUM, and the types TFLM's byte-moving
/// kernels register (concatenation.cc, pack.cc, pad.cc, transpose.cc,
/// strided_slice.cc, reshape.cc, squeeze.cc, expand_dims.cc).
fn draws_type(op: B, dtype: TensorType) -> bool {
    match dtype {
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
                )
        }
        TensorType::INT16 => matches!(
            op,
            B::ADD
                | B::SUB
                | B::MUL
                | B::MAXIMUM
                | B::MINIMUM
                | B::CONV_2D
                | B::DEPTHWISE_CONV_2D
                | B::FULLY_CONNECTED
                | B::RELU
                | B::RELU6
                | B::LEAKY_RELU
                | B::LOGISTIC
                | B::TANH
                | B::SOFTMAX
                | B::AVERAGE_POOL_2D
                | B::MAX_POOL_2D
                | B::MEAN
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
        ),
        TensorType::INT64 => matches!(
            op,
            B::CONCATENATION | B::PACK | B::RESHAPE | B::MAXIMUM | B::MINIMUM
        ),
        TensorType::BOOL => matches!(op, B::CONCATENATION | B::STRIDED_SLICE | B::RESHAPE),
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
            tricky: false,
        }
    }

    fn finish(self, index: u64, ops: Vec<&'static str>) -> Case {
        let G {
            rng,
            m,
            desc,
            ranges,
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
                TensorType::INT32 => int32_values(rng, n),
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

    /// The input of an op: `x`, or a fresh graph input made by `fresh`.
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
            | B::TRANSPOSE_CONV => {
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
            B::SOFTMAX | B::LOGISTIC | B::TANH => {
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 6), 4.0);
                Some(self.curve(op, x))
            }
            B::FLOOR => {
                // TFLM's FLOOR is float32 only.
                if dtype != TensorType::FLOAT32 {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 6), 8.0);
                Some(self.activation(op, x))
            }
            B::RELU | B::RELU6 | B::LEAKY_RELU | B::HARD_SWISH => {
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
            B::MEAN => {
                if rank == Some(0) {
                    return None;
                }
                let x = self.take(x, dtype, |g| g.random_shape(1, 4, 5), 1.0);
                Some(self.mean(x))
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
            _ => None,
        }
    }

    fn conv(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let (n, h, w, cin) = (s[0], s[1], s[2], s[3]);
        let depthwise = op == B::DEPTHWISE_CONV_2D;
        let kh = self.rng.int(1, 3);
        let kw = self.rng.int(1, 3);
        let sh = self.rng.pick(&[1, 1, 2, 3]);
        let sw = self.rng.pick(&[1, 1, 2, 3]);
        let (dh, dw) = if self.rng.chance(0.25) {
            (self.rng.int(1, 2), self.rng.int(1, 2))
        } else {
            (1, 1)
        };
        let mut padding = self.rng.pick(&[Padding::SAME, Padding::VALID]);
        let out_dim = |p: Padding, size: i32, k: i32, stride: i32, d: i32| {
            let eff = (k - 1) * d + 1;
            if p == Padding::SAME {
                (size + stride - 1) / stride
            } else {
                (size - eff + stride) / stride
            }
        };
        if out_dim(padding, h, kh, sh, dh) < 1 || out_dim(padding, w, kw, sw, dw) < 1 {
            padding = Padding::SAME;
        }
        let oh = out_dim(padding, h, kh, sh, dh);
        let ow = out_dim(padding, w, kw, sw, dw);
        let multiplier = if depthwise { self.rng.int(1, 2) } else { 1 };
        let cout = if depthwise {
            cin * multiplier
        } else {
            self.rng.int(1, 4)
        };
        let filter_shape = if depthwise {
            vec![1, kh, kw, cout]
        } else {
            vec![cout, kh, kw, cin]
        };
        let depth = if depthwise { kh * kw } else { kh * kw * cin };
        let activation = self.rng.pick(ACTIVATIONS);
        let has_bias = self.rng.chance(0.8);
        let out_shape = vec![n, oh, ow, cout];
        let (filter, bias, out) = if dtype == TensorType::INT8 {
            let (s_in, _) = self.q(x);
            let per_channel = self.rng.chance(0.7);
            let channel_axis = if depthwise { 3 } else { 0 };
            let typical = f64::from(depth).sqrt() * 4096.0 / 90.0;
            let (w_scales, s_out) = if per_channel {
                let scales: Vec<f32> = (0..cout)
                    .map(|_| self.rng.logu(2e-3, 5e-2) as f32)
                    .collect();
                let s_out =
                    (f64::from(s_in) * f64::from(scales[0]) * typical * self.rng.logu(0.3, 3.0))
                        as f32;
                (scales, s_out)
            } else {
                let (w, o) = self.hunt(
                    |r| {
                        let w = r.logu(2e-3, 5e-2) as f32;
                        if r.chance(0.7) {
                            product_pair(r, s_in, w, 1.0 / f64::from(depth).sqrt())
                        } else {
                            let o = (f64::from(s_in) * f64::from(w) * typical * r.logu(0.3, 3.0))
                                as f32;
                            (w, o)
                        }
                    },
                    |(w, o)| score(&product_variants(s_in, w, o)),
                );
                (vec![w], o)
            };
            let (filter, bias) = self.int8_filter_and_bias(
                (&filter_shape, channel_axis),
                (s_in, &w_scales, per_channel),
                has_bias,
            );
            self.maybe_int4(filter);
            let zp = self.zero_point();
            let out = self.act(TensorType::INT8, &out_shape, Some((s_out, zp)));
            (filter, bias, out)
        } else if dtype == TensorType::INT16 {
            // 16x8: per-channel int8 weights, an int64 bias, an int16 output (zero point 0).
            let (s_in, _) = self.q(x);
            let channel_axis = if depthwise { 3 } else { 0 };
            let scales: Vec<f32> = (0..cout)
                .map(|_| self.rng.logu(2e-3, 5e-2) as f32)
                .collect();
            let s_out = (f64::from(s_in)
                * f64::from(scales[0])
                * f64::from(depth).sqrt()
                * 42.0
                * self.rng.logu(0.3, 3.0)) as f32;
            let (filter, bias) = self.int8_filter_and_bias(
                (&filter_shape, channel_axis),
                (s_in, &scales, true),
                has_bias,
            );
            let bias = self.int64_bias(bias);
            let out = self.act(TensorType::INT16, &out_shape, Some((s_out, 0)));
            (filter, bias, out)
        } else {
            let (filter, bias) = self.f32_filter_and_bias(&filter_shape, cout, has_bias);
            let out = self.act(TensorType::FLOAT32, &out_shape, None);
            (filter, bias, out)
        };
        let options = if depthwise {
            Options::DepthwiseConv2D {
                padding,
                stride_w: sw,
                stride_h: sh,
                depth_multiplier: multiplier,
                dilation_w: dw,
                dilation_h: dh,
                activation,
            }
        } else {
            Options::Conv2D {
                padding,
                stride_w: sw,
                stride_h: sh,
                dilation_w: dw,
                dilation_h: dh,
                activation,
            }
        };
        let text = format!(
            "{} in {} filter {} bias={} stride=({sh},{sw}) dilation=({dh},{dw}) pad={} mult={multiplier} act={} -> {}",
            op_name(op),
            self.qtext(x),
            self.qtext(filter),
            has_bias,
            pad_name(padding),
            act_name(activation),
            self.qtext(out)
        );
        self.describe(text);
        let inputs = self.operands(&[x, filter, bias]);
        self.m.op(op, options, &inputs, &[out]);
        out
    }

    /// A constant float32 filter of `shape` and, if `has_bias`, a bias of `channels` values, all
    /// uniform in [-1, 1): the float weights of the convolutions and FULLY_CONNECTED.
    fn f32_filter_and_bias(&mut self, shape: &[i32], channels: i32, has_bias: bool) -> (i32, i32) {
        let weights: Vec<f32> = (0..elements(shape)).map(|_| self.rng.sym(1.0)).collect();
        let filter = self.m.tensor(TensorSpec::f32(shape).constant_f32(&weights));
        if !has_bias {
            return (filter, -1);
        }
        let values: Vec<f32> = (0..channels).map(|_| self.rng.sym(1.0)).collect();
        (
            filter,
            self.m
                .tensor(TensorSpec::f32(&[channels]).constant_f32(&values)),
        )
    }

    /// A constant int8 filter of `shape` with output channels along `axis`, weight scales `scales`
    /// (one per channel, or one), and if `has_bias` an int32 bias of scales `s_in * scales`: the
    /// weights and biases of CONV_2D, DEPTHWISE_CONV_2D and TRANSPOSE_CONV.
    fn int8_filter_and_bias(
        &mut self,
        (shape, axis): (&[i32], usize),
        (s_in, scales, per_channel): (f32, &[f32], bool),
        has_bias: bool,
    ) -> (i32, i32) {
        let cout = shape[axis];
        let weights = self.weights(elements(shape) as usize, !per_channel);
        let f = TensorSpec::new(TensorType::INT8, shape).constant_i8(&weights);
        let f = if per_channel {
            f.per_channel(scales, axis as i32)
        } else {
            f.quant(scales[0], 0)
        };
        let filter = self.m.tensor(f);
        if !has_bias {
            return (filter, -1);
        }
        let values: Vec<i32> = (0..cout).map(|_| self.rng.int(-3000, 3000)).collect();
        let b_scales: Vec<f32> = (0..cout as usize)
            .map(|c| s_in * scales[if per_channel { c } else { 0 }])
            .collect();
        let b = TensorSpec::int32(&[cout]).constant_i32(&values);
        let b = if per_channel {
            b.per_channel(&b_scales, 0)
        } else {
            b.quant(b_scales[0], 0)
        };
        (filter, self.m.tensor(b))
    }

    /// The int32 constant bias `bias` (or -1, none) as the int64 bias of the 16x8 kernels: the
    /// same quantization, values widened and sometimes beyond int32's range.
    fn int64_bias(&mut self, bias: i32) -> i32 {
        if bias < 0 {
            return bias;
        }
        let old = self.m.tensors[bias as usize].clone();
        let n = elements(&old.shape.clone().unwrap_or_default()) as usize;
        let values: Vec<i64> = (0..n)
            .map(|_| i64::from(self.rng.int(-300_000, 300_000)))
            .collect();
        let mut t = TensorSpec::new(TensorType::INT64, &old.shape.unwrap_or_default())
            .constant_i64(&values);
        t.quantization = old.quantization;
        self.m.tensor(t)
    }

    /// TRANSPOSE_CONV of `x` with TensorFlow's output size for the padding (`h * stride` for SAME,
    /// `(h - 1) * stride + filter` for VALID), per-channel or per-tensor int8 weights or float ones,
    /// and a bias or none.
    fn transpose_conv(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let (n, h, w, cin) = (s[0], s[1], s[2], s[3]);
        let (kh, kw) = (self.rng.int(1, 4), self.rng.int(1, 4));
        let (sh, sw) = (self.rng.pick(&[1, 2, 2, 3]), self.rng.pick(&[1, 2, 2, 3]));
        let padding = self.rng.pick(&[Padding::SAME, Padding::VALID]);
        let out_dim = |size: i32, k: i32, stride: i32| {
            if padding == Padding::SAME {
                size * stride
            } else {
                (size - 1) * stride + k
            }
        };
        let cout = self.rng.int(1, 4);
        let out_shape = vec![n, out_dim(h, kh, sh), out_dim(w, kw, sw), cout];
        let filter_shape = vec![cout, kh, kw, cin];
        // Each output element sums about kh * kw * cin / (sh * sw) products.
        let depth = f64::from((kh * kw * cin).max(sh * sw)) / f64::from(sh * sw);
        let activation = self.rng.pick(ACTIVATIONS);
        let has_bias = self.rng.chance(0.8);
        let (filter, bias, out) = if dtype == TensorType::INT8 {
            let (s_in, _) = self.q(x);
            let per_channel = self.rng.chance(0.7);
            let scales: Vec<f32> = (0..if per_channel { cout } else { 1 })
                .map(|_| self.rng.logu(2e-3, 5e-2) as f32)
                .collect();
            let typical = depth.sqrt() * 4096.0 / 90.0;
            let s_out =
                (f64::from(s_in) * f64::from(scales[0]) * typical * self.rng.logu(0.3, 3.0)) as f32;
            let (filter, bias) = self.int8_filter_and_bias(
                (&filter_shape, 0),
                (s_in, &scales, per_channel),
                has_bias,
            );
            let zp = self.zero_point();
            let out = self.act(TensorType::INT8, &out_shape, Some((s_out, zp)));
            (filter, bias, out)
        } else {
            let (filter, bias) = self.f32_filter_and_bias(&filter_shape, cout, has_bias);
            let out = self.act(TensorType::FLOAT32, &out_shape, None);
            (filter, bias, out)
        };
        let shape = self.const_i32(&[4], &out_shape);
        let text = format!(
            "TRANSPOSE_CONV in {} filter {} bias={} stride=({sh},{sw}) pad={} act={} -> {}",
            self.qtext(x),
            self.qtext(filter),
            has_bias,
            pad_name(padding),
            act_name(activation),
            self.qtext(out)
        );
        self.describe(text);
        let inputs = self.operands(&[shape, filter, x, bias]);
        let options = Options::TransposeConv {
            padding,
            stride_w: sw,
            stride_h: sh,
            activation,
        };
        self.m.op(B::TRANSPOSE_CONV, options, &inputs, &[out]);
        out
    }

    /// An op's inputs with an absent optional last input (-1) either written as -1 or left out:
    /// TFLite files use both.
    fn operands(&mut self, inputs: &[i32]) -> Vec<i32> {
        let mut v = inputs.to_vec();
        if v.last() == Some(&-1) && self.rng.chance(0.5) {
            v.pop();
            self.describe("(bias input omitted)".to_string());
        }
        v
    }

    fn pool(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let fh = self.rng.int(1, 3);
        let fw = self.rng.int(1, 3);
        let sh = self.rng.int(1, 2);
        let sw = self.rng.int(1, 2);
        let mut padding = self.rng.pick(&[Padding::SAME, Padding::VALID]);
        if s[1] < fh || s[2] < fw {
            padding = Padding::SAME;
        }
        let out_dim = |size: i32, f: i32, stride: i32| {
            if padding == Padding::SAME {
                (size + stride - 1) / stride
            } else {
                (size - f + stride) / stride
            }
        };
        let out_shape = vec![s[0], out_dim(s[1], fh, sh), out_dim(s[2], fw, sw), s[3]];
        let activation = self.rng.pick(ACTIVATIONS);
        let dtype = self.dtype(x);
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let quant = quantized.then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "{} in {} filter=({fh},{fw}) stride=({sh},{sw}) pad={} act={} -> {}",
            op_name(op),
            self.qtext(x),
            pad_name(padding),
            act_name(activation),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            op,
            Options::pool(padding, (sw, sh), (fw, fh), activation),
            &[x],
            &[out],
        );
        out
    }

    fn fully_connected(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let depth = *s.last().unwrap_or(&1);
        let batches = (elements(&s) / i64::from(depth.max(1))) as i32;
        let units = self.rng.int(1, 6);
        let keep_num_dims = self.rng.chance(0.2);
        let out_shape = if keep_num_dims {
            let mut o = s.clone();
            if let Some(last) = o.last_mut() {
                *last = units;
            }
            o
        } else {
            vec![batches, units]
        };
        let activation = self.rng.pick(ACTIVATIONS);
        let has_bias = self.rng.chance(0.75);
        let count = (units * depth) as usize;
        let (w, b, out) = if dtype == TensorType::INT8 {
            let (s_in, _) = self.q(x);
            let typical = f64::from(depth).sqrt() * 4096.0 / 90.0;
            let (s_w, s_out) = self.hunt(
                |r| {
                    let w = r.logu(2e-3, 5e-2) as f32;
                    if r.chance(0.7) {
                        product_pair(r, s_in, w, 1.0 / f64::from(depth).sqrt())
                    } else {
                        let o =
                            (f64::from(s_in) * f64::from(w) * typical * r.logu(0.3, 3.0)) as f32;
                        (w, o)
                    }
                },
                |(w, o)| score(&product_variants(s_in, w, o)),
            );
            let weights = self.weights(count, true);
            let w = self
                .m
                .tensor(TensorSpec::int8(&[units, depth], s_w, 0).constant_i8(&weights));
            self.maybe_int4(w);
            let b = if has_bias {
                let values: Vec<i32> = (0..units).map(|_| self.rng.int(-3000, 3000)).collect();
                self.m.tensor(
                    TensorSpec::int32(&[units])
                        .quant(s_in * s_w, 0)
                        .constant_i32(&values),
                )
            } else {
                -1
            };
            let zp = self.zero_point();
            let out = self.act(TensorType::INT8, &out_shape, Some((s_out, zp)));
            (w, b, out)
        } else if dtype == TensorType::INT16 {
            // 16x8: per-tensor int8 weights, an int64 bias, an int16 output (zero point 0).
            let (s_in, _) = self.q(x);
            let s_w = self.rng.logu(2e-3, 5e-2) as f32;
            let s_out = (f64::from(s_in)
                * f64::from(s_w)
                * f64::from(depth).sqrt()
                * 42.0
                * self.rng.logu(0.3, 3.0)) as f32;
            let weights = self.weights(count, true);
            let w = self
                .m
                .tensor(TensorSpec::int8(&[units, depth], s_w, 0).constant_i8(&weights));
            let b = if has_bias {
                let values: Vec<i64> = (0..units)
                    .map(|_| i64::from(self.rng.int(-300_000, 300_000)))
                    .collect();
                self.m.tensor(
                    TensorSpec::new(TensorType::INT64, &[units])
                        .quant(s_in * s_w, 0)
                        .constant_i64(&values),
                )
            } else {
                -1
            };
            let out = self.act(TensorType::INT16, &out_shape, Some((s_out, 0)));
            (w, b, out)
        } else {
            let (w, b) = self.f32_filter_and_bias(&[units, depth], units, has_bias);
            let out = self.act(TensorType::FLOAT32, &out_shape, None);
            (w, b, out)
        };
        let text = format!(
            "FULLY_CONNECTED in {} weights {} bias={has_bias} keep_num_dims={keep_num_dims} act={} -> {}",
            self.qtext(x),
            self.qtext(w),
            act_name(activation),
            self.qtext(out)
        );
        self.describe(text);
        let inputs = self.operands(&[x, w, b]);
        self.m.op(
            B::FULLY_CONNECTED,
            Options::FullyConnected {
                activation,
                weights_format: tinyaot_modelkit::WeightsFormat::DEFAULT,
                keep_num_dims,
            },
            &inputs,
            &[out],
        );
        out
    }

    fn quantize(&mut self, x: i32, out_q: (f32, i64)) -> i32 {
        let shape = self.shape(x);
        let in_type = self.dtype(x);
        // An int16 output (zero point 0) from int16 inputs half the time, else one time in four.
        let out_type = if self.rng.chance(if in_type == TensorType::INT16 {
            0.5
        } else {
            0.25
        }) {
            TensorType::INT16
        } else {
            TensorType::INT8
        };
        let zp = if out_type == TensorType::INT16 {
            0
        } else {
            out_q.1
        };
        let out_q = if matches!(in_type, TensorType::INT8 | TensorType::INT16) {
            let (s_in, _) = self.q(x);
            let s_out = self.hunt(|r| ratio_near(r, s_in), |o| score(&ratio_variants(s_in, o)));
            (s_out, zp)
        } else {
            (out_q.0, zp)
        };
        let out = self.act(out_type, &shape, Some(out_q));
        let text = format!("QUANTIZE {} -> {}", self.qtext(x), self.qtext(out));
        self.describe(text);
        self.m.op(B::QUANTIZE, Options::Quantize, &[x], &[out]);
        out
    }

    /// The other operand of a binary op over `s`: `(its shape, the output shape)`.
    fn broadcast_partner(&mut self, s: &[i32]) -> (Vec<i32>, Vec<i32>) {
        let mut other = Vec::with_capacity(s.len());
        let mut out = Vec::with_capacity(s.len());
        for &d in s {
            if d == 1 && self.rng.chance(0.2) {
                let e = self.rng.int(2, 3);
                other.push(e);
                out.push(e);
            } else if self.rng.chance(0.25) {
                other.push(1);
                out.push(d);
            } else {
                other.push(d);
                out.push(d);
            }
        }
        // Sometimes a lower-rank partner: leading dimensions dropped, if they do not widen the
        // output.
        let mut drop = 0;
        while drop < other.len() && other[drop] == 1 && self.rng.chance(0.4) {
            drop += 1;
        }
        (other[drop..].to_vec(), out)
    }

    fn binary(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let (other_shape, out_shape) = self.broadcast_partner(&s);
        let constant = self.rng.chance(0.3);
        let swap = self.rng.chance(0.3);
        let min_max = matches!(op, B::MAXIMUM | B::MINIMUM);
        let (y_q, out_q) = if dtype == TensorType::INT8 {
            let (s_x, z_x) = self.q(x);
            if min_max {
                ((s_x, z_x), (s_x, z_x))
            } else if op == B::PRELU {
                // alpha = (q - z) * s_alpha up to about ±1.3; the output near the input's scale.
                let z_y = self.zero_point();
                let z_o = self.zero_point();
                let (s_y, s_o) = self.hunt(
                    |r| {
                        let s_y = r.logu(1e-3, 5e-3) as f32;
                        (s_y, (f64::from(s_x) * r.logu(0.5, 2.0)) as f32)
                    },
                    |(s_y, s_o)| {
                        score(&ratio_variants(s_x, s_o))
                            .max(score(&product_variants(s_x, s_y, s_o)))
                    },
                );
                ((s_y, z_y), (s_o, z_o))
            } else {
                let z_y = self.zero_point();
                let z_o = self.zero_point();
                let (s_y, s_o) = self.hunt(
                    |r| {
                        let simple = r.chance(0.7);
                        let s_y = if simple {
                            let ratio = r.pick(&[0.5, 0.75, 1.5, 1.25, 2.0, 1.0, 0.625]);
                            near(f64::from(s_x), ratio, r.int(-2, 2))
                        } else {
                            (f64::from(s_x) * r.logu(0.2, 5.0)) as f32
                        };
                        if op == B::MUL && simple {
                            return product_pair(r, s_x, s_y, MUL_HINT);
                        }
                        let s_o = match (op == B::MUL, simple) {
                            (true, _) => {
                                (f64::from(s_x) * f64::from(s_y) * 128.0 * r.logu(0.3, 3.0)) as f32
                            }
                            (false, true) => {
                                let ratio = r.pick(&[2.0, 1.5, 1.0, 0.75, 0.5, 1.25]);
                                near(2.0 * f64::from(s_x.max(s_y)), ratio, r.int(-2, 2))
                            }
                            (false, false) => (f64::from(s_x.max(s_y)) * r.logu(0.7, 4.0)) as f32,
                        };
                        (s_y, s_o)
                    },
                    |(s_y, s_o)| {
                        if op == B::MUL {
                            score(&product_variants(s_x, s_y, s_o))
                        } else {
                            // ADD/SUB: inputs rescaled by s / (2 max), output by 2 max / (2^20 s_o).
                            let twice = 2.0 * s_x.max(s_y);
                            score(&ratio_variants(s_x, twice))
                                .max(score(&ratio_variants(s_y, twice)))
                                .max(score(&ratio_variants(twice, s_o * (1 << 20) as f32)))
                        }
                    },
                );
                ((s_y, z_y), (s_o, z_o))
            }
        } else if dtype == TensorType::INT16 {
            // The 16x8 scheme: zero points 0; MAXIMUM and MINIMUM compare raw values.
            let (s_x, _) = self.q(x);
            if min_max {
                ((s_x, 0), (s_x, 0))
            } else {
                let s_y = (f64::from(s_x) * self.rng.logu(0.2, 5.0)) as f32;
                let s_o = if op == B::MUL {
                    (f64::from(s_x) * f64::from(s_y) * self.rng.logu(3000.0, 60000.0)) as f32
                } else {
                    (f64::from(s_x.max(s_y)) * self.rng.logu(0.7, 4.0)) as f32
                };
                ((s_y, 0), (s_o, 0))
            }
        } else {
            ((0.0, 0), (0.0, 0))
        };
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let y = if constant {
            let n = elements(&other_shape) as usize;
            let t = if dtype == TensorType::INT8 {
                let v: Vec<i8> = (0..n).map(|_| self.rng.int(-128, 127) as i8).collect();
                TensorSpec::int8(&other_shape, y_q.0, y_q.1).constant_i8(&v)
            } else if dtype == TensorType::INT32 {
                TensorSpec::int32(&other_shape).constant(int32_values(self.rng, n))
            } else if dtype == TensorType::INT16 {
                let v: Vec<u8> = (0..n)
                    .flat_map(|_| (self.rng.next_u64() as i16).to_le_bytes())
                    .collect();
                TensorSpec::new(dtype, &other_shape)
                    .quant(y_q.0, 0)
                    .constant(v)
            } else if dtype == TensorType::INT64 {
                let v: Vec<i64> = (0..n).map(|_| self.rng.next_u64() as i64).collect();
                TensorSpec::new(dtype, &other_shape).constant_i64(&v)
            } else {
                let v: Vec<f32> = (0..n).map(|_| self.rng.sym(2.0)).collect();
                TensorSpec::f32(&other_shape).constant_f32(&v)
            };
            self.m.tensor(t)
        } else {
            self.input(dtype, &other_shape, quantized.then_some(y_q), 2.0)
        };
        let out = self.act(dtype, &out_shape, quantized.then_some(out_q));
        let activation = self.rng.pick(ACTIVATIONS);
        let options = match op {
            B::ADD => Options::Add { activation },
            B::SUB => Options::Sub { activation },
            B::MUL => Options::Mul { activation },
            B::PRELU => Options::None,
            _ => Options::MaximumMinimum,
        };
        // PRELU's alpha is its second input.
        let (a, b) = if swap && op != B::PRELU {
            (y, x)
        } else {
            (x, y)
        };
        // Now and then a quantized int32 tensor: TFLM's ADD refuses quantized inputs, SUB a
        // quantized input or output, MUL, MAXIMUM and MINIMUM read no quantization.
        if dtype == TensorType::INT32 && self.rng.chance(0.15) {
            let t = self.rng.pick(&[a, b, out]) as usize;
            self.m.tensors[t] = self.m.tensors[t].clone().quant(0.5, 3);
        }
        let text = format!(
            "{} {} {} {}{} act={} -> {}",
            op_name(op),
            self.qtext(a),
            self.qtext(b),
            if constant { "(other constant)" } else { "" },
            if swap { "(swapped)" } else { "" },
            if min_max { "-" } else { act_name(activation) },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, options, &[a, b], &[out]);
        out
    }

    fn curve(&mut self, op: B, x: i32) -> i32 {
        let dtype = self.dtype(x);
        let shape = self.shape(x);
        let quant = match (op, dtype) {
            // TFLM's int16 LOGISTIC, TANH and SOFTMAX write 1/32768 steps around 0.
            (_, TensorType::INT16) => (1.0 / 32768.0, 0),
            (B::TANH, _) => (1.0 / 128.0, 0),
            _ => (1.0 / 256.0, -128),
        };
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let out = self.act(dtype, &shape, quantized.then_some(quant));
        let options = if op == B::SOFTMAX {
            let beta = if self.rng.chance(0.5) {
                1.0
            } else {
                self.rng.logu(0.1, 3.0) as f32
            };
            Options::Softmax { beta }
        } else {
            Options::None
        };
        let text = format!(
            "{} {} {:?} -> {}",
            op_name(op),
            self.qtext(x),
            options,
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, options, &[x], &[out]);
        out
    }

    /// An element-wise math operator (TFLM's elementwise.cc) of `x`; int8 outputs get a scale
    /// that covers the function's range over the input's (`1 / sqrt` of its smallest nonzero
    /// value for RSQRT), up to 16 times wider, and a random zero point.
    fn math(&mut self, op: B, x: i32) -> i32 {
        let dtype = self.dtype(x);
        let shape = self.shape(x);
        let out_q = (dtype == TensorType::INT8).then(|| {
            let (s_in, z_in) = self.q(x);
            if op == B::ABS {
                // The same scale (no rescaling) now and then, else up to 4 times either way.
                let s_out = if self.rng.chance(0.3) {
                    s_in
                } else {
                    (f64::from(s_in) * self.rng.logu(0.25, 4.0)) as f32
                };
                let zp = if self.rng.chance(0.5) {
                    z_in
                } else {
                    self.zero_point()
                };
                return (s_out, zp);
            }
            let top = 1.0 / f64::from(s_in).sqrt();
            let s_out = (top * self.rng.logu(1.0, 16.0) / 255.0) as f32;
            let zp = if self.rng.chance(0.5) {
                -128
            } else {
                self.zero_point()
            };
            (s_out, zp)
        });
        let out = self.act(dtype, &shape, out_q);
        let text = format!("{} {} -> {}", op_name(op), self.qtext(x), self.qtext(out));
        self.describe(text);
        self.m.op(op, Options::None, &[x], &[out]);
        out
    }

    fn activation(&mut self, op: B, x: i32) -> i32 {
        let dtype = self.dtype(x);
        let shape = self.shape(x);
        let alpha = if self.rng.chance(0.3) {
            self.rng.pick(&[0.1f32, 0.2, 0.25, 0.3, 0.125, 0.5, 0.01])
        } else if self.rng.chance(0.8) {
            self.rng.logu(0.01, 0.9) as f32
        } else {
            self.rng.logu(1.1, 4.0) as f32
        };
        let out_q = if dtype == TensorType::INT8 {
            let (s_in, _) = self.q(x);
            let zp = self.zero_point();
            if op == B::RELU6 && self.rng.chance(0.7) {
                // TFLM's int8 RELU6 clamps raw values without rescaling.
                Some(self.q(x))
            } else {
                let s_out = self.hunt(
                    |r| ratio_near(r, s_in),
                    |o| {
                        let mut d = score(&ratio_variants(s_in, o));
                        if op == B::LEAKY_RELU {
                            d = d.max(score(&product_variants(alpha, s_in, o)));
                        }
                        d
                    },
                );
                Some((s_out, zp))
            }
        } else if dtype == TensorType::INT16 {
            let (s_in, _) = self.q(x);
            let s_out = if self.rng.chance(0.4) {
                s_in
            } else {
                self.hunt(|r| ratio_near(r, s_in), |o| score(&ratio_variants(s_in, o)))
            };
            Some((s_out, 0))
        } else {
            None
        };
        let out = self.act(dtype, &shape, out_q);
        let options = match op {
            B::LEAKY_RELU => Options::LeakyRelu { alpha },
            B::HARD_SWISH => Options::HardSwish,
            _ => Options::None,
        };
        let text = format!(
            "{} {} {} -> {}",
            op_name(op),
            self.qtext(x),
            if op == B::LEAKY_RELU {
                format!("alpha={alpha:e}")
            } else {
                String::new()
            },
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, options, &[x], &[out]);
        out
    }

    fn pad(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let mut pads = Vec::new();
        let mut out_shape = Vec::new();
        for &d in &s {
            let before = self.rng.int(0, 2);
            let after = self.rng.int(0, 2);
            pads.push(before);
            pads.push(after);
            out_shape.push(d + before + after);
        }
        let paddings = self.const_i32(&[s.len() as i32, 2], &pads);
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let mut inputs = vec![x, paddings];
        let mut value_text = String::new();
        if op == B::PADV2 {
            let shape: &[i32] = if self.rng.chance(0.5) { &[1] } else { &[] };
            let t = if let Some((sc, zp)) = quant {
                let v = self.rng.int(-128, 127) as i8;
                value_text = format!("value={v}");
                TensorSpec::int8(shape, sc, zp).constant_i8(&[v])
            } else if dtype == TensorType::INT16 {
                let v = self.rng.int(-32768, 32767) as i16;
                value_text = format!("value={v}");
                let (sc, _) = self.q(x);
                TensorSpec::new(dtype, shape)
                    .quant(sc, 0)
                    .constant(v.to_le_bytes().to_vec())
            } else if dtype == TensorType::INT32 {
                let v = self.rng.int(-100_000, 100_000);
                value_text = format!("value={v}");
                TensorSpec::new(dtype, shape).constant_i32(&[v])
            } else {
                let v = self.rng.sym(2.0);
                value_text = format!("value={v}");
                TensorSpec::f32(shape).constant_f32(&[v])
            };
            inputs.push(self.m.tensor(t));
        }
        let text = format!(
            "{} {} paddings={pads:?} {value_text} -> {}",
            op_name(op),
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        let options = if op == B::PAD {
            Options::Pad
        } else {
            Options::PadV2
        };
        self.m.op(op, options, &inputs, &[out]);
        out
    }

    /// ARG_MAX or ARG_MIN of `x` along a random axis (sometimes given as negative).
    fn arg_min_max(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let rank = s.len();
        let a = self.rng.range(0, rank as i64 - 1) as usize;
        let value = if self.rng.chance(0.3) {
            a as i32 - rank as i32
        } else {
            a as i32
        };
        let axis = self.const_i32(&[1], &[value]);
        let mut out_shape = s.clone();
        out_shape.remove(a);
        let out = self.m.tensor(TensorSpec::int32(&out_shape));
        self.describe(format!("{} axis {value} of {s:?}", op_name(op)));
        self.m.op(op, Options::None, &[x, axis], &[out]);
        out
    }

    fn mean(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let rank = s.len();
        let dtype = self.dtype(x);
        let mut axes: Vec<usize> = self
            .rng
            .permutation(rank)
            .into_iter()
            .take(self.rng.range(1, rank as i64) as usize)
            .collect();
        if rank == 4 && self.rng.chance(0.4) {
            axes = vec![1, 2];
        }
        let keep_dims = self.rng.chance(0.5);
        let out_shape: Vec<i32> = s
            .iter()
            .enumerate()
            .filter_map(|(i, &d)| {
                if axes.contains(&i) {
                    keep_dims.then_some(1)
                } else {
                    Some(d)
                }
            })
            .collect();
        let axis_values: Vec<i32> = axes
            .iter()
            .map(|&a| {
                if self.rng.chance(0.2) {
                    a as i32 - rank as i32
                } else {
                    a as i32
                }
            })
            .collect();
        let axis = self.const_i32(&[axis_values.len() as i32], &axis_values);
        let quant = if dtype == TensorType::INT8 {
            let (s_in, _) = self.q(x);
            let zp = self.zero_point();
            let same = self.rng.chance(0.3);
            let s_out = if same {
                s_in
            } else {
                self.hunt(|r| ratio_near(r, s_in), |o| score(&ratio_variants(s_in, o)))
            };
            Some((s_out, if same { self.q(x).1 } else { zp }))
        } else if dtype == TensorType::INT16 {
            let (s_in, _) = self.q(x);
            let s_out = if self.rng.chance(0.3) {
                s_in
            } else {
                self.hunt(|r| ratio_near(r, s_in), |o| score(&ratio_variants(s_in, o)))
            };
            Some((s_out, 0))
        } else {
            None
        };
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "MEAN {} axes={axis_values:?} keep_dims={keep_dims} -> {}",
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m
            .op(B::MEAN, Options::Reducer { keep_dims }, &[x, axis], &[out]);
        out
    }

    fn concat(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let rank = s.len() as i32;
        let dtype = self.dtype(x);
        let axis = self.rng.int(0, rank - 1);
        let others = self.rng.int(1, 2);
        let same_quant = self.rng.chance(0.8);
        let mut inputs = vec![x];
        let mut total = s[axis as usize];
        for _ in 0..others {
            let mut shape = s.clone();
            shape[axis as usize] = self.rng.int(1, 3);
            total += shape[axis as usize];
            let quant = (dtype == TensorType::INT8 && same_quant).then(|| self.q(x));
            let t = self.input(dtype, &shape, quant, 1.0);
            inputs.push(t);
        }
        let position = self.rng.int(0, others);
        inputs.swap(0, position as usize);
        let mut out_shape = s.clone();
        out_shape[axis as usize] = total;
        let quant = (dtype == TensorType::INT8 && same_quant).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let written_axis = if self.rng.chance(0.3) {
            axis - rank
        } else {
            axis
        };
        let activation = if self.rng.chance(0.1) {
            self.rng.pick(ACTIVATIONS)
        } else {
            Activation::NONE
        };
        let text = format!(
            "CONCATENATION axis={written_axis} act={} [{}] -> {}",
            act_name(activation),
            inputs
                .iter()
                .map(|&t| self.qtext(t))
                .collect::<Vec<_>>()
                .join(", "),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            B::CONCATENATION,
            Options::Concatenation {
                axis: written_axis,
                activation,
            },
            &inputs,
            &[out],
        );
        out
    }

    /// PACK of `x` and one to three more inputs of its shape (quantized alike or not: TFLM's
    /// PACK copies bytes), along a new axis anywhere, written negative at times.
    fn pack(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let rank = s.len() as i32;
        let dtype = self.dtype(x);
        let axis = self.rng.int(0, rank);
        let others = self.rng.int(1, 3);
        let mut inputs = vec![x];
        for _ in 0..others {
            let quant = (dtype == TensorType::INT8 && self.rng.chance(0.7)).then(|| self.q(x));
            inputs.push(self.input(dtype, &s, quant, 1.0));
        }
        let position = self.rng.int(0, others);
        inputs.swap(0, position as usize);
        let mut out_shape = s.clone();
        out_shape.insert(axis as usize, others + 1);
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let written_axis = if self.rng.chance(0.3) {
            axis - (rank + 1)
        } else {
            axis
        };
        let text = format!(
            "PACK axis={written_axis} [{}] -> {}",
            inputs
                .iter()
                .map(|&t| self.qtext(t))
                .collect::<Vec<_>>()
                .join(", "),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            B::PACK,
            Options::Pack {
                values_count: others + 1,
                axis: written_axis,
            },
            &inputs,
            &[out],
        );
        out
    }

    /// SPLIT (the axis a constant input before the data, equal parts) or SPLIT_V (sizes, one of
    /// them -1 now and then, the axis after the data) of `x` into 1 to 4 outputs along a random
    /// axis, written negative at times; the case goes on with one of the outputs, the others are
    /// computed and left unread.
    fn split(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let rank = s.len() as i32;
        let dtype = self.dtype(x);
        let axis = self.rng.int(-rank, rank - 1);
        let a = if axis < 0 { axis + rank } else { axis } as usize;
        let d = s[a];
        let sizes: Vec<i32> = if op == B::SPLIT {
            let divisors: Vec<i32> = (1..=4).filter(|n| d % n == 0).collect();
            let n = self.rng.pick(&divisors);
            vec![d / n; n as usize]
        } else {
            let mut left = d;
            let mut sizes = Vec::new();
            while left > 0 && sizes.len() < 3 {
                let part = self.rng.int(1, left);
                sizes.push(part);
                left -= part;
            }
            if left > 0 {
                sizes.push(left);
            }
            if sizes.len() > 1 && self.rng.chance(0.3) {
                let i = self.rng.int(0, sizes.len() as i32 - 1) as usize;
                sizes[i] = -1;
            }
            sizes
        };
        let axis_t = self.const_i32(&[], &[axis]);
        let num_splits = sizes.len() as i32;
        let inputs = if op == B::SPLIT {
            vec![axis_t, x]
        } else {
            let sizes_t = self.const_i32(&[num_splits], &sizes);
            vec![x, sizes_t, axis_t]
        };
        let total: i32 = sizes.iter().filter(|&&size| size >= 0).sum();
        let quantized = matches!(dtype, TensorType::INT8 | TensorType::INT16);
        let quant = quantized.then(|| self.q(x));
        let outputs: Vec<i32> = sizes
            .iter()
            .map(|&size| {
                let mut shape = s.clone();
                shape[a] = if size < 0 { d - total } else { size };
                self.act(dtype, &shape, quant)
            })
            .collect();
        let text = format!(
            "{} {} axis={axis} sizes={sizes:?} -> [{}]",
            op_name(op),
            self.qtext(x),
            outputs
                .iter()
                .map(|&t| self.qtext(t))
                .collect::<Vec<_>>()
                .join(", ")
        );
        self.describe(text);
        let options = if op == B::SPLIT {
            Options::Split { num_splits }
        } else {
            Options::SplitV { num_splits }
        };
        self.m.op(op, options, &inputs, &outputs);
        let pick = self.rng.int(0, num_splits - 1) as usize;
        outputs[pick]
    }

    fn transpose(&mut self, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let perm = self.rng.permutation(s.len());
        let out_shape: Vec<i32> = perm.iter().map(|&p| s[p]).collect();
        let perm_values: Vec<i32> = perm.iter().map(|&p| p as i32).collect();
        let p = self.const_i32(&[perm.len() as i32], &perm_values);
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "TRANSPOSE {} perm={perm_values:?} -> {}",
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(B::TRANSPOSE, Options::Transpose, &[x, p], &[out]);
        out
    }

    fn strided_slice(&mut self, x: i32, _fresh: bool) -> Option<i32> {
        let s = self.shape(x);
        let rank = s.len();
        let dtype = self.dtype(x);
        for _ in 0..20 {
            let mut begin = Vec::new();
            let mut end = Vec::new();
            let mut strides = Vec::new();
            let (mut begin_mask, mut end_mask, mut shrink) = (0i32, 0i32, 0i32);
            let mut out_shape = Vec::new();
            let mut ok = true;
            for (d, &n) in s.iter().enumerate() {
                let stride = match self.rng.unit() {
                    u if u < 0.7 => 1,
                    u if u < 0.85 => 2,
                    _ => -1,
                };
                let b = self.rng.int(-n, n - 1);
                let e = self.rng.int(-n, n);
                if self.rng.chance(0.2) {
                    begin_mask |= 1 << d;
                }
                if self.rng.chance(0.2) {
                    end_mask |= 1 << d;
                }
                let shrink_axis = stride > 0 && self.rng.chance(0.1);
                if shrink_axis {
                    shrink |= 1 << d;
                }
                begin.push(b);
                end.push(e);
                strides.push(stride);
                // TFLM's strided_slice_logic.h, StartForAxis / StopForAxis (offset false).
                let mut start = if begin_mask & (1 << d) != 0 {
                    if stride > 0 {
                        i32::MIN
                    } else {
                        i32::MAX
                    }
                } else {
                    b
                };
                if start < 0 {
                    start = start.saturating_add(n);
                }
                start = if stride > 0 {
                    start.clamp(0, n)
                } else {
                    start.clamp(-1, n - 1)
                };
                let stop = if shrink_axis {
                    start + 1
                } else {
                    let mut stop = if end_mask & (1 << d) != 0 {
                        if stride > 0 {
                            i32::MAX
                        } else {
                            i32::MIN
                        }
                    } else {
                        e
                    };
                    if stop < 0 {
                        stop = stop.saturating_add(n);
                    }
                    if stride > 0 {
                        stop.clamp(0, n)
                    } else {
                        stop.clamp(-1, n - 1)
                    }
                };
                let len = if stride > 0 {
                    if stop > start {
                        (stop - start + stride - 1) / stride
                    } else {
                        0
                    }
                } else if start > stop {
                    (start - stop - stride - 1) / -stride
                } else {
                    0
                };
                if len < 1 || (shrink_axis && len != 1) {
                    ok = false;
                }
                if !shrink_axis {
                    out_shape.push(len);
                }
            }
            if !ok {
                continue;
            }
            let r = rank as i32;
            let tb = self.const_i32(&[r], &begin);
            let te = self.const_i32(&[r], &end);
            let ts = self.const_i32(&[r], &strides);
            let quant = (dtype == TensorType::INT8).then(|| self.q(x));
            let out = self.act(dtype, &out_shape, quant);
            let text = format!(
                "STRIDED_SLICE {} begin={begin:?} end={end:?} strides={strides:?} begin_mask={begin_mask} end_mask={end_mask} shrink={shrink} -> {}",
                self.qtext(x),
                self.qtext(out)
            );
            self.describe(text);
            self.m.op(
                B::STRIDED_SLICE,
                Options::StridedSlice {
                    begin_mask,
                    end_mask,
                    ellipsis_mask: 0,
                    new_axis_mask: 0,
                    shrink_axis_mask: shrink,
                    offset: false,
                },
                &[x, tb, te, ts],
                &[out],
            );
            return Some(out);
        }
        None
    }

    fn reshape_like(&mut self, op: B, x: i32) -> i32 {
        let s = self.shape(x);
        let dtype = self.dtype(x);
        let quant = (dtype == TensorType::INT8).then(|| self.q(x));
        let (out_shape, inputs, options, text) = match op {
            B::RESHAPE => {
                // Factor the element count into up to 4 dimensions.
                let mut left = elements(&s) as i32;
                let rank = self.rng.int(1, 4);
                let mut shape = Vec::new();
                for _ in 1..rank {
                    let divisors: Vec<i32> = (1..=left).filter(|d| left % d == 0).collect();
                    let d = self.rng.pick(&divisors);
                    shape.push(d);
                    left /= d;
                }
                shape.push(left);
                let mut written = shape.clone();
                if self.rng.chance(0.3) {
                    let i = self.rng.int(0, rank - 1) as usize;
                    written[i] = -1;
                }
                let (inputs, options) = match self.rng.int(0, 2) {
                    0 => (
                        vec![x],
                        Options::Reshape {
                            new_shape: Some(written.clone()),
                        },
                    ),
                    1 => {
                        let t = self.const_i32(&[rank], &written);
                        (vec![x, t], Options::Reshape { new_shape: None })
                    }
                    _ => {
                        let t = self.const_i32(&[rank], &written);
                        (
                            vec![x, t],
                            Options::Reshape {
                                new_shape: Some(written.clone()),
                            },
                        )
                    }
                };
                (shape, inputs, options, format!("new_shape={written:?}"))
            }
            B::SQUEEZE => {
                let ones: Vec<usize> = (0..s.len()).filter(|&i| s[i] == 1).collect();
                let dims: Vec<usize> = if self.rng.chance(0.4) {
                    Vec::new()
                } else {
                    let k = self.rng.range(1, ones.len() as i64) as usize;
                    let order = self.rng.permutation(ones.len());
                    order.into_iter().take(k).map(|i| ones[i]).collect()
                };
                let squeezed: Vec<usize> = if dims.is_empty() { ones } else { dims.clone() };
                let shape: Vec<i32> = (0..s.len())
                    .filter(|i| !squeezed.contains(i))
                    .map(|i| s[i])
                    .collect();
                let written: Vec<i32> = dims
                    .iter()
                    .map(|&d| {
                        if self.rng.chance(0.3) {
                            d as i32 - s.len() as i32
                        } else {
                            d as i32
                        }
                    })
                    .collect();
                (
                    shape,
                    vec![x],
                    Options::Squeeze {
                        squeeze_dims: written.clone(),
                    },
                    format!("squeeze_dims={written:?}"),
                )
            }
            _ => {
                let r = s.len() as i32;
                let axis = self.rng.int(-(r + 1), r);
                let at = if axis < 0 { axis + r + 1 } else { axis } as usize;
                let mut shape = s.clone();
                shape.insert(at, 1);
                let axis_shape: &[i32] = if self.rng.chance(0.5) { &[1] } else { &[] };
                let t = self.const_i32(axis_shape, &[axis]);
                (
                    shape,
                    vec![x, t],
                    Options::ExpandDims,
                    format!("axis={axis}"),
                )
            }
        };
        let out = self.act(dtype, &out_shape, quant);
        let text = format!(
            "{} {} {text} -> {}",
            op_name(op),
            self.qtext(x),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(op, options, &inputs, &[out]);
        out
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

/// An output scale for input scale `s_in` that makes `s_in / s_out` a simple ratio in one precision
/// and not the other (70 %), or a random one.
fn ratio_near(r: &mut Rng, s_in: f32) -> f32 {
    if r.chance(0.7) {
        let ratio = r.pick(SIMPLE);
        near(f64::from(s_in), ratio, r.int(-2, 2))
    } else {
        (f64::from(s_in) * r.logu(0.3, 3.0)) as f32
    }
}

/// A second scale and an output scale making `s_in × s_w / s_out` exactly a simple ratio (see
/// [`SIMPLE`]) in one way of computing it and not in the other:
/// - the product rounded to f32 is exactly `s_out × r`, the exact product is not (a backend that
///   rounds the product to f32 sees exact ties, one that does not sees values beside them);
/// - the exact product is `s_out × r` (`s_w = 3 × 2^a`, `s_out = s_in × 2^b`), its f32 rounding
///   is not.
///
/// Falls back to a near-simple output scale for the given `s_w` when neither construction works.
///
/// `hint` is the wanted size of the ratio (outputs of tens of LSB for typical accumulators): the
/// ratio is 3, 5 or 7 × 2^-k nearest to it.
fn product_pair(r: &mut Rng, s_in: f32, s_w: f32, hint: f64) -> (f32, f32) {
    let numerator = r.pick(&[3.0, 3.0, 5.0, 7.0]);
    let ratio = numerator * 2f64.powi((hint / numerator).log2().round() as i32);
    if r.chance(0.5) {
        // The f32 product is exact: s_out with 20 significant bits so that s_out × ratio (3, 5 or
        // 7 × 2^-k) is an f32, then s_w such that f32(s_in × s_w) hits it.
        let s_out0 = (f64::from(s_in) * f64::from(s_w) / ratio) as f32;
        let s_out = f32::from_bits(s_out0.to_bits() & !0xF);
        let target = s_out * ratio as f32;
        let guess = (f64::from(target) / f64::from(s_in)) as f32;
        for k in -6i32..=6 {
            let w = f32::from_bits((guess.to_bits() as i32 + k) as u32);
            let exact = f64::from(s_in) * f64::from(w);
            if s_in * w == target && exact != f64::from(target) && w.is_normal() {
                return (w, s_out);
            }
        }
    } else {
        // The exact product is s_out × ratio: ratio = 3 × 2^-k in ACC/MUL lists, so with
        // s_w = 3 × 2^a, s_out = s_in × 2^(a + k) holds exactly in f64; f32(s_in × s_w) rounds.
        let odd = (ratio * 2f64.powi(20)).round() as i64;
        let k = odd.trailing_zeros() as i32;
        let numerator = odd >> k; // 3, 5 or 7
        let a = (f64::from(s_w) / numerator as f64).log2().round() as i32;
        let w = (numerator as f64 * 2f64.powi(a)) as f32;
        let s_out = (f64::from(s_in) * 2f64.powi(a + 20 - k)) as f32;
        let exact = f64::from(s_in) * f64::from(w) / f64::from(s_out);
        if exact == ratio && w.is_normal() && s_out.is_normal() {
            return (w, s_out);
        }
    }
    let product = f64::from(s_in * s_w);
    (s_w, near(product, ratio, r.int(-2, 2)))
}

fn x_is_fresh(rank: Option<usize>) -> bool {
    rank.is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::difftest::quant::quantize_multiplier;

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

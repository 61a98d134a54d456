//! Structure-aware model generation for fuzzing the whole pipeline (feature `arbitrary`).
//!
//! [`arbitrary_model`] turns fuzzer bytes into a [`ModelSpec`]. Byte-level fuzzing of a `.tflite`
//! rarely gets past the FlatBuffer verifier, and almost never past the loader's consistency
//! checks; generating the *structure* instead means most inputs load, and reach lowering, planning
//! and emission. The generator therefore builds mostly well-typed chains of 1–6 operators over
//! the operators tinyaot lowers (int8 with quantization, or float32, with now and then an int32
//! ADD, SUB, MUL, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE or DIV on a side branch; small
//! dimensions), and then applies a few corruptions drawn from the ways real-world hostile or
//! broken models go wrong: wrong arity, mismatched shapes, degenerate scales and zero points, bad
//! options, dangling or self-referencing indices, variable tensors, constants as outputs, a
//! non-empty buffer 0.
//!
//! The mapping is deterministic, so a crash input replays as the same model:
//! `arbitrary_model(&mut Unstructured::new(bytes))`. Running out of bytes is not an error: every
//! choice then takes its first (simplest) option.
//!
//! The entry points, the generator's state and the list of operator families are here; the
//! generator's primitives (choices, tensors, weights) are in `fuzz/tensors.rs`, the dispatch over
//! [`ops`] in `fuzz/emit.rs`, each operator's builder in its family's file with the family's table
//! (`conv.rs`: convolutions, TRANSPOSE_CONV, pools, FULLY_CONNECTED, BATCH_MATMUL; `arithmetic.rs`: binary
//! element-wise and ADD_N; `logic.rs`: comparisons and logical operators on a side branch;
//! `unary.rs`: single-input element-wise; `movement.rs`; `reduce.rs`; `resample.rs`; `split.rs`;
//! `ops_tensor.rs`; `lookup_update.rs`; `recurrent.rs`: SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM;
//! `control.rs`: IF, its branches
//! subgraphs drawn the same way, and WHILE, its body too; `resource.rs`: resource variables and
//! CALL_ONCE; `decode.rs`: the custom TFLM_DECODE with hostile compressed data), and the
//! corruptions in `corrupt.rs`.

mod corrupt;
mod emit;
mod tensors;

// The family files, each with the table of the operators it draws (its `OPS`: operator and
// generator); [`ops`] concatenates them. A new operator of a family is one entry in its family's
// table; a new family is one more name here.
macro_rules! families {
    ($($family:ident),* $(,)?) => {
        $(mod $family;)*

        /// Every family's table.
        const FAMILIES: &[&[FuzzOp]] = &[$($family::OPS),*];
    };
}

families!(
    arithmetic,
    control,
    conv,
    decode,
    logic,
    lookup_update,
    movement,
    ops_tensor,
    recurrent,
    reduce,
    resample,
    resource,
    split,
    unary,
);

use std::sync::LazyLock;

use arbitrary::Unstructured;

use crate::{BuiltinOperator as B, ModelSpec};

/// The model `bytes` describe (see [`arbitrary_model`]).
pub fn model_from_bytes(bytes: &[u8]) -> ModelSpec {
    arbitrary_model(&mut Unstructured::new(bytes))
}

/// A model drawn from `u`: a chain of 1–6 operators, usually well-typed, sometimes corrupted.
pub fn arbitrary_model(u: &mut Unstructured<'_>) -> ModelSpec {
    let mut g = Gen {
        u,
        m: ModelSpec::new(),
        int8: true,
        values: Vec::new(),
        wide: false,
    };
    g.int8 = g.chance(70);
    let ops = g.int(1, 6);
    let first = g.new_input();
    g.values.push(first);
    for _ in 0..ops {
        g.one_op();
    }
    // The graph outputs: the last value, sometimes another one too.
    if let Some(&last) = g.values.last() {
        g.m.outputs.push(last.index);
    }
    if g.values.len() > 2 && g.chance(20) {
        // Another operator output (never the first value: that is a graph input).
        let i = 1 + g.index(g.values.len() - 1);
        let v = g.values[i];
        if !g.m.outputs.contains(&v.index) {
            g.m.outputs.push(v.index);
        }
    }
    let corruptions = match g.int(0, 9) {
        0..=3 => 0,
        4..=7 => 1,
        8 => 2,
        _ => 4,
    };
    for _ in 0..corruptions {
        g.corrupt();
    }
    g.m
}

/// The overlap model `bytes` describe (see [`overlap_model`]).
pub fn overlap_model_from_bytes(bytes: &[u8]) -> ModelSpec {
    overlap_model(&mut Unstructured::new(bytes))
}

/// A model drawn from `u` for the overlap tests of `tests/parity`: a chain of 1–4 operators,
/// never corrupted, whose kernels declare access contracts (codegen/src/lower/access.rs):
/// convolutions (windows up to 3×3, strides 1–2, SAME or VALID, now and then dilated), 1×1
/// convolutions, FULLY_CONNECTED, depthwise convolutions (depth multiplier 1 or 2), the binary
/// element-wise family, the activations, QUANTIZE and CONCATENATION. Its images are larger than
/// [`arbitrary_model`]'s (up to 11×11 pixels of up to 40 channels, up to 3 batches, odd sizes
/// among them) and its channel counts chosen to reach every variant of those kernels: input
/// channels in whole words or not, output channels in blocks of four (up to 16) or not, and
/// single rows of 32 channels and more into FULLY_CONNECTED. Mostly int8, now and then float32;
/// now and then the element-wise op is an int32 side branch.
pub fn overlap_model(u: &mut Unstructured<'_>) -> ModelSpec {
    let mut g = Gen {
        u,
        m: ModelSpec::new(),
        int8: true,
        values: Vec::new(),
        wide: true,
    };
    g.int8 = g.chance(85);
    let sides = [1, 1, 2, 3, 4, 5, 7, 8, 11];
    let channels = [1, 2, 3, 4, 5, 7, 8, 12, 16, 33, 36, 40];
    let batches = if g.chance(75) { 1 } else { g.int(2, 3) };
    let shape = [batches, g.pick(&sides), g.pick(&sides), g.pick(&channels)];
    let first = g.input(&shape);
    g.values.push(first);
    for _ in 0..g.int(1, 4) {
        match g.int(0, 10) {
            0..=2 => g.image_op(B::CONV_2D, false),
            3 => g.image_op(B::CONV_2D, true),
            4 => {
                // Half the time a single row of whole words: the widened product.
                let v = if g.chance(50) {
                    let depth = g.pick(&[32, 36, 40, 48]);
                    g.input(&[1, depth])
                } else {
                    g.latest()
                };
                g.fully_connected(v);
            }
            5 | 6 => g.image_op(B::DEPTHWISE_CONV_2D, false),
            7 => {
                let op = g.pick(&[
                    B::ADD,
                    B::SUB,
                    B::MUL,
                    B::MAXIMUM,
                    B::MINIMUM,
                    B::PRELU,
                    B::SQUARED_DIFFERENCE,
                    B::DIV,
                    // FLOOR_DIV and FLOOR_MOD take float32 only.
                    if g.int8 { B::DIV } else { B::FLOOR_DIV },
                    if g.int8 { B::DIV } else { B::FLOOR_MOD },
                ]);
                g.binary(op);
            }
            // Whole rows of its output when the axis is the first (or only ones precede it).
            10 => g.emit(B::CONCATENATION),
            _ => {
                // FLOOR takes float32 only.
                let op = g.pick(&[
                    B::RELU,
                    B::RELU6,
                    B::LEAKY_RELU,
                    B::HARD_SWISH,
                    B::QUANTIZE,
                    B::RSQRT,
                    if g.int8 { B::RELU } else { B::FLOOR },
                    B::ELU,
                    // EXP and LOG take float32 only.
                    if g.int8 { B::ELU } else { B::EXP },
                    if g.int8 { B::ELU } else { B::LOG },
                    // SIN and COS take float32 only.
                    if g.int8 { B::ELU } else { B::SIN },
                    if g.int8 { B::ELU } else { B::COS },
                    B::LOG_SOFTMAX,
                    // CEIL, ROUND and L2_POOL_2D take float32 only.
                    if g.int8 { B::RELU6 } else { B::CEIL },
                    if g.int8 { B::RELU6 } else { B::ROUND },
                    if g.int8 {
                        B::MAX_POOL_2D
                    } else {
                        B::L2_POOL_2D
                    },
                    B::L2_NORMALIZATION,
                    B::BATCH_MATMUL,
                ]);
                g.emit(op);
            }
        }
    }
    if let Some(&last) = g.values.last() {
        g.m.outputs.push(last.index);
    }
    g.m
}

/// A tensor the chain can feed into the next operator.
#[derive(Clone, Copy, Debug)]
struct Value {
    index: i32,
}

struct Gen<'u, 'b> {
    u: &'u mut Unstructured<'b>,
    m: ModelSpec,
    /// The model's flavour: int8 with quantization, or float32.
    int8: bool,
    /// Non-constant tensors produced so far (graph inputs and operator outputs).
    values: Vec<Value>,
    /// [`overlap_model`]'s wider channel counts for convolutions and FULLY_CONNECTED.
    wide: bool,
}

/// One operator the generator draws: an entry of its family file's `OPS` table.
#[derive(Clone, Copy)]
struct FuzzOp {
    /// The operator (`CUSTOM` for a custom one).
    op: B,
    /// A custom operator's code, as TFLM's resolver matches it.
    custom: Option<&'static str>,
    /// Appends it to the chain (reading the latest value, mostly), its shapes and options drawn.
    emit: fn(&mut Gen<'_, '_>, B),
}

impl FuzzOp {
    /// `op`, appended by `emit`.
    const fn new(op: B, emit: fn(&mut Gen<'_, '_>, B)) -> Self {
        FuzzOp {
            op,
            custom: None,
            emit,
        }
    }

    /// The custom operator `code`, appended by `emit`.
    const fn custom(code: &'static str, emit: fn(&mut Gen<'_, '_>, B)) -> Self {
        FuzzOp {
            op: B::CUSTOM,
            custom: Some(code),
            emit,
        }
    }
}

/// Every family's entries, in byte order of the operators' names (a model draws its operators by
/// position, so the order the families are listed in is no part of it).
fn table() -> &'static [FuzzOp] {
    static TABLE: LazyLock<Vec<FuzzOp>> = LazyLock::new(|| {
        let mut table: Vec<FuzzOp> = FAMILIES.iter().flat_map(|f| f.iter().copied()).collect();
        table.sort_by_key(|e| (e.op.variant_name(), e.custom));
        table
    });
    &TABLE
}

/// The builtin operators of tinyaot's registry the generator draws, every family file's (xtask's
/// `ops` test checks them against the registry).
pub fn ops() -> &'static [B] {
    static OPS: LazyLock<Vec<B>> = LazyLock::new(|| {
        table()
            .iter()
            .filter(|e| e.custom.is_none())
            .map(|e| e.op)
            .collect()
    });
    &OPS
}

/// The custom operators of tinyaot's registry the generator draws, by their codes.
pub fn custom_ops() -> Vec<&'static str> {
    table().iter().filter_map(|e| e.custom).collect()
}

/// Operators tinyaot does not lower (refused with UnsupportedOp), drawn now and then.
pub const UNSUPPORTED: &[B] = &[B::TOPK_V2, B::CUSTOM];

/// Elements of `shape` (negative dimensions count as 0), saturating at a bound the generator never
/// reaches with valid shapes.
fn elements(shape: &[i32]) -> usize {
    shape
        .iter()
        .map(|&d| usize::try_from(d).unwrap_or(0))
        .fold(1usize, |a, d| a.saturating_mul(d))
        .min(1 << 16)
}

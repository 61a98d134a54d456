//! The hostile-model suite: crafted models, each with the outcome tinyaot must give.
//!
//! Every case is a `.tflite` built here (no external data), in one of the [`Category`]s, with its
//! [`Expect`]ed outcome: refused with an error of a given kind whose message mentions the problem,
//! or accepted. `codegen/tests/hostile.rs` runs every case through both backends (and checks that
//! no case ever yields an internal error). The accepted cases are also committed with TFLM goldens
//! in `tests/fixtures/hostile` (its `generate.sh`), where the conformance tests check them bit for
//! bit in Rust and in C; so "accepted" means "bit-exact with TFLM".
//!
//! Each case names the defect it guards against; keep them small (a handful of tensors), so the
//! whole suite runs in well under a second.

mod int4;
mod registry_types;

use crate::{
    Activation, BufferSpec, BuiltinOperator as B, ModelSpec, OpCodeSpec, Options, Padding,
    TensorSpec, TensorType,
};

/// What part of a model a case attacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// The file itself: truncation, identifier, version, subgraphs, indices, buffers, types.
    Structure,
    /// The data flow: reads before writes, self-reads, missing or doubled writers.
    Graph,
    /// Scales, zero points and the multipliers derived from them.
    Quantization,
    /// Operator arity, element types, shapes and options.
    TypesAndParameters,
    /// Sizes beyond the configured limits or the target's address space.
    ResourceLimits,
    /// Unusual but legitimate models, which must be accepted (and match TFLM).
    LegitimateCorners,
}

/// The kind of refusal, mirroring `tinyaot_codegen::Error`'s variants by family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A loader error: truncated, corrupt, wrong identifier or version, subgraph count, index
    /// out of range, unsupported element type, dynamic shape, size overflow.
    Load,
    /// `Error::InvalidModel`: TFLM refuses it, or its result there is undefined.
    Invalid,
    /// `Error::UnsupportedOpUse`: a valid use tinyaot does not compile.
    Unsupported,
    /// `Error::UnsupportedOp`: an operator tinyaot does not compile.
    UnsupportedOp,
    /// `Error::Limit`: a configured resource limit.
    Limit,
}

/// The outcome a case must have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Refused with this kind of error, the message containing the text.
    Refused(Refusal, &'static str),
    /// Compiled by both backends (and bit-exact with TFLM).
    Accepted,
}

/// One crafted model and its expected outcome.
#[derive(Clone, Debug)]
pub struct Case {
    /// A short unique name (also the file stem when written out).
    pub name: String,
    /// What it attacks.
    pub category: Category,
    /// The `.tflite` bytes.
    pub model: Vec<u8>,
    /// What tinyaot must do with it.
    pub expect: Expect,
}

// ---------------------------------------------------------------------------------------------
// Base models

/// One int8 operator `[1, 8] → [1, 8]` with the given input and output quantization.
fn unary8(op: B, options: Options, input: (f32, i64), output: (f32, i64)) -> ModelSpec {
    unary8_shaped(&[1, 8], op, options, input, output)
}

/// The same over `shape` (the divergent-scale cases take 1,024 elements, so that random inputs
/// reach the values where a 1-LSB multiplier error shows).
fn unary8_shaped(
    shape: &[i32],
    op: B,
    options: Options,
    input: (f32, i64),
    output: (f32, i64),
) -> ModelSpec {
    ModelSpec::single_op(
        op,
        options,
        vec![TensorSpec::int8(shape, input.0, input.1)],
        vec![TensorSpec::int8(shape, output.0, output.1)],
    )
}

/// An int16 tensor of `shape` with the given quantization.
fn int16(shape: &[i32], (scale, zero_point): (f32, i64)) -> TensorSpec {
    TensorSpec::new(TensorType::INT16, shape).quant(scale, zero_point)
}

/// One int16 operator over `shape` with the given input and output quantization.
fn unary16(shape: &[i32], op: B, input: (f32, i64), output: (f32, i64)) -> ModelSpec {
    ModelSpec::single_op(
        op,
        Options::default_for(op),
        vec![int16(shape, input)],
        vec![int16(shape, output)],
    )
}

fn relu8(input: (f32, i64), output: (f32, i64)) -> ModelSpec {
    unary8(B::RELU, Options::None, input, output)
}

/// ADD / SUB / MUL of two int8 `[1, 4]` tensors.
fn binary8(op: B, a: (f32, i64), b: (f32, i64), out: (f32, i64)) -> ModelSpec {
    binary8_shaped(&[1, 4], op, a, b, out)
}

/// The same over `shape`.
fn binary8_shaped(
    shape: &[i32],
    op: B,
    a: (f32, i64),
    b: (f32, i64),
    out: (f32, i64),
) -> ModelSpec {
    ModelSpec::single_op(
        op,
        Options::default_for(op),
        vec![
            TensorSpec::int8(shape, a.0, a.1),
            TensorSpec::int8(shape, b.0, b.1),
        ],
        vec![TensorSpec::int8(shape, out.0, out.1)],
    )
}

/// ADD / SUB / MUL / MAXIMUM / MINIMUM of two int32 tensors of shapes `a` and `b` into one of
/// shape `out`, none of them quantized (TFLM's unquantized int32 arithmetic), with the fused
/// `activation` where the operator has one.
fn binary32(op: B, a: &[i32], b: &[i32], out: &[i32], activation: Activation) -> ModelSpec {
    let options = match op {
        B::ADD => Options::Add { activation },
        B::SUB => Options::Sub { activation },
        B::MUL => Options::Mul { activation },
        _ => Options::MaximumMinimum,
    };
    ModelSpec::single_op(
        op,
        options,
        vec![TensorSpec::int32(a), TensorSpec::int32(b)],
        vec![TensorSpec::int32(out)],
    )
}

/// CONV_2D: input [1,4,4,1] (0.1, -3), per-channel filter [2,3,3,1], bias [2], output
/// [1,4,4,2] (0.2, 5). Tensors: 0 input, 1 filter, 2 bias, 3 output.
fn conv8(activation: Activation) -> ModelSpec {
    ModelSpec::single_op(
        B::CONV_2D,
        Options::conv2d(Padding::SAME, (1, 1), activation),
        vec![
            TensorSpec::int8(&[1, 4, 4, 1], 0.1, -3),
            TensorSpec::int8(&[2, 3, 3, 1], 1.0, 0)
                .per_channel(&[0.5, 0.25], 0)
                .constant_i8(&[1, -2, 3, -4, 5, -6, 7, -8, 9, 9, -8, 7, -6, 5, -4, 3, -2, 1]),
            TensorSpec::int32(&[2])
                .per_channel(&[0.05, 0.025], 0)
                .constant_i32(&[20, -20]),
        ],
        vec![TensorSpec::int8(&[1, 4, 4, 2], 0.2, 5)],
    )
}

/// FULLY_CONNECTED: input [1,8] (s_in, 1), per-tensor weights [4,8] (s_w), bias [4] with scale
/// s_in·s_w, output [1,4] (s_out, -2). Tensors: 0 input, 1 weights, 2 bias, 3 output.
fn fc8(s_in: f32, s_w: f32, s_out: f32) -> ModelSpec {
    let weights: Vec<i8> = (0..32).map(|i| ((i * 37) % 255 - 127) as i8).collect();
    ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::fully_connected(Activation::NONE),
        vec![
            TensorSpec::int8(&[1, 8], s_in, 1),
            TensorSpec::int8(&[4, 8], s_w, 0).constant_i8(&weights),
            TensorSpec::int32(&[4])
                .quant(s_in * s_w, 0)
                .constant_i32(&[100, -100, 7, 0]),
        ],
        vec![TensorSpec::int8(&[1, 4], s_out, -2)],
    )
}

/// int16 FULLY_CONNECTED with int8 weights (16x8) and zero points: input [16,8] (0.002, 1234),
/// per-channel weights [4,8], a bias [4] of type `bias` (TFLM sums in 32 bits for INT32, in 64
/// otherwise), output [16,4] (0.05, -77), fused RELU. Tensors: 0 input, 1 weights, 2 bias, 3
/// output.
fn fc16(bias: TensorType) -> ModelSpec {
    let weights: Vec<i8> = (0..32).map(|i| ((i * 37) % 255 - 127) as i8).collect();
    let values = [3000i64, -2000, 70, 0];
    let bias = match bias {
        TensorType::INT32 => TensorSpec::int32(&[4]).constant_i32(&values.map(|v| v as i32)),
        TensorType::INT16 => TensorSpec::new(bias, &[4]).constant(
            values
                .iter()
                .flat_map(|&v| (v as i16).to_le_bytes())
                .collect::<Vec<u8>>(),
        ),
        _ => TensorSpec::new(bias, &[4]).constant_i64(&values),
    };
    ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::fully_connected(Activation::RELU),
        vec![
            TensorSpec::new(TensorType::INT16, &[16, 8]).quant(0.002, 1234),
            TensorSpec::int8(&[4, 8], 1.0, 0)
                .per_channel(&[0.02, 0.01, 0.03, 0.015], 0)
                .constant_i8(&weights),
            bias,
        ],
        vec![TensorSpec::new(TensorType::INT16, &[16, 4]).quant(0.05, -77)],
    )
}

/// int16 DEPTHWISE_CONV_2D with int8 weights (16x8): input [1,4,5,2] (0.001, `zero_point`),
/// per-tensor filter [1,3,3,4] (depth multiplier 2), an optional bias [4] of type `bias`, output
/// [1,2,3,4] (0.05, 0), VALID. Tensors: 0 input, 1 filter, 2 bias (if any), then the output.
fn dw16(bias: Option<TensorType>, zero_point: i64) -> ModelSpec {
    let filter: Vec<i8> = (0..36).map(|i| ((i * 53) % 255 - 127) as i8).collect();
    let mut inputs = vec![
        TensorSpec::new(TensorType::INT16, &[1, 4, 5, 2]).quant(0.001, zero_point),
        TensorSpec::int8(&[1, 3, 3, 4], 0.02, 0).constant_i8(&filter),
    ];
    let values = [50_000i64, -50_000, 7, 0];
    inputs.extend(bias.map(|t| match t {
        TensorType::INT32 => TensorSpec::int32(&[4]).constant_i32(&values.map(|v| v as i32)),
        _ => TensorSpec::new(t, &[4]).constant_i64(&values),
    }));
    ModelSpec::single_op(
        B::DEPTHWISE_CONV_2D,
        Options::depthwise(Padding::VALID, (1, 1), 2, Activation::NONE),
        inputs,
        vec![TensorSpec::new(TensorType::INT16, &[1, 2, 3, 4]).quant(0.05, 0)],
    )
}

/// A float32 unary op `[2, 3] → [2, 3]`.
fn unary_f32(op: B, options: Options) -> ModelSpec {
    ModelSpec::single_op(
        op,
        options,
        vec![TensorSpec::f32(&[2, 3])],
        vec![TensorSpec::f32(&[2, 3])],
    )
}

/// Per-channel scales of `channels` output channels, 0.02 + 0.005·c, with the channels in `dead`
/// given `dead_scale` instead (a pruned or batch-norm-folded channel: the converter writes a scale
/// of 1e-11 or so for its all-zero filter).
fn channel_scales(channels: usize, dead: &[usize], dead_scale: f32) -> Vec<f32> {
    (0..channels)
        .map(|c| {
            if dead.contains(&c) {
                dead_scale
            } else {
                0.02 + 0.005 * c as f32
            }
        })
        .collect()
}

/// Weights laid out with the output channel `c` at index `i` given by `channel_of(i)`, pseudo-random
/// but all zero in the `dead` channels.
fn weights_with_dead(len: usize, dead: &[usize], channel_of: impl Fn(usize) -> usize) -> Vec<i8> {
    (0..len)
        .map(|i| {
            if dead.contains(&channel_of(i)) {
                0
            } else {
                ((i * 53 + 11) % 255) as i8
            }
        })
        .collect()
}

/// Biases of `channels` channels (scale `s_in * s_w[c]`), with a large value in each dead channel
/// (what a tiny scale makes of a small real bias; TFLM's multiplier of 0 discards it).
fn biases_with_dead(channels: usize, dead: &[usize]) -> Vec<i32> {
    (0..channels)
        .map(|c| {
            if dead.contains(&c) {
                1_000_000_000
            } else {
                (c as i32 * 97) % 400 - 200
            }
        })
        .collect()
}

/// CONV_2D `kernel`, input [1,6,6,cin] (0.05, -4), per-channel weights with dead channels, output
/// [1,6,6,channels] (0.1, 3) (SAME, stride 1).
fn conv8_dead(
    kernel: usize,
    cin: usize,
    channels: usize,
    dead: &[usize],
    dead_scale: f32,
    activation: Activation,
) -> ModelSpec {
    let s_in = 0.05f32;
    let scales = channel_scales(channels, dead, dead_scale);
    let per = kernel * kernel * cin;
    ModelSpec::single_op(
        B::CONV_2D,
        Options::conv2d(Padding::SAME, (1, 1), activation),
        vec![
            TensorSpec::int8(&[1, 6, 6, cin as i32], s_in, -4),
            TensorSpec::int8(
                &[channels as i32, kernel as i32, kernel as i32, cin as i32],
                1.0,
                0,
            )
            .per_channel(&scales, 0)
            .constant_i8(&weights_with_dead(channels * per, dead, |i| i / per)),
            TensorSpec::int32(&[channels as i32])
                .per_channel(&scales.iter().map(|s| s * s_in).collect::<Vec<_>>(), 0)
                .constant_i32(&biases_with_dead(channels, dead)),
        ],
        vec![TensorSpec::int8(&[1, 6, 6, channels as i32], 0.1, 3)],
    )
}

/// DEPTHWISE_CONV_2D 3x3, input [1,6,6,channels] (0.05, 2), depth multiplier 1, per-channel
/// weights with dead channels, output (0.1, -5).
fn depthwise8_dead(channels: usize, dead: &[usize], activation: Activation) -> ModelSpec {
    let s_in = 0.05f32;
    let scales = channel_scales(channels, dead, 3e-11);
    ModelSpec::single_op(
        B::DEPTHWISE_CONV_2D,
        Options::depthwise(Padding::SAME, (1, 1), 1, activation),
        vec![
            TensorSpec::int8(&[1, 6, 6, channels as i32], s_in, 2),
            TensorSpec::int8(&[1, 3, 3, channels as i32], 1.0, 0)
                .per_channel(&scales, 3)
                .constant_i8(&weights_with_dead(9 * channels, dead, |i| i % channels)),
            TensorSpec::int32(&[channels as i32])
                .per_channel(&scales.iter().map(|s| s * s_in).collect::<Vec<_>>(), 0)
                .constant_i32(&biases_with_dead(channels, dead)),
        ],
        vec![TensorSpec::int8(&[1, 6, 6, channels as i32], 0.1, -5)],
    )
}

/// FULLY_CONNECTED [2,16] → [2,units], per-channel weights with dead units.
fn fc8_dead(units: usize, dead: &[usize]) -> ModelSpec {
    let s_in = 0.05f32;
    let scales = channel_scales(units, dead, 1e-11);
    ModelSpec::single_op(
        B::FULLY_CONNECTED,
        Options::fully_connected(Activation::NONE),
        vec![
            TensorSpec::int8(&[2, 16], s_in, 1),
            TensorSpec::int8(&[units as i32, 16], 1.0, 0)
                .per_channel(&scales, 0)
                .constant_i8(&weights_with_dead(units * 16, dead, |i| i / 16)),
            TensorSpec::int32(&[units as i32])
                .per_channel(&scales.iter().map(|s| s * s_in).collect::<Vec<_>>(), 0)
                .constant_i32(&biases_with_dead(units, dead)),
        ],
        vec![TensorSpec::int8(&[2, units as i32], 0.2, -2)],
    )
}

/// Graph outputs TFLM returns without computing them (a graph input, a constant), and operators
/// whose inputs are all constant, which tinyaot folds at generation time.
fn folded_and_passed_through(s: &mut Suite<'_>) {
    let relu = || relu8((0.1, 0), (0.1, 0));
    // TFLM's output is the input tensor itself: its bytes as written before invoke.
    s.accepted(
        "graph_output_is_the_graph_input",
        with(relu(), |m| m.outputs = vec![0]),
    );
    s.accepted(
        "graph_outputs_input_and_computed",
        with(relu(), |m| m.outputs = vec![1, 0]),
    );
    s.accepted(
        "no_operators_output_is_input",
        with(relu(), |m| {
            m.operators.clear();
            m.outputs = vec![0];
        }),
    );
    // A constant output: its data.
    s.accepted(
        "graph_output_is_a_constant",
        with(relu(), |m| {
            let c =
                m.tensor(TensorSpec::int8(&[2, 3], 0.5, 1).constant_i8(&[1, -2, 3, -4, 5, 127]));
            m.outputs.push(c);
        }),
    );
    // RESHAPE of a constant feeding an ADD: folded into a constant of the new shape.
    s.accepted("add_of_a_reshaped_constant", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::f32(&[2, 4]));
        let c = m.tensor(
            TensorSpec::f32(&[8]).constant_f32(&[0.5, -1.0, 2.0, 0.25, -0.75, 3.0, 1.5, -2.5]),
        );
        let shape = m.tensor(TensorSpec::int32(&[2]).constant_i32(&[2, 4]));
        let r = m.tensor(TensorSpec::f32(&[2, 4]));
        let out = m.tensor(TensorSpec::f32(&[2, 4]));
        m.inputs = vec![x];
        m.outputs = vec![out];
        m.op(
            B::RESHAPE,
            Options::default_for(B::RESHAPE),
            &[c, shape],
            &[r],
        );
        m.op(B::ADD, Options::default_for(B::ADD), &[x, r], &[out]);
        m
    });
    // SHAPE of a static tensor feeding RESHAPE's shape input (what a Keras model with a dynamic
    // batch dimension leaves in the graph), and QUANTIZE and MUL of constants (int8).
    s.accepted("reshape_by_a_computed_shape", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::f32(&[3, 4]));
        let like = m.tensor(TensorSpec::f32(&[2, 6]).constant_f32(&[0.0; 12]));
        let shape = m.tensor(TensorSpec::int32(&[2]));
        let out = m.tensor(TensorSpec::f32(&[2, 6]));
        m.inputs = vec![x];
        m.outputs = vec![out];
        m.op(B::SHAPE, Options::None, &[like], &[shape]);
        m.op(
            B::RESHAPE,
            Options::default_for(B::RESHAPE),
            &[x, shape],
            &[out],
        );
        m
    });
    s.accepted("add_of_quantized_and_multiplied_constants", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::int8(&[1, 6], 0.05, 3));
        let cf =
            m.tensor(TensorSpec::f32(&[1, 6]).constant_f32(&[0.1, -0.7, 1.3, 2.2, -3.1, 0.01]));
        let cq = m.tensor(TensorSpec::int8(&[1, 6], 0.03, -2));
        let two =
            m.tensor(TensorSpec::int8(&[1, 6], 0.02, 0).constant_i8(&[20, 40, -60, 80, 100, -127]));
        let prod = m.tensor(TensorSpec::int8(&[1, 6], 0.05, 1));
        let out = m.tensor(TensorSpec::int8(&[1, 6], 0.1, -4));
        m.inputs = vec![x];
        m.outputs = vec![out];
        m.op(B::QUANTIZE, Options::Quantize, &[cf], &[cq]);
        m.op(B::MUL, Options::default_for(B::MUL), &[cq, two], &[prod]);
        m.op(B::ADD, Options::default_for(B::ADD), &[x, prod], &[out]);
        m
    });
    // What a Keras model with a dynamic batch dimension computes at run time for its RESHAPE:
    // SHAPE → STRIDED_SLICE (the batch) → PACK ([batch, 24]) → RESHAPE, all folded.
    s.accepted("reshape_by_shape_arithmetic", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::f32(&[1, 4, 6]));
        let shape = m.tensor(TensorSpec::int32(&[3]));
        let begin = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[0]));
        let end = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[1]));
        let strides = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[1]));
        let batch = m.tensor(TensorSpec::int32(&[]));
        let rest = m.tensor(TensorSpec::int32(&[]).constant_i32(&[24]));
        let target = m.tensor(TensorSpec::int32(&[2]));
        let flat = m.tensor(TensorSpec::f32(&[1, 24]));
        let out = m.tensor(TensorSpec::f32(&[1, 24]));
        m.inputs = vec![x];
        m.outputs = vec![out];
        m.op(B::SHAPE, Options::None, &[x], &[shape]);
        m.op(
            B::STRIDED_SLICE,
            Options::StridedSlice {
                begin_mask: 0,
                end_mask: 0,
                ellipsis_mask: 0,
                new_axis_mask: 0,
                shrink_axis_mask: 1,
                offset: false,
            },
            &[shape, begin, end, strides],
            &[batch],
        );
        m.op(
            B::PACK,
            Options::Pack {
                values_count: 2,
                axis: 0,
            },
            &[batch, rest],
            &[target],
        );
        m.op(
            B::RESHAPE,
            Options::default_for(B::RESHAPE),
            &[x, target],
            &[flat],
        );
        m.op(B::RELU, Options::None, &[flat], &[out]);
        m
    });
    // PACK of computed tensors, on an inner axis (float32) and the outer one (int8, quantized
    // differently: TFLM's PACK copies the bytes).
    s.accepted("pack_inner_axis_float", {
        let mut m = ModelSpec::new();
        let a = m.tensor(TensorSpec::f32(&[2, 3]));
        let b = m.tensor(TensorSpec::f32(&[2, 3]));
        let c = m.tensor(TensorSpec::f32(&[2, 3]));
        let out = m.tensor(TensorSpec::f32(&[2, 3, 3]));
        m.inputs = vec![a, b, c];
        m.outputs = vec![out];
        m.op(
            B::PACK,
            Options::Pack {
                values_count: 3,
                axis: -1,
            },
            &[a, b, c],
            &[out],
        );
        m
    });
    s.accepted("pack_outer_axis_int8", {
        let mut m = ModelSpec::new();
        let a = m.tensor(TensorSpec::int8(&[4, 2], 0.1, 3));
        let b = m.tensor(TensorSpec::int8(&[4, 2], 0.2, -1));
        let out = m.tensor(TensorSpec::int8(&[2, 4, 2], 0.1, 3));
        m.inputs = vec![a, b];
        m.outputs = vec![out];
        m.op(
            B::PACK,
            Options::Pack {
                values_count: 2,
                axis: 0,
            },
            &[a, b],
            &[out],
        );
        m
    });
    // The byte-moving operators on every type TFLM's kernel takes: CONCATENATION of INT64 and
    // BOOL, STRIDED_SLICE of BOOL (and with the ellipsis and new-axis masks TFLM sets to 0).
    for (name, dtype) in [
        ("concatenation_int64", TensorType::INT64),
        ("concatenation_bool", TensorType::BOOL),
    ] {
        s.accepted(name, {
            let mut m = ModelSpec::new();
            let a = m.tensor(TensorSpec::new(dtype, &[2, 3]));
            let b = m.tensor(TensorSpec::new(dtype, &[2, 2]));
            let out = m.tensor(TensorSpec::new(dtype, &[2, 5]));
            m.inputs = vec![a, b];
            m.outputs = vec![out];
            m.op(
                B::CONCATENATION,
                Options::Concatenation {
                    axis: 1,
                    activation: Activation::NONE,
                },
                &[a, b],
                &[out],
            );
            m
        });
    }
    for (name, ellipsis_mask, new_axis_mask) in [
        ("strided_slice_bool", 0, 0),
        ("strided_slice_masks_tflm_ignores", 1, 2),
    ] {
        s.accepted(name, {
            let mut m = ModelSpec::new();
            let x = m.tensor(TensorSpec::new(TensorType::BOOL, &[3, 4]));
            let begin = m.tensor(TensorSpec::int32(&[2]).constant_i32(&[0, 1]));
            let end = m.tensor(TensorSpec::int32(&[2]).constant_i32(&[3, 4]));
            let strides = m.tensor(TensorSpec::int32(&[2]).constant_i32(&[2, 2]));
            let out = m.tensor(TensorSpec::new(TensorType::BOOL, &[2, 2]));
            m.inputs = vec![x];
            m.outputs = vec![out];
            m.op(
                B::STRIDED_SLICE,
                Options::StridedSlice {
                    begin_mask: 0,
                    end_mask: 0,
                    ellipsis_mask,
                    new_axis_mask,
                    shrink_axis_mask: 0,
                    offset: false,
                },
                &[x, begin, end, strides],
                &[out],
            );
            m
        });
    }
    // TANH and SIGN_BIT fused into a float kernel that takes TFLM's CalculateActivationRange:
    // it names neither, so they clamp nothing.
    for (name, activation) in [
        ("float_ops_fused_tanh", Activation::TANH),
        ("float_ops_fused_sign_bit", Activation::SIGN_BIT),
    ] {
        s.accepted(name, {
            let mut m = ModelSpec::new();
            let x = m.tensor(TensorSpec::f32(&[1, 4, 4, 2]));
            let y = m.tensor(TensorSpec::f32(&[1, 4, 4, 2]));
            let sum = m.tensor(TensorSpec::f32(&[1, 4, 4, 2]));
            let prod = m.tensor(TensorSpec::f32(&[1, 4, 4, 2]));
            let filter = m.tensor(
                TensorSpec::f32(&[3, 3, 3, 2]).constant_f32(
                    &(0..54)
                        .map(|i| ((i * 7) % 11) as f32 * 0.25 - 1.2)
                        .collect::<Vec<_>>(),
                ),
            );
            let conv = m.tensor(TensorSpec::f32(&[1, 4, 4, 3]));
            let pooled = m.tensor(TensorSpec::f32(&[1, 2, 2, 3]));
            let flat = m.tensor(TensorSpec::f32(&[1, 12]));
            let shape = m.tensor(TensorSpec::int32(&[2]).constant_i32(&[1, 12]));
            let weights = m.tensor(
                TensorSpec::f32(&[5, 12]).constant_f32(
                    &(0..60)
                        .map(|i| ((i * 5) % 13) as f32 * 0.3 - 1.8)
                        .collect::<Vec<_>>(),
                ),
            );
            let out = m.tensor(TensorSpec::f32(&[1, 5]));
            m.inputs = vec![x, y];
            m.outputs = vec![out, sum];
            m.op(B::ADD, Options::Add { activation }, &[x, y], &[sum]);
            m.op(B::MUL, Options::Mul { activation }, &[sum, y], &[prod]);
            m.op(
                B::CONV_2D,
                Options::conv2d(Padding::SAME, (1, 1), activation),
                &[prod, filter],
                &[conv],
            );
            m.op(
                B::AVERAGE_POOL_2D,
                Options::pool(Padding::VALID, (2, 2), (2, 2), activation),
                &[conv],
                &[pooled],
            );
            m.op(
                B::RESHAPE,
                Options::default_for(B::RESHAPE),
                &[pooled, shape],
                &[flat],
            );
            m.op(
                B::FULLY_CONNECTED,
                Options::fully_connected(activation),
                &[flat, weights],
                &[out],
            );
            m
        });
    }
    // Every operator folds: the graph's outputs are constants computed at generation time.
    s.accepted("everything_folds", {
        let mut m = ModelSpec::new();
        let x = m.tensor(TensorSpec::f32(&[1, 4]));
        let a = m.tensor(TensorSpec::f32(&[1, 4]).constant_f32(&[1.0, -2.0, 3.5, -0.5]));
        let b = m.tensor(TensorSpec::f32(&[1, 4]).constant_f32(&[0.25, 4.0, -1.5, 2.0]));
        let sum = m.tensor(TensorSpec::f32(&[1, 4]));
        let out = m.tensor(TensorSpec::f32(&[1, 4]));
        m.inputs = vec![x];
        m.outputs = vec![out, x];
        m.op(B::ADD, Options::default_for(B::ADD), &[a, b], &[sum]);
        m.op(B::RELU, Options::None, &[sum], &[out]);
        m
    });
}

/// Dead channels: all-zero filters whose tiny (or zero) weight scale makes TFLM's requantization
/// multiplier 0, so the channel's output is the output zero point clamped by the activation.
/// Each convolution shape reaches another kernel (3x3, 1x1, and the DSP pairs of many channels).
fn dead_channels(s: &mut Suite<'_>) {
    s.accepted(
        "conv_dead_channels_3x3",
        conv8_dead(3, 3, 8, &[1, 6], 2.29e-10, Activation::NONE),
    );
    s.accepted(
        "conv_dead_channels_1x1_relu6",
        conv8_dead(1, 16, 16, &[0, 5, 15], 1e-11, Activation::RELU6),
    );
    s.accepted(
        "conv_dead_channels_zero_scale",
        conv8_dead(1, 8, 4, &[2], 0.0, Activation::RELU),
    );
    s.accepted(
        "depthwise_dead_channels",
        depthwise8_dead(8, &[3, 4], Activation::NONE),
    );
    s.accepted(
        "depthwise_dead_channels_relu",
        depthwise8_dead(16, &[0, 15], Activation::RELU),
    );
    s.accepted("fully_connected_dead_units", fc8_dead(6, &[0, 4]));
}

/// `m` changed by `f`.
/// A convolution model whose first operator is a CALL_ONCE naming subgraph 0 (the options
/// builder leaves the init subgraph index 0), in a model of `subgraphs` subgraphs.
fn call_once_first(subgraphs: usize) -> ModelSpec {
    with(conv8(Activation::NONE), |m| {
        m.subgraphs = subgraphs;
        m.operators.insert(0, m.operators[0].clone());
        let code = m.opcode(B::CALL_ONCE);
        m.operators[0].opcode_index = code;
        m.operators[0].inputs.clear();
        m.operators[0].outputs.clear();
    })
}

fn with(mut m: ModelSpec, f: impl FnOnce(&mut ModelSpec)) -> ModelSpec {
    f(&mut m);
    m
}

/// A scale pair `(s_in, s_out)` whose ratio rounds differently to a Q31 multiplier when taken in
/// f32 than in f64: the cases where computing multipliers in float is one LSB off against TFLM.
pub fn divergent_scales(seed: u32) -> (f32, f32) {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(12_345);
    loop {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let a = 0.001 + (state >> 8) as f32 / (1u32 << 24) as f32 * 0.1;
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let b = 0.001 + (state >> 8) as f32 / (1u32 << 24) as f32 * 0.1;
        let in_f32 = quantize_multiplier(f64::from(a / b));
        let in_f64 = quantize_multiplier(f64::from(a) / f64::from(b));
        if in_f32 != in_f64 {
            return (a, b);
        }
    }
}

/// TFLM's `QuantizeMultiplier` (enough of it to find divergent scales).
fn quantize_multiplier(real: f64) -> (i64, i32) {
    if real == 0.0 {
        return (0, 0);
    }
    let mut shift = real.abs().log2().floor() as i32 + 1;
    let mut q = (real / f64::powi(2.0, shift) * f64::powi(2.0, 31)).round() as i64;
    if q == 1 << 31 {
        q /= 2;
        shift += 1;
    }
    (q, shift)
}

// ---------------------------------------------------------------------------------------------
// The suite

/// Every case, in a fixed order.
pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    structure(&mut cases);
    graph(&mut cases);
    quantization(&mut cases);
    types_and_parameters(&mut cases);
    resource_limits(&mut cases);
    legitimate_corners(&mut cases);
    registry_types::registry_types(&mut cases);
    cases
}

struct Suite<'a> {
    cases: &'a mut Vec<Case>,
    category: Category,
}

impl Suite<'_> {
    fn bytes(&mut self, name: &str, model: Vec<u8>, expect: Expect) {
        self.cases.push(Case {
            name: name.to_string(),
            category: self.category,
            model,
            expect,
        });
    }

    fn refused(&mut self, name: &str, model: ModelSpec, kind: Refusal, mentions: &'static str) {
        self.bytes(name, model.to_bytes(), Expect::Refused(kind, mentions));
    }

    fn accepted(&mut self, name: &str, model: ModelSpec) {
        self.bytes(name, model.to_bytes(), Expect::Accepted);
    }
}

fn structure(cases: &mut Vec<Case>) {
    use Refusal::{Invalid, Load};
    let mut s = Suite {
        cases,
        category: Category::Structure,
    };
    let good = conv8(Activation::RELU).to_bytes();
    s.bytes(
        "truncated_half",
        good[..good.len() / 2].to_vec(),
        Expect::Refused(Load, ""),
    );
    s.bytes(
        "truncated_header",
        good[..6].to_vec(),
        Expect::Refused(Load, ""),
    );
    let mut wrong_id = good.clone();
    wrong_id[4..8].copy_from_slice(b"TFL2");
    s.bytes("wrong_identifier", wrong_id, Expect::Refused(Load, "TFL3"));
    s.refused(
        "schema_version_2",
        with(conv8(Activation::NONE), |m| m.version = 2),
        Load,
        "version 2",
    );
    s.refused(
        "no_subgraph",
        with(conv8(Activation::NONE), |m| m.subgraphs = 0),
        Load,
        "0 subgraphs",
    );
    // Several subgraphs: subgraph 0 is compiled, others only run as CALL_ONCE's init subgraph
    // (evaluated at generation time); every other way into a subgraph is refused.
    s.refused(
        "two_subgraphs_if",
        with(conv8(Activation::NONE), |m| {
            m.subgraphs = 2;
            m.op(B::IF, Options::None, &[], &[]);
        }),
        Load,
        "IF runs other subgraphs",
    );
    s.refused(
        "while_without_subgraphs",
        with(conv8(Activation::NONE), |m| {
            m.op(B::WHILE, Options::None, &[], &[]);
        }),
        Load,
        "WHILE runs other subgraphs",
    );
    s.refused(
        "call_once_of_itself",
        call_once_first(2),
        Invalid,
        "names subgraph 0",
    );
    s.refused(
        "call_once_in_a_single_subgraph",
        call_once_first(1),
        Invalid,
        "names subgraph 0",
    );
    s.refused(
        "var_handle_without_shared_name",
        with(conv8(Activation::NONE), |m| {
            m.subgraphs = 2;
            let handle = m.tensor(TensorSpec::new(TensorType::RESOURCE, &[]));
            m.operators.insert(0, m.operators[0].clone());
            let code = m.opcode(B::VAR_HANDLE);
            m.operators[0].opcode_index = code;
            m.operators[0].inputs.clear();
            m.operators[0].outputs = vec![handle];
        }),
        Invalid,
        "no shared_name",
    );
    s.refused(
        "resource_handle_as_conv_input",
        with(conv8(Activation::NONE), |m| {
            let handle = m.tensor(TensorSpec::new(TensorType::RESOURCE, &[]));
            m.operators[0].inputs[0] = handle;
        }),
        Load,
        "uses resource handle tensor",
    );
    s.refused(
        "operator_input_index_out_of_range",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.operators[0].inputs = vec![7]
        }),
        Load,
        "7",
    );
    s.refused(
        "graph_output_index_out_of_range",
        with(relu8((0.1, 0), (0.1, 0)), |m| m.outputs = vec![-5]),
        Load,
        "",
    );
    s.refused(
        "opcode_index_out_of_range",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.operators[0].opcode_index = 9
        }),
        Load,
        "9",
    );
    s.refused(
        "tensor_buffer_index_out_of_range",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[0] = m.tensors[0].clone().buffer(99)
        }),
        Load,
        "99",
    );
    s.refused(
        "non_empty_buffer_0",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.buffers[0] = BufferSpec::Data(vec![1, 2, 3, 4, 5, 6, 7, 8])
        }),
        Invalid,
        "buffer 0",
    );
    s.refused(
        "dynamic_batch_in_shape",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[0].shape = Some(vec![-1, 8])
        }),
        Load,
        "dynamic",
    );
    s.refused(
        "string_tensor",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[0].dtype = TensorType::STRING
        }),
        Load,
        "STRING",
    );
    s.refused(
        "unknown_tensor_type",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[0].dtype = TensorType(77)
        }),
        Load,
        "",
    );
    s.refused(
        "rank_7_tensor",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[0].shape = Some(vec![1, 1, 1, 1, 1, 1, 8]);
            m.tensors[1].shape = Some(vec![1, 1, 1, 1, 1, 1, 8]);
        }),
        Invalid,
        "rank 7",
    );
    s.refused(
        "rank_200000_input",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            let mut shape = vec![1; 200_000];
            shape[0] = 8;
            m.tensors[0].shape = Some(shape);
        }),
        Invalid,
        "rank 200000",
    );
    // An operator output with a zero-size dimension: TFLM's PrepareSubgraphs calls it a dynamic
    // tensor and refuses the model.
    s.refused(
        "zero_size_dimension",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[0].shape = Some(vec![0, 8]);
            m.tensors[1].shape = Some(vec![0, 8]);
        }),
        Invalid,
        "CheckDynamicTensors",
    );
    s.refused(
        "zero_size_batch_conv",
        with(conv8(Activation::RELU), |m| {
            m.tensors[0].shape = Some(vec![0, 4, 4, 1]);
            m.tensors[3].shape = Some(vec![0, 4, 4, 2]);
        }),
        Invalid,
        "has a zero-size dimension [0, 4, 4, 2]",
    );
    // But the shape [0], which TFLM takes for a legacy scalar shape: it runs the operator over no
    // elements.
    s.accepted(
        "zero_size_legacy_shape",
        ModelSpec::single_op(
            B::RELU,
            Options::None,
            vec![TensorSpec::f32(&[0])],
            vec![TensorSpec::f32(&[0])],
        ),
    );
    // An empty graph input feeding a non-empty output: TFLM runs it, but its kernels size their
    // loops from one of the shapes, checking the other only with TFLITE_DCHECK: the output is
    // left unwritten (or the input read out of bounds).
    s.refused(
        "zero_size_input_full_output",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[0].shape = Some(vec![0, 8]);
        }),
        Invalid,
        "is empty (a zero-size dimension) but the output is not",
    );
    // Where TFLM's result is defined, the empty input is compiled: a CONCATENATION copies nothing
    // from it, a PAD writes only padding.
    s.accepted(
        "zero_size_input_concatenation",
        ModelSpec::single_op(
            B::CONCATENATION,
            Options::Concatenation {
                axis: 0,
                activation: Activation::NONE,
            },
            vec![
                TensorSpec::int8(&[0, 3], 0.1, 2),
                TensorSpec::int8(&[2, 3], 0.1, 2),
            ],
            vec![TensorSpec::int8(&[2, 3], 0.1, 2)],
        ),
    );
    s.accepted(
        "zero_size_input_pad",
        ModelSpec::single_op(
            B::PAD,
            Options::Pad,
            vec![
                TensorSpec::f32(&[0, 3]),
                TensorSpec::int32(&[2, 2]).constant_i32(&[1, 2, 0, 1]),
            ],
            vec![TensorSpec::f32(&[3, 4])],
        ),
    );
    // An output shape or type that is not what the operator computes.
    s.refused(
        "binary_output_larger_than_broadcast",
        with(binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 0)), |m| {
            m.tensors[2].shape = Some(vec![2, 4]);
        }),
        Invalid,
        "is not the broadcast shape",
    );
    s.refused(
        "negative_dimension",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[0].shape = Some(vec![-3, 8])
        }),
        Load,
        "",
    );
    s.refused(
        "constant_shorter_than_its_shape",
        with(conv8(Activation::NONE), |m| {
            m.tensors[1] = m.tensors[1].clone().constant_i8(&[1; 5])
        }),
        Load,
        "",
    );
    s.refused(
        "wrong_options_table",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].options = Options::Softmax { beta: 1.0 }
        }),
        Load,
        "expects Conv2DOptions",
    );
}

fn graph(cases: &mut Vec<Case>) {
    use Refusal::{Invalid, UnsupportedOp};
    let mut s = Suite {
        cases,
        category: Category::Graph,
    };
    let relu = || relu8((0.1, 0), (0.1, 0));
    s.refused(
        "operator_reads_its_own_output",
        with(relu(), |m| m.operators[0].inputs = vec![1]),
        Invalid,
        "reads its own output",
    );
    s.refused(
        "reads_a_tensor_nobody_writes",
        with(relu(), |m| {
            let t = m.tensor(TensorSpec::int8(&[1, 8], 0.1, 0));
            m.operators[0].inputs = vec![t];
        }),
        Invalid,
        "nor written by an earlier operator",
    );
    s.refused(
        "reads_a_later_operators_output",
        with(relu(), |m| {
            let t = m.tensor(TensorSpec::int8(&[1, 8], 0.1, 0));
            let out = m.outputs[0];
            m.op(B::RELU, Options::None, &[out], &[t]);
            m.operators[0].inputs = vec![t];
            m.outputs = vec![out];
        }),
        Invalid,
        "reads tensor",
    );
    s.refused(
        "graph_output_never_written",
        with(relu(), |m| {
            let t = m.tensor(TensorSpec::int8(&[1, 8], 0.1, 0));
            m.outputs.push(t);
        }),
        Invalid,
        "not written by any operator",
    );
    s.refused(
        "no_operators_at_all",
        with(relu(), |m| m.operators.clear()),
        Invalid,
        "not written by any operator",
    );
    s.refused(
        "two_writers_of_one_tensor",
        with(relu(), |m| {
            m.op(B::RELU, Options::None, &[0], &[1]);
        }),
        Invalid,
        "again by operator #1",
    );
    s.refused(
        "operator_writes_a_constant",
        with(relu(), |m| {
            m.tensors[1] = m.tensors[1].clone().constant_i8(&[0; 8]);
        }),
        Invalid,
        "which is a constant",
    );
    s.refused(
        "operator_writes_a_graph_input",
        with(relu(), |m| {
            m.inputs = vec![0, 1];
            m.op(B::RELU, Options::None, &[0], &[1]);
            m.operators.remove(0);
            let t = m.tensor(TensorSpec::int8(&[1, 8], 0.1, 0));
            m.op(B::RELU, Options::None, &[1], &[t]);
            m.outputs = vec![t];
        }),
        Invalid,
        "which is a graph input",
    );
    s.refused(
        "constant_graph_input",
        with(relu(), |m| {
            m.tensors[0] = m.tensors[0].clone().constant_i8(&[1; 8]);
        }),
        Invalid,
        "is a constant",
    );
    s.refused(
        "same_tensor_twice_as_outputs",
        with(binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 0)), |m| {
            m.operators[0].outputs = vec![2, 2]
        }),
        Invalid,
        "two of its outputs",
    );
    // An operator reading a variable no operator writes reads its reset value (the zero point),
    // on every invoke, as in TFLM.
    s.accepted(
        "variable_tensor_input",
        with(binary8(B::ADD, (0.1, 0), (0.1, 3), (0.2, 0)), |m| {
            m.inputs = vec![0];
            m.tensors[1] = m.tensors[1].clone().variable();
        }),
    );
    // Folded at generation time (the RESHAPE's output is a constant of the new shape).
    s.accepted(
        "reshape_of_a_constant",
        with(ModelSpec::new(), |m| {
            let c = m.tensor(TensorSpec::f32(&[2, 3]).constant_f32(&[1.0; 6]));
            let r = m.tensor(TensorSpec::f32(&[3, 2]));
            let shape = m.tensor(TensorSpec::int32(&[2]).constant_i32(&[3, 2]));
            let x = m.tensor(TensorSpec::f32(&[3, 2]));
            let y = m.tensor(TensorSpec::f32(&[3, 2]));
            m.op(
                B::RESHAPE,
                Options::Reshape { new_shape: None },
                &[c, shape],
                &[r],
            );
            m.op(B::ADD, Options::default_for(B::ADD), &[r, x], &[y]);
            m.inputs = vec![x];
            m.outputs = vec![y];
        }),
    );
    s.refused(
        "custom_operator",
        with(relu(), |m| {
            m.opcodes[0] = OpCodeSpec::custom("TFLite_Detection_PostProcess")
        }),
        UnsupportedOp,
        "CUSTOM(TFLite_Detection_PostProcess)",
    );
    s.refused(
        "unsupported_builtin_ceil",
        with(unary_f32(B::RELU, Options::None), |m| {
            m.opcodes[0] = OpCodeSpec::builtin(B::CEIL)
        }),
        UnsupportedOp,
        "CEIL",
    );
    s.refused(
        "unknown_builtin_code",
        with(relu(), |m| m.opcodes[0] = OpCodeSpec::builtin(B(4000))),
        UnsupportedOp,
        "4000",
    );
}

fn quantization(cases: &mut Vec<Case>) {
    use Refusal::Invalid;
    let mut s = Suite {
        cases,
        category: Category::Quantization,
    };
    let not_normal = "not a positive, finite, normal number";
    for (name, scale) in [
        ("relu_input_scale_zero", 0.0),
        ("relu_input_scale_negative", -0.5),
        ("relu_input_scale_nan", f32::NAN),
        ("relu_input_scale_inf", f32::INFINITY),
        ("relu_input_scale_denormal", 1e-40),
    ] {
        s.refused(name, relu8((scale, 0), (0.1, 0)), Invalid, not_normal);
    }
    s.refused(
        "relu_output_scale_zero",
        relu8((0.1, 0), (0.0, 0)),
        Invalid,
        not_normal,
    );
    for (name, zp) in [
        ("relu_zero_point_128", 128),
        ("relu_zero_point_200", 200),
        ("relu_zero_point_minus_129", -129),
        ("relu_zero_point_2_pow_40", 1 << 40),
    ] {
        s.refused(name, relu8((0.1, zp), (0.1, 0)), Invalid, "zero point");
    }
    s.refused(
        "add_output_zero_point_128",
        binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 128)),
        Invalid,
        "outside the int8 range",
    );
    s.refused(
        "conv_input_zero_point_minus_129",
        with(conv8(Activation::NONE), |m| {
            m.tensors[0] = m.tensors[0].clone().quant(0.1, -129)
        }),
        Invalid,
        "outside the int8 range",
    );
    // A denormal weight scale is a dead channel's (TFLM's multiplier for it is 0): compiled.
    s.accepted(
        "conv_weight_scale_denormal",
        with(conv8(Activation::NONE), |m| {
            m.tensors[1] = m.tensors[1].clone().per_channel(&[1e-40, 0.25], 0)
        }),
    );
    s.refused(
        "conv_weight_scale_nan",
        with(conv8(Activation::NONE), |m| {
            m.tensors[1] = m.tensors[1].clone().per_channel(&[f32::NAN, 0.25], 0)
        }),
        Invalid,
        "not a finite number",
    );
    s.refused(
        "conv_weights_asymmetric",
        with(conv8(Activation::NONE), |m| {
            if let Some(q) = &mut m.tensors[1].quantization {
                q.zero_points = Some(vec![3, 0]);
            }
        }),
        Invalid,
        "zero point",
    );
    s.refused(
        "conv_per_channel_count_mismatch",
        with(conv8(Activation::NONE), |m| {
            m.tensors[1] = m.tensors[1].clone().per_channel(&[0.5, 0.25, 0.1], 0)
        }),
        Refusal::Load,
        "",
    );
    s.refused(
        "conv_fused_relu6_tiny_output_scale",
        with(conv8(Activation::RELU6), |m| {
            m.tensors[0] = m.tensors[0].clone().quant(1e-12, 0);
            m.tensors[3] = m.tensors[3].clone().quant(1e-12, 0);
        }),
        Invalid,
        "does not fit in int32",
    );
    s.refused(
        "conv_requantization_above_2_pow_31",
        with(conv8(Activation::NONE), |m| {
            m.tensors[0] = m.tensors[0].clone().quant(1e6, 0);
            m.tensors[3] = m.tensors[3].clone().quant(1e-6, 0);
        }),
        Invalid,
        "2^31 or more",
    );
    s.refused(
        "fully_connected_bias_scale_mismatch",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.tensors[2] = m.tensors[2].clone().quant(1.0, 0)
        }),
        Invalid,
        "bias scale",
    );
    s.refused(
        "fully_connected_scale_product_overflows",
        with(fc8(3e38, 1e10, 1.0), |m| {
            m.tensors[2] = m.tensors[2].clone().quant(f32::MAX, 0)
        }),
        Invalid,
        "",
    );
    s.refused(
        "fully_connected_output_scale_zero",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.tensors[3] = m.tensors[3].clone().quant(0.0, 0)
        }),
        Invalid,
        not_normal,
    );
    s.refused(
        "leaky_relu_alpha_nan",
        unary8(
            B::LEAKY_RELU,
            Options::LeakyRelu { alpha: f32::NAN },
            (0.1, 0),
            (0.1, 0),
        ),
        Invalid,
        "alpha",
    );
    s.refused(
        "leaky_relu_alpha_inf",
        unary8(
            B::LEAKY_RELU,
            Options::LeakyRelu {
                alpha: f32::INFINITY,
            },
            (0.1, 0),
            (0.1, 0),
        ),
        Invalid,
        "alpha",
    );
    // A float LEAKY_RELU multiplies by its alpha as it is: TFLM computes -inf or NaN, not garbage.
    for (name, alpha) in [
        ("leaky_relu_f32_alpha_inf", f32::INFINITY),
        ("leaky_relu_f32_alpha_nan", f32::NAN),
    ] {
        s.accepted(
            name,
            ModelSpec::single_op(
                B::LEAKY_RELU,
                Options::LeakyRelu { alpha },
                vec![TensorSpec::f32(&[2, 8])],
                vec![TensorSpec::f32(&[2, 8])],
            ),
        );
    }
    s.refused(
        "softmax_beta_nan",
        unary8(
            B::SOFTMAX,
            Options::Softmax { beta: f32::NAN },
            (0.1, 0),
            (1.0 / 256.0, -128),
        ),
        Invalid,
        "beta",
    );
    s.refused(
        "softmax_beta_inf_float",
        unary_f32(
            B::SOFTMAX,
            Options::Softmax {
                beta: f32::INFINITY,
            },
        ),
        Invalid,
        "beta",
    );
    s.refused(
        "softmax_output_zero_point_not_minus_128",
        unary8(
            B::SOFTMAX,
            Options::Softmax { beta: 1.0 },
            (0.1, 0),
            (1.0 / 256.0, 0),
        ),
        Invalid,
        "-128",
    );
    s.refused(
        "tanh_output_scale_not_1_128",
        unary8(B::TANH, Options::None, (0.1, 0), (1.0 / 256.0, 0)),
        Invalid,
        "fixed",
    );
    s.refused(
        "logistic_output_scale_not_1_256",
        unary8(B::LOGISTIC, Options::None, (0.1, 0), (1.0 / 128.0, -128)),
        Invalid,
        "fixed",
    );
    s.refused(
        "logistic_output_zero_point_0",
        unary8(B::LOGISTIC, Options::None, (0.1, 0), (1.0 / 256.0, 0)),
        Invalid,
        "fixed",
    );
    s.refused(
        "quantize_to_a_tiny_scale",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::f32(&[1, 8])],
            vec![TensorSpec::int8(&[1, 8], 1e-12, 0)],
        ),
        Invalid,
        "does not fit in int32",
    );
    s.refused(
        "dequantize_scale_nan",
        ModelSpec::single_op(
            B::DEQUANTIZE,
            Options::Dequantize,
            vec![TensorSpec::int8(&[1, 8], f32::NAN, 0)],
            vec![TensorSpec::f32(&[1, 8])],
        ),
        Invalid,
        not_normal,
    );
    s.refused(
        "relu6_input_scale_1e_minus_10",
        unary8(B::RELU6, Options::None, (1e-10, 0), (1e-10, 0)),
        Invalid,
        "does not fit in int32",
    );
    s.refused(
        "int8_activation_without_quantization",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[0].quantization = None
        }),
        Invalid,
        "no quantization",
    );
    s.refused(
        "sub_input_multiplier_not_below_one",
        binary8(B::SUB, (0.1, 0), (0.1, 0), (1e-9, 0)),
        Invalid,
        "",
    );
}

fn types_and_parameters(cases: &mut Vec<Case>) {
    use Refusal::{Invalid, Unsupported};
    let mut s = Suite {
        cases,
        category: Category::TypesAndParameters,
    };
    int4::refused(&mut s);
    // TFLM's EXPAND_DIMS copies FLOAT32, INT8 and INT16 only ("Expand_Dims only currently
    // supports int8, int16 and float32").
    s.refused(
        "expand_dims_int32",
        {
            let mut m = ModelSpec::new();
            let x = m.tensor(TensorSpec::int32(&[2, 3]));
            let axis = m.tensor(TensorSpec::int32(&[1]).constant_i32(&[0]));
            let out = m.tensor(TensorSpec::int32(&[1, 2, 3]));
            m.inputs = vec![x];
            m.outputs = vec![out];
            m.op(B::EXPAND_DIMS, Options::None, &[x, axis], &[out]);
            m
        },
        Invalid,
        "TFLM's EXPAND_DIMS refuses it",
    );
    s.refused(
        "leaky_relu_with_3_inputs",
        with(
            unary8(
                B::LEAKY_RELU,
                Options::LeakyRelu { alpha: 0.2 },
                (0.1, 0),
                (0.1, 0),
            ),
            |m| {
                let a = m.tensor(TensorSpec::int8(&[1, 8], 0.1, 0).constant_i8(&[0; 8]));
                m.operators[0].inputs = vec![0, a, a];
            },
        ),
        Invalid,
        "3 inputs",
    );
    s.refused(
        "tanh_with_3_outputs",
        with(
            unary8(B::TANH, Options::None, (0.1, 0), (1.0 / 128.0, 0)),
            |m| {
                let a = m.tensor(TensorSpec::int8(&[1, 8], 1.0 / 128.0, 0));
                let b = m.tensor(TensorSpec::int8(&[1, 8], 1.0 / 128.0, 0));
                m.operators[0].outputs = vec![1, a, b];
            },
        ),
        Invalid,
        "3 outputs",
    );
    s.refused(
        "add_with_one_input",
        with(binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 0)), |m| {
            m.operators[0].inputs = vec![0];
            m.inputs = vec![0];
        }),
        Invalid,
        "1 inputs",
    );
    s.refused(
        "conv_with_4_inputs",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].inputs = vec![0, 1, 2, 2]
        }),
        Invalid,
        "4 inputs",
    );
    s.refused(
        "squeeze_dim_out_of_range",
        ModelSpec::single_op(
            B::SQUEEZE,
            Options::Squeeze {
                squeeze_dims: vec![5],
            },
            vec![TensorSpec::f32(&[1, 3, 1])],
            vec![TensorSpec::f32(&[3])],
        ),
        Invalid,
        "squeeze_dims",
    );
    s.refused(
        "squeeze_dim_not_size_1",
        ModelSpec::single_op(
            B::SQUEEZE,
            Options::Squeeze {
                squeeze_dims: vec![1],
            },
            vec![TensorSpec::f32(&[1, 3, 1])],
            vec![TensorSpec::f32(&[1, 3])],
        ),
        Invalid,
        "squeeze_dims",
    );
    s.refused(
        "squeeze_output_shape_wrong",
        ModelSpec::single_op(
            B::SQUEEZE,
            Options::Squeeze {
                squeeze_dims: vec![0],
            },
            vec![TensorSpec::f32(&[1, 3, 1])],
            vec![TensorSpec::f32(&[3])],
        ),
        Invalid,
        "squeezed input shape",
    );
    s.refused(
        "strided_slice_rank_5",
        ModelSpec::single_op(
            B::STRIDED_SLICE,
            Options::default_for(B::STRIDED_SLICE),
            vec![
                TensorSpec::f32(&[1, 1, 1, 2, 2]),
                TensorSpec::int32(&[5]).constant_i32(&[0; 5]),
                TensorSpec::int32(&[5]).constant_i32(&[1, 1, 1, 2, 2]),
                TensorSpec::int32(&[5]).constant_i32(&[1; 5]),
            ],
            vec![TensorSpec::f32(&[1, 1, 1, 2, 2])],
        ),
        Invalid,
        "at most 4",
    );
    s.refused(
        "transpose_int32",
        ModelSpec::single_op(
            B::TRANSPOSE,
            Options::Transpose,
            vec![
                TensorSpec::int32(&[2, 3]),
                TensorSpec::int32(&[2]).constant_i32(&[1, 0]),
            ],
            vec![TensorSpec::int32(&[3, 2])],
        ),
        Invalid,
        "TFLM's TRANSPOSE refuses it",
    );
    s.refused(
        "transpose_int64_perm",
        ModelSpec::single_op(
            B::TRANSPOSE,
            Options::Transpose,
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::new(TensorType::INT64, &[2]).constant_i64(&[1, 0]),
            ],
            vec![TensorSpec::f32(&[3, 2])],
        ),
        Invalid,
        "INT64",
    );
    s.refused(
        "transpose_perm_not_a_permutation",
        ModelSpec::single_op(
            B::TRANSPOSE,
            Options::Transpose,
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::int32(&[2]).constant_i32(&[1, 1]),
            ],
            vec![TensorSpec::f32(&[3, 2])],
        ),
        Unsupported,
        "permutation",
    );
    // ARG_MAX / ARG_MIN: TFLM's kernel has no Prepare; at Eval it takes an INT32 axis and output
    // and FLOAT32 or INT8 input, reads the axis tensor's first element and trusts the output shape.
    let arg = |op: B, input: TensorSpec, axis: TensorSpec, output: TensorSpec| {
        ModelSpec::single_op(op, Options::None, vec![input, axis], vec![output])
    };
    let axis = |a: i32| TensorSpec::int32(&[1]).constant_i32(&[a]);
    s.refused(
        "arg_max_int64_output",
        arg(
            B::ARG_MAX,
            TensorSpec::f32(&[2, 3]),
            axis(1),
            TensorSpec::new(TensorType::INT64, &[2]),
        ),
        Invalid,
        "INT32 indices only",
    );
    s.refused(
        "arg_min_int32_input",
        arg(
            B::ARG_MIN,
            TensorSpec::int32(&[2, 3]),
            axis(1),
            TensorSpec::int32(&[2]),
        ),
        Invalid,
        "FLOAT32 and INT8",
    );
    s.refused(
        "arg_max_axis_out_of_range",
        arg(
            B::ARG_MAX,
            TensorSpec::f32(&[2, 3]),
            axis(-3),
            TensorSpec::int32(&[2]),
        ),
        Invalid,
        "axis -3 is out of range",
    );
    // TFLM's reference ArgMinMax reads the axis tensor's first element and ignores the rest.
    s.accepted(
        "arg_max_two_axes",
        arg(
            B::ARG_MAX,
            TensorSpec::f32(&[2, 3]),
            TensorSpec::int32(&[2]).constant_i32(&[1, 0]),
            TensorSpec::int32(&[2]),
        ),
    );
    // TFLM's TRANSPOSE_CONV never reads its output_shape input: the output tensor's shape rules,
    // whatever output_shape says.
    s.accepted(
        "transpose_conv_output_shape_ignored",
        ModelSpec::single_op(
            B::TRANSPOSE_CONV,
            Options::TransposeConv {
                padding: Padding::VALID,
                stride_w: 1,
                stride_h: 1,
                activation: Activation::NONE,
            },
            vec![
                TensorSpec::int32(&[4]).constant_i32(&[1, 7, 7, 1]),
                TensorSpec::f32(&[1, 2, 2, 1]).constant_f32(&[1.0, -2.0, 0.5, 3.0]),
                TensorSpec::f32(&[1, 3, 3, 1]),
            ],
            vec![TensorSpec::f32(&[1, 4, 4, 1])],
        ),
    );
    s.refused(
        "arg_min_output_keeps_the_axis",
        arg(
            B::ARG_MIN,
            TensorSpec::f32(&[2, 3]),
            axis(1),
            TensorSpec::int32(&[2, 1]),
        ),
        Invalid,
        "without axis 1",
    );
    s.refused(
        "arg_max_int64_axis",
        arg(
            B::ARG_MAX,
            TensorSpec::f32(&[2, 3]),
            TensorSpec::new(TensorType::INT64, &[1]).constant_i64(&[1]),
            TensorSpec::int32(&[2]),
        ),
        Invalid,
        "reads it as INT32",
    );
    s.refused(
        "conv_dilation_above_int16",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].options = Options::Conv2D {
                padding: Padding::SAME,
                stride_w: 1,
                stride_h: 1,
                dilation_w: 40_000,
                dilation_h: 1,
                activation: Activation::NONE,
            }
        }),
        Invalid,
        "above 32767",
    );
    s.refused(
        "pool_padding_above_int16",
        ModelSpec::single_op(
            B::MAX_POOL_2D,
            Options::pool(Padding::SAME, (1, 1), (65_600, 1), Activation::NONE),
            vec![TensorSpec::int8(&[1, 1, 1, 1], 0.1, 0)],
            vec![TensorSpec::int8(&[1, 1, 1, 1], 0.1, 0)],
        ),
        Invalid,
        "above 32767",
    );
    s.refused(
        "fully_connected_keep_dims_wrong_output",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.operators[0].options = Options::FullyConnected {
                activation: Activation::NONE,
                weights_format: crate::WeightsFormat::DEFAULT,
                keep_num_dims: true,
            };
            m.tensors[0].shape = Some(vec![1, 1, 8]);
            m.tensors[3].shape = Some(vec![1, 4]);
        }),
        Invalid,
        "keep_num_dims",
    );
    s.refused(
        "fully_connected_output_shape_wrong",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.tensors[3].shape = Some(vec![1, 3])
        }),
        Invalid,
        "output shape",
    );
    s.refused(
        "fully_connected_shuffled_weights",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.operators[0].options = Options::FullyConnected {
                activation: Activation::NONE,
                weights_format: crate::WeightsFormat::SHUFFLED4x16INT8,
                keep_num_dims: false,
            }
        }),
        Unsupported,
        "shuffled",
    );
    s.refused(
        "fully_connected_hybrid",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.tensors[0] = TensorSpec::f32(&[1, 8]);
            m.tensors[3] = TensorSpec::f32(&[1, 4]);
        }),
        Invalid,
        "hybrid",
    );
    s.refused(
        "conv_output_shape_wrong",
        with(conv8(Activation::NONE), |m| {
            m.tensors[3].shape = Some(vec![1, 3, 4, 2])
        }),
        Unsupported,
        "output height",
    );
    // TANH and SIGN_BIT fused into an integer kernel: TFLM's CalculateActivationRangeQuantized
    // names neither and leaves the output type's whole range, a clamp of nothing.
    s.accepted("conv_fused_tanh", conv8(Activation::TANH));
    s.accepted(
        "add_int8_fused_sign_bit",
        with(binary8(B::ADD, (0.1, 3), (0.05, -2), (0.2, 1)), |m| {
            m.operators[0].options = Options::Add {
                activation: Activation::SIGN_BIT,
            }
        }),
    );
    s.refused(
        "conv_zero_stride",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].options = Options::conv2d(Padding::SAME, (0, 1), Activation::NONE)
        }),
        Refusal::Load,
        "",
    );
    s.refused(
        "conv_unknown_padding",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].options = Options::conv2d(Padding(7), (1, 1), Activation::NONE)
        }),
        Refusal::Load,
        "",
    );
    s.refused(
        "conv_non_constant_filter",
        with(conv8(Activation::NONE), |m| {
            m.tensors[1].data = crate::TensorData::Buffer(0);
            m.inputs = vec![0, 1];
        }),
        Unsupported,
        "run time",
    );
    s.refused(
        "depthwise_multiplier_disagrees",
        ModelSpec::single_op(
            B::DEPTHWISE_CONV_2D,
            Options::depthwise(Padding::VALID, (1, 1), 3, Activation::NONE),
            vec![
                TensorSpec::f32(&[1, 3, 3, 2]),
                TensorSpec::f32(&[1, 3, 3, 4]).constant_f32(&[0.5; 36]),
            ],
            vec![TensorSpec::f32(&[1, 1, 1, 4])],
        ),
        Unsupported,
        "depth_multiplier",
    );
    // TFLM reads an int16 DEPTHWISE_CONV_2D bias as int64 whatever its type, an int16
    // FULLY_CONNECTED one as int64 unless it is INT32; its 16x8 convolutions apply no zero points.
    s.refused(
        "depthwise_int16_int32_bias",
        dw16(Some(TensorType::INT32), 0),
        Invalid,
        "reads its bias as INT64",
    );
    s.refused(
        "fully_connected_int16_int16_bias",
        fc16(TensorType::INT16),
        Invalid,
        "misread",
    );
    s.refused(
        "depthwise_int16_zero_point",
        dw16(Some(TensorType::INT64), 5),
        Invalid,
        "zero point 5",
    );
    s.refused(
        "depthwise_bias_written_as_absent",
        with(
            ModelSpec::single_op(
                B::DEPTHWISE_CONV_2D,
                Options::depthwise(Padding::VALID, (1, 1), 1, Activation::NONE),
                vec![
                    TensorSpec::f32(&[1, 3, 3, 2]),
                    TensorSpec::f32(&[1, 3, 3, 2]).constant_f32(&[0.5; 18]),
                ],
                vec![TensorSpec::f32(&[1, 1, 1, 2])],
            ),
            |m| m.operators[0].inputs.push(-1),
        ),
        Invalid,
        "absent",
    );
    s.refused(
        "concatenation_11_inputs",
        concatenation_of(11),
        Invalid,
        "11 inputs",
    );
    s.refused(
        "concatenation_axis_out_of_range",
        ModelSpec::single_op(
            B::CONCATENATION,
            Options::Concatenation {
                axis: 4,
                activation: Activation::NONE,
            },
            vec![TensorSpec::f32(&[1, 2]), TensorSpec::f32(&[1, 2])],
            vec![TensorSpec::f32(&[1, 4])],
        ),
        Invalid,
        "axis",
    );
    s.refused(
        "mean_axis_out_of_range",
        ModelSpec::single_op(
            B::MEAN,
            Options::Reducer { keep_dims: true },
            vec![
                TensorSpec::f32(&[1, 2, 2, 3]),
                TensorSpec::int32(&[1]).constant_i32(&[9]),
            ],
            vec![TensorSpec::f32(&[1, 2, 2, 1])],
        ),
        Invalid,
        "axis",
    );
    s.refused(
        "pad_negative",
        ModelSpec::single_op(
            B::PAD,
            Options::Pad,
            vec![
                TensorSpec::f32(&[1, 3]),
                TensorSpec::int32(&[2, 2]).constant_i32(&[0, 0, -1, 2]),
            ],
            vec![TensorSpec::f32(&[1, 4])],
        ),
        Invalid,
        "negative",
    );
    // A graph without inputs: its output is folded at generation time.
    s.accepted(
        "mul_of_two_constants",
        with(binary8(B::MUL, (0.1, 0), (0.1, 0), (0.2, 0)), |m| {
            m.tensors[0] = m.tensors[0].clone().constant_i8(&[1; 4]);
            m.tensors[1] = m.tensors[1].clone().constant_i8(&[2; 4]);
            m.inputs.clear();
        }),
    );
    s.refused(
        "add_int8_inputs_float_output",
        with(binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 0)), |m| {
            m.tensors[2] = TensorSpec::f32(&[1, 4])
        }),
        Invalid,
        "FLOAT32",
    );
    s.refused(
        "add_shapes_do_not_broadcast",
        with(binary8(B::ADD, (0.1, 0), (0.1, 0), (0.2, 0)), |m| {
            m.tensors[1].shape = Some(vec![1, 3])
        }),
        Invalid,
        "",
    );
    // float32 → uint8 passes TFLM's QUANTIZE Prepare and fails in its Eval.
    s.refused(
        "quantize_float_to_uint8",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::f32(&[1, 8])],
            vec![TensorSpec::new(TensorType::UINT8, &[1, 8]).quant(0.1, 128)],
        ),
        Invalid,
        "UINT8",
    );
    // TFLM's HARD_SWISH passes Prepare on int16 and fails in Eval.
    s.refused(
        "hard_swish_int16",
        unary16(&[1, 8], B::HARD_SWISH, (0.1, 0), (0.1, 0)),
        Invalid,
        "INT16",
    );
    // TFLM's RSQRT Prepare accepts FLOAT32 and INT8 only (IsRsqrtSupportedType), although its
    // Eval has an int16 branch; and its int8 rescaling by shift - 20 must stay a shift of at most
    // 31 bits: 1 / (sqrt(10^4) × 100) = 10^-4 is below 2^-12.
    s.refused(
        "rsqrt_int16",
        unary16(&[1, 8], B::RSQRT, (0.1, 0), (0.1, 0)),
        Invalid,
        "INT16",
    );
    s.refused(
        "rsqrt_int8_tiny_rescaling",
        unary8(B::RSQRT, Options::None, (10_000.0, -128), (100.0, 0)),
        Invalid,
        "2^-12",
    );
    // ABS (PrepareAbsRsqrt): FLOAT32, INT8 and INT16 only, int16 zero points 0; its int8 /
    // int16 rescaling computes |x| * 2^shift in int32 (undefined past 2^31: input scale / output
    // scale = 2^24 shifts 255 left by 25 bits). NEG (neg.cc Eval), SQRT and SQUARE
    // (GenericPrepare): FLOAT32 only.
    s.refused(
        "abs_int32",
        ModelSpec::single_op(
            B::ABS,
            Options::None,
            vec![TensorSpec::int32(&[1, 8])],
            vec![TensorSpec::int32(&[1, 8])],
        ),
        Invalid,
        "INT32",
    );
    s.refused(
        "abs_int16_zero_point",
        unary16(&[1, 8], B::ABS, (0.1, 3), (0.1, 0)),
        Invalid,
        "zero point",
    );
    s.refused(
        "abs_int8_shift_overflow",
        unary8(B::ABS, Options::None, (1.0, 0), (1.0 / 16_777_216.0, 0)),
        Invalid,
        "overflow",
    );
    for (name, op) in [
        ("neg_int8", B::NEG),
        ("sqrt_int8", B::SQRT),
        ("square_int8", B::SQUARE),
    ] {
        s.refused(
            name,
            unary8(op, Options::None, (0.1, 0), (0.1, 0)),
            Invalid,
            "INT8",
        );
    }
    // PRELU's Eval takes FLOAT32, INT8 and INT16 inputs (the last with an int8 alpha).
    s.refused(
        "prelu_int32",
        ModelSpec::single_op(
            B::PRELU,
            Options::None,
            vec![TensorSpec::int32(&[1, 8]), TensorSpec::int32(&[8])],
            vec![TensorSpec::int32(&[1, 8])],
        ),
        Invalid,
        "INT32",
    );
    // int16 quantization TFLM's Prepare refuses: nonzero zero points (RELU, LOGISTIC, TANH, MUL,
    // CONCATENATION), a LOGISTIC / TANH output scale other than 2^-15, an input scale LOGISTIC
    // cannot rescale (its multiplier would exceed 32767).
    s.refused(
        "relu_int16_zero_point",
        unary16(&[1, 8], B::RELU, (0.1, 2), (0.1, 0)),
        Invalid,
        "zero points",
    );
    s.refused(
        "logistic_int16_zero_point",
        unary16(&[1, 8], B::LOGISTIC, (1.0 / 4096.0, -1), (1.0 / 32768.0, 0)),
        Invalid,
        "zero points",
    );
    s.refused(
        "tanh_int16_output_scale",
        unary16(&[1, 8], B::TANH, (1.0 / 4096.0, 0), (1.0 / 16384.0, 0)),
        Invalid,
        "2^-15",
    );
    s.refused(
        "logistic_int16_input_scale_too_large",
        unary16(&[1, 8], B::LOGISTIC, (3.0, 0), (1.0 / 32768.0, 0)),
        Invalid,
        "input scale",
    );
    s.refused(
        "mul_int16_zero_point",
        ModelSpec::single_op(
            B::MUL,
            Options::default_for(B::MUL),
            vec![int16(&[1, 4], (0.01, 0)), int16(&[1, 4], (0.01, 3))],
            vec![int16(&[1, 4], (0.01, 0))],
        ),
        Invalid,
        "zero points",
    );
    // int32 ADD and SUB: TFLM's Prepare requires unquantized inputs (ADD) and output (SUB).
    s.refused(
        "add_int32_quantized_input",
        with(
            binary32(B::ADD, &[2, 4], &[4], &[2, 4], Activation::NONE),
            |m| m.tensors[1] = m.tensors[1].clone().quant(1.0, 0),
        ),
        Invalid,
        "quantized",
    );
    s.refused(
        "sub_int32_quantized_output",
        with(
            binary32(B::SUB, &[2, 4], &[2, 4], &[2, 4], Activation::NONE),
            |m| m.tensors[2] = m.tensors[2].clone().quant(1.0, 0),
        ),
        Invalid,
        "quantized",
    );
    s.refused(
        "concatenation_int16_zero_point",
        ModelSpec::single_op(
            B::CONCATENATION,
            Options::default_for(B::CONCATENATION),
            vec![int16(&[1, 2], (0.01, 0)), int16(&[1, 2], (0.01, 0))],
            vec![int16(&[1, 4], (0.01, 1))],
        ),
        Invalid,
        "zero point",
    );
    s.refused(
        "softmax_int16_to_int8",
        ModelSpec::single_op(
            B::SOFTMAX,
            Options::Softmax { beta: 1.0 },
            vec![int16(&[2, 5], (1e-3, 0))],
            vec![TensorSpec::int8(&[2, 5], 1.0 / 256.0, -128)],
        ),
        Invalid,
        "INT16 → INT16",
    );
    s.refused(
        "softmax_int16_output_zero_point_not_0",
        ModelSpec::single_op(
            B::SOFTMAX,
            Options::Softmax { beta: 1.0 },
            vec![int16(&[2, 5], (1e-3, 0))],
            vec![int16(&[2, 5], (1.0 / 32768.0, -32768))],
        ),
        Invalid,
        "zero point 0",
    );
    s.refused(
        // 257 x 257 taps of int16 can overflow TFLM's 32-bit window sum.
        "average_pool_int16_window_over_65536_taps",
        ModelSpec::single_op(
            B::AVERAGE_POOL_2D,
            Options::pool(Padding::VALID, (1, 1), (257, 257), Activation::NONE),
            vec![int16(&[1, 257, 257, 1], (0.01, 0))],
            vec![int16(&[1, 1, 1, 1], (0.01, 0))],
        ),
        Invalid,
        "65536 taps",
    );
    s.refused(
        "relu_output_size_differs",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensors[1].shape = Some(vec![1, 9])
        }),
        Invalid,
        "differ in size",
    );
    s.refused(
        "expand_dims_output_size_differs",
        ModelSpec::single_op(
            B::EXPAND_DIMS,
            Options::ExpandDims,
            vec![
                TensorSpec::f32(&[2, 3]),
                TensorSpec::int32(&[1]).constant_i32(&[0]),
            ],
            vec![TensorSpec::f32(&[1, 2, 4])],
        ),
        Invalid,
        "differ in size",
    );
}

fn resource_limits(cases: &mut Vec<Case>) {
    let mut s = Suite {
        cases,
        category: Category::ResourceLimits,
    };
    // 5 GiB of activations: beyond a 32-bit target's address space and the default arena limit.
    s.refused(
        "activation_of_5_gib",
        ModelSpec::single_op(
            B::RELU,
            Options::None,
            vec![TensorSpec::int8(&[1024, 1024, 1024, 5], 0.1, 0)],
            vec![TensorSpec::int8(&[1024, 1024, 1024, 5], 0.1, 0)],
        ),
        Refusal::Limit,
        "",
    );
    // 24 GiB: the C backend once declared a static array this large.
    s.refused(
        "activation_of_24_gib",
        unary_f32_shaped(&[1024, 1024, 1024, 6]),
        Refusal::Limit,
        "",
    );
    // A tensor whose byte size overflows 64 bits: refused by the tensor-size limit, not wrapped.
    s.refused(
        "byte_size_overflows_u64",
        unary_f32_shaped(&[i32::MAX, i32::MAX, i32::MAX]),
        Refusal::Limit,
        "max-tensor-bytes",
    );
    // A constant whose shape says 257 MiB: refused by the per-tensor limit from its shape alone,
    // before its (here much shorter) data is looked at or anything is copied.
    s.refused(
        "constant_of_257_mib",
        ModelSpec::single_op(
            B::ADD,
            Options::default_for(B::ADD),
            vec![
                TensorSpec::f32(&[257, 1024, 256]),
                TensorSpec::f32(&[257, 1024, 256]).constant(vec![0u8; 64]),
            ],
            vec![TensorSpec::f32(&[257, 1024, 256])],
        ),
        Refusal::Limit,
        "max-tensor-bytes",
    );
    // Many operators: above the default limit (100,000), refused before any per-operator work.
    s.refused(
        "operators_above_the_limit",
        with(ModelSpec::new(), |m| {
            let mut x = m.tensor(TensorSpec::f32(&[1]));
            m.inputs = vec![x];
            for _ in 0..100_001 {
                let y = m.tensor(TensorSpec::f32(&[1]));
                m.op(B::RELU, Options::None, &[x], &[y]);
                x = y;
            }
            m.outputs = vec![x];
        }),
        Refusal::Limit,
        "operator",
    );
}

/// CONCATENATION of `n` float32 `[1, 2]` graph inputs along the last axis.
fn concatenation_of(n: i32) -> ModelSpec {
    with(ModelSpec::new(), |m| {
        let ins: Vec<i32> = (0..n).map(|_| m.tensor(TensorSpec::f32(&[1, 2]))).collect();
        let out = m.tensor(TensorSpec::f32(&[1, 2 * n]));
        m.op(
            B::CONCATENATION,
            Options::default_for(B::CONCATENATION),
            &ins,
            &[out],
        );
        m.inputs = ins;
        m.outputs = vec![out];
    })
}

fn unary_f32_shaped(shape: &[i32]) -> ModelSpec {
    ModelSpec::single_op(
        B::RELU,
        Options::None,
        vec![TensorSpec::f32(shape)],
        vec![TensorSpec::f32(shape)],
    )
}

fn legitimate_corners(cases: &mut Vec<Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // Scale pairs where a float multiplier is 1 LSB off: RELU, LEAKY_RELU, SUB, ADD, MUL, FC,
    // CONV, QUANTIZE (requantize) and MEAN must all take TFLM's double arithmetic.
    const WIDE: &[i32] = &[4, 256];
    for k in 0..4u32 {
        let (a, b) = divergent_scales(k);
        s.accepted(
            &format!("relu_divergent_scales_{k}"),
            unary8_shaped(WIDE, B::RELU, Options::None, (a, -3), (b, 2)),
        );
        s.accepted(
            &format!("leaky_relu_divergent_scales_{k}"),
            unary8_shaped(
                WIDE,
                B::LEAKY_RELU,
                Options::LeakyRelu { alpha: 0.3 },
                (a, 1),
                (b, -1),
            ),
        );
        s.accepted(
            &format!("sub_divergent_scales_{k}"),
            binary8_shaped(WIDE, B::SUB, (a, 0), (b, 3), (a.max(b) * 2.0, -5)),
        );
        s.accepted(
            &format!("add_divergent_scales_{k}"),
            binary8_shaped(WIDE, B::ADD, (a, 0), (b, 3), (a.max(b) * 2.0, -5)),
        );
        s.accepted(
            &format!("fully_connected_divergent_scales_{k}"),
            fc8(a, 0.02, b * 4.0),
        );
        s.accepted(
            &format!("requantize_divergent_scales_{k}"),
            unary8_shaped(WIDE, B::QUANTIZE, Options::Quantize, (a, 4), (b, -4)),
        );
        s.accepted(
            &format!("hard_swish_divergent_scales_{k}"),
            unary8_shaped(WIDE, B::HARD_SWISH, Options::HardSwish, (a, 2), (b, -2)),
        );
    }
    // int16 activations (16x8): FULLY_CONNECTED applies both zero points, summing in 64 bits for
    // an INT64 bias and in 32 for an INT32 one; DEPTHWISE_CONV_2D with per-tensor weights and
    // without a bias.
    s.accepted("fully_connected_int16_zero_points", fc16(TensorType::INT64));
    s.accepted(
        "fully_connected_int16_int32_bias_zero_points",
        fc16(TensorType::INT32),
    );
    s.accepted("depthwise_int16_no_bias", dw16(None, 0));
    // input scale / output scale is 0.75 exactly in f32 but just below in f64: TFLM's multiplier
    // is 1610612690, the float one 1610612736, and half the odd inputs round differently.
    let (s_in, s_out) = (0.75f32 * 0.7f32, 0.7f32);
    s.accepted(
        "relu_ratio_three_quarters_in_float",
        unary8_shaped(WIDE, B::RELU, Options::None, (s_in, 0), (s_out, 0)),
    );
    s.accepted(
        "leaky_relu_ratio_three_quarters_in_float",
        unary8_shaped(
            WIDE,
            B::LEAKY_RELU,
            Options::LeakyRelu { alpha: 0.5 },
            (s_in, 0),
            (s_out, 0),
        ),
    );
    s.accepted(
        "fully_connected_product_three_quarters_in_float",
        fc8(s_in, 1.0, s_out),
    );
    s.accepted(
        "leaky_relu_alpha_zero",
        unary8(
            B::LEAKY_RELU,
            Options::LeakyRelu { alpha: 0.0 },
            (0.1, 0),
            (0.1, 0),
        ),
    );
    s.accepted(
        "leaky_relu_alpha_negative",
        unary8(
            B::LEAKY_RELU,
            Options::LeakyRelu { alpha: -0.5 },
            (0.1, 3),
            (0.1, 0),
        ),
    );
    // A rescaling factor below 2^-31 quantizes to multiplier 0, shift 0 in TFLM: every output is
    // the output zero point (then clamped), a defined result.
    s.accepted("relu_multiplier_underflows", relu8((1e-20, 0), (1e20, 7)));
    dead_channels(&mut s);
    int4::accepted(&mut s);
    folded_and_passed_through(&mut s);
    // A FlatBuffer that TFLM reads and the flatbuffers crate's verifier would refuse: an i64
    // zero-point vector at a position ≡ 4 (mod 8), as a vendor's post-processing leaves it; the
    // whole model 4 bytes off its alignment; tensor names and a description that are not UTF-8.
    let conv = conv8(Activation::RELU).to_bytes();
    let misaligned = crate::patch::misalign_zero_points(&conv, 1);
    s.bytes(
        "zero_points_unaligned",
        crate::patch::misalign_zero_points(&misaligned, 3),
        Expect::Accepted,
    );
    s.bytes(
        "model_off_its_alignment",
        crate::patch::shift(&conv, 4),
        Expect::Accepted,
    );
    let renamed =
        crate::patch::rename_tensor(&relu8((0.1, 0), (0.1, 0)).to_bytes(), 0, b"in\xff\xfe");
    let renamed = crate::patch::rename_tensor(&renamed, 1, b"\xc3(out");
    s.bytes(
        "names_not_utf8",
        crate::patch::set_description(&renamed, b"\x80description"),
        Expect::Accepted,
    );
    s.accepted(
        "relu_zero_points_at_the_int8_ends",
        relu8((0.05, -128), (0.05, 127)),
    );
    s.accepted("relu_scalar", {
        ModelSpec::single_op(
            B::RELU,
            Options::None,
            vec![TensorSpec::int8(&[], 0.1, 0)],
            vec![TensorSpec::int8(&[], 0.1, 0)],
        )
    });
    s.accepted("add_rank_6_broadcast", {
        ModelSpec::single_op(
            B::ADD,
            Options::default_for(B::ADD),
            vec![
                TensorSpec::f32(&[2, 1, 2, 1, 2, 1]),
                TensorSpec::f32(&[1, 2, 1, 2, 1, 2]),
            ],
            vec![TensorSpec::f32(&[2, 2, 2, 2, 2, 2])],
        )
    });
    s.accepted(
        "squeeze_all_size_1",
        ModelSpec::single_op(
            B::SQUEEZE,
            Options::Squeeze {
                squeeze_dims: Vec::new(),
            },
            vec![TensorSpec::f32(&[1, 3, 1])],
            vec![TensorSpec::f32(&[3])],
        ),
    );
    s.accepted(
        "squeeze_negative_dim",
        ModelSpec::single_op(
            B::SQUEEZE,
            Options::Squeeze {
                squeeze_dims: vec![-1],
            },
            vec![TensorSpec::f32(&[1, 3, 1])],
            vec![TensorSpec::f32(&[1, 3])],
        ),
    );
    s.accepted(
        "softmax_int8_to_int16",
        ModelSpec::single_op(
            B::SOFTMAX,
            Options::Softmax { beta: 1.0 },
            vec![TensorSpec::int8(&[2, 5], 0.1, 3)],
            vec![TensorSpec::new(TensorType::INT16, &[2, 5]).quant(1.0 / 65536.0, -32768)],
        ),
    );
    s.accepted(
        "quantize_int16_to_int8",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::new(TensorType::INT16, &[1, 8]).quant(0.001, 0)],
            vec![TensorSpec::int8(&[1, 8], 0.05, 1)],
        ),
    );
    // int16 (16x8) corners. LOGISTIC and TANH: TFLM's power-of-two input scales (2^-12 for both,
    // 2^-11 for TANH: multiplier 3 or 6, no shift) and a large general one (multiplier 30720, most
    // inputs saturate); full-range random inputs reach every table entry.
    const WIDE16: &[i32] = &[4, 256];
    let q15 = (1.0 / 32768.0, 0);
    s.accepted(
        "logistic_int16_input_scale_2_pow_minus_12",
        unary16(WIDE16, B::LOGISTIC, (1.0 / 4096.0, 0), q15),
    );
    s.accepted(
        "tanh_int16_input_scale_2_pow_minus_11",
        unary16(WIDE16, B::TANH, (1.0 / 2048.0, 0), q15),
    );
    s.accepted(
        "logistic_int16_input_scale_2_5",
        unary16(WIDE16, B::LOGISTIC, (2.5, 0), q15),
    );
    s.accepted(
        "tanh_int16_input_scale_1e_minus_4",
        unary16(WIDE16, B::TANH, (1e-4, 0), q15),
    );
    // RELU int16 requantizes with TFLM's double ratio (the divergent pairs), RELU6 int16 clamps
    // raw values to [zp_in, q(6)] and looks at no zero point or output scale.
    for k in 0..2u32 {
        let (a, b) = divergent_scales(k);
        s.accepted(
            &format!("relu_int16_divergent_scales_{k}"),
            unary16(WIDE16, B::RELU, (a, 0), (b * 16.0, 0)),
        );
    }
    s.accepted(
        "relu6_int16_zero_point",
        unary16(WIDE16, B::RELU6, (0.0004, -3000), (0.05, 7)),
    );
    // CONCATENATION int16 with different scales: concatenated raw, no requantization.
    s.accepted(
        "concatenation_int16_different_scales",
        ModelSpec::single_op(
            B::CONCATENATION,
            Options::default_for(B::CONCATENATION),
            vec![int16(&[2, 3], (0.01, 0)), int16(&[2, 5], (0.5, 0))],
            vec![int16(&[2, 8], (0.02, 0))],
        ),
    );
    // The QUANTIZE and DEQUANTIZE conversions into and out of int16 with nonzero zero points.
    s.accepted(
        "quantize_int8_to_int16",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int8(WIDE16, 0.05, 3)],
            vec![int16(WIDE16, (0.0013, -20))],
        ),
    );
    // int8 ↔ int32, TFLM's other integer conversions: zero points on both sides, and int32 inputs
    // beyond the int8 range (clamped).
    s.accepted(
        "quantize_int8_to_int32",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int8(WIDE16, 0.05, 3)],
            vec![TensorSpec::int32(WIDE16).quant(0.0007, -1000)],
        ),
    );
    s.accepted(
        "quantize_int32_to_int8",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int32(WIDE16).quant(0.0007, 12)],
            vec![TensorSpec::int8(WIDE16, 0.01, -5)],
        ),
    );
    s.accepted("quantize_int16_to_int16_divergent_scales", {
        let (a, b) = divergent_scales(2);
        unary16(WIDE16, B::QUANTIZE, (a, 5), (b * 8.0, -9))
    });
    s.accepted(
        "quantize_float_to_int16_zero_point",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::f32(WIDE16)],
            vec![int16(WIDE16, (0.0001, -7))],
        ),
    );
    s.accepted(
        "dequantize_int16_zero_point",
        ModelSpec::single_op(
            B::DEQUANTIZE,
            Options::Dequantize,
            vec![int16(WIDE16, (0.002, 11))],
            vec![TensorSpec::f32(WIDE16)],
        ),
    );
    // TFLM's uint8 conversions: int8 ↔ uint8 (with the zero points 128 apart at equal scales, its
    // `x ^ 0x80` shortcut) and uint8 → float32.
    let uint8 = |scale: f32, zero_point: i64| {
        TensorSpec::new(TensorType::UINT8, WIDE16).quant(scale, zero_point)
    };
    s.accepted(
        "quantize_int8_to_uint8_zero_points_128_apart",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int8(WIDE16, 0.05, -3)],
            vec![uint8(0.05, 125)],
        ),
    );
    s.accepted(
        "quantize_int8_to_uint8",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![TensorSpec::int8(WIDE16, 0.05, 3)],
            vec![uint8(0.03, 140)],
        ),
    );
    s.accepted(
        "quantize_uint8_to_int8",
        ModelSpec::single_op(
            B::QUANTIZE,
            Options::Quantize,
            vec![uint8(0.1, 100)],
            vec![TensorSpec::int8(WIDE16, 0.07, -10)],
        ),
    );
    s.accepted(
        "dequantize_uint8",
        ModelSpec::single_op(
            B::DEQUANTIZE,
            Options::Dequantize,
            vec![uint8(0.02, 131)],
            vec![TensorSpec::f32(WIDE16)],
        ),
    );
    // MEAN int16 with zero points and different scales (TFLM's integer path, as int8's).
    s.accepted(
        "mean_int16_zero_points",
        ModelSpec::single_op(
            B::MEAN,
            Options::Reducer { keep_dims: false },
            vec![
                int16(&[1, 5, 7, 6], (0.003, 40)),
                TensorSpec::int32(&[1]).constant_i32(&[2]),
            ],
            vec![int16(&[1, 5, 6], (0.002, -15))],
        ),
    );
    // int32 ADD, SUB, MUL, MAXIMUM and MINIMUM: TFLM's unquantized int32 arithmetic, same shape
    // and broadcast. Full-range random inputs overflow often: tinyaot wraps (TFLM's MUL wraps by
    // definition, its ADD and SUB overflow a C++ int32, undefined, and wrap as compiled).
    // ADD's int32 path ignores the fused activation (its range is int32's); SUB and MUL clamp to
    // `CalculateActivationRange<int32_t>`: RELU [0, max], RELU6 [0, 6], RELU_N1_TO_1 [-1, 1], and
    // the whole range for the others, TANH and SIGN_BIT included.
    s.accepted(
        "add_int32_relu_ignored",
        binary32(B::ADD, &[2, 8], &[2, 8], &[2, 8], Activation::RELU),
    );
    s.accepted(
        "add_int32_broadcast",
        binary32(B::ADD, &[2, 3, 4], &[4], &[2, 3, 4], Activation::NONE),
    );
    s.accepted(
        "add_int32_constant_overflows",
        with(
            binary32(B::ADD, &[2, 1, 4], &[3, 1], &[2, 3, 4], Activation::NONE),
            |m| {
                m.tensors[1] = m.tensors[1].clone().constant_i32(&[i32::MAX, i32::MIN, -1]);
                m.inputs = vec![0];
            },
        ),
    );
    s.accepted(
        "sub_int32_relu",
        binary32(B::SUB, &[2, 8], &[2, 8], &[2, 8], Activation::RELU),
    );
    s.accepted(
        "sub_int32_broadcast_relu6",
        binary32(B::SUB, &[2, 1, 4], &[3, 1], &[2, 3, 4], Activation::RELU6),
    );
    s.accepted(
        "sub_int32_tanh_clamps_nothing",
        binary32(B::SUB, &[4, 4], &[4], &[4, 4], Activation::TANH),
    );
    s.accepted(
        "mul_int32",
        binary32(B::MUL, &[2, 8], &[2, 8], &[2, 8], Activation::NONE),
    );
    s.accepted(
        "mul_int32_broadcast_relu_n1_to_1",
        with(
            binary32(
                B::MUL,
                &[3, 1],
                &[2, 1, 4],
                &[2, 3, 4],
                Activation::RELU_N1_TO_1,
            ),
            |m| {
                // Small factors: products within [-1, 1] and beyond it both occur.
                m.tensors[0] = m.tensors[0].clone().constant_i32(&[0, 1, -1]);
                m.inputs = vec![1];
            },
        ),
    );
    s.accepted(
        "mul_int32_broadcast_relu",
        binary32(B::MUL, &[2, 3, 1], &[3, 4], &[2, 3, 4], Activation::RELU),
    );
    s.accepted(
        "maximum_int32",
        binary32(B::MAXIMUM, &[2, 8], &[2, 8], &[2, 8], Activation::NONE),
    );
    s.accepted(
        "minimum_int32_broadcast",
        binary32(
            B::MINIMUM,
            &[2, 3, 4],
            &[3, 1],
            &[2, 3, 4],
            Activation::NONE,
        ),
    );
    s.accepted(
        "maximum_int32_scalar",
        binary32(B::MAXIMUM, &[], &[2, 5], &[2, 5], Activation::NONE),
    );
    // Quantization parameters TFLM does not look at: ADD checks its inputs only, MUL, MAXIMUM and
    // MINIMUM none (their int32 paths read no scale or zero point).
    s.accepted(
        "add_int32_quantized_output",
        with(
            binary32(B::ADD, &[2, 4], &[2, 4], &[2, 4], Activation::NONE),
            |m| m.tensors[2] = m.tensors[2].clone().quant(0.5, 3),
        ),
    );
    s.accepted(
        "mul_int32_quantized",
        with(
            binary32(B::MUL, &[2, 4], &[4], &[2, 4], Activation::RELU6),
            |m| {
                for (t, (scale, zero_point)) in
                    [(0.5, 3), (0.25, -7), (2.0, 11)].into_iter().enumerate()
                {
                    m.tensors[t] = m.tensors[t].clone().quant(scale, zero_point);
                }
            },
        ),
    );
    s.accepted(
        "minimum_int32_quantized",
        with(
            binary32(B::MINIMUM, &[2, 4], &[2, 4], &[2, 4], Activation::NONE),
            |m| {
                m.tensors[0] = m.tensors[0].clone().quant(0.5, 3);
                m.tensors[2] = m.tensors[2].clone().quant(0.1, -2);
            },
        ),
    );
    s.accepted("conv_fused_relu6", conv8(Activation::RELU6));
    s.accepted(
        "conv_dilation_2",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].options = Options::Conv2D {
                padding: Padding::SAME,
                stride_w: 1,
                stride_h: 1,
                dilation_w: 2,
                dilation_h: 2,
                activation: Activation::NONE,
            }
        }),
    );
    s.accepted(
        "conv_without_bias",
        with(conv8(Activation::NONE), |m| {
            m.operators[0].inputs = vec![0, 1, -1]
        }),
    );
    s.accepted(
        "fully_connected_keep_num_dims",
        with(fc8(0.5, 0.25, 1.0), |m| {
            m.operators[0].options = Options::FullyConnected {
                activation: Activation::RELU,
                weights_format: crate::WeightsFormat::DEFAULT,
                keep_num_dims: true,
            };
            m.tensors[0].shape = Some(vec![1, 1, 8]);
            m.tensors[3].shape = Some(vec![1, 1, 4]);
        }),
    );
    s.accepted(
        "max_pool_window_larger_than_input",
        ModelSpec::single_op(
            B::MAX_POOL_2D,
            Options::pool(Padding::SAME, (2, 2), (5, 5), Activation::NONE),
            vec![TensorSpec::int8(&[1, 3, 3, 2], 0.1, 1)],
            vec![TensorSpec::int8(&[1, 2, 2, 2], 0.1, 1)],
        ),
    );
    // int16 pools with a zero point, which TFLM allows (16x8 models have none): the average rounds
    // around raw 0, not around the zero point; the activation ranges are the zero point's.
    s.accepted(
        "average_pool_int16_zero_point",
        ModelSpec::single_op(
            B::AVERAGE_POOL_2D,
            Options::pool(Padding::SAME, (2, 2), (2, 2), Activation::RELU_N1_TO_1),
            vec![int16(&[1, 5, 7, 3], (1.0 / 4096.0, -300))],
            vec![int16(&[1, 3, 4, 3], (1.0 / 4096.0, -300))],
        ),
    );
    s.accepted(
        "max_pool_int16_zero_point_relu",
        ModelSpec::single_op(
            B::MAX_POOL_2D,
            Options::pool(Padding::SAME, (2, 2), (2, 2), Activation::RELU),
            vec![int16(&[1, 5, 7, 2], (0.5, 20000))],
            vec![int16(&[1, 3, 4, 2], (0.5, 20000))],
        ),
    );
    // int16 SOFTMAX with beta 0.5 and an input scale whose multiplier shifts left (by 3): most
    // differences saturate to the exp table's first entry.
    s.accepted(
        "softmax_int16_beta_and_left_shift",
        ModelSpec::single_op(
            B::SOFTMAX,
            Options::Softmax { beta: 0.5 },
            vec![int16(&[3, 7], (0.002, 0))],
            vec![int16(&[3, 7], (1.0 / 32768.0, 0))],
        ),
    );
    s.accepted(
        "strided_slice_rank_4_with_masks",
        ModelSpec::single_op(
            B::STRIDED_SLICE,
            Options::StridedSlice {
                begin_mask: 1,
                end_mask: 2,
                ellipsis_mask: 0,
                new_axis_mask: 0,
                shrink_axis_mask: 0,
                offset: false,
            },
            vec![
                TensorSpec::f32(&[2, 3, 2, 2]),
                TensorSpec::int32(&[4]).constant_i32(&[1, 0, 0, 1]),
                TensorSpec::int32(&[4]).constant_i32(&[2, 3, 2, 2]),
                TensorSpec::int32(&[4]).constant_i32(&[1, 2, 1, 1]),
            ],
            vec![TensorSpec::f32(&[2, 2, 2, 1])],
        ),
    );
    s.accepted("concatenation_10_inputs", concatenation_of(10));
    s.accepted(
        "unused_tensors_and_buffers",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.tensor(TensorSpec::f32(&[100]));
            m.tensor(TensorSpec::int8(&[4], 0.1, 0).constant_i8(&[1, 2, 3, 4]));
            m.buffer(BufferSpec::Data(vec![9; 16]));
        }),
    );
    s.accepted(
        "offline_memory_allocation_metadata",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            m.offline_plan(&[0, 16]);
        }),
    );
    s.accepted(
        "reshape_chain",
        with(ModelSpec::new(), |m| {
            let x = m.tensor(TensorSpec::f32(&[2, 3]));
            let a = m.tensor(TensorSpec::f32(&[3, 2]));
            let b = m.tensor(TensorSpec::f32(&[6]));
            let c = m.tensor(TensorSpec::f32(&[6]));
            m.op(
                B::RESHAPE,
                Options::Reshape {
                    new_shape: Some(vec![3, 2]),
                },
                &[x],
                &[a],
            );
            m.op(
                B::RESHAPE,
                Options::Reshape {
                    new_shape: Some(vec![6]),
                },
                &[a],
                &[b],
            );
            m.op(B::RELU, Options::None, &[b], &[c]);
            m.inputs = vec![x];
            m.outputs = vec![c];
        }),
    );
    s.accepted(
        "two_graph_outputs_from_one_op_chain",
        with(relu8((0.1, 0), (0.1, 0)), |m| {
            let t = m.tensor(TensorSpec::int8(&[1, 8], 0.1, 0));
            m.op(B::RELU6, Options::None, &[1], &[t]);
            m.outputs = vec![1, t];
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_the_suite_is_large() {
        let cases = cases();
        let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), cases.len());
        assert!(cases.len() >= 100, "{} cases", cases.len());
    }

    #[test]
    fn divergent_scales_diverge() {
        for k in 0..4 {
            let (a, b) = divergent_scales(k);
            assert_ne!(
                quantize_multiplier(f64::from(a / b)),
                quantize_multiplier(f64::from(a) / f64::from(b))
            );
        }
    }
}

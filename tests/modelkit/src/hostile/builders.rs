//! The shared base models of the hostile suite: small int8, int16 and float32 models of one or
//! two operators, which the category files take as they are or edit into their cases.

use crate::{
    Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec, TensorType,
};

/// One int8 operator `[1, 8] → [1, 8]` with the given input and output quantization.
pub(super) fn unary8(op: B, options: Options, input: (f32, i64), output: (f32, i64)) -> ModelSpec {
    unary8_shaped(&[1, 8], op, options, input, output)
}

/// The same over `shape` (the divergent-scale cases take 1,024 elements, so that random inputs
/// reach the values where a 1-LSB multiplier error shows).
pub(super) fn unary8_shaped(
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
pub(super) fn int16(shape: &[i32], (scale, zero_point): (f32, i64)) -> TensorSpec {
    TensorSpec::new(TensorType::INT16, shape).quant(scale, zero_point)
}

/// One int16 operator over `shape` with the given input and output quantization.
pub(super) fn unary16(shape: &[i32], op: B, input: (f32, i64), output: (f32, i64)) -> ModelSpec {
    ModelSpec::single_op(
        op,
        Options::default_for(op),
        vec![int16(shape, input)],
        vec![int16(shape, output)],
    )
}

pub(super) fn relu8(input: (f32, i64), output: (f32, i64)) -> ModelSpec {
    unary8(B::RELU, Options::None, input, output)
}

/// ADD / SUB / MUL of two int8 `[1, 4]` tensors.
pub(super) fn binary8(op: B, a: (f32, i64), b: (f32, i64), out: (f32, i64)) -> ModelSpec {
    binary8_shaped(&[1, 4], op, a, b, out)
}

/// The same over `shape`.
pub(super) fn binary8_shaped(
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

/// ADD / SUB / MUL / DIV / SQUARED_DIFFERENCE / MAXIMUM / MINIMUM of two int32 tensors of shapes `a` and `b` into one of
/// shape `out`, none of them quantized (TFLM's unquantized int32 arithmetic), with the fused
/// `activation` where the operator has one.
pub(super) fn binary32(
    op: B,
    a: &[i32],
    b: &[i32],
    out: &[i32],
    activation: Activation,
) -> ModelSpec {
    let options = match op {
        B::ADD => Options::Add { activation },
        B::SUB => Options::Sub { activation },
        B::MUL => Options::Mul { activation },
        B::DIV => Options::Div { activation },
        B::SQUARED_DIFFERENCE => Options::SquaredDifference,
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
pub(super) fn conv8(activation: Activation) -> ModelSpec {
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
pub(super) fn fc8(s_in: f32, s_w: f32, s_out: f32) -> ModelSpec {
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
pub(super) fn fc16(bias: TensorType) -> ModelSpec {
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
pub(super) fn dw16(bias: Option<TensorType>, zero_point: i64) -> ModelSpec {
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

/// `len` pseudo-random int8 weights (the same for the same length).
pub(super) fn pseudo_random_weights(len: usize) -> Vec<i8> {
    (0..len).map(|i| ((i * 53 + 11) % 255) as i8).collect()
}

/// A float32 unary op `[2, 3] → [2, 3]`.
pub(super) fn unary_f32(op: B, options: Options) -> ModelSpec {
    ModelSpec::single_op(
        op,
        options,
        vec![TensorSpec::f32(&[2, 3])],
        vec![TensorSpec::f32(&[2, 3])],
    )
}

/// `m` changed by `f`.
pub(super) fn with(mut m: ModelSpec, f: impl FnOnce(&mut ModelSpec)) -> ModelSpec {
    f(&mut m);
    m
}

/// CONCATENATION of `n` float32 `[1, 2]` graph inputs along the last axis.
pub(super) fn concatenation_of(n: i32) -> ModelSpec {
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

/// STRIDED_SLICE of a graph input `input` by constant INT32 `begin`, `end` and `strides` into the
/// graph output `output`, with `options` (an [`Options::StridedSlice`]).
pub(super) fn strided_slice_of(
    input: TensorSpec,
    (begin, end, strides): (&[i32], &[i32], &[i32]),
    output: TensorSpec,
    options: Options,
) -> ModelSpec {
    with(ModelSpec::new(), |m| {
        let constant = |v: &[i32]| TensorSpec::int32(&[v.len() as i32]).constant_i32(v);
        let x = m.tensor(input);
        let begin = m.tensor(constant(begin));
        let end = m.tensor(constant(end));
        let strides = m.tensor(constant(strides));
        let out = m.tensor(output);
        m.inputs = vec![x];
        m.outputs = vec![out];
        m.op(B::STRIDED_SLICE, options, &[x, begin, end, strides], &[out]);
    })
}

/// A control tensor (an operator's begin, size, block shape, paddings, …) that TFLM's Eval alone
/// reads (issue 32), for [`control`] to build.
pub(super) enum Control<'a> {
    /// A graph input of INT32 (or, `wide`, INT64) values (their whole range in the goldens)
    /// clamped by MAXIMUM, then MINIMUM, to these per-element `(low, high)` bounds: every value
    /// where TFLM is defined whatever the input, the bounds themselves most often.
    Clamped {
        /// INT64; otherwise INT32.
        wide: bool,
        /// Each element's bounds.
        bounds: &'a [(i64, i64)],
    },
    /// INT32 `CAST(x * scale) + offsets`, `x` a FLOAT32 graph input of one element (uniform in
    /// [-1, 1) in the goldens): each value its offset plus one truncated value of the case.
    CastOf {
        /// The scale of `x`.
        scale: f32,
        /// One offset per element.
        offsets: &'a [i32],
    },
    /// A constant INT32 tensor.
    Constant(&'a [i32]),
    /// A constant INT64 tensor.
    Constant64(&'a [i64]),
}

/// The tensor of `shape` (as many elements as `c` gives) that `c` describes, in `m`, its graph
/// inputs appended to `m.inputs`.
pub(super) fn control(m: &mut ModelSpec, c: Control<'_>, shape: &[i32]) -> i32 {
    match c {
        Control::Clamped { wide, bounds } => {
            let t = |values: Option<Vec<i64>>| {
                let (dtype, values) = if wide {
                    (TensorType::INT64, values)
                } else {
                    (TensorType::INT32, values)
                };
                let spec = TensorSpec::new(dtype, shape);
                match values {
                    Some(v) if wide => spec.constant_i64(&v),
                    Some(v) => spec.constant_i32(&v.iter().map(|&x| x as i32).collect::<Vec<_>>()),
                    None => spec,
                }
            };
            let raw = m.tensor(t(None));
            m.inputs.push(raw);
            let low = m.tensor(t(Some(bounds.iter().map(|b| b.0).collect())));
            let high = m.tensor(t(Some(bounds.iter().map(|b| b.1).collect())));
            let floored = m.tensor(t(None));
            m.op(B::MAXIMUM, Options::None, &[raw, low], &[floored]);
            let clamped = m.tensor(t(None));
            m.op(B::MINIMUM, Options::None, &[floored, high], &[clamped]);
            clamped
        }
        Control::CastOf { scale, offsets } => {
            let raw = m.tensor(TensorSpec::f32(&[1]));
            m.inputs.push(raw);
            let scale = m.tensor(TensorSpec::f32(&[1]).constant_f32(&[scale]));
            let scaled = m.tensor(TensorSpec::f32(&[1]));
            m.op(
                B::MUL,
                Options::default_for(B::MUL),
                &[raw, scale],
                &[scaled],
            );
            let v = m.tensor(TensorSpec::int32(&[1]));
            m.op(B::CAST, Options::None, &[scaled], &[v]);
            let offsets = m.tensor(TensorSpec::int32(shape).constant_i32(offsets));
            let sum = m.tensor(TensorSpec::int32(shape));
            m.op(B::ADD, Options::default_for(B::ADD), &[v, offsets], &[sum]);
            sum
        }
        Control::Constant(values) => m.tensor(TensorSpec::int32(shape).constant_i32(values)),
        Control::Constant64(values) => {
            m.tensor(TensorSpec::new(TensorType::INT64, shape).constant_i64(values))
        }
    }
}

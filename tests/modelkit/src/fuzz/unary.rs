//! The single-input element-wise operators: activations, math, the normalizing ones (SOFTMAX,
//! LOGISTIC, TANH, LOG_SOFTMAX, L2_NORMALIZATION), QUANTIZE and DEQUANTIZE.

use super::{FuzzOp, Gen};
use crate::{BuiltinOperator as B, Options, TensorSpec, TensorType};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::ABS, elementwise),
    FuzzOp::new(B::CEIL, elementwise),
    FuzzOp::new(B::COS, elementwise),
    FuzzOp::new(B::DEQUANTIZE, quantize),
    FuzzOp::new(B::ELU, elementwise),
    FuzzOp::new(B::EXP, elementwise),
    FuzzOp::new(B::FLOOR, elementwise),
    FuzzOp::new(B::HARD_SWISH, elementwise),
    FuzzOp::new(B::L2_NORMALIZATION, normalizing),
    FuzzOp::new(B::LEAKY_RELU, elementwise),
    FuzzOp::new(B::LOG, elementwise),
    FuzzOp::new(B::LOGISTIC, normalizing),
    FuzzOp::new(B::LOG_SOFTMAX, normalizing),
    FuzzOp::new(B::NEG, elementwise),
    FuzzOp::new(B::QUANTIZE, quantize),
    FuzzOp::new(B::RELU, elementwise),
    FuzzOp::new(B::RELU6, elementwise),
    FuzzOp::new(B::ROUND, elementwise),
    FuzzOp::new(B::RSQRT, elementwise),
    FuzzOp::new(B::SIN, elementwise),
    FuzzOp::new(B::SOFTMAX, normalizing),
    FuzzOp::new(B::SQRT, elementwise),
    FuzzOp::new(B::SQUARE, elementwise),
    FuzzOp::new(B::TANH, normalizing),
];

/// SOFTMAX, LOGISTIC, TANH, LOG_SOFTMAX or L2_NORMALIZATION of the latest value, int8 outputs
/// in the quantization TFLM requires or computes in.
fn normalizing(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    // TFLM's L2_NORMALIZATION takes rank 4 at most.
    if op == B::L2_NORMALIZATION && shape.len() > 4 {
        return g.emit(B::RELU);
    }
    let out = if g.int8 {
        // The output quantization TFLM requires (LOG_SOFTMAX) or computes in
        // (L2_NORMALIZATION, TANH, SOFTMAX).
        let (s, z) = match op {
            B::TANH | B::L2_NORMALIZATION => (1.0 / 128.0, 0),
            B::LOG_SOFTMAX => (16.0 / 256.0, 127),
            _ => (1.0 / 256.0, -128),
        };
        TensorSpec::int8(&shape, s, z)
    } else {
        TensorSpec::f32(&shape)
    };
    let options = match op {
        B::SOFTMAX => Options::Softmax {
            beta: g.pick(&[1.0, 0.5, 2.0, 1e-3]),
        },
        _ => Options::None,
    };
    g.push_op(op, options, &[v.index], out);
}

/// QUANTIZE or DEQUANTIZE of the latest value (DEQUANTIZE only of an int8 one); the chain goes on
/// in the output's flavour.
fn quantize(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    // DEQUANTIZE takes int8 only; on a float value, QUANTIZE instead.
    let op = if g.dtype_of(v) == TensorType::INT8 {
        op
    } else {
        B::QUANTIZE
    };
    let shape = g.shape_of(v);
    let input_int8 = g.dtype_of(v) == TensorType::INT8;
    let out = if op == B::DEQUANTIZE || (op == B::QUANTIZE && !input_int8) {
        // DEQUANTIZE int8→float; QUANTIZE float→int8.
        if op == B::DEQUANTIZE {
            TensorSpec::f32(&shape)
        } else {
            let (s, z) = (g.scale(), g.zero_point());
            TensorSpec::int8(&shape, s, z)
        }
    } else {
        // QUANTIZE int8→int8: a requantization.
        let (s, z) = (g.scale(), g.zero_point());
        TensorSpec::int8(&shape, s, z)
    };
    let options = Options::default_for(op);
    let out_int8 = out.dtype == TensorType::INT8;
    g.push_op(op, options, &[v.index], out);
    // The chain continues in the output's flavour.
    g.int8 = out_int8;
}

/// One of the single-input element-wise operators of the latest value.
fn elementwise(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let shape = g.shape_of(v);
    let out = g.activation(&shape);
    let options = match op {
        B::LEAKY_RELU => Options::LeakyRelu {
            alpha: g.pick(&[0.2, 0.01, 1.0, -0.5, 3.0]),
        },
        _ => Options::default_for(op),
    };
    g.push_op(op, options, &[v.index], out);
}

//! The corners of the math operators of issue 34 (SQUARED_DIFFERENCE, DIV, EXP, LOG, ELU,
//! LOG_SOFTMAX): the types no converter-made fixture has (int32), what TFLM's kernels refuse, and
//! the inputs they treat specially.

use super::builders::{binary32, binary8_shaped, int16, unary16, unary8};
use super::{Category, Refusal, Suite};
use crate::{Activation, BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

/// The cases, appended to `cases`.
pub(super) fn math_ops(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    // INT32 SQUARED_DIFFERENCE (TFLM's unquantized path, wrapping where the square overflows),
    // broadcast; INT32 DIV truncating, with a fused RELU6 and broadcast.
    s.accepted(
        "squared_difference_int32_broadcast",
        binary32(
            B::SQUARED_DIFFERENCE,
            &[2, 3, 4],
            &[4],
            &[2, 3, 4],
            Activation::NONE,
        ),
    );
    s.accepted(
        "div_int32",
        binary32(B::DIV, &[2, 8], &[2, 8], &[2, 8], Activation::NONE),
    );
    s.accepted(
        "div_int32_relu6_broadcast",
        binary32(B::DIV, &[2, 1, 4], &[3, 1], &[2, 3, 4], Activation::RELU6),
    );
    // int8 DIV whose divisor is a constant holding its zero point (a division by zero: TFLM's
    // GetReciprocal of 0) and values beside it, and whose output shift is below 7 (the dividend's
    // headroom plus the divisor's shift above 31: TFLM's rounding shift by 32 or more).
    s.accepted("div_int8_divisor_at_zero_point", {
        let mut m = binary8_shaped(&[2, 4], B::DIV, (0.02, 3), (0.05, -7), (2.0, 1));
        m.tensors[1] =
            TensorSpec::int8(&[2, 4], 0.05, -7).constant_i8(&[-7, -6, -8, 127, -128, 0, -7, 100]);
        m.inputs = vec![0];
        m
    });
    s.category = Category::TypesAndParameters;
    s.refused(
        "div_int32_quantized_input",
        {
            let mut m = binary32(B::DIV, &[2, 4], &[2, 4], &[2, 4], Activation::NONE);
            m.tensors[1] = m.tensors[1].clone().quant(0.5, 0);
            m
        },
        Refusal::Invalid,
        "TFLM's INT32 DIV requires unquantized inputs",
    );
    s.refused(
        "div_int16",
        ModelSpec::single_op(
            B::DIV,
            Options::Div {
                activation: Activation::NONE,
            },
            vec![int16(&[1, 4], (0.5, 0)), int16(&[1, 4], (0.5, 0))],
            vec![int16(&[1, 4], (0.5, 0))],
        ),
        Refusal::Invalid,
        "TFLM's DIV supports FLOAT32, INT32 and INT8",
    );
    s.refused(
        "squared_difference_int16_zero_point",
        ModelSpec::single_op(
            B::SQUARED_DIFFERENCE,
            Options::SquaredDifference,
            vec![int16(&[1, 4], (0.5, 0)), int16(&[1, 4], (0.5, 3))],
            vec![int16(&[1, 4], (0.5, 0))],
        ),
        Refusal::Invalid,
        "TFLM requires all to be 0",
    );
    s.refused(
        "squared_difference_int64",
        ModelSpec::single_op(
            B::SQUARED_DIFFERENCE,
            Options::SquaredDifference,
            vec![
                TensorSpec::new(TensorType::INT64, &[1, 4]),
                TensorSpec::new(TensorType::INT64, &[1, 4]),
            ],
            vec![TensorSpec::new(TensorType::INT64, &[1, 4])],
        ),
        Refusal::Invalid,
        "TFLM's SQUARED_DIFFERENCE supports FLOAT32, INT32, INT8 and INT16",
    );
    // EXP and LOG are float32 only in TFLM (exp.cc's Prepare, elementwise.cc's GenericPrepare);
    // ELU float32 and int8 (elu.cc's Eval).
    s.refused(
        "exp_int8",
        unary8(B::EXP, Options::None, (0.05, 0), (0.1, -128)),
        Refusal::Invalid,
        "TFLM's kernel supports FLOAT32",
    );
    s.refused(
        "log_int8",
        unary8(B::LOG, Options::None, (0.05, -128), (0.05, 0)),
        Refusal::Invalid,
        "TFLM's kernel supports FLOAT32",
    );
    s.refused(
        "elu_int16",
        unary16(&[1, 8], B::ELU, (0.001, 0), (0.001, 0)),
        Refusal::Invalid,
        "TFLM's ELU supports FLOAT32 and INT8",
    );
    // LOG_SOFTMAX: int8 in TFLM's fixed output quantization (16/256, 127); int16 TFLM refuses.
    s.accepted(
        "log_softmax_int8",
        unary8(B::LOG_SOFTMAX, Options::None, (0.1, 0), (16.0 / 256.0, 127)),
    );
    s.refused(
        "log_softmax_int16",
        unary16(&[1, 8], B::LOG_SOFTMAX, (0.001, 0), (0.001, 0)),
        Refusal::Invalid,
        "TFLM's LOG_SOFTMAX supports FLOAT32 and INT8",
    );
    s.refused(
        "exp_reshaping_output",
        ModelSpec::single_op(
            B::EXP,
            Options::None,
            vec![TensorSpec::f32(&[2, 4])],
            vec![TensorSpec::f32(&[4, 2])],
        ),
        Refusal::Invalid,
        "TFLM requires them equal",
    );
}

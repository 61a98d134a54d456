//! The family's lowering tests: TFLM's Prepare checks and parameters, and the broadcast.

use super::super::testing::{fields, graph, kernel, per_tensor, reason, tensor};
use super::broadcast;
use crate::ir::{Activation, DType, OpCode, Options};
use crate::lower::Value;

/// An int32 `op` of `[2, 4]` and `[4]` with `activation`; `quantized` tensors (0, 1: inputs,
/// 2: output) carry a scale and zero point.
fn int32_graph(
    op: OpCode,
    activation: Activation,
    quantized: &[usize],
) -> crate::ir::Graph<'static> {
    let q = |i: usize| quantized.contains(&i).then(|| per_tensor(0.5, 3)).flatten();
    graph(
        op,
        Options::Arithmetic { activation },
        vec![
            tensor(&[2, 4], DType::I32, q(0), None),
            tensor(&[4], DType::I32, q(1), None),
            tensor(&[2, 4], DType::I32, q(2), None),
        ],
        &[Some(0), Some(1)],
    )
}

/// int32 ADD ignores the fused activation, SUB and MUL clamp to TFLM's int32 ranges (TANH:
/// none); ADD refuses quantized inputs, SUB a quantized output, MUL and MINIMUM neither.
#[test]
fn int32_follows_tflm_prepare() {
    let range = |g: &crate::ir::Graph| {
        let f = fields(g);
        (f[3].1.clone(), f[4].1.clone())
    };
    let full = (Value::I32(i32::MIN), Value::I32(i32::MAX));
    let g = int32_graph(OpCode::ADD, Activation::Relu, &[2]);
    assert_eq!(kernel(&g).function, "add_s32");
    assert_eq!(range(&g), full);
    let g = int32_graph(OpCode::SUB, Activation::Relu6, &[]);
    assert_eq!(kernel(&g).function, "sub_s32");
    assert_eq!(range(&g), (Value::I32(0), Value::I32(6)));
    let g = int32_graph(OpCode::MUL, Activation::ReluN1To1, &[0, 1, 2]);
    assert_eq!(kernel(&g).function, "mul_s32");
    assert_eq!(range(&g), (Value::I32(-1), Value::I32(1)));
    assert_eq!(
        range(&int32_graph(OpCode::MUL, Activation::Tanh, &[])),
        full
    );
    assert_eq!(
        kernel(&int32_graph(OpCode::MINIMUM, Activation::None, &[0, 2])).function,
        "minimum_s32"
    );
    assert!(
        reason(&int32_graph(OpCode::ADD, Activation::None, &[1])).contains("input 2 is quantized")
    );
    assert!(reason(&int32_graph(OpCode::SUB, Activation::None, &[2]))
        .contains("the output is quantized"));
}

#[test]
fn broadcast_collapses_and_strides() {
    let b = broadcast(&[1, 4, 4, 8], &[8], &[1, 4, 4, 8]).unwrap();
    assert_eq!(b.shape, vec![16, 8]);
    assert_eq!(b.a_strides, vec![8, 1]);
    assert_eq!(b.b_strides, vec![0, 1]);
    let b = broadcast(&[2, 3], &[2, 3], &[2, 3]).unwrap();
    assert_eq!(
        (b.shape, b.a_strides, b.b_strides),
        (vec![6], vec![1], vec![1])
    );
    let b = broadcast(&[2, 1, 3], &[1, 5, 1], &[2, 5, 3]).unwrap();
    assert_eq!(b.shape, vec![2, 5, 3]);
    assert_eq!(b.a_strides, vec![3, 0, 1]);
    assert_eq!(b.b_strides, vec![0, 1, 0]);
    let b = broadcast(&[], &[], &[]).unwrap();
    assert_eq!(
        (b.shape, b.a_strides, b.b_strides),
        (vec![1], vec![0], vec![0])
    );
    assert!(broadcast(&[2, 3], &[3, 2], &[2, 3]).is_err());
    assert!(broadcast(&[2, 3], &[3], &[3, 3]).is_err());
}

#[test]
fn add_s8_parameters_follow_tflm_prepare() {
    let g = graph(
        OpCode::ADD,
        Options::Arithmetic {
            activation: crate::ir::Activation::Relu,
        },
        vec![
            tensor(&[1, 4], DType::I8, per_tensor(0.5, 0), None),
            tensor(&[4], DType::I8, per_tensor(0.25, 2), None),
            tensor(&[1, 4], DType::I8, per_tensor(1.0, -1), None),
        ],
        &[Some(0), Some(1)],
    );
    // twice_max = 1.0: input multipliers 0.5 and 0.25, output 2^-20.
    assert_eq!(
        fields(&g),
        vec![
            ("shape", Value::Usizes(vec![4])),
            ("a_strides", Value::Usizes(vec![1])),
            ("b_strides", Value::Usizes(vec![1])),
            ("a_offset", Value::I32(0)),
            ("a_multiplier", Value::I32(1 << 30)),
            ("a_shift", Value::I32(0)),
            ("b_offset", Value::I32(-2)),
            ("b_multiplier", Value::I32(1 << 30)),
            ("b_shift", Value::I32(-1)),
            ("left_shift", Value::I32(20)),
            ("output_multiplier", Value::I32(1 << 30)),
            ("output_shift", Value::I32(-19)),
            ("output_offset", Value::I32(-1)),
            ("act_min", Value::I32(-1)),
            ("act_max", Value::I32(127)),
        ]
    );
}

/// The same-shape entry where the broadcast reads both inputs in the output's order (equal
/// shapes, dimensions of one element with any stride), the broadcast one otherwise and for the
/// kernels without such an entry; and back to the broadcast entry in a graph whose other call of
/// the kernel broadcasts, the other kernels' same-shape calls kept.
#[test]
fn same_shape_entries_where_nothing_broadcasts() {
    use super::{one_entry_per_kernel, same_shape, Broadcast};
    use crate::lower::{Call, CallKind, KernelCall};
    let bc = |shape: &[usize], a: &[usize], b: &[usize]| Broadcast {
        shape: shape.to_vec(),
        a_strides: a.to_vec(),
        b_strides: b.to_vec(),
    };
    assert_eq!(same_shape("add_s8", &bc(&[12], &[1], &[1])), "add_s8_flat");
    assert_eq!(same_shape("mul_f32", &bc(&[], &[], &[])), "mul_f32_flat");
    assert_eq!(
        same_shape("sub_s16", &bc(&[1, 5], &[0, 1], &[7, 1])),
        "sub_s16_flat"
    );
    assert_eq!(same_shape("add_s8", &bc(&[12], &[1], &[0])), "add_s8");
    assert_eq!(
        same_shape("mul_s8", &bc(&[3, 4], &[4, 1], &[0, 1])),
        "mul_s8"
    );
    assert_eq!(
        same_shape("maximum_s8", &bc(&[12], &[1], &[1])),
        "maximum_s8"
    );
    let call = |function: &'static str| Call {
        op: 0,
        kind: CallKind::Kernel(KernelCall {
            module: "elementwise",
            function,
            operands: Vec::new(),
            params: None,
            access: Vec::new(),
            stop: None,
        }),
    };
    let mut calls = vec![
        call("add_s8_flat"),
        call("mul_s8_flat"),
        call("add_s8"),
        call("sub_s16_flat"),
    ];
    one_entry_per_kernel(&mut calls);
    let functions: Vec<&str> = calls
        .iter()
        .map(|c| match &c.kind {
            CallKind::Kernel(k) => k.function,
            _ => "",
        })
        .collect();
    assert_eq!(
        functions,
        ["add_s8", "mul_s8_flat", "add_s8", "sub_s16_flat"]
    );
}

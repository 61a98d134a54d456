//! [`Category::Graph`]: the data flow (reads before writes, self-reads, missing or doubled
//! writers).

use super::builders::{binary8, relu8, unary_f32, with};
use super::{Case, Category, Refusal, Suite};
use crate::{BuiltinOperator as B, ModelSpec, OpCodeSpec, Options, TensorSpec};

pub(super) fn graph(cases: &mut Vec<Case>) {
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
            m.opcodes[0] = OpCodeSpec::custom("Convolution2DTransposeBias")
        }),
        UnsupportedOp,
        "CUSTOM(Convolution2DTransposeBias)",
    );
    s.refused(
        "unsupported_builtin_lsh_projection",
        with(unary_f32(B::RELU, Options::None), |m| {
            m.opcodes[0] = OpCodeSpec::builtin(B::LSH_PROJECTION)
        }),
        UnsupportedOp,
        "LSH_PROJECTION",
    );
    s.refused(
        "unknown_builtin_code",
        with(relu(), |m| m.opcodes[0] = OpCodeSpec::builtin(B(4000))),
        UnsupportedOp,
        "4000",
    );
}

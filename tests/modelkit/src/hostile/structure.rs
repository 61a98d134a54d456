//! [`Category::Structure`]: the file itself (truncation, identifier, version, subgraphs,
//! indices, buffers, types).

use super::builders::{binary8, conv8, relu8, with};
use super::{Case, Category, Expect, Refusal, Suite};
use crate::{
    Activation, BufferSpec, BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType,
};

pub(super) fn structure(cases: &mut Vec<Case>) {
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
    // Several subgraphs: subgraph 0 is compiled, others only run as an IF's branches (inlined
    // under its condition), a WHILE's condition and body (inlined as a loop) or as CALL_ONCE's
    // init subgraph (evaluated at generation time); every other way into a subgraph is refused.
    // TFLM's IfPrepare checks the condition first.
    s.refused(
        "two_subgraphs_if",
        with(conv8(Activation::NONE), |m| {
            m.subgraphs = 2;
            m.op(B::IF, Options::None, &[], &[]);
        }),
        Invalid,
        "IF: it has no inputs",
    );
    s.refused(
        "if_condition_not_bool",
        with(conv8(Activation::NONE), |m| {
            m.subgraphs = 2;
            m.op(B::IF, Options::None, &[0], &[]);
        }),
        Invalid,
        "it must be one BOOL",
    );
    // Without IfOptions both branch indices are 0: subgraph 0 would run itself without end.
    s.refused(
        "if_branch_subgraph_zero",
        with(conv8(Activation::NONE), |m| {
            m.subgraphs = 2;
            let cond = m.tensor(TensorSpec::new(TensorType::BOOL, &[1]));
            m.inputs.push(cond);
            m.op(B::IF, Options::None, &[cond], &[]);
        }),
        Invalid,
        "then_subgraph_index is 0",
    );
    // Without WhileOptions both subgraph indices are 0: subgraph 0 would run itself.
    s.refused(
        "while_without_subgraphs",
        with(conv8(Activation::NONE), |m| {
            m.op(B::WHILE, Options::None, &[], &[]);
        }),
        Invalid,
        "cond_subgraph_index is 0",
    );
    s.refused(
        "call_without_subgraphs",
        with(conv8(Activation::NONE), |m| {
            m.op(B::CALL, Options::None, &[], &[]);
        }),
        Load,
        "CALL runs other subgraphs",
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

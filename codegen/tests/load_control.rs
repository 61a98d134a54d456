//! The loader's IF pass on hand-built models of three subgraphs (main, then, else): the branches
//! are inlined under the condition, and what TFLM's IfPrepare and IfEval refuse, or leave
//! undefined, is refused naming the IF and the branch.

mod common;

use common::subgraphs::{model, Opt, Subgraph, Tensor};
use tinyaot_codegen::ir::{IfStep, OpCode, OpKind, Options};
use tinyaot_codegen::load::load;
use tinyaot_codegen::Error;
use tinyaot_schema::tflite::{BuiltinOperator as B, TensorType as T};

fn f32x4() -> Tensor {
    (T::FLOAT32, vec![1, 4], None)
}

fn cond() -> Tensor {
    (T::BOOL, vec![], None)
}

/// A branch: RELU (then) or TANH (else) of its one input into its one output.
fn branch(code: B) -> Subgraph {
    (
        vec![f32x4(), f32x4()],
        vec![(code, vec![0], vec![1], Opt::None)],
        vec![0],
        vec![1],
    )
}

/// Main: IF(#1 cond, #0 x) -> #2 with `opt`; inputs x and cond; then and else as given.
fn if_model(opt: Opt, main_ins: Vec<i32>, then: Subgraph, otherwise: Subgraph) -> Vec<u8> {
    model(&[
        (
            vec![f32x4(), cond(), f32x4()],
            vec![(B::IF, main_ins, vec![2], opt)],
            vec![0, 1],
            vec![2],
        ),
        then,
        otherwise,
    ])
}

fn good() -> Vec<u8> {
    if_model(Opt::If(1, 2), vec![1, 0], branch(B::RELU), branch(B::TANH))
}

/// The message of the refusal of `bytes`, which must be one.
fn refusal(bytes: &[u8]) -> String {
    match load(bytes) {
        Ok(_) => panic!("loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn both_branches_are_inlined_under_the_condition() {
    let bytes = good();
    let graph = load(&bytes).expect("loads");
    let kinds: Vec<String> = graph.operators.iter().map(|o| o.kind.name()).collect();
    assert_eq!(kinds, ["IF", "RELU", "IF", "TANH", "IF"]);
    let guards: Vec<Option<(usize, bool, usize)>> = graph
        .operators
        .iter()
        .map(|o| o.branch.map(|b| (b.cond, b.taken, b.subgraph)))
        .collect();
    assert_eq!(
        guards,
        [
            Some((1, true, 1)),
            Some((1, true, 1)),
            Some((1, false, 2)),
            Some((1, false, 2)),
            None
        ]
    );
    let select = &graph.operators[4];
    assert_eq!(select.options, Options::If(IfStep::Select));
    assert_eq!(select.outputs, [2]);
    assert_eq!(select.input(0), Some(1));
    // Every step of a branch reads the condition, which so stays live across both.
    assert!(graph.operators[..4]
        .iter()
        .all(|o| o.reads().any(|t| t == 1)));
    assert_eq!(graph.tensors.len(), 3 + 2 + 2);
}

#[test]
fn a_constant_condition_inlines_the_branch_it_selects() {
    let bytes = model(&[
        (
            vec![f32x4(), (T::BOOL, vec![], Some(vec![0])), f32x4()],
            vec![(B::IF, vec![1, 0], vec![2], Opt::If(1, 2))],
            vec![0],
            vec![2],
        ),
        branch(B::RELU),
        branch(B::TANH),
    ]);
    let graph = load(&bytes).expect("loads");
    let kinds: Vec<String> = graph.operators.iter().map(|o| o.kind.name()).collect();
    assert_eq!(kinds, ["IF", "TANH", "IF"]);
    assert!(graph.operators.iter().all(|o| o.branch.is_none()));
    assert_eq!(graph.operators[2].options, Options::If(IfStep::Copy));
}

#[test]
fn what_tflm_refuses_is_refused() {
    // The condition: one BOOL.
    let bytes = if_model(Opt::If(1, 2), vec![0, 0], branch(B::RELU), branch(B::TANH));
    assert!(
        refusal(&bytes).contains("must be one BOOL"),
        "{}",
        refusal(&bytes)
    );
    // A branch past the subgraphs.
    let bytes = if_model(Opt::If(3, 2), vec![1, 0], branch(B::RELU), branch(B::TANH));
    assert!(refusal(&bytes).contains("then_subgraph_index is 3"));
    // Subgraph 0 (no options: TFLM's parser leaves 0) would run itself.
    let bytes = if_model(Opt::None, vec![1, 0], branch(B::RELU), branch(B::TANH));
    assert!(refusal(&bytes).contains("then_subgraph_index is 0"));
    // Counts: the then branch's in Prepare, the else branch's in Eval.
    let two_inputs: Subgraph = (
        vec![f32x4(), f32x4(), f32x4()],
        vec![(B::ADD, vec![0, 1], vec![2], Opt::None)],
        vec![0, 1],
        vec![2],
    );
    let bytes = if_model(
        Opt::If(1, 2),
        vec![1, 0],
        two_inputs.clone(),
        branch(B::TANH),
    );
    let message = refusal(&bytes);
    assert!(
        message.contains("then branch, subgraph 1, has 2"),
        "{message}"
    );
    assert!(message.contains("IfPrepare"), "{message}");
    let bytes = if_model(Opt::If(1, 2), vec![1, 0], branch(B::RELU), two_inputs);
    let message = refusal(&bytes);
    assert!(
        message.contains("else branch, subgraph 2, has 2"),
        "{message}"
    );
    assert!(
        message.contains("CopyOpInputsToSubgraphInputs"),
        "{message}"
    );
    // A branch tensor of another size.
    let wide: Subgraph = (
        vec![
            (T::FLOAT32, vec![1, 8], None),
            (T::FLOAT32, vec![1, 8], None),
        ],
        vec![(B::RELU, vec![0], vec![1], Opt::None)],
        vec![0],
        vec![1],
    );
    let message = refusal(&if_model(Opt::If(1, 2), vec![1, 0], branch(B::RELU), wide));
    assert!(
        message.contains("differ in size (16 vs 32 bytes)"),
        "{message}"
    );
    // Another type: only DCHECKed, undefined.
    let ints: Subgraph = (
        vec![(T::INT32, vec![1, 4], None), (T::INT32, vec![1, 4], None)],
        vec![(B::RELU, vec![0], vec![1], Opt::None)],
        vec![0],
        vec![1],
    );
    let message = refusal(&if_model(Opt::If(1, 2), vec![1, 0], ints, branch(B::RELU)));
    assert!(message.contains("differ in type"), "{message}");
    assert!(message.contains("[undefined"), "{message}");
}

#[test]
fn control_flow_inside_a_branch_is_unsupported() {
    let nested: Subgraph = (
        vec![f32x4(), f32x4(), cond()],
        vec![(B::IF, vec![2, 0], vec![1], Opt::If(1, 2))],
        vec![0],
        vec![1],
    );
    let bytes = if_model(Opt::If(1, 2), vec![1, 0], branch(B::RELU), nested);
    assert!(matches!(load(&bytes), Err(Error::Unsupported { .. })));
    assert!(refusal(&bytes).contains("operator #0 IF of subgraph 2, an IF branch"));
    // The condition is no IF step of a branch: the graph holds IF steps only as the loader
    // writes them.
    let graph_bytes = good();
    let graph = load(&graph_bytes).expect("loads");
    assert!(graph
        .operators
        .iter()
        .filter(|o| o.kind == OpKind::Builtin(OpCode::IF))
        .all(|o| matches!(o.options, Options::If(_))));
}

/// An int8 tensor of 4 (the builder quantizes INT8 tensors with scale 0.5, zero point 0).
fn i8x4() -> Tensor {
    (T::INT8, vec![1, 4], None)
}

/// A branch of one operator `code` on int8.
fn int8_branch(code: B) -> Subgraph {
    (
        vec![i8x4(), i8x4()],
        vec![(code, vec![0], vec![1], Opt::None)],
        vec![0],
        vec![1],
    )
}

#[test]
fn branches_compile_when_folding_makes_an_output_constant_or_both_have_a_table() {
    let int8_if = |then: Subgraph, otherwise: Subgraph| {
        model(&[
            (
                vec![i8x4(), cond(), i8x4()],
                vec![(B::IF, vec![1, 0], vec![2], Opt::If(1, 2))],
                vec![0, 1],
                vec![2],
            ),
            then,
            otherwise,
        ])
    };
    // ZEROS_LIKE needs only its input's shape: folded at generation time, the then branch's
    // output is a constant that the IF's selection copies from flash.
    let folded = int8_if(int8_branch(B::ZEROS_LIKE), int8_branch(B::ABS));
    // Each int8 ELU gets a lookup table made at generation time: one per branch, named apart.
    let tables = int8_if(int8_branch(B::ELU), int8_branch(B::ELU));
    let config = tinyaot_codegen::Config::new();
    let rust = config.generate(&folded, "net").expect("Rust");
    assert!(rust.contains(".copy_from_slice(constants::T"), "{rust}");
    config.generate_c(&folded, "net").expect("C");
    let rust = config.generate(&tables, "net").expect("Rust");
    assert!(
        rust.contains("W1_0_TABLE") && rust.contains("W2_0_TABLE"),
        "{rust}"
    );
    let c = config.generate_c(&tables, "net").expect("C");
    let text: String = c.iter().map(|(_, s)| s.as_str()).collect();
    assert!(
        text.contains("net_w1_0_") && text.contains("net_w2_0_"),
        "{text}"
    );
}

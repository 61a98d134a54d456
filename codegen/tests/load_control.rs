//! The loader's IF pass on hand-built models of three subgraphs (main, then, else): the branches
//! are inlined under the condition, and what TFLM's IfPrepare and IfEval refuse, or leave
//! undefined, is refused naming the IF and the branch. The same of WHILE (main, cond, body): the
//! loop is inlined, and what TFLM's WhilePrepare and WhileEval refuse, or leave undefined, is
//! refused naming the WHILE.

mod common;

use common::subgraphs::{model, Opt, Subgraph, Tensor};
use tinyaot_codegen::ir::{IfStep, OpCode, OpKind, Options, WhileStep};
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
    #[cfg(feature = "c")]
    config.generate_c(&folded, "net").expect("C");
    let rust = config.generate(&tables, "net").expect("Rust");
    assert!(
        rust.contains("W1_0_TABLE") && rust.contains("W2_0_TABLE"),
        "{rust}"
    );
    #[cfg(feature = "c")]
    {
        let c = config.generate_c(&tables, "net").expect("C");
        let text: String = c.iter().map(|(_, s)| s.as_str()).collect();
        assert!(
            text.contains("net_w1_0_") && text.contains("net_w2_0_"),
            "{text}"
        );
    }
}

fn i32s() -> Tensor {
    (T::INT32, vec![], None)
}

/// The condition: LESS(i, n) of its inputs (i, y, n).
fn while_cond() -> Subgraph {
    (
        vec![i32s(), f32x4(), i32s(), cond()],
        vec![(B::LESS, vec![0, 2], vec![3], Opt::None)],
        vec![0, 1, 2],
        vec![3],
    )
}

/// The body: (i + 1, tanh(y), n) of its inputs (i, y, n).
fn while_body() -> Subgraph {
    (
        vec![
            i32s(),
            f32x4(),
            i32s(),
            (T::INT32, vec![], Some(1i32.to_le_bytes().to_vec())),
            i32s(),
            f32x4(),
        ],
        vec![
            (B::ADD, vec![0, 3], vec![4], Opt::None),
            (B::TANH, vec![1], vec![5], Opt::None),
        ],
        vec![0, 1, 2],
        vec![4, 5, 2],
    )
}

/// Main: WHILE(#0 i = 0 (a constant), #1 x, #2 n) -> (#3, #4, #5) with `opt`; inputs x and n,
/// output #4; cond and body as given.
fn while_model(opt: Opt, cond: Subgraph, body: Subgraph) -> Vec<u8> {
    model(&[
        (
            vec![
                (T::INT32, vec![], Some(0i32.to_le_bytes().to_vec())),
                f32x4(),
                i32s(),
                i32s(),
                f32x4(),
                i32s(),
            ],
            vec![(B::WHILE, vec![0, 1, 2], vec![3, 4, 5], opt)],
            vec![1, 2],
            vec![4],
        ),
        cond,
        body,
    ])
}

#[test]
fn a_while_is_inlined_as_a_loop() {
    let bytes = while_model(Opt::While(1, 2), while_cond(), while_body());
    let graph = load(&bytes).expect("loads");
    let kinds: Vec<String> = graph.operators.iter().map(|o| o.kind.name()).collect();
    // Its inputs into its outputs; then the loop: its outputs into the condition's inputs that
    // LESS reads (i and n, not y), LESS, the exit, its outputs into the body's inputs, ADD and
    // TANH, the body's outputs into its outputs.
    let mut expected = vec!["WHILE"; 5];
    expected.extend(["LESS", "WHILE", "WHILE", "WHILE", "WHILE", "ADD", "TANH"]);
    expected.extend(["WHILE"; 3]);
    assert_eq!(kinds, expected);
    let into_cond: Vec<usize> = graph.operators[3..5].iter().map(|o| o.outputs[0]).collect();
    assert_eq!(into_cond, [6, 6 + 2], "the condition's i and n");
    let loops: Vec<Option<(usize, usize, bool)>> = graph
        .operators
        .iter()
        .map(|o| o.looped.map(|l| (l.caller, l.subgraph, l.body)))
        .collect();
    assert!(loops[..3].iter().all(Option::is_none));
    assert!(loops[3..].iter().all(|l| l.is_some_and(|l| l.0 == 0)));
    assert_eq!(loops[5], Some((0, 1, false)));
    assert_eq!(loops[10], Some((0, 2, true)));
    let exit = &graph.operators[6];
    assert_eq!(exit.options, Options::While(WhileStep::Exit));
    assert!(exit.outputs.is_empty());
    // The condition's output: its tensor #3, after subgraph 0's six.
    assert_eq!(exit.input(0), Some(6 + 3));
    // The body's outputs are copied back into the WHILE's outputs, their second writer.
    let back: Vec<usize> = graph.operators[12..].iter().map(|o| o.outputs[0]).collect();
    assert_eq!(back, [3, 4, 5]);
    assert_eq!(graph.operators[0].outputs, [3]);
    assert_eq!(graph.tensors.len(), 6 + 4 + 6);
    assert!(graph.operators[11]
        .display_name()
        .contains("TANH of subgraph 2 (the body of operator #0 WHILE)"));
}

#[test]
fn what_tflm_refuses_of_a_while_is_refused() {
    // Past the subgraphs (Prepare), and subgraph 0 (the default options) running itself.
    let message = refusal(&while_model(Opt::While(1, 3), while_cond(), while_body()));
    assert!(message.contains("body_subgraph_index is 3"), "{message}");
    assert!(message.contains("WhilePrepare"), "{message}");
    let message = refusal(&while_model(Opt::None, while_cond(), while_body()));
    assert!(message.contains("cond_subgraph_index is 0"), "{message}");
    assert!(message.contains("[undefined"), "{message}");
    let message = refusal(&while_model(Opt::While(1, -1), while_cond(), while_body()));
    assert!(message.contains("body_subgraph_index is -1"), "{message}");
    // Counts: a body with two outputs.
    let mut body = while_body();
    body.3.pop();
    let message = refusal(&while_model(Opt::While(1, 2), while_cond(), body));
    assert!(
        message.contains("it has 3 inputs but 2 of its body's outputs (subgraph 2)"),
        "{message}"
    );
    // A condition whose output is no BOOL, or none.
    let mut int_cond = while_cond();
    int_cond.3 = vec![0];
    let message = refusal(&while_model(Opt::While(1, 2), int_cond, while_body()));
    assert!(message.contains("it must be a BOOL"), "{message}");
    let mut no_output = while_cond();
    no_output.3.clear();
    let message = refusal(&while_model(Opt::While(1, 2), no_output, while_body()));
    assert!(message.contains("has no outputs"), "{message}");
    // A body tensor of another size (its Eval fails once the condition holds).
    let mut wide = while_body();
    wide.0[5] = (T::FLOAT32, vec![1, 8], None);
    wide.0[1] = (T::FLOAT32, vec![1, 8], None);
    let message = refusal(&while_model(Opt::While(1, 2), while_cond(), wide));
    assert!(
        message.contains("differ in size (16 vs 32 bytes)"),
        "{message}"
    );
    // Another type: only DCHECKed.
    let mut ints = while_body();
    ints.0[2] = (T::FLOAT32, vec![], None);
    let message = refusal(&while_model(Opt::While(1, 2), while_cond(), ints));
    assert!(message.contains("differ in type"), "{message}");
    // A constant condition output: unsupported (never or forever).
    let mut constant = while_cond();
    constant.0[3] = (T::BOOL, vec![], Some(vec![0]));
    constant.1.clear();
    let bytes = while_model(Opt::While(1, 2), constant, while_body());
    assert!(matches!(load(&bytes), Err(Error::Unsupported { .. })));
}

#[test]
fn recursion_and_nested_control_flow_are_clean_errors() {
    // A body that is a WHILE of the body itself (recursion), or of subgraph 0.
    for target in [2, 0] {
        let mut body = while_body();
        body.0.push(f32x4());
        body.1.push((
            B::WHILE,
            vec![0, 1, 2],
            vec![4, 6, 2],
            Opt::While(1, target),
        ));
        let bytes = while_model(Opt::While(1, 2), while_cond(), body);
        assert!(matches!(load(&bytes), Err(Error::Unsupported { .. })));
        let message = refusal(&bytes);
        assert!(
            message.contains("WHILE of subgraph 2, a WHILE body"),
            "{message}"
        );
    }
    // A condition that is an IF.
    let mut cond_if = while_cond();
    cond_if.1 = vec![(B::IF, vec![3, 1], vec![3], Opt::If(1, 2))];
    let bytes = while_model(Opt::While(1, 2), cond_if, while_body());
    assert!(refusal(&bytes).contains("a WHILE condition"));
}

#[test]
fn copies_from_constants_compile_and_a_condition_of_constants_is_unsupported() {
    // The counter starts at a constant (the converter's usual 0), and the body's output 1 is a
    // constant: both are copied from flash, by the one-input concatenation.
    let mut body = while_body();
    body.0.push((T::FLOAT32, vec![1, 4], Some(vec![0; 16])));
    body.3[1] = 6;
    let bytes = while_model(Opt::While(1, 2), while_cond(), body);
    let rust = tinyaot_codegen::Config::new()
        .generate(&bytes, "looped")
        .expect("generates Rust");
    assert_eq!(rust.matches("concat1(").count(), 2, "{rust}");
    assert!(rust.contains("loop {") && rust.contains("break;"), "{rust}");
    #[cfg(feature = "c")]
    {
        let c = tinyaot_codegen::Config::new()
            .generate_c(&bytes, "looped")
            .expect("generates C");
        let source = c
            .iter()
            .find(|(name, _)| name == "looped.c")
            .map(|(_, text)| text.as_str())
            .expect("looped.c");
        assert!(
            source.contains("for (;;) {") && source.contains("break;"),
            "{source}"
        );
    }

    // A condition that reads only constants folds to a constant: never or forever.
    let mut constant = while_cond();
    constant
        .0
        .push((T::INT32, vec![], Some(7i32.to_le_bytes().to_vec())));
    constant
        .0
        .push((T::INT32, vec![], Some(9i32.to_le_bytes().to_vec())));
    constant.1 = vec![(B::LESS, vec![4, 5], vec![3], Opt::None)];
    let bytes = while_model(Opt::While(1, 2), constant, while_body());
    let e = tinyaot_codegen::Config::new()
        .generate(&bytes, "looped")
        .expect_err("refused");
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    assert!(
        e.to_string().contains("computed from constants alone"),
        "{e}"
    );
}

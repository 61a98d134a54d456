//! The loader's resource pass on hand-built two-subgraph models: a resource variable becomes one
//! variable tensor whose initial value the CALL_ONCE init subgraph assigns; the ways a model can
//! use resource variables or subgraphs otherwise are refused, naming the operator and subgraph.

mod common;

use common::subgraphs::{model, Op, Opt, Tensor};
use tinyaot_codegen::load::load;
use tinyaot_codegen::Error;
use tinyaot_schema::tflite::{BuiltinOperator as B, TensorType as T};

fn i8x4() -> Tensor {
    (T::INT8, vec![1, 4], None)
}

fn handle() -> Tensor {
    (T::RESOURCE, vec![], None)
}

/// Main: CALL_ONCE(1), VAR_HANDLE "buf" -> #1, READ_VARIABLE #1 -> #2 (the output),
/// ASSIGN_VARIABLE #1 <- #0 (the input). Init: VAR_HANDLE "buf", ASSIGN_VARIABLE of [1, 2, 3, 4].
fn streaming(main: Vec<Op>, init: Vec<Op>) -> Vec<u8> {
    with_init(vec![i8x4(), handle(), i8x4()], main, init)
}

/// The main subgraph `main` over `tensors` (input #0, output #2), and the init subgraph `init`
/// over a handle and the constant [1, 2, 3, 4].
fn with_init(tensors: Vec<Tensor>, main: Vec<Op>, init: Vec<Op>) -> Vec<u8> {
    model(&[
        (tensors, main, vec![0], vec![2]),
        (
            vec![handle(), (T::INT8, vec![1, 4], Some(vec![1, 2, 3, 4]))],
            init,
            vec![],
            vec![],
        ),
    ])
}

fn main_ops() -> Vec<Op> {
    vec![
        (B::CALL_ONCE, vec![], vec![], Opt::CallOnce(1)),
        (B::VAR_HANDLE, vec![], vec![1], Opt::VarHandle(b"buf")),
        (B::READ_VARIABLE, vec![1], vec![2], Opt::None),
        (B::ASSIGN_VARIABLE, vec![1, 0], vec![], Opt::None),
    ]
}

fn init_ops() -> Vec<Op> {
    vec![
        (B::VAR_HANDLE, vec![], vec![0], Opt::VarHandle(b"buf")),
        (B::ASSIGN_VARIABLE, vec![0, 1], vec![], Opt::None),
    ]
}

fn refusal(bytes: &[u8]) -> String {
    match load(bytes) {
        Ok(_) => panic!("loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_resource_variable_becomes_one_variable_tensor() {
    let bytes = streaming(main_ops(), init_ops());
    let g = load(&bytes).expect("loads");
    let state = g.tensors.len() - 1;
    let t = &g.tensors[state];
    assert!(t.is_variable);
    assert_eq!(
        (t.name.as_str(), &t.shape[..], t.bytes),
        ("buf", &[1, 4][..], 4)
    );
    // The init subgraph's constant is the initial value, which new() and reset() set.
    assert_eq!(t.initial.as_deref(), Some(&[1u8, 2, 3, 4][..]));
    assert_eq!(g.operators[2].inputs, vec![Some(state)]);
    assert_eq!(g.operators[3].inputs, vec![Some(0)]);
    assert_eq!(g.operators[3].outputs, vec![state]);
    assert!(g.operators[0].outputs.is_empty() && g.operators[1].outputs.is_empty());
}

#[test]
fn reset_sets_the_init_subgraphs_values() {
    let bytes = streaming(main_ops(), init_ops());
    let source = tinyaot_codegen::Config::new()
        .generate(&bytes, "m")
        .expect("generates");
    let reset = source.find("pub fn reset").expect("a reset");
    assert!(
        source[reset..].contains(r#"copy_from_slice(b"\x01\x02\x03\x04")"#),
        "{source}"
    );
}

#[test]
fn call_once_after_an_access_is_refused() {
    // VAR_HANDLE, ASSIGN_VARIABLE, CALL_ONCE, READ_VARIABLE.
    let m = main_ops();
    let ops = vec![m[1].clone(), m[3].clone(), m[0].clone(), m[2].clone()];
    let e = refusal(&streaming(ops, init_ops()));
    assert!(
        e.contains("operator #2 CALL_ONCE comes after operator #1"),
        "{e}"
    );
}

#[test]
fn an_init_subgraph_that_computes_is_refused() {
    let mut init = init_ops();
    init.insert(0, (B::RELU, vec![1], vec![1], Opt::None));
    let e = refusal(&streaming(main_ops(), init));
    assert!(e.contains("operator #0 RELU of subgraph 1"), "{e}");
}

#[test]
fn a_read_before_any_assignment_is_refused() {
    let mut ops = main_ops();
    ops.remove(0);
    let e = refusal(&streaming(ops, init_ops()));
    assert!(
        e.contains("READ_VARIABLE reads resource variable \"buf\" before any"),
        "{e}"
    );
}

#[test]
fn bad_init_subgraph_indices_are_refused() {
    for (index, expected) in [(0, "a cycle"), (2, "init_subgraph_index"), (-1, "-1")] {
        let mut ops = main_ops();
        ops[0].3 = Opt::CallOnce(index);
        let e = refusal(&streaming(ops, init_ops()));
        assert!(e.contains(expected), "{index}: {e}");
    }
}

#[test]
fn nested_call_once_and_control_flow_are_refused() {
    // The init subgraph calling itself (a cycle through CALL_ONCE).
    let mut init = init_ops();
    init.insert(0, (B::CALL_ONCE, vec![], vec![], Opt::CallOnce(1)));
    let e = refusal(&streaming(main_ops(), init));
    assert!(e.contains("CALL_ONCE of subgraph 1"), "{e}");
    let mut ops = main_ops();
    ops.insert(1, (B::CALL, vec![], vec![], Opt::None));
    let e = refusal(&streaming(ops, init_ops()));
    assert!(e.contains("operator #1 CALL runs other subgraphs"), "{e}");
}

#[test]
fn assignments_of_another_size_are_refused() {
    let bytes = with_init(
        vec![(T::INT8, vec![1, 8], None), handle(), i8x4()],
        main_ops(),
        init_ops(),
    );
    let e = refusal(&bytes);
    assert!(
        e.contains("every value of a variable must have the same type and size"),
        "{e}"
    );
}

/// A value of another size than the variable's is undefined in TFLM (its Read and Assign check
/// the sizes only in debug builds, then copy the variable's size); one of another type but the
/// same size is TFLM's byte copy, which tinyaot does not compile.
#[test]
fn reads_of_another_size_are_invalid_and_of_another_type_unsupported() {
    for (output, invalid) in [
        ((T::INT8, vec![3, 2], None), true),
        ((T::BOOL, vec![1, 4], None), false),
    ] {
        let bytes = with_init(vec![i8x4(), handle(), output], main_ops(), init_ops());
        let Err(e) = load(&bytes) else {
            panic!("loaded");
        };
        let text = e.to_string();
        assert!(
            text.contains("operator #2 READ_VARIABLE: its output, tensor #2")
                && text.contains("differs in type or size from resource variable \"buf\""),
            "{text}"
        );
        assert_eq!(matches!(e, Error::InvalidModel { .. }), invalid, "{text}");
        assert_eq!(matches!(e, Error::Unsupported { .. }), !invalid, "{text}");
    }
}

#[test]
fn hostile_counts_and_errors_never_panic() {
    // Every prefix of a valid model is refused as a damaged file, never a panic (nor a graph:
    // a FlatBuffer cut short misses what its offsets point at).
    let bytes = streaming(main_ops(), init_ops());
    for n in 0..bytes.len() {
        match load(&bytes[..n]) {
            Err(Error::Truncated { .. } | Error::Corrupt { .. }) => {}
            other => panic!("the first {n} of {} bytes: {other:?}", bytes.len()),
        }
    }
    assert!(load(&bytes).is_ok());
}

#[test]
fn variables_are_keyed_by_the_bytes_of_their_names() {
    // TFLM compares the names as C strings, never as text: names that are not UTF-8 are names.
    let named = |main: &'static [u8], init: &'static [u8]| {
        let mut ops = main_ops();
        ops[1].3 = Opt::VarHandle(main);
        let mut iops = init_ops();
        iops[0].3 = Opt::VarHandle(init);
        streaming(ops, iops)
    };
    let bytes = named(b"buf\xff", b"buf\xff");
    let g = load(&bytes).expect("the same bytes are one variable");
    let state = g.tensors.last().unwrap();
    assert_eq!(
        (state.name.as_str(), state.initial.as_deref()),
        (r"buf\xff", Some(&[1u8, 2, 3, 4][..]))
    );
    // Two names that differ in a byte that is not UTF-8 are two variables: the one main reads was
    // never assigned (a reader that replaced bad bytes, or cut the name at them, would merge them).
    let e = refusal(&named(b"buf\xff", b"buf\xfe"));
    assert!(
        e.contains(r#"reads resource variable "buf\\xff" before any"#),
        "{e}"
    );
    let e = refusal(&named(b"b\xffa", b"b\xffb"));
    assert!(e.contains("before any"), "{e}");
}

/// A value that folding makes a constant (here ZEROS_LIKE of the input: zeros whatever the input)
/// is assigned by a copy from flash; it was an internal error ("expected in the arena") that the
/// difftest found (seed 20261201, case 1046: ZEROS_LIKE, ADD of a constant, ASSIGN_VARIABLE).
#[test]
fn a_value_folded_to_a_constant_is_assigned_from_flash() {
    let mut main = main_ops();
    main.insert(3, (B::ZEROS_LIKE, vec![0], vec![3], Opt::None));
    main[4].1 = vec![1, 3];
    let bytes = with_init(vec![i8x4(), handle(), i8x4(), i8x4()], main, init_ops());
    let source = tinyaot_codegen::Config::new()
        .generate(&bytes, "m")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(source.contains("concat1"), "{source}");
    #[cfg(feature = "c")]
    {
        let options = tinyaot_codegen::COptions {
            prefix: "m".to_string(),
            source_name: "m.tflite".to_string(),
        };
        tinyaot_codegen::c_sources(&bytes, &options).unwrap_or_else(|e| panic!("{e}"));
    }
}

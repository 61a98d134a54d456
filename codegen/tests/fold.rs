//! Constant folding (`tinyaot_codegen::fold`): which operators fold, what they become, and the
//! limits folded data counts against. Bit-exactness with TFLM is the conformance suites' part
//! (the hostile suite's folded corners run in Rust and C against TFLM's goldens).

use tinyaot_codegen::config::load_and_fold;
use tinyaot_codegen::Limits;
use tinyaot_modelkit::{ModelSpec, Options, TensorSpec};
use tinyaot_schema::tflite::BuiltinOperator as B;

/// The hostile suite's `add_of_a_reshaped_constant`: x + RESHAPE(c), c = [0.5, -1, 2, 0.25,
/// -0.75, 3, 1.5, -2.5] reshaped from [8] to [2, 4]; the RESHAPE folds, the ADD stays.
fn add_of_reshaped_constant() -> Vec<u8> {
    tinyaot_modelkit::hostile::cases()
        .into_iter()
        .find(|c| c.name == "add_of_a_reshaped_constant")
        .expect("the hostile suite has it")
        .model
}

#[test]
fn a_reshape_of_a_constant_becomes_a_constant_of_the_new_shape() {
    let bytes = add_of_reshaped_constant();
    let graph = load_and_fold(&bytes, &Limits::default()).expect("folds");
    assert_eq!(graph.operators.len(), 1, "only the ADD is left");
    assert_eq!(graph.operators[0].source_index, 1);
    assert_eq!(graph.folded.len(), 1);
    assert_eq!(
        (graph.folded[0].source_index, graph.folded[0].op.as_str()),
        (0, "RESHAPE")
    );
    let folded = &graph.tensors[3];
    assert_eq!(folded.shape, vec![2, 4]);
    let want: Vec<u8> = [0.5f32, -1.0, 2.0, 0.25, -0.75, 3.0, 1.5, -2.5]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(folded.data.as_deref(), Some(&want[..]));
}

#[test]
fn arithmetic_on_constants_runs_the_runtime_kernel_and_chains() {
    // RELU(a + b) of constants: both fold, in order, and the output is a constant.
    let mut m = ModelSpec::new();
    let x = m.tensor(TensorSpec::f32(&[1, 3]));
    let a = m.tensor(TensorSpec::f32(&[1, 3]).constant_f32(&[1.0, -2.0, 0.5]));
    let b = m.tensor(TensorSpec::f32(&[1, 3]).constant_f32(&[0.25, 1.0, -4.0]));
    let sum = m.tensor(TensorSpec::f32(&[1, 3]));
    let out = m.tensor(TensorSpec::f32(&[1, 3]));
    m.inputs = vec![x];
    m.outputs = vec![out];
    m.op(B::ADD, Options::default_for(B::ADD), &[a, b], &[sum]);
    m.op(B::RELU, Options::None, &[sum], &[out]);
    let bytes = m.to_bytes();
    let graph = load_and_fold(&bytes, &Limits::default()).expect("folds");
    assert!(graph.operators.is_empty());
    let names: Vec<&str> = graph.folded.iter().map(|f| f.op.as_str()).collect();
    assert_eq!(names, ["ADD", "RELU"]);
    let want: Vec<u8> = [1.25f32, 0.0, 0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    assert_eq!(graph.tensors[out as usize].data.as_deref(), Some(&want[..]));
}

#[test]
fn variadic_kernels_fold() {
    // PACK of 12 constant rows (the variadic `concat::concat`), then UNPACK of the result along
    // its other axis into 3 (fixed-arity) and SPLIT of that [12] row into 12 (`split::split`):
    // each output is a constant, the input's bytes moved as TFLM moves them.
    let mut m = ModelSpec::new();
    let x = m.tensor(TensorSpec::f32(&[1]));
    let rows: Vec<i32> = (0..12)
        .map(|k| {
            let values = [k as f32, 100.0 + k as f32, 200.0 + k as f32];
            m.tensor(TensorSpec::f32(&[3]).constant_f32(&values))
        })
        .collect();
    let packed = m.tensor(TensorSpec::f32(&[12, 3]));
    let columns: Vec<i32> = (0..3).map(|_| m.tensor(TensorSpec::f32(&[12]))).collect();
    let axis = m.tensor(TensorSpec::int32(&[]).constant_i32(&[0]));
    let pieces: Vec<i32> = (0..12).map(|_| m.tensor(TensorSpec::f32(&[1]))).collect();
    m.inputs = vec![x];
    m.outputs = pieces.clone();
    m.op(
        B::PACK,
        Options::Pack {
            values_count: 12,
            axis: 0,
        },
        &rows,
        &[packed],
    );
    m.op(
        B::UNPACK,
        Options::Unpack { num: 3, axis: 1 },
        &[packed],
        &columns,
    );
    m.op(
        B::SPLIT,
        Options::Split { num_splits: 12 },
        &[axis, columns[1]],
        &pieces,
    );
    let bytes = m.to_bytes();
    let graph = load_and_fold(&bytes, &Limits::default()).expect("folds");
    assert!(graph.operators.is_empty());
    let names: Vec<&str> = graph.folded.iter().map(|f| f.op.as_str()).collect();
    assert_eq!(names, ["PACK", "UNPACK", "SPLIT"]);
    for (k, &piece) in pieces.iter().enumerate() {
        let want = (100.0 + k as f32).to_le_bytes();
        assert_eq!(
            graph.tensors[piece as usize].data.as_deref(),
            Some(&want[..]),
            "piece {k}"
        );
    }
}

#[test]
fn shape_folds_to_the_static_shape_even_of_a_computed_tensor() {
    let mut m = ModelSpec::new();
    let x = m.tensor(TensorSpec::f32(&[3, 4]));
    let shape = m.tensor(TensorSpec::int32(&[2]));
    let out = m.tensor(TensorSpec::f32(&[3, 4]));
    m.inputs = vec![x];
    m.outputs = vec![out];
    m.op(B::SHAPE, Options::None, &[x], &[shape]);
    m.op(
        B::RESHAPE,
        Options::default_for(B::RESHAPE),
        &[x, shape],
        &[out],
    );
    let bytes = m.to_bytes();
    let graph = load_and_fold(&bytes, &Limits::default()).expect("folds");
    assert_eq!(graph.operators.len(), 1);
    let want: Vec<u8> = [3i32, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(graph.tensors[1].data.as_deref(), Some(&want[..]));
}

#[test]
fn operators_reading_variables_or_computed_tensors_are_not_folded() {
    let bytes = ModelSpec::relu_chain(3, 8).to_bytes();
    let graph = load_and_fold(&bytes, &Limits::default()).expect("loads");
    assert_eq!(graph.operators.len(), 3);
    assert!(graph.folded.is_empty());
}

#[test]
fn folded_data_counts_against_the_constant_limit() {
    // 40 constant bytes in the file (the data and the shape), 32 more folded: a limit of 48
    // refuses the fold.
    let bytes = add_of_reshaped_constant();
    let mut limits = Limits::default();
    limits.max_constant_bytes = 48;
    let err = load_and_fold(&bytes, &limits).expect_err("over the limit");
    assert!(matches!(err, tinyaot_codegen::Error::Limit { .. }), "{err}");
}

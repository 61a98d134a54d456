//! The loader on real models: every reference model (and every fixture) loads, the IR's
//! invariants hold, and spot checks match what is known about each model.

mod common;

use std::collections::BTreeMap;

use tinyaot_codegen::ir::{Activation, DType, Graph, OpCode, OpKind, Options};
use tinyaot_codegen::load::load;

/// Operator names and how often each occurs.
fn op_counts(g: &Graph<'_>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for op in &g.operators {
        *counts.entry(op.kind.name()).or_insert(0) += 1;
    }
    counts
}

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// What the IR promises its readers, checked on a loaded graph.
fn check_invariants(name: &str, g: &Graph<'_>) {
    let n = g.tensors.len();
    for (i, t) in g.tensors.iter().enumerate() {
        assert_eq!(
            t.bytes,
            t.num_elements() * t.dtype.size(),
            "{name} tensor {i}"
        );
        if let Some(data) = t.data.as_deref() {
            assert_eq!(data.len(), t.bytes, "{name} tensor {i} data");
        }
        if let Some(q) = &t.quant {
            assert_eq!(q.scales.len(), q.zero_points.len(), "{name} tensor {i}");
            if q.is_per_channel() {
                assert_eq!(
                    t.shape.get(q.axis),
                    Some(&q.scales.len()),
                    "{name} tensor {i}"
                );
            }
        }
    }
    for (k, op) in g.operators.iter().enumerate() {
        let all = op
            .inputs
            .iter()
            .flatten()
            .chain(&op.outputs)
            .chain(&op.intermediates);
        for &t in all {
            assert!(t < n, "{name} operator {k} tensor {t}");
        }
    }
    assert!(g.inputs.iter().chain(&g.outputs).all(|&t| t < n), "{name}");
    if let Some(offsets) = &g.offline_offsets {
        assert_eq!(offsets.len(), n, "{name}");
    }
}

#[test]
fn every_model_loads() {
    let mut paths = common::fixture_models();
    paths.extend(common::shared_models("loading the reference models").unwrap_or_default());
    for path in &paths {
        let bytes = common::read(path);
        let name = path.display().to_string();
        let started = std::time::Instant::now();
        let g = load(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let elapsed = started.elapsed();
        check_invariants(&name, &g);
        // Loading is a pure function of the bytes.
        assert_eq!(load(&bytes).ok().as_ref(), Some(&g), "{name}");
        println!(
            "{name}: {} tensors, {} operators {:?}, loaded in {elapsed:?}",
            g.tensors.len(),
            g.operators.len(),
            op_counts(&g)
        );
    }
    println!("{} models", paths.len());
}

#[test]
fn shared_models_are_all_there() {
    let Some(models) = common::shared_models("the reference models' list") else {
        return;
    };
    let names: Vec<String> = models
        .iter()
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    for expected in [
        "hello_world_float.tflite",
        "hello_world_int8.tflite",
        "keyword_scrambled.tflite",
        "micro_speech_quantized.tflite",
        "mobilenet_v2_quantized_1x3x224x224.tflite",
        "person_detect.tflite",
        "trained_lstm_int8.tflite",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "missing {expected} in {names:?}"
        );
    }
}

#[test]
fn person_detect() {
    let Some(bytes) = common::shared_model("person_detect.tflite") else {
        return;
    };
    let g = load(&bytes).unwrap();
    assert_eq!(g.operators.len(), 31);
    assert_eq!(
        op_counts(&g),
        counts(&[
            ("AVERAGE_POOL_2D", 1),
            ("CONV_2D", 14),
            ("DEPTHWISE_CONV_2D", 14),
            ("RESHAPE", 1),
            ("SOFTMAX", 1),
        ])
    );
    assert_eq!(g.inputs.len(), 1);
    let input = &g.tensors[g.inputs[0]];
    assert_eq!(
        (input.dtype, input.shape.as_slice()),
        (DType::I8, &[1, 96, 96, 1][..])
    );
    assert!(!input.is_constant());
    let q = input.quant.as_ref().expect("input is quantized");
    assert!(!q.is_per_channel());
    let output = &g.tensors[g.outputs[0]];
    assert_eq!(
        (output.dtype, output.shape.as_slice()),
        (DType::I8, &[1, 2][..])
    );

    for op in &g.operators {
        match (&op.kind, &op.options) {
            (OpKind::Builtin(OpCode::CONV_2D), Options::Conv2D(o)) => {
                assert!(o.stride_w >= 1 && o.dilation_w >= 1);
                // Filters are per-channel along axis 0, one scale per output channel.
                let filter = &g.tensors[op.input(1).unwrap()];
                let fq = filter.quant.as_ref().unwrap();
                assert_eq!((fq.axis, fq.scales.len()), (0, filter.shape[0]));
                assert!(filter.is_constant());
            }
            (OpKind::Builtin(OpCode::DEPTHWISE_CONV_2D), Options::DepthwiseConv2D(o)) => {
                assert!(o.stride_h >= 1);
                let filter = &g.tensors[op.input(1).unwrap()];
                assert_eq!(filter.quant.as_ref().unwrap().axis, 3);
            }
            (OpKind::Builtin(OpCode::AVERAGE_POOL_2D), Options::Pool2D(o)) => {
                assert!(o.filter_w >= 1 && o.filter_h >= 1);
            }
            (OpKind::Builtin(OpCode::RESHAPE), Options::Reshape { .. }) => {}
            (OpKind::Builtin(OpCode::SOFTMAX), Options::Softmax { beta }) => {
                assert_eq!(*beta, 1.0);
            }
            (kind, options) => panic!("unexpected {kind:?} with {options:?}"),
        }
    }
}

#[test]
fn keyword_scrambled_has_state() {
    let Some(bytes) = common::shared_model("keyword_scrambled.tflite") else {
        return;
    };
    let g = load(&bytes).unwrap();
    assert_eq!(
        op_counts(&g),
        counts(&[
            ("FULLY_CONNECTED", 5),
            ("QUANTIZE", 2),
            ("SOFTMAX", 1),
            ("SVDF", 7)
        ])
    );
    let variables: Vec<_> = g.tensors.iter().filter(|t| t.is_variable).collect();
    assert_eq!(variables.len(), 7);
    assert!(variables.iter().all(|t| !t.is_constant()));
    for op in g
        .operators
        .iter()
        .filter(|op| op.kind.code() == Some(OpCode::SVDF))
    {
        match &op.options {
            Options::Svdf(o) => assert!(o.rank >= 1),
            other => panic!("SVDF options: {other:?}"),
        }
    }
    let input = &g.tensors[g.inputs[0]];
    assert_eq!(
        (input.dtype, input.shape.as_slice()),
        (DType::I16, &[1, 96][..])
    );
}

#[test]
fn hello_world() {
    for (file, dtype) in [
        ("hello_world_int8.tflite", DType::I8),
        ("hello_world_float.tflite", DType::F32),
    ] {
        let Some(bytes) = common::shared_model(file) else {
            return;
        };
        let g = load(&bytes).unwrap();
        assert_eq!(op_counts(&g), counts(&[("FULLY_CONNECTED", 3)]), "{file}");
        let input = &g.tensors[g.inputs[0]];
        // The converter left the batch open (signature [-1, 1]); the model runs at shape [1, 1].
        assert_eq!(
            (input.dtype, input.shape.as_slice()),
            (dtype, &[1, 1][..]),
            "{file}"
        );
        for op in &g.operators {
            assert!(
                matches!(op.options, Options::FullyConnected(o) if !o.shuffled_weights),
                "{file}"
            );
        }
        let last = g.operators.last().unwrap();
        if let Options::FullyConnected(o) = last.options {
            assert_eq!(o.activation, Activation::None, "{file}");
        }
    }
}

#[test]
fn micro_speech_and_lstm() {
    let Some(bytes) = common::shared_model("micro_speech_quantized.tflite") else {
        return;
    };
    let g = load(&bytes).unwrap();
    assert_eq!(
        op_counts(&g),
        counts(&[
            ("DEPTHWISE_CONV_2D", 1),
            ("FULLY_CONNECTED", 1),
            ("RESHAPE", 1),
            ("SOFTMAX", 1)
        ])
    );

    let Some(bytes) = common::shared_model("trained_lstm_int8.tflite") else {
        return;
    };
    let g = load(&bytes).unwrap();
    let lstm = g
        .operators
        .iter()
        .find(|op| op.kind.code() == Some(OpCode::UNIDIRECTIONAL_SEQUENCE_LSTM))
        .expect("an LSTM");
    // Loaded for planning; its options are not decoded, and its peephole inputs are omitted.
    assert_eq!(lstm.options, Options::None);
    assert!(lstm.inputs.iter().any(Option::is_none));
    assert_eq!(g.tensors.iter().filter(|t| t.is_variable).count(), 2);
}

#[test]
fn mobilenet_v2() {
    let Some(bytes) = common::shared_model("mobilenet_v2_quantized_1x3x224x224.tflite") else {
        return;
    };
    let g = load(&bytes).unwrap();
    assert_eq!(
        op_counts(&g),
        counts(&[
            ("ADD", 10),
            ("CONV_2D", 35),
            ("DEPTHWISE_CONV_2D", 17),
            ("FULLY_CONNECTED", 1),
            ("MEAN", 1),
            ("PAD", 18),
            ("RESHAPE", 1),
            ("TRANSPOSE", 1),
        ])
    );
    let input = &g.tensors[g.inputs[0]];
    assert_eq!(input.shape, vec![1, 3, 224, 224]);
    let mean = g
        .operators
        .iter()
        .find(|op| op.kind.code() == Some(OpCode::MEAN))
        .unwrap();
    assert!(matches!(mean.options, Options::Reducer { .. }));
    // Weights are borrowed from the file, not copied.
    let range = bytes.as_ptr_range();
    for t in g.tensors.iter().filter_map(|t| t.data.as_deref()) {
        assert!(range.contains(&t.as_ptr()));
    }
}

/// The graph without its link to the file it came from (which differs between two files).
fn detached(g: Graph<'_>) -> Graph<'_> {
    Graph {
        source: None,
        subgraphs: Vec::new(),
        ..g
    }
}

#[test]
fn shared_models_load_the_same_off_their_alignment() {
    // TFLM reads with unaligned loads; so does tinyaot: zero-point vectors moved to ≡ 4 (mod 8),
    // and the whole FlatBuffer moved by 5 bytes, give the same graph.
    let Some(models) = common::shared_models("the shared models off their alignment") else {
        return;
    };
    let mut moved_vectors = 0;
    for path in models {
        let name = path.display().to_string();
        let bytes = common::read(&path);
        let model = tinyaot_schema::tflite::root_as_model(&bytes).expect("verifies");
        if model
            .buffers()
            .into_iter()
            .flatten()
            .any(|b| b.offset() > 1)
        {
            continue; // external buffers are addressed from the start of the file
        }
        let expected = detached(load(&bytes).expect("loads"));
        let quantized: Vec<usize> = (0..expected.tensors.len().min(model_tensors(&bytes)))
            .filter(|&t| has_zero_points(&bytes, t))
            .take(3)
            .collect();
        moved_vectors += quantized.len();
        let mut moved = bytes.clone();
        for &t in &quantized {
            moved = tinyaot_modelkit::misalign_zero_points(&moved, t);
        }
        let shifted = tinyaot_modelkit::patch::shift(&moved, 5);
        for (what, b) in [("zero points", &moved), ("shifted", &shifted)] {
            let g = detached(load(b).unwrap_or_else(|e| panic!("{name} {what}: {e}")));
            assert!(g == expected, "{name} {what}: the graph differs");
        }
    }
    assert!(
        moved_vectors > 3,
        "{moved_vectors} zero-point vectors moved"
    );
}

fn model_tensors(bytes: &[u8]) -> usize {
    let model = tinyaot_schema::tflite::root_as_model(bytes).unwrap();
    let subgraph = model.subgraphs().unwrap().get(0);
    subgraph.tensors().map_or(0, |t| t.len())
}

fn has_zero_points(bytes: &[u8], t: usize) -> bool {
    let model = tinyaot_schema::tflite::root_as_model(bytes).unwrap();
    let tensor = model.subgraphs().unwrap().get(0).tensors().unwrap().get(t);
    tensor
        .quantization()
        .and_then(|q| q.zero_point())
        .is_some_and(|z| !z.is_empty())
}

/// The converter-made corners of the fixtures (`tests/fixtures/generate.py` checks that each is in
/// its file): the loader takes them as TFLM does.
#[test]
fn converter_made_corners() {
    let fixture = |name: &str| {
        common::read(&tinyaot_test_support::fixtures_dir().join(format!("models/{name}.tflite")))
    };
    // An open batch: the file's signature has -1 where its shape has 1. TFLM ignores the
    // signature and runs the shape, and so does the loader; the shape arithmetic is still there
    // (the fold stage computes it from the static shape).
    for name in ["dynamic_batch", "dynamic_batch_float"] {
        let bytes = fixture(name);
        let model = tinyaot_schema::tflite::root_as_model(&bytes).unwrap();
        let subgraph = model.subgraphs().unwrap().get(0);
        let input = subgraph
            .tensors()
            .unwrap()
            .get(subgraph.inputs().unwrap().get(0) as usize);
        let signature: Vec<i32> = input.shape_signature().unwrap().iter().collect();
        assert_eq!(signature, [-1, 6, 6, 4], "{name}");
        let g = load(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(g.tensors[g.inputs[0]].shape, [1, 6, 6, 4], "{name}");
        let ops = op_counts(&g);
        for op in ["SHAPE", "STRIDED_SLICE", "PACK", "RESHAPE"] {
            assert_eq!(ops.get(op), Some(&1), "{name}: {op}");
        }
    }
    // Dead channels: 8 pruned filter channels, whose weight scales the converter made tiny.
    let bytes = fixture("mobilenet_pruned");
    let g = load(&bytes).unwrap();
    let tiny = g
        .tensors
        .iter()
        .filter(|t| t.dtype == DType::I8 && t.data.is_some())
        .filter_map(|t| t.quant.as_ref())
        .flat_map(|q| q.scales.iter())
        .filter(|&&s| s > 0.0 && s < 1e-6)
        .count();
    assert_eq!(tiny, 8);
    // Zero points moved off their alignment by post-processing read as the converter wrote them.
    let bytes = fixture("metadata_misaligned");
    let g = load(&bytes).unwrap();
    let zero_point = |t: usize| g.tensors[t].quant.as_ref().unwrap().zero_points.clone();
    assert_eq!(
        (zero_point(g.inputs[0]), zero_point(g.outputs[0])),
        (vec![-1], vec![-20])
    );
    // Graph outputs that no operator writes: the graph input and a constant.
    for name in [
        "outputs_input_and_constant",
        "outputs_input_and_constant_float",
    ] {
        let bytes = fixture(name);
        let g = load(&bytes).unwrap();
        assert!(g.outputs.contains(&g.inputs[0]), "{name}");
        assert!(
            g.outputs.iter().any(|&o| g.tensors[o].data.is_some()),
            "{name}"
        );
    }
}

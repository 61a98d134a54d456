//! Overlaps: the planner puts an operator's output over its dying input where the kernel's access
//! contract allows it, and the independent checker refuses every overlap a contract does not
//! prove — for each contract kind, a plan made wrong in one specific way.

use tinyaot_codegen::lower::{lower, Access};
use tinyaot_codegen::plan::{
    access_contracts, check_plan, check_plan_with, plan_graph_with, plan_graph_with_scratch,
    scratch_requests, MemoryPlan,
};
use tinyaot_modelkit::{Activation, BuiltinOperator as B, ModelSpec, Options, Padding, TensorSpec};

/// An int8 CONV_2D (`kernel`×`kernel`, stride `stride`, SAME) from `[1, h, w, cin]` to `cout`
/// channels, the graph's only operator.
fn conv(h: i32, w: i32, (cin, cout): (i32, i32), kernel: i32, stride: i32) -> Vec<u8> {
    let out = (h + stride - 1) / stride;
    let outw = (w + stride - 1) / stride;
    let weights: Vec<i8> = (0..cout * kernel * kernel * cin)
        .map(|i| (i % 7 - 3) as i8)
        .collect();
    ModelSpec::single_op(
        B::CONV_2D,
        Options::conv2d(Padding::SAME, (stride, stride), Activation::NONE),
        vec![
            TensorSpec::int8(&[1, h, w, cin], 0.5, -1),
            TensorSpec::int8(&[cout, kernel, kernel, cin], 0.25, 0).constant_i8(&weights),
            TensorSpec::int32(&[cout])
                .quant(0.125, 0)
                .constant_i32(&vec![3; cout as usize]),
        ],
        vec![TensorSpec::int8(&[1, out, outw, cout], 1.0, 2)],
    )
    .to_bytes()
}

/// An int8 DEPTHWISE_CONV_2D 3×3 SAME, stride 1, on `[1, h, w, c]`.
fn depthwise(h: i32, w: i32, c: i32) -> Vec<u8> {
    let weights: Vec<i8> = (0..9 * c).map(|i| (i % 5 - 2) as i8).collect();
    ModelSpec::single_op(
        B::DEPTHWISE_CONV_2D,
        Options::depthwise(Padding::SAME, (1, 1), 1, Activation::NONE),
        vec![
            TensorSpec::int8(&[1, h, w, c], 0.5, -1),
            TensorSpec::int8(&[1, 3, 3, c], 0.25, 0).constant_i8(&weights),
            TensorSpec::int32(&[c])
                .quant(0.125, 0)
                .constant_i32(&vec![1; c as usize]),
        ],
        vec![TensorSpec::int8(&[1, h, w, c], 1.0, 0)],
    )
    .to_bytes()
}

/// An int8 RELU on `[1, n]`.
fn relu(n: i32) -> Vec<u8> {
    ModelSpec::single_op(
        B::RELU,
        Options::default_for(B::RELU),
        vec![TensorSpec::int8(&[1, n], 0.5, -3)],
        vec![TensorSpec::int8(&[1, n], 0.5, -3)],
    )
    .to_bytes()
}

/// The model's plan with and without overlaps, and its declared contracts.
fn plans(model: &[u8]) -> (MemoryPlan, MemoryPlan, Vec<(usize, Access)>) {
    let graph = tinyaot_codegen::load::load(model).expect("loads");
    let calls = lower(&graph).expect("lowers");
    let scratch = scratch_requests(&calls);
    let access = access_contracts(&calls);
    let with = plan_graph_with(&graph, &scratch, &access).expect("plans with overlaps");
    let without = plan_graph_with_scratch(&graph, &scratch).expect("plans without");
    (with, without, access)
}

/// `check_plan_with` on the model's graph.
fn check(model: &[u8], plan: &MemoryPlan, access: &[(usize, Access)]) -> Result<(), String> {
    let graph = tinyaot_codegen::load::load(model).expect("loads");
    check_plan_with(&graph, plan, access).map_err(|e| e.to_string())
}

/// Moves tensor `t` of `plan` by `delta` bytes, growing the arena to keep it inside.
fn moved(plan: &MemoryPlan, t: usize, delta: isize) -> MemoryPlan {
    let mut p = plan.clone();
    let offset = p.tensors[t]
        .offset
        .checked_add_signed(delta)
        .expect("offset");
    p.tensors[t].offset = offset;
    p.arena_bytes = p
        .arena_bytes
        .max((offset + p.tensors[t].bytes).next_multiple_of(16));
    p
}

fn expect_refusal(result: Result<(), String>, words: &str) {
    match result {
        Err(e) => assert!(e.contains(words), "refused, but for another reason: {e}"),
        Ok(()) => panic!("a wrong overlap was accepted (expected: {words})"),
    }
}

#[test]
fn a_pointwise_convolution_streams_over_its_input_and_every_wrong_offset_is_refused() {
    // 1×1, 8 → 16 channels on 8×8: the output (1,024 bytes) starts 528 bytes below the input
    // (512 bytes), whose last pair of pixels it must not reach before reading them.
    let model = conv(8, 8, (8, 16), 1, 1);
    let (with, without, access) = plans(&model);
    assert_eq!(without.arena_bytes, 512 + 1024);
    assert_eq!(with.overlaps.len(), 1, "{:?}", with.overlaps);
    let Access::Stream { input, output, .. } = with.overlaps[0].access else {
        panic!("expected a stream overlap: {:?}", with.overlaps);
    };
    assert_eq!(with.arena_bytes, 1024 + 16);
    assert!(with.arena_bytes < with.lower_bound_bytes);
    check(&model, &with, &access).expect("the planner's overlap is proven");
    // Every offset of the output closer to the input by one alignment step breaks the contract.
    expect_refusal(
        check(&model, &moved(&with, output, 16), &access),
        "still to be read",
    );
    // So does the input moved down onto the output.
    expect_refusal(
        check(&model, &moved(&with, input, -16), &access),
        "still to be read",
    );
    // Without the kernel's declaration the same plan is refused outright.
    let graph = tinyaot_codegen::load::load(&model).expect("loads");
    expect_refusal(
        check_plan(&graph, &with).map_err(|e| e.to_string()),
        "declares no such contract",
    );
    // A contract the kernel does not declare (a larger group) proves nothing either.
    let mut claimed = with.clone();
    if let Access::Stream { stream, .. } = &mut claimed.overlaps[0].access {
        stream.reads_first = true;
    }
    expect_refusal(
        check(&model, &claimed, &access),
        "declares no such contract",
    );
}

#[test]
fn a_strided_convolution_with_padding_is_proven_pixel_by_pixel() {
    // 3×3, stride 2, 4 → 8 channels on 9×9 (SAME: one row and column of padding each side).
    let model = conv(9, 9, (4, 8), 3, 2);
    let (with, _, access) = plans(&model);
    assert_eq!(with.overlaps.len(), 1);
    check(&model, &with, &access).expect("proven");
    let (_, output) = with.overlaps[0].access.tensors();
    expect_refusal(
        check(&model, &moved(&with, output, 16), &access),
        "still to be read",
    );
}

#[test]
fn a_depthwise_convolution_trails_its_input_by_a_row_and_a_pixel() {
    // 3×3 SAME on 6×5×16: output pixel (y, x) is written once input rows y − 1 on are still
    // needed, from pixel (y − 1, x − 1): a gap of a row and two pixels, 7 × 16 = 112 bytes.
    let model = depthwise(6, 5, 16);
    let (with, without, access) = plans(&model);
    assert_eq!(without.arena_bytes, 2 * 480);
    assert_eq!(with.overlaps.len(), 1);
    assert_eq!(with.arena_bytes, 480 + 112);
    check(&model, &with, &access).expect("proven");
    // (The kernel is reversible: the output may lie the same gap above the input instead.)
    let (input, output) = with.overlaps[0].access.tensors();
    let closer = if with.tensors[output].offset > with.tensors[input].offset {
        -16
    } else {
        16
    };
    expect_refusal(
        check(&model, &moved(&with, output, closer), &access),
        "still to be read",
    );
}

#[test]
fn an_activation_runs_in_place_and_only_at_the_same_offset() {
    let model = relu(100);
    let (with, without, access) = plans(&model);
    assert_eq!(without.arena_bytes, 2 * 112);
    assert_eq!(with.arena_bytes, 112);
    assert_eq!(with.overlaps.len(), 1);
    let Access::InPlace { input, output } = with.overlaps[0].access else {
        panic!("expected in place: {:?}", with.overlaps);
    };
    assert_eq!(with.tensors[input].offset, with.tensors[output].offset);
    check(&model, &with, &access).expect("proven");
    // Half a chunk off is no longer in place.
    expect_refusal(
        check(&model, &moved(&with, output, 16), &access),
        "one offset",
    );
    expect_refusal(
        check(&model, &moved(&with, input, 16), &access),
        "one offset",
    );
}

#[test]
fn an_input_read_again_later_is_never_overlapped() {
    // The RELU's input is also a graph output: it must survive the RELU.
    let mut m = ModelSpec::new();
    let a = m.tensor(TensorSpec::int8(&[1, 64], 0.5, 0));
    let b = m.tensor(TensorSpec::int8(&[1, 64], 0.5, 0));
    let c = m.tensor(TensorSpec::int8(&[1, 64], 0.5, 0));
    m.inputs = vec![a];
    m.outputs = vec![b, c];
    m.op(B::RELU, Options::default_for(B::RELU), &[a], &[b]);
    m.op(B::RELU, Options::default_for(B::RELU), &[b], &[c]);
    let model = m.to_bytes();
    let (with, _, access) = plans(&model);
    // The first RELU may consume the graph input; the second must keep its input, an output.
    assert!(
        with.overlaps.iter().all(|o| o.op == 0),
        "{:?}",
        with.overlaps
    );
    // An overlap claimed for the second anyway is refused.
    let mut forced = with.clone();
    let (b, c) = (b as usize, c as usize);
    forced.tensors[c].offset = forced.tensors[b].offset;
    forced.overlaps.push(tinyaot_codegen::plan::Overlap {
        op: 1,
        access: Access::InPlace {
            input: b,
            output: c,
        },
    });
    expect_refusal(check(&model, &forced, &access), "must die");
}

#[test]
fn planning_without_overlaps_is_the_bound_only_plan() {
    let model = conv(8, 8, (8, 16), 1, 1);
    let graph = tinyaot_codegen::load::load(&model).expect("loads");
    let calls = lower(&graph).expect("lowers");
    let plan = plan_graph_with(&graph, &scratch_requests(&calls), &[]).expect("plans");
    assert!(plan.overlaps.is_empty());
    assert_eq!(plan.arena_bytes, plan.lower_bound_bytes);
}

/// `plan` with the stream overlap's output placed `above` bytes above its input (the input at
/// offset 0), the arena grown to hold it.
fn reversed(plan: &MemoryPlan, above: usize) -> MemoryPlan {
    let (input, output) = plan.overlaps[0].access.tensors();
    let mut p = plan.clone();
    p.tensors[input].offset = 0;
    p.tensors[output].offset = above;
    p.arena_bytes = (above + p.tensors[output].bytes)
        .max(p.tensors[input].bytes)
        .next_multiple_of(16);
    p
}

#[test]
fn a_reversible_stream_may_start_above_its_input_by_its_reverse_gap() {
    // Depthwise 3×3 SAME on 6×5×16, taken last to first: pixel (y, x) reads up to (y + 1, x + 1),
    // so its output may start a row and two pixels (112 bytes) above the input, not 16 closer.
    let model = depthwise(6, 5, 16);
    let (with, _, access) = plans(&model);
    check(&model, &reversed(&with, 112), &access).expect("proven in reverse");
    expect_refusal(
        check(&model, &reversed(&with, 96), &access),
        "still to be read",
    );
    // 1×1, 8 → 16 channels on 8×8, pairs last to first: the last pair's output (its pixels 62
    // and 63, 32 bytes from 62 · 16 = 992 on) must miss the input up to its end (512): any
    // start above the input does; the first pair's needs the input's first 16 bytes behind it.
    let model = conv(8, 8, (8, 16), 1, 1);
    let (with, _, access) = plans(&model);
    check(&model, &reversed(&with, 16), &access).expect("proven in reverse");
    // A stream that is not reversible (a strided 3×3 convolution) may not start above at all.
    let model = conv(9, 9, (4, 8), 3, 2);
    let (with, _, access) = plans(&model);
    expect_refusal(
        check(&model, &reversed(&with, 160), &access),
        "not reversible",
    );
}

#[test]
fn ds_cnn_alternates_directions_and_fits_in_one_activation_and_a_gap() {
    // Four depthwise + pointwise blocks on a 25×5×64 activation (8,000 bytes): forwards only,
    // each layer moves it down by its gap (448 or 128 bytes); alternating directions keeps it
    // within about one depthwise gap of where it started.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/models/ds_cnn.tflite");
    let model = std::fs::read(path).expect("ds_cnn fixture");
    let (with, without, access) = plans(&model);
    assert_eq!(without.arena_bytes, 16_000);
    assert!(with.arena_bytes <= 9_000, "arena {}", with.arena_bytes);
    let above = with
        .overlaps
        .iter()
        .filter(|o| {
            let (x, y) = o.access.tensors();
            with.tensors[y].offset > with.tensors[x].offset
        })
        .count();
    assert!(above >= 2, "{above} overlaps above their inputs");
    check(&model, &with, &access).expect("proven");
}

/// Two int8 `[1, 16]` inputs, each through a RELU, concatenated along the last axis: the RELUs'
/// outputs (16 bytes each) are the two halves of the concatenation's output.
fn concat_of_relus() -> (Vec<u8>, [usize; 3]) {
    let mut m = ModelSpec::new();
    let spec = || TensorSpec::int8(&[1, 16], 0.5, 0);
    let (a, b) = (m.tensor(spec()), m.tensor(spec()));
    let (ra, rb) = (m.tensor(spec()), m.tensor(spec()));
    let out = m.tensor(TensorSpec::int8(&[1, 32], 0.5, 0));
    m.inputs = vec![a, b];
    m.outputs = vec![out];
    m.op(B::RELU, Options::default_for(B::RELU), &[a], &[ra]);
    m.op(B::RELU, Options::default_for(B::RELU), &[b], &[rb]);
    m.op(
        B::CONCATENATION,
        Options::Concatenation {
            axis: -1,
            activation: Activation::NONE,
        },
        &[ra, rb],
        &[out],
    );
    (m.to_bytes(), [ra as usize, rb as usize, out as usize])
}

#[test]
fn a_concatenations_inputs_are_written_into_their_slices_and_nowhere_else() {
    let (model, [ra, rb, out]) = concat_of_relus();
    let (with, _, access) = plans(&model);
    let slices: Vec<_> = with
        .overlaps
        .iter()
        .filter(|o| matches!(o.access, Access::Slice { .. }))
        .collect();
    assert_eq!(slices.len(), 2, "{:?}", with.overlaps);
    let at = |t: usize| with.tensors[t].offset;
    assert_eq!((at(ra), at(rb)), (at(out), at(out) + 16));
    check(&model, &with, &access).expect("proven");
    // A slice one alignment step off its place, or out of the output, is refused.
    expect_refusal(
        check(&model, &moved(&with, rb, -16), &access),
        "a slice lies at",
    );
    expect_refusal(
        check(&model, &moved(&with, rb, 16), &access),
        "a slice lies at",
    );
    // Without the kernel's declaration the same plan is refused outright.
    let graph = tinyaot_codegen::load::load(&model).expect("loads");
    expect_refusal(
        check_plan(&graph, &with).map_err(|e| e.to_string()),
        "declares no such contract",
    );
}

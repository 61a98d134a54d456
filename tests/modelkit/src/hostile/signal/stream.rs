//! The corners of the operators that carry samples across invocations: SignalDelay,
//! SignalFramer, SignalStacker and SignalOverlapAdd.

use super::*;

/// A SignalDelay of int16 `input` into `output` by `delay_length` samples.
fn delay(input: TensorSpec, output: TensorSpec, delay_length: i64) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalDelay",
        Some(int_map(&[("delay_length", delay_length)])),
        vec![input],
        vec![output],
    )
}

/// SignalDelay: its kept samples carry from case to case (TFLM's goldens run the cases in order
/// on one interpreter), with a delay shorter than a row, one longer than the three cases' rows
/// together (the output all zeros until the third), no delay (no state), and rows in a rank-3
/// shape; negative delays, rows of no samples and outputs of another size are refused.
pub(super) fn delay_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    for (name, shape, delay_length) in [
        ("signal_delay_two_rows_by_3", vec![2, 8], 3),
        ("signal_delay_longer_than_three_rows", vec![4], 10),
        ("signal_delay_0", vec![3, 5], 0),
        ("signal_delay_rank_3_by_row", vec![2, 2, 4], 4),
    ] {
        s.accepted(name, delay(int16(&shape), int16(&shape), delay_length));
    }
    s.category = Category::TypesAndParameters;
    for (name, input, output, delay_length, mentions) in [
        (
            "signal_delay_negative",
            int16(&[8]),
            int16(&[8]),
            -1,
            "delay_length -1",
        ),
        (
            "signal_delay_rows_of_no_samples",
            int16(&[0]),
            int16(&[0]),
            2,
            "rows of 0 samples",
        ),
        (
            "signal_delay_output_shorter",
            int16(&[8]),
            int16(&[6]),
            2,
            "output of 6 elements",
        ),
        (
            "signal_delay_int32",
            TensorSpec::int32(&[8]),
            TensorSpec::int32(&[8]),
            2,
            "the input has type",
        ),
    ] {
        s.refused(name, delay(input, output, delay_length), Refusal::Invalid, mentions);
    }
    s.refused(
        "signal_delay_options_missing",
        ModelSpec::single_custom_op("SignalDelay", None, vec![int16(&[8])], vec![int16(&[8])]),
        Refusal::Invalid,
        "too short",
    );
}

/// A SignalFramer of int16 `input` into `output` and a bool scalar, with its three options.
fn framer(input: TensorSpec, output: TensorSpec, size: i64, step: i64, prefill: bool) -> ModelSpec {
    framer_valid(input, output, TensorSpec::new(TensorType::BOOL, &[]), size, step, prefill)
}

/// [`framer`] with the `output_valid` tensor given.
fn framer_valid(
    input: TensorSpec,
    output: TensorSpec,
    valid: TensorSpec,
    size: i64,
    step: i64,
    prefill: bool,
) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalFramer",
        Some(int_map(&[
            ("frame_size", size),
            ("frame_step", step),
            ("prefill", i64::from(prefill)),
        ])),
        vec![input],
        vec![output, valid],
    )
}

/// A SignalFramer without `prefill`, its frames passed on only when `output_valid` says every
/// frame is complete (a SELECT_V2 of them and zeros): TFLM leaves an incomplete frame as its
/// arena held it (other tensors' leftovers, not reproducible), tinyaot writes 0. The graph's
/// outputs are the selected frames and `output_valid`.
fn framer_guarded(input: &[i32], output: &[i32], size: i64, step: i64) -> ModelSpec {
    let mut m = ModelSpec::new();
    let x = m.tensor(int16(input));
    let frames = m.tensor(int16(output));
    let valid = m.tensor(TensorSpec::new(TensorType::BOOL, &[]));
    let zeros = m.tensor(int16(&[1]).constant_i16(&[0]));
    let y = m.tensor(int16(output));
    let framer = m.push_opcode(OpCodeSpec::custom("SignalFramer"));
    m.operators.push(OpSpec {
        opcode_index: framer,
        inputs: vec![x],
        outputs: vec![frames, valid],
        intermediates: Vec::new(),
        options: Options::None,
        custom_options: Some(int_map(&[
            ("frame_size", size),
            ("frame_step", step),
            ("prefill", 0),
        ])),
    });
    let select = m.push_opcode(OpCodeSpec::builtin(crate::BuiltinOperator::SELECT_V2));
    m.operators.push(OpSpec {
        opcode_index: select,
        inputs: vec![valid, frames, zeros],
        outputs: vec![y],
        intermediates: Vec::new(),
        options: Options::None,
        custom_options: None,
    });
    m.inputs = vec![x];
    m.outputs = vec![y, valid];
    m
}

/// SignalFramer: its kept samples carry from case to case, with prefill (every frame complete
/// from the first), without it (the first frames incomplete, `output_valid` false, in the first
/// case or the first two: those models pass the frames on only when valid, see
/// [`framer_guarded`]), frames shorter than the step (samples skipped) or equal to it, several
/// rows in a rank-3 shape; steps, sizes and shapes TFLM refuses or reads out of bounds are
/// refused.
pub(super) fn framer_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    for (name, input, output, size, step, prefill) in [
        ("signal_framer_prefill", vec![8], vec![4, 6], 6, 2, true),
        ("signal_framer_frame_shorter_than_step", vec![8], vec![2, 3], 3, 4, false),
        ("signal_framer_prefill_frame_equals_step", vec![2, 4], vec![2, 1, 4], 4, 4, true),
        ("signal_framer_prefill_rank_3", vec![2, 1, 4], vec![2, 1, 2, 4], 4, 2, true),
    ] {
        s.accepted(
            name,
            framer(int16(&input), int16(&output), size, step, prefill),
        );
    }
    for (name, input, output, size, step) in [
        ("signal_framer_two_rows", vec![2, 6], vec![2, 2, 5], 5, 3),
        ("signal_framer_warm_up_two_cases", vec![1, 2], vec![1, 1, 6], 6, 2),
        ("signal_framer_rank_3", vec![2, 1, 4], vec![2, 1, 2, 4], 4, 2),
    ] {
        s.accepted(name, framer_guarded(&input, &output, size, step));
    }
    s.category = Category::TypesAndParameters;
    for (name, input, output, size, step, prefill, mentions) in [
        ("signal_framer_step_0", vec![8], vec![1, 4], 4, 0, false, "frame_step 0"),
        ("signal_framer_step_not_dividing_row", vec![8], vec![2, 4], 4, 3, false, "not a multiple"),
        ("signal_framer_row_shorter_than_step", vec![2], vec![1, 4], 4, 4, false, "fewer than frame_step"),
        ("signal_framer_size_0", vec![8], vec![4, 1], 0, 2, false, "frame_size 0"),
        ("signal_framer_prefill_size_below_step", vec![8], vec![2, 2], 2, 4, true, "at least frame_step"),
        ("signal_framer_output_too_small", vec![8], vec![4, 5], 6, 2, true, "output of 20 elements"),
        ("signal_framer_output_same_rank", vec![8], vec![24], 6, 2, true, "output of rank 1"),
    ] {
        s.refused(
            name,
            framer(int16(&input), int16(&output), size, step, prefill),
            Refusal::Invalid,
            mentions,
        );
    }
    s.refused(
        "signal_framer_valid_rank_1",
        framer_valid(
            int16(&[8]),
            int16(&[4, 6]),
            TensorSpec::new(TensorType::BOOL, &[1]),
            6,
            2,
            true,
        ),
        Refusal::Invalid,
        "not rank 0",
    );
    s.refused(
        "signal_framer_valid_int16",
        framer_valid(int16(&[8]), int16(&[4, 6]), int16(&[]), 6, 2, true),
        Refusal::Invalid,
        "output_valid output has type",
    );
}

/// The options of a SignalStacker.
fn stacker_options(channels: i64, left: i64, right: i64, step: i64) -> Option<Vec<u8>> {
    Some(int_map(&[
        ("num_channels", channels),
        ("stacker_left_context", left),
        ("stacker_right_context", right),
        ("stacker_step", step),
    ]))
}

/// A SignalStacker of int16 `input` into `output` and `valid`, with `options`.
fn stacker(
    input: TensorSpec,
    output: TensorSpec,
    valid: TensorSpec,
    options: Option<Vec<u8>>,
) -> ModelSpec {
    ModelSpec::single_custom_op("SignalStacker", options, vec![input], vec![output, valid])
}

/// A SignalStacker whose output is passed on only when `output_valid` says it is a stack (a
/// SELECT_V2 of it and zeros; TFLM leaves an invalid output as its arena held it); the graph's
/// outputs are that and `output_valid`.
fn stacker_guarded(input: i32, output: i32, options: Option<Vec<u8>>) -> ModelSpec {
    let mut m = ModelSpec::new();
    let x = m.tensor(int16(&[input]));
    let stack = m.tensor(int16(&[output]));
    let valid = m.tensor(TensorSpec::new(TensorType::BOOL, &[]));
    let zeros = m.tensor(int16(&[1]).constant_i16(&[0]));
    let y = m.tensor(int16(&[output]));
    let op = m.push_opcode(OpCodeSpec::custom("SignalStacker"));
    m.operators.push(OpSpec {
        opcode_index: op,
        inputs: vec![x],
        outputs: vec![stack, valid],
        intermediates: Vec::new(),
        options: Options::None,
        custom_options: options,
    });
    let select = m.push_opcode(OpCodeSpec::builtin(crate::BuiltinOperator::SELECT_V2));
    m.operators.push(OpSpec {
        opcode_index: select,
        inputs: vec![valid, stack, zeros],
        outputs: vec![y],
        intermediates: Vec::new(),
        options: Options::None,
        custom_options: None,
    });
    m.inputs = vec![x];
    m.outputs = vec![y, valid];
    m
}

/// SignalStacker: its frames carry from case to case; stacks with right context (the first
/// case or every other one not a stack: those models pass the output on only when valid, see
/// [`stacker_guarded`]), with left context only and none (a stack from the first case), an input
/// longer than its channels; sizes, contexts and steps TFLM reads out of bounds or asserts
/// against, and shapes and types it refuses, are refused.
pub(super) fn stacker_cases(s: &mut Suite) {
    let bool_scalar = || TensorSpec::new(TensorType::BOOL, &[]);
    s.category = Category::LegitimateCorners;
    s.accepted(
        "signal_stacker_right_context",
        stacker_guarded(4, 16, stacker_options(4, 2, 1, 1)),
    );
    s.accepted(
        "signal_stacker_step_2",
        stacker_guarded(3, 9, stacker_options(3, 1, 1, 2)),
    );
    for (name, input, output, options) in [
        ("signal_stacker_no_context", 5, 5, stacker_options(5, 0, 0, 1)),
        ("signal_stacker_left_context_only", 2, 8, stacker_options(2, 3, 0, 1)),
        ("signal_stacker_input_longer", 6, 8, stacker_options(4, 1, 0, 1)),
    ] {
        s.accepted(
            name,
            stacker(int16(&[input]), int16(&[output]), bool_scalar(), options),
        );
    }
    s.category = Category::TypesAndParameters;
    for (name, input, output, options, mentions) in [
        ("signal_stacker_no_channels", 4, 4, stacker_options(0, 1, 0, 1), "num_channels 0"),
        ("signal_stacker_negative_context", 4, 4, stacker_options(4, -1, 1, 1), "stacker_left_context -1"),
        ("signal_stacker_step_0", 4, 8, stacker_options(4, 1, 0, 0), "stacker_step 0"),
        ("signal_stacker_step_past_stack", 4, 8, stacker_options(4, 1, 0, 3), "stacker_step 3"),
        ("signal_stacker_input_shorter", 3, 8, stacker_options(4, 1, 0, 1), "input of 3 elements"),
        ("signal_stacker_output_longer", 4, 12, stacker_options(4, 1, 0, 1), "output of 12 elements"),
    ] {
        s.refused(
            name,
            stacker(int16(&[input]), int16(&[output]), bool_scalar(), options),
            Refusal::Invalid,
            mentions,
        );
    }
    s.refused(
        "signal_stacker_input_rank_2",
        stacker(int16(&[1, 4]), int16(&[8]), bool_scalar(), stacker_options(4, 1, 0, 1)),
        Refusal::Invalid,
        "not rank 1",
    );
    s.refused(
        "signal_stacker_valid_int16",
        stacker(int16(&[4]), int16(&[8]), int16(&[]), stacker_options(4, 1, 0, 1)),
        Refusal::Invalid,
        "output_valid output has type",
    );
    s.refused(
        "signal_stacker_options_missing",
        stacker(int16(&[4]), int16(&[8]), bool_scalar(), Some(int_map(&[("num_channels", 4)]))),
        Refusal::Invalid,
        "parameter",
    );
}

/// A SignalOverlapAdd of `input` into `output` with the options' `T` and `frame_step`.
fn overlap_add(input: TensorSpec, output: TensorSpec, t: i64, step: i64) -> ModelSpec {
    ModelSpec::single_custom_op(
        "SignalOverlapAdd",
        Some(int_map(&[("T", t), ("frame_step", step)])),
        vec![input],
        vec![output],
    )
}

/// SignalOverlapAdd: its sums carry from case to case, in int16 (random frames: sums saturate)
/// and float32, half and quarter steps, several frames and rows, a step of a whole frame (no
/// overlap); types, ranks and steps TFLM refuses or reads out of bounds are refused.
pub(super) fn overlap_add_cases(s: &mut Suite) {
    s.category = Category::LegitimateCorners;
    for (name, input, output, t, step) in [
        ("signal_overlap_add_int16_half_step", int16(&[2, 8]), int16(&[8]), 7, 4),
        ("signal_overlap_add_int16_rows", int16(&[2, 3, 4]), int16(&[2, 3]), 7, 1),
        ("signal_overlap_add_int16_no_overlap", int16(&[1, 6]), int16(&[6]), 7, 6),
        (
            "signal_overlap_add_float_quarter_step",
            TensorSpec::f32(&[3, 8]),
            TensorSpec::f32(&[6]),
            0,
            2,
        ),
        (
            "signal_overlap_add_float_rows",
            TensorSpec::f32(&[2, 2, 6]),
            TensorSpec::f32(&[2, 6]),
            0,
            3,
        ),
    ] {
        s.accepted(name, overlap_add(input, output, t, step));
    }
    s.category = Category::TypesAndParameters;
    for (name, input, output, t, step, mentions) in [
        ("signal_overlap_add_int32", TensorSpec::int32(&[2, 8]), TensorSpec::int32(&[8]), 2, 4, "TensorType 2"),
        ("signal_overlap_add_type_not_t", int16(&[2, 8]), int16(&[8]), 0, 4, "the input has type"),
        ("signal_overlap_add_step_past_frame", int16(&[2, 4]), int16(&[10]), 7, 5, "frame_step 5"),
        ("signal_overlap_add_negative_step", int16(&[2, 4]), int16(&[2]), 7, -1, "frame_step -1"),
        ("signal_overlap_add_rank_1", int16(&[8]), int16(&[]), 7, 4, "input of rank 1"),
        ("signal_overlap_add_output_longer", int16(&[2, 8]), int16(&[9]), 7, 4, "output of 9 elements"),
    ] {
        s.refused(name, overlap_add(input, output, t, step), Refusal::Invalid, mentions);
    }
}

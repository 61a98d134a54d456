//! Tests of the SVDF kernels.

extern crate std;
use super::super::nn_common::dot::tests::interleave_rows4;
use super::*;
use std::vec;
use std::vec::Vec;

/// Feature weights `[filters, n]` as the constant kernels read them
/// ([`SvdfS8::weights_feature`]), and their [`SvdfS8::feature_bias`] for input zero point
/// `zp_in`.
fn feature_layout(w: &[i8], n: usize, zp_in: i32) -> (Vec<i8>, Vec<i32>) {
    let bias = w
        .chunks_exact(n)
        .map(|row| -zp_in * row.iter().map(|&w| i32::from(w)).sum::<i32>())
        .collect();
    (interleave_rows4(w, n), bias)
}

/// One batch, two inputs, two filters of rank 2 (one unit), memory 3, int16 state. The state
/// starts at [1, 2, 3 | 4, 5, 6]; the shift gives [2, 3, 4 | 5, 6, 6] before the new features
/// land in the last columns.
#[test]
fn s8_shifts_the_state_and_sums_over_the_rank() {
    // Arena: input (2 bytes) at 0, state (12 bytes) at 2, output (1 byte) at 14.
    let mut arena = [0u8; 16];
    arena[0] = 13u8; // 13 - zp 3 = 10
    arena[1] = (-7i8) as u8; // -7 - 3 = -10
    for (i, v) in [1i16, 2, 3, 4, 5, 6].iter().enumerate() {
        arena[2 + 2 * i..4 + 2 * i].copy_from_slice(&v.to_le_bytes());
    }
    let (wf, feature_bias) = feature_layout(&[3, 1, -2, 5], 2, 3);
    let p = SvdfS8 {
        batches: 1,
        input_size: 2,
        num_filters: 2,
        rank: 2,
        memory_size: 3,
        // Features: 10 * 3 - 10 * 1 = 20, and 10 * -2 - 10 * 5 = -70.
        weights_feature: &wf,
        feature_bias: &feature_bias,
        weights_time: &[1, 1, 1, 100, -1, 2],
        bias: Some(&[1000]),
        input_zero_point: 3,
        state_zero_point: 1,
        output_zero_point: -5,
        // x * 0.5 rounded: 20 -> 10, -70 -> -35; plus the state zero point 1.
        feature_multiplier: 1 << 30,
        feature_shift: 0,
        // x / 8, rounded half away from zero.
        output_multiplier: 1 << 30,
        output_shift: -2,
    };
    svdf_s8(&mut arena, 0, 2, 14, &p);
    let state: [i16; 6] =
        core::array::from_fn(|i| i16::from_le_bytes([arena[2 + 2 * i], arena[3 + 2 * i]]));
    assert_eq!(state, [2, 3, 11, 5, 6, -34]);
    // Filter 0: (2-1) + (3-1) + (11-1) = 13; filter 1: 100*4 - 5 + 2*-35 = 325.
    // 1000 + 13 + 325 = 1338, / 8 = 167.25 -> 167, - 5 = 162 -> clamped to 127.
    assert_eq!(arena[14] as i8, 127);
    // A second call: the bias now -1000 + ... with the same state carried.
    let p2 = SvdfS8 {
        bias: Some(&[-2000]),
        ..p
    };
    svdf_s8(&mut arena, 0, 2, 14, &p2);
    let state: [i16; 6] =
        core::array::from_fn(|i| i16::from_le_bytes([arena[2 + 2 * i], arena[3 + 2 * i]]));
    assert_eq!(state, [3, 11, 11, 6, -34, -34]);
    // Filter 0: 2 + 10 + 10 = 22; filter 1: 100*5 + 35 - 70 = 465; -2000 + 487 = -1513,
    // / 8 = -189.125 -> -189, - 5 = -194 -> clamped to -128.
    assert_eq!(arena[14] as i8, -128);
}

/// int8 state: a new feature clamps to int8 before the zero point is added, and the sum
/// wraps to int8 as TFLM's conversion does.
#[test]
fn s8_state8_clamps_then_adds_the_zero_point() {
    let mut arena = [0u8; 8];
    arena[0] = 100u8;
    // State [zp, zp] = [-50, -50].
    arena[1] = (-50i8) as u8;
    arena[2] = (-50i8) as u8;
    let p = SvdfS8State8 {
        batches: 1,
        input_size: 1,
        num_filters: 1,
        rank: 1,
        memory_size: 2,
        weights_feature: &[127],
        feature_bias: &[0],
        weights_time: &[1, 2],
        bias: Some(&[0]),
        input_zero_point: 0,
        state_zero_point: -50,
        output_zero_point: 0,
        // 12700 clamps to 127; 127 - 50 = 77.
        feature_multiplier: 1 << 30,
        feature_shift: 1,
        output_multiplier: 1 << 30,
        output_shift: 1,
    };
    svdf_s8_state8(&mut arena, 0, 1, 3, &p);
    assert_eq!([arena[1] as i8, arena[2] as i8], [-50, 77]);
    // 1 * 0 + 2 * 127 = 254, times 1 = 254 -> 127.
    assert_eq!(arena[3] as i8, 127);
    // With state zero point 100, 127 + 100 = 227 wraps to -29.
    let p2 = SvdfS8State8 {
        state_zero_point: 100,
        ..p
    };
    svdf_s8_state8(&mut arena, 0, 1, 3, &p2);
    assert_eq!([arena[1] as i8, arena[2] as i8], [77, -29]);
}

#[test]
fn f32_rank1_with_relu() {
    // Input [1, 2] at 0, state 2 filters x 2 memory at 8, output 2 units at 24.
    let mut arena = [0u8; 32];
    let put = |arena: &mut [u8], at: usize, vs: &[f32]| {
        for (i, v) in vs.iter().enumerate() {
            arena[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
        }
    };
    put(&mut arena, 0, &[1.0, 2.0]);
    put(&mut arena, 8, &[0.5, 1.5, -1.0, 4.0]);
    let p = SvdfF32 {
        batches: 1,
        input_size: 2,
        num_filters: 2,
        rank: 1,
        memory_size: 2,
        weights_feature: &[1.0, 1.0, -1.0, 0.0],
        weights_time: &[2.0, 1.0, 1.0, 1.0],
        bias: Some(&[0.25, 0.0]),
        act_min: 0.0,
        act_max: f32::INFINITY,
        function: 0,
    };
    svdf_f32(&mut arena, 0, 8, 24, &p);
    let get = |arena: &[u8], at: usize| f32::from_le_bytes(arena[at..at + 4].try_into().unwrap());
    // State: [1.5, 3 | 4, -1]; outputs 0.25 + 3 + 3 and max(0, 4 - 1) = 3.
    let state: [f32; 4] = core::array::from_fn(|i| get(&arena, 8 + 4 * i));
    assert_eq!(state, [1.5, 3.0, 4.0, -1.0]);
    assert_eq!([get(&arena, 24), get(&arena, 28)], [6.25, 3.0]);
}

/// TANH and SIGN_BIT are functions of the sum, not clamps (TFLM's `ActivationValFloat`); a
/// bias computed at run time is read from the arena.
#[test]
fn f32_functions_and_a_bias_at_run_time() {
    // Input [1, 1] at 0, state 2 filters x 1 memory at 8, output 2 units at 16, bias at 24.
    let mut arena = [0u8; 32];
    arena[0..4].copy_from_slice(&1.0f32.to_le_bytes());
    arena[24..28].copy_from_slice(&0.5f32.to_le_bytes());
    arena[28..32].copy_from_slice(&(-0.0f32).to_le_bytes());
    let p = |function| SvdfF32 {
        batches: 1,
        input_size: 1,
        num_filters: 2,
        rank: 1,
        memory_size: 1,
        weights_feature: &[],
        weights_time: &[],
        bias: None,
        act_min: f32::NEG_INFINITY,
        act_max: f32::INFINITY,
        function,
    };
    let get = |arena: &[u8], at: usize| f32::from_le_bytes(arena[at..at + 4].try_into().unwrap());
    let wf: Vec<u8> = [1.0f32, -2.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let wt: Vec<u8> = [1.0f32, 0.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    let run = |arena: &mut [u8], function| {
        let (f, t) = (Src::Bytes(&wf), Src::Bytes(&wt));
        svdf_dyn_f32(arena, 0, 8, 16, f, t, Src::Arena(24), &p(function));
    };
    // Sums: 0.5 + 1 = 1.5 and -0.0 + 0 * -2 = 0.0 (positive zero).
    run(&mut arena, 1);
    assert_eq!([get(&arena, 16), get(&arena, 20)], [tanh_f32(1.5), 0.0]);
    run(&mut arena, 2);
    assert_eq!([get(&arena, 16), get(&arena, 20)], [0.0, 0.0]);
    arena[24..28].copy_from_slice(&(-3.0f32).to_le_bytes());
    run(&mut arena, 2);
    assert_eq!([get(&arena, 16), get(&arena, 20)], [1.0, 0.0]);
}

/// Writes `bytes` at `at`.
fn put(arena: &mut [u8], at: usize, bytes: &[u8]) {
    arena[at..at + bytes.len()].copy_from_slice(bytes);
}

/// The dyn integer kernels, their weights and bias in the arena (or some of them constants),
/// give the constant kernels' state and outputs, call after call: int16 and int8 state, two
/// batches, filters not a multiple of four, a nonzero state zero point for int8; rows of
/// whole words (the DSP loop, more filters than one run of it) and not.
#[test]
fn dyn_s8_matches_the_constant_kernels() {
    dyn_s8_matches_the_constant_kernels_for(5, 6);
    dyn_s8_matches_the_constant_kernels_for(8, 22);
}

fn dyn_s8_matches_the_constant_kernels_for(input_size: usize, filters: usize) {
    let (batches, rank, memory) = (2, 2, 3);
    let units = filters / rank;
    let wf: Vec<i8> = (0..filters * input_size)
        .map(|i| (i as i32 * 37 % 255 - 127) as i8)
        .collect();
    let wt16: Vec<i16> = (0..filters * memory)
        .map(|i| (i as i32 * 911 % 4001 - 2000) as i16)
        .collect();
    let wt8: Vec<i8> = (0..filters * memory)
        .map(|i| (i as i32 * 53 % 255 - 127) as i8)
        .collect();
    let bias: Vec<i32> = (0..units).map(|u| [700, -1500, 90][u % 3]).collect();
    let inputs: [Vec<u8>; 2] = [
        (0..batches * input_size)
            .map(|i| (i as i32 * 25 - 120) as i8 as u8)
            .collect(),
        (0..batches * input_size)
            .map(|i| (100 - i as i32 * 19) as i8 as u8)
            .collect(),
    ];
    // Arena: input at 0, state (int16) after it, then the output, the feature weights, the
    // time weights (int16) and the bias, each 4-byte aligned.
    let input_len = batches * input_size;
    let state = input_len.next_multiple_of(4);
    let state_len = 2 * batches * filters * memory;
    let output = state + state_len;
    let weights = (output + batches * units).next_multiple_of(4);
    let time = (weights + filters * input_size).next_multiple_of(4);
    let bias_at = time + 2 * filters * memory;
    let layout = |wt: &[u8]| {
        let mut arena = vec![0u8; bias_at + 4 * units];
        put(
            &mut arena,
            weights,
            &wf.iter().map(|&w| w as u8).collect::<Vec<_>>(),
        );
        put(&mut arena, time, wt);
        let b: Vec<u8> = bias.iter().flat_map(|b| b.to_le_bytes()).collect();
        put(&mut arena, bias_at, &b);
        arena
    };
    let (wf16, fb16) = feature_layout(&wf, input_size, -3);
    let p16 = SvdfS8 {
        batches,
        input_size,
        num_filters: filters,
        rank,
        memory_size: memory,
        weights_feature: &wf16,
        feature_bias: &fb16,
        weights_time: &wt16,
        bias: Some(&bias),
        input_zero_point: -3,
        state_zero_point: 0,
        output_zero_point: 5,
        feature_multiplier: 1_300_000_000,
        feature_shift: 2,
        output_multiplier: 1_100_000_000,
        output_shift: -9,
    };
    let wt16_bytes: Vec<u8> = wt16.iter().flat_map(|w| w.to_le_bytes()).collect();
    let (mut a, mut b) = (layout(&wt16_bytes), layout(&wt16_bytes));
    let empty = SvdfS8 {
        weights_feature: &[],
        feature_bias: &[],
        weights_time: &[],
        bias: None,
        ..p16
    };
    let outputs = output..output + batches * units;
    for x in &inputs {
        put(&mut a, 0, x);
        put(&mut b, 0, x);
        svdf_s8(&mut a, 0, state, output, &p16);
        // The time weights a constant, the others in the arena.
        let wt = Src::Bytes(&wt16_bytes);
        let (f, bias) = (Src::Arena(weights), Src::Arena(bias_at));
        svdf_dyn_s8(&mut b, 0, state, output, f, wt, bias, &empty);
        assert_eq!(a[state..output], b[state..output]);
        assert_eq!(a[outputs.clone()], b[outputs.clone()]);
    }
    let (wf8, fb8) = feature_layout(&wf, input_size, 7);
    let p8 = SvdfS8State8 {
        batches,
        input_size,
        num_filters: filters,
        rank,
        memory_size: memory,
        weights_feature: &wf8,
        feature_bias: &fb8,
        weights_time: &wt8,
        bias: Some(&bias),
        input_zero_point: 7,
        state_zero_point: -20,
        output_zero_point: -2,
        feature_multiplier: 1_500_000_000,
        feature_shift: -3,
        output_multiplier: 1_200_000_000,
        output_shift: -4,
    };
    let wt8_bytes: Vec<u8> = wt8.iter().map(|&w| w as u8).collect();
    let (mut a, mut b) = (layout(&wt8_bytes), layout(&wt8_bytes));
    // The state (int8: half the room) starts at its zero point, as TFLM's reset leaves it.
    let state8 = state..state + state_len / 2;
    a[state8.clone()].fill(-20i8 as u8);
    b[state8.clone()].fill(-20i8 as u8);
    let empty = SvdfS8State8 {
        weights_feature: &[],
        feature_bias: &[],
        weights_time: &[],
        bias: None,
        ..p8
    };
    for x in &inputs {
        put(&mut a, 0, x);
        put(&mut b, 0, x);
        svdf_s8_state8(&mut a, 0, state, output, &p8);
        let (f, t, bias) = (Src::Arena(weights), Src::Arena(time), Src::Arena(bias_at));
        svdf_dyn_s8_state8(&mut b, 0, state, output, f, t, bias, &empty);
        assert_eq!(a[state8.clone()], b[state8.clone()]);
        assert_eq!(a[outputs.clone()], b[outputs.clone()]);
    }
}

/// The dyn float kernel, its weights in the arena, gives the constant kernel's bits.
#[test]
fn dyn_f32_matches_the_constant_kernel() {
    let wf: Vec<f32> = (0..8).map(|i| (i as f32 - 3.3) / 7.0).collect();
    let wt: Vec<f32> = (0..6).map(|i| (2.1 - i as f32) / 3.0).collect();
    let bias = [0.125f32];
    let p = SvdfF32 {
        batches: 1,
        input_size: 4,
        num_filters: 2,
        rank: 2,
        memory_size: 3,
        weights_feature: &wf,
        weights_time: &wt,
        bias: Some(&bias),
        act_min: -1.0,
        act_max: 1.0,
        function: 0,
    };
    let empty = SvdfF32 {
        weights_feature: &[],
        weights_time: &[],
        bias: None,
        ..p
    };
    // Arena: input 16 at 0, state 24 at 16, output 4 at 48, weights 32 and 24 at 64 and 96,
    // bias 4 at 128.
    let mut a = [0u8; 144];
    let bytes = |v: &[f32]| v.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
    put(&mut a, 64, &bytes(&wf));
    put(&mut a, 96, &bytes(&wt));
    put(&mut a, 128, &bytes(&bias));
    let mut b = a;
    for x in [[0.5f32, -1.25, 2.0, 0.75], [-0.3, 0.1, 0.9, -2.5]] {
        put(&mut a, 0, &bytes(&x));
        put(&mut b, 0, &bytes(&x));
        svdf_f32(&mut a, 0, 16, 48, &p);
        let (f, t, bias) = (Src::Arena(64), Src::Arena(96), Src::Arena(128));
        svdf_dyn_f32(&mut b, 0, 16, 48, f, t, bias, &empty);
        assert_eq!(a[..64], b[..64]);
    }
}

#[test]
#[should_panic(expected = "overlap")]
fn dyn_weights_over_the_state_are_refused() {
    let mut arena = [0u8; 64];
    let p = SvdfF32 {
        batches: 1,
        input_size: 1,
        num_filters: 1,
        rank: 1,
        memory_size: 2,
        weights_feature: &[],
        weights_time: &[],
        bias: None,
        act_min: f32::NEG_INFINITY,
        act_max: f32::INFINITY,
        function: 0,
    };
    let (f, t, b) = (Src::Arena(8), Src::Arena(32), Src::Arena(40));
    svdf_dyn_f32(&mut arena, 0, 4, 16, f, t, b, &p);
}

//! The family's unit tests: each kernel on hand-computed cases.

use super::*;
use crate::Src;

/// ADD of two tensors with scale 0.5 / zp 0 into scale 1 / zp 0; multipliers from
/// twice_max = 1.0: inputs 0.5 (2^30, 0), output 2^-20 (2^30, -19).
fn add_params<'a>(shape: &'a [usize], a: &'a [usize], b: &'a [usize]) -> AddS8<'a> {
    AddS8 {
        shape,
        a_strides: a,
        b_strides: b,
        a_offset: 0,
        a_multiplier: 1 << 30,
        a_shift: 0,
        b_offset: 0,
        b_multiplier: 1 << 30,
        b_shift: 0,
        left_shift: 20,
        output_multiplier: 1 << 30,
        output_shift: -19,
        output_offset: 0,
        act_min: -128,
        act_max: 127,
    }
}

#[test]
fn add_s8_rounds_half_away_from_zero() {
    // (x + y) * 0.5, rounded: 3 * 0.5 = 1.5 -> 2, -3 * 0.5 -> -2.
    let mut arena = [
        1u8,
        (-1i8) as u8,
        100,
        0,
        2,
        (-2i8) as u8,
        100,
        0,
        0,
        0,
        0,
        0,
    ];
    let p = add_params(&[4], &[1], &[1]);
    add_s8(&mut arena, Src::Arena(0), Src::Arena(4), 8, &p);
    assert_eq!(&arena[8..], &[2u8, (-2i8) as u8, 100, 0]);
}

/// int16 ADD and SUB: TFLM's left shift of 15, int16 elements and range, half away from zero.
#[test]
fn add_s16_and_sub_s16_round_and_saturate() {
    let p = AddS16 {
        left_shift: 15,
        // (x ± y) * 0.5 again: each input halved, the sum doubled back down by 2^14.
        output_shift: -14,
        act_min: -32768,
        act_max: 32767,
        ..add_params(&[3], &[1], &[1])
    };
    let words = |v: [i16; 3]| {
        let mut b = [0u8; 6];
        for (c, x) in b.chunks_exact_mut(2).zip(v) {
            c.copy_from_slice(&x.to_le_bytes());
        }
        b
    };
    let read = |b: &[u8]| -> [i16; 3] {
        core::array::from_fn(|i| i16::from_le_bytes([b[2 * i], b[2 * i + 1]]))
    };
    let mut arena = [0u8; 18];
    arena[..6].copy_from_slice(&words([1, -3, 32767]));
    arena[6..12].copy_from_slice(&words([2, 0, 32767]));
    add_s16(&mut arena, Src::Arena(0), Src::Arena(6), 12, &p);
    // 1.5 -> 2, -1.5 -> -2, 32767 stays.
    assert_eq!(read(&arena[12..]), [2, -2, 32767]);
    sub_s16(&mut arena, Src::Arena(0), Src::Arena(6), 12, &p);
    // -0.5 -> -1, -1.5 -> -2, 0.
    assert_eq!(read(&arena[12..]), [-1, -2, 0]);
}

#[test]
fn sub_s8_in_place_with_broadcast_scalar() {
    let mut arena = [10u8, 20, 30, (-30i8) as u8];
    let p = add_params(&[4], &[1], &[0]);
    sub_s8(&mut arena, Src::Arena(0), Src::Bytes(&[4u8]), 0, &p);
    // (x - 4) / 2: 3, 8, 13, -17
    assert_eq!(arena, [3u8, 8, 13, (-17i8) as u8]);
}

#[test]
fn sub_s8_in_place_into_the_second_operand_keeps_the_order() {
    // 2 rows of 2: a (flash, broadcast along rows) minus b, written over b.
    let mut arena = [4u8, 8, 12, 16];
    let p = add_params(&[2, 2], &[0, 1], &[2, 1]);
    sub_s8(&mut arena, Src::Bytes(&[20u8, 40]), Src::Arena(0), 0, &p);
    // (a - b) / 2: (20 - 4) / 2, (40 - 8) / 2, (20 - 12) / 2, (40 - 16) / 2.
    assert_eq!(arena, [8u8, 16, 4, 12]);
}

#[test]
fn mul_s8_broadcasts_rows() {
    // a: 2x3, b: 3 (broadcast over rows); multiplier 0.5.
    let mut arena = [1u8, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0];
    let p = MulS8 {
        shape: &[2, 3],
        a_strides: &[3, 1],
        b_strides: &[0, 1],
        a_offset: 0,
        b_offset: 1,
        output_multiplier: 1 << 30,
        output_shift: 0,
        output_offset: -1,
        act_min: -128,
        act_max: 127,
    };
    let b = [1u8, 2, (-1i8) as u8];
    mul_s8(&mut arena, Src::Arena(0), Src::Bytes(&b), 6, &p);
    // (a * (b + 1)) / 2 - 1: row0: 1*2/2-1=0, 2*3/2-1=2, 3*0-1=-1; row1: 3, 6.5->7 -1=6, -1
    assert_eq!(&arena[6..], &[0u8, 2, (-1i8) as u8, 3, 7, (-1i8) as u8]);
}

/// int16 MUL: the product requantized (here by 2^-14), rounding half away from zero, clamped to
/// the activation range; int16 MAXIMUM / MINIMUM compare signed 16-bit values.
#[test]
fn mul_s16_and_min_max_s16() {
    let words = |v: [i16; 3]| {
        let mut b = [0u8; 6];
        for (c, x) in b.chunks_exact_mut(2).zip(v) {
            c.copy_from_slice(&x.to_le_bytes());
        }
        b
    };
    let read = |b: &[u8]| -> [i16; 3] {
        core::array::from_fn(|i| i16::from_le_bytes([b[2 * i], b[2 * i + 1]]))
    };
    let p = MulS16 {
        shape: &[3],
        a_strides: &[1],
        b_strides: &[0],
        a_offset: 0,
        b_offset: 0,
        output_multiplier: 1 << 30,
        output_shift: -13, // 2^-14
        output_offset: 0,
        act_min: -32768,
        act_max: 30000,
    };
    let mut arena = [0u8; 12];
    arena[..6].copy_from_slice(&words([8192, -24576, 32767]));
    let b = (-32768i16).to_le_bytes();
    mul_s16(&mut arena, Src::Arena(0), Src::Bytes(&b), 6, &p);
    // 8192 · -32768 / 16384 = -16384; -24576 · -32768 / 16384 = 49152 → 30000;
    // 32767 · -32768 / 16384 = -65534 → -32768.
    assert_eq!(read(&arena[6..]), [-16384, 30000, -32768]);
    let m = MinMax {
        shape: &[3],
        a_strides: &[1],
        b_strides: &[1],
    };
    arena[6..].copy_from_slice(&words([-300, 255, 32767]));
    let mut out = arena;
    maximum_s16(&mut out, Src::Arena(0), Src::Arena(6), 0, &m);
    assert_eq!(read(&out[..6]), [8192, 255, 32767]);
    minimum_s16(&mut arena, Src::Arena(0), Src::Arena(6), 0, &m);
    assert_eq!(read(&arena[..6]), [-300, -24576, 32767]);
}

/// int32 ADD, SUB and MUL wrap at int32's bounds and clamp to the activation range; ADD in
/// place over its first input with a broadcast constant; MAXIMUM / MINIMUM compare signed
/// 32-bit values.
#[test]
fn s32_ops_wrap_clamp_and_broadcast() {
    let words = |v: [i32; 4]| {
        let mut b = [0u8; 16];
        for (c, x) in b.chunks_exact_mut(4).zip(v) {
            c.copy_from_slice(&x.to_le_bytes());
        }
        b
    };
    let read = |b: &[u8]| -> [i32; 4] {
        core::array::from_fn(|i| i32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
    };
    let full = BinaryS32 {
        shape: &[4],
        a_strides: &[1],
        b_strides: &[1],
        act_min: i32::MIN,
        act_max: i32::MAX,
    };
    let mut arena = [0u8; 48];
    arena[..16].copy_from_slice(&words([i32::MAX, i32::MIN, -7, 100_000]));
    arena[16..32].copy_from_slice(&words([1, 1, 3, 100_000]));
    add_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &full);
    assert_eq!(read(&arena[32..]), [i32::MIN, i32::MIN + 1, -4, 200_000]);
    sub_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &full);
    assert_eq!(read(&arena[32..]), [i32::MAX - 1, i32::MAX, -10, 0]);
    mul_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &full);
    // 100000^2 = 10^10 wraps to 1410065408.
    assert_eq!(read(&arena[32..]), [i32::MAX, i32::MIN, -21, 1_410_065_408]);
    // RELU: [0, max].
    let relu = BinaryS32 { act_min: 0, ..full };
    sub_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &relu);
    assert_eq!(read(&arena[32..]), [i32::MAX - 1, i32::MAX, 0, 0]);
    // RELU_N1_TO_1: [-1, 1].
    let n1_to_1 = BinaryS32 {
        act_min: -1,
        act_max: 1,
        ..full
    };
    mul_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &n1_to_1);
    assert_eq!(read(&arena[32..]), [1, -1, -1, 1]);
    let m = MinMax {
        shape: &[4],
        a_strides: &[1],
        b_strides: &[1],
    };
    maximum_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &m);
    assert_eq!(read(&arena[32..]), [i32::MAX, 1, 3, 100_000]);
    minimum_s32(&mut arena, Src::Arena(0), Src::Arena(16), 32, &m);
    assert_eq!(read(&arena[32..]), [1, i32::MIN, -7, 100_000]);
    // In place over input 1, input 2 a broadcast constant.
    let scalar = BinaryS32 {
        b_strides: &[0],
        ..full
    };
    add_s32(
        &mut arena,
        Src::Arena(0),
        Src::Bytes(&2i32.to_le_bytes()),
        0,
        &scalar,
    );
    assert_eq!(
        read(&arena[..16]),
        [i32::MIN + 1, i32::MIN + 2, -5, 100_002]
    );
}

#[test]
fn float_ops_and_minmax() {
    let mut arena = [0u8; 24];
    for (i, v) in [1.0f32, -2.0].iter().enumerate() {
        arena[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
    }
    let b = 1.5f32.to_le_bytes();
    let p = BinaryF32 {
        shape: &[2],
        a_strides: &[1],
        b_strides: &[0],
        act_min: 0.0,
        act_max: f32::MAX,
    };
    mul_f32(&mut arena, Src::Arena(0), Src::Bytes(&b), 8, &p);
    assert_eq!(crate::bytes::read_f32(&arena[8..], 0), 1.5);
    assert_eq!(crate::bytes::read_f32(&arena[8..], 1), 0.0);
    let m = MinMax {
        shape: &[2],
        a_strides: &[1],
        b_strides: &[1],
    };
    minimum_f32(&mut arena, Src::Arena(0), Src::Arena(8), 16, &m);
    assert_eq!(crate::bytes::read_f32(&arena[16..], 0), 1.0);
    assert_eq!(crate::bytes::read_f32(&arena[16..], 1), -2.0);
    let mut bytes = [5u8, (-5i8) as u8, 0];
    maximum_s8(
        &mut bytes,
        Src::Arena(0),
        Src::Bytes(&[0u8]),
        0,
        &MinMax {
            shape: &[3],
            a_strides: &[1],
            b_strides: &[0],
        },
    );
    assert_eq!(bytes, [5, 0, 0]);
}

#[test]
fn add_f32_broadcasts_both_inputs() {
    // a: 2x1x3, b: 1x2x1 -> 2x2x3: out[i][j][k] = a[i][k] + b[j].
    let mut arena = [0u8; 4 * (6 + 12)];
    for i in 0..6 {
        arena[4 * i..4 * i + 4].copy_from_slice(&(i as f32).to_le_bytes());
    }
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&10.0f32.to_le_bytes());
    b[4..].copy_from_slice(&20.0f32.to_le_bytes());
    let p = BinaryF32 {
        shape: &[2, 2, 3],
        a_strides: &[3, 0, 1],
        b_strides: &[0, 1, 0],
        act_min: f32::MIN,
        act_max: f32::MAX,
    };
    add_f32(&mut arena, Src::Arena(0), Src::Bytes(&b), 24, &p);
    let out: [f32; 12] = core::array::from_fn(|i| crate::bytes::read_f32(&arena[24..], i));
    assert_eq!(
        out,
        [10.0, 11.0, 12.0, 20.0, 21.0, 22.0, 13.0, 14.0, 15.0, 23.0, 24.0, 25.0]
    );
}

/// int16 PRELU with a broadcast int8 alpha: positive inputs rescaled by m1 (here 1), negative
/// ones times alpha by m2 (here 1/2), the output offset added and clamped to int16; apart from its
/// input and in place over it.
#[test]
fn prelu_s16_broadcasts_an_int8_alpha_in_place_too() {
    let p = PreluS16 {
        shape: &[2, 2],
        a_strides: &[2, 1],
        b_strides: &[0, 1],
        input_offset: 0,
        alpha_offset: 0,
        output_offset: 10,
        multiplier_1: 1 << 30,
        shift_1: 1,
        multiplier_2: 1 << 30,
        shift_2: 0,
    };
    let input: [i16; 4] = [100, -3, -7, 32767];
    let alpha = [2i8 as u8, (-4i8) as u8];
    let read = |b: &[u8]| -> [i16; 4] {
        core::array::from_fn(|i| i16::from_le_bytes([b[2 * i], b[2 * i + 1]]))
    };
    let mut arena = [0u8; 16];
    for (c, x) in arena[..8].chunks_exact_mut(2).zip(input) {
        c.copy_from_slice(&x.to_le_bytes());
    }
    // 100 -> 110; -3 * -4 / 2 = 6 -> 16; -7 * 2 / 2 = -7 -> 3; 32767 + 10 saturates.
    let expected = [110, 16, 3, 32767];
    prelu_s16(&mut arena, Src::Arena(0), Src::Bytes(&alpha), 8, &p);
    assert_eq!(read(&arena[8..]), expected);
    prelu_s16(&mut arena, Src::Arena(0), Src::Bytes(&alpha), 0, &p);
    assert_eq!(read(&arena[..8]), expected);
}

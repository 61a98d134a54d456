//! The family's unit tests.

use super::pointwise::*;
use super::rfft::*;
use super::spectrum::*;
use super::stream::*;
use super::*;

#[test]
fn the_correction_table_is_its_formula() {
    for (i, &c) in LOG2_CORRECTION.iter().enumerate().take(129) {
        let x = i as f64 / 128.0;
        assert_eq!(
            f64::from(c),
            (65536.0 * ((1.0 + x).log2() - x)).round(),
            "{i}"
        );
    }
    assert_eq!(LOG2_CORRECTION[129], 0);
}

#[test]
fn max_abs_keeps_tflm_quirk_after_minus_32768() {
    assert_eq!(max_abs_s16([3i16, -7, 5].into_iter()), 7);
    // After -32768 the "maximum" is -32768, then -5 (greater), then 9 (|-9| > -5).
    assert_eq!(max_abs_s16([100i16, -32768, -5].into_iter()), -5);
    assert_eq!(max_abs_s16([100i16, -32768, -5, -9].into_iter()), 9);
    assert_eq!(auto_scale_bits(7), 12);
    assert_eq!(auto_scale_bits(0), 0);
    assert_eq!(auto_scale_bits(-5), 0);
    assert_eq!(auto_scale_bits(16384), 0);
    assert_eq!(auto_scale_bits(16383), 1);
}

#[test]
fn square_roots_round_to_nearest_but_at_the_top() {
    for x in [
        0u64,
        1,
        2,
        3,
        15,
        16,
        17,
        1 << 31,
        u64::from(u32::MAX),
        1 << 40,
        12345678901234,
    ] {
        let exact = (x as f64).sqrt();
        let got = f64::from(sqrt64(x));
        assert!(
            (got - exact).abs() <= 0.5 + 1e-9 || x >> 32 == 0 && got == 65535.0,
            "{x}: {got}"
        );
    }
    // The 32-bit shortcut keeps a root of 0xFFFF where rounding would need 0x10000.
    assert_eq!(sqrt64(u64::from(u32::MAX)), 0xFFFF);
    assert_eq!(sqrt64(u64::MAX), 0xFFFF_FFFF);
}

#[test]
fn pcan_shrink_is_continuous_at_two() {
    // x²/4 just below 2 (in Q12), x - 1 from 2 on, both in Q6.
    assert_eq!(pcan_shrink(0), 0);
    assert_eq!(pcan_shrink((2 << 12) - 1), 63);
    assert_eq!(pcan_shrink(2 << 12), 64);
    assert_eq!(pcan_shrink(3 << 12), 128);
}

#[test]
fn an_impulse_has_a_flat_spectrum() {
    // fft_length 8: nfft 4 = one radix-4 stage; twiddles of -2πi/4 and the split's.
    let twiddles = [32767i16, 0, 0, -32767, -32767, 0, 0, 32767];
    let super_twiddles = [-23170i16, -23170, -32767, 0];
    let p = RfftS16 {
        frames: 1,
        input_length: 8,
        output_length: 5,
        nfft: 4,
        factors: &[4, 1],
        twiddles: &twiddles,
        super_twiddles: &super_twiddles,
    };
    let mut arena = [0u8; 64];
    arena[..2].copy_from_slice(&8000i16.to_le_bytes());
    rfft_s16(&mut arena, 0, 32, &p);
    // Each bin 8000 scaled by kissfft's 1/8, imaginary parts 0.
    for k in 0..5 {
        let at = 32 + 4 * k;
        let re = i16::from_le_bytes([arena[at], arena[at + 1]]);
        let im = i16::from_le_bytes([arena[at + 2], arena[at + 3]]);
        assert!(
            (i32::from(re) - 1000).abs() <= 1 && im.abs() <= 1,
            "bin {k}: {re} {im}"
        );
    }
}

#[test]
fn logarithms_are_close_to_the_real_ones() {
    // A scale of 256 (the product stays below 2^32): the logarithm in units of 1/256.
    for x in [2u32, 3, 1000, 65535, 65536, 1 << 20, u32::MAX] {
        let got = f64::from(log_scaled(x, 256)) / 256.0;
        assert!((got - f64::from(x).ln()).abs() < 0.01, "{x}: {got}");
    }
}
extern crate std;
use std::vec::Vec;

/// The int16 values at `at`, `n` of them.
fn s16s(arena: &[u8], at: usize, n: usize) -> Vec<i16> {
    (0..n)
        .map(|i| i16::from_le_bytes([arena[at + 2 * i], arena[at + 2 * i + 1]]))
        .collect()
}

/// Writes `values` as int16 at `at`.
fn put_s16s(arena: &mut [u8], at: usize, values: &[i16]) {
    for (i, v) in values.iter().enumerate() {
        arena[at + 2 * i..at + 2 * i + 2].copy_from_slice(&v.to_le_bytes());
    }
}

#[test]
fn delay_carries_samples_across_invocations() {
    // Two rows of 3 samples, delays shorter and longer than a row.
    for delay in [0usize, 2, 5] {
        let p = Delay {
            rows: 2,
            frame: 3,
            delay,
        };
        let mut arena = [0u8; 64];
        let mut stream: [Vec<i16>; 2] = [std::vec![0; delay], std::vec![0; delay]];
        for call in 0..4i16 {
            let rows = [[call, call + 1, call + 2], [-call, -2 * call, 7]];
            put_s16s(&mut arena, 0, &[rows[0], rows[1]].concat());
            delay_s16(&mut arena, 0, 12, 24, &p);
            let got = s16s(&arena, 12, 6);
            for r in 0..2 {
                stream[r].extend_from_slice(&rows[r]);
                let start = 3 * call as usize;
                assert_eq!(
                    got[3 * r..3 * r + 3],
                    stream[r][start..start + 3],
                    "{delay}"
                );
            }
        }
    }
}

#[test]
fn framer_frames_a_stream() {
    // Frames of 5 every 2 samples, one row of 4 samples (2 frames) per call, with and without
    // prefill: the k-th frame written is samples 2k .. 2k + 5 of the stream (after the 3
    // zeros of prefill), written once they have all arrived.
    for prefill in [false, true] {
        let p = Framer {
            rows: 1,
            frames: 2,
            frame_size: 5,
            frame_step: 2,
            capacity: 6,
            prefilled: if prefill { 3 } else { 0 },
        };
        let mut arena = [0u8; 64];
        let mut stream: Vec<i16> = std::vec![0; if prefill { 3 } else { 0 }];
        let mut written = 0;
        for call in 0..4i16 {
            let row = [10 * call, 10 * call + 1, 10 * call + 2, 10 * call + 3];
            put_s16s(&mut arena, 0, &row);
            arena[8..28].fill(0x55);
            let zeros = [0i16; 5];
            framer_s16(&mut arena, 0, 8, 28, 32, &p);
            stream.extend_from_slice(&row);
            let mut valid = true;
            for f in 0..2 {
                let end = stream.len() - 4 + 2 * (f + 1);
                if end < 5 {
                    assert_eq!(s16s(&arena, 8 + 10 * f, 5), zeros, "{prefill}");
                    valid = false;
                    continue;
                }
                let first = 2 * written;
                written += 1;
                assert_eq!(
                    s16s(&arena, 8 + 10 * f, 5),
                    stream[first..first + 5],
                    "{prefill}"
                );
            }
            assert_eq!(arena[28], u8::from(valid), "{prefill} {call}");
        }
    }
}
#[test]
fn framer_and_stacker_take_a_count_no_invocation_leaves_as_reset() {
    // State bytes not zeroed by `reset` (any values): the counts are taken as 0, and the
    // kernels write inside their state.
    let framer = Framer {
        rows: 2,
        frames: 1,
        frame_size: 4,
        frame_step: 2,
        capacity: 4,
        prefilled: 0,
    };
    for count in [1u32, 2, 3, 4, 5, 1000, u32::MAX] {
        let mut arena = [0u8; 64];
        put_s16s(&mut arena, 0, &[1, 2, 3, 4]);
        arena[40..44].copy_from_slice(&count.to_le_bytes());
        framer_s16(&mut arena, 0, 8, 24, 40, &framer);
        // Two held after the write either way: four give a frame, two are kept.
        assert_eq!(read_u32(&arena, 40), 2, "{count}");
        assert_eq!(arena[24], u8::from(count == 2), "{count}");
    }
    let stacker = Stacker {
        channels: 2,
        left_context: 1,
        buffer_size: 6,
        step_size: 4,
    };
    for (count, first) in [(5u32, 1u32), (6, 1), (u32::MAX, 1), (4, 0), (u32::MAX, 0)] {
        let mut arena = [0u8; 64];
        put_s16s(&mut arena, 0, &[7, 8]);
        arena[20..24].copy_from_slice(&count.to_le_bytes());
        arena[24..28].copy_from_slice(&first.to_le_bytes());
        stacker_s16(&mut arena, 0, 4, 16, 20, &stacker);
        let held = if first == 0 { 4 } else { 2 };
        assert_eq!(read_u32(&arena, 20), held, "{count} {first}");
        assert_eq!(arena[16], 0, "{count} {first}");
    }
}
#[test]
fn stacker_stacks_frames_with_context() {
    // Frames of 2, one copy of the first before it, one frame after: outputs of 3 frames,
    // every other invocation (step 2).
    let p = Stacker {
        channels: 2,
        left_context: 1,
        buffer_size: 6,
        step_size: 4,
    };
    let mut arena = [0u8; 64];
    let mut outputs = Vec::new();
    for call in 0..5i16 {
        put_s16s(&mut arena, 0, &[call, 10 + call]);
        stacker_s16(&mut arena, 0, 4, 16, 20, &p);
        outputs.push((arena[16], s16s(&arena, 4, 6)));
    }
    let f = |k: i16| [k, 10 + k];
    let want = [
        (0, std::vec![0; 6]),
        (1, [f(0), f(0), f(1)].concat()),
        (0, std::vec![0; 6]),
        (1, [f(1), f(2), f(3)].concat()),
        (0, std::vec![0; 6]),
    ];
    assert_eq!(outputs, want);
}
#[test]
fn overlap_add_sums_overlapping_frames() {
    // Frames of 4 every 2 samples: each output sample the sum of the two frames over it,
    // saturated in int16.
    let p = OverlapAdd {
        rows: 1,
        frames: 2,
        frame_size: 4,
        frame_step: 2,
    };
    let mut arena = [0u8; 64];
    put_s16s(&mut arena, 0, &[1, 2, 3, 4, 10, 20, 30000, 40]);
    overlap_add_s16(&mut arena, 0, 16, 32, &p);
    assert_eq!(s16s(&arena, 16, 4), [1, 2, 13, 24]);
    put_s16s(&mut arena, 0, &[5000, 5, 0, 0, 0, 0, 0, 0]);
    overlap_add_s16(&mut arena, 0, 16, 32, &p);
    assert_eq!(s16s(&arena, 16, 4), [32767, 45, 0, 0]);
    let mut arena = [0u8; 96];
    for (i, x) in [0.5f32, 0.25, 1.0, 2.0].iter().enumerate() {
        arena[4 * i..4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    let p = OverlapAdd {
        rows: 1,
        frames: 1,
        frame_size: 4,
        frame_step: 1,
    };
    overlap_add_f32(&mut arena, 0, 16, 32, &p);
    overlap_add_f32(&mut arena, 0, 20, 32, &p);
    let y =
        |at: usize| f32::from_le_bytes([arena[at], arena[at + 1], arena[at + 2], arena[at + 3]]);
    assert_eq!([y(16), y(20)], [0.5, 0.75]);
}

#[test]
fn a_flat_spectrum_inverts_to_an_impulse() {
    // fft_length 8: nfft 4 = one radix-4 stage; the inverse's twiddles (+2πi/4) and packing's.
    let twiddles = [32767i16, 0, 0, 32767, -32767, 0, 0, -32767];
    let super_twiddles = [-23170i16, 23170, -32767, 0];
    let p = IrfftS16 {
        frames: 1,
        input_length: 5,
        output_length: 8,
        nfft: 4,
        factors: &[4, 1],
        twiddles: &twiddles,
        super_twiddles: &super_twiddles,
    };
    let mut arena = [0u8; 64];
    // Bins 0..=4 all 8000 + 0i.
    for k in 0..5 {
        put_s16s(&mut arena, 4 * k, &[8000, 0]);
    }
    irfft_s16(&mut arena, 0, 24, 48, &p);
    // The unscaled inverse is 8 · 8000 at sample 0; kissfft's fixed point divides by its radix
    // at each stage (4) and by 2 in the packing: 8000 at sample 0, the rest near 0.
    let y = s16s(&arena, 24, 8);
    assert!((i32::from(y[0]) - 8000).abs() <= 2, "{y:?}");
    assert!(y[1..].iter().all(|v| v.abs() <= 2), "{y:?}");
}

#[test]
fn float_inverse_undoes_the_forward_transform() {
    // fft_length 12: nfft 6 = radix 2 then 3, both directions, each twiddle table as the
    // lowering computes it (the inverse's phases negated).
    let pi = core::f64::consts::PI;
    let table = |n: usize, sign: f64, half: bool| -> Vec<f32> {
        let count = if half { n / 2 } else { n };
        (0..count)
            .flat_map(|i| {
                let phase = if half {
                    -pi * ((i + 1) as f64 / n as f64 + 0.5) * sign
                } else {
                    -2.0 * pi * i as f64 / n as f64 * sign
                };
                [libm_free_cos(phase) as f32, libm_free_sin(phase) as f32]
            })
            .collect()
    };
    let (tw, stw) = (table(6, 1.0, false), table(6, 1.0, true));
    let (itw, istw) = (table(6, -1.0, false), table(6, -1.0, true));
    let factors = [2usize, 3, 3, 1];
    let forward = RfftF32 {
        frames: 1,
        input_length: 12,
        output_length: 7,
        nfft: 6,
        factors: &factors,
        twiddles: &tw,
        super_twiddles: &stw,
    };
    let inverse = IrfftF32 {
        frames: 1,
        input_length: 7,
        output_length: 12,
        nfft: 6,
        factors: &factors,
        twiddles: &itw,
        super_twiddles: &istw,
    };
    let x: Vec<f32> = (0..12).map(|i| ((i * 7 % 5) as f32 - 2.0) / 4.0).collect();
    let mut arena = [0u8; 256];
    for (i, v) in x.iter().enumerate() {
        arena[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    rfft_f32(&mut arena, 0, 48, &forward);
    irfft_f32(&mut arena, 48, 112, 160, &inverse);
    for (i, v) in x.iter().enumerate() {
        let at = 112 + 4 * i;
        let y = f32::from_le_bytes([arena[at], arena[at + 1], arena[at + 2], arena[at + 3]]);
        assert!((y - v).abs() < 1e-5, "sample {i}: {y} for {v}");
    }
}

/// cos of `x` by its Taylor series after reduction to [-π, π] (the runtime has no libm; the
/// test only needs the twiddles to 1e-9).
fn libm_free_cos(x: f64) -> f64 {
    let two_pi = 2.0 * core::f64::consts::PI;
    let mut x = x % two_pi;
    if x > core::f64::consts::PI {
        x -= two_pi;
    } else if x < -core::f64::consts::PI {
        x += two_pi;
    }
    let (mut term, mut sum) = (1.0, 1.0);
    for k in 1..30 {
        term *= -x * x / ((2 * k - 1) * (2 * k)) as f64;
        sum += term;
    }
    sum
}

/// sin of `x`, as [`libm_free_cos`].
fn libm_free_sin(x: f64) -> f64 {
    libm_free_cos(x - core::f64::consts::FRAC_PI_2)
}

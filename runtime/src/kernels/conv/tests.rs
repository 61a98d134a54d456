//! The family's unit tests: each fast kernel against the general one or TFLM's loop nest.

extern crate std;
use super::im2col::GATHERED_MAX;
use super::*;
use crate::kernels::nn_common::dot::tests::interleave_rows4;
use std::{format, vec, vec::Vec};

/// A 1x3x3x1 image, 3x3 filter of ones, SAME padding: each output is the sum of its in-image
/// neighbourhood (zero point -1 is subtracted), times 0.5.
#[test]
fn s8_same_padding_sums_in_image_taps() {
    let input: [i8; 9] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
    let mut arena = [0u8; 18];
    for (a, &x) in arena.iter_mut().zip(&input) {
        *a = x as u8;
    }
    let p = Conv2dS8 {
        batches: 1,
        input_h: 3,
        input_w: 3,
        input_c: 1,
        output_h: 3,
        output_w: 3,
        output_c: 1,
        filter_h: 3,
        filter_w: 3,
        filter_c: 1,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        pad_top: 1,
        pad_left: 1,
        input_zero_point: -1,
        output_zero_point: 3,
        filter: &[1; 9],
        bias: Some(&[2]),
        multipliers: &[1 << 30],
        shifts: &[0],
        act_min: -128,
        act_max: 127,
    };
    conv2d_s8(&mut arena, 0, 9, &p);
    // Top-left: taps 0, 1, 3, 4 each + 1 = 12, + bias 2 = 14, / 2 = 7, + 3 = 10.
    // Centre: all nine, (0 + .. + 8) + 9 = 45, + 2 = 47, / 2 = 23.5 → 24 (away from zero), + 3 = 27.
    let out: [i8; 9] = core::array::from_fn(|i| arena[9 + i] as i8);
    assert_eq!(out, [10, 15, 12, 18, 27, 21, 16, 24, 18]);
}

#[test]
fn s8_per_channel_requantization_and_clamp() {
    // 1x1x1x2 input, two output channels with 1x1 filters, different multipliers.
    let mut arena = [10u8, 20, 0, 0];
    let p = Conv2dS8 {
        batches: 1,
        input_h: 1,
        input_w: 1,
        input_c: 2,
        output_h: 1,
        output_w: 1,
        output_c: 2,
        filter_h: 1,
        filter_w: 1,
        filter_c: 2,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        pad_top: 0,
        pad_left: 0,
        input_zero_point: 0,
        output_zero_point: 0,
        filter: &[1, 1, 2, -1],
        bias: None,
        multipliers: &[1 << 30, 1 << 30],
        shifts: &[0, 3],
        act_min: -128,
        act_max: 12,
    };
    conv2d_s8(&mut arena, 0, 2, &p);
    // ch0: 30 * 0.5 = 15 → clamped to 12; ch1: (20 - 20) * 4 = 0.
    assert_eq!([arena[2] as i8, arena[3] as i8], [12, 0]);
}

#[test]
fn s8_grouped_stride_and_dilation() {
    // 1x1x4x2 input, 2 groups of one channel, 1x2 filter dilated by 2, stride 2: output width 1.
    let mut arena = [1u8, 2, 3, 4, 5, 6, 7, 8, 0, 0];
    let p = Conv2dS8 {
        batches: 1,
        input_h: 1,
        input_w: 4,
        input_c: 2,
        output_h: 1,
        output_w: 1,
        output_c: 2,
        filter_h: 1,
        filter_w: 2,
        filter_c: 1,
        stride_h: 1,
        stride_w: 2,
        dilation_h: 1,
        dilation_w: 2,
        pad_top: 0,
        pad_left: 0,
        input_zero_point: 0,
        output_zero_point: 0,
        filter: &[1, 10, 1, -1],
        bias: None,
        multipliers: &[1 << 30, 1 << 30],
        shifts: &[1, 1],
        act_min: -128,
        act_max: 127,
    };
    conv2d_s8(&mut arena, 0, 8, &p);
    // oc0 (group 0, channel 0): x=0 → 1, x=2 → 5: 1*1 + 10*5 = 51. oc1 (channel 1): 2 - 6 = -4.
    assert_eq!([arena[8] as i8, arena[9] as i8], [51, -4]);
}

#[test]
fn f32_valid_with_bias_and_relu() {
    // 1x2x2x1 input, 2x2 filter, VALID: one output.
    let mut arena = [0u8; 20];
    for (i, v) in [1.0f32, 2.0, 3.0, 4.0].iter().enumerate() {
        arena[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    let mut p = Conv2dF32 {
        batches: 1,
        input_h: 2,
        input_w: 2,
        input_c: 1,
        output_h: 1,
        output_w: 1,
        output_c: 1,
        filter_h: 2,
        filter_w: 2,
        filter_c: 1,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        pad_top: 0,
        pad_left: 0,
        filter: &[0.5, -1.0, 0.25, 1.0],
        bias: Some(&[0.5]),
        act_min: 0.0,
        act_max: f32::MAX,
    };
    conv2d_f32(&mut arena, 0, 16, &p);
    // 0.5 - 2 + 0.75 + 4 + 0.5 = 3.75
    assert_eq!(f32::from_le_bytes(arena[16..20].try_into().unwrap()), 3.75);
    p.bias = Some(&[-10.0]);
    conv2d_f32(&mut arena, 0, 16, &p);
    assert_eq!(f32::from_le_bytes(arena[16..20].try_into().unwrap()), 0.0);
}

/// TFLM's loop nest, restated naively: the blocked kernel must agree with it everywhere.
fn reference(p: &Conv2dS8, input: &[i8]) -> [i8; 2 * 3 * 5] {
    let mut out = [0i8; 2 * 3 * 5];
    for oy in 0..p.output_h {
        for ox in 0..p.output_w {
            for oc in 0..p.output_c {
                let mut acc = 0i32;
                for ky in 0..p.filter_h {
                    for kx in 0..p.filter_w {
                        let y = (oy * p.stride_h + ky) as isize - p.pad_top as isize;
                        let x = (ox * p.stride_w + kx) as isize - p.pad_left as isize;
                        if y < 0 || x < 0 || y >= p.input_h as isize || x >= p.input_w as isize {
                            continue;
                        }
                        for ic in 0..p.input_c {
                            let v = input[(y as usize * p.input_w + x as usize) * p.input_c + ic];
                            let w = p.filter
                                [((oc * p.filter_h + ky) * p.filter_w + kx) * p.filter_c + ic];
                            acc += i32::from(w) * (i32::from(v) - p.input_zero_point);
                        }
                    }
                }
                acc += p.bias.map_or(0, |b| b[oc]);
                let v = crate::math::multiply_by_quantized_multiplier(
                    acc,
                    p.multipliers[oc],
                    i32::from(p.shifts[oc]),
                ) + p.output_zero_point;
                out[(oy * p.output_w + ox) * p.output_c + oc] = v.clamp(p.act_min, p.act_max) as i8;
            }
        }
    }
    out
}

#[test]
fn s8_blocked_channels_match_the_reference_loop() {
    // 1x4x5x3 input, 5 output channels (one block of four and one left over), 3x3 filter,
    // stride 2, SAME (pad 1 on both axes): output 2x3.
    let input: [i8; 60] = core::array::from_fn(|i| ((i * 53 + 7) % 256) as u8 as i8);
    let filter: [i8; 135] = core::array::from_fn(|i| ((i * 29 + 3) % 256) as u8 as i8);
    let p = Conv2dS8 {
        batches: 1,
        input_h: 4,
        input_w: 5,
        input_c: 3,
        output_h: 2,
        output_w: 3,
        output_c: 5,
        filter_h: 3,
        filter_w: 3,
        filter_c: 3,
        stride_h: 2,
        stride_w: 2,
        dilation_h: 1,
        dilation_w: 1,
        pad_top: 1,
        pad_left: 1,
        input_zero_point: -128,
        output_zero_point: 5,
        filter: &filter,
        bias: Some(&[100, -2000, 0, 77, -5]),
        multipliers: &[
            1_500_000_000,
            1_100_000_000,
            2_000_000_000,
            1 << 30,
            1_234_567_890,
        ],
        shifts: &[-9, -10, -8, -11, -9],
        act_min: -128,
        act_max: 127,
    };
    let mut arena = [0u8; 90];
    for (a, &v) in arena.iter_mut().zip(&input) {
        *a = v as u8;
    }
    conv2d_s8(&mut arena, 0, 60, &p);
    let got: [i8; 30] = core::array::from_fn(|i| arena[60 + i] as i8);
    let want = reference(&p, &input);
    assert_eq!(got, want);
    // The case is not degenerate: outputs vary and do not all saturate.
    assert!(want.iter().filter(|&&v| v != -128 && v != 127).count() > 10);
}

/// The 1×1 kernel, with the zero point folded into its bias, against the general kernel: odd
/// and even pixel and channel counts, rows shorter and longer than a word.
#[test]
fn s8_1x1_matches_the_general_kernel() {
    for (pixels, n, m) in [
        (5, 7, 5),
        (4, 8, 6),
        (1, 3, 1),
        (3, 12, 4),
        (2, 1, 3),
        (2, 9, 11),
        // Longer than a widened chunk (three chunks, one byte of tail) and more channels than
        // a run; exactly one chunk with two bytes of tail.
        // (Under Miri, which interprets each instruction, the largest cases reach the same
        // boundaries with fewer pixels or output channels.)
        (if cfg!(miri) { 1 } else { 3 }, 301, 37),
        (if cfg!(miri) { 2 } else { 4 }, 130, 70),
        // Whole words in, blocks of four out (the widened one-pixel kernel): one chunk, and
        // three chunks (two of 256 channels) with more channels than a run.
        (1, 32, 8),
        (2, 600, if cfg!(miri) { 40 } else { 72 }),
    ] {
        let input: Vec<i8> = (0..pixels * n)
            .map(|i| ((i * 53 + 7) % 256) as u8 as i8)
            .collect();
        let filter: Vec<i8> = (0..m * n)
            .map(|i| ((i * 29 + 3) % 256) as u8 as i8)
            .collect();
        let bias: Vec<i32> = (0..m).map(|c| c as i32 * 977 - 2000).collect();
        let multipliers: Vec<i32> = (0..m)
            .map(|c| 1_100_000_000 + (c % 11) as i32 * 90_000_000)
            .collect();
        // Longer rows, larger sums: shifted further, so that not every output saturates.
        let extra = if n > 100 { 4 } else { 0 };
        let shifts: Vec<i8> = (0..m).map(|c| -7 - extra - (c % 4) as i8).collect();
        let zp = -37;
        let general = Conv2dS8 {
            batches: 1,
            input_h: 1,
            input_w: pixels,
            input_c: n,
            output_h: 1,
            output_w: pixels,
            output_c: m,
            filter_h: 1,
            filter_w: 1,
            filter_c: n,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            input_zero_point: zp,
            output_zero_point: 3,
            filter: &filter,
            bias: Some(&bias),
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: -100,
            act_max: 120,
        };
        let folded: Vec<i32> = (0..m)
            .map(|c| {
                let sum: i32 = filter[c * n..][..n].iter().map(|&w| i32::from(w)).sum();
                bias[c].wrapping_sub(zp.wrapping_mul(sum))
            })
            .collect();
        let interleaved = interleave_rows4(&filter, n);
        let fast = Conv1x1S8 {
            pixels,
            input_c: n,
            output_c: m,
            output_zero_point: 3,
            filter: &interleaved,
            folded_bias: &folded,
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: -100,
            act_max: 120,
            narrow_requant: false,
        };
        let mut arena = vec![0u8; pixels * (n + 2 * m)];
        for (a, &v) in arena.iter_mut().zip(&input) {
            *a = v as u8;
        }
        let (want_at, got_at) = (pixels * n, pixels * (n + m));
        conv2d_s8(&mut arena, 0, want_at, &general);
        conv2d_1x1_s8(&mut arena, 0, got_at, &fast);
        assert_eq!(arena[want_at..got_at], arena[got_at..], "{pixels} {n} {m}");
        // The shifts are right shifts and the sums small: the short requantization agrees.
        let narrow = Conv1x1S8 {
            narrow_requant: true,
            ..fast
        };
        conv2d_1x1_s8(&mut arena, 0, got_at, &narrow);
        assert_eq!(
            arena[want_at..got_at],
            arena[got_at..],
            "narrow {pixels} {n} {m}"
        );
        assert!(arena[want_at..got_at]
            .iter()
            .any(|&v| v != 0 && v != 120 && v as i8 != -100));
        // The widened one-pixel kernel, where the lowering would choose it (any pixel count
        // works: one at a time).
        if n % 4 == 0 && m % 4 == 0 {
            for params in [&fast, &narrow] {
                arena[got_at..].fill(0);
                conv2d_1x1_widened_s8(&mut arena, 0, got_at, params);
                assert_eq!(
                    arena[want_at..got_at],
                    arena[got_at..],
                    "widened {pixels} {n} {m}"
                );
            }
        }
    }
}

/// The im2col kernel, with the zero point folded into its bias, against the general kernel:
/// padding on every side, stride, dilation, odd channel counts.
#[test]
fn s8_im2col_matches_the_general_kernel() {
    // (input h, w, c, output c, filter h, w, stride, dilation, pad top, pad left, output h, w)
    let cases = [
        (4, 5, 3, 5, 3, 3, 2, 1, 1, 1, 2, 3),
        (5, 5, 2, 4, 3, 3, 1, 2, 2, 2, 5, 5),
        (6, 4, 1, 7, 4, 2, 1, 1, 1, 0, 6, 3),
        (3, 3, 8, 9, 3, 3, 1, 1, 0, 0, 1, 1),
        // Windows of two widened chunks (180 bytes), runs of 16, 16 and 4 channels.
        // (Under Miri, which interprets each instruction, 3x3 pixels: the same windows.)
        if cfg!(miri) {
            (3, 3, 20, 36, 3, 3, 1, 1, 1, 1, 3, 3)
        } else {
            (6, 6, 20, 36, 3, 3, 1, 1, 1, 1, 6, 6)
        },
        // Three bytes of tail per window.
        (4, 4, 7, 8, 3, 3, 2, 1, 1, 1, 2, 2),
        // Whole words of channels (the paired path on ARMv7E-M and in these tests): one
        // chunk with stride and an odd pixel count, and dilation with padding.
        (5, 5, 8, 8, 3, 3, 2, 1, 1, 1, 3, 3),
        (5, 5, 4, 4, 3, 3, 1, 2, 2, 2, 5, 5),
        // Short windows of channels not in whole words (the gathering paired kernel): three
        // channels with stride and an odd pixel count, one channel with padding all round.
        (6, 6, 3, 8, 3, 3, 2, 1, 1, 1, 3, 3),
        (5, 5, 1, 8, 3, 3, 1, 1, 1, 1, 5, 5),
    ];
    for (ih, iw, c, m, fh, fw, stride, dilation, pad_top, pad_left, oh, ow) in cases {
        let input: Vec<i8> = (0..ih * iw * c)
            .map(|i| ((i * 53 + 7) % 256) as u8 as i8)
            .collect();
        let k = fh * fw * c;
        let filter: Vec<i8> = (0..m * k)
            .map(|i| ((i * 29 + 3) % 256) as u8 as i8)
            .collect();
        let bias: Vec<i32> = (0..m).map(|ch| ch as i32 * 977 - 2000).collect();
        let multipliers: Vec<i32> = (0..m)
            .map(|ch| 1_100_000_000 + (ch % 11) as i32 * 90_000_000)
            .collect();
        let extra = if k > 100 { 3 } else { 0 };
        let shifts: Vec<i8> = (0..m).map(|ch| -8 - extra - (ch % 4) as i8).collect();
        let zp = -37;
        let general = Conv2dS8 {
            batches: 1,
            input_h: ih,
            input_w: iw,
            input_c: c,
            output_h: oh,
            output_w: ow,
            output_c: m,
            filter_h: fh,
            filter_w: fw,
            filter_c: c,
            stride_h: stride,
            stride_w: stride,
            dilation_h: dilation,
            dilation_w: dilation,
            pad_top,
            pad_left,
            input_zero_point: zp,
            output_zero_point: 3,
            filter: &filter,
            bias: Some(&bias),
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: -100,
            act_max: 120,
        };
        let folded: Vec<i32> = (0..m)
            .map(|ch| {
                let sum: i32 = filter[ch * k..][..k].iter().map(|&w| i32::from(w)).sum();
                bias[ch].wrapping_sub(zp.wrapping_mul(sum))
            })
            .collect();
        let interleaved = interleave_rows4(&filter, k);
        let fast = Conv2dIm2colS8 {
            batches: 1,
            input_h: ih,
            input_w: iw,
            input_c: c,
            output_h: oh,
            output_w: ow,
            output_c: m,
            filter_h: fh,
            filter_w: fw,
            stride_h: stride,
            stride_w: stride,
            dilation_h: dilation,
            dilation_w: dilation,
            pad_top,
            pad_left,
            input_zero_point: zp,
            output_zero_point: 3,
            filter: &interleaved,
            folded_bias: &folded,
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: -100,
            act_max: 120,
            narrow_requant: false,
        };
        let (n_in, n_out) = (ih * iw * c, oh * ow * m);
        let mut arena = vec![0u8; n_in + 2 * n_out];
        for (a, &v) in arena.iter_mut().zip(&input) {
            *a = v as u8;
        }
        conv2d_s8(&mut arena, 0, n_in, &general);
        conv2d_im2col_s8(&mut arena, 0, n_in + n_out, &fast);
        let (want, got) = arena[n_in..].split_at(n_out);
        assert_eq!(want, got, "{ih}x{iw}x{c} -> {m}, {fh}x{fw}");
        let narrow = Conv2dIm2colS8 {
            narrow_requant: true,
            ..fast
        };
        conv2d_im2col_s8(&mut arena, 0, n_in + n_out, &narrow);
        let (want, got) = arena[n_in..].split_at(n_out);
        assert_eq!(want, got, "narrow {ih}x{iw}x{c} -> {m}, {fh}x{fw}");
        assert!(want.iter().any(|&v| v != 120 && v as i8 != -100));
        // The paired variant, where the lowering would choose it.
        if c % 4 == 0 && m % 4 == 0 {
            for params in [&fast, &narrow] {
                arena[n_in + n_out..].fill(0);
                conv2d_im2col_pairs_s8(&mut arena, 0, n_in + n_out, params);
                let (want, got) = arena[n_in..].split_at(n_out);
                assert_eq!(want, got, "paired {ih}x{iw}x{c} -> {m}, {fh}x{fw}");
            }
        }
        // The gathering paired variant, where the lowering would choose it: rows padded to
        // whole words with zero weights.
        let padded = k.next_multiple_of(4);
        if c % 4 != 0 && m % 4 == 0 && padded <= GATHERED_MAX {
            let rows: Vec<i8> = filter
                .chunks_exact(k)
                .flat_map(|r| r.iter().copied().chain(core::iter::repeat_n(0, padded - k)))
                .collect();
            let interleaved = interleave_rows4(&rows, padded);
            for narrow_requant in [false, true] {
                let gathered = Conv2dIm2colS8 {
                    filter: &interleaved,
                    narrow_requant,
                    ..fast
                };
                arena[n_in + n_out..].fill(0);
                conv2d_im2col_gather_pairs_s8(&mut arena, 0, n_in + n_out, &gathered);
                let (want, got) = arena[n_in..].split_at(n_out);
                assert_eq!(want, got, "gathered {ih}x{iw}x{c} -> {m}, {fh}x{fw}");
            }
        }
    }
}

/// The gathering int16 kernel (swizzled weights, 32-bit window sums) gives the general one's
/// bytes: odd and even channel counts, windows with and without a whole last group of four,
/// padding, stride and dilation, and inputs and weights at their extremes.
#[test]
fn s16_gathered_windows_match_the_general_kernel() {
    let cases = [
        // (input h, w, c, output c, filter h, w, stride, dilation, pad)
        (5, 6, 2, 3, 3, 3, 1, 1, 1),
        (6, 7, 3, 4, 2, 3, 2, 1, 0),
        (7, 7, 4, 5, 3, 3, 1, 2, 2),
        (4, 9, 8, 2, 1, 4, 1, 1, 0),
        (5, 5, 12, 3, 3, 3, 2, 1, 1),
    ];
    for (ih, iw, c, m, fh, fw, stride, dilation, pad) in cases {
        let out_dim = |i: usize, f: usize| (i + 2 * pad - dilation * (f - 1) - 1) / stride + 1;
        let (oh, ow) = (out_dim(ih, fh), out_dim(iw, fw));
        let window = fh * fw * c;
        let mut seed = 0x2545_f491u32 ^ window as u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let n_in = 2 * ih * iw * c;
        let n_out = 2 * oh * ow * m;
        let mut arena = vec![0u8; n_in + 2 * n_out];
        for (i, x) in arena[..n_in].chunks_exact_mut(2).enumerate() {
            let v = match i % 7 {
                0 => i16::MIN,
                1 => i16::MAX,
                _ => next() as i16,
            };
            x.copy_from_slice(&v.to_le_bytes());
        }
        let filter: Vec<i8> = (0..m * window)
            .map(|i| if i % 5 == 0 { -128 } else { next() as i8 })
            .collect();
        let bias: Vec<i64> = (0..m).map(|k| i64::from(next() as i16) << 8 >> k).collect();
        let multipliers: Vec<i32> = (0..m).map(|k| 0x4000 + 997 * k as i32).collect();
        let shifts: Vec<i8> = (0..m).map(|k| 20 + k as i8).collect();
        let general = Conv2dS16 {
            batches: 1,
            input_h: ih,
            input_w: iw,
            input_c: c,
            output_h: oh,
            output_w: ow,
            output_c: m,
            filter_h: fh,
            filter_w: fw,
            filter_c: c,
            stride_h: stride,
            stride_w: stride,
            dilation_h: dilation,
            dilation_w: dilation,
            pad_top: pad,
            pad_left: pad,
            filter: &filter,
            bias: Some(&bias),
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: -30000,
            act_max: 31000,
            swizzled: false,
            acc32: false,
        };
        conv2d_s16(&mut arena, 0, n_in, &general);
        let mut swizzled = filter.clone();
        for row in swizzled.chunks_exact_mut(window) {
            for q in row.chunks_exact_mut(4) {
                q.swap(1, 2);
            }
        }
        let gathered = Conv2dIm2colS16 {
            batches: 1,
            input_h: ih,
            input_w: iw,
            input_c: c,
            output_h: oh,
            output_w: ow,
            output_c: m,
            filter_h: fh,
            filter_w: fw,
            stride_h: stride,
            stride_w: stride,
            dilation_h: dilation,
            dilation_w: dilation,
            pad_top: pad,
            pad_left: pad,
            filter: &swizzled,
            bias: Some(&bias),
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: -30000,
            act_max: 31000,
            sums32: false,
        };
        conv2d_im2col_s16(&mut arena, 0, n_in + n_out, &gathered);
        let (want, got) = arena[n_in..].split_at(n_out);
        assert_eq!(want, got, "{ih}x{iw}x{c} -> {m}, {fh}x{fw}");
        assert!(want.iter().any(|&b| b != 0));
        // The 32-bit sums and narrow requantization, which the lowering's bound allows for these
        // windows and biases.
        let fits = sums32_bound_holds(&filter, window, &bias);
        assert!(fits, "sums32 bound");
        let narrow = Conv2dIm2colS16 {
            sums32: true,
            ..gathered
        };
        arena[n_in + n_out..].fill(0);
        conv2d_im2col_s16(&mut arena, 0, n_in + n_out, &narrow);
        let (want, got) = arena[n_in..].split_at(n_out);
        assert_eq!(want, got, "sums32 {ih}x{iw}x{c} -> {m}, {fh}x{fw}");
        // The general kernel's path for swizzled rows, where the lowering would choose it.
        if c % 4 == 0 && dilation == 1 {
            let rows = Conv2dS16 {
                filter: &swizzled,
                swizzled: true,
                ..general
            };
            arena[n_in + n_out..].fill(0);
            conv2d_s16(&mut arena, 0, n_in + n_out, &rows);
            let (want, got) = arena[n_in..].split_at(n_out);
            assert_eq!(want, got, "swizzled {ih}x{iw}x{c} -> {m}, {fh}x{fw}");
        }
    }
}

/// `filter` (`m` rows of `c` weights) laid out by pairs of channels for [`conv2d_1x1_s16`].
fn pair_quads(filter: &[i8], c: usize, m: usize) -> Vec<i8> {
    let mut out = Vec::new();
    for pair in 0..m.div_ceil(2) {
        let rows = [2 * pair, (2 * pair + 1).min(m - 1)].map(|oc| &filter[oc * c..][..c]);
        for q in 0..c / 4 {
            for row in rows {
                let g = &row[4 * q..][..4];
                out.extend([g[0], g[2], g[1], g[3]]);
            }
        }
        for row in rows {
            out.extend(&row[c - c % 4..]);
        }
    }
    out
}

/// The operands of an int16 convolution test, drawn by [`s16_operands`].
struct S16Operands {
    input: Vec<i16>,
    filter: Vec<i8>,
    bias: Vec<i64>,
    multipliers: Vec<i32>,
    shifts: Vec<i8>,
}

/// The fused activation's range of the int16 convolution tests.
const S16_ACT: (i32, i32) = (-30000, 31000);

/// `inputs` activations (every seventh `i16::MIN`, the next `i16::MAX`, the others drawn), `m`
/// rows of `row` weights (every fifth -128, the others drawn), and per output channel a bias,
/// multiplier and shift; with `extremes` every input `i16::MIN`, every weight -128 and the biases
/// past 32 bits. Drawn in that order from an xorshift seeded with `seed`.
fn s16_operands(
    mut seed: u32,
    inputs: usize,
    (m, row): (usize, usize),
    extremes: bool,
) -> S16Operands {
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let input = (0..inputs)
        .map(|i| match i % 7 {
            _ if extremes => i16::MIN,
            0 => i16::MIN,
            1 => i16::MAX,
            _ => next() as i16,
        })
        .collect();
    let filter = (0..m * row)
        .map(|i| {
            if extremes || i % 5 == 0 {
                -128
            } else {
                next() as i8
            }
        })
        .collect();
    let bias = (0..m)
        .map(|k| match extremes {
            true => (1 << 31) + k as i64,
            false => i64::from(next() as i16) << 8 >> k,
        })
        .collect();
    S16Operands {
        input,
        filter,
        bias,
        multipliers: (0..m).map(|k| 0x4000 + 997 * k as i32).collect(),
        shifts: (0..m)
            .map(|k| if extremes { 40 } else { 20 + k as i8 })
            .collect(),
    }
}

/// The lowering's `sums32` bound: every output channel's `32768 * Σ |w|` over its `row` weights
/// plus `|bias|` is at most `i32::MAX`.
fn sums32_bound_holds(filter: &[i8], row: usize, bias: &[i64]) -> bool {
    filter.chunks_exact(row).zip(bias).all(|(row, b)| {
        let abs: i64 = row.iter().map(|&w| i64::from(w).abs()).sum();
        32768 * abs + b.abs() <= i64::from(i32::MAX)
    })
}

/// The int16 1×1 kernel (two pixels times two channels, weights by pairs) gives a plain loop's
/// bytes (64-bit sums, [`requantize_16x8`]) and the general kernel's, with and without its 32-bit
/// sums: odd and even pixel and channel counts, tails of 0 to 3 input channels, inputs and weights
/// at their extremes, and the deepest input (511 channels) with a bias that takes the sum past 32
/// bits.
#[test]
fn s16_1x1_matches_a_plain_loop_and_the_general_kernel() {
    use crate::kernels::nn_common::requant::requantize_16x8;
    // (pixels, input channels, output channels, extremes only)
    let cases = [
        (5, 64, 6, false),
        (4, 7, 3, false),
        (3, 1, 1, false),
        (2, 4, 2, false),
        (7, 13, 5, false),
        (1, 10, 4, false),
        (3, CONV_1X1_S16_MAX_DEPTH, 3, true),
    ];
    for (pixels, c, m, extremes) in cases {
        let (n_in, n_out) = (2 * pixels * c, 2 * pixels * m);
        let S16Operands {
            input,
            filter,
            bias,
            multipliers,
            shifts,
        } = s16_operands(
            0x9e37_79b9 ^ (c * 31 + m) as u32,
            pixels * c,
            (m, c),
            extremes,
        );
        let act = S16_ACT;
        let mut want = Vec::new();
        for px in 0..pixels {
            for oc in 0..m {
                let sum: i64 = (0..c)
                    .map(|k| i64::from(filter[oc * c + k]) * i64::from(input[px * c + k]))
                    .sum();
                let v = requantize_16x8(sum + bias[oc], multipliers[oc], shifts[oc], act);
                want.extend(v.to_le_bytes());
            }
        }
        assert!(want.iter().any(|&b| b != 0), "{pixels}x{c} -> {m}");
        let mut arena = vec![0u8; n_in + 2 * n_out];
        for (a, x) in arena.chunks_exact_mut(2).zip(&input) {
            a.copy_from_slice(&x.to_le_bytes());
        }
        let general = Conv2dS16 {
            batches: 1,
            input_h: 1,
            input_w: pixels,
            input_c: c,
            output_h: 1,
            output_w: pixels,
            output_c: m,
            filter_h: 1,
            filter_w: 1,
            filter_c: c,
            stride_h: 1,
            stride_w: 1,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: 0,
            pad_left: 0,
            filter: &filter,
            bias: Some(&bias),
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: act.0,
            act_max: act.1,
            swizzled: false,
            acc32: false,
        };
        conv2d_s16(&mut arena, 0, n_in, &general);
        assert_eq!(
            &arena[n_in..][..n_out],
            &want[..],
            "general {pixels}x{c} -> {m}"
        );
        let paired = pair_quads(&filter, c, m);
        let p = Conv1x1S16 {
            pixels,
            input_c: c,
            output_c: m,
            filter: &paired,
            bias: Some(&bias),
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: act.0,
            act_max: act.1,
            sums32: false,
        };
        conv2d_1x1_s16(&mut arena, 0, n_in + n_out, &p);
        assert_eq!(&arena[n_in + n_out..], &want[..], "1x1 {pixels}x{c} -> {m}");
        // The 32-bit sums where the lowering's bound allows them.
        let fits = sums32_bound_holds(&filter, c, &bias);
        assert_eq!(fits, !extremes, "sums32 bound {pixels}x{c} -> {m}");
        if fits {
            arena[n_in + n_out..].fill(0);
            conv2d_1x1_s16(
                &mut arena,
                0,
                n_in + n_out,
                &Conv1x1S16 { sums32: true, ..p },
            );
            assert_eq!(
                &arena[n_in + n_out..],
                &want[..],
                "sums32 {pixels}x{c} -> {m}"
            );
        }
    }
}

/// The int16 pairs kernel (two pixels of a row times two channels, straight from the input, the
/// taps only one pixel has at a padded border in runs of their own) gives a plain loop's bytes
/// (64-bit sums, taps outside the image skipped, [`requantize_16x8`]) and the general kernel's,
/// with and without its 32-bit sums: 3×3 at strides 1 and 2 with and without padding, 1×1 at
/// stride 2, odd output widths and channel counts, a vertical dilation, two batches, an output
/// column with no tap in the image, and a 504-weight window of extremes whose sum with the bias
/// leaves 32 bits.
#[test]
fn s16_pairs_matches_a_plain_loop_and_the_general_kernel() {
    use crate::kernels::nn_common::requant::requantize_16x8;
    // (batches, input h, w, c, output channels, filter h, w, stride h, w, dilation h, pad top,
    // left, output columns past the padding's extent, extremes only)
    let cases = [
        (1, 6, 7, 16, 5, 3, 3, 1, 1, 1, 1, 1, 0, false),
        (1, 7, 9, 8, 4, 3, 3, 2, 2, 1, 0, 0, 0, false),
        (2, 8, 8, 4, 3, 3, 3, 2, 2, 1, 1, 1, 0, false),
        (1, 9, 7, 12, 6, 1, 1, 2, 2, 1, 0, 0, 0, false),
        (1, 5, 5, 4, 1, 2, 3, 1, 2, 2, 1, 1, 0, false),
        (1, 4, 3, 4, 2, 2, 2, 1, 1, 1, 0, 1, 3, false),
        (1, 3, 5, 56, 3, 3, 3, 1, 1, 1, 1, 1, 0, true),
    ];
    for (batches, ih, iw, c, m, fh, fw, sh, sw, dh, pt, pl, past, extremes) in cases {
        let name = format!("{batches}x{ih}x{iw}x{c} -> {m}, {fh}x{fw}/{sh}{sw}, pad {pt}{pl}");
        let oh = (ih + 2 * pt - dh * (fh - 1) - 1) / sh + 1;
        let ow = (iw + 2 * pl - (fw - 1) - 1) / sw + 1 + past;
        let window = fh * fw * c;
        let n_in = 2 * batches * ih * iw * c;
        let n_out = 2 * batches * oh * ow * m;
        let S16Operands {
            input,
            filter,
            bias,
            multipliers,
            shifts,
        } = s16_operands(
            0x2545_f491 ^ (c * 131 + m * 7 + fw) as u32,
            n_in / 2,
            (m, window),
            extremes,
        );
        let act = S16_ACT;
        let mut want = Vec::new();
        for b in 0..batches {
            for oy in 0..oh {
                for ox in 0..ow {
                    for oc in 0..m {
                        let mut sum = 0i64;
                        for ky in 0..fh {
                            for kx in 0..fw {
                                let iy = (oy * sh + ky * dh) as isize - pt as isize;
                                let ix = (ox * sw + kx) as isize - pl as isize;
                                if iy < 0 || ix < 0 || iy >= ih as isize || ix >= iw as isize {
                                    continue;
                                }
                                let at = ((b * ih + iy as usize) * iw + ix as usize) * c;
                                let w = &filter[oc * window + (ky * fw + kx) * c..][..c];
                                for (k, &w) in w.iter().enumerate() {
                                    sum += i64::from(w) * i64::from(input[at + k]);
                                }
                            }
                        }
                        let v = requantize_16x8(sum + bias[oc], multipliers[oc], shifts[oc], act);
                        want.extend(v.to_le_bytes());
                    }
                }
            }
        }
        assert!(want.iter().any(|&b| b != 0), "{name}");
        let mut arena = vec![0u8; n_in + 2 * n_out];
        for (a, x) in arena.chunks_exact_mut(2).zip(&input) {
            a.copy_from_slice(&x.to_le_bytes());
        }
        let general = Conv2dS16 {
            batches,
            input_h: ih,
            input_w: iw,
            input_c: c,
            output_h: oh,
            output_w: ow,
            output_c: m,
            filter_h: fh,
            filter_w: fw,
            filter_c: c,
            stride_h: sh,
            stride_w: sw,
            dilation_h: dh,
            dilation_w: 1,
            pad_top: pt,
            pad_left: pl,
            filter: &filter,
            bias: Some(&bias),
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: act.0,
            act_max: act.1,
            swizzled: false,
            acc32: false,
        };
        conv2d_s16(&mut arena, 0, n_in, &general);
        assert_eq!(&arena[n_in..][..n_out], &want[..], "general {name}");
        let paired = pair_quads(&filter, window, m);
        let p = ConvPairsS16 {
            batches,
            input_h: ih,
            input_w: iw,
            input_c: c,
            output_h: oh,
            output_w: ow,
            output_c: m,
            filter_h: fh,
            filter_w: fw,
            stride_h: sh,
            stride_w: sw,
            dilation_h: dh,
            dilation_w: 1,
            pad_top: pt,
            pad_left: pl,
            filter: &paired,
            bias: Some(&bias),
            multipliers: &multipliers,
            shifts: &shifts,
            act_min: act.0,
            act_max: act.1,
            sums32: false,
        };
        conv2d_pairs_s16(&mut arena, 0, n_in + n_out, &p);
        assert_eq!(&arena[n_in + n_out..], &want[..], "pairs {name}");
        let fits = sums32_bound_holds(&filter, window, &bias);
        assert_eq!(fits, !extremes, "sums32 bound {name}");
        if fits {
            arena[n_in + n_out..].fill(0);
            let p = ConvPairsS16 { sums32: true, ..p };
            conv2d_pairs_s16(&mut arena, 0, n_in + n_out, &p);
            assert_eq!(&arena[n_in + n_out..], &want[..], "pairs sums32 {name}");
        }
    }
}

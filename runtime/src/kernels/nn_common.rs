//! Helpers shared by the neural-network kernels (conv, depthwise, fully connected, pools, softmax,
//! logistic, tanh): arena views, window geometry, requantization, gemmlowp fixed-point functions and
//! `no_std` float transcendentals.

pub(crate) mod dot;
#[cfg(tinyaot_dsp)]
mod dsp;
pub(crate) mod fixed_point;
pub(crate) mod float_math;
pub(crate) mod mac16;
#[cfg(tinyaot_mve)]
mod mve;
pub(crate) mod requant;
#[cfg(tinyaot_dsp)]
mod shift_dot;
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod sse2;
#[cfg(test)]
mod stream_tests;
pub(crate) mod views;
pub(crate) mod wide;
pub(crate) mod window;

pub(crate) use dot::{
    dot2_swizzled_s16, dot4_interleaved_s8, dot4_interleaved_s8_outlined, dot4_packed_s8, dot4_s8,
    dot_s16, dot_s8, pack4_columns_s8, window3x3_run_s8, window_run_s8, TapTable,
};
// The depthwise taps of the untabled path: Helium's where the core has it.
pub(crate) use dot::{dot4_run_s8, packed4_bytes};
#[cfg(not(tinyaot_mve))]
pub(crate) use dot::{mac_broadcast_s8, mac_lanes_s8};
#[cfg(tinyaot_mve)]
pub(crate) use mve::{
    copy_bytes, gather_pixel_s8, mac_broadcast_s8, mac_lanes_s8, pointwise_pixel_s8,
    pointwise_pixels_s8, pool_sum16_s8, window3x3_requant_s8, window_taps_requant_s8, GatherWindow,
};
pub(crate) use requant::Requantizer;
#[cfg(tinyaot_dsp)]
pub(crate) use shift_dot::{shift_dot_i16, shift_dot_rows_i16, shift_dot_rows_s8, shift_dot_s8};

/// Panics unless `filter` starts at a word boundary: the DSP kernels read filters by aligned
/// words (generated code keeps them in 16-byte aligned `Flash`). One shared cold panic, so that
/// each kernel's check is a test and a branch.
#[cfg(tinyaot_dsp)]
#[inline(always)]
pub(crate) fn check_word_aligned(filter: &[i8]) {
    #[cold]
    #[inline(never)]
    fn misaligned() -> ! {
        panic!("filter not word-aligned")
    }
    if !(filter.as_ptr() as usize).is_multiple_of(4) {
        misaligned()
    }
}

/// Element `k` of INT4 data packed two to a byte, sign-extended: element `2i` is byte `i`'s low
/// nibble and element `2i + 1` its high one (TFLM's `UnpackDenseInt4IntoInt8`; an odd count leaves
/// the last byte's high nibble unread). Shifted up to the top of a word and back down
/// arithmetically, which sign-extends either nibble without a branch.
#[inline(always)]
pub(crate) fn int4(packed: &[u8], k: usize) -> i32 {
    let up = 28 - 4 * (k as u32 & 1);
    ((u32::from(packed[k >> 1]) << up) as i32) >> 28
}

/// `values` packed as [`int4`] reads them (an odd count leaves the last high nibble 0), in the
/// first `ceil(len / 2)` bytes of an array (the runtime's tests have no allocator).
#[cfg(test)]
pub(crate) fn pack_int4<const N: usize>(values: &[i8]) -> [u8; N] {
    let mut bytes = [0u8; N];
    for (k, &v) in values.iter().enumerate() {
        bytes[k / 2] |= ((v as u8) & 0x0F) << (4 * (k % 2));
    }
    bytes
}

/// `ActivationFunctionWithMinMax` for floats: `min(max(x, lo), hi)`, in TFLM's order, with C++
/// `std::min`/`std::max` semantics (a NaN `x` stays NaN).
#[inline(always)]
pub(crate) fn clamp_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x < lo { lo } else { x };
    if hi < x {
        hi
    } else {
        x
    }
}

//! Helpers shared by the neural-network kernels (conv, depthwise, fully connected, pools, softmax,
//! logistic, tanh): arena views, window geometry, requantization, gemmlowp fixed-point functions and
//! `no_std` float transcendentals.

pub(crate) mod dot;
#[cfg(tinyaot_dsp)]
mod dsp;
pub(crate) mod fixed_point;
pub(crate) mod float_math;
pub(crate) mod requant;
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod sse2;
#[cfg(test)]
mod stream_tests;
pub(crate) mod views;
pub(crate) mod wide;
pub(crate) mod window;

pub(crate) use dot::dot4_run_s8;
pub(crate) use dot::{
    dot2_swizzled_s16, dot4_interleaved_s8, dot4_interleaved_s8_outlined, dot4_s8, dot_s16, dot_s8,
    mac_broadcast_s8, mac_lanes_s8, window3x3_run_s8, window_run_s8, TapTable,
};
pub(crate) use requant::Requantizer;

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
    if filter.as_ptr() as usize % 4 != 0 {
        misaligned()
    }
}

/// `ActivationFunctionWithMinMax` for floats: `min(max(x, lo), hi)`, in TFLM's order.
#[inline(always)]
pub(crate) fn clamp_f32(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x < lo { lo } else { x };
    if hi < x {
        hi
    } else {
        x
    }
}

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
pub(crate) mod views;
pub(crate) mod wide;
pub(crate) mod window;

pub(crate) use dot::{
    dot4_interleaved_s8, dot4_interleaved_s8_outlined, dot4_s8, dot_s8, mac_broadcast_s8,
    mac_lanes_s8, window_run_s8, TapTable,
};
pub(crate) use requant::Requantizer;

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

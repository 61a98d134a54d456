//! Binary element-wise ops with broadcasting: ADD, SUB, MUL, MAXIMUM and MINIMUM (int8, int16, int32
//! and float32; MAXIMUM and MINIMUM also int64).
//!
//! Every kernel here takes both inputs as [`Src`](crate::Src) (either may be a constant) and a
//! collapsed broadcast description computed at generation time: `shape` (the output's, with adjacent
//! dimensions that broadcast alike merged) and one element stride per dimension for each input
//! (0 along a dimension the input broadcasts; the innermost stride is 0 or 1).
//!
//! Access order: the output is written in order. When no arena input overlaps the output the
//! kernel reads the inputs directly; otherwise it stages them chunk by chunk, each chunk of both
//! inputs read before the chunk of output is written. So the output may be the same tensor as (same
//! offset as) an input whose strides are all non-zero (an input of the output's shape):
//! ADD/SUB/MUL/MAXIMUM/MINIMUM can run in place. The output must not otherwise overlap an input.
//!
//! PRELU (int8, float32, and int16 with an int8 alpha) shares the walk: alpha is its second
//! input, broadcast like one (int16's through `kernels::broadcast::binary_mixed`, whose second
//! input has its own element type and so is never the output).
//!
//! The family's files, by variant: `add.rs` int8 and int16 ADD and SUB (with their short int8
//! path, and in `add_dsp.rs` its assembly for the DSP extension), `mul.rs` int8 and int16 MUL,
//! `s32.rs` the int32 ADD, SUB and MUL, `float.rs` the float32 ones, `floor_div_mod.rs`
//! FLOOR_DIV and FLOOR_MOD (float32), `min_max.rs` MAXIMUM and
//! MINIMUM of every type, `prelu.rs` PRELU and `add_n.rs` ADD_N (2 or more inputs, no broadcast),
//! each with its parameter struct. This module holds
//! what several of them share: the int8 clamp. Every kernel walks its broadcast with
//! `kernels::broadcast::binary` (int16 PRELU with `binary_mixed`).
//!
//! Same-shape entries: ADD, SUB and MUL (int8, int16, float32) also have a `*_flat` kernel, with the same parameters and access order, for inputs of
//! the output's shape (the lowering emits it when the broadcast is no broadcast): it walks the
//! elements with `kernels::broadcast::binary_flat`, so that a model whose element-wise ops never
//! broadcast does not link the broadcast paths (about 4 KB of Cortex-M4 code).

mod add;
#[cfg(tinyaot_dsp)]
mod add_dsp;
#[cfg(tinyaot_mve)]
mod add_mve;
mod add_n;
mod div;
mod float;
mod floor_div_mod;
mod min_max;
mod mul;
mod prelu;
mod s32;
mod squared_difference;
#[cfg(test)]
mod tests;

pub use add::{
    add_s16, add_s16_flat, add_s8, add_s8_flat, sub_s16, sub_s16_flat, sub_s8, sub_s8_flat, AddS16,
    AddS8, SubS16, SubS8,
};
pub use add_n::{
    add_n2_f32, add_n2_s8, add_n3_f32, add_n3_s8, add_n4_f32, add_n4_s8, add_n5_f32, add_n5_s8,
    add_n6_f32, add_n6_s8, add_n7_f32, add_n7_s8, add_n8_f32, add_n8_s8, add_n_f32, add_n_s8,
    AddNF32, AddNS8,
};
pub use div::{div_f32, div_s32, div_s8, DivS8};
pub use float::{add_f32, add_f32_flat, mul_f32, mul_f32_flat, sub_f32, sub_f32_flat, BinaryF32};
pub use floor_div_mod::{floor_div_f32, floor_mod_f32, FloorDivModF32};
pub use min_max::{
    maximum_f32, maximum_s16, maximum_s32, maximum_s64, maximum_s8, minimum_f32, minimum_s16,
    minimum_s32, minimum_s64, minimum_s8, MinMax,
};
pub use mul::{mul_s16, mul_s16_flat, mul_s8, mul_s8_flat, MulS16, MulS8};
pub use prelu::{prelu_f32, prelu_s16, prelu_s8, PreluF32, PreluS16, PreluS8};
pub use s32::{add_s32, mul_s32, sub_s32, BinaryS32};
pub use squared_difference::{
    squared_difference_f32, squared_difference_s16, squared_difference_s32, squared_difference_s8,
    SquaredDifferenceF32, SquaredDifferenceS16, SquaredDifferenceS32, SquaredDifferenceS8,
};

/// `std::min(hi, std::max(lo, x))` as int8, as TFLM clamps (no panic should `lo > hi`).
#[inline(always)]
#[allow(clippy::manual_clamp)]
fn clamp_s8(x: i32, lo: i32, hi: i32) -> i8 {
    x.max(lo).min(hi) as i8
}

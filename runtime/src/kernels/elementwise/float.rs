//! float32 ADD, SUB and MUL ([`add_f32`], [`sub_f32`], [`mul_f32`]), clamped to the fused
//! activation's range.

use crate::kernels::broadcast::{binary, binary_flat};
use crate::kernels::nn_common::clamp_f32;
use crate::Src;

/// Constants of float32 ADD, SUB and MUL.
#[derive(Clone, Copy, Debug)]
pub struct BinaryF32<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Lower clamp (fused activation; `f32::MIN` for none).
    pub act_min: f32,
    /// Upper clamp (fused activation; `f32::MAX` for none).
    pub act_max: f32,
}

/// The element functions of the broadcast and the same-shape entries of each operator.
#[inline(always)]
fn add_fn<'p>(p: &'p BinaryF32<'p>) -> impl Fn(f32, f32) -> f32 + 'p {
    move |x, y| clamp_f32(x + y, p.act_min, p.act_max)
}

/// [`add_fn`]'s for SUB.
#[inline(always)]
fn sub_fn<'p>(p: &'p BinaryF32<'p>) -> impl Fn(f32, f32) -> f32 + 'p {
    move |x, y| clamp_f32(x - y, p.act_min, p.act_max)
}

/// [`add_fn`]'s for MUL.
#[inline(always)]
fn mul_fn<'p>(p: &'p BinaryF32<'p>) -> impl Fn(f32, f32) -> f32 + 'p {
    move |x, y| clamp_f32(x * y, p.act_min, p.act_max)
}

/// float32 ADD with broadcasting. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        add_fn(p),
    );
}

/// float32 SUB with broadcasting. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        sub_fn(p),
    );
}

/// float32 MUL with broadcasting. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        mul_fn(p),
    );
}

/// float32 ADD of inputs of the output's shape (no broadcast: the lowering's choice when
/// the shapes are equal): [`add_f32`] without the broadcast paths. See the module docs for access
/// order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_f32_flat(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = crate::kernels::opaque(p);
    binary_flat(arena, (a, b, output), p.shape, add_fn(p));
}

/// float32 SUB of inputs of the output's shape (no broadcast: the lowering's choice when
/// the shapes are equal): [`sub_f32`] without the broadcast paths. See the module docs for access
/// order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_f32_flat(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = crate::kernels::opaque(p);
    binary_flat(arena, (a, b, output), p.shape, sub_fn(p));
}

/// float32 MUL of inputs of the output's shape (no broadcast: the lowering's choice when
/// the shapes are equal): [`mul_f32`] without the broadcast paths. See the module docs for access
/// order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_f32_flat(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = crate::kernels::opaque(p);
    binary_flat(arena, (a, b, output), p.shape, mul_fn(p));
}

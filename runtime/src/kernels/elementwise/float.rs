//! float32 ADD, SUB and MUL ([`add_f32`], [`sub_f32`], [`mul_f32`]), clamped to the fused
//! activation's range.

use crate::kernels::broadcast::binary;
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

/// float32 ADD with broadcasting. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryF32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y| clamp_f32(x + y, p.act_min, p.act_max),
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
        |x: f32, y| clamp_f32(x - y, p.act_min, p.act_max),
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
        |x: f32, y| clamp_f32(x * y, p.act_min, p.act_max),
    );
}

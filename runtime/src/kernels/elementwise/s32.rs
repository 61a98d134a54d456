//! int32 ADD, SUB and MUL ([`add_s32`], [`sub_s32`], [`mul_s32`]): TFLM's unquantized int32
//! arithmetic, wrapping, clamped to the fused activation's range.

use crate::kernels::broadcast::binary;
use crate::Src;

/// Constants of int32 ADD, SUB and MUL: TFLM's unquantized int32 arithmetic (`a + b`, `a - b`,
/// `a * b` wrapping around at int32's bounds), clamped to the fused activation's range.
#[derive(Clone, Copy, Debug)]
pub struct BinaryS32<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
    /// Lower clamp: TFLM's `CalculateActivationRange<int32_t>` of the fused activation (0 for
    /// RELU and RELU6, -1 for RELU_N1_TO_1, `i32::MIN` otherwise and always for ADD, whose int32
    /// path ignores the activation).
    pub act_min: i32,
    /// Upper clamp: 6 for RELU6, 1 for RELU_N1_TO_1, `i32::MAX` otherwise and always for ADD.
    pub act_max: i32,
}

/// `std::min(std::max(x, lo), hi)`, TFLM's `ActivationFunctionWithMinMax` for int32 (no panic
/// should `lo > hi`).
#[inline(always)]
#[allow(clippy::manual_clamp)]
fn clamp_s32(x: i32, p: &BinaryS32) -> i32 {
    x.max(p.act_min).min(p.act_max)
}

/// int32 ADD with broadcasting: `a + b`, wrapping on overflow, clamped to `[act_min, act_max]`
/// (TFLM's int32 ADD clamps to int32's own range, whatever the fused activation). TFLM computes
/// the sum in C++ `int32_t`, so where it overflows TFLM's result is undefined; its compiled kernels
/// wrap, as this one does. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn add_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryS32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y: i32| clamp_s32(x.wrapping_add(y), p),
    );
}

/// int32 SUB with broadcasting: `a - b`, wrapping on overflow (undefined in TFLM's C++, as for
/// [`add_s32`]), clamped to the fused activation's range. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn sub_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryS32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y: i32| clamp_s32(x.wrapping_sub(y), p),
    );
}

/// int32 MUL with broadcasting: `a * b` wrapping on overflow (TFLM's `WrappingMul`), clamped to
/// the fused activation's range. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn mul_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &BinaryS32) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y: i32| clamp_s32(x.wrapping_mul(y), p),
    );
}

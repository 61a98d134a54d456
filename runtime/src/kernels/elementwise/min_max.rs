//! MAXIMUM and MINIMUM of every type (int8, int16, int32, int64, float32): raw values compared,
//! as TFLM, with no requantization.

use crate::kernels::broadcast::binary;
use crate::Src;

/// Constants of MAXIMUM and MINIMUM (every type: TFLM compares raw values, no requantization).
#[derive(Clone, Copy, Debug)]
pub struct MinMax<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
}

/// int8 MAXIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn maximum_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i8, y| x.max(y),
    );
}

/// int8 MINIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn minimum_s8(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i8, y| x.min(y),
    );
}

/// int16 MAXIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn maximum_s16(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i16, y| x.max(y),
    );
}

/// int16 MINIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn minimum_s16(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i16, y| x.min(y),
    );
}

/// int32 MAXIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn maximum_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y| x.max(y),
    );
}

/// int32 MINIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn minimum_s32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i32, y| x.min(y),
    );
}

/// int64 MAXIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn maximum_s64(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i64, y| x.max(y),
    );
}

/// int64 MINIMUM (raw values, as TFLM). See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn minimum_s64(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: i64, y| x.min(y),
    );
}

/// float32 MAXIMUM: `x > y ? x : y`, as TFLM. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn maximum_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y| {
            if x > y {
                x
            } else {
                y
            }
        },
    );
}

/// float32 MINIMUM: `x < y ? x : y`, as TFLM. See the module docs for access order.
#[cfg_attr(target_os = "none", inline(never))]
pub fn minimum_f32(arena: &mut [u8], a: Src, b: Src, output: usize, p: &MinMax) {
    let p = crate::kernels::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: f32, y| {
            if x < y {
                x
            } else {
                y
            }
        },
    );
}

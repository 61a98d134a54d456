//! LOGICAL_AND and LOGICAL_OR with broadcasting, and LOGICAL_NOT, of BOOL tensors (one byte per
//! element, 0 or 1 as C++ stores `bool`), as TFLM's `logical.cc` and `elementwise.cc`.
//!
//! A byte other than 0 reads as true (C++ gives such a `bool` no meaning; the C twin reads it
//! alike). LOGICAL_AND and LOGICAL_OR walk the element-wise family's collapsed broadcast
//! (`kernels::broadcast::binary`), LOGICAL_NOT the element-wise map. The output must not overlap
//! an input: the lowering declares no in-place contract.

use super::broadcast::binary;
use super::elem::map;
use crate::Src;

/// Constants of LOGICAL_AND and LOGICAL_OR: the collapsed broadcast.
#[derive(Clone, Copy, Debug)]
pub struct Logical<'a> {
    /// Output shape, collapsed.
    pub shape: &'a [usize],
    /// Element strides of input 1 per dimension of `shape` (0 = broadcast).
    pub a_strides: &'a [usize],
    /// Element strides of input 2 per dimension of `shape` (0 = broadcast).
    pub b_strides: &'a [usize],
}

/// Constants of LOGICAL_NOT.
#[derive(Clone, Copy, Debug)]
pub struct LogicalNot {
    /// Number of elements.
    pub len: usize,
}

/// LOGICAL_AND: `a && b`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn logical_and(arena: &mut [u8], a: Src, b: Src, output: usize, p: &Logical) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: u8, y: u8| u8::from(x != 0 && y != 0),
    );
}

/// LOGICAL_OR: `a || b`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn logical_or(arena: &mut [u8], a: Src, b: Src, output: usize, p: &Logical) {
    let p = super::opaque(p);
    binary(
        arena,
        (a, b, output),
        (p.shape, p.a_strides, p.b_strides),
        |x: u8, y: u8| u8::from(x != 0 || y != 0),
    );
}

/// LOGICAL_NOT: `!x`.
#[cfg_attr(target_os = "none", inline(never))]
pub fn logical_not(arena: &mut [u8], input: usize, output: usize, p: &LogicalNot) {
    let p = super::opaque(p);
    map(arena, input, output, p.len, |x: u8| u8::from(x == 0));
}

//! BROADCAST_ARGS (INT32, INT64 shape vectors, as TFLM's `broadcast_args.cc` computes them): the
//! shape two shapes broadcast to, aligned at their last dimensions, a missing dimension read as 1.
//! Constant shapes are folded at generation time through this kernel.

use super::elem::load;
use crate::Src;

/// Constants of a BROADCAST_ARGS: the lengths of its vectors and their element size.
#[derive(Clone, Copy, Debug)]
pub struct BroadcastArgs {
    /// Elements of the first shape.
    pub len1: usize,
    /// Elements of the second shape.
    pub len2: usize,
    /// Elements of the output (TFLM walks the output's length, whatever the inputs' are).
    pub out_len: usize,
    /// Bytes per element of the three vectors: 4 (INT32) or 8 (INT64).
    pub elem_bytes: usize,
}

/// Writes, for each output position counted from the end, the first shape's dimension unless it
/// is 1, else the second's (a missing dimension is 1). Dimensions are read as TFLM's reference
/// reads them, truncated to 32 bits (its `int` locals), and written sign-extended. Two
/// dimensions that differ and are neither 1 (TFLM aborts on its TFLITE_CHECK_EQ; constant shapes
/// were checked at generation time) give the first shape's. The output must not overlap the
/// inputs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn broadcast_args(
    arena: &mut [u8],
    shape1: Src,
    shape2: Src,
    output: usize,
    p: &BroadcastArgs,
) {
    let p = super::opaque(p);
    let read = |arena: &[u8], src: Src, len: usize, back: usize| -> i32 {
        if back >= len {
            return 1;
        }
        let at = len - 1 - back;
        if p.elem_bytes == 8 {
            let mut v = [0i64];
            load(arena, src, at, &mut v);
            v[0] as i32
        } else {
            let mut v = [0i32];
            load(arena, src, at, &mut v);
            v[0]
        }
    };
    for back in 0..p.out_len {
        let a = read(arena, shape1, p.len1, back);
        let b = read(arena, shape2, p.len2, back);
        let dim = if a == 1 { b } else { a };
        let at = output + (p.out_len - 1 - back) * p.elem_bytes;
        if p.elem_bytes == 8 {
            arena[at..at + 8].copy_from_slice(&i64::from(dim).to_le_bytes());
        } else {
            arena[at..at + 4].copy_from_slice(&dim.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasts_from_the_last_dimension() {
        // [2, 1, 3] and [4, 1] (INT32) → [2, 4, 3].
        let a: [u8; 12] = [2, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0];
        let b: [u8; 8] = [4, 0, 0, 0, 1, 0, 0, 0];
        let mut arena = [0u8; 12];
        let p = BroadcastArgs {
            len1: 3,
            len2: 2,
            out_len: 3,
            elem_bytes: 4,
        };
        broadcast_args(&mut arena, Src::Bytes(&a), Src::Bytes(&b), 0, &p);
        assert_eq!(arena, [2, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0]);
    }

    #[test]
    fn reads_int64_dimensions_truncated() {
        // [2^32 + 5] and [1] (INT64) → [5]: TFLM's int locals keep the low 32 bits.
        let a = ((1i64 << 32) + 5).to_le_bytes();
        let b = 1i64.to_le_bytes();
        let mut arena = [9u8; 8];
        let p = BroadcastArgs {
            len1: 1,
            len2: 1,
            out_len: 1,
            elem_bytes: 8,
        };
        broadcast_args(&mut arena, Src::Bytes(&a), Src::Bytes(&b), 0, &p);
        assert_eq!(i64::from_le_bytes(arena), 5);
    }
}

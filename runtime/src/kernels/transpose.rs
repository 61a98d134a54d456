//! TRANSPOSE (any element type, up to 6 dimensions after collapsing; TFLM accepts up to 5).

use super::nn_common::views;
use super::strided_walk::strided_walk;

/// Constants of a transpose, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct Transpose<'a> {
    /// Bytes per element (1 for INT8, 4 for FLOAT32).
    pub elem_bytes: usize,
    /// Input size in bytes.
    pub input_bytes: usize,
    /// Output shape, with adjacent dimensions that stay adjacent in the input merged.
    pub shape: &'a [usize],
    /// For each output dimension, the input element stride it walks (the input's strides, permuted).
    pub input_strides: &'a [usize],
}

/// Transposes the tensor at `input` into `output`.
///
/// Writes the output in order, reading the input with the permuted strides; the output must not
/// overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn transpose(arena: &mut [u8], input: usize, output: usize, p: &Transpose) {
    let p = super::opaque(p);
    if let ([count], [0]) = (p.shape, p.input_strides) {
        // One element repeated (FILL; BROADCAST_TO of one element): stored without the walk's
        // set-up, which cost more than a FILL of a few dozen elements.
        let elem = p.elem_bytes;
        let (src, dst) = views::split(arena, input, elem, output, count * elem);
        if let [a, b, c, d] = *src {
            for o in dst.chunks_exact_mut(4) {
                o.copy_from_slice(&[a, b, c, d]);
            }
        } else if elem != 0 {
            for o in dst.chunks_exact_mut(elem) {
                o.copy_from_slice(src);
            }
        }
        return;
    }
    let mut steps = [0i32; super::MAX_RANK];
    for (s, &v) in steps.iter_mut().zip(p.input_strides) {
        *s = v as i32;
    }
    strided_walk(
        arena,
        input,
        p.input_bytes,
        output,
        p.elem_bytes,
        0,
        p.shape,
        &steps[..p.input_strides.len()],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_one_element_repeated() {
        // FILL's walk: shape [n], stride 0. Four-byte elements as words, others byte by byte.
        let mut arena = [0u8; 4 + 12];
        arena[..4].copy_from_slice(&1.5f32.to_le_bytes());
        let p = Transpose {
            elem_bytes: 4,
            input_bytes: 4,
            shape: &[3],
            input_strides: &[0],
        };
        transpose(&mut arena, 0, 4, &p);
        for k in 0..3 {
            assert_eq!(crate::bytes::read_f32(&arena[4..], k), 1.5);
        }
        let mut arena = [7u8, 0, 0, 0, 0];
        let p = Transpose {
            elem_bytes: 1,
            input_bytes: 1,
            shape: &[4],
            input_strides: &[0],
        };
        transpose(&mut arena, 0, 1, &p);
        assert_eq!(arena, [7; 5]);
    }

    #[test]
    fn transposes_2x3_bytes() {
        // [[1,2,3],[4,5,6]] -> [[1,4],[2,5],[3,6]]
        let mut arena = [1u8, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0];
        let p = Transpose {
            elem_bytes: 1,
            input_bytes: 6,
            shape: &[3, 2],
            input_strides: &[1, 3],
        };
        transpose(&mut arena, 0, 6, &p);
        assert_eq!(&arena[6..], &[1, 4, 2, 5, 3, 6]);
    }

    #[test]
    fn transposes_f32_nchw_to_nhwc() {
        // 1x2x2x2 NCHW -> NHWC: out[h][w][c] = in[c][h][w]; collapsed shape [4, 2], strides [1, 4].
        let mut arena = [0u8; 64];
        for i in 0..8 {
            arena[i * 4..i * 4 + 4].copy_from_slice(&(i as f32).to_le_bytes());
        }
        let p = Transpose {
            elem_bytes: 4,
            input_bytes: 32,
            shape: &[4, 2],
            input_strides: &[1, 4],
        };
        transpose(&mut arena, 0, 32, &p);
        let out: [f32; 8] = core::array::from_fn(|i| crate::bytes::read_f32(&arena[32..], i));
        assert_eq!(out, [0.0, 4.0, 1.0, 5.0, 2.0, 6.0, 3.0, 7.0]);
    }
}

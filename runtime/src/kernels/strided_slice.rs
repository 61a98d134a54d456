//! STRIDED_SLICE and SLICE (any element type). Begin/end/strides and all masks (SLICE: begin and
//! size) are resolved at generation time into a first element and one signed element step per
//! output dimension.

use super::strided_walk::strided_walk;

/// Constants of a strided slice, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct StridedSlice<'a> {
    /// Bytes per element.
    pub elem_bytes: usize,
    /// Input size in bytes.
    pub input_bytes: usize,
    /// Input element index of the first output element.
    pub start: usize,
    /// Elements taken along each kept dimension (shrunk dimensions removed).
    pub counts: &'a [usize],
    /// Input element step along each kept dimension (negative for negative strides).
    pub steps: &'a [i32],
}

/// Copies the slice of the tensor at `input` into `output`.
///
/// Writes the output in order; the output must not overlap the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn strided_slice(arena: &mut [u8], input: usize, output: usize, p: &StridedSlice) {
    let p = super::opaque(p);
    strided_walk(
        arena,
        input,
        p.input_bytes,
        output,
        p.elem_bytes,
        p.start,
        p.counts,
        p.steps,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reverses_and_strides() {
        // input 2x4: [[0,1,2,3],[4,5,6,7]]; slice [1::-1, 3:0:-2] -> [[7,5],[3,1]]
        let mut arena = [0u8, 1, 2, 3, 4, 5, 6, 7, 9, 9, 9, 9];
        let p = StridedSlice {
            elem_bytes: 1,
            input_bytes: 8,
            start: 7,
            counts: &[2, 2],
            steps: &[-4, -2],
        };
        strided_slice(&mut arena, 0, 8, &p);
        assert_eq!(&arena[8..], &[7, 5, 3, 1]);
    }
}

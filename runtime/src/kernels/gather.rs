//! GATHER (any element type: rows of the input moved unread, as TFLM's `gather.cc` moves them):
//! for every batch and outer index, the rows of the input's axis named by the positions (INT32)
//! copied in order. GATHER_ND (`gather_nd.cc`): for every index vector (INT32), the slice of the
//! input it names copied in order.

use super::elem::load;
use crate::Src;

/// Constants of a gather, computed at generation time from the input's and positions' shapes.
#[derive(Clone, Copy, Debug)]
pub struct Gather {
    /// Bytes of one row: the dimensions after the axis times the element size.
    pub row_bytes: usize,
    /// Product of the first `batch_dims` dimensions (shared by the input and the positions).
    pub batches: usize,
    /// Product of the input's dimensions between the batch dimensions and the axis.
    pub outer: usize,
    /// The input's dimension along the axis: the rows a position picks from.
    pub axis_size: usize,
    /// Positions per batch (the positions' dimensions after the batch dimensions).
    pub coords: usize,
}

/// Gathers the rows of `input` named by `positions` (INT32) into `output`, in output order. A
/// position outside `[0, axis_size)` (TFLM's Invoke fails on it; constant positions were checked
/// at generation time) writes a row of zero bytes instead of reading outside the input. The
/// output must not overlap the input or the positions.
#[cfg_attr(target_os = "none", inline(never))]
pub fn gather(arena: &mut [u8], input: Src, positions: Src, output: usize, p: &Gather) {
    let p = super::opaque(p);
    let row = p.row_bytes;
    let mut out = output;
    let mut batch_rows = 0;
    let mut batch_positions = 0;
    for _ in 0..p.batches {
        let mut rows = batch_rows;
        for _ in 0..p.outer {
            for c in 0..p.coords {
                let mut position = [0i32];
                load(arena, positions, batch_positions + c, &mut position);
                match usize::try_from(position[0]) {
                    Ok(k) if k < p.axis_size => {
                        let from = (rows + k) * row;
                        match input {
                            Src::Arena(offset) => {
                                arena.copy_within(offset + from..offset + from + row, out)
                            }
                            Src::Bytes(bytes) => {
                                arena[out..out + row].copy_from_slice(&bytes[from..from + row])
                            }
                        }
                    }
                    _ => arena[out..out + row].fill(0),
                }
                out += row;
            }
            rows += p.axis_size;
        }
        batch_rows = rows;
        batch_positions += p.coords;
    }
}

/// Constants of a GATHER_ND, computed at generation time from the input's and indices' shapes.
#[derive(Clone, Copy, Debug)]
pub struct GatherNd<'a> {
    /// Bytes of one element.
    pub elem_bytes: usize,
    /// Elements of one slice: the input's dimensions after the indexed ones.
    pub slice_elems: usize,
    /// Index vectors: the indices' dimensions but the last.
    pub slices: usize,
    /// The input's element stride of each indexed dimension (the last dimension of the indices
    /// has one entry per indexed dimension).
    pub strides: &'a [usize],
    /// Elements of the input.
    pub input_elems: usize,
}

/// Copies, for every index vector of `indices` (INT32), the slice of `input` starting at the
/// element `Σ index[j] · strides[j]` into `output`, in order. A slice reaching outside the input
/// (TFLM's Invoke fails on it; constant indices were checked at generation time) writes zero
/// bytes instead. The output must not overlap the input or the indices.
#[cfg_attr(target_os = "none", inline(never))]
pub fn gather_nd(arena: &mut [u8], input: Src, indices: Src, output: usize, p: &GatherNd) {
    let p = super::opaque(p);
    let depth = p.strides.len();
    let bytes = p.slice_elems * p.elem_bytes;
    let mut out = output;
    for i in 0..p.slices {
        let mut from: i64 = 0;
        for (j, &stride) in p.strides.iter().enumerate() {
            let mut index = [0i32];
            load(arena, indices, i * depth + j, &mut index);
            from += i64::from(index[0]) * stride as i64;
        }
        match usize::try_from(from) {
            Ok(k)
                if k.checked_add(p.slice_elems)
                    .is_some_and(|end| end <= p.input_elems) =>
            {
                let start = k * p.elem_bytes;
                match input {
                    Src::Arena(offset) => {
                        arena.copy_within(offset + start..offset + start + bytes, out)
                    }
                    Src::Bytes(b) => {
                        arena[out..out + bytes].copy_from_slice(&b[start..start + bytes])
                    }
                }
            }
            _ => arena[out..out + bytes].fill(0),
        }
        out += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gathers_rows_by_batch_and_zeroes_strays() {
        // Input 2 batches x 3 rows of 2 bytes; positions [[2, 0], [1, 7]] with batch_dims 1.
        let input = [0u8, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15];
        let positions: [u8; 16] = [2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0];
        let mut arena = [9u8; 8];
        let p = Gather {
            row_bytes: 2,
            batches: 2,
            outer: 1,
            axis_size: 3,
            coords: 2,
        };
        gather(
            &mut arena,
            Src::Bytes(&input),
            Src::Bytes(&positions),
            0,
            &p,
        );
        assert_eq!(arena, [4, 5, 0, 1, 12, 13, 0, 0]);
    }

    #[test]
    fn reads_input_and_positions_from_the_arena() {
        // Input [[1, 2, 3], [4, 5, 6]] gathered along axis 1 by [2, 2, 0] (outer 2).
        let mut arena = [
            1u8, 2, 3, 4, 5, 6, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0,
        ];
        let p = Gather {
            row_bytes: 1,
            batches: 1,
            outer: 2,
            axis_size: 3,
            coords: 3,
        };
        gather(&mut arena, Src::Arena(0), Src::Arena(8), 20, &p);
        assert_eq!(&arena[20..26], &[3, 3, 1, 6, 6, 4]);
    }

    #[test]
    fn gathers_nd_slices_and_zeroes_strays() {
        // Input [3, 2] bytes 0..6, indices [[2], [0], [3]]: rows 2 and 0, then a stray row.
        let input = [0u8, 1, 2, 3, 4, 5];
        let indices: [u8; 12] = [2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0];
        let mut arena = [9u8; 6];
        let p = GatherNd {
            elem_bytes: 1,
            slice_elems: 2,
            slices: 3,
            strides: &[2],
            input_elems: 6,
        };
        gather_nd(&mut arena, Src::Bytes(&input), Src::Bytes(&indices), 0, &p);
        assert_eq!(arena, [4, 5, 0, 1, 0, 0]);
    }
}

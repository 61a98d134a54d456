//! DYNAMIC_UPDATE_SLICE (FLOAT32, INT8, INT16, INT32: elements moved unread, as TFLM's
//! `dynamic_update_slice.cc` copies them): the operand copied to the output, then the update
//! written over it at start indices (INT32 or INT64, read at run time) clamped into the operand.

use super::elem::{load, next_index};
use super::MAX_RANK;
use crate::kernels::Within;
use crate::Src;

/// Constants of a DYNAMIC_UPDATE_SLICE, computed at generation time from the shapes.
#[derive(Clone, Copy, Debug)]
pub struct DynamicUpdateSlice<'a> {
    /// Bytes per element of the operand, the update and the output.
    pub elem_bytes: usize,
    /// The operand's (and output's) shape.
    pub operand_dims: &'a [usize],
    /// The update's shape: as many dimensions as the operand's, none larger.
    pub update_dims: &'a [usize],
    /// Element strides of the output along each dimension.
    pub output_strides: &'a [usize],
    /// Bytes of one start index: 4 (INT32) or 8 (INT64).
    pub index_bytes: usize,
}

/// Copies `operand` to `output`, then `update` over it starting at `start` (one index per
/// dimension), each index clamped into `[0, operand_dims[d] - update_dims[d]]` as TFLM's
/// CalculateClampedStartIndices clamps it. An update as large as the operand replaces it whatever
/// the indices. The output must not overlap the update or the start indices.
#[cfg_attr(target_os = "none", inline(never))]
pub fn dynamic_update_slice(
    arena: &mut [u8],
    operand: Src,
    update: Src,
    start: Src,
    output: usize,
    p: &DynamicUpdateSlice,
) {
    let p = super::opaque(p);
    let es = p.elem_bytes;
    let rank = p.operand_dims.len();
    let operand_elems: usize = crate::kernels::elements(p.operand_dims);
    let update_elems: usize = crate::kernels::elements(p.update_dims);
    if operand_elems == update_elems {
        copy(arena, update, 0, output, update_elems * es);
        return;
    }
    copy(arena, operand, 0, output, operand_elems * es);
    if update_elems == 0 {
        return;
    }
    // The clamped start's element offset in the output.
    let mut base = 0;
    for d in 0..rank {
        let raw = if p.index_bytes == 8 {
            let mut v = [0i64];
            load(arena, start, d, &mut v);
            v[0]
        } else {
            let mut v = [0i32];
            load(arena, start, d, &mut v);
            i64::from(v[0])
        };
        let room = (p.operand_dims[d] - p.update_dims[d]) as i64;
        base += raw.clamp(0, room) as usize * p.output_strides[d];
    }
    let row_dims = p.update_dims.at(..rank - 1);
    let row = p.update_dims[rank - 1] * es;
    let mut index = [0usize; MAX_RANK];
    let mut from = 0;
    loop {
        let at: usize = index[..rank - 1]
            .iter()
            .zip(p.output_strides)
            .map(|(&i, &s)| i * s)
            .sum();
        copy(arena, update, from, output + (base + at) * es, row);
        from += row;
        if !next_index(index.at_mut(..rank - 1), row_dims) {
            break;
        }
    }
}

/// Copies `len` bytes of `src` from byte `from` to the arena at `to`.
#[inline(always)]
fn copy(arena: &mut [u8], src: Src, from: usize, to: usize, len: usize) {
    match src {
        Src::Arena(offset) => arena.copy_within(offset + from..offset + from + len, to),
        Src::Bytes(bytes) => arena[to..to + len].copy_from_slice(bytes.at(from..from + len)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(start: &[u8], index_bytes: usize) -> [u8; 12] {
        // Operand 3x4 of bytes 0..12, update 2x2 of 100..104.
        let operand: [u8; 12] = core::array::from_fn(|i| i as u8);
        let update = [100u8, 101, 102, 103];
        let mut arena = [0u8; 12];
        let p = DynamicUpdateSlice {
            elem_bytes: 1,
            operand_dims: &[3, 4],
            update_dims: &[2, 2],
            output_strides: &[4, 1],
            index_bytes,
        };
        dynamic_update_slice(
            &mut arena,
            Src::Bytes(&operand),
            Src::Bytes(&update),
            Src::Bytes(start),
            0,
            &p,
        );
        arena
    }

    #[test]
    fn writes_the_update_at_clamped_starts() {
        // Start [5, -1] (INT32) clamps to [1, 0].
        let start = [5u8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff];
        assert_eq!(
            run(&start, 4),
            [0, 1, 2, 3, 100, 101, 6, 7, 102, 103, 10, 11]
        );
        // Start [0, 2] (INT64).
        let start = [0u8, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(
            run(&start, 8),
            [0, 1, 100, 101, 4, 5, 102, 103, 8, 9, 10, 11]
        );
    }
}

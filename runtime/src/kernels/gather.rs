//! GATHER (any element type: rows of the input moved unread, as TFLM's `gather.cc` moves them):
//! for every batch and outer index, the rows of the input's axis named by the positions (INT32)
//! copied in order. GATHER_ND (`gather_nd.cc`): for every index vector (INT32), the slice of the
//! input it names copied in order. EMBEDDING_LOOKUP (`embedding_lookup.cc`) runs as GATHER along
//! axis 0, but for INT8 rows with a FLOAT32 output: those are dequantized with one scale.

use super::elem::load;
use super::nn_common::views;
use crate::kernels::Within;
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
    let in_len = p.batches * p.outer * p.axis_size * row;
    let out_len = p.batches * p.outer * p.coords * row;
    if out_len == 0 {
        // Nothing to write (and no positions, where `coords` is 0).
        return;
    }
    let (src, positions, out) = gather_views(
        arena,
        (input, in_len),
        (positions, 4 * p.batches * p.coords),
        output,
        out_len,
    );
    let mut o = 0;
    let mut batch_rows = 0;
    for positions in positions.chunks_exact(4 * p.coords).take(p.batches) {
        let mut rows = batch_rows;
        for _ in 0..p.outer {
            for w in positions.chunks_exact(4) {
                let position = i32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                let to = out.at_mut(o..o + row);
                match usize::try_from(position) {
                    Ok(k) if k < p.axis_size => {
                        copy_row(to, src.at((rows + k) * row..).at(..row), row);
                    }
                    _ => to.fill(0),
                }
                o += row;
            }
            rows += p.axis_size;
        }
        batch_rows = rows;
    }
}

/// Copies a row of `len` bytes (`to`'s length) from `from`: of one element of 1, 2 or 4 bytes
/// (GATHER's rows, GATHER_ND's one-element slices) by one load and store, before `copy_small`'s
/// choice of widths, longer rows by `copy_small`. `len` is the caller's loop-invariant row size,
/// so that the match is decided once per call, not per row.
#[inline(always)]
fn copy_row(to: &mut [u8], from: &[u8], len: usize) {
    match len {
        1 => to[0] = from[0],
        2 => to[..2].copy_from_slice(from.at(..2)),
        4 => to[..4].copy_from_slice(from.at(..4)),
        _ => views::copy_small(to, from),
    }
}

/// The input's, the positions' and the output's bytes, taken once per call: per row, matching the
/// sources and a `memmove` call took a GATHER of one-element rows to 1.5 times TFLM's reference
/// kernel on the Cortex-M4. Panics if an input overlaps the output (the kernel's contract: no plan
/// makes them).
fn gather_views<'b>(
    arena: &'b mut [u8],
    input: (Src<'b>, usize),
    positions: (Src<'b>, usize),
    output: usize,
    out_len: usize,
) -> (&'b [u8], &'b [u8], &'b mut [u8]) {
    match super::broadcast::disjoint(arena, input, positions, output, out_len) {
        Some(views) => views,
        None => panic!("kernel input and output overlap"),
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
    let out_len = p.slices * bytes;
    if out_len == 0 {
        return;
    }
    // The operands' bytes once per call, as GATHER's (per slice, a source match, a range check
    // per index and a `memmove` call took GATHER_ND of one-element slices to 1.3 times TFLM's
    // reference kernel on the Cortex-M4).
    let (src, indices, out) = gather_views(
        arena,
        (input, p.input_elems * p.elem_bytes),
        (indices, 4 * p.slices * depth),
        output,
        out_len,
    );
    let mut v = 0;
    for to in out.chunks_exact_mut(bytes) {
        let vector = indices.at(v..v + 4 * depth);
        v += 4 * depth;
        let mut from: i64 = 0;
        for (w, &stride) in vector.chunks_exact(4).zip(p.strides) {
            // Rolled: a vector has a few indices, and the unrolled loop spilled its registers.
            super::keep_rolled();
            let index = i32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            from += i64::from(index) * stride as i64;
        }
        match usize::try_from(from) {
            Ok(k)
                if k.checked_add(p.slice_elems)
                    .is_some_and(|end| end <= p.input_elems) =>
            {
                copy_row(to, src.at(k * p.elem_bytes..), bytes);
            }
            _ => to.fill(0),
        }
    }
}

/// Constants of an EMBEDDING_LOOKUP of INT8 rows into a FLOAT32 output (TFLM's EvalHybrid).
#[derive(Clone, Copy, Debug)]
pub struct EmbeddingLookupHybrid {
    /// Elements of one row: the values' dimensions after the first.
    pub columns: usize,
    /// Rows of the values: the first dimension, the range of the ids.
    pub rows: usize,
    /// Ids, and rows of the output.
    pub ids: usize,
    /// The scale every row is dequantized with (the values' first scale; the zero point is 0).
    pub scale: f32,
}

/// Writes, for every id of `ids` (INT32), the row of `values` (INT8) it names, each element `v`
/// as the FLOAT32 `v as f32 * scale` (TFLM's `Dequantize` with zero point 0), into `output`. An
/// id outside `[0, rows)` (TFLM's Invoke fails on it; constant ids were checked at generation
/// time) writes a row of zeros, as GATHER does. The output must not overlap the inputs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn embedding_lookup_hybrid(
    arena: &mut [u8],
    values: Src,
    ids: Src,
    output: usize,
    p: &EmbeddingLookupHybrid,
) {
    let p = super::opaque(p);
    let cols = p.columns;
    let mut out = output;
    for i in 0..p.ids {
        let mut id = [0i32];
        load(arena, ids, i, &mut id);
        let row = match usize::try_from(id[0]) {
            Ok(k) if k < p.rows => Some(k * cols),
            _ => None,
        };
        for c in 0..cols {
            let x = match row {
                Some(from) => {
                    let byte = match values {
                        Src::Arena(offset) => arena[offset + from + c],
                        Src::Bytes(b) => b[from + c],
                    };
                    f32::from(byte as i8) * p.scale
                }
                None => 0.0,
            };
            arena[out..out + 4].copy_from_slice(&x.to_le_bytes());
            out += 4;
        }
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

    /// One-element slices (the one-load path) of 1 and 4 bytes, by index vectors of two.
    #[test]
    fn gathers_nd_single_elements() {
        // Input [2, 3], indices [[1, 2], [0, 0], [2, 0]]: elements 5 and 0, then a stray.
        let indices: [u8; 24] = [
            1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
        ];
        let p = |elem_bytes| GatherNd {
            elem_bytes,
            slice_elems: 1,
            slices: 3,
            strides: &[3, 1],
            input_elems: 6,
        };
        let input = [10u8, 11, 12, 13, 14, 15];
        let mut arena = [9u8; 3];
        gather_nd(
            &mut arena,
            Src::Bytes(&input),
            Src::Bytes(&indices),
            0,
            &p(1),
        );
        assert_eq!(arena, [15, 10, 0]);
        let input: [u8; 24] = core::array::from_fn(|i| i as u8);
        let mut arena = [9u8; 12];
        gather_nd(
            &mut arena,
            Src::Bytes(&input),
            Src::Bytes(&indices),
            0,
            &p(4),
        );
        assert_eq!(arena, [20, 21, 22, 23, 0, 1, 2, 3, 0, 0, 0, 0]);
    }

    #[test]
    fn dequantizes_hybrid_rows_and_zeroes_strays() {
        // Values [[-2, 3], [4, -128]] scale 0.5; ids [1, 0, 2].
        let values = [(-2i8) as u8, 3, 4, 0x80];
        let ids: [u8; 12] = [1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0];
        let mut arena = [9u8; 24];
        let p = EmbeddingLookupHybrid {
            columns: 2,
            rows: 2,
            ids: 3,
            scale: 0.5,
        };
        embedding_lookup_hybrid(&mut arena, Src::Bytes(&values), Src::Bytes(&ids), 0, &p);
        let got: [f32; 6] = core::array::from_fn(|i| {
            f32::from_le_bytes(arena[4 * i..4 * i + 4].try_into().unwrap())
        });
        assert_eq!(got, [2.0, -64.0, -1.0, 1.5, 0.0, 0.0]);
    }
}

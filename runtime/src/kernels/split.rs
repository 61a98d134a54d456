//! SPLIT, SPLIT_V and UNPACK (any element type: the outputs are byte ranges of the input, copied
//! out, with no requantization, as TFLM copies them). Any number of outputs, as TFLM.
//!
//! [`split()`] takes the outputs as one variadic operand, a slice of their offsets; the code
//! generator calls it for more than 10 outputs. `splitN(arena, input, out_1, …, out_N, p)` for N
//! in 1..=10 take one operand per tensor and call it: the generated code of the models that
//! need no more keeps the form (and the measured size and speed) it had before the variadic form.

use super::nn_common::views;
use crate::kernels::Within;
use crate::Src;

/// Constants of a split: the input is `outer` rows, each the outputs' chunks in order.
#[derive(Clone, Copy, Debug)]
pub struct Split<'a> {
    /// Product of the dimensions before the axis.
    pub outer: usize,
    /// Bytes each output takes from one row (its axis extent times the inner size times the
    /// element size), in output order.
    pub chunk_bytes: &'a [usize],
}

/// Splits `input` into `outputs`, any number of them (SPLIT, SPLIT_V and UNPACK into more than 10
/// outputs): each output in turn gets its chunk of every row of the input. No output may overlap
/// the input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn split(arena: &mut [u8], input: Src, outputs: &[usize], p: &Split) {
    let p = super::opaque(p);
    ensure!(
        outputs.len() == p.chunk_bytes.len(),
        "one chunk size per output"
    );
    // Output by output, each output's chunks `row_bytes` apart in the input: the views are taken
    // once per output, and each chunk is a short copy (UNPACK's chunks are one element: a
    // `memmove` call each cost more than the copy).
    let row_bytes: usize = p.chunk_bytes.iter().sum();
    let total = p.outer * row_bytes;
    if total == 0 {
        return;
    }
    let mut col = 0;
    match input {
        Src::Arena(offset) => {
            // The arena around the input: every output lies wholly below it or wholly above it
            // (slicing panics otherwise), so one split serves all of them.
            let (low, rest) = arena.cut_mut(offset);
            let (src, high) = rest.cut_mut(total);
            for (&output, &n) in outputs.iter().zip(p.chunk_bytes) {
                let len = p.outer * n;
                let to = if output < offset {
                    low.at_mut(output..output + len)
                } else {
                    high.at_mut(output - offset - total..).at_mut(..len)
                };
                if p.outer == 1 {
                    // One row (SPLIT along the first axis, UNPACK of a leading 1): consecutive
                    // ranges, without the row loop's set-up.
                    views::copy_bytes(to, src.at(col..col + n));
                } else if n != 0 {
                    rows(src.at(col..), to, n, row_bytes);
                }
                col += n;
            }
        }
        Src::Bytes(bytes) => {
            for (&output, &n) in outputs.iter().zip(p.chunk_bytes) {
                let len = p.outer * n;
                if n != 0 {
                    let to = arena.at_mut(output..output + len);
                    rows(bytes.at(col..total), to, n, row_bytes);
                }
                col += n;
            }
        }
    }
}

/// Copies the starts, `n` bytes each, of `from`'s rows of `row_bytes` (each at least `n` long:
/// `from` starts at the chunk's column of the input's first row) into `to`'s chunks of `n`.
#[inline(always)]
fn rows(from: &[u8], to: &mut [u8], n: usize, row_bytes: usize) {
    views::copy_runs(to, n, from, row_bytes, (n, to.len() / n));
}

macro_rules! split_n {
    ($($name:ident: $($output:ident),+;)+) => {$(
        #[doc = concat!("SPLIT of `input` into ", stringify!($($output),+), "; see [`split()`].")]
        // One argument per output tensor is the calling convention; the arity is the point.
        #[allow(clippy::too_many_arguments)]
        pub fn $name(arena: &mut [u8], input: Src, $($output: usize,)+ p: &Split) {
            split(arena, input, &[$($output),+], p);
        }
    )+};
}

split_n! {
    split1: output_a;
    split2: output_a, output_b;
    split3: output_a, output_b, output_c;
    split4: output_a, output_b, output_c, output_d;
    split5: output_a, output_b, output_c, output_d, output_e;
    split6: output_a, output_b, output_c, output_d, output_e, output_f;
    split7: output_a, output_b, output_c, output_d, output_e, output_f, output_g;
    split8: output_a, output_b, output_c, output_d, output_e, output_f, output_g, output_h;
    split9: output_a, output_b, output_c, output_d, output_e, output_f, output_g, output_h,
        output_i;
    split10: output_a, output_b, output_c, output_d, output_e, output_f, output_g, output_h,
        output_i, output_j;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_rows_from_arena_and_flash() {
        // 2x3 along axis 1 into 2x1 and 2x2.
        let mut arena = [1u8, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0];
        let p = Split {
            outer: 2,
            chunk_bytes: &[1, 2],
        };
        split2(&mut arena, Src::Arena(0), 6, 8, &p);
        assert_eq!(&arena[6..], &[1, 4, 2, 3, 5, 6]);
        split2(&mut arena, Src::Bytes(&[9, 8, 7, 6, 5, 4]), 6, 8, &p);
        assert_eq!(&arena[6..], &[9, 6, 8, 7, 5, 4]);
    }

    #[test]
    fn splits_into_more_than_ten_outputs() {
        // UNPACK of a 3x12 int8 tensor along axis 1: 12 outputs of 3 bytes, each a column.
        let mut arena = [0u8; 36 + 12 * 3];
        for (i, b) in arena[..36].iter_mut().enumerate() {
            *b = i as u8;
        }
        let outputs: [usize; 12] = core::array::from_fn(|k| 36 + 3 * k);
        let p = Split {
            outer: 3,
            chunk_bytes: &[1; 12],
        };
        split(&mut arena, Src::Arena(0), &outputs, &p);
        for (k, &at) in outputs.iter().enumerate() {
            let column = [k as u8, 12 + k as u8, 24 + k as u8];
            assert_eq!(arena[at..at + 3], column, "output {k}");
        }
    }

    #[test]
    fn one_row_is_consecutive_ranges() {
        // Axis 0 of a 3x2 int16 tensor: the outputs are consecutive byte ranges.
        let mut arena = [0u8; 24];
        for (i, b) in arena[..12].iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        let p = Split {
            outer: 1,
            chunk_bytes: &[4, 8],
        };
        split2(&mut arena, Src::Arena(0), 12, 16, &p);
        assert_eq!(&arena[12..], &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    }
}

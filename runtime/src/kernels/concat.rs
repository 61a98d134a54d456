//! CONCATENATION and PACK (any element type; TFLM requires int8 inputs to share the output's
//! quantization, so no requantization happens here). CONCATENATION takes up to 10 inputs, TFLM's
//! limit; PACK any number, as TFLM.
//!
//! [`concat()`] takes the inputs as one variadic operand, a slice of `Src`; the code generator
//! calls it for PACK's more than 10 inputs. `concatN(arena, in_1, …, in_N, output, p)` for N in
//! 1..=10 take one operand per tensor and call it: the generated code of the models that need no
//! more keeps the form (and the measured size and speed) it had before the variadic form.

use super::nn_common::views;
use crate::kernels::Within;
use crate::Src;

/// Constants of a concatenation: the output is `outer` rows, each the inputs' chunks in order.
#[derive(Clone, Copy, Debug)]
pub struct Concat<'a> {
    /// Product of the dimensions before the axis.
    pub outer: usize,
    /// Bytes each input contributes to one row (its axis extent times the inner size times the
    /// element size), in input order.
    pub chunk_bytes: &'a [usize],
}

/// Concatenates `inputs`, any number of them (PACK of more than 10), into `output`: each input in
/// turn writes its chunk of every row of the output. An input that already lies where its
/// chunk goes (a slice of a one-row output, which the plan lets its producer write in place) is
/// not copied; otherwise the output must not overlap any input.
#[cfg_attr(target_os = "none", inline(never))]
pub fn concat(arena: &mut [u8], inputs: &[Src], output: usize, p: &Concat) {
    let p = super::opaque(p);
    ensure!(
        inputs.len() == p.chunk_bytes.len(),
        "one chunk size per input"
    );
    // Input by input, each input's chunks `row_bytes` apart in the output: the views are taken
    // once per input, and each chunk is a short copy (most chunks are a few bytes: a `memmove`
    // call each cost more than the copy).
    let row_bytes: usize = p.chunk_bytes.iter().sum();
    let total = p.outer * row_bytes;
    if total == 0 {
        return;
    }
    // The arena around the output: an input below it or above it is read from `low` or `high`,
    // one split for all of them.
    let (low, rest) = arena.cut_mut(output);
    let (dst, high) = rest.cut_mut(total);
    let mut col = 0;
    for (src, &n) in inputs.iter().zip(p.chunk_bytes) {
        let len = p.outer * n;
        let from: Option<&[u8]> = match *src {
            _ if n == 0 => None,
            Src::Bytes(bytes) => Some(bytes.at(..len)),
            Src::Arena(offset) if offset + len <= output => Some(low.at(offset..offset + len)),
            Src::Arena(offset) if offset >= output + total => {
                Some(high.at(offset - output - total..).at(..len))
            }
            // Inside the output: only where its chunk goes, in a one-row output (the plan lets
            // its producer write it in place); nothing to copy.
            Src::Arena(offset) => {
                ensure!(
                    p.outer == 1 && offset == output + col,
                    "kernel input and output overlap"
                );
                None
            }
        };
        if let Some(from) = from {
            rows(from, dst.at_mut(col..), n, row_bytes);
        }
        col += n;
    }
}

/// Copies `from`'s chunks of `n` bytes to the starts of `to`'s rows of `row_bytes` (each at least
/// `n` long: `to` starts at the chunk's column of the output's first row).
#[inline(always)]
fn rows(from: &[u8], to: &mut [u8], n: usize, row_bytes: usize) {
    views::copy_runs(to, row_bytes, from, n, (n, from.len() / n));
}

macro_rules! concat_n {
    ($($name:ident: $($input:ident),+;)+) => {$(
        #[doc = concat!("CONCATENATION of ", stringify!($($input),+), " into `output`; see [`concat()`].")]
        // One argument per input tensor is the calling convention; the arity is the point.
        #[allow(clippy::too_many_arguments)]
        pub fn $name(arena: &mut [u8], $($input: Src,)+ output: usize, p: &Concat) {
            concat(arena, &[$($input),+], output, p);
        }
    )+};
}

concat_n! {
    concat1: a;
    concat2: a, b;
    concat3: a, b, c;
    concat4: a, b, c, d;
    concat5: a, b, c, d, e;
    concat6: a, b, c, d, e, f;
    concat7: a, b, c, d, e, f, g;
    concat8: a, b, c, d, e, f, g, h;
    concat9: a, b, c, d, e, f, g, h, i;
    concat10: a, b, c, d, e, f, g, h, i, j;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concatenates_rows_from_arena_and_flash() {
        // a: 2x1, b (flash): 2x2 -> 2x3 along axis 1.
        let mut arena = [1u8, 2, 0, 0, 0, 0, 0, 0];
        let p = Concat {
            outer: 2,
            chunk_bytes: &[1, 2],
        };
        concat2(&mut arena, Src::Arena(0), Src::Bytes(&[5, 6, 7, 8]), 2, &p);
        assert_eq!(&arena[2..], &[1, 5, 6, 2, 7, 8]);
    }

    #[test]
    fn an_input_already_in_its_slice_stays() {
        // One row: a (2 bytes) already at the output's start, b (3 bytes) copied after it.
        let mut arena = [7u8, 8, 0, 0, 0, 1, 2, 3];
        let p = Concat {
            outer: 1,
            chunk_bytes: &[2, 3],
        };
        concat2(&mut arena, Src::Arena(0), Src::Arena(5), 0, &p);
        assert_eq!(&arena[..5], &[7, 8, 1, 2, 3]);
    }

    #[test]
    fn stacks_more_than_ten_inputs() {
        // PACK of 12 two-byte inputs (odd ones constant) along axis 1 of 2x12.
        let mut arena = [0u8; 12 + 24];
        for (i, b) in arena[..12].iter_mut().enumerate() {
            *b = 100 + i as u8;
        }
        let flash: [[u8; 2]; 12] = core::array::from_fn(|k| [k as u8, 50 + k as u8]);
        let inputs: [Src; 12] = core::array::from_fn(|k| {
            if k % 2 == 0 {
                Src::Arena(k)
            } else {
                Src::Bytes(&flash[k])
            }
        });
        let p = Concat {
            outer: 2,
            chunk_bytes: &[1; 12],
        };
        concat(&mut arena, &inputs, 12, &p);
        for k in 0..12 {
            let (first, second) = if k % 2 == 0 {
                (100 + k as u8, 101 + k as u8)
            } else {
                (k as u8, 50 + k as u8)
            };
            assert_eq!((arena[12 + k], arena[24 + k]), (first, second), "input {k}");
        }
    }
}

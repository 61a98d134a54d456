//! Byte views of a kernel's input and output in the arena, taken once per call so that the inner loops
//! index plain slices.

/// Splits `arena` into the `in_len` bytes at `input` (read) and the `out_len` bytes at `output`
/// (written). Panics if a range is outside the arena or the two ranges overlap: kernels that use this
/// read input after writing output, so their operands must be disjoint.
pub(crate) fn split(
    arena: &mut [u8],
    input: usize,
    in_len: usize,
    output: usize,
    out_len: usize,
) -> (&[u8], &mut [u8]) {
    let in_end = input + in_len;
    let out_end = output + out_len;
    assert!(
        in_len == 0 || out_len == 0 || in_end <= output || out_end <= input,
        "kernel input and output overlap"
    );
    if input < output {
        let (low, high) = arena.split_at_mut(output);
        (&low[input..in_end], &mut high[..out_len])
    } else {
        let (low, high) = arena.split_at_mut(input);
        (&high[..in_len], &mut low[output..out_end])
    }
}

/// Splits `arena` into `N` mutable views, one per `(offset, len)` range, in the order given.
/// Panics if a range is outside the arena or two non-empty ranges overlap: for kernels that read
/// and write several tensors (an operator's state among them) at once.
pub(crate) fn disjoint<const N: usize>(
    arena: &mut [u8],
    ranges: [(usize, usize); N],
) -> [&mut [u8]; N] {
    let mut order: [usize; N] = core::array::from_fn(|i| i);
    order.sort_unstable_by_key(|&i| ranges[i].0);
    let mut views: [&mut [u8]; N] = core::array::from_fn(|_| <&mut [u8]>::default());
    let (mut rest, mut base) = (arena, 0usize);
    for &i in &order {
        let (offset, len) = ranges[i];
        if len == 0 {
            continue;
        }
        assert!(offset >= base, "kernel operands overlap");
        let (_, tail) = core::mem::take(&mut rest).split_at_mut(offset - base);
        let (view, tail) = tail.split_at_mut(len);
        views[i] = view;
        rest = tail;
        base = offset + len;
    }
    views
}

/// Moves the `len` bytes at `input` to `output` (any overlap allowed) and returns them, for kernels
/// that then transform their data in place.
pub(crate) fn in_place(arena: &mut [u8], input: usize, output: usize, len: usize) -> &mut [u8] {
    if input != output {
        arena.copy_within(input..input + len, output);
    }
    &mut arena[output..output + len]
}

/// The little-endian `f32`s of `bytes` (whose length is a multiple of 4).
#[inline(always)]
pub(crate) fn f32s(bytes: &[u8]) -> impl Iterator<Item = f32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_gives_both_orders() {
        let mut arena = [0u8, 1, 2, 3, 4, 5];
        let (i, o) = split(&mut arena, 4, 2, 0, 3);
        assert_eq!(i, &[4, 5]);
        o[0] = 9;
        let (i, o) = split(&mut arena, 0, 2, 2, 2);
        assert_eq!(i, &[9, 1]);
        assert_eq!(o, &[2, 3]);
    }

    #[test]
    #[should_panic(expected = "overlap")]
    fn split_rejects_overlap() {
        let mut arena = [0u8; 8];
        let _ = split(&mut arena, 0, 4, 2, 4);
    }

    #[test]
    fn disjoint_views_keep_the_given_order() {
        let mut arena = [0u8, 1, 2, 3, 4, 5, 6];
        let [a, b, c] = disjoint(&mut arena, [(4, 2), (0, 1), (1, 0)]);
        assert_eq!((&*a, &*b, c.len()), (&[4u8, 5][..], &[0u8][..], 0));
        a[0] = 9;
        assert_eq!(arena[4], 9);
    }

    #[test]
    #[should_panic(expected = "overlap")]
    fn disjoint_rejects_overlap() {
        let mut arena = [0u8; 8];
        let _ = disjoint(&mut arena, [(0, 4), (3, 2)]);
    }

    #[test]
    fn in_place_moves_overlapping_data() {
        let mut arena = [1u8, 2, 3, 4, 0];
        assert_eq!(in_place(&mut arena, 0, 1, 4), &[1, 2, 3, 4]);
    }
}

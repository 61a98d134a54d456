//! SVDF's state step on ARMv7E-M (`cfg(tinyaot_dsp)`): one filter's state row shifted left by one
//! element in place, its new element stored last, and the time product over the shifted row, in
//! one pass of word loads and `smlad`s.

use core::cell::Cell;

use super::dot::{mac_word, packed_offset, word_i8};
use super::dsp::{smlad, sxtab16, sxtab16_ror8};

/// SVDF's state step for one filter with int16 state and time weights, on ARMv7E-M: shifts the
/// little-endian int16 `row` (`2 * w.len()` bytes, `w.len()` even and at least 2) left by one
/// element, puts `new` in its last element, and returns `Σ w * row` (wrapping) over the shifted
/// row. Word by word: each new word is the unaligned word one element further on (one `ldr`, which
/// ARMv7-M allows unaligned), stored in place (the words ahead are not yet written), one `smlad`
/// with its pair of weights; the last word takes `new` as its upper element.
#[cfg(tinyaot_dsp)]
#[inline(always)]
pub(crate) fn shift_dot_i16(row: &mut [u8], w: &[i16], new: u16) -> i32 {
    // SAFETY: i16 is two initialised bytes (any bit pattern a valid u8), so the weights' memory
    // is `2 * w.len()` valid bytes, borrowed as long as `w`.
    let bytes = unsafe { core::slice::from_raw_parts(w.as_ptr().cast::<u8>(), 2 * w.len()) };
    let last = |x: u32, ww: u32, acc: i32| {
        let x = x & 0xffff | u32::from(new) << 16;
        (x, smlad(ww, x, acc))
    };
    shift_dot_words(row, bytes, 2, |x, ww, acc| smlad(ww, x, acc), last)
}

/// [`shift_dot_i16`] for int8 state and time weights (`w.len()` a multiple of 4 and at least 4),
/// returning `Σ w * (row + offset)` (`offset` in [-127, 128]): a word of four elements at a time,
/// each new word the old word's upper three bytes and the next word's first, stored in place.
#[cfg(tinyaot_dsp)]
#[inline(always)]
pub(crate) fn shift_dot_s8(row: &mut [u8], w: &[i8], new: u8, offset: i32) -> i32 {
    let m = w.len();
    let (words, _) = row[..m].as_chunks_mut::<4>();
    let (quads, _) = w.as_chunks::<4>();
    let n = words.len().min(quads.len());
    let offsets = packed_offset(offset);
    let mac = |x: u32, w: &[i8; 4], acc: i32| {
        let (even, odd) = (sxtab16(offsets, x), sxtab16_ror8(offsets, x));
        mac_word(word_i8(w), even, odd, acc)
    };
    let (words, quads) = (&mut words[..n], &quads[..n]);
    let mut acc = 0i32;
    let mut current = u32::from_le_bytes(words[0]);
    let cells = Cell::from_mut(&mut *words).as_slice_of_cells();
    for (two, q) in cells.windows(2).zip(quads) {
        let next = u32::from_le_bytes(two[1].get());
        let x = current >> 8 | next << 24;
        two[0].set(x.to_le_bytes());
        acc = mac(x, q, acc);
        current = next;
    }
    let x = current >> 8 | u32::from(new) << 24;
    words[n - 1] = x.to_le_bytes();
    mac(x, &quads[n - 1], acc)
}

/// The shift of [`shift_dot_i16`] (`step` 2 bytes) over the row's `n = weights.len() / 4`
/// words (at least one; `row` has at least `4 n` bytes): for each word `k < n - 1`, the unaligned
/// word `step` bytes further on (one `ldr`, which ARMv7-M allows unaligned) is stored as word `k`
/// (the words ahead are not yet written) and passed to `mac(x, weight word k, acc)`; then the
/// last word's `4 - step` remaining bytes (in the low bytes, the rest garbage) go to
/// `last(x, weight word n - 1, acc)`, which merges the new element and returns the word to store
/// and the sum. One pointer walks the state and one the weights, so that the loop is six
/// instructions for the int16 state. (With int8 state, `step` 1, the compiler's loop was longer
/// than [`shift_dot_s8`]'s merged words: keyword_scrambled_8bit 106,680 instructions against
/// 104,120.)
#[cfg(tinyaot_dsp)]
#[inline(always)]
fn shift_dot_words(
    row: &mut [u8],
    weights: &[u8],
    step: usize,
    mac: impl Fn(u32, u32, i32) -> i32,
    last: impl FnOnce(u32, u32, i32) -> (u32, i32),
) -> i32 {
    assert!(step <= 4 && weights.len() >= 4);
    let n = weights.len() / 4;
    let row = &mut row[..4 * n];
    let (mut p, mut q) = (row.as_mut_ptr(), weights.as_ptr());
    let mut acc = 0i32;
    // SAFETY: `n >= 1`, so the end is within the row.
    let end = unsafe { p.add(4 * (n - 1)) };
    while p != end {
        // SAFETY: p = row + 4 k and q = weights + 4 k for the same k < n - 1: the read
        // `4 k + step .. 4 k + step + 4` (`step <= 4`) and the write `4 k .. 4 k + 4` lie within
        // the row's `4 n` bytes and the weight read within the weights' `4 n`; all unaligned
        // accesses, and the state read's bytes past `4 k + 4` belong to words not yet written.
        unsafe {
            let x = p.add(step).cast::<u32>().read_unaligned();
            p.cast::<u32>().write_unaligned(x);
            acc = mac(x, q.cast::<u32>().read_unaligned(), acc);
            p = p.add(4);
            q = q.add(4);
        }
    }
    let at = 4 * (n - 1);
    let (tail, ww) = (&mut row[at..at + 4], &weights[at..at + 4]);
    let x = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]) >> (8 * step);
    let (x, acc) = last(x, u32::from_le_bytes([ww[0], ww[1], ww[2], ww[3]]), acc);
    tail.copy_from_slice(&x.to_le_bytes());
    acc
}

/// [`shift_dot_i16`] over `rows` filters, each with its state row's first element as the new
/// one (the SVDF's features put it there, in the element the shift drops): the filters' state
/// rows (`memory` int16 each, `memory` even and at least 2) lie one after another in `st`, their
/// time weights likewise in `w`; each row's time product goes to `each`, filter after filter.
/// One pointer walks the state and one the weights through every row, so that a filter costs its
/// words and a few instructions more.
#[cfg(tinyaot_dsp)]
#[inline(always)]
pub(crate) fn shift_dot_rows_i16(
    st: &mut [u8],
    w: &[i16],
    (memory, rows): (usize, usize),
    mut each: impl FnMut(i32),
) {
    assert!(
        memory >= 2
            && memory.is_multiple_of(2)
            && st.len() / 2 / memory >= rows
            && w.len() / memory >= rows,
        "SVDF state rows not whole words"
    );
    let n = memory / 2;
    let (mut p, mut q) = (st.as_mut_ptr(), w.as_ptr().cast::<u8>());
    for _ in 0..rows {
        // SAFETY: p and q point at the start of the current row's state and weights, the rows'
        // `4 n` bytes each lying within `st` and `w` (asserted: `rows` rows of `2 memory = 4 n`
        // bytes fit in each). Each access is a word (unaligned: `ldr`/`str` allow it) or the
        // first element of the row: word k < n - 1 is written with the word 2 bytes further on,
        // whose bytes past 4 k + 4 belong to words not yet written; the last word merges the
        // row's last element with the first, read before word 0 was written. Both pointers end
        // the row at the next row's start, at most one past their slices.
        unsafe {
            let new = u32::from(p.cast::<u16>().read_unaligned());
            let end = p.add(4 * (n - 1));
            let mut acc = 0i32;
            while p != end {
                let x = p.add(2).cast::<u32>().read_unaligned();
                p.cast::<u32>().write_unaligned(x);
                acc = smlad(q.cast::<u32>().read_unaligned(), x, acc);
                p = p.add(4);
                q = q.add(4);
            }
            let x = p.cast::<u32>().read_unaligned() >> 16 | new << 16;
            p.cast::<u32>().write_unaligned(x);
            acc = smlad(q.cast::<u32>().read_unaligned(), x, acc);
            p = p.add(4);
            q = q.add(4);
            each(acc);
        }
    }
}

/// [`shift_dot_rows_i16`] for int8 state and time weights (`memory` a multiple of 4, at least
/// 4), each product `w * (s + offset)` (`offset` in [-127, 128]), as [`shift_dot_s8`].
#[cfg(tinyaot_dsp)]
#[inline(always)]
pub(crate) fn shift_dot_rows_s8(
    st: &mut [u8],
    w: &[i8],
    (memory, rows): (usize, usize),
    offset: i32,
    mut each: impl FnMut(i32),
) {
    assert!(
        memory >= 4
            && memory.is_multiple_of(4)
            && st.len() / memory >= rows
            && w.len() / memory >= rows,
        "SVDF state rows not whole words"
    );
    let n = memory / 4;
    let offsets = packed_offset(offset);
    let mac = |x: u32, ww: u32, acc: i32| {
        mac_word(ww, sxtab16(offsets, x), sxtab16_ror8(offsets, x), acc)
    };
    let (mut p, mut q) = (st.as_mut_ptr(), w.as_ptr().cast::<u8>());
    for _ in 0..rows {
        // SAFETY: as shift_dot_rows_i16's, with rows of `memory = 4 n` bytes and the word
        // 1 byte further on.
        unsafe {
            let new = u32::from(*p);
            let end = p.add(4 * (n - 1));
            let mut acc = 0i32;
            while p != end {
                let x = p.add(1).cast::<u32>().read_unaligned();
                p.cast::<u32>().write_unaligned(x);
                acc = mac(x, q.cast::<u32>().read_unaligned(), acc);
                p = p.add(4);
                q = q.add(4);
            }
            let x = p.cast::<u32>().read_unaligned() >> 8 | new << 24;
            p.cast::<u32>().write_unaligned(x);
            acc = mac(x, q.cast::<u32>().read_unaligned(), acc);
            p = p.add(4);
            q = q.add(4);
            each(acc);
        }
    }
}

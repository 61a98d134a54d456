//! SELECT_V2 (FLOAT32, INT8, INT16: elements moved unread, as TFLM's `select.cc` copies them):
//! each output element is x's where the BOOL condition holds, else y's, the three inputs
//! broadcast against the output.
//!
//! Generation time reduces the broadcast to a collapsed output shape with per-input element
//! strides (0 along a broadcast dimension), as the binary element-wise kernels' broadcast.

use super::elem::{next_index, Elem};
use super::MAX_RANK;
use crate::kernels::Within;
use crate::Src;

/// Constants of a select, computed at generation time.
#[derive(Clone, Copy, Debug)]
pub struct Select<'a> {
    /// Bytes per element of x, y and the output: 1, 2 or 4.
    pub elem_bytes: usize,
    /// The collapsed output shape.
    pub shape: &'a [usize],
    /// Element strides of the condition along `shape` (0 where it broadcasts).
    pub condition_strides: &'a [usize],
    /// Element strides of x along `shape`.
    pub x_strides: &'a [usize],
    /// Element strides of y along `shape`.
    pub y_strides: &'a [usize],
}

/// `output[i] = condition[ic] ? x[ix] : y[iy]` over `p.shape` in C order. The output must not
/// overlap the inputs.
#[cfg_attr(target_os = "none", inline(never))]
pub fn select(arena: &mut [u8], condition: Src, x: Src, y: Src, output: usize, p: &Select) {
    let p = super::opaque(p);
    match p.elem_bytes {
        1 => walk::<u8>(arena, (condition, x, y, output), p),
        2 => walk::<i16>(arena, (condition, x, y, output), p),
        _ => walk::<i32>(arena, (condition, x, y, output), p),
    }
}

/// The select loop for elements of type `T`: rows along the last dimension, the bases of the
/// three inputs computed once per row. Each input is resolved to its bytes once per call (the
/// arena split around the output, which no input overlaps), not matched per element: three
/// `Src` matches and their range checks per element took select_v2's SELECT_V2 to 1.3 to 1.5
/// times TFLM's reference kernel on the Cortex-M4. The inputs' ranges are checked once per call
/// too (one past the last element each is read at), not per element.
#[inline(always)]
fn walk<T: Elem>(arena: &mut [u8], (c, x, y, output): (Src, Src, Src, usize), p: &Select) {
    let rank = p.shape.len();
    assert!(
        rank <= MAX_RANK
            && p.condition_strides.len() == rank
            && p.x_strides.len() == rank
            && p.y_strides.len() == rank
    );
    if p.shape.contains(&0) {
        return;
    }
    let out_len = p.shape.iter().product::<usize>() * T::SIZE;
    let (low, rest) = arena.cut_mut(output);
    let (out, high) = rest.cut_mut(out_len);
    let (low, high): (&[u8], &[u8]) = (low, high);
    let bytes = |src| resolve(src, low, high, output + out_len);
    let (cs, xs, ys) = (bytes(c), bytes(x), bytes(y));
    // One past the last element an input is read at, and whether its bytes hold that many.
    let fits = |strides: &[usize], bytes: &[u8], size: usize| {
        let mut last = 1usize;
        for (&n, &stride) in p.shape.iter().zip(strides) {
            super::keep_rolled();
            let Some(l) = (n - 1)
                .checked_mul(stride)
                .and_then(|t| last.checked_add(t))
            else {
                return false;
            };
            last = l;
        }
        last.checked_mul(size).is_some_and(|end| end <= bytes.len())
    };
    ensure!(
        fits(p.condition_strides, cs, 1)
            && fits(p.x_strides, xs, T::SIZE)
            && fits(p.y_strides, ys, T::SIZE),
        "select input too short"
    );
    let (inner, step) = match rank {
        0 => (1, (0, 0, 0)),
        _ => (
            p.shape[rank - 1],
            (
                p.condition_strides[rank - 1],
                p.x_strides[rank - 1],
                p.y_strides[rank - 1],
            ),
        ),
    };
    let outer = p.shape.at(..rank.saturating_sub(1));
    let mut index = [0usize; MAX_RANK];
    let mut rows = out.chunks_exact_mut(inner * T::SIZE);
    loop {
        let base = |strides: &[usize]| -> usize {
            index[..outer.len()]
                .iter()
                .zip(strides)
                .map(|(&i, &s)| i * s)
                .sum()
        };
        let (mut ic, mut ix, mut iy) = (
            base(p.condition_strides),
            base(p.x_strides),
            base(p.y_strides),
        );
        let Some(row) = rows.next() else { return };
        for o in row.chunks_exact_mut(T::SIZE) {
            // Rolled: unrolled, the three element types' loops were 5 KB of Cortex-M4 code.
            super::keep_rolled();
            // SAFETY: `ic`, `ix` and `iy` are the element indices of an output position, each
            // below its input's `last` checked by `fits` above (`cs` holds `last` bytes, `xs`
            // and `ys` `last` elements of `T::SIZE`).
            let v = unsafe {
                if *cs.as_ptr().add(ic) != 0 {
                    T::read_at(xs.as_ptr(), ix)
                } else {
                    T::read_at(ys.as_ptr(), iy)
                }
            };
            v.write(o);
            ic += step.0;
            ix += step.1;
            iy += step.2;
        }
        if !next_index(index.at_mut(..outer.len()), outer) {
            return;
        }
    }
}

/// The bytes of an input from `low`, the arena below the output, or `high`, the arena from
/// `high_start` (the output's end) on: an input below the output ends before it, one above starts
/// after it (an overlap panics, as the views of the other kernels do).
#[inline(always)]
fn resolve<'a>(src: Src<'a>, low: &'a [u8], high: &'a [u8], high_start: usize) -> &'a [u8] {
    match src {
        Src::Bytes(b) => b,
        Src::Arena(o) if o < low.len() => low.at(o..),
        Src::Arena(o) => high.at(o - high_start..),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_with_broadcast_condition_and_scalar_y() {
        // condition [2, 1] = [1, 0], x [2, 3] bytes, y a scalar 9: output [2, 3].
        let x = [1u8, 2, 3, 4, 5, 6];
        let mut arena = [0u8; 8];
        let p = Select {
            elem_bytes: 1,
            shape: &[2, 3],
            condition_strides: &[1, 0],
            x_strides: &[3, 1],
            y_strides: &[0, 0],
        };
        select(
            &mut arena,
            Src::Bytes(&[1, 0]),
            Src::Bytes(&x),
            Src::Bytes(&[9]),
            2,
            &p,
        );
        assert_eq!(arena, [0, 0, 1, 2, 3, 9, 9, 9]);
    }

    #[test]
    fn selects_words_of_a_scalar_shape() {
        let mut arena = [0u8; 12];
        arena[..4].copy_from_slice(&7i32.to_le_bytes());
        let p = Select {
            elem_bytes: 4,
            shape: &[],
            condition_strides: &[],
            x_strides: &[],
            y_strides: &[],
        };
        select(
            &mut arena,
            Src::Bytes(&[0]),
            Src::Bytes(&[1, 0, 0, 0]),
            Src::Arena(0),
            8,
            &p,
        );
        assert_eq!(&arena[8..], &7i32.to_le_bytes());
    }
}

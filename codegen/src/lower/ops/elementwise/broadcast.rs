//! The broadcast of a binary operator, reduced to a collapsed output shape and per-input element
//! strides, refused where TFLM refuses it.

use crate::error::Grounds;
use crate::lower::params::MAX_RANK;
use crate::lower::OpContext;

/// A broadcast reduced to a collapsed output shape and per-input element strides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(in crate::lower::ops) struct Broadcast {
    /// Collapsed output shape.
    pub(in crate::lower::ops) shape: Vec<usize>,
    /// Element strides of input 1 (0 where it broadcasts).
    pub(in crate::lower::ops) a_strides: Vec<usize>,
    /// Element strides of input 2 (0 where it broadcasts).
    pub(in crate::lower::ops) b_strides: Vec<usize>,
}

/// Why two input shapes and an output shape are not a broadcast, by the ground of the refusal.
#[derive(Debug)]
pub(in crate::lower::ops) enum BroadcastError {
    /// Inputs that do not broadcast, or an output larger than their broadcast: TFLM's kernels
    /// check neither but with `TFLITE_DCHECK`, and read the inputs out of bounds or leave output
    /// elements unwritten.
    Undefined(String),
    /// An output smaller than the inputs' broadcast: TFLM computes part of it; the TFLite
    /// operator's definition gives the output the broadcast shape.
    Specification(String),
    /// An output of the broadcast's size but another shape, which [`broadcast_as`] walks as the
    /// operator's TFLM kernel does: never a refusal of its own.
    SameSize(String),
    /// More dimensions than TFLM's `RuntimeShape` holds (the loader refuses them first).
    Rank(String),
}

impl BroadcastError {
    /// The error of operator `ctx` for this reason.
    pub(in crate::lower::ops) fn into_error(self, ctx: &OpContext) -> crate::error::Error {
        match self {
            BroadcastError::Undefined(why) => ctx.invalid(
                why,
                Grounds::undefined(crate::lower::SHAPES_CHECKED_ONLY_BY_DCHECK),
            ),
            BroadcastError::Specification(why) => ctx.invalid(
                why,
                Grounds::spec(
                    "a broadcasting operator's output has its inputs' broadcast shape (TFLite's \
                     kernels compute it in Prepare; a model that states another is one no \
                     converter writes)",
                ),
            ),
            BroadcastError::SameSize(why) => {
                ctx.internal(format!("{why}: not walked as TFLM's kernel walks it"))
            }
            BroadcastError::Rank(why) => ctx.invalid(
                why,
                Grounds::undefined(crate::lower::MORE_THAN_SIX_DIMENSIONS),
            ),
        }
    }
}

/// How TFLM's kernel of an operator walks an output that is not the inputs' broadcast (the
/// kernel takes its loops from the output's shape, checking it against the inputs' only with
/// `TFLITE_DCHECK`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::lower::ops) enum OtherShape {
    /// Element by element over the flat buffers when the inputs' shapes are equal (`extended`:
    /// once extended to one rank, as `ProcessBroadcastShapes` compares them; otherwise exactly,
    /// `HaveSameShapes`), and otherwise `BroadcastBinaryOpSimple` (broadcast_loop.h) over the
    /// output's shape ([`simple_walk`]), whether the inputs broadcast or not.
    FlatOrSimple {
        /// Whether the inputs' shapes are compared once extended to one rank.
        extended: bool,
    },
    /// Always `BroadcastBinaryOpSimple` over the output's shape, whatever the inputs' shapes
    /// (the int8 and int16 PRELU's `BroadcastPrelu4DSlow`).
    Simple,
    /// Always loops over the output's shape extended to 4 dimensions, each input read at
    /// `NdArrayDescsForElementwiseBroadcast`'s strides (the float PRELU's
    /// `BroadcastPrelu4DSlowFloat`): [`desc4_walk`].
    Desc4,
}

/// [`broadcast`], with an output that is not the inputs' broadcast walked as TFLM's kernel walks
/// it (`other`). An output smaller than the broadcast stays refused (the operator's definition
/// forbids it), as does one of another size than inputs of equal shapes (TFLM's flat loop checks
/// the sizes with `TFLITE_CHECK`, or runs over the first input's).
pub(in crate::lower::ops) fn broadcast_as(
    a: &[usize],
    b: &[usize],
    out: &[usize],
    other: OtherShape,
) -> std::result::Result<Broadcast, BroadcastError> {
    let result = broadcast(a, b, out);
    let read_past = |why: String| {
        BroadcastError::Undefined(format!(
            "{why}, and TFLM's loops over the output's shape read an input past its end"
        ))
    };
    let extended = match other {
        OtherShape::FlatOrSimple { extended } => extended,
        OtherShape::Simple | OtherShape::Desc4 => {
            return match result {
                Err(BroadcastError::SameSize(why) | BroadcastError::Undefined(why)) => {
                    if other == OtherShape::Simple {
                        simple_walk(a, b, out).ok_or_else(|| read_past(why))
                    } else if a.len().max(b.len()).max(out.len()) <= 4 {
                        desc4_walk(a, b, out).ok_or_else(|| read_past(why))
                    } else {
                        // RuntimeShape::ExtendedShape(4, ...) aborts (TFLITE_CHECK) first.
                        Err(BroadcastError::Undefined(why))
                    }
                }
                result => result,
            };
        }
    };
    let rank = a.len().max(b.len());
    let ext = |s: &[usize]| {
        let mut e = vec![1; rank - s.len()];
        e.extend_from_slice(s);
        e
    };
    let same = if extended { ext(a) == ext(b) } else { a == b };
    match result {
        Err(BroadcastError::SameSize(_)) if same => {
            let n = out.iter().product();
            Ok(Broadcast {
                shape: vec![n],
                a_strides: vec![1],
                b_strides: vec![1],
            })
        }
        Err(BroadcastError::SameSize(why) | BroadcastError::Undefined(why)) if !same => {
            simple_walk(a, b, out).ok_or_else(|| read_past(why))
        }
        result => result,
    }
}

/// The loops of TFLM's `BroadcastBinaryOpSimple` (broadcast_loop.h) over `out`, as the runtime's
/// walk: the shapes extended to one rank; per dimension, from the innermost, each input's stride
/// its elements so far, 0 where it has one element and the output more; a dimension fused into
/// the previous loop where `CanFuseLoops` lets it; `RunBinaryOp`'s innermost loop reading the
/// second input with stride 1 when the first's is 0, whatever its own. `None` where an input is
/// read past its end, or where an empty dimension leaves the output unwritten.
fn simple_walk(a: &[usize], b: &[usize], out: &[usize]) -> Option<Broadcast> {
    let rank = a.len().max(b.len()).max(out.len());
    let ext = |s: &[usize]| {
        let mut e = vec![1; rank - s.len()];
        e.extend_from_slice(s);
        e
    };
    let (ea, eb, eo) = (ext(a), ext(b), ext(out));
    // TFLM's loops, innermost first: (output extent, a stride, b stride, output stride).
    let mut loops: Vec<(usize, usize, usize, usize)> = Vec::new();
    let (mut acc_a, mut acc_b, mut acc_o) = (1usize, 1usize, 1usize);
    let fuses = |out_dim: usize, stride: usize, expected: usize, next: usize| {
        out_dim == 1
            || if next == 0 {
                stride == 0
            } else {
                stride == expected
            }
    };
    for d in (0..rank).rev() {
        let (da, db, dout) = (ea[d], eb[d], eo[d]);
        if da == 0 || db == 0 || dout == 0 {
            // TFLM returns: nothing is written (only an empty output survives that).
            return (eo.iter().product::<usize>() == 0).then(|| Broadcast {
                shape: vec![0],
                a_strides: vec![1],
                b_strides: vec![1],
            });
        }
        let sa = if da == 1 && dout != 1 { 0 } else { acc_a };
        let sb = if db == 1 && dout != 1 { 0 } else { acc_b };
        match loops.last_mut() {
            Some(last)
                if fuses(dout, sa, acc_a, last.1)
                    && fuses(dout, sb, acc_b, last.2)
                    && fuses(dout, acc_o, acc_o, last.3) =>
            {
                last.0 *= dout;
            }
            _ => loops.push((dout, sa, sb, acc_o)),
        }
        acc_a *= da;
        acc_b *= db;
        acc_o *= dout;
    }
    if loops.is_empty() {
        loops.push((1, 0, 0, 1));
    }
    if loops[0].1 == 0 {
        // RunBinaryOp's innermost loop: with a's stride 0 it reads b[i].
        loops[0].2 = 1;
    }
    let read = |stride: fn(&(usize, usize, usize, usize)) -> usize| {
        loops.iter().map(|l| (l.0 - 1) * stride(l)).sum::<usize>()
    };
    let (na, nb) = (a.iter().product::<usize>(), b.iter().product::<usize>());
    if read(|l| l.1) >= na || read(|l| l.2) >= nb {
        return None;
    }
    Some(Broadcast {
        shape: loops.iter().rev().map(|l| l.0).collect(),
        a_strides: loops.iter().rev().map(|l| l.1).collect(),
        b_strides: loops.iter().rev().map(|l| l.2).collect(),
    })
}

/// The loops of TFLM's 4-dimensional slow broadcasts (`NdArrayDescsForElementwiseBroadcast`,
/// then `b, y, x, c` over the output's shape extended to 4 dimensions): each input read at its
/// own strides, 0 along a dimension where its extent differs from the other's and is 1 (else
/// the other's stride is 0, as the desc sets it whether or not that one is 1). `None` where an
/// input is read past its end, or where an empty dimension leaves the output unwritten.
fn desc4_walk(a: &[usize], b: &[usize], out: &[usize]) -> Option<Broadcast> {
    let ext = |s: &[usize]| {
        let mut e = vec![1; 4 - s.len()];
        e.extend_from_slice(s);
        e
    };
    let (ea, eb, eo) = (ext(a), ext(b), ext(out));
    if eo.contains(&0) {
        return None;
    }
    let strides =
        |e: &[usize]| -> Vec<usize> { (0..4).map(|d| e[d + 1..].iter().product()).collect() };
    let (mut sa, mut sb) = (strides(&ea), strides(&eb));
    for d in 0..4 {
        if ea[d] != eb[d] {
            if ea[d] == 1 {
                sa[d] = 0;
            } else {
                sb[d] = 0;
            }
        }
    }
    let read = |s: &[usize]| (0..4).map(|d| (eo[d] - 1) * s[d]).sum::<usize>();
    let (na, nb) = (a.iter().product::<usize>(), b.iter().product::<usize>());
    if read(&sa) >= na || read(&sb) >= nb {
        return None;
    }
    Some(Broadcast {
        shape: eo,
        a_strides: sa,
        b_strides: sb,
    })
}

/// NumPy-style broadcast of `a` and `b` (aligned at their last dimensions), checked against
/// `out`, with adjacent dimensions that broadcast alike merged. `Err` carries the reason.
pub(in crate::lower::ops) fn broadcast(
    a: &[usize],
    b: &[usize],
    out: &[usize],
) -> std::result::Result<Broadcast, BroadcastError> {
    let rank = a.len().max(b.len());
    if rank > MAX_RANK {
        return Err(BroadcastError::Rank(format!(
            "inputs of rank {rank}; at most {MAX_RANK} dimensions are supported"
        )));
    }
    let ext = |s: &[usize]| {
        let mut e = vec![1; rank - s.len()];
        e.extend_from_slice(s);
        e
    };
    let (a, b) = (ext(a), ext(b));
    let mut full = Vec::with_capacity(rank);
    for d in 0..rank {
        let o = match (a[d], b[d]) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            (x, y) => {
                return Err(BroadcastError::Undefined(format!(
                    "input shapes {a:?} and {b:?} do not broadcast (dimension {d}: {x} vs {y})"
                )))
            }
        };
        full.push(o);
    }
    if full.as_slice() != out {
        let why = format!("output shape {out:?} is not the broadcast shape {full:?} of the inputs");
        let (out_len, full_len) = (out.iter().product::<usize>(), full.iter().product());
        return Err(match out_len.cmp(&full_len) {
            std::cmp::Ordering::Greater => BroadcastError::Undefined(why),
            std::cmp::Ordering::Less => BroadcastError::Specification(why),
            std::cmp::Ordering::Equal => BroadcastError::SameSize(why),
        });
    }
    // Merge runs of dimensions in which each input is either present or broadcast throughout.
    let mut dims: Vec<(usize, bool, bool)> = Vec::new();
    for d in 0..rank {
        if full[d] == 1 {
            continue;
        }
        let (has_a, has_b) = (a[d] != 1, b[d] != 1);
        match dims.last_mut() {
            Some(last) if last.1 == has_a && last.2 == has_b => last.0 *= full[d],
            _ => dims.push((full[d], has_a, has_b)),
        }
    }
    if dims.is_empty() {
        dims.push((1, false, false));
    }
    let n = dims.len();
    let (mut a_strides, mut b_strides) = (vec![0; n], vec![0; n]);
    let (mut sa, mut sb) = (1, 1);
    for i in (0..n).rev() {
        let (size, has_a, has_b) = dims[i];
        if has_a {
            a_strides[i] = sa;
            sa *= size;
        }
        if has_b {
            b_strides[i] = sb;
            sb *= size;
        }
    }
    Ok(Broadcast {
        shape: dims.iter().map(|d| d.0).collect(),
        a_strides,
        b_strides,
    })
}

#[cfg(test)]
mod tests {
    use super::{broadcast_as, Broadcast, BroadcastError, OtherShape};

    const SIMPLE: OtherShape = OtherShape::FlatOrSimple { extended: false };

    fn walk(shape: &[usize], a: &[usize], b: &[usize]) -> Broadcast {
        Broadcast {
            shape: shape.to_vec(),
            a_strides: a.to_vec(),
            b_strides: b.to_vec(),
        }
    }

    #[test]
    fn outputs_of_another_shape_walk_as_tflm_does() {
        // Equal inputs: flat; equal once extended, flat only where TFLM extends them.
        assert_eq!(
            broadcast_as(&[2, 3], &[2, 3], &[3, 2], SIMPLE).unwrap(),
            walk(&[6], &[1], &[1])
        );
        let extended = OtherShape::FlatOrSimple { extended: true };
        assert_eq!(
            broadcast_as(&[1, 2, 3], &[2, 3], &[3, 2], extended).unwrap(),
            walk(&[6], &[1], &[1])
        );
        // BroadcastBinaryOpSimple over [1, 2, 3] of two [1, 2, 3]: one fused loop.
        assert_eq!(
            broadcast_as(&[1, 2, 3], &[2, 3], &[3, 2], SIMPLE).unwrap(),
            walk(&[6], &[1], &[1])
        );
        // [2, 3] + [1, 3] into [2, 1, 3]: the first row of each, twice.
        assert_eq!(
            broadcast_as(&[2, 3], &[1, 3], &[2, 1, 3], SIMPLE).unwrap(),
            walk(&[2, 3], &[0, 1], &[0, 1])
        );
        // Into [3, 2]: rows of 2 at 0, 3 and 6 of a 6-element input.
        assert!(matches!(
            broadcast_as(&[2, 3], &[1, 3], &[3, 2], SIMPLE),
            Err(BroadcastError::Undefined(_))
        ));
        // Inputs that do not broadcast, read in part; an output larger than the broadcast,
        // which TFLM's loops fill with it twice; but inputs of equal shapes into a larger output
        // stay refused.
        assert_eq!(
            broadcast_as(&[3], &[2], &[2], SIMPLE).unwrap(),
            walk(&[2], &[1], &[1])
        );
        assert_eq!(
            broadcast_as(&[2, 3], &[1, 3], &[2, 2, 3], extended).unwrap(),
            walk(&[2, 2, 3], &[0, 3, 1], &[0, 0, 1])
        );
        assert!(matches!(
            broadcast_as(&[1, 4], &[1, 4], &[2, 4], SIMPLE),
            Err(BroadcastError::Undefined(_))
        ));
        // PRELU's loops: int8 over the output's shape whatever the inputs' (two [2, 3] into
        // [2, 1, 3]: the first row twice), float with 4-dimensional NdArrayDesc strides.
        assert_eq!(
            broadcast_as(&[2, 3], &[2, 3], &[2, 1, 3], OtherShape::Simple).unwrap(),
            walk(&[2, 3], &[0, 1], &[0, 1])
        );
        assert_eq!(
            broadcast_as(&[3, 2], &[3, 1], &[2, 3], OtherShape::Desc4).unwrap(),
            walk(&[1, 1, 2, 3], &[6, 6, 2, 1], &[3, 3, 1, 0])
        );
    }
}

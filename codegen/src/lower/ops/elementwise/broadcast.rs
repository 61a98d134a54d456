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
    /// What tinyaot does not compile (a rank above its kernels').
    Unsupported(String),
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
            BroadcastError::Unsupported(why) => ctx.unsupported(why),
            BroadcastError::Rank(why) => ctx.invalid(
                why,
                Grounds::undefined(crate::lower::MORE_THAN_SIX_DIMENSIONS),
            ),
        }
    }
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
            std::cmp::Ordering::Equal => BroadcastError::Unsupported(why),
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

//! Emission: the plan and the lowered calls, rendered as source. The backends share [`Layout`] and
//! differ only in syntax. They render the code into [`Source`]s whose constant data is encoded only
//! as it is written, and [`files`] writes them whole or not at all.

pub mod c;
mod c_data;
mod c_decl;
pub mod c_dir;
mod c_params;
pub mod files;
pub mod rust;
mod source;

pub use source::Source;

use crate::error::{Error, Result};
use crate::ir::{DType, Graph, Tensor};

/// Where a non-constant tensor lives at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// In the activation arena, at this byte offset.
    Arena(usize),
    /// In the state region of variable tensors, at this byte offset.
    State(usize),
}

/// The run-time placement of every tensor: what the emitters need of the memory plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Bytes of the activation arena.
    pub arena_bytes: usize,
    /// Bytes of the state region (variable tensors).
    pub state_bytes: usize,
    /// Per tensor index: its region, or `None` for constants and tensors nothing uses.
    pub regions: Vec<Option<Region>>,
}

impl Layout {
    /// The arena offset of tensor `t`, or an internal error if it is not in the arena.
    pub fn arena_offset(&self, t: usize) -> Result<usize> {
        match self.regions.get(t).copied().flatten() {
            Some(Region::Arena(offset)) => Ok(offset),
            other => Err(Error::Internal {
                detail: format!("tensor {t} was expected in the arena but is {other:?}"),
            }),
        }
    }
}

/// What a graph input or output is, for typed accessors and quantization constants.
pub(crate) struct IoTensor<'g, 'm> {
    /// Tensor index.
    pub index: usize,
    /// The tensor.
    pub tensor: &'g Tensor<'m>,
}

/// The graph inputs, then the graph outputs.
pub(crate) fn io_tensors<'g, 'm>(
    graph: &'g Graph<'m>,
) -> (Vec<IoTensor<'g, 'm>>, Vec<IoTensor<'g, 'm>>) {
    let io = |list: &[usize]| {
        list.iter()
            .map(|&index| IoTensor {
                index,
                tensor: &graph.tensors[index],
            })
            .collect()
    };
    (io(&graph.inputs), io(&graph.outputs))
}

/// Total bytes of the constant tensors `constants` (what goes to flash as weights).
pub fn constant_bytes<'a>(graph: &Graph, constants: impl IntoIterator<Item = &'a usize>) -> usize {
    constants.into_iter().map(|&t| graph.tensors[t].bytes).sum()
}

/// The element type name of `dtype` in Rust, when generated code exposes it typed.
pub(crate) fn rust_element(dtype: DType) -> Option<&'static str> {
    match dtype {
        DType::I8 => Some("i8"),
        DType::U8 => Some("u8"),
        DType::I16 => Some("i16"),
        DType::I32 => Some("i32"),
        DType::F32 => Some("f32"),
        _ => None,
    }
}

impl Layout {
    /// The layout of a memory plan.
    pub fn from_plan(plan: &crate::plan::MemoryPlan) -> Layout {
        let regions = plan
            .tensors
            .iter()
            .map(|p| match p.region {
                crate::plan::Region::Arena => Some(Region::Arena(p.offset)),
                crate::plan::Region::State => Some(Region::State(p.offset)),
                _ => None,
            })
            .collect();
        Layout {
            arena_bytes: plan.arena_bytes,
            state_bytes: plan.state_bytes,
            regions,
        }
    }
}

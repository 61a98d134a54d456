//! Human- and machine-readable views of a [`MemoryPlan`](crate::plan::MemoryPlan): a text table, JSON and an SVG drawing.
//! Each is a pure function returning a `String`; writing files is the caller's business.
//!
//! All three list the tensors that take RAM (arena and state regions), in tensor index order, and
//! speak of operators rather than steps: `first_op` is the index of the operator that creates the
//! tensor, or -1 when it exists before the first operator runs (graph inputs, state tensors);
//! `last_op` is the index of the last operator that needs it (for graph outputs and state tensors,
//! the last operator of the graph: they must survive the whole invocation), or -1 when no operator
//! does (a graph input nothing reads). Operator numbers are positions in execution order; when
//! the operators run in another order than the file's, both the text and the JSON list the file
//! index of each position (`order`).

mod facts;
pub(crate) mod json;
mod svg;
mod text;

pub use facts::{thousands, OFFLINE_PLAN_IGNORED};
pub use json::json;
pub use svg::svg;
pub use text::text;

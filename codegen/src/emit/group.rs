//! Several models in one buffer, for models that run one after another (a wake-word detector, then
//! the command recogniser it wakes): the layout both backends emit a group with.
//!
//! The group's buffer is, in order:
//!
//! - the shared arena: as large as the largest of the models' arenas (16-byte aligned). Every
//!   model's activations live there at the offsets of its own plan, so invoking one model
//!   overwrites what the others left there, their inputs and outputs included;
//! - then, model by model, its state (variable tensors, at its own place: no other model ever
//!   touches it) and the inputs and outputs it keeps (declared to survive the other models'
//!   invokes), each 16-byte aligned.
//!
//! A kept tensor is moved out of the shared arena after planning. That is always sound: it then
//! overlaps nothing, and every access to it goes through the layout. A reshape that shared its
//! storage now copies it instead (the emitters copy whenever an alias's two tensors sit apart).

use super::{Layout, Location};
use crate::error::{Error, Result};
use crate::ir::Graph;
use crate::limits::Limits;
use crate::plan::ALIGN;

/// A model's place in its group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// The model's layout in the group's buffer: its arena tensors in the shared arena at their
    /// planned offsets, its state at [`Layout::state_base`], its kept tensors after it.
    pub layout: Layout,
    /// Where its kept inputs and outputs start in the group's buffer.
    pub kept_base: usize,
    /// Bytes of its kept inputs and outputs (each 16-byte aligned).
    pub kept_bytes: usize,
    /// The tensors it keeps, with their offsets in the group's buffer, in the order declared.
    pub kept: Vec<(usize, usize)>,
}

/// The layout of a group: the shared arena, then each model's own memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupLayout {
    /// Bytes of the shared arena: the largest of the models' arenas, 16-byte aligned.
    pub shared_bytes: usize,
    /// Bytes of the whole buffer: the shared arena, then every model's state and kept tensors.
    pub memory_bytes: usize,
    /// The models, in the order given.
    pub members: Vec<Member>,
}

/// Lays out a group of models, each given with its own layout and the graph tensors it keeps with
/// their sizes (from [`kept_tensors`]).
pub fn layout(models: Vec<(Layout, Vec<(usize, usize)>)>, limits: &Limits) -> Result<GroupLayout> {
    // The models share one arena and run one after another; memory regions of their own would
    // be a second sharing scheme, which neither backend's group code lays out.
    if models
        .iter()
        .any(|(layout, _)| !layout.memory_regions.is_empty())
    {
        return Err(Error::Config {
            detail: "memory regions apply to one model, not to a group of models sharing an \
                     arena"
                .to_string(),
        });
    }
    let overflow = || Error::Overflow {
        context: "the group's buffer".to_string(),
    };
    let align = |n: usize| n.checked_next_multiple_of(ALIGN).ok_or_else(overflow);
    let shared_bytes = align(models.iter().map(|(l, _)| l.arena_bytes).max().unwrap_or(0))?;
    let mut cursor = shared_bytes;
    let mut members = Vec::with_capacity(models.len());
    for (mut layout, keep) in models {
        layout.state_base = cursor;
        cursor = cursor
            .checked_add(align(layout.state_bytes)?)
            .ok_or_else(overflow)?;
        let kept_base = cursor;
        let mut kept = Vec::new();
        for (t, bytes) in keep {
            let in_arena = matches!(layout.locations.get(t), Some(Some(Location::Arena(_))));
            if !in_arena || kept.iter().any(|&(k, _)| k == t) {
                continue;
            }
            layout.locations[t] = Some(Location::Arena(cursor));
            kept.push((t, cursor));
            cursor = cursor.checked_add(align(bytes)?).ok_or_else(overflow)?;
        }
        members.push(Member {
            kept_bytes: cursor - kept_base,
            kept_base,
            kept,
            layout,
        });
    }
    limits.check_group_bytes(cursor as u128)?;
    Ok(GroupLayout {
        shared_bytes,
        memory_bytes: cursor,
        members,
    })
}

/// The graph tensors of `graph`'s inputs and outputs that `keep` names, with their sizes:
/// `input<i>`, `output<i>`, `inputs` (all of them) or `outputs`; `model` names the model in the
/// error for anything else. Constant outputs are left out: they are in flash and survive anything.
pub fn kept_tensors(graph: &Graph, keep: &[String], model: &str) -> Result<Vec<(usize, usize)>> {
    let mut tensors = Vec::new();
    for spec in keep {
        let picked: Vec<usize> = match spec.as_str() {
            "inputs" => graph.inputs.clone(),
            "outputs" => graph.outputs.clone(),
            _ => {
                let (list, digits) = match (spec.strip_prefix("input"), spec.strip_prefix("output"))
                {
                    (Some(d), _) => (&graph.inputs, d),
                    (_, Some(d)) => (&graph.outputs, d),
                    _ => (&graph.inputs, ""),
                };
                let index = (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| digits.parse::<usize>().ok())
                    .flatten();
                let Some(index) = index else {
                    return Err(Error::Config {
                        detail: format!(
                            "model `{model}`: cannot keep `{spec}`: expected input<i>, \
                             output<i>, inputs or outputs"
                        ),
                    });
                };
                let Some(&t) = list.get(index) else {
                    return Err(Error::Config {
                        detail: format!(
                            "model `{model}` has no {spec} to keep (it has {} inputs and {} \
                             outputs)",
                            graph.inputs.len(),
                            graph.outputs.len()
                        ),
                    });
                };
                vec![t]
            }
        };
        tensors.extend(
            picked
                .into_iter()
                .filter(|&t| !graph.tensors[t].is_constant())
                .map(|t| (t, graph.tensors[t].bytes)),
        );
    }
    Ok(tensors)
}

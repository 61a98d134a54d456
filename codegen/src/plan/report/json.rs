//! The plan as JSON for tools. Hand-written: the structure is flat, and the only subtlety, string
//! escaping, is a dozen lines.

use super::facts::{op_of_step, overlap_kind, rows};
use crate::ir::Graph;
use crate::plan::memory_plan::{AliasKind, MemoryPlan, Storage};
use std::fmt::Write;

/// The plan as one JSON object:
///
/// ```text
/// { "arena_bytes": N, "lower_bound_bytes": N, "state_bytes": N, "num_ops": N,
///   "tensors": [ { "index": N, "name": "…", "bytes": N, "offset": N, "region": "arena"|"state",
///                  "first_op": N, "last_op": N, "alias_of": N|null }, … ],
///   "aliases": [ { "tensor": N, "of": N, "op": N, "kind": "reshape" }, … ],
///   "overlaps": [ { "op": N, "input": N, "output": N, "kind": "in place"|"stream" }, … ],
///   "scratch": [ { "op": N, "slot": N, "bytes": N, "offset": N }, … ] }
/// ```
///
/// `scratch` is kernel scratch memory, in the arena during operator `op` alone. `overlaps` are the
/// operators whose output shares bytes with an input they are the last to read, as the kernel's
/// access contract allows ([`crate::plan::Overlap`]); with some, the arena may be below the bound.
///
/// A model with `OfflineMemoryAllocation` metadata also gets `"offline_plan": "ignored: …"`
/// (the reason), after `num_ops`. When the operators run in another order than the file's
/// ([`crate::plan::memory_order`]), `"order": [N, …]` follows (after `"folded": ["#N OP", …]`,
/// the operators computed at generation time, when there are any): the file index of the operator at
/// each position, the positions the `op` fields count. With memory regions
/// ([`crate::plan::MemoryRegion`]), `"regions": [{"name": "…", "bytes": N, "capacity": N,
/// "section": "…"}, …]` follows, and a tensor moved there has its region's name as `region`.
///
/// `tensors` lists the tensors that take RAM, in index order; `offset` is within `region`.
/// `first_op`/`last_op` are operator indices, -1 meaning "before the first operator" (see the
/// [module documentation](super)).
pub fn json(graph: &Graph, plan: &MemoryPlan) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\n  \"arena_bytes\": {},\n  \"lower_bound_bytes\": {},\n  \"state_bytes\": {},\n  \
         \"num_ops\": {},",
        plan.arena_bytes,
        plan.lower_bound_bytes,
        plan.state_bytes,
        graph.operators.len()
    );
    // The optional fields, between `num_ops` and `tensors`.
    if graph.offline_offsets.is_some() {
        let _ = write!(
            out,
            "\n  \"offline_plan\": {},",
            string(&format!("ignored: {}", super::facts::OFFLINE_PLAN_IGNORED))
        );
    }
    if !graph.folded.is_empty() {
        let folded: Vec<String> = super::facts::folded(graph)
            .iter()
            .map(|f| string(f))
            .collect();
        let _ = write!(out, "\n  \"folded\": [{}],", folded.join(", "));
    }
    if let Some(order) = super::facts::reordering(graph) {
        let order: Vec<String> = order.iter().map(usize::to_string).collect();
        let _ = write!(out, "\n  \"order\": [{}],", order.join(", "));
    }
    if !plan.memory_regions.is_empty() {
        let regions: Vec<String> = plan
            .memory_regions
            .iter()
            .map(|u| {
                format!(
                    "{{\"name\": {}, \"bytes\": {}, \"capacity\": {}, \"section\": {}}}",
                    string(&u.region.name),
                    u.bytes,
                    u.region.capacity,
                    string(&u.region.section)
                )
            })
            .collect();
        let _ = write!(out, "\n  \"regions\": [{}],", regions.join(", "));
    }
    out.push_str("\n  \"tensors\": [");
    for (i, p) in rows(plan).enumerate() {
        let name = graph.tensors.get(p.index).map_or("", |t| t.name.as_str());
        let region = match p.storage {
            Storage::Memory(k) => plan
                .memory_regions
                .get(k)
                .map_or("?", |u| u.region.name.as_str()),
            other => other.name(),
        };
        let alias = p.alias_of.map_or("null".to_string(), |a| a.to_string());
        let _ = write!(
            out,
            "{}\n    {{\"index\": {}, \"name\": {}, \"bytes\": {}, \"offset\": {}, \"region\": \
             \"{}\", \"first_op\": {}, \"last_op\": {}, \"alias_of\": {alias}}}",
            if i == 0 { "" } else { "," },
            p.index,
            string(name),
            p.bytes,
            p.offset,
            region,
            op_of_step(p.first_step),
            op_of_step(p.last_step),
        );
    }
    out.push_str("\n  ],\n  \"aliases\": [");
    for (i, a) in plan.aliases.iter().enumerate() {
        let kind = match a.kind {
            AliasKind::Reshape => "reshape",
        };
        let _ = write!(
            out,
            "{}\n    {{\"tensor\": {}, \"of\": {}, \"op\": {}, \"kind\": \"{kind}\"}}",
            if i == 0 { "" } else { "," },
            a.tensor,
            a.of,
            a.op
        );
    }
    out.push_str("\n  ],\n  \"overlaps\": [");
    for (i, o) in plan.overlaps.iter().enumerate() {
        let (input, output) = o.access.tensors();
        let _ = write!(
            out,
            "{}\n    {{\"op\": {}, \"input\": {input}, \"output\": {output}, \"kind\": \"{}\"}}",
            if i == 0 { "" } else { "," },
            o.op,
            overlap_kind(o)
        );
    }
    out.push_str("\n  ],\n  \"scratch\": [");
    for (i, s) in plan.scratch.iter().enumerate() {
        let _ = write!(
            out,
            "{}\n    {{\"op\": {}, \"slot\": {}, \"bytes\": {}, \"offset\": {}}}",
            if i == 0 { "" } else { "," },
            s.op,
            s.slot,
            s.bytes,
            s.offset
        );
    }
    out.push_str("\n  ]\n}\n");
    out
}

/// `s` as a JSON string literal (RFC 8259: quote, backslash and control characters escaped).
pub(crate) fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::string;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(string("x\ny\u{1}"), r#""x\ny\u0001""#);
        assert_eq!(string("é/ü"), "\"é/ü\"");
    }
}

//! Drawing and emitting the next operator of the chain: the dispatch over the family files'
//! tables ([`ops`](super::ops)), and the unsupported operators.

use super::{table, Gen, Value, UNSUPPORTED};
use crate::{BuiltinOperator as B, OpCodeSpec, Options};

impl Gen<'_, '_> {
    pub(super) fn one_op(&mut self) {
        if self.chance(2) {
            let op = self.pick(UNSUPPORTED);
            unsupported(self, op);
        } else {
            let entry = self.pick(table());
            (entry.emit)(self, entry.op);
        }
    }

    /// Appends one builtin `op` to the chain, its shapes and options drawn by its family's
    /// generator.
    pub(super) fn emit(&mut self, op: B) {
        match table().iter().find(|e| e.op == op && e.custom.is_none()) {
            Some(entry) => (entry.emit)(self, op),
            None => unsupported(self, op),
        }
    }
}

/// An operator tinyaot does not lower ([`UNSUPPORTED`]): TOPK_V2 or a CUSTOM one.
fn unsupported(g: &mut Gen<'_, '_>, op: B) {
    // An unsupported operator: TOPK_V2 or a CUSTOM one.
    let v = g.latest();
    let shape = g.shape_of(v);
    let out_t = g.same_quant(v, &shape);
    if op == B::CUSTOM {
        let code = g.m.push_opcode(OpCodeSpec::custom("Fuzz"));
        let out = g.m.tensor(out_t);
        g.m.operators.push(crate::OpSpec {
            opcode_index: code,
            inputs: vec![v.index],
            outputs: vec![out],
            intermediates: Vec::new(),
            options: Options::None,
            custom_options: Some(vec![1, 2, 3]),
        });
        g.values.push(Value { index: out });
    } else {
        g.push_op(op, Options::None, &[v.index], out_t);
    }
}

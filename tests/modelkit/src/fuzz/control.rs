//! IF: two branch subgraphs, each a chain of one or two operators drawn as the main chain's are.

use super::{FuzzOp, Gen, Value};
use crate::{
    BuiltinOperator as B, ModelSpec, OpCodeSpec, Options, SubgraphSpec, TensorData, TensorSpec,
    TensorType,
};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[FuzzOp::new(B::IF, if_op)];

/// A branch: its subgraph, and the operator codes its operators index.
type Branch = (SubgraphSpec, Vec<OpCodeSpec>);

/// IF of a one-element BOOL graph input on the latest value. Each branch takes the value and
/// the graph inputs both branches' operators drew (TFLM passes IF's inputs after the condition
/// to the branch that runs), and outputs its chain's last value; IF's output takes the then
/// branch's. The branches are not made to agree: an else branch whose output differs in size is
/// what TFLM refuses at run time, and tinyaot must refuse it cleanly.
fn if_op(g: &mut Gen<'_, '_>, _: B) {
    let v = g.latest();
    let Some(spec) = g.tensor(v.index).cloned() else {
        return g.emit(B::RELU);
    };
    let branches = [branch(g, &spec), branch(g, &spec)];
    let cond_shape: &[i32] = g.pick(&[&[1], &[], &[1, 1]]);
    let cond = g.graph_input(TensorSpec::new(TensorType::BOOL, cond_shape));
    // The inputs the branches' operators drew, as graph inputs, in the order IF passes them.
    let mut passed = Vec::new();
    for (graph, _) in &branches {
        for &t in &graph.inputs[1..] {
            passed.push(g.graph_input(unnamed(&graph.tensors[t as usize])));
        }
    }
    let out = unnamed(&branches[0].0.tensors[branches[0].0.outputs[0] as usize]);
    let first = g.m.push_branches(branches, &passed);
    let mut inputs = vec![cond, v.index];
    inputs.extend(&passed);
    let options = Options::If {
        then_subgraph: first,
        else_subgraph: first + 1,
    };
    g.push_op(B::IF, options, &inputs, out);
}

/// `t` without its name or data: a tensor of its type, shape and quantization that the graph
/// computes or is given.
fn unnamed(t: &TensorSpec) -> TensorSpec {
    let mut t = t.clone();
    t.name = None;
    t.data = TensorData::Buffer(0);
    t
}

/// A branch drawn in a subgraph of its own: input 0 of `spec`, then one or two operators on the
/// chain's values (never IF: an IF inside a branch is refused, so not worth the draws).
fn branch(g: &mut Gen<'_, '_>, spec: &TensorSpec) -> Branch {
    let mut sub = Gen {
        u: &mut *g.u,
        m: ModelSpec::new(),
        int8: g.int8,
        values: Vec::new(),
        wide: g.wide,
    };
    let first = sub.graph_input(unnamed(spec));
    sub.values.push(Value { index: first });
    for _ in 0..sub.int(1, 2) {
        let op = sub.pick(super::ops());
        sub.emit(if op == B::IF { B::RELU } else { op });
    }
    let last = sub.values.last().map_or(first, |v| v.index);
    let graph = SubgraphSpec {
        tensors: sub.m.tensors,
        operators: sub.m.operators,
        inputs: sub.m.inputs,
        outputs: vec![last],
    };
    (graph, sub.m.opcodes)
}

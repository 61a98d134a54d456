//! IF: two branch subgraphs, each a chain of one or two operators drawn as the main chain's are;
//! WHILE: a condition comparing a counter with a bound, and a body that steps the counter and runs
//! such a chain on the carried value.

use super::{FuzzOp, Gen, Value};
use crate::{
    BuiltinOperator as B, ModelSpec, OpCodeSpec, Options, SubgraphSpec, TensorData, TensorSpec,
    TensorType,
};

/// This family's operators (see [`FuzzOp`]).
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::IF, if_op),
    FuzzOp::new(B::WHILE, while_op),
];

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
/// chain's values (never IF, WHILE or a resource operator: they are refused inside a subgraph, so
/// not worth the draws).
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
        sub.emit(if op == B::IF || op == B::WHILE || super::resource::RESOURCE.contains(&op) {
            B::RELU
        } else {
            op
        });
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

/// WHILE on the latest value. The carried tensors are an int32 counter (a graph input), the value
/// and the graph inputs the body's chain drew; the condition (its first output a BOOL) compares
/// the counter with a constant bound, and the body adds a constant step to the counter, runs a
/// chain drawn as IF's branches are on the value (redrawn once or twice when its output's type or
/// shape differs from the value's: then TFLM refuses, and tinyaot must refuse cleanly) and passes
/// its other inputs on. The fuzzer never runs the model, so the loop need not end; now and then
/// the condition's output is an int32 rather than a BOOL, which tinyaot must refuse.
fn while_op(g: &mut Gen<'_, '_>, _: B) {
    let v = g.latest();
    let Some(spec) = g.tensor(v.index).cloned() else {
        return g.emit(B::RELU);
    };
    let mut body = branch(g, &spec);
    for _ in 0..2 {
        let out = &body.0.tensors[body.0.outputs[0] as usize];
        if out.dtype == spec.dtype && out.shape == spec.shape {
            break;
        }
        body = branch(g, &spec);
    }
    let counter_shape: &[i32] = g.pick(&[&[1], &[], &[1, 1]]);
    let counter = TensorSpec::new(TensorType::INT32, counter_shape);
    let mut carried = vec![g.graph_input(counter.clone()), v.index];
    for &t in &body.0.inputs[1..] {
        carried.push(g.graph_input(unnamed(&body.0.tensors[t as usize])));
    }
    let specs: Vec<TensorSpec> = carried
        .iter()
        .map(|&t| unnamed(&g.m.tensors[t as usize]))
        .collect();
    let bound = g.int(-2, 8);
    let step = g.int(1, 3);
    let compare = g.pick(&[B::LESS, B::LESS_EQUAL, B::NOT_EQUAL]);
    let out_type = if g.chance(5) {
        TensorType::INT32
    } else {
        TensorType::BOOL
    };
    // The condition: every carried tensor an input, the counter compared with the bound.
    let mut c = ModelSpec::new();
    let inputs: Vec<i32> = specs.iter().map(|s| c.tensor(s.clone())).collect();
    let limit = c.tensor(counter.clone().constant_i32(&[bound]));
    let test = c.tensor(TensorSpec::new(out_type, counter_shape));
    c.op(compare, Options::None, &[inputs[0], limit], &[test]);
    let cond = SubgraphSpec {
        tensors: c.tensors,
        operators: c.operators,
        inputs,
        outputs: vec![test],
    };
    // The body: the chain, with the counter's input first and its step added to it.
    let (graph, codes) = body;
    let mut b = ModelSpec::new();
    b.tensors = graph.tensors;
    b.operators = graph.operators;
    b.opcodes = codes;
    let count = b.tensor(counter.clone());
    let add = b.tensor(counter.clone().constant_i32(&[step]));
    let next = b.tensor(counter);
    b.op(B::ADD, Options::default_for(B::ADD), &[count, add], &[next]);
    let mut body_inputs = vec![count];
    body_inputs.extend(&graph.inputs);
    let mut body_outputs = vec![next];
    body_outputs.extend(&graph.outputs);
    body_outputs.extend(&graph.inputs[1..]);
    let body = SubgraphSpec {
        tensors: b.tensors,
        operators: b.operators,
        inputs: body_inputs,
        outputs: body_outputs,
    };
    let cond_subgraph = g.m.push_subgraph(cond, &c.opcodes);
    let body_subgraph = g.m.push_subgraph(body, &b.opcodes);
    let outputs: Vec<i32> = specs.into_iter().map(|s| g.m.tensor(s)).collect();
    let options = Options::While {
        cond_subgraph,
        body_subgraph,
    };
    g.m.op(B::WHILE, options, &carried, &outputs);
    g.values.push(Value { index: outputs[1] });
}

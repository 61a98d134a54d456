//! Control flow: IF, whose two branches are subgraphs of the model, each a chain of one or two
//! operators drawn as the main chain's are; WHILE, whose body is such a chain on the carried value
//! beside a counter its condition compares with a bound, so that every loop ends.

use tinyaot_modelkit::{
    BuiltinOperator as B, ModelSpec, OpCodeSpec, Options, SubgraphSpec, TensorData, TensorSpec,
    TensorType,
};

use super::{ops, OpGen, G};

/// This family's operators (see [`OpGen`]). IF copies bytes in and out, so it takes every type a
/// branch can take; its float output may be non-finite when a branch's is.
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("IF", B::IF, if_op)
        .types(&[
            TensorType::INT16,
            TensorType::INT32,
            TensorType::INT64,
            TensorType::BOOL,
        ])
        .non_finite(),
    // WHILE copies bytes in and out as IF does; its body may make a NaN or an infinity.
    OpGen::new("WHILE", B::WHILE, while_op)
        .types(&[
            TensorType::INT16,
            TensorType::INT32,
            TensorType::INT64,
            TensorType::BOOL,
        ])
        .non_finite(),
];

/// The control-flow operators, which tinyaot refuses inside an IF branch or a WHILE condition or
/// body (nested control flow), so the chains drawn there leave them out.
const CONTROL: [B; 2] = [B::IF, B::WHILE];

fn if_op(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 1.0);
    g.if_branches(x)
}

fn while_op(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 1.0);
    g.while_loop(x)
}

/// One branch drawn for IF: its subgraph and what its operators' generators drew besides.
struct Branch {
    /// The subgraph: input 0 is IF's `x`, the others inputs of its own (second operands, run-time
    /// controls).
    graph: SubgraphSpec,
    /// The description of its operators.
    desc: Vec<String>,
    /// Per input after the first: the range of its random values.
    ranges: Vec<f64>,
    /// Run-time GATHER positions among its inputs: `(input index, bound)`.
    positions: Vec<(usize, i32)>,
    /// Whether a control tensor is computed at run time.
    run_time_controls: bool,
    /// The operator codes its operators index.
    codes: Vec<OpCodeSpec>,
}

impl Branch {
    /// The output tensor's spec.
    fn output(&self) -> &TensorSpec {
        &self.graph.tensors[self.graph.outputs[0] as usize]
    }
}

impl<'a> G<'a> {
    /// IF of a condition (a one-element BOOL graph input, true or false at random) on `x`: two
    /// branches drawn as chains of one or two operators from `x` (the second redrawn until its
    /// output has the first's type and shape). Inputs the branches' operators draw (second
    /// operands, run-time controls) become graph inputs that IF passes to both branches after
    /// `x`: TFLM passes IF's inputs after the condition to whichever branch runs, so both
    /// branches take them all, each reading its own.
    pub(super) fn if_branches(&mut self, x: i32) -> Option<i32> {
        let then_branch = self.branch(x, &[])?;
        let want = then_branch.output().clone();
        let else_branch = (0..8)
            .filter_map(|_| self.branch(x, &[]))
            .find(|b| b.output().dtype == want.dtype && b.output().shape == want.shape)?;
        let cond_shape: &[i32] = self.rng.pick(&[&[1], &[], &[1, 1]]);
        let cond = self.input(TensorType::BOOL, cond_shape, None, 1.0);
        // The branches' own inputs, as graph inputs of the model in the order IF passes them.
        let mut passed = Vec::new();
        for branch in [&then_branch, &else_branch] {
            for (k, &t) in branch.graph.inputs.iter().enumerate().skip(1) {
                let mut spec = branch.graph.tensors[t as usize].clone();
                spec.name = None;
                let main = self.m.tensor(spec);
                self.m.inputs.push(main);
                self.ranges.push(branch.ranges[k - 1]);
                if let Some(&(_, bound)) = branch.positions.iter().find(|&&(i, _)| i == k) {
                    self.positions.push((self.m.inputs.len() - 1, bound));
                }
                passed.push(main);
            }
            self.run_time_controls |= branch.run_time_controls;
        }
        let first = self.m.push_branches(
            [
                (then_branch.graph, then_branch.codes),
                (else_branch.graph, else_branch.codes),
            ],
            &passed,
        );
        let mut out_spec = want;
        out_spec.name = None;
        let out = self.m.tensor(out_spec);
        let mut inputs = vec![cond, x];
        inputs.extend(&passed);
        let text = format!(
            "IF cond bool{cond_shape:?} on {} then {{{}}} else {{{}}} -> {}",
            self.qtext(x),
            then_branch.desc.join(" ; "),
            else_branch.desc.join(" ; "),
            self.qtext(out)
        );
        self.describe(text);
        self.m.op(
            B::IF,
            Options::If {
                then_subgraph: first,
                else_subgraph: first + 1,
            },
            &inputs,
            &[out],
        );
        Some(out)
    }

    /// A branch: a subgraph whose input 0 has `x`'s type, shape and quantization, and a chain of
    /// one or two operators (any but IF, WHILE and the resource operators, which tinyaot refuses
    /// inside a subgraph, and `exclude`) from it; `None` when the draw does not fit.
    fn branch(&mut self, x: i32, exclude: &[B]) -> Option<Branch> {
        let mut spec = self.m.tensors[x as usize].clone();
        spec.name = None;
        let mut sub = G::new(&mut *self.rng);
        sub.tricky = self.tricky;
        let input = sub.m.tensor(spec);
        sub.m.inputs.push(input);
        sub.ranges.push(1.0);
        let length = if sub.rng.chance(0.7) { 1 } else { 2 };
        let mut y = input;
        let mut non_finite = false;
        for _ in 0..length {
            let dtype = sub.dtype(y);
            let takers: Vec<&OpGen> = ops()
                .iter()
                .filter(|o| !CONTROL.contains(&o.op) && !exclude.contains(&o.op))
                .filter(|o| !super::resource::RESOURCE.contains(&o.op))
                // The signal operators start a chain of their own (a fresh input of their type).
                .filter(|o| o.op != B::CUSTOM)
                .filter(|o| o.draws(dtype))
                .collect();
            let op = sub.rng.pick(&takers);
            // As in the main chain: no QUANTIZE of a float that may be a NaN or an infinity.
            if non_finite && op.op == B::QUANTIZE {
                return None;
            }
            y = sub.apply(op, Some(y), dtype)?;
            non_finite =
                sub.dtype(y) == TensorType::FLOAT32 && (non_finite || op.non_finite);
        }
        let G {
            m,
            desc,
            mut ranges,
            positions,
            run_time_controls,
            ..
        } = sub;
        ranges.remove(0);
        Some(Branch {
            graph: SubgraphSpec {
                tensors: m.tensors,
                operators: m.operators,
                inputs: m.inputs,
                outputs: vec![y],
            },
            codes: m.opcodes,
            desc,
            ranges,
            positions,
            run_time_controls,
        })
    }
}

/// A WHILE's loop counter: its type, shape, the bound its condition compares it with and the
/// step its body adds; the counter starts at a graph input's value.
struct Counter {
    dtype: TensorType,
    shape: Vec<i32>,
    /// The comparison: `LESS(counter, bound)`, `LESS_EQUAL(counter, bound)` or
    /// `GREATER(bound, counter)`.
    compare: B,
    bound: TensorSpec,
    step: TensorSpec,
    text: String,
}

impl<'a> G<'a> {
    /// WHILE on `x`: the carried tensors are a counter (a graph input), `x`, and the inputs the
    /// body's operators draw (second operands, run-time controls: graph inputs that the body
    /// passes on unchanged); the condition compares the counter with a constant bound, the body
    /// adds a positive constant step to it and runs a chain of one or two operators on `x` (drawn
    /// as IF's branches are, redrawn until its output has `x`'s type and shape). The counter's
    /// start is drawn so that every loop ends within a dozen iterations, none now and then (TFLM
    /// would loop forever otherwise). Both the carried `x` and the counter become graph outputs.
    pub(super) fn while_loop(&mut self, x: i32) -> Option<i32> {
        let want = self.m.tensors[x as usize].clone();
        // No QUANTIZE of a float in the body: its input is the last iteration's output, which
        // may be a NaN or an infinity (as in the main chain).
        let exclude: &[B] = if want.dtype == TensorType::FLOAT32 {
            &[B::QUANTIZE]
        } else {
            &[]
        };
        let body = (0..8)
            .filter_map(|_| self.branch(x, exclude))
            .find(|b| b.output().dtype == want.dtype && b.output().shape == want.shape)?;
        let counter = self.counter();
        let start = if counter.dtype == TensorType::INT32 {
            let bound = i32::from_le_bytes(constant_bytes(&counter.bound)?);
            // Positions are drawn in 0..limit: from 0 to one past the bound.
            let t = self.input(counter.dtype, &counter.shape, None, 1.0);
            self.positions.push((self.m.inputs.len() - 1, bound + 2));
            t
        } else {
            self.input(counter.dtype, &counter.shape, None, 1.0)
        };
        // The body's own inputs, as graph inputs of the model in the order WHILE carries them.
        let mut carried = vec![start, x];
        for (k, &t) in body.graph.inputs.iter().enumerate().skip(1) {
            let mut spec = body.graph.tensors[t as usize].clone();
            spec.name = None;
            let main = self.m.tensor(spec);
            self.m.inputs.push(main);
            self.ranges.push(body.ranges[k - 1]);
            if let Some(&(_, bound)) = body.positions.iter().find(|&&(i, _)| i == k) {
                self.positions.push((self.m.inputs.len() - 1, bound));
            }
            carried.push(main);
        }
        self.run_time_controls |= body.run_time_controls;
        let specs: Vec<TensorSpec> = carried
            .iter()
            .map(|&t| unnamed(&self.m.tensors[t as usize]))
            .collect();
        let cond = condition(&specs, &counter);
        let body_text = body.desc.join(" ; ");
        let body = loop_body(body, &counter, &specs);
        let cond_index = self.m.push_subgraph(cond.0, &cond.1);
        let body_index = self.m.push_subgraph(body.0, &body.1);
        let outputs: Vec<i32> = specs.iter().map(|s| self.m.tensor(s.clone())).collect();
        let text = format!(
            "WHILE {} on {} do {{{body_text}}} carrying {} more",
            counter.text,
            self.qtext(x),
            carried.len() - 2
        );
        self.describe(text);
        self.m.op(
            B::WHILE,
            Options::While {
                cond_subgraph: cond_index,
                body_subgraph: body_index,
            },
            &carried,
            &outputs,
        );
        self.more_outputs.push(outputs[0]);
        Some(outputs[1])
    }

    /// A counter: int32 (a start of 0 to one past a bound of 0 to 6, a step of 1 to 3) or float32
    /// (a start in [-1, 1), a bound of 0.5 to 2, a step of 0.25 to 1), of one element.
    fn counter(&mut self) -> Counter {
        let shape: Vec<i32> = self.rng.pick(&[&[1][..], &[], &[1, 1]]).to_vec();
        let compare = self.rng.pick(&[B::LESS, B::LESS_EQUAL, B::GREATER]);
        let (dtype, bound, step, text) = if self.rng.chance(0.7) {
            let (bound, step) = (self.rng.int(0, 6), self.rng.int(1, 3));
            let spec = |v: i32| TensorSpec::new(TensorType::INT32, &shape).constant_i32(&[v]);
            let text = format!("i32{shape:?} {compare:?} {bound} step {step}");
            (TensorType::INT32, spec(bound), spec(step), text)
        } else {
            let bound = self.rng.pick(&[0.5f32, 1.0, 2.0]);
            let step = self.rng.pick(&[0.25f32, 0.5, 1.0]);
            let spec = |v: f32| TensorSpec::new(TensorType::FLOAT32, &shape).constant_f32(&[v]);
            let text = format!("f32{shape:?} {compare:?} {bound} step {step}");
            (TensorType::FLOAT32, spec(bound), spec(step), text)
        };
        Counter {
            dtype,
            shape,
            compare,
            bound,
            step,
            text,
        }
    }
}

/// The four bytes of a one-element constant.
fn constant_bytes(t: &TensorSpec) -> Option<[u8; 4]> {
    match &t.data {
        TensorData::Constant(bytes) => bytes.get(..4)?.try_into().ok(),
        TensorData::Buffer(_) => None,
    }
}

/// `t` without its name or data: a tensor of its type, shape and quantization.
fn unnamed(t: &TensorSpec) -> TensorSpec {
    let mut t = t.clone();
    t.name = None;
    t.data = TensorData::Buffer(0);
    t
}

/// WHILE's condition: an input per carried tensor (`specs`, the counter first), the counter
/// compared with its bound into a BOOL of the counter's shape.
fn condition(specs: &[TensorSpec], counter: &Counter) -> (SubgraphSpec, Vec<OpCodeSpec>) {
    let mut c = ModelSpec::new();
    let inputs: Vec<i32> = specs.iter().map(|s| c.tensor(s.clone())).collect();
    let bound = c.tensor(counter.bound.clone());
    let out = c.tensor(TensorSpec::new(TensorType::BOOL, &counter.shape));
    let operands = if counter.compare == B::GREATER {
        [bound, inputs[0]]
    } else {
        [inputs[0], bound]
    };
    c.op(counter.compare, Options::None, &operands, &[out]);
    let graph = SubgraphSpec {
        tensors: c.tensors,
        operators: c.operators,
        inputs,
        outputs: vec![out],
    };
    (graph, c.opcodes)
}

/// WHILE's body: `chain` (inputs `x` and its own), with the counter's input put first and its
/// step added to it; its outputs the new counter, the chain's output, and its own inputs passed
/// on.
fn loop_body(
    chain: Branch,
    counter: &Counter,
    specs: &[TensorSpec],
) -> (SubgraphSpec, Vec<OpCodeSpec>) {
    let Branch {
        graph, mut codes, ..
    } = chain;
    let mut m = ModelSpec::new();
    m.tensors = graph.tensors;
    m.operators = graph.operators;
    m.opcodes = std::mem::take(&mut codes);
    let count = m.tensor(specs[0].clone());
    let step = m.tensor(counter.step.clone());
    let next = m.tensor(specs[0].clone());
    m.op(B::ADD, Options::default_for(B::ADD), &[count, step], &[next]);
    let mut inputs = vec![count];
    inputs.extend(&graph.inputs);
    let mut outputs = vec![next];
    outputs.extend(&graph.outputs);
    outputs.extend(&graph.inputs[1..]);
    let body = SubgraphSpec {
        tensors: m.tensors,
        operators: m.operators,
        inputs,
        outputs,
    };
    (body, m.opcodes)
}

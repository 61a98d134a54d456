//! Control flow: IF, whose two branches are subgraphs of the model, each a chain of one or two
//! operators drawn as the main chain's are.

use tinyaot_modelkit::{
    BuiltinOperator as B, OpCodeSpec, Options, SubgraphSpec, TensorSpec, TensorType,
};

use super::{entry, ops, OpGen, G};

/// This family's operators (see [`OpGen`]). IF copies bytes in and out, so it takes every type a
/// branch can take; its float output may be non-finite when a branch's is.
pub(super) const OPS: &[OpGen] = &[OpGen::new("IF", B::IF, if_op)
    .types(&[
        TensorType::INT16,
        TensorType::INT32,
        TensorType::INT64,
        TensorType::BOOL,
    ])
    .non_finite()];

fn if_op(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let x = g.take(x, dtype, |g| g.random_shape(1, 4, 6), 1.0);
    g.if_branches(x)
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
        let then_branch = self.branch(x)?;
        let want = then_branch.output().clone();
        let else_branch = (0..8)
            .filter_map(|_| self.branch(x))
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
    /// one or two operators (any but IF, which tinyaot refuses inside a branch) from it; `None`
    /// when the draw does not fit.
    fn branch(&mut self, x: i32) -> Option<Branch> {
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
            let takers: Vec<B> = ops()
                .iter()
                .filter(|o| o.op != B::IF && o.draws(dtype))
                .map(|o| o.op)
                .collect();
            let op = sub.rng.pick(&takers);
            // As in the main chain: no QUANTIZE of a float that may be a NaN or an infinity.
            if non_finite && op == B::QUANTIZE {
                return None;
            }
            y = sub.apply(op, Some(y), dtype)?;
            non_finite = sub.dtype(y) == TensorType::FLOAT32
                && (non_finite || entry(op).is_some_and(|e| e.non_finite));
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

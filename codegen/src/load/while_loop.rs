//! WHILE: its condition and body subgraphs become a loop of subgraph 0's graph.
//!
//! TFLM's WHILE (`kernels/while.cc`) copies its inputs into the condition subgraph's inputs and
//! into its own outputs (`CopyOpInputsToSubgraphInputs`, `CopyOpInputsToOpOutputs`), invokes the
//! condition and reads the first byte of its first output (`data.b[0]`); while that is true, it
//! copies its outputs into the body's inputs, invokes the body, copies the body's outputs into
//! its own outputs, copies those into the condition's inputs, and invokes the condition again.
//! Its outputs are therefore the loop-carried tensors. tinyaot compiles the same steps into the
//! one graph: at the WHILE's place, the copies of its inputs into its outputs ([`WhileStep::Copy`],
//! run once), then the loop, whose operators are consecutive and marked with their [`Loop`]: the
//! copies of the WHILE's outputs into the condition's inputs (the same bytes as TFLM's first copy
//! of its inputs, which its outputs hold then), the condition's operators, the exit
//! ([`WhileStep::Exit`]: leave the loop when the condition's output is false), the copies of the
//! WHILE's outputs into the body's inputs (of both, none into an input nothing reads: its bytes
//! are never read), the body's operators and the copies of the body's
//! outputs into the WHILE's outputs (their second writer). The emitters make a `loop` of it; the
//! planner keeps every tensor that lives across the loop's back edge live over the whole loop
//! (`plan/lifetime.rs`, and the checker on its own).
//!
//! Refused as TFLM refuses (its Prepare, or its Eval on every invocation, or every invocation
//! whose condition holds once): a condition or body index past the subgraphs, input and output
//! counts that differ between the WHILE, its condition's inputs, its body's inputs and outputs,
//! and a copied pair of tensors of different byte sizes. Refused as undefined: an index that is
//! negative or 0 (subgraph 0 would invoke itself without end; the same for the default options),
//! an absent input, a copied pair of different types (TFLM only `DCHECK`s it), a condition with
//! no outputs or whose first output is not a BOOL with an element (TFLM reads its first byte as
//! a `bool`), and a condition or body input that is a constant (TFLM copies over its data). Not
//! compiled: a condition whose output is a constant (the loop would run never or forever), and
//! control flow or resource operators inside the condition or the body (nested control flow).

use super::control::{
    load_subgraph, present_inputs, source_operator, subgraph_index, Model, Subgraph,
};
use crate::error::{Error, Grounds, Result};
use crate::ir::{DType, Loop, Operator, Options, Tensor, WhileStep};

/// An [`Error::InvalidModel`] about WHILE operator `index`.
fn invalid(index: usize, detail: String, grounds: Grounds) -> Error {
    Error::InvalidModel {
        detail: format!("operator #{index} WHILE: {detail}"),
        grounds,
    }
}

/// Inlines WHILE operator `op` into `out`, appending its subgraphs' tensors to `tensors`.
pub(super) fn inline_while<'m>(
    m: &Model<'_, 'm>,
    tensors: &mut Vec<Tensor<'m>>,
    op: &Operator,
    out: &mut Vec<Operator>,
    constant_bytes: &mut u128,
) -> Result<()> {
    let index = op.source_index;
    let options = source_operator(m, index).and_then(|o| o.builtin_options_as_while_options());
    // Without options TFLM's parser leaves both indices 0.
    let (cond_index, body_index) = options.map_or((0, 0), |o| {
        (o.cond_subgraph_index(), o.body_subgraph_index())
    });
    let past_end = "while.cc WhilePrepare: TF_LITE_ENSURE(cond_subgraph_index < NumSubgraphs()), \
                    and the same of body_subgraph_index";
    let kc = subgraph_index(m, invalid, index, "cond", cond_index, past_end)?;
    let kb = subgraph_index(m, invalid, index, "body", body_index, past_end)?;
    let args = present_inputs(invalid, index, &op.inputs, 0)?;
    let results = op.outputs.clone();
    let cond = load_subgraph(m, kc, "a WHILE condition", constant_bytes)?;
    let body = load_subgraph(m, kb, "a WHILE body", constant_bytes)?;
    check_counts(index, (kc, &cond), (kb, &body), args.len(), results.len())?;
    check_condition(index, kc, &cond)?;
    // The copies TFLM makes: (which of the WHILE's tensors, it, the other tensor's side (its
    // subgraph and role, or the WHILE's output), it, the other tensor).
    type Side<'s> = Option<(usize, &'s str)>;
    let mut pairs: Vec<(String, usize, Side, usize, &Tensor)> = Vec::new();
    for (i, &a) in args.iter().enumerate() {
        let c = cond.inputs[i];
        pairs.push((
            format!("input {i}"),
            a,
            Some((kc, "condition")),
            c,
            &cond.tensors[c],
        ));
        pairs.push((
            format!("input {i}"),
            a,
            None,
            results[i],
            &tensors[results[i]],
        ));
    }
    for (i, &r) in results.iter().enumerate() {
        let (b, o) = (body.inputs[i], body.outputs[i]);
        pairs.push((
            format!("output {i}"),
            r,
            Some((kb, "body")),
            b,
            &body.tensors[b],
        ));
        pairs.push((
            format!("output {i}"),
            r,
            Some((kb, "body")),
            o,
            &body.tensors[o],
        ));
    }
    for (what, a, side, b, tb) in pairs {
        check_pair(index, &what, (a, &tensors[a]), (side, b, tb))?;
    }
    for (k, role, sub) in [(kc, "condition", &cond), (kb, "body", &body)] {
        if let Some(&t) = sub.inputs.iter().find(|&&t| sub.tensors[t].is_constant()) {
            return Err(invalid(
                index,
                format!(
                    "the input tensor #{t} {:?} of its {role}, subgraph {k}, is a constant",
                    sub.tensors[t].name
                ),
                Grounds::undefined("TFLM copies the WHILE's tensor over the constant's data"),
            ));
        }
    }

    let caller = index;
    let step =
        |kind: WhileStep, looped: Option<Loop>, input: usize, output: Option<usize>| Operator {
            kind: op.kind.clone(),
            version: op.version,
            options: Options::While(kind),
            inputs: vec![Some(input)],
            outputs: output.into_iter().collect(),
            intermediates: Vec::new(),
            source_index: caller,
            branch: None,
            looped,
        };
    for (&a, &r) in args.iter().zip(&results) {
        out.push(step(WhileStep::Copy, None, a, Some(r)));
    }
    let steps = Some(Loop {
        caller,
        subgraph: 0,
        body: false,
    });
    let mut append = |sub: Subgraph<'m>, k: usize, is_body: bool, out: &mut Vec<Operator>| {
        let base = tensors.len();
        m.limits.check_tensors(base + sub.tensors.len())?;
        tensors.extend(sub.tensors);
        // A subgraph input that none of its operators reads and that is not its output needs no
        // copy: nothing reads the bytes TFLM copies there (converters carry every loop variable
        // into the condition, which reads one or two).
        let read: std::collections::HashSet<usize> = sub
            .operators
            .iter()
            .flat_map(|o| o.inputs.iter().flatten().copied())
            .chain(sub.outputs.iter().copied())
            .collect();
        for (&r, &input) in results.iter().zip(&sub.inputs) {
            if read.contains(&input) {
                out.push(step(WhileStep::Copy, steps, r, Some(base + input)));
            }
        }
        let looped = Some(Loop {
            caller,
            subgraph: k,
            body: is_body,
        });
        for mut o in sub.operators {
            for t in o.inputs.iter_mut().flatten() {
                *t += base;
            }
            for t in o.outputs.iter_mut().chain(&mut o.intermediates) {
                *t += base;
            }
            o.looped = looped;
            out.push(o);
        }
        Ok::<_, Error>(sub.outputs.iter().map(|&t| t + base).collect::<Vec<_>>())
    };
    let cond_outputs = append(cond, kc, false, out)?;
    out.push(step(WhileStep::Exit, steps, cond_outputs[0], None));
    let body_outputs = append(body, kb, true, out)?;
    for (&b, &r) in body_outputs.iter().zip(&results) {
        out.push(step(WhileStep::Copy, steps, b, Some(r)));
    }
    Ok(())
}

/// The counts TFLM's WhilePrepare checks: the WHILE's inputs, its condition's and its body's
/// inputs, its outputs and its body's outputs, all one number.
fn check_counts(
    index: usize,
    (kc, cond): (usize, &Subgraph),
    (kb, body): (usize, &Subgraph),
    inputs: usize,
    outputs: usize,
) -> Result<()> {
    let counts = [
        ("its condition's inputs", kc, cond.inputs.len()),
        ("its body's inputs", kb, body.inputs.len()),
        ("its outputs", 0, outputs),
        ("its body's outputs", kb, body.outputs.len()),
    ];
    for (what, k, n) in counts {
        if n != inputs {
            let subgraph = match k {
                0 => String::new(),
                k => format!(" (subgraph {k})"),
            };
            return Err(invalid(
                index,
                format!(
                    "it has {inputs} inputs but {n} of {what}{subgraph}; a WHILE's inputs, \
                     outputs, condition inputs, body inputs and body outputs are the same \
                     loop-carried tensors"
                ),
                Grounds::tflm(
                    "while.cc WhilePrepare: TF_LITE_ENSURE_EQ of num_inputs with \
                     NumSubgraphInputs(cond) and NumSubgraphInputs(body), with num_outputs, and \
                     of num_outputs with NumSubgraphOutputs(body)",
                ),
            ));
        }
    }
    Ok(())
}

/// The condition's first output, which TFLM reads as a `bool`: it must exist, be a BOOL with an
/// element, and be computed.
fn check_condition(index: usize, kc: usize, cond: &Subgraph) -> Result<()> {
    let Some(&t) = cond.outputs.first() else {
        return Err(invalid(
            index,
            format!("its condition, subgraph {kc}, has no outputs"),
            Grounds::undefined(
                "while.cc WhileEval reads GetSubgraphOutput(cond, 0), past the subgraph's outputs",
            ),
        ));
    };
    let c = &cond.tensors[t];
    if c.dtype != DType::Bool || c.num_elements() == 0 {
        return Err(invalid(
            index,
            format!(
                "the output 0 of its condition, subgraph {kc}, tensor #{t} {:?}, is {} of shape \
                 {:?}; it must be a BOOL with at least one element",
                c.name, c.dtype, c.shape
            ),
            Grounds::undefined(
                "while.cc WhileEval reads the output's first byte as a bool (data.b[0]), whatever \
                 its type or size",
            ),
        ));
    }
    if c.is_constant() {
        return Err(Error::Unsupported {
            detail: format!(
                "operator #{index} WHILE: the output 0 of its condition, subgraph {kc}, is a \
                 constant, so the loop would run never or forever; tinyaot compiles WHILE \
                 loops whose condition is computed"
            ),
        });
    }
    Ok(())
}

/// Checks one of the copies TFLM makes: `a`, a tensor of the WHILE (its input or output), and
/// `b`, a tensor of its condition or body (`theirs`: the subgraph and its role) or of the WHILE.
fn check_pair(
    index: usize,
    what: &str,
    (ta, a): (usize, &Tensor),
    (theirs, tb, b): (Option<(usize, &str)>, usize, &Tensor),
) -> Result<()> {
    let other = match theirs {
        Some((k, role)) => format!("tensor #{tb} {:?} of its {role}, subgraph {k}", b.name),
        None => format!("its output, tensor #{tb} {:?}", b.name),
    };
    let pair = format!(
        "its {what}, tensor #{ta} {:?} ({} {:?}), and {other} ({} {:?}),",
        a.name, a.dtype, a.shape, b.dtype, b.shape
    );
    if a.dtype != b.dtype {
        return Err(invalid(
            index,
            format!("{pair} differ in type"),
            Grounds::undefined(
                "kernel_util.cc ValidateAndGetTensorSizes only DCHECKs that the types agree and \
                 copies the bytes",
            ),
        ));
    }
    if a.bytes != b.bytes {
        return Err(invalid(
            index,
            format!("{pair} differ in size ({} vs {} bytes)", a.bytes, b.bytes),
            Grounds::tflm(
                "kernel_util.cc ValidateAndGetTensorSizes returns -1 for tensors of different \
                 sizes, and the copy's TF_LITE_ENSURE(bytes >= 0) fails every invocation that \
                 makes it",
            ),
        ));
    }
    Ok(())
}

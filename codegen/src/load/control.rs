//! IF: its two branch subgraphs become operators of subgraph 0's graph that run under its
//! condition.
//!
//! TFLM's IF (`kernels/if.cc`) reads its condition, a BOOL tensor of one element
//! (`cond->data.b[0]`), copies its other inputs into the inputs of the branch subgraph the
//! condition selects (then or else), invokes that subgraph, and copies the subgraph's outputs
//! into its own (`CopyOpInputsToSubgraphInputs`, `CopySubgraphOutputsToOpOutputs`, byte copies
//! of tensors of one size). tinyaot compiles the same steps into the one straight-line graph:
//! at the IF's place, for each branch, the copies of the IF's inputs into the branch's inputs
//! ([`IfStep::Copy`]) and the branch's operators, all marked with their [`Branch`] (they run only
//! when the condition has that branch's value); then, for each IF output, a selection
//! ([`IfStep::Select`]) that copies the output of the branch that ran. The branch's tensors are
//! appended to the graph's, so that the planner places them in the one arena: the two branches'
//! tensors may share space, since their lifetimes are apart (the then branch's outputs stay live
//! until the selections, after the else branch), and a step of a branch reads the condition
//! ([`Operator::reads`]), which therefore stays live across both.
//!
//! A constant condition inlines the branch it selects alone, unguarded, its outputs copied into
//! the IF's: the other branch is checked against the IF as below, but its operators are not
//! lowered (TFLM's Prepare prepares every subgraph, so it would check them too).
//!
//! Refused as TFLM refuses (its Prepare, or its Eval on every invocation): no condition, a
//! condition that is not one BOOL, a branch index past the subgraphs, a then branch whose input
//! or output count is not the IF's, an else branch whose input count or (nonzero) output count
//! is not the IF's, and a branch tensor whose byte size differs from the IF's. Refused as
//! undefined: a branch index that is negative or 0 (subgraph 0 would run itself without end), an
//! absent IF input, a branch tensor of another type than the IF's (TFLM only `DCHECK`s it), an
//! else branch with no outputs for an IF with some (TFLM copies nothing: the outputs keep
//! whatever the arena held), and a branch input that is a constant (TFLM copies over its data).
//! Not compiled: an IF, WHILE, CALL or resource operator inside a branch, and a branch output
//! that is a constant.

use tinyaot_schema::tflite;

use super::buffer::Buffers;
use super::resource::CONTROL_FLOW;
use super::{index, operator, prepared, tensor};
use crate::error::{Error, Grounds, Result};
use crate::ir::{Branch, DType, IfStep, OpCode, OpKind, Operator, Options, Tensor};
use crate::limits::Limits;

/// The model's parts the pass reads.
pub(super) struct Model<'a, 'm> {
    /// The verified model.
    pub model: tflite::Model<'m>,
    /// Its buffers.
    pub buffers: &'a Buffers<'m>,
    /// The limits in force.
    pub limits: &'a Limits,
}

/// A branch (or a WHILE's condition or body) subgraph loaded on its own: its tensors and
/// operators with the subgraph's indices, its inputs and outputs.
pub(super) struct Subgraph<'m> {
    /// Its tensors.
    pub tensors: Vec<Tensor<'m>>,
    /// Its operators, with the subgraph's indices.
    pub operators: Vec<Operator>,
    /// Its input tensors.
    pub inputs: Vec<usize>,
    /// Its output tensors.
    pub outputs: Vec<usize>,
}

/// Replaces each IF of `operators` (subgraph 0's) by its inlined branches, as the module
/// documentation describes, and each WHILE by its loop (`load/while_loop.rs`), appending the
/// subgraphs' tensors to `tensors`. `constant_bytes` is the running total of constant data, which
/// the subgraphs' constants add to.
pub(super) fn inline<'m>(
    m: &Model<'_, 'm>,
    tensors: &mut Vec<Tensor<'m>>,
    operators: &mut Vec<Operator>,
    constant_bytes: &mut u128,
) -> Result<()> {
    let control = |op: &Operator| {
        op.kind == OpKind::Builtin(OpCode::IF) || op.kind == OpKind::Builtin(OpCode::WHILE)
    };
    if !operators.iter().any(control) {
        return Ok(());
    }
    let mut out = Vec::with_capacity(operators.len());
    for op in std::mem::take(operators) {
        if op.kind == OpKind::Builtin(OpCode::WHILE) {
            super::while_loop::inline_while(m, tensors, &op, &mut out, constant_bytes)?;
        } else if control(&op) {
            inline_if(m, tensors, &op, &mut out, constant_bytes)?;
        } else {
            out.push(op);
        }
    }
    *operators = out;
    Ok(())
}

/// How a control-flow operator's refusals are worded: `invalid(index, detail, grounds)`.
pub(super) type Invalid = fn(usize, String, Grounds) -> Error;

/// Operator `index` of subgraph 0 as the file holds it, for its builtin options.
pub(super) fn source_operator<'m>(m: &Model<'_, 'm>, index: usize) -> Option<tflite::Operator<'m>> {
    m.model
        .subgraphs()
        .and_then(|s| s.iter().next())
        .and_then(|s| s.operators())
        .filter(|ops| index < ops.len())
        .map(|ops| ops.get(index))
}

/// `k`, the index of the `which` subgraph (then, else, cond, body) that control-flow operator
/// `index` names, checked: 0 or negative is refused as undefined (a negative index reads before
/// the subgraphs, and subgraph 0 would invoke itself through the operator without end), past the
/// model's subgraphs as TFLM's Prepare refuses it (`past_end`, its check).
pub(super) fn subgraph_index(
    m: &Model<'_, '_>,
    invalid: Invalid,
    index: usize,
    which: &str,
    k: i32,
    past_end: &'static str,
) -> Result<usize> {
    let k = usize::try_from(k).ok().filter(|&k| k > 0).ok_or_else(|| {
        invalid(
            index,
            format!("its {which}_subgraph_index is {k}"),
            Grounds::undefined(
                "a negative index reads before the subgraphs; subgraph 0 would invoke itself \
                 through this operator without end",
            ),
        )
    })?;
    let count = m.model.subgraphs().map_or(0, |s| s.len());
    if k >= count {
        return Err(invalid(
            index,
            format!("its {which}_subgraph_index is {k}, but the model has {count} subgraphs"),
            Grounds::tflm(past_end),
        ));
    }
    Ok(k)
}

/// The tensors of `inputs` from `first` on (those a control-flow operator copies into its
/// subgraph's inputs), each present: an absent one is refused as undefined.
pub(super) fn present_inputs(
    invalid: Invalid,
    index: usize,
    inputs: &[Option<usize>],
    first: usize,
) -> Result<Vec<usize>> {
    inputs
        .iter()
        .enumerate()
        .skip(first)
        .map(|(i, t)| {
            t.ok_or_else(|| {
                invalid(
                    index,
                    format!("its input {i} is absent"),
                    Grounds::undefined(
                        "CopyOpInputsToSubgraphInputs reads the absent input's tensor (a null \
                         pointer)",
                    ),
                )
            })
        })
        .collect()
}

/// An [`Error::InvalidModel`] about IF operator `index`.
fn invalid(index: usize, detail: String, grounds: Grounds) -> Error {
    Error::InvalidModel {
        detail: format!("operator #{index} IF: {detail}"),
        grounds,
    }
}

/// Inlines IF operator `op` into `out`.
fn inline_if<'m>(
    m: &Model<'_, 'm>,
    tensors: &mut Vec<Tensor<'m>>,
    op: &Operator,
    out: &mut Vec<Operator>,
    constant_bytes: &mut u128,
) -> Result<()> {
    let index = op.source_index;
    if op.inputs.is_empty() {
        return Err(invalid(
            index,
            "it has no inputs; its first input is the condition".to_string(),
            Grounds::tflm("if.cc IfPrepare: TF_LITE_ENSURE(node->inputs->size > 0)"),
        ));
    }
    let Some(cond) = op.input(0) else {
        return Err(invalid(
            index,
            "its condition (input 0) is absent".to_string(),
            Grounds::tflm("if.cc IfPrepare: TF_LITE_ENSURE(cond != nullptr)"),
        ));
    };
    let c = &tensors[cond];
    if c.dtype != DType::Bool || c.num_elements() != 1 {
        return Err(invalid(
            index,
            format!(
                "its condition tensor #{cond} {:?} is {} of shape {:?}; it must be one BOOL",
                c.name, c.dtype, c.shape
            ),
            Grounds::tflm(
                "if.cc IfPrepare: TF_LITE_ENSURE_EQ(cond->type, kTfLiteBool) and \
                 TF_LITE_ENSURE_EQ(NumElements(cond), 1)",
            ),
        ));
    }
    let options = source_operator(m, index).and_then(|o| o.builtin_options_as_if_options());
    // Without options TFLM's parser leaves both indices 0.
    let (then_index, else_index) = options.map_or((0, 0), |o| {
        (o.then_subgraph_index(), o.else_subgraph_index())
    });
    let args = present_inputs(invalid, index, &op.inputs, 1)?;
    let mut branches = Vec::new();
    for (taken, which, k) in [(true, "then", then_index), (false, "else", else_index)] {
        let k = subgraph_index(
            m,
            invalid,
            index,
            which,
            k,
            "if.cc IfPrepare: TF_LITE_ENSURE(then_subgraph_index < NumSubgraphs()), and the \
             same of else_subgraph_index",
        )?;
        let sub = load_subgraph(m, k, "an IF branch", constant_bytes)?;
        check_branch(index, taken, k, &sub, tensors, (&args, &op.outputs))?;
        branches.push((taken, k, sub));
    }
    let constant = tensors[cond]
        .data
        .as_deref()
        .map(|bytes| bytes.first().is_some_and(|&b| b != 0));
    let mut outputs_of = Vec::new();
    for (taken, k, sub) in branches {
        if constant.is_some_and(|c| c != taken) {
            // A constant condition: the other branch never runs.
            continue;
        }
        let base = tensors.len();
        m.limits.check_tensors(base + sub.tensors.len())?;
        tensors.extend(sub.tensors);
        let branch = match constant {
            Some(_) => None,
            None => Some(Branch {
                cond,
                taken,
                subgraph: k,
                caller: index,
            }),
        };
        for (&arg, &input) in args.iter().zip(&sub.inputs) {
            out.push(step(op, IfStep::Copy, branch, vec![arg], base + input));
        }
        for mut o in sub.operators {
            for t in o.inputs.iter_mut().flatten() {
                *t += base;
            }
            for t in o.outputs.iter_mut().chain(&mut o.intermediates) {
                *t += base;
            }
            o.branch = branch;
            out.push(o);
        }
        outputs_of.push(sub.outputs.iter().map(|&t| t + base).collect::<Vec<_>>());
    }
    match outputs_of.as_slice() {
        [then, otherwise] => {
            for (j, &output) in op.outputs.iter().enumerate() {
                let inputs = vec![cond, then[j], otherwise[j]];
                out.push(step(op, IfStep::Select, None, inputs, output));
            }
        }
        [only] => {
            for (&output, &from) in op.outputs.iter().zip(only) {
                out.push(step(op, IfStep::Copy, None, vec![from], output));
            }
        }
        _ => {}
    }
    Ok(())
}

/// A step of IF `op`: reads `inputs`, writes `output`.
fn step(
    op: &Operator,
    kind: IfStep,
    branch: Option<Branch>,
    inputs: Vec<usize>,
    output: usize,
) -> Operator {
    Operator {
        kind: op.kind.clone(),
        version: op.version,
        options: Options::If(kind),
        inputs: inputs.into_iter().map(Some).collect(),
        outputs: vec![output],
        intermediates: Vec::new(),
        source_index: op.source_index,
        branch,
        looped: None,
    }
}

/// Loads subgraph `k` as a branch, or a WHILE's condition or body (`role`, as messages say it:
/// `an IF branch`): its tensors and operators as subgraph 0's are loaded (with the shapes TFLM's
/// Prepare writes and the state of the signal operators), refusing the operators that run other
/// subgraphs or use resource variables (so a subgraph never reaches itself: no recursion).
pub(super) fn load_subgraph<'m>(
    m: &Model<'_, 'm>,
    k: usize,
    role: &str,
    constant_bytes: &mut u128,
) -> Result<Subgraph<'m>> {
    let Some(subgraph) = m.model.subgraphs().map(|s| s.get(k)) else {
        return Err(Error::Subgraphs { count: 0 });
    };
    let limits = m.limits;
    limits.check_tensors(subgraph.tensors().map_or(0, |t| t.len()))?;
    limits.check_operators(subgraph.operators().map_or(0, |o| o.len()))?;
    let mut tensors = Vec::new();
    for (i, t) in subgraph.tensors().into_iter().flatten().enumerate() {
        if t.type_() == tflite::TensorType::RESOURCE {
            return Err(Error::Unsupported {
                detail: format!(
                    "tensor #{i} of subgraph {k} ({role}) is a resource variable handle; \
                     tinyaot compiles resource variables in subgraph 0 only"
                ),
            });
        }
        let tensor = tensor::tensor(i, t, m.buffers, limits)?;
        if let Some(data) = &tensor.data {
            *constant_bytes += data.len() as u128;
            limits.check_constant_bytes(*constant_bytes)?;
        }
        tensors.push(tensor);
    }
    let codes = m.model.operator_codes();
    let mut operators = subgraph
        .operators()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, op)| operator::operator(i, op, codes, tensors.len()))
        .collect::<Result<Vec<_>>>()?;
    const RESOURCE_OPS: &[OpCode] = &[
        OpCode::CALL_ONCE,
        OpCode::VAR_HANDLE,
        OpCode::READ_VARIABLE,
        OpCode::ASSIGN_VARIABLE,
    ];
    for op in &operators {
        if let Some(code) = op
            .kind
            .code()
            .filter(|c| CONTROL_FLOW.contains(c) || RESOURCE_OPS.contains(c))
        {
            return Err(Error::Unsupported {
                detail: format!(
                    "operator #{} {} of subgraph {k}, {role}: tinyaot compiles IF branches \
                     and WHILE conditions and bodies without control flow or resource \
                     variables in them (an IF or WHILE of subgraph 0 only; code {})",
                    op.source_index,
                    op.kind.name(),
                    code.0
                ),
            });
        }
    }
    let inputs = index::tensor_list(
        subgraph.inputs(),
        tensors.len(),
        &format!("subgraph {k} input"),
    )?;
    let outputs = index::tensor_list(
        subgraph.outputs(),
        tensors.len(),
        &format!("subgraph {k} output"),
    )?;
    super::signal_state(&subgraph, &mut tensors, &mut operators);
    prepared::apply(subgraph, &mut tensors, &operators, limits)?;
    super::empty_constants(&mut tensors, &operators, &inputs);
    Ok(Subgraph {
        tensors,
        operators,
        inputs,
        outputs,
    })
}

/// Checks branch subgraph `k` (then when `taken`) of IF operator `index` against the IF's
/// inputs and outputs `io`, as TFLM's Prepare and Eval check them.
fn check_branch(
    index: usize,
    taken: bool,
    k: usize,
    sub: &Subgraph,
    tensors: &[Tensor],
    io: (&[usize], &[usize]),
) -> Result<()> {
    let which = if taken { "then" } else { "else" };
    let (args, results) = io;
    let counts = |what: &str, ours: usize, theirs: usize| {
        let grounds = match taken {
            true => Grounds::tflm(
                "if.cc IfPrepare: TF_LITE_ENSURE_EQ(num_inputs, NumSubgraphInputs(then)) and \
                 TF_LITE_ENSURE_EQ(num_outputs, NumSubgraphOutputs(then))",
            ),
            false => Grounds::tflm(
                "kernel_util.cc CopyOpInputsToSubgraphInputs and \
                 CopySubgraphOutputsToOpOutputs: TF_LITE_ENSURE of equal counts, failing \
                 every invocation that takes the else branch",
            ),
        };
        invalid(
            index,
            format!(
                "it passes {ours} {what}s but its {which} branch, subgraph {k}, has {theirs} \
                 (an IF's inputs after the condition are its branches' inputs)"
            ),
            grounds,
        )
    };
    if sub.inputs.len() != args.len() {
        return Err(counts("input", args.len(), sub.inputs.len()));
    }
    if sub.outputs.is_empty() && !results.is_empty() {
        if taken {
            return Err(counts("output", results.len(), 0));
        }
        return Err(invalid(
            index,
            format!(
                "it has {} outputs but its else branch, subgraph {k}, has none",
                results.len()
            ),
            Grounds::undefined(
                "CopySubgraphOutputsToOpOutputs copies nothing from a subgraph without outputs: \
                 the IF's outputs keep whatever the arena held",
            ),
        ));
    }
    if sub.outputs.len() != results.len() {
        return Err(counts("output", results.len(), sub.outputs.len()));
    }
    let pairs = args
        .iter()
        .zip(&sub.inputs)
        .enumerate()
        .map(|(i, (&ours, &theirs))| ("input", i + 1, ours, theirs))
        .chain(
            results
                .iter()
                .zip(&sub.outputs)
                .enumerate()
                .map(|(i, (&ours, &theirs))| ("output", i, ours, theirs)),
        );
    for (what, i, ours, theirs) in pairs {
        let (a, b) = (&tensors[ours], &sub.tensors[theirs]);
        let pair = format!(
            "its {what} {i}, tensor #{ours} {:?} ({} {:?}), and tensor #{theirs} {:?} of its \
             {which} branch, subgraph {k} ({} {:?}),",
            a.name, a.dtype, a.shape, b.name, b.dtype, b.shape
        );
        if a.dtype != b.dtype {
            return Err(invalid(
                index,
                format!("{pair} differ in type"),
                Grounds::undefined(
                    "kernel_util.cc ValidateAndGetTensorSizes only DCHECKs that the types agree \
                     and copies the bytes",
                ),
            ));
        }
        if a.bytes != b.bytes {
            return Err(invalid(
                index,
                format!("{pair} differ in size ({} vs {} bytes)", a.bytes, b.bytes),
                Grounds::tflm(
                    "kernel_util.cc ValidateAndGetTensorSizes returns -1 for tensors of \
                     different sizes, and the copy's TF_LITE_ENSURE(bytes >= 0) fails every \
                     invocation that takes the branch",
                ),
            ));
        }
        if what == "input" && b.is_constant() {
            return Err(invalid(
                index,
                format!("{pair} but the branch's input is a constant"),
                Grounds::undefined("TFLM copies the IF's input over the constant's data"),
            ));
        }
        if what == "output" && b.is_constant() {
            return Err(Error::Unsupported {
                detail: format!(
                    "operator #{index} IF: the output {i} of its {which} branch, subgraph {k}, \
                     is a constant tensor; tinyaot compiles IF branches whose outputs are \
                     computed or passed through"
                ),
            });
        }
    }
    Ok(())
}

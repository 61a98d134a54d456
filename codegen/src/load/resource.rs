//! Resource variables and CALL_ONCE: a streaming model (microWakeWord's form) keeps its ring
//! buffers in resource variables, which subgraph 0 reads (`READ_VARIABLE`) and writes
//! (`ASSIGN_VARIABLE`) through handles (`VAR_HANDLE`, keyed by container and shared name, as
//! TFLM's `MicroResourceVariables` keys them: as bytes, which need not be UTF-8), and which a
//! `CALL_ONCE` at its start sets up by running an init subgraph once.
//!
//! tinyaot compiles such a model whole, into the one-subgraph IR:
//! - each resource variable subgraph 0 uses becomes one variable tensor of the IR (appended after
//!   the subgraph's own tensors; the planner puts it in the state region), with the dtype, shape
//!   and quantization of the values assigned to it (all assignments must agree in dtype and size,
//!   as TFLM's resource buffer is sized by the first one);
//! - `READ_VARIABLE` keeps its output and reads that tensor; `ASSIGN_VARIABLE` becomes an op that
//!   reads the value and writes that tensor (its only output); both lower to byte copies;
//! - `VAR_HANDLE` and `CALL_ONCE` keep their place (operator indices stay the file's) but lose
//!   their operands: they lower to nothing;
//! - the init subgraph is evaluated here, at generation time: it may only assign constants
//!   (`VAR_HANDLE`, `ASSIGN_VARIABLE` of a constant tensor), and those bytes become the variable's
//!   initial value, which the generated `new()`/`reset()` restore.
//!
//! Refused, naming the operator and subgraph: a `CALL_ONCE` after a variable access, an init
//! subgraph that computes anything, a variable read before any assignment, a resource tensor used
//! by any other operator or as a graph input or output, and every other way of running a subgraph
//! (`IF`, `WHILE`, `CALL`, the StableHLO ops with subgraph bodies). Subgraphs no `CALL_ONCE` names
//! are never run by TFLM (its interpreter invokes subgraph 0), and are ignored.

use std::collections::HashMap;

use tinyaot_schema::tflite;

use super::buffer::Buffers;
use super::graph::{SECOND_WRITER, UNINITIALIZED};
use super::{operator, tensor, text};
use crate::error::{Error, Grounds, Result};
use crate::ir::{OpCode, Operator, Tensor};
use crate::limits::Limits;

/// Operators that run another subgraph (control flow), which tinyaot does not compile (but IF and
/// WHILE, whose subgraphs `load/control.rs` and `load/while_loop.rs` inline, outside this
/// module).
pub(super) const CONTROL_FLOW: &[OpCode] = &[
    OpCode::CALL,
    OpCode::IF,
    OpCode::WHILE,
    OpCode::STABLEHLO_WHILE,
    OpCode::STABLEHLO_CASE,
    OpCode::STABLEHLO_COMPOSITE,
    OpCode::STABLEHLO_REDUCE,
    OpCode::STABLEHLO_REDUCE_WINDOW,
    OpCode::STABLEHLO_SORT,
    OpCode::STABLEHLO_SCATTER,
];

/// The model as the resolution needs it.
pub(super) struct Model<'a, 'm> {
    /// The verified model.
    pub model: tflite::Model<'m>,
    /// Its buffers.
    pub buffers: &'a Buffers<'m>,
    /// The limits in force.
    pub limits: &'a Limits,
}

/// A resource variable's key: (container, shared name), the bytes as stored.
type Key<'m> = (&'m [u8], &'m [u8]);

/// One resource variable: its key and what is known of it so far.
struct Variable<'m> {
    /// `container/shared_name` for messages (bytes that are not UTF-8 escaped).
    name: String,
    /// The first assigned value: (dtype, shape, quantization) template, as a tensor.
    template: Option<Tensor<'m>>,
    /// The value the init subgraph leaves in it.
    initial: Option<std::borrow::Cow<'m, [u8]>>,
    /// Assigned (by the init subgraph or an earlier operator of subgraph 0).
    assigned: bool,
    /// Its IR tensor, once created.
    tensor: Option<usize>,
}

/// Rewrites the resource operators of `ops` (subgraph 0) as described in the module
/// documentation: appends one variable tensor per resource variable to `tensors`, and returns
/// each new tensor's initial bytes (the constant the init subgraph assigns), if any.
///
/// `resource[t]` says whether tensor `t` of subgraph 0 is a RESOURCE handle.
pub(super) fn resolve<'m>(
    m: &Model<'_, 'm>,
    tensors: &mut Vec<Tensor<'m>>,
    ops: &mut [Operator],
    resource: &[bool],
    io: (&[usize], &[usize]),
) -> Result<Vec<(usize, std::borrow::Cow<'m, [u8]>)>> {
    for (what, list) in [("input", io.0), ("output", io.1)] {
        if let Some(&t) = list.iter().find(|&&t| resource[t]) {
            return Err(unsupported(format!(
                "graph {what} tensor #{t} {:?} is a resource variable handle; tinyaot reads and \
                 writes resource variables only through READ_VARIABLE and ASSIGN_VARIABLE",
                tensors[t].name
            )));
        }
    }
    let mut vars: Vec<Variable<'m>> = Vec::new();
    let mut by_key: HashMap<Key<'m>, usize> = HashMap::new();
    // The variable each handle tensor of subgraph 0 names, once its VAR_HANDLE has run.
    let mut handle: Vec<Option<usize>> = vec![None; tensors.len()];
    let mut first_access: Option<usize> = None;
    let source_ops = m
        .model
        .subgraphs()
        .and_then(|s| s.iter().next())
        .and_then(|s| s.operators());
    for (index, op) in ops.iter_mut().enumerate() {
        let name = op.kind.name();
        let code = op.kind.code();
        if let Some(code) =
            code.filter(|&c| CONTROL_FLOW.contains(&c) && c != OpCode::IF && c != OpCode::WHILE)
        {
            return Err(unsupported(format!(
                "operator #{index} {name} runs other subgraphs (control flow); tinyaot compiles \
                 subgraph 0 straight through and runs another subgraph only as an IF's branch \
                 (inlined under its condition), a WHILE's condition or body (inlined as a \
                 loop) or CALL_ONCE's init subgraph, evaluated at generation time (code {})",
                code.0
            )));
        }
        match code {
            Some(OpCode::CALL_ONCE) => {
                if let Some(access) = first_access {
                    return Err(unsupported(format!(
                        "operator #{index} CALL_ONCE comes after operator #{access}, which \
                         accesses a resource variable; tinyaot sets the variables' initial \
                         values before the first invocation, so CALL_ONCE must come before every \
                         READ_VARIABLE and ASSIGN_VARIABLE"
                    )));
                }
                no_operands(index, op)?;
                let target = source_ops
                    .filter(|o| index < o.len())
                    .map(|o| o.get(index))
                    .and_then(|o| o.builtin_options_as_call_once_options())
                    .map_or(0, |o| o.init_subgraph_index());
                init_subgraph(m, index, target, &mut vars, &mut by_key)?;
            }
            Some(OpCode::VAR_HANDLE) => {
                let key = var_handle_key(source_ops, index)?;
                if !op.inputs.is_empty() || op.outputs.len() != 1 {
                    return Err(invalid(
                        format!(
                        "operator #{index} VAR_HANDLE has {} inputs and {} outputs; it takes none \
                         and writes one resource handle",
                        op.inputs.len(),
                        op.outputs.len()
                    ),
                        Grounds::undefined(
                            "var_handle.cc VarHandlePrepare writes output 0 and checks \
                             NumOutputs(node) == 1 only with TFLITE_DCHECK",
                        ),
                    ));
                }
                let out = op.outputs[0];
                if !resource[out] {
                    return Err(invalid(
                        format!(
                        "operator #{index} VAR_HANDLE writes tensor #{out} {:?}, which is not a \
                         RESOURCE tensor",
                        tensors[out].name
                    ),
                        Grounds::tflm(
                            "assign_variable.cc AssignVariablePrepare: TF_LITE_ENSURE(resource id \
                             tensor type is RESOURCE or INT32), and read_variable.cc Prepare: \
                             TFLITE_DCHECK(type == kTfLiteResource)",
                        ),
                    ));
                }
                if handle[out].is_some() {
                    return Err(invalid(
                        format!(
                            "resource handle tensor #{out} {:?} is written by two VAR_HANDLE \
                             operators; each tensor must have one writer",
                            tensors[out].name
                        ),
                        SECOND_WRITER,
                    ));
                }
                handle[out] = Some(variable(&mut vars, &mut by_key, key));
                op.outputs.clear();
            }
            Some(OpCode::READ_VARIABLE) => {
                if op.inputs.len() != 1 || op.outputs.len() != 1 {
                    return Err(arity(
                        index,
                        &name,
                        op,
                        (1, 1),
                        Grounds::undefined(
                            "read_variable.cc ReadVariablePrepare checks NumInputs(node) == 1 \
                             and NumOutputs(node) == 1 only with TFLITE_DCHECK, then reads input \
                             0 and writes output 0",
                        ),
                    ));
                }
                let var = handle_of(index, &name, op.input(0), &handle, tensors)?;
                first_access.get_or_insert(index);
                let out = op.outputs[0];
                if resource[out] {
                    return Err(invalid(
                        format!(
                        "operator #{index} READ_VARIABLE writes resource tensor #{out}; it reads \
                         a variable's value into an ordinary tensor"
                    ),
                        Grounds::undefined(
                            "micro_resource_variable.cc Read copies the variable's bytes into the \
                             output, here a one-element resource handle: an out-of-bounds write",
                        ),
                    ));
                }
                let v = &mut vars[var];
                if !v.assigned {
                    return Err(unsupported(format!(
                        "operator #{index} READ_VARIABLE reads resource variable {:?} before any \
                         ASSIGN_VARIABLE (in the CALL_ONCE init subgraph or earlier in subgraph \
                         0) gives it a value; TFLM would read a buffer it has not sized",
                        v.name
                    )));
                }
                let state = state_tensor(v, tensors)?;
                agree(
                    index,
                    &name,
                    "output",
                    &tensors[out],
                    out,
                    v,
                    &tensors[state],
                )?;
                op.inputs = vec![Some(state)];
            }
            Some(OpCode::ASSIGN_VARIABLE) => {
                if op.inputs.len() != 2 || !op.outputs.is_empty() {
                    return Err(arity(
                        index,
                        &name,
                        op,
                        (2, 0),
                        Grounds::tflm(
                            "assign_variable.cc AssignVariablePrepare: TF_LITE_ENSURE_EQ(\
                             NumInputs(node), 2) and TF_LITE_ENSURE_EQ(NumOutputs(node), 0)",
                        ),
                    ));
                }
                let var = handle_of(index, &name, op.input(0), &handle, tensors)?;
                first_access.get_or_insert(index);
                let Some(value) = op.input(1).filter(|&t| !resource[t]) else {
                    return Err(invalid(
                        format!(
                        "operator #{index} ASSIGN_VARIABLE: its value (input 1) is absent or a \
                         resource handle"
                    ),
                        Grounds::undefined(
                            "assign_variable.cc AssignVariableEval reads input 1 unchecked: \
                             absent, it is a null tensor; a resource handle, its bytes are an \
                             id, not a value",
                        ),
                    ));
                };
                let v = &mut vars[var];
                assign(index, &name, "subgraph 0", v, &tensors[value], value)?;
                let state = state_tensor(v, tensors)?;
                op.inputs = vec![Some(value)];
                op.outputs = vec![state];
            }
            _ => {
                if let Some(t) = op
                    .inputs
                    .iter()
                    .flatten()
                    .chain(&op.outputs)
                    .find(|&&t| resource[t])
                {
                    return Err(unsupported(format!(
                        "operator #{index} {name} uses resource handle tensor #{t} {:?}; only \
                         READ_VARIABLE and ASSIGN_VARIABLE take resource variables",
                        tensors[*t].name
                    )));
                }
            }
        }
    }
    Ok(vars
        .iter()
        .filter_map(|v| Some((v.tensor?, v.initial.clone()?)))
        .collect())
}

/// The key of VAR_HANDLE operator `index`: (container, shared name), as bytes. TFLM compares them
/// with `strcmp`, never as text, so a name that is not UTF-8 is a name like any other, and two
/// names that differ in a byte are two variables (tinyaot compares every byte; `strcmp` would stop
/// at a 0 byte inside a name). TFLM looks a variable up by both (a handle without a container
/// matching any container; tinyaot reads an absent container as the empty one); a handle without a
/// shared name would crash TFLM's lookup.
fn var_handle_key<'m>(
    ops: Option<flatbuffers::Vector<'m, flatbuffers::ForwardsUOffset<tflite::Operator<'m>>>>,
    index: usize,
) -> Result<Key<'m>> {
    let options = ops
        .filter(|o| index < o.len())
        .and_then(|o| o.get(index).builtin_options_as_var_handle_options());
    match options.and_then(|o| {
        Some((
            o.container_bytes().unwrap_or_default(),
            o.shared_name_bytes()?,
        ))
    }) {
        Some(key) => Ok(key),
        None => Err(invalid(
            format!(
                "operator #{index} VAR_HANDLE has no shared_name; TFLM identifies a resource \
                 variable by it"
            ),
            Grounds::undefined(
                "micro_resource_variable.cc CreateIdIfNoneFound compares shared_name \
                 with strcmp: a missing one is a null pointer",
            ),
        )),
    }
}

/// The variable of key (container, shared), created on first use.
fn variable<'m>(
    vars: &mut Vec<Variable<'_>>,
    by_key: &mut HashMap<Key<'m>, usize>,
    (container, shared): Key<'m>,
) -> usize {
    *by_key.entry((container, shared)).or_insert_with(|| {
        let name = if container.is_empty() {
            text(Some(shared))
        } else {
            format!("{}/{}", text(Some(container)), text(Some(shared)))
        };
        vars.push(Variable {
            name,
            template: None,
            initial: None,
            assigned: false,
            tensor: None,
        });
        vars.len() - 1
    })
}

/// The variable that resource handle `input` (of operator `index`) names.
fn handle_of(
    index: usize,
    name: &str,
    input: Option<usize>,
    handle: &[Option<usize>],
    tensors: &[Tensor],
) -> Result<usize> {
    match input {
        Some(t) => handle[t].ok_or_else(|| {
            invalid(
                format!(
                "operator #{index} {name} takes tensor #{t} {:?} as its resource handle, which no \
                 earlier VAR_HANDLE writes",
                tensors[t].name
            ),
                UNINITIALIZED,
            )
        }),
        None => Err(invalid(
            format!("operator #{index} {name} has no resource handle (input 0 is absent)"),
            Grounds::undefined(
                "GetEvalInput of an absent input 0 is a null tensor, dereferenced unchecked",
            ),
        )),
    }
}

/// Records an assignment of `value` (tensor #`t`) to `v`: the first fixes its type and size, each
/// later one must agree (TFLM copies the value's bytes into a buffer the first one sized).
fn assign<'m>(
    index: usize,
    name: &str,
    subgraph: &str,
    v: &mut Variable<'m>,
    value: &Tensor<'m>,
    t: usize,
) -> Result<()> {
    match &v.template {
        Some(first) if first.dtype != value.dtype || first.bytes != value.bytes => {
            let detail = format!(
                "operator #{index} {name} of {subgraph} assigns tensor #{t} {:?} ({} {:?}) to \
                 resource variable {:?}, which an earlier assignment made {} {:?}; every value of \
                 a variable must have the same type and size",
                value.name, value.dtype, value.shape, v.name, first.dtype, first.shape
            );
            return Err(if first.bytes != value.bytes {
                invalid(detail, SIZE_CHECK)
            } else {
                unsupported(detail)
            });
        }
        Some(_) => {}
        None => {
            v.template = Some(Tensor {
                name: v.name.clone(),
                data: None,
                is_variable: true,
                ..value.clone()
            })
        }
    }
    v.assigned = true;
    Ok(())
}

/// Checks that tensor #`t` (operator `index`'s `what`) has the variable's type and size.
fn agree(
    index: usize,
    name: &str,
    what: &str,
    tensor: &Tensor,
    t: usize,
    v: &Variable,
    state: &Tensor,
) -> Result<()> {
    if tensor.dtype != state.dtype || tensor.bytes != state.bytes {
        let detail = format!(
            "operator #{index} {name}: its {what}, tensor #{t} {:?} ({} {:?}), differs in type or \
             size from resource variable {:?} ({} {:?})",
            tensor.name, tensor.dtype, tensor.shape, v.name, state.dtype, state.shape
        );
        return Err(if tensor.bytes != state.bytes {
            invalid(detail, SIZE_CHECK)
        } else {
            unsupported(detail)
        });
    }
    Ok(())
}

/// Why a variable's value of another size is refused: TFLM copies the variable's own size, and
/// checks the sizes agree only in debug builds.
const SIZE_CHECK: Grounds = Grounds::undefined(
    "micro_resource_variable.cc Read and Assign check that the tensor's bytes equal the \
     variable's only with TFLITE_DCHECK, then copy the variable's size (past the smaller buffer)",
);

/// The IR tensor of variable `v`, appended to `tensors` the first time.
fn state_tensor<'m>(v: &mut Variable<'m>, tensors: &mut Vec<Tensor<'m>>) -> Result<usize> {
    if let Some(t) = v.tensor {
        return Ok(t);
    }
    let template = v.template.clone().ok_or_else(|| Error::Internal {
        detail: format!("resource variable {:?} has no assigned value", v.name),
    })?;
    tensors.push(template);
    v.tensor = Some(tensors.len() - 1);
    Ok(tensors.len() - 1)
}

/// Evaluates the init subgraph `target` that CALL_ONCE operator `caller` runs: it may only
/// assign constants to resource variables; their values become the variables' initial values.
fn init_subgraph<'m>(
    m: &Model<'_, 'm>,
    caller: usize,
    target: i32,
    vars: &mut Vec<Variable<'m>>,
    by_key: &mut HashMap<Key<'m>, usize>,
) -> Result<()> {
    let subgraphs = m.model.subgraphs();
    let count = subgraphs.map_or(0, |s| s.len());
    let sub = match (subgraphs, usize::try_from(target)) {
        (Some(s), Ok(i)) if i > 0 && i < count => s.get(i),
        (_, Ok(0)) => {
            return Err(invalid(
                format!(
                    "operator #{caller} CALL_ONCE names subgraph 0, the one it is in, as its init \
                     subgraph (a cycle)"
                ),
                Grounds::undefined(
                    "call_once.cc CallOnceEval sets has_run only after its init subgraph \
                     returns, so invoking its own subgraph recurses without end (stack \
                     overflow)",
                ),
            ))
        }
        _ => {
            return Err(Error::IndexOutOfRange {
                context: format!("operator #{caller} CALL_ONCE init_subgraph_index"),
                index: i64::from(target),
                len: count,
            })
        }
    };
    let here = format!("subgraph {target} (the init subgraph of operator #{caller} CALL_ONCE)");
    if sub.inputs().is_some_and(|v| !v.is_empty()) || sub.outputs().is_some_and(|v| !v.is_empty()) {
        return Err(unsupported(format!(
            "{here} has inputs or outputs; CALL_ONCE runs a subgraph that takes and returns \
             nothing"
        )));
    }
    let raw_tensors = sub.tensors();
    let num_tensors = raw_tensors.map_or(0, |t| t.len());
    m.limits.check_tensors(num_tensors)?;
    let raw_ops = sub.operators();
    m.limits.check_operators(raw_ops.map_or(0, |o| o.len()))?;
    let is_resource = |t: usize| {
        raw_tensors.is_some_and(|r| t < r.len() && r.get(t).type_() == tflite::TensorType::RESOURCE)
    };
    let mut handle: HashMap<usize, usize> = HashMap::new();
    for (i, raw) in raw_ops.into_iter().flatten().enumerate() {
        let op = operator::operator(i, raw, m.model.operator_codes(), num_tensors)?;
        let name = op.kind.name();
        match op.kind.code() {
            Some(OpCode::VAR_HANDLE) if op.inputs.is_empty() && op.outputs.len() == 1 => {
                let out = op.outputs[0];
                if !is_resource(out) {
                    return Err(invalid(
                        format!(
                        "operator #{i} VAR_HANDLE of {here} writes tensor #{out}, which is not a \
                         RESOURCE tensor"
                    ),
                        Grounds::tflm(
                            "assign_variable.cc AssignVariablePrepare: TF_LITE_ENSURE(resource id \
                             tensor type is RESOURCE or INT32), and read_variable.cc Prepare: \
                             TFLITE_DCHECK(type == kTfLiteResource)",
                        ),
                    ));
                }
                let key = var_handle_key(raw_ops, i)?;
                handle.insert(out, variable(vars, by_key, key));
            }
            Some(OpCode::ASSIGN_VARIABLE) if op.inputs.len() == 2 && op.outputs.is_empty() => {
                let var = op
                    .input(0)
                    .and_then(|t| handle.get(&t).copied())
                    .ok_or_else(|| {
                        invalid(
                            format!(
                                "operator #{i} ASSIGN_VARIABLE of {here} takes a resource handle \
                                 no earlier VAR_HANDLE of that subgraph writes"
                            ),
                            UNINITIALIZED,
                        )
                    })?;
                let constant = match op.input(1) {
                    Some(t) if !is_resource(t) => {
                        let raw = raw_tensors
                            .map(|r| r.get(t))
                            .ok_or_else(|| Error::Internal {
                                detail: "init subgraph tensor table vanished".to_string(),
                            })?;
                        Some((t, tensor::tensor(t, raw, m.buffers, m.limits)?))
                    }
                    _ => None,
                };
                let Some((t, value)) = constant.filter(|(_, v)| v.data.is_some()) else {
                    return Err(unsupported(format!(
                        "operator #{i} ASSIGN_VARIABLE of {here} assigns a value that is not a \
                         constant tensor; tinyaot evaluates init subgraphs at generation time, so \
                         they may only assign constants"
                    )));
                };
                let v = &mut vars[var];
                assign(i, &name, &here, v, &value, t)?;
                v.initial = value.data.clone();
            }
            _ => {
                return Err(unsupported(format!(
                    "operator #{i} {name} of {here}: tinyaot evaluates init subgraphs at \
                     generation time, so they may only assign constants to resource variables \
                     (VAR_HANDLE, and ASSIGN_VARIABLE of a constant tensor)"
                )))
            }
        }
    }
    Ok(())
}

/// Refuses CALL_ONCE operator `index` with operands (TFLM's Prepare checks it has none).
fn no_operands(index: usize, op: &Operator) -> Result<()> {
    if op.inputs.is_empty() && op.outputs.is_empty() {
        Ok(())
    } else {
        Err(arity(
            index,
            "CALL_ONCE",
            op,
            (0, 0),
            Grounds::tflm(
                "call_once.cc CallOncePrepare: TF_LITE_ENSURE(NumInputs(node) == 0) and \
                 TF_LITE_ENSURE(NumOutputs(node) == 0)",
            ),
        ))
    }
}

/// The refusal of an operator with other than `inputs` inputs and `outputs` outputs; `grounds`
/// names the TFLM check that refuses it.
fn arity(
    index: usize,
    name: &str,
    op: &Operator,
    (inputs, outputs): (usize, usize),
    grounds: Grounds,
) -> Error {
    invalid(
        format!(
            "operator #{index} {name} has {} inputs and {} outputs; it takes {inputs} and \
             {outputs}",
            op.inputs.len(),
            op.outputs.len()
        ),
        grounds,
    )
}

fn invalid(detail: String, grounds: Grounds) -> Error {
    Error::InvalidModel { detail, grounds }
}

fn unsupported(detail: String) -> Error {
    Error::Unsupported { detail }
}

//! Resource variables: VAR_HANDLE, READ_VARIABLE and ASSIGN_VARIABLE in subgraph 0, and CALL_ONCE
//! running an init subgraph that gives a variable its first value.

use super::{FuzzOp, Gen, Value};
use crate::{BuiltinOperator as B, OpSpec, Options, SubgraphSpec, TensorData, TensorSpec, TensorType};

/// This family's operators (see [`FuzzOp`]): each draws one of the patterns of [`variable`].
pub(super) const OPS: &[FuzzOp] = &[
    FuzzOp::new(B::ASSIGN_VARIABLE, variable),
    FuzzOp::new(B::CALL_ONCE, variable),
    FuzzOp::new(B::READ_VARIABLE, variable),
    FuzzOp::new(B::VAR_HANDLE, variable),
];

/// The resource operators, refused inside an IF branch or a WHILE condition or body.
pub(super) const RESOURCE: [B; 4] = [
    B::ASSIGN_VARIABLE,
    B::CALL_ONCE,
    B::READ_VARIABLE,
    B::VAR_HANDLE,
];

/// A variable of the latest value's spec, through a VAR_HANDLE (a container now and then, a name
/// shared with an earlier variable now and then). CALL_ONCE and READ_VARIABLE: an init subgraph
/// assigns it a constant (a CALL_ONCE at subgraph 0's start, now and then at the current place,
/// after other variables' accesses, which tinyaot must refuse cleanly), then `READ(v)` is the new
/// value and `ASSIGN(v, latest)`. VAR_HANDLE and ASSIGN_VARIABLE: `ASSIGN(v, latest)` then
/// `READ(v)` (now and then of another spec: TFLM's variable keeps its first size).
fn variable(g: &mut Gen<'_, '_>, op: B) {
    let v = g.latest();
    let Some(spec) = g.tensor(v.index).cloned().map(|t| unnamed(&t)) else {
        return g.emit(B::RELU);
    };
    let name = format!("v{}", g.int(0, 2));
    let container = g.chance(20).then(|| "c".to_string());
    let handle = handle(g, &container, &name);
    let mut read = spec.clone();
    if g.chance(5) {
        read.shape = Some(vec![g.int(1, 4)]);
    }
    let out = g.m.tensor(read);
    if matches!(op, B::CALL_ONCE | B::READ_VARIABLE) {
        let bytes = g.bytes(super::elements(spec.shape.as_deref().unwrap_or(&[])) * size(spec.dtype));
        let mut init = SubgraphSpec::default();
        init.tensors.push(TensorSpec::new(TensorType::RESOURCE, &[]));
        init.tensors.push(spec.clone().constant(bytes));
        let (handle_code, assign_code) = (g.m.opcode(B::VAR_HANDLE), g.m.opcode(B::ASSIGN_VARIABLE));
        init.operators.push(op_spec(handle_code, var_handle(&container, &name), vec![], vec![0]));
        init.operators.push(op_spec(assign_code, Options::None, vec![0, 1], vec![]));
        // Its operators index the model's codes already.
        let codes = g.m.opcodes.clone();
        let index = g.m.push_subgraph(init, &codes);
        let code = g.m.opcode(B::CALL_ONCE);
        let call = op_spec(code, Options::CallOnce { init_subgraph: index }, vec![], vec![]);
        if g.chance(90) {
            g.m.operators.insert(0, call);
        } else {
            g.m.operators.push(call);
        }
        g.m.op(B::READ_VARIABLE, Options::None, &[handle], &[out]);
        g.m.op(B::ASSIGN_VARIABLE, Options::None, &[handle, v.index], &[]);
    } else {
        g.m.op(B::ASSIGN_VARIABLE, Options::None, &[handle, v.index], &[]);
        g.m.op(B::READ_VARIABLE, Options::None, &[handle], &[out]);
    }
    g.values.push(Value { index: out });
}

/// A VAR_HANDLE in subgraph 0: its RESOURCE output.
fn handle(g: &mut Gen<'_, '_>, container: &Option<String>, name: &str) -> i32 {
    let t = g.m.tensor(TensorSpec::new(TensorType::RESOURCE, &[]));
    g.m.op(B::VAR_HANDLE, var_handle(container, name), &[], &[t]);
    t
}

fn var_handle(container: &Option<String>, name: &str) -> Options {
    Options::VarHandle {
        container: container.clone(),
        shared_name: Some(name.to_string()),
    }
}

fn op_spec(opcode_index: u32, options: Options, inputs: Vec<i32>, outputs: Vec<i32>) -> OpSpec {
    OpSpec {
        opcode_index,
        inputs,
        outputs,
        intermediates: Vec::new(),
        options,
        custom_options: None,
    }
}

/// Bytes per element of the types the chain's values have.
fn size(dtype: TensorType) -> usize {
    match dtype {
        TensorType::INT8 | TensorType::BOOL => 1,
        TensorType::INT16 => 2,
        TensorType::INT64 => 8,
        _ => 4,
    }
}

/// `t` without its name or data.
fn unnamed(t: &TensorSpec) -> TensorSpec {
    let mut t = t.clone();
    t.name = None;
    t.data = TensorData::Buffer(0);
    t.is_variable = false;
    t
}

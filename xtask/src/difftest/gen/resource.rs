//! Resource variables: VAR_HANDLE, READ_VARIABLE and ASSIGN_VARIABLE in subgraph 0, and CALL_ONCE
//! at its start running an init subgraph that gives the variables their first values. A model that
//! keeps a value from one invocation to the next runs three invocations on one instance, so that
//! what the state carries shows in the outputs.

use tinyaot_modelkit::{
    BuiltinOperator as B, OpSpec, Options, SubgraphSpec, TensorData, TensorSpec,
    TensorType,
};

use super::{OpGen, G};

/// This family's operators (see [`OpGen`]): each draws one of the variable patterns below. They
/// copy bytes, so they take every type; ADD's accumulation takes the types TFLM's ADD takes.
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("ASSIGN_VARIABLE", B::ASSIGN_VARIABLE, variable_op).types(TYPES),
    OpGen::new("CALL_ONCE", B::CALL_ONCE, variable_op).types(TYPES),
    OpGen::new("READ_VARIABLE", B::READ_VARIABLE, variable_op).types(TYPES),
    OpGen::new("VAR_HANDLE", B::VAR_HANDLE, variable_op).types(TYPES),
];

const TYPES: &[TensorType] = &[
    TensorType::INT16,
    TensorType::INT32,
    TensorType::INT64,
    TensorType::BOOL,
];

/// The resource operators, which tinyaot refuses in any subgraph but 0 (and the init subgraph).
pub(super) const RESOURCE: [B; 4] = [
    B::ASSIGN_VARIABLE,
    B::CALL_ONCE,
    B::READ_VARIABLE,
    B::VAR_HANDLE,
];

/// One of three patterns on `x` (or a fresh input), through a new variable `v` of `x`'s type,
/// shape and quantization:
/// - a delay (CALL_ONCE and READ_VARIABLE, half the time): `READ(v)` is the output, then
///   `ASSIGN(v, x)`: the init subgraph's constant first, the previous invocation's `x` after;
/// - an accumulator (CALL_ONCE and READ_VARIABLE, the other half, on float32, int8 and int32):
///   `s = ADD(READ(v), x)`, `ASSIGN(v, s)`, `s` the output;
/// - a store (VAR_HANDLE and ASSIGN_VARIABLE): `ASSIGN(v, x)`, then `READ(v)` the output, through
///   a second VAR_HANDLE of the same name now and then.
fn variable_op(g: &mut G<'_>, op: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    let x = g.take(x, dtype, |g| g.random_shape(0, 4, 5), 1.0);
    let spec = unnamed(&g.m.tensors[x as usize]);
    let name = format!("v{}", g.variables);
    g.variables += 1;
    let handle = g.handle(&name);
    let value = g.m.tensor(spec.clone());
    if matches!(op, B::CALL_ONCE | B::READ_VARIABLE) {
        g.initialise(&name, &spec);
        g.steps = 3;
        g.m.op(B::READ_VARIABLE, Options::None, &[handle], &[value]);
        let accumulate = matches!(
            spec.dtype,
            TensorType::FLOAT32 | TensorType::INT8 | TensorType::INT32
        ) && g.rng.chance(0.5);
        if accumulate {
            let (s_x, z_x) = g.q(x);
            let sum = if spec.dtype == TensorType::INT8 {
                // The sum's own quantization: the ADD rescales both operands into it.
                let s = g.scale();
                let z = g.zero_point();
                g.m.tensor(TensorSpec::int8(spec.shape.as_deref().unwrap_or(&[]), s, z))
            } else {
                g.m.tensor(spec.clone())
            };
            // The state holds the sum, so it takes the sum's type, shape and quantization; the
            // init value is of `x`'s spec, which is the sum's but for int8's quantization (a
            // variable's bytes are its bytes: TFLM copies them).
            g.m.op(B::ADD, Options::default_for(B::ADD), &[value, x], &[sum]);
            g.m.op(B::ASSIGN_VARIABLE, Options::None, &[handle, sum], &[]);
            let text = format!(
                "ACCUMULATE {name} ({}, s={s_x:e}, zp={z_x}) += {} -> {}, 3 invocations",
                super::type_name(spec.dtype),
                g.qtext(x),
                g.qtext(sum)
            );
            g.describe(text);
            return Some(sum);
        }
        g.m.op(B::ASSIGN_VARIABLE, Options::None, &[handle, x], &[]);
        let text = format!("DELAY {name} of {}, 3 invocations", g.qtext(x));
        g.describe(text);
        return Some(value);
    }
    g.m.op(B::ASSIGN_VARIABLE, Options::None, &[handle, x], &[]);
    let again = if g.rng.chance(0.3) {
        g.handle(&name)
    } else {
        handle
    };
    g.m.op(B::READ_VARIABLE, Options::None, &[again], &[value]);
    let text = format!(
        "STORE {name} of {}{}",
        g.qtext(x),
        if again == handle { "" } else { " (read through a second handle)" }
    );
    g.describe(text);
    Some(value)
}

/// `t` without its name or data.
fn unnamed(t: &TensorSpec) -> TensorSpec {
    let mut t = t.clone();
    t.name = None;
    t.data = TensorData::Buffer(0);
    t
}

impl G<'_> {
    /// A VAR_HANDLE of variable `name` (no container) in subgraph 0: its RESOURCE output.
    fn handle(&mut self, name: &str) -> i32 {
        let t = self.m.tensor(TensorSpec::new(TensorType::RESOURCE, &[]));
        self.m.op(
            B::VAR_HANDLE,
            Options::VarHandle {
                container: None,
                shared_name: Some(name.to_string()),
            },
            &[],
            &[t],
        );
        t
    }

    /// Gives variable `name` a random first value of `spec` in the init subgraph, which the
    /// first CALL_ONCE drawn adds (as subgraph 0's first operator, before every variable access:
    /// TFLM runs it at the first invocation).
    fn initialise(&mut self, name: &str, spec: &TensorSpec) {
        let k = match self.init {
            Some(k) => k,
            None => {
                let k = self.m.more_subgraphs.len();
                let index = self.m.push_subgraph(SubgraphSpec::default(), &[]);
                let code = self.m.opcode(B::CALL_ONCE);
                self.m.operators.insert(
                    0,
                    OpSpec {
                        opcode_index: code,
                        inputs: Vec::new(),
                        outputs: Vec::new(),
                        intermediates: Vec::new(),
                        options: Options::CallOnce {
                            init_subgraph: index,
                        },
                        custom_options: None,
                    },
                );
                self.init = Some(k);
                k
            }
        };
        let n = super::elements(spec.shape.as_deref().unwrap_or(&[])).max(0) as usize;
        let bytes = super::input_values(self.rng, spec.dtype, n, 1.0, usize::MAX, &[]);
        let handle_code = self.m.opcode(B::VAR_HANDLE);
        let assign_code = self.m.opcode(B::ASSIGN_VARIABLE);
        let init = &mut self.m.more_subgraphs[k];
        init.tensors
            .push(TensorSpec::new(TensorType::RESOURCE, &[]));
        let handle = (init.tensors.len() - 1) as i32;
        init.tensors.push(spec.clone().constant(bytes));
        let value = (init.tensors.len() - 1) as i32;
        let op = |opcode_index, options, inputs: Vec<i32>, outputs: Vec<i32>| OpSpec {
            opcode_index,
            inputs,
            outputs,
            intermediates: Vec::new(),
            options,
            custom_options: None,
        };
        init.operators.push(op(
            handle_code,
            Options::VarHandle {
                container: None,
                shared_name: Some(name.to_string()),
            },
            vec![],
            vec![handle],
        ));
        init.operators
            .push(op(assign_code, Options::None, vec![handle, value], vec![]));
    }
}

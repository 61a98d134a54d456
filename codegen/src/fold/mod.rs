//! Constant folding: every operator whose inputs are all constant is run once, at generation
//! time, and its outputs become constants.
//!
//! Converters leave such operators in real models: shape arithmetic on tensors whose shapes are
//! all static (`SHAPE` → `STRIDED_SLICE` → `PACK` → `RESHAPE`, from a Keras model with a dynamic
//! batch dimension), a `RESHAPE` or `QUANTIZE` of a constant, arithmetic on constants. TFLM runs
//! them at every invoke; an ahead-of-time compiler knows their results.
//!
//! Bit-exact by construction: an operator is lowered exactly as for the device
//! ([`crate::lower`], with `OpContext::for_folding`) and its kernel is the runtime's own
//! (`tinyaot-runtime`, through the dispatch [`kernels::run`] that `cargo kernels` generates
//! from the runtime's signatures, the one the Rust↔C parity harness also runs), on an arena of
//! the folder's that holds every operand. `SHAPE`, which has no kernel, becomes the static shape
//! of its input, `ZEROS_LIKE` zeros of its size. An operator that does not lower, reads or writes a variable, or has no input is
//! left for the pipeline to compile or refuse as usual. `tinyaot plan` lists what was folded
//! ([`Graph::folded`]).
//!
//! The folded outputs count as constant bytes against [`Limits`] like the model's own.

pub mod kernels;

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{Error, Result};
use crate::ir::{Folded, Graph, OpCode};
use crate::limits::Limits;
use crate::lower::{CallKind, KernelCall, OpContext, Operand, Value};

/// The arena alignment of every operand the folder places (the runtime's, [`crate::ALIGN`]).
const ALIGN: usize = crate::plan::ALIGN;

/// Folds every operator of `graph` whose inputs are all constant, in execution order (an
/// operator whose inputs became constant by an earlier fold is folded too), removing it from
/// the graph and recording it in [`Graph::folded`].
///
/// # Errors
///
/// [`Error::Limit`] when the folded constants take the model's constant bytes over `limits`;
/// [`Error::Internal`] when a kernel fails on a call its lowering made (a bug).
pub fn fold_constants(graph: &mut Graph<'_>, limits: &Limits) -> Result<()> {
    let mut constant_bytes: u128 = graph
        .tensors
        .iter()
        .filter_map(|t| t.data.as_deref())
        .map(|d| d.len() as u128)
        .sum();
    // Folded operators stay in place until the pass ends (a later one only reads their outputs,
    // now constants) and leave together: removing each as it folds made the pass quadratic.
    let mut folded = vec![false; graph.operators.len()];
    for (index, done) in folded.iter_mut().enumerate() {
        let Some(outputs) = fold_one(graph, index)? else {
            continue;
        };
        for (t, bytes) in outputs {
            constant_bytes += bytes.len() as u128;
            limits.check_constant_bytes(constant_bytes)?;
            graph.tensors[t].data = Some(Cow::Owned(bytes));
        }
        let op = &graph.operators[index];
        graph.folded.push(Folded {
            source_index: op.source_index,
            op: op.kind.name(),
        });
        *done = true;
    }
    let mut index = 0;
    graph.operators.retain(|_| {
        index += 1;
        !folded[index - 1]
    });
    Ok(())
}

/// The tensors an operator wrote, each with its bytes.
type Outputs = Vec<(usize, Vec<u8>)>;

/// The outputs of operator `index` as constants, when it folds.
fn fold_one(graph: &Graph<'_>, index: usize) -> Result<Option<Outputs>> {
    let op = &graph.operators[index];
    let Some(code) = op.kind.code() else {
        return Ok(None);
    };
    // A WHILE's steps run at every iteration and write tensors the loop writes again (its
    // outputs), or leave the loop: never constants.
    if matches!(op.options, crate::ir::Options::While(_)) {
        return Ok(None);
    }
    let writes_input = op.outputs.iter().any(|t| graph.inputs.contains(t));
    if writes_input || op.outputs.is_empty() {
        return Ok(None);
    }
    if code == OpCode::SHAPE {
        // Reads no value, only the input's static shape: folded whatever computes the input (a
        // variable included). One TFLM refuses is left for lowering to refuse.
        let ctx = OpContext::for_folding(graph, index);
        return Ok(crate::lower::shape_bytes(&ctx)
            .ok()
            .map(|bytes| vec![(op.outputs[0], bytes)]));
    }
    if code == OpCode::ZEROS_LIKE {
        // Zeros of the output's size, whatever computes the input, as SHAPE above.
        let ctx = OpContext::for_folding(graph, index);
        return Ok(crate::lower::zeros_like_bytes(&ctx)
            .ok()
            .map(|bytes| vec![(op.outputs[0], bytes)]));
    }
    let touches_state = op
        .inputs
        .iter()
        .flatten()
        .chain(&op.outputs)
        .chain(&op.intermediates)
        .any(|&t| graph.tensors[t].is_variable);
    if touches_state {
        return Ok(None);
    }
    let mut inputs = op.inputs.iter().flatten().peekable();
    if inputs.peek().is_none() || !inputs.all(|&t| graph.tensors[t].is_constant()) {
        return Ok(None);
    }
    let ctx = OpContext::for_folding(graph, index);
    // An operator that does not lower is not folded: the pipeline's own lowering refuses it with
    // the same message.
    let Ok(kind) = crate::lower::lower_op(&ctx) else {
        return Ok(None);
    };
    match kind {
        CallKind::Alias { input, output } => {
            let data = graph.tensors[input].data.as_deref().unwrap_or_default();
            Ok(Some(vec![(output, data.to_vec())]))
        }
        CallKind::Kernel(call) => run(graph, index, &call).map(Some),
        // An IF's selection reads its branches' outputs, which the branches write at run time.
        CallKind::Nothing | CallKind::Select { .. } | CallKind::Exit { .. } => Ok(None),
    }
}

/// Runs `call` on an arena of the folder's holding each of its operands once, the constant ones
/// filled with their data, and returns the bytes of each tensor the kernel writes.
fn run(graph: &Graph<'_>, index: usize, call: &KernelCall) -> Result<Outputs> {
    let op = &graph.operators[index];
    let internal = |detail: String| Error::Internal {
        detail: format!(
            "folding operator #{} {} ({}::{}): {detail}",
            op.source_index,
            op.kind.name(),
            call.module,
            call.function
        ),
    };
    // One place per tensor (an operator may read a tensor twice) and per scratch operand.
    let mut offsets = Vec::with_capacity(call.operands.len());
    let mut placed: Vec<(usize, usize)> = Vec::new();
    let mut size = 0usize;
    let place = |bytes: usize, size: &mut usize| {
        let at = *size;
        *size = (at + bytes).div_ceil(ALIGN) * ALIGN;
        at
    };
    for operand in &call.operands {
        let at = match *operand {
            Operand::Scratch(bytes) => vec![place(bytes, &mut size)],
            _ => operand
                .tensors()
                .iter()
                .map(|&t| match placed.iter().find(|(p, _)| *p == t) {
                    Some(&(_, at)) => at,
                    None => {
                        let at = place(graph.tensors[t].bytes, &mut size);
                        placed.push((t, at));
                        at
                    }
                })
                .collect(),
        };
        offsets.push(at);
    }
    let mut arena = vec![0u8; size.max(ALIGN)];
    for &(t, at) in &placed {
        if let Some(data) = graph.tensors[t].data.as_deref() {
            arena[at..at + data.len()].copy_from_slice(data);
        }
    }
    let args = FoldCall {
        graph,
        call,
        offsets: &offsets,
    };
    // A kernel panics only on a call that breaks its documented preconditions, which lowering
    // establishes: a panic here is the generator's bug, reported as such, never a crash.
    let ran = catch_unwind(AssertUnwindSafe(|| kernels::run(&args, &mut arena)))
        .map_err(|_| internal("the kernel panicked".to_string()))?;
    ran.map_err(internal)?;
    op.outputs
        .iter()
        .map(|&t| {
            let at = placed
                .iter()
                .find(|(p, _)| *p == t)
                .map(|&(_, at)| at)
                .ok_or_else(|| internal(format!("output tensor #{t} is not an operand")))?;
            Ok((t, arena[at..at + graph.tensors[t].bytes].to_vec()))
        })
        .collect()
}

/// Where a kernel runner reads a lowered call's values: the parameter fields, and the operands
/// as arena offsets or `Src`. Implemented by the folder ([`fold_constants`]) and by the Rust↔C
/// parity harness, so that both run the kernels through the one generated dispatch.
pub trait KernelArgs {
    /// The kernel's module (family).
    fn module(&self) -> &str;
    /// The kernel's function.
    fn function(&self) -> &str;
    /// A scalar parameter field.
    ///
    /// # Errors
    ///
    /// No such field, or one of another type.
    fn scalar<T: Scalar>(&self, name: &str) -> std::result::Result<T, String>;
    /// A slice parameter field.
    ///
    /// # Errors
    ///
    /// No such field, or one of another type.
    fn slice<T: Element>(&self, name: &str) -> std::result::Result<Vec<T>, String>;
    /// An optional slice parameter field.
    ///
    /// # Errors
    ///
    /// No such field, or one of another type.
    fn opt_slice<T: Element>(&self, name: &str) -> std::result::Result<Option<Vec<T>>, String>;
    /// Operand `i` as an arena offset.
    ///
    /// # Errors
    ///
    /// No such operand, or one with no place in the arena.
    fn offset(&self, i: usize) -> std::result::Result<usize, String>;
    /// Operand `i` as a `Src`.
    ///
    /// # Errors
    ///
    /// No such operand, or one with no place in the arena.
    fn src(&self, i: usize) -> std::result::Result<tinyaot_runtime::Src<'_>, String>;
    /// Variadic operand `i` ([`Operand::Offsets`]) as the arena offsets of its tensors.
    ///
    /// # Errors
    ///
    /// No such operand, or a tensor with no place in the arena.
    fn offsets(&self, i: usize) -> std::result::Result<Vec<usize>, String>;
    /// Variadic operand `i` ([`Operand::Srcs`]) as a `Src` per tensor.
    ///
    /// # Errors
    ///
    /// No such operand, or a tensor with no place in the arena.
    fn srcs(&self, i: usize) -> std::result::Result<Vec<tinyaot_runtime::Src<'_>>, String>;
}

/// A scalar parameter field's type.
pub trait Scalar: Sized {
    /// The value, if `value` is of this type.
    fn from_value(value: &Value) -> Option<Self>;
}

macro_rules! scalar {
    ($($t:ty => $variant:ident),*) => {$(
        impl Scalar for $t {
            fn from_value(value: &Value) -> Option<Self> {
                match value {
                    Value::$variant(v) => Some(*v),
                    _ => None,
                }
            }
        }
    )*};
}
scalar!(usize => Usize, i32 => I32, f32 => F32, bool => Bool);

/// A slice parameter field's element type: from a computed list or a constant tensor's bytes.
pub trait Element: Sized + Copy {
    /// The elements of a computed list, if it holds this type.
    fn from_list(value: &Value) -> Option<Vec<Self>>;
    /// The elements of a constant tensor's little-endian bytes.
    fn from_le_bytes(bytes: &[u8]) -> Vec<Self>;
}

macro_rules! element {
    ($($t:ty => $variant:ident),*) => {$(
        impl Element for $t {
            fn from_list(value: &Value) -> Option<Vec<Self>> {
                match value {
                    Value::$variant(v) => Some(v.clone()),
                    _ => None,
                }
            }
            fn from_le_bytes(bytes: &[u8]) -> Vec<Self> {
                bytes
                    .chunks_exact(std::mem::size_of::<$t>())
                    .map(|c| {
                        let mut le = [0u8; std::mem::size_of::<$t>()];
                        le.copy_from_slice(c);
                        <$t>::from_le_bytes(le)
                    })
                    .collect()
            }
        }
    )*};
}
element!(i8 => I8s, i16 => I16s, i32 => I32s, i64 => I64s, f32 => F32s, usize => Usizes);

impl Element for u8 {
    fn from_list(_: &Value) -> Option<Vec<Self>> {
        None
    }
    fn from_le_bytes(bytes: &[u8]) -> Vec<Self> {
        bytes.to_vec()
    }
}

/// The elements of a parameter field's value: a computed list, a constant tensor's data, or
/// packed data.
///
/// # Errors
///
/// A value of another type, or a tensor that is not constant.
pub fn elements<T: Element>(
    graph: &Graph<'_>,
    value: &Value,
) -> std::result::Result<Vec<T>, String> {
    match value {
        Value::Tensor(t) => graph
            .tensors
            .get(*t)
            .and_then(|t| t.data.as_deref())
            .map(T::from_le_bytes)
            .ok_or_else(|| format!("tensor #{t} is not a constant")),
        Value::Packed(packed) => Ok(T::from_le_bytes(&packed.bytes)),
        _ => T::from_list(value).ok_or_else(|| "a value of another type".to_string()),
    }
}

/// One call run by the folder: every operand at its offset in the folder's arena (a variadic
/// operand's tensors at theirs, in order).
struct FoldCall<'a, 'm> {
    graph: &'a Graph<'m>,
    call: &'a KernelCall,
    offsets: &'a [Vec<usize>],
}

impl FoldCall<'_, '_> {
    fn field(&self, name: &str) -> std::result::Result<&Value, String> {
        self.call
            .params
            .as_ref()
            .and_then(|p| p.fields.iter().find(|(n, _)| *n == name))
            .map(|(_, v)| v)
            .ok_or_else(|| format!("no field {name}"))
    }
}

impl KernelArgs for FoldCall<'_, '_> {
    fn module(&self) -> &str {
        self.call.module
    }

    fn function(&self) -> &str {
        self.call.function
    }

    fn scalar<T: Scalar>(&self, name: &str) -> std::result::Result<T, String> {
        T::from_value(self.field(name)?).ok_or_else(|| format!("field {name} has another type"))
    }

    fn slice<T: Element>(&self, name: &str) -> std::result::Result<Vec<T>, String> {
        elements(self.graph, self.field(name)?).map_err(|e| format!("field {name}: {e}"))
    }

    fn opt_slice<T: Element>(&self, name: &str) -> std::result::Result<Option<Vec<T>>, String> {
        match self.field(name)? {
            Value::None => Ok(None),
            Value::Some(inner) => elements(self.graph, inner)
                .map(Some)
                .map_err(|e| format!("field {name}: {e}")),
            _ => Err(format!("field {name} is not optional")),
        }
    }

    fn offset(&self, i: usize) -> std::result::Result<usize, String> {
        match self.offsets.get(i).map(Vec::as_slice) {
            Some(&[at]) => Ok(at),
            Some(_) => Err(format!("operand {i} is not one tensor")),
            None => Err(format!("no operand {i}")),
        }
    }

    fn src(&self, i: usize) -> std::result::Result<tinyaot_runtime::Src<'_>, String> {
        self.offset(i).map(tinyaot_runtime::Src::Arena)
    }

    fn offsets(&self, i: usize) -> std::result::Result<Vec<usize>, String> {
        self.offsets
            .get(i)
            .cloned()
            .ok_or_else(|| format!("no operand {i}"))
    }

    fn srcs(&self, i: usize) -> std::result::Result<Vec<tinyaot_runtime::Src<'_>>, String> {
        Ok(self
            .offsets(i)?
            .into_iter()
            .map(tinyaot_runtime::Src::Arena)
            .collect())
    }
}

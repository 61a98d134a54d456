//! The operator registry: every operator tinyaot compiles, builtin or custom, grouped in families,
//! one file per family.
//!
//! A family is named like the runtime kernel module its operators call
//! (`runtime/src/kernels/<family>.rs`) and its C twin (`templates/c/kernels/<family>.{h,c}.tera`);
//! a large family is a folder in each layer (`conv/` here, with its `mod.rs`).
//! Each family file declares the operators it handles in a table (`OPS`: code, arity, lowering),
//! and [`families!`] lists the families once; everything else is derived from those: the
//! dispatch in [`lower`](super::lower), the arity check, the supported-op list of
//! [`Error::UnsupportedOp`](crate::Error::UnsupportedOp), which ops the planner lets share storage
//! ([`is_reshape_like`]), the kernel module each call names (the family's own name, filled in
//! here so that it cannot differ), and the C backend's template table (emit/c.rs).
//!
//! A custom operator (CUSTOM with a `custom_code`, such as TFLM's signal library's `SignalWindow`)
//! is an entry like any other, whose code is [`OpCode::CUSTOM`] and whose lowering is
//! [`Lowering::Custom`], which names it; it reads its parameters from the operator's FlexBuffer
//! options ([`OpContext::custom_options`]).
//!
//! Adding an operator to an existing family is one entry in that family's `OPS` and its lowering
//! function; a new family is a new file here (with its runtime and C twins), after which
//! `cargo kernels` rewrites the `mod` lines and [`families!`] from the files present.

pub(super) mod int4;
#[cfg(test)]
mod testing;

use std::ops::RangeInclusive;

use super::types::Types;
use super::{
    Access, CallKind, KernelCall, OpContext, Operand, Params, SHAPES_CHECKED_ONLY_BY_DCHECK,
};
use crate::error::{Error, Grounds, Result};
use crate::ir::{OpCode, OpKind, Tensor};

// Written by `cargo kernels` from the files in this directory, runtime/src/kernels/
// and templates/c/kernels/. Do not edit down to the end marker.
mod activations;
mod arg_min_max;
mod batch_matmul;
mod broadcast_args;
mod cast;
mod circular_buffer;
mod comparison;
mod concat;
mod control;
mod conv;
mod cumsum;
mod decode;
mod depthwise;
mod detection_postprocess;
mod dynamic_update_slice;
mod elementwise;
mod fully_connected;
mod gather;
mod l2_norm;
mod logical;
mod logistic_tanh;
mod lstm;
mod math;
mod pad;
mod pool;
mod quantize;
mod reduce;
mod reshape;
mod resize;
mod resource;
mod select;
mod shape;
mod signal;
mod softmax;
mod split;
mod strided_slice;
mod svdf;
mod transpose;
mod transpose_conv;

/// Calls `$then!` with the operator families and kernel modules, each named once:
///
/// - `kernels`: families whose operators call the kernel module of the same name;
/// - `aliases`: families whose operators lower to [`CallKind::Alias`] and so have no kernel module;
/// - `support`: kernel modules without a lowering file of their own, which the emitters call
///   themselves (`copy`, for an alias whose input and output the plan keeps apart) or another
///   family's lowering names (the INT4-weight kernels `conv_int4`, `depthwise_int4` and
///   `fully_connected_int4`);
/// - `c_parts`: the parts of the C templates of the families that are folders
///   (`templates/c/kernels/<family>/<part>.c.tera`, which `<family>.c.tera` includes).
///
/// The registry below takes the families, the C backend its kernel modules' templates (a file
/// path must be a literal for `include_str!`, hence a macro rather than a constant).
macro_rules! families {
    ($then:ident) => {
        $then! {
            kernels: [
                activations,
                arg_min_max,
                batch_matmul,
                broadcast_args,
                cast,
                circular_buffer,
                comparison,
                concat,
                conv,
                cumsum,
                decode,
                depthwise,
                detection_postprocess,
                dynamic_update_slice,
                elementwise,
                fully_connected,
                gather,
                l2_norm,
                logical,
                logistic_tanh,
                lstm,
                math,
                pad,
                pool,
                quantize,
                reduce,
                resize,
                select,
                signal,
                softmax,
                split,
                strided_slice,
                svdf,
                transpose,
                transpose_conv,
            ],
            aliases: [
                control,
                reshape,
                resource,
                shape,
            ],
            support: [
                conv_int4,
                copy,
                depthwise_int4,
                fully_connected_int4,
            ],
            c_parts: [
                "conv/dynamic",
                "conv/float",
                "conv/im2col",
                "conv/pointwise",
                "conv/s16",
                "conv/s8",
                "conv/wide",
                "elementwise/add",
                "elementwise/add_n",
                "elementwise/div",
                "elementwise/float",
                "elementwise/floor_div_mod",
                "elementwise/min_max",
                "elementwise/mul",
                "elementwise/prelu",
                "elementwise/s32",
                "elementwise/squared_difference",
                "signal/pointwise",
                "signal/rfft",
                "signal/spectrum",
                "signal/stream",
            ],
        }
    };
}
// End of the lines written by `cargo kernels`.
// The C backend's table of kernel modules is made from it (feature `c`).
#[cfg(feature = "c")]
pub(crate) use families;
pub(crate) use shape::{shape_bytes, zeros_like_bytes};

/// The element-wise kernels' same-shape entries turned back into the broadcast ones where the
/// graph links those anyway (`elementwise::one_entry_per_kernel`): run on the whole graph's calls,
/// once its operators are lowered.
pub(super) fn one_entry_per_kernel(calls: &mut [super::Call]) {
    elementwise::one_entry_per_kernel(calls);
}

/// [`OpEntry::outputs`] of an operator whose output count its lowering checks.
pub(crate) const ANY_OUTPUTS: usize = usize::MAX;

/// One operator a family lowers.
pub(crate) struct OpEntry {
    /// The builtin code; [`OpCode::CUSTOM`] for a custom operator, which its [`Lowering::Custom`]
    /// names.
    pub code: OpCode,
    /// The tensor types tinyaot compiles, and those TFLM registers (the README's operator × type
    /// table is made from them).
    pub types: Types,
    /// How many inputs the operator takes, as TFLM's Prepare checks it (`NumInputs` counts
    /// absent optional inputs).
    pub inputs: RangeInclusive<usize>,
    /// How many outputs it has, or [`ANY_OUTPUTS`] when its lowering checks the count (SPLIT).
    pub outputs: usize,
    /// What it lowers to.
    pub lower: Lowering,
}

/// How an operator becomes a step of `invoke`.
pub(crate) enum Lowering {
    /// A call of a kernel in the family's module (the registry names the module).
    Kernel(fn(&OpContext) -> Result<Kernel>),
    /// The same for a custom operator: the `custom_code` it is registered under (TFLM's name,
    /// e.g. `SignalWindow`, matched byte for byte as TFLM's op resolver matches it) and its
    /// lowering.
    Custom(&'static str, fn(&OpContext) -> Result<Kernel>),
    /// The output is the input's bytes under another shape (RESHAPE and friends): the function only
    /// validates, the step is a [`CallKind::Alias`], and the planner lets the output share the
    /// input's storage.
    Alias(fn(&OpContext) -> Result<()>),
    /// Nothing at run time ([`CallKind::Nothing`]): the function only validates.
    Nothing(fn(&OpContext) -> Result<()>),
    /// A step the function builds itself from tensors alone (an inlined IF's copies and
    /// selections): no kernel module, no parameters.
    Step(fn(&OpContext) -> Result<CallKind>),
}

/// A family's kernel call, usually less the module: that is the family's name, which the registry
/// adds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Kernel {
    /// Another family's kernel module, for an operator that lowers to that family's kernel (a
    /// one-channel DEPTHWISE_CONV_2D to a CONV_2D kernel); `None` for the family's own.
    pub module: Option<&'static str>,
    /// Function name in the module, e.g. `"conv2d_s8"`.
    pub function: &'static str,
    /// Arena operands in the order the kernel takes them (inputs, then outputs).
    pub operands: Vec<Operand>,
    /// The parameter struct (the last argument, by reference).
    pub params: Params,
    /// The access contracts the kernel keeps ([`KernelCall::access`]).
    pub access: Vec<Access>,
    /// The byte on which the invoke stops after the call ([`KernelCall::stop`]).
    pub stop: Option<(usize, usize)>,
}

impl Kernel {
    /// The kernel with `access` among its contracts.
    pub fn with_access(mut self, access: Access) -> Kernel {
        self.access.push(access);
        self
    }

    /// The kernel with an [`Access::InPlace`] contract between its input 0 and output 0, as
    /// [`in_out`] names them (element-wise kernels that read each chunk before writing it).
    pub fn in_place(self, ctx: &OpContext) -> Result<Kernel> {
        let (input, output) = (ctx.input_index(0)?, ctx.output_index(0)?);
        Ok(self.with_access(Access::InPlace { input, output }))
    }
}

/// A family: its name (the kernel module's) and its operators.
pub(crate) struct Family {
    /// The family's file name, which is its kernel module's.
    pub name: &'static str,
    /// Its operators.
    pub ops: &'static [OpEntry],
}

macro_rules! registry {
    (
        kernels: [$($kernel:ident),* $(,)?],
        aliases: [$($alias:ident),* $(,)?],
        support: [$($support:ident),* $(,)?],
        c_parts: [$($part:literal),* $(,)?] $(,)?
    ) => {
        /// Every family, in the order of [`families!`].
        const FAMILIES: &[Family] = &[
            $(Family { name: stringify!($kernel), ops: $kernel::OPS },)*
            $(Family { name: stringify!($alias), ops: $alias::OPS },)*
        ];
    };
}
families!(registry);

impl OpEntry {
    /// The custom operator's name, `None` for a builtin.
    pub fn custom_name(&self) -> Option<&'static str> {
        match self.lower {
            Lowering::Custom(name, _) => Some(name),
            _ => None,
        }
    }

    /// What the entry lowers, as an operator's [`OpKind`].
    pub fn kind(&self) -> OpKind {
        match self.custom_name() {
            Some(name) => OpKind::Custom(name.to_string()),
            None => OpKind::Builtin(self.code),
        }
    }

    /// Whether the entry lowers operators of `kind`.
    fn lowers(&self, kind: &OpKind) -> bool {
        match (kind, self.custom_name()) {
            (OpKind::Builtin(code), None) => self.code == *code,
            (OpKind::Custom(name), Some(own)) => name == own,
            _ => false,
        }
    }
}

/// The family and entry of operators of `kind`, if any family lowers them.
pub(super) fn find(kind: &OpKind) -> Option<(&'static Family, &'static OpEntry)> {
    FAMILIES.iter().find_map(|family| {
        family
            .ops
            .iter()
            .find(|entry| entry.lowers(kind))
            .map(|entry| (family, entry))
    })
}

/// Every entry of the registry, in registry order.
pub(super) fn entries() -> impl Iterator<Item = &'static OpEntry> {
    FAMILIES.iter().flat_map(|family| family.ops.iter())
}

/// Every builtin code the registry lowers, in registry order.
#[cfg(test)]
fn codes() -> impl Iterator<Item = OpCode> {
    entries()
        .filter(|entry| entry.custom_name().is_none())
        .map(|entry| entry.code)
}

/// True for ops whose output is their input's bytes under another shape (they lower to
/// [`CallKind::Alias`]): the planner lets the output share the input's storage.
pub(crate) fn is_reshape_like(code: OpCode) -> bool {
    matches!(find(&OpKind::Builtin(code)), Some((_, entry)) if matches!(entry.lower, Lowering::Alias(_)))
}

/// Lowers one operator of `family` by its `entry` (the caller has checked its arity and tensors).
pub(super) fn lower(ctx: &OpContext, family: &Family, entry: &OpEntry) -> Result<CallKind> {
    match entry.lower {
        Lowering::Kernel(lower) | Lowering::Custom(_, lower) => {
            let k = lower(ctx)?;
            let module = k.module.unwrap_or(family.name);
            check_contracts(ctx, module, &k)?;
            Ok(CallKind::Kernel(KernelCall {
                module,
                function: k.function,
                operands: k.operands,
                params: Some(k.params),
                access: k.access,
                stop: k.stop,
            }))
        }
        Lowering::Alias(check) => {
            check(ctx)?;
            ctx.alias()
        }
        Lowering::Nothing(check) => {
            check(ctx)?;
            Ok(CallKind::Nothing)
        }
        Lowering::Step(lower) => lower(ctx),
    }
}

/// Fails, as a generator bug, unless `CONTRACTS` lists every contract `k` (of kernel module
/// `module`) declares: a contract the kernel's code does not keep would let the planner overlap
/// bytes the kernel overwrites before it reads them.
fn check_contracts(ctx: &OpContext, module: &str, k: &Kernel) -> Result<()> {
    match k
        .access
        .iter()
        .find(|a| !crate::lower::keeps(module, k.function, a.kind()))
    {
        None => Ok(()),
        Some(access) => Err(Error::Internal {
            detail: format!(
                "operator #{} ({}) declares {access:?} on {module}::{}, a {:?} contract that \
                 CONTRACTS in lower/access.rs does not list for that kernel",
                ctx.op().source_index,
                ctx.op().kind.name(),
                k.function,
                access.kind()
            ),
        }),
    }
}

/// A kernel call with its parameter struct, built with the typed constructors of
/// [`crate::lower::params`] (generated from the runtime's declarations).
fn kernel(function: &'static str, operands: Vec<Operand>, params: impl Into<Params>) -> Kernel {
    Kernel {
        module: None,
        function,
        operands,
        params: params.into(),
        access: Vec::new(),
        stop: None,
    }
}

/// The operands of a kernel with one arena input and one arena output: input 0, output 0. A
/// constant input is refused: these kernels read the arena only, and such an op is better folded
/// offline.
fn in_out(ctx: &OpContext) -> Result<Vec<Operand>> {
    in_out_from(ctx, 0)
}

/// [`in_out`] for an operator whose data input is input `i` (TRANSPOSE_CONV's is input 2).
fn in_out_from(ctx: &OpContext, i: usize) -> Result<Vec<Operand>> {
    let input = ctx.input_index(i)?;
    if ctx.graph().tensors[input].is_constant() && !ctx.constant_in_arena_ok() {
        return Err(ctx.unsupported(
            "the input is a constant tensor; constant inputs to this op are not supported (fold it offline)",
        ));
    }
    Ok(vec![
        Operand::Offset(input),
        Operand::Offset(ctx.output_index(0)?),
    ])
}

/// Refuses an output with another element count than its input: TFLM's element-wise kernels only
/// DCHECK it, then read or write past the smaller one (UB).
fn same_size(ctx: &OpContext, input: &Tensor, output: &Tensor) -> Result<()> {
    if input.num_elements() != output.num_elements() {
        return Err(ctx.invalid(
            format!(
                "input shape {:?} and output shape {:?} differ in size",
                input.shape, output.shape
            ),
            Grounds::undefined(SHAPES_CHECKED_ONLY_BY_DCHECK),
        ));
    }
    Ok(())
}

/// A kernel from input 0 to an output of as many elements; `params` makes its parameter struct
/// from the element count. A constant input is refused ([`in_out`]).
fn unary<P: Into<Params>>(
    ctx: &OpContext,
    function: &'static str,
    params: impl FnOnce(usize) -> P,
) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    same_size(ctx, input, output)?;
    Ok(kernel(function, in_out(ctx)?, params(input.num_elements())))
}

/// [`unary`] for a kernel that may run in place ([`Kernel::in_place`]): its output elements are no
/// wider than its input's and it reads each chunk before writing it.
fn unary_in_place<P: Into<Params>>(
    ctx: &OpContext,
    function: &'static str,
    params: impl FnOnce(usize) -> P,
) -> Result<Kernel> {
    unary(ctx, function, params)?.in_place(ctx)
}

/// Row-major element strides of `shape`.
fn strides_of(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// Drops extent-1 dimensions of a strided walk `(count, input step)` and merges adjacent ones the
/// input walks contiguously (TRANSPOSE, STRIDED_SLICE and SLICE share the runtime's strided_walk loop).
fn collapse_walk(dims: &[(usize, i64)]) -> Vec<(usize, i64)> {
    let mut out: Vec<(usize, i64)> = Vec::new();
    for &(count, step) in dims {
        if count == 1 {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == step * count as i64 => *last = (last.0 * count, step),
            _ => out.push((count, step)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::op_name;

    #[test]
    fn every_code_is_listed_once() {
        let codes: Vec<OpCode> = codes().collect();
        for (i, code) in codes.iter().enumerate() {
            assert!(
                !codes[..i].contains(code),
                "{} is listed twice",
                op_name(*code)
            );
            assert!(
                code.variant_name().is_some(),
                "{code:?} is not a schema code"
            );
        }
    }

    #[test]
    fn custom_entries_are_custom_and_listed_once() {
        let kinds: Vec<OpKind> = entries().map(OpEntry::kind).collect();
        for (i, kind) in kinds.iter().enumerate() {
            assert!(
                !kinds[..i].contains(kind),
                "{} is listed twice",
                kind.name()
            );
        }
        for entry in entries() {
            assert_eq!(
                entry.custom_name().is_some(),
                entry.code == OpCode::CUSTOM,
                "{}",
                entry.kind().name()
            );
        }
    }

    #[test]
    fn arities_are_ranges_and_families_are_of_one_kind() {
        for family in FAMILIES {
            assert!(!family.ops.is_empty(), "family {} is empty", family.name);
            let aliases = family
                .ops
                .iter()
                .filter(|e| matches!(e.lower, Lowering::Alias(_) | Lowering::Nothing(_)))
                .count();
            // An alias family has no kernel module; a kernel family's calls name its module.
            assert!(
                aliases == 0 || aliases == family.ops.len(),
                "family {} mixes aliases and kernels",
                family.name
            );
            for entry in family.ops {
                assert!(
                    entry.inputs.start() <= entry.inputs.end()
                        && (entry.outputs > 0 || matches!(entry.lower, Lowering::Nothing(_))),
                    "{}",
                    op_name(entry.code)
                );
            }
        }
    }

    #[test]
    fn only_the_alias_family_is_reshape_like() {
        let reshape_like: Vec<String> = codes()
            .filter(|&c| is_reshape_like(c))
            .map(op_name)
            .collect();
        assert_eq!(
            reshape_like,
            [
                "RESHAPE",
                "SQUEEZE",
                "EXPAND_DIMS",
                "READ_VARIABLE",
                "ASSIGN_VARIABLE"
            ]
        );
        assert!(!is_reshape_like(OpCode::CUSTOM));
    }

    /// A contract that `CONTRACTS` does not list for its kernel (another kind, or a stream
    /// declared reversible on a kernel that only streams forwards) is an internal error, not a
    /// plan that overlaps what the kernel overwrites.
    #[test]
    fn only_the_listed_contracts_are_declared() {
        use super::testing::{graph, per_tensor, tensor};
        use crate::ir::{DType, Options};
        use crate::lower::Stream;

        let int8 = || tensor(&[1, 2, 2, 4], DType::I8, per_tensor(0.5, 0), None);
        let g = graph(
            OpCode::RELU,
            Options::None,
            vec![int8(), int8()],
            &[Some(0)],
        );
        let ctx = OpContext::new(&g, 0);
        let declare = |module: &'static str, function: &'static str, access: Access| {
            let k = Kernel {
                module: None,
                function,
                operands: vec![Operand::Offset(0), Operand::Offset(1)],
                params: Params {
                    type_name: "P",
                    fields: Vec::new(),
                },
                access: vec![access],
                stop: None,
            };
            check_contracts(&ctx, module, &k)
        };
        let in_place = Access::InPlace {
            input: 0,
            output: 1,
        };
        let stream = Stream::pointwise(4, (4, 4), 2);
        let stream_of = |stream| Access::Stream {
            input: 0,
            output: 1,
            stream,
        };
        assert!(declare("activations", "relu_s8", in_place).is_ok());
        assert!(declare("conv", "conv2d_1x1_widened_s8", stream_of(stream)).is_ok());
        assert!(declare("conv", "conv2d_1x1_s8", stream_of(stream.reversible())).is_ok());
        for (module, function, access) in [
            ("activations", "relu_s8", stream_of(stream)),
            ("activations", "no_such_kernel", in_place),
            (
                "conv",
                "conv2d_1x1_widened_s8",
                stream_of(stream.reversible()),
            ),
            ("conv", "conv2d_s8", stream_of(stream)),
        ] {
            match declare(module, function, access) {
                Err(Error::Internal { detail }) => assert!(
                    detail.contains(&format!("on {module}::{function}, a ")),
                    "{detail}"
                ),
                other => panic!("{module}::{function} {access:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn family_names_are_kernel_modules() {
        macro_rules! check {
            (
                kernels: [$($kernel:ident),* $(,)?],
                aliases: [$($alias:ident),* $(,)?],
                support: [$($support:ident),* $(,)?],
                c_parts: [$($part:literal),* $(,)?] $(,)?
            ) => {
                let kernels = [$(stringify!($kernel)),*];
                for family in FAMILIES {
                    let alias = family
                        .ops
                        .iter()
                        .all(|e| {
                            matches!(
                                e.lower,
                                Lowering::Alias(_) | Lowering::Nothing(_) | Lowering::Step(_)
                            )
                        });
                    assert_eq!(kernels.contains(&family.name), !alias, "{}", family.name);
                }
            };
        }
        families!(check);
    }
}

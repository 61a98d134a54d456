//! The [`Emitter`] of one model: its invoke steps (the kernel calls, their operands and their
//! parameters as statics) and its typed input and output API.

use std::cell::RefCell;
use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::constants::{flash_view, PackedConst};
use super::tokens::{f32_literal, lit, unsuffixed};
use crate::emit::{io_tensors, rust_element, Layout, Location};
use crate::error::{Error, Result};
use crate::ir::{Graph, Quantization};
use crate::lower::{Call, CallKind, KernelCall, Operand, Value};

pub(super) struct Emitter<'g, 'm> {
    pub(super) graph: &'g Graph<'m>,
    pub(super) layout: &'g Layout,
    pub(super) rt: TokenStream,
    /// The generation-time constants of the kernel parameters, in the order met.
    pub(super) packed: RefCell<Vec<PackedConst>>,
    /// The buffers `invoke` refers to (`None`: the model's own; `Some(k)`: memory region `k`),
    /// each bound to a local slice once.
    pub(super) used: RefCell<BTreeSet<Option<usize>>>,
}

impl Emitter<'_, '_> {
    /// The local slice `invoke` binds to buffer `memory` (`arena`, or the region's name), noted
    /// as used.
    pub(super) fn binding(&self, memory: Option<usize>) -> Ident {
        self.used.borrow_mut().insert(memory);
        match memory.and_then(|k| self.layout.memory_regions.get(k)) {
            Some(used) => format_ident!("{}", used.region.name),
            None => format_ident!("arena"),
        }
    }

    /// The struct field of buffer `memory`, through which accessors reach it.
    pub(super) fn field(&self, memory: Option<usize>) -> TokenStream {
        match memory.and_then(|k| self.layout.memory_regions.get(k)) {
            Some(used) => {
                let name = format_ident!("{}", used.region.name);
                quote! { self.#name.0 }
            }
            None => quote! { self.arena.0 },
        }
    }

    pub(super) fn step(
        &self,
        call: &Call,
        statics: &mut Vec<TokenStream>,
        constants: &mut BTreeSet<usize>,
    ) -> Result<TokenStream> {
        match &call.kind {
            CallKind::Alias { input, output } => {
                let (from, to) = (self.layout.place(*input)?, self.layout.place(*output)?);
                if from == to {
                    Ok(quote! { {} })
                } else if from.memory_region != to.memory_region {
                    Err(Error::Internal {
                        detail: format!("operator #{}: a copy between memory regions", call.op),
                    })
                } else {
                    let buffer = self.binding(to.memory_region);
                    let (from, to) = (lit(from.offset), lit(to.offset));
                    let bytes = lit(self.graph.tensors[*output].bytes);
                    Ok(quote! { rt::kernels::copy::copy(#buffer, #from, #to, #bytes); })
                }
            }
            CallKind::Kernel(kernel) => self.kernel_step(call.op, kernel, statics, constants),
            // The loop's `break` follows the step's hooks (`model.rs`).
            CallKind::Nothing | CallKind::Exit { .. } => Ok(quote! { {} }),
            CallKind::Select {
                cond,
                then,
                otherwise,
                output,
            } => {
                let test = self.condition(*cond, true)?;
                let then = self.copy(call.op, *then, *output, constants)?;
                let otherwise = self.copy(call.op, *otherwise, *output, constants)?;
                Ok(quote! {
                    if #test {
                        #then
                    } else {
                        #otherwise
                    }
                })
            }
        }
    }

    /// Byte `byte` of tensor `tensor` in its buffer (the arena or its memory region's).
    fn tensor_byte(&self, tensor: usize, byte: usize) -> Result<TokenStream> {
        let place = self.layout.place(tensor)?;
        let buffer = self.binding(place.memory_region);
        let offset = lit(place.offset + byte);
        Ok(quote! { #buffer[#offset] })
    }

    /// The test that byte `byte` of tensor `tensor` is nonzero: a kernel's stop byte
    /// ([`crate::lower::KernelCall::stop`]).
    pub(super) fn stop_test(&self, tensor: usize, byte: usize) -> Result<TokenStream> {
        let byte = self.tensor_byte(tensor, byte)?;
        Ok(quote! { #byte != 0 })
    }

    /// The test that an IF's condition, the BOOL tensor `cond`, is `taken`: its byte is nonzero
    /// for true (TFLM reads `cond->data.b[0]`).
    pub(super) fn condition(&self, cond: usize, taken: bool) -> Result<TokenStream> {
        let byte = self.tensor_byte(cond, 0)?;
        Ok(match taken {
            true => quote! { #byte != 0 },
            false => quote! { #byte == 0 },
        })
    }

    /// The copy of tensor `from` to `to` (of the same size, in one buffer) for operator `op`; a
    /// `from` that folding made a constant (a branch output computed at generation time) is
    /// copied from its data.
    fn copy(
        &self,
        op: usize,
        from: usize,
        to: usize,
        constants: &mut BTreeSet<usize>,
    ) -> Result<TokenStream> {
        if self.graph.tensors[from].is_constant() {
            let place = self.layout.place(to)?;
            let buffer = self.binding(place.memory_region);
            let (start, end) = (
                lit(place.offset),
                lit(place.offset + self.graph.tensors[to].bytes),
            );
            let path = self.constant_path(from, constants);
            return Ok(quote! { #buffer[#start..#end].copy_from_slice(#path.bytes()); });
        }
        let (from, to_place) = (self.layout.place(from)?, self.layout.place(to)?);
        if from == to_place {
            return Ok(quote! {});
        }
        if from.memory_region != to_place.memory_region {
            return Err(Error::Internal {
                detail: format!("operator #{op}: a copy between memory regions"),
            });
        }
        let buffer = self.binding(to_place.memory_region);
        let (from, target) = (lit(from.offset), lit(to_place.offset));
        let bytes = lit(self.graph.tensors[to].bytes);
        Ok(quote! { rt::kernels::copy::copy(#buffer, #from, #target, #bytes); })
    }

    fn kernel_step(
        &self,
        op: usize,
        kernel: &KernelCall,
        statics: &mut Vec<TokenStream>,
        constants: &mut BTreeSet<usize>,
    ) -> Result<TokenStream> {
        let module = format_ident!("{}", kernel.module);
        let function = format_ident!("{}", kernel.function);
        // The kernel works in one buffer: that of its offset operands (and scratch memory, in
        // the model's own), which the planner keeps together.
        let mut memories = BTreeSet::new();
        for operand in &kernel.operands {
            match operand {
                Operand::Offset(_) | Operand::Offsets(_) => {
                    for &t in operand.tensors() {
                        memories.insert(self.layout.place(t)?.memory_region);
                    }
                }
                Operand::Scratch(_) => {
                    memories.insert(None);
                }
                Operand::Src(_) | Operand::Srcs(_) => {}
            }
        }
        if memories.len() > 1 {
            return Err(Error::Internal {
                detail: format!("operator #{op}: the kernel's offsets lie in two memory regions"),
            });
        }
        let memory = memories.into_iter().next().flatten();
        let mut args = Vec::new();
        let mut scratch_slot = 0;
        for operand in &kernel.operands {
            if let Operand::Scratch(_) = operand {
                let offset = lit(self.layout.scratch_offset(op, scratch_slot)?);
                scratch_slot += 1;
                args.push(quote! { #offset });
                continue;
            }
            args.push(self.operand(operand, memory, constants)?);
        }
        if let Some(params) = &kernel.params {
            let ty = format_ident!("{}", params.type_name);
            let operator = &self.graph.operators[op];
            let label = operator.ident();
            let name = format_ident!("P{label}");
            let mut fields = Vec::new();
            for (field, value) in &params.fields {
                let value = self.value(value, constants, (&label, field))?;
                let field = format_ident!("{}", field);
                fields.push(quote! { #field: #value });
            }
            statics.push(quote! {
                static #name: rt::kernels::#module::#ty = rt::kernels::#module::#ty { #(#fields),* };
            });
            args.push(quote! { &#name });
        }
        let buffer = self.binding(memory);
        Ok(quote! { rt::kernels::#module::#function(#buffer, #(#args),*); })
    }

    /// Operand `operand` of a kernel working in buffer `memory`: a variadic one as a slice
    /// literal of its tensors' (`&[64, 128]`, `&[rt::Src::Arena(0), …]`).
    fn operand(
        &self,
        operand: &Operand,
        memory: Option<usize>,
        constants: &mut BTreeSet<usize>,
    ) -> Result<TokenStream> {
        match *operand {
            Operand::Offset(t) => {
                let offset = lit(self.layout.place(t)?.offset);
                Ok(quote! { #offset })
            }
            Operand::Offsets(ref ts) => {
                let items = ts
                    .iter()
                    .map(|&t| self.operand(&Operand::Offset(t), memory, constants))
                    .collect::<Result<Vec<_>>>()?;
                Ok(quote! { &[#(#items),*] })
            }
            Operand::Srcs(ref ts) => {
                let items = ts
                    .iter()
                    .map(|&t| self.operand(&Operand::Src(t), memory, constants))
                    .collect::<Result<Vec<_>>>()?;
                Ok(quote! { &[#(#items),*] })
            }
            Operand::Src(t) if self.graph.tensors[t].is_constant() => {
                let path = self.constant_path(t, constants);
                Ok(quote! { rt::Src::Bytes(#path.bytes()) })
            }
            Operand::Src(t) => {
                let place = self.layout.place(t)?;
                if place.memory_region == memory {
                    let offset = lit(place.offset);
                    Ok(quote! { rt::Src::Arena(#offset) })
                } else {
                    // In another buffer: its bytes, read like a constant's.
                    let buffer = self.binding(place.memory_region);
                    let (start, end) = (
                        lit(place.offset),
                        lit(place.offset + self.graph.tensors[t].bytes),
                    );
                    Ok(quote! { rt::Src::Bytes(&#buffer[#start..#end]) })
                }
            }
            Operand::Scratch(_) => Err(Error::Internal {
                detail: "scratch memory is resolved by its operator's step".to_string(),
            }),
        }
    }

    fn constant_path(&self, t: usize, constants: &mut BTreeSet<usize>) -> TokenStream {
        constants.insert(t);
        let name = format_ident!("T{}", t);
        quote! { constants::#name }
    }

    /// The Rust expression of `value`, the field `at.1` of operator `at.0`'s parameters.
    fn value(
        &self,
        value: &Value,
        constants: &mut BTreeSet<usize>,
        at: (&str, &str),
    ) -> Result<TokenStream> {
        Ok(match value {
            Value::Usize(v) => unsuffixed(*v as i128),
            Value::I32(v) => unsuffixed(i128::from(*v)),
            Value::F32(v) => f32_literal(*v),
            Value::Bool(v) => quote! { #v },
            Value::Usizes(v) => {
                let items = v.iter().map(|x| unsuffixed(*x as i128));
                quote! { &[#(#items),*] }
            }
            Value::I8s(v) => {
                let items = v.iter().map(|x| unsuffixed(i128::from(*x)));
                quote! { &[#(#items),*] }
            }
            Value::I16s(v) => {
                let items = v.iter().map(|x| unsuffixed(i128::from(*x)));
                quote! { &[#(#items),*] }
            }
            Value::I32s(v) => {
                let items = v.iter().map(|x| unsuffixed(i128::from(*x)));
                quote! { &[#(#items),*] }
            }
            Value::I64s(v) => {
                let items = v.iter().map(|x| unsuffixed(i128::from(*x)));
                quote! { &[#(#items),*] }
            }
            Value::F32s(v) => {
                let items = v.iter().map(|x| f32_literal(*x));
                quote! { &[#(#items),*] }
            }
            Value::Tensor(t) => {
                let tensor = self.graph.tensors.get(*t).filter(|t| t.is_constant());
                let Some(tensor) = tensor else {
                    return Err(Error::Internal {
                        detail: format!("tensor {t} is used as a constant but has no data"),
                    });
                };
                let view = flash_view(tensor.dtype);
                let path = self.constant_path(*t, constants);
                quote! { #path.#view }
            }
            Value::Packed(packed) => {
                let (op, field) = at;
                // `W`: weights, like the tensors (`T`) they are derived from.
                let name = format!("W{op}_{}", field.to_uppercase());
                self.packed.borrow_mut().push(PackedConst {
                    name: name.clone(),
                    doc: format!(
                        "Operator {op}'s `{field}`, laid out for its kernel at generation time: \
                         {}, {} bytes.",
                        packed.dtype,
                        packed.bytes.len()
                    ),
                    data: packed.bytes.clone(),
                });
                let view = flash_view(packed.dtype);
                let name = format_ident!("{}", name);
                quote! { constants::#name.#view }
            }
            Value::Some(inner) => {
                let inner = self.value(inner, constants, at)?;
                quote! { Some(#inner) }
            }
            Value::None => quote! { None },
        })
    }

    /// Typed accessors and quantization constants of inputs and outputs.
    pub(super) fn accessors(&self, constants: &mut BTreeSet<usize>) -> Result<TokenStream> {
        let (inputs, outputs) = io_tensors(self.graph);
        let mut items = Vec::new();
        for (kind, list) in [("input", &inputs), ("output", &outputs)] {
            for (i, io) in list.iter().enumerate() {
                let tensor = io.tensor;
                let upper = format!("{}{}", kind.to_uppercase(), i);
                let shape_name = format_ident!("{}_SHAPE", upper);
                let shape = tensor.shape.iter().map(|&d| lit(d));
                let rank = lit(tensor.shape.len());
                let shape_doc = format!(
                    " Shape of {kind} {i} ({:?}, {}).",
                    tensor.name, tensor.dtype
                );
                items.push(quote! {
                    #[doc = #shape_doc]
                    pub const #shape_name: [usize; #rank] = [#(#shape),*];
                });
                if let Some(q) = &tensor.quant {
                    items.push(quant_consts(&upper, kind, i, q));
                }
                let Some(element) = rust_element(tensor.dtype) else {
                    continue;
                };
                let element = format_ident!("{}", element);
                let len = lit(tensor.num_elements());
                let doc = format!(" {kind} {i} {:?}, typed.", tensor.name);
                if let (true, "output") = (tensor.is_constant(), kind) {
                    // A constant graph output (TFLM returns the constant's data): from flash.
                    let getter = format_ident!("output{}", i);
                    let path = self.constant_path(io.index, constants);
                    items.push(quote! {
                        #[doc = #doc]
                        pub fn #getter(&self) -> &[#element; #len] {
                            rt::bytes::array(#path.bytes(), 0)
                        }
                    });
                    continue;
                }
                let (field, offset) = match self.layout.locations[io.index] {
                    Some(Location::Arena(offset)) => (self.field(None), offset),
                    Some(Location::Memory(k, offset)) => (self.field(Some(k)), offset),
                    _ => continue,
                };
                let offset = lit(offset);
                if kind == "input" {
                    let getter = format_ident!("input{}_mut", i);
                    items.push(quote! {
                        #[doc = #doc]
                        pub fn #getter(&mut self) -> &mut [#element; #len] {
                            rt::bytes::array_mut(&mut #field, #offset)
                        }
                    });
                } else {
                    let getter = format_ident!("output{}", i);
                    items.push(quote! {
                        #[doc = #doc]
                        pub fn #getter(&self) -> &[#element; #len] {
                            rt::bytes::array(&#field, #offset)
                        }
                    });
                }
            }
        }
        Ok(quote! { #(#items)* })
    }

    pub(super) fn model_impl(
        &self,
        name: &Ident,
        ty: &TokenStream,
        constants: &mut BTreeSet<usize>,
        stops: bool,
    ) -> Result<TokenStream> {
        let (inputs, outputs) = io_tensors(self.graph);
        let mut input_arms = Vec::new();
        for (i, io) in inputs.iter().enumerate() {
            let place = self.layout.place(io.index)?;
            let field = self.field(place.memory_region);
            let offset = place.offset;
            let (i, end, offset) = (lit(i), lit(offset + io.tensor.bytes), lit(offset));
            input_arms.push(quote! { #i => &mut #field[#offset..#end], });
        }
        let mut output_arms = Vec::new();
        for (i, io) in outputs.iter().enumerate() {
            let i = lit(i);
            if io.tensor.is_constant() {
                let path = self.constant_path(io.index, constants);
                output_arms.push(quote! { #i => #path.bytes(), });
            } else {
                let place = self.layout.place(io.index)?;
                let field = self.field(place.memory_region);
                let offset = place.offset;
                let (end, offset) = (lit(offset + io.tensor.bytes), lit(offset));
                output_arms.push(quote! { #i => &#field[#offset..#end], });
            }
        }
        // A model that may stop early (a CIRCULAR_BUFFER waiting for frames) says so from its
        // own `invoke`, and from the trait's `invoke_ran`.
        let invoke_fns = match stops {
            false => quote! {
                fn invoke(&mut self) {
                    #name::invoke(self)
                }

                fn invoke_with<H: rt::OperatorHook>(&mut self, hook: &mut H) {
                    #name::invoke_with(self, hook)
                }
            },
            true => quote! {
                fn invoke(&mut self) {
                    let _ = #name::invoke(self);
                }

                fn invoke_with<H: rt::OperatorHook>(&mut self, hook: &mut H) {
                    let _ = #name::invoke_with(self, hook);
                }

                fn invoke_ran(&mut self) -> bool {
                    #name::invoke(self)
                }

                fn invoke_with_ran<H: rt::OperatorHook>(&mut self, hook: &mut H) -> bool {
                    #name::invoke_with(self, hook)
                }
            },
        };
        Ok(quote! {
            impl rt::Model for #ty {
                const ARENA_BYTES: usize = #name::ARENA_BYTES;
                const INPUTS: usize = #name::INPUTS;
                const OUTPUTS: usize = #name::OUTPUTS;

                #invoke_fns

                fn input_bytes_mut(&mut self, index: usize) -> &mut [u8] {
                    match index {
                        #(#input_arms)*
                        _ => panic!("input index out of range"),
                    }
                }

                fn output_bytes(&self, index: usize) -> &[u8] {
                    match index {
                        #(#output_arms)*
                        _ => panic!("output index out of range"),
                    }
                }

                fn reset(&mut self) {
                    #name::reset(self)
                }
            }
        })
    }
}

fn quant_consts(upper: &str, kind: &str, i: usize, q: &Quantization) -> TokenStream {
    let scale_name = format_ident!("{}_SCALE", upper);
    let zp_name = format_ident!("{}_ZERO_POINT", upper);
    let scale = f32_literal(q.scales.first().copied().unwrap_or(0.0));
    let zp = unsuffixed(i128::from(q.zero_points.first().copied().unwrap_or(0)));
    let scale_doc = format!(" Quantization scale of {kind} {i}: real = scale * (q - zero_point).");
    let zp_doc = format!(" Quantization zero point of {kind} {i}.");
    quote! {
        #[doc = #scale_doc]
        pub const #scale_name: f32 = #scale;
        #[doc = #zp_doc]
        pub const #zp_name: i32 = #zp;
    }
}

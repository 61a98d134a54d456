//! The Rust backend: `quote!` for the code, `prettyplease` to format it, and constant data appended
//! as byte-string literals (one token each, so a multi-megabyte model stays fast to parse and compile).
//! The literals are [`Source`] data parts: encoded only as they are written ([`source`]), never held
//! whole in memory.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Arc;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use super::source::Encoding;
use super::{io_tensors, rust_element, Layout, Region, Source, StateInit};
use crate::error::{Error, Result};
use crate::ir::{DType, Graph, Quantization};
use crate::lower::{Call, CallKind, KernelCall, Operand, Value};

/// What the Rust backend needs besides the model.
#[derive(Clone, Debug)]
pub struct RustOptions {
    /// The model struct's name (a Rust identifier, CamelCase by convention).
    pub name: String,
    /// Path of the runtime crate in the generated code, e.g. `::tinyaot`.
    pub runtime_path: String,
    /// The model's file name, for the header.
    pub source_name: String,
}

/// Renders the model as one Rust source file, in one `String`; [`source`] is the streaming form.
pub fn generate(
    graph: &Graph,
    layout: &Layout,
    calls: &[Call],
    options: &RustOptions,
) -> Result<String> {
    source(graph, layout, calls, options).map(Source::into_string)
}

/// Renders the model as one Rust source file whose constant data is written only when the
/// [`Source`] is (the byte-for-byte same text as [`generate`]).
pub fn source<'m>(
    graph: &Graph<'m>,
    layout: &Layout,
    calls: &[Call],
    options: &RustOptions,
) -> Result<Source<'m>> {
    let emitter = Emitter {
        graph,
        layout,
        rt: parse_tokens(&options.runtime_path, "runtime path")?,
        packed: RefCell::new(Vec::new()),
    };
    let name = ident(&options.name)?;
    let module = format_ident!("__tinyaot_{}", snake_case(&options.name));

    let mut constants = BTreeSet::new();
    let mut statics = Vec::new();
    let mut steps = Vec::new();
    for call in calls {
        let op = &graph.operators[call.op];
        let name = op.kind.name();
        let comment = format!("{STEP_MARK}operator {}: {name}", call.op);
        let index = lit(call.op);
        steps.push(quote! { #[doc = #comment] });
        steps.push(quote! { hook.before(#index, #name); });
        steps.push(emitter.step(call, &mut statics, &mut constants)?);
        steps.push(quote! { hook.after(#index, #name); });
    }
    if calls.is_empty() {
        steps.push(quote! { let _ = hook; });
    }
    // A model whose every step is a reshape sharing its input's storage touches no arena bytes;
    // binding the arena then would be an unused variable in the generated code.
    let uses_arena = calls.iter().any(|call| match &call.kind {
        CallKind::Kernel(_) => true,
        CallKind::Nothing => false,
        CallKind::Alias { input, output } => {
            layout.arena_offset(*input).ok() != layout.arena_offset(*output).ok()
        }
    });
    let bind_arena = if uses_arena {
        quote! { let arena: &mut [u8] = &mut self.arena.0; }
    } else {
        quote! {}
    };
    let accessors = emitter.accessors()?;
    let model_impl = emitter.model_impl(&name, &mut constants)?;
    let constants_module = format_ident!("{}_constants", module);

    let rt = &emitter.rt;
    let arena_bytes = lit(layout.arena_bytes);
    let state_bytes = lit(layout.state_bytes);
    let memory_bytes = lit(layout.memory_bytes());
    // State that a reset leaves nonzero is written on the first invoke (and by `reset`), not by
    // `new`: a nonzero byte in a `static` model would put its whole arena in flash as well.
    let state_flag = !layout.state_starts_zeroed();
    let reset_state = reset_statements(layout);
    let (flag_field, flag_init, flag_check) = if state_flag {
        (
            quote! {
                /// Whether the state holds its initial value or a later one (false at start-up).
                state_ready: bool,
            },
            quote! { , state_ready: false },
            quote! {
                if !self.state_ready {
                    self.reset();
                }
            },
        )
    } else {
        (quote! {}, quote! {}, quote! {})
    };
    let set_flag = if state_flag {
        quote! { self.state_ready = true; }
    } else {
        quote! {}
    };
    let reset_doc = if layout.state_bytes == 0 {
        " Restores the initial state; this model has none, so it does nothing."
    } else if state_flag {
        " Restores the initial state of the variable tensors (the first `invoke` does it itself)."
    } else {
        " Restores the initial state of the variable tensors (zero, as after `new`)."
    };
    let n_inputs = lit(graph.inputs.len());
    let n_outputs = lit(graph.outputs.len());
    let struct_doc = format!(
        " The model compiled from `{}`: {} operators, {} bytes of arena{}.",
        options.source_name,
        graph.operators.len(),
        layout.arena_bytes,
        if layout.state_bytes > 0 {
            format!(", {} bytes of state", layout.state_bytes)
        } else {
            String::new()
        }
    );
    let code = quote! {
        #[doc(hidden)]
        #[allow(clippy::all, clippy::pedantic, dead_code, non_upper_case_globals, unused_imports)]
        pub mod #module {
            use #rt as rt;
            use super::#constants_module as constants;

            #[doc = #struct_doc]
            pub struct #name {
                /// The arena, then the state of the variable tensors.
                arena: rt::Arena<#memory_bytes>,
                #flag_field
            }

            impl #name {
                /// Bytes of the activation arena.
                pub const ARENA_BYTES: usize = #arena_bytes;
                /// Bytes of the state of variable tensors.
                pub const STATE_BYTES: usize = #state_bytes;
                /// Number of inputs.
                pub const INPUTS: usize = #n_inputs;
                /// Number of outputs.
                pub const OUTPUTS: usize = #n_outputs;

                /// A model with a zeroed arena (its state, if any, takes its initial value on the
                /// first `invoke`); `const`, so it can be a `static`.
                pub const fn new() -> Self {
                    #name { arena: rt::Arena::new() #flag_init }
                }

                #[doc = #reset_doc]
                pub fn reset(&mut self) {
                    #reset_state
                    #set_flag
                }

                #accessors

                /// Runs the model once on the current inputs.
                pub fn invoke(&mut self) {
                    self.invoke_with(&mut rt::NoHook)
                }

                /// Runs the model once, calling `hook` before and after each operator (see
                /// `OperatorHook`); with `NoHook` this is `invoke`.
                pub fn invoke_with<H: rt::OperatorHook>(&mut self, hook: &mut H) {
                    #flag_check
                    #bind_arena
                    #(#steps)*
                }
            }

            impl Default for #name {
                fn default() -> Self {
                    Self::new()
                }
            }

            #model_impl

            #(#statics)*
        }
        pub use #module::#name;
    };
    let file: syn::File = syn::parse2(code).map_err(|e| Error::Internal {
        detail: format!("generated Rust does not parse: {e}"),
    })?;
    let packed = emitter.packed.into_inner();
    let packed_bytes: usize = packed.iter().map(|p| p.data.len()).sum();
    let mut out = Source::text(header(graph, layout, options, &constants, packed_bytes));
    out.push_str(&plain_step_comments(&prettyplease::unparse(&file)));
    let runtime_path = &options.runtime_path;
    append_constants(&mut out, graph, &module, runtime_path, &constants, &packed);
    Ok(out)
}

/// The statements of `reset`: each run of the state region set to its initial contents.
fn reset_statements(layout: &Layout) -> TokenStream {
    let mut statements = Vec::new();
    for (offset, init) in &layout.state_init {
        let start = layout.arena_bytes + offset;
        match init {
            StateInit::Fill(bytes, value) => {
                let (start, end, value) =
                    (lit(start), lit(start + bytes), lit(usize::from(*value)));
                statements.push(quote! { self.arena.0[#start..#end].fill(#value); });
            }
            StateInit::Bytes(bytes) => {
                let end = lit(start + bytes.len());
                let start = lit(start);
                let data = proc_macro2::Literal::byte_string(bytes);
                statements.push(quote! { self.arena.0[#start..#end].copy_from_slice(#data); });
            }
        }
    }
    quote! { #(#statements)* }
}

fn header(
    graph: &Graph,
    layout: &Layout,
    options: &RustOptions,
    constants: &BTreeSet<usize>,
    packed_bytes: usize,
) -> String {
    let weights = super::constant_bytes(graph, constants) + packed_bytes;
    format!(
        "// @generated by tinyaot {} from `{}`. Do not edit: regenerate instead.\n\
         // {} operators; arena {} bytes; state {} bytes; constants {} bytes.\n\n",
        env!("CARGO_PKG_VERSION"),
        options.source_name,
        graph.operators.len(),
        layout.arena_bytes,
        layout.state_bytes,
        weights
    )
}

/// Appends `static T<i>: Flash<N>` for every referenced constant tensor and
/// `static W<op>_<FIELD>: Flash<N>` for every constant computed at generation time (`packed`), in
/// a sibling module of the model's.
/// The literals are written directly rather than through prettyplease: each is a single token, and
/// keeping them out of the syntax tree keeps generation fast for multi-megabyte models; their
/// contents are data parts of `out`, escaped only as they are written.
fn append_constants<'m>(
    out: &mut Source<'m>,
    graph: &Graph<'m>,
    module: &Ident,
    runtime_path: &str,
    constants: &BTreeSet<usize>,
    packed: &[PackedConst],
) {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "\n/// Constant tensors of [`{module}`], in flash.\n#[doc(hidden)]\npub mod {module}_constants {{"
    );
    for &t in constants {
        let tensor = &graph.tensors[t];
        let data = tensor.data.unwrap_or(&[]);
        let _ = writeln!(
            text,
            "    /// Tensor {t} {:?}: {} {:?}.",
            tensor.name, tensor.dtype, tensor.shape
        );
        let _ = write!(
            text,
            "    pub static T{t}: {runtime_path}::bytes::Flash<{}> = {runtime_path}::bytes::Flash(*b\"",
            data.len()
        );
        out.push_str(&text);
        text.clear();
        out.push_data(Encoding::RustByteString, data);
        text.push_str("\");\n");
    }
    for p in packed {
        let _ = writeln!(text, "    /// {}", p.doc);
        let _ = write!(
            text,
            "    pub static {}: {runtime_path}::bytes::Flash<{}> = {runtime_path}::bytes::Flash(*b\"",
            p.name,
            p.data.len()
        );
        out.push_str(&text);
        text.clear();
        out.push_data(Encoding::RustByteString, p.data.clone());
        text.push_str("\");\n");
    }
    text.push_str("}\n");
    out.push_str(&text);
}

/// The `Flash` view that gives constant data of `dtype` as the slice the kernels read.
fn flash_view(dtype: DType) -> TokenStream {
    match dtype {
        DType::I8 => quote! { as_i8() },
        DType::I16 => quote! { as_i16() },
        DType::I32 => quote! { as_i32() },
        DType::I64 => quote! { as_i64() },
        DType::F32 => quote! { as_f32() },
        _ => quote! { bytes() },
    }
}

/// Marks the doc attributes that carry step comments through `quote!` (which drops comments).
const STEP_MARK: &str = "@step ";

/// Turns the marked doc comments inside `invoke` into plain `//` comments: doc comments on
/// statements are a warning, and these are for readers of the generated code, not for rustdoc.
fn plain_step_comments(code: &str) -> String {
    let marked = format!("///{STEP_MARK}");
    let mut out = String::with_capacity(code.len());
    for line in code.lines() {
        match line.trim_start().strip_prefix(&marked) {
            Some(rest) => {
                let indent = &line[..line.len() - line.trim_start().len()];
                out.push_str(indent);
                out.push_str("// ");
                out.push_str(rest);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

struct Emitter<'g, 'm> {
    graph: &'g Graph<'m>,
    layout: &'g Layout,
    rt: TokenStream,
    /// The generation-time constants of the kernel parameters, in the order met.
    packed: RefCell<Vec<PackedConst>>,
}

/// A generation-time constant of a kernel parameter, a static beside the constant tensors.
struct PackedConst {
    name: String,
    doc: String,
    data: Arc<[u8]>,
}

impl Emitter<'_, '_> {
    fn step(
        &self,
        call: &Call,
        statics: &mut Vec<TokenStream>,
        constants: &mut BTreeSet<usize>,
    ) -> Result<TokenStream> {
        match &call.kind {
            CallKind::Alias { input, output } => {
                let from = self.layout.arena_offset(*input)?;
                let to = self.layout.arena_offset(*output)?;
                if from == to {
                    Ok(quote! { {} })
                } else {
                    let (from, to) = (lit(from), lit(to));
                    let bytes = lit(self.graph.tensors[*output].bytes);
                    Ok(quote! { rt::kernels::copy::copy(arena, #from, #to, #bytes); })
                }
            }
            CallKind::Kernel(kernel) => self.kernel_step(call.op, kernel, statics, constants),
            CallKind::Nothing => Ok(quote! { {} }),
        }
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
        let mut args = Vec::new();
        let mut scratch_slot = 0;
        for operand in &kernel.operands {
            if let Operand::Scratch(_) = operand {
                let offset = lit(self.layout.scratch_offset(op, scratch_slot)?);
                scratch_slot += 1;
                args.push(quote! { #offset });
                continue;
            }
            args.push(self.operand(*operand, constants)?);
        }
        if let Some(params) = &kernel.params {
            let ty = format_ident!("{}", params.type_name);
            let name = format_ident!("P{}", op);
            let mut fields = Vec::new();
            for (field, value) in &params.fields {
                let value = self.value(value, constants, (op, field))?;
                let field = format_ident!("{}", field);
                fields.push(quote! { #field: #value });
            }
            statics.push(quote! {
                static #name: rt::kernels::#module::#ty = rt::kernels::#module::#ty { #(#fields),* };
            });
            args.push(quote! { &#name });
        }
        Ok(quote! { rt::kernels::#module::#function(arena, #(#args),*); })
    }

    fn operand(&self, operand: Operand, constants: &mut BTreeSet<usize>) -> Result<TokenStream> {
        match operand {
            Operand::Offset(t) => {
                let offset = lit(self.layout.arena_offset(t)?);
                Ok(quote! { #offset })
            }
            Operand::Src(t) if self.graph.tensors[t].is_constant() => {
                let path = self.constant_path(t, constants);
                Ok(quote! { rt::Src::Flash(#path.bytes()) })
            }
            Operand::Src(t) => {
                let offset = lit(self.layout.arena_offset(t)?);
                Ok(quote! { rt::Src::Arena(#offset) })
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
        at: (usize, &str),
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
    fn accessors(&self) -> Result<TokenStream> {
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
                let Some(Region::Arena(offset)) = self.layout.regions[io.index] else {
                    continue;
                };
                let element = format_ident!("{}", element);
                let len = lit(tensor.num_elements());
                let offset = lit(offset);
                let doc = format!(" {kind} {i} {:?}, typed.", tensor.name);
                if kind == "input" {
                    let getter = format_ident!("input{}_mut", i);
                    items.push(quote! {
                        #[doc = #doc]
                        pub fn #getter(&mut self) -> &mut [#element; #len] {
                            rt::bytes::array_mut(&mut self.arena.0, #offset)
                        }
                    });
                } else {
                    let getter = format_ident!("output{}", i);
                    items.push(quote! {
                        #[doc = #doc]
                        pub fn #getter(&self) -> &[#element; #len] {
                            rt::bytes::array(&self.arena.0, #offset)
                        }
                    });
                }
            }
        }
        Ok(quote! { #(#items)* })
    }

    fn model_impl(&self, name: &Ident, constants: &mut BTreeSet<usize>) -> Result<TokenStream> {
        let (inputs, outputs) = io_tensors(self.graph);
        let mut input_arms = Vec::new();
        for (i, io) in inputs.iter().enumerate() {
            let offset = self.layout.arena_offset(io.index)?;
            let (i, end, offset) = (lit(i), lit(offset + io.tensor.bytes), lit(offset));
            input_arms.push(quote! { #i => &mut self.arena.0[#offset..#end], });
        }
        let mut output_arms = Vec::new();
        for (i, io) in outputs.iter().enumerate() {
            let i = lit(i);
            if io.tensor.is_constant() {
                let path = self.constant_path(io.index, constants);
                output_arms.push(quote! { #i => #path.bytes(), });
            } else {
                let offset = self.layout.arena_offset(io.index)?;
                let (end, offset) = (lit(offset + io.tensor.bytes), lit(offset));
                output_arms.push(quote! { #i => &self.arena.0[#offset..#end], });
            }
        }
        Ok(quote! {
            impl rt::Model for #name {
                const ARENA_BYTES: usize = #name::ARENA_BYTES;
                const INPUTS: usize = #name::INPUTS;
                const OUTPUTS: usize = #name::OUTPUTS;

                fn invoke(&mut self) {
                    #name::invoke(self)
                }

                fn invoke_with<H: rt::OperatorHook>(&mut self, hook: &mut H) {
                    #name::invoke_with(self, hook)
                }

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

/// A `usize` literal without a type suffix.
fn lit(v: usize) -> proc_macro2::Literal {
    proc_macro2::Literal::usize_unsuffixed(v)
}

/// An integer literal without a type suffix (the field's type gives it one); negative values are a
/// minus sign and a literal, as Rust parses them.
fn unsuffixed(v: i128) -> TokenStream {
    let magnitude = proc_macro2::Literal::u128_unsuffixed(v.unsigned_abs());
    if v < 0 {
        quote! { -#magnitude }
    } else {
        quote! { #magnitude }
    }
}

/// An exact `f32` literal (Rust's `{:?}` prints the shortest text that reads back to the same value).
fn f32_literal(v: f32) -> TokenStream {
    if v.is_nan() {
        quote! { f32::NAN }
    } else if v == f32::INFINITY {
        quote! { f32::INFINITY }
    } else if v == f32::NEG_INFINITY {
        quote! { f32::NEG_INFINITY }
    } else {
        let text = format!("{v:?}f32");
        // `{:?}` of a finite f32 is always a valid literal (possibly with a leading minus).
        text.parse().unwrap_or_else(|_| quote! { 0.0f32 })
    }
}

fn parse_tokens(text: &str, what: &str) -> Result<TokenStream> {
    syn::parse_str::<syn::Path>(text)
        .map(|p| quote! { #p })
        .map_err(|e| Error::Config {
            detail: format!("invalid {what} `{text}`: {e}"),
        })
}

fn ident(name: &str) -> Result<Ident> {
    syn::parse_str::<Ident>(name)
        .map(|_| Ident::new(name, Span::call_site()))
        .map_err(|_| Error::Config {
            detail: format!("model name `{name}` is not a Rust identifier"),
        })
}

/// `PersonDetect` → `person_detect`.
pub(crate) fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `person_detect` / `person-detect.v2` → `PersonDetectV2`: the default struct name for a file stem.
pub fn camel_case(stem: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in stem.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'M');
    }
    out
}

//! The constants of a model: its constant tensors and the weights packed at generation time,
//! appended as byte-string literals in a sibling module of the model's.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Arc;

use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::emit::source::{Bytes, Encoding};
use crate::emit::Source;
use crate::ir::{DType, Graph};

/// A generation-time constant of a kernel parameter, a static beside the constant tensors.
pub(super) struct PackedConst {
    pub(super) name: String,
    pub(super) doc: String,
    pub(super) data: Arc<[u8]>,
}

/// Appends `static T<i>: Flash<N>` for every referenced constant tensor and
/// `static W<op>_<FIELD>: Flash<N>` for every constant computed at generation time (`packed`), in
/// a sibling module of the model's.
/// The literals are written directly rather than through prettyplease: each is a single token, and
/// keeping them out of the syntax tree keeps generation fast for multi-megabyte models; their
/// contents are data parts of `out`, escaped only as they are written.
pub(super) fn append_constants<'m>(
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
        let data = Bytes::of_constant(tensor);
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
pub(super) fn flash_view(dtype: DType) -> TokenStream {
    match dtype {
        DType::I8 => quote! { as_i8() },
        DType::I16 => quote! { as_i16() },
        DType::I32 => quote! { as_i32() },
        DType::I64 => quote! { as_i64() },
        DType::F32 => quote! { as_f32() },
        _ => quote! { bytes() },
    }
}

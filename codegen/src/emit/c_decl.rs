//! The C parameter structs, as `cargo kernels` generates them from the Rust runtime's structs
//! ([`super::c_params::STRUCTS`]), and their initialisers from the lowering's fields.
//!
//! A kernel's parameter struct is written by hand once, in Rust (`runtime/src/kernels/<family>.rs`);
//! its C typedef is generated in a fixed form:
//!
//! ```c
//! typedef struct {
//!     size_t batches;          /* Value::Usize */
//!     int32_t act_min;         /* Value::I32 */
//!     float scale;             /* Value::F32 */
//!     int flag;                /* Value::Bool */
//!     const int8_t *filter;    /* a slice (Usizes, I32s, F32s, Tensor) or an Option of one … */
//!     size_t filter_len;       /* … always followed by its length, as a Rust slice carries it */
//! } net_conv_Conv2dS8;
//! typedef net_elementwise_AddS8 net_elementwise_SubS8;
//! ```
//!
//! The Rust backend fills `tinyaot::kernels::<module>::<Type>` from [`Params::fields`]; this backend
//! fills the C struct from the same list, and [`StructDecl::initializer`] refuses any difference in
//! field names, order or kinds. So a lowering that fills a struct differently from the runtime's
//! declaration is a generation error, never a C kernel silently reading the wrong field — and the C
//! conformance test, which generates every model, turns that error into a failure.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::c_data::{f32_literal, i32_literal, i64_literal};
use crate::error::{Error, Result};
use crate::ir::{DType, Graph};
use crate::lower::{Packed, Params, Value};

/// One field of a C parameter struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CField {
    /// The field's name.
    pub name: String,
    /// Its type, normalised: `size_t`, `int32_t`, `float`, `int`, or `const T *` for pointers.
    pub ty: String,
}

/// A C parameter struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StructDecl {
    /// The fields, in declaration order (a pointer's `_len` field included).
    pub fields: Vec<CField>,
}

/// The parameter structs of every kernel family, by `(module, struct name)` (aliases included).
#[derive(Debug)]
pub(crate) struct Decls {
    /// Keyed by `module::name`.
    structs: HashMap<String, StructDecl>,
}

impl Decls {
    /// The generated declarations ([`super::c_params::STRUCTS`]).
    pub fn generated() -> Decls {
        Decls::from_table(super::c_params::STRUCTS)
    }

    fn from_table(table: &[super::c_params::StructFields]) -> Decls {
        let structs = table
            .iter()
            .map(|(module, name, fields)| {
                let fields = fields
                    .iter()
                    .map(|(name, ty)| CField {
                        name: (*name).to_string(),
                        ty: (*ty).to_string(),
                    })
                    .collect();
                (format!("{module}::{name}"), StructDecl { fields })
            })
            .collect();
        Decls { structs }
    }

    /// The declaration of struct `name` of kernel module `module`.
    pub fn get(&self, module: &str, name: &str) -> Option<&StructDecl> {
        self.structs.get(&format!("{module}::{name}"))
    }
}

/// Static arrays the initializer of one parameter struct needs (slices become arrays).
pub(crate) struct Initializer {
    /// `static const T name[n] = { … };` definitions, to precede the struct.
    pub arrays: String,
    /// The designated initializer list `{ .a = 1, … }`.
    pub body: String,
}

/// How the emitter names things the initializer refers to.
pub(crate) struct Naming<'a> {
    /// Prefix of static names, e.g. `net_p3` (arrays become `net_p3_<field>`).
    pub array_prefix: String,
    /// The C expression for the element pointer of constant tensor `t`.
    pub tensor: &'a dyn Fn(usize) -> String,
    /// The C expression for the element pointer of the generation-time constant of field `name`
    /// (declared by the caller as a constant like the tensors, named after the field).
    pub packed: &'a dyn Fn(&str, &Packed) -> String,
}

impl StructDecl {
    /// The initializer of this C struct from the lowering's fields, or an error naming the first
    /// difference between the two.
    pub fn initializer(
        &self,
        c_name: &str,
        params: &Params,
        graph: &Graph,
        naming: &Naming,
    ) -> Result<Initializer> {
        // Both sides are generated from the runtime's struct: a difference is a generator bug.
        let mismatch = |detail: String| Error::Internal {
            detail: format!(
                "the C struct {c_name} does not match the lowering's {}: {detail}",
                params.type_name
            ),
        };
        let mut arrays = String::new();
        let mut body = String::from("{\n");
        let mut c_fields = self.fields.iter();
        for (name, value) in &params.fields {
            let field = c_fields
                .next()
                .ok_or_else(|| mismatch(format!("field `{name}` is missing in C")))?;
            if field.name != *name {
                return Err(mismatch(format!(
                    "C has `{}` where the lowering has `{name}`",
                    field.name
                )));
            }
            if let Some(elem) = field.ty.strip_suffix(" *") {
                let len_name = format!("{name}_len");
                match c_fields.next() {
                    Some(len) if len.name == len_name && len.ty == "size_t" => {}
                    _ => {
                        return Err(mismatch(format!(
                            "pointer `{name}` is not followed by `size_t {len_name}`"
                        )))
                    }
                }
                let elem = elem.trim_start_matches("const ").trim();
                let (ptr, len) = self
                    .slice(name, elem, value, graph, naming, &mut arrays)
                    .map_err(mismatch)?;
                let _ = writeln!(body, "    .{name} = {ptr},\n    .{len_name} = {len},");
            } else {
                let text =
                    scalar(&field.ty, value).map_err(|e| mismatch(format!("`{name}`: {e}")))?;
                let _ = writeln!(body, "    .{name} = {text},");
            }
        }
        if let Some(extra) = c_fields.next() {
            return Err(mismatch(format!(
                "C has field `{}` that the lowering does not fill",
                extra.name
            )));
        }
        body.push('}');
        Ok(Initializer { arrays, body })
    }

    /// A pointer field's value and length.
    fn slice(
        &self,
        name: &str,
        elem: &str,
        value: &Value,
        graph: &Graph,
        naming: &Naming,
        arrays: &mut String,
    ) -> std::result::Result<(String, usize), String> {
        let array = |items: Vec<String>, arrays: &mut String| -> (String, usize) {
            if items.is_empty() {
                return ("NULL".to_string(), 0);
            }
            let ident = format!("{}_{name}", naming.array_prefix);
            let _ = writeln!(
                arrays,
                "static const {elem} {ident}[{}] = {{ {} }};",
                items.len(),
                items.join(", ")
            );
            (ident, items.len())
        };
        let want = |kind: &str| -> std::result::Result<(), String> {
            if elem == kind {
                Ok(())
            } else {
                Err(format!(
                    "`{name}` is `const {elem} *` in C but a {kind} slice in Rust"
                ))
            }
        };
        Ok(match value {
            Value::Usizes(v) => {
                want("size_t")?;
                array(v.iter().map(|x| format!("{x}u")).collect(), arrays)
            }
            Value::I8s(v) => {
                want("int8_t")?;
                array(v.iter().map(|x| x.to_string()).collect(), arrays)
            }
            Value::I16s(v) => {
                want("int16_t")?;
                array(v.iter().map(|x| x.to_string()).collect(), arrays)
            }
            Value::I32s(v) => {
                want("int32_t")?;
                array(v.iter().map(|&x| i32_literal(x)).collect(), arrays)
            }
            Value::I64s(v) => {
                want("int64_t")?;
                array(v.iter().map(|&x| i64_literal(x)).collect(), arrays)
            }
            Value::F32s(v) => {
                want("float")?;
                array(v.iter().map(|&x| f32_literal(x)).collect(), arrays)
            }
            Value::Tensor(t) => {
                let tensor = graph
                    .tensors
                    .get(*t)
                    .filter(|t| t.is_constant())
                    .ok_or_else(|| format!("`{name}` refers to tensor {t}, which has no data"))?;
                let (c_elem, _) = tensor_view(tensor.dtype);
                want(c_elem)?;
                let len =
                    tensor.data.as_deref().map_or(0, <[u8]>::len) / tensor.dtype.size().max(1);
                ((naming.tensor)(*t), len)
            }
            Value::Packed(packed) => {
                let (c_elem, _) = tensor_view(packed.dtype);
                want(c_elem)?;
                let len = packed.bytes.len() / packed.dtype.size().max(1);
                ((naming.packed)(name, packed), len)
            }
            Value::Some(inner) => self.slice(name, elem, inner, graph, naming, arrays)?,
            Value::None => ("NULL".to_string(), 0),
            other => return Err(format!("`{name}` is a pointer in C but {other:?} in Rust")),
        })
    }
}

/// The C element type and union member through which constant data of `dtype` is viewed — the
/// types the Rust backend's `Flash` views give (`as_i8`, `as_i16`, `as_i32`, `as_i64`, `as_f32`,
/// `bytes`).
pub(crate) fn tensor_view(dtype: DType) -> (&'static str, &'static str) {
    match dtype {
        DType::I8 => ("int8_t", "i8"),
        DType::I16 => ("int16_t", "i16"),
        DType::I32 => ("int32_t", "i32"),
        DType::I64 => ("int64_t", "i64"),
        DType::F32 => ("float", "f32"),
        _ => ("uint8_t", "u8"),
    }
}

/// A scalar field's C literal, if `value` fits C type `ty`.
fn scalar(ty: &str, value: &Value) -> std::result::Result<String, String> {
    match (value, ty) {
        (Value::F32(v), "float") => Ok(f32_literal(*v)),
        (Value::Bool(b), "int" | "uint8_t") => Ok(if *b { "1" } else { "0" }.to_string()),
        (Value::Usize(v), _) => int_literal(ty, *v as i128),
        // A Rust i32 in a C size_t would turn a negative value into a huge one.
        (Value::I32(v), t) if t != "size_t" && t != "uint32_t" => int_literal(ty, i128::from(*v)),
        (other, _) => Err(format!("{other:?} cannot fill a C `{ty}`")),
    }
}

/// An integer literal of C type `ty`, if `v` fits it.
fn int_literal(ty: &str, v: i128) -> std::result::Result<String, String> {
    let (lo, hi, unsigned) = match ty {
        "size_t" | "uint32_t" => (0, i128::from(u32::MAX), true),
        "int32_t" | "int" => (i128::from(i32::MIN), i128::from(i32::MAX), false),
        "uint8_t" => (0, 255, true),
        _ => return Err(format!("an integer cannot fill a C `{ty}`")),
    };
    if v < lo || v > hi {
        return Err(format!("{v} does not fit in {ty}"));
    }
    Ok(if unsigned {
        format!("{v}u")
    } else {
        // In range of i32 (checked above).
        i32_literal(v as i32)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_table_has_pointers_followed_by_lengths() {
        let decls = Decls::generated();
        let conv = decls.get("conv", "Conv2dS8").unwrap();
        let filter = conv.fields.iter().position(|f| f.name == "filter").unwrap();
        assert_eq!(conv.fields[filter].ty, "const int8_t *");
        assert_eq!(conv.fields[filter + 1].name, "filter_len");
        // An alias has its target's fields.
        assert_eq!(
            decls.get("elementwise", "SubS8"),
            decls.get("elementwise", "AddS8")
        );
        assert!(decls.get("conv", "NoSuchStruct").is_none());
    }

    /// A Rust struct and a C struct that differ in any field are refused at generation.
    #[test]
    fn initializer_refuses_any_difference() {
        let decls = Decls::from_table(&[(
            "m",
            "P",
            &[
                ("len", "size_t"),
                ("bias", "const int32_t *"),
                ("bias_len", "size_t"),
                ("scale", "float"),
            ],
        )]);
        let decl = decls.get("m", "P").unwrap();
        let graph = Graph {
            tensors: Vec::new(),
            operators: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            offline_offsets: None,
            subgraphs: Vec::new(),
            description: String::new(),
            folded: Vec::new(),
            source: None,
        };
        let tensor = |t: usize| format!("t{t}");
        let packed = |field: &str, _: &Packed| format!("x_p0_{field}.i8");
        let naming = Naming {
            array_prefix: "x_p0".to_string(),
            tensor: &tensor,
            packed: &packed,
        };
        let params = |fields: Vec<(&'static str, Value)>| Params {
            type_name: "P",
            fields,
        };
        let good = params(vec![
            ("len", Value::Usize(4)),
            ("bias", Value::Some(Box::new(Value::I32s(vec![1, -2])))),
            ("scale", Value::F32(0.5)),
        ]);
        let init = decl.initializer("x_m_P", &good, &graph, &naming).unwrap();
        assert!(init
            .arrays
            .contains("static const int32_t x_p0_bias[2] = { 1, -2 };"));
        assert!(init.body.contains(".bias_len = 2,"));
        assert!(init.body.contains(".scale = 0.5f,"));
        let none = params(vec![
            ("len", Value::Usize(4)),
            ("bias", Value::None),
            ("scale", Value::F32(0.5)),
        ]);
        let init = decl.initializer("x_m_P", &none, &graph, &naming).unwrap();
        assert!(init.body.contains(".bias = NULL,"));
        // Generation-time constant data: named by the caller, its length in elements.
        let packed_bias = Packed {
            dtype: DType::I32,
            bytes: [1u8, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff].into(),
        };
        let packed = params(vec![
            ("len", Value::Usize(4)),
            ("bias", Value::Packed(packed_bias)),
            ("scale", Value::F32(0.5)),
        ]);
        let init = decl.initializer("x_m_P", &packed, &graph, &naming).unwrap();
        assert!(init.body.contains(".bias = x_p0_bias.i8,"), "{}", init.body);
        assert!(init.body.contains(".bias_len = 2,"));
        assert!(init.arrays.is_empty());
        for bad in [
            // A field the C struct lacks.
            vec![
                ("len", Value::Usize(4)),
                ("bias", Value::None),
                ("scale", Value::F32(0.5)),
                ("extra", Value::I32(1)),
            ],
            // A field the lowering does not fill.
            vec![("len", Value::Usize(4)), ("bias", Value::None)],
            // Renamed, reordered, retyped.
            vec![
                ("n", Value::Usize(4)),
                ("bias", Value::None),
                ("scale", Value::F32(0.5)),
            ],
            vec![
                ("bias", Value::None),
                ("len", Value::Usize(4)),
                ("scale", Value::F32(0.5)),
            ],
            vec![
                ("len", Value::Usize(4)),
                ("bias", Value::F32s(vec![1.0])),
                ("scale", Value::F32(0.5)),
            ],
            vec![
                ("len", Value::Usize(4)),
                (
                    "bias",
                    Value::Packed(Packed {
                        dtype: DType::I8,
                        bytes: [1u8].into(),
                    }),
                ),
                ("scale", Value::F32(0.5)),
            ],
            vec![
                ("len", Value::Usize(4)),
                ("bias", Value::None),
                ("scale", Value::I32(1)),
            ],
        ] {
            // Both sides are generated: a difference is a generator bug, not a configuration's.
            let Err(Error::Internal { detail }) =
                decl.initializer("x_m_P", &params(bad), &graph, &naming)
            else {
                panic!("a difference was accepted, or was not an internal error");
            };
            assert!(
                detail.starts_with("the C struct x_m_P does not match the lowering's P: "),
                "{detail}"
            );
        }
    }

    #[test]
    fn scalars_are_checked() {
        assert_eq!(scalar("size_t", &Value::Usize(3)).unwrap(), "3u");
        assert_eq!(
            scalar("int32_t", &Value::I32(i32::MIN)).unwrap(),
            "(-2147483647 - 1)"
        );
        assert!(scalar("int32_t", &Value::F32(1.0)).is_err());
        assert!(scalar("size_t", &Value::I32(-1)).is_err());
        assert_eq!(scalar("int", &Value::Bool(true)).unwrap(), "1");
    }
}

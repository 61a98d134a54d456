//! The tensor types of the registry: for each operator, the type signatures tinyaot compiles and
//! those TFLM's kernel registers ([`Types`], one per operator's `OpEntry`).
//!
//! A signature lists the types of the operator's typed roles (the tensors its kernel is chosen
//! by: the data input, a weights input, the output), e.g. CONV_2D's `int16×int8→int16`. TFLM's
//! side is read from its kernels' Prepare and Eval switches (tensorflow/lite/micro/kernels); the
//! README's operator × type table (`cargo xtask readme`) shows both, and where they differ is the
//! work list. In debug builds, [`lower_op`](crate::lower) fails with an internal error when a
//! lowering accepts a signature its entry does not list, so the list cannot fall behind the code.

use crate::ir::{DType, Graph, Operator as Op};

/// A tensor type as the registry names it: TFLite's types, including those no [`DType`] stands
/// for (every one of them has a [`DType`] today; `Int4` is weights only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// FLOAT32.
    F32,
    /// INT8.
    I8,
    /// INT16.
    I16,
    /// INT32.
    I32,
    /// INT64.
    I64,
    /// UINT8.
    U8,
    /// UINT32 (TFLM's signal library's spectra and filter bank channels).
    U32,
    /// UINT64 (TFLM's signal library's filter bank sums).
    U64,
    /// BOOL.
    Bool,
    /// INT4 (packed weights).
    I4,
}

impl Ty {
    /// Every type, in table order.
    pub const ALL: [Ty; 10] = [
        Ty::F32,
        Ty::I8,
        Ty::I16,
        Ty::I32,
        Ty::I64,
        Ty::U8,
        Ty::U32,
        Ty::U64,
        Ty::Bool,
        Ty::I4,
    ];

    /// The name TFLite's schema gives the type (`INT8`), as [`DType::name`] does.
    pub const fn schema_name(self) -> &'static str {
        match self {
            Ty::F32 => "FLOAT32",
            Ty::I8 => "INT8",
            Ty::I16 => "INT16",
            Ty::I32 => "INT32",
            Ty::I64 => "INT64",
            Ty::U8 => "UINT8",
            Ty::U32 => "UINT32",
            Ty::U64 => "UINT64",
            Ty::Bool => "BOOL",
            Ty::I4 => "INT4",
        }
    }

    /// The short name the README's table uses (`int8`).
    pub const fn short(self) -> &'static str {
        match self {
            Ty::F32 => "float32",
            Ty::I8 => "int8",
            Ty::I16 => "int16",
            Ty::I32 => "int32",
            Ty::I64 => "int64",
            Ty::U8 => "uint8",
            Ty::U32 => "uint32",
            Ty::U64 => "uint64",
            Ty::Bool => "bool",
            Ty::I4 => "int4",
        }
    }

    /// The registry's type of `dtype`, by schema name; `None` for types no entry lists.
    pub fn of(dtype: DType) -> Option<Ty> {
        Ty::ALL
            .into_iter()
            .find(|t| t.schema_name() == dtype.name())
    }
}

/// A tensor whose type a signature gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Input `i` (it must be present).
    In(usize),
    /// Output `i`.
    Out(usize),
}

/// One type signature of an operator, over its entry's [`Types::roles`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sig {
    /// Every role of this type.
    Same(Ty),
    /// Role by role, in the order of [`Types::roles`].
    Each(&'static [Ty]),
    /// Every role of one type, whichever it is (bytes moved unread: RESHAPE and its kin).
    Any,
}

impl Sig {
    /// True when the role types `types` (`None`: a type no [`Ty`] names) fit this signature.
    pub fn matches(self, types: &[Option<Ty>]) -> bool {
        match self {
            Sig::Same(t) => types.iter().all(|&x| x == Some(t)),
            Sig::Each(ts) => {
                ts.len() == types.len() && ts.iter().zip(types).all(|(&t, &x)| x == Some(t))
            }
            Sig::Any => types.windows(2).all(|w| w[0] == w[1]),
        }
    }

    /// The signature as the README writes it: `int8`, `int16×int8→int16`, `float32→int8`,
    /// `any`.
    pub fn render(self, roles: &[Role]) -> String {
        let ts: Vec<Ty> = match self {
            Sig::Any => return "any".to_string(),
            Sig::Same(t) => return t.short().to_string(),
            Sig::Each(ts) => ts.to_vec(),
        };
        let pick = |out: bool| -> Vec<&str> {
            roles
                .iter()
                .zip(&ts)
                .filter(|(r, _)| matches!(r, Role::Out(_)) == out)
                .map(|(_, t)| t.short())
                .collect()
        };
        let (ins, outs) = (pick(false), pick(true));
        match (ins.is_empty(), outs.is_empty()) {
            (_, true) => ins.join("×"),
            (true, false) => outs.join(", "),
            (false, false) => format!("{}→{}", ins.join("×"), outs.join(", ")),
        }
    }
}

/// The types of one operator: what tinyaot compiles and what TFLM registers.
#[derive(Clone, Copy, Debug)]
pub struct Types {
    /// The tensors a signature types, in order.
    pub roles: &'static [Role],
    /// The signatures tinyaot compiles.
    pub tinyaot: &'static [Sig],
    /// The signatures TFLM's kernel registers (its Prepare and Eval switches).
    pub tflm: &'static [Sig],
}

impl Types {
    /// An operator with no typed tensors (VAR_HANDLE, CALL_ONCE), which both compile.
    pub const UNTYPED: Types = Types {
        roles: &[],
        tinyaot: &[Sig::Each(&[])],
        tflm: &[Sig::Each(&[])],
    };

    /// CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED: input × weights → output, int8 and
    /// float32 throughout or 16x8, and int8 with int4 (packed) weights.
    pub const WEIGHTED: Types = Types {
        roles: &[Role::In(0), Role::In(1), Role::Out(0)],
        tinyaot: &[
            Sig::Same(Ty::F32),
            Sig::Same(Ty::I8),
            Sig::Each(&[Ty::I8, Ty::I4, Ty::I8]),
            Sig::Each(&[Ty::I16, Ty::I8, Ty::I16]),
        ],
        tflm: &[
            Sig::Same(Ty::F32),
            Sig::Same(Ty::I8),
            Sig::Each(&[Ty::I8, Ty::I4, Ty::I8]),
            Sig::Each(&[Ty::I16, Ty::I8, Ty::I16]),
        ],
    };

    /// One role for input 0 and output 0 of the same type, in the given types (for both).
    pub const fn unary(tinyaot: &'static [Sig], tflm: &'static [Sig]) -> Types {
        Types {
            roles: &[Role::In(0), Role::Out(0)],
            tinyaot,
            tflm,
        }
    }

    /// The role types of `op` in `graph`; `None` when a role's tensor is absent.
    pub fn of_op(&self, graph: &Graph, op: &Op) -> Option<Vec<Option<Ty>>> {
        self.roles
            .iter()
            .map(|role| {
                let index = match *role {
                    Role::In(i) => op.inputs.get(i).copied().flatten(),
                    Role::Out(i) => op.outputs.get(i).copied(),
                }?;
                Some(graph.tensors.get(index).and_then(|t| Ty::of(t.dtype)))
            })
            .collect()
    }

    /// True when `types` (from [`of_op`](Self::of_op)) fit one of tinyaot's signatures.
    pub fn compiles(&self, types: &[Option<Ty>]) -> bool {
        self.tinyaot.iter().any(|s| s.matches(types))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_schema() {
        for dtype in [DType::F32, DType::I8, DType::I16, DType::I32, DType::I64] {
            assert_eq!(Ty::of(dtype).map(Ty::schema_name), Some(dtype.name()));
        }
        assert_eq!(Ty::of(DType::F64), None);
        for t in Ty::ALL {
            assert_eq!(t.short().to_uppercase(), t.schema_name());
        }
    }

    #[test]
    fn signatures_match_and_render() {
        let conv = [Role::In(0), Role::In(1), Role::Out(0)];
        let s16 = Sig::Each(&[Ty::I16, Ty::I8, Ty::I16]);
        assert_eq!(s16.render(&conv), "int16×int8→int16");
        assert!(s16.matches(&[Some(Ty::I16), Some(Ty::I8), Some(Ty::I16)]));
        assert!(!s16.matches(&[Some(Ty::I16), Some(Ty::I16), Some(Ty::I16)]));
        assert!(Sig::Same(Ty::I8).matches(&[Some(Ty::I8), Some(Ty::I8)]));
        assert!(!Sig::Same(Ty::I8).matches(&[Some(Ty::I8), None]));
        assert!(Sig::Any.matches(&[None, None]));
        assert!(!Sig::Any.matches(&[Some(Ty::I8), None]));
        assert_eq!(
            Sig::Each(&[Ty::F32, Ty::I8]).render(&[Role::In(0), Role::Out(0)]),
            "float32→int8"
        );
        assert_eq!(Sig::Each(&[]).render(&[]), "");
    }
}

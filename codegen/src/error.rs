//! The one error type of tinyaot-codegen. Every way a model can be refused is a variant here, with
//! a message that says what was found and what is supported; nothing in the library panics on input.

use std::fmt;
use std::path::PathBuf;

/// Everything that can go wrong between a `.tflite` file and generated source.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The file is shorter than its own structure says it is, or is not a FlatBuffer at all.
    Truncated {
        /// Bytes available.
        len: usize,
        /// What could not be read.
        detail: String,
    },
    /// The FlatBuffer does not verify (a vtable out of bounds, nesting too deep, too many tables, …),
    /// or a value is out of its domain.
    Corrupt {
        /// What the verifier (or a later consistency check) reported.
        detail: String,
    },
    /// The file identifier at bytes 4..8 is not `TFL3`.
    WrongIdentifier {
        /// The four bytes found there.
        found: [u8; 4],
    },
    /// A schema version other than 3.
    UnsupportedVersion {
        /// The version in the file.
        version: u32,
    },
    /// An index in the model points past the end of the table it indexes.
    IndexOutOfRange {
        /// What holds the index, e.g. "operator 3 input 1" or "subgraph output 0".
        context: String,
        /// The index found.
        index: i64,
        /// The length of the table it indexes.
        len: usize,
    },
    /// An operator this build cannot compile.
    UnsupportedOp {
        /// The operator's name (`SVDF`, `CUSTOM(TFLite_Detection_PostProcess)`).
        op: String,
        /// Its index in execution order.
        index: usize,
        /// The operators that are supported.
        supported: Vec<String>,
    },
    /// A supported operator used in a way this build cannot compile (a dtype, shape or option).
    UnsupportedOpUse {
        /// The operator's name.
        op: String,
        /// Its index in execution order.
        index: usize,
        /// What is unsupported and what is.
        reason: String,
    },
    /// A model feature, outside any one operator, that this build cannot compile yet (a variable
    /// tensor used as a graph input or output, …).
    Unsupported {
        /// What is unsupported and what is.
        detail: String,
    },
    /// A tensor element type this build cannot handle.
    UnsupportedDtype {
        /// Tensor index.
        tensor: usize,
        /// Tensor name.
        name: String,
        /// The type as the schema names it.
        dtype: String,
    },
    /// A tensor whose shape is not known until run time (`shape_signature` holds -1).
    DynamicShape {
        /// Tensor index.
        tensor: usize,
        /// Tensor name.
        name: String,
        /// The shape signature found.
        signature: Vec<i32>,
    },
    /// The model has no subgraph (tinyaot compiles subgraph 0, with the init subgraphs its
    /// CALL_ONCE operators run).
    Subgraphs {
        /// How many the model has.
        count: usize,
    },
    /// A size or offset computation overflowed.
    Overflow {
        /// What was being computed.
        context: String,
    },
    /// Reading or writing a file failed.
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The model is well-formed FlatBuffer but not one tinyaot may compile: TFLM refuses it (a
    /// kernel's `Prepare`, the allocator, the flatbuffer reader), its result in TFLM is undefined
    /// behaviour (a tensor read before any operator writes it, a shift of 32 bits or more, …), or
    /// the TFLite format or quantization specification forbids it (a scale that is not a positive
    /// finite number, an int8 zero point of 200, …). `grounds` says which, and where.
    InvalidModel {
        /// What is wrong, naming the operator or tensor.
        detail: String,
        /// Why this is a refusal rather than a result: which of the three grounds, and where.
        grounds: Grounds,
    },
    /// The model is larger than a configured resource limit allows (see `Limits`). Raise the limit
    /// with the setter or command-line flag the message names.
    Limit {
        /// What exceeds the limit, e.g. "the arena" or "operator count".
        what: String,
        /// The value found (saturated at `u128::MAX`).
        value: u128,
        /// The limit in force.
        limit: u128,
        /// How to raise it, e.g. "Config::max_arena_bytes or --max-arena-bytes".
        setting: String,
    },
    /// A bug in tinyaot itself (a plan that fails its own check, generated code that does not
    /// parse, …). No model should ever cause one: please report it with the model.
    Internal {
        /// What went wrong.
        detail: String,
    },
    /// A build-configuration problem (missing `OUT_DIR`, a name that is not an identifier, …).
    Config {
        /// What is wrong and how to fix it.
        detail: String,
    },
    /// One model of a group (several models sharing one arena) was refused: `error` says why.
    InModel {
        /// The model's name in the group.
        model: String,
        /// Why it was refused.
        error: Box<Error>,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { len, detail } => write!(
                f,
                "the model is truncated or not a TFLite FlatBuffer ({len} bytes): {detail}"
            ),
            Error::Corrupt { detail } => write!(f, "the model is corrupt: {detail}"),
            Error::WrongIdentifier { found } => write!(
                f,
                "not a TFLite model: file identifier is {:?}, expected \"TFL3\"",
                String::from_utf8_lossy(found)
            ),
            Error::UnsupportedVersion { version } => write!(
                f,
                "unsupported TFLite schema version {version} (tinyaot reads version 3)"
            ),
            Error::IndexOutOfRange {
                context,
                index,
                len,
            } => write!(
                f,
                "the model is corrupt: {context} is {index}, but there are only {len}"
            ),
            Error::UnsupportedOp {
                op,
                index,
                supported,
            } => write!(
                f,
                "unsupported operator {op} (operator #{index}); supported operators: {}",
                supported.join(", ")
            ),
            Error::UnsupportedOpUse { op, index, reason } => {
                write!(f, "unsupported use of {op} (operator #{index}): {reason}")
            }
            Error::UnsupportedDtype {
                tensor,
                name,
                dtype,
            } => write!(
                f,
                "unsupported tensor type {dtype} for tensor #{tensor} {name:?}"
            ),
            Error::DynamicShape {
                tensor,
                name,
                signature,
            } => write!(
                f,
                "tensor #{tensor} {name:?} has a dynamic shape {signature:?}; tinyaot needs static \
                 shapes (convert with a fixed batch size, e.g. keras.Input(..., batch_size=1))"
            ),
            Error::Subgraphs { count } => write!(
                f,
                "the model has {count} subgraphs; tinyaot needs subgraph 0, the one TFLM invokes"
            ),
            Error::Unsupported { detail } => write!(f, "unsupported: {detail}"),
            Error::Overflow { context } => write!(f, "size overflow: {context}"),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::InvalidModel { detail, grounds } => {
                write!(f, "invalid model: {detail} [{grounds}]")
            }
            Error::Limit {
                what,
                value,
                limit,
                setting,
            } => write!(
                f,
                "{what} is {value}, above the limit of {limit} (raise it with {setting})"
            ),
            Error::Internal { detail } => write!(
                f,
                "internal error (a bug in tinyaot, please report it with the model): {detail}"
            ),
            Error::Config { detail } => f.write_str(detail),
            Error::InModel { model, error } => write!(f, "model `{model}`: {error}"),
        }
    }
}

/// Why tinyaot refuses an [`Error::InvalidModel`]: the project's rule is that a model TFLM runs is
/// compiled and matches TFLM bit for bit, so a refusal has exactly one of these three grounds.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Grounds {
    /// TFLM refuses the model itself: a kernel's `Prepare` or `Eval` returns an error, the
    /// allocator fails, or reading the flatbuffer fails.
    TflmRefuses {
        /// The TFLM function and check that refuses, e.g. `"conv_common.cc CalculateOpDataConv:
        /// TF_LITE_ENSURE_EQ(filter zero point, 0)"`.
        function: &'static str,
    },
    /// TFLM would run the model, but what it computes is undefined behaviour (an out-of-bounds
    /// read or write, a signed overflow, a division by zero, a shift of 32 bits or more, a read of
    /// memory nothing wrote).
    Undefined {
        /// What is undefined, and where in TFLM.
        why: &'static str,
    },
    /// The TFLite format (`schema.fbs`) or the TFLite quantization specification forbids it.
    Specification {
        /// The clause, e.g. `"quantization spec: int8 zero point in [-128, 127]"`.
        clause: &'static str,
    },
}

impl Grounds {
    /// Shorthand for [`Grounds::TflmRefuses`].
    pub const fn tflm(function: &'static str) -> Self {
        Grounds::TflmRefuses { function }
    }

    /// Shorthand for [`Grounds::Undefined`].
    pub const fn undefined(why: &'static str) -> Self {
        Grounds::Undefined { why }
    }

    /// Shorthand for [`Grounds::Specification`].
    pub const fn spec(clause: &'static str) -> Self {
        Grounds::Specification { clause }
    }

    /// The ground's kind as a short, stable word: `tflm-refuses`, `undefined` or `specification`.
    pub fn kind(&self) -> &'static str {
        match self {
            Grounds::TflmRefuses { .. } => "tflm-refuses",
            Grounds::Undefined { .. } => "undefined",
            Grounds::Specification { .. } => "specification",
        }
    }

    /// Where: the TFLM function, why it is undefined, or the clause of the specification.
    pub fn reference(&self) -> &'static str {
        match self {
            Grounds::TflmRefuses { function } => function,
            Grounds::Undefined { why } => why,
            Grounds::Specification { clause } => clause,
        }
    }
}

impl fmt::Display for Grounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Grounds::TflmRefuses { function } => write!(f, "TFLM refuses it: {function}"),
            Grounds::Undefined { why } => write!(f, "undefined in TFLM: {why}"),
            Grounds::Specification { clause } => {
                write!(f, "the TFLite specification forbids it: {clause}")
            }
        }
    }
}

impl Error {
    /// The grounds of an [`Error::InvalidModel`] (also inside [`Error::InModel`]), `None` for
    /// every other error.
    pub fn grounds(&self) -> Option<&Grounds> {
        match self {
            Error::InvalidModel { grounds, .. } => Some(grounds),
            Error::InModel { error, .. } => error.grounds(),
            _ => None,
        }
    }

    /// True for [`Error::Internal`]: a bug in tinyaot rather than a fault of the model or the
    /// configuration. Fuzzing and the hostile-model suite assert this is never returned.
    pub fn is_internal(&self) -> bool {
        match self {
            Error::InModel { error, .. } => error.is_internal(),
            other => matches!(other, Error::Internal { .. }),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::InModel { error, .. } => error.source(),
            _ => None,
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

//! CAST → `cast::cast`: FLOAT32, INT8, INT16, INT32 and BOOL to one another, element by element
//! (TFLM's cast.cc: no Prepare check but the arity; its Eval switches on both types). The pip
//! TFLM build, the goldens' source, converts a float to an integer type by truncation saturated at
//! the type's bounds, NaN giving 0 (its source's `static_cast` would be undefined out of range:
//! the build defines it, and the runtime computes the same), so no input value is refused. A
//! constant input folds at generation time through the same kernel.
//!
//! UINT32 to and from INT32 (the audio front end's casts around its filter bank) is the same
//! bytes, copied as INT32 to INT32 (C's conversion between them is modulo 2^32 either way). Not
//! compiled: UINT32 with the other types (TFLM casts them).

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::cast as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::OpContext;

/// What tinyaot casts: every pair of `FLOAT32, INT8, INT16, INT32, BOOL`, the same type
/// included (a copy), and UINT32 to and from INT32.
const CASTS: &[Sig] = &[
    Sig::Each(&[Ty::U32, Ty::I32]),
    Sig::Each(&[Ty::I32, Ty::U32]),
    Sig::Each(&[Ty::F32, Ty::I8]),
    Sig::Each(&[Ty::F32, Ty::I16]),
    Sig::Each(&[Ty::F32, Ty::I32]),
    Sig::Each(&[Ty::F32, Ty::Bool]),
    Sig::Each(&[Ty::I8, Ty::F32]),
    Sig::Each(&[Ty::I8, Ty::I16]),
    Sig::Each(&[Ty::I8, Ty::I32]),
    Sig::Each(&[Ty::I8, Ty::Bool]),
    Sig::Each(&[Ty::I16, Ty::F32]),
    Sig::Each(&[Ty::I16, Ty::I8]),
    Sig::Each(&[Ty::I16, Ty::I32]),
    Sig::Each(&[Ty::I16, Ty::Bool]),
    Sig::Each(&[Ty::I32, Ty::F32]),
    Sig::Each(&[Ty::I32, Ty::I8]),
    Sig::Each(&[Ty::I32, Ty::I16]),
    Sig::Each(&[Ty::I32, Ty::Bool]),
    Sig::Each(&[Ty::Bool, Ty::F32]),
    Sig::Each(&[Ty::Bool, Ty::I8]),
    Sig::Each(&[Ty::Bool, Ty::I16]),
    Sig::Each(&[Ty::Bool, Ty::I32]),
    Sig::Same(Ty::F32),
    Sig::Same(Ty::I8),
    Sig::Same(Ty::I16),
    Sig::Same(Ty::I32),
    Sig::Same(Ty::Bool),
];

/// What TFLM's Eval casts among the registry's types: [`CASTS`] and UINT32 with every type.
const TFLM_CASTS: &[Sig] = &[
    Sig::Each(&[Ty::U32, Ty::I32]),
    Sig::Each(&[Ty::I32, Ty::U32]),
    Sig::Each(&[Ty::F32, Ty::I8]),
    Sig::Each(&[Ty::F32, Ty::I16]),
    Sig::Each(&[Ty::F32, Ty::I32]),
    Sig::Each(&[Ty::F32, Ty::U32]),
    Sig::Each(&[Ty::F32, Ty::Bool]),
    Sig::Each(&[Ty::I8, Ty::F32]),
    Sig::Each(&[Ty::I8, Ty::I16]),
    Sig::Each(&[Ty::I8, Ty::I32]),
    Sig::Each(&[Ty::I8, Ty::U32]),
    Sig::Each(&[Ty::I8, Ty::Bool]),
    Sig::Each(&[Ty::I16, Ty::F32]),
    Sig::Each(&[Ty::I16, Ty::I8]),
    Sig::Each(&[Ty::I16, Ty::I32]),
    Sig::Each(&[Ty::I16, Ty::U32]),
    Sig::Each(&[Ty::I16, Ty::Bool]),
    Sig::Each(&[Ty::I32, Ty::F32]),
    Sig::Each(&[Ty::I32, Ty::I8]),
    Sig::Each(&[Ty::I32, Ty::I16]),
    Sig::Each(&[Ty::I32, Ty::Bool]),
    Sig::Each(&[Ty::U32, Ty::F32]),
    Sig::Each(&[Ty::U32, Ty::I8]),
    Sig::Each(&[Ty::U32, Ty::I16]),
    Sig::Each(&[Ty::U32, Ty::Bool]),
    Sig::Each(&[Ty::Bool, Ty::F32]),
    Sig::Each(&[Ty::Bool, Ty::I8]),
    Sig::Each(&[Ty::Bool, Ty::I16]),
    Sig::Each(&[Ty::Bool, Ty::I32]),
    Sig::Each(&[Ty::Bool, Ty::U32]),
    Sig::Same(Ty::F32),
    Sig::Same(Ty::I8),
    Sig::Same(Ty::I16),
    Sig::Same(Ty::I32),
    Sig::Same(Ty::U32),
    Sig::Same(Ty::Bool),
];

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::CAST,
    types: Types::unary(CASTS, TFLM_CASTS),
    inputs: 1..=1,
    outputs: 1,
    lower: Lowering::Kernel(cast),
}];

/// The kernel's code of a type (runtime/src/kernels/cast.rs), `None` for one TFLM refuses.
fn code(dtype: DType) -> Option<usize> {
    match dtype {
        DType::F32 => Some(0),
        DType::I8 => Some(1),
        DType::I16 => Some(2),
        DType::I32 => Some(3),
        DType::Bool => Some(4),
        _ => None,
    }
}

/// CAST: both types checked as TFLM's Eval switches on them, and as many elements on each side.
fn cast(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let known = |t: DType| code(t).is_some() || t == DType::U32;
    for (what, t) in [("input", input.dtype), ("output", output.dtype)] {
        if !known(t) {
            return Err(ctx.invalid(
                format!(
                    "the {what} has type {t}; TFLM's CAST takes FLOAT32, INT8, INT16, INT32, \
                     UINT32 and BOOL"
                ),
                Grounds::tflm("cast.cc CastEval: type not supported (kTfLiteError)"),
            ));
        }
    }
    // UINT32 and INT32 are the same bytes: the kernel's INT32 copy.
    let int32_bits =
        |a: DType, b: DType| matches!((a, b), (DType::U32, DType::I32) | (DType::I32, DType::U32));
    let (from, to) = if int32_bits(input.dtype, output.dtype) {
        (code(DType::I32), code(DType::I32))
    } else {
        (code(input.dtype), code(output.dtype))
    };
    let (Some(from), Some(to)) = (from, to) else {
        return Err(ctx.unsupported(
            "a UINT32 input or output with another type than INT32; supported: FLOAT32, INT8, \
             INT16, INT32 and BOOL with one another, UINT32 to and from INT32",
        ));
    };
    super::same_size(ctx, input, output)?;
    Ok(kernel(
        "cast",
        in_out(ctx)?,
        P::Cast {
            from,
            to,
            count: input.num_elements(),
        },
    ))
}

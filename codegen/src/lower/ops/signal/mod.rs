//! TFLM's signal library: the custom operators of its audio front end (`signal/micro/kernels`),
//! registered by `custom_code`, their parameters read from the operator's FlexBuffer options the
//! way TFLM's `FlexbufferWrapper` reads them (by index: the map's keys in alphabetical order).
//!
//! SignalWindow → `signal::window_s16`; SignalFilterBankLog → `signal::filter_bank_log`;
//! SignalEnergy → `signal::energy`; SignalFftAutoScale → `signal::fft_auto_scale`;
//! SignalRfft → `signal::rfft_s16`, `rfft_s32`, `rfft_f32`; SignalIrfft → `signal::irfft_s16`,
//! `irfft_s32`, `irfft_f32`; SignalFilterBank → `signal::filter_bank`;
//! SignalFilterBankSquareRoot → `signal::filter_bank_square_root`;
//! SignalFilterBankSpectralSubtraction → `signal::filter_bank_spectral_subtraction` (its state a
//! variable tensor the loader adds); SignalPCAN → `signal::pcan`; SignalDelay →
//! `signal::delay_s16`, SignalFramer → `signal::framer_s16`, SignalStacker →
//! `signal::stacker_s16`, SignalOverlapAdd → `signal::overlap_add_s16`, `overlap_add_f32` (their
//! kept samples or sums variable tensors the loader adds).
//!
//! The family's files, as the runtime's: `pointwise.rs`, `rfft.rs`, `spectrum.rs` and
//! `stream.rs`, each with the lowerings of its operators. This module holds the table and the
//! checks several of them share.

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Tensor};
use crate::lower::params::signal as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{Data, OpContext, Operand};

mod pointwise;
mod rfft;
mod spectrum;
mod stream;

use pointwise::{energy, fft_auto_scale, filter_bank_log, window};
use rfft::{irfft, rfft};
use spectrum::{filter_bank, filter_bank_square_root, pcan, spectral_subtraction};
use stream::{delay, framer, overlap_add, stacker};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::Out(0)],
            tinyaot: &[Sig::Same(Ty::I16)],
            tflm: &[Sig::Same(Ty::I16)],
        },
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Custom("SignalWindow", window),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(
            &[Sig::Each(&[Ty::U32, Ty::I16])],
            &[Sig::Each(&[Ty::U32, Ty::I16])],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom("SignalFilterBankLog", filter_bank_log),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(
            &[Sig::Each(&[Ty::I16, Ty::U32])],
            &[Sig::Each(&[Ty::I16, Ty::U32])],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom("SignalEnergy", energy),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::Out(0), Role::Out(1)],
            tinyaot: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::I32])],
            tflm: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::I32])],
        },
        inputs: 1..=1,
        outputs: 2,
        lower: Lowering::Custom("SignalFftAutoScale", fft_auto_scale),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(
            &[Sig::Same(Ty::I16), Sig::Same(Ty::I32), Sig::Same(Ty::F32)],
            &[Sig::Same(Ty::I16), Sig::Same(Ty::I32), Sig::Same(Ty::F32)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom("SignalRfft", rfft),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(
            &[Sig::Same(Ty::I16), Sig::Same(Ty::I32), Sig::Same(Ty::F32)],
            &[Sig::Same(Ty::I16), Sig::Same(Ty::I32), Sig::Same(Ty::F32)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom("SignalIrfft", irfft),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::Out(0)],
            tinyaot: &[Sig::Each(&[Ty::U32, Ty::I16, Ty::U64])],
            tflm: &[Sig::Each(&[Ty::U32, Ty::I16, Ty::U64])],
        },
        inputs: 6..=6,
        outputs: 1,
        lower: Lowering::Custom("SignalFilterBank", filter_bank),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::Out(0)],
            tinyaot: &[Sig::Each(&[Ty::U64, Ty::I32, Ty::U32])],
            tflm: &[Sig::Each(&[Ty::U64, Ty::I32, Ty::U32])],
        },
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Custom("SignalFilterBankSquareRoot", filter_bank_square_root),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::Out(0), Role::Out(1)],
            tinyaot: &[Sig::Same(Ty::U32)],
            tflm: &[Sig::Same(Ty::U32)],
        },
        inputs: 1..=1,
        outputs: 2,
        lower: Lowering::Custom(crate::load::SPECTRAL_SUBTRACTION, spectral_subtraction),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::In(1), Role::In(2), Role::Out(0)],
            tinyaot: &[Sig::Each(&[Ty::U32, Ty::U32, Ty::I16, Ty::U32])],
            tflm: &[Sig::Each(&[Ty::U32, Ty::U32, Ty::I16, Ty::U32])],
        },
        inputs: 3..=3,
        outputs: 1,
        lower: Lowering::Custom("SignalPCAN", pcan),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(&[Sig::Same(Ty::I16)], &[Sig::Same(Ty::I16)]),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom(crate::load::DELAY, delay),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::Out(0), Role::Out(1)],
            tinyaot: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::Bool])],
            tflm: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::Bool])],
        },
        inputs: 1..=1,
        outputs: 2,
        lower: Lowering::Custom(crate::load::FRAMER, framer),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types {
            roles: &[Role::In(0), Role::Out(0), Role::Out(1)],
            tinyaot: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::Bool])],
            tflm: &[Sig::Each(&[Ty::I16, Ty::I16, Ty::Bool])],
        },
        inputs: 1..=1,
        outputs: 2,
        lower: Lowering::Custom(crate::load::STACKER, stacker),
    },
    OpEntry {
        code: OpCode::CUSTOM,
        types: Types::unary(
            &[Sig::Same(Ty::I16), Sig::Same(Ty::F32)],
            &[Sig::Same(Ty::I16), Sig::Same(Ty::F32)],
        ),
        inputs: 1..=1,
        outputs: 1,
        lower: Lowering::Custom(crate::load::OVERLAP_ADD, overlap_add),
    },
];

/// Fails unless `tensor` (the `what` of the operator) has type `dtype`, as the kernel's Prepare
/// checks with `TF_LITE_ENSURE_TYPES_EQ` (`file` names it).
fn expect_type(
    ctx: &OpContext,
    what: &str,
    tensor: &Tensor,
    dtype: DType,
    check: &'static str,
) -> Result<()> {
    if tensor.dtype == dtype {
        return Ok(());
    }
    Err(ctx.invalid(
        format!("the {what} has type {}, not {dtype}", tensor.dtype),
        Grounds::tflm(check),
    ))
}

/// Fails unless `tensor` (the `what` of the operator) has rank `rank`, as the kernel's Prepare
/// checks with `TF_LITE_ENSURE_EQ(NumDimensions(..))` (`check` names it).
fn expect_rank(
    ctx: &OpContext,
    what: &str,
    tensor: &Tensor,
    rank: usize,
    check: &'static str,
) -> Result<()> {
    if tensor.shape.len() == rank {
        return Ok(());
    }
    Err(ctx.invalid(
        format!("the {what} has shape {:?}, not rank {rank}", tensor.shape),
        Grounds::tflm(check),
    ))
}

/// The values of a constant INT16 tensor (`what` of the operator); a tensor computed at run time
/// is unsupported: its indices are checked here, where TFLM reads them unchecked.
fn const_i16s(ctx: &OpContext, what: &str, i: usize) -> Result<Vec<i16>> {
    let index = ctx.constant_input(i, what)?;
    let tensor = &ctx.graph().tensors[index];
    let data = tensor.data.as_deref().unwrap_or(&[]);
    let n = tensor.num_elements();
    if data.len() < 2 * n {
        return Err(ctx.invalid(
            format!(
                "{what} has {} bytes, fewer than its {n} int16 need",
                data.len()
            ),
            Grounds::spec("schema.fbs, Buffer: a constant tensor's data holds its elements"),
        ));
    }
    Ok(data[..2 * n]
        .chunks_exact(2)
        .map(|b| i16::from_le_bytes([b[0], b[1]]))
        .collect())
}

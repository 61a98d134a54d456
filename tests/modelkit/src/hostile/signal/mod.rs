//! The corners of TFLM's signal library operators (SignalWindow, SignalFilterBankLog,
//! SignalEnergy, SignalFftAutoScale, SignalRfft, SignalIrfft, SignalFilterBank,
//! SignalFilterBankSquareRoot, SignalFilterBankSpectralSubtraction, SignalPCAN: custom operators
//! whose parameters are a FlexBuffer in `custom_options`) and of the CASTs around them: frames,
//! shifts and state TFLM computes, and the options and shapes its kernels read out of bounds
//! (refused as invalid).
//!
//! The family's files, as the runtime's: `pointwise.rs`, `rfft.rs`, `spectrum.rs` and `stream.rs`
//! (SignalDelay, SignalFramer, SignalStacker, SignalOverlapAdd), each with its operators' cases
//! and builders. This module holds the builders several of them share.

mod pointwise;
mod rfft;
mod spectrum;
mod stream;

use super::{Category, Refusal, Suite};
use crate::flexbuffer::int_map;
use crate::{ModelSpec, OpCodeSpec, OpSpec, Options, TensorSpec, TensorType};

/// An int16 tensor of `shape`.
fn int16(shape: &[i32]) -> TensorSpec {
    TensorSpec::new(TensorType::INT16, shape)
}

/// A uint32 tensor of `n` elements.
fn u32s(n: i32) -> TensorSpec {
    TensorSpec::new(TensorType::UINT32, &[n])
}

/// A uint64 tensor of `n` elements.
fn u64s(n: i32) -> TensorSpec {
    TensorSpec::new(TensorType::UINT64, &[n])
}

/// One custom operator of [`custom_chain`]: its name, options, input and output indices.
type CustomOp<'a> = (&'a str, Option<Vec<u8>>, Vec<i32>, Vec<i32>);

/// A model of custom operators run in order over `tensors` (indices from 0); `inputs` and
/// `outputs` are the graph's.
fn custom_chain(
    tensors: Vec<TensorSpec>,
    ops: Vec<CustomOp>,
    inputs: Vec<i32>,
    outputs: Vec<i32>,
) -> ModelSpec {
    let mut m = ModelSpec::new();
    for t in tensors {
        m.tensor(t);
    }
    for (name, custom_options, inputs, outputs) in ops {
        let opcode_index = m.push_opcode(OpCodeSpec::custom(name));
        m.operators.push(OpSpec {
            opcode_index,
            inputs,
            outputs,
            intermediates: Vec::new(),
            options: Options::None,
            custom_options,
        });
    }
    m.inputs = inputs;
    m.outputs = outputs;
    m
}

/// The cases, appended to `cases`.
pub(super) fn signal(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::LegitimateCorners,
    };
    pointwise::cases(&mut s);
    rfft::rfft_cases(&mut s);
    rfft::irfft_cases(&mut s);
    spectrum::filter_bank_cases(&mut s);
    spectrum::spectral_subtraction_cases(&mut s);
    spectrum::pcan_cases(&mut s);
    spectrum::cast_cases(&mut s);
    stream::delay_cases(&mut s);
    stream::framer_cases(&mut s);
    stream::stacker_cases(&mut s);
    stream::overlap_add_cases(&mut s);
}

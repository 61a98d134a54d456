//! TFLM's custom operator CIRCULAR_BUFFER (kernels/circular_buffer.cc, Prepare in
//! circular_buffer_common.cc) → `circular_buffer::circular_buffer_s8`: a ring of the last frames
//! of a streaming model, kept from one invocation to the next in a variable tensor the loader
//! adds (with the count of invocations), copied to the output at every invocation. The
//! operator's Eval returns `kTfLiteAbort` until `cycles_max` invocations have arrived since it
//! last ran, which ends TFLM's invoke there: the call's stop byte ([`KernelCall::stop`]) makes
//! the generated `invoke` return the same way, saying so (Rust `false`, C `<PREFIX>_WAITING`).
//!
//! Prepare's checks: an INT8 input and output; input `[b, 1, h, d]`, output `[b, slots, h, d]`.
//! It reads dimensions 0 to 3 of both whatever their rank, and Eval writes `slots × h × d` bytes
//! of the output whatever its size: tinyaot refuses the shapes where that reads past a shape or
//! leaves output bytes unwritten (undefined in TFLM). `cycles_max`, the options' one parameter
//! (absent options read as 0): when it is not positive, Prepare picks 1 for 5, 13 or 25 slots,
//! else 2, except that for `h = 2, d = 96` its choice depends on how many such operators the
//! whole process has prepared before (a static counter), which tinyaot refuses as undefined.
//!
//! [`KernelCall::stop`]: crate::lower::KernelCall::stop

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode};
use crate::lower::params::circular_buffer as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{OpContext, Operand};
use tinyaot_runtime::kernels::circular_buffer::{STATE_HEADER, STOP_BYTE};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::CUSTOM,
    types: Types::unary(&[Sig::Same(Ty::I8)], &[Sig::Same(Ty::I8)]),
    inputs: 1..=1,
    outputs: 1,
    lower: Lowering::Custom(crate::load::CIRCULAR_BUFFER, circular_buffer),
}];

/// Where Prepare checks the types.
const TYPES: &str = "circular_buffer_common.cc CircularBufferPrepare: \
     TF_LITE_ENSURE_TYPES_EQ(input->type, output->type) and (input->type, kTfLiteInt8)";

/// CIRCULAR_BUFFER: Prepare's checks and its `cycles_max`, the ring's state and the stop byte.
fn circular_buffer(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    for (what, tensor) in [("input", input), ("output", output)] {
        if tensor.dtype != DType::I8 {
            return Err(ctx.invalid(
                format!(
                    "the {what} has type {}; CIRCULAR_BUFFER takes INT8",
                    tensor.dtype
                ),
                Grounds::tflm(TYPES),
            ));
        }
        if tensor.shape.len() < 4 {
            return Err(ctx.invalid(
                format!(
                    "the {what} has shape {:?}; CIRCULAR_BUFFER takes rank 4 ([batch, 1, h, \
                     depth] in, [batch, slots, h, depth] out)",
                    tensor.shape
                ),
                Grounds::undefined(
                    "circular_buffer_common.cc CircularBufferPrepare reads dimensions 0 to 3 of \
                     the input and the output: past the end of a shorter shape",
                ),
            ));
        }
    }
    let (i, o) = (&input.shape, &output.shape);
    let checks: [(bool, &str, &'static str); 4] = [
        (
            i[0] == o[0],
            "the input's dimension 0 differs from the output's",
            "TF_LITE_ENSURE_EQ(input->dims->data[0], output->dims->data[0])",
        ),
        (
            i[1] == 1,
            "the input's dimension 1 is not 1",
            "TF_LITE_ENSURE_EQ(1, input->dims->data[1])",
        ),
        (
            i[2] == o[2],
            "the input's dimension 2 differs from the output's",
            "TF_LITE_ENSURE_EQ(input->dims->data[2], output->dims->data[2])",
        ),
        (
            i[3] == o[3],
            "the input's dimension 3 differs from the output's",
            "TF_LITE_ENSURE_EQ(output->dims->data[3], input->dims->data[3])",
        ),
    ];
    if let Some((_, what, check)) = checks.iter().find(|(ok, _, _)| !ok) {
        return Err(ctx.invalid(
            format!("input shape {i:?}, output shape {o:?}: {what}"),
            Grounds::tflm(check),
        ));
    }
    let (slots, depth) = (o[1], o[2].checked_mul(o[3]));
    let ring = depth.and_then(|d| d.checked_mul(slots));
    let (Some(depth), Some(ring)) = (depth, ring) else {
        return Err(ctx.unsupported("the output is larger than the address space"));
    };
    if slots == 0 && depth > 0 {
        return Err(ctx.invalid(
            format!("output shape {o:?}: a ring of 0 slots"),
            Grounds::undefined(
                "circular_buffer.cc EvalInt8 moves (num_slots - 1) * depth bytes: a negative size",
            ),
        ));
    }
    if output.num_elements() != ring || input.num_elements() < depth {
        return Err(ctx.invalid(
            format!(
                "input shape {i:?}, output shape {o:?}: CIRCULAR_BUFFER takes one frame of \
                 depth h × d in and writes {ring} bytes (slots × h × d) out"
            ),
            Grounds::undefined(
                "circular_buffer.cc EvalInt8 reads h × d input bytes and writes slots × h × d \
                 output bytes whatever the tensors' sizes: past a tensor's end, or leaving output \
                 bytes unwritten",
            ),
        ));
    }
    let cycles_max = cycles_max(ctx, slots, o[2], o[3])?;
    let state = match ctx.op().intermediates.last() {
        Some(&t)
            if ctx.graph().tensors[t].is_variable
                && ctx.graph().tensors[t].bytes == STATE_HEADER + ring =>
        {
            t
        }
        _ => {
            return Err(ctx.internal(format!(
                "the loader gave the operator no state tensor of {} bytes",
                STATE_HEADER + ring
            )))
        }
    };
    let operands = vec![
        Operand::Offset(ctx.input_index(0)?),
        Operand::Offset(ctx.output_index(0)?),
        Operand::Offset(state),
    ];
    let mut k = kernel(
        "circular_buffer_s8",
        operands,
        P::CircularBuffer {
            slots,
            depth,
            cycles_max,
        },
    );
    k.stop = Some((state, STOP_BYTE));
    Ok(k)
}

/// The invocations per run: the options' `cycles_max` (parameter 0; absent options are 0, as
/// CircularBufferInit reads them), or Prepare's choice when it is not positive.
fn cycles_max(ctx: &OpContext, slots: usize, h: usize, depth: usize) -> Result<usize> {
    let present = ctx
        .tflite_operator()?
        .custom_options()
        .is_some_and(|v| !v.bytes().is_empty());
    let option = if present {
        let options = ctx.custom_options()?;
        // FlexbufferWrapper::ElementAsInt32: the element as an int64, truncated.
        ctx.custom_int(&options, 0, "cycles_max")? as i32
    } else {
        0
    };
    if let Ok(cycles) = usize::try_from(option) {
        if cycles > 0 {
            return Ok(cycles);
        }
    }
    if matches!(slots, 5 | 13 | 25) {
        return Ok(1);
    }
    if (h, depth) == (2, 96) {
        return Err(ctx.invalid(
            format!(
                "cycles_max {option} with an output of {slots} slots of 2 × 96: TFLM picks 1 or \
                 2 invocations per run by how many such operators the process prepared before; \
                 give cycles_max a positive value"
            ),
            Grounds::undefined(
                "circular_buffer_common.cc CircularBufferPrepare: cycles_max <= 0 picks 1 when a \
                 static cb_prepare_count reaches 5 for h 2 and depth 96, else 2",
            ),
        ));
    }
    Ok(2)
}

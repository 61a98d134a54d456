//! The corners of TFLM's custom operator CIRCULAR_BUFFER (a ring of frames whose invoke stops
//! until `cycles_max` frames have arrived; its one parameter a FlexBuffer map): the types and
//! shapes its Prepare refuses, those its Eval reads or writes out of bounds with, and the
//! `cycles_max` its Prepare picks from a process-wide counter. Also the custom operator `ethos-u`,
//! which TFLM registers beside it (`AddEthosU`): an NPU command stream that needs the NPU's
//! driver.

use super::{Category, Refusal, Suite};
use crate::flexbuffer::int_map;
use crate::{BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType};

/// One CIRCULAR_BUFFER from `input` to `output`, with `cycles_max` if given.
fn circular_buffer(input: TensorSpec, output: TensorSpec, cycles_max: Option<i64>) -> ModelSpec {
    let options = cycles_max.map(|c| int_map(&[("cycles_max", c)]));
    ModelSpec::single_custom_op("CIRCULAR_BUFFER", options, vec![input], vec![output])
}

/// An int8 tensor of `shape`.
fn int8(shape: &[i32]) -> TensorSpec {
    TensorSpec::int8(shape, 0.05, -4)
}

pub(super) fn circular_buffer_corners(cases: &mut Vec<super::Case>) {
    let mut s = Suite {
        cases,
        category: Category::TypesAndParameters,
    };
    let refused = [
        (
            "circular_buffer_float32",
            circular_buffer(
                TensorSpec::new(TensorType::FLOAT32, &[1, 1, 1, 4]),
                TensorSpec::new(TensorType::FLOAT32, &[1, 3, 1, 4]),
                Some(2),
            ),
            "CIRCULAR_BUFFER takes INT8",
        ),
        (
            "circular_buffer_two_frames_in",
            circular_buffer(int8(&[1, 2, 1, 4]), int8(&[1, 3, 1, 4]), Some(2)),
            "dimension 1 is not 1",
        ),
        (
            "circular_buffer_depth_differs",
            circular_buffer(int8(&[1, 1, 1, 4]), int8(&[1, 3, 1, 5]), Some(2)),
            "dimension 3 differs",
        ),
        (
            "circular_buffer_rank_3",
            circular_buffer(int8(&[1, 1, 4]), int8(&[1, 3, 4]), Some(2)),
            "takes rank 4",
        ),
        (
            "circular_buffer_batch_2",
            circular_buffer(int8(&[2, 1, 1, 4]), int8(&[2, 3, 1, 4]), Some(2)),
            "writes 12 bytes",
        ),
        (
            "circular_buffer_no_slots",
            circular_buffer(int8(&[1, 1, 1, 4]), int8(&[1, 0, 1, 4]), Some(2)),
            "zero-size dimension",
        ),
        (
            "circular_buffer_counted_cycles",
            circular_buffer(int8(&[1, 1, 2, 96]), int8(&[1, 4, 2, 96]), Some(0)),
            "how many such operators the process prepared before",
        ),
    ];
    for (name, model, mentions) in refused {
        s.refused(name, model, Refusal::Invalid, mentions);
    }
    // The ring a variable tensor, as TFLM's kernel expects it (read by a RESHAPE: a graph output
    // is no variable for tinyaot): TFLM's ResetVariableTensors fills it with the zero point
    // before the first invoke, so the older slots start at -4 (were 0 in tinyaot: difftest seed
    // 35003, its CIRCULAR_BUFFER cases).
    s.category = Category::LegitimateCorners;
    let mut m = ModelSpec::new();
    let frame = m.tensor(int8(&[1, 1, 2, 3]));
    let ring = m.tensor(int8(&[1, 4, 2, 3]).variable());
    let shape = m.tensor(TensorSpec::int32(&[4]).constant_i32(&[1, 4, 2, 3]));
    let out = m.tensor(int8(&[1, 4, 2, 3]));
    m.custom_op(
        "CIRCULAR_BUFFER",
        Some(int_map(&[("cycles_max", 1)])),
        &[frame],
        &[ring],
    );
    m.op(
        B::RESHAPE,
        Options::Reshape { new_shape: None },
        &[ring, shape],
        &[out],
    );
    m.inputs = vec![frame];
    m.outputs = vec![out];
    s.accepted("circular_buffer_variable_ring", m);
    s.category = Category::TypesAndParameters;
    s.refused(
        "ethos_u_command_stream",
        ModelSpec::single_custom_op(
            "ethos-u",
            None,
            vec![TensorSpec::new(TensorType::UINT8, &[16]), int8(&[1, 4])],
            vec![int8(&[1, 4])],
        ),
        Refusal::Unsupported,
        "the NPU's driver",
    );
}

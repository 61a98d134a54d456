//! PAD and PADV2 → `pad::pad_{s8,s16,s32,f32}`: constant paddings read at generation time, trailing
//! unpadded dimensions merged into longer rows. MIRROR_PAD → `pad::mirror_pad`: the input index
//! each output index reads along its dimension, TFLM's `GetInputDimension`, tabulated at
//! generation time; with paddings computed at run time, `pad::mirror_pad_dyn`, which computes
//! that index per call from the paddings' values.

use super::{in_out, kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Tensor};
use crate::lower::params::pad as P;
use crate::lower::types::{Sig, Ty, Types};
use crate::lower::{Num, OpContext, Operand};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[
    OpEntry {
        code: OpCode::PAD,
        types: Types::unary(
            &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Same(Ty::I16),
                Sig::Same(Ty::I32),
            ],
            &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Same(Ty::I16),
                Sig::Same(Ty::I32),
            ],
        ),
        inputs: 2..=3,
        outputs: 1,
        lower: Lowering::Kernel(pad),
    },
    OpEntry {
        code: OpCode::PADV2,
        types: Types::unary(
            &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Same(Ty::I16),
                Sig::Same(Ty::I32),
            ],
            &[
                Sig::Same(Ty::F32),
                Sig::Same(Ty::I8),
                Sig::Same(Ty::I16),
                Sig::Same(Ty::I32),
            ],
        ),
        inputs: 2..=3,
        outputs: 1,
        lower: Lowering::Kernel(pad),
    },
    OpEntry {
        code: OpCode::MIRROR_PAD,
        types: Types::unary(
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
            &[Sig::Same(Ty::F32), Sig::Same(Ty::I8)],
        ),
        inputs: 2..=2,
        outputs: 1,
        lower: Lowering::Kernel(mirror_pad),
    },
];

/// TFLM's `GetInputDimension` (mirror_pad.cc): the input index that output index `padded` reads
/// along a dimension of `size` elements padded by `left` and `right`, `offset` 1 for REFLECT (the
/// edge is not repeated) and 0 otherwise.
fn mirror_index(padded: i64, left: i64, size: i64, offset: i64) -> i64 {
    if padded < left {
        let original = left + offset - 1;
        return original - padded.min(original - offset);
    }
    let padded = padded - left;
    if padded >= size {
        let original = size - (1 + offset);
        return original - (padded - size).min(original);
    }
    padded
}

/// MIRROR_PAD (TFLM: float32, int8; REFLECT and SYMMETRIC).
fn mirror_pad(ctx: &OpContext) -> Result<Kernel> {
    let (input, paddings, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let rank = input.shape.len();
    if paddings.shape.len() != 2 || paddings.shape[0] != rank {
        return Err(ctx.invalid(
            format!(
                "paddings has shape {:?}; TFLM takes one row per input dimension ({rank})",
                paddings.shape
            ),
            Grounds::tflm(
                "mirror_pad.cc MirrorPadPrepare: TF_LITE_ENSURE_EQ(NumDimensions(padding_matrix), \
                 2) and TF_LITE_ENSURE_EQ(SizeOfDimension(padding_matrix, 0), \
                 NumDimensions(input))",
            ),
        ));
    }
    if !matches!(output.dtype, DType::F32 | DType::I8) {
        return Err(ctx.invalid(
            format!(
                "the output has type {}; TFLM's MIRROR_PAD takes FLOAT32 and INT8",
                output.dtype
            ),
            Grounds::tflm("mirror_pad.cc MirrorPadEval: any other output type is kTfLiteError"),
        ));
    }
    ctx.same_dtype("the input", input, output)?;
    if output.shape.len() != rank {
        return Err(ctx.invalid(
            format!("input rank {rank}, output rank {}", output.shape.len()),
            Grounds::undefined(
                "mirror_pad.cc MirrorPadEval walks the output with the input's number of \
                 dimensions: past the end of the shorter shape",
            ),
        ));
    }
    if paddings.shape[1] < 2 && rank > 0 {
        return Err(ctx.invalid(
            format!(
                "paddings has shape {:?}: fewer than two values per dimension",
                paddings.shape
            ),
            Grounds::undefined(
                "mirror_pad.cc GetPadding reads elements 2d and 2d + 1 of the paddings for every \
                 dimension d: past their end",
            ),
        ));
    }
    // TFLM's parser leaves the mode 0 (kTfLiteMirrorPaddingUnknown) without options, and Prepare
    // takes anything but REFLECT as SYMMETRIC.
    let reflect = ctx
        .tflite_operator()?
        .builtin_options_as_mirror_pad_options()
        .is_some_and(|o| o.mode() == tinyaot_schema::tflite::MirrorPadMode::REFLECT);
    // GetFlatIndex reads INT32 and INT64 paddings; for any other type its switch sets nothing and
    // every padding stays the 0 it starts at, whatever the tensor holds.
    let pads = if !matches!(paddings.dtype, DType::I32 | DType::I64) {
        vec![0; 2 * rank]
    } else if !paddings.is_constant() {
        return mirror_pad_dyn(ctx, reflect);
    } else {
        // Row d's values are elements 2d and 2d + 1 whatever the row length (GetPadding's
        // `data + offset * 2`): the flat values, as they are.
        ctx.const_ints("paddings", paddings)?
    };
    let offset = i64::from(reflect);
    let reads = output.num_elements() > 0;
    let mut stride = 1usize;
    let mut tables = vec![Vec::new(); rank];
    for d in (0..rank).rev() {
        let (left, size) = (pads[2 * d], input.shape[d] as i64);
        if i32::try_from(left).is_err() || i32::try_from(pads[2 * d + 1]).is_err() {
            return Err(ctx.invalid(
                format!("padding {left}, {} does not fit in int32", pads[2 * d + 1]),
                Grounds::undefined(
                    "mirror_pad.cc GetInputDimension takes the paddings as int: narrowed",
                ),
            ));
        }
        for k in 0..output.shape[d] as i64 {
            let index = mirror_index(k, left, size, offset);
            if reads && !(0..size).contains(&index) {
                return Err(ctx.invalid(
                    format!(
                        "output index {k} of dimension {d} reads input index {index} of {size} \
                         (paddings {left}, {})",
                        pads[2 * d + 1]
                    ),
                    Grounds::undefined(
                        "mirror_pad.cc GetFlatIndex reads the input at the index \
                         GetInputDimension gives, unchecked: paddings wider than the input (than \
                         its size less one, REFLECT) read out of bounds",
                    ),
                ));
            }
            tables[d].push(index.max(0) as usize * stride);
        }
        stride *= input.shape[d];
    }
    Ok(kernel(
        "mirror_pad",
        in_out(ctx)?,
        P::MirrorPad {
            elem_bytes: input.dtype.size(),
            input_bytes: input.bytes,
            shape: output.shape.clone(),
            offsets: tables.concat(),
        },
    ))
}

/// MIRROR_PAD whose paddings are computed at run time (a graph input or an operator's output):
/// `MirrorPadPrepare` reads only their shape (checked by [`mirror_pad`]) and `MirrorPadEval`
/// their values, mapping the output's static shape through them, so `pad::mirror_pad_dyn` does
/// the same per call. The input may be a constant (read where it is) since the operator is not
/// folded. (An empty input under a non-empty output, which every element would read out of
/// bounds, is refused before any lowering.)
fn mirror_pad_dyn(ctx: &OpContext, reflect: bool) -> Result<Kernel> {
    let (input, paddings, output) = (ctx.input(0)?, ctx.input(1)?, ctx.output(0)?);
    let operands = vec![
        Operand::Src(ctx.input_index(0)?),
        Operand::Src(ctx.input_index(1)?),
        Operand::Offset(ctx.output_index(0)?),
    ];
    Ok(kernel(
        "mirror_pad_dyn",
        operands,
        P::MirrorPadDyn {
            elem_bytes: input.dtype.size(),
            input_shape: input.shape.clone(),
            output_shape: output.shape.clone(),
            reflect,
            paddings_i64: paddings.dtype == DType::I64,
        },
    ))
}

/// PAD, PADV2.
fn pad(ctx: &OpContext) -> Result<Kernel> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    // int32 (`None` here) and int16 (16x8 models): TFLM pads with 0 or PADV2's constant, no
    // quantization involved.
    let num = match input.dtype {
        DType::I32 => None,
        DType::I16 => Some(Num::I16),
        _ => Some(ctx.num("the input", input)?),
    };
    ctx.same_dtype("the output", output, input)?;
    let rank = input.shape.len();
    if rank > 5 {
        return Err(ctx.invalid(
            format!("input rank {rank}: TFLM pads tensors of up to 5 dimensions"),
            Grounds::tflm(
                "pad_common.cc PadPrepare: TF_LITE_ENSURE(NumDimensions(input) <= \
                 PadKernelMaxDimensionCount())",
            ),
        ));
    }
    if output.shape.len() != rank {
        return Err(ctx.invalid(
            format!(
                "input rank {rank}, output rank {}: PAD keeps the rank",
                output.shape.len()
            ),
            Grounds::undefined(
                "pad_common.cc PadPrepare checks the paddings against the output's rank \
                 (TF_LITE_ENSURE_EQ, refused otherwise), then reads input->dims->data[i] for \
                 every output dimension and the paddings for every input dimension: one of \
                 them is read past its end",
            ),
        ));
    }
    if !ctx.input(1)?.is_constant() {
        return Err(ctx.invalid(
            "the paddings are computed at run time",
            Grounds::tflm(
                "pad_common.cc PadPrepare: TF_LITE_ENSURE_MSG(IsConstantTensor(paddings))",
            ),
        ));
    }
    let paddings = ctx.const_i32s("paddings", ctx.input(1)?)?;
    if paddings.len() != 2 * rank {
        return Err(ctx.invalid(
            format!(
                "paddings has {} values; expected {} (two per dimension)",
                paddings.len(),
                2 * rank
            ),
            Grounds::tflm(
                "pad_common.cc PadPrepare: TF_LITE_ENSURE_EQ(FlatSize(paddings), \
                 output->dims->size * 2)",
            ),
        ));
    }
    let mut before = Vec::with_capacity(rank);
    let mut after = Vec::with_capacity(rank);
    for d in 0..rank {
        let (b, a) = (paddings[2 * d], paddings[2 * d + 1]);
        if b < 0 || a < 0 {
            return Err(ctx.invalid(
                format!("negative padding {b}, {a} in dimension {d}"),
                Grounds::spec(
                    "PAD's paddings are non-negative (TensorFlow's Pad and TFLite's pad.cc \
                     refuse negative ones)",
                ),
            ));
        }
        if input.shape[d] + b as usize + a as usize != output.shape[d] {
            return Err(ctx.invalid(
                format!(
                    "output dimension {d} is {}, expected {} + {b} + {a}",
                    output.shape[d], input.shape[d]
                ),
                Grounds::tflm(
                    "pad_common.cc PadPrepare: TF_LITE_ENSURE_EQ(output_dim, input dim + \
                     paddings)",
                ),
            ));
        }
        before.push(b as usize);
        after.push(a as usize);
    }
    let pad_value = match num {
        None => int32_pad_value(ctx)?,
        Some(num) => padv2_value(ctx, num)?,
    };
    // Merge trailing unpadded dimensions into the one before: fewer, longer rows.
    let mut shape = input.shape.clone();
    while shape.len() >= 2 && before[shape.len() - 1] == 0 && after[shape.len() - 1] == 0 {
        let inner = shape.pop().unwrap_or(1);
        before.pop();
        after.pop();
        let last = shape.len() - 1;
        shape[last] *= inner;
        before[last] *= inner;
        after[last] *= inner;
    }
    Ok(match pad_value {
        PadValue::I8(pad_value) => kernel(
            "pad_s8",
            in_out(ctx)?,
            P::PadS8 {
                input_shape: shape,
                before,
                after,
                pad_value,
            },
        ),
        PadValue::I16(pad_value) => kernel(
            "pad_s16",
            in_out(ctx)?,
            P::PadS16 {
                input_shape: shape,
                before,
                after,
                pad_value,
            },
        ),
        PadValue::I32(pad_value) => kernel(
            "pad_s32",
            in_out(ctx)?,
            P::PadS32 {
                input_shape: shape,
                before,
                after,
                pad_value,
            },
        ),
        PadValue::F32(pad_value) => kernel(
            "pad_f32",
            in_out(ctx)?,
            P::PadF32 {
                input_shape: shape,
                before,
                after,
                pad_value,
            },
        ),
        PadValue::RunTime => kernel(
            "pad_dyn",
            vec![
                Operand::Src(ctx.input_index(0)?),
                Operand::Src(ctx.input_index(2)?),
                Operand::Offset(ctx.output_index(0)?),
            ],
            P::PadDyn {
                elem_bytes: input.dtype.size(),
                input_shape: shape,
                before,
                after,
            },
        ),
    })
}

/// The value padding writes, of the op's element type.
enum PadValue {
    /// An int8 value, widened.
    I8(i32),
    /// An int16 value, widened.
    I16(i32),
    /// An int32 value.
    I32(i32),
    /// A float32 value.
    F32(f32),
    /// PADV2's constant value computed at run time: read per call by `pad_dyn`.
    RunTime,
}

/// PADV2's constant value, if the op has one: a tensor of one element of the output's type, and
/// its bytes if it is constant (`None` if computed at run time: TFLM's `PadPrepare` checks only
/// its type, element count and int8 quantization, and `PadEval` reads it per call).
type ConstantValue<'g, 'm> = Option<(&'g Tensor<'m>, Option<&'g [u8]>)>;

/// See [`ConstantValue`].
fn constant_value<'g, 'm>(ctx: &OpContext<'g, 'm>) -> Result<ConstantValue<'g, 'm>> {
    let Some(value) = ctx.optional_input(2) else {
        return Ok(None);
    };
    ctx.same_dtype("the constant value", value, ctx.output(0)?)?;
    if value.num_elements() != 1 {
        return Err(ctx.invalid(
            "the constant value must have exactly one element",
            Grounds::tflm(
                "pad_common.cc PadPrepare: TF_LITE_ENSURE_EQ(NumElements(constant_values), 1)",
            ),
        ));
    }
    Ok(Some((value, value.data.as_deref())))
}

/// The int32 padding value as TFLM's `pad.cc` takes it: PADV2's constant input if given (its raw
/// value: TFLM checks no quantization for int32), else 0.
fn int32_pad_value(ctx: &OpContext) -> Result<PadValue> {
    let Some((_, data)) = constant_value(ctx)? else {
        return Ok(PadValue::I32(0));
    };
    let Some(data) = data else {
        return Ok(PadValue::RunTime);
    };
    let b = data.get(..4).ok_or_else(|| {
        ctx.invalid(
            "empty constant value",
            Grounds::undefined(crate::lower::CONSTANT_SHORTER_THAN_SHAPE),
        )
    })?;
    Ok(PadValue::I32(i32::from_le_bytes([b[0], b[1], b[2], b[3]])))
}

/// The padding value: PADV2's constant input if given (int16: its raw value, as TFLM's `pad.cc`
/// takes it, checking no quantization), else the output zero point (int8) or 0.
fn padv2_value(ctx: &OpContext, num: Num) -> Result<PadValue> {
    let output = ctx.output(0)?;
    let zo = match num {
        Num::I8 => {
            let (_, zo) = ctx.int8_quant("the output", output)?;
            if !(-128..=127).contains(&zo) {
                return Err(ctx.invalid(
                    format!("output zero point {zo} is outside int8"),
                    Grounds::tflm(
                        "pad_common.cc PadPrepare: TF_LITE_ENSURE(output zero point within int8)",
                    ),
                ));
            }
            zo
        }
        Num::I16 | Num::F32 => 0,
    };
    let Some((value, data)) = constant_value(ctx)? else {
        return Ok(match num {
            Num::I8 => PadValue::I8(zo),
            Num::I16 => PadValue::I16(0),
            Num::F32 => PadValue::F32(0.0),
        });
    };
    match num {
        Num::I8 => {
            // Compared with the output's (int8-checked) quantization, so only the scale needs
            // checking here.
            let (sv, zv) = ctx.per_tensor_quant("the constant value", value)?;
            let (so, _) = ctx.per_tensor_quant("the output", output)?;
            if zv != zo || sv != so {
                return Err(ctx.invalid(
                    "the constant value's quantization differs from the output's (TFLM requires \
                     equal)",
                    Grounds::tflm(
                        "pad_common.cc PadPrepare: TF_LITE_ENSURE_EQ(output and constant_values \
                         zero points, and scales)",
                    ),
                ));
            }
            let Some(data) = data else {
                return Ok(PadValue::RunTime);
            };
            let byte = *data.first().ok_or_else(|| {
                ctx.invalid(
                    "empty constant value",
                    Grounds::undefined(crate::lower::CONSTANT_SHORTER_THAN_SHAPE),
                )
            })?;
            Ok(PadValue::I8(byte as i8 as i32))
        }
        Num::I16 | Num::F32 if data.is_none() => Ok(PadValue::RunTime),
        Num::I16 => {
            let b = data.unwrap_or_default().get(..2).ok_or_else(|| {
                ctx.invalid(
                    "empty constant value",
                    Grounds::undefined(crate::lower::CONSTANT_SHORTER_THAN_SHAPE),
                )
            })?;
            Ok(PadValue::I16(i32::from(i16::from_le_bytes([b[0], b[1]]))))
        }
        Num::F32 => {
            let b = data.unwrap_or_default().get(..4).ok_or_else(|| {
                ctx.invalid(
                    "constant value shorter than 4 bytes",
                    Grounds::undefined(crate::lower::CONSTANT_SHORTER_THAN_SHAPE),
                )
            })?;
            Ok(PadValue::F32(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{fields, graph, per_tensor, tensor};
    use crate::ir::{DType, OpCode, Options};
    use crate::lower::{lower, Value};

    const PADDINGS: &[u8] = &[
        0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];

    static PADDINGS_4D: [u8; 32] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0,
    ];

    #[test]
    fn pad_merges_unpadded_channels_and_uses_zero_point() {
        let g = graph(
            OpCode::PAD,
            Options::None,
            vec![
                tensor(&[1, 2, 3, 4], DType::I8, per_tensor(0.5, -3), None),
                tensor(&[3, 2], DType::I32, None, Some(PADDINGS)),
                tensor(&[1, 5, 3, 4], DType::I8, per_tensor(0.5, -3), None),
            ],
            &[Some(0), Some(1)],
        );
        // Rank 3 paddings for a rank-4 tensor is refused.
        assert!(lower(&g).is_err());
        let mut g = g;
        g.tensors[1] = tensor(&[4, 2], DType::I32, None, Some(&PADDINGS_4D));
        assert_eq!(
            fields(&g),
            vec![
                // H rows of W*C bytes: padding 1 and 2 rows become 12 and 24 bytes.
                ("input_shape", Value::Usizes(vec![1, 24])),
                ("before", Value::Usizes(vec![0, 12])),
                ("after", Value::Usizes(vec![0, 24])),
                ("pad_value", Value::I32(-3)),
            ]
        );
    }

    /// int16 pads with 0 whatever the zero point (TFLM's `pad.cc`), on the int16 kernel.
    #[test]
    fn int16_pad_uses_zero() {
        let g = graph(
            OpCode::PAD,
            Options::None,
            vec![
                tensor(&[1, 2, 3, 4], DType::I16, per_tensor(0.5, 0), None),
                tensor(&[4, 2], DType::I32, None, Some(&PADDINGS_4D)),
                tensor(&[1, 5, 3, 4], DType::I16, per_tensor(0.5, 0), None),
            ],
            &[Some(0), Some(1)],
        );
        let calls = lower(&g).expect("int16 PAD lowers");
        let crate::lower::CallKind::Kernel(k) = &calls[0].kind else {
            panic!("a kernel call");
        };
        assert_eq!(k.function, "pad_s16");
        assert_eq!(
            fields(&g),
            vec![
                ("input_shape", Value::Usizes(vec![1, 24])),
                ("before", Value::Usizes(vec![0, 12])),
                ("after", Value::Usizes(vec![0, 24])),
                ("pad_value", Value::I32(0)),
            ]
        );
    }

    /// PADV2 whose constant value is computed at run time (TFLM's `PadEval` reads it per call)
    /// goes to `pad_dyn`, the value an operand; a computed int8 value of another quantization
    /// than the output's is still refused (`PadPrepare`).
    #[test]
    fn padv2_value_at_run_time() {
        let mut g = graph(
            OpCode::PADV2,
            Options::None,
            vec![
                tensor(&[1, 2, 3, 4], DType::I8, per_tensor(0.5, -3), None),
                tensor(&[4, 2], DType::I32, None, Some(&PADDINGS_4D)),
                tensor(&[1], DType::I8, per_tensor(0.5, -3), None),
                tensor(&[1, 5, 3, 4], DType::I8, per_tensor(0.5, -3), None),
            ],
            &[Some(0), Some(1), Some(2)],
        );
        let calls = lower(&g).expect("PADV2 with a run-time value lowers");
        let crate::lower::CallKind::Kernel(k) = &calls[0].kind else {
            panic!("a kernel call");
        };
        assert_eq!(k.function, "pad_dyn");
        assert_eq!(
            fields(&g),
            vec![
                ("elem_bytes", Value::Usize(1)),
                ("input_shape", Value::Usizes(vec![1, 24])),
                ("before", Value::Usizes(vec![0, 12])),
                ("after", Value::Usizes(vec![0, 24])),
            ]
        );
        g.tensors[2] = tensor(&[1], DType::I8, per_tensor(0.5, -2), None);
        assert!(lower(&g).is_err());
        g.tensors[2] = tensor(&[2], DType::I8, per_tensor(0.5, -3), None);
        assert!(lower(&g).is_err());
    }
}

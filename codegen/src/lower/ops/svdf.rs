//! SVDF → `svdf::svdf_s8` (int8 input and output, int16 time weights and state),
//! `svdf::svdf_s8_state8` (int8 time weights and state) and `svdf::svdf_f32`, validated as TFLM's
//! `PrepareSvdf` validates and with its two multipliers. The activation state (input 4) is a
//! variable tensor, which the kernels update in place. Feature weights, time weights or a bias
//! computed at run time → the `svdf::svdf_dyn_*` twins, which read all three as operands.

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{Activation, DType, OpCode, Options, Tensor};
use crate::lower::params::svdf as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{Data, OpContext, Operand};

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::SVDF,
    types: Types {
        roles: &[Role::In(0), Role::In(2), Role::Out(0)],
        tinyaot: &[
            Sig::Same(Ty::F32),
            Sig::Each(&[Ty::I8, Ty::I16, Ty::I8]),
            Sig::Each(&[Ty::I8, Ty::I8, Ty::I8]),
        ],
        tflm: &[
            Sig::Same(Ty::F32),
            Sig::Each(&[Ty::I8, Ty::I16, Ty::I8]),
            Sig::Each(&[Ty::I8, Ty::I8, Ty::I8]),
        ],
    },
    // TFLM's Prepare demands five inputs; the bias (input 3) may be the optional -1.
    inputs: 5..=5,
    outputs: 1,
    lower: Lowering::Kernel(svdf),
}];

/// The sizes TFLM's Prepare reads off the tensors, checked as it checks them.
struct Dims {
    batches: usize,
    input_size: usize,
    num_filters: usize,
    rank: usize,
    memory_size: usize,
}

/// SVDF → `svdf::svdf_s8` / `svdf::svdf_s8_state8` / `svdf::svdf_f32`.
fn svdf(ctx: &OpContext) -> Result<Kernel> {
    let Options::Svdf(o) = &ctx.op().options else {
        // The loader refuses an SVDF without options (rank 0) as corrupt.
        return Err(ctx.internal("no SVDF options decoded"));
    };
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let (weights_feature, weights_time, state) = (ctx.input(1)?, ctx.input(2)?, ctx.input(4)?);
    let dims = dims(ctx, o.rank)?;
    let units = dims.num_filters / dims.rank;
    if ctx.optional_input(3).is_none() {
        // PrepareSvdf reads the bias's scale (int8) and EvalFloatSvdfReference its data (float)
        // without checking that there is one (TFLM's TODO #1751): TFLM crashes on such a model.
        return Err(ctx.invalid(
            "SVDF without a bias: TFLM Micro dereferences the missing bias (its TODO #1751); \
             give it a constant bias of num_units values",
            Grounds::undefined(
                "svdf_common.cc PrepareSvdf reads bias->params.scale (int8) and \
                 EvalFloatSvdfReference GetTensorData<float>(bias) (float) of the absent bias \
                 without a null check (TODO #1751): a null-pointer dereference",
            ),
        ));
    }
    if ctx
        .input_index(0)
        .is_ok_and(|i| ctx.graph().tensors[i].is_constant())
    {
        return Err(ctx.unsupported(
            "the input is a constant tensor; constant inputs to this op are not supported (fold it \
             offline)",
        ));
    }
    let mut operands = vec![
        Operand::Offset(ctx.input_index(0)?),
        Operand::Offset(ctx.input_index(4)?),
        Operand::Offset(ctx.output_index(0)?),
    ];
    // Weights or a bias written at run time (an operator's output, a graph input): PrepareSvdf
    // reads only their types, shapes and scales (the int8 multipliers come from the scales,
    // which are the tensors' own, known here), and EvalIntegerSvdfReference /
    // EvalFloatSvdfReference read the tensors wherever they are. Such an SVDF goes to the
    // svdf_dyn_* kernels, which take the three as operands (a constant among them as its bytes);
    // the constant kernels and their parameters stay as they were for every other SVDF.
    let (feature_index, time_index, bias_index) = (
        ctx.input_index(1)?,
        ctx.input_index(2)?,
        ctx.input_index(3)?,
    );
    let at_run_time = [feature_index, time_index, bias_index]
        .iter()
        .any(|&t| !ctx.graph().tensors[t].is_constant());
    if at_run_time {
        for (what, t) in [
            ("feature weights", feature_index),
            ("time weights", time_index),
            ("bias", bias_index),
        ] {
            constant_long_enough(ctx, what, &ctx.graph().tensors[t])?;
        }
        operands.extend([feature_index, time_index, bias_index].map(Operand::Src));
    }
    // The parameters' weights: the constant tensors, or none for the dyn kernels (unread).
    fn weights<T>(at_run_time: bool, index: usize) -> Data<T> {
        if at_run_time {
            Data::Values(Vec::new())
        } else {
            Data::Tensor(index)
        }
    }
    // The constant bias for the parameters (none for the dyn kernels, which read the tensor).
    fn constant_bias<T>(
        ctx: &OpContext,
        at_run_time: bool,
        dtype: DType,
        units: usize,
    ) -> Result<Option<Data<T>>> {
        if at_run_time {
            ctx.bias_index(3, dtype, units)?;
            Ok(None)
        } else {
            ctx.bias(3, dtype, units)
        }
    }
    match input.dtype {
        DType::F32 => {
            if weights_feature.dtype != DType::F32 {
                return Err(ctx.invalid(
                    format!(
                        "float input with {} feature weights (hybrid SVDF): TFLM Micro does not \
                         run it; supported: all-INT8 (int16 or int8 time weights and state) or \
                         all-FLOAT32",
                        weights_feature.dtype
                    ),
                    Grounds::tflm(
                        "svdf_common.cc PrepareSvdf: TF_LITE_ENSURE_EQ(weights_feature->type, \
                         kTfLiteFloat32) for a float input",
                    ),
                ));
            }
            ctx.expect_dtype("time weights", weights_time, DType::F32)?;
            ctx.expect_dtype("activation state", state, DType::F32)?;
            ctx.expect_output_dtype("the output", output, DType::F32)?;
            // TFLM's float SVDF applies the activation itself (ActivationValFloat): TANH
            // (std::tanh) and SIGN_BIT (std::signbit, 1 or 0) are functions, the others clamps.
            let (function, (act_min, act_max)) = match o.activation {
                Activation::Tanh => (1, (f32::NEG_INFINITY, f32::INFINITY)),
                Activation::SignBit => (2, (f32::NEG_INFINITY, f32::INFINITY)),
                other => (0, ctx.activation_range_f32(other)?),
            };
            Ok(kernel(
                if at_run_time {
                    "svdf_dyn_f32"
                } else {
                    "svdf_f32"
                },
                operands,
                P::SvdfF32 {
                    batches: dims.batches,
                    input_size: dims.input_size,
                    num_filters: dims.num_filters,
                    rank: dims.rank,
                    memory_size: dims.memory_size,
                    weights_feature: weights(at_run_time, feature_index),
                    weights_time: weights(at_run_time, time_index),
                    bias: constant_bias(ctx, at_run_time, DType::F32, units)?,
                    act_min,
                    act_max,
                    function,
                },
            ))
        }
        DType::I8 => {
            ctx.expect_dtype("feature weights", weights_feature, DType::I8)?;
            ctx.expect_output_dtype("the output", output, DType::I8)?;
            if !matches!(weights_time.dtype, DType::I16 | DType::I8) {
                return Err(ctx.invalid(
                    format!(
                    "time weights have type {}; TFLM's int8 SVDF takes INT16 or INT8 time weights",
                    weights_time.dtype
                ),
                    Grounds::tflm(
                        "svdf_common.cc PrepareSvdf: TF_LITE_ENSURE(weights_time type is INT16 \
                         or INT8)",
                    ),
                ));
            }
            if state.dtype != weights_time.dtype {
                return Err(ctx.invalid(
                    format!(
                    "the activation state is {} but the time weights are {}: TFLM reads the state \
                     as the time weights' type, so it would misread it; supported: both INT16 or \
                     both INT8",
                    state.dtype, weights_time.dtype
                ),
                    Grounds::undefined(
                        "svdf_common.cc EvalIntegerSvdfReference reads the activation state as \
                         the time weights' type: a mismatched state is misread, and read past \
                         its end when narrower",
                    ),
                ));
            }
            let q = int8_quant(ctx, state, weights_time)?;
            let bias = constant_bias(ctx, at_run_time, DType::I32, units)?;
            // The constant kernels' feature weights re-laid out and the input zero point folded
            // into per-filter sums (none for the dyn kernels, which read the tensor as it is).
            let (features, feature_bias) = if at_run_time {
                (Data::Values(Vec::new()), Data::Values(Vec::new()))
            } else {
                let (w, b) = feature_layout(ctx, &dims, q.zero_points[0])?;
                (Data::Packed(w), Data::Values(b))
            };
            // TFLM's int8 SVDF applies no fused activation (whatever the options say): its
            // outputs are only clamped to the int8 range, so none is applied here either.
            // The two kernels' parameters have the same fields, the time weights' type aside.
            macro_rules! int_params {
                ($function:expr, $params:ident) => {
                    Ok(kernel(
                        $function,
                        operands,
                        P::$params {
                            batches: dims.batches,
                            input_size: dims.input_size,
                            num_filters: dims.num_filters,
                            rank: dims.rank,
                            memory_size: dims.memory_size,
                            weights_feature: features,
                            feature_bias,
                            weights_time: weights(at_run_time, time_index),
                            bias,
                            input_zero_point: q.zero_points[0],
                            state_zero_point: q.zero_points[1],
                            output_zero_point: q.zero_points[2],
                            feature_multiplier: q.scales[0].0,
                            feature_shift: q.scales[0].1,
                            output_multiplier: q.scales[1].0,
                            output_shift: q.scales[1].1,
                        },
                    ))
                };
            }
            match (weights_time.dtype == DType::I16, at_run_time) {
                (true, false) => int_params!("svdf_s8", SvdfS8),
                (true, true) => int_params!("svdf_dyn_s8", SvdfS8),
                (false, false) => int_params!("svdf_s8_state8", SvdfS8State8),
                (false, true) => int_params!("svdf_dyn_s8_state8", SvdfS8State8),
            }
        }
        other => Err(ctx.invalid(
            format!(
                "input type {other}; TFLM's SVDF takes INT8 (int8 feature weights, int16 or int8 \
                 time weights and state, int32 bias) or FLOAT32"
            ),
            Grounds::tflm(
                "svdf_common.cc PrepareSvdf: TF_LITE_ENSURE(input->type == kTfLiteFloat32 || \
                 input->type == kTfLiteInt8)",
            ),
        )),
    }
}

/// The int8 feature weights `[num_filters, input_size]` as the constant kernels read them (the
/// runtime's `SvdfS8::weights_feature`): each block of four filters' rows interleaved by words
/// (word 0 of the four rows, then word 1 of each, …), then the block's rows' last
/// `input_size % 4` bytes, one row after another; the last `num_filters % 4` rows as they are.
/// With them each filter's `-input_zero_point · Σ weights` (wrapping, as TFLM's sums): the feature
/// products then take the inputs as they are, four filters per pass over the input's words.
fn feature_layout(ctx: &OpContext, dims: &Dims, zp_in: i32) -> Result<(Vec<i8>, Vec<i32>)> {
    let (n, filters) = (dims.input_size, dims.num_filters);
    let t = ctx.input(1)?;
    let data = t
        .data
        .as_deref()
        .and_then(|d| d.get(..filters * n))
        .ok_or_else(|| {
            ctx.invalid(
                "the constant feature weights have fewer bytes than their shape needs",
                Grounds::undefined(crate::lower::CONSTANT_SHORTER_THAN_SHAPE),
            )
        })?;
    let w: Vec<i8> = data.iter().map(|&b| b as i8).collect();
    let bias = w
        .chunks_exact(n.max(1))
        .take(filters)
        .map(|row| {
            let sum = row.iter().map(|&w| i32::from(w)).sum::<i32>();
            zp_in.wrapping_neg().wrapping_mul(sum)
        })
        .collect::<Vec<_>>();
    // A feature of no input: every filter's sum is 0.
    let bias = if n == 0 { vec![0; filters] } else { bias };
    let whole = n - n % 4;
    let blocked = 4 * n * (filters / 4);
    let mut out = Vec::with_capacity(w.len());
    for block in w[..blocked].chunks_exact(4 * n.max(1)) {
        for j in (0..whole).step_by(4) {
            for r in 0..4 {
                out.extend_from_slice(&block[r * n + j..][..4]);
            }
        }
        for r in 0..4 {
            out.extend_from_slice(&block[r * n + whole..][..n - whole]);
        }
    }
    out.extend_from_slice(&w[blocked..]);
    Ok((out, bias))
}

/// Refuses a constant `tensor` with fewer bytes than its shape needs (the dyn kernels read it
/// whole as an operand): TFLM would read past its buffer.
fn constant_long_enough(ctx: &OpContext, what: &str, tensor: &Tensor) -> Result<()> {
    match tensor.data.as_deref() {
        Some(data) if data.len() < tensor.num_elements() * tensor.dtype.size() => Err(ctx.invalid(
            format!("the constant {what} have fewer bytes than their shape needs"),
            Grounds::undefined(crate::lower::CONSTANT_SHORTER_THAN_SHAPE),
        )),
        _ => Ok(()),
    }
}

/// The shapes PrepareSvdf checks: input `[batches, input_size]`, feature weights
/// `[num_filters, input_size]`, time weights `[num_filters, memory_size]`, bias `[num_units]`,
/// a variable activation state `[batches, memory_size * num_filters]` and output
/// `[batches, num_units]`, with `num_filters` a multiple of the rank.
fn dims(ctx: &OpContext, rank: usize) -> Result<Dims> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let (weights_feature, weights_time, state) = (ctx.input(1)?, ctx.input(2)?, ctx.input(4)?);
    ctx.expect_rank("input", input, 2)?;
    ctx.expect_rank("output", output, 2)?;
    ctx.expect_rank("feature weights", weights_feature, 2)?;
    ctx.expect_rank("time weights", weights_time, 2)?;
    ctx.expect_rank("activation state", state, 2)?;
    let (batches, input_size) = (input.shape[0], input.shape[1]);
    let num_filters = weights_feature.shape[0];
    let memory_size = weights_time.shape[1];
    if rank == 0 || num_filters % rank != 0 {
        return Err(ctx.invalid(
            format!(
            "num_filters {num_filters} (the feature weights' first dimension) is not a multiple of \
             rank {rank}"
        ),
            Grounds::tflm("svdf_common.cc PrepareSvdf: TF_LITE_ENSURE_EQ(num_filters % rank, 0)"),
        ));
    }
    let units = num_filters / rank;
    if output.shape != [batches, units] {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} is not [batches, num_units] = [{batches}, {units}]",
                output.shape
            ),
            Grounds::tflm(
                "svdf_common.cc PrepareSvdf: TF_LITE_ENSURE_EQ(output dims, \
                 [batch_size, num_units])",
            ),
        ));
    }
    if weights_feature.shape[1] != input_size {
        return Err(ctx.invalid(
            format!(
                "feature weights {:?} do not take the input's {input_size} values",
                weights_feature.shape
            ),
            Grounds::tflm(
                "svdf_common.cc PrepareSvdf: TF_LITE_ENSURE_EQ(weights_feature dims[1], \
                 input_size)",
            ),
        ));
    }
    if weights_time.shape[0] != num_filters {
        return Err(ctx.invalid(
            format!(
                "time weights {:?} do not have one row per filter ({num_filters})",
                weights_time.shape
            ),
            Grounds::tflm(
                "svdf_common.cc PrepareSvdf: TF_LITE_ENSURE_EQ(weights_time dims[0], num_filters)",
            ),
        ));
    }
    if let Some(bias) = ctx.optional_input(3) {
        if bias.shape.first() != Some(&units) {
            return Err(ctx.invalid(
                format!(
                    "bias shape {:?} does not start with num_units {units}",
                    bias.shape
                ),
                Grounds::tflm(
                    "svdf_common.cc PrepareSvdf: TF_LITE_ENSURE_EQ(bias dims[0], num_units)",
                ),
            ));
        }
    }
    if state.shape != [batches, memory_size * num_filters] {
        return Err(ctx.invalid(
            format!(
                "activation state shape {:?} is not [batches, memory_size * num_filters] = \
                 [{batches}, {}]",
                state.shape,
                memory_size * num_filters
            ),
            Grounds::tflm(
                "svdf_common.cc PrepareSvdf: TF_LITE_ENSURE_EQ(activation_state dims, \
                 [batch_size, memory_size × num_filters])",
            ),
        ));
    }
    if !state.is_variable {
        return Err(ctx.invalid(
            "the activation state (input 4) is not a variable tensor; TFLM's Prepare requires one",
            Grounds::tflm(
                "svdf_common.cc PrepareSvdf: TF_LITE_ENSURE_EQ(activation_state is_variable, true)",
            ),
        ));
    }
    if state.num_elements() == 0 {
        // TFLM's left shift of the state would run past an empty one.
        return Err(ctx.invalid(
            "the activation state is empty",
            Grounds::undefined(
                "svdf_common.cc EvalIntegerSvdfReference shifts the state by one step \
                 of memory_size: an empty state makes that copy's range negative (out \
                 of bounds)",
            ),
        ));
    }
    Ok(Dims {
        batches,
        input_size,
        num_filters,
        rank,
        memory_size,
    })
}

/// The int8 kernels' zero points (input, state, output) and multipliers.
struct Int8Quant {
    zero_points: [i32; 3],
    scales: [(i32, i32); 2],
}

/// PrepareSvdf's int8 quantization: `effective_scale_1 = input * feature weights / state` and
/// `effective_scale_2 = state * time weights / output`, each computed in float and then widened to
/// double (as TFLM does, unlike the convolutions' double products), and a bias scale within 1e-5
/// of `state * time weights`. TFLM ignores the weights' zero points.
fn int8_quant(ctx: &OpContext, state: &Tensor, weights_time: &Tensor) -> Result<Int8Quant> {
    let (input, output) = (ctx.input(0)?, ctx.output(0)?);
    let (s_in, zp_in) = ctx.int8_quant("input", input)?;
    let (s_out, zp_out) = ctx.int8_quant("output", output)?;
    let (s_state, zp_state) = if state.dtype == DType::I16 {
        ctx.int16_quant("activation state", state)?
    } else {
        ctx.int8_quant("activation state", state)?
    };
    let (s_wf, _) = ctx.per_tensor_quant("feature weights", ctx.input(1)?)?;
    let (s_wt, _) = ctx.per_tensor_quant("time weights", weights_time)?;
    let (s_bias, _) = ctx.per_tensor_quant("bias", ctx.input(3)?)?;
    let state_time = s_state * s_wt;
    if (f64::from(s_bias) - f64::from(state_time)).abs() >= 1e-5 {
        return Err(ctx.invalid(
            format!(
            "bias scale {s_bias:e} is not within 1e-5 of activation state scale * time weights \
             scale = {state_time:e}, as TFLM's Prepare requires"
        ),
            Grounds::tflm(
                "svdf_common.cc PrepareSvdf: TF_LITE_ENSURE(|bias scale − activation \
                 state scale × weights_time scale| <= 1e-5)",
            ),
        ));
    }
    let scale_1 = ctx.multiplier(
        "input scale * feature weights scale / activation state scale",
        f64::from(s_in * s_wf / s_state),
    )?;
    let scale_2 = ctx.multiplier(
        "activation state scale * time weights scale / output scale",
        f64::from(state_time / s_out),
    )?;
    Ok(Int8Quant {
        zero_points: [zp_in, zp_state, zp_out],
        scales: [scale_1, scale_2],
    })
}

#[cfg(test)]
mod tests {
    use super::super::testing::{field, fields, graph, kernel, per_tensor, reason, tensor};
    use crate::ir::{Activation, DType, OpCode, Options, SvdfOptions, Tensor};
    use crate::lower::{Operand, Value};

    const W8: [u8; 24] = [1; 24];
    const W16: [u8; 48] = [1; 48];
    const BIAS: [u8; 24] = [0; 24];

    /// An int8 SVDF: batch 1, 4 inputs, 6 filters of `rank`, memory 4; the state and time weights
    /// of `state`'s type.
    fn int8_svdf(rank: usize, state: DType, input: DType) -> crate::ir::Graph<'static> {
        let units = 6 / rank;
        let time: &'static [u8] = if state == DType::I16 { &W16 } else { &W8 };
        let mut st = tensor(&[1, 24], state, per_tensor(1.0 / 256.0, 0), None);
        st.is_variable = true;
        let weights = if input == DType::F32 {
            DType::I8
        } else {
            input
        };
        let tensors: Vec<Tensor> = vec![
            tensor(&[1, 4], input, per_tensor(0.5, 0), None),
            tensor(&[6, 4], weights, per_tensor(0.01, 0), Some(&W8)),
            tensor(
                &[6, 4],
                state,
                per_tensor(0.125, 0),
                Some(&time[..24 * state.size()]),
            ),
            tensor(
                &[units],
                DType::I32,
                per_tensor(1.0 / 2048.0, 0),
                Some(&BIAS[..4 * units]),
            ),
            st,
            tensor(&[1, units], input, per_tensor(0.25, 3), None),
        ];
        graph(
            OpCode::SVDF,
            Options::Svdf(SvdfOptions {
                rank,
                activation: Activation::Relu,
            }),
            tensors,
            &[Some(0), Some(1), Some(2), Some(3), Some(4)],
        )
    }

    #[test]
    fn int8_svdf_takes_tflms_multipliers() {
        let f = fields(&int8_svdf(2, DType::I16, DType::I8));
        let get = |n: &str| f.iter().find(|(k, _)| *k == n).map(|(_, v)| v.clone());
        // 0.5 * 0.01 / (1 / 256) = 1.28 = 0.64 * 2^1; (1 / 256) * 0.125 / 0.25 = 2^-9 = 0.5 * 2^-8.
        assert_eq!(get("feature_shift"), Some(Value::I32(1)));
        assert_eq!(get("output_multiplier"), Some(Value::I32(1 << 30)));
        assert_eq!(get("output_shift"), Some(Value::I32(-8)));
        assert_eq!(get("rank"), Some(Value::Usize(2)));
    }

    /// Feature weights whose bytes run 0, 37, 74, … (wrapping to int8).
    const WF: [u8; 24] = {
        let mut w = [0u8; 24];
        let mut i = 0;
        while i < 24 {
            w[i] = (i as u8).wrapping_mul(37);
            i += 1;
        }
        w
    };

    /// The constant kernels take the feature weights re-laid out (four rows of whole words: the
    /// same bytes; the last two rows as they are) and each filter's `-input_zero_point · Σ
    /// weights` as its starting sum.
    #[test]
    fn the_input_zero_point_is_folded_into_the_feature_sums() {
        let mut g = int8_svdf(2, DType::I16, DType::I8);
        g.tensors[0].quant = per_tensor(0.5, -5);
        g.tensors[1].data = Some(WF[..].into());
        let k = kernel(&g);
        let sums: Vec<i32> = WF
            .chunks_exact(4)
            .map(|row| 5 * row.iter().map(|&w| i32::from(w as i8)).sum::<i32>())
            .collect();
        assert_eq!(field(&k, "feature_bias"), &Value::I32s(sums));
        let Value::Packed(w) = field(&k, "weights_feature") else {
            panic!("feature weights not laid out for the kernel")
        };
        assert_eq!(&w.bytes[..], &WF[..]);
    }

    /// Weights computed at run time (a graph input here) take the dyn kernels, with the weights
    /// and the bias as operands (the constant bias too) and none in the parameters; the same
    /// SVDF with constants keeps the constant kernel.
    #[test]
    fn weights_at_run_time_take_the_dyn_kernels() {
        let g = int8_svdf(2, DType::I16, DType::I8);
        assert_eq!(kernel(&g).function, "svdf_s8");
        for (t, state) in [(1, DType::I16), (2, DType::I16), (2, DType::I8)] {
            let mut g = int8_svdf(2, state, DType::I8);
            g.tensors[t].data = None;
            g.inputs.push(t);
            let k = kernel(&g);
            let want = if state == DType::I16 {
                "svdf_dyn_s8"
            } else {
                "svdf_dyn_s8_state8"
            };
            assert_eq!(k.function, want);
            assert_eq!(&k.operands[3..], [1, 2, 3].map(Operand::Src));
            assert_eq!(field(&k, "bias"), &Value::None);
            assert_eq!(field(&k, "weights_feature"), &Value::I8s(Vec::new()));
        }
    }

    #[test]
    fn refusals_name_what_is_supported() {
        // 6 filters are not a multiple of rank 4.
        assert!(reason(&int8_svdf(4, DType::I16, DType::I8)).contains("not a multiple of rank 4"));
        // Hybrid: float input with int8 feature weights.
        let r = reason(&int8_svdf(1, DType::I16, DType::F32));
        assert!(
            r.contains("hybrid SVDF") && r.contains("all-FLOAT32"),
            "{r}"
        );
        // The state must be a variable.
        let mut g = int8_svdf(1, DType::I16, DType::I8);
        g.tensors[4].is_variable = false;
        assert!(reason(&g).contains("not a variable tensor"));
        // No bias: TFLM crashes.
        let mut g = int8_svdf(1, DType::I16, DType::I8);
        g.operators[0].inputs[3] = None;
        assert!(reason(&g).contains("without a bias"));
        // A bias scale TFLM's Prepare refuses.
        let mut g = int8_svdf(1, DType::I16, DType::I8);
        g.tensors[3].quant = per_tensor(0.5, 0);
        assert!(reason(&g).contains("bias scale"));
    }
}

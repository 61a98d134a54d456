//! UNIDIRECTIONAL_SEQUENCE_LSTM → `lstm::lstm_{s8,s16,f32}`: what TFLM's
//! `UnidirectionalSequenceLstmPrepare` checks and computes (`lstm_eval_common.cc`): the standard
//! LSTM only (all eight weight matrices and four biases; no peephole, projection or layer norm),
//! int8 or int16 activations with int8 weights and an int16 cell state whose scale is a power of
//! two, or float32; gate products requantized to 2^-12, the sigmoid and tanh outputs at 2^-15.

use super::{kernel, Kernel, Lowering, OpEntry};
use crate::error::{Grounds, Result};
use crate::ir::{DType, OpCode, Tensor};
use crate::lower::params::lstm as P;
use crate::lower::types::{Role, Sig, Ty, Types};
use crate::lower::{Data, OpContext, Operand, CONSTANT_SHORTER_THAN_SHAPE};
use tinyaot_schema::tflite::ActivationFunctionType;

/// The operators of this family.
pub(crate) const OPS: &[OpEntry] = &[OpEntry {
    code: OpCode::UNIDIRECTIONAL_SEQUENCE_LSTM,
    types: Types {
        roles: &[Role::In(0), Role::In(2), Role::Out(0)],
        tinyaot: &[
            Sig::Same(Ty::F32),
            Sig::Same(Ty::I8),
            Sig::Each(&[Ty::I16, Ty::I8, Ty::I16]),
        ],
        tflm: &[
            Sig::Same(Ty::F32),
            Sig::Same(Ty::I8),
            Sig::Each(&[Ty::I16, Ty::I8, Ty::I16]),
        ],
    },
    inputs: 24..=24,
    outputs: 1,
    lower: Lowering::Kernel(lstm),
}];

/// The gates in TFLM's order of evaluation, with their input-weight, recurrent-weight and bias
/// input indices.
const GATES: [(&str, usize, usize, usize); 4] = [
    ("forget", 2, 6, 13),
    ("input", 1, 5, 12),
    ("cell", 3, 7, 14),
    ("output", 4, 8, 15),
];

/// The inputs of the LSTM variants TFLM's kernel does not implement, with what they are.
const VARIANTS: [(usize, &str); 9] = [
    (9, "peephole (cell-to-input weights)"),
    (10, "peephole (cell-to-forget weights)"),
    (11, "peephole (cell-to-output weights)"),
    (16, "projection weights"),
    (17, "projection bias"),
    (20, "layer normalization (input gate)"),
    (21, "layer normalization (forget gate)"),
    (22, "layer normalization (cell gate)"),
    (23, "layer normalization (output gate)"),
];

/// The scale of the gates' pre-activations (TFLM's Q3.12) and of the sigmoid and tanh outputs
/// (Q0.15).
/// Why a cell gate activation other than TANH is undefined in TFLM.
const LSTM_CELL_ACTIVATION: &str =
    "lstm_eval.h CalculateLstmGate: an activation other than kTfLiteActSigmoid or kTfLiteActTanh \
     reaches `default: TFLITE_ASSERT_FALSE`, a debug-only assertion (abort without NDEBUG, \
     nothing with it, leaving the gate's raw sums)";

/// Why a float LSTM with other than float weights is undefined in TFLM.
const LSTM_FLOAT_WEIGHTS: &str =
    "unidirectional_sequence_lstm.cc UnidirectionalSequenceLstmEval runs EvalLstm<float, float, \
     float, float> for a FLOAT32 input whatever the weights' type (Prepare checks only that they \
     share one): narrower weights are read as float, past their end";

const GATE_SCALE: f64 = 1.0 / 4096.0;
const ACTIVATION_SCALE: f64 = 1.0 / 32768.0;

/// What the four gates' shapes give: batches, time steps, input size, units.
struct Sizes {
    batches: usize,
    time_steps: usize,
    input_size: usize,
    units: usize,
    time_major: bool,
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM → `lstm::lstm_s8` / `lstm::lstm_s16` / `lstm::lstm_f32`.
fn lstm(ctx: &OpContext) -> Result<Kernel> {
    for (i, what) in VARIANTS {
        if ctx.optional_input(i).is_some() {
            return Err(ctx.invalid(
                format!(
                    "input {i} ({what}) is present: TFLM implements the standard LSTM only (no \
                     peephole, projection or layer normalization); supported: inputs 0-8, \
                     12-15, 18 and 19"
                ),
                Grounds::tflm(
                    "lstm_eval.cc LstmTensors::ValidateTensorStatus: \
                     TF_LITE_ENSURE(internal_tensors_[i] == nullptr) for the peephole (9-11), \
                     projection (16-17) and layer-norm (20-23) inputs",
                ),
            ));
        }
    }
    for (gate, input_weights, recurrent_weights, bias) in GATES {
        for (i, what) in [
            (input_weights, "input weights"),
            (recurrent_weights, "recurrent weights"),
            (bias, "bias"),
        ] {
            if ctx.optional_input(i).is_none() {
                return Err(ctx.invalid(
                    format!(
                        "the {gate} gate's {what} (input {i}) are absent (CIFG); TFLM's kernel \
                         needs all four gates' weights and biases"
                    ),
                    Grounds::tflm(
                        "lstm_eval.cc LstmTensors::ValidateTensorStatus: \
                         TF_LITE_ENSURE(internal_tensors_[i] != nullptr) for the weights (1-8) \
                         and biases (12-15)",
                    ),
                ));
            }
        }
    }
    let (input, hidden, cell, output) = (
        ctx.input(0)?,
        ctx.input(18)?,
        ctx.input(19)?,
        ctx.output(0)?,
    );
    for (what, t) in [
        ("hidden state (input 18)", hidden),
        ("cell state (input 19)", cell),
    ] {
        if !t.is_variable || t.is_constant() {
            return Err(ctx.invalid(
                format!(
                    "the {what} is not a variable tensor; TFLM's LSTM keeps its state in variables"
                ),
                Grounds::tflm(
                    "lstm_eval_common.cc ValidateTensorSize via \
                     LstmTensors::ValidateTensorStatus: the hidden and cell states are \
                     variable tensors",
                ),
            ));
        }
    }
    if ctx.graph().tensors[ctx.input_index(0)?].is_constant() {
        return Err(
            ctx.unsupported("the input is a constant tensor; only a computed input is supported")
        );
    }
    ctx.same_dtype("hidden state", hidden, input)?;
    ctx.same_dtype("output", output, input)?;
    let sizes = sizes(ctx, input, hidden, cell, output)?;
    let weight_type = ctx.input(2)?.dtype;
    for (_, iw, rw, _) in GATES {
        ctx.expect_dtype("weights", ctx.input(iw)?, weight_type)?;
        ctx.expect_dtype("weights", ctx.input(rw)?, weight_type)?;
    }
    // Weights or biases written at run time (an operator's output, a graph input): TFLM's
    // Prepare reads only their types, shapes and scales (CreateGateParams hands
    // CalculateOpDataFullyConnected the tensors for their quantization), and its Eval reads them
    // wherever they are (lstm_eval.h CalculateLstmGate's FullyConnected calls).
    let mut dynamic = false;
    for (_, iw, rw, b) in GATES {
        for i in [iw, rw, b] {
            dynamic |= !ctx.input(i)?.is_constant();
        }
    }
    let options = ctx
        .tflite_operator()?
        .builtin_options_as_unidirectional_sequence_lstmoptions()
        .ok_or_else(|| {
            ctx.invalid(
                "no UnidirectionalSequenceLSTMOptions: TFLM's defaults have no cell gate \
                 activation, which its kernel does not implement",
                Grounds::undefined(LSTM_CELL_ACTIVATION),
            )
        })?;
    if sizes.time_major != options.time_major() {
        return Err(ctx.invalid(
            "the layout does not match the options' time_major",
            Grounds::tflm(
                "lstm_eval_common.cc ValidateTensorSize: TF_LITE_ENSURE_EQ(output dims, \
                 the input's time and batch in time_major order)",
            ),
        ));
    }
    let activation = options.fused_activation_function();
    if activation != ActivationFunctionType::TANH {
        return Err(ctx.invalid(
            format!(
                "cell gate activation {:?}; TFLM's kernel implements only TANH (and SIGMOID, \
                 which a model cannot name)",
                activation.variant_name().unwrap_or("unknown")
            ),
            Grounds::undefined(LSTM_CELL_ACTIVATION),
        ));
    }
    let cell_clip = options.cell_clip();
    match input.dtype {
        DType::F32 => lstm_f32(ctx, sizes, cell, (cell_clip, dynamic)),
        DType::I8 | DType::I16 => lstm_int(ctx, sizes, cell, (cell_clip, dynamic)),
        other => Err(ctx.invalid(
            format!(
                "input type {other}; TFLM's LSTM takes INT8, INT16 (with INT8 weights) and FLOAT32"
            ),
            Grounds::tflm(
                "unidirectional_sequence_lstm.cc UnidirectionalSequenceLstmEval: \"Input type \
                 %s (%d) not supported.\" (kTfLiteError)",
            ),
        )),
    }
}

/// Batches, time steps, input size and units from the input and the hidden state, with TFLM's
/// shape checks (`ValidateTensorSize`).
fn sizes(
    ctx: &OpContext,
    input: &Tensor,
    hidden: &Tensor,
    cell: &Tensor,
    output: &Tensor,
) -> Result<Sizes> {
    ctx.expect_rank("input", input, 3)?;
    ctx.expect_rank("hidden state", hidden, 2)?;
    ctx.expect_rank("output", output, 3)?;
    // The layout: TFLM reads time_major from the options, checked against this by the caller.
    let time_major = ctx
        .tflite_operator()
        .ok()
        .and_then(|op| op.builtin_options_as_unidirectional_sequence_lstmoptions())
        .is_some_and(|o| o.time_major());
    let (batches, time_steps) = if time_major {
        (input.shape[1], input.shape[0])
    } else {
        (input.shape[0], input.shape[1])
    };
    let (input_size, units) = (input.shape[2], hidden.shape[1]);
    for (_, iw, rw, bias) in GATES {
        let (iw, rw, b) = (ctx.input(iw)?, ctx.input(rw)?, ctx.input(bias)?);
        if iw.shape != [units, input_size] || rw.shape != [units, units] || b.shape != [units] {
            return Err(ctx.invalid(
                format!(
                    "weights {:?} and {:?} and bias {:?} are not [{units}, {input_size}], \
                     [{units}, {units}] and [{units}]",
                    iw.shape, rw.shape, b.shape
                ),
                Grounds::tflm(
                    "lstm_eval_common.cc ValidateWeightTensorSize and \
                     ValidateBiasTensorSize: TF_LITE_ENSURE_EQ on each gate's weights and \
                     bias dims",
                ),
            ));
        }
    }
    let state = batches * units;
    if hidden.num_elements() != state || cell.num_elements() != state {
        return Err(ctx.invalid(
            format!(
                "hidden state {:?} and cell state {:?} do not hold {batches} × {units} elements",
                hidden.shape, cell.shape
            ),
            Grounds::tflm(
                "lstm_eval_common.cc ValidateTensorSize: \
                 TF_LITE_ENSURE_EQ(NumElements(hidden and cell state), batch × units)",
            ),
        ));
    }
    if output.shape != [input.shape[0], input.shape[1], units] {
        return Err(ctx.invalid(
            format!(
                "output shape {:?} is not [{}, {}, {units}]",
                output.shape, input.shape[0], input.shape[1]
            ),
            Grounds::tflm(
                "lstm_eval_common.cc ValidateTensorSize: TF_LITE_ENSURE_EQ(output dims, \
                 [.., .., units])",
            ),
        ));
    }
    // An input size of 0 is a dot product of no terms, which TFLM computes (each gate's input
    // part is its bias) and the kernels compute as written; no batch or no time step is an empty
    // output, which lowers to nothing (this lowering only validates it).
    if units == 0 {
        return Err(ctx.unsupported(
            "no units (an empty hidden state) is not supported; supported: at least one unit",
        ));
    }
    Ok(Sizes {
        batches,
        time_steps,
        input_size,
        units,
        time_major,
    })
}

/// The operands: input, hidden state, cell state, output.
fn operands(ctx: &OpContext) -> Result<Vec<Operand>> {
    Ok(vec![
        Operand::Offset(ctx.input_index(0)?),
        Operand::Offset(ctx.input_index(18)?),
        Operand::Offset(ctx.input_index(19)?),
        Operand::Offset(ctx.output_index(0)?),
    ])
}

/// The operands of the `lstm_dyn_*` kernels: [`operands`], then the twelve weight and bias
/// tensors, the four gates' (forget, input, cell, output) input weights, recurrent weights and
/// biases.
fn dyn_operands(ctx: &OpContext) -> Result<Vec<Operand>> {
    let mut weights = Vec::with_capacity(12);
    for k in 0..3 {
        for (_, iw, rw, b) in GATES {
            weights.push(ctx.input_index([iw, rw, b][k])?);
        }
    }
    let mut ops = operands(ctx)?;
    ops.push(Operand::Srcs(weights));
    Ok(ops)
}

/// The weights of the four gates for input `which` (0: the input weights, 1: the recurrent
/// weights) as the kernel lays them out, `[units, 4, row]`, as raw bytes of `size`-byte elements.
fn interleave(ctx: &OpContext, which: usize, units: usize, size: usize) -> Result<Vec<u8>> {
    let mut gates = Vec::with_capacity(4);
    for (_, iw, rw, _) in GATES {
        let t = ctx.input(if which == 0 { iw } else { rw })?;
        let data = t
            .data
            .as_deref()
            .and_then(|d| d.get(..t.num_elements() * size))
            .ok_or_else(|| {
                ctx.invalid(
                    "weights have fewer bytes than their shape needs",
                    Grounds::undefined(CONSTANT_SHORTER_THAN_SHAPE),
                )
            })?;
        gates.push(data);
    }
    let row = gates[0].len() / units;
    let mut out = Vec::with_capacity(4 * gates[0].len());
    for j in 0..units {
        for g in &gates {
            out.extend_from_slice(&g[j * row..][..row]);
        }
    }
    Ok(out)
}

/// float32 → `lstm_f32`, or `lstm_dyn_f32` for weights or biases computed at run time.
fn lstm_f32(
    ctx: &OpContext,
    s: Sizes,
    cell: &Tensor,
    (cell_clip, dynamic): (f32, bool),
) -> Result<Kernel> {
    let weights = ctx.input(2)?;
    if weights.dtype != DType::F32 {
        return Err(ctx.invalid(
            format!(
                "float input with {} weights (hybrid quantization); TFLM's LSTM takes \
                 all-FLOAT32, or INT8 / INT16 activations with INT8 weights",
                weights.dtype
            ),
            Grounds::undefined(LSTM_FLOAT_WEIGHTS),
        ));
    }
    ctx.expect_dtype("cell state", cell, DType::F32)?;
    if dynamic {
        for (_, _, _, b) in GATES {
            ctx.expect_dtype("bias", ctx.input(b)?, DType::F32)?;
        }
        return Ok(kernel(
            "lstm_dyn_f32",
            dyn_operands(ctx)?,
            P::LstmDynF32 {
                batches: s.batches,
                time_steps: s.time_steps,
                input_size: s.input_size,
                units: s.units,
                time_major: s.time_major,
                cell_clip,
            },
        ));
    }
    let floats = |bytes: Vec<u8>| -> Vec<f32> {
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    };
    let mut biases = vec![0.0f32; 4 * s.units];
    for (g, (_, _, _, b)) in GATES.iter().enumerate() {
        let t = ctx.input(*b)?;
        ctx.expect_dtype("bias", t, DType::F32)?;
        let data = t
            .data
            .as_deref()
            .and_then(|d| d.get(..4 * s.units))
            .ok_or_else(|| {
                ctx.unsupported(
                    "a bias is computed at run time; supported: constant biases (TFLM reads a \
                     computed one)",
                )
            })?;
        for (j, v) in floats(data.to_vec()).into_iter().enumerate() {
            biases[4 * j + g] = v;
        }
    }
    Ok(kernel(
        "lstm_f32",
        operands(ctx)?,
        P::LstmF32 {
            batches: s.batches,
            time_steps: s.time_steps,
            input_size: s.input_size,
            units: s.units,
            time_major: s.time_major,
            input_weights: Data::Packed(floats(interleave(ctx, 0, s.units, 4)?)),
            recurrent_weights: Data::Packed(floats(interleave(ctx, 1, s.units, 4)?)),
            biases: Data::Values(biases),
            cell_clip,
        },
    ))
}

/// int8 → `lstm_s8`, int16 → `lstm_s16` (int8 weights, int16 cell state); `lstm_dyn_s8` and
/// `lstm_dyn_s16` for weights or biases computed at run time.
fn lstm_int(
    ctx: &OpContext,
    s: Sizes,
    cell: &Tensor,
    (cell_clip, dynamic): (f32, bool),
) -> Result<Kernel> {
    let (input, hidden) = (ctx.input(0)?, ctx.input(18)?);
    let wide = input.dtype == DType::I16;
    ctx.expect_dtype("weights", ctx.input(2)?, DType::I8)?;
    ctx.expect_dtype("cell state", cell, DType::I16)?;
    let quant = |what: &str, t: &Tensor| {
        if wide {
            ctx.int16_quant(what, t)
        } else {
            ctx.int8_quant(what, t)
        }
    };
    let (s_in, zp_in) = quant("input", input)?;
    let (s_h, zp_h) = quant("hidden state", hidden)?;
    // The output takes the hidden state's bytes as they are (TFLM copies them), whatever its own
    // quantization says.
    let (s_c, _) = ctx.int16_quant("cell state", cell)?;
    let power = cell_scale_power(s_c);
    // TFLM's Tanh of the cell state: left shift 12 + power, the power-of-two case (multiplier
    // 3 << shift) when that is not negative, else multiplier 3 with a right shift.
    let shift = 12 + power;
    let (cell_tanh_multiplier, cell_tanh_shift) = if shift >= 0 {
        if shift > 14 {
            return Err(ctx.invalid(
                format!(
                    "cell state scale 2^{power} is too coarse for TFLM's int16 tanh (at most 2^2)"
                ),
                Grounds::undefined(
                    "lstm_eval.cc Tanh gives reference_integer_ops::Tanh the multiplier \
                     3 << (12 + power): above 2^2 an int16 cell state times it overflows int32",
                ),
            ));
        }
        (3 << shift, 0)
    } else {
        if -shift > 31 {
            return Err(ctx.invalid(
                format!(
                    "cell state scale 2^{power} is too fine for TFLM's int16 tanh (at least 2^-43)"
                ),
                Grounds::undefined(
                    "lstm_eval.cc Tanh gives reference_integer_ops::Tanh a right shift of \
                     -(12 + power): below 2^-43 an int32 is shifted by 32 bits or more",
                ),
            ));
        }
        (3, -shift)
    };
    // Gate products: GetQuantizedConvolutionMultipler in double, to the gate scale 2^-12.
    let mut multipliers = Vec::with_capacity(8);
    let mut shifts = Vec::with_capacity(8);
    for (gate, iw, rw, _) in GATES {
        for (i, s_x) in [(iw, s_in), (rw, s_h)] {
            let w = ctx.input(i)?;
            // CalculateOpDataFullyConnected checks per-channel scales against the weights'
            // quantized dimension only (the loader's check); the LSTM reads none of them.
            let scales = ctx.fc_weight_scales(w, 0)?;
            if scales.len() != 1 && i == iw {
                // CreateGateParams copies the per-tensor multiplier out of an
                // OpDataFullyConnected that CalculateOpDataFullyConnected does not set for
                // per-channel weights: for the input weights it is never set.
                return Err(ctx.invalid(
                    format!("the {gate} gate's input weights are quantized per channel"),
                    Grounds::undefined(
                        "lstm_eval_common.cc CreateGateParams: FullyConnectedParamsQuantized \
                         reads output_multiplier of an uninitialized OpDataFullyConnected, \
                         which CalculateOpDataFullyConnected sets only for per-tensor weights",
                    ),
                ));
            }
            if scales.len() != 1 {
                // CreateGateParams fills one OpDataFullyConnected for the input weights, then
                // again for the recurrent ones; for per-channel weights CalculateOpDataFullyConnected
                // sets only the per-channel arrays, which the LSTM's per-tensor FullyConnected
                // never reads, so the recurrent product keeps the input product's multiplier and
                // shift (a defined result, whatever the recurrent scales say): the same here.
                let (m, shift) = (multipliers.last().copied(), shifts.last().copied());
                let (Some(m), Some(shift)) = (m, shift) else {
                    return Err(ctx.internal("no input product's multiplier before the recurrent"));
                };
                multipliers.push(m);
                shifts.push(shift);
                continue;
            }
            let real = f64::from(s_x) * f64::from(scales[0]) / GATE_SCALE;
            let (m, shift) = ctx.requantization(real)?;
            multipliers.push(m);
            shifts.push(shift);
        }
    }
    // CreateInterGateMulParams: the three products, in double.
    let mul = |what: &str, a: f64, b: f64, out: f32| {
        ctx.requantization(a * b / f64::from(out)).map_err(|_| {
            ctx.invalid(
                format!("the {what} product's rescaling cannot be represented"),
                Grounds::undefined(
                    "lstm_eval_common.cc CreateInterGateMulParams: QuantizeMultiplier of \
                     the product gives a shift of 32 or more, which the kernel's int32 left \
                     shift overflows",
                ),
            )
        })
    };
    let products = [
        mul(
            "forget gate × cell state",
            ACTIVATION_SCALE,
            f64::from(s_c),
            s_c,
        )?,
        mul(
            "input gate × cell gate",
            ACTIVATION_SCALE,
            ACTIVATION_SCALE,
            s_c,
        )?,
        mul(
            "output gate × tanh(cell)",
            ACTIVATION_SCALE,
            ACTIVATION_SCALE,
            s_h,
        )?,
    ];
    let (mul_multipliers, mul_shifts): (Vec<i32>, Vec<i8>) = products.into_iter().unzip();
    // CreateLstmCellStateInfo: the clip in double, truncated to int16; applied when positive.
    let (cell_min, cell_max) = if cell_clip > 0.0 {
        let q = (f64::from(cell_clip) / f64::from(s_c)).clamp(-32768.0, 32767.0) as i16;
        (-i32::from(q), i32::from(q))
    } else {
        (-32768, 32767)
    };
    let (input_weights, recurrent_weights) = if dynamic {
        (Vec::new(), Vec::new())
    } else {
        (
            interleave(ctx, 0, s.units, 1)?,
            interleave(ctx, 1, s.units, 1)?,
        )
    };
    let signed = |v: Vec<u8>| -> Vec<i8> { v.into_iter().map(|b| b as i8).collect() };
    let int8 = if dynamic || wide {
        None
    } else {
        let (input_weights, recurrent_weights) = (
            signed(input_weights.clone()),
            signed(recurrent_weights.clone()),
        );
        let biases =
            folded_biases_s8(ctx, &s, (zp_in, zp_h), (&input_weights, &recurrent_weights))?;
        // `lstm_s8` requantizes in fewer instructions where every sum (times its left shift, if
        // any) stays below 2^30 in magnitude and the products' shifts are right shifts (the
        // runtime's `requantize_gate` and `requantize_narrow`); elsewhere `lstm_dyn_s8` sums and
        // requantizes as TFLM writes it.
        let right_shifts = mul_shifts.iter().all(|&s| s <= -1);
        let bounded = |biases: &[i32], w: &[i8], n: usize, product: usize| {
            let rows = biases.iter().zip(w.chunks_exact(n.max(1)));
            rows.enumerate().all(|(k, (&b, row))| {
                let most = row.iter().map(|&w| i64::from(w).abs() * 128).sum::<i64>();
                let left = shifts[2 * (k % 4) + product].max(0);
                (i64::from(b).abs() + most) << left < 1 << 30
            })
        };
        let narrow = bounded(&biases.0, &input_weights, s.input_size, 0)
            && bounded(&biases.1, &recurrent_weights, s.units, 1);
        (right_shifts && narrow).then_some((input_weights, recurrent_weights, biases))
    };
    if dynamic || (!wide && int8.is_none()) {
        return lstm_int_dyn(
            ctx,
            &s,
            (wide, zp_in, zp_h),
            (multipliers, shifts, mul_multipliers, mul_shifts),
            (cell_min, cell_max, cell_tanh_multiplier, cell_tanh_shift),
        );
    }
    if let Some((input_weights, recurrent_weights, (biases, recurrent_biases))) = int8 {
        return Ok(kernel(
            "lstm_s8",
            operands(ctx)?,
            P::LstmS8 {
                batches: s.batches,
                time_steps: s.time_steps,
                input_size: s.input_size,
                units: s.units,
                time_major: s.time_major,
                input_weights: Data::Packed(words_then_tails(&input_weights, s.input_size)),
                recurrent_weights: Data::Packed(words_then_tails(&recurrent_weights, s.units)),
                biases: Data::Values(biases),
                recurrent_biases: Data::Values(recurrent_biases),
                multipliers: Data::Values(multipliers),
                shifts: Data::Values(shifts),
                mul_multipliers: Data::Values(mul_multipliers),
                mul_shifts: Data::Values(mul_shifts),
                hidden_zero_point: zp_h,
                cell_min,
                cell_max,
                cell_tanh_multiplier,
                cell_tanh_shift,
            },
        ));
    }
    // 16x8: 64-bit sums (TFLM reads the biases as int64: any other type would be misread), the
    // zero points folded into the biases, the multipliers reduced to 16 bits.
    let (input_weights, recurrent_weights) = (signed(input_weights), signed(recurrent_weights));
    let mut biases = vec![0i64; 8 * s.units];
    for (g, (_, _, _, b)) in GATES.iter().enumerate() {
        let t = ctx.input(*b)?;
        bias_16x8(ctx, t)?;
        for (j, v) in ctx.const_ints("bias", t)?.into_iter().enumerate() {
            let row = |w: &[i8], n: usize| -> i64 {
                w[(4 * j + g) * n..][..n]
                    .iter()
                    .map(|&w| i64::from(w))
                    .sum()
            };
            biases[8 * j + 2 * g] =
                v.wrapping_sub(i64::from(zp_in) * row(&input_weights, s.input_size));
            biases[8 * j + 2 * g + 1] = -i64::from(zp_h) * row(&recurrent_weights, s.units);
        }
    }
    let (multipliers, shifts) = super::conv::reduce_16x8(ctx, &multipliers, &shifts)?;
    Ok(kernel(
        "lstm_s16",
        operands(ctx)?,
        P::LstmS16 {
            batches: s.batches,
            time_steps: s.time_steps,
            input_size: s.input_size,
            units: s.units,
            time_major: s.time_major,
            input_weights: Data::Packed(input_weights),
            recurrent_weights: Data::Packed(recurrent_weights),
            biases: Data::Values(biases),
            multipliers: Data::Values(multipliers),
            shifts: Data::Values(shifts),
            mul_multipliers: Data::Values(mul_multipliers),
            mul_shifts: Data::Values(mul_shifts),
            hidden_zero_point: zp_h,
            cell_min,
            cell_max,
            cell_tanh_multiplier,
            cell_tanh_shift,
        },
    ))
}

/// The int8 LSTM's biases `[units, 4]` with the zero points folded in (sums wrap in 32 bits, as
/// TFLM's): the gate bias less `input_zero_point · Σ input weights` for the input product, and
/// `-hidden_zero_point · Σ recurrent weights` for the recurrent one (which TFLM sums term by
/// term). The weights are `[units, 4, row]`.
fn folded_biases_s8(
    ctx: &OpContext,
    s: &Sizes,
    (zp_in, zp_h): (i32, i32),
    (input_weights, recurrent_weights): (&[i8], &[i8]),
) -> Result<(Vec<i32>, Vec<i32>)> {
    let row_sum = |w: &[i8], n: usize, k: usize| -> i32 {
        w[k * n..][..n].iter().map(|&w| i32::from(w)).sum()
    };
    let mut biases = vec![0i32; 4 * s.units];
    let mut recurrent_biases = vec![0i32; 4 * s.units];
    for (g, (_, _, _, b)) in GATES.iter().enumerate() {
        let t = ctx.input(*b)?;
        ctx.expect_dtype("bias", t, DType::I32)?;
        for (j, v) in ctx.const_i32s("bias", t)?.into_iter().enumerate() {
            let k = 4 * j + g;
            biases[k] = v.wrapping_sub(zp_in.wrapping_mul(row_sum(input_weights, s.input_size, k)));
            recurrent_biases[k] =
                zp_h.wrapping_neg()
                    .wrapping_mul(row_sum(recurrent_weights, s.units, k));
        }
    }
    Ok((biases, recurrent_biases))
}

/// The int8 weights `[units, 4, row]` (each unit's four gate rows) as the runtime's `lstm_s8`
/// reads them: each unit's rows' whole words interleaved (word 0 of the four rows, then word 1 of
/// each, …), unit after unit, then every unit's rows' last `row % 4` bytes, one row after another.
/// One pass over an input row's words then takes the four gates of unit after unit through the
/// FULLY_CONNECTED loop.
fn words_then_tails(weights: &[i8], row: usize) -> Vec<i8> {
    let whole = row - row % 4;
    let blocks = weights.chunks_exact(4 * row.max(1));
    let mut out = Vec::with_capacity(weights.len());
    for block in blocks.clone() {
        for j in (0..whole).step_by(4) {
            for r in 0..4 {
                out.extend_from_slice(&block[r * row + j..][..4]);
            }
        }
    }
    for block in blocks {
        for r in 0..4 {
            out.extend_from_slice(&block[r * row + whole..][..row - whole]);
        }
    }
    out
}

/// The refusal of a 16x8 LSTM's bias `t` that is not INT64, which TFLM reads as int64_t.
fn bias_16x8(ctx: &OpContext, t: &Tensor) -> Result<()> {
    if t.dtype == DType::I64 {
        return Ok(());
    }
    Err(ctx.invalid(
        format!(
            "bias has type {}: TFLM's int16 LSTM reads its biases as INT64, so it would misread \
             this one; supported: INT64",
            t.dtype
        ),
        Grounds::undefined(
            "the 16x8 LSTM kernel reads its biases as int64_t: a narrower bias is read past its \
             end",
        ),
    ))
}

/// The integer LSTM of weights or biases computed at run time → `lstm_dyn_s8` (`wide` false) or
/// `lstm_dyn_s16`: the requantization computed as for constant weights (from the tensors'
/// scales), the kernels summing TFLM's terms from the weights, zero points and biases as they
/// are at run time.
fn lstm_int_dyn(
    ctx: &OpContext,
    s: &Sizes,
    (wide, zp_in, zp_h): (bool, i32, i32),
    (multipliers, shifts, mul_multipliers, mul_shifts): (Vec<i32>, Vec<i8>, Vec<i32>, Vec<i8>),
    (cell_min, cell_max, cell_tanh_multiplier, cell_tanh_shift): (i32, i32, i32, i32),
) -> Result<Kernel> {
    for (_, _, _, b) in GATES {
        let t = ctx.input(b)?;
        if wide {
            bias_16x8(ctx, t)?;
        } else {
            ctx.expect_dtype("bias", t, DType::I32)?;
        }
    }
    let (multipliers, shifts, function) = if wide {
        let (m, s) = super::conv::reduce_16x8(ctx, &multipliers, &shifts)?;
        (m, s, "lstm_dyn_s16")
    } else {
        (multipliers, shifts, "lstm_dyn_s8")
    };
    Ok(kernel(
        function,
        dyn_operands(ctx)?,
        P::LstmDyn {
            batches: s.batches,
            time_steps: s.time_steps,
            input_size: s.input_size,
            units: s.units,
            time_major: s.time_major,
            input_offset: -zp_in,
            hidden_offset: -zp_h,
            multipliers: Data::Values(multipliers),
            shifts: Data::Values(shifts),
            mul_multipliers: Data::Values(mul_multipliers),
            mul_shifts: Data::Values(mul_shifts),
            hidden_zero_point: zp_h,
            cell_min,
            cell_max,
            cell_tanh_multiplier,
            cell_tanh_shift,
        },
    ))
}

/// The power of two TFLM takes for the cell state's scale: `CheckedLog2`'s rounded log2, computed
/// in float as it does (`log(x) * (1 / log(2))`, rounded half away from zero). TFLM ignores the
/// check's verdict, so a scale that is not a power of two runs with the nearest power in the
/// cell's tanh (and as it is everywhere else); the converter always writes a power of two.
fn cell_scale_power(scale: f32) -> i32 {
    let log2 = scale.ln() * (1.0f32 / 2.0f32.ln());
    log2.round() as i32
}

#[cfg(test)]
mod tests {
    use super::super::testing::{graph, per_tensor, reason, tensor};
    use crate::ir::*;

    /// TFLM's rounded log2: exact for powers of two, the nearest power otherwise.
    #[test]
    fn the_cell_scale_power_is_rounded_as_tflm_rounds_it() {
        for k in -20..4 {
            assert_eq!(super::cell_scale_power(2f32.powi(k)), k);
        }
        assert_eq!(super::cell_scale_power(2f32.powi(-11) * 1.45), -10);
        assert_eq!(super::cell_scale_power(2f32.powi(-11) * 1.4), -11);
    }

    /// A float LSTM graph of 24 inputs, one unit and one input, with a peephole weight or
    /// without the input gate (CIFG) if asked.
    fn lstm_graph(peephole: bool, cifg: bool) -> Graph<'static> {
        static W: [u8; 4] = [0; 4];
        let mut tensors = vec![tensor(&[1, 1, 1], DType::F32, None, None)];
        for _ in 0..8 {
            tensors.push(tensor(&[1, 1], DType::F32, None, Some(&W)));
        }
        for _ in 0..4 {
            tensors.push(tensor(&[1], DType::F32, None, Some(&W)));
        }
        let mut hidden = tensor(&[1, 1], DType::F32, None, None);
        hidden.is_variable = true;
        let mut cell = hidden.clone();
        cell.is_variable = true;
        tensors.push(hidden); // 13
        tensors.push(cell); // 14
        tensors.push(tensor(&[1], DType::F32, None, Some(&W))); // 15: a peephole
        tensors.push(tensor(&[1, 1, 1], DType::F32, per_tensor(1.0, 0), None));
        let mut inputs: Vec<Option<usize>> = (0..9).map(Some).collect();
        inputs.extend([if peephole { Some(15) } else { None }, None, None]);
        inputs.extend((9..13).map(Some));
        inputs.extend([None, None, Some(13), Some(14), None, None, None, None]);
        if cifg {
            for i in [1, 5, 12] {
                inputs[i] = None;
            }
        }
        graph(
            OpCode::UNIDIRECTIONAL_SEQUENCE_LSTM,
            Options::None,
            tensors,
            &inputs,
        )
    }

    #[test]
    fn peephole_lstm_is_refused_by_name() {
        let r = reason(&lstm_graph(true, false));
        assert!(r.contains("input 9 (peephole"), "{r}");
        assert!(r.contains("standard LSTM"), "{r}");
    }

    #[test]
    fn cifg_lstm_is_refused_by_name() {
        let r = reason(&lstm_graph(false, true));
        assert!(
            r.contains("the input gate's input weights (input 1) are absent"),
            "{r}"
        );
    }
}

//! The stateful operators of the builtin list, SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM: their
//! states variable tensors that carry over three invocations on one instance.

use tinyaot_modelkit::{Activation, BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{G, OpGen};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[
    OpGen::new("SVDF", B::SVDF, svdf),
    OpGen::new(
        "UNIDIRECTIONAL_SEQUENCE_LSTM",
        B::UNIDIRECTIONAL_SEQUENCE_LSTM,
        lstm,
    )
    .types(&[TensorType::INT16]),
];

/// SVDF of a `[batches, input size]` input: int8 (int16 time weights and state, or int8 both),
/// or float32; the bias constant; the state a variable tensor.
fn svdf(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r != 2) {
        return None;
    }
    let x = g.take(
        x,
        dtype,
        |g| vec![g.rng.int(1, 3), g.rng.int(1, 12)],
        1.0,
    );
    let s = g.shape(x);
    let (batches, input_size) = (s[0], s[1]);
    let (units, rank, memory) = (g.rng.int(1, 4), g.rng.int(1, 2), g.rng.int(1, 5));
    let filters = units * rank;
    let int8 = g.dtype(x) == TensorType::INT8;
    let (feature, time, bias, state, out, text) = if int8 {
        let (s_in, _) = g.q(x);
        let s_feature = g.rng.logu(2e-3, 5e-2) as f32;
        let state8 = g.rng.chance(0.3);
        // The state holds the feature products requantized: its scale a product of the input's
        // and the feature weights' with room for a sum of `input_size` of them.
        let growth = f64::from(input_size).sqrt() * g.rng.logu(4.0, 64.0);
        let (s_state, state_type, time_type) = if state8 {
            let s = (f64::from(s_in) * f64::from(s_feature) * growth * 16.0) as f32;
            (s, TensorType::INT8, TensorType::INT8)
        } else {
            let s = (f64::from(s_in) * f64::from(s_feature) * growth / 64.0) as f32;
            (s, TensorType::INT16, TensorType::INT16)
        };
        let s_time = g.rng.logu(1e-4, 1e-2) as f32;
        let weights = g.weights((filters * input_size) as usize, true);
        let feature = g.m.tensor(
            TensorSpec::int8(&[filters, input_size], s_feature, 0).constant_i8(&weights),
        );
        let time_values: Vec<u8> = if state8 {
            (0..filters * memory).map(|_| g.rng.next_u64() as u8).collect()
        } else {
            (0..filters * memory)
                .flat_map(|_| (g.rng.int(-4096, 4096) as i16).to_le_bytes())
                .collect()
        };
        let time = g.m.tensor(
            TensorSpec::new(time_type, &[filters, memory])
                .quant(s_time, 0)
                .constant(time_values),
        );
        let values: Vec<i32> = (0..units).map(|_| g.rng.int(-3000, 3000)).collect();
        let bias = g.m.tensor(
            TensorSpec::int32(&[units])
                .quant(s_state * s_time, 0)
                .constant_i32(&values),
        );
        let state = g.m.tensor(
            TensorSpec::new(state_type, &[batches, filters * memory])
                .quant(s_state, 0)
                .variable(),
        );
        let s_out = (f64::from(s_state)
            * f64::from(s_time)
            * f64::from(memory).sqrt()
            * if state8 { 60.0 } else { 2000.0 }
            * g.rng.logu(0.3, 3.0)) as f32;
        let zp = g.zero_point();
        let out = g.act(TensorType::INT8, &[batches, units], Some((s_out, zp)));
        let text = format!(
            "state {} s={s_state:e}, time s={s_time:e}",
            if state8 { "i8" } else { "i16" }
        );
        (feature, time, bias, state, out, text)
    } else {
        let f32s = |g: &mut G<'_>, shape: &[i32], range: f32| {
            let n = shape.iter().product::<i32>();
            let v: Vec<f32> = (0..n).map(|_| g.rng.sym(f64::from(range))).collect();
            g.m.tensor(TensorSpec::f32(shape).constant_f32(&v))
        };
        let feature = f32s(g, &[filters, input_size], 1.0);
        let time = f32s(g, &[filters, memory], 1.0);
        let bias = f32s(g, &[units], 0.5);
        let state = g
            .m
            .tensor(TensorSpec::f32(&[batches, filters * memory]).variable());
        let out = g.act(TensorType::FLOAT32, &[batches, units], None);
        (feature, time, bias, state, out, String::new())
    };
    // A float SVDF applies TANH and SIGN_BIT too (TFLM's ActivationValFloat); int8 RELU or none.
    let activation = if !int8 && g.rng.chance(0.2) {
        g.rng.pick(&[Activation::TANH, Activation::SIGN_BIT])
    } else {
        g.rng.pick(&[Activation::NONE, Activation::RELU])
    };
    g.steps = 3;
    let description = format!(
        "SVDF in {} units {units} rank {rank} memory {memory} {text} act={activation:?} -> {}",
        g.qtext(x),
        g.qtext(out)
    );
    g.describe(description);
    g.m.op(
        B::SVDF,
        Options::Svdf { rank, activation },
        &[x, feature, time, bias, state],
        &[out],
    );
    Some(out)
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM, the standard LSTM TFLM implements, of a `[batches, time,
/// features]` input (or time-major), 1–5 units: int8 activations with int8 weights, int32 biases
/// and an int16 cell state at a power-of-two scale (8x8), int16 activations with int8 weights and
/// int64 biases (16x8), or float32; the eight weight matrices and four biases constant, the hidden
/// and cell states variable tensors, the output in the hidden state's quantization (TFLM copies
/// the hidden state into it), now and then a cell clip. Over three invocations.
fn lstm(g: &mut G<'_>, _: B, x: Option<i32>, dtype: TensorType) -> Option<i32> {
    if g.rank(x).is_some_and(|r| r != 3) {
        return None;
    }
    let x = g.take(
        x,
        dtype,
        |g| vec![g.rng.int(1, 2), g.rng.int(1, 4), g.rng.int(1, 8)],
        1.0,
    );
    let s = g.shape(x);
    let time_major = g.rng.chance(0.25);
    let batches = if time_major { s[1] } else { s[0] };
    let (features, units) = (s[2], g.rng.int(1, 5));
    let dtype = g.dtype(x);
    let mut inputs = vec![-1i32; 24];
    inputs[0] = x;
    let state = [batches, units];
    let out_shape = [s[0], s[1], units];
    let clip = if g.rng.chance(0.25) {
        g.rng.pick(&[0.5f32, 2.0, 8.0])
    } else {
        0.0
    };
    let (out, text) = if dtype == TensorType::FLOAT32 {
        let f32s = |g: &mut G<'_>, shape: &[i32], range: f32| {
            let n = shape.iter().product::<i32>();
            let v: Vec<f32> = (0..n).map(|_| g.rng.sym(f64::from(range))).collect();
            g.m.tensor(TensorSpec::f32(shape).constant_f32(&v))
        };
        for gate in 0..4 {
            inputs[1 + gate] = f32s(g, &[units, features], 1.0);
            inputs[5 + gate] = f32s(g, &[units, units], 1.0);
            inputs[12 + gate] = f32s(g, &[units], 0.5);
        }
        inputs[18] = g.m.tensor(TensorSpec::f32(&state).variable());
        inputs[19] = g.m.tensor(TensorSpec::f32(&state).variable());
        (g.act(TensorType::FLOAT32, &out_shape, None), String::new())
    } else {
        let wide = dtype == TensorType::INT16;
        let (s_in, _) = g.q(x);
        // The hidden state: a product of a sigmoid and a tanh, within [-1, 1].
        let s_hidden = if wide {
            g.rng.logu(1.0 / 32768.0, 1.0 / 8192.0) as f32
        } else {
            g.rng.logu(1.0 / 256.0, 1.0 / 64.0) as f32
        };
        let z_hidden = if wide { 0 } else { g.rng.range(-20, 20) };
        let power = g.rng.int(-15, -8);
        let s_cell = (2f32).powi(power);
        for gate in 0..4 {
            let s_input_weights = g.rng.logu(2e-3, 5e-2) as f32;
            let s_recurrent_weights = g.rng.logu(2e-3, 5e-2) as f32;
            let w = g.weights((units * features) as usize, true);
            inputs[1 + gate] = g.m.tensor(
                TensorSpec::int8(&[units, features], s_input_weights, 0).constant_i8(&w),
            );
            let w = g.weights((units * units) as usize, true);
            inputs[5 + gate] = g.m.tensor(
                TensorSpec::int8(&[units, units], s_recurrent_weights, 0).constant_i8(&w),
            );
            // The bias is added to the input products, in their scale.
            let s_bias = s_in * s_input_weights;
            let values: Vec<i32> = (0..units).map(|_| g.rng.int(-2000, 2000)).collect();
            inputs[12 + gate] = g.m.tensor(if wide {
                let values: Vec<i64> = values.iter().map(|&v| i64::from(v)).collect();
                TensorSpec::new(TensorType::INT64, &[units])
                    .quant(s_bias, 0)
                    .constant_i64(&values)
            } else {
                TensorSpec::int32(&[units])
                    .quant(s_bias, 0)
                    .constant_i32(&values)
            });
        }
        inputs[18] = g.m.tensor(
            TensorSpec::new(dtype, &state)
                .quant(s_hidden, z_hidden)
                .variable(),
        );
        inputs[19] = g.m.tensor(
            TensorSpec::new(TensorType::INT16, &state)
                .quant(s_cell, 0)
                .variable(),
        );
        let out = g.act(dtype, &out_shape, Some((s_hidden, z_hidden)));
        (
            out,
            format!(" hidden s={s_hidden:e} zp={z_hidden} cell 2^{power}"),
        )
    };
    g.steps = 3;
    let description = format!(
        "UNIDIRECTIONAL_SEQUENCE_LSTM in {} units {units}{}{text} clip {clip} -> {}",
        g.qtext(x),
        if time_major { " time-major" } else { "" },
        g.qtext(out)
    );
    g.describe(description);
    g.m.op(
        B::UNIDIRECTIONAL_SEQUENCE_LSTM,
        Options::UnidirectionalSequenceLstm {
            activation: Activation::TANH,
            cell_clip: clip,
            time_major,
        },
        &inputs,
        &[out],
    );
    Some(out)
}

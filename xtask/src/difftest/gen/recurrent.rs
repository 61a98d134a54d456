//! SVDF, the stateful operator of the builtin list: its activation state a variable tensor that
//! carries over three invocations on one instance.

use tinyaot_modelkit::{Activation, BuiltinOperator as B, Options, TensorSpec, TensorType};

use super::{G, OpGen};

/// This family's operators (see [`OpGen`]).
pub(super) const OPS: &[OpGen] = &[OpGen::new("SVDF", B::SVDF, svdf)];

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

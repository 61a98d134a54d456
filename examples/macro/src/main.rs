//! One line compiles the bundled sine model at build time; Cargo rebuilds when the model changes.

tinyaot::include_model!("../../tests/fixtures/models/sine_mlp.tflite", name = Sine);

fn main() {
    let mut model = Sine::new();
    println!("x       model(x)   ({} bytes of arena)", Sine::ARENA_BYTES);
    for step in 0..=8 {
        let x = step as f32 * core::f32::consts::PI / 4.0;
        let q = (x / Sine::INPUT0_SCALE).round() as i32 + Sine::INPUT0_ZERO_POINT;
        model.input0_mut()[0] = q.clamp(-128, 127) as i8;
        model.invoke();
        let y =
            (i32::from(model.output0()[0]) - Sine::OUTPUT0_ZERO_POINT) as f32 * Sine::OUTPUT0_SCALE;
        println!("{x:5.3}   {y:8.4}");
    }
}

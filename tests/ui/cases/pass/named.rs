// The same fixture twice in one crate, under its default name (the file stem in CamelCase) and
// under `name = Sensor`: both compile, coexist, implement `tinyaot::Model` and compute the same.

tinyaot::include_model!("fixtures/models/sine_mlp.tflite");
tinyaot::include_model!("fixtures/models/sine_mlp.tflite", name = Sensor);

// `new` is const: a model can live in a static.
static _IN_FLASH: Sensor = Sensor::new();

/// Runs any model through the trait, on one input byte.
fn run<M: tinyaot::Model>(model: &mut M, x: u8) -> u8 {
    assert_eq!((M::INPUTS, M::OUTPUTS), (1, 1));
    model.input_bytes_mut(0)[0] = x;
    model.invoke();
    model.output_bytes(0)[0]
}

fn main() {
    let mut sensor = Sensor::new();
    let mut sine = SineMlp::new();
    assert_eq!(Sensor::ARENA_BYTES, SineMlp::ARENA_BYTES);
    for x in [0x80u8, 0xff, 0, 77, 127] {
        assert_eq!(run(&mut sensor, x), run(&mut sine, x));
    }
    // The typed accessors: an int8 model has `[i8; N]` inputs and outputs.
    sensor.input0_mut()[0] = -3;
    sensor.invoke();
    let _: i8 = sensor.output0()[0];
}

// The same fixture twice in one crate, under its default name (the file stem in CamelCase) and
// under `name = Sensor`: both compile, coexist, and run.

use tinyaot::Model;

tinyaot::include_model!("fixtures/models/sine_mlp.tflite");
tinyaot::include_model!("fixtures/models/sine_mlp.tflite", name = Sensor);

// `new` is const: a model can live in a static.
static _IN_FLASH: Sensor = Sensor::new();

fn main() {
    let mut sensor = Sensor::new();
    let mut sine = SineMlp::new();
    assert_eq!((Sensor::INPUTS, Sensor::OUTPUTS), (1, 1));
    assert_eq!(Sensor::ARENA_BYTES, SineMlp::ARENA_BYTES);
    for x in [-128i8, -1, 0, 77, 127] {
        sensor.input0_mut()[0] = x;
        sine.input0_mut()[0] = x;
        sensor.invoke();
        sine.invoke();
        assert_eq!(sensor.output0(), sine.output0());
    }
}

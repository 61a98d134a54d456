// `name` given twice.
tinyaot::include_model!(
    "fixtures/models/sine_mlp.tflite",
    name = Sensor,
    name = Probe
);

fn main() {}

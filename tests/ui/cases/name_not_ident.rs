// `name` takes a Rust identifier, not a string.
tinyaot::include_model!("fixtures/models/sine_mlp.tflite", name = "Sensor");

fn main() {}

// An option the macro does not have.
tinyaot::include_model!("fixtures/models/sine_mlp.tflite", prefix = sine);

fn main() {}

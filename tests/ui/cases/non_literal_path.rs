// The path must be a string literal: the macro reads the file while it expands, before constants
// have values.
const MODEL: &str = "fixtures/models/sine_mlp.tflite";

tinyaot::include_model!(MODEL);

fn main() {}

// Macros in the argument are not expanded first (a proc macro sees their tokens, not their value).
tinyaot::include_model!(concat!("fixtures/models/", "sine_mlp.tflite"));

fn main() {}

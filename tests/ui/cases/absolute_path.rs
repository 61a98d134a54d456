// Absolute paths are refused: the crate would build only where the model sits at that path.
tinyaot::include_model!("/models/sine_mlp.tflite");

fn main() {}

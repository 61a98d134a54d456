// A path to a file that does not exist: the message names the path as written and what it is
// relative to.
tinyaot::include_model!("fixtures/models/no_such_model.tflite");

fn main() {}

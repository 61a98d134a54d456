// A valid model with an operator tinyaot does not compile (FLOOR): the message names the operator,
// its position and what is supported.
tinyaot::include_model!("ui/data/unsupported_op.tflite");

fn main() {}

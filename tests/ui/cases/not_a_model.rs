// A file that exists but is not a TensorFlow Lite model.
tinyaot::include_model!("ui/data/not_a_model.txt");

fn main() {}

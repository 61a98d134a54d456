// The path is required.
tinyaot::include_model!();

fn main() {}

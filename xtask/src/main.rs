//! Project automation (placeholder while the `mcu` command is written).
fn main() {}

//! The `tinyaot` command line.

fn main() {
    std::process::exit(tinyaot_codegen_cli());
}

fn tinyaot_codegen_cli() -> i32 {
    eprintln!("error: not yet implemented");
    2
}

//! The `tinyaot` command line; see `tinyaot help`.

fn main() {
    let args = std::env::args().skip(1).collect();
    std::process::exit(tinyaot_codegen::cli::main(args));
}

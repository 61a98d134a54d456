//! The `tinyaot` command line; see `tinyaot help`.

fn main() {
    tinyaot_codegen::cli::install_signal_handlers();
    let args = std::env::args().skip(1).collect();
    std::process::exit(tinyaot_codegen::cli::main(args));
}

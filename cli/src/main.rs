//! The `tinyaot` command line; see `tinyaot help`.

fn main() {
    tinyaot_cli::install_signal_handlers();
    let args = std::env::args().skip(1).collect();
    std::process::exit(tinyaot_cli::main(args));
}

//! `cargo kernels [--check]` (an alias in .cargo/config.toml): runs the kernel generator,
//! [`tinyaot_kernelgen::run`].

use std::process::ExitCode;

const USAGE: &str = "\
Usage: cargo kernels [--check]
       (the same as `cargo xtask kernels [--check]`)

Write what derives from the Rust kernels (runtime/src/kernels/<family>.rs or the files of
runtime/src/kernels/<family>/, where kernel signatures and parameter structs are written by hand
once) and the file layout (families as files or folders): the C headers
templates/c/kernels/<family>.h.tera, the C field table, the lowering's typed constructors, the
kernels' Rust runners, the parity harness's dispatch, and the family module lists. --check writes
nothing and fails if a file is out of date.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args
        .iter()
        .any(|a| a == "help" || a == "--help" || a == "-h")
    {
        print!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match tinyaot_kernelgen::run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

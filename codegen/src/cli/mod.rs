//! The `tinyaot` command line: a thin shell over the library. Errors go to stderr as `error: …`
//! with a non-zero exit status, and no command leaves a partial output file behind.

mod args;
mod c;
pub mod plan;
mod rust;

pub use args::Args;

const USAGE: &str = "\
tinyaot: compile TensorFlow Lite models ahead of time into static inference code

Usage:
  tinyaot plan MODEL [--format text|json] [--svg FILE]
      Print the memory plan: every arena tensor's offset, size and lifetime, the arena size and
      the liveness lower bound. --svg also draws the plan (op step across, offset down).
  tinyaot rust MODEL -o FILE.rs [--name Net] [--runtime-path PATH]
      Write the Rust source that build.rs and include_model! produce. --name sets the struct name
      (default: the file stem in CamelCase); --runtime-path the runtime crate's path (::tinyaot).
  tinyaot c MODEL -o DIR [--prefix net]
      Write self-contained C99 sources into DIR: PREFIX.h (the API: PREFIX_invoke, PREFIX_input,
      PREFIX_output, sizes and quantization as macros), PREFIX.c, PREFIX_kernels.h and the kernel
      files the model uses. `cc -std=c99 DIR/*.c main.c` builds; no malloc, stdio or libm. -o DIR
      is created (or updated in place: files an earlier run generated for PREFIX are replaced);
      --prefix sets the C prefix of every file and name (default: the file stem, sanitized).
  tinyaot help
      Print this text.

Exit status: 0 on success, 1 when the model is refused or a file cannot be written, 2 on a usage
error. Messages go to stderr and start with `error:`.
";

/// Runs the command line on `args` (without the program name) and returns the exit status.
pub fn main(args: Vec<String>) -> i32 {
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return 2;
    };
    let result = match command.as_str() {
        "plan" => plan::run(rest),
        "rust" => rust::run(rest),
        "c" => c::run(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            return 0;
        }
        other => Err(Failure::Usage(format!(
            "unknown command `{other}` (expected plan, rust, c or help)"
        ))),
    };
    match result {
        Ok(()) => 0,
        Err(Failure::Usage(message)) => {
            eprintln!("error: {message}\n\n{USAGE}");
            2
        }
        Err(Failure::Refused(message)) => {
            eprintln!("error: {message}");
            1
        }
    }
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The command line itself is wrong (exit status 2, usage printed).
    Usage(String),
    /// The model was refused or a file could not be read or written (exit status 1).
    Refused(String),
}

impl From<crate::Error> for Failure {
    fn from(e: crate::Error) -> Self {
        Failure::Refused(e.to_string())
    }
}

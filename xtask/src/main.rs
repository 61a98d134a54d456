//! tinyaot's project automation, run as `cargo xtask <command>` (an alias in .cargo/config.toml).
//!
//! Commands:
//! - `mcu [--models a,b] [--timeout SECONDS]`: runs models on a Cortex-M4 under QEMU, from the Rust
//!   and the C backend, checks every output against TFLM's goldens bit for bit, and prints a table
//!   of instructions, flash and RAM (see [`mcu`]).

mod golden;
mod macs;
mod mcu;
mod measure;
mod table;

use std::process::ExitCode;

const USAGE: &str = "\
Usage: cargo xtask <command>

Commands:
  mcu [--models a,b,...] [--timeout SECONDS]
      Generate each model's Rust and C with tinyaot, build a Cortex-M4 firmware for each
      (examples/firmware-rust, examples/firmware-c), run it under qemu-system-arm (mps2-an386,
      -icount shift=0) on TFLM's golden inputs, compare every output bit for bit, and print
      MACs, instructions per inference, flash (code, weights) and RAM (arena, other, stack).
      Default models: the fixture CNNs and MLPs (sine_mlp, micro_speech_like, ds_cnn, resnet8,
      mobilenet_v1_025, mobilenet_v2_035, autoencoder) and the int8 reference models of ../shared
      (hello_world_int8, micro_speech_quantized, person_detect, mobilenet_v2_quantized_1x3x224x224).
      --models takes names of tests/fixtures/models/*.tflite or ../shared/models/*.tflite.
      --timeout bounds each QEMU run (default 600 s).
      Needs qemu-system-arm, arm-none-eabi-gcc (with newlib) and the thumbv7em-none-eabihf target.
      Exit status 1 on any mismatch, failure or missing tool.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.split_first() {
        Some((command, rest)) if command == "mcu" => mcu::run(rest),
        Some((command, _)) if command == "help" || command == "--help" || command == "-h" => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some((command, _)) => Err(format!("unknown command `{command}`\n\n{USAGE}")),
        None => Err(format!("no command given\n\n{USAGE}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

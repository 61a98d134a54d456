//! tinyaot's project automation, run as `cargo xtask <command>` (an alias in .cargo/config.toml).
//!
//! Commands:
//! - `mcu [--core m0plus|m4|m7|m33|m55|rv32|all] [--models a,b] [--timeout SECONDS]
//!   [--update-readme]`: runs models on emulated cores under QEMU (default the Cortex-M4), from the
//!   Rust and the C backend, checks every output against TFLM's goldens bit for bit, and prints a
//!   table of instructions, flash and RAM per core, and a summary of the cores (see [`mcu`],
//!   [`cores`]).
//! - `difftest --cases N --seed S [--ops a,b] [--batch K] [--from I]`: random small models through
//!   TFLM and both backends, compared byte for byte (see [`difftest`]).
//! - `genbench [--update-readme]`: generation time and peak memory on large synthetic models
//!   (see [`genbench`]).
//! - `fresh-clone [--update-readme] [--keep]`: the README's two commands timed on a fresh clone
//!   (see [`fresh_clone`]).
//! - `boards [--update-readme] [BOARD...]`: the board examples' inference (examples/boards) on QEMU's machine of
//!   each board's core, checked against TFLM's output (see [`boards`]).
//! - `arena [--update-readme]`: tinyaot's arena against the liveness lower bound and TFLM's arena
//!   (see [`arena`]).
//! - `cost-model [--core CORES] [--models a,b] [--held-out a,b] [--from FILE.json]`: fits the
//!   instruction cost model of `tinyaot report` to `mcu --profile` measurements and writes it,
//!   with its error on held-out models, to cli/src/cost_model.tsv (see [`cost_model`]).
//! - `bench [--update-readme] [MODEL…]`: microseconds per inference on the host against TFLM's
//!   reference kernels (see [`bench`]).
//! - `kernels [--check]`: what derives from the Rust runtime's kernel structs and signatures
//!   (the C headers, the lowering's constructors, the kernels' runners, the parity dispatch, the
//!   module lists); the same as `cargo kernels [--check]`, the crate `tinyaot-kernelgen`, which
//!   runs while the code generator does not compile.
//! - `ops [--check]`: the README's operator × type table and the supported-operator list of the
//!   trybuild case, generated from the operator registry (see [`ops`]).
//!
//! `--update-readme` writes a command's table into its marker block of README.md (see [`readme`]):
//! the README's figures are never typed by hand.

mod arena;
mod bench;
mod boards;
mod child;
mod cores;
mod cost_model;
mod difftest;
#[cfg(test)]
mod file_sizes;
mod fresh_clone;
mod genbench;
mod golden;
mod macs;
mod mcu;
mod mcu_pipeline;
mod measure;
mod ops;
mod readme;
mod table;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The repository: the parent of `xtask/`.
fn workspace_root() -> Result<PathBuf, String> {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "xtask/ has no parent".to_string())
}

/// Cargo's target directory: `$CARGO_TARGET_DIR` (relative to `root` when relative), else
/// `<root>/target`.
fn target_dir(root: &Path) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    if target.is_absolute() {
        target
    } else {
        root.join(target)
    }
}

const USAGE: &str = "\
Usage: cargo xtask <command>

Commands:
  mcu [--core CORES] [--models a,b,...] [--timeout SECONDS] [--json FILE]
      [--update-readme | --profile]
      Generate each model's Rust and C with tinyaot, build a firmware for each on each core
      (examples/firmware-rust, examples/firmware-c), run it under QEMU (-icount shift=0) on
      TFLM's golden inputs, compare every output bit for bit, and print MACs, instructions per
      inference, flash (code, weights) and RAM (arena, other, stack), per core.
      --core: a comma-separated list of m0plus (mps2-an385, thumbv6m-none-eabi, portable
      kernels), m4 (mps2-an386, the default), m7 (mps2-an500), m33 (mps2-an505), m55
      (mps3-an547) and rv32 (qemu-system-riscv32 virt, riscv32imc-unknown-none-elf), or all.
      Each model is generated once for every core; with several cores a summary table of the
      cores follows the per-core tables.
      Default models: those of the README's tables (DEFAULT_MODELS in xtask/src/mcu.rs): the
      fixture CNNs and MLPs, the int8 reference models of ../shared (person_detect, …), the
      stateful SVDF, LSTM and streaming models, int16 models (SEANet layers, int16 fixtures),
      the keyword pipeline (micro_speech_pipeline: TFLM's audio preprocessor and keyword model as
      one group, one second of raw audio per case) and the detection post-processing corners.
      --models takes names of tests/fixtures/models/*.tflite, ../shared/models/*.tflite (and its
      tflm_suite and audio_frontend), the hostile suite's accepted corners, micro_speech_pipeline,
      and two sets: `fixtures` (every model of tests/fixtures/models.json) and `corners` (every
      accepted corner of the hostile suite, tests/fixtures/hostile/golden).
      --timeout bounds each QEMU run (default 600 s).
      Needs qemu-system-arm, arm-none-eabi-gcc (with newlib) and the core's Rust target; rv32
      needs qemu-system-riscv32 (qemu-system-misc) and riscv64-unknown-elf-gcc with picolibc.
      --update-readme writes the Cortex-M4's table into README.md between the mcu markers
      (needs m4 among the cores) and, with --core all, the summary of the cores between the
      mcu-cores markers (default models only, and only when every run passed). --profile
      builds the firmwares with the generated code's operator hooks and prints, per model, each
      operator's instructions on case 0 (Rust and C), slowest first. --json FILE also writes
      the figures of the tables (and of the profile) as JSON, per model and language (with
      several cores, {\"cores\": [one object per core]}). TINYAOT_MCU_CFLAGS adds flags to
      every C firmware's compile, for a kernel path a build can choose (CI:
      TINYAOT_MCU_CFLAGS=-DTINYAOT_MVE_INTRINSICS with --core m55 --cover m55); not with
      --update-readme.
      Exit status 1 on any mismatch, failure or missing tool.
  difftest [--cases N] [--seed S] [--ops A,B,...] [--batch K] [--from I]
      Differential test: N random small models (cases I..I+N of seed S; default 100 cases of
      seed 1 from 0), single ops and chains of 2-3, int8 and float32, random shapes, options
      and quantization (some scales chosen where f32 and f64 requantization multipliers
      differ), run by TFLM (xtask/difftest.py; needs `pip install --pre tflite-micro numpy`)
      and by both backends (K cases per generated Rust crate and C program, default 150).
      Outputs must match TFLM byte for byte (float32 within 1e-5 relative); TFLM refusing
      what tinyaot accepts is a difference; tinyaot refusing what TFLM runs is counted as
      unsupported. --ops restricts the ops drawn. Differing cases are saved under
      <target>/difftest/failures/. Exit status 1 on any difference.
  genbench [--update-readme] [--quick]
      Generation time and peak memory of the release `tinyaot rust` and `tinyaot c` on synthetic
      models: chains of 10k-80k RELUs and 62-500 MB of weights (built with tinyaot-modelkit,
      run in child processes). Prints a table; --update-readme also writes it into README.md
      between the genbench markers; --quick measures the two smallest of each kind.
  fresh-clone [--update-readme] [--keep]
      The README's two commands timed as a newcomer runs them: the last commit cloned into
      <target>/fresh-clone with ../shared linked beside it, then the first command and
      `cargo test --workspace` run there with a fresh target/ and Cargo's defaults (CARGO_*
      but CARGO_HOME, RUSTFLAGS, CI, INSTA_* and TINYAOT_* removed). Prints wall and CPU time
      of each and the tests run; --update-readme writes them into README.md between the
      fresh-clone markers. The clone is removed afterwards unless --keep.
  boards [--update-readme] [BOARD...]
      The board examples' inference (examples/boards/<board>/src/model.rs and
      examples/boards/inference.rs) built for QEMU's machine of each board's core
      (examples/firmware-rust/boards: the nRF52840's on the Cortex-M4, the Raspberry Pi Pico's on
      the Cortex-M0+, the NUCLEO-H743ZI's on the Cortex-M7, the ESP32-C3's on RV32) and run
      there; fails unless each output is TFLM's. Prints instructions per inference;
      --update-readme writes the table into examples/boards/README.md (between the boards
      markers).
  arena [--update-readme]
      tinyaot's arena (and state) against the liveness lower bound and TFLM's arena (total /
      planned tensors / bookkeeping, from ../shared/tools/tflm_reference.py arena run by
      $TINYAOT_PYTHON or python3) for the reference models of ../shared/models, and how many
      fixture models plan at their bound. --update-readme writes the table into README.md
      between the arena markers.
  cost-model [--core CORES] [--models a,b,...] [--held-out a,b,...] [--from FILE.json]...
      Fit the instruction cost model of `tinyaot report` and write it to cli/src/cost_model.tsv
      (compiled into the command line): runs `mcu --profile` on the cores (default all, as
      --core of mcu takes them) for the training models (default: the README's int8 CNNs and
      MLPs but the held-out ones, and small fixtures of the kernels those lack) and the
      held-out ones (default person_detect, ds_cnn, mobilenet_v2_quantized_1x3x224x224), fits
      per core and kernel function instructions = a*MACs + b*elements + c (least squares, no
      negative coefficient) to the training models' operators (generated Rust), and measures
      the estimate per inference against the held-out models' measurement; prints that error
      and stores it with the coefficients and in README.md (between the cost-model markers).
      --from reads earlier `mcu --profile --json` output (one file per run, repeatable)
      instead of running the measurements.
  bench [--update-readme] [MODEL...]
      Microseconds per inference of the generated Rust on the host next to TFLM's reference
      kernels, from `cargo run --release -p tinyaot-bench` (TFLM's column needs
      tflite-micro in $TINYAOT_PYTHON or python3). Default: the README's seven models;
      --update-readme writes the output into README.md between the bench markers.
  kernels [--check]
      Write what derives from the Rust kernels (runtime/src/kernels/<family>.rs or the files of
      runtime/src/kernels/<family>/, where kernel signatures and parameter structs are written
      by hand once) and the file layout (families as files or folders): the C
      headers templates/c/kernels/<family>.h.tera, the C field table, the lowering's typed
      constructors, the parity harness's dispatch, and the family module lists. --check writes
      nothing and fails if a file is out of date. The same as `cargo kernels [--check]`
      (tinyaot-kernelgen, which builds without the code generator: use it when codegen does not
      compile).
  ops [--check]
      Write what derives from the operator registry (codegen/src/lower/ops/, each OpEntry with
      the types tinyaot compiles and those TFLM registers): README.md's operator count and
      operator x type table (between the ops markers) and the supported-operator list of
      tests/ui/cases/unsupported_op.stderr. --check writes nothing and fails if either is out of date.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.split_first() {
        Some((command, rest)) if command == "mcu" => mcu::run(rest),
        Some((command, rest)) if command == "difftest" => difftest::run(rest),
        Some((command, rest)) if command == "genbench" => genbench::run(rest),
        Some((command, rest)) if command == "fresh-clone" => fresh_clone::run(rest),
        Some((command, rest)) if command == "arena" => arena::run(rest),
        Some((command, rest)) if command == "boards" => boards::run(rest),
        Some((command, rest)) if command == "cost-model" => cost_model::run(rest),
        Some((command, rest)) if command == "bench" => bench::run(rest),
        Some((command, rest)) if command == "kernels" => tinyaot_kernelgen::run(rest),
        Some((command, rest)) if command == "ops" => ops::run(rest),
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

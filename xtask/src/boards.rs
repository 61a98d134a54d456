//! `cargo xtask boards`: the board examples' own inference (examples/boards/<board>/src/model.rs
//! and examples/boards/inference.rs, the code each board runs apart from its HAL) built for
//! QEMU's machine of each board's core (examples/firmware-rust/boards: one program per board,
//! with the QEMU firmware's start-up, clock and semihosting) and run there: each must give TFLM's
//! golden output. No board is attached here; this checks on the same instruction set everything
//! a board runs but its clock set-up, its cycle counter and its log.
//!
//! Prints a table per board: the core and QEMU machine, the model, its operators and the
//! instructions of the inference (the operator hook's reads of the clock included).

use std::path::Path;
use std::time::Duration;

use crate::cores::{self, Core};
use crate::table::thousands;

/// Each board example: its directory under examples/boards (and its program's name), the
/// `cargo xtask mcu` core whose QEMU machine runs its core's instruction set, and its model.
const BOARDS: &[(&str, &str, &str)] = &[
    ("nrf52840", "m4", "ds_cnn"),
    ("rp-pico", "m0plus", "resnet8"),
    ("nucleo-h743zi", "m7", "vww_mobilenet_v1_025"),
    ("esp32c3", "rv32", "ds_cnn"),
];

/// How long one program may run under QEMU.
const TIMEOUT: Duration = Duration::from_secs(300);

/// `cargo xtask boards [--update-readme] [BOARD...]`: every board example, or those named;
/// `--update-readme` (every board run, each bit-exact) writes the table into
/// examples/boards/README.md between the `boards` markers.
pub fn run(args: &[String]) -> Result<(), String> {
    let root = crate::workspace_root()?;
    let update_readme = args.iter().any(|a| a == "--update-readme");
    let args: Vec<String> = args
        .iter()
        .filter(|a| *a != "--update-readme")
        .cloned()
        .collect();
    let chosen: Vec<&(&str, &str, &str)> = if args.is_empty() {
        BOARDS.iter().collect()
    } else {
        args.iter()
            .map(|name| {
                BOARDS.iter().find(|b| b.0 == name).ok_or_else(|| {
                    let names: Vec<&str> = BOARDS.iter().map(|b| b.0).collect();
                    format!("no board example `{name}` (one of {})", names.join(", "))
                })
            })
            .collect::<Result<_, _>>()?
    };
    let target = crate::target_dir(&root).join("boards-qemu");
    let mut failures = Vec::new();
    let mut table = String::from(
        "| board example | core (QEMU machine) | model | operators | instructions | output |\n\
         |---|---|---|--:|--:|---|\n",
    );
    for &&(board, core_name, model) in &chosen {
        let core = cores::parse(core_name)?[0];
        let elf = build(&root, &target, board, core)?;
        let report = crate::mcu::run_qemu(&elf, TIMEOUT, core).and_then(|text| read_report(&text));
        let (operators, ticks, passed) = match report {
            Ok(report) => report,
            Err(why) => {
                failures.push(format!("{board}: {why}"));
                continue;
            }
        };
        let (per, div) = core.insns_per_tick;
        let row = format!(
            "| {board} | {} ({}) | {model} | {operators} | {} | {} |\n",
            core.title,
            core.machine,
            thousands(ticks * per / div),
            if passed {
                "bit-exact with TFLM"
            } else {
                "DIFFERS from TFLM"
            }
        );
        print!("{row}");
        table.push_str(&row);
        if !passed {
            failures.push(format!("{board}: the output differs from TFLM's"));
        }
    }
    if !failures.is_empty() {
        return Err(failures.join("\n"));
    }
    if update_readme {
        if chosen.len() != BOARDS.len() {
            return Err("--update-readme writes every board's row: name none".into());
        }
        crate::readme::replace_block(
            &root.join("examples/boards"),
            "boards",
            &format!(
                "`cargo xtask boards --update-readme` (instructions per inference under QEMU's \
                 `-icount`, the hook's clock reads included):\n\n{table}"
            ),
        )?;
    }
    Ok(())
}

/// Builds `board`'s program for `core` (its Rust target, flags and QEMU board); returns the ELF.
fn build(
    root: &Path,
    target: &Path,
    board: &str,
    core: &Core,
) -> Result<std::path::PathBuf, String> {
    // One target directory per core: cores sharing a Rust target differ in flags and board.
    let target_dir = target.join(core.name);
    let status = core
        .cargo_build(&root.join("examples/firmware-rust/boards"), &target_dir)
        .args(["--bin", board])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "building the {board} program for {} failed",
            core.title
        ));
    }
    Ok(target_dir
        .join(core.rust_target)
        .join("release")
        .join(board))
}

/// The program's report (examples/firmware-rust/boards/src/check.rs): operators timed, ticks of
/// the inference, and whether the output is TFLM's.
fn read_report(text: &str) -> Result<(usize, u64, bool), String> {
    let operators = text.lines().filter(|l| l.starts_with("op ")).count();
    let ticks = text
        .lines()
        .find_map(|l| l.strip_prefix("invoke ticks="))
        .and_then(|t| t.trim().parse::<u64>().ok());
    let verdict = text.lines().find_map(|l| l.strip_prefix("verdict "));
    match (ticks, verdict.map(str::trim)) {
        (Some(ticks), Some("pass")) => Ok((operators, ticks, true)),
        (Some(ticks), Some("fail")) => Ok((operators, ticks, false)),
        _ => Err(format!("no report in what the program printed:\n{text}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_report() {
        let text = "op 0 CONV_2D ticks=10\nop 1 SOFTMAX ticks=2\ninvoke ticks=14\nverdict pass\n";
        assert_eq!(read_report(text), Ok((2, 14, true)));
        assert_eq!(
            read_report("invoke ticks=3\nverdict fail\n"),
            Ok((0, 3, false))
        );
        assert!(read_report("panic: at src/x.rs\n").is_err());
    }

    #[test]
    fn every_board_example_has_a_program_and_a_core() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut dirs: Vec<String> = std::fs::read_dir(root.join("examples/boards"))
            .expect("examples/boards")
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("Cargo.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        dirs.sort();
        let mut listed: Vec<String> = BOARDS.iter().map(|b| b.0.to_string()).collect();
        listed.sort();
        assert_eq!(
            dirs, listed,
            "a board example without a QEMU program, or the reverse"
        );
        for (board, core, model) in BOARDS {
            assert!(cores::parse(core).is_ok(), "{core}");
            let program = root.join(format!("examples/firmware-rust/boards/src/bin/{board}.rs"));
            assert!(program.is_file(), "{}", program.display());
            let model_rs = root.join(format!("examples/boards/{board}/src/model.rs"));
            let text = std::fs::read_to_string(&model_rs).expect("the board's model.rs");
            assert!(
                text.contains(&format!("models/{model}.tflite")),
                "{board}: {model}"
            );
        }
    }
}

//! Links for the board (`$TINYAOT_MCU_BOARD`, else the target's usual board: see [`BOARDS`]) and
//! points the firmware at the generated model and golden data: `$TINYAOT_MCU_DIR/model.rs` and
//! `golden.rs`, which `cargo xtask mcu` writes (the generator lives in the xtask, so that this
//! crate needs no host-side compiler of its own and rebuilds in seconds when only the model
//! changes).
//!
//! A Cortex-M board's `memory/<board>.x` becomes the `memory.x` of cortex-m-rt's link.x; the RV32
//! board's `memory/riscv_virt.x` is the whole link script.

use std::path::PathBuf;

/// The boards: name (`memory/<name>.x`), the Rust target it runs, and whether it is the target's
/// default board.
const BOARDS: &[(&str, &str, bool)] = &[
    ("mps2_an385", "thumbv6m-none-eabi", true),
    ("mps2_an386", "thumbv7em-none-eabihf", true),
    ("mps2_an500", "thumbv7em-none-eabihf", false),
    ("mps2_an505", "thumbv8m.main-none-eabihf", true),
    ("mps3_an547", "thumbv8m.main-none-eabihf", false),
    ("riscv_virt", "riscv32imc-unknown-none-elf", true),
];

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let target = std::env::var("TARGET").expect("cargo sets TARGET");
    println!("cargo:rerun-if-env-changed=TINYAOT_MCU_BOARD");
    println!("cargo:rustc-check-cfg=cfg(tinyaot_boot_vectors)");
    println!("cargo:rustc-check-cfg=cfg(tinyaot_armv6m)");
    println!("cargo:rustc-check-cfg=cfg(tinyaot_regions)");
    // The model was planned with memory regions (`cargo xtask mcu --region`): its struct borrows
    // them, and the firmware takes them from their statics.
    println!("cargo:rerun-if-env-changed=TINYAOT_MCU_REGIONS");
    if std::env::var("TINYAOT_MCU_REGIONS").is_ok_and(|v| v == "1") {
        println!("cargo:rustc-cfg=tinyaot_regions");
    }
    let board = match std::env::var("TINYAOT_MCU_BOARD") {
        Ok(board) => board,
        Err(_) => match BOARDS.iter().find(|b| b.1 == target && b.2) {
            Some(b) => b.0.to_string(),
            None => panic!("no board runs {target}: build for one of the targets in build.rs"),
        },
    };
    let Some(&(board, board_target, _)) = BOARDS.iter().find(|b| b.0 == board) else {
        panic!("TINYAOT_MCU_BOARD={board} is not a board of build.rs");
    };
    assert!(
        board_target == target,
        "the board {board} runs {board_target}, not {target}"
    );
    let memory = PathBuf::from("memory").join(format!("{board}.x"));
    println!("cargo:rerun-if-changed=memory");
    let script = std::fs::read(&memory).expect("the board's memory file");
    if target.starts_with("riscv") {
        std::fs::write(out.join("link.x"), script).expect("write link.x");
    } else {
        std::fs::write(out.join("memory.x"), script).expect("write memory.x");
        std::fs::write(
            out.join("golden.x"),
            include_bytes!("memory/golden.x").as_slice(),
        )
        .expect("write golden.x");
    }
    println!("cargo:rustc-link-search={}", out.display());
    // Link arguments here rather than in .cargo/config.toml: a RUSTFLAGS variable in the
    // environment (even an empty one, as CI sets) replaces the config's rustflags. On Cortex-M
    // link.x is cortex-m-rt's, which INCLUDEs memory.x; on RV32 it is the board's own script.
    println!("cargo:rustc-link-arg=--nmagic");
    println!("cargo:rustc-link-arg=-Tlink.x");
    if board == "mps3_an547" {
        println!("cargo:rustc-cfg=tinyaot_boot_vectors");
    }
    if target.starts_with("thumbv6m") {
        println!("cargo:rustc-cfg=tinyaot_armv6m");
    }

    println!("cargo:rerun-if-env-changed=TINYAOT_MCU_DIR");
    let Some(dir) = std::env::var_os("TINYAOT_MCU_DIR") else {
        panic!(
            "TINYAOT_MCU_DIR is not set: it names the directory holding the generated model.rs \
             and golden.rs. Run `cargo xtask mcu` from the repository root, which generates them \
             and builds this firmware."
        );
    };
    // Relative to this crate (`TINYAOT_MCU_DIR=baseline cargo run --release` works from here);
    // include! needs an absolute path, or it would look beside src/main.rs.
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let dir = manifest_dir.join(dir);
    for file in ["model.rs", "golden.rs"] {
        let path = dir.join(file);
        assert!(path.is_file(), "{} does not exist", path.display());
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let dir = dir.canonicalize().expect("TINYAOT_MCU_DIR exists");
    let dir = dir.to_str().expect("TINYAOT_MCU_DIR is valid UTF-8");
    println!("cargo:rustc-env=TINYAOT_MCU_SOURCES={dir}");
}

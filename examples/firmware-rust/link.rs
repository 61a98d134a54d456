// The QEMU board's link, shared by the build scripts of this firmware and of the board examples'
// QEMU program (examples/boards/qemu), which `include!` it: the board of `$TINYAOT_MCU_BOARD`
// (else the target's usual board), its memory file, and the cfgs its start-up reads.

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

/// Links for the board: writes its memory file (from `memory`, this firmware's `memory/`
/// directory) where the linker finds it, and tells Cargo the link arguments and the start-up's
/// cfgs (`tinyaot_boot_vectors`, `tinyaot_armv6m`).
fn link_for_board(memory: &std::path::Path) {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let target = std::env::var("TARGET").expect("cargo sets TARGET");
    println!("cargo:rerun-if-env-changed=TINYAOT_MCU_BOARD");
    println!("cargo:rustc-check-cfg=cfg(tinyaot_boot_vectors)");
    println!("cargo:rustc-check-cfg=cfg(tinyaot_armv6m)");
    let board = match std::env::var("TINYAOT_MCU_BOARD") {
        Ok(board) => board,
        Err(_) => match BOARDS.iter().find(|b| b.1 == target && b.2) {
            Some(b) => b.0.to_string(),
            None => panic!("no board runs {target}: build for one of the targets in link.rs"),
        },
    };
    let Some(&(board, board_target, _)) = BOARDS.iter().find(|b| b.0 == board) else {
        panic!("TINYAOT_MCU_BOARD={board} is not a board of link.rs");
    };
    assert!(
        board_target == target,
        "the board {board} runs {board_target}, not {target}"
    );
    println!("cargo:rerun-if-changed={}", memory.display());
    let read = |file: &str| {
        let path = memory.join(file);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let script = read(&format!("{board}.x"));
    if target.starts_with("riscv") {
        std::fs::write(out.join("link.x"), script).expect("write link.x");
    } else {
        std::fs::write(out.join("memory.x"), script).expect("write memory.x");
        std::fs::write(out.join("golden.x"), read("golden.x")).expect("write golden.x");
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
}

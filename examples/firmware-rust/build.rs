//! Links for the board (`$TINYAOT_MCU_BOARD`, else the target's usual board: see link.rs) and
//! points the firmware at the generated model and golden data: `$TINYAOT_MCU_DIR/model.rs` and
//! `golden.rs`, which `cargo xtask mcu` writes (the generator lives in the xtask, so that this
//! crate needs no host-side compiler of its own and rebuilds in seconds when only the model
//! changes).
//!
//! A Cortex-M board's `memory/<board>.x` becomes the `memory.x` of cortex-m-rt's link.x; the RV32
//! board's `memory/riscv_virt.x` is the whole link script.

use std::path::{Path, PathBuf};

include!("link.rs");

fn main() {
    link_for_board(Path::new("memory"));
    println!("cargo:rustc-check-cfg=cfg(tinyaot_regions)");
    // The model was planned with memory regions (`cargo xtask mcu --region`): its struct borrows
    // them, and the firmware takes them from their statics.
    println!("cargo:rerun-if-env-changed=TINYAOT_MCU_REGIONS");
    if std::env::var("TINYAOT_MCU_REGIONS").is_ok_and(|v| v == "1") {
        println!("cargo:rustc-cfg=tinyaot_regions");
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

//! Links for QEMU's mps2-an386 (memory.x with cortex-m-rt's link.x) and points the firmware at the
//! generated model and golden data: `$TINYAOT_MCU_DIR/model.rs` and `golden.rs`, which
//! `cargo xtask mcu` writes (the generator lives in the xtask, so that this crate needs no host-side
//! compiler of its own and rebuilds in seconds when only the model changes).

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("memory.x"), include_bytes!("memory.x")).expect("write memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");
    // Link arguments here rather than in .cargo/config.toml: a RUSTFLAGS variable in the
    // environment (even an empty one, as CI sets) replaces the config's rustflags.
    println!("cargo:rustc-link-arg=--nmagic");
    println!("cargo:rustc-link-arg=-Tlink.x");

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

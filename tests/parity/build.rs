//! Renders every C kernel (all functions of every family, prefix `parity`) through the C
//! backend's templates and compiles them into one static library with the host's C compiler, at
//! the C99 the generated code promises and with every warning an error. With
//! `TINYAOT_FLOAT_FAST_PATH` defined, so that the float math's single-precision fast paths (on
//! cores with a float-only FPU) are compared with the Rust runtime too, and `TINYAOT_FLOAT_FMA`,
//! so that they are the fused ones every Cortex-M FPU runs (through the C library's `fmaf`).

use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let files = tinyaot_codegen::emit::c::kernel_library("parity")
        .unwrap_or_else(|e| panic!("rendering the C kernel library: {e}"));
    let mut build = cc::Build::new();
    build
        .std("c99")
        .opt_level(2)
        .define("TINYAOT_FLOAT_FAST_PATH", None)
        .define("TINYAOT_FLOAT_FMA", None)
        .include(&out)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true);
    for (name, text) in &files {
        let path = out.join(name);
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if name.ends_with(".c") {
            build.file(&path);
        }
    }
    build.compile("tinyaot_parity_kernels");
    // The templates are embedded in tinyaot-codegen, which cargo already tracks.
    println!("cargo:rerun-if-changed=build.rs");
}

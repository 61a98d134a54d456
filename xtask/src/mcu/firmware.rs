//! Building the two firmwares of `cargo xtask mcu` around a generated model: examples/firmware-rust
//! with cargo for the core's Rust target, examples/firmware-c with the core's C compiler.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Paths;
use crate::cores::{self, Core};

/// Flags for the C firmware besides the core's (`Core::c_arch`).
const C_FLAGS: &[&str] = &[
    "-O2",
    "-std=c99",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Werror",
    "-ffunction-sections",
    "-fdata-sections",
];

/// Link flags besides the C library's specs (`Core::c_specs`: newlib-nano or picolibc, only for
/// memcpy/memset): own start-up code (cortex_m.c, rv32.c), unused sections dropped so that the ELF
/// holds what the model needs.
const C_LINK_FLAGS: &[&str] = &["-nostartfiles", "-Wl,--gc-sections"];

/// Builds examples/firmware-rust for `core` around `$TINYAOT_MCU_DIR = dir` and copies the ELF to
/// `elf`. Each core has a target directory of its own: cores that share a Rust target (M4 and
/// M7, M33 and M55) differ in flags and board, and would rebuild everything in turn in one.
/// Builds the Rust firmware for `core` around the model in `dir`, planned with memory regions
/// when `regions` (the firmware then takes them with `Net::take`).
pub(super) fn build_rust(
    paths: &Paths,
    core: &Core,
    dir: &Path,
    elf: &Path,
    regions: bool,
) -> Result<PathBuf, String> {
    let firmware = paths.root.join("examples/firmware-rust");
    let target_dir = paths.firmware_target.join(core.name);
    let output = core
        .cargo_build(&firmware, &target_dir)
        .args(if paths.profile {
            &["--features", "profile"][..]
        } else {
            &[]
        })
        .env("TINYAOT_MCU_DIR", dir)
        .env("TINYAOT_MCU_REGIONS", if regions { "1" } else { "0" })
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "building the Rust firmware failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let built = target_dir
        .join(core.rust_target)
        .join("release/tinyaot-firmware");
    std::fs::copy(&built, elf).map_err(|e| format!("{}: {e}", built.display()))?;
    Ok(elf.to_path_buf())
}

/// Compiles examples/firmware-c for `core` with the generated sources of `dir` (every `.c` there)
/// into `elf`.
pub(super) fn build_c(
    paths: &Paths,
    core: &Core,
    dir: &Path,
    elf: &Path,
) -> Result<PathBuf, String> {
    let firmware = paths.root.join("examples/firmware-c");
    let mut sources: Vec<PathBuf> = ["main.c", core.c_startup, "semihosting.c"]
        .iter()
        .map(|f| firmware.join(f))
        .collect();
    let mut generated: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    generated.sort();
    sources.extend(generated);
    // --profile: the model's operator hooks call main.c's mcu_op_begin / mcu_op_end, declared in
    // firmware.h, which every file then includes first.
    let firmware_h = firmware.join("firmware.h").display().to_string();
    let profile_flags = [
        "-DTINYAOT_MCU_PROFILE",
        "-DNET_OPERATOR_BEGIN(i,n)=mcu_op_begin(i,n)",
        "-DNET_OPERATOR_END(i,n)=mcu_op_end(i,n)",
        "-include",
        &firmware_h,
    ];
    let output = Command::new(core.cc)
        .args(core.c_arch)
        .args(C_FLAGS)
        .args(cores::debug_info().then_some("-g"))
        .args(cores::extra_c_flags())
        .args(if paths.profile {
            &profile_flags[..]
        } else {
            &[]
        })
        .arg("-I")
        .arg(dir)
        .arg("-I")
        .arg(&firmware)
        .args(&sources)
        .args(C_LINK_FLAGS)
        .arg(core.c_specs)
        // The board's script INCLUDEs the architecture's sections (cortex_m.ld) from here.
        .arg("-L")
        .arg(&firmware)
        .arg("-T")
        .arg(firmware.join(format!("{}.ld", core.board)))
        .arg("-o")
        .arg(elf)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", core.cc))?;
    if !output.status.success() {
        return Err(format!(
            "building the C firmware failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(elf.to_path_buf())
}

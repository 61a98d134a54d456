//! Turns on the Cortex-M DSP-extension kernels (`cfg(tinyaot_dsp)`) for targets that have the
//! extension: ARMv7E-M (`thumbv7em-*`: Cortex-M4 and M7) always, and ARMv8-M Mainline
//! (`thumbv8m.main-*`: Cortex-M33, M35P, M55, M85) when the build enables it, with
//! `-C target-cpu=cortex-m33` (or another of those cores) or `-C target-feature=+dsp`: the
//! extension is optional there, and its instructions (`smlad`, `sxtb16`, `ssat`, …) are the same
//! as ARMv7E-M's. Everywhere else, ARMv6-M and Miri included, the portable kernels compile; both
//! compute the same bits.
//!
//! It also turns on `cfg(tinyaot_vfp)` on Arm hard-float targets (`*-eabihf`: thumbv7em for the
//! Cortex-M4/M7, thumbv8m.main for the M33/M55…): the hard-float ABI passes floats in FPU
//! registers, so an FPU with single-precision `vsqrt.f32` is always there, and `sqrt_f32` uses it
//! (correctly rounded like the integer version it replaces). Miri and every other target keep the
//! software square root.
//!
//! And `cfg(tinyaot_mve)`, the Helium (M-profile Vector Extension) kernels, on ARMv8.1-M
//! Mainline targets whose flags name a core with MVE (`-C target-cpu=cortex-m55` or
//! `cortex-m85`) or enable it (`-C target-feature=+mve`, or `+mve.fp`, which implies it); a `-mve`
//! after them turns it off. An M55 build without those flags (plain `thumbv8m.main-*`, whose
//! LLVM core has no MVE) keeps the DSP or portable kernels, as every other target does. MVE cores
//! have the DSP extension too, so `tinyaot_mve` comes with `tinyaot_dsp`: the kernels without a
//! Helium variant keep their DSP one.
//!
//! A build script rather than `cfg(target_feature = "dsp")`: rustc does not expose that Arm
//! feature to `cfg` on stable, so the flags are read from `CARGO_ENCODED_RUSTFLAGS`.

/// The ARMv8-M Mainline cores whose every implementation has the DSP extension in LLVM's model
/// (`-C target-cpu=` turns it on).
const DSP_CPUS: &[&str] = &["cortex-m33", "cortex-m35p", "cortex-m55", "cortex-m85"];

/// The cores whose every implementation has MVE's integer instructions in LLVM's model.
const MVE_CPUS: &[&str] = &["cortex-m55", "cortex-m85"];

fn main() {
    println!("cargo:rustc-check-cfg=cfg(tinyaot_dsp)");
    println!("cargo:rustc-check-cfg=cfg(tinyaot_vfp)");
    println!("cargo:rustc-check-cfg=cfg(tinyaot_mve)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_ENCODED_RUSTFLAGS");
    let target = std::env::var("TARGET").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let flags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let dsp = target.starts_with("thumbv7em")
        || (target.starts_with("thumbv8m.main")
            && (features.split(',').any(|f| f == "dsp")
                || flags_enable(&flags, DSP_CPUS, &["dsp"])));
    let mve = target.starts_with("thumbv8m.main")
        && (features.split(',').any(|f| f == "mve")
            || flags_enable(&flags, MVE_CPUS, &["mve", "mve.fp"]));
    if dsp || mve {
        println!("cargo:rustc-cfg=tinyaot_dsp");
    }
    if mve {
        println!("cargo:rustc-cfg=tinyaot_mve");
    }
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let abi = std::env::var("CARGO_CFG_TARGET_ABI").unwrap_or_default();
    if arch == "arm" && abi == "eabihf" {
        println!("cargo:rustc-cfg=tinyaot_vfp");
    }
}

/// Whether the rustc flags (`CARGO_ENCODED_RUSTFLAGS`: separated by 0x1f) enable the feature
/// (any of `names`), or else name a core that has it (one of `cpus`): an explicit `+name`/`-name`
/// (the last one) overrides the core's default, as in rustc.
fn flags_enable(encoded: &str, cpus: &[&str], names: &[&str]) -> bool {
    let flags: Vec<&str> = encoded.split('\x1f').collect();
    let (mut cpu, mut feature) = (false, None);
    let mut i = 0;
    while i < flags.len() {
        // `-C name=value`, `-Cname=value` or `--codegen name=value`.
        let (option, step) = match flags[i] {
            "-C" | "--codegen" => (flags.get(i + 1).copied().unwrap_or(""), 2),
            flag => (flag.strip_prefix("-C").unwrap_or(""), 1),
        };
        if let Some(name) = option.strip_prefix("target-cpu=") {
            cpu = cpus.contains(&name);
        } else if let Some(list) = option.strip_prefix("target-feature=") {
            for item in list.split(',') {
                if let Some(name) = item.strip_prefix('+') {
                    if names.contains(&name) {
                        feature = Some(true);
                    }
                } else if item.strip_prefix('-') == names.first().copied() {
                    // Only the base feature turns it off: `-mve.fp` leaves integer MVE.
                    feature = Some(false);
                }
            }
        }
        i += step;
    }
    feature.unwrap_or(cpu)
}

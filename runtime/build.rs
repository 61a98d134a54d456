//! Turns on the Cortex-M DSP-extension kernels (`cfg(tinyaot_dsp)`) for targets that always have
//! the extension: ARMv7E-M (`thumbv7em-*`: Cortex-M4 and M7). Everywhere else, Miri included, the
//! portable kernels compile; both compute the same bits.
//!
//! A build script rather than `cfg(target_feature = "dsp")`: rustc does not expose that Arm
//! feature to `cfg` on stable.

fn main() {
    println!("cargo:rustc-check-cfg=cfg(tinyaot_dsp)");
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.starts_with("thumbv7em") {
        println!("cargo:rustc-cfg=tinyaot_dsp");
    }
}

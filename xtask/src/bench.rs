//! `cargo xtask bench [--update-readme] [MODEL…]`: microseconds per inference on the host against
//! TFLM's reference kernels, from the release `bench` binary of `tinyaot-bench` (which runs
//! `../shared/tools/tflm_reference.py time` in the same run). A figure, not a test. With
//! `--update-readme` the output replaces the `bench` block of README.md, with the command that made
//! it.

use std::process::Command;

/// The models of the README's table.
const README_MODELS: &[&str] = &[
    "person_detect",
    "ds_cnn",
    "micro_speech_quantized",
    "hello_world_int8",
    "resnet8",
    "mobilenet_v2_035",
    "mobilenet_v2_quantized_1x3x224x224",
];

/// Runs the command with its arguments (after `bench`).
pub fn run(args: &[String]) -> Result<(), String> {
    let update_readme = args.iter().any(|a| a == "--update-readme");
    let mut models: Vec<&str> = args
        .iter()
        .filter(|a| *a != "--update-readme")
        .map(String::as_str)
        .collect();
    if let Some(flag) = models.iter().find(|m| m.starts_with('-')) {
        return Err(format!("bench: unknown argument `{flag}`"));
    }
    if update_readme && !models.is_empty() {
        // The README's table is the whole list; a subset would silently drop rows.
        return Err("--update-readme measures the README's model list: name no models".into());
    }
    if models.is_empty() {
        models = README_MODELS.to_vec();
    }
    let root = crate::workspace_root()?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let output = Command::new(cargo)
        .current_dir(&root)
        .args(["run", "--quiet", "--release", "-p", "tinyaot-bench", "--"])
        .args(&models)
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let table = String::from_utf8_lossy(&output.stdout).into_owned();
    print!("{table}");
    if !output.status.success() {
        return Err(format!(
            "the bench binary failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    if update_readme {
        crate::readme::replace_block(
            &root,
            "bench",
            &format!("```text\n$ cargo xtask bench --update-readme\n{}```", table),
        )?;
    }
    Ok(())
}

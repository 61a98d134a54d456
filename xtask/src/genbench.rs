//! `cargo xtask genbench`: how generation time and memory grow with the size of the model.
//!
//! Builds synthetic models with `tinyaot-modelkit` — chains of float RELUs (10k to 80k operators)
//! and one float FULLY_CONNECTED whose weights are 62 to 500 MB — and runs the release `tinyaot
//! rust` and `tinyaot c` on each in a child process, printing the wall time and the child's peak
//! resident memory (`ru_maxrss` from `wait4`; the models are built in other child processes so
//! that this one stays small, see [`make_in_child`]). A figure, not a test: nothing is asserted. With
//! `--update-readme` the table also replaces the block between `<!-- genbench:begin -->` and
//! `<!-- genbench:end -->` in README.md.
//!
//! The models are above the default limits on purpose where they must be (500 MB of weights is
//! above the default 256 MiB), so the runs pass the flags that raise them.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use tinyaot_modelkit::{BuiltinOperator, ModelSpec, Options, TensorSpec};

/// Operators in the chain models.
const CHAINS: [usize; 4] = [10_000, 20_000, 40_000, 80_000];
/// Constant megabytes (10^6 bytes) in the weight models.
const WEIGHTS_MB: [usize; 4] = [62, 125, 250, 500];
/// Input features of the FULLY_CONNECTED weight models: one weight row is 4 KiB.
const FEATURES: usize = 1024;

/// The limit flags every run passes: high enough for the largest model here.
const FLAGS: [&str; 6] = [
    "--max-operators",
    "1M",
    "--max-constant-bytes",
    "1G",
    "--max-tensor-bytes",
    "1G",
];

struct Row {
    model: String,
    size: String,
    backend: &'static str,
    seconds: f64,
    peak_mib: f64,
    output_mb: f64,
}

/// Runs the benchmark.
pub fn run(args: &[String]) -> Result<(), String> {
    if let [flag, kind, size, path] = args {
        if flag == "--make" {
            return make(kind, size, Path::new(path));
        }
    }
    let mut update_readme = false;
    let mut quick = false;
    for arg in args {
        match arg.as_str() {
            "--update-readme" => update_readme = true,
            // The two smallest models of each kind, for a quick look.
            "--quick" => quick = true,
            other => return Err(format!("genbench: unknown argument `{other}`")),
        }
    }
    let root = crate::workspace_root()?;
    let target = crate::target_dir(&root);
    let work = target.join("genbench");
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;

    eprintln!("genbench: building the release tinyaot");
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
        .args([
            "build",
            "--release",
            "-p",
            "tinyaot-cli",
            "--bin",
            "tinyaot",
        ])
        .current_dir(&root)
        .status()
        .map_err(|e| format!("cargo build: {e}"))?;
    if !status.success() {
        return Err("cargo build --release --bin tinyaot failed".to_string());
    }
    let tinyaot = target.join("release").join("tinyaot");

    let take = if quick { 2 } else { 4 };
    let mut rows = Vec::new();
    for &ops in &CHAINS[..take] {
        let path = work.join(format!("chain{ops}.tflite"));
        make_in_child(&work, "chain", ops, &path)?;
        rows.extend(measure(
            &tinyaot,
            &work,
            &path,
            "RELU chain".to_string(),
            format!("{}k ops", ops / 1000),
        )?);
    }
    for &mb in &WEIGHTS_MB[..take] {
        let path = work.join(format!("weights{mb}.tflite"));
        make_in_child(&work, "weights", mb * 1_000_000, &path)?;
        rows.extend(measure(
            &tinyaot,
            &work,
            &path,
            "FULLY_CONNECTED".to_string(),
            format!("{mb} MB"),
        )?);
        // Half a gigabyte per model: do not keep them around.
        let _ = std::fs::remove_file(&path);
    }

    let table = table(&rows);
    print!("{table}");
    if update_readme {
        crate::readme::replace_block(
            &root,
            "genbench",
            &format!("`cargo xtask genbench --update-readme`, on this 2-core machine:\n\n{table}"),
        )?;
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

/// Builds a model in a child process (`genbench --make KIND SIZE PATH`). Linux carries a process's
/// peak memory across `exec` (`ru_maxrss` is the larger of the old and the new image), and a
/// spawned child execs from this process's address space (or a copy of it): had this process built
/// a 500 MB model itself, every `tinyaot` it spawns afterwards would report at least its peak.
fn make_in_child(work: &Path, kind: &str, size: usize, path: &Path) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let status = Command::new(exe)
        .args(["genbench", "--make", kind, &size.to_string()])
        .arg(path)
        .current_dir(work)
        .status()
        .map_err(|e| format!("genbench --make: {e}"))?;
    if !status.success() {
        return Err(format!("genbench --make {kind} {size} failed"));
    }
    Ok(())
}

/// The child side of [`make_in_child`].
fn make(kind: &str, size: &str, path: &Path) -> Result<(), String> {
    let size: usize = size
        .parse()
        .map_err(|_| format!("genbench --make: bad size `{size}`"))?;
    let bytes = match kind {
        "chain" => ModelSpec::relu_chain(size, 16).to_bytes(),
        "weights" => weights(size),
        other => return Err(format!("genbench --make: unknown kind `{other}`")),
    };
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// One float FULLY_CONNECTED from `[1, FEATURES]` with about `bytes` bytes of weights, filled with
/// varied values (all-zero weights would flatter any encoding).
fn weights(bytes: usize) -> Vec<u8> {
    let units = (bytes / (4 * FEATURES)).max(1);
    let mut data = Vec::with_capacity(units * FEATURES * 4);
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..units * FEATURES {
        // xorshift; a small float with a varied mantissa.
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = ((x >> 40) as f32 / (1u64 << 24) as f32) - 0.5;
        data.extend_from_slice(&v.to_le_bytes());
    }
    let units = units as i32;
    let features = FEATURES as i32;
    ModelSpec::single_op(
        BuiltinOperator::FULLY_CONNECTED,
        Options::default_for(BuiltinOperator::FULLY_CONNECTED),
        vec![
            TensorSpec::f32(&[1, features]),
            TensorSpec::f32(&[units, features]).constant(data),
        ],
        vec![TensorSpec::f32(&[1, units])],
    )
    .to_bytes()
}

/// Runs `tinyaot rust` and `tinyaot c` on `model`.
fn measure(
    tinyaot: &Path,
    work: &Path,
    model: &Path,
    name: String,
    size: String,
) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for backend in ["rust", "c"] {
        let out = match backend {
            "rust" => work.join("out.rs"),
            _ => work.join("out_c"),
        };
        let mut command = Command::new(tinyaot);
        command
            .arg(backend)
            .arg(model)
            .arg("-o")
            .arg(&out)
            .args(FLAGS);
        let usage = crate::child::run(&mut command, Stdio::null(), Stdio::null())?;
        let (elapsed, peak_kib) = (usage.wall, usage.peak_kib);
        if !usage.ok {
            return Err(format!("{command:?} failed"));
        }
        let output_bytes = du(&out);
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_dir_all(&out);
        eprintln!(
            "genbench: {name} {size} {backend}: {:.2} s, {:.0} MiB",
            elapsed.as_secs_f64(),
            peak_kib as f64 / 1024.0
        );
        rows.push(Row {
            model: name.clone(),
            size: size.clone(),
            backend,
            seconds: elapsed.as_secs_f64(),
            peak_mib: peak_kib as f64 / 1024.0,
            output_mb: output_bytes as f64 / 1e6,
        });
    }
    Ok(rows)
}

/// Bytes of a file, or of the files in a directory.
fn du(path: &Path) -> u64 {
    if path.is_dir() {
        std::fs::read_dir(path)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum()
    } else {
        std::fs::metadata(path).map_or(0, |m| m.len())
    }
}

fn table(rows: &[Row]) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "| model | size | backend | wall time (s) | peak memory (MiB) | output (MB) |"
    );
    let _ = writeln!(t, "|---|---:|---|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            t,
            "| {} | {} | {} | {:.2} | {:.0} | {:.1} |",
            r.model, r.size, r.backend, r.seconds, r.peak_mib, r.output_mb
        );
    }
    t
}

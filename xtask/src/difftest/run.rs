//! One batch of cases through the three sides: TFLM (`xtask/difftest.py`, one Python process), the
//! Rust backend (one generated crate, every model a module, one `main` running them all) and the
//! C backend (one program, every model under its own prefix). TFLM runs while the Rust crate and
//! the C program compile. A case whose input files hold several invocations' values one after the
//! other (a model with state: [`Case::steps`]) runs them in order on one instance on every side,
//! each output file getting every invocation's values.
//!
//! The three runners share a crash-tolerant protocol: the program is told the cases to run, says
//! `start ID` before each and `ok ID` / `err ID MESSAGE` after; when it dies (abort, segfault, a
//! panic outside the per-case guard) or hangs, the case it was running is charged with it and the
//! program is restarted on the cases after it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tinyaot_codegen::{COptions, Config, Error};

use super::gen::Case;
use super::{CaseRun, Side, Work};

/// How long one run of a batch program may take before it is killed as hung.
const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// Runs `cases` through every side.
pub fn batch(work: &Work, cases: Vec<Case>) -> Result<Vec<CaseRun>, String> {
    let dir = work.dir.join("batch");
    let _ = std::fs::remove_dir_all(&dir);
    mkdir(&dir)?;
    let started = Instant::now();
    let mut runs = Vec::with_capacity(cases.len());
    let mut rust_sources = BTreeMap::new();
    let mut c_sources = BTreeMap::new();
    for case in cases {
        let cdir = dir.join(format!("c{}", case.index));
        mkdir(&cdir)?;
        let bytes = case.spec.to_bytes();
        write(&cdir.join("model.tflite"), &bytes)?;
        for (i, input) in case.inputs.iter().enumerate() {
            write(&cdir.join(format!("input{i}.bin")), input)?;
        }
        let id = case.index;
        let rust = match generate_guarded(|| {
            Config::new()
                .name(format!("M{id}"))
                .runtime_path("::tinyaot")
                .generate(&bytes, &format!("m{id}"))
        }) {
            Ok(source) => {
                rust_sources.insert(id, source);
                Side::Ran
            }
            Err(side) => side,
        };
        let c = match generate_guarded(|| {
            tinyaot_codegen::c_sources(
                &bytes,
                &COptions {
                    prefix: format!("m{id}"),
                    source_name: format!("m{id}.tflite"),
                },
            )
        }) {
            Ok(files) => {
                c_sources.insert(id, files);
                Side::Ran
            }
            Err(side) => side,
        };
        runs.push(CaseRun {
            case,
            dir: cdir,
            tflm: Side::Refused("not run".to_string()),
            rust,
            c,
        });
    }

    // TFLM in the background while the backends compile.
    let jobs: Vec<OracleJob> = runs
        .iter()
        .map(|r| OracleJob {
            id: r.case.index,
            dir: r.dir.clone(),
            inputs: r.case.inputs.len(),
            outputs: r.case.output_types.len(),
        })
        .collect();
    let script = work.root.join("xtask/difftest.py");
    let oracle_dir = dir.clone();
    let generated = started.elapsed();
    let oracle = std::thread::spawn(move || {
        let t = Instant::now();
        oracle(&script, &oracle_dir, &jobs).map(|r| (r, t.elapsed()))
    });

    let case_dirs: BTreeMap<u64, PathBuf> =
        runs.iter().map(|r| (r.case.index, r.dir.clone())).collect();
    let t = Instant::now();
    let rust_results = rust_backend(work, &rust_sources, &case_dirs);
    let rust_time = t.elapsed();
    let t = Instant::now();
    let c_results = c_backend(&dir.join("cbuild"), &c_sources, &case_dirs);
    let c_time = t.elapsed();
    let (tflm_results, tflm_time) = oracle
        .join()
        .map_err(|_| "the TFLM runner thread panicked".to_string())??;
    eprintln!(
        "difftest: batch of {}: generation {:.1} s, Rust build+run {:.1} s, C build+run {:.1} s, TFLM {:.1} s (in parallel)",
        runs.len(),
        generated.as_secs_f64(),
        rust_time.as_secs_f64(),
        c_time.as_secs_f64(),
        tflm_time.as_secs_f64()
    );

    let rust_results = rust_results?;
    let c_results = c_results?;
    for r in &mut runs {
        let id = r.case.index;
        if let Some(side) = tflm_results.get(&id) {
            r.tflm = side.clone();
        }
        if matches!(r.rust, Side::Ran) {
            r.rust = rust_results
                .get(&id)
                .cloned()
                .unwrap_or_else(|| Side::Broken("the Rust program did not run it".to_string()));
        }
        if matches!(r.c, Side::Ran) {
            r.c = c_results
                .get(&id)
                .cloned()
                .unwrap_or_else(|| Side::Broken("the C program did not run it".to_string()));
        }
    }
    Ok(runs)
}

/// Runs a generator, turning its refusals into [`Side::Refused`] and its panics and internal
/// errors (tinyaot's own bugs, which no model may trigger) into [`Side::Broken`].
fn generate_guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Side> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e @ Error::Internal { .. })) => Err(Side::Broken(format!("generator bug: {e}"))),
        Ok(Err(e)) => Err(Side::Refused(e.to_string())),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(Side::Broken(format!("generator panicked: {message}")))
        }
    }
}

fn mkdir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------------
// TFLM

struct OracleJob {
    id: u64,
    dir: PathBuf,
    inputs: usize,
    outputs: usize,
}

fn oracle(script: &Path, dir: &Path, jobs: &[OracleJob]) -> Result<BTreeMap<u64, Side>, String> {
    let mut results = BTreeMap::new();
    let mut remaining: &[OracleJob] = jobs;
    while !remaining.is_empty() {
        let list: Vec<serde_json::Value> = remaining
            .iter()
            .map(|j| {
                let path = |name: String| j.dir.join(name).to_string_lossy().into_owned();
                serde_json::json!({
                    "id": j.id,
                    "model": path("model.tflite".to_string()),
                    "inputs": (0..j.inputs).map(|i| path(format!("input{i}.bin"))).collect::<Vec<_>>(),
                    "outputs": (0..j.outputs).map(|i| path(format!("tflm{i}.bin"))).collect::<Vec<_>>(),
                })
            })
            .collect();
        let jobs_path = dir.join("tflm-jobs.json");
        let results_path = dir.join("tflm-results.jsonl");
        let stderr_path = dir.join("tflm-stderr.txt");
        write(
            &jobs_path,
            serde_json::Value::Array(list).to_string().as_bytes(),
        )?;
        let _ = std::fs::remove_file(&results_path);
        let stderr = std::fs::File::create(&stderr_path)
            .map_err(|e| format!("{}: {e}", stderr_path.display()))?;
        let mut child = Command::new("python3")
            .arg(script)
            .arg(&jobs_path)
            .arg(&results_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(stderr)
            .spawn()
            .map_err(|e| format!("cannot start python3: {e}"))?;
        let status = wait_with_timeout(&mut child, RUN_TIMEOUT);
        let text = std::fs::read_to_string(&results_path).unwrap_or_default();
        let mut running = None;
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(id) = v["id"].as_u64() else { continue };
            if v["start"].as_bool() == Some(true) {
                running = Some(id);
                continue;
            }
            running = None;
            let side = match v["status"].as_str() {
                Some("ok") => Side::Ran,
                Some("driver-error") => {
                    return Err(format!(
                        "xtask/difftest.py failed on case {id}: {}",
                        v["message"].as_str().unwrap_or("")
                    ))
                }
                _ => Side::Refused(v["message"].as_str().unwrap_or("refused").to_string()),
            };
            results.insert(id, side);
        }
        let Some(crashed) = running else {
            if results.len() < jobs.len() && !status.0 {
                let said = std::fs::read_to_string(&stderr_path).unwrap_or_default();
                return Err(format!(
                    "the TFLM runner failed ({}) before running a case: {}\n(needs `python3 -m pip install --pre tflite-micro numpy`)",
                    status.1,
                    said.trim()
                ));
            }
            break;
        };
        results.insert(
            crashed,
            Side::Refused(format!("TFLM crashed: {}", status.1)),
        );
        let at = remaining
            .iter()
            .position(|j| j.id == crashed)
            .map_or(remaining.len(), |p| p + 1);
        remaining = &remaining[at..];
    }
    Ok(results)
}

/// Waits for `child`, killing it after `timeout`. Returns (success, how it ended).
fn wait_with_timeout(child: &mut std::process::Child, timeout: Duration) -> (bool, String) {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return (status.success(), status.to_string()),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return (false, format!("killed after {} s", timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return (false, format!("wait failed: {e}")),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The batch programs' protocol

/// Runs `program` on `jobs` (id, case directory) with the start/ok/err protocol on stdout,
/// restarting it after a crash. Every job gets a side: ran, or broken with why.
fn run_program(
    program: &Path,
    scratch: &Path,
    jobs: &[(u64, PathBuf)],
) -> Result<BTreeMap<u64, Side>, String> {
    let mut results = BTreeMap::new();
    let mut remaining: &[(u64, PathBuf)] = jobs;
    while !remaining.is_empty() {
        let mut list = String::new();
        for (id, dir) in remaining {
            let _ = writeln!(list, "{id} {}", dir.display());
        }
        let stdin_path = scratch.join("jobs.txt");
        let stdout_path = scratch.join("run-stdout.txt");
        let stderr_path = scratch.join("run-stderr.txt");
        write(&stdin_path, list.as_bytes())?;
        let open = |p: &Path| std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()));
        let stdin = std::fs::File::open(&stdin_path)
            .map_err(|e| format!("{}: {e}", stdin_path.display()))?;
        let mut child = Command::new(program)
            .stdin(stdin)
            .stdout(open(&stdout_path)?)
            .stderr(open(&stderr_path)?)
            .spawn()
            .map_err(|e| format!("{}: {e}", program.display()))?;
        let status = wait_with_timeout(&mut child, RUN_TIMEOUT);
        let text = std::fs::read_to_string(&stdout_path).unwrap_or_default();
        let mut running = None;
        for line in text.lines() {
            let mut words = line.splitn(3, ' ');
            let (Some(word), Some(id)) = (words.next(), words.next()) else {
                continue;
            };
            let Ok(id) = id.parse::<u64>() else { continue };
            match word {
                "start" => running = Some(id),
                "ok" => {
                    running = None;
                    results.insert(id, Side::Ran);
                }
                "err" => {
                    running = None;
                    let why = words.next().unwrap_or("failed").to_string();
                    results.insert(id, Side::Broken(why));
                }
                _ => {}
            }
        }
        let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        let Some(crashed) = running else {
            if !status.0 {
                for (id, _) in remaining {
                    results.entry(*id).or_insert_with(|| {
                        Side::Broken(format!("the batch program failed: {}", status.1))
                    });
                }
            }
            break;
        };
        let last_lines: Vec<&str> = stderr.lines().rev().take(3).collect();
        results.insert(
            crashed,
            Side::Broken(format!(
                "crashed: {} {}",
                status.1,
                last_lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
            )),
        );
        let at = remaining
            .iter()
            .position(|(id, _)| *id == crashed)
            .map_or(remaining.len(), |p| p + 1);
        remaining = &remaining[at..];
    }
    Ok(results)
}

/// Case ids named in a compiler's messages: `m<ID>` followed by `.`, `_` (a file of the case) or
/// `::` (a Rust module path).
/// After a failed batch build: charges the cases the compiler's messages name with their first
/// error and drops them from `included`, so the build can be retried without them (returns true).
/// When the messages name no case, every included case is charged with `batch_failed` and none is
/// left to retry (returns false).
fn drop_failed_cases(
    stderr: &str,
    included: &mut BTreeSet<u64>,
    results: &mut BTreeMap<u64, Side>,
    batch_failed: &str,
    case_failed: &str,
) -> bool {
    let bad = ids_in(stderr, included);
    if bad.is_empty() {
        let why = format!("{batch_failed}: {}", first_error(stderr, 0));
        for id in std::mem::take(included) {
            results.insert(id, Side::Broken(why.clone()));
        }
        return false;
    }
    for id in bad {
        results.insert(
            id,
            Side::Broken(format!("{case_failed}: {}", first_error(stderr, id))),
        );
        included.remove(&id);
    }
    true
}

fn ids_in(text: &str, known: &BTreeSet<u64>) -> BTreeSet<u64> {
    let mut found = BTreeSet::new();
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if bytes[i] != b'm' || !boundary {
            continue;
        }
        let digits: String = text[i + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let after = text[i + 1 + digits.len()..].chars().next();
        if digits.is_empty() || !matches!(after, Some('.' | '_' | ':')) {
            continue;
        }
        if let Ok(id) = digits.parse() {
            if known.contains(&id) {
                found.insert(id);
            }
        }
    }
    found
}

/// The first compiler error line of `stderr` that mentions case `id` (or the first error).
fn first_error(stderr: &str, id: u64) -> String {
    let tag = format!("m{id}");
    let lines: Vec<&str> = stderr.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.contains(&tag) && (line.contains("error") || line.contains("warning")) {
            return line.trim().to_string();
        }
        if line.contains(&tag) {
            // rustc: "error…" then " --> src/m12.rs:…"
            if let Some(prev) = i.checked_sub(1).and_then(|p| lines.get(p)) {
                if prev.starts_with("error") || prev.starts_with("warning") {
                    return format!("{} {}", prev.trim(), line.trim());
                }
            }
        }
    }
    lines
        .iter()
        .find(|l| l.contains("error"))
        .map(|l| l.trim().to_string())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Rust

fn rust_backend(
    work: &Work,
    sources: &BTreeMap<u64, String>,
    dirs: &BTreeMap<u64, PathBuf>,
) -> Result<BTreeMap<u64, Side>, String> {
    let mut results = BTreeMap::new();
    if sources.is_empty() {
        return Ok(results);
    }
    let krate = work.dir.join("rust-crate");
    let src = krate.join("src");
    let _ = std::fs::remove_dir_all(&src);
    mkdir(&src)?;
    let manifest = format!(
        r#"# Generated by `cargo xtask difftest`: every model of a batch as a module of one program.
[package]
name = "difftest-batch"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
tinyaot = {{ path = "{}", default-features = false }}

[profile.release]
opt-level = 1
debug = false
incremental = false
codegen-units = 16

[profile.release.package.tinyaot-runtime]
opt-level = 3
"#,
        work.root.join("runtime/facade").display()
    );
    write_if_changed(&krate.join("Cargo.toml"), manifest.as_bytes())?;
    if !krate.join("Cargo.lock").exists() {
        let _ = std::fs::copy(work.root.join("Cargo.lock"), krate.join("Cargo.lock"));
    }
    for (id, source) in sources {
        write(&src.join(format!("m{id}.rs")), source.as_bytes())?;
    }
    let mut included: BTreeSet<u64> = sources.keys().copied().collect();
    let target = work.dir.join("rust-target");
    for _attempt in 0..5 {
        write(&src.join("main.rs"), rust_main(&included).as_bytes())?;
        let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string()))
            .args(["build", "--release", "--quiet", "--message-format", "short"])
            .current_dir(&krate)
            .env("CARGO_TARGET_DIR", &target)
            .env_remove("RUSTFLAGS")
            .output()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if output.status.success() {
            break;
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !drop_failed_cases(
            &stderr,
            &mut included,
            &mut results,
            "the Rust batch crate does not build",
            "generated Rust does not compile",
        ) {
            break;
        }
    }
    if included.is_empty() {
        return Ok(results);
    }
    let jobs: Vec<(u64, PathBuf)> = included
        .iter()
        .filter_map(|id| dirs.get(id).map(|d| (*id, d.clone())))
        .collect();
    let program = target.join("release/difftest-batch");
    results.extend(run_program(&program, &krate, &jobs)?);
    Ok(results)
}

fn rust_main(ids: &BTreeSet<u64>) -> String {
    let mut s = String::from(
        "//! Generated by `cargo xtask difftest`: runs each model named on stdin (`ID DIR`) on\n\
         //! DIR/input<i>.bin and writes DIR/rust<j>.bin.\n\
         #![allow(clippy::all, dead_code)]\n",
    );
    for id in ids {
        let _ = writeln!(s, "mod m{id};");
    }
    s.push_str(
        r#"
use std::io::{BufRead, Write};
use tinyaot::Model;

// Each input file holds one or more invocations' values, one after the other (a stateful model
// runs several on one instance); each output file gets every invocation's.
fn run<M: Model>(m: &mut M, dir: &str) -> Result<(), String> {
    let mut inputs = Vec::new();
    for i in 0..M::INPUTS {
        let path = format!("{dir}/input{i}.bin");
        inputs.push(std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?);
    }
    // The invocations: the first non-empty input's count (an empty one holds none).
    let steps = (0..M::INPUTS)
        .find(|&i| !m.input_bytes_mut(i).is_empty())
        .map_or(1, |i| inputs[i].len() / m.input_bytes_mut(i).len());
    let mut outputs = vec![Vec::new(); M::OUTPUTS];
    for step in 0..steps.max(1) {
        for (i, bytes) in inputs.iter().enumerate() {
            let dst = m.input_bytes_mut(i);
            let n = dst.len();
            if n * steps != bytes.len() {
                return Err(format!("input {i}: {} bytes, the model takes {n} per invocation", bytes.len()));
            }
            dst.copy_from_slice(&bytes[step * n..(step + 1) * n]);
        }
        m.invoke();
        for (j, out) in outputs.iter_mut().enumerate() {
            out.extend_from_slice(m.output_bytes(j));
        }
    }
    for (j, out) in outputs.iter().enumerate() {
        let path = format!("{dir}/rust{j}.bin");
        std::fs::write(&path, out).map_err(|e| format!("{path}: {e}"))?;
    }
    Ok(())
}

fn one(id: &str, dir: &str) -> Result<(), String> {
    match id {
"#,
    );
    for id in ids {
        let _ = writeln!(
            s,
            "        \"{id}\" => run(&mut *Box::new(m{id}::M{id}::new()), dir),"
        );
    }
    s.push_str(
        r#"        _ => Err(format!("no model {id}")),
    }
}

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Some((id, dir)) = line.split_once(' ') else { continue };
        let _ = writeln!(out, "start {id}");
        let _ = out.flush();
        let result = std::panic::catch_unwind(|| one(id, dir));
        let _ = match result {
            Ok(Ok(())) => writeln!(out, "ok {id}"),
            Ok(Err(e)) => writeln!(out, "err {id} {e}"),
            Err(_) => writeln!(out, "err {id} panicked (message on stderr)"),
        };
        let _ = out.flush();
    }
}
"#,
    );
    s
}

fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    write(path, bytes)
}

// ---------------------------------------------------------------------------------------------
// C

/// Host flags: the generated C's contract (warning-free C99), at -O1 to keep batches quick.
const C_FLAGS: &[&str] = &[
    "-std=c99",
    "-Wall",
    "-Wextra",
    "-Wpedantic",
    "-Werror",
    "-O1",
];

fn c_backend(
    dir: &Path,
    sources: &BTreeMap<u64, Vec<(String, String)>>,
    dirs: &BTreeMap<u64, PathBuf>,
) -> Result<BTreeMap<u64, Side>, String> {
    let mut results = BTreeMap::new();
    if sources.is_empty() {
        return Ok(results);
    }
    let _ = std::fs::remove_dir_all(dir);
    mkdir(dir)?;
    for files in sources.values() {
        for (name, text) in files {
            write(&dir.join(name), text.as_bytes())?;
        }
    }
    let mut included: BTreeSet<u64> = sources.keys().copied().collect();
    let program = dir.join("difftest-batch");
    let mut built = false;
    for _attempt in 0..5 {
        write(&dir.join("main.c"), c_main(&included).as_bytes())?;
        let mut files: Vec<String> = vec!["main.c".to_string()];
        for id in &included {
            for (name, _) in &sources[id] {
                if name.ends_with(".c") {
                    files.push(name.clone());
                }
            }
        }
        match c_build(dir, &files, &program) {
            Ok(()) => {
                built = true;
                break;
            }
            Err(stderr) => {
                if !drop_failed_cases(
                    &stderr,
                    &mut included,
                    &mut results,
                    "the C batch program does not build",
                    "generated C does not compile warning-free",
                ) {
                    break;
                }
            }
        }
    }
    if !built || included.is_empty() {
        return Ok(results);
    }
    let jobs: Vec<(u64, PathBuf)> = included
        .iter()
        .filter_map(|id| dirs.get(id).map(|d| (*id, d.clone())))
        .collect();
    results.extend(run_program(&program, dir, &jobs)?);
    Ok(results)
}

/// Compiles `files` (in `dir`) in two parallel halves, then links. Err carries the compilers'
/// messages.
fn c_build(dir: &Path, files: &[String], program: &Path) -> Result<(), String> {
    let half = files.len().div_ceil(2);
    let mut children = Vec::new();
    for chunk in files.chunks(half.max(1)) {
        let child = Command::new("cc")
            .args(C_FLAGS)
            .arg("-c")
            .args(chunk)
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run cc: {e}"))?;
        children.push(child);
    }
    let mut errors = String::new();
    for child in children {
        let out = child.wait_with_output().map_err(|e| format!("cc: {e}"))?;
        if !out.status.success() {
            errors.push_str(&String::from_utf8_lossy(&out.stderr));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let objects: Vec<String> = files
        .iter()
        .map(|f| format!("{}.o", f.trim_end_matches(".c")))
        .collect();
    let out = Command::new("cc")
        .args(&objects)
        .arg("-o")
        .arg(program)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run cc: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn c_main(ids: &BTreeSet<u64>) -> String {
    let mut s = String::from(
        "/* Generated by `cargo xtask difftest`: runs each model named on stdin (`ID DIR`) on\n \
         * DIR/input<i>.bin and writes DIR/c<j>.bin. */\n\
         #include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n",
    );
    for id in ids {
        let _ = writeln!(s, "#include \"m{id}.h\"");
    }
    s.push_str(
        r#"
typedef struct {
    long id;
    int (*invoke)(void);
    void *(*input)(int);
    size_t (*input_bytes)(int);
    const void *(*output)(int);
    size_t (*output_bytes)(int);
    int inputs;
    int outputs;
} model_t;

static const model_t MODELS[] = {
"#,
    );
    for id in ids {
        let _ = writeln!(
            s,
            "    {{{id}L, m{id}_invoke, m{id}_input, m{id}_input_bytes, m{id}_output, m{id}_output_bytes, M{id}_NUM_INPUTS, M{id}_NUM_OUTPUTS}},"
        );
    }
    s.push_str(
        r#"    {-1L, NULL, NULL, NULL, NULL, NULL, 0, 0}
};

static const char *run(const model_t *m, const char *dir)
{
    static char path[4200];
    int i;
    long step, steps = 1;
    /* Each input file holds one or more invocations' values, one after the other (a stateful
     * model runs several on one instance); each output file gets every invocation's. */
    /* The invocations: the first non-empty input's count (an empty one holds none). */
    for (i = 0; i < m->inputs && m->input_bytes(i) == 0; i++) {
    }
    if (i < m->inputs) {
        FILE *f;
        long first = i;
        sprintf(path, "%s/input%ld.bin", dir, first);
        f = fopen(path, "rb");
        if (f == NULL) {
            return "cannot open an input";
        }
        fseek(f, 0, SEEK_END);
        steps = ftell(f) / (long)m->input_bytes(i);
        fclose(f);
        if (steps < 1) {
            steps = 1;
        }
    }
    for (step = 0; step < steps; step++) {
        for (i = 0; i < m->inputs; i++) {
            unsigned char *dst = (unsigned char *)m->input(i);
            size_t want = m->input_bytes(i);
            size_t got;
            FILE *f;
            sprintf(path, "%s/input%d.bin", dir, i);
            f = fopen(path, "rb");
            if (f == NULL) {
                return "cannot open an input";
            }
            fseek(f, 0, SEEK_END);
            if (ftell(f) != (long)want * steps) {
                fclose(f);
                return "input size differs from input_bytes";
            }
            fseek(f, (long)want * step, SEEK_SET);
            got = want == 0 ? 0 : fread(dst, 1, want, f);
            fclose(f);
            if (got != want) {
                return "input size differs from input_bytes";
            }
        }
        /* 1: <PREFIX>_WAITING, a CIRCULAR_BUFFER still waiting for frames (TFLM's kTfLiteAbort:
         * the operators after it did not run, the outputs as they are). */
        if (m->invoke() > 1) {
            return "invoke returned neither 0 nor WAITING";
        }
        for (i = 0; i < m->outputs; i++) {
            size_t n = m->output_bytes(i);
            FILE *f;
            sprintf(path, "%s/c%d.bin", dir, i);
            f = fopen(path, step == 0 ? "wb" : "ab");
            if (f == NULL) {
                return "cannot create an output";
            }
            if (n != 0 && fwrite(m->output(i), 1, n, f) != n) {
                fclose(f);
                return "cannot write an output";
            }
            fclose(f);
        }
    }
    return NULL;
}

int main(void)
{
    static char line[4200];
    static char dir[4100];
    long id;
    while (fgets(line, sizeof line, stdin) != NULL) {
        const model_t *m = MODELS;
        const char *err;
        if (sscanf(line, "%ld %4099[^\n]", &id, dir) != 2) {
            continue;
        }
        printf("start %ld\n", id);
        fflush(stdout);
        while (m->id != -1L && m->id != id) {
            m++;
        }
        err = m->id == -1L ? "no such model" : run(m, dir);
        if (err == NULL) {
            printf("ok %ld\n", id);
        } else {
            printf("err %ld %s\n", id, err);
        }
        fflush(stdout);
    }
    return 0;
}
"#,
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_messages_name_their_cases() {
        let known: BTreeSet<u64> = [3, 12, 120].into_iter().collect();
        let rust = "error[E0308]: mismatched types\n --> src/m12.rs:4:5\n";
        assert_eq!(ids_in(rust, &known), [12].into_iter().collect());
        let c = "m120_conv.c:7:1: error: x\nm3.c:1: warning: y\nmodel: m7_x.c\nmm3.c";
        assert_eq!(ids_in(c, &known), [3, 120].into_iter().collect());
        assert!(first_error(rust, 12).contains("src/m12.rs"));
    }
}

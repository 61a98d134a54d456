//! C conformance: every model the Rust backend accepts (the four conformance suites) is generated
//! as C through the library, built with the host `cc -std=c99 -Wall -Wextra -Wpedantic -Werror
//! -O2` together with tests/c/driver.c, and run on TFLM's golden cases in order in one process
//! (state carries between cases, as on a device). Outputs must equal TFLM's byte for byte
//! (float32: within 1e-5 relative). The kernel cover of the models (`kernel_cover`: the fewest
//! that together call every C kernel function any of them calls) is also cross-compiled for a
//! Cortex-M4 with `arm-none-eabi-gcc` and must compile without a single diagnostic, each object
//! needing no library; when that compiler is not installed the test says so and skips only that
//! part, or, with `CI` set, fails. Without the shared data its models are skipped the same way.
//! Objects are compiled once per preprocessed text and shared between models (`object_cache`).
//!
//! That is CI's run (`CI` set). Outside CI, as in the README's `cargo test --workspace`, the test
//! takes the quick selection of models (`tinyaot_test_support::in_quick_selection`: no hostile
//! corners, one SEANet layer of each kind), generates the C of each, and builds and runs, for the
//! host only, their kernel cover: about a minute of a 2-core machine's compilers.
//!
//! Models the Rust backend refuses are skipped with the refusal printed: the Rust conformance test
//! decides whether a refusal is expected. A model the Rust backend accepts and the C backend
//! refuses is a failure.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use tinyaot_codegen::config::{c_outputs_with, c_sources};
use tinyaot_codegen::emit::c::COptions;
use tinyaot_codegen::plan::MemoryRegion;
use tinyaot_codegen::RustOptions;
use tinyaot_codegen::{Limits, Planning};
use tinyaot_test_support::{self as support, compare, load_cases, Tensor};
use tinyaot_tests::models::ENTRIES;
use tinyaot_tests::{DynModel, Outcome as RustOutcome};

use support::{arm_compiler_or_skip, ARM_CC, ARM_C_FLAGS as ARM_FLAGS, HOST_C_FLAGS as HOST_FLAGS};

#[path = "c_conformance/kernel_cover.rs"]
mod kernel_cover;
#[path = "c_conformance/object_cache.rs"]
mod object_cache;
use object_cache::ObjectCache;

/// The host's and the Cortex-M4's objects, shared by every model of this run and kept for the
/// next run of the same build (see [`object_cache`]).
fn object_caches() -> &'static (ObjectCache, ObjectCache) {
    static CACHES: std::sync::OnceLock<(ObjectCache, ObjectCache)> = std::sync::OnceLock::new();
    CACHES.get_or_init(|| {
        let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("tinyaot-c-objects");
        (
            ObjectCache::new(base.join("host"), "cc", HOST_FLAGS, |_| Ok(())),
            ObjectCache::new(base.join("arm"), ARM_CC, ARM_FLAGS, check_undefined_symbols),
        )
    })
}

/// A fresh scratch directory for test `name` of this run.
fn scratch(name: &str) -> PathBuf {
    support::scratch_dir("c", name)
}

#[test]
fn every_model_matches_tflm_as_c() {
    // Without the shared data, the repository's suites only (in CI: a failure).
    let suites = support::available_suites("the C conformance test");
    // Outside CI, the quick selection of models, built for the host only (see
    // `support::full_suites`); in CI every model, and the kernel cover cross-compiled for the
    // Cortex-M4 too.
    let full = support::full_suites();
    let arm =
        full && arm_compiler_or_skip("the C conformance test's Cortex-M4 cross-compile check");
    if !full {
        println!(
            "quick selection: the hostile corners, most SEANet layers, a build and run of every \
             model (not only the kernel cover) and the Cortex-M4 cross-compile run with {} set, \
             as in CI",
            support::CI_VAR
        );
    }
    let scratch = scratch("conformance");
    let mut jobs = Vec::new();
    for of_suite in &suites {
        let (suite, golden) = (of_suite.name, &of_suite.golden);
        // This run's selection; panics (fails the test) when the suite has no models.
        for model in of_suite.checked_model_files() {
            let stem = model
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("model")
                .to_string();
            let rust = ENTRIES
                .iter()
                .find(|e| e.suite == suite && e.name == stem)
                .and_then(|e| match e.outcome {
                    RustOutcome::Compiled(make) => Some(make),
                    RustOutcome::Refused(_) => None,
                });
            let dir = scratch.join(format!("{suite}_{stem}"));
            let golden = golden.join(&stem);
            jobs.push((format!("{suite}/{stem}"), model, golden, dir, rust));
        }
    }
    // Every model's C generated and written, on every core (a model only the C backend refuses
    // fails here, whatever the selection below).
    let generated = on_every_core(&jobs, |(_, model, _, dir, _)| {
        generate(model, dir, &Planning::default())
    });
    // The fewest models that together call every C kernel function any of them calls
    // (`kernel_cover`). Outside CI only they are built and run, for the host; in CI every model
    // is, and they are also cross-compiled for the Cortex-M4: each kernel function's object and
    // their models' own sources, where the others would add the same kernels compiled beside
    // other families' declarations.
    let cover = support::greedy_cover(
        &generated
            .iter()
            .map(kernel_cover::calls)
            .collect::<Vec<_>>(),
    );
    let chosen = cover.iter().filter(|&&taken| taken).count();
    println!(
        "kernel cover: {chosen} of {} models together call every C kernel function the {} call \
         (tests/tests/c_conformance/kernel_cover.rs); {}",
        jobs.len(),
        jobs.len(),
        if full {
            "every model built and run, the cover also cross-compiled for the Cortex-M4"
        } else {
            "they are built and run"
        }
    );
    let selected: Vec<usize> = (0..jobs.len()).filter(|&i| full || cover[i]).collect();
    let outcomes = on_every_core(&selected, |&i| {
        let (_, _, golden, dir, rust) = &jobs[i];
        match &generated[i] {
            Err(e) => Err(e.clone()),
            Ok(Generation::Skipped(why)) => Ok(Outcome::Skipped(why.clone())),
            Ok(Generation::Written(c)) => {
                build_and_run(c, golden, dir, arm && cover[i], *rust).map(Outcome::Passed)
            }
        }
    });
    let mut report = Vec::new();
    let mut failures = Vec::new();
    let mut ran = 0;
    for (&i, outcome) in selected.iter().zip(outcomes) {
        let (label, _, _, dir, _) = &jobs[i];
        match outcome {
            Ok(Outcome::Passed(summary)) => {
                ran += 1;
                report.push(format!("ok       {label}: {summary}"));
            }
            Ok(Outcome::Skipped(why)) => report.push(format!(
                "skipped  {label}: the Rust backend refuses it too: {why}"
            )),
            Err(e) => {
                report.push(format!(
                    "FAILED   {label}: {e} (files kept in {})",
                    dir.display()
                ));
                failures.push(format!("{label}: {e}"));
            }
        }
    }
    // A model left out of the selection whose generation failed is a failure all the same.
    for (i, (label, _, _, dir, _)) in jobs.iter().enumerate() {
        if let (false, Err(e)) = (full || cover[i], &generated[i]) {
            report.push(format!(
                "FAILED   {label}: {e} (files kept in {})",
                dir.display()
            ));
            failures.push(format!("{label}: {e}"));
        }
    }
    println!("{}", report.join("\n"));
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Every model the Rust backend compiled ran as C (a refusal by the C backend alone is a
    // failure above), and no other: the count is the Rust backend's, over the suites found here
    // (outside CI, over the models of the kernel cover).
    let compiled = if full {
        ENTRIES
            .iter()
            .filter(|e| suites.iter().any(|s| s.name == e.suite))
            .filter(|e| matches!(e.outcome, RustOutcome::Compiled(_)))
            .count()
    } else {
        selected.iter().filter(|&&i| jobs[i].4.is_some()).count()
    };
    assert_eq!(
        ran,
        compiled,
        "{ran} of the {} models selected ran as C; the Rust backend compiled {compiled}",
        selected.len()
    );
    // A selection that left nothing would pass the count above having checked nothing.
    assert!(ran > 0, "no model ran as C");
    println!("{ran} models ran as C and matched TFLM");
}

/// `work` on each of `items`, on every core; the results in the items' order.
fn on_every_core<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<R>>> =
        items.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else {
                    break;
                };
                let result = work(item);
                *results[i].lock().expect("no worker panics holding it") = Some(result);
            });
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .expect("no worker panics holding it")
                .expect("every item was taken by a worker")
        })
        .collect()
}

enum Outcome {
    Passed(String),
    Skipped(String),
}

/// The fixture models of `REGION_MODELS` planned with their memory regions: each region a static
/// with its section attribute, cross-compiled for the Cortex-M4 too, the outputs TFLM's.
#[test]
fn memory_regions_match_tflm_as_c() {
    let arm = arm_compiler_or_skip("the Cortex-M4 cross-compile of the models with memory regions");
    let scratch = scratch("regions");
    let mut failures = Vec::new();
    let mut ran = 0;
    assert!(!support::REGION_MODELS.is_empty());
    for (stem, regions) in support::REGION_MODELS {
        let fixtures = support::fixtures_dir();
        let model = fixtures.join("models").join(format!("{stem}.tflite"));
        let planning = Planning {
            regions: regions
                .iter()
                .map(|&(name, capacity, section)| MemoryRegion {
                    name: name.to_string(),
                    capacity,
                    section: section.to_string(),
                })
                .collect(),
            ..Planning::default()
        };
        let dir = scratch.join(stem);
        let golden = fixtures.join("golden").join(stem);
        match check_model(&model, &golden, &dir, arm, None, &planning) {
            Ok(Outcome::Passed(_)) => {
                ran += 1;
                let source = std::fs::read_to_string(dir.join("net.c")).unwrap_or_default();
                for (name, _, section) in *regions {
                    let attribute = format!("__attribute__((section(\"{section}\")))");
                    if !source.contains(&attribute)
                        || !source.contains(&format!("net_region_{name}"))
                    {
                        failures.push(format!("{stem}: no static for region {name}"));
                    }
                }
            }
            Ok(Outcome::Skipped(why)) => failures.push(format!("{stem}: skipped: {why}")),
            Err(e) => failures.push(format!("{stem}: {e} (files kept in {})", dir.display())),
        }
    }
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(ran, support::REGION_MODELS.len(), "models run with regions");
}

/// Generates `model`'s C with `planning` into `dir`, then builds and runs it (and, with `arm`,
/// cross-compiles it): [`generate`] then [`build_and_run`].
fn check_model(
    model: &Path,
    golden: &Path,
    dir: &Path,
    arm: bool,
    rust: Option<fn() -> Box<dyn DynModel>>,
    planning: &Planning,
) -> Result<Outcome, String> {
    match generate(model, dir, planning)? {
        Generation::Skipped(why) => Ok(Outcome::Skipped(why)),
        Generation::Written(c) => build_and_run(&c, golden, dir, arm, rust).map(Outcome::Passed),
    }
}

/// What [`generate`] made of a model.
enum Generation {
    /// The C, written.
    Written(GeneratedC),
    /// Both backends refuse the model (the Rust conformance test decides whether that is
    /// expected): the Rust backend's refusal.
    Skipped(String),
}

/// A model's C as written to its directory.
struct GeneratedC {
    /// The `.c` files.
    sources: Vec<PathBuf>,
    /// The kernel functions its `net.c` calls (`kernel_cover::calls_in`).
    calls: std::collections::BTreeSet<String>,
    /// The bytes of every file: the kernel cover takes the smaller model among equals.
    size: usize,
}

/// `model`'s C with `planning`, written to `dir`. A model the C backend refuses and the Rust
/// backend accepts is an error.
fn generate(model: &Path, dir: &Path, planning: &Planning) -> Result<Generation, String> {
    let bytes = std::fs::read(model).map_err(|e| format!("{}: {e}", model.display()))?;
    let name = model
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("model.tflite")
        .to_string();
    let options = COptions {
        prefix: "net".to_string(),
        source_name: name.clone(),
    };
    let files = c_outputs_with(&bytes, &options, &Limits::default(), planning).map(|files| {
        files
            .into_iter()
            .map(|(name, source)| (name, source.into_string()))
            .collect::<Vec<_>>()
    });
    let files = match files {
        Ok(files) => files,
        Err(c_error) => {
            let rust = tinyaot_codegen::rust_source(
                &bytes,
                &RustOptions {
                    name: "Model".to_string(),
                    runtime_path: "::tinyaot".to_string(),
                    source_name: name,
                },
            );
            return match rust {
                Err(rust_error) => Ok(Generation::Skipped(rust_error.to_string())),
                Ok(_) => Err(format!(
                    "the C backend refused a model the Rust backend accepts: {c_error}"
                )),
            };
        }
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut generated = GeneratedC {
        sources: Vec::new(),
        calls: Default::default(),
        size: 0,
    };
    for (file, contents) in &files {
        let path = dir.join(file);
        std::fs::write(&path, contents).map_err(|e| format!("{}: {e}", path.display()))?;
        generated.size += contents.len();
        if file == "net.c" {
            generated.calls.extend(kernel_cover::calls_in(contents));
        }
        if file.ends_with(".c") {
            generated.sources.push(path);
        }
    }
    Ok(Generation::Written(generated))
}

/// Builds `c` (generated into `dir`) for the host with tests/c/driver.c and runs it on the golden
/// cases; with `arm`, first cross-compiles its sources for the Cortex-M4. The run's summary.
fn build_and_run(
    c: &GeneratedC,
    golden: &Path,
    dir: &Path,
    arm: bool,
    rust: Option<fn() -> Box<dyn DynModel>>,
) -> Result<String, String> {
    let (host, cortex_m4) = object_caches();
    if arm {
        for source in &c.sources {
            cortex_m4.object(source, dir)?;
        }
    }
    let driver = support::workspace_root().join("tests/c/driver.c");
    let objects = c
        .sources
        .iter()
        .chain([&driver])
        .map(|source| host.object(source, dir))
        .collect::<Result<Vec<_>, _>>()?;
    let exe = dir.join("driver");
    let output = Command::new("cc")
        .args(&objects)
        .arg("-o")
        .arg(&exe)
        .output()
        .map_err(|e| format!("cannot run cc: {e}"))?;
    if !output.status.success() || !output.stderr.is_empty() {
        return Err(format!(
            "linking failed or warned:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    run_cases(&exe, golden, dir, rust)
}

/// The generated code needs no library: an object may only refer to the model's own functions,
/// the compiler's run-time helpers (`__aeabi_*`: soft double arithmetic on a single-precision FPU)
/// and the block moves GCC may emit by itself and requires of every environment (`memcpy`,
/// `memmove`, `memset`). `expf`, `malloc`, `printf` … would be a broken promise.
fn check_undefined_symbols(object: &Path) -> Result<(), String> {
    let output = Command::new("arm-none-eabi-nm")
        .arg("-u")
        .arg(object)
        .output()
        .map_err(|e| format!("cannot run arm-none-eabi-nm: {e}"))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let foreign: Vec<&str> = text
        .lines()
        .filter_map(|line| line.split_whitespace().last())
        .filter(|sym| {
            !sym.starts_with("net_")
                && !sym.starts_with("__aeabi_")
                && !["memcpy", "memmove", "memset"].contains(sym)
        })
        .collect();
    if foreign.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} needs symbols outside the generated code: {}",
            object.display(),
            foreign.join(", ")
        ))
    }
}

/// Random cases run after the golden ones (the first all-lowest, the second all-highest input
/// values), compared between C and the Rust runtime byte for byte.
const RANDOM_CASES: usize = 4;

/// One invocation: the input files and where the driver writes each output.
struct Case {
    inputs: Vec<PathBuf>,
    outputs: Vec<PathBuf>,
    /// TFLM's outputs, for the golden cases.
    golden: Option<Vec<Tensor>>,
    /// TFLM's invoke stopped early on the golden case (a CIRCULAR_BUFFER waiting for frames):
    /// the model must too, and its outputs are not compared with TFLM's.
    waiting: bool,
}

/// A small deterministic generator (xorshift64*): reproducible random inputs without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// The bytes of random input `k` of `bytes` bytes and `dtype`.
fn random_input(k: usize, dtype: &str, bytes: usize, rng: &mut Rng) -> Vec<u8> {
    if dtype == "float32" {
        (0..bytes / 4)
            .flat_map(|_| {
                let v = match k {
                    0 => -8.0f32,
                    1 => 8.0,
                    _ => (rng.next() >> 40) as f32 / (1u64 << 24) as f32 * 16.0 - 8.0,
                };
                v.to_le_bytes()
            })
            .collect()
    } else {
        (0..bytes)
            .map(|_| match k {
                0 => 0x80,
                1 => 0x7f,
                _ => (rng.next() >> 56) as u8,
            })
            .collect()
    }
}

/// The golden cases of the manifest in `golden`, then [`RANDOM_CASES`] random ones (written to
/// `dir`).
fn cases(golden: &Path, dir: &Path) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    let mut shapes = Vec::new();
    for (k, case) in load_cases(golden)?.into_iter().enumerate() {
        // The random cases take the dtypes and sizes of the last golden case's inputs.
        shapes = case
            .inputs
            .iter()
            .map(|input| (input.dtype.clone(), input.bytes.len()))
            .collect();
        cases.push(Case {
            inputs: case.inputs.into_iter().map(|input| input.path).collect(),
            outputs: (0..case.outputs.len())
                .map(|j| dir.join(format!("case{k}_output{j}.bin")))
                .collect(),
            golden: Some(case.outputs),
            waiting: case.waiting,
        });
    }
    let n_outputs = cases.first().map_or(0, |c| c.outputs.len());
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for r in 0..RANDOM_CASES {
        let k = cases.len();
        let mut inputs = Vec::new();
        for (i, (dtype, bytes)) in shapes.iter().enumerate() {
            let path = dir.join(format!("random{r}_input{i}.bin"));
            std::fs::write(&path, random_input(r, dtype, *bytes, &mut rng))
                .map_err(|e| format!("{}: {e}", path.display()))?;
            inputs.push(path);
        }
        cases.push(Case {
            inputs,
            outputs: (0..n_outputs)
                .map(|j| dir.join(format!("case{k}_output{j}.bin")))
                .collect(),
            golden: None,
            waiting: false,
        });
    }
    Ok(cases)
}

/// Runs every case through the driver in one process; compares the golden cases' outputs with
/// TFLM's and, when the Rust backend compiled the model, every case's outputs with the Rust
/// runtime's (run in the same order on one instance) byte for byte.
fn run_cases(
    exe: &Path,
    golden: &Path,
    dir: &Path,
    rust: Option<fn() -> Box<dyn DynModel>>,
) -> Result<String, String> {
    let cases = cases(golden, dir)?;
    let mut script = String::new();
    for case in &cases {
        for (i, input) in case.inputs.iter().enumerate() {
            script.push_str(&format!("in {i} {}\n", input.display()));
        }
        script.push_str("invoke\n");
        for (j, output) in case.outputs.iter().enumerate() {
            script.push_str(&format!("out {j} {}\n", output.display()));
        }
    }
    // After reset, the first case again: a fresh instance's outputs (the state's initial value).
    let after_reset: Vec<PathBuf> = match cases.first() {
        Some(first) => {
            script.push_str("reset\n");
            for (i, input) in first.inputs.iter().enumerate() {
                script.push_str(&format!("in {i} {}\n", input.display()));
            }
            script.push_str("invoke\n");
            (0..first.outputs.len())
                .map(|j| {
                    let path = dir.join(format!("after_reset_output{j}.bin"));
                    script.push_str(&format!("out {j} {}\n", path.display()));
                    path
                })
                .collect()
        }
        None => Vec::new(),
    };
    let mut child = Command::new(exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run the driver: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("driver has no stdin")?
        .write_all(script.as_bytes())
        .map_err(|e| format!("writing to the driver: {e}"))?;
    let output = child
        .wait_with_output()
        .map_err(|e| format!("waiting for the driver: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "the driver failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let read = |path: &Path| std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()));
    // One line per invoke: `ran`, or `waiting` where a CIRCULAR_BUFFER stopped it.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let waited: Vec<bool> = stdout.lines().map(|l| l == "waiting").collect();
    if waited.len() != cases.len() + usize::from(!after_reset.is_empty()) {
        return Err(format!(
            "the driver reported {} invokes for {} cases",
            waited.len(),
            cases.len()
        ));
    }
    let mut compared = 0;
    let mut golden_cases = 0;
    for (k, case) in cases.iter().enumerate() {
        let Some(want) = &case.golden else { continue };
        golden_cases += 1;
        if waited[k] != case.waiting {
            return Err(format!(
                "case {k}: net_invoke {} where TFLM's invoke {}",
                if waited[k] {
                    "returned NET_WAITING"
                } else {
                    "ran"
                },
                if case.waiting {
                    "returned kTfLiteAbort"
                } else {
                    "ran"
                }
            ));
        }
        if case.waiting {
            continue;
        }
        for (j, (got, want)) in case.outputs.iter().zip(want).enumerate() {
            compare(&want.dtype, &read(got)?, &want.bytes)
                .map_err(|e| format!("case {k} output {j}: {e}"))?;
            compared += want.bytes.len();
        }
    }
    if let Some(first) = cases.first() {
        // After reset the first case again: it stops or runs as it did, and what it ran
        // gives the same outputs.
        if waited[cases.len()] != waited[0] {
            return Err("case 0 run again after net_reset stopped or ran otherwise".into());
        }
        let outputs = if waited[0] {
            &[][..]
        } else {
            &first.outputs[..]
        };
        for (j, (again, before)) in after_reset.iter().zip(outputs).enumerate() {
            if read(again)? != read(before)? {
                return Err(format!(
                    "output {j} of case 0 run again after net_reset differs from the first run"
                ));
            }
        }
    }
    let mut summary = format!("{golden_cases} cases, {compared} output bytes as TFLM");
    if let Some(make) = rust {
        let rust_outputs = run_rust(make, &cases)?;
        for (k, (case, (ran, outputs))) in cases.iter().zip(&rust_outputs).enumerate() {
            if *ran == waited[k] {
                return Err(format!("case {k}: C and the Rust runtime stop differently"));
            }
            for (j, (got, want)) in case.outputs.iter().zip(outputs).enumerate() {
                let got = read(got)?;
                if let Some(i) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i))
                {
                    return Err(format!(
                        "case {k} output {j}: C and the Rust runtime differ ({} vs {} bytes), \
                         first at byte {i}",
                        got.len(),
                        want.len()
                    ));
                }
            }
        }
        summary.push_str(&format!(
            "; all {} cases ({RANDOM_CASES} random) identical to the Rust runtime",
            cases.len()
        ));
    }
    Ok(summary)
}

/// One case run by the Rust runtime: whether it ran to its end, and each output's bytes.
type RustCase = (bool, Vec<Vec<u8>>);

/// Whether the Rust runtime ran each of `cases` to its end, and its outputs, in order on one
/// instance (on a big stack: arenas
/// of the large models are megabytes).
fn run_rust(make: fn() -> Box<dyn DynModel>, cases: &[Case]) -> Result<Vec<RustCase>, String> {
    let inputs: Vec<Vec<Vec<u8>>> = cases
        .iter()
        .map(|c| c.inputs.iter().map(std::fs::read).collect::<Result<_, _>>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("reading inputs: {e}"))?;
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let mut model = make();
            let (_, n_out) = model.counts();
            let mut all = Vec::new();
            for case in &inputs {
                for (i, data) in case.iter().enumerate() {
                    let slot = model.input(i);
                    if slot.len() != data.len() {
                        return Err(format!(
                            "input {i}: {} bytes, model {}",
                            data.len(),
                            slot.len()
                        ));
                    }
                    slot.copy_from_slice(data);
                }
                let ran = model.invoke_ran();
                all.push((ran, (0..n_out).map(|j| model.output(j).to_vec()).collect()));
            }
            Ok(all)
        })
        .map_err(|e| format!("spawn: {e}"))?
        .join()
        .unwrap_or_else(|_| Err("the Rust model panicked".to_string()))
}

/// Two models with different prefixes build into one program and run side by side: every name the
/// C backend defines carries the prefix.
#[test]
fn two_models_link_into_one_program() {
    let root = support::workspace_root();
    let dir = scratch("two_models");
    std::fs::create_dir_all(&dir).expect("create directory");
    let mut sources = Vec::new();
    for (prefix, stem) in [("int8_net", "sine_mlp"), ("float_net", "sine_mlp_float")] {
        let model = root.join(format!("tests/fixtures/models/{stem}.tflite"));
        let bytes = std::fs::read(&model).unwrap_or_else(|e| panic!("{}: {e}", model.display()));
        sources.extend(write_c_sources(&dir, &bytes, prefix, stem));
    }
    let main = dir.join("main.c");
    std::fs::write(
        &main,
        "#include \"int8_net.h\"\n#include \"float_net.h\"\n\
         int main(void)\n{\n\
             *(int8_t *)int8_net_input(0) = 0;\n\
             *(float *)float_net_input(0) = 1.0f;\n\
             if (int8_net_invoke() != 0 || float_net_invoke() != 0) {\n        return 1;\n    }\n\
             return int8_net_output(0) != NULL && float_net_output(0) != NULL\n\
                 && INT8_NET_NUM_INPUTS == 1 && FLOAT_NET_NUM_OUTPUTS == 1 ? 0 : 2;\n}\n",
    )
    .expect("write main.c");
    let exe = compile_host_program(&dir, &sources, &main, &[], "both");
    let status = Command::new(&exe).status().expect("run the program");
    assert!(status.success(), "the two-model program failed: {status}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The operator hooks of the C backend: with `<PREFIX>_OPERATOR_BEGIN` / `_END` defined on the
/// command line, `invoke` calls them around each operator, in order, with its index and name.
#[test]
fn operator_hooks_wrap_every_operator() {
    let root = support::workspace_root();
    let dir = scratch("hooks");
    std::fs::create_dir_all(&dir).expect("create directory");
    // Two operators, one a RESHAPE-like op that shares its input's storage.
    let stem = "squeeze_expand_reshape";
    let model = root.join(format!("tests/fixtures/models/{stem}.tflite"));
    let bytes = std::fs::read(&model).unwrap_or_else(|e| panic!("{}: {e}", model.display()));
    let graph = tinyaot_codegen::config::load_and_fold(&bytes, &tinyaot_codegen::Limits::default())
        .expect("the fixture loads");
    let expected: String = graph
        .operators
        .iter()
        .enumerate()
        .map(|(i, op)| format!("+{i} {0}\n-{i} {0}\n", op.kind.name()))
        .collect();
    let sources = write_c_sources(&dir, &bytes, "net", stem);
    // The hook's prototype, included into every file (the model's net.c among them).
    let header = dir.join("hook.h");
    std::fs::write(
        &header,
        "void hook(int before, int index, const char *name);\n",
    )
    .expect("write hook.h");
    let main = dir.join("main.c");
    std::fs::write(
        &main,
        "#include <stdio.h>\n#include \"net.h\"\n\
         void hook(int before, int index, const char *name)\n{\n\
             printf(\"%c%d %s\\n\", before ? '+' : '-', index, name);\n}\n\
         int main(void)\n{\n    return net_invoke();\n}\n",
    )
    .expect("write main.c");
    let header_arg = header.display().to_string();
    let flags = [
        "-DNET_OPERATOR_BEGIN(i,n)=hook(1,i,n)",
        "-DNET_OPERATOR_END(i,n)=hook(0,i,n)",
        "-include",
        &header_arg,
    ];
    let exe = compile_host_program(&dir, &sources, &main, &flags, "hooks");
    let run = Command::new(&exe).output().expect("run the program");
    assert!(run.status.success(), "the program failed: {}", run.status);
    assert_eq!(String::from_utf8_lossy(&run.stdout), expected);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes the C files of model `bytes` under `prefix` into `dir`; returns the `.c` files.
fn write_c_sources(dir: &Path, bytes: &[u8], prefix: &str, stem: &str) -> Vec<PathBuf> {
    let options = COptions {
        prefix: prefix.to_string(),
        source_name: format!("{stem}.tflite"),
    };
    let files = c_sources(bytes, &options).unwrap_or_else(|e| panic!("{stem}: {e}"));
    support::write_generated(dir, &files)
}

/// Compiles `sources` and `main` with the host compiler (HOST_FLAGS plus `extra`) into
/// `dir/name`, failing the test on any error or warning.
fn compile_host_program(
    dir: &Path,
    sources: &[PathBuf],
    main: &Path,
    extra: &[&str],
    name: &str,
) -> PathBuf {
    let exe = dir.join(name);
    let mut args: Vec<&std::ffi::OsStr> = extra.iter().map(|f| f.as_ref()).collect();
    args.extend(["-I".as_ref(), dir.as_os_str()]);
    args.extend(sources.iter().map(|s| s.as_os_str()));
    args.push(main.as_os_str());
    support::compile_host_c(&args, &exe);
    exe
}

/// `tinyaot c`: the directory appears whole, a rerun replaces the files an earlier run generated
/// (removing kernels no longer needed) and leaves other files alone, and a refused model or a bad
/// prefix writes nothing.
#[test]
fn command_line_writes_whole_directories() {
    let root = support::workspace_root();
    let base = scratch("cli");
    std::fs::create_dir_all(&base).expect("create directory");
    let model = root.join("tests/fixtures/models/sine_mlp.tflite");
    let out = base.join("nested/out");
    let run =
        |args: &[&str]| -> i32 { tinyaot_cli::main(args.iter().map(|s| s.to_string()).collect()) };
    let model_arg = model.to_str().expect("UTF-8 path");
    let out_arg = out.to_str().expect("UTF-8 path");
    assert_eq!(run(&["c", model_arg, "-o", out_arg, "--prefix", "m1"]), 0);
    for name in ["m1.h", "m1.c", "m1_kernels.h", "m1_conv.c"] {
        assert!(out.join(name).is_file(), "{name} was not written");
    }
    // A stale kernel of an earlier run, and a file of the user's.
    std::fs::write(out.join("m1_pool.c"), "/* @generated by tinyaot 0.0.0 */\n").expect("write");
    std::fs::write(out.join("main.c"), "int main(void) { return 0; }\n").expect("write");
    assert_eq!(run(&["c", model_arg, "-o", out_arg, "--prefix", "m1"]), 0);
    assert!(
        !out.join("m1_pool.c").exists(),
        "a stale generated kernel was left behind"
    );
    assert!(out.join("main.c").is_file(), "a user file was removed");
    assert!(out.join("m1.c").is_file());

    // Refusals write nothing, and leave no temporary directory behind.
    let garbage = base.join("garbage.tflite");
    std::fs::write(&garbage, b"not a model at all").expect("write");
    let fresh = base.join("fresh");
    let fresh_arg = fresh.to_str().expect("UTF-8 path");
    assert_eq!(
        run(&["c", garbage.to_str().expect("UTF-8"), "-o", fresh_arg]),
        1
    );
    assert_eq!(
        run(&["c", model_arg, "-o", fresh_arg, "--prefix", "2bad"]),
        1
    );
    assert_eq!(run(&["c", model_arg]), 2);
    assert!(!fresh.exists(), "a refused model left output behind");
    let leftovers: Vec<_> = std::fs::read_dir(&base)
        .expect("list")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("tinyaot-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary directories left behind");
    let _ = std::fs::remove_dir_all(&base);
}

/// A RESHAPE-like op whose output the plan does not alias costs a copy (`<prefix>_copy.c`). No
/// model's plan needs one today, so this moves the outputs of every reshape-like op of a fixture to
/// fresh arena space and checks that the model still reproduces TFLM's outputs.
#[test]
fn unaliased_reshapes_are_copied() {
    use tinyaot_codegen::emit::{Layout, Location};
    use tinyaot_codegen::lower::CallKind;

    let root = support::workspace_root();
    for stem in ["squeeze_expand_reshape", "squeeze_expand_reshape_float"] {
        let model = root.join(format!("tests/fixtures/models/{stem}.tflite"));
        let bytes = std::fs::read(&model).unwrap_or_else(|e| panic!("{}: {e}", model.display()));
        let graph =
            tinyaot_codegen::config::load_and_fold(&bytes, &tinyaot_codegen::Limits::default())
                .expect("load");
        let plan = tinyaot_codegen::plan::plan_graph(&graph).expect("plan");
        let calls = tinyaot_codegen::lower::lower(&graph).expect("lower");
        let mut layout = Layout::from_plan(&graph, &plan);
        let mut moved = 0;
        for call in &calls {
            if let CallKind::Alias { output, .. } = call.kind {
                let offset = layout.arena_bytes.next_multiple_of(16);
                layout.locations[output] = Some(Location::Arena(offset));
                layout.arena_bytes = offset + graph.tensors[output].bytes;
                moved += 1;
            }
        }
        assert!(
            moved >= 3,
            "{stem}: expected three reshape-like ops, found {moved}"
        );
        let options = COptions {
            prefix: "net".to_string(),
            source_name: format!("{stem}.tflite"),
        };
        let files = tinyaot_codegen::emit::c::generate(&graph, &layout, &calls, &options)
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert!(
            files.iter().any(|(name, _)| name == "net_copy.c"),
            "{stem}: no copy kernel was emitted"
        );
        let dir = scratch(&format!("copies_{stem}"));
        let sources = support::write_generated(&dir, &files);
        let exe = dir.join("driver");
        let driver = root.join("tests/c/driver.c");
        let mut args: Vec<&std::ffi::OsStr> = vec!["-I".as_ref(), dir.as_os_str()];
        args.extend(sources.iter().map(|s| s.as_os_str()));
        args.push(driver.as_os_str());
        support::compile_host_c(&args, &exe);
        let golden = root.join("tests/fixtures/golden").join(stem);
        run_cases(&exe, &golden, &dir, None).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

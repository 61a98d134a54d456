//! `cargo xtask mcu`: every model, from both backends, on emulated microcontroller cores (QEMU).
//!
//! For each model: generate the Rust (`tinyaot_codegen::Config`) and the C (`c_sources`) once,
//! embed TFLM's golden cases, and for each core of `--core` (default `m4`; see [`crate::cores`])
//! build `examples/firmware-rust` (cargo, the core's Rust target, release) and
//! `examples/firmware-c` (the core's gcc, -O2), run each under the core's QEMU board with
//! `-icount shift=0`, compare every output with TFLM's bit for bit (on the target and again here),
//! and measure flash, RAM and instructions.
//!
//! One firmware per model, core and language, rather than one holding every model: each ELF then
//! holds exactly one model, so its sections and symbols *are* that model's flash and RAM, with no
//! attribution guesswork; the cost is a rebuild of the firmware crate per model (seconds, the
//! dependencies stay built, in one target directory per core). The harness's own share (start-up,
//! semihosting, formatting, timing) is measured once per core from the same firmwares built around
//! a do-nothing model (`baseline/`), and subtracted from the code column.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;
use tinyaot_codegen::config::{c_outputs_with, write_if_changed};
use tinyaot_codegen::emit::c::COptions;
use tinyaot_codegen::plan::MemoryRegion;
use tinyaot_codegen::{Config, Limits, Planning};

use crate::cores::{self, Core};
use crate::golden::{self, Case};
use crate::mcu_pipeline::{self, Pipeline};
use crate::measure::{self, Report, Sizes};
use crate::table::{self, CoreRun, Measured, Row};

mod firmware;
mod kernel_cover;
use firmware::{build_c, build_rust};

/// The models run by default, the README's tables: the fixture suite's CNNs and MLPs, the int8
/// reference models the backends accept, the stateful SVDF fixtures and keyword_scrambled, issue
/// 34's composite networks (a U-Net, an attention block, an unrolled GRU, a transformer) and BATCH_MATMUL at an attention layer's size, and int16 ("16x8") models: one SEANet layer of TFLM's integration suite per operator and the int16
/// fixtures of the operators tinyaot had when the tables were made (the fixtures of later
/// operators run with `--models fixtures`, every fixture, and `corners`). All fit
/// every board: mobilenet_v2_quantized_1x3x224x224, the largest, has 3.5 MB of weights in the
/// 4 MiB of code SRAM (the 8 MiB QSPI flash on the M55's board, 8 MiB on RV32's) and its
/// 2.4 MB arena in the 4 MiB of data SRAM (and takes about 40 s of emulation on the Cortex-M4 for
/// both languages and three cases). Then issue 35's: the keyword pipeline (the audio front end and
/// keyword model as one group, raw audio in: [`mcu_pipeline`]), SSD post-processing in both
/// suppression modes, a model with LUT-compressed weights and a CIRCULAR_BUFFER.
const DEFAULT_MODELS: &[&str] = &[
    "sine_mlp",
    "micro_speech_like",
    "ds_cnn",
    "resnet8",
    "mobilenet_v1_025",
    "mobilenet_v2_035",
    "mobilenet_pruned",
    "metadata_misaligned",
    "autoencoder",
    "hello_world_int8",
    "micro_speech_quantized",
    "person_detect",
    "mobilenet_v2_quantized_1x3x224x224",
    "add_sub_same_shape",
    "svdf_int8",
    "svdf_float",
    "keyword_scrambled",
    "keyword_scrambled_8bit",
    "ad_autoencoder",
    "vww_mobilenet_v1_025",
    "lstm",
    "trained_lstm_int8",
    "micro_speech_lstm",
    "tiny_unet",
    "attention_mha",
    "batch_matmul_heads",
    "gru_gesture",
    "transformer_kws",
    "seanet_conv0",
    "seanet_transpose_conv0",
    "seanet_add0",
    "seanet_sub0",
    "seanet_leaky_relu0",
    "seanet_pad0",
    "seanet_strided_slice0",
    "seanet_quantize0",
    "add_sub_mul_broadcast_int16",
    "add_sub_same_shape_int16",
    "autoencoder_int16",
    "lstm_int16",
    "concatenation_int16",
    "conv_dilation2_int16",
    "conv_int32_bias_int16",
    "conv_per_channel_int16",
    "conv_stride2_same_odd_int16",
    "depthwise_multiplier_int16",
    "ds_cnn_int16",
    "fc_int32_bias_int16",
    "fc_keep_num_dims_int16",
    "leaky_relu_int16",
    "logistic_int16",
    "maximum_minimum_int16",
    "mean_int16",
    "pad_int16",
    "pool_same_odd_int16",
    "quantize_swish_dequantize_int16",
    "relu_relu6_int16",
    "resnet8_int16",
    "sine_mlp_int16",
    "softmax_int16",
    "strided_slice_int16",
    "tanh_int16",
    "transpose_conv_int16",
    "transpose_int16",
    "streaming_kws",
    "streaming_kws_init",
    mcu_pipeline::NAME,
    "detection_postprocess_regular",
    "detection_postprocess_fast",
    "decode_lut",
    "circular_buffer_int8",
];

/// Where things are, and how the firmwares are built.
struct Paths {
    root: PathBuf,
    shared: PathBuf,
    work: PathBuf,
    /// The firmware crate's target directories, one per core under it.
    firmware_target: PathBuf,
    /// `--profile`: firmwares that report every operator's instructions.
    profile: bool,
    /// Plan with overlaps (the default; `--no-overlap` turns it off, to measure what they cost).
    overlap: bool,
    /// `--region NAME=SIZE`: memory regions besides the arena, each a static in linker section
    /// `.bss.region_NAME` (which both firmwares' link scripts put in `.bss`, zeroed at start-up).
    regions: Vec<MemoryRegion>,
}

/// A model to run: its file, its golden directory, and TFLM's arena for it if known; or the
/// keyword pipeline ([`mcu_pipeline`]), whose golden directory is its own.
struct Spec {
    name: String,
    tflite: PathBuf,
    golden: PathBuf,
    tflm_arena: Option<u64>,
    pipeline: Option<Pipeline>,
}

/// Runs the command with its arguments (after `mcu`).
pub fn run(args: &[String]) -> Result<(), String> {
    let mut names: Vec<String> = DEFAULT_MODELS.iter().map(|s| s.to_string()).collect();
    let mut timeout = Duration::from_secs(600);
    let mut update_readme = false;
    let mut profile = false;
    let mut overlap = true;
    let mut regions = Vec::new();
    let mut json_path: Option<PathBuf> = None;
    let mut models_named = false;
    let mut cores = vec![cores::m4()];
    let mut cover: Vec<&Core> = Vec::new();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut value = |flag: &str| {
            rest.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match arg.as_str() {
            "--update-readme" => update_readme = true,
            "--profile" => profile = true,
            "--no-overlap" => overlap = false,
            "--region" => regions.push(region(&value("--region")?)?),
            "--json" => json_path = Some(PathBuf::from(value("--json")?)),
            "--core" => cores = cores::parse(&value("--core")?)?,
            "--cover" => cover = cores::parse(&value("--cover")?)?,
            "--models" => {
                models_named = true;
                names = value("--models")?
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
            }
            "--timeout" => {
                let v = value("--timeout")?;
                let seconds: u64 = v
                    .parse()
                    .map_err(|_| format!("--timeout: `{v}` is not a number of seconds"))?;
                timeout = Duration::from_secs(seconds);
            }
            other => return Err(format!("mcu: unknown argument `{other}`")),
        }
    }
    if names.is_empty() {
        return Err("--models: no model named".into());
    }
    if update_readme && models_named {
        // The README's tables are the whole default list; a subset would silently drop rows.
        return Err("--update-readme measures the default model list: drop --models".into());
    }
    if update_readme && !overlap {
        // The README shows what users get: the default plan.
        return Err("--no-overlap and --update-readme do not go together".into());
    }
    if update_readme && !cover.is_empty() {
        return Err(
            "--cover and --update-readme do not go together: the tables are every model's".into(),
        );
    }
    if let Some(core) = cover
        .iter()
        .find(|c| !cores.iter().any(|r| r.name == c.name))
    {
        return Err(format!(
            "--cover {}: not among the cores of --core",
            core.name
        ));
    }
    if update_readme && !regions.is_empty() {
        return Err("--region and --update-readme do not go together".into());
    }
    if !regions.is_empty() && !models_named {
        // The firmware builds a model with regions on its stack before moving it to its static:
        // fine for the fixture CNNs, not for a model with a megabyte arena.
        return Err("--region needs --models (models whose arena fits on the stack)".into());
    }
    // ARMv6-M and RV32IMC have no atomic compare-and-swap.
    let atomic_swap = |c: &Core| {
        !matches!(
            c.rust_target,
            "thumbv6m-none-eabi" | "riscv32imc-unknown-none-elf"
        )
    };
    if let Some(core) = cores.iter().find(|c| !atomic_swap(c)) {
        if !regions.is_empty() {
            return Err(format!(
                "--region: the {} firmware takes each region's static with `Model::take`, which \
                 needs atomic compare-and-swap; run it on m4, m7, m33 or m55",
                core.name
            ));
        }
    }
    if update_readme && !cores::extra_c_flags().is_empty() {
        // The README's tables are the C as users build it.
        return Err(format!(
            "{} and --update-readme do not go together",
            cores::EXTRA_C_FLAGS_VAR
        ));
    }
    if update_readme && profile {
        // The hooks cost instructions and code: the table of a profiling run is not the README's.
        return Err("--profile and --update-readme do not go together".into());
    }
    // The README has the Cortex-M4's table, and the summary of every core, which only a run of
    // every core writes.
    let all_cores = cores.len() == cores::CORES.len();
    if update_readme && !cores.iter().any(|c| c.name == "m4") {
        return Err(
            "--update-readme writes the Cortex-M4's table (m4 must be among the cores) and, with \
             --core all, the summary of every core"
                .into(),
        );
    }

    let mut paths = paths()?;
    paths.profile = profile;
    paths.overlap = overlap;
    paths.regions = regions;
    check_tools(&cores)?;
    let specs = expand_sets(&paths.root.join("tests/fixtures"), &names)?
        .iter()
        .map(|name| spec(&paths, name))
        .collect::<Result<Vec<_>, _>>()?;
    std::fs::create_dir_all(&paths.work).map_err(|e| format!("{}: {e}", paths.work.display()))?;

    let started = Instant::now();
    let mut runs = Vec::new();
    for &core in &cores {
        println!(
            "{}: each firmware runs as: {} {}   (killed after {} s)",
            core.name,
            core.qemu_command().join(" "),
            paths
                .work
                .join(core.name)
                .join("MODEL/{rust,c}/firmware.elf")
                .display(),
            timeout.as_secs()
        );
        eprintln!(
            "{}: harness baseline: building both firmwares around a do-nothing model",
            core.name
        );
        runs.push(CoreRun {
            core,
            harness: baseline(&paths, core, timeout)?,
            rows: Vec::new(),
        });
    }

    // Cores run side by side, one worker each up to the machine's parallelism: each core has a
    // work directory and a Rust target directory of its own, so their builds never share a lock.
    // A model is generated once, by the first core that reaches it.
    let prepared: Vec<OnceLock<Result<Prepared, String>>> =
        specs.iter().map(|_| OnceLock::new()).collect();
    let parallelism = std::thread::available_parallelism().map_or(1, |n| n.get());
    // --cover: every model generated first (one per available CPU, as the cores run below), for
    // the kernels each one calls.
    let in_cover = if cover.is_empty() {
        vec![true; specs.len()]
    } else {
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..parallelism.min(specs.len()) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let (Some(spec), Some(cell)) = (specs.get(i), prepared.get(i)) else {
                        break;
                    };
                    cell.get_or_init(|| prepare(spec, paths.overlap, &paths.regions));
                });
            }
        });
        let sources: Vec<Option<&str>> = prepared
            .iter()
            .map(|p| match p.get() {
                Some(Ok(Prepared {
                    rust: Ok((source, _)),
                    ..
                })) => Some(source.as_str()),
                _ => None,
            })
            .collect();
        let in_cover = kernel_cover::cover(&sources);
        let names: Vec<&str> = specs
            .iter()
            .zip(&in_cover)
            .filter(|(_, &chosen)| chosen)
            .map(|(spec, _)| spec.name.as_str())
            .collect();
        let core_names: Vec<&str> = cover.iter().map(|c| c.name).collect();
        eprintln!(
            "{}: the {} of the {} models that call every kernel the list calls: {}",
            core_names.join(", "),
            names.len(),
            specs.len(),
            names.join(", ")
        );
        in_cover
    };
    let workers = parallelism.min(runs.len());
    let next_run = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let cells: Vec<Mutex<CoreRun>> = runs.into_iter().map(Mutex::new).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(cell) = cells.get(next_run.fetch_add(1, Ordering::Relaxed)) {
                    let mut run = cell.lock().unwrap_or_else(|e| e.into_inner());
                    let covered = cover.iter().any(|c| c.name == run.core.name);
                    for ((spec, prepared), _) in specs
                        .iter()
                        .zip(&prepared)
                        .zip(&in_cover)
                        .filter(|(_, &chosen)| chosen || !covered)
                    {
                        let prepared =
                            prepared.get_or_init(|| prepare(spec, paths.overlap, &paths.regions));
                        let t = Instant::now();
                        let row = match prepared {
                            Ok(model) => {
                                run_model(&paths, run.core, spec, model, run.harness, timeout)
                            }
                            Err(e) => Row {
                                errors: vec![("model", e.clone())],
                                ..empty_row(spec)
                            },
                        };
                        for (lang, error) in &row.errors {
                            failures
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push(format!(
                                    "{} ({}, {lang}): {error}",
                                    spec.name, run.core.name
                                ));
                        }
                        eprintln!(
                            "{} [{}]: {} ({:.0} s)",
                            spec.name,
                            run.core.name,
                            if row.errors.is_empty() {
                                "rust and c bit-exact with TFLM"
                            } else {
                                "FAILED"
                            },
                            t.elapsed().as_secs_f64()
                        );
                        run.rows.push(row);
                    }
                }
            });
        }
    });
    let runs: Vec<CoreRun> = cells
        .into_iter()
        .map(|cell| cell.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect();
    let failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    println!();
    if let Some(path) = &json_path {
        let per_core: Vec<Value> = runs
            .iter()
            .map(|r| table::json(&r.rows, r.harness, r.core))
            .collect();
        let value = match &per_core[..] {
            [one] => one.clone(),
            _ => serde_json::json!({ "cores": per_core }),
        };
        let text = serde_json::to_string_pretty(&value).map_err(|e| format!("--json: {e}"))?;
        std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    let (mut m4_table, mut m55_table) = (None, None);
    for run in &runs {
        let rendered = table::render(&run.rows, run.harness, run.core);
        println!(
            "{} ({} on {}):\n",
            run.core.title, run.core.name, run.core.machine
        );
        if profile {
            println!(
                "Profiled firmwares: the operator hooks add a few instructions to every operator \
                 and some code, so the table below is not comparable to the README's."
            );
            for row in &run.rows {
                print!("{}", table::render_profile(row));
            }
            println!();
        }
        println!("{rendered}");
        match run.core.name {
            "m4" => m4_table = Some((rendered, passed(&run.rows))),
            "m55" => m55_table = Some((rendered, passed(&run.rows))),
            _ => {}
        }
    }
    let summary = table::render_cores(&runs);
    if runs.len() > 1 {
        println!("Every core:\n\n{summary}");
    }
    // One run per model, core and language; the last line has the form CI log readers count.
    let passed: usize = runs.iter().map(|r| passed(&r.rows)).sum();
    let total: usize = runs.iter().map(|r| 2 * r.rows.len()).sum();
    let models = match in_cover.iter().filter(|&&chosen| chosen).count() {
        n if n == specs.len() => specs.len().to_string(),
        n => format!("{} (--cover: {n})", specs.len()),
    };
    println!(
        "{models} models x {} core(s) x Rust and C in {:.0} s\nmcu: {passed} passed, {} failed",
        runs.len(),
        started.elapsed().as_secs_f64(),
        total - passed
    );
    if failures.is_empty() {
        if update_readme {
            if let Some((table, passed)) = m4_table {
                crate::readme::replace_block(
                    &paths.root,
                    "mcu",
                    &format!(
                        "`cargo xtask mcu --update-readme` (`mcu: {passed} passed, 0 failed`):\
                         \n\n{table}"
                    ),
                )?;
            }
            // The Cortex-M55's table, with CMSIS-NN's Helium kernels beside it (issue 37).
            if let Some((table, passed)) = m55_table {
                crate::readme::replace_block(
                    &paths.root,
                    "mcu-m55",
                    &format!(
                        "`cargo xtask mcu --core {cores} --update-readme` (the Cortex-M55's \
                         `mcu: {passed} passed, 0 failed`):\n\n{table}",
                        cores = table::cores_argument(&runs, all_cores)
                    ),
                )?;
            }
            if all_cores {
                crate::readme::replace_block(
                    &paths.root,
                    "mcu-cores",
                    &format!(
                        "`cargo xtask mcu --core all --update-readme` (`mcu: {passed} passed, 0 \
                         failed`):\n\n{summary}"
                    ),
                )?;
            }
        }
        Ok(())
    } else {
        Err(format!(
            "{} failures:\n  {}",
            failures.len(),
            failures.join("\n  ")
        ))
    }
}

/// Firmwares that passed in `rows`: one per row and language.
fn passed(rows: &[Row]) -> usize {
    rows.iter()
        .map(|r| usize::from(r.rust.is_some()) + usize::from(r.c.is_some()))
        .sum()
}

fn paths() -> Result<Paths, String> {
    let root = crate::workspace_root()?;
    let shared = tinyaot_test_support::find_shared_dir()?;
    let target = crate::target_dir(&root);
    Ok(Paths {
        shared: shared
            .canonicalize()
            .map_err(|e| format!("{}: {e}", shared.display()))?,
        work: target.join("mcu"),
        firmware_target: target.join("mcu").join("firmware-rust-target"),
        root,
        profile: false,
        overlap: true,
        regions: Vec::new(),
    })
}

/// `NAME=SIZE` of `--region`: a memory region in section `.bss.region_NAME`.
fn region(value: &str) -> Result<MemoryRegion, String> {
    let (name, size) = value
        .split_once('=')
        .ok_or_else(|| format!("--region {value}: expected NAME=SIZE, e.g. dtcm=16K"))?;
    let (digits, scale) = match size.strip_suffix(['K', 'k']) {
        Some(digits) => (digits, 1024),
        None => (size, 1),
    };
    let bytes: usize = digits
        .parse()
        .map_err(|_| format!("--region {value}: `{size}` is not a size (bytes, or K)"))?;
    Ok(MemoryRegion {
        name: name.to_string(),
        capacity: bytes * scale,
        section: format!(".bss.region_{name}"),
    })
}

/// Fails early, with the install line, when a tool a core needs is missing.
fn check_tools(cores: &[&Core]) -> Result<(), String> {
    for core in cores {
        let readelf = format!("{}readelf", core.binutils);
        let nm = format!("{}nm", core.binutils);
        for tool in [core.qemu, core.cc, &readelf, &nm] {
            let found = Command::new(tool)
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if !found {
                return Err(format!(
                    "`{tool}` is not installed ({}): apt-get install -y {} (and rustup target \
                     add {})",
                    core.name, core.apt, core.rust_target
                ));
            }
        }
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let sysroot = Command::new(rustc)
            .args(["--print", "sysroot"])
            .output()
            .map_err(|e| format!("cannot run rustc: {e}"))?;
        let sysroot = String::from_utf8_lossy(&sysroot.stdout).trim().to_string();
        if !Path::new(&sysroot)
            .join("lib/rustlib")
            .join(core.rust_target)
            .is_dir()
        {
            return Err(format!(
                "the {0} standard library is not installed ({1}): rustup target add {0}",
                core.rust_target, core.name
            ));
        }
    }
    Ok(())
}

/// `--models` with its two sets spelled out: `fixtures`, every model of
/// tests/fixtures/models.json in its order, and `corners`, every accepted corner of the hostile
/// suite that has TFLM's goldens (tests/fixtures/hostile/golden). Each name once, first mention
/// first: the lists an operator's change is checked on, without typing them.
fn expand_sets(fixtures: &Path, names: &[String]) -> Result<Vec<String>, String> {
    let mut expanded: Vec<String> = Vec::new();
    for name in names {
        let set: Vec<String> = match name.as_str() {
            "fixtures" => {
                let list = fixtures.join("models.json");
                let text = std::fs::read(&list).map_err(|e| format!("{}: {e}", list.display()))?;
                let json: Value = serde_json::from_slice(&text)
                    .map_err(|e| format!("{}: {e}", list.display()))?;
                json["models"]
                    .as_array()
                    .ok_or_else(|| format!("{}: no `models` array", list.display()))?
                    .iter()
                    .map(|m| {
                        m["name"]
                            .as_str()
                            .map(str::to_string)
                            .ok_or_else(|| format!("{}: a model without a name", list.display()))
                    })
                    .collect::<Result<_, _>>()?
            }
            "corners" => {
                let golden = fixtures.join("hostile/golden");
                let entries =
                    std::fs::read_dir(&golden).map_err(|e| format!("{}: {e}", golden.display()))?;
                let mut corners = Vec::new();
                for entry in entries {
                    let entry = entry.map_err(|e| format!("{}: {e}", golden.display()))?;
                    if entry.path().is_dir() {
                        corners.push(entry.file_name().to_string_lossy().into_owned());
                    }
                }
                corners.sort();
                corners
            }
            _ => vec![name.clone()],
        };
        for model in set {
            if !expanded.contains(&model) {
                expanded.push(model);
            }
        }
    }
    Ok(expanded)
}

/// Finds `name` among the fixtures, then among ../shared's reference models, then among the
/// hostile suite's accepted corners (their goldens by TFLM too: the kernels' corner paths on the
/// cores' own code, e.g. windows wholly outside the image), then among TFLM's integration suite
/// (../shared/models/tflm_suite), then among TFLM's audio front ends
/// (../shared/models/audio_frontend); [`mcu_pipeline::NAME`] is the keyword pipeline.
fn spec(paths: &Paths, name: &str) -> Result<Spec, String> {
    let fixtures = paths.root.join("tests/fixtures");
    let hostile = fixtures.join("hostile");
    let suite = paths.shared.join("models/tflm_suite");
    let frontend = paths.shared.join("models/audio_frontend");
    if name == mcu_pipeline::NAME {
        let (pipeline, golden) = Pipeline::new(&paths.root, &paths.shared);
        return Ok(Spec {
            name: name.to_string(),
            tflite: pipeline.keyword.clone(),
            golden,
            tflm_arena: None,
            pipeline: Some(pipeline),
        });
    }
    // Each place: its models, its goldens, and where TFLM's arena size is recorded (if anywhere).
    type Arena = fn(&Path, &str) -> Option<u64>;
    let places = [
        (
            fixtures.join("models"),
            fixtures.join("golden"),
            Some((fixture_tflm_arena as Arena, fixtures.as_path())),
        ),
        (
            paths.shared.join("models"),
            paths.shared.join("models/golden"),
            Some((shared_tflm_arena as Arena, paths.shared.as_path())),
        ),
        (hostile.join("models"), hostile.join("golden"), None),
        (suite.clone(), suite.join("golden"), None),
        (frontend.clone(), frontend.join("golden"), None),
    ];
    let mut looked = Vec::new();
    for (models, golden, arena) in &places {
        let tflite = models.join(format!("{name}.tflite"));
        if tflite.is_file() {
            return Ok(Spec {
                name: name.to_string(),
                tflite,
                golden: golden.join(name),
                tflm_arena: arena.and_then(|(arena, dir)| arena(dir, name)),
                pipeline: None,
            });
        }
        looked.push(tflite.display().to_string());
    }
    let last = looked.pop().unwrap_or_default();
    Err(format!(
        "no model `{name}`: none of {} and {last} exists",
        looked.join(", ")
    ))
}

/// `tflm_arena.total` of the model in tests/fixtures/models.json.
fn fixture_tflm_arena(fixtures: &Path, name: &str) -> Option<u64> {
    let json: Value =
        serde_json::from_slice(&std::fs::read(fixtures.join("models.json")).ok()?).ok()?;
    json["models"]
        .as_array()?
        .iter()
        .find(|m| m["name"] == name)?["tflm_arena"]["total"]
        .as_u64()
}

/// The total of the TFLM arena column of ../shared/models/README.md's table
/// (`| name.tflite | … | 85,264 / 55,296 / 29,968 |`).
fn shared_tflm_arena(shared: &Path, name: &str) -> Option<u64> {
    readme_tflm_arena(
        &std::fs::read_to_string(shared.join("models/README.md")).ok()?,
        name,
    )
}

fn readme_tflm_arena(text: &str, name: &str) -> Option<u64> {
    let row = text
        .lines()
        .find(|l| l.starts_with(&format!("| {name}.tflite |")))?;
    let cell = row.trim_end_matches('|').rsplit('|').next()?;
    cell.split('/').next()?.trim().replace(',', "").parse().ok()
}

/// Both firmwares built for `core` around the do-nothing model of their `baseline/` directories:
/// the harness's own flash and RAM.
fn baseline(paths: &Paths, core: &Core, timeout: Duration) -> Result<[Sizes; 2], String> {
    let work = paths.work.join(core.name);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let rust_dir = paths.root.join("examples/firmware-rust/baseline");
    let rust_elf = build_rust(
        paths,
        core,
        &rust_dir,
        &work.join("baseline-rust.elf"),
        false,
    )?;
    let c_dir = paths.root.join("examples/firmware-c/baseline");
    let c_elf = build_c(paths, core, &c_dir, &work.join("baseline-c.elf"))?;
    let mut sizes = [Sizes::default(); 2];
    for (i, elf) in [rust_elf, c_elf].iter().enumerate() {
        let report = Report::parse(&run_qemu(elf, timeout, core)?, core)?;
        if !report.passed {
            return Err(format!("{}: the baseline firmware failed", elf.display()));
        }
        sizes[i] = measure::sizes(elf, &|_| false, core)?;
    }
    Ok(sizes)
}

/// A model as every core builds it: generated once.
struct Prepared {
    cases: Vec<Case>,
    macs: u64,
    /// The liveness lower bound of the model's arena (the plan without overlaps).
    bound: u64,
    /// The generated Rust and the constant bytes it states, or why generation failed.
    rust: Result<(String, u64), String>,
    /// The generated C files, or why generation failed.
    c: Result<Vec<(String, String)>, String>,
    /// The C prefixes of the models, whose constants are the weights.
    c_prefixes: &'static [&'static str],
}

/// Loads `spec`'s model and golden cases and generates its Rust and C, planned with or without
/// `overlap`.
fn prepare(spec: &Spec, overlap: bool, regions: &[MemoryRegion]) -> Result<Prepared, String> {
    let planning = Planning {
        overlap,
        regions: regions.to_vec(),
        ..Planning::default()
    };
    if let Some(pipeline) = &spec.pipeline {
        let (macs, bound) = pipeline.macs_and_bound()?;
        return Ok(Prepared {
            cases: golden::read(&spec.golden)?,
            macs,
            bound,
            rust: pipeline.rust(&planning),
            c: pipeline.c(&planning),
            c_prefixes: mcu_pipeline::C_PREFIXES,
        });
    }
    let bytes =
        std::fs::read(&spec.tflite).map_err(|e| format!("{}: {e}", spec.tflite.display()))?;
    let graph = tinyaot_codegen::config::load_and_fold(&bytes, &tinyaot_codegen::Limits::default())
        .map_err(|e| e.to_string())?;
    let macs = crate::macs::macs(&graph);
    let cases = golden::read(&spec.golden)?;
    let bound = Config::new()
        .plan(&bytes)
        .map_err(|e| e.to_string())?
        .memory_plan()
        .lower_bound_bytes;
    let rust = Config::new()
        .name("Net")
        .planning(planning.clone())
        .generate(&bytes, &spec.name)
        .map_err(|e| e.to_string())
        .and_then(|source| {
            let weights = stated_constants(&source)?;
            Ok((source, weights))
        });
    let options = COptions {
        prefix: "net".to_string(),
        source_name: format!("{}.tflite", spec.name),
    };
    let c = c_outputs_with(&bytes, &options, &Limits::default(), &planning)
        .map(|files| {
            files
                .into_iter()
                .map(|(name, source)| (name, source.into_string()))
                .collect()
        })
        .map_err(|e| e.to_string());
    Ok(Prepared {
        cases,
        macs,
        bound: bound as u64,
        rust,
        c,
        c_prefixes: &["net"],
    })
}

/// A row with no measurement yet.
fn empty_row(spec: &Spec) -> Row {
    Row {
        name: spec.name.clone(),
        macs: None,
        weights: None,
        tflm_arena: spec.tflm_arena,
        bound: None,
        rust: None,
        c: None,
        errors: Vec::new(),
        profile: Vec::new(),
    }
}

/// Builds, runs and measures one prepared model on `core` in both languages.
fn run_model(
    paths: &Paths,
    core: &Core,
    spec: &Spec,
    model: &Prepared,
    harness: [Sizes; 2],
    timeout: Duration,
) -> Row {
    let mut row = Row {
        macs: Some(model.macs),
        bound: Some(model.bound),
        ..empty_row(spec)
    };
    let dir = paths.work.join(core.name).join(&spec.name);
    let origin = spec.golden.join("manifest.json");
    let cases = &model.cases;

    // The two languages build and run side by side: separate directories, and only the Rust
    // side takes the core's cargo target directory.
    let (rust, c) = std::thread::scope(|scope| {
        let c = scope.spawn(|| {
            model.c.clone().and_then(|files| {
                let c_dir = dir.join("c");
                c_side(
                    paths,
                    core,
                    &files,
                    model.c_prefixes,
                    cases,
                    &origin,
                    &c_dir,
                    timeout,
                )
            })
        });
        let rust = model.rust.clone().and_then(|(source, weights)| {
            let built = rust_side(
                paths,
                core,
                &source,
                cases,
                &origin,
                &dir.join("rust"),
                timeout,
            )?;
            Ok((built, weights))
        });
        let c = c
            .join()
            .unwrap_or_else(|_| Err("the C side's thread panicked".to_string()));
        (rust, c)
    });
    match rust {
        Ok(((measured, ops), weights)) => {
            row.weights = Some(weights);
            row.rust = Some(measured.minus_harness(harness[0]));
            row.profile = ops
                .into_iter()
                .map(|(i, name, n)| (i, name, Some(n), None))
                .collect();
        }
        Err(e) => row.errors.push(("rust", e)),
    }
    match c {
        Ok((measured, ops)) => {
            row.c = Some(measured.minus_harness(harness[1]));
            for (i, name, n) in ops {
                match row.profile.iter_mut().find(|op| op.0 == i) {
                    Some(op) => op.3 = Some(n),
                    None => row.profile.push((i, name, None, Some(n))),
                }
            }
        }
        Err(e) => row.errors.push(("c", e)),
    }
    row
}

/// Rust: build for `core`, run, check.
fn rust_side(
    paths: &Paths,
    core: &Core,
    source: &str,
    cases: &[Case],
    origin: &Path,
    dir: &Path,
    timeout: Duration,
) -> Result<Timed, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    write(&dir.join("model.rs"), source)?;
    write(&dir.join("golden.rs"), &golden::rust_source(cases, origin))?;
    let regions = !paths.regions.is_empty();
    let elf = build_rust(paths, core, dir, &dir.join("firmware.elf"), regions)?;
    // Constant tensors (`T<index>`) and weights laid out at generation time (`W<op>_<FIELD>`).
    let is_weight = |name: &str| {
        let Some((_, n)) = name.rsplit_once("_constants::") else {
            return false;
        };
        let digits = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
        n.strip_prefix('T').is_some_and(digits)
            || n.strip_prefix('W')
                .and_then(|n| n.split_once('_'))
                .is_some_and(|(op, _)| digits(op))
    };
    run_and_check(&elf, cases, timeout, &is_weight, core)
}

/// C: build for `core`, run, check.
#[allow(clippy::too_many_arguments)]
fn c_side(
    paths: &Paths,
    core: &Core,
    files: &[(String, String)],
    prefixes: &[&str],
    cases: &[Case],
    origin: &Path,
    dir: &Path,
    timeout: Duration,
) -> Result<Timed, String> {
    // A fresh directory: no kernel file of an earlier model may linger and be compiled.
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, contents) in files {
        write(&dir.join(name), contents)?;
    }
    write(&dir.join("golden.h"), &golden::c_header(cases, origin))?;
    let elf = build_c(paths, core, dir, &dir.join("firmware.elf"))?;
    // Constant tensors (`net_t<index>`) and weights laid out at generation time
    // (`net_w<op>_<field>`), under each model's prefix.
    let is_weight = |name: &str| {
        let digits = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
        prefixes.iter().any(|prefix| {
            let Some(rest) = name.strip_prefix(prefix) else {
                return false;
            };
            rest.strip_prefix("_t").is_some_and(digits)
                || rest
                    .strip_prefix("_w")
                    .and_then(|n| n.split_once('_'))
                    .is_some_and(|(op, _)| digits(op))
        })
    };
    run_and_check(&elf, cases, timeout, &is_weight, core)
}

fn write(path: &Path, contents: &str) -> Result<(), String> {
    write_if_changed(path, contents.as_bytes()).map_err(|e| e.to_string())
}

/// The constant bytes the generated Rust's header states (`// … constants N bytes.`).
fn stated_constants(source: &str) -> Result<u64, String> {
    source
        .lines()
        .take(3)
        .find_map(|line| {
            let rest = line.split("constants ").nth(1)?;
            rest.split(' ').next()?.parse().ok()
        })
        .ok_or_else(|| "the generated Rust does not state its constant bytes".to_string())
}

/// Runs `elf`, checks its outputs against `cases` and measures it.
/// A firmware's measurements, and with `--profile` its instructions per operator.
type Timed = (Measured, Vec<(usize, String, u64)>);

fn run_and_check(
    elf: &Path,
    cases: &[Case],
    timeout: Duration,
    is_weight: &dyn Fn(&str) -> bool,
    core: &Core,
) -> Result<Timed, String> {
    let text = run_qemu(elf, timeout, core)?;
    let report = Report::parse(&text, core)?;
    compare(&report, cases)?;
    // The firmware compares bytes, and `compare` has judged each case's verdict: a float32 case it
    // calls MISMATCH is held to 1e-5 relative there (EXP, LOG, ELU take the last bit of glibc's
    // expf, logf, expm1f only within it), an exact-typed one fails. A failure no case explains
    // is the firmware's own.
    if !report.passed && report.cases.iter().all(|case| case.2) {
        return Err("the firmware reported a failure, yet its outputs match here".into());
    }
    let sizes = measure::sizes(elf, is_weight, core)?;
    Ok((
        Measured::new(&report, sizes),
        table::operator_instructions(&report),
    ))
}

/// Every case's outputs, as the firmware printed them, against TFLM's under the host conformance
/// test's rule ([`tinyaot_test_support::compare`]: integer types byte for byte, float32 within 1e-5
/// relative). The firmware's own verdict must agree.
fn compare(report: &Report, cases: &[Case]) -> Result<(), String> {
    if report.cases.len() != cases.len() || report.outputs.len() != cases.len() {
        return Err(format!(
            "the firmware ran {} of {} cases",
            report.cases.len(),
            cases.len()
        ));
    }
    for (k, case) in cases.iter().enumerate() {
        let got = &report.outputs[k];
        if got.len() != case.outputs.len() {
            return Err(format!(
                "case {k}: {} outputs, TFLM {}",
                got.len(),
                case.outputs.len()
            ));
        }
        // A case TFLM's invoke stopped early (a CIRCULAR_BUFFER waiting for frames) has no
        // outputs to compare: the target checked that the model stopped there too (its verdict).
        for (j, want) in case.outputs.iter().enumerate().filter(|_| !case.waiting) {
            tinyaot_test_support::compare(&want.dtype, &got[j], &want.bytes)
                .map_err(|e| format!("case {k} output {j}: {e}"))?;
        }
        let exact = case.waiting || case.outputs.iter().all(|o| o.dtype != "float32");
        if exact && !report.cases[k].2 {
            return Err(format!(
                "case {k}: the target says MISMATCH, the host says equal"
            ));
        }
    }
    Ok(())
}

/// Runs `elf` under `core`'s QEMU board ([`Core::qemu_command`]), killing it after `timeout`;
/// returns what it printed.
pub(crate) fn run_qemu(elf: &Path, timeout: Duration, core: &Core) -> Result<String, String> {
    let qemu = core.qemu_command();
    let mut child = Command::new(qemu[0])
        .args(&qemu[1..])
        .arg(elf)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", qemu[0]))?;
    // Drain both pipes on threads so that a chatty run cannot block on a full pipe.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "QEMU did not finish within {} s: {}",
                    timeout.as_secs(),
                    elf.display()
                ));
            }
            Err(e) => return Err(format!("waiting for QEMU: {e}")),
        }
    };
    let text = stdout.join().unwrap_or_default() + &stderr.join().unwrap_or_default();
    if !status.success() && !text.contains("result fail") {
        return Err(format!(
            "QEMU exited with {status} on {}:\n{text}",
            elf.display()
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_tflm_arena_column_of_the_shared_readme() {
        let text = "| file | from | ops | TFLM arena |\n|---|---|---|---|\n\
                    | person_detect.tflite | models | CONV_2D | 85,264 / 55,296 / 29,968 |\n";
        assert_eq!(readme_tflm_arena(text, "person_detect"), Some(85_264));
        assert_eq!(readme_tflm_arena(text, "person"), None);
    }

    #[test]
    fn finds_the_stated_constant_bytes() {
        let header = "// @generated by tinyaot 0.1.0 from `x.tflite`. Do not edit.\n\
                      // 3 operators; arena 32 bytes; state 0 bytes; constants 420 bytes.\n";
        assert_eq!(stated_constants(header), Ok(420));
        assert!(stated_constants("// nothing\n").is_err());
    }

    #[test]
    fn the_model_sets_are_the_fixture_list_and_the_corners_with_goldens() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let listed = tinyaot_test_support::listed_fixture_models().expect("the fixture list");
        let all = expand_sets(&fixtures, &names(&["fixtures"])).expect("fixtures");
        assert_eq!(all.len(), listed.len());
        assert_eq!(all[0], "sine_mlp");
        // A name given twice, or also in a set, runs once, where it first came.
        let some = expand_sets(&fixtures, &names(&["person_detect", "ds_cnn", "fixtures"]))
            .expect("names and fixtures");
        assert_eq!(&some[..2], ["person_detect", "ds_cnn"]);
        assert_eq!(some.len(), 1 + listed.len());
        let corners = expand_sets(&fixtures, &names(&["corners"])).expect("corners");
        assert!(corners.len() > 100, "{}", corners.len());
        assert!(corners.iter().all(|c| fixtures
            .join(format!("hostile/models/{c}.tflite"))
            .is_file()));
    }
}

//! Several models, one arena: two fixture models compiled as a group (`Config::compile_group` in
//! build.rs for Rust, `Config::generate_group_c` here for C) and run ALTERNATELY on the one shared
//! arena — the stateful wake-word model `streaming_kws` (8 golden cases whose outputs depend on
//! the earlier ones) and the keyword spotter `ds_cnn`, whose 16,000-byte arena covers all of
//! streaming_kws's. Every output must equal TFLM's golden byte for byte, in Rust and in C: so
//! streaming_kws's state survives ds_cnn's invokes. Then the declared-survive outputs: with
//! `keep("output0")` (and its input kept too) streaming_kws's output still holds its value after
//! ds_cnn ran (and without it, it does not, so the check is not vacuous). The group's C is also
//! built for a Cortex-M4 without a diagnostic (skipped, saying so, without the cross compiler;
//! failed in CI). Then the refusals: no model, duplicate names,
//! a model that does not compile (named in the error, nothing written), a bad `keep`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use tinyaot_codegen::{Config, GroupModel};
use tinyaot_test_support::{self as support, compare, load_cases, Case};
use tinyaot_tests::groups::{kept_pair::KeptPair, pair::Pair};

/// Which model of the group.
#[derive(Clone, Copy, Debug)]
enum Which {
    Kws,
    Cmd,
}

/// One step of a schedule.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// Set the model's inputs to golden case `usize`, invoke it, read its outputs.
    Run(Which, usize),
    /// Read streaming_kws's output again (after ds_cnn ran).
    KwsAgain(usize),
    /// Reset every model's state.
    Reset,
}

/// streaming_kws's 8 cases in order, each followed by a ds_cnn case and a second read of
/// streaming_kws's output; then a reset and the same again (the state starts over).
fn schedule() -> Vec<Event> {
    let mut events = Vec::new();
    for round in 0..2 {
        if round == 1 {
            events.push(Event::Reset);
        }
        for i in 0..8 {
            events.push(Event::Run(Which::Kws, i));
            events.push(Event::Run(Which::Cmd, i % 3));
            events.push(Event::KwsAgain(i));
        }
    }
    events
}

fn golden(stem: &str) -> Vec<Case> {
    let dir = support::fixtures_dir().join("golden").join(stem);
    let cases = load_cases(&dir).unwrap_or_else(|e| panic!("{stem}: {e}"));
    assert!(!cases.is_empty(), "{stem}: no golden cases");
    cases
}

fn model_path(stem: &str) -> PathBuf {
    support::fixtures_dir()
        .join("models")
        .join(format!("{stem}.tflite"))
}

/// Sets a model's inputs to `case`'s, invokes it and returns its outputs.
fn run<M: tinyaot::Model>(model: &mut M, case: &Case) -> Vec<Vec<u8>> {
    for (i, input) in case.inputs.iter().enumerate() {
        model.input_bytes_mut(i).copy_from_slice(&input.bytes);
    }
    model.invoke();
    (0..M::OUTPUTS)
        .map(|i| model.output_bytes(i).to_vec())
        .collect()
}

/// Runs the schedule on a group made by build.rs (`Pair` or `KeptPair`): what each event read.
macro_rules! run_rust {
    ($group:ty, $kws:expr, $cmd:expr) => {{
        let mut group = Box::new(<$group>::new());
        let mut seen = Vec::new();
        for event in schedule() {
            match event {
                Event::Run(Which::Kws, i) => seen.push(run(&mut group.kws(), &$kws[i])),
                Event::Run(Which::Cmd, i) => seen.push(run(&mut group.cmd(), &$cmd[i])),
                // Through the typed accessor: the kept output is read again after ds_cnn ran.
                Event::KwsAgain(_) => seen.push(vec![group.kws().output0().to_vec()]),
                Event::Reset => group.reset(),
            }
        }
        seen
    }};
}

/// Checks what the schedule read against TFLM's goldens; returns how many second reads of
/// streaming_kws's output differed from it (`kept`: none may).
fn check(what: &str, seen: &[Vec<Vec<u8>>], kws: &[Case], cmd: &[Case], kept: bool) -> usize {
    let mut changed = 0;
    let reads = schedule()
        .into_iter()
        .filter(|e| !matches!(e, Event::Reset));
    assert_eq!(
        reads.clone().count(),
        seen.len(),
        "{what}: one read per event"
    );
    for (event, got) in reads.zip(seen) {
        let (case, label) = match event {
            Event::Run(Which::Kws, i) => (&kws[i], format!("streaming_kws case {i}")),
            Event::Run(Which::Cmd, i) => (&cmd[i], format!("ds_cnn case {i}")),
            Event::KwsAgain(i) => (&kws[i], format!("streaming_kws case {i} after ds_cnn")),
            Event::Reset => continue,
        };
        assert_eq!(got.len(), case.outputs.len(), "{what}: {label}");
        for (k, (got, want)) in got.iter().zip(&case.outputs).enumerate() {
            if let Err(mismatch) = compare(&want.dtype, got, &want.bytes) {
                if matches!(event, Event::KwsAgain(_)) && !kept {
                    changed += 1;
                    continue;
                }
                panic!("{what}: {label}, output {k}: {mismatch}");
            }
        }
    }
    changed
}

#[test]
fn two_models_alternate_on_one_arena_bit_exact_in_rust() {
    let (kws, cmd) = (golden("streaming_kws"), golden("ds_cnn"));
    assert_eq!(Pair::SHARED_BYTES, 8_448, "ds_cnn's arena, the larger");
    let seen = run_rust!(Pair, kws, cmd);
    let changed = check("Rust", &seen, &kws, &cmd, false);
    // Without `keep`, ds_cnn's invoke overwrites streaming_kws's output: what `keep` is for.
    assert!(changed > 0, "ds_cnn never overwrote streaming_kws's output");
}

#[test]
fn a_kept_output_survives_the_other_models_invoke_in_rust() {
    let (kws, cmd) = (golden("streaming_kws"), golden("ds_cnn"));
    // The kept input (10 bytes) and output (3 bytes), each 16-byte aligned, sit after the shared
    // arena and the state.
    assert_eq!(KeptPair::MEMORY_BYTES, Pair::MEMORY_BYTES + 32);
    let seen = run_rust!(KeptPair, kws, cmd);
    assert_eq!(check("Rust, kept", &seen, &kws, &cmd, true), 0);
}

/// A fresh scratch directory for test `name` of this run.
fn scratch(name: &str) -> PathBuf {
    support::scratch_dir("group", name)
}

fn members(keep: bool) -> Vec<GroupModel> {
    let mut kws = GroupModel::new(model_path("streaming_kws")).prefix("kws");
    if keep {
        kws = kws.keep("inputs").keep("output0");
    }
    vec![kws, GroupModel::new(model_path("ds_cnn")).prefix("cmd")]
}

/// Generates the group's C into `dir`, builds it with tests/c/group_driver.c (every warning an
/// error) and runs the schedule: what each event read.
fn run_c(dir: &Path, keep: bool) -> Vec<Vec<Vec<u8>>> {
    let files = Config::new()
        .generate_group_c(&members(keep))
        .unwrap_or_else(|e| panic!("{e}"));
    let sources = support::write_generated(dir, &files);
    let exe = dir.join("driver");
    let driver = support::workspace_root().join("tests/c/group_driver.c");
    let mut args: Vec<&std::ffi::OsStr> = vec!["-I".as_ref(), dir.as_os_str()];
    args.extend(sources.iter().map(|s| s.as_os_str()));
    args.push(driver.as_os_str());
    support::compile_host_c(&args, &exe);
    cross_compile(dir, &sources);
    let (kws, cmd) = (golden("streaming_kws"), golden("ds_cnn"));
    let mut script = String::new();
    let mut reads = Vec::new();
    for (n, event) in schedule().into_iter().enumerate() {
        let (name, case, again) = match event {
            Event::Run(Which::Kws, i) => ("kws", &kws[i], false),
            Event::Run(Which::Cmd, i) => ("cmd", &cmd[i], false),
            Event::KwsAgain(i) => ("kws", &kws[i], true),
            Event::Reset => {
                script.push_str("reset\n");
                continue;
            }
        };
        if !again {
            for (i, input) in case.inputs.iter().enumerate() {
                script.push_str(&format!("in {name} {i} {}\n", input.path.display()));
            }
            script.push_str(&format!("invoke {name}\n"));
        }
        let outs: Vec<PathBuf> = (0..case.outputs.len())
            .map(|k| dir.join(format!("out{n}_{k}.bin")))
            .collect();
        for (k, path) in outs.iter().enumerate() {
            script.push_str(&format!("out {name} {k} {}\n", path.display()));
        }
        reads.push(outs);
    }
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the driver");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("write commands");
    let result = child.wait_with_output().expect("wait for the driver");
    assert!(
        result.status.success(),
        "the driver failed: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    reads
        .iter()
        .map(|outs| {
            outs.iter()
                .map(|p| std::fs::read(p).expect("read output"))
                .collect()
        })
        .collect()
}

/// Compiles the group's sources for a Cortex-M4 (hard float), every warning an error, when
/// `arm-none-eabi-gcc` is installed (`.ci/run` installs it); says so when it is not, and with
/// `CI` set fails.
fn cross_compile(dir: &Path, sources: &[PathBuf]) {
    if !support::arm_compiler_or_skip("the group's Cortex-M4 build") {
        return;
    }
    for source in sources {
        let output = Command::new(support::ARM_CC)
            .args(support::ARM_C_FLAGS)
            .arg("-c")
            .arg("-I")
            .arg(dir)
            .arg(source)
            .arg("-o")
            .arg(source.with_extension("arm.o"))
            .output()
            .expect("run arm-none-eabi-gcc");
        assert!(
            output.status.success() && output.stderr.is_empty(),
            "{}: arm-none-eabi-gcc failed or warned:\n{}",
            source.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn two_models_alternate_on_one_arena_bit_exact_in_c() {
    let dir = scratch("alternate");
    let seen = run_c(&dir, false);
    let (kws, cmd) = (golden("streaming_kws"), golden("ds_cnn"));
    assert!(check("C", &seen, &kws, &cmd, false) > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_kept_output_survives_the_other_models_invoke_in_c() {
    let dir = scratch("kept");
    let seen = run_c(&dir, true);
    let (kws, cmd) = (golden("streaming_kws"), golden("ds_cnn"));
    assert_eq!(check("C, kept", &seen, &kws, &cmd, true), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The plan of the group (`tinyaot plan A B`): each model's plan, and the shared arena as large
/// as the larger of the two arenas.
#[test]
fn the_plan_of_a_group_gives_the_shared_size() {
    let plan = Config::new()
        .plan_group(&members(true))
        .unwrap_or_else(|e| panic!("{e}"));
    let json: serde_json::Value = serde_json::from_str(&plan.json()).expect("valid JSON");
    let models = json["models"].as_array().expect("models");
    let arenas: Vec<u64> = models
        .iter()
        .map(|m| m["plan"]["arena_bytes"].as_u64().expect("arena_bytes"))
        .collect();
    let states: Vec<u64> = models
        .iter()
        .map(|m| m["plan"]["state_bytes"].as_u64().expect("state_bytes"))
        .collect();
    assert_eq!(arenas, [432, 8_448]);
    assert_eq!(states, [176, 0]);
    assert_eq!(json["shared_arena_bytes"], 8_448);
    // The shared arena, streaming_kws's state, its kept input and output (16 bytes each).
    assert_eq!(json["memory_bytes"], 8_448 + 176 + 32);
    assert_eq!(json["separate_bytes"], 432 + 176 + 8_448);
    assert_eq!(json["models"][0]["kept_bytes"], 32);
    let text = plan.text();
    assert!(text.contains("== kws (streaming_kws.tflite)\n"), "{text}");
    assert!(text.contains("\nshared arena: 8448 bytes"), "{text}");
    assert!(text.contains("\ngroup memory: 8656 bytes"), "{text}");
    assert!(text.contains("\nseparately:   9056 bytes"), "{text}");
}

/// Refusals name the model (or the clash) and write nothing.
#[test]
fn bad_groups_are_refused_and_write_nothing() {
    let dir = scratch("refused");
    let broken = dir.join("broken.tflite");
    std::fs::write(&broken, b"not a model at all").expect("write broken.tflite");
    let out = dir.join("out");
    std::fs::create_dir_all(&out).expect("create out");
    let kws = || GroupModel::new(model_path("streaming_kws"));
    let cmd = || GroupModel::new(model_path("ds_cnn"));
    let cases: Vec<(&str, Vec<GroupModel>, &str)> = vec![
        ("no model", vec![], "a group needs at least one model"),
        (
            "duplicate names",
            vec![
                kws().name("Net").prefix("net"),
                cmd().name("Net").prefix("net"),
            ],
            "have the same name `",
        ),
        (
            "a model that does not compile",
            vec![kws(), GroupModel::new(&broken)],
            "model `",
        ),
        (
            "a bad keep",
            vec![kws().keep("output3"), cmd()],
            "has no output3 to keep (it has 1 inputs and 1 outputs)",
        ),
        (
            "a keep that names nothing",
            vec![kws().keep("state"), cmd()],
            "cannot keep `state`",
        ),
    ];
    for (what, models, expected) in cases {
        let mut config = Config::new();
        config.out_dir(&out);
        let rust = config.compile_group(&models).expect_err(what).to_string();
        let c = config.compile_group_c(&models).expect_err(what).to_string();
        for message in [&rust, &c] {
            assert!(message.contains(expected), "{what}: {message}");
        }
        if what == "a model that does not compile" {
            // Named by its Rust handle and by its C prefix.
            assert!(
                rust.starts_with("model `Broken`: not a TFLite model"),
                "{rust}"
            );
            assert!(c.starts_with("model `broken`: not a TFLite model"), "{c}");
        }
        let written: Vec<_> = std::fs::read_dir(&out).expect("read out").collect();
        assert!(written.is_empty(), "{what}: something was written");
    }
    // Names whose generated Rust modules (`__tinyaot_kws_constants`) would clash.
    let error = Config::new()
        .out_dir(&out)
        .compile_group(&[kws().name("Kws"), cmd().name("KwsConstants")])
        .expect_err("clash");
    assert!(
        error
            .to_string()
            .contains("names `Kws` and `KwsConstants` that clash in the generated Rust modules"),
        "{error}"
    );
    // The group's name clashing with a model's, in Rust and in C.
    let mut config = Config::new();
    config.group_name("kws").out_dir(&out);
    let error = config
        .compile_group_c(&[kws().prefix("kws"), cmd()])
        .expect_err("clash");
    assert!(
        error.to_string().contains("has the group's name"),
        "{error}"
    );
    let error = config
        .compile_group_c(&[kws().prefix("kws_a"), cmd()])
        .expect_err("clash");
    assert!(error.to_string().contains("collide"), "{error}");
    assert!(std::fs::read_dir(&out).expect("read out").next().is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The command line's group forms: `tinyaot rust A B`, `tinyaot c A B` with a prefix per model
/// and `--keep`; a `--keep` naming no model is a usage error that writes nothing.
#[test]
fn command_line_writes_a_group() {
    let dir = scratch("cli");
    let cli = |args: &[&str]| tinyaot_cli::main(args.iter().map(|a| a.to_string()).collect());
    let (kws, cmd) = (model_path("streaming_kws"), model_path("ds_cnn"));
    let (kws, cmd) = (kws.to_str().expect("UTF-8"), cmd.to_str().expect("UTF-8"));
    let rust = dir.join("group.rs");
    let rust = rust.to_str().expect("UTF-8");
    let c_dir = dir.join("c");
    let c_dir = c_dir.to_str().expect("UTF-8");
    assert_eq!(
        cli(&[
            "rust",
            kws,
            cmd,
            "-o",
            rust,
            "--name",
            "Kws",
            "--name",
            "Cmd",
            "--keep",
            "Kws:output0"
        ]),
        0
    );
    let expected = Config::new()
        .generate_group(&[
            GroupModel::new(kws).name("Kws").keep("output0"),
            GroupModel::new(cmd).name("Cmd"),
        ])
        .expect("generates");
    assert_eq!(
        std::fs::read_to_string(rust).expect("read group.rs"),
        expected
    );
    let c_args = [
        "c", kws, cmd, "-o", c_dir, "--prefix", "kws", "--prefix", "cmd",
    ];
    assert_eq!(
        cli(&[
            &c_args[..],
            &["--keep", "kws:inputs", "--keep", "streaming_kws:output0"]
        ]
        .concat()),
        0
    );
    let expected = Config::new()
        .generate_group_c(&members(true))
        .expect("generates");
    for (name, contents) in &expected {
        let path = Path::new(c_dir).join(name);
        assert_eq!(
            &std::fs::read_to_string(&path).expect("read"),
            contents,
            "{name}"
        );
    }
    // Refused before anything is generated: the directory is left as it was.
    let files = || std::fs::read_dir(c_dir).expect("read").flatten().count();
    let before = files();
    let missing = dir.join("missing");
    let missing = missing.to_str().expect("UTF-8");
    for bad in [
        &["c", kws, cmd, "-o", missing, "--keep", "nosuch:output0"][..],
        &["c", kws, cmd, "-o", missing, "--prefix", "kws"][..],
        &["rust", kws, cmd, "-o", missing, "--keep", "kws"][..],
    ] {
        assert_eq!(cli(bad), 2, "{bad:?}");
    }
    assert_eq!(cli(&["c", kws, kws, "-o", missing]), 1);
    assert!(!Path::new(missing).exists());
    assert_eq!(files(), before);
    let _ = std::fs::remove_dir_all(&dir);
}

//! Outputs whole or not at all: `tinyaot rust -o FILE`, `tinyaot c -o DIR`, `tinyaot plan --svg FILE`
//! and `Config::compile` leave either the complete output or what was there before — no partial
//! file, no temporary entry — after SIGINT, SIGTERM, SIGKILL, a full disk and `ulimit -f`, and the
//! last two are an `error:` with exit status 1.
//!
//! Killing mid-write needs no hook in the binary: the child is stopped (SIGSTOP) as soon as its
//! write shows — an unnamed temporary file open in the output directory (`/proc/PID/fd`), or a
//! staging directory beside the output — checked to be still mid-write, then sent the signal and
//! continued. A model with 8 MB of weights keeps the write long enough to catch.
#![cfg(target_os = "linux")]

mod common;

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use tinyaot_modelkit::{Activation, BuiltinOperator, ModelSpec, Options, TensorSpec};

fn tinyaot() -> Command {
    Command::new(env!("CARGO_BIN_EXE_tinyaot"))
}

/// The sorted names in `dir`, hidden ones included.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every file under `dir` with its contents, for "unchanged" checks.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    for name in listing(dir) {
        let path = dir.join(&name);
        if path.is_dir() {
            for (inner, data) in snapshot(&path) {
                all.push((format!("{name}/{inner}"), data));
            }
        } else {
            all.push((name, std::fs::read(&path).expect("read")));
        }
    }
    all
}

/// A FULLY_CONNECTED float model with 8 MiB of pseudo-random weights (so that most bytes need an
/// escape in Rust, as real weights do), written into `dir`.
fn big_model(dir: &Path) -> PathBuf {
    let (n, m) = (1024usize, 2048usize);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let weights: Vec<u8> = (0..n * m * 4)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    let spec = ModelSpec::single_op(
        BuiltinOperator::FULLY_CONNECTED,
        Options::fully_connected(Activation::NONE),
        vec![
            TensorSpec::f32(&[1, n as i32]),
            TensorSpec::f32(&[m as i32, n as i32]).constant(weights),
        ],
        vec![TensorSpec::f32(&[1, m as i32])],
    );
    let path = dir.join("big.tflite");
    std::fs::write(&path, spec.to_bytes()).expect("write model");
    path
}

/// The reference model person_detect, or `None` when the shared data is missing (the test then
/// skips `what`, saying so; in CI it fails).
fn person_detect(what: &str) -> Option<PathBuf> {
    let shared = tinyaot_test_support::shared_dir_or_skip(what)?;
    Some(shared.join("models/person_detect.tflite"))
}

/// Whether `pid` has an unnamed temporary file (`O_TMPFILE`) open in `dir`.
fn has_unnamed_file_in(pid: u32, dir: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        std::fs::read_link(fd.path()).is_ok_and(|target| {
            target.parent() == Some(dir) && target.to_string_lossy().ends_with("(deleted)")
        })
    })
}

/// Whether `dir` holds a staging entry of `pid` for output `name`.
fn has_staging_in(dir: &Path, name: &str, pid: u32) -> bool {
    let prefix = format!(".{name}.tinyaot-tmp{pid}-");
    listing(dir).iter().any(|n| n.starts_with(&prefix))
}

/// Whether the child `pid` has exited (a zombie, not yet reaped) or is gone.
fn exited(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        // The state follows the command name, which is in parentheses.
        stat.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(['Z', 'X']))
    })
}

fn signal(child: &Child, sig: i32) {
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    // SAFETY: signalling our own child.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0, "kill({pid}, {sig})");
}

/// Runs `args`, stops the child as soon as `writing` says its output is being written, and checks
/// that it is still mid-write (`done` false); then sends `sig` and lets it go on. Returns the
/// child's output. Retries (a few times) when the child finished before it could be stopped.
fn interrupt(
    args: &[&str],
    sig: i32,
    writing: impl Fn(u32) -> bool,
    done: impl Fn() -> bool,
    reset: impl Fn(),
) -> Output {
    for _attempt in 0..5 {
        let mut command = tinyaot();
        // SAFETY: only async-signal-safe calls between fork and exec. A test run started in the
        // background of a script ignores SIGINT, and tinyaot (rightly) keeps an ignored signal
        // ignored: give the child the default disposition that an interactive user's has.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGTERM, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = command
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn tinyaot");
        let pid = child.id();
        let start = Instant::now();
        let mut caught = false;
        // Until it has exited (then it is not reaped yet, so its pid is still ours to signal).
        while start.elapsed() < Duration::from_secs(120) && !exited(pid) {
            if writing(pid) {
                signal(&child, libc::SIGSTOP);
                caught = writing(pid) && !done();
                break;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        if caught {
            signal(&child, sig);
            signal(&child, libc::SIGCONT);
            return child.wait_with_output().expect("wait");
        }
        // Too fast to catch: let it finish, undo, and try again.
        signal(&child, libc::SIGCONT);
        let _ = child.wait();
        reset();
    }
    panic!("could not catch `tinyaot {}` mid-write", args.join(" "));
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn rust_file_survives_signals() {
    let dir = common::scratch("rust-signals");
    let model = big_model(&dir);
    let out_dir = dir.join("out");
    std::fs::create_dir(&out_dir).expect("mkdir");
    std::fs::write(out_dir.join("keep.txt"), "the user's").expect("write");
    let out = out_dir.join("net.rs");
    let args = [
        "rust",
        model.to_str().expect("UTF-8"),
        "-o",
        out.to_str().expect("UTF-8"),
    ];
    let reset = || {
        let _ = std::fs::remove_file(&out);
    };
    for (sig, name) in [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGKILL, "SIGKILL"),
    ] {
        let before = snapshot(&out_dir);
        let output = interrupt(
            &args,
            sig,
            |pid| has_unnamed_file_in(pid, &out_dir),
            || out.exists(),
            reset,
        );
        assert_eq!(
            output.status.signal(),
            Some(sig),
            "{name}: {}",
            stderr(&output)
        );
        if sig != libc::SIGKILL {
            assert_eq!(
                stderr(&output),
                format!("error: interrupted by {name}; no partial output left behind\n")
            );
        }
        // O_TMPFILE: nothing is left even after SIGKILL, with no later run needed.
        assert_eq!(snapshot(&out_dir), before, "{name}");
    }

    // A complete run, then an interrupted rewrite (another name): the old file stays as it was.
    let status = tinyaot().args(args).output().expect("run");
    assert!(status.status.success(), "{}", stderr(&status));
    let generated = std::fs::read(&out).expect("read");
    let renamed = ["rust", args[1], "-o", args[3], "--name", "Other"];
    for sig in [libc::SIGINT, libc::SIGKILL] {
        let before = snapshot(&out_dir);
        let output = interrupt(
            &renamed,
            sig,
            |pid| has_unnamed_file_in(pid, &out_dir),
            || std::fs::read(&out).is_ok_and(|text| text != generated),
            || std::fs::write(&out, &generated).expect("restore"),
        );
        assert_eq!(output.status.signal(), Some(sig));
        assert_eq!(snapshot(&out_dir), before);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn c_directory_survives_signals() {
    let dir = common::scratch("c-signals");
    let model = big_model(&dir);
    let parent = dir.join("work");
    std::fs::create_dir(&parent).expect("mkdir");
    std::fs::write(parent.join("keep.txt"), "the user's").expect("write");
    let out = parent.join("net");
    let args = [
        "c",
        model.to_str().expect("UTF-8"),
        "-o",
        out.to_str().expect("UTF-8"),
    ];
    let reset = || {
        let _ = std::fs::remove_dir_all(&out);
    };
    for (sig, name) in [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGKILL, "SIGKILL"),
    ] {
        let before = listing(&parent);
        let output = interrupt(
            &args,
            sig,
            |pid| has_staging_in(&parent, "net", pid),
            || out.exists(),
            reset,
        );
        assert_eq!(
            output.status.signal(),
            Some(sig),
            "{name}: {}",
            stderr(&output)
        );
        if sig == libc::SIGKILL {
            // The staging directory stays until the next write of the same output sweeps it.
            let left = listing(&parent);
            assert_eq!(left.len(), before.len() + 1, "{left:?}");
            assert!(left.iter().any(|n| n.starts_with(".net.tinyaot-tmp")));
            let status = tinyaot()
                .args(["c", args[1], "-o", args[3]])
                .output()
                .expect("run");
            assert!(status.status.success(), "{}", stderr(&status));
            let mut expected = before.clone();
            expected.push("net".to_string());
            expected.sort();
            assert_eq!(listing(&parent), expected);
            assert_eq!(
                listing(&out),
                [
                    "CMakeLists.txt",
                    "big.c",
                    "big.h",
                    "big.tinyaot.cmake",
                    "big_fully_connected.c",
                    "big_kernels.h"
                ]
            );
            reset();
        } else {
            assert_eq!(listing(&parent), before, "{name}");
        }
    }

    // An interrupted update of an existing directory (another model's files under the same
    // prefix, and a file of the user's) leaves it as it was.
    let Some(small) = person_detect("an interrupted update of a C directory") else {
        return;
    };
    let status = tinyaot()
        .args([
            "c",
            small.to_str().expect("UTF-8"),
            "-o",
            args[3],
            "--prefix",
            "big",
        ])
        .output()
        .expect("run");
    assert!(status.status.success(), "{}", stderr(&status));
    std::fs::write(out.join("main.c"), "int main(void) { return 0; }\n").expect("write");
    let original = std::fs::read(out.join("big.c")).expect("read");
    let before = snapshot(&parent);
    let output = interrupt(
        &args,
        libc::SIGTERM,
        |pid| has_staging_in(&parent, "net", pid),
        || std::fs::metadata(out.join("big.c")).is_ok_and(|m| m.len() != original.len() as u64),
        || {},
    );
    assert_eq!(output.status.signal(), Some(libc::SIGTERM));
    assert_eq!(snapshot(&parent), before);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `sh -c 'ulimit -f BLOCKS; exec tinyaot ARGS'` in `cwd`.
fn with_file_limit(cwd: &Path, blocks: u32, args: &[&str]) -> Output {
    let mut script = format!("ulimit -f {blocks} && exec \"$0\"");
    for i in 1..=args.len() {
        script.push_str(&format!(" \"${i}\""));
    }
    Command::new("sh")
        .current_dir(cwd)
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_tinyaot"))
        .args(args)
        .output()
        .expect("run sh")
}

fn assert_refused(output: &Output, path: &str, reason: &str) {
    let text = stderr(output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.starts_with(&format!("error: {path}")) && text.contains(reason),
        "{text}"
    );
}

#[test]
fn file_size_limit_is_an_error() {
    let Some(model) = person_detect("the file-size limit test") else {
        return;
    };
    let dir = common::scratch("ulimit");
    std::fs::write(dir.join("keep.txt"), "the user's").expect("write");
    std::fs::write(dir.join("old.rs"), "// the old file\n").expect("write");
    let before = snapshot(&dir);
    let model = model.to_str().expect("UTF-8");
    let efbig =
        "File too large (os error 27): the output exceeds the file-size limit (`ulimit -f`)";
    // person_detect's Rust is about 1 MB, its C about 0.7 MB and its plan drawing some 10 kB.
    for (args, path) in [
        (vec!["rust", model, "-o", "net.rs"], "net.rs"),
        (vec!["rust", model, "-o", "old.rs"], "old.rs"),
        (vec!["c", model, "-o", "net"], "net/"),
        (vec!["plan", model, "--svg", "plan.svg"], "plan.svg"),
    ] {
        let output = with_file_limit(&dir, 8, &args);
        assert_refused(&output, path, efbig);
        assert_eq!(snapshot(&dir), before, "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `script` (with `$1` the binary, `$2` the model) as root of a new user and mount namespace
/// with a 256 kB tmpfs at `$3`; `None` where unprivileged namespaces are not available.
fn on_small_tmpfs(mount: &Path, script: &str) -> Option<Output> {
    let full = format!("mount -t tmpfs -o size=256k tmpfs \"$3\" || exit 99\n{script}");
    let output = Command::new("unshare")
        .args([
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            &full,
            "sh",
        ])
        .arg(env!("CARGO_BIN_EXE_tinyaot"))
        .arg(person_detect("the full-disk test")?)
        .arg(mount)
        .output()
        .ok()?;
    if output.status.code() == Some(99) || !output.status.success() && output.stdout.is_empty() {
        eprintln!(
            "skipped: no unprivileged mount namespace here ({})",
            stderr(&output).trim()
        );
        return None;
    }
    Some(output)
}

#[test]
fn full_disk_is_an_error() {
    let dir = common::scratch("enospc");
    let mount = dir.join("mnt");
    std::fs::create_dir(&mount).expect("mkdir");
    // Each command runs on the small file system; the listing after each shows what it left.
    let script = r#"
cd "$3"
echo user > keep.txt
"$1" rust "$2" -o net.rs 2>&1; echo "status $?"; ls -A
"$1" c "$2" -o net 2>&1; echo "status $?"; ls -A
"#;
    let Some(output) = on_small_tmpfs(&mount, script) else {
        return;
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert!(
        lines[0].starts_with("error: net.rs: No space left on device (os error 28)"),
        "{text}"
    );
    assert_eq!(lines[1..3], ["status 1", "keep.txt"], "{text}");
    assert!(lines[3].starts_with("error: net/"), "{text}");
    assert!(
        lines[3].contains("No space left on device (os error 28)"),
        "{text}"
    );
    assert_eq!(lines[4..6], ["status 1", "keep.txt"], "{text}");
}

/// `Config::compile` in a child process (this test binary, re-run for one test) whose file-size
/// limit is set with `setrlimit`: the error comes back as a `Result`, and nothing is left.
#[test]
fn config_compile_under_file_size_limit() {
    if person_detect("Config::compile under a file-size limit").is_none() {
        return;
    }
    let dir = common::scratch("compile-ulimit");
    let output = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "compile_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("TINYAOT_COMPILE_CHILD_DIR", &dir)
        .output()
        .expect("run child");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}{}", stderr(&output));
    assert!(
        text.contains(&format!(
            "compile: {}: File too large (os error 27): the output exceeds the file-size limit",
            dir.join("person_detect.rs").display()
        )),
        "{text}"
    );
    assert!(listing(&dir).is_empty(), "{:?}", listing(&dir));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The child of [`config_compile_under_file_size_limit`]; does nothing in a normal test run.
#[test]
fn compile_child() {
    let Some(dir) = std::env::var_os("TINYAOT_COMPILE_CHILD_DIR") else {
        return;
    };
    let limit = libc::rlimit {
        rlim_cur: 4096,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: setrlimit with a valid struct, in a process of our own.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_FSIZE, &limit) }, 0);
    let model =
        person_detect("Config::compile under a file-size limit").expect("checked by the parent");
    let result = tinyaot_codegen::Config::new().out_dir(&dir).compile(model);
    match result {
        Ok(path) => println!("compile wrote {}", path.display()),
        Err(e) => println!("compile: {e}"),
    }
}

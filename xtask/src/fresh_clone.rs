//! `cargo xtask fresh-clone [--update-readme] [--keep]`: the README's two commands timed as a
//! newcomer runs them. Clones the last commit into `<target>/fresh-clone/tinyaot` with the shared
//! data linked beside it as `../shared`, then runs the first command (examples/build-rs: its build
//! script generates the bundled DS-CNN's Rust, which the example runs against TFLM's output) and
//! the test command (`cargo test --workspace`) in the clone, one after the other, with its own
//! `target/` and Cargo's defaults: the variables that would change what is built or tested (`CARGO_*` but
//! `CARGO_HOME`, `RUSTFLAGS`, `CI`, `INSTA_*`, `TINYAOT_*`) are removed. Prints each command's wall
//! and CPU time (`wait4`, the command and every compiler and test it ran) and how many tests ran;
//! `--update-readme` writes that into README.md between the `fresh-clone` markers. The crates are
//! not downloaded again (Cargo's registry is shared), which a first run on a new machine adds.
//! A figure, not a test: the machine's load moves it; nothing is asserted but that both commands
//! pass. The clone (its `target/` is several gigabytes) is removed afterwards unless `--keep`.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::child::Usage;

/// The README's first command, as the clone runs it.
const FIRST: &[&str] = &["run", "-p", "tinyaot-example-build-rs"];

/// The README's test command.
const TEST: &[&str] = &["test", "--workspace"];

/// Runs the command with its arguments (after `fresh-clone`).
pub fn run(args: &[String]) -> Result<(), String> {
    let mut update_readme = false;
    let mut keep = false;
    for arg in args {
        match arg.as_str() {
            "--update-readme" => update_readme = true,
            "--keep" => keep = true,
            other => return Err(format!("fresh-clone: unknown argument `{other}`")),
        }
    }
    let root = crate::workspace_root()?;
    let shared = tinyaot_test_support::find_shared_dir()?;
    let shared = shared
        .canonicalize()
        .map_err(|e| format!("{}: {e}", shared.display()))?;
    let commit = git(&root, &["rev-parse", "--short", "HEAD"])?;
    if !git(&root, &["status", "--porcelain", "--untracked-files=no"])?.is_empty() {
        eprintln!(
            "fresh-clone: the work tree has uncommitted changes; the clone measures {commit}"
        );
    }
    let work = crate::target_dir(&root).join("fresh-clone");
    if work.exists() {
        std::fs::remove_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    }
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let clone = work.join("tinyaot");
    let status = Command::new("git")
        .args(["clone", "--quiet"])
        .arg(&root)
        .arg(&clone)
        .status()
        .map_err(|e| format!("git clone: {e}"))?;
    if !status.success() {
        return Err(format!("git clone {} failed", root.display()));
    }
    std::os::unix::fs::symlink(&shared, work.join("shared"))
        .map_err(|e| format!("linking {}: {e}", shared.display()))?;

    let first = cargo(&clone, FIRST, &work.join("first.log"))?;
    let test = cargo(&clone, TEST, &work.join("test.log"))?;
    let log = std::fs::read_to_string(work.join("test.log")).map_err(|e| e.to_string())?;
    let tally = tally(&log);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let body = render(&commit, cores, &first, &test, &tally);
    print!("{body}");
    if !keep {
        std::fs::remove_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    }
    if update_readme {
        crate::readme::replace_block(&root, "fresh-clone", &body)?;
    }
    Ok(())
}

/// `git -C root args…`'s output, trimmed.
fn git(root: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .map_err(|e| format!("git: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Runs `cargo args…` in `dir` with Cargo's defaults, its output into `log`; an error naming the
/// log when it fails.
fn cargo(dir: &Path, args: &[&str], log: &Path) -> Result<Usage, String> {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(dir).args(args);
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let drop = (name.starts_with("CARGO_") && name != "CARGO_HOME")
            || name.starts_with("INSTA_")
            || name.starts_with("TINYAOT_")
            || ["RUSTFLAGS", "RUSTDOCFLAGS", "CI"].contains(&name.as_ref());
        if drop {
            command.env_remove(name.as_ref());
        }
    }
    let file = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err = file.try_clone().map_err(|e| e.to_string())?;
    eprintln!(
        "fresh-clone: cargo {} (log: {})",
        args.join(" "),
        log.display()
    );
    let usage = crate::child::run(&mut command, Stdio::from(file), Stdio::from(err))?;
    if !usage.ok {
        return Err(format!(
            "`cargo {}` failed after {}: see {}",
            args.join(" "),
            minutes(usage.wall),
            log.display()
        ));
    }
    Ok(usage)
}

/// What the test command's output says it ran.
#[derive(Debug, Default, PartialEq)]
struct Tally {
    /// `test result:` lines: test binaries and doctest runs.
    runs: usize,
    passed: usize,
    ignored: usize,
}

/// Sums the `test result: ok. N passed; M failed; K ignored; …` lines of libtest's output.
fn tally(log: &str) -> Tally {
    let mut tally = Tally::default();
    for line in log.lines() {
        let Some(rest) = line.trim().strip_prefix("test result: ") else {
            continue;
        };
        tally.runs += 1;
        for part in rest.split(['.', ';']) {
            let mut words = part.split_whitespace();
            let (Some(count), Some(what)) = (words.next(), words.next()) else {
                continue;
            };
            let Ok(count) = count.parse::<usize>() else {
                continue;
            };
            match what {
                "passed" => tally.passed += count,
                "ignored" => tally.ignored += count,
                _ => {}
            }
        }
    }
    tally
}

/// `1 min 5 s`, or `42 s`.
fn minutes(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    if s >= 60 {
        format!("{} min {} s", s / 60, s % 60)
    } else {
        format!("{s} s")
    }
}

/// The README block.
fn render(commit: &str, cores: usize, first: &Usage, test: &Usage, tally: &Tally) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "The two commands on a fresh clone (of commit {commit}, with `../shared` beside it, its own \
         `target/` and Cargo's defaults; the crates already downloaded), one after the other on \
         this {cores}-core machine, as `cargo xtask fresh-clone` measured them:\n"
    );
    let _ = writeln!(out, "| Command | Wall time | CPU time (user + system) |");
    let _ = writeln!(out, "|---|---:|---:|");
    for (name, usage) in [
        ("the first (generate DS-CNN's Rust and run it)", first),
        ("`cargo test --workspace`", test),
    ] {
        let _ = writeln!(
            out,
            "| {name} | {} | {} |",
            minutes(usage.wall),
            minutes(usage.user + usage.system)
        );
    }
    let _ = writeln!(
        out,
        "\n`cargo test --workspace` passed {} tests ({} ignored) in {} test runs (test binaries \
         and doctests).",
        tally.passed, tally.ignored, tally.runs
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_sums_libtest_result_lines() {
        let log = "running 2 tests\n\
                   test a ... ok\n\
                   test result: ok. 2 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; \
                   finished in 0.01s\n\
                   \n   Doc-tests x\n\
                   test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n";
        assert_eq!(
            tally(log),
            Tally {
                runs: 2,
                passed: 7,
                ignored: 1
            }
        );
    }

    #[test]
    fn minutes_reads_as_the_readme_writes_it() {
        assert_eq!(minutes(Duration::from_millis(41_600)), "42 s");
        assert_eq!(minutes(Duration::from_secs(241)), "4 min 1 s");
    }
}

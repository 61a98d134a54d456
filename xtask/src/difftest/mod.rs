//! `cargo xtask difftest`: differential testing of both tinyaot backends against TFLM.
//!
//! Random small models ([`gen`]: one operator or a chain of two or three, int8 or float32, and
//! int32 for ADD, SUB, MUL, MAXIMUM and MINIMUM; random shapes, options and quantization, some
//! with scales chosen where an `f32` multiplier differs from the `f64` one TFLM computes, a few
//! deliberately broken) run through TFLM (the oracle, `xtask/difftest.py`, one Python process per
//! batch), through the Rust backend (one generated crate per batch, every model a module) and
//! through the C backend (one program per batch, every model under its own prefix). Per case:
//!
//! - TFLM and tinyaot both refuse: agreed;
//! - TFLM refuses, tinyaot accepts: DIFFERENCE (a validation gap);
//! - TFLM runs, tinyaot refuses: unsupported (counted by reason, not a failure);
//! - both run: the Rust and the C outputs must equal TFLM's byte for byte (float32 within 1e-5
//!   relative), else DIFFERENCE; so are a backend accepting what the other refuses, a generator
//!   panic or internal error, generated code that does not compile or that crashes.
//!
//! Each differing case is saved under `<target>/difftest/failures/` with its model, inputs, every
//! side's outputs and a one-line description. Cases are pure functions of `(seed, index)`.

mod gen;
mod quant;
mod run;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use tinyaot_codegen::Grounds;
use tinyaot_test_support::Mismatch;

pub use gen::ops;

const USAGE_ARGS: &str = "--cases N --seed S [--ops A,B] [--batch K] [--from I]";

/// The command's options.
struct Args {
    cases: u64,
    seed: u64,
    from: u64,
    ops: Vec<&'static gen::OpGen>,
    batch: usize,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut parsed = Args {
        cases: 100,
        seed: 1,
        from: 0,
        ops: ops().iter().collect(),
        batch: 150,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| format!("{flag} needs a value ({USAGE_ARGS})"))
        };
        let number = |v: &String| {
            v.parse::<u64>()
                .map_err(|e| format!("{flag} {v}: {e} ({USAGE_ARGS})"))
        };
        match flag.as_str() {
            "--cases" => parsed.cases = number(value()?)?,
            "--seed" => parsed.seed = number(value()?)?,
            "--from" => parsed.from = number(value()?)?,
            "--batch" => parsed.batch = number(value()?)?.max(1) as usize,
            "--ops" => {
                let mut chosen = Vec::new();
                for name in value()?.split(',').filter(|s| !s.is_empty()) {
                    let op = ops()
                        .iter()
                        .find(|o| o.name.eq_ignore_ascii_case(name))
                        .ok_or_else(|| {
                            format!(
                                "--ops: unknown op `{name}`; known: {}",
                                ops().iter().map(|o| o.name).collect::<Vec<_>>().join(",")
                            )
                        })?;
                    chosen.push(op);
                }
                if chosen.is_empty() {
                    return Err("--ops: no op given".to_string());
                }
                parsed.ops = chosen;
            }
            other => return Err(format!("unknown option `{other}` ({USAGE_ARGS})")),
        }
    }
    Ok(parsed)
}

/// How one side dealt with a case.
#[derive(Clone, Debug)]
pub enum Side {
    /// It ran and wrote its outputs.
    Ran,
    /// It refused the model (the message says why).
    Refused(String),
    /// It failed in a way that is always a defect (panic, internal error, compile error, crash).
    Broken(String),
}

/// A case's verdict.
enum Verdict {
    Agreed,
    Unsupported(String),
    Difference(Vec<String>),
}

/// Everything about one case once all sides ran.
pub struct CaseRun {
    case: gen::Case,
    dir: PathBuf,
    tflm: Side,
    rust: Side,
    c: Side,
}

/// Paths of a run.
pub struct Work {
    /// The repository.
    pub root: PathBuf,
    /// `<target>/difftest`.
    pub dir: PathBuf,
}

fn work() -> Result<Work, String> {
    let root = crate::workspace_root()?;
    let target = crate::target_dir(&root);
    Ok(Work {
        dir: target.join("difftest"),
        root,
    })
}

/// Runs the command.
pub fn run(args: &[String]) -> Result<(), String> {
    let args = parse(args)?;
    let work = work()?;
    let failures = work.dir.join("failures");
    std::fs::create_dir_all(&failures).map_err(|e| format!("{}: {e}", failures.display()))?;
    let started = Instant::now();
    let mut summary = Summary {
        rerun: rerun_flags(&args),
        ..Summary::default()
    };
    let end = args.from + args.cases;
    let mut first = args.from;
    while first < end {
        let last = (first + args.batch as u64).min(end);
        let cases: Vec<gen::Case> = (first..last)
            .map(|i| gen::case(args.seed, i, &args.ops))
            .collect();
        let runs = run::batch(&work, cases)?;
        for r in runs {
            summary.add(&work, args.seed, r)?;
        }
        eprintln!(
            "difftest: {} of {} cases done ({:.0} s), {} differences so far",
            last - args.from,
            args.cases,
            started.elapsed().as_secs_f64(),
            summary.differences
        );
        first = last;
    }
    summary.print(args.seed, started.elapsed().as_secs_f64());
    if summary.differences > 0 {
        return Err(format!(
            "{} of {} cases differ from TFLM; saved under {}",
            summary.differences,
            summary.cases,
            failures.display()
        ));
    }
    Ok(())
}

/// The flags that regenerate a run's cases (besides the seed and range): `--ops` when given.
fn rerun_flags(args: &Args) -> String {
    if args.ops.len() == ops().len() {
        return String::new();
    }
    let names: Vec<&str> = args.ops.iter().map(|op| op.name).collect();
    format!(" --ops {}", names.join(","))
}

#[derive(Default)]
struct Summary {
    /// Extra flags of the rerun command saved with each failure.
    rerun: String,
    cases: u64,
    agreed_ran: u64,
    agreed_refused: u64,
    /// Models TFLM runs that tinyaot refuses on one of the rule's grounds (TFLM refuses it
    /// elsewhere, it is undefined in TFLM, the specification forbids it), by reason.
    grounded: BTreeMap<String, u64>,
    grounded_total: u64,
    /// Models TFLM runs that tinyaot refuses with no ground: each one a gap, listed.
    ungrounded: Vec<String>,
    /// Models the generator meant to be valid that tinyaot refuses, whatever the ground.
    unsupported_valid: Vec<String>,
    differences: u64,
    rust_differences: u64,
    c_differences: u64,
    gaps: u64,
    per_op: BTreeMap<&'static str, u64>,
    /// Cases by the element types of their graph tensors (every type a case has, once).
    per_type: BTreeMap<String, u64>,
    lines: Vec<String>,
}

impl Summary {
    fn add(&mut self, work: &Work, seed: u64, r: CaseRun) -> Result<(), String> {
        self.cases += 1;
        for op in &r.case.ops {
            *self.per_op.entry(op).or_default() += 1;
        }
        let mut types: Vec<String> = r
            .case
            .spec
            .tensors
            .iter()
            .filter_map(|t| t.dtype.variant_name())
            .map(str::to_ascii_lowercase)
            .collect();
        types.sort();
        types.dedup();
        for t in types {
            *self.per_type.entry(t).or_default() += 1;
        }
        match verdict(&r) {
            Verdict::Agreed => {
                if matches!(r.tflm, Side::Ran) {
                    self.agreed_ran += 1;
                } else {
                    self.agreed_refused += 1;
                }
            }
            Verdict::Unsupported(reason) => {
                if has_ground(&reason) {
                    self.grounded_total += 1;
                    *self.grounded.entry(reason_key(&reason)).or_default() += 1;
                } else {
                    self.ungrounded.push(format!(
                        "case {}: {reason} | {}",
                        r.case.index, r.case.description
                    ));
                }
                if !r.case.description.contains("MUTATED") {
                    // A model the generator meant to be valid: worth a look (a tinyaot gap or a
                    // generator slip), so each one is listed.
                    self.unsupported_valid.push(format!(
                        "case {}: {reason} | {}",
                        r.case.index, r.case.description
                    ));
                }
            }
            Verdict::Difference(problems) => {
                self.differences += 1;
                if problems.iter().any(|p| p.starts_with("rust")) {
                    self.rust_differences += 1;
                }
                if problems
                    .iter()
                    .any(|p| p.starts_with("c:") || p.starts_with("c "))
                {
                    self.c_differences += 1;
                }
                if problems.iter().any(|p| p.starts_with("validation gap")) {
                    self.gaps += 1;
                }
                let saved = save_failure(work, seed, &self.rerun, &r, &problems)?;
                let line = format!(
                    "DIFFERENCE case {}: {} | {} (saved in {})",
                    r.case.index,
                    problems.join("; "),
                    r.case.description,
                    saved.display()
                );
                eprintln!("{line}");
                self.lines.push(line);
            }
        }
        Ok(())
    }

    fn print(&self, seed: u64, seconds: f64) {
        println!(
            "\ndifftest seed {seed}: {} cases in {seconds:.0} s",
            self.cases
        );
        println!(
            "  agreed:      {} ({} both ran and matched, {} both refused)",
            self.agreed_ran + self.agreed_refused,
            self.agreed_ran,
            self.agreed_refused
        );
        println!(
            "  refused on the rule's grounds: {} (TFLM runs them; tinyaot refuses as TFLM refuses \
             them elsewhere, as undefined in TFLM or as the specification forbids)",
            self.grounded_total
        );
        let mut reasons: Vec<_> = self.grounded.iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(a.1));
        for (reason, n) in reasons.iter().take(12) {
            println!("    {n:5}  {reason}");
        }
        if reasons.len() > 12 {
            println!("    ({} more reasons)", reasons.len() - 12);
        }
        println!(
            "  refused without a ground: {} (TFLM runs them, tinyaot refuses: gaps)",
            self.ungrounded.len()
        );
        for line in &self.ungrounded {
            println!("      {line}");
        }
        println!(
            "  refused although not deliberately broken (MUTATED): {}",
            self.unsupported_valid.len()
        );
        for line in &self.unsupported_valid {
            println!("      {line}");
        }
        println!(
            "  differences: {} (Rust backend {}, C backend {}, validation gaps {})",
            self.differences, self.rust_differences, self.c_differences, self.gaps
        );
        for line in &self.lines {
            println!("    {line}");
        }
        let ops: Vec<String> = self
            .per_op
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        println!("  ops drawn: {}", ops.join(", "));
        let types: Vec<String> = self
            .per_type
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        println!("  cases with a tensor of type: {}", types.join(", "));
    }
}

/// Whether a refusal names one of the rule's grounds: its message ends with a [`Grounds`] in
/// brackets, as the code generator writes it (`[TFLM refuses it: …]` and the two others).
fn has_ground(reason: &str) -> bool {
    [Grounds::tflm(""), Grounds::undefined(""), Grounds::spec("")]
        .iter()
        .any(|grounds| reason.contains(&format!("[{grounds}")))
}

/// A refusal message with the numbers blanked (not those inside words, such as `INT8`), to group
/// similar reasons.
fn reason_key(reason: &str) -> String {
    let mut key = String::new();
    let mut previous = ' ';
    let mut in_number = false;
    for ch in reason.chars() {
        let starts = ch.is_ascii_digit() && !previous.is_ascii_alphanumeric() && previous != '_';
        let continues = in_number && (ch.is_ascii_digit() || matches!(ch, '.' | 'e' | '-' | '+'));
        if starts || continues {
            if !in_number {
                key.push('#');
            }
            in_number = true;
        } else {
            in_number = false;
            key.push(ch);
        }
        previous = ch;
    }
    key.chars().take(150).collect()
}

fn verdict(r: &CaseRun) -> Verdict {
    let mut problems = Vec::new();
    for (name, side) in [("rust", &r.rust), ("c", &r.c)] {
        if let Side::Broken(why) = side {
            problems.push(format!("{name}: {why}"));
        }
    }
    if !problems.is_empty() {
        return Verdict::Difference(problems);
    }
    match (&r.rust, &r.c) {
        (Side::Ran, Side::Refused(why)) => {
            return Verdict::Difference(vec![format!(
                "c backend refuses what the Rust backend accepts: {why}"
            )])
        }
        (Side::Refused(why), Side::Ran) => {
            return Verdict::Difference(vec![format!(
                "rust backend refuses what the C backend accepts: {why}"
            )])
        }
        _ => {}
    }
    match (&r.tflm, &r.rust) {
        (Side::Refused(_) | Side::Broken(_), Side::Refused(_)) => Verdict::Agreed,
        (Side::Refused(tflm) | Side::Broken(tflm), _) => Verdict::Difference(vec![format!(
            "validation gap: TFLM refuses ({tflm}) but tinyaot accepts"
        )]),
        (Side::Ran, Side::Refused(why)) => Verdict::Unsupported(why.clone()),
        (Side::Ran, _) => {
            for (name, prefix) in [("rust", "rust"), ("c", "c")] {
                if let Err(e) = compare_outputs(r, prefix) {
                    problems.push(format!("{name}: {e}"));
                }
            }
            if problems.is_empty() {
                Verdict::Agreed
            } else {
                Verdict::Difference(problems)
            }
        }
    }
}

/// Compares one side's outputs with TFLM's under the conformance rule
/// ([`tinyaot_test_support::compare`]), saying how many elements differ and, for integers, by how
/// many LSB at most.
fn compare_outputs(r: &CaseRun, prefix: &str) -> Result<(), String> {
    for (j, dtype) in r.case.output_types.iter().enumerate() {
        let read = |name: String| {
            let path = r.dir.join(&name);
            std::fs::read(&path).map_err(|e| format!("{name}: {e}"))
        };
        let want = read(format!("tflm{j}.bin"))?;
        let got = read(format!("{prefix}{j}.bin"))?;
        // Golden manifests name dtypes as numpy does: the schema's names in lower case.
        let dtype = dtype.variant_name().unwrap_or("").to_ascii_lowercase();
        match tinyaot_test_support::compare(&dtype, &got, &want) {
            Ok(()) => {}
            Err(Mismatch::Float {
                index,
                got,
                want,
                differing,
                elements,
            }) => {
                return Err(format!(
                    "output {j}: {differing} of {elements} floats differ; first element {index}: \
                     got {got}, TFLM {want}"
                ))
            }
            Err(Mismatch::Byte {
                index,
                differing,
                bytes,
                ..
            }) => {
                let max_lsb = got
                    .iter()
                    .zip(&want)
                    .map(|(&a, &b)| (i32::from(a as i8) - i32::from(b as i8)).abs())
                    .max()
                    .unwrap_or(0);
                return Err(format!(
                    "output {j}: {differing} of {bytes} bytes differ (max {max_lsb} LSB); first \
                     byte {index}: got {}, TFLM {}",
                    got[index] as i8, want[index] as i8
                ));
            }
            Err(length @ Mismatch::Length { .. }) => return Err(format!("output {j}: {length}")),
        }
    }
    Ok(())
}

fn save_failure(
    work: &Work,
    seed: u64,
    rerun: &str,
    r: &CaseRun,
    problems: &[String],
) -> Result<PathBuf, String> {
    let dir = work
        .dir
        .join("failures")
        .join(format!("seed{seed}-case{}", r.case.index));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if let Ok(entries) = std::fs::read_dir(&r.dir) {
        for entry in entries.flatten() {
            let _ = std::fs::copy(entry.path(), dir.join(entry.file_name()));
        }
    }
    let text = format!(
        "{}\nops: {}\ninvocations: {} (each input and output file holds each one's values in turn)\nproblems: {}\nTFLM: {:?}\nrust: {:?}\nc: {:?}\nrerun: cargo xtask difftest --seed {seed} --from {} --cases 1{rerun}\n",
        r.case.description,
        r.case.ops.join(" -> "),
        r.case.steps,
        problems.join("; "),
        r.tflm,
        r.rust,
        r.c,
        r.case.index
    );
    std::fs::write(dir.join("description.txt"), text)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

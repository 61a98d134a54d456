//! A small argument parser: one positional MODEL and `--flag VALUE` options, each allowed once.

use tinyaot_codegen::plan::MemoryRegion;
use tinyaot_codegen::{Limits, Planning};

use crate::Failure;

/// The resource-limit options `plan`, `rust` and `c` accept (see [`Args::limits`]).
pub const LIMIT_OPTIONS: [&str; 6] = [
    "--max-arena-bytes",
    "--max-constant-bytes",
    "--max-tensor-bytes",
    "--max-operators",
    "--max-tensors",
    "--target-pointer-width",
];

/// `options` followed by [`LIMIT_OPTIONS`], for [`Args::parse`].
pub fn with_limit_options(options: &[&'static str]) -> Vec<&'static str> {
    options
        .iter()
        .chain(&LIMIT_OPTIONS)
        .chain(&["--no-overlap!", "--keep-order!", "--region+"])
        .copied()
        .collect()
}

/// Parsed arguments of one subcommand.
#[derive(Debug, Default)]
pub struct Args {
    /// Positional arguments, in order.
    pub positional: Vec<String>,
    options: Vec<(&'static str, String)>,
}

impl Args {
    /// Parses `args`, accepting the options in `allowed` (long names with their dashes; an entry may
    /// list a short alias after a `|`, as in `"--output|-o"`; the long name is what [`Args::get`]
    /// takes). An option listed with a `+` after its names (`"--keep+"`) may be given several
    /// times ([`Args::all`]); any other only once. One listed with a `!` (`"--no-overlap!"`) is a
    /// switch: it takes no value ([`Args::switch`]).
    pub fn parse(args: &[String], allowed: &[&'static str]) -> Result<Args, Failure> {
        let mut parsed = Args::default();
        let mut iter = args.iter();
        while let Some(arg) = iter.next() {
            if !arg.starts_with('-') || arg == "-" {
                parsed.positional.push(arg.clone());
                continue;
            }
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) => (flag, Some(value.to_string())),
                None => (arg.as_str(), None),
            };
            let Some((long, repeatable, switch)) = allowed
                .iter()
                .map(|spec| {
                    let name = spec.trim_end_matches(['+', '!']);
                    (name, spec.ends_with('+'), spec.ends_with('!'))
                })
                .find(|(spec, ..)| spec.split('|').any(|name| name == flag))
                .map(|(spec, repeatable, switch)| {
                    (spec.split('|').next().unwrap_or(spec), repeatable, switch)
                })
            else {
                return Err(Failure::Usage(format!("unknown option `{flag}`")));
            };
            let value = match (inline, switch) {
                (Some(_), true) => {
                    return Err(Failure::Usage(format!("option `{long}` takes no value")))
                }
                (None, true) => String::new(),
                (Some(value), false) => value,
                (None, false) => iter
                    .next()
                    .cloned()
                    .ok_or_else(|| Failure::Usage(format!("option `{long}` needs a value")))?,
            };
            if !repeatable && parsed.get(long).is_some() {
                return Err(Failure::Usage(format!("option `{long}` given twice")));
            }
            parsed.options.push((long, value));
        }
        Ok(parsed)
    }

    /// Whether the switch `long` (an option listed with a `!`, taking no value) was given.
    pub fn switch(&self, long: &str) -> bool {
        self.get(long).is_some()
    }

    /// Whether to plan with overlaps: unless `--no-overlap` was given.
    pub fn overlap(&self) -> bool {
        !self.switch("--no-overlap")
    }

    /// How to plan: with overlaps unless `--no-overlap`, reordering operators unless
    /// `--keep-order`, with the memory regions of `--region NAME=SIZE@SECTION` (each given once
    /// per region, fastest first; SIZE as the limits take it, `64K`).
    pub fn planning(&self) -> Result<Planning, Failure> {
        let regions = self
            .all("--region")
            .into_iter()
            .map(region)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Planning {
            overlap: self.overlap(),
            reorder: !self.switch("--keep-order"),
            regions,
        })
    }

    /// The value of option `long` (e.g. `"--format"`), if given.
    pub fn get(&self, long: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(name, _)| *name == long)
            .map(|(_, value)| value.as_str())
    }

    /// Every value of option `long`, in the order given.
    pub fn all(&self, long: &str) -> Vec<&str> {
        self.options
            .iter()
            .filter(|(name, _)| *name == long)
            .map(|(_, value)| value.as_str())
            .collect()
    }

    /// The positional MODEL arguments: at least one.
    pub fn models(&self) -> Result<&[String], Failure> {
        if self.positional.is_empty() {
            return Err(Failure::Usage("missing MODEL argument".to_string()));
        }
        Ok(&self.positional)
    }

    /// The single positional MODEL argument.
    pub fn model(&self) -> Result<&str, Failure> {
        match self.positional.as_slice() {
            [model] => Ok(model),
            [] => Err(Failure::Usage("missing MODEL argument".to_string())),
            more => Err(Failure::Usage(format!(
                "expected one MODEL argument, got {}",
                more.len()
            ))),
        }
    }

    /// The default [`Limits`] with the [`LIMIT_OPTIONS`] given applied. Sizes and counts are
    /// decimal integers, optionally with `_` separators and a binary suffix `K`, `M` or `G`
    /// (`64M` is 64 MiB); the pointer width is 16, 32 or 64.
    pub fn limits(&self) -> Result<Limits, Failure> {
        let mut limits = Limits::default();
        if let Some(v) = self.get("--max-arena-bytes") {
            limits.max_arena_bytes = number("--max-arena-bytes", v)?;
        }
        if let Some(v) = self.get("--max-constant-bytes") {
            limits.max_constant_bytes = number("--max-constant-bytes", v)?;
        }
        if let Some(v) = self.get("--max-tensor-bytes") {
            limits.max_tensor_bytes = number("--max-tensor-bytes", v)?;
        }
        if let Some(v) = self.get("--max-operators") {
            limits.max_operators = count("--max-operators", v)?;
        }
        if let Some(v) = self.get("--max-tensors") {
            limits.max_tensors = count("--max-tensors", v)?;
        }
        if let Some(v) = self.get("--target-pointer-width") {
            limits.target_pointer_width = match v {
                "16" => 16,
                "32" => 32,
                "64" => 64,
                other => {
                    return Err(Failure::Usage(format!(
                        "`--target-pointer-width {other}`: expected 16, 32 or 64"
                    )))
                }
            };
        }
        Ok(limits)
    }
}

/// A size or count: digits (with optional `_`), then an optional binary suffix K, M or G.
fn number(flag: &str, value: &str) -> Result<u64, Failure> {
    let bad = || {
        Failure::Usage(format!(
            "`{flag} {value}`: expected a whole number, optionally with a suffix K, M or G \
             (binary: 64M is 67108864)"
        ))
    };
    let (digits, shift) = match value.strip_suffix(['K', 'k']) {
        Some(d) => (d, 10),
        None => match value.strip_suffix('M') {
            Some(d) => (d, 20),
            None => match value.strip_suffix('G') {
                Some(d) => (d, 30),
                None => (value, 0),
            },
        },
    };
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n: u64 = digits.parse().map_err(|_| bad())?;
    n.checked_mul(1u64 << shift).ok_or_else(bad)
}

/// `NAME=SIZE@SECTION`, one `--region`.
fn region(value: &str) -> Result<MemoryRegion, Failure> {
    let bad = || {
        Failure::Usage(format!(
            "`--region {value}`: expected NAME=SIZE@SECTION, e.g. `--region dtcm=64K@.dtcm`"
        ))
    };
    let (name, rest) = value.split_once('=').ok_or_else(bad)?;
    let (size, section) = rest.split_once('@').ok_or_else(bad)?;
    Ok(MemoryRegion {
        name: name.to_string(),
        capacity: count("--region", size)?,
        section: section.to_string(),
    })
}

fn count(flag: &str, value: &str) -> Result<usize, Failure> {
    let n = number(flag, value)?;
    usize::try_from(n).map_err(|_| Failure::Usage(format!("`{flag} {value}`: too large")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Result<Args, Failure> {
        let list: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        Args::parse(&list, &with_limit_options(&["--output|-o"]))
    }

    #[test]
    fn no_overlap_is_a_switch() {
        assert!(args(&["m.tflite"]).expect("parses").overlap());
        let a = args(&["--no-overlap", "m.tflite"]).expect("parses");
        assert!(!a.overlap());
        assert!(a.planning().expect("plans").reorder);
        let a = args(&["--keep-order", "m.tflite"]).expect("parses");
        assert_eq!(
            a.planning().expect("plans"),
            Planning {
                overlap: true,
                reorder: false,
                regions: Vec::new(),
            }
        );
        let with_regions = args(&[
            "--region",
            "dtcm=64K@.dtcm",
            "--region=sram1=1000@.sram1",
            "m",
        ]);
        let regions = with_regions
            .expect("parses")
            .planning()
            .expect("plans")
            .regions;
        assert_eq!(
            regions,
            [
                MemoryRegion {
                    name: "dtcm".to_string(),
                    capacity: 65536,
                    section: ".dtcm".to_string()
                },
                MemoryRegion {
                    name: "sram1".to_string(),
                    capacity: 1000,
                    section: ".sram1".to_string()
                }
            ]
        );
        for bad in ["dtcm", "dtcm=64K", "dtcm=lots@.dtcm"] {
            let refused = args(&["--region", bad, "m"]).expect("parses");
            assert!(refused.planning().is_err(), "{bad}");
        }
        assert_eq!(a.positional, ["m.tflite"], "a switch takes no value");
        for bad in [&["--no-overlap=yes"][..], &["--no-overlap", "--no-overlap"]] {
            assert!(matches!(args(bad), Err(Failure::Usage(_))), "{bad:?}");
        }
    }

    #[test]
    fn limit_options() {
        let a = args(&[
            "m.tflite",
            "--max-arena-bytes",
            "64M",
            "--max-constant-bytes=1_000",
            "--max-tensor-bytes",
            "2G",
            "--max-operators",
            "7",
            "--max-tensors",
            "3K",
            "--target-pointer-width",
            "16",
        ])
        .expect("parses");
        let l = a.limits().expect("valid");
        assert_eq!(l.max_arena_bytes, 64 << 20);
        assert_eq!(l.max_constant_bytes, 1000);
        assert_eq!(l.max_tensor_bytes, 2 << 30);
        assert_eq!(l.max_operators, 7);
        assert_eq!(l.max_tensors, 3 << 10);
        assert_eq!(l.target_pointer_width, 16);
        assert_eq!(
            args(&["m"]).expect("parses").limits().expect("valid"),
            Limits::default()
        );
    }

    #[test]
    fn repeatable_options() {
        let list: Vec<String> = [
            "a",
            "--keep",
            "a:output0",
            "b",
            "--keep=b:inputs",
            "-o",
            "x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let a = Args::parse(&list, &["--output|-o", "--keep+"]).expect("parses");
        assert_eq!(a.positional, ["a", "b"]);
        assert_eq!(a.all("--keep"), ["a:output0", "b:inputs"]);
        assert_eq!(a.get("--output"), Some("x"));
        // Options without `+` stay single.
        let twice: Vec<String> = ["-o", "x", "-o", "y"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(matches!(
            Args::parse(&twice, &["--output|-o", "--keep+"]),
            Err(Failure::Usage(_))
        ));
    }

    #[test]
    fn bad_limit_values() {
        for (flag, value) in [
            ("--max-arena-bytes", "-1"),
            ("--max-arena-bytes", "1.5M"),
            ("--max-arena-bytes", "M"),
            ("--max-arena-bytes", "99999999999999999999"),
            ("--max-arena-bytes", "17179869184G"),
            ("--max-operators", "lots"),
            ("--target-pointer-width", "8"),
        ] {
            let a = args(&["m", flag, value]).expect("parses");
            assert!(
                matches!(a.limits(), Err(Failure::Usage(_))),
                "{flag} {value} accepted"
            );
        }
    }
}

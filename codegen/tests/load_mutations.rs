//! Robustness: mutated real models must load or be refused, never panic and never hang.
//!
//! For every shared model and every fixture: truncation at each 1/64th of the length, then
//! deterministic pseudo-random bit flips, byte overwrites and 4-byte overwrites with extreme values.
//! Mutations favour the FlatBuffer's structure over the weight blobs (a flipped weight byte only
//! changes a number), so most of them exercise the verifier and the loader's own checks.

mod common;

use std::collections::BTreeMap;
use std::ops::Range;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::time::{Duration, Instant};

use tinyaot_codegen::load::load;
use tinyaot_codegen::Error;

/// No single load of a mutated model may take longer than this (debug build, shared machine).
const MAX_LOAD_TIME: Duration = Duration::from_secs(5);

/// Values that break size and offset arithmetic when written over a 4-byte field.
const EXTREMES: [u32; 12] = [
    0,
    1,
    2,
    3,
    4,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0xffff_fffe,
    0xffff_fff0,
    0x0000_ffff,
    0x0001_0000,
];

/// Marsaglia's xorshift64: deterministic, seedable, no dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[derive(Default)]
struct Tally {
    loads: usize,
    ok: usize,
    errors: BTreeMap<&'static str, usize>,
    panics: Vec<String>,
    slow: Vec<String>,
}

impl Tally {
    fn run(&mut self, bytes: &[u8], what: impl Fn() -> String) {
        self.loads += 1;
        let started = Instant::now();
        let result = panic::catch_unwind(AssertUnwindSafe(|| load(bytes).map(|g| g.tensors.len())));
        let elapsed = started.elapsed();
        match result {
            Ok(Ok(_)) => self.ok += 1,
            Ok(Err(e)) => *self.errors.entry(variant(&e)).or_insert(0) += 1,
            Err(_) => self.panics.push(what()),
        }
        if elapsed > MAX_LOAD_TIME {
            self.slow.push(format!("{} took {elapsed:?}", what()));
        }
    }
}

fn variant(e: &Error) -> &'static str {
    match e {
        Error::Truncated { .. } => "Truncated",
        Error::Corrupt { .. } => "Corrupt",
        Error::WrongIdentifier { .. } => "WrongIdentifier",
        Error::UnsupportedVersion { .. } => "UnsupportedVersion",
        Error::IndexOutOfRange { .. } => "IndexOutOfRange",
        Error::UnsupportedDtype { .. } => "UnsupportedDtype",
        Error::DynamicShape { .. } => "DynamicShape",
        Error::Subgraphs { .. } => "Subgraphs",
        Error::Overflow { .. } => "Overflow",
        _ => "other",
    }
}

/// Byte ranges holding constant tensor data, sorted; the rest is structure.
fn data_ranges(bytes: &[u8]) -> Vec<Range<usize>> {
    let g = load(bytes).expect("the unmutated model loads");
    let base = bytes.as_ptr() as usize;
    let mut ranges: Vec<Range<usize>> = g
        .tensors
        .iter()
        .filter_map(|t| t.data.as_deref())
        // An empty tensor's data (a constant of no bytes) covers none of the file.
        .filter(|d| !d.is_empty())
        .map(|d| {
            let start = d.as_ptr() as usize - base;
            start..start + d.len()
        })
        .collect();
    ranges.sort_by_key(|r| r.start);
    ranges
}

/// Positions not covered by `data`, as ranges (the FlatBuffer's tables, vectors and strings).
fn structure_ranges(len: usize, data: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    for r in data {
        if r.start > at {
            out.push(at..r.start);
        }
        at = at.max(r.end);
    }
    if at < len {
        out.push(at..len);
    }
    out
}

/// Picks a byte position: nine times in ten inside the structure, else anywhere.
fn position(rng: &mut XorShift, len: usize, structure: &[Range<usize>], total: usize) -> usize {
    if total > 0 && rng.below(10) != 0 {
        let mut k = rng.below(total);
        for r in structure {
            if k < r.len() {
                return r.start + k;
            }
            k -= r.len();
        }
    }
    rng.below(len)
}

fn mutate_model(path: &Path, mutations: usize, tally: &mut Tally) {
    let started = Instant::now();
    let original = common::read(path);
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let len = original.len();

    for k in 0..64 {
        let cut = len * k / 64;
        tally.run(&original[..cut], || {
            format!("{name}: truncated to {cut} bytes")
        });
    }
    tally.run(&original[..len - 1], || {
        format!("{name}: truncated to {} bytes", len - 1)
    });

    let structure = structure_ranges(len, &data_ranges(&original));
    let total: usize = structure.iter().map(|r| r.len()).sum();
    let seed = name.bytes().fold(0x9e37_79b9_7f4a_7c15u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let mut rng = XorShift(seed | 1);
    let mut bytes = original.clone();
    for i in 0..mutations {
        let at = position(&mut rng, len, &structure, total);
        let kind = rng.below(3);
        let end = (at + 4).min(len);
        let description = match kind {
            0 => {
                let bit = rng.below(8);
                bytes[at] ^= 1 << bit;
                format!("bit {bit} of byte {at} flipped")
            }
            1 => {
                let value = rng.next() as u8;
                bytes[at] = value;
                format!("byte {at} set to {value:#04x}")
            }
            _ => {
                // Aligned, like the fields it is meant to hit.
                let at = at & !3;
                let end = (at + 4).min(len);
                let value = EXTREMES[rng.below(EXTREMES.len())].to_le_bytes();
                bytes[at..end].copy_from_slice(&value[..end - at]);
                format!("bytes {at}..{end} set to {value:02x?}")
            }
        };
        tally.run(&bytes, || format!("{name}: mutation {i}: {description}"));
        // Restore only what changed: copying a 4 MB model per mutation would dominate the run.
        let from = at & !3;
        bytes[from..end.max(from)].copy_from_slice(&original[from..end.max(from)]);
        bytes[at] = original[at];
    }
    debug_assert_eq!(bytes, original);
    println!("{name}: {mutations} mutations in {:?}", started.elapsed());
}

/// Mutations per model, fewer for big models (a debug-build load of the 4 MB MobileNet takes
/// ~15 ms) so that the whole test stays well under 30 s on a busy machine.
fn budget(len: usize) -> usize {
    match len {
        0..=100_000 => 3000,
        100_001..=1_000_000 => 800,
        _ => 120,
    }
}

fn report(what: &str, tally: &Tally, started: Instant) {
    println!(
        "{what}: {} loads in {:?}: {} ok, errors {:?}",
        tally.loads,
        started.elapsed(),
        tally.ok,
        tally.errors
    );
    assert!(
        tally.panics.is_empty(),
        "{} mutations panicked, first ones:\n{}",
        tally.panics.len(),
        tally
            .panics
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        tally.slow.is_empty(),
        "slow loads:\n{}",
        tally.slow.join("\n")
    );
}

#[test]
fn mutated_shared_models_never_panic() {
    let started = Instant::now();
    let mut tally = Tally::default();
    let Some(models) = common::shared_models("mutating the reference models") else {
        return;
    };
    for path in models {
        let len = std::fs::metadata(&path).map_or(0, |m| m.len() as usize);
        mutate_model(&path, budget(len), &mut tally);
    }
    report("shared models", &tally, started);
}

#[test]
fn mutated_fixtures_never_panic() {
    let started = Instant::now();
    let mut tally = Tally::default();
    let fixtures = common::fixture_models();
    for path in &fixtures {
        mutate_model(path, 300, &mut tally);
    }
    report(&format!("{} fixtures", fixtures.len()), &tally, started);
}

#[test]
fn xorshift_is_deterministic() {
    let mut a = XorShift(42);
    let mut b = XorShift(42);
    assert!((0..100).all(|_| a.next() == b.next()));
    assert_eq!(structure_ranges(10, &[2..4, 3..6, 8..10]), vec![0..2, 6..8]);
}

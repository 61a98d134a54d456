//! Reading a firmware's report (its semihosting output) and its ELF (section and symbol sizes, with
//! the core's binutils: `arm-none-eabi-readelf` and `arm-none-eabi-nm`, or RISC-V's).

use std::path::Path;
use std::process::Command;

use crate::cores::Core;

/// What a firmware reported over semihosting.
#[derive(Debug, Default)]
pub struct Report {
    /// Activation arena bytes, as the generated code states.
    pub arena: u64,
    /// Variable-tensor state bytes.
    pub state: u64,
    /// Instructions per clock tick (numerator, denominator): the core's, confirmed by the
    /// calibration loop.
    pub insns_per_tick: (u64, u64),
    /// Per case: SysTick ticks of the invoke, stack high-water bytes, the target's verdict.
    pub cases: Vec<(u64, u64, bool)>,
    /// Per case, per output: the bytes the target produced.
    pub outputs: Vec<Vec<Vec<u8>>>,
    /// SysTick ticks of an empty timed window (two reads of the clock), from the calibration.
    pub empty_ticks: u64,
    /// With `--profile`: `(operator index, operator name, ticks)` of case 0, in order.
    pub ops: Vec<(usize, String, u64)>,
    /// The final `result pass` line was seen.
    pub passed: bool,
}

impl Report {
    /// Parses the report of a firmware that ran on `core`; an `error:` line, or a missing or
    /// malformed line, is an error, and so is a calibration that does not give the core's
    /// instructions per tick.
    pub fn parse(text: &str, core: &Core) -> Result<Report, String> {
        let mut report = Report::default();
        let mut seen_header = false;
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let field = |name: &str| -> Result<u64, String> {
                words
                    .iter()
                    .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| format!("no `{name}=` in the line `{line}`"))
            };
            match words.first().copied() {
                Some("tinyaot-mcu") => {
                    report.arena = field("arena")?;
                    report.state = field("state")?;
                    seen_header = true;
                }
                Some("calib") => {
                    calibrate(field("insns")?, field("ticks")?, core.insns_per_tick)?;
                    report.insns_per_tick = core.insns_per_tick;
                    report.empty_ticks = field("empty")?;
                }
                Some("op") => {
                    let (Some(index), Some(name)) = (
                        words.get(1).and_then(|w| w.parse::<usize>().ok()),
                        words.get(2),
                    ) else {
                        return Err(format!("malformed line `{line}`"));
                    };
                    report.ops.push((index, name.to_string(), field("ticks")?));
                }
                Some("case") => {
                    let ok = words.last() == Some(&"ok");
                    report.cases.push((field("ticks")?, field("stack")?, ok));
                }
                Some("out") => {
                    let (Some(k), Some(j)) = (
                        words.get(1).and_then(|w| w.parse::<usize>().ok()),
                        words.get(2).and_then(|w| w.parse::<usize>().ok()),
                    ) else {
                        return Err(format!("malformed line `{line}`"));
                    };
                    let bytes = hex(words.get(3).copied().unwrap_or(""))
                        .ok_or_else(|| format!("bad hex in the line for case {k} output {j}"))?;
                    if report.outputs.len() <= k {
                        report.outputs.resize(k + 1, Vec::new());
                    }
                    if report.outputs[k].len() != j {
                        return Err(format!("case {k}: output {j} out of order"));
                    }
                    report.outputs[k].push(bytes);
                }
                Some("result") => report.passed = words.get(1) == Some(&"pass"),
                Some("error:") => return Err(format!("the firmware reported `{line}`")),
                _ => {}
            }
        }
        if !seen_header || report.insns_per_tick.0 == 0 {
            return Err("the firmware's report is incomplete (no header or calibration)".into());
        }
        Ok(report)
    }

    /// The instructions `ticks` clock ticks stand for.
    pub fn instructions(&self, ticks: u64) -> u64 {
        ticks * self.insns_per_tick.0 / self.insns_per_tick.1
    }
}

/// Checks the calibration: `insns` instructions took `ticks`, which must be the core's
/// `expected` instructions per tick (numerator, denominator) to within 0.1%. Under
/// `-icount shift=0` that is the number of nanoseconds per clock tick (40 for the 25 MHz of
/// mps2-an386, 1 for RV32's minstret); any other ratio means the instruction counting is off.
fn calibrate(insns: u64, ticks: u64, expected: (u64, u64)) -> Result<(), String> {
    if ticks == 0 {
        return Err("calibration: the clock did not advance (is SysTick running?)".into());
    }
    let ratio = insns as f64 / ticks as f64;
    let want = expected.0 as f64 / expected.1 as f64;
    if (ratio - want).abs() > 0.001 * want {
        return Err(format!(
            "calibration: {insns} instructions took {ticks} clock ticks ({ratio:.4} per tick, \
             not the board's {want}): is QEMU running with -icount shift=0?"
        ));
    }
    Ok(())
}

fn hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Sizes taken from a firmware's ELF.
#[derive(Debug, Default, Clone, Copy)]
pub struct Sizes {
    /// Bytes in flash: allocated sections in the board's flash, plus the initial values of `.data`.
    pub flash: u64,
    /// Bytes of executable sections in flash (machine code), a part of `flash`.
    pub code: u64,
    /// Bytes of the constant-tensor symbols (the weights), a part of `flash`.
    pub weights: u64,
    /// Bytes of static RAM: `.data`, `.bss` and the like (the arena among them).
    pub ram: u64,
}

/// Measures `elf`, built for `core`'s board; `is_weight` tells the weight symbols by their
/// (demangled) name. Sections in the board's flash count as flash, in its RAM as RAM; the test
/// vectors' region counts as neither.
pub fn sizes(elf: &Path, is_weight: &dyn Fn(&str) -> bool, core: &Core) -> Result<Sizes, String> {
    let mut sizes = Sizes::default();
    let readelf = format!("{}readelf", core.binutils);
    let sections = tool(&readelf, &["-S", "-W"], elf)?;
    for line in sections.lines() {
        // `  [ 2] .text  PROGBITS  00000400 010400 0029ac 00  AX  0   0 16`
        let Some((_, rest)) = line.split_once(']') else {
            continue;
        };
        let cols: Vec<&str> = rest.split_whitespace().collect();
        if cols.len() < 8 || !cols[6].contains('A') {
            continue;
        }
        let (Ok(addr), Ok(size)) = (
            u64::from_str_radix(cols[2], 16),
            u64::from_str_radix(cols[4], 16),
        ) else {
            continue;
        };
        if core.in_flash(addr) {
            sizes.flash += size;
            if cols[6].contains('X') {
                sizes.code += size;
            }
        } else if core.in_ram(addr) {
            sizes.ram += size;
            // Initialised data also occupies flash (its load image).
            if cols[1] != "NOBITS" {
                sizes.flash += size;
            }
        }
    }
    let nm = format!("{}nm", core.binutils);
    let symbols = tool(&nm, &["-S", "-C", "--defined-only"], elf)?;
    for line in symbols.lines() {
        // `00003210 00000040 r tinyaot_firmware::model::__tinyaot_net_constants::T3`
        let cols: Vec<&str> = line.splitn(4, ' ').collect();
        if let [addr, size, _, name] = cols[..] {
            let (Ok(addr), Ok(size)) =
                (u64::from_str_radix(addr, 16), u64::from_str_radix(size, 16))
            else {
                continue;
            };
            if core.in_flash(addr) && is_weight(name) {
                sizes.weights += size;
            }
        }
    }
    Ok(sizes)
}

fn tool(program: &str, args: &[&str], elf: &Path) -> Result<String, String> {
    let output = Command::new(program)
        .args(args)
        .arg(elf)
        .output()
        .map_err(|e| format!("cannot run {program}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{program} {}: {}",
            elf.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cores;

    const REPORT: &str = "tinyaot-mcu lang=rust arena=32 state=0 cases=2
calib insns=1000000 ticks=25000 empty=1
case 0 ticks=114 stack=608 ok
out 0 0 7b
case 1 ticks=120 stack=600 MISMATCH
out 1 0 80ff
result fail
";

    #[test]
    fn parses_a_report() {
        let r = Report::parse(REPORT, cores::m4()).unwrap();
        assert_eq!((r.arena, r.state, r.insns_per_tick), (32, 0, (40, 1)));
        assert_eq!(r.instructions(3), 120);
        assert_eq!(r.cases, vec![(114, 608, true), (120, 600, false)]);
        assert_eq!(r.outputs, vec![vec![vec![0x7b]], vec![vec![0x80, 0xff]]]);
        assert!(!r.passed);
    }

    #[test]
    fn parses_operator_lines() {
        let r = Report::parse(
            &format!("{REPORT}op 0 CONV_2D ticks=50\nop 1 RESHAPE ticks=1\n"),
            cores::m4(),
        )
        .unwrap();
        assert_eq!(r.empty_ticks, 1);
        assert_eq!(
            r.ops,
            vec![
                (0, "CONV_2D".to_string(), 50),
                (1, "RESHAPE".to_string(), 1)
            ]
        );
    }

    #[test]
    fn refuses_reports_that_are_incomplete_or_report_an_error() {
        assert!(Report::parse("case 0 ticks=1 stack=2 ok\n", cores::m4()).is_err());
        let error = format!("{REPORT}error: panic: index out of bounds\n");
        assert!(Report::parse(&error, cores::m4())
            .unwrap_err()
            .contains("panic"));
    }

    #[test]
    fn calibration_must_give_the_boards_instructions_per_tick() {
        assert_eq!(calibrate(1_000_000, 25_001, (40, 1)), Ok(()));
        assert!(calibrate(1_000_000, 0, (40, 1)).is_err());
        assert!(calibrate(1_000_000, 26_000, (40, 1)).is_err());
        // The M55's 32 MHz SysTick: 31.25 instructions per tick.
        assert_eq!(calibrate(1_000_000, 32_001, (125, 4)), Ok(()));
        assert!(calibrate(1_000_000, 25_000, (125, 4)).is_err());
        // RV32's minstret, read by a few instructions of its own.
        assert_eq!(calibrate(1_000_000, 1_000_006, (1, 1)), Ok(()));
    }

    #[test]
    fn hex_round_trips_and_rejects_garbage() {
        assert_eq!(hex("00a0ff"), Some(vec![0, 0xa0, 0xff]));
        assert_eq!(hex("abc"), None);
        assert_eq!(hex("zz"), None);
    }
}

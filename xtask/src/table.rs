//! The results table of `cargo xtask mcu`, as Markdown (it goes into the README as printed).

use std::fmt::Write as _;

use crate::cores::Core;
use crate::measure::{Report, Sizes};

/// One firmware's measurements.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    /// Instructions of the slowest invoke over the cases.
    pub instructions: u64,
    /// Stack high-water mark over the cases, bytes.
    pub stack: u64,
    /// Machine code in flash (executable sections; the harness's until subtracted). Constants the
    /// compiler folded into instructions count here.
    pub code: u64,
    /// Read-only data in flash besides the weights: requantization tables, kernel parameter
    /// structs, literal pools outside the code sections (the harness's until subtracted).
    pub params: u64,
    /// Arena plus state bytes.
    pub arena: u64,
    /// Static RAM besides the arena and the state.
    pub other_ram: u64,
}

impl Measured {
    /// From a firmware's report and its ELF.
    pub fn new(report: &Report, sizes: Sizes) -> Measured {
        let ticks = report.cases.iter().map(|c| c.0).max().unwrap_or(0);
        let arena = report.arena + report.state;
        Measured {
            instructions: report.instructions(ticks),
            stack: report.cases.iter().map(|c| c.1).max().unwrap_or(0),
            code: sizes.code,
            params: sizes
                .flash
                .saturating_sub(sizes.code)
                .saturating_sub(sizes.weights),
            arena,
            other_ram: sizes.ram.saturating_sub(arena),
        }
    }

    /// The same, with the harness's own code and RAM (measured around a do-nothing model)
    /// subtracted, so that what is left is the model's.
    pub fn minus_harness(self, harness: Sizes) -> Measured {
        Measured {
            code: self.code.saturating_sub(harness.code),
            params: self
                .params
                .saturating_sub(harness.flash.saturating_sub(harness.code)),
            other_ram: self
                .other_ram
                .saturating_sub(harness.ram.saturating_sub(HARNESS_ARENA)),
            ..self
        }
    }
}

/// Arena bytes of the do-nothing baseline models (examples/firmware-*/baseline): one 16-byte
/// tensor slot.
pub const HARNESS_ARENA: u64 = 16;

/// One model's row; a missing measurement prints as `FAIL`.
pub struct Row {
    /// Model name.
    pub name: String,
    /// MACs per inference.
    pub macs: Option<u64>,
    /// Constant bytes, as the generated code states them.
    pub weights: Option<u64>,
    /// TFLM's arena for the model (x86-64 figure), when known.
    pub tflm_arena: Option<u64>,
    /// The liveness lower bound of tinyaot's arena (its plan without overlaps), when known.
    pub bound: Option<u64>,
    /// The Rust firmware.
    pub rust: Option<Measured>,
    /// The C firmware.
    pub c: Option<Measured>,
    /// What failed, by side.
    pub errors: Vec<(&'static str, String)>,
    /// With `--profile`: instructions per operator of case 0, `(index, name, Rust, C)`.
    pub profile: Vec<(usize, String, Option<u64>, Option<u64>)>,
}

/// Instructions per operator from a report's `op` lines: each window's ticks, less the empty
/// window's, times the instructions per tick.
pub fn operator_instructions(report: &Report) -> Vec<(usize, String, u64)> {
    report
        .ops
        .iter()
        .map(|(index, name, ticks)| {
            let ticks = ticks.saturating_sub(report.empty_ticks);
            (*index, name.clone(), report.instructions(ticks))
        })
        .collect()
}

/// The `--profile` table of one model: operators by instructions, slowest first, with each one's
/// share of the total (by the Rust column, else the C one).
pub fn render_profile(row: &Row) -> String {
    let mut ops = row.profile.clone();
    let key = |op: &(usize, String, Option<u64>, Option<u64>)| op.2.or(op.3).unwrap_or(0);
    let total: u64 = ops.iter().map(key).sum();
    ops.sort_by(|a, b| key(b).cmp(&key(a)).then(a.0.cmp(&b.0)));
    let mut out = format!(
        "\n{}: instructions per operator (case 0), slowest first\n\n\
         | # | operator | Rust | C | share |\n|--:|---|--:|--:|--:|\n",
        row.name
    );
    let cell = |v: Option<u64>| v.map_or_else(|| "—".to_string(), thousands);
    for op in &ops {
        let share = if total > 0 {
            100.0 * key(op) as f64 / total as f64
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {share:.1}% |",
            op.0,
            op.1,
            cell(op.2),
            cell(op.3)
        );
    }
    out
}

/// The rows as JSON, from the same figures as [`render`]: per model its MACs, weight bytes and
/// TFLM arena, and per language (`rust`, `c`; `null` for a failed side) instructions,
/// instructions per MAC, code, parameter, arena, other-RAM and stack bytes, plus the harness's
/// own sizes; with `--profile`, each operator's instructions.
pub fn json(rows: &[Row], harness: [Sizes; 2], core: &Core) -> serde_json::Value {
    use serde_json::json;
    let side = |m: &Option<Measured>, macs: Option<u64>| {
        m.as_ref().map(|m| {
            json!({
                "instructions": m.instructions,
                "instructions_per_mac": macs
                    .filter(|&n| n > 0)
                    .map(|n| m.instructions as f64 / n as f64),
                "code_bytes": m.code,
                "parameter_bytes": m.params,
                "arena_bytes": m.arena,
                "other_ram_bytes": m.other_ram,
                "stack_bytes": m.stack,
            })
        })
    };
    let models: Vec<serde_json::Value> = rows
        .iter()
        .map(|row| {
            let mut model = json!({
                "model": row.name,
                "macs": row.macs,
                "weight_bytes": row.weights,
                "tflm_arena_bytes": row.tflm_arena,
                "lower_bound_bytes": row.bound,
                "tflm_cmsis_nn_instructions": tflm_cmsis_nn(&row.name, core),
                "rust": side(&row.rust, row.macs),
                "c": side(&row.c, row.macs),
                "errors": row.errors.iter().map(|(side, e)| json!({"side": side, "error": e}))
                    .collect::<Vec<_>>(),
            });
            if !row.profile.is_empty() {
                model["operators"] = row
                    .profile
                    .iter()
                    .map(|(index, name, rust, c)| {
                        json!({"index": index, "operator": name, "rust": rust, "c": c})
                    })
                    .collect();
            }
            model
        })
        .collect();
    let sizes =
        |s: &Sizes| json!({"code_bytes": s.code, "flash_bytes": s.flash, "ram_bytes": s.ram});
    json!({
        "core": core.name,
        "target": format!(
            "{}, {} -machine {} -icount shift=0",
            core.title, core.qemu, core.machine
        ),
        "harness": {"rust": sizes(&harness[0]), "c": sizes(&harness[1])},
        "models": models,
    })
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn pair(row: &Row, f: &dyn Fn(&Measured) -> String) -> String {
    let side = |m: &Option<Measured>| m.as_ref().map_or_else(|| "FAIL".to_string(), f);
    format!("{} / {}", side(&row.rust), side(&row.c))
}

/// Instructions per inference of TFLM running ARM's CMSIS-NN kernels on the same QEMU command
/// line, one invoke, outputs bit-exact, for the listed models whose architecture was measured
/// that way (tflite-micro 90b983c, CMSIS-NN 4ab83cc, arm-none-eabi-gcc 12 -O2 -DNDEBUG).
/// Quoted, not measured by this command: building TFLM is not part of this project.
/// mobilenet_v1_025 has person_detect's layers; ad_autoencoder is MLPerf Tiny's
/// anomaly-detection autoencoder and vww_mobilenet_v1_025 its visual-wake-words network, both
/// built by the fixture generator with those architectures. The int16 models take TFLM's
/// reference FULLY_CONNECTED where CMSIS-NN refuses per-channel int16 weights (ds_cnn_int16,
/// resnet8_int16) and its reference TRANSPOSE_CONV, as many instructions, where CMSIS-NN's
/// ignores the fused activation (transpose_conv_int16); issue 36 quotes them.
const TFLM_CMSIS_NN: &[(&str, u64)] = &[
    ("person_detect", 22_928_840),
    ("mobilenet_v1_025", 22_928_840),
    ("ds_cnn", 7_697_560),
    ("resnet8", 29_864_320),
    ("micro_speech_quantized", 1_494_920),
    ("mobilenet_v2_quantized_1x3x224x224", 797_900_000),
    ("ad_autoencoder", 583_160),
    ("vww_mobilenet_v1_025", 24_102_320),
    ("keyword_scrambled", 136_800),
    ("keyword_scrambled_8bit", 120_600),
    ("depthwise_multiplier_int16", 524_320),
    ("ds_cnn_int16", 16_011_920),
    ("resnet8_int16", 32_209_320),
    ("transpose_conv_int16", 2_530_840),
    ("micro_speech_lstm", 12_101_240),
];

/// Instructions per inference of TFLM running CMSIS-NN's Helium (MVE) kernels on the
/// Cortex-M55 (`mps3-an547`, the same QEMU command line as `--core m55`), one invoke, outputs
/// bit-exact (tflite-micro 90b983c, CMSIS-NN 4ab83cc, arm-none-eabi-gcc 12 `-O2
/// -mcpu=cortex-m55 -mfloat-abi=hard`). Quoted, not measured by this command; issue 37 quotes
/// them. ds_cnn_int16 takes TFLM's reference FULLY_CONNECTED, which CMSIS-NN refuses for
/// per-channel int16 weights.
const TFLM_CMSIS_NN_MVE: &[(&str, u64)] = &[
    ("person_detect", 6_508_406),
    ("ds_cnn", 1_817_343),
    ("resnet8", 4_913_812),
    ("micro_speech_quantized", 1_008_281),
    ("ds_cnn_int16", 10_826_000),
];

/// The quoted TFLM + CMSIS-NN instructions of `model` on `core`, if measured: on the Cortex-M4
/// with CMSIS-NN's DSP kernels, on the Cortex-M55 with its Helium kernels; no other core.
pub fn tflm_cmsis_nn(model: &str, core: &Core) -> Option<u64> {
    let quoted = match core.name {
        "m4" => TFLM_CMSIS_NN,
        "m55" => TFLM_CMSIS_NN_MVE,
        _ => return None,
    };
    quoted
        .iter()
        .find(|(name, _)| *name == model)
        .map(|&(_, n)| n)
}

/// What the TFLM + CMSIS-NN column of `core`'s table quotes, for the table's note.
fn tflm_cmsis_nn_note(core: &Core) -> &'static str {
    if core.name == "m55" {
        "TFLM + CMSIS-NN: TFLM with ARM's CMSIS-NN kernels in their Helium (MVE) variants on the \
         same QEMU command line, one invoke, bit-exact (tflite-micro 90b983c, CMSIS-NN 4ab83cc, \
         arm-none-eabi-gcc 12 -O2 -mcpu=cortex-m55 -mfloat-abi=hard), quoted from a measurement \
         outside this project for the models it covered (ds_cnn_int16 with TFLM's reference \
         FULLY_CONNECTED, which CMSIS-NN refuses for per-channel int16 weights); - where none."
    } else {
        "TFLM + CMSIS-NN: TFLM with ARM's CMSIS-NN kernels on the \
         same QEMU command line, one invoke, bit-exact (tflite-micro 90b983c, CMSIS-NN 4ab83cc, \
         arm-none-eabi-gcc 12 -O2), quoted from a measurement outside this project for the \
         architectures it covered (mobilenet_v1_025 has person_detect's layers; ds_cnn_int16 and \
         resnet8_int16 with TFLM's reference FULLY_CONNECTED, which CMSIS-NN refuses for \
         per-channel int16 weights, transpose_conv_int16 with its reference TRANSPOSE_CONV, as \
         many instructions, since CMSIS-NN's ignores the fused activation); - where none."
    }
}

/// The `--core` argument that ran `runs`: `all`, or their names.
pub fn cores_argument(runs: &[CoreRun], all: bool) -> String {
    if all {
        return "all".to_string();
    }
    let names: Vec<&str> = runs.iter().map(|r| r.core.name).collect();
    names.join(",")
}

/// How the core's clock counts instructions, for the tables' notes.
pub fn clock_note(core: &Core) -> String {
    if core.insns_per_tick == (1, 1) {
        "minstret under `-icount shift=0` (QEMU counts every instruction)".to_string()
    } else {
        let (n, d) = core.insns_per_tick;
        format!(
            "SysTick under `-icount shift=0` (1 instruction = 1 ns of virtual time; the {} MHz \
             SysTick resolves {} instructions)",
            1000 * d / n,
            core.resolution()
        )
    }
}

/// The table of one core, the harness figures and what the columns mean.
pub fn render(rows: &[Row], harness: [Sizes; 2], core: &Core) -> String {
    let mut out = String::from(
        "| model | MACs | instructions / inference (Rust / C) | TFLM + CMSIS-NN instructions \
         | instructions / MAC (Rust / C) \
         | code bytes (Rust / C) | parameter bytes (Rust / C) | weight bytes \
         | arena bytes / lower bound (TFLM) \
         | other RAM bytes (Rust / C) | stack bytes (Rust / C) |\n\
         |---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
    );
    for row in rows {
        let macs = row.macs.unwrap_or(0);
        let per_mac = |m: &Measured| {
            if macs == 0 {
                "-".to_string()
            } else {
                format!("{:.2}", m.instructions as f64 / macs as f64)
            }
        };
        let arena = row
            .rust
            .or(row.c)
            .map_or_else(|| "FAIL".to_string(), |m| thousands(m.arena));
        let tflm = row.tflm_arena.map_or_else(|| "?".to_string(), thousands);
        let bound = row.bound.map_or_else(|| "?".to_string(), thousands);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} ({}) | {} | {} |",
            row.name,
            row.macs.map_or_else(|| "?".to_string(), thousands),
            pair(row, &|m| thousands(m.instructions)),
            tflm_cmsis_nn(&row.name, core).map_or_else(|| "-".to_string(), thousands),
            pair(row, &per_mac),
            pair(row, &|m| thousands(m.code)),
            pair(row, &|m| thousands(m.params)),
            row.weights.map_or_else(|| "?".to_string(), thousands),
            arena,
            bound,
            tflm,
            pair(row, &|m| thousands(m.other_ram)),
            pair(row, &|m| thousands(m.stack)),
        );
    }
    let _ = writeln!(
        out,
        "\nInstructions: {}, the slowest of the golden cases. Code: machine \
         code in flash (kernels, the generated invoke, the runtime library functions they call), \
         less the harness's own (start-up, semihosting, timing: Rust {} B, C {} B, measured around \
         a do-nothing model). Parameters: other flash besides the weights (per-channel \
         requantization multipliers and shifts, kernel parameter structs), less the harness's. Other RAM: static RAM besides the arena, less the harness's. Stack: \
         high-water mark of the whole program, painted before and scanned after each invoke. \
         Arena: the generated arena (and state) of the default plan, whose outputs overlap the \
         inputs they are the last to read where the kernels' access order allows; lower bound: \
         the liveness bound, the least any plan without such overlaps needs. \
         TFLM arena: tflm_reference.py on x86-64 (tests/fixtures/models.json, \
         ../shared/models/README.md). {}",
        clock_note(core),
        thousands(harness[0].code),
        thousands(harness[1].code),
        tflm_cmsis_nn_note(core),
    );
    out
}

/// One core's rows, for [`render_cores`].
pub struct CoreRun {
    /// The core.
    pub core: &'static Core,
    /// Its harness's sizes (Rust, C).
    pub harness: [Sizes; 2],
    /// One row per model.
    pub rows: Vec<Row>,
}

/// The summary of every core run: models bit-exact, instructions (all models and the median
/// model), instructions against the Cortex-M4's on the same models, code of all models, and the
/// largest RAM (arena, other RAM and stack) of any model, in Rust and in C.
pub fn render_cores(runs: &[CoreRun]) -> String {
    let mut out = String::from(
        "| core | QEMU machine | Rust target (flags) | C flags | models bit-exact (Rust / C) \
         | instructions, all models (Rust / C) | instructions, median model (Rust / C) \
         | instructions against the Cortex-M4 (Rust / C) | code bytes, all models (Rust / C) \
         | largest RAM bytes: arena + other + stack (Rust / C) |\n\
         |---|---|---|---|--:|--:|--:|--:|--:|--:|\n",
    );
    let m4 = runs.iter().find(|r| r.core.name == "m4");
    let side = |row: &Row, rust: bool| if rust { row.rust } else { row.c };
    for run in runs {
        let column = |f: &dyn Fn(bool) -> String| format!("{} / {}", f(true), f(false));
        let passed = |rust: bool| run.rows.iter().filter_map(|r| side(r, rust)).count();
        let total = |rust: bool| -> u64 {
            let n = run.rows.iter().filter_map(|r| side(r, rust));
            n.map(|m| m.instructions).sum()
        };
        let median = |rust: bool| {
            let mut n: Vec<u64> = run
                .rows
                .iter()
                .filter_map(|r| side(r, rust).map(|m| m.instructions))
                .collect();
            n.sort_unstable();
            n.get(n.len() / 2)
                .map_or_else(|| "-".to_string(), |&n| thousands(n))
        };
        // Against the M4 on the models both ran.
        let ratio = |rust: bool| {
            let Some(m4) = m4 else {
                return "-".to_string();
            };
            let (mut this, mut base) = (0u64, 0u64);
            for row in &run.rows {
                let other = m4.rows.iter().find(|r| r.name == row.name);
                if let (Some(a), Some(b)) = (side(row, rust), other.and_then(|o| side(o, rust))) {
                    this += a.instructions;
                    base += b.instructions;
                }
            }
            if base == 0 {
                "-".to_string()
            } else {
                format!("{:.2}x", this as f64 / base as f64)
            }
        };
        let code = |rust: bool| {
            let n = run.rows.iter().filter_map(|r| side(r, rust));
            thousands(n.map(|m| m.code).sum())
        };
        let ram = |rust: bool| {
            let n = run.rows.iter().filter_map(|r| side(r, rust));
            thousands(
                n.map(|m| m.arena + m.other_ram + m.stack)
                    .max()
                    .unwrap_or(0),
            )
        };
        let core = run.core;
        let flags = if core.rustflags.is_empty() {
            String::new()
        } else {
            format!(" (`{}`)", core.rustflags.join(" "))
        };
        let _ = writeln!(
            out,
            "| {} | {} | `{}`{flags} | `{}` | {} of {} / {} of {} | {} | {} | {} | {} | {} |",
            core.title,
            core.machine,
            core.rust_target,
            core.c_arch.join(" "),
            passed(true),
            run.rows.len(),
            passed(false),
            run.rows.len(),
            column(&|r| thousands(total(r))),
            column(&median),
            column(&ratio),
            column(&code),
            column(&ram),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_the_table_figures_per_language() {
        let measured = Measured {
            instructions: 3520,
            stack: 564,
            code: 1932,
            params: 988,
            arena: 32,
            other_ram: 0,
        };
        let row = Row {
            name: "sine_mlp".into(),
            macs: Some(288),
            weights: Some(420),
            tflm_arena: Some(1760),
            bound: Some(32),
            rust: Some(measured),
            c: None,
            errors: vec![("c", "failed".into())],
            profile: vec![(0, "FULLY_CONNECTED".into(), Some(1320), None)],
        };
        let sizes = Sizes {
            flash: 9684,
            code: 7768,
            weights: 0,
            ram: 32,
        };
        let j = json(&[row], [sizes, sizes], crate::cores::m4());
        let model = &j["models"][0];
        assert_eq!(model["model"], "sine_mlp");
        assert_eq!(model["rust"]["instructions"], 3520);
        assert_eq!(model["rust"]["code_bytes"], 1932);
        assert!(model["c"].is_null());
        assert_eq!(model["errors"][0]["side"], "c");
        assert_eq!(model["operators"][0]["operator"], "FULLY_CONNECTED");
        assert_eq!(j["harness"]["rust"]["code_bytes"], 7768);
        assert_eq!(j["core"], "m4");
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(2_192_204_760), "2,192,204,760");
    }
}

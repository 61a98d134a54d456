//! Microseconds per inference of the generated code, next to TFLM's reference kernels measured in the
//! same run on the same machine (`../shared/tools/tflm_reference.py time`).
//!
//! ```text
//! cargo run --release -p tinyaot-bench [MODEL_NAME…]
//! ```
//!
//! Without names it measures person_detect and the fixture DS-CNN. TFLM's figure needs the
//! `tflite-micro` Python package (`pip install --pre tflite-micro numpy`); without it the column says
//! so. Set `TINYAOT_PYTHON` to choose the interpreter.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use tinyaot_test_support::{shared_dir_unchecked, suites};
use tinyaot_tests::models::ENTRIES;
use tinyaot_tests::Outcome;

const DEFAULT_MODELS: &[&str] = &["person_detect", "ds_cnn"];

fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    let names: Vec<&str> = if names.is_empty() {
        DEFAULT_MODELS.to_vec()
    } else {
        names.iter().map(String::as_str).collect()
    };
    println!(
        "{:<40} {:>14} {:>14} {:>8}",
        "model", "tinyaot µs", "TFLM µs", "speedup"
    );
    for name in names {
        let Some(entry) = ENTRIES.iter().find(|e| e.name == name) else {
            println!("{name:<40} (no such model)");
            continue;
        };
        let Outcome::Compiled(make) = entry.outcome else {
            println!("{name:<40} (refused by tinyaot)");
            continue;
        };
        let ours = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || time_model(make))
            .expect("spawn")
            .join()
            .expect("benchmark thread");
        let theirs = tflm_micros(&model_path(entry.suite, name));
        match theirs {
            Ok(t) => println!("{name:<40} {ours:>14.1} {t:>14.1} {:>7.1}x", t / ours),
            Err(why) => println!("{name:<40} {ours:>14.1} {:>14} ({why})", "-"),
        }
    }
}

/// Mean microseconds per `invoke` over at least one second (after one warm-up call).
fn time_model(make: fn() -> Box<dyn tinyaot_tests::DynModel>) -> f64 {
    let mut model = make();
    let (inputs, _) = model.counts();
    for i in 0..inputs {
        for (k, b) in model.input(i).iter_mut().enumerate() {
            *b = (k.wrapping_mul(2_654_435_761) >> 13) as u8;
        }
    }
    model.invoke();
    let start = Instant::now();
    let mut runs = 0u32;
    while start.elapsed() < Duration::from_secs(1) || runs < 3 {
        model.invoke();
        runs += 1;
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(runs)
}

/// The `.tflite` file of model `name` of `suite` (as build.rs found it).
fn model_path(suite: &str, name: &str) -> PathBuf {
    let [fixtures, hostile, shared, tflm, audio] = suites(&shared_dir_unchecked());
    let models = match suite {
        "fixtures" => fixtures.models,
        "hostile" => hostile.models,
        "tflm_suite" => tflm.models,
        "audio_frontend" => audio.models,
        _ => shared.models,
    };
    models.join(format!("{name}.tflite"))
}

/// TFLM's µs per invoke from `tflm_reference.py time`.
fn tflm_micros(model: &Path) -> Result<f64, String> {
    // Unchecked: without the shared data TFLM's column says it is not available.
    let script = shared_dir_unchecked().join("tools/tflm_reference.py");
    let python = std::env::var("TINYAOT_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let out = Command::new(&python)
        .arg(&script)
        .arg("time")
        .arg(model)
        .output()
        .map_err(|e| format!("TFLM not run: {python}: {e}"))?;
    if !out.status.success() {
        return Err("TFLM not available: pip install --pre tflite-micro numpy".to_string());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .find_map(|w| w.parse::<f64>().ok())
        .ok_or_else(|| format!("unexpected TFLM output: {text}"))
}

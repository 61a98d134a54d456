//! Conformance: every model build.rs compiled runs TFLM's golden cases, in order on one instance
//! (state carries between cases, as on a device), and must reproduce TFLM's outputs: int8 (and every
//! other integer type) byte for byte, float32 within 1e-5 relative. Models that build.rs refused must
//! be exactly the expected ones, refused with an `unsupported operator` error naming the op.

use std::path::Path;

use serde_json::Value;
use tinyaot_tests::models::ENTRIES;
use tinyaot_tests::{DynModel, Outcome};

/// Models of ../shared/models that use operators tinyaot does not support yet, and the operator.
const EXPECTED_REFUSALS: &[(&str, &str)] = &[
    ("keyword_scrambled", "SVDF"),
    ("trained_lstm_int8", "UNIDIRECTIONAL_SEQUENCE_LSTM"),
];

/// Largest accepted relative difference for float32 outputs.
const F32_RELATIVE_TOLERANCE: f32 = 1e-5;

#[test]
fn every_model_matches_tflm() {
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for entry in ENTRIES {
        let label = format!("{}/{}", entry.suite, entry.name);
        match &entry.outcome {
            Outcome::Compiled(make) => {
                let golden = entry.golden.to_string();
                let make = *make;
                // Arenas of the large models are megabytes: construct and run on a big stack.
                let result = std::thread::Builder::new()
                    .stack_size(256 << 20)
                    .spawn(move || run_cases(make, Path::new(&golden)))
                    .expect("spawn")
                    .join()
                    .unwrap_or_else(|_| Err("panicked".to_string()));
                match result {
                    Ok(summary) => report.push(format!("ok       {label}: {summary}")),
                    Err(e) => {
                        report.push(format!("MISMATCH {label}: {e}"));
                        failures.push(format!("{label}: {e}"));
                    }
                }
            }
            Outcome::Refused(message) => {
                let expected = EXPECTED_REFUSALS
                    .iter()
                    .find(|(name, _)| entry.suite == "shared" && *name == entry.name);
                match expected {
                    Some((_, op))
                        if message.starts_with(&format!("unsupported operator {op} ")) =>
                    {
                        report.push(format!("refused  {label} as expected: {message}"))
                    }
                    _ => {
                        report.push(format!("REFUSED  {label}: {message}"));
                        failures.push(format!("{label} was refused: {message}"));
                    }
                }
            }
        }
    }
    for (name, _) in EXPECTED_REFUSALS {
        if !ENTRIES.iter().any(|e| {
            e.suite == "shared" && e.name == *name && matches!(e.outcome, Outcome::Refused(_))
        }) {
            failures.push(format!(
                "shared/{name} was expected to be refused but was not"
            ));
        }
    }
    println!("{}", report.join("\n"));
    assert!(
        ENTRIES.iter().any(|e| e.suite == "shared"),
        "no reference models were found"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs every case of the golden manifest in `golden` on one fresh instance.
fn run_cases(make: fn() -> Box<dyn DynModel>, golden: &Path) -> Result<String, String> {
    let manifest_path = golden.join("manifest.json");
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(&manifest_path).map_err(|e| format!("{}: {e}", manifest_path.display()))?,
    )
    .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let cases = manifest["cases"]
        .as_array()
        .ok_or("manifest has no cases")?;
    let mut model = make();
    let (n_in, n_out) = model.counts();
    let mut compared = 0usize;
    for (k, case) in cases.iter().enumerate() {
        let inputs = case["inputs"].as_array().ok_or("case has no inputs")?;
        let outputs = case["outputs"].as_array().ok_or("case has no outputs")?;
        if inputs.len() != n_in || outputs.len() != n_out {
            return Err(format!(
                "case {k}: golden has {} inputs / {} outputs, model {n_in} / {n_out}",
                inputs.len(),
                outputs.len()
            ));
        }
        for (i, input) in inputs.iter().enumerate() {
            let data = read(golden, input)?;
            let slot = model.input(i);
            if slot.len() != data.len() {
                return Err(format!(
                    "case {k} input {i}: golden has {} bytes, model {}",
                    data.len(),
                    slot.len()
                ));
            }
            slot.copy_from_slice(&data);
        }
        model.invoke();
        for (j, output) in outputs.iter().enumerate() {
            let want = read(golden, output)?;
            let got = model.output(j);
            let dtype = output["dtype"].as_str().unwrap_or("");
            compare(dtype, got, &want).map_err(|e| format!("case {k} output {j}: {e}"))?;
            compared += want.len();
        }
    }
    Ok(format!("{} cases, {compared} output bytes", cases.len()))
}

fn read(golden: &Path, item: &Value) -> Result<Vec<u8>, String> {
    let file = item["file"].as_str().ok_or("golden item without file")?;
    let path = golden.join(file);
    std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
}

fn compare(dtype: &str, got: &[u8], want: &[u8]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} bytes, expected {}", got.len(), want.len()));
    }
    if dtype == "float32" {
        let floats = |b: &[u8]| -> Vec<f32> {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        for (i, (g, w)) in floats(got).into_iter().zip(floats(want)).enumerate() {
            let tolerance = F32_RELATIVE_TOLERANCE * w.abs().max(f32::MIN_POSITIVE);
            if (g - w).abs() > tolerance || g.is_nan() != w.is_nan() {
                return Err(format!("element {i}: got {g}, TFLM {w}"));
            }
        }
        return Ok(());
    }
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        let mismatches = got.iter().zip(want).filter(|(a, b)| a != b).count();
        return Err(format!(
            "{mismatches} of {} bytes differ; first at byte {i}: got {}, TFLM {} ({dtype})",
            got.len(),
            got[i] as i8,
            want[i] as i8
        ));
    }
    Ok(())
}

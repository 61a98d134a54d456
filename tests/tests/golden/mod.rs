//! TFLM golden cases (`<golden dir>/manifest.json` and the raw tensors it names), shared by the
//! integration tests that run them (`mod golden;`): reading a manifest, feeding a case to a model
//! and checking its outputs against TFLM's.
//!
//! The rules are the conformance suite's: int8 (and every other integer type) byte for byte,
//! float32 within [`F32_RELATIVE_TOLERANCE`] relative.

// Each test crate that includes this module uses a different part of it.
#![allow(dead_code)]

use std::path::Path;

use serde_json::Value;
use tinyaot_tests::DynModel;

/// Largest accepted relative difference for float32 outputs.
pub const F32_RELATIVE_TOLERANCE: f32 = 1e-5;

/// One case: the input tensors, and TFLM's output tensors with their dtypes.
pub struct Case {
    /// Raw little-endian bytes of each input.
    pub inputs: Vec<Vec<u8>>,
    /// `(dtype, bytes)` of each of TFLM's outputs, the dtype as the manifest names it.
    pub outputs: Vec<(String, Vec<u8>)>,
}

/// The cases of the manifest in `golden`, in the order they must run.
pub fn load(golden: &Path) -> Result<Vec<Case>, String> {
    let manifest_path = golden.join("manifest.json");
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(&manifest_path).map_err(|e| format!("{}: {e}", manifest_path.display()))?,
    )
    .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let cases = manifest["cases"]
        .as_array()
        .ok_or("manifest has no cases")?;
    cases
        .iter()
        .map(|case| {
            let inputs = case["inputs"].as_array().ok_or("case has no inputs")?;
            let outputs = case["outputs"].as_array().ok_or("case has no outputs")?;
            Ok(Case {
                inputs: inputs
                    .iter()
                    .map(|item| read(golden, item))
                    .collect::<Result<_, _>>()?,
                outputs: outputs
                    .iter()
                    .map(|item| {
                        let dtype = item["dtype"].as_str().unwrap_or("").to_string();
                        Ok((dtype, read(golden, item)?))
                    })
                    .collect::<Result<_, String>>()?,
            })
        })
        .collect()
}

/// Copies the inputs of `case` into `model`, checking that the counts and sizes agree.
pub fn feed(model: &mut dyn DynModel, case: &Case) -> Result<(), String> {
    let (n_in, n_out) = model.counts();
    if case.inputs.len() != n_in || case.outputs.len() != n_out {
        return Err(format!(
            "golden has {} inputs / {} outputs, model {n_in} / {n_out}",
            case.inputs.len(),
            case.outputs.len()
        ));
    }
    for (i, data) in case.inputs.iter().enumerate() {
        let slot = model.input(i);
        if slot.len() != data.len() {
            return Err(format!(
                "input {i}: golden has {} bytes, model {}",
                data.len(),
                slot.len()
            ));
        }
        slot.copy_from_slice(data);
    }
    Ok(())
}

/// Checks the outputs of `model` against TFLM's for `case`; returns the bytes compared.
pub fn check(model: &dyn DynModel, case: &Case) -> Result<usize, String> {
    let mut compared = 0;
    for (j, (dtype, want)) in case.outputs.iter().enumerate() {
        compare(dtype, model.output(j), want).map_err(|e| format!("output {j}: {e}"))?;
        compared += want.len();
    }
    Ok(compared)
}

/// Runs every case of the golden manifest in `golden` on one fresh instance, in order (state
/// carries between cases, as on a device).
pub fn run_cases(make: fn() -> Box<dyn DynModel>, golden: &Path) -> Result<String, String> {
    let cases = load(golden)?;
    let mut model = make();
    let mut compared = 0usize;
    for (k, case) in cases.iter().enumerate() {
        feed(model.as_mut(), case).map_err(|e| format!("case {k}: {e}"))?;
        model.invoke();
        compared += check(model.as_ref(), case).map_err(|e| format!("case {k}: {e}"))?;
    }
    Ok(format!("{} cases, {compared} output bytes", cases.len()))
}

fn read(golden: &Path, item: &Value) -> Result<Vec<u8>, String> {
    let file = item["file"].as_str().ok_or("golden item without file")?;
    let path = golden.join(file);
    std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Compares one output with TFLM's: float32 within the tolerance, anything else byte for byte.
pub fn compare(dtype: &str, got: &[u8], want: &[u8]) -> Result<(), String> {
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

//! TFLM golden cases on the models build.rs compiled, shared by the integration tests that run
//! them (`mod golden;`): feeding a case to a model and checking its outputs against TFLM's.
//!
//! Reading the cases and the comparison rule (integers byte for byte, float32 within
//! `F32_RELATIVE_TOLERANCE` relative) are tinyaot-test-support's; this adds the model side.

// Each test crate that includes this module uses a different part of it.
#![allow(dead_code)]

use std::path::Path;

use tinyaot_test_support::{compare, load_cases, Case};
use tinyaot_tests::DynModel;

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
    for (i, input) in case.inputs.iter().enumerate() {
        let slot = model.input(i);
        if slot.len() != input.bytes.len() {
            return Err(format!(
                "input {i}: golden has {} bytes, model {}",
                input.bytes.len(),
                slot.len()
            ));
        }
        slot.copy_from_slice(&input.bytes);
    }
    Ok(())
}

/// Checks the outputs of `model` against TFLM's for `case`; returns the bytes compared.
pub fn check(model: &dyn DynModel, case: &Case) -> Result<usize, String> {
    let mut compared = 0;
    for (j, want) in case.outputs.iter().enumerate() {
        compare(&want.dtype, model.output(j), &want.bytes)
            .map_err(|e| format!("output {j}: {e}"))?;
        compared += want.bytes.len();
    }
    Ok(compared)
}

/// Runs `model` on the case it was fed: checks that it ran to its end, or stopped early where
/// TFLM's invoke did (a CIRCULAR_BUFFER waiting for frames), and the outputs of a case that ran;
/// returns the bytes compared.
pub fn invoke_and_check(model: &mut dyn DynModel, case: &Case) -> Result<usize, String> {
    let ran = model.invoke_ran();
    match (ran, case.waiting) {
        (true, false) => check(model, case),
        (false, true) => Ok(0),
        (true, true) => Err("ran to its end where TFLM's invoke returned kTfLiteAbort".into()),
        (false, false) => Err("stopped early (waiting for frames) where TFLM's invoke ran".into()),
    }
}

/// Runs every case of the golden manifest in `golden` on one fresh instance, in order (state
/// carries between cases, as on a device).
pub fn run_cases(make: fn() -> Box<dyn DynModel>, golden: &Path) -> Result<String, String> {
    let cases = load_cases(golden)?;
    let mut model = make();
    let mut compared = 0usize;
    for (k, case) in cases.iter().enumerate() {
        feed(model.as_mut(), case).map_err(|e| format!("case {k}: {e}"))?;
        compared += invoke_and_check(model.as_mut(), case).map_err(|e| format!("case {k}: {e}"))?;
    }
    // After reset the model is a fresh instance again (a stateful model's first case, run after
    // the others, gives case 0's outputs only if reset restored the initial state).
    if let Some(first) = cases.first() {
        model.reset();
        feed(model.as_mut(), first).map_err(|e| format!("case 0 after reset: {e}"))?;
        invoke_and_check(model.as_mut(), first).map_err(|e| format!("case 0 after reset: {e}"))?;
    }
    Ok(format!("{} cases, {compared} output bytes", cases.len()))
}

//! `--tflm-arena auto`: TFLM's arena for the model, asked of TFLM itself. The project's other
//! figures of TFLM's arena (README tables, `tests/fixtures/models.json`) come from
//! `tflm_reference.py arena` of its shared data: TFLM's `print_allocations` after the
//! interpreter has allocated the model, read from the C-level stderr. The same here, with the
//! Python package `tflite-micro` run by `$TINYAOT_PYTHON` (default `python3`); the interpreter
//! allocates at construction, so no invoke is needed (the figures are the same).

use std::path::Path;
use std::process::Command;

/// Allocates the model given as the first argument in TFLM's interpreter (a 64 MiB arena, more
/// than any model here needs; what TFLM uses of it is what it reports) and prints its
/// allocations to stderr.
const SCRIPT: &str = "import sys\n\
from tflite_micro.python.tflite_micro import runtime\n\
runtime.Interpreter.from_file(sys.argv[1], arena_size=64 << 20).print_allocations()\n";

/// TFLM's arena for one model: `total` is what an application gives TFLM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TflmArena {
    /// `head + tail`: the arena TFLM needs.
    pub total: u64,
    /// The planned tensors and scratch buffers.
    pub head: u64,
    /// TFLM's persistent bookkeeping (tensor and node structs, quantization parameters).
    pub tail: u64,
}

/// Runs TFLM on `model`; the error says what is missing.
pub fn measure(model: &Path) -> Result<TflmArena, String> {
    let python = std::env::var("TINYAOT_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let out = Command::new(&python)
        .arg("-c")
        .arg(SCRIPT)
        .arg(model)
        .output()
        .map_err(|e| format!("--tflm-arena auto runs TFLM with `{python}`, which failed: {e}"))?;
    let log = String::from_utf8_lossy(&out.stderr);
    parse(&log).ok_or_else(|| {
        let last = log.lines().last().unwrap_or("no output");
        format!(
            "--tflm-arena auto: TFLM did not report its arena (`{python}` with the tflite-micro \
             package: pip install --pre tflite-micro numpy; or give the figure, --tflm-arena \
             BYTES): {last}"
        )
    })
}

/// The `Arena allocation total|head|tail N bytes` lines of TFLM's `print_allocations`.
fn parse(log: &str) -> Option<TflmArena> {
    let figure = |key: &str| {
        log.lines()
            .find(|l| l.contains(&format!("Arena allocation {key} ")))?
            .split_whitespace()
            .rev()
            .nth(1)?
            .parse::<u64>()
            .ok()
    };
    Some(TflmArena {
        total: figure("total")?,
        head: figure("head")?,
        tail: figure("tail")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_print_allocations() {
        let log = "noise\n[RecordingMicroAllocator] Arena allocation total 24224 bytes\n\
                   [RecordingMicroAllocator] Arena allocation head 16000 bytes\n\
                   [RecordingMicroAllocator] Arena allocation tail 8224 bytes\n";
        assert_eq!(
            parse(log),
            Some(TflmArena {
                total: 24224,
                head: 16000,
                tail: 8224
            })
        );
        assert_eq!(parse("Traceback: ModuleNotFoundError"), None);
    }
}

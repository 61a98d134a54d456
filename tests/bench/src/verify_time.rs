//! Times tinyaot-schema's verifier on a model file: `cargo run --release -p tinyaot-bench --bin
//! verify_time -- MODEL.tflite [ROUNDS]`. Uses the limits tinyaot's loader derives from the length
//! (codegen/src/load/verify.rs), and times refusals too.

use std::time::Instant;

use tinyaot_schema::tflite;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: verify_time MODEL.tflite [ROUNDS]");
    let rounds: u32 = args
        .next()
        .map_or(20, |r| r.parse().expect("ROUNDS is a number"));
    let bytes = std::fs::read(&path).expect("readable model");
    let len = bytes.len();
    let opts = flatbuffers::VerifierOptions {
        max_depth: 32,
        max_tables: len / 4 + 1,
        max_apparent_size: len.saturating_mul(4).saturating_add(1 << 16),
        ignore_missing_null_terminator: false,
    };
    let mut best = f64::INFINITY;
    let mut total = 0.0;
    let mut outcome = String::new();
    for _ in 0..rounds {
        let start = Instant::now();
        let result = tflite::root_as_model_with_opts(&opts, &bytes);
        let t = start.elapsed().as_secs_f64();
        outcome = match std::hint::black_box(result) {
            Ok(_) => "verified".to_string(),
            Err(e) => format!("refused ({e})"),
        };
        best = best.min(t);
        total += t;
    }
    println!(
        "{path}: {len} bytes, {outcome} in {:.3} ms best, {:.3} ms mean of {rounds}",
        best * 1e3,
        total * 1e3 / f64::from(rounds)
    );
}

//! Replays fuzzer inputs of the `pipeline` target: prints the model each input generates and what
//! the pipeline makes of it, or (`--stats`) how far a whole corpus directory gets.
//!
//!   cargo run -p tinyaot-modelkit --features arbitrary --example replay -- FILE...
//!   cargo run -p tinyaot-modelkit --features arbitrary --example replay -- --stats DIR
use std::collections::BTreeMap;

use tinyaot_codegen::{c_sources, COptions, Config};
use tinyaot_modelkit::fuzz::model_from_bytes;

fn outcome(bytes: &[u8]) -> String {
    let graph = match tinyaot_codegen::load::load(bytes) {
        Ok(g) => g,
        Err(e) => return format!("load: {}", kind(&e)),
    };
    if let Err(e) = tinyaot_codegen::plan::plan_graph(&graph) {
        return format!("plan: {}", kind(&e));
    }
    if let Err(e) = tinyaot_codegen::lower::lower(&graph) {
        return format!("lower: {}", kind(&e));
    }
    let rust = Config::new().generate(bytes, "fuzz");
    let c = c_sources(
        bytes,
        &COptions {
            prefix: "fuzz".to_string(),
            source_name: "fuzz.tflite".to_string(),
        },
    );
    match (rust, c) {
        (Ok(_), Ok(_)) => "ok".to_string(),
        (r, c) => format!("emit: rust {:?} / c {:?}", r.err(), c.err()),
    }
}

fn kind(e: &tinyaot_codegen::Error) -> String {
    let s = format!("{e:?}");
    let kind = s.split([' ', '{', '(']).next().unwrap_or("").to_string();
    if std::env::var_os("REPLAY_DETAIL").is_none() {
        return kind;
    }
    // With REPLAY_DETAIL, group by message too (digits blanked so that similar errors collapse).
    let msg: String = e
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_digit() { '#' } else { c })
        .collect();
    format!("{kind}: {}", msg.chars().take(140).collect::<String>())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--stats") {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for dir in &args[1..] {
            for entry in std::fs::read_dir(dir).expect("read corpus dir").flatten() {
                // A live corpus loses files while libFuzzer reduces it: skip those.
                let Ok(data) = std::fs::read(entry.path()) else {
                    continue;
                };
                let bytes = model_from_bytes(&data).to_bytes();
                *counts.entry(outcome(&bytes)).or_default() += 1;
            }
        }
        for (k, n) in counts {
            println!("{n:6} {k}");
        }
        return;
    }
    for path in &args {
        let data = std::fs::read(path).expect("read input");
        let spec = model_from_bytes(&data);
        println!("== {path}\n{spec:#?}");
        let bytes = spec.to_bytes();
        println!("outcome: {}", outcome(&bytes));
        let rust = Config::new().generate(&bytes, "fuzz");
        println!("rust: {:?}", rust.as_ref().err());
    }
}

//! Fuzz target: the whole pipeline (load → fold → lower → plan → emit, both backends) on models that
//! `tinyaot_modelkit::fuzz::arbitrary_model` generates from the fuzzer's bytes — mostly well-typed
//! chains of the supported operators, with frequent corruptions — so that inputs get past the
//! loader into lowering, planning and emission; planning with and without overlaps, in the
//! file's operator order and in the one with the lowest peak; with memory regions besides the
//! arena.
//!
//! Fails (panics, so libFuzzer keeps the input) when any stage panics, when any stage returns an
//! error that `Error::is_internal` calls a tinyaot bug, or when the backends disagree: the Rust and
//! C backends share everything up to emission, so one accepting a model the other refuses is a bug.
//!
//! Replay a crash as a model: `cargo run -p tinyaot-modelkit --features arbitrary --example replay
//! -- fuzz/artifacts/pipeline/crash-…` (from the repository root).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tinyaot_codegen::{c_sources, COptions, Config, Error};

fn check<T>(stage: &str, r: &Result<T, Error>) {
    if let Err(e) = r {
        assert!(!e.is_internal(), "{stage}: internal error: {e}");
    }
}

fuzz_target!(|data: &[u8]| {
    let spec = tinyaot_modelkit::fuzz::model_from_bytes(data);
    let bytes = spec.to_bytes();

    // Each backend runs the whole pipeline (load, plan and its checker, lower, emit); a model that
    // fails in a shared stage fails there, before its emitter, in both.
    let rust = Config::new().generate(&bytes, "fuzz");
    check("rust backend", &rust);
    let c = c_sources(
        &bytes,
        &COptions {
            prefix: "fuzz".to_string(),
            source_name: "fuzz.tflite".to_string(),
        },
    );
    check("C backend", &c);
    assert_eq!(
        rust.is_ok(),
        c.is_ok(),
        "backend parity: rust {:?}, C {:?}",
        rust.as_ref().err(),
        c.as_ref().err()
    );

    // Overlaps (the default, each proven by the checker inside `plan`) never need more than the
    // bound-only plan, whose arena is the bound; another operator order (the default too) is
    // taken only for a smaller arena.
    if let (Ok(with), Ok(file_order), Ok(without)) = (
        Config::new().plan(&bytes),
        Config::new().reorder(false).plan(&bytes),
        Config::new().overlap(false).reorder(false).plan(&bytes),
    ) {
        let (with, file_order, without) = (
            with.memory_plan(),
            file_order.memory_plan(),
            without.memory_plan(),
        );
        assert!(with.arena_bytes <= file_order.arena_bytes, "reordering grew the arena");
        assert!(file_order.arena_bytes <= without.arena_bytes, "overlaps grew the arena");
        assert_eq!(file_order.lower_bound_bytes, without.lower_bound_bytes);
        assert!(without.overlaps.is_empty());
    }

    // Memory regions (sized from the input): the chooser, the region placement, its check
    // (inside `plan`) and both emitters, which must agree; nothing moves into a region that does
    // not fit, and the arena never grows.
    let size = 16 * (1 + usize::from(data.first().copied().unwrap_or(0)) * 4);
    let mut config = Config::new();
    config
        .memory_region("dtcm", size, ".dtcm")
        .memory_region("sram2", size / 2 + 16, ".sram2");
    if let (Ok(regions), Ok(arena_only)) = (config.plan(&bytes), Config::new().plan(&bytes)) {
        let (regions, arena_only) = (regions.memory_plan(), arena_only.memory_plan());
        assert!(regions.arena_bytes <= arena_only.arena_bytes, "regions grew the arena");
        for used in &regions.memory_regions {
            assert!(used.bytes <= used.region.capacity, "a region past its capacity");
        }
    }
    let rust = config.generate(&bytes, "fuzz");
    check("rust backend with regions", &rust);
    let c = config.generate_c(&bytes, "fuzz");
    check("C backend with regions", &c);
    assert_eq!(rust.is_ok(), c.is_ok(), "backend parity with regions");
});

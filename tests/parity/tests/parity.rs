//! Every Rust kernel against its C twin, byte for byte, on the calls lowering makes:
//! - corner cases: every fixture model (tests/fixtures/models), the compiled models of TFLM's
//!   integration suite (../shared/models/tflm_suite), and every accepted model of the
//!   hostile suite, whose parameters are the legitimate corners (tiny and huge scales, odd shapes,
//!   broadcasts, strides, …);
//! - property tests: random models from `tinyaot_modelkit::fuzz`, each lowered call checked;
//! - overlaps: every access contract a kernel call declares, on the fixture, hostile and shared
//!   models and on random models of the kernels that declare them
//!   (`tinyaot_modelkit::fuzz::overlap_model`), run at its tightest overlap in both languages and
//!   compared with the same call apart.
//!
//! Every kernel of the runtime must be reached by the corner cases (the test lists the ones
//! that are not), so a new kernel cannot join untested; and every contract of every kernel that
//! keeps one (`tinyaot_codegen::lower::CONTRACTS`, the list the lowering is held to) must be run
//! overlapped. Without the shared data (which alone reaches some kernels) both requirements are
//! skipped, saying so, and fail in CI.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use tinyaot_codegen::lower::{Contract, CONTRACTS};
use tinyaot_modelkit::hostile::{cases, Expect};
use tinyaot_modelkit::{
    Activation, BuiltinOperator as B, ModelSpec, Options, TensorSpec, TensorType,
};
use tinyaot_parity::{check_model, check_overlaps, ffi, OverlapOutcome, KERNELS};

/// CONCATENATION of 1 to 10 inputs (one kernel per arity), int8 and float32, the second input a
/// constant where there is one (the `Src::Bytes` path), along the last axis.
fn concatenations() -> Vec<(String, Vec<u8>)> {
    let mut models = Vec::new();
    for n in 1..=10i32 {
        for float in [false, true] {
            let tensor = |width: i32| {
                if float {
                    TensorSpec::f32(&[1, 2, width])
                } else {
                    TensorSpec::int8(&[1, 2, width], 0.5, -3)
                }
            };
            let inputs: Vec<TensorSpec> = (1..=n)
                .map(|i| {
                    let t = tensor(i);
                    match (i, float) {
                        (2, false) => t.constant_i8(&vec![7; 2 * i as usize]),
                        (2, true) => t.constant_f32(&vec![0.25; 2 * i as usize]),
                        _ => t,
                    }
                })
                .collect();
            let width = n * (n + 1) / 2;
            let spec = ModelSpec::single_op(
                B::CONCATENATION,
                Options::Concatenation {
                    axis: -1,
                    activation: Activation::NONE,
                },
                inputs,
                vec![tensor(width)],
            );
            let kind = if float { "float" } else { "int8" };
            models.push((format!("concat{n}_{kind}"), spec.to_bytes()));
        }
    }
    models
}

/// SPLIT_V of an int8 or int16 `[1, 2, w]` (a constant for one of them) into 1 to 10 outputs of
/// widths 1..=n along the last axis: every fixed-arity split kernel, on rows of several chunks.
fn splits() -> Vec<(String, Vec<u8>)> {
    let mut models = Vec::new();
    for n in 1..=10i32 {
        for int16 in [false, true] {
            let tensor = |width: i32| {
                if int16 {
                    TensorSpec::new(TensorType::INT16, &[1, 2, width]).quant(0.5, 0)
                } else {
                    TensorSpec::int8(&[1, 2, width], 0.5, -3)
                }
            };
            let width = n * (n + 1) / 2;
            let input = if n == 3 && !int16 {
                tensor(width).constant_i8(&vec![5; 2 * width as usize])
            } else {
                tensor(width)
            };
            let sizes = TensorSpec::int32(&[n]).constant_i32(&(1..=n).collect::<Vec<_>>());
            let axis = TensorSpec::int32(&[1]).constant_i32(&[-1]);
            let spec = ModelSpec::single_op(
                B::SPLIT_V,
                Options::None,
                vec![input, sizes, axis],
                (1..=n).map(tensor).collect(),
            );
            let kind = if int16 { "int16" } else { "int8" };
            models.push((format!("split{n}_{kind}"), spec.to_bytes()));
        }
    }
    models
}

/// Each model of `files` that tinyaot compiles, named `<prefix>/<stem>` (the others are the
/// conformance test's to require refused).
fn compiled(prefix: &str, files: Vec<PathBuf>) -> Vec<(String, Vec<u8>)> {
    files
        .into_iter()
        .map(|p| {
            let name = p
                .file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (
                format!("{prefix}/{name}"),
                std::fs::read(&p).expect("readable model"),
            )
        })
        .filter(|(_, bytes)| {
            tinyaot_codegen::Config::new()
                .generate(bytes, "model")
                .is_ok()
        })
        .collect()
}

/// The models of TFLM's integration suite (`<shared>/models/tflm_suite`) that tinyaot compiles:
/// the int16 SEANet layers, whose kernels no fixture reaches, and the stateful models.
fn tflm_suite_models(shared: &Path) -> Vec<(String, Vec<u8>)> {
    let [.., tflm, _] = tinyaot_test_support::suites(shared);
    compiled("tflm_suite", tflm.model_files())
}

/// The models of `<shared>/models` (not its subdirectories) that tinyaot compiles.
fn shared_models(shared: &Path) -> Vec<(String, Vec<u8>)> {
    let [.., reference, _, _] = tinyaot_test_support::suites(shared);
    compiled("shared", reference.model_files())
}

/// TFLM's audio front-end models (`<shared>/models/audio_frontend`) that tinyaot compiles: the
/// signal library's kernels on the shapes and tables of a real front end.
fn audio_frontend_models(shared: &Path) -> Vec<(String, Vec<u8>)> {
    let [.., audio] = tinyaot_test_support::suites(shared);
    compiled("audio_frontend", audio.model_files())
}

/// Every fixture model (all that `models.json` lists: a missing one fails the test).
fn fixture_models() -> Vec<(String, Vec<u8>)> {
    tinyaot_test_support::fixture_models()
        .into_iter()
        .map(|p| {
            let name = p
                .file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read(&p).expect("readable fixture"))
        })
        .collect()
}

#[test]
fn every_kernel_matches_its_c_twin_on_the_corner_cases() {
    let mut covered = BTreeSet::new();
    let mut differences = Vec::new();
    let mut calls = 0;
    let accepted = cases()
        .into_iter()
        .filter(|c| matches!(c.expect, Expect::Accepted))
        .map(|c| (format!("hostile/{}", c.name), c.model));
    // The int16 SEANet layers of TFLM's suite reach kernels nothing else does: without the
    // shared data, every call is still compared, but not every kernel can be required.
    let shared = tinyaot_test_support::shared_dir_or_skip(
        "comparing TFLM's suite's kernel calls, and requiring every kernel reached",
    );
    let all = fixture_models()
        .into_iter()
        .chain(accepted)
        .chain(concatenations())
        .chain(splits())
        .chain(shared.iter().flat_map(|dir| tflm_suite_models(dir)))
        .chain(shared.iter().flat_map(|dir| audio_frontend_models(dir)));
    for (seed, (name, model)) in all.enumerate() {
        let outcome = check_model(&name, &model, seed as u64).unwrap_or_else(|e| panic!("{e}"));
        calls += outcome.compared.len();
        covered.extend(outcome.compared);
        differences.extend(outcome.differences);
    }
    assert!(
        differences.is_empty(),
        "{} of {calls} kernel calls differ between Rust and C:\n{}",
        differences.len(),
        differences.join("\n")
    );
    let missing: Vec<String> = KERNELS
        .iter()
        .filter(|(m, f)| !covered.contains(&(m.to_string(), f.to_string())))
        .map(|(m, f)| format!("{m}::{f}"))
        .collect();
    assert!(
        missing.is_empty() || shared.is_none(),
        "kernels no corner case reaches (add a fixture or a hostile-suite corner): {}",
        missing.join(", ")
    );
}

/// `copy::copy`, which the emitters call for a RESHAPE whose output does not share its input's
/// storage (no lowered call names it), on every length up to 64 and a few offsets.
#[test]
fn copy_matches_its_c_twin() {
    for bytes in 0..64 {
        for (input, output) in [(0, 64), (64, 0), (3, 80), (80, 17)] {
            let start: Vec<u8> = (0..160u8).map(|i| i.wrapping_mul(37)).collect();
            let mut rust = start.clone();
            tinyaot::kernels::copy::copy(&mut rust, input, output, bytes);
            let mut c = start;
            let base = c.as_mut_ptr();
            // SAFETY: both ranges, input..input + bytes and output..output + bytes, are within the
            // 160-byte buffer (at most 80 + 63 = 143) and do not overlap (the offsets differ by at
            // least 64 where bytes < 64).
            unsafe {
                ffi::parity_copy_copy(base.add(input), base.add(output), bytes);
            }
            assert_eq!(rust, c, "copy of {bytes} bytes from {input} to {output}");
        }
    }
}

/// int16 LOGISTIC and TANH on every int16 input, for input rescalings that between them reach
/// every entry of the sigmoid table (and its saturation): the C twin's copy of the table must be
/// the runtime's, entry for entry, which the fixtures' inputs alone would not show.
#[test]
fn int16_logistic_and_tanh_match_their_c_twins_on_every_input() {
    use tinyaot::kernels::logistic_tanh as k;
    let len = 1usize << 16;
    let start: Vec<u8> = (i16::MIN..=i16::MAX).flat_map(i16::to_le_bytes).collect();
    // (multiplier, right shift): TFLM's power-of-two cases (3, 6) and general ones up to 32767.
    for (multiplier, shift) in [
        (3, 0),
        (6, 0),
        (24576, 12),
        (18432, 13),
        (32767, 0),
        (20000, 3),
    ] {
        for tanh in [false, true] {
            let rust_p = k::LogisticS16 {
                len,
                input_multiplier: multiplier,
                input_right_shift: shift,
            };
            let c_p = tinyaot_parity::ffi::logistic_tanh::LogisticS16 {
                len,
                input_multiplier: multiplier,
                input_right_shift: shift,
            };
            let mut rust = start.clone();
            rust.resize(4 * len, 0);
            let mut c = rust.clone();
            if tanh {
                k::tanh_s16(&mut rust, 0, 2 * len, &rust_p);
            } else {
                k::logistic_s16(&mut rust, 0, 2 * len, &rust_p);
            }
            let base = c.as_mut_ptr();
            // SAFETY: the input is the first 2 * len bytes of the 4 * len-byte buffer, the output
            // the last 2 * len; `c_p.len` is len.
            unsafe {
                if tanh {
                    ffi::parity_logistic_tanh_tanh_s16(base, base.add(2 * len), &c_p);
                } else {
                    ffi::parity_logistic_tanh_logistic_s16(base, base.add(2 * len), &c_p);
                }
            }
            assert!(
                rust == c,
                "{} of ({multiplier}, {shift}) differs between Rust and C",
                if tanh { "tanh_s16" } else { "logistic_s16" }
            );
        }
    }
}

/// float32 EXP and LOG (their float math: glibc's `expf` / `logf` algorithms, the fast paths and
/// their fallbacks) against their C twins on every float whose bits are a multiple of `step`,
/// 2^20 at a time.
fn exp_log_match_their_c_twins(step: usize) {
    use tinyaot::kernels::math as k;
    const CHUNK: usize = 1 << 20;
    let all: Vec<u32> = (0..=u32::MAX).step_by(step).collect();
    for inputs in all.chunks(CHUNK) {
        let len = inputs.len();
        let start: Vec<u8> = inputs.iter().flat_map(|b| b.to_le_bytes()).collect();
        for log in [false, true] {
            let mut rust = start.clone();
            rust.resize(8 * len, 0);
            let mut c = rust.clone();
            if log {
                k::log_f32(&mut rust, 0, 4 * len, &k::UnaryF32 { len });
            } else {
                k::exp_f32(&mut rust, 0, 4 * len, &k::UnaryF32 { len });
            }
            let c_p = ffi::math::UnaryF32 { len };
            let base = c.as_mut_ptr();
            // SAFETY: the input is the first 4 * len bytes of the 8 * len-byte buffer, the output
            // the last 4 * len; `c_p.len` is len.
            unsafe {
                if log {
                    ffi::parity_math_log_f32(base, base.add(4 * len), &c_p);
                } else {
                    ffi::parity_math_exp_f32(base, base.add(4 * len), &c_p);
                }
            }
            assert!(
                rust == c,
                "{} differs between Rust and C from {:#010x}",
                if log { "log_f32" } else { "exp_f32" },
                inputs[0]
            );
        }
    }
}

/// float32 EXP and LOG against their C twins on every 257th float.
#[test]
fn float_exp_and_log_match_their_c_twins() {
    exp_log_match_their_c_twins(257);
}

/// float32 EXP and LOG against their C twins on every float (a few minutes in release):
/// `cargo test -p tinyaot-parity --release --test parity float_exp_and_log_match_their_c_twins_on_every_float -- --ignored`.
#[test]
#[ignore = "exhaustive: a few minutes in release"]
fn float_exp_and_log_match_their_c_twins_on_every_float() {
    exp_log_match_their_c_twins(1);
}

/// The random models of the property test do reach the kernels (a generator that only made
/// refused models would make it pass vacuously).
#[test]
fn random_models_reach_the_kernels() {
    let mut compared = 0;
    let mut state = 0x5EED_u64;
    for _ in 0..300 {
        let bytes: Vec<u8> = (0..512)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) as u8
            })
            .collect();
        if let Some(outcome) = accepted_outcome(&bytes, state) {
            assert!(
                outcome.differences.is_empty(),
                "{}",
                outcome.differences.join("\n")
            );
            compared += outcome.compared.len();
        }
    }
    assert!(
        compared >= 100,
        "only {compared} kernel calls in 300 random models"
    );
}

/// The parity outcome of the model generated from `bytes`, if the pipeline accepts it (the rest
/// is refused before any kernel exists; the fuzzers check those refusals) and its float32
/// constants are finite: the generator draws NaN weights too (hostile input), whose payloads C and
/// Rust need not propagate alike, as `filled_arena` says of the activations.
fn accepted_outcome(bytes: &[u8], seed: u64) -> Option<tinyaot_parity::Outcome> {
    let model = tinyaot_modelkit::fuzz::model_from_bytes(bytes).to_bytes();
    let graph =
        tinyaot_codegen::config::load_and_fold(&model, &tinyaot_codegen::Limits::default()).ok()?;
    let non_finite = graph.tensors.iter().any(|t| {
        t.dtype == tinyaot_codegen::ir::DType::F32
            && t.data.as_deref().is_some_and(|d| {
                d.chunks_exact(4)
                    .any(|c| !f32::from_le_bytes([c[0], c[1], c[2], c[3]]).is_finite())
            })
    });
    if non_finite {
        return None;
    }
    tinyaot_codegen::plan::plan_graph(&graph).ok()?;
    tinyaot_codegen::lower::lower(&graph).ok()?;
    Some(check_model("random", &model, seed).unwrap_or_else(|e| panic!("{e}")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_models_run_identically_in_rust_and_c(bytes in proptest::collection::vec(any::<u8>(), 0..1024), seed in any::<u64>()) {
        if let Some(outcome) = accepted_outcome(&bytes, seed) {
            prop_assert!(outcome.differences.is_empty(), "{}", outcome.differences.join("\n"));
        }
    }
}

/// The overlapped runs (`Overlapped::contract`) that show a kernel keeping `contract`: a
/// reversible stream runs forwards and backwards.
fn runs_of(contract: Contract) -> &'static [&'static str] {
    match contract {
        Contract::InPlace => &["in place"],
        Contract::Slice => &["slice"],
        Contract::Stream => &["stream"],
        Contract::ReversibleStream => &["stream", "reversed stream"],
    }
}

/// Fails unless `outcomes` found no difference and ran, at its tightest overlap, every contract
/// the lowering may declare (`tinyaot_codegen::lower::CONTRACTS`, the list the lowering is held
/// to): each kernel's when `per_kernel` holds for its kind of contract, else the module's by some
/// kernel of the module; `what` names the models.
fn require_every_contract(
    what: &str,
    outcomes: &[OverlapOutcome],
    per_kernel: fn(Contract) -> bool,
) {
    let differences: Vec<&String> = outcomes.iter().flat_map(|o| &o.differences).collect();
    let overlapped: Vec<_> = outcomes.iter().flat_map(|o| &o.overlapped).collect();
    assert!(
        differences.is_empty(),
        "{} of {} overlapped calls of {what} differ:\n{}",
        differences.len(),
        overlapped.len(),
        differences
            .iter()
            .map(|d| d.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    // Every (module, function, run) that ran.
    let ran: BTreeSet<(&str, &str, &str)> = overlapped
        .iter()
        .map(|o| (o.module.as_str(), o.function.as_str(), o.contract))
        .collect();
    let mut missing = BTreeSet::new();
    for &(module, function, contract) in CONTRACTS {
        for &run in runs_of(contract) {
            if per_kernel(contract) {
                if !ran.contains(&(module, function, run)) {
                    missing.insert(format!("{module}::{function} ({run})"));
                }
            } else if !ran.iter().any(|&(m, _, r)| m == module && r == run) {
                missing.insert(format!("{module} ({run})"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{what}: no overlapped call of {} (of {} overlapped calls; CONTRACTS in \
         codegen/src/lower/access.rs lists what the kernels keep)",
        missing.into_iter().collect::<Vec<_>>().join(", "),
        overlapped.len()
    );
}

/// CONCATENATION of 1 to 10 int8 rows `[1, i]` along their last axis: each input a whole row of
/// the output, so every fixed-arity kernel declares its slice contracts.
fn row_concatenations() -> Vec<(String, Vec<u8>)> {
    (1..=10i32)
        .map(|n| {
            let row = |width: i32| TensorSpec::int8(&[1, width], 0.5, -3);
            let spec = ModelSpec::single_op(
                B::CONCATENATION,
                Options::Concatenation {
                    axis: -1,
                    activation: Activation::NONE,
                },
                (1..=n).map(row).collect(),
                vec![row(n * (n + 1) / 2)],
            );
            (format!("row_concat{n}"), spec.to_bytes())
        })
        .collect()
}

/// Every contract the fixture models, the accepted hostile models, rows concatenated, the shared
/// reference models and TFLM's suite declare, overlapped as tightly as it allows, gives the same
/// output as apart, in Rust and in C; and between them they overlap every contract of every
/// kernel that keeps one.
#[test]
fn every_contract_holds_at_its_tightest_overlap_on_the_models() {
    let shared = tinyaot_test_support::shared_dir_or_skip(
        "overlapping the contracts of the shared reference models and TFLM's suite, and \
         requiring every contract overlapped",
    );
    let accepted = cases()
        .into_iter()
        .filter(|c| matches!(c.expect, Expect::Accepted))
        .map(|c| (format!("hostile/{}", c.name), c.model));
    let from_shared = shared
        .iter()
        .flat_map(|dir| shared_models(dir).into_iter().chain(tflm_suite_models(dir)));
    let outcomes: Vec<OverlapOutcome> = fixture_models()
        .into_iter()
        .chain(accepted)
        .chain(row_concatenations())
        .chain(from_shared)
        .enumerate()
        .map(|(seed, (name, model))| {
            check_overlaps(&name, &model, seed as u64).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    if shared.is_some() {
        require_every_contract("the models", &outcomes, |_| true);
    } else {
        // Differences still fail; the kernels only the shared models reach cannot be required.
        require_every_contract("the models", &outcomes, |_| false);
    }
}

/// The bytes of random model `i` of a fixed sequence (a 64-bit LCG), for the deterministic
/// sample of the overlap generator.
fn sample_bytes(i: u64, len: usize) -> Vec<u8> {
    let mut state = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x0BAD_5EED;
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u8
        })
        .collect()
}

/// The overlap outcome of the model `overlap_model` makes of `bytes`, if the pipeline accepts it
/// (a few scale pairs are refused, as TFLM refuses them).
fn overlap_outcome(bytes: &[u8], seed: u64) -> Option<OverlapOutcome> {
    let model = tinyaot_modelkit::fuzz::overlap_model_from_bytes(bytes).to_bytes();
    tinyaot_codegen::Config::new()
        .generate(&model, "model")
        .ok()?;
    Some(check_overlaps("random", &model, seed).unwrap_or_else(|e| panic!("{e}")))
}

/// A fixed sample of random models reaches every contract of every kernel that declares one (so
/// the property test below cannot pass by testing nothing), and every one holds.
#[test]
fn random_models_reach_every_contract_overlapped() {
    let outcomes: Vec<OverlapOutcome> = (0..300)
        .filter_map(|i| overlap_outcome(&sample_bytes(i, 256), i))
        .collect();
    // `overlap_model` draws every variant of the convolutions (its channel counts are chosen for
    // that), but of the element-wise and quantize kernels int8 and float32 ones only, and one
    // concatenation arity: each streaming kernel is required, and each module for the others.
    require_every_contract("300 random models", &outcomes, |contract| {
        matches!(contract, Contract::Stream | Contract::ReversibleStream)
    });
}

proptest! {
    // A fixed seed: the same cases every run.
    #![proptest_config(ProptestConfig {
        cases: 128,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x0C0FFEE),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_contracts_hold_at_their_tightest_overlap(bytes in proptest::collection::vec(any::<u8>(), 0..256), seed in any::<u64>()) {
        if let Some(outcome) = overlap_outcome(&bytes, seed) {
            prop_assert!(outcome.differences.is_empty(), "{}", outcome.differences.join("\n"));
        }
    }
}

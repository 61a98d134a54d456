use arbitrary::Unstructured;
use tinyaot_modelkit::fuzz::*;
use tinyaot_modelkit::BuiltinOperator as B;

/// A deterministic stream of pseudo-random bytes (xorshift), for sampling the generator.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn generation_is_deterministic_and_total() {
    for seed in 0..200 {
        let bytes = noise(seed, 512);
        let a = model_from_bytes(&bytes);
        // Compared as files: NaN scales make the specs themselves unequal to themselves.
        assert_eq!(a.to_bytes(), model_from_bytes(&bytes).to_bytes());
        assert!(!a.operators.is_empty());
        assert!(!a.to_bytes().is_empty());
    }
    // No bytes at all still gives a model.
    assert!(!model_from_bytes(&[]).operators.is_empty());
}

/// The generator draws the arities only the variadic kernels take: UNPACK into more than 10
/// outputs, ADD_N of more than 8 inputs.
#[test]
fn draws_variadic_arities() {
    let (mut unpack, mut add_n) = (0, 0);
    for seed in 0..500 {
        let m = model_from_bytes(&noise(seed, 1024));
        for op in &m.operators {
            let code = m
                .opcodes
                .get(op.opcode_index as usize)
                .map(|c| c.builtin_code);
            if code == Some(B::UNPACK) && op.outputs.len() > 10 {
                unpack += 1;
            }
            if code == Some(B::ADD_N) && op.inputs.len() > 8 {
                add_n += 1;
            }
        }
    }
    assert!(unpack > 0 && add_n > 0, "{unpack} UNPACK, {add_n} ADD_N");
}

/// Some of the WHILE loops and resource variables (CALL_ONCE's init subgraph among them) the
/// generator draws get through the whole pipeline: what they are made of is what tinyaot
/// compiles.
#[test]
fn draws_loops_and_variables_that_compile() {
    for op in [B::WHILE, B::CALL_ONCE, B::ASSIGN_VARIABLE] {
        let (mut drawn, mut compiled) = (0, 0);
        for seed in 0..1500 {
            let m = model_from_bytes(&noise(seed, 1024));
            let has = m.operators.iter().any(|o| {
                m.opcodes
                    .get(o.opcode_index as usize)
                    .is_some_and(|c| c.builtin_code == op)
            });
            if has {
                drawn += 1;
                let bytes = m.to_bytes();
                if tinyaot_codegen::Config::new().generate(&bytes, "m").is_ok() {
                    compiled += 1;
                }
            }
        }
        assert!(
            drawn >= 15 && compiled >= 3,
            "{compiled} of {drawn} models with {op:?} compile"
        );
    }
}

#[test]
fn most_generated_models_load() {
    let loaded = (0..500)
        .filter(|&seed| {
            tinyaot_codegen::load::load(&model_from_bytes(&noise(seed, 1024)).to_bytes()).is_ok()
        })
        .count();
    // The bias towards well-formed models is the point of the generator.
    assert!(loaded >= 250, "only {loaded} of 500 load");
}

/// The overlap tests' models are not corrupted: nearly all of them compile (the rest are
/// scale pairs TFLM refuses too, such as an int8 HARD_SWISH whose output scale is far below
/// its input's), and the mapping is deterministic.
#[test]
fn overlap_models_compile() {
    let compiled = (0..200)
        .filter(|&seed| {
            let bytes = noise(seed, 256);
            let model = overlap_model(&mut Unstructured::new(&bytes)).to_bytes();
            assert_eq!(
                model,
                overlap_model(&mut Unstructured::new(&bytes)).to_bytes()
            );
            tinyaot_codegen::Config::new()
                .generate(&model, "model")
                .is_ok()
        })
        .count();
    assert!(compiled >= 180, "only {compiled} of 200 compile");
}

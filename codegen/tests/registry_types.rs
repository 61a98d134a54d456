//! The operator registry's type lists against the models with TFLM goldens: every signature an
//! entry says tinyaot compiles (`OpEntry::types`, the README's operator × type table) occurs in a
//! fixture model (tests/fixtures/models) or an accepted hostile corner (tests/fixtures/hostile),
//! which the conformance tests run bit-exact against TFLM in Rust and C. The other direction — a
//! lowering accepting a signature its entry does not list — is an internal error in debug builds
//! (`lower_op`), so every test that compiles a model checks it.

use std::collections::BTreeSet;
use std::path::Path;

use tinyaot_codegen::load::load;
use tinyaot_codegen::lower::registry;

/// The `.tflite` files of a directory of the repository, sorted.
fn models(dir: &str) -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tflite"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_listed_signature_has_a_model_with_tflm_goldens() {
    let registry = registry();
    // (operator, index of the signature in its entry's `tinyaot` list) seen in some model.
    let mut seen = BTreeSet::new();
    for path in models("tests/fixtures/models")
        .into_iter()
        .chain(models("tests/fixtures/hostile/models"))
    {
        let bytes = std::fs::read(&path).unwrap();
        let graph = load(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for op in &graph.operators {
            let name = op.kind.name();
            let Some((_, types)) = registry.iter().find(|(n, _)| *n == name) else {
                continue;
            };
            let Some(found) = types.of_op(&graph, op) else {
                continue;
            };
            if let Some(i) = types.tinyaot.iter().position(|s| s.matches(&found)) {
                seen.insert((name, i));
            }
        }
    }
    let mut missing = Vec::new();
    for (name, types) in &registry {
        for (i, sig) in types.tinyaot.iter().enumerate() {
            if !seen.contains(&(name.clone(), i)) {
                missing.push(format!("{name} {}", sig.render(types.roles)));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "signatures the registry lists as compiled, with no fixture or hostile model (TFLM \
         goldens) using them: {missing:?}; add a model (tests/fixtures/generate.py, or an accepted \
         corner in tests/modelkit/src/hostile.rs and tests/fixtures/hostile/generate.sh)"
    );
}
